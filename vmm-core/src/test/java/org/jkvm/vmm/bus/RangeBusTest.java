package org.jkvm.vmm.bus;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Keys finding the owner of the range they fall in; what the MMIO and hypercall buses share. */
@Tag("unit")
class RangeBusTest {
    RangeBus<String> bus;

    @BeforeEach
    void bus() {
        bus = new RangeBus<>("test");
        bus.register("low", 0x100, 0x10, "L");
        bus.register("high", 0x200, 0x100, "H");
    }

    @Test
    void keysFindTheOwnerOfTheirRangeFirstToLastKey() {
        assertEquals("L", bus.find(0x100).owner());
        assertEquals("L", bus.find(0x10f).owner());
        assertEquals("H", bus.find(0x2ff).owner());
        assertEquals(0x200, bus.find(0x280).base());
    }

    @Test
    void keysOutsideEveryRangeFindNothing() {
        assertNull(bus.find(0));
        assertNull(bus.find(0xff));
        assertNull(bus.find(0x110));
        assertNull(bus.find(0x300));
        assertNull(bus.find(Long.MAX_VALUE));
    }

    @Test
    void overlapIsRefusedNamingBothOwnersAndTheirKeys() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> bus.register("middle", 0x108, 0x100, "M"));
        assertEquals("test range middle [0x108..0x208) overlaps high [0x200..0x300)", e.getMessage());
        assertEquals(2, bus.ranges().size());
    }

    @Test
    void emptyAndWrappingRangesAreRefusedNamingTheOwner() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bus.register("none", 0x400, 0, "N"));
        assertEquals("none: an empty or wrapping test range: base 0x400 size 0", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> bus.register("wrap", Long.MAX_VALUE, 2, "W"));
    }

    @Test
    void missesAreCountedAsTheBusesReportThem() {
        assertEquals(0, bus.misses());
        assertEquals(1, bus.miss());
        assertEquals(2, bus.miss());
        assertEquals(2, bus.misses());
    }

    @Test
    void rangesAreListedInKeyOrderAndShowTheirKeys() {
        bus.register("zero", 0, 1, "Z");
        assertEquals(List.of("zero [0x0..0x1)", "low [0x100..0x110)", "high [0x200..0x300)"),
                bus.ranges().stream().map(RangeBus.Range::toString).toList());
    }
}
