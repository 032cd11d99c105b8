package org.jkvm.vmm.virtio;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One request the driver made available: the buffers of a checked descriptor chain, the
 * device-readable ones first, each already a slice of guest memory.
 *
 * @param head     the index of its first descriptor, which the used ring returns
 * @param readable the buffers the device reads, in chain order
 * @param writable the buffers the device writes, in chain order
 */
public record DescriptorChain(int head, List<MemorySegment> readable, List<MemorySegment> writable) {
    /** Keeps unmodifiable copies of the lists. */
    public DescriptorChain {
        readable = List.copyOf(readable);
        writable = List.copyOf(writable);
    }

    /** How many bytes the device may write. */
    public long writableBytes() {
        return Buffers.total(writable);
    }
}
