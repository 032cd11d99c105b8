package org.jkvm.pvlock;

import org.jkvm.kvm.HostCpus;
import org.jkvm.vmm.bus.HypercallBus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The answers a guest gets to its PV-lock discovery calls, and the counters they leave. */
@Tag("unit")
class PvLockCallsTest {
    private AnonymousRegion anon;
    private PvLockRegion region;
    private PvLockStats stats;
    private UserspacePreemptionTracker tracker;
    private HypercallBus bus;

    @BeforeEach
    void setUp() {
        anon = AnonymousRegion.of(4);
        region = anon.region();
        stats = new PvLockStats(4);
        tracker = new UserspacePreemptionTracker(region, stats, 4, TrackerCpus.of(4, null), 0);
        for (int v = 0; v < 4; v++) tracker.started(v, HostCpus.currentTid());
        PvLockCalls calls = new PvLockCalls(0b11, region, stats, tracker);
        bus = new HypercallBus();
        bus.register("features", PvLockCalls.FEATURES, 1, calls);
        bus.register("pvlock", PvLockCalls.PV_LOCK, 1, calls);
    }

    @AfterEach
    void tearDown() {
        tracker.close();
        anon.close();
    }

    @Test
    void theFeaturesCallAddsBit2ToTheKernelsBitmap() {
        assertArrayEquals(new long[] {0b111}, UnreadArguments.answer(bus, 0, 0x8600_0000L));
        assertEquals(1, stats.featureCalls(0));
    }

    @Test
    void thePvLockCallGivesEachVcpuItsOwn64ByteAlignedStructure() {
        for (int v = 0; v < 4; v++) {
            long[] r = UnreadArguments.answer(bus, v, 0xC600_0002L);
            assertArrayEquals(new long[] {AnonymousRegion.BASE + 64L * v}, r);
            assertEquals(0, r[0] % 64);
            assertEquals(1, stats.pvLockCalls(v));
        }
    }

    @Test
    void onlyThePvLockCallStartsTheUserspaceTracker() {
        UnreadArguments.answer(bus, 0, 0x8600_0000L);
        assertEquals(-1, stats.trackingStartedMillis(), "the features call does not hand out a structure");
        UnreadArguments.answer(bus, 2, 0xC600_0002L);
        assertTrue(stats.trackingStartedMillis() >= 0, "the guest may read its flags from now on");
    }

    @Test
    void otherVendorCallsAreNotSupported() {
        assertArrayEquals(new long[] {HypercallBus.NOT_SUPPORTED}, UnreadArguments.answer(bus, 0, 0xC600_0003L));
        assertEquals(1, bus.unknownCalls());
    }

    @Test
    void preemptedIsWhatTheGuestReadsAtTheStructure() {
        region.setPreempted(2, true);
        assertEquals(1, region.preempted(2));
        assertEquals(1, anon.memory().segment().get(java.lang.foreign.ValueLayout.JAVA_LONG, 128));
        region.setPreempted(2, false);
        assertEquals(0, anon.memory().segment().get(java.lang.foreign.ValueLayout.JAVA_LONG, 128));
    }
}
