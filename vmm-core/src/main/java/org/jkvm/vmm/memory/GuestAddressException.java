package org.jkvm.vmm.memory;

/** A guest physical range that is not wholly inside one memory region ({@code near}: the region it starts in, or null). */
public final class GuestAddressException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public GuestAddressException(long gpa, long length, MemoryRegion near) {
        super("guest range [0x" + Long.toHexString(gpa) + ", +0x" + Long.toHexString(length) + ") is "
                + (near == null ? "not in guest memory" : "not wholly inside " + near));
    }
}
