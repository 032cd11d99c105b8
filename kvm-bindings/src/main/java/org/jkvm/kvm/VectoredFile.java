package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.List;

/**
 * A file read and written at given offsets straight from and into a list of native buffers,
 * with one preadv(2) or pwritev(2) for the whole list where Java's file API needs a call per
 * buffer: virtio-blk's disk image, whose requests span up to a chain's worth of guest pages.
 * A call that moves fewer bytes than asked is continued from where it stopped, one interrupted
 * by a signal is retried. Any number of threads may call at once; the file position is never used.
 */
public final class VectoredFile implements AutoCloseable {
    /** The most buffers one call takes (UIO_MAXIOV); a longer list takes several calls. */
    static final int MAX_BUFFERS = Iovecs.MAX;

    /**
     * Each calling thread's iovec array, made on its first call and kept, not an arena opened,
     * allocated from and closed per call: a booting guest's reads run that code interpreted
     * (bench/blk/README.md, 2026-12-03).
     */
    private static final ThreadLocal<MemorySegment> IOV = ThreadLocal.withInitial(() -> Iovecs.allocate(Arena.ofAuto(), MAX_BUFFERS));

    private final int fd;
    private final Path path;
    private boolean closed;

    private VectoredFile(int fd, Path path) {
        this.fd = fd;
        this.path = path;
    }

    /** Opens {@code path} for reading, and for writing too when {@code writable}. */
    public static VectoredFile open(Path path, boolean writable) {
        int flags = (writable ? Libc.O_RDWR : Libc.O_RDONLY) | Libc.O_CLOEXEC;
        int fd = Libc.open(path.toString(), flags);
        if (fd < 0) throw new KvmException("open", path + (writable ? ", O_RDWR" : ", O_RDONLY"), Libc.errno());
        return new VectoredFile(fd, path);
    }

    /**
     * Fills {@code buffers}, in order, from the file's bytes at {@code offset}; returns the bytes
     * read, fewer than the buffers hold only when the file ends first.
     */
    public long read(long offset, List<MemorySegment> buffers) {
        return transfer(offset, buffers, false);
    }

    /**
     * Writes {@code buffers}, in order, to the file at {@code offset}; returns the bytes written,
     * fewer than the buffers hold only when a call wrote nothing (no error, and no progress).
     */
    public long write(long offset, List<MemorySegment> buffers) {
        return transfer(offset, buffers, true);
    }

    /** fdatasync(2): the data written so far, and the metadata needed to read it back, reach the disk. */
    public void syncData() {
        while (Libc.fdatasync(fd) != 0) {
            int errno = Libc.errno();
            if (errno != Libc.EINTR) throw new KvmException("fdatasync", path.toString(), errno);
        }
    }

    private long transfer(long offset, List<MemorySegment> buffers, boolean write) {
        long total = 0;
        for (MemorySegment b : buffers) total += b.byteSize();
        long done = 0;
        int first = 0;
        long skip = 0;
        MemorySegment iov = IOV.get();
        try {
            while (done < total) {
                int count = fill(iov, buffers, first, skip);
                long n = write ? Libc.pwritev(fd, iov, count, offset + done) : Libc.preadv(fd, iov, count, offset + done);
                if (n < 0) {
                    int errno = Libc.errno();
                    if (errno == Libc.EINTR) continue;
                    throw new KvmException(write ? "pwritev" : "preadv",
                            path + ", offset " + (offset + done) + ", " + count + " buffers", errno);
                }
                if (n == 0) break;
                done += n;
                // Steps past the buffers the call filled or emptied, to the one it stopped in.
                for (n += skip, skip = 0; first < buffers.size(); first++) {
                    long size = buffers.get(first).byteSize();
                    if (n < size) {
                        skip = n;
                        break;
                    }
                    n -= size;
                }
            }
        } finally {
            // the iovecs hold bare addresses: the buffers stay reachable until the calls are done
            Reference.reachabilityFence(buffers);
        }
        return done;
    }

    /** Describes up to {@link #MAX_BUFFERS} buffers from {@code buffers[first]}, its first {@code skip} bytes left out. */
    private static int fill(MemorySegment iov, List<MemorySegment> buffers, int first, long skip) {
        int count = Math.min(buffers.size() - first, MAX_BUFFERS);
        for (int i = 0; i < count; i++) {
            MemorySegment b = buffers.get(first + i);
            Iovecs.set(iov, i, i == 0 ? b.asSlice(skip) : b);
        }
        return count;
    }

    /** Closes the descriptor; idempotent. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Libc.close(fd);
    }
}
