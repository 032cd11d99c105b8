package org.jkvm.vmm.bus;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Guest MMIO accesses reaching the device that owns the address. */
@Tag("unit")
class MmioBusTest {
    /** A device that records accesses and answers reads with {@code tag + offset}. */
    static final class Recorder implements MmioDevice {
        final long tag;
        final List<String> log = new ArrayList<>();

        Recorder(long tag) {
            this.tag = tag;
        }

        @Override
        public long read(int vcpu, long offset, int size) {
            log.add("read vcpu" + vcpu + " +0x" + Long.toHexString(offset) + "/" + size);
            return tag + offset;
        }

        @Override
        public void write(int vcpu, long offset, int size, long value) {
            log.add("write vcpu" + vcpu + " +0x" + Long.toHexString(offset) + "/" + size + "=0x" + Long.toHexString(value));
        }
    }

    MmioBus bus;
    Recorder uart;
    Recorder rtc;

    @BeforeEach
    void bus() {
        bus = new MmioBus();
        uart = new Recorder(0x1000);
        rtc = new Recorder(0x2000);
        bus.register("uart", MmioWindow.of(0x0900_0000L, 0x1000), uart);
        bus.register("rtc", MmioWindow.of(0x0901_0000L, 0x1000), rtc);
    }

    @Test
    void readsReachTheOwnerWithOffsetsFromItsBase() {
        assertEquals(0x1000 + 0x18, bus.read(2, 0x0900_0018L, 4));
        assertEquals(0x2000, bus.read(0, 0x0901_0000L, 1));
        assertEquals(List.of("read vcpu2 +0x18/4"), uart.log);
        assertEquals(List.of("read vcpu0 +0x0/1"), rtc.log);
    }

    @Test
    void writesReachTheOwnerWithOffsetsFromItsBase() {
        bus.write(1, 0x0901_0004L, 8, 0xdead_beef_cafeL);
        assertEquals(List.of("write vcpu1 +0x4/8=0xdeadbeefcafe"), rtc.log);
        assertEquals(List.of(), uart.log);
        assertEquals(0, bus.strayAccesses());
    }

    @Test
    void lastByteOfARangeBelongsToIt() {
        assertEquals(0x1000 + 0xfff, bus.read(0, 0x0900_0fffL, 1));
        assertEquals(0, bus.strayAccesses());
    }

    @Test
    void firstByteAfterARangeIsUnmapped() {
        assertEquals(0, bus.read(0, 0x0900_1000L, 1));
        assertEquals(List.of(), uart.log);
        assertEquals(1, bus.strayAccesses());
    }

    @Test
    void byteBeforeTheFirstRangeIsUnmapped() {
        assertEquals(0, bus.read(0, 0x08ff_ffffL, 1));
        assertEquals(0, bus.read(0, 0, 4));
        assertEquals(2, bus.strayAccesses());
    }

    @Test
    void unmappedReadReturnsZeroAndIsCounted() {
        assertEquals(0, bus.read(0, 0x4000_0000L, 8));
        assertEquals(1, bus.strayAccesses());
    }

    @Test
    void unmappedWriteIsDroppedAndCounted() {
        bus.write(0, 0x0900_8000L, 4, 42);
        bus.write(3, 0xffff_0000L, 4, 42);
        assertEquals(List.of(), uart.log);
        assertEquals(List.of(), rtc.log);
        assertEquals(2, bus.strayAccesses());
    }

    @Test
    void strayAccessesAreAllCountedBeyondTheLoggedFew() {
        for (int i = 0; i < 100; i++) bus.read(0, 0x10L * i, 4);
        assertEquals(100, bus.strayAccesses());
    }

    @Test
    void adjacentRangesAreAllowed() {
        Recorder a = new Recorder(0xa000), b = new Recorder(0xb000);
        bus.register("a", MmioWindow.of(0x1000, 0x100), a);
        bus.register("b", MmioWindow.of(0x1100, 0x100), b);
        bus.register("before-a", MmioWindow.of(0xf00, 0x100), new Recorder(0));
        assertEquals(0xa0ff, bus.read(0, 0x10ff, 1));
        assertEquals(0xb000, bus.read(0, 0x1100, 1));
    }

