package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/** CPU affinity of host threads: where a vCPU thread may run (sched_setaffinity). */
public final class HostCpus {
    private HostCpus() {}

    /** Bytes of the affinity mask passed to the kernel: room for 8192 CPUs. */
    private static final int MASK_BYTES = 1024;

    /** The CPUs the calling thread may run on. */
    public static BitSet currentAffinity() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment mask = a.allocate(MASK_BYTES, 8);
            if (Libc.schedGetaffinity(0, MASK_BYTES, mask) < 0) {
                throw new KvmException("sched_getaffinity", "this thread", Libc.errno());
            }
            return BitSet.valueOf(mask.asByteBuffer());
        }
    }

    /** Restricts the calling thread to {@code cpus}. */
    public static void pinCurrentThread(BitSet cpus) {
        if (cpus.isEmpty()) throw new IllegalArgumentException("an empty CPU set");
        if (cpus.length() > MASK_BYTES * 8) throw new IllegalArgumentException("CPU " + (cpus.length() - 1) + " is beyond " + (MASK_BYTES * 8));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment mask = a.allocate(MASK_BYTES, 8);
            byte[] bits = cpus.toByteArray();
            MemorySegment.copy(MemorySegment.ofArray(bits), 0, mask, 0, bits.length);
            if (Libc.schedSetaffinity(0, MASK_BYTES, mask) < 0) {
                throw new KvmException("sched_setaffinity", "cpus=" + cpus, Libc.errno(),
                        "the CPU set must name CPUs this process may use (see taskset -p $$)");
            }
        }
    }

    /** The calling thread's kernel thread id. */
    public static int currentTid() {
        return Libc.gettid();
    }
}
