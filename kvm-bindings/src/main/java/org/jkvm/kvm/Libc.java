package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The few libc functions jkvm calls, bound once with errno captured on every call.
 *
 * <p>Each method returns the raw result; {@link #check} turns a -1 into a {@link KvmException}
 * carrying the errno of that call. The capture buffer is per thread so the vCPU exit path does
 * not allocate.
 */
final class Libc {
    private Libc() {}

    // Linux values shared by x86_64 and arm64 (asm-generic); libc headers, not KVM's.
    static final int O_RDONLY = 0x0;
    static final int O_RDWR = 0x2;
    static final int O_CLOEXEC = 0x80000;
    static final int O_NONBLOCK = 0x800;
    /** Opening a terminal does not make it the controlling one (asm-generic/fcntl.h, as O_RDWR). */
    static final int O_NOCTTY = 0x100;
    /** socketpair(2) for a stand-in tap: a Unix socket keeping message boundaries. */
    static final int AF_UNIX = 1;
    static final int SOCK_SEQPACKET = 5;
    static final int PROT_READ = 0x1;
    static final int PROT_WRITE = 0x2;
    static final int MAP_SHARED = 0x01;
    static final int MAP_PRIVATE = 0x02;
    static final int MAP_ANONYMOUS = 0x20;
    static final int MAP_NORESERVE = 0x4000;
    static final int EFD_CLOEXEC = O_CLOEXEC;
    static final int EFD_NONBLOCK = 0x800;
    static final int SIG_BLOCK = 0;
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int ESRCH = 3;
    static final int EINTR = 4;
    static final int ENXIO = 6;
    static final int EAGAIN = 11;
    static final int EACCES = 13;
    static final int EINVAL = 22;
    static final int ENOSYS = 38;
    static final long MAP_FAILED = -1L;
    /** poll(2) events (asm-generic/poll.h, the same on x86_64 and arm64). */
    static final short POLLIN = 0x1;
    static final short POLLERR = 0x8;
    static final short POLLHUP = 0x10;
    static final short POLLNVAL = 0x20;
    /** struct pollfd: int fd; short events; short revents. */
    static final long POLLFD_BYTES = 8;
    static final long POLLFD_FD = 0;
    static final long POLLFD_EVENTS = 4;
    static final long POLLFD_REVENTS = 6;
    /** struct timespec on LP64: two longs (tv_sec, tv_nsec). */
    static final long TIMESPEC_BYTES = 16;
    /** glibc's sigset_t is 1024 bits; the kernel's is 64. */
    static final long GLIBC_SIGSET_BYTES = 128;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option ERRNO_OPT = Linker.Option.captureCallState("errno");
    private static final ThreadLocal<MemorySegment> STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));

    private static MethodHandle bind(String name, FunctionDescriptor fd, Linker.Option... opts) {
        MemorySegment sym = LIBC.find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return LINKER.downcallHandle(sym, fd, opts);
    }

    private static MethodHandle withErrno(String name, FunctionDescriptor fd) {
        return bind(name, fd, ERRNO_OPT);
    }

    private static final MethodHandle OPEN = bind("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
            ERRNO_OPT, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = withErrno("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle IOCTL_PTR = bind("ioctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS),
            ERRNO_OPT, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle IOCTL_LONG = bind("ioctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG),
            ERRNO_OPT, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle MMAP = withErrno("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = withErrno("munmap",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle EVENTFD = withErrno("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle READ = withErrno("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle PREAD = withErrno("pread",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle WRITE = withErrno("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle GETTID = bind("gettid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle PTHREAD_SIGMASK = bind("pthread_sigmask",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle GETPID = bind("getpid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle TGKILL = withErrno("tgkill",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle SIGTIMEDWAIT = withErrno("sigtimedwait",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle SCHED_GETAFFINITY = withErrno("sched_getaffinity",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));

    // Bound on first use: every downcall handle costs start-up time (a native stub and its
    // adapters, a good part of a second interpreted in the emulated arm64 host), and these are
    // not on the way to the first KVM_RUN (pinning, perf, errors). Those of a stop (kick,
    // teardown) stay bound up front: stopping must not wait for a binding.
    private static final class SchedSetaffinity {
        static final MethodHandle HANDLE = withErrno("sched_setaffinity",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    }
    /** syscall(2) as perf_event_open needs it: every argument passed as a full 64-bit long. */
    private static final class Syscall {
        static final MethodHandle HANDLE = bind("syscall",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                ERRNO_OPT, Linker.Option.firstVariadicArg(1));
    }
    /** readv/writev: the frame I/O of a tap, straight to and from guest buffers. */
    private static final class Vectored {
        static final MethodHandle READV = withErrno("readv", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
        static final MethodHandle WRITEV = withErrno("writev", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    }
    /** preadv/pwritev and fdatasync: a disk image's I/O, straight to and from guest buffers ({@link VectoredFile}). */
    private static final class PositionedVectored {
        static final MethodHandle PREADV = withErrno("preadv",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
        static final MethodHandle PWRITEV = withErrno("pwritev",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
        static final MethodHandle FDATASYNC = withErrno("fdatasync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    private static final class Socketpair {
        static final MethodHandle HANDLE = withErrno("socketpair",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    }
    private static final class Poll {
        static final MethodHandle HANDLE = withErrno("poll",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }
    private static final class ClockGettime {
        static final MethodHandle HANDLE = withErrno("clock_gettime",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }
    /** timer_t is a pointer-sized handle in glibc; it is passed around as a long. Used only by the profiler. */
    private static final class Timers {
        static final MethodHandle CREATE = withErrno("timer_create",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle SETTIME = withErrno("timer_settime",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle DELETE = withErrno("timer_delete",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    }
    private static final class Fallocate {
        static final MethodHandle HANDLE = withErrno("fallocate",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    }
    private static final class Getpagesize {
        static final MethodHandle HANDLE = bind("getpagesize", FunctionDescriptor.of(JAVA_INT));
    }
    private static final class Strerrorname {
        static final MethodHandle HANDLE = bind("strerrorname_np", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }
    private static final class Strerror {
        static final MethodHandle HANDLE = bind("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    /** The errno left by the last call made through this class on the current thread. */
    static int errno() {
        return (int) ERRNO.get(STATE.get(), 0L);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }

    static int open(String path, int flags) {
        try (Arena a = Arena.ofConfined()) {
            return (int) OPEN.invokeExact(STATE.get(), a.allocateFrom(path), flags, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int close(int fd) {
        try {
            return (int) CLOSE.invokeExact(STATE.get(), fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int ioctl(int fd, long request, MemorySegment arg) {
        try {
            return (int) IOCTL_PTR.invokeExact(STATE.get(), fd, request, arg);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int ioctl(int fd, long request, long arg) {
        try {
            return (int) IOCTL_LONG.invokeExact(STATE.get(), fd, request, arg);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Returns the mapping's address, or {@link #MAP_FAILED}. */
    static long mmap(long length, int prot, int flags, int fd, long offset) {
        try {
            MemorySegment p = (MemorySegment) MMAP.invokeExact(STATE.get(), MemorySegment.NULL,
                    length, prot, flags, fd, offset);
            return p.address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int munmap(long address, long length) {
        try {
            return (int) MUNMAP.invokeExact(STATE.get(), MemorySegment.ofAddress(address), length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int eventfd(int initval, int flags) {
        try {
            return (int) EVENTFD.invokeExact(STATE.get(), initval, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long read(int fd, MemorySegment buf, long count) {
        try {
            return (long) READ.invokeExact(STATE.get(), fd, buf, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** pread(2): reads at {@code offset} without moving the file position. Does not allocate. */
    static long pread(int fd, MemorySegment buf, long count, long offset) {
        try {
            return (long) PREAD.invokeExact(STATE.get(), fd, buf, count, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long write(int fd, MemorySegment buf, long count) {
        try {
            return (long) WRITE.invokeExact(STATE.get(), fd, buf, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int gettid() {
        try {
            return (int) GETTID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int getpid() {
        try {
            return (int) GETPID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int tgkill(int tgid, int tid, int sig) {
        try {
            return (int) TGKILL.invokeExact(STATE.get(), tgid, tid, sig);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Returns 0 or an error number (pthread functions do not set errno). */
    static int pthreadSigmask(int how, MemorySegment set, MemorySegment oldSet) {
        try {
            return (int) PTHREAD_SIGMASK.invokeExact(how, set, oldSet);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int sigtimedwait(MemorySegment set, MemorySegment info, MemorySegment timeout) {
        try {
            return (int) SIGTIMEDWAIT.invokeExact(STATE.get(), set, info, timeout);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int schedSetaffinity(int tid, long size, MemorySegment mask) {
        try {
            return (int) SchedSetaffinity.HANDLE.invokeExact(STATE.get(), tid, size, mask);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int schedGetaffinity(int tid, long size, MemorySegment mask) {
        try {
            return (int) SCHED_GETAFFINITY.invokeExact(STATE.get(), tid, size, mask);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code syscall(nr, ptr, a, b, c, d)}: a raw system call with a pointer and four integer
     * arguments (perf_event_open: attr, pid, cpu, group_fd, flags). Returns its result or -1.
     */
    static long syscall(long nr, MemorySegment ptr, long a, long b, long c, long d) {
        try {
            return (long) Syscall.HANDLE.invokeExact(STATE.get(), nr, ptr, a, b, c, d);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** readv(2) into {@code count} consecutive struct iovec. Does not allocate. */
    static long readv(int fd, MemorySegment iov, int count) {
        try {
            return (long) Vectored.READV.invokeExact(STATE.get(), fd, iov, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** writev(2) from {@code count} consecutive struct iovec. Does not allocate. */
    static long writev(int fd, MemorySegment iov, int count) {
        try {
            return (long) Vectored.WRITEV.invokeExact(STATE.get(), fd, iov, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** preadv(2) at {@code offset} into {@code count} consecutive struct iovec. Does not allocate. */
    static long preadv(int fd, MemorySegment iov, int count, long offset) {
        try {
            return (long) PositionedVectored.PREADV.invokeExact(STATE.get(), fd, iov, count, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** pwritev(2) at {@code offset} from {@code count} consecutive struct iovec. Does not allocate. */
    static long pwritev(int fd, MemorySegment iov, int count, long offset) {
        try {
            return (long) PositionedVectored.PWRITEV.invokeExact(STATE.get(), fd, iov, count, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int fdatasync(int fd) {
        try {
            return (int) PositionedVectored.FDATASYNC.invokeExact(STATE.get(), fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** socketpair(2): the two descriptors are written to {@code fds} (two ints). */
    static int socketpair(int domain, int type, MemorySegment fds) {
        try {
            return (int) Socketpair.HANDLE.invokeExact(STATE.get(), domain, type, 0, fds);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** poll(2) on {@code nfds} consecutive struct pollfd. Does not allocate. */
    static int poll(MemorySegment fds, long nfds, int timeoutMillis) {
        try {
            return (int) Poll.HANDLE.invokeExact(STATE.get(), fds, nfds, timeoutMillis);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** clock_gettime(2) into a struct timespec ({@link #TIMESPEC_BYTES}). */
    static int clockGettime(int clockId, MemorySegment timespec) {
        try {
            return (int) ClockGettime.HANDLE.invokeExact(STATE.get(), clockId, timespec);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** timer_create(2): the new timer's handle is written to {@code timerId} (8 bytes). */
    static int timerCreate(int clockId, MemorySegment sigevent, MemorySegment timerId) {
        try {
            return (int) Timers.CREATE.invokeExact(STATE.get(), clockId, sigevent, timerId);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** timer_settime(2) from a struct itimerspec: two timespecs, interval then first expiry. */
    static int timerSettime(long timerId, int flags, MemorySegment itimerspec) {
        try {
            return (int) Timers.SETTIME.invokeExact(STATE.get(), timerId, flags, itimerspec, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** timer_delete(2). */
    static int timerDelete(long timerId) {
        try {
            return (int) Timers.DELETE.invokeExact(STATE.get(), timerId);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** fallocate(2): {@code mode} on {@code length} bytes of {@code fd} from {@code offset}. */
    static int fallocate(int fd, int mode, long offset, long length) {
        try {
            return (int) Fallocate.HANDLE.invokeExact(STATE.get(), fd, mode, offset, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The host's page size (4 KiB on x86_64; 4, 16 or 64 KiB on arm64). */
    static int pageSize() {
        try {
            return (int) Getpagesize.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The symbolic name of an errno value, e.g. "ENOENT". */
    static String errnoName(int errno) {
        try {
            MemorySegment s = (MemorySegment) Strerrorname.HANDLE.invokeExact(errno);
            return s.equals(MemorySegment.NULL) ? "errno " + errno : s.reinterpret(64).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The C library's description of an errno value, e.g. "No such file or directory". */
    static String errnoText(int errno) {
        try {
            MemorySegment s = (MemorySegment) Strerror.HANDLE.invokeExact(errno);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
