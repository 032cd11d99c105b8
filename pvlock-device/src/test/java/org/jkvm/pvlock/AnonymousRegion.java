package org.jkvm.pvlock;

import org.jkvm.kvm.MappedMemory;
import org.jkvm.vmm.memory.MemoryRegion;

/**
 * A PV-lock region over anonymous memory, for tests that write and read the flags without a VM.
 *
 * @param memory the mapping, closed by {@link #close()}
 * @param region the region on it, {@code vcpus} structures from {@link #BASE}
 */
record AnonymousRegion(MappedMemory memory, PvLockRegion region) implements AutoCloseable {
    static final long BASE = 0x0A10_0000L;
    private static final long SIZE = 0x10000;

    static AnonymousRegion of(int vcpus) {
        MappedMemory mem = MappedMemory.anonymous(SIZE, false);
        return new AnonymousRegion(mem, new PvLockRegion(new MemoryRegion("pvlock", MemoryRegion.Kind.RESERVED, BASE, SIZE, 1, mem), vcpus));
    }

    @Override
    public void close() {
        memory.close();
    }
}
