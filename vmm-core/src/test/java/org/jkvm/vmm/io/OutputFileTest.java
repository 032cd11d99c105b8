package org.jkvm.vmm.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Outputs written whole or not at all, and never over an input. */
@Tag("unit")
class OutputFileTest {
    @TempDir
    Path dir;

    List<String> names() throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aWriteThatFailsLeavesTheOldFileAndNoTemporaryOne() throws IOException {
        Path f = Files.writeString(dir.resolve("c.csv"), "old\n");
        IOException e = assertThrows(IOException.class, () -> OutputFile.write(f, out -> {
            out.write("half");
            throw new IOException("No space left on device");
        }));
        assertEquals(f + ": cannot write it: No space left on device", e.getMessage());
        assertEquals("old\n", Files.readString(f));
        assertEquals(List.of("c.csv"), names());

        OutputFile.write(f, "new\n");
        assertEquals("new\n", Files.readString(f));
        assertEquals(List.of("c.csv"), names());
    }

    @Test
    void aFolderThatIsMissingIsNamed() {
        Path f = dir.resolve("no/c.csv");
        assertEquals(f + ": cannot write it: no such file", assertThrows(IOException.class, () -> OutputFile.write(f, "x")).getMessage());
    }

    @Test
    void sameFileByLinkHardLinkOrPathAndNotOtherwise() throws IOException {
        Path a = Files.writeString(dir.resolve("a"), "x");
        assertTrue(OutputFile.same(Files.createSymbolicLink(dir.resolve("sym"), a), a));
        assertTrue(OutputFile.same(Files.createLink(dir.resolve("hard"), a), a));
        assertTrue(OutputFile.same(dir.resolve("sub/../a"), a), "sub does not exist: the path is normalised");
        assertTrue(OutputFile.same(dir.resolve("new/../new/b"), dir.resolve("new/b")), "neither exists");
        assertFalse(OutputFile.same(dir.resolve("b"), a));
    }

    @Test
    void anOutputOverAnInputIsRefusedNamingBoth() throws IOException {
        Path spec = Files.writeString(dir.resolve("s.json"), "{}");
        Path csv = dir.resolve("c.csv");
        FileProblem e = assertThrows(FileProblem.class, () -> OutputFile.refuseOverInputs(
                Map.of(spec, "--csv"), Map.of(spec, "the spec"), "choose another file"));
        assertEquals("--csv " + spec + ": is the spec " + spec + "; choose another file", e.getMessage());
        assertDoesNotThrow(() -> OutputFile.refuseOverInputs(Map.of(csv, "--csv"), Map.of(spec, "the spec"), "choose another file"));
    }
}
