package org.jkvm.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import org.jkvm.vmm.io.OutputFile;

/**
 * A file a run writes only at its end, claimed before the guest boots: a file created next to
 * it now (so a missing folder, a directory in its place or no permission stop the run at once,
 * not after a long run) and removed when the claim is closed; the file itself is written whole
 * by {@link OutputFile} at the end. A device or pipe (/dev/stdout) is written in place.
 */
final class ClaimedOutput implements AutoCloseable {
    private final Path target;
    private final Path temp;

    private ClaimedOutput(Path target, Path temp) {
        this.target = target;
        this.temp = temp;
    }

    /**
     * Claims {@code file}, which {@code option} named.
     *
     * @throws UserError naming the option, the file and why it cannot be written
     */
    static ClaimedOutput claim(String option, Path file) {
        String named = option + " " + file + ": ";
        if (Files.isDirectory(file)) throw new UserError(named + "is a directory");
        try {
            if (Files.exists(file) && !Files.isRegularFile(file)) {
                if (!Files.isWritable(file)) throw new UserError(named + "not writable");
                return new ClaimedOutput(file, null);
            }
            Path target = Files.exists(file) ? file.toRealPath() : file.toAbsolutePath();
            Path dir = target.getParent();
            Path temp = dir.resolve("." + target.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
            try {
                return new ClaimedOutput(target, Files.createFile(temp));
            } catch (NoSuchFileException e) {
                throw new UserError(named + "no such folder " + dir);
            } catch (AccessDeniedException e) {
                throw new UserError(named + "cannot create a file in " + dir + ": permission denied");
            } catch (FileSystemException e) {
                throw new UserError(named + "cannot create a file in " + dir + ": " + e.getReason());
            }
        } catch (IOException e) {
            throw new UserError(named + e);
        }
    }

    /** Writes {@code text} as the file's whole content. */
    void write(String text) throws IOException {
        if (temp == null) {
            Files.writeString(target, text);
            return;
        }
        OutputFile.write(target, text);
    }

    /** Writes what {@code producer} writes into a file of its own (e.g. a JFR recording) as the file's whole content. */
    void produce(OutputFile.Producer producer) throws IOException {
        if (temp != null) {
            OutputFile.produce(target, producer);
            return;
        }
        Path scratch = Files.createTempDirectory("jkvm-");
        try {
            Path file = scratch.resolve("out");
            producer.writeTo(file);
            try (OutputStream out = Files.newOutputStream(target)) {
                Files.copy(file, out);
            }
        } finally {
            try (var files = Files.list(scratch)) {
                for (Path f : files.toList()) Files.delete(f);
            }
            Files.delete(scratch);
        }
    }

    /** Gives the claim up; the file is as it was unless {@link #write} ran. */
    @Override
    public void close() throws IOException {
        if (temp != null) Files.deleteIfExists(temp);
    }
}
