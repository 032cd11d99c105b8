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
 * by a signal is retried. A read can also be asked of the page cache alone, for a caller that
 * would otherwise hand it to a thread that may wait. Any number of threads may call at once;
 * the file position is never used.
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

    private static final System.Logger LOG = System.getLogger(VectoredFile.class.getName());

    private final int fd;
    private final Path path;
    private boolean closed;
    /** Whether {@link #readCached} still tries; off once the kernel or file system refused RWF_NOWAIT. */
    private volatile boolean cachedReads = true;

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
        return transfer(offset, buffers, Op.READ);
    }

    /**
     * Fills {@code buffers} as {@link #read} does, but only from the host's page cache
     * (preadv2(2) with RWF_NOWAIT): returns whether every byte was there and is now in the
     * buffers. False when a byte would have to wait for the device, the file ends first, or the
     * call fails; the buffers' contents are then unspecified, and a {@link #read} of the same
     * range finishes the job (and reports any error). Where the kernel or the file system has
     * no such reads, this answers false from the first refusal on.
     */
    public boolean readCached(long offset, List<MemorySegment> buffers) {
        return cachedReads && transfer(offset, buffers, Op.READ_CACHED) >= 0;
    }

    /**
     * Writes {@code buffers}, in order, to the file at {@code offset}; returns the bytes written,
     * fewer than the buffers hold only when a call wrote nothing (no error, and no progress).
     */
    public long write(long offset, List<MemorySegment> buffers) {
        return transfer(offset, buffers, Op.WRITE);
    }

    /** fdatasync(2): the data written so far, and the metadata needed to read it back, reach the disk. */
    public void syncData() {
        while (Libc.fdatasync(fd) != 0) {
            int errno = Libc.errno();
            if (errno != Libc.EINTR) throw new KvmException("fdatasync", path.toString(), errno);
        }
    }

    private enum Op { READ, READ_CACHED, WRITE }

    /** Moves the buffers' bytes; returns how many moved, -1 when a {@link Op#READ_CACHED} call refused or came short. */
    private long transfer(long offset, List<MemorySegment> buffers, Op op) {
        long total = 0;
        for (MemorySegment b : buffers) total += b.byteSize();
        long done = 0;
        int first = 0;
        long skip = 0;
        MemorySegment iov = IOV.get();
        try {
            while (done < total) {
                int count = fill(iov, buffers, first, skip);
                long n = switch (op) {
                    case READ -> Libc.preadv(fd, iov, count, offset + done);
                    case READ_CACHED -> Libc.preadv2(fd, iov, count, offset + done, Libc.RWF_NOWAIT);
                    case WRITE -> Libc.pwritev(fd, iov, count, offset + done);
                };
                if (n < 0) {
                    int errno = Libc.errno();
                    if (errno == Libc.EINTR) continue;
                    if (op == Op.READ_CACHED) {
                        if (errno == Libc.EOPNOTSUPP || errno == Libc.EINVAL) refuseCachedReads(errno);
                        return -1;
                    }
                    throw new KvmException(op == Op.WRITE ? "pwritev" : "preadv",
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
        return op == Op.READ_CACHED && done < total ? -1 : done;
    }

    private void refuseCachedReads(int errno) {
        cachedReads = false;
        LOG.log(System.Logger.Level.DEBUG, () -> path + ": preadv2 with RWF_NOWAIT refused (errno " + errno
                + "): reads from the page cache alone are not tried again");
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
