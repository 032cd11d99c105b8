package org.jkvm.vmm.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.VmFd;
import org.jkvm.vmm.memory.MemoryRegion.Kind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Guest physical memory in real KVM memslots. */
@Tag("kvm")
class GuestMemoryTest {
    static final long PAGE = 4096;
    static final long RAM = 0x4000_0000L;
    static final long RAM_SIZE = 16L << 20;
    static final long PVTIME = 0x0900_0000L;

    Kvm kvm;
    VmFd vm;
    GuestMemory mem;

    @BeforeEach
    void vm() {
        kvm = KvmTier.openOrSkip();
        vm = kvm.createVm();
        mem = new GuestMemory(vm);
    }

    @AfterEach
    void close() {
        if (mem != null) mem.close();
        if (vm != null) vm.close();
        if (kvm != null) kvm.close();
    }

    @Test
    void regionsGetTheirOwnSlotsInOrder() {
        MemoryRegion ram = mem.add("ram", Kind.RAM, RAM, RAM_SIZE, true);
        MemoryRegion pv = mem.add("pvtime", Kind.RESERVED, PVTIME, PAGE, false);
        assertEquals(0, ram.slot());
        assertEquals(1, pv.slot());
        assertEquals(RAM + RAM_SIZE, ram.end());
        assertEquals(RAM_SIZE, ram.host().segment().byteSize());
        assertEquals(List.of(ram, pv), mem.regions());
        assertSame(ram, mem.regionOf(RAM));
        assertSame(ram, mem.regionOf(RAM + RAM_SIZE - 1));
        assertSame(pv, mem.regionOf(PVTIME + 100));
        assertNull(mem.regionOf(RAM + RAM_SIZE));
        assertNull(mem.regionOf(0));
    }

    @Test
    void overlappingRegionIsRefusedNamingBoth() {
        mem.add("ram", Kind.RAM, RAM, RAM_SIZE, true);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> mem.add("pvtime", Kind.RESERVED, RAM + RAM_SIZE - PAGE, 2 * PAGE, false));
        assertEquals("pvtime at 0x40fff000 overlaps ram [0x40000000-0x41000000) slot 0", e.getMessage());
        assertEquals(1, mem.regions().size());
    }

    @Test
    void regionEndingWhereAnotherStartsIsAllowed() {
        mem.add("ram", Kind.RAM, RAM, RAM_SIZE, true);
        mem.add("below", Kind.RESERVED, RAM - PAGE, PAGE, false);
        mem.add("above", Kind.RESERVED, RAM + RAM_SIZE, PAGE, false);
        assertEquals(3, mem.regions().size());
    }

    @Test
    void badRangesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> mem.add("neg", Kind.RAM, -PAGE, PAGE, false));
        assertThrows(IllegalArgumentException.class, () -> mem.add("empty", Kind.RAM, RAM, 0, false));
        assertThrows(IllegalArgumentException.class, () -> mem.add("wrap", Kind.RAM, Long.MAX_VALUE - PAGE + 1, 2 * PAGE, false));
        assertEquals(List.of(), mem.regions());
    }

    @Test
    void writeThenReadBackThroughASlice() {
        mem.add("ram", Kind.RAM, RAM, RAM_SIZE, true);
        byte[] data = "hello, guest".getBytes(StandardCharsets.US_ASCII);
        mem.write(RAM + 0x1234, data);
        MemorySegment s = mem.slice(RAM + 0x1234, data.length);
        assertArrayEquals(data, s.toArray(ValueLayout.JAVA_BYTE));
        assertEquals('h', mem.slice(RAM + 0x1234, 1).get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void sliceWritesLandInTheRegionsHostMemory() {
        MemoryRegion pv = mem.add("pvtime", Kind.RESERVED, PVTIME, PAGE, false);
        mem.slice(PVTIME + 8, 8).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x1122_3344_5566_7788L);
        assertEquals(0x1122_3344_5566_7788L, pv.host().segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
    }

    @Test
    void sliceUpToTheLastByteOfARegionIsAllowed() {
        mem.add("ram", Kind.RAM, RAM, RAM_SIZE, true);
        assertEquals(PAGE, mem.slice(RAM + RAM_SIZE - PAGE, PAGE).byteSize());
        assertEquals(RAM_SIZE, mem.slice(RAM, RAM_SIZE).byteSize());
        assertEquals(0, mem.slice(RAM, 0).byteSize());
    }

    @Test
    void rangeCrossingTheEndOfARegionIsRefused() {
        mem.add("ram", Kind.RAM, RAM, RAM_SIZE, true);
        mem.add("above", Kind.RESERVED, RAM + RAM_SIZE, PAGE, false);
        GuestAddressException e = assertThrows(GuestAddressException.class,
                () -> mem.slice(RAM + RAM_SIZE - 4, 8));
        assertEquals("guest range [0x40fffffc, +0x8) is not wholly inside ram [0x40000000-0x41000000) slot 0",
                e.getMessage());
        assertThrows(GuestAddressException.class, () -> mem.write(RAM + RAM_SIZE - 1, new byte[2]));
    }

    @Test
    void rangeOutsideGuestMemoryIsRefused() {
        mem.add("ram", Kind.RAM, RAM, RAM_SIZE, true);
        GuestAddressException e = assertThrows(GuestAddressException.class, () -> mem.slice(0x1000, 4));
        assertEquals("guest range [0x1000, +0x4) is not in guest memory", e.getMessage());
        assertThrows(GuestAddressException.class, () -> mem.slice(RAM + RAM_SIZE, 1));
    }

    @Test
    void negativeLengthIsRefused() {
        mem.add("ram", Kind.RAM, RAM, RAM_SIZE, true);
        assertThrows(GuestAddressException.class, () -> mem.slice(RAM, -1));
    }

    @Test
    void hugeLengthIsRefusedAsAGuestAddressProblem() {
        mem.add("ram", Kind.RAM, RAM, RAM_SIZE, true);
        assertThrows(GuestAddressException.class, () -> mem.slice(RAM + 1, Long.MAX_VALUE));
    }

    @Test
    void closeReleasesEveryRegion() {
        mem.add("ram", Kind.RAM, RAM, RAM_SIZE, true);
        mem.close();
        assertEquals(List.of(), mem.regions());
        assertTrue(mem.regionOf(RAM) == null);
    }
}
