package org.jkvm.cli;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A folder a run writes files into at its end, claimed before the guest boots: the folder (and
 * each folder below it that a name has, {@code whole-run/profile.folded}) is made if missing and
 * each named file is a {@link ClaimedOutput}, so a bad folder stops the run at once. Which of the
 * files get written is known only at the end (a profile of the workload's window needs a guest
 * that marked one), so a folder the claim made and nothing was written into is removed again.
 */
final class ClaimedFolder implements AutoCloseable {
    private final Map<String, ClaimedOutput> files;
    /** The folders this claim made, outermost first. */
    private final List<Path> made;

    private ClaimedFolder(Map<String, ClaimedOutput> files, List<Path> made) {
        this.files = files;
        this.made = made;
    }

    /**
     * Claims {@code names}, paths relative to {@code dir}, which {@code option} named.
     *
     * @throws UserError naming the option, the folder and why it cannot be written
     */
    static ClaimedFolder claim(String option, Path dir, List<String> names) {
        List<Path> made = new ArrayList<>();
        Map<String, ClaimedOutput> files = new LinkedHashMap<>();
        try {
            makeFolder(option, dir, made);
            for (String n : names) {
                Path file = dir.resolve(n);
                makeFolder(option, file.getParent(), made);
                files.put(n, ClaimedOutput.claim(option, file));
            }
        } catch (UserError e) {
            try {
                new ClaimedFolder(files, made).close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return new ClaimedFolder(files, made);
    }

    private static void makeFolder(String option, Path folder, List<Path> made) {
        if (Files.isDirectory(folder)) return;
        if (Files.exists(folder)) throw new UserError(option + " " + folder + ": not a folder");
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new UserError(option + " " + folder + ": cannot make the folder: " + e);
        }
        made.add(folder);
    }

    /** Writes each file named in {@code contents} with its whole content. */
    void write(Map<String, String> contents) throws IOException {
        for (Map.Entry<String, String> e : contents.entrySet()) {
            ClaimedOutput c = files.get(e.getKey());
            if (c == null) throw new IllegalArgumentException(e.getKey() + " was not claimed in this folder");
            c.write(e.getValue());
        }
    }

    /** Gives the claims up, and removes the folders it made that stayed empty, innermost first. */
    @Override
    public void close() throws IOException {
        for (ClaimedOutput c : files.values()) c.close();
        for (Path folder : made.reversed()) {
            try {
                Files.deleteIfExists(folder);
            } catch (DirectoryNotEmptyException kept) {
                // it holds what the run wrote
            }
        }
    }
}
