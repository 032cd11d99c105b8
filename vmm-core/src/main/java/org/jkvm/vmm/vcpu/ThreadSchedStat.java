package org.jkvm.vmm.vcpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The calling thread's scheduler times from {@code /proc/thread-self/schedstat}: nanoseconds on a
 * CPU, and nanoseconds runnable but waiting for one. For a vCPU thread the wait is what KVM's
 * steal time reports to the guest (arm64 pvtime adds up the same {@code run_delay}), so it
 * measures overcommit from the host's side.
 *
 * @param onCpuNanos   time spent running
 * @param waitingNanos time spent on a run queue, not running
 */
public record ThreadSchedStat(long onCpuNanos, long waitingNanos) {
    private static final Path SELF = Path.of("/proc/thread-self/schedstat");

    /** The calling thread's figures; empty where the kernel does not offer them (no CONFIG_SCHED_INFO). */
    public static Optional<ThreadSchedStat> current() {
        try {
            return parse(Files.readString(SELF));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The figures of thread {@code tid} of this process, read from any thread; empty where the
     * kernel does not offer them or the thread has ended.
     */
    public static Optional<ThreadSchedStat> ofThread(int tid) {
        try {
            return parse(Files.readString(Path.of("/proc/self/task", Integer.toString(tid), "schedstat")));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Parses the file's one line, "on-cpu-ns wait-ns timeslices". */
    static Optional<ThreadSchedStat> parse(String line) {
        String[] f = line.strip().split("\\s+");
        if (f.length < 2) return Optional.empty();
        try {
            return Optional.of(new ThreadSchedStat(Long.parseLong(f[0]), Long.parseLong(f[1])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** This minus an earlier reading of the same thread. */
    public ThreadSchedStat since(ThreadSchedStat earlier) {
        return new ThreadSchedStat(onCpuNanos - earlier.onCpuNanos, waitingNanos - earlier.waitingNanos);
    }
}
