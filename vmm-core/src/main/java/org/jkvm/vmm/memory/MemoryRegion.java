package org.jkvm.vmm.memory;

import org.jkvm.kvm.MappedMemory;

/**
 * One region of guest physical memory and the memslot it sits in.
 *
 * @param name  what it is for, e.g. "ram" or "pvtime"
 * @param kind  RAM (the guest's /memory) or a reserved region outside it
 * @param gpa   guest physical base
 * @param size  bytes
 * @param slot  KVM memslot number
 * @param host  the host memory backing it
 */
public record MemoryRegion(String name, Kind kind, long gpa, long size, int slot, MappedMemory host) {
    /** Whether the guest sees the region as RAM or as reserved memory outside RAM. */
    public enum Kind { RAM, RESERVED }

    /** One past the last guest physical address. */
    public long end() {
        return gpa + size;
    }

    /** Whether {@code address} is inside. */
    public boolean contains(long address) {
        return address >= gpa && address < end();
    }

    @Override
    public String toString() {
        return name + " [0x" + Long.toHexString(gpa) + "-0x" + Long.toHexString(end()) + ") slot " + slot;
    }
}
