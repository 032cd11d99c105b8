package org.jkvm.experiment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

import org.jkvm.vmm.io.FileProblem;

/**
 * Makes one process at a time the writer of a results log: an exclusive lock on {@code LOG.lock}
 * beside it, which holds the writer's pid and start time for the message a second writer gets.
 * The lock file stays (emptied) when released: deleting it would let two writers lock two
 * different files of the same name. The kernel drops the lock when its process ends, however it
 * ends.
 */
final class LogLock implements AutoCloseable {
    /**
     * Lock files this JVM holds, by file key, with their holder text. The check happens before a
     * second channel is opened: on Linux, closing any descriptor of a file drops the process's
     * locks on it.
     */
    private static final Map<Object, String> HELD = new HashMap<>();
    private static final int MAX_HOLDER = 200;

    private final Object key;
    private final FileChannel channel;
    private final FileLock lock;

    private LogLock(Object key, FileChannel channel, FileLock lock) {
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes the lock of {@code log}, or refuses at once, naming the process that has it. */
    static LogLock take(Path log) throws IOException {
        // beside the file itself, so that two links to one log share its lock
        Path real = Files.exists(log) ? log.toRealPath() : log.toAbsolutePath();
        Path path = real.resolveSibling(real.getFileName() + ".lock");
        synchronized (HELD) {
            if (Files.exists(path) && HELD.containsKey(key(path))) throw inUse(log, HELD.get(key(path)));
            FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            try {
                FileLock lock = ch.tryLock();
                if (lock == null) throw inUse(log, holderIn(ch));
                String me = me();
                ch.truncate(0);
                ch.write(ByteBuffer.wrap((me + "\n").getBytes(StandardCharsets.UTF_8)));
                ch.force(false);
                Object key = key(path);
                HELD.put(key, me);
                return new LogLock(key, ch, lock);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (HELD) {
            HELD.remove(key);
            try (channel) {
                channel.truncate(0);
                lock.release();
            }
        }
    }

    private static Object key(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
    }

    private static FileProblem inUse(Path log, String holder) {
        return new FileProblem(log.toString(), "another jkvm is appending to it (" + holder + "); wait for it to finish or stop it");
    }

    /** This process as the lock file names it: {@code pid 1234, started 2025-01-02T03:04:05Z}. */
    private static String me() {
        ProcessHandle p = ProcessHandle.current();
        return "pid " + p.pid() + p.info().startInstant().map(t -> ", started " + t.truncatedTo(ChronoUnit.SECONDS)).orElse("");
    }

    /** The holder another process wrote: its first line, printable characters only, or "pid unknown" while it has written none. */
    private static String holderIn(FileChannel ch) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(MAX_HOLDER);
        ch.read(buf, 0);
        String text = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).lines().findFirst().orElse("")
                .replaceAll("\\p{Cntrl}", "?").strip();
        return text.isEmpty() ? "pid unknown" : text;
    }
}
