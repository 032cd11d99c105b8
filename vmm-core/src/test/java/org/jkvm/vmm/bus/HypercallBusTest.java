package org.jkvm.vmm.bus;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Guest hypercalls (SMCCC function ids) reaching the device that owns the id. */
@Tag("unit")
class HypercallBusTest {
    static final long PV_TIME = 0xc500_0020L;   // SMCCC vendor-hyp PV_TIME_FEATURES-ish range
    static final long PV_LOCK = 0xc600_0000L;

    HypercallBus bus;
    List<String> calls;

    HypercallHandler handler(String name) {
        return (vcpu, function, call) -> {
            calls.add(name + " vcpu" + vcpu + " 0x" + Long.toHexString(function) + " " + List.of(call.argument(0)));
            call.result(0, function - (name.equals("pvtime") ? PV_TIME : PV_LOCK));
            call.result(1, call.argument(0));
        };
    }

    @BeforeEach
    void bus() {
        bus = new HypercallBus();
        calls = new ArrayList<>();
        bus.register("pvtime", PV_TIME, 2, handler("pvtime"));
        bus.register("pvlock", PV_LOCK, 4, handler("pvlock"));
    }

    @Test
    void callsReachTheOwnerWithTheirArguments() {
        assertArrayEquals(new long[] {1, 7}, ArrayHypercall.answer(bus, 5, PV_TIME + 1, 7, 8, 9));
        assertArrayEquals(new long[] {3, 0}, ArrayHypercall.answer(bus, 0, PV_LOCK + 3));
        assertEquals(List.of("pvtime vcpu5 0xc5000021 [7]", "pvlock vcpu0 0xc6000003 [0]"), calls);
        assertEquals(0, bus.unknownCalls());
    }

    @Test
    void idJustPastARangeIsUnknown() {
        assertArrayEquals(new long[] {-1}, ArrayHypercall.answer(bus, 0, PV_TIME + 2));
        assertArrayEquals(new long[] {-1}, ArrayHypercall.answer(bus, 0, PV_LOCK + 4));
        assertEquals(List.of(), calls);
        assertEquals(2, bus.unknownCalls());
    }

    @Test
    void idJustBeforeARangeIsUnknown() {
        assertArrayEquals(new long[] {-1}, ArrayHypercall.answer(bus, 0, PV_TIME - 1));
        assertEquals(1, bus.unknownCalls());
    }

    @Test
    void unknownIdAnswersNotSupportedAndIsCounted() {
        long[] answer = ArrayHypercall.answer(bus, 0, 0x8400_0000L); // PSCI_VERSION: not ours
        assertArrayEquals(new long[] {HypercallBus.NOT_SUPPORTED}, answer);
        assertArrayEquals(new long[] {-1L}, answer);
        for (int i = 0; i < 20; i++) ArrayHypercall.answer(bus, 1, 0x1234 + i);
        assertEquals(21, bus.unknownCalls());
        assertEquals(List.of(), calls);
    }

    @Test
    void rangesAreListedInIdOrder() {
        bus.register("low", 0x10, 1, handler("low"));
        long[][] r = bus.ranges();
        assertEquals(3, r.length);
        assertArrayEquals(new long[] {0x10, 1}, r[0]);
        assertArrayEquals(new long[] {PV_TIME, 2}, r[1]);
        assertArrayEquals(new long[] {PV_LOCK, 4}, r[2]);
    }

    @Test
    void adjacentRangesAreAllowed() {
        bus.register("next", PV_TIME + 2, 1, handler("pvtime"));
        ArrayHypercall.answer(bus, 0, PV_TIME + 2);
        assertEquals(1, calls.size());
    }

    @Test
    void overlappingTheStartIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> bus.register("other", PV_LOCK - 1, 2, handler("other")));
        assertEquals("SMCCC function id range other [0xc5ffffff..0xc6000001) overlaps pvlock [0xc6000000..0xc6000004)",
                e.getMessage());
    }

    @Test
    void overlappingTheEndIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> bus.register("other", PV_LOCK + 3, 10, handler("other")));
        assertEquals("SMCCC function id range other [0xc6000003..0xc600000d) overlaps pvlock [0xc6000000..0xc6000004)",
                e.getMessage());
    }

    @Test
    void sameRangeTwiceIsRefusedAndTheOwnerStays() {
        assertThrows(IllegalArgumentException.class, () -> bus.register("again", PV_TIME, 2, handler("again")));
        ArrayHypercall.answer(bus, 0, PV_TIME);
        assertEquals(List.of("pvtime vcpu0 0xc5000020 [0]"), calls);
    }

    @Test
    void rangeCoveringAnotherIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> bus.register("all", 0xc000_0000L, 0x1000_0000, handler("all")));
        assertEquals(2, bus.ranges().length);
    }

    @Test
    void emptyRangeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> bus.register("empty", PV_TIME, 0, handler("empty")));
        assertEquals(2, bus.ranges().length);
    }
}
