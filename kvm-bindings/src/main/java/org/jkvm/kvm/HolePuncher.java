package org.jkvm.kvm;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Gives byte ranges of a file back to its file system: fallocate(2) with
 * FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, so the range reads as zeroes afterwards and the
 * file keeps its size. Java's file API has no such call; virtio-blk's discard and write-zeroes
 * use it on the disk image. Holds its own descriptor of the file, opened for writing.
 */
public final class HolePuncher implements AutoCloseable {
    private static final int MODE = (int) (HostUapi.constant(UapiConstant.FALLOC_FL_PUNCH_HOLE)
            | HostUapi.constant(UapiConstant.FALLOC_FL_KEEP_SIZE));

    private final int fd;
    private final Path path;
    private boolean closed;

    private HolePuncher(int fd, Path path) {
        this.fd = fd;
        this.path = path;
    }

    /**
     * A hole puncher for {@code path}, or empty when its file system cannot punch holes. The
     * probe punches one byte at offset {@code size} (the file's current end, where no data is:
     * KEEP_SIZE leaves the size as it is); a file system without the mode fails it with
     * EOPNOTSUPP. Fails when the file does not open for writing.
     */
    public static Optional<HolePuncher> probe(Path path, long size) {
        int fd = Libc.open(path.toString(), Libc.O_RDWR | Libc.O_CLOEXEC);
        if (fd < 0) throw new KvmException("open", path + ", O_RDWR", Libc.errno());
        if (Libc.fallocate(fd, MODE, size, 1) != 0) {
            Libc.close(fd);
            return Optional.empty();
        }
        return Optional.of(new HolePuncher(fd, path));
    }

    /** Deallocates {@code length} bytes from {@code offset}; they read as zeroes from now on. */
    public void punch(long offset, long length) {
        if (Libc.fallocate(fd, MODE, offset, length) != 0) {
            throw new KvmException("fallocate", path + ", PUNCH_HOLE|KEEP_SIZE, offset=" + offset + ", length=" + length,
                    Libc.errno());
        }
    }

    /** Closes the descriptor; idempotent. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Libc.close(fd);
    }
}
