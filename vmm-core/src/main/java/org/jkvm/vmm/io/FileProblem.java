package org.jkvm.vmm.io;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * A file jkvm cannot use as it is: missing, not a regular file, too large, not UTF-8, unreadable,
 * a bad line, in use. The message is one line, {@code WHERE: PROBLEM}, where WHERE names the file
 * (and the line, or the option that named it); the user can act on it, so jkvm exits 2.
 */
public final class FileProblem extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * @param where   the file, as the user named it, perhaps with {@code :LINE} or an option before it
     * @param problem what is wrong, in words
     */
    public FileProblem(String where, String problem) {
        super(where + ": " + problem);
    }

    /** {@code e} for a file jkvm reads, its reason in words rather than as the OS's text or a bare path. */
    public static FileProblem of(FileSystemException e) {
        return new FileProblem(e.getFile() == null ? "a file" : e.getFile(), reason(e));
    }

    /** What went wrong with the file of {@code e}, in words: "no such file", "permission denied"... */
    public static String reason(FileSystemException e) {
        return switch (e) {
            case NoSuchFileException n -> "no such file";
            case AccessDeniedException a -> "permission denied";
            case NotDirectoryException n -> "a part of the path is not a folder";
            case FileAlreadyExistsException f -> "already exists";
            case DirectoryNotEmptyException d -> "is a folder that is not empty";
            default -> e.getReason() == null ? "cannot be used" : e.getReason().toLowerCase(Locale.ROOT);
        };
    }
}
