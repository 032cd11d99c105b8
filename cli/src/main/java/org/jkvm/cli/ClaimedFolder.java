package org.jkvm.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A folder a run writes files into at its end, claimed before the guest boots: the folder is
 * made if missing and each named file is a {@link ClaimedOutput}, so a bad folder stops the run
 * at once.
 */
final class ClaimedFolder implements AutoCloseable {
    private final Map<String, ClaimedOutput> files;

    private ClaimedFolder(Map<String, ClaimedOutput> files) {
        this.files = files;
    }

    /**
     * Claims {@code names} in {@code dir}, which {@code option} named.
     *
     * @throws UserError naming the option, the folder and why it cannot be written
     */
    static ClaimedFolder claim(String option, Path dir, List<String> names) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new UserError(option + " " + dir + ": not a folder");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UserError(option + " " + dir + ": cannot make the folder: " + e);
        }
        Map<String, ClaimedOutput> files = new LinkedHashMap<>();
        try {
            for (String n : names) files.put(n, ClaimedOutput.claim(option, dir.resolve(n)));
        } catch (UserError e) {
            for (ClaimedOutput c : files.values()) {
                try {
                    c.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        return new ClaimedFolder(files);
    }

    /** Writes each file named in {@code contents} with its whole content. */
    void write(Map<String, String> contents) throws IOException {
        for (Map.Entry<String, String> e : contents.entrySet()) {
            ClaimedOutput c = files.get(e.getKey());
            if (c == null) throw new IllegalArgumentException(e.getKey() + " was not claimed in this folder");
            c.write(e.getValue());
        }
    }

    @Override
    public void close() throws IOException {
        for (ClaimedOutput c : files.values()) c.close();
    }
}
