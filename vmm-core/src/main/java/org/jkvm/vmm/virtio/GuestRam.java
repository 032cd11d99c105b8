package org.jkvm.vmm.virtio;

import java.lang.foreign.MemorySegment;

import org.jkvm.vmm.memory.GuestAddressException;
import org.jkvm.vmm.memory.GuestMemory;

/**
 * The guest memory a virtio device reaches: {@link GuestMemory#slice} in a VM, a plain segment in
 * tests. Every guest address a queue or device touches goes through it.
 */
@FunctionalInterface
public interface GuestRam {
    /**
     * Host memory for {@code [gpa, gpa + length)}.
     *
     * @throws GuestAddressException when the range is not wholly inside guest memory
     */
    MemorySegment slice(long gpa, long length);
}
