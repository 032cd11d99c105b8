package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A timer on one thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) that sends that thread a
 * signal each time it has used another period of CPU: a preempted, blocked or halted thread
 * uses none, so it gets none. Created on the thread it measures; for a vCPU thread the signal
 * is {@link VcpuFd#KICK_SIGNAL}, which interrupts KVM_RUN like a kick. Closing is idempotent.
 */
public final class ThreadCpuTimer implements AutoCloseable {
    private static final int CLOCK = (int) HostUapi.constant(UapiConstant.CLOCK_THREAD_CPUTIME_ID);
    private static final int SIGEV_THREAD_ID = (int) HostUapi.constant(UapiConstant.SIGEV_THREAD_ID);
    private static final long SIGEVENT_SIZE = HostUapi.struct(UapiStruct.sigevent).byteSize();
    private static final long SE_SIGNO = HostUapi.offset(UapiStruct.sigevent, "sigev_signo");
    private static final long SE_NOTIFY = HostUapi.offset(UapiStruct.sigevent, "sigev_notify");
    private static final long SE_TID = HostUapi.offset(UapiStruct.sigevent, "_sigev_un", "_tid");
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long timerId;
    private final String description;
    private boolean closed;

    private ThreadCpuTimer(long timerId, String description) {
        this.timerId = timerId;
        this.description = description;
    }

    /**
     * Starts a timer on the calling thread's CPU time that sends it {@code signal} every
     * {@code periodNanos} of that time.
     */
    public static ThreadCpuTimer startOnCurrentThread(int signal, long periodNanos) {
        if (periodNanos <= 0) throw new IllegalArgumentException("period must be positive: " + periodNanos + " ns");
        int tid = Libc.gettid();
        String description = "CPU-time timer of thread " + tid + " (signal " + signal + ", every " + periodNanos + " ns)";
        try (Arena a = Arena.ofConfined()) {
            MemorySegment event = a.allocate(SIGEVENT_SIZE, 8);
            event.set(JAVA_INT, SE_SIGNO, signal);
            event.set(JAVA_INT, SE_NOTIFY, SIGEV_THREAD_ID);
            event.set(JAVA_INT, SE_TID, tid);
            MemorySegment id = a.allocate(JAVA_LONG);
            if (Libc.timerCreate(CLOCK, event, id) != 0) throw new KvmException("timer_create", description, Libc.errno());
            long timerId = id.get(JAVA_LONG, 0);
            MemorySegment spec = a.allocate(2 * Libc.TIMESPEC_BYTES, 8);
            for (long at : new long[] {0, Libc.TIMESPEC_BYTES}) {
                spec.set(JAVA_LONG, at, periodNanos / NANOS_PER_SECOND);
                spec.set(JAVA_LONG, at + Long.BYTES, periodNanos % NANOS_PER_SECOND);
            }
            if (Libc.timerSettime(timerId, 0, spec) != 0) {
                int errno = Libc.errno();
                Libc.timerDelete(timerId);
                throw new KvmException("timer_settime", description, errno);
            }
            return new ThreadCpuTimer(timerId, description);
        }
    }

    /** The calling thread's CPU time so far, in nanoseconds. */
    public static long currentThreadCpuNanos(MemorySegment scratch) {
        if (Libc.clockGettime(CLOCK, scratch) != 0) {
            throw new KvmException("clock_gettime", "CLOCK_THREAD_CPUTIME_ID", Libc.errno());
        }
        return scratch.get(JAVA_LONG, 0) * NANOS_PER_SECOND + scratch.get(JAVA_LONG, Long.BYTES);
    }

    /** Scratch memory for {@link #currentThreadCpuNanos}, so the sampling path does not allocate. */
    public static MemorySegment clockScratch(Arena arena) {
        return arena.allocate(Libc.TIMESPEC_BYTES, 8);
    }

    /** Stops and deletes the timer; a signal already sent stays pending. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (Libc.timerDelete(timerId) != 0) throw new KvmException("timer_delete", description, Libc.errno());
    }

    @Override
    public String toString() {
        return description;
    }
}
