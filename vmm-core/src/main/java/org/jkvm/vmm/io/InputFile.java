package org.jkvm.vmm.io;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.Channels;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.channels.FileChannel;

/**
 * Reads the files a user names, refusing what would not end well: only a regular file is read (a
 * directory, a FIFO or a device such as /dev/zero is refused by name, before it is opened, so a
 * FIFO cannot block), never more than its {@link InputKind}'s size, and text only as valid UTF-8.
 * Every refusal is a {@link FileProblem} naming the file.
 */
public final class InputFile {
    private InputFile() {}

    /** Bytes no Java array can hold: the cap on any limit. */
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;
    private static final long MiB = 1L << 20;

    /** Why {@code file} is not a regular file to read as a {@code kind}, or null when it is one. */
    public static String problem(Path file, InputKind kind) {
        String type = type(file);
        if (type == null) return null;
        return type.equals("missing") ? "no such file" : "is " + type + ", not " + kind.name();
    }

    /** Refuses {@code file} unless it is a regular file (a symbolic link to one will do). */
    public static void requireRegular(Path file, InputKind kind) throws FileProblem {
        String p = problem(file, kind);
        if (p != null) throw new FileProblem(file.toString(), p);
    }

    /** Opens a regular file to read; the stream is the caller's to close. */
    public static InputStream open(Path file, InputKind kind) throws IOException {
        requireRegular(file, kind);
        try {
            return Files.newInputStream(file);
        } catch (FileSystemException e) {
            throw FileProblem.of(e);
        }
    }

    /** The whole of a regular file of at most {@code kind.maxBytes()} bytes. */
    public static byte[] bytes(Path file, InputKind kind) throws IOException {
        requireRegular(file, kind);
        long limit = Math.min(kind.maxBytes(), MAX_ARRAY);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ); InputStream in = Channels.newInputStream(ch)) {
            // the size first, then a read that stops past the limit all the same: the file may be growing
            byte[] data = ch.size() > limit ? null : in.readNBytes((int) limit + 1);
            if (data == null || data.length > limit) throw tooLarge(file, Math.max(ch.size(), limit + 1), limit, kind);
            return data;
        } catch (FileSystemException e) {
            throw FileProblem.of(e);
        }
    }

    /**
     * The size of a regular file of at most {@code kind.maxBytes()} bytes, to {@link #readInto} memory
     * of that size (no limit of a Java array here).
     */
    public static long checkedSize(Path file, InputKind kind) throws IOException {
        requireRegular(file, kind);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > kind.maxBytes()) throw tooLarge(file, size, kind.maxBytes(), kind);
            return size;
        } catch (FileSystemException e) {
            throw FileProblem.of(e);
        }
    }

    /**
     * Reads the whole of {@code file} into {@code dst}, straight from the file (no copy in the Java
     * heap); the file must still have the {@code dst.byteSize()} bytes {@link #checkedSize} gave.
     */
    public static void readInto(Path file, MemorySegment dst) throws IOException {
        long size = dst.byteSize();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long at = 0;
            while (at < size) {
                // a ByteBuffer holds at most 2 GiB: a larger file goes in several reads
                ByteBuffer to = dst.asSlice(at, Math.min(size - at, 1L << 30)).asByteBuffer();
                while (to.hasRemaining()) {
                    if (ch.read(to, at + to.position()) < 0) throw changed(file, at + to.position(), size);
                }
                at += to.capacity();
            }
            if (ch.size() != size) throw changed(file, ch.size(), size);
        } catch (FileSystemException e) {
            throw FileProblem.of(e);
        }
    }

    /** The whole of a regular file as UTF-8 text, at most {@code kind.maxBytes()} bytes of it. */
    public static String text(Path file, InputKind kind) throws IOException {
        byte[] data = bytes(file, kind);
        String text = utf8(data, 0, data.length);
        if (text == null) {
            throw new FileProblem(file.toString(), "not UTF-8 text (bad byte at offset " + badUtf8(data, 0, data.length) + ")");
        }
        return text;
    }

    /** {@code len} bytes from {@code off} decoded as UTF-8, or null when they are not valid UTF-8. */
    public static String utf8(byte[] b, int off, int len) {
        return badUtf8(b, off, len) < 0 ? new String(b, off, len, StandardCharsets.UTF_8) : null;
    }

    /** The offset from {@code off} of the first byte that is not valid UTF-8, or -1 when there is none. */
    public static int badUtf8(byte[] b, int off, int len) {
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(b, off, len);
        CoderResult r = d.decode(in, CharBuffer.allocate(len), true);
        return r.isError() ? in.position() - off : -1;
    }

    /** A size for a message: whole MiB or KiB when it is one, else bytes below 10 MiB, else MiB rounded up. */
    public static String size(long bytes) {
        if (bytes % MiB == 0) return bytes / MiB + " MiB";
        if (bytes < 10 * MiB) return bytes % 1024 == 0 ? bytes / 1024 + " KiB" : bytes + " bytes";
        return (bytes + MiB - 1) / MiB + " MiB";
    }

    private static FileProblem tooLarge(Path file, long bytes, long limit, InputKind kind) {
        return new FileProblem(file.toString(), size(bytes) + " is more than the " + size(limit) + " " + kind.name() + " may have");
    }

    private static FileProblem changed(Path file, long bytes, long expected) {
        return new FileProblem(file.toString(), "changed while it was read (" + bytes + " bytes, not the " + expected + " checked)");
    }

    /** What kind of file this is when not a regular one ("a directory", "a FIFO"...), "missing", or null for a regular file. */
    private static String type(Path file) {
        int mode;
        try {
            mode = (Integer) Files.getAttribute(file, "unix:mode");
        } catch (NoSuchFileException e) {
            return "missing";
        } catch (IOException e) {
            return null; // a file that cannot be examined: opening it says why
        }
        return switch (mode & 0170000) {
            case 0100000 -> null;
            case 0040000 -> "a directory";
            case 0010000 -> "a FIFO";
            case 0020000 -> "a character device";
            case 0060000 -> "a block device";
            case 0140000 -> "a socket";
            default -> "an unknown kind of file";
        };
    }
}
