package org.jkvm.vmm.profile;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Symbolising samples: System.map lines, the KASLR offset from VBAR_EL1, shares with Wilson intervals, folded stacks. */
@Tag("unit")
class ProfileReportTest {
    private static final SymbolTable MAP = SymbolTable.parse(List.of(
            "ffff800080000000 T _text",
            "ffff800080010000 t vectors",
            "ffff800080020000 T osq_lock",
            "ffff800080020400 T cpu_do_idle",
            "ffff800080030000 D some_data",
            "ffff800080020200 W weak_helper"), "System.map");

    @Test
    void aPcResolvesToTheTextSymbolAtOrBelowIt() {
        assertEquals(5, MAP.size(), "data symbols are left out");
        assertEquals("osq_lock", MAP.at(0xffff800080020004L).orElseThrow());
        assertEquals("weak_helper", MAP.at(0xffff800080020200L).orElseThrow());
        assertEquals("cpu_do_idle", MAP.at(0xffff800080030010L).orElseThrow(), "data symbols do not end a function");
        assertTrue(MAP.at(0x1000).isEmpty());
        assertEquals(0xffff800080010000L, MAP.address("vectors").orElseThrow());
    }

    @Test
    void aLineThatIsNoSymbolIsAnErrorNamingTheLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SymbolTable.parse(List.of("ffff800080000000 T _text", "garbage"), "map.txt"));
        assertEquals("map.txt:2: not 'ADDRESS TYPE NAME': garbage", e.getMessage());
    }

    @Test
    void theWilsonIntervalMatchesTheTextbookValues() {
        SymbolShare half = SymbolShare.of("x", 50, 100);
        assertEquals(0.5, half.share(), 1e-12);
        assertEquals(0.4038, half.low(), 1e-4);
        assertEquals(0.5962, half.high(), 1e-4);
        SymbolShare none = SymbolShare.of("x", 0, 10);
        assertEquals(0, none.low(), 1e-12);
        assertEquals(0.2775, none.high(), 1e-4);
    }

    @Test
    void samplesAreNamedUnderKaslrWeightedAndFolded() {
        long kaslr = 0x1234_0000L;
        VcpuSamples v0 = new VcpuSamples();
        v0.add(0, 0xffff800080020010L + kaslr, 1, 3, 100);
        v0.add(0, 0xffff800080020410L + kaslr, 1, 1, 100);
        v0.add(0, 0x0000aaaa00001000L, 0, 1, 100);
        v0.ranFor(50_000_000);
        VcpuSamples v1 = new VcpuSamples();
        v1.add(0, 0xffff800080020020L + kaslr, 1, 1, 300);
        GuestProfile p = new GuestProfile(100, List.of(v0, v1), OptionalLong.of(0xffff800080010000L + kaslr));

        ProfileReport r = ProfileReport.of(p, Optional.of(MAP), 2);

        assertTrue(r.symbolisation().contains("KASLR offset 0x12340000"), r.symbolisation());
        assertEquals(6, r.samples());
        assertEquals(150, r.cost().getAverage(), 1e-9);
        assertEquals(100, r.medianCost());
        assertEquals(300, r.cost().getMax());
        assertEquals("osq_lock", r.total().getFirst().symbol());
        assertEquals(4, r.total().getFirst().samples());
        assertEquals(2, r.total().size(), "top 2 only");
        ProfileReport.VcpuProfile first = r.vcpus().getFirst();
        assertEquals(5, first.samples());
        assertEquals(50_000_000, first.cpuNanos());
        assertEquals(List.of("osq_lock", "[user]"), first.top().stream().map(SymbolShare::symbol).toList(),
                "ties are ordered by name");
        assertEquals(List.of("vcpu0;[user] 1", "vcpu0;cpu_do_idle 1", "vcpu0;osq_lock 3", "vcpu1;osq_lock 1"), r.folded());
    }

    @Test
    void withoutSymbolsPcsStayAddressesAndWithoutVbarTheMapIsTakenAsLinked() {
        VcpuSamples v = new VcpuSamples();
        v.add(0, 0x40001234L, 1, 1, 10);
        GuestProfile p = new GuestProfile(99, List.of(v), OptionalLong.empty());
        assertEquals("0x40001234", ProfileReport.of(p, Optional.empty(), 5).total().getFirst().symbol());
        assertTrue(ProfileReport.of(p, Optional.of(MAP), 5).symbolisation().contains("taken as linked"));
    }

    @Test
    void periodsSpentInJkvmAreTheirOwnFrameAndNotACostOfSampling() {
        VcpuSamples v = new VcpuSamples();
        v.add(0, 0, VcpuSamples.VMM, 2, 0);
        v.add(0, 0xffff800080020010L, 1, 1, 40);
        ProfileReport r = ProfileReport.of(new GuestProfile(99, List.of(v), OptionalLong.empty()), Optional.of(MAP), 5);
        assertEquals(List.of("vcpu0;[jkvm] 2", "vcpu0;osq_lock 1"), r.folded());
        assertEquals(1, r.cost().getCount(), "only guest samples read registers");
        assertEquals(40, r.medianCost());
    }

    @Test
    void kernelCallersFoldOutermostFirstEachNamedByTheCallBeforeItsReturnAddress() {
        VcpuSamples v = new VcpuSamples();
        // osq_lock, called from the last instruction of weak_helper (returns to cpu_do_idle's first), called from _text
        long[] returns = {0xffff800080020400L, 0xffff800080000010L};
        v.add(0, 0xffff800080020010L, 1, 1, 10, returns, 2);
        ProfileReport r = ProfileReport.of(new GuestProfile(99, List.of(v), OptionalLong.empty()), Optional.of(MAP), 5);
        assertEquals(List.of("vcpu0;_text;weak_helper;osq_lock 1"), r.folded());
    }

    @Test
    void aWindowKeepsTheSamplesTakenInItWithTheirCallersAndTheCpuTheyStandFor() {
        VcpuSamples v = new VcpuSamples();
        long[] returns = {0xffff800080020400L, 0xffff800080000010L};
        v.add(1_000, 0xffff800080020010L, 1, 1, 10, returns, 2); // boot, before the window
        v.add(2_000, 0xffff800080020010L, 1, 2, 10, returns, 1); // the window's first instant
        v.add(2_500, 0, VcpuSamples.VMM, 1, 0);
        v.add(3_000, 0x0000aaaa00001000L, 0, 1, 10); // the window's end, left out
        v.ranFor(50_000_000);
        GuestProfile whole = new GuestProfile(100, List.of(v), OptionalLong.empty());

        ProfileReport r = ProfileReport.of(whole.between(2_000, 3_000), Optional.of(MAP), 5);

        assertEquals(List.of("vcpu0;[jkvm] 1", "vcpu0;weak_helper;osq_lock 2"), r.folded());
        assertEquals(3 * 10_000_000L, r.vcpus().getFirst().cpuNanos(), "3 periods of 10 ms at 100 Hz");
        assertEquals(5, ProfileReport.of(whole, Optional.of(MAP), 5).samples(), "the whole run keeps every sample");
    }
}
