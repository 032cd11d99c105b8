package org.jkvm.kvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

/** CPU affinity of host threads: where a vCPU thread, or the rest of jkvm, may run (sched_setaffinity). */
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
        pin(0, cpus); // never false here: the calling thread is alive
    }

    /**
     * Restricts every thread this process has to {@code cpus}; a thread made later starts where
     * the thread that makes it may run. Threads that end meanwhile are passed over. Returns how many
     * threads were pinned.
     */
    public static int pinProcess(BitSet cpus) {
        Set<Integer> seen = new HashSet<>();
        int pinned = 0;
        // A thread not pinned yet may start another (the JVM adds compiler threads from compiler
        // threads), which begins on the old CPUs: list again until a listing holds no new thread.
        for (boolean fresh = true; fresh; ) {
            fresh = false;
            for (int tid : processThreads()) {
                if (!seen.add(tid)) continue;
                fresh = true;
                if (pin(tid, cpus)) pinned++;
            }
        }
        return pinned;
    }

    private static int[] processThreads() {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.mapToInt(t -> Integer.parseInt(t.getFileName().toString())).toArray();
        } catch (IOException e) {
            throw new UncheckedIOException("listing this process's threads in /proc/self/task: " + e.getMessage(), e);
        }
    }

    /** Pins thread {@code tid} (0: the calling thread); false if it has ended. */
    private static boolean pin(int tid, BitSet cpus) {
        if (cpus.isEmpty()) throw new IllegalArgumentException("an empty CPU set");
        if (cpus.length() > MASK_BYTES * 8) throw new IllegalArgumentException("CPU " + (cpus.length() - 1) + " is beyond " + (MASK_BYTES * 8));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment mask = a.allocate(MASK_BYTES, 8);
            byte[] bits = cpus.toByteArray();
            MemorySegment.copy(MemorySegment.ofArray(bits), 0, mask, 0, bits.length);
            if (Libc.schedSetaffinity(tid, MASK_BYTES, mask) == 0) return true;
            int errno = Libc.errno();
            if (errno == Libc.ESRCH) return false;
            throw new KvmException("sched_setaffinity", "tid=" + (tid == 0 ? "this thread" : tid) + ", cpus=" + cpus, errno,
                    "the CPU set must name CPUs this process may use (see taskset -p $$)");
        }
    }

    /** The calling thread's kernel thread id. */
    public static int currentTid() {
        return Libc.gettid();
    }
}
