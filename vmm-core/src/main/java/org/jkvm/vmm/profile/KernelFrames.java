package org.jkvm.vmm.profile;

import java.util.function.LongUnaryOperator;

/**
 * Walks an arm64 guest kernel's frame records (x29 chain: {@code [fp]} the caller's fp,
 * {@code [fp + 8]} the return address) through guest memory, translating each kernel virtual
 * address with the guest's own TTBR1_EL1 tables: 4 KiB granule (TCR_EL1.TG1), 39- to 52-bit
 * addresses (52: FEAT_LPA2, TCR_EL1.DS, five levels), as Debian's arm64 kernels use. With
 * another granule, or where a translation or a read fails, the walk ends where it is.
 */
final class KernelFrames {
    /** Deepest walk, in frames. */
    static final int MAX_DEPTH = 32;
    private static final long ADDRESS_MASK = 0x0000_FFFF_FFFF_F000L;
    /** With TCR_EL1.DS, a descriptor holds output address bits 49:12 in place and 51:50 in its bits 9:8. */
    private static final long DS_ADDRESS_MASK = 0x0003_FFFF_FFFF_F000L;
    private static final int DS_HIGH_SHIFT = 8;
    private static final int DS_HIGH_TO = 50;
    /** TTBR1_EL1's table address (a top-level table of 16 entries is only 64-byte aligned). */
    private static final long TTBR_ADDRESS_MASK = 0x0000_FFFF_FFFF_FFC0L;
    private static final int DS_BIT = 59;
    private static final int TG1_SHIFT = 30;
    private static final long TG1_4K = 0b10;
    private static final int T1SZ_SHIFT = 16;
    private static final long T1SZ_MASK = 0x3f;
    private static final int PAGE_SHIFT = 12;
    private static final int BITS_PER_LEVEL = 9;
    private static final long VALID = 1;
    private static final long TABLE_OR_PAGE = 3;

    /** Reads the 64-bit word at a guest physical address; throws when nothing is there. */
    private final LongUnaryOperator readPhysical;

    KernelFrames(LongUnaryOperator readPhysical) {
        this.readPhysical = readPhysical;
    }

    /**
     * Collects the return addresses of the frame records from {@code fp} up, innermost first,
     * into {@code out} (pointer-authentication bits stripped); returns how many.
     */
    int walk(long ttbr1, long tcr, long fp, long[] out) {
        if (((tcr >>> TG1_SHIFT) & 3) != TG1_4K) return 0;
        int vaBits = 64 - (int) ((tcr >>> T1SZ_SHIFT) & T1SZ_MASK);
        if (vaBits < 25 || vaBits > 52) return 0;
        boolean ds = ((tcr >>> DS_BIT) & 1) != 0;
        long kernelBits = -1L << vaBits;
        int n = 0;
        try {
            while (n < out.length && n < MAX_DEPTH && fp != 0 && (fp & 0xf) == 0 && (fp & kernelBits) == kernelBits) {
                long record = translate(ttbr1, vaBits, ds, fp);
                if (record < 0) break;
                long lrAt = translate(ttbr1, vaBits, ds, fp + 8);
                if (lrAt < 0) break;
                long previous = readPhysical.applyAsLong(record);
                long lr = readPhysical.applyAsLong(lrAt);
                if (lr == 0) break;
                out[n++] = lr | kernelBits;
                if (Long.compareUnsigned(previous, fp) <= 0) break;
                fp = previous;
            }
        } catch (RuntimeException unreadable) {
            // a record outside guest RAM ends the walk
        }
        return n;
    }

    /** The guest physical address of kernel virtual address {@code va}, or -1 where it is not mapped. */
    long translate(long ttbr1, int vaBits, boolean ds, long va) {
        int levels = (vaBits - PAGE_SHIFT + BITS_PER_LEVEL - 1) / BITS_PER_LEVEL;
        long table = ttbr1 & TTBR_ADDRESS_MASK;
        for (int level = 4 - levels; level <= 3; level++) {
            int shift = PAGE_SHIFT + BITS_PER_LEVEL * (3 - level);
            int indexBits = Math.min(BITS_PER_LEVEL, vaBits - shift);
            long index = (va >>> shift) & ((1L << indexBits) - 1);
            long d = readPhysical.applyAsLong(table + index * 8);
            if ((d & VALID) == 0) return -1;
            long out = ds ? (d & DS_ADDRESS_MASK) | (((d >>> DS_HIGH_SHIFT) & 3) << DS_HIGH_TO) : d & ADDRESS_MASK;
            boolean tableOrPage = (d & TABLE_OR_PAGE) == TABLE_OR_PAGE;
            if (level == 3) {
                return tableOrPage ? out | (va & ((1L << PAGE_SHIFT) - 1)) : -1;
            }
            if (!tableOrPage) {
                if (level <= 0) return -1;
                long blockMask = (1L << shift) - 1;
                return (out & ~blockMask) | (va & blockMask);
            }
            table = out;
        }
        return -1;
    }
}
