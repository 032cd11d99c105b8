package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A Linux eventfd, the doorbell KVM_IRQFD and KVM_IOEVENTFD connect to. Signalling, taking and
 * waiting do not allocate: a device worker does each on every pass over its queues.
 */
public final class EventFd implements AutoCloseable {
    /**
     * Each thread's 8 bytes for the counter or a struct pollfd: an eventfd is signalled from any
     * thread, and a confined arena per call cost a malloc and a free on the data path.
     */
    private static final ThreadLocal<MemorySegment> SCRATCH =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(JAVA_LONG));

    private final int fd;
    private boolean closed;

    private EventFd(int fd) {
        this.fd = fd;
    }

    /** eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK). */
    public static EventFd create() {
        int fd = Libc.eventfd(0, Libc.EFD_CLOEXEC | Libc.EFD_NONBLOCK);
        if (fd < 0) throw new KvmException("eventfd", "0, EFD_CLOEXEC|EFD_NONBLOCK", Libc.errno());
        return new EventFd(fd);
    }

    /** The file descriptor number. */
    public int fd() {
        return fd;
    }

    /** Adds 1 to the counter (what the guest's doorbell or an irqfd raise does). */
    public void signal() {
        MemorySegment one = SCRATCH.get();
        one.set(JAVA_LONG, 0, 1L);
        if (Libc.write(fd, one, 8) != 8) throw new KvmException("write", "eventfd " + fd, Libc.errno());
    }

    /** Reads and resets the counter; 0 when nothing was signalled (non-blocking). */
    public long take() {
        MemorySegment v = SCRATCH.get();
        if (Libc.read(fd, v, 8) == 8) return v.get(JAVA_LONG, 0);
        int errno = Libc.errno();
        if (errno == Libc.EAGAIN) return 0;
        throw new KvmException("read", "eventfd " + fd, errno);
    }

    /**
     * Waits up to {@code timeoutMillis} (-1: without limit) for the counter to be non-zero, as a
     * device worker waits for its doorbell. Returns whether it is; false also when a signal
     * interrupted the wait. Does not reset the counter: {@link #take} does.
     */
    public boolean await(int timeoutMillis) {
        MemorySegment pfd = SCRATCH.get();
        pfd.set(JAVA_INT, Libc.POLLFD_FD, fd);
        pfd.set(JAVA_SHORT, Libc.POLLFD_EVENTS, Libc.POLLIN);
        pfd.set(JAVA_SHORT, Libc.POLLFD_REVENTS, (short) 0);
        int rc = Libc.poll(pfd, 1, timeoutMillis);
        if (rc >= 0) return rc > 0 && (pfd.get(JAVA_SHORT, Libc.POLLFD_REVENTS) & Libc.POLLIN) != 0;
        int errno = Libc.errno();
        if (errno == Libc.EINTR) return false;
        throw new KvmException("poll", "eventfd " + fd, errno);
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Libc.close(fd);
    }
}
