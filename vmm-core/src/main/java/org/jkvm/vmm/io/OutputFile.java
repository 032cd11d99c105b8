package org.jkvm.vmm.io;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes a file whole or not at all: into a new file beside it, forced to the disk, then renamed
 * over it. A crash, a signal or a full disk leaves the old file as it was (and perhaps a
 * {@code .NAME.*.tmp} beside it), never a truncated one. A failure is an {@link IOException}
 * naming the file and saying why.
 */
public final class OutputFile {
    private OutputFile() {}

    /** What goes into the file, as UTF-8 text. */
    @FunctionalInterface
    public interface Content {
        void writeTo(Writer out) throws IOException;
    }

    /** Replaces {@code target} with {@code text} (UTF-8). */
    public static void write(Path target, String text) throws IOException {
        write(target, out -> out.write(text));
    }

    /** What goes into the file, written by something that takes a path (e.g. a JFR recording's dump). */
    @FunctionalInterface
    public interface Producer {
        /** Writes the content into {@code file}, a new path that does not exist yet. */
        void writeTo(Path file) throws IOException;
    }

    /** Replaces {@code target} with what {@code content} writes (UTF-8). */
    public static void write(Path target, Content content) throws IOException {
        produce(target, tmp -> {
            try (Writer out = new OutputStreamWriter(Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), StandardCharsets.UTF_8)) {
                content.writeTo(out);
            }
        });
    }

    /** Replaces {@code target} with the file {@code producer} writes. */
    public static void produce(Path target, Producer producer) throws IOException {
        Path abs = target.toAbsolutePath();
        Path tmp = abs.resolveSibling("." + abs.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        try {
            tmp.toFile().deleteOnExit(); // a SIGTERM mid-write leaves no temporary file behind
            producer.writeTo(tmp);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            String why = e instanceof FileSystemException f ? FileProblem.reason(f) : e.getMessage();
            throw new IOException(target + ": cannot write it: " + why, e);
        }
    }

    /**
     * Refuses to write any of {@code outputs} over one of {@code inputs}: the first clash is a
     * {@link FileProblem} naming both, e.g. {@code --csv r.jsonl: is the results log r.jsonl; choose
     * another file}.
     *
     * @param outputs what the command writes, each with the option that names it ({@code --csv})
     * @param inputs  what it reads, each with its role ({@code the spec})
     * @param advice  what to do instead ({@code choose another file})
     */
    public static void refuseOverInputs(Map<Path, String> outputs, Map<Path, String> inputs, String advice) throws IOException {
        for (Map.Entry<Path, String> out : outputs.entrySet()) {
            for (Map.Entry<Path, String> in : inputs.entrySet()) {
                if (same(out.getKey(), in.getKey())) {
                    throw new FileProblem(out.getValue() + " " + out.getKey(), "is " + in.getValue() + " " + in.getKey() + "; " + advice);
                }
            }
        }
    }

    /**
     * Whether two paths name one file: the same file where both exist (links followed, hard links
     * too), else the same path once the folders that exist are resolved to their real paths.
     */
    public static boolean same(Path a, Path b) throws IOException {
        if (Files.exists(a) && Files.exists(b)) return Files.isSameFile(a, b);
        return real(a).equals(real(b));
    }

    /** The path with its longest existing part resolved to its real path, the rest normalised. */
    private static Path real(Path p) throws IOException {
        Path abs = p.toAbsolutePath();
        Path existing = abs;
        while (existing != null && !Files.exists(existing)) existing = existing.getParent();
        return existing == null ? abs.normalize() : existing.toRealPath().resolve(existing.relativize(abs)).normalize();
    }
}
