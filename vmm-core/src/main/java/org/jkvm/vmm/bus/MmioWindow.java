package org.jkvm.vmm.bus;

/**
 * A device's window on the {@link MmioBus}: the guest-physical range {@code [base, base + size)}
 * that the machine gives the device and that no other device may share, of which the device
 * decodes the first {@code decoded} bytes. Accesses past them are stray, as accesses no device
 * owns. Most devices decode their whole window ({@link #of}); a register block smaller than
 * the slot it sits in, such as a 16550's 8 bytes in a 4 KiB page, does not.
 *
 * @param base    the first guest-physical address
 * @param size    the window's length in bytes, positive
 * @param decoded how many bytes from {@code base} the device answers, 1..{@code size}
 */
public record MmioWindow(long base, long size, long decoded) {
    /** Validates that the window is non-empty, does not wrap, and holds what is decoded. */
    public MmioWindow {
        if (base < 0 || size <= 0 || base + size < base) {
            throw new IllegalArgumentException("bad MMIO window: base 0x%x size 0x%x".formatted(base, size));
        }
        if (decoded <= 0 || decoded > size) {
            throw new IllegalArgumentException("an MMIO window of 0x%x bytes at 0x%x cannot decode 0x%x bytes"
                    .formatted(size, base, decoded));
        }
    }

    /** A window the device decodes whole. */
    public static MmioWindow of(long base, long size) {
        return new MmioWindow(base, size, size);
    }
}
