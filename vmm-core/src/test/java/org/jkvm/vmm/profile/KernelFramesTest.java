package org.jkvm.vmm.profile;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The frame-record walk through a guest's own 4 KiB-granule, 48-bit TTBR1 tables, built here in a map. */
@Tag("unit")
class KernelFramesTest {
    /** TG1 = 4 KiB (0b10 at bit 30), T1SZ = 16: 48-bit kernel addresses, four levels. */
    private static final long TCR = (0b10L << 30) | (16L << 16);
    private static final long TTBR1 = 0x1000;
    private static final long STACK = 0xffff_8000_1234_5000L;
    private static final long STACK_PAGE = 0x10_0000;
    private static final long BLOCK_VA = 0xffff_8000_4000_0000L;
    private static final long BLOCK_PA = 0x4020_0000L;
    /** The tables sit in the pages below this. */
    private static final long TABLES_END = 0x6000;

    private final Map<Long, Long> memory = new HashMap<>();
    private final KernelFrames frames = new KernelFrames(gpa -> {
        Long v = memory.get(gpa);
        if (v != null) return v;
        if (gpa < TABLES_END) return 0L; // an empty table entry
        throw new IllegalArgumentException("nothing at 0x" + Long.toHexString(gpa));
    });

    private static long index(long va, int level) {
        return (va >>> (12 + 9 * (3 - level))) & 511;
    }

    KernelFramesTest() {
        // STACK: L0 0x1000 -> L1 0x2000 -> L2 0x3000 -> L3 0x4000 -> page STACK_PAGE
        memory.put(0x1000 + index(STACK, 0) * 8, 0x2000L | 3);
        memory.put(0x2000 + index(STACK, 1) * 8, 0x3000L | 3);
        memory.put(0x3000 + index(STACK, 2) * 8, 0x4000L | 3);
        memory.put(0x4000 + index(STACK, 3) * 8, STACK_PAGE | 0x703);
        // BLOCK_VA: a 2 MiB block at level 2 (same L0 entry, L1 0x2000 -> L2 0x5000)
        memory.put(0x2000 + index(BLOCK_VA, 1) * 8, 0x5000L | 3);
        memory.put(0x5000 + index(BLOCK_VA, 2) * 8, BLOCK_PA | 0x701);
    }

    @Test
    void pagesAndBlocksTranslateAndUnmappedAddressesDoNot() {
        assertEquals(STACK_PAGE + 0x123, frames.translate(TTBR1, 48, false, STACK + 0x123));
        assertEquals(BLOCK_PA + 0x1_2345, frames.translate(TTBR1, 48, false, BLOCK_VA + 0x1_2345));
        assertEquals(-1, frames.translate(TTBR1, 48, false, STACK + 0x1000), "the next page is not mapped");
    }

    @Test
    void theChainIsFollowedOutwardWithPointerAuthenticationBitsStripped() {
        long fp0 = STACK + 0x100;
        long fp1 = STACK + 0x200;
        memory.put(STACK_PAGE + 0x100, fp1);
        memory.put(STACK_PAGE + 0x108, 0x002a_8000_0800_1234L); // signed return address
        memory.put(STACK_PAGE + 0x200, 0L);
        memory.put(STACK_PAGE + 0x208, 0xffff_8000_0800_5678L);
        long[] out = new long[KernelFrames.MAX_DEPTH];
        int n = frames.walk(TTBR1, TCR, fp0, out);
        assertEquals(2, n);
        assertArrayEquals(new long[] {0xffff_8000_0800_1234L, 0xffff_8000_0800_5678L}, Arrays.copyOf(out, n));
    }

    @Test
    void aLoopAMisalignedOrUnmappedRecordOrAnotherGranuleEndsTheWalk() {
        long fp = STACK + 0x100;
        memory.put(STACK_PAGE + 0x100, fp); // points at itself
        memory.put(STACK_PAGE + 0x108, 0xffff_8000_0800_1234L);
        long[] out = new long[KernelFrames.MAX_DEPTH];
        assertEquals(1, frames.walk(TTBR1, TCR, fp, out), "a record that does not move outward ends it");
        assertEquals(0, frames.walk(TTBR1, TCR, fp + 8, out), "frame records are 16-byte aligned");
        assertEquals(0, frames.walk(TTBR1, TCR, STACK + 0x2000, out));
        assertEquals(0, frames.walk(TTBR1, (0b01L << 30) | (16L << 16), fp, out), "16 KiB granule: not walked");
        assertEquals(0, frames.walk(TTBR1, TCR, 0x0000_aaaa_0000_1000L, out), "a user address is not walked");
    }

    @Test
    void fiftyTwoBitAddressesWalkFiveLevelsWithTheLpa2DescriptorLayout() {
        Map<Long, Long> m = new HashMap<>();
        long va = 0xfff0_8000_1234_5678L;
        long[] tables = {0x1040, 0x2000, 0x3000, 0x4000, 0x5000}; // the 16-entry top table is 64-byte aligned
        for (int level = -1; level < 3; level++) {
            int shift = 12 + 9 * (3 - level);
            long index = (va >>> shift) & ((1L << Math.min(9, 52 - shift)) - 1);
            m.put(tables[level + 1] + index * 8, tables[level + 2] | 3);
        }
        // the page at 0x1_0000_0000_0000 + 0x7000: PA bits 51:50 = 0b01 in descriptor bits 9:8
        m.put(0x5000 + ((va >>> 12) & 511) * 8, 0x7000L | (1L << 8) | 3);
        KernelFrames lpa2 = new KernelFrames(gpa -> m.getOrDefault(gpa, 0L));
        assertEquals((1L << 50) | 0x7678, lpa2.translate(0x1040, 52, true, va));
    }
}
