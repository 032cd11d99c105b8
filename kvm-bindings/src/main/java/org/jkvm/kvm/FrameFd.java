package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A non-blocking file descriptor that moves whole frames, one per read or write: a {@link Tap},
 * or one end of a {@link #socketPair} standing in for it. Frames go straight between the fd and
 * the caller's buffers (readv/writev), so a guest's buffers are not copied. Reads and writes may
 * come from different threads; each direction is used by one thread at a time.
 */
public final class FrameFd implements AutoCloseable {
    /** The most buffers one frame may span (UIO_MAXIOV; a virtqueue's chain is at most its size, 256 here). */
    public static final int MAX_BUFFERS = Iovecs.MAX;

    private final int fd;
    private final String what;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment writeIov = Iovecs.allocate(arena, MAX_BUFFERS);
    private final MemorySegment pollFds = arena.allocate(2 * Libc.POLLFD_BYTES, 8);
    private boolean closed;

    FrameFd(int fd, String what) {
        this.fd = fd;
        this.what = what;
    }

    /** Two connected SOCK_SEQPACKET Unix sockets, non-blocking: a frame written to one is read whole from the other. */
    public static FrameFd[] socketPair() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fds = a.allocate(JAVA_INT, 2);
            if (Libc.socketpair(Libc.AF_UNIX, Libc.SOCK_SEQPACKET | Libc.O_NONBLOCK | Libc.O_CLOEXEC, fds) != 0) {
                throw new KvmException("socketpair", "AF_UNIX, SOCK_SEQPACKET", Libc.errno());
            }
            return new FrameFd[] {new FrameFd(fds.getAtIndex(JAVA_INT, 0), "socket pair end 0"),
                    new FrameFd(fds.getAtIndex(JAVA_INT, 1), "socket pair end 1")};
        }
    }

    /** The file descriptor number. */
    public int fd() {
        return fd;
    }

    /**
     * Reads the next frame into the queued {@code buffers}, in order, leaving the queue as it is;
     * returns the frame's length, or -1 when no frame is waiting. A frame longer than the buffers
     * is cut short (a socket) or lost with an error (a tap: EFAULT, EINVAL), which is a
     * {@link KvmException} carrying the errno.
     */
    public long read(IovecQueue buffers) {
        int n = buffers.size();
        long r = Libc.readv(fd, buffers.entries(), buffers.firstOffset(), n);
        if (r >= 0) return r;
        int errno = Libc.errno();
        if (errno == Libc.EAGAIN) return -1;
        throw new KvmException("readv", what + ", " + n + " buffers", errno);
    }

    /**
     * Writes {@code buffers} as one frame; returns false when the fd cannot take it now (EAGAIN).
     * Any other failure (a malformed frame, a tap that is down) is a {@link KvmException}.
     */
    public boolean write(List<MemorySegment> buffers) {
        int n = buffers.size();
        if (n > MAX_BUFFERS) throw new IllegalArgumentException(n + " buffers: a frame spans at most " + MAX_BUFFERS);
        for (int i = 0; i < n; i++) Iovecs.set(writeIov, i, buffers.get(i));
        if (Libc.writev(fd, writeIov, n) >= 0) return true;
        int errno = Libc.errno();
        if (errno == Libc.EAGAIN) return false;
        throw new KvmException("writev", what + ", " + n + " buffers", errno);
    }

    /**
     * Waits until a frame can be read (or the next read would report an error or hang-up), or
     * {@code wake} is signalled, or {@code timeoutMillis} passes (-1: no limit). Returns whether
     * either is ready; false when the time passed or a signal interrupted the wait. Does not
     * reset {@code wake}.
     */
    public boolean awaitReadable(EventFd wake, int timeoutMillis) {
        pollFds.set(JAVA_INT, Libc.POLLFD_FD, fd);
        pollFds.set(JAVA_SHORT, Libc.POLLFD_EVENTS, Libc.POLLIN);
        pollFds.set(JAVA_SHORT, Libc.POLLFD_REVENTS, (short) 0);
        pollFds.set(JAVA_INT, Libc.POLLFD_BYTES + Libc.POLLFD_FD, wake.fd());
        pollFds.set(JAVA_SHORT, Libc.POLLFD_BYTES + Libc.POLLFD_EVENTS, Libc.POLLIN);
        int rc = Libc.poll(pollFds, 2, timeoutMillis);
        if (rc < 0) {
            int errno = Libc.errno();
            if (errno == Libc.EINTR) return false;
            throw new KvmException("poll", what, errno);
        }
        return rc > 0;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Libc.close(fd);
        arena.close();
    }
}
