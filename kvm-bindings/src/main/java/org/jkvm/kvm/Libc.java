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
import java.lang.ref.Reference;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The system calls jkvm makes, and the few C library functions it needs that are not system
 * calls (the vDSO's clock, the profiler's timers, the page size, errno's names, a byte search).
 *
 * <p>Every system call goes through the C library's {@code syscall(2)}: one downcall shape (a
 * number and six {@code long}s, a pointer passed as its address, errno captured) for all of
 * them. Each distinct shape costs the JVM a downcall class and method-handle forms it generates
 * at run time and no AOT cache keeps: in the emulated arm64 host, binding twelve libc functions
 * of twelve shapes took 1.6-2.1 s of start-up, twelve handles of one shape 0.4-0.5 s
 * (bench/boot/README.md). The numbers are the generated {@code __NR_*} constants of the host's
 * architecture. A pointer argument must be a native segment; each method keeps the segments it
 * passes reachable until the call returns, as FFM does for a segment argument (an arena closed
 * by another thread meanwhile is the caller's error, as it is for the C function).
 *
 * <p>Each method returns the raw result, -1 with errno set on failure; {@link #errno} reads it.
 * The capture buffer is per thread so the vCPU exit path does not allocate.
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
    /** openat(2)'s directory argument for "relative to the working directory" (linux/fcntl.h). */
    private static final int AT_FDCWD = -100;
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
    static final int EOPNOTSUPP = 95;
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
    /** The kernel's sigset_t, one 64-bit word (bit n-1 is signal n): the size rt_sig* calls and KVM_SET_SIGNAL_MASK are told. */
    static final int KERNEL_SIGSET_BYTES = 8;

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

    /** long syscall(long number, ...): six arguments always passed, the kernel reads those it takes. */
    private static final FunctionDescriptor SYSCALL_SHAPE =
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle SYSCALL = bind("syscall", SYSCALL_SHAPE, ERRNO_OPT, Linker.Option.firstVariadicArg(1));

    private static final long NR_OPENAT = nr(UapiConstant.__NR_openat);
    private static final long NR_CLOSE = nr(UapiConstant.__NR_close);
    private static final long NR_IOCTL = nr(UapiConstant.__NR_ioctl);
    private static final long NR_MMAP = nr(UapiConstant.__NR_mmap);
    private static final long NR_MUNMAP = nr(UapiConstant.__NR_munmap);
    private static final long NR_MADVISE = nr(UapiConstant.__NR_madvise);
    private static final long NR_EVENTFD2 = nr(UapiConstant.__NR_eventfd2);
    private static final long NR_READ = nr(UapiConstant.__NR_read);
    private static final long NR_WRITE = nr(UapiConstant.__NR_write);
    private static final long NR_PREAD64 = nr(UapiConstant.__NR_pread64);
    private static final long NR_READV = nr(UapiConstant.__NR_readv);
    private static final long NR_WRITEV = nr(UapiConstant.__NR_writev);
    private static final long NR_PREADV = nr(UapiConstant.__NR_preadv);
    private static final long NR_PREADV2 = nr(UapiConstant.__NR_preadv2);
    private static final long NR_PWRITEV = nr(UapiConstant.__NR_pwritev);
    /** preadv2(2)'s flag: return EAGAIN rather than wait for a device (a read served from the page cache only). */
    static final int RWF_NOWAIT = (int) HostUapi.constant(UapiConstant.RWF_NOWAIT);
    private static final long NR_FDATASYNC = nr(UapiConstant.__NR_fdatasync);
    private static final long NR_FALLOCATE = nr(UapiConstant.__NR_fallocate);
    private static final long NR_SOCKETPAIR = nr(UapiConstant.__NR_socketpair);
    private static final long NR_PPOLL = nr(UapiConstant.__NR_ppoll);
    private static final long NR_GETTID = nr(UapiConstant.__NR_gettid);
    private static final long NR_GETPID = nr(UapiConstant.__NR_getpid);
    private static final long NR_TGKILL = nr(UapiConstant.__NR_tgkill);
    private static final long NR_RT_SIGPROCMASK = nr(UapiConstant.__NR_rt_sigprocmask);
    private static final long NR_RT_SIGTIMEDWAIT = nr(UapiConstant.__NR_rt_sigtimedwait);
    private static final long NR_SCHED_GETAFFINITY = nr(UapiConstant.__NR_sched_getaffinity);
    private static final long NR_SCHED_SETAFFINITY = nr(UapiConstant.__NR_sched_setaffinity);
    private static final long NR_PERF_EVENT_OPEN = nr(UapiConstant.__NR_perf_event_open);

    private static long nr(UapiConstant c) {
        return HostUapi.constant(c);
    }

    /** ppoll(2)'s timeout, per thread: the kernel writes the time left into it. */
    private static final ThreadLocal<MemorySegment> TIMEOUT =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(TIMESPEC_BYTES, 8));

    // C library functions that are not system calls, bound on first use: every downcall handle
    // costs start-up time, and none of these is on the way to the first KVM_RUN.
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
    private static final class Getpagesize {
        static final MethodHandle HANDLE = bind("getpagesize", FunctionDescriptor.of(JAVA_INT));
    }
    private static final class Strerrorname {
        static final MethodHandle HANDLE = bind("strerrorname_np", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }
    private static final class Strerror {
        static final MethodHandle HANDLE = bind("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }
    /**
     * memmem(3) bound with syscall's shape, options included, so that it shares syscall's downcall
     * class instead of spinning one of its own (in the emulated arm64 host a kernel Image's banner
     * search took 0.28-0.30 s of CPU with a shape of its own, 0.13-0.16 s with this one; see above):
     * its four arguments are the first four of the seven, in the registers the C calling
     * conventions of x86_64 and arm64 Linux give them whether or not the call counts as variadic,
     * and memmem reads no others. The result is its pointer, or 0.
     */
    private static final class Memmem {
        static final MethodHandle HANDLE = bind("memmem", SYSCALL_SHAPE, ERRNO_OPT, Linker.Option.firstVariadicArg(1));
    }

    /** A system call with up to six arguments; returns its result, or -1 with errno set. */
    private static long syscall(long nr, long a, long b, long c, long d, long e, long f) {
        try {
            return (long) SYSCALL.invokeExact(STATE.get(), nr, a, b, c, d, e, f);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static long syscall(long nr, long a, long b, long c) {
        return syscall(nr, a, b, c, 0, 0, 0);
    }

    /**
     * A system call given the address of {@code alive}, which stays reachable until the call
     * returns: FFM keeps a segment argument alive through a downcall, a bare address does not,
     * and the memory of a segment of an automatic arena goes when the segment is collected.
     */
    private static long syscall(MemorySegment alive, long nr, long a, long b, long c, long d, long e, long f) {
        try {
            return syscall(nr, a, b, c, d, e, f);
        } finally {
            Reference.reachabilityFence(alive);
        }
    }

    /** The address the kernel is given for {@code s}; a heap segment has none. */
    private static long address(MemorySegment s) {
        if (!s.isNative()) throw new IllegalArgumentException("a system call needs native memory, not a heap segment");
        return s.address();
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
            return (int) syscall(NR_OPENAT, AT_FDCWD, address(a.allocateFrom(path)), flags);
        }
    }

    static int close(int fd) {
        return (int) syscall(NR_CLOSE, fd, 0, 0);
    }

    static int ioctl(int fd, long request, MemorySegment arg) {
        return (int) syscall(arg, NR_IOCTL, fd, request, address(arg), 0, 0, 0);
    }

    static int ioctl(int fd, long request, long arg) {
        return (int) syscall(NR_IOCTL, fd, request, arg);
    }

    /** Returns the mapping's address, or {@link #MAP_FAILED}. */
    static long mmap(long length, int prot, int flags, int fd, long offset) {
        return syscall(NR_MMAP, 0, length, prot, flags, fd, offset);
    }

    static int munmap(long address, long length) {
        return (int) syscall(NR_MUNMAP, address, length, 0);
    }

    static int madvise(long address, long length, int advice) {
        return (int) syscall(NR_MADVISE, address, length, advice);
    }

    static int eventfd(int initval, int flags) {
        return (int) syscall(NR_EVENTFD2, initval, flags, 0);
    }

    static long read(int fd, MemorySegment buf, long count) {
        return syscall(buf, NR_READ, fd, address(buf), count, 0, 0, 0);
    }

    /** pread(2): reads at {@code offset} without moving the file position. Does not allocate. */
    static long pread(int fd, MemorySegment buf, long count, long offset) {
        return syscall(buf, NR_PREAD64, fd, address(buf), count, offset, 0, 0);
    }

    static long write(int fd, MemorySegment buf, long count) {
        return syscall(buf, NR_WRITE, fd, address(buf), count, 0, 0, 0);
    }

    static int gettid() {
        return (int) syscall(NR_GETTID, 0, 0, 0);
    }

    static int getpid() {
        return (int) syscall(NR_GETPID, 0, 0, 0);
    }

    static int tgkill(int tgid, int tid, int sig) {
        return (int) syscall(NR_TGKILL, tgid, tid, sig);
    }

    /**
     * rt_sigprocmask(2) for the calling thread; {@code set} and {@code oldSet} hold at least the
     * kernel's 64 signals (a glibc sigset_t does).
     */
    static int sigprocmask(int how, MemorySegment set, MemorySegment oldSet) {
        try {
            return (int) syscall(NR_RT_SIGPROCMASK, how, address(set), address(oldSet), KERNEL_SIGSET_BYTES, 0, 0);
        } finally {
            Reference.reachabilityFence(set);
            Reference.reachabilityFence(oldSet);
        }
    }

    static int sigtimedwait(MemorySegment set, MemorySegment info, MemorySegment timeout) {
        try {
            return (int) syscall(NR_RT_SIGTIMEDWAIT, address(set), address(info), address(timeout), KERNEL_SIGSET_BYTES, 0, 0);
        } finally {
            Reference.reachabilityFence(set);
            Reference.reachabilityFence(info);
            Reference.reachabilityFence(timeout);
        }
    }

    static int schedSetaffinity(int tid, long size, MemorySegment mask) {
        return (int) syscall(mask, NR_SCHED_SETAFFINITY, tid, size, address(mask), 0, 0, 0);
    }

    /** Returns the bytes of the mask the kernel wrote (the rest of {@code mask} is left as it was), or -1. */
    static int schedGetaffinity(int tid, long size, MemorySegment mask) {
        return (int) syscall(mask, NR_SCHED_GETAFFINITY, tid, size, address(mask), 0, 0, 0);
    }

    /** perf_event_open(2). Returns the new descriptor, or -1. */
    static int perfEventOpen(MemorySegment attr, int pid, int cpu, int groupFd, long flags) {
        return (int) syscall(attr, NR_PERF_EVENT_OPEN, address(attr), pid, cpu, groupFd, flags, 0);
    }

    /** readv(2) into {@code count} consecutive struct iovec from byte {@code from} of {@code iov}. Does not allocate. */
    static long readv(int fd, MemorySegment iov, long from, int count) {
        return syscall(iov, NR_READV, fd, address(iov) + from, count, 0, 0, 0);
    }

    /** writev(2) from {@code count} consecutive struct iovec. Does not allocate. */
    static long writev(int fd, MemorySegment iov, int count) {
        return syscall(iov, NR_WRITEV, fd, address(iov), count, 0, 0, 0);
    }

    /**
     * preadv(2) at {@code offset} into {@code count} consecutive struct iovec. Does not allocate.
     * The system call takes the offset as a low and a high word; on a 64-bit kernel the low
     * word is all of it.
     */
    static long preadv(int fd, MemorySegment iov, int count, long offset) {
        return syscall(iov, NR_PREADV, fd, address(iov), count, offset, 0, 0);
    }

    /** preadv2(2): {@link #preadv} with {@code flags} (RWF_*). Does not allocate. */
    static long preadv2(int fd, MemorySegment iov, int count, long offset, int flags) {
        return syscall(iov, NR_PREADV2, fd, address(iov), count, offset, 0, flags);
    }

    /** pwritev(2) at {@code offset} from {@code count} consecutive struct iovec, the offset as for {@link #preadv}. */
    static long pwritev(int fd, MemorySegment iov, int count, long offset) {
        return syscall(iov, NR_PWRITEV, fd, address(iov), count, offset, 0, 0);
    }

    static int fdatasync(int fd) {
        return (int) syscall(NR_FDATASYNC, fd, 0, 0);
    }

    /** socketpair(2): the two descriptors are written to {@code fds} (two ints). */
    static int socketpair(int domain, int type, MemorySegment fds) {
        return (int) syscall(fds, NR_SOCKETPAIR, domain, type, 0, address(fds), 0, 0);
    }

    /**
     * poll(2) on {@code nfds} consecutive struct pollfd, a negative timeout waiting for ever
     * (through ppoll(2): arm64 has no poll(2)). Does not allocate.
     */
    static int poll(MemorySegment fds, long nfds, int timeoutMillis) {
        long timeout = 0;
        if (timeoutMillis >= 0) {
            MemorySegment ts = TIMEOUT.get();
            ts.set(JAVA_LONG, 0, timeoutMillis / 1000);
            ts.set(JAVA_LONG, 8, (timeoutMillis % 1000) * 1_000_000L);
            timeout = ts.address();
        }
        return (int) syscall(fds, NR_PPOLL, address(fds), nfds, timeout, 0, KERNEL_SIGSET_BYTES, 0);
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
        return (int) syscall(NR_FALLOCATE, fd, mode, offset, length, 0, 0);
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

    /**
     * memmem(3): the address of the first {@code needle} in {@code haystack}, both native, 0 when
     * there is none. Makes no system call and sets no errno.
     */
    static long memmem(MemorySegment haystack, MemorySegment needle) {
        try {
            return (long) Memmem.HANDLE.invokeExact(STATE.get(), address(haystack), haystack.byteSize(), address(needle),
                    needle.byteSize(), 0L, 0L, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        } finally {
            Reference.reachabilityFence(haystack);
            Reference.reachabilityFence(needle);
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