    @Test
    void rangeOverlappingTheStartOfAnotherIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> bus.register("gic", MmioWindow.of(0x08ff_f000L, 0x1001), new Recorder(0)));
        assertEquals("MMIO range gic [0x8fff000..0x9000001) overlaps uart [0x9000000..0x9001000)", e.getMessage());
    }

    @Test
    void rangeOverlappingTheEndOfAnotherIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> bus.register("gic", MmioWindow.of(0x0900_0fffL, 0x10), new Recorder(0)));
        assertEquals("MMIO range gic [0x9000fff..0x900100f) overlaps uart [0x9000000..0x9001000)", e.getMessage());
    }

    @Test
    void rangeInsideAnotherIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> bus.register("inner", MmioWindow.of(0x0900_0100L, 0x10), new Recorder(0)));
        assertTrue(e.getMessage().endsWith("overlaps uart [0x9000000..0x9001000)"), e.getMessage());
    }

    @Test
    void rangeCoveringSeveralIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> bus.register("huge", MmioWindow.of(0x0800_0000L, 0x0200_0000L), new Recorder(0)));
        assertTrue(e.getMessage().startsWith("MMIO range huge [0x8000000..0xa000000) overlaps "), e.getMessage());
    }

    @Test
    void sameRangeTwiceIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> bus.register("uart2", MmioWindow.of(0x0900_0000L, 0x1000), new Recorder(0)));
        assertEquals(0x1000, bus.read(0, 0x0900_0000L, 1), "a refused registration replaced the owner");
    }

    @Test
    void refusedRegistrationLeavesTheBusAsItWas() {
        assertThrows(IllegalArgumentException.class, () -> bus.register("x", MmioWindow.of(0x0900_0800L, 0x1000), new Recorder(0)));
        assertEquals(0x1000 + 0x800, bus.read(0, 0x0900_0800L, 1));
        assertEquals(0, bus.read(0, 0x0900_1800L, 1));
    }

    @Test
    void oneByteRangeAtTheTopOfAnotherGapIsReachable() {
        Recorder one = new Recorder(0x7700);
        assertDoesNotThrow(() -> bus.register("one", MmioWindow.of(0x0900_1000L, 1), one));
        assertEquals(0x7700, bus.read(0, 0x0900_1000L, 1));
        assertEquals(0, bus.read(0, 0x0900_1001L, 1));
    }

    @Test
    void emptyRangeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> bus.register("empty", MmioWindow.of(0x0900_0000L, 0), new Recorder(0)));
        assertEquals(0x1000, bus.read(0, 0x0900_0000L, 1));
    }

    @Test
    void bytesPastWhatADeviceDecodesAreStrayButItsWindowIsStillItsOwn() {
        Recorder serial = new Recorder(0x5000);
        bus.register("serial", new MmioWindow(0x0902_0000L, 0x1000, 8), serial);
        assertEquals(0x5007, bus.read(0, 0x0902_0007L, 1));
        assertEquals(0, bus.read(0, 0x0902_0008L, 1));
        bus.write(0, 0x0902_0fffL, 1, 1);
        assertEquals(List.of("read vcpu0 +0x7/1"), serial.log);
        assertEquals(2, bus.strayAccesses());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> bus.register("rtc2", MmioWindow.of(0x0902_0800L, 0x100), new Recorder(0)));
        assertEquals("MMIO range rtc2 [0x9020800..0x9020900) overlaps serial [0x9020000..0x9021000)", e.getMessage());
    }

    @Test
    void windowDecodingMoreThanItHoldsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new MmioWindow(0x0902_0000L, 8, 0x1000));
        assertThrows(IllegalArgumentException.class, () -> new MmioWindow(0x0902_0000L, 8, 0));
    }
}
