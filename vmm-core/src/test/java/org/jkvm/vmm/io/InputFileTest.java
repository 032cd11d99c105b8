package org.jkvm.vmm.io;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Reading what a user names: regular files only, bounded, UTF-8 checked, every refusal one line naming the file. */
@Tag("unit")
class InputFileTest {
    static final InputKind SPEC = new InputKind("a spec", 16);

    @TempDir
    Path dir;

    static void refused(String message, org.junit.jupiter.api.function.Executable e) {
        assertEquals(message, assertThrows(FileProblem.class, e).getMessage());
    }

    @Test
    void aRegularFileWithinItsLimitIsRead() throws Exception {
        Path f = Files.writeString(dir.resolve("s.json"), "{\"n\": \"caf\u00e9\"}");
        assertEquals("{\"n\": \"caf\u00e9\"}", InputFile.text(f, SPEC));
        assertNull(InputFile.problem(f, SPEC));
        Path link = Files.createSymbolicLink(dir.resolve("link"), f);
        assertArrayEquals(Files.readAllBytes(f), InputFile.bytes(link, SPEC), "a link to a regular file will do");
    }

    @Test
    void whatIsNoRegularFileIsRefusedByName() {
        Path missing = dir.resolve("nope");
        refused(missing + ": no such file", () -> InputFile.text(missing, SPEC));
        refused(dir + ": is a directory, not a spec", () -> InputFile.text(dir, SPEC));
        refused("/dev/urandom: is a character device, not a spec", () -> InputFile.bytes(Path.of("/dev/urandom"), SPEC));
        refused(dir.resolve("dangling") + ": no such file", () -> InputFile.bytes(
                Files.createSymbolicLink(dir.resolve("dangling"), missing), SPEC));
    }

    @Test
    void aFileOverItsLimitIsRefusedWithBothSizes() throws Exception {
        Path f = Files.writeString(dir.resolve("s.json"), "x".repeat(17));
        refused(f + ": 17 bytes is more than the 16 bytes a spec may have", () -> InputFile.bytes(f, SPEC));
        InputKind mib = new InputKind("a spec", 1 << 20);
        Path big = Files.write(dir.resolve("big.json"), new byte[(12 << 20) + 1]);
        refused(big + ": 13 MiB is more than the 1 MiB a spec may have", () -> InputFile.bytes(big, mib));
    }

    @Test
    void aFileIsReadIntoMemoryOfTheSizeCheckedAndRefusedWhenThatChanged() throws Exception {
        Path f = Files.writeString(dir.resolve("initrd"), "0123456789");
        long size = InputFile.checkedSize(f, SPEC);
        assertEquals(10, size);
        byte[] to = new byte[12];
        InputFile.readInto(f, MemorySegment.ofArray(to).asSlice(1, size));
        assertEquals("\u00000123456789\u0000", new String(to, StandardCharsets.US_ASCII), "the file's bytes at the slice's start");
        refused(f + ": changed while it was read (10 bytes, not the 11 checked)", () -> InputFile.readInto(f, MemorySegment.ofArray(new byte[11])));
        refused(f + ": changed while it was read (10 bytes, not the 9 checked)", () -> InputFile.readInto(f, MemorySegment.ofArray(new byte[9])));
        Path big = Files.writeString(dir.resolve("big"), "x".repeat(17));
        refused(big + ": 17 bytes is more than the 16 bytes a spec may have", () -> InputFile.checkedSize(big, SPEC));
        refused(dir + ": is a directory, not a spec", () -> InputFile.checkedSize(dir, SPEC));
        refused(dir.resolve("nope") + ": no such file", () -> InputFile.checkedSize(dir.resolve("nope"), SPEC));
    }

    @Test
    void textThatIsNotUtf8NamesTheOffsetOfTheFirstBadByte() throws Exception {
        Path f = Files.write(dir.resolve("s.json"), "ok \u00e9".getBytes(StandardCharsets.ISO_8859_1));
        refused(f + ": not UTF-8 text (bad byte at offset 3)", () -> InputFile.text(f, SPEC));
        byte[] b = "ab\u00e9".getBytes(StandardCharsets.UTF_8);
        assertEquals(-1, InputFile.badUtf8(b, 0, b.length));
        assertEquals(0, InputFile.badUtf8(b, 3, 1), "half a character");
        assertNull(InputFile.utf8(b, 0, 3));
    }

    @Test
    void anUnreadableFileSaysPermissionDenied() throws Exception {
        assertEquals("/x: permission denied", FileProblem.of(new AccessDeniedException("/x")).getMessage());
        Assumptions.assumeFalse("root".equals(System.getProperty("user.name")), "root reads any file");
        Path f = Files.writeString(dir.resolve("s.json"), "{}");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("---------"));
        refused(f + ": permission denied", () -> InputFile.text(f, SPEC));
    }

    @Test
    void sizesReadAsAPersonWouldWriteThem() {
        assertEquals("1 MiB", InputFile.size(1 << 20));
        assertEquals("64 KiB", InputFile.size(64 << 10));
        assertEquals("1048577 bytes", InputFile.size((1 << 20) + 1));
        assertEquals("3072 MiB", InputFile.size(3L << 30));
        assertEquals("11 MiB", InputFile.size((10L << 20) + 1));
    }
}
