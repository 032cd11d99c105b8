package org.jkvm.kvm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Tells when host threads (vCPU threads) are scheduled out and back in, from the kernel's own
 * context-switch records: one perf event per thread ({@code perf_event_open(2)}: software
 * event {@code PERF_COUNT_SW_DUMMY}, {@code context_switch}, {@code sample_id_all} with
 * {@code PERF_SAMPLE_TID | PERF_SAMPLE_TIME}, timestamps on {@code CLOCK_MONOTONIC}), each with
 * a mapped ring buffer, all waited on at once with {@code poll(2)}.
 *
 * <p>Opened on CPUs instead ({@link #openCpus}), it sees every switch on each of them, whoever
 * runs: one {@code PERF_RECORD_SWITCH_CPU_WIDE} record per switch names the task going out and
 * the one coming in, which is what tells who preempted a vCPU thread. That needs more than a
 * per-thread event: root, {@code CAP_PERFMON}, or {@code perf_event_paranoid} &lt;= 0. Those rings
 * wake the poller only when half full, as the records are read for a tally, not for a flag
 * that must be current; poll them with a timeout.
 *
 * <p>By default every record of a per-thread monitor wakes the poller ({@code watermark} of one
 * byte: a non-sample record never counts towards {@code wakeup_events}), so a switch is delivered
 * as soon as the polling thread runs; the kernel raises each such wake-up as an IRQ-work
 * interrupt on the CPU where the thread switched (arm64 and x86: an IPI to itself), at the
 * switch, whether or not anyone waits. A reader that polls on its own timer opens the rings with
 * {@link Wakeup#HALF_FULL} and spares those CPUs the interrupt. Times are {@code CLOCK_MONOTONIC}
 * nanoseconds, the clock of {@link System#nanoTime()} on Linux (HotSpot's
 * {@code os::javaTimeNanos} is {@code clock_gettime(CLOCK_MONOTONIC)}), so they compare directly
 * with it. A ring the poller does not read in time fills, and the kernel drops
 * that thread's next records: {@link SwitchListener#lost} says where, so a reader stops vouching
 * for the thread's state until its next record.
 *
 * <p>Run the polling thread on a CPU the monitored threads do not use: every record wakes it by default,
 * and a wakeup that preempts a monitored thread makes two more records (on a shared CPU this
 * feeds itself: tens of thousands of switches a second instead of hundreds).
 *
 * <p>One thread polls; {@link #close} from another thread waits for the current
 * {@link #poll} to return. Polling does not allocate. Kernel 4.3 or later (context_switch,
 * use_clockid); a non-root user needs {@code /proc/sys/kernel/perf_event_paranoid} &lt;= 2.
 */
public final class ContextSwitchMonitor implements AutoCloseable {

    /** When a thread's ring wakes a poller waiting in {@link #poll}. */
    public enum Wakeup {
        /** At each record: the switch reaches the poller at once, for an IRQ-work interrupt on the thread's CPU each. */
        EACH_RECORD,
        /** Only when half full: for a reader that polls on its own timer; records raise no interrupt until then. */
        HALF_FULL
    }

    /** Receives each context switch of a monitored thread, in ring order (per thread: time order). */
    @FunctionalInterface
    public interface SwitchListener {
        /**
         * @param threadIndex the thread's position in the list given to {@link #open}
         * @param in true when the thread was switched in (starts running), false when out
         * @param preempted for a switch out: the thread was still runnable (preempted by the
         *     scheduler) rather than blocking or sleeping; always false for a switch in
         * @param monotonicNanos when it happened, {@code CLOCK_MONOTONIC} (as {@link System#nanoTime()})
         */
        void switched(int threadIndex, boolean in, boolean preempted, long monotonicNanos);

        /**
         * The kernel dropped {@code count} switches of thread {@code threadIndex} (its ring was
         * full) and wrote so at {@code monotonicNanos}: told in ring order, just before the record
         * that follows the gap, so where the thread is now is unknown until that record.
         */
        default void lost(int threadIndex, long count, long monotonicNanos) {}

        /**
         * Thread {@code threadIndex}'s ring, read at {@code monotonicNanos}, had too little room
         * left for its next record: switches since may be being dropped, and {@link #lost} tells
         * how many only once the kernel writes a record there again. Draining it made room.
         */
        default void ringFull(int threadIndex, long monotonicNanos) {}
    }

    /** Receives each switch away from a task on a monitored CPU, in time order across the CPUs. */
    @FunctionalInterface
    public interface CpuSwitchListener {
        /**
         * @param cpuIndex  the CPU's position in the list given to {@link #openCpus}
         * @param tid       the task switched out (0: the CPU's idle task, or a task outside this
         *                  PID namespace, which perf cannot name from here)
         * @param nextTid   the task switched in (0 as for {@code tid})
         * @param preempted the task going out was still runnable (preempted) rather than blocking
         * @param monotonicNanos when it happened, {@code CLOCK_MONOTONIC} (as {@link System#nanoTime()})
         */
        void switchedOut(int cpuIndex, int tid, int nextTid, boolean preempted, long monotonicNanos);

        /**
         * The kernel dropped {@code count} records of CPU {@code cpuIndex} up to
         * {@code monotonicNanos} (its ring was full): what ran there meanwhile, and which task is
         * there now, is unknown.
         */
        default void lost(int cpuIndex, long count, long monotonicNanos) {}

        /**
         * CPU {@code cpuIndex}'s ring, read at {@code monotonicNanos}, had too little room left for
         * its next record: switches there before then may be missing, and {@link #lost} tells how
         * many only once the kernel writes a record there again (at the end of a watch, never).
         * Told in time order with the records.
         */
        default void ringFull(int cpuIndex, long monotonicNanos) {}
    }

    /** How long {@link #pollCpus} holds back a switch: far longer than a record takes to be written. */
    public static final long HOLD_NANOS = 5_000_000;

    /** Default ring size: 2^3 data pages (32 KiB with 4 KiB pages: about 1300 switch records). */
    public static final int DEFAULT_DATA_PAGES_LOG2 = 3;

    private static final int TYPE_SOFTWARE = (int) HostUapi.constant(UapiConstant.PERF_TYPE_SOFTWARE);
    private static final long SW_DUMMY = HostUapi.constant(UapiConstant.PERF_COUNT_SW_DUMMY);
    private static final long SAMPLE_TID = HostUapi.constant(UapiConstant.PERF_SAMPLE_TID);
    private static final long SAMPLE_TIME = HostUapi.constant(UapiConstant.PERF_SAMPLE_TIME);
    private static final long FLAG_FD_CLOEXEC = HostUapi.constant(UapiConstant.PERF_FLAG_FD_CLOEXEC);
    private static final int CLOCK_MONOTONIC = (int) HostUapi.constant(UapiConstant.CLOCK_MONOTONIC);
    private static final long IOC_ENABLE = HostUapi.request(UapiConstant.PERF_EVENT_IOC_ENABLE);
    private static final long IOC_DISABLE = HostUapi.request(UapiConstant.PERF_EVENT_IOC_DISABLE);
    private static final int RECORD_SWITCH = (int) HostUapi.constant(UapiConstant.PERF_RECORD_SWITCH);
    private static final int RECORD_SWITCH_CPU_WIDE = (int) HostUapi.constant(UapiConstant.PERF_RECORD_SWITCH_CPU_WIDE);
    private static final int RECORD_LOST = (int) HostUapi.constant(UapiConstant.PERF_RECORD_LOST);
    private static final int MISC_SWITCH_OUT = (int) HostUapi.constant(UapiConstant.PERF_RECORD_MISC_SWITCH_OUT);
    private static final int MISC_SWITCH_OUT_PREEMPT =
            (int) HostUapi.constant(UapiConstant.PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);

    private static final long ATTR_BYTES = HostUapi.struct(UapiStruct.perf_event_attr).byteSize();
    private static final long ATTR_TYPE = HostUapi.offset(UapiStruct.perf_event_attr, "type");
    private static final long ATTR_SIZE = HostUapi.offset(UapiStruct.perf_event_attr, "size");
    private static final long ATTR_CONFIG = HostUapi.offset(UapiStruct.perf_event_attr, "config");
    private static final long ATTR_SAMPLE_TYPE = HostUapi.offset(UapiStruct.perf_event_attr, "sample_type");
    private static final long ATTR_WAKEUP_WATERMARK = HostUapi.offset(UapiStruct.perf_event_attr, "wakeup_watermark");
    private static final long ATTR_CLOCKID = HostUapi.offset(UapiStruct.perf_event_attr, "clockid");
    /** The bitfield word jextract leaves as padding; its bits are jkvm_perf.h's masks. */
    private static final long ATTR_FLAGS = HostUapi.constant(UapiConstant.JKVM_PERF_ATTR_FLAGS_OFFSET);
    private static final long ATTR_FLAG_BITS = HostUapi.constant(UapiConstant.JKVM_PERF_ATTR_FLAG_DISABLED)
            | HostUapi.constant(UapiConstant.JKVM_PERF_ATTR_FLAG_EXCLUDE_KERNEL)
            | HostUapi.constant(UapiConstant.JKVM_PERF_ATTR_FLAG_EXCLUDE_HV)
            | HostUapi.constant(UapiConstant.JKVM_PERF_ATTR_FLAG_WATERMARK)
            | HostUapi.constant(UapiConstant.JKVM_PERF_ATTR_FLAG_SAMPLE_ID_ALL)
            | HostUapi.constant(UapiConstant.JKVM_PERF_ATTR_FLAG_USE_CLOCKID)
            | HostUapi.constant(UapiConstant.JKVM_PERF_ATTR_FLAG_CONTEXT_SWITCH);

    private static final long PAGE_DATA_HEAD = HostUapi.offset(UapiStruct.perf_event_mmap_page, "data_head");
    private static final long PAGE_DATA_TAIL = HostUapi.offset(UapiStruct.perf_event_mmap_page, "data_tail");
    private static final long PAGE_DATA_OFFSET = HostUapi.offset(UapiStruct.perf_event_mmap_page, "data_offset");
    private static final long PAGE_DATA_SIZE = HostUapi.offset(UapiStruct.perf_event_mmap_page, "data_size");
    private static final long HDR_TYPE = HostUapi.offset(UapiStruct.perf_event_header, "type");
    private static final long HDR_MISC = HostUapi.offset(UapiStruct.perf_event_header, "misc");
    private static final long HDR_SIZE = HostUapi.offset(UapiStruct.perf_event_header, "size");
    private static final long HDR_BYTES = HostUapi.struct(UapiStruct.perf_event_header).byteSize();
    /**
     * Every non-sample record ends with a struct sample_id holding the fields sample_type
     * selects, in ABI order: {u32 pid, tid} for TID, then u64 time for TIME. So the time is the
     * record's last 8 bytes.
     */
    private static final long SAMPLE_ID_TIME_FROM_END = 8;
    /** The sample_id's tid: the u32 before its time. */
    private static final long SAMPLE_ID_TID_FROM_END = 12;
    /** PERF_RECORD_SWITCH_CPU_WIDE: header, u32 next_prev_pid, u32 next_prev_tid, sample_id. */
    private static final long NEXT_PREV_TID = HDR_BYTES + 4;
    /** PERF_RECORD_LOST: header, u64 id, u64 lost, sample_id. */
    private static final long LOST_COUNT = HDR_BYTES + 8;
    /** The sample_id this monitor asks for: u32 pid, u32 tid, u64 time. */
    private static final long SAMPLE_ID_BYTES = 16;
    /**
     * A ring with less free space than this may be dropping a thread's records: once the kernel
     * has dropped one it writes the next only with a lost notice before it, both in one go.
     */
    private static final long ROOM_AFTER_A_DROP = (LOST_COUNT + 8 + SAMPLE_ID_BYTES) + (HDR_BYTES + SAMPLE_ID_BYTES);

    /** Why root is not enough in a container, and what is. */
    private static final String IN_A_CONTAINER = "in a container root is not enough: Docker's default seccomp profile"
            + " refuses perf_event_open (EPERM) without the capability, so give it (docker run --cap-add PERFMON, or"
            + " --cap-add SYS_ADMIN where Docker does not know PERFMON, as Debian 12's 20.10) or lower the host's"
            + " perf_event_paranoid";

    /** Acquire/release access to the ring's head and tail words (shared with the kernel). */
    private static final VarHandle U64 = JAVA_LONG.varHandle();

    private final int[] tids;   // the threads, or the CPUs when cpuWide
    private final boolean cpuWide;
    private final CpuSwitchMerge merge;    // cpuWide: the rings' records in one time order
    private final int[] fds;
    private final MemorySegment[] pages;   // the whole mapping: control page + data
    private final MemorySegment[] data;    // the data area
    private final long[] masks;            // data size - 1 (a power of two)
    private final boolean[] exited;
    private final Arena arena;
    private final MemorySegment pollFds;
    private final ReentrantLock lock = new ReentrantLock();
    private long switches;
    private long lost;
    private long fullRings;
    private boolean closed;

    private ContextSwitchMonitor(int[] tids, boolean cpuWide, Arena arena) {
        int n = tids.length;
        this.tids = tids.clone();
        this.cpuWide = cpuWide;
        this.merge = cpuWide ? new CpuSwitchMerge(n) : null;
        this.fds = new int[n];
        Arrays.fill(fds, -1);
        this.pages = new MemorySegment[n];
        this.data = new MemorySegment[n];
        this.masks = new long[n];
        this.exited = new boolean[n];
        this.arena = arena;
        this.pollFds = arena.allocate(Libc.POLLFD_BYTES * n, 8);
    }

    /** Monitors the threads {@code tids} (kernel thread ids, e.g. {@link HostCpus#currentTid}), waking at each record. */
    public static ContextSwitchMonitor open(int... tids) {
        return open(DEFAULT_DATA_PAGES_LOG2, Wakeup.EACH_RECORD, tids);
    }

    /**
     * Monitors the threads {@code tids}, each with a ring of 2^{@code dataPagesLog2} pages that
     * wakes a waiting poller as {@code wakeup} says.
     *
     * @throws KvmException naming {@code perf_event_open}, {@code mmap} or the ioctl that failed,
     *     with what to do when the host refuses (perf_event_paranoid, a container's seccomp)
     */
    public static ContextSwitchMonitor open(int dataPagesLog2, Wakeup wakeup, int[] tids) {
        if (tids.length == 0) throw new IllegalArgumentException("no thread to monitor");
        return open(dataPagesLog2, tids, false, wakeup);
    }

    /**
     * Monitors every switch on the CPUs {@code cpus}, each with a ring of 2^{@code dataPagesLog2}
     * pages; read with {@link #pollCpus}.
     *
     * @throws KvmException naming {@code perf_event_open} (with the CPU), {@code mmap} or the ioctl
     *     that failed, with what to do when the host refuses (not root, perf_event_paranoid)
     */
    public static ContextSwitchMonitor openCpus(int dataPagesLog2, int[] cpus) {
        if (cpus.length == 0) throw new IllegalArgumentException("no CPU to monitor");
        return open(dataPagesLog2, cpus, true, Wakeup.HALF_FULL);
    }

    private static ContextSwitchMonitor open(int dataPagesLog2, int[] targets, boolean cpuWide, Wakeup wakeup) {
        if (dataPagesLog2 < 0 || dataPagesLog2 > 16) {
            throw new IllegalArgumentException("dataPagesLog2 " + dataPagesLog2 + " is not in 0..16");
        }
        Arena arena = Arena.ofShared();
        ContextSwitchMonitor m;
        try {
            m = new ContextSwitchMonitor(targets, cpuWide, arena);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
        try {
            m.openAll(dataPagesLog2, wakeup);
            return m;
        } catch (RuntimeException | Error e) {
            m.close();
            throw e;
        }
    }

    private void openAll(int dataPagesLog2, Wakeup wakeup) {
        long pageSize = Libc.pageSize();
        long mapBytes = pageSize * (1 + (1L << dataPagesLog2));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(ATTR_BYTES, 8);
            attr.set(JAVA_INT, ATTR_TYPE, TYPE_SOFTWARE);
            attr.set(JAVA_INT, ATTR_SIZE, (int) ATTR_BYTES);
            attr.set(JAVA_LONG, ATTR_CONFIG, SW_DUMMY);
            attr.set(JAVA_LONG, ATTR_SAMPLE_TYPE, SAMPLE_TID | SAMPLE_TIME);
            attr.set(JAVA_LONG, ATTR_FLAGS, ATTR_FLAG_BITS);
            // A CPU's ring sees every switch there, the poller's own wakeups among them: only a
            // half-full ring wakes it.
            attr.set(JAVA_INT, ATTR_WAKEUP_WATERMARK, wakeup == Wakeup.HALF_FULL ? (int) ((mapBytes - pageSize) / 2) : 1);
            attr.set(JAVA_INT, ATTR_CLOCKID, CLOCK_MONOTONIC);
            for (int i = 0; i < tids.length; i++) {
                int tid = tids[i];
                int fd = cpuWide ? Libc.perfEventOpen(attr, -1, tid, -1, FLAG_FD_CLOEXEC)
                        : Libc.perfEventOpen(attr, tid, -1, -1, FLAG_FD_CLOEXEC);
                if (fd < 0) throw openFailure(tid, cpuWide, Libc.errno());
                fds[i] = fd;
                long addr = Libc.mmap(mapBytes, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_SHARED, fds[i], 0);
                if (addr == Libc.MAP_FAILED) {
                    int errno = Libc.errno();
                    throw new KvmException("mmap", "perf ring of " + target(i) + ", " + mapBytes + " bytes", errno,
                            errno == Libc.EPERM
                                    ? "the rings exceed this user's locked-memory allowance for perf"
                                      + " (/proc/sys/kernel/perf_event_mlock_kb): use fewer data pages, or run as root"
                                    : null);
                }
                MemorySegment page = MemorySegment.ofAddress(addr)
                        .reinterpret(mapBytes, arena, s -> Libc.munmap(s.address(), s.byteSize()));
                pages[i] = page;
                long off = page.get(JAVA_LONG, PAGE_DATA_OFFSET);
                long size = page.get(JAVA_LONG, PAGE_DATA_SIZE);
                if (size == 0) { // kernels before 4.1 leave these 0: data follows the first page
                    off = pageSize;
                    size = mapBytes - pageSize;
                }
                data[i] = page.asSlice(off, size);
                masks[i] = size - 1;
                MemorySegment pfd = pollFds.asSlice(Libc.POLLFD_BYTES * i, Libc.POLLFD_BYTES);
                pfd.set(JAVA_INT, Libc.POLLFD_FD, fds[i]);
                pfd.set(JAVA_SHORT, Libc.POLLFD_EVENTS, Libc.POLLIN);
            }
        }
        for (int i = 0; i < tids.length; i++) {
            if (Libc.ioctl(fds[i], IOC_ENABLE, 0L) < 0) {
                throw new KvmException("PERF_EVENT_IOC_ENABLE", target(i), Libc.errno());
            }
        }
    }

    private String target(int i) {
        return (cpuWide ? "cpu " : "tid ") + tids[i];
    }

    private static KvmException openFailure(int target, boolean cpuWide, int errno) {
        String args = "type=PERF_TYPE_SOFTWARE, config=PERF_COUNT_SW_DUMMY, context_switch, "
                + (cpuWide ? "pid=-1, cpu=" + target : "pid=" + target + ", cpu=-1");
        String hint;
        if (cpuWide && (errno == Libc.EACCES || errno == Libc.EPERM)) {
            hint = "the host refuses CPU-wide perf events (kernel.perf_event_paranoid=" + paranoid() + "): run as root"
                    + " (or with CAP_PERFMON), or lower /proc/sys/kernel/perf_event_paranoid to 0 or less"
                    + " (sysctl -w kernel.perf_event_paranoid=0); " + IN_A_CONTAINER;
        } else if (errno == Libc.EACCES || errno == Libc.EPERM) {
            String paranoid = paranoid();
            hint = "the host refuses perf events (kernel.perf_event_paranoid=" + paranoid + "): run as root"
                    + " (or with CAP_PERFMON), or lower /proc/sys/kernel/perf_event_paranoid to 2 or less"
                    + " (sysctl -w kernel.perf_event_paranoid=1); " + IN_A_CONTAINER;
        } else if (errno == Libc.ENOSYS) {
            hint = "perf_event_open is missing: the kernel lacks CONFIG_PERF_EVENTS, or a container's seccomp"
                    + " profile blocks it with ENOSYS (run outside the container or allow the syscall)";
        } else if (errno == Libc.ESRCH) {
            hint = "no thread " + target + " (it exited, or is not in this PID namespace)";
        } else if (errno == Libc.EINVAL) {
            hint = "the kernel does not accept this perf_event_attr (context_switch and use_clockid need Linux 4.3+)";
        } else {
            hint = null;
        }
        return new KvmException("perf_event_open", args, errno, hint);
    }

    private static String paranoid() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid")).strip();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** How many threads are monitored. */
    public int threads() {
        return tids.length;
    }

    /** The kernel thread id of thread {@code index} (of a monitor of CPUs: the CPU number). */
    public int tid(int index) {
        return tids[index];
    }

    /** Whether thread {@code index} has exited (its event hung up); it is no longer polled. */
    public boolean exited(int index) {
        lock.lock();
        try {
            return exited[index];
        } finally {
            lock.unlock();
        }
    }

    /** Switch records delivered to listeners so far. */
    public long switchRecords() {
        return underLock(() -> switches);
    }

    /** Records the kernel dropped because a ring was full (the sum of PERF_RECORD_LOST counts). */
    public long lostRecords() {
        return underLock(() -> lost);
    }

    /**
     * How many times a ring was read with too little room left for the next record: the kernel
     * may have dropped records then, which {@link #lostRecords} counts once it writes its notice.
     * Each is told to the listener ({@link SwitchListener#ringFull}, {@link CpuSwitchListener#ringFull}).
     */
    public long fullRings() {
        return underLock(() -> fullRings);
    }

    private long underLock(LongSupplier counter) {
        lock.lock();
        try {
            return counter.getAsLong();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Delivers the switches already in the rings; if there were none, waits up to
     * {@code timeoutMillis} (-1: without limit, 0: not at all) for one on any thread and
     * delivers what arrived. Returns the number of switch records delivered (0: timed out, or
     * interrupted by a signal). Does not allocate.
     */
    public int poll(int timeoutMillis, SwitchListener listener) {
        if (cpuWide) throw new IllegalStateException("a monitor of CPUs is read with pollCpus");
        return poll(timeoutMillis, listener, null);
    }

    /**
     * As {@link #poll}, for a monitor of CPUs ({@link #openCpus}): delivers each switch away
     * from a task there, in time order across the CPUs, up to {@link #HOLD_NANOS} before the
     * rings were read (later ones wait for the next call, as a CPU read later may still have
     * older ones). The rings wake a waiting poll only when half full: give a timeout. Allocates
     * only when the records held back outgrow their arrays.
     */
    public int pollCpus(int timeoutMillis, CpuSwitchListener listener) {
        if (!cpuWide) throw new IllegalStateException("a monitor of threads is read with poll");
        return poll(timeoutMillis, null, listener);
    }

    /** Delivers every switch in the rings and held back, in time order: for the end of a watch. */
    public int flushCpus(CpuSwitchListener listener) {
        if (!cpuWide) throw new IllegalStateException("a monitor of threads is read with poll");
        lock.lock();
        try {
            if (closed) throw new IllegalStateException("context switch monitor is closed");
            for (int i = 0; i < tids.length; i++) drain(i, null);
            return deliver(Long.MAX_VALUE, listener);
        } finally {
            lock.unlock();
        }
    }

    private int poll(int timeoutMillis, SwitchListener listener, CpuSwitchListener cpuListener) {
        lock.lock();
        try {
            if (closed) throw new IllegalStateException("context switch monitor is closed");
            int delivered = drainAll(listener, cpuListener);
            if (delivered > 0 || timeoutMillis == 0) return delivered;
            int rc = Libc.poll(pollFds, tids.length, timeoutMillis);
            if (rc < 0) {
                int errno = Libc.errno();
                if (errno != Libc.EINTR) throw new KvmException("poll", tids.length + " perf events", errno);
                return 0;
            }
            if (rc > 0) checkHangups();
            return drainAll(listener, cpuListener);
        } finally {
            lock.unlock();
        }
    }

    /** Stops polling the events of threads that exited (poll would return POLLHUP at once forever). */
    private void checkHangups() {
        for (int i = 0; i < tids.length; i++) {
            long at = Libc.POLLFD_BYTES * i;
            short revents = pollFds.get(JAVA_SHORT, at + Libc.POLLFD_REVENTS);
            if ((revents & Libc.POLLNVAL) != 0) {
                throw new IllegalStateException("perf event of " + target(i) + " (fd " + fds[i] + ") is not open");
            }
            if ((revents & (Libc.POLLHUP | Libc.POLLERR)) != 0 && !exited[i]) {
                exited[i] = true;
                pollFds.set(JAVA_INT, at + Libc.POLLFD_FD, -1); // poll ignores negative fds
            }
        }
    }

    private int drainAll(SwitchListener listener, CpuSwitchListener cpuListener) {
        // A record is in its ring within microseconds of its stamp: all stamped HOLD_NANOS before this are.
        long readAt = System.nanoTime();
        int delivered = 0;
        for (int i = 0; i < tids.length && !closed; i++) delivered += drain(i, listener);
        return cpuListener == null ? delivered : deliver(readAt - HOLD_NANOS, cpuListener);
    }

    private int deliver(long cutoff, CpuSwitchListener listener) {
        int n = merge.deliver(cutoff, listener);
        switches += n;
        return n;
    }

    /**
     * Reads ring {@code i} from data_tail to data_head, then hands the space back: a thread's
     * records go to {@code listener}, a CPU's into {@link #merge} (its switch-in records are
     * skipped: the switch-out record of the same switch names both tasks).
     */
    private int drain(int i, SwitchListener listener) {
        MemorySegment page = pages[i];
        MemorySegment ring = data[i];
        long mask = masks[i];
        long head = (long) U64.getAcquire(page, PAGE_DATA_HEAD); // records before head are complete
        long tail = page.get(JAVA_LONG, PAGE_DATA_TAIL);          // only this thread writes it
        boolean full = head - tail > mask + 1 - ROOM_AFTER_A_DROP;
        int delivered = 0;
        while (tail < head) {
            long at = tail & mask; // records are 8-byte aligned: the header never wraps
            int type = ring.get(JAVA_INT, at + HDR_TYPE);
            int misc = Short.toUnsignedInt(ring.get(JAVA_SHORT, at + HDR_MISC));
            int size = Short.toUnsignedInt(ring.get(JAVA_SHORT, at + HDR_SIZE));
            if (size < HDR_BYTES) {
                throw new IllegalStateException("corrupt perf ring of " + target(i) + ": record size " + size);
            }
            if (type == RECORD_SWITCH || type == RECORD_SWITCH_CPU_WIDE) {
                // Each 8-byte field is aligned, so it wraps as a whole.
                long time = ring.get(JAVA_LONG, (tail + size - SAMPLE_ID_TIME_FROM_END) & mask);
                boolean out = (misc & MISC_SWITCH_OUT) != 0;
                boolean preempted = out && (misc & MISC_SWITCH_OUT_PREEMPT) != 0;
                if (!cpuWide) {
                    switches++;
                    delivered++;
                    listener.switched(i, !out, preempted, time);
                    if (closed) return delivered; // the listener closed the monitor
                } else if (out && type == RECORD_SWITCH_CPU_WIDE) {
                    int tid = ring.get(JAVA_INT, (tail + size - SAMPLE_ID_TID_FROM_END) & mask);
                    int next = ring.get(JAVA_INT, (tail + NEXT_PREV_TID) & mask);
                    merge.switchedOut(i, tid, next, preempted, time);
                }
            } else if (type == RECORD_LOST) {
                long count = ring.get(JAVA_LONG, (tail + LOST_COUNT) & mask);
                long time = ring.get(JAVA_LONG, (tail + size - SAMPLE_ID_TIME_FROM_END) & mask);
                lost += count;
                if (cpuWide) {
                    merge.lost(i, count, time);
                } else {
                    listener.lost(i, count, time);
                    if (closed) return delivered;
                }
            }
            tail += size;
        }
        U64.setRelease(page, PAGE_DATA_TAIL, tail); // the kernel may reuse the space only now
        if (full) {
            fullRings++;
            // Stamped once the space is handed back: every record written since comes after it.
            long now = System.nanoTime();
            if (cpuWide) {
                merge.ringFull(i, now);
            } else {
                listener.ringFull(i, now);
            }
        }
        return delivered;
    }

    /** Disables and closes every event and unmaps its ring. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            for (int fd : fds) {
                if (fd >= 0) Libc.ioctl(fd, IOC_DISABLE, 0L);
            }
            arena.close(); // munmaps the rings
            for (int i = 0; i < fds.length; i++) {
                if (fds[i] >= 0) Libc.close(fds[i]);
                fds[i] = -1;
            }
        } finally {
            lock.unlock();
        }
    }
}
