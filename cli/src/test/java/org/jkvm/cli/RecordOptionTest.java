package org.jkvm.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import jdk.jfr.consumer.RecordingFile;

import org.jkvm.vmm.jfr.FlightRecording;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.jkvm.cli.RunCommandTest.assertHandled;
import static org.jkvm.cli.RunCommandTest.command;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jkvm run --record FILE} short of booting: the file is checked and claimed before the
 * guest starts like every output (a bad path is one line and exit code 2, an input is never
 * overwritten), and the recording replaces it whole at the end, as a file JFR reads.
 */
@Tag("unit")
class RecordOptionTest {
    @TempDir
    Path dir;
    Path kernel;

    @BeforeEach
    void kernel() throws IOException {
        kernel = Files.write(dir.resolve("Image"), new byte[] {1});
    }

    @Test
    void aRecordingIntoAMissingFolderIsOneLineAndExitCode2BeforeTheGuestStarts() {
        Path noFolder = dir.resolve("no/such/run.jfr");
        RunCommand c = command("--kernel", kernel.toString(), "--record", noFolder.toString());
        UserError e = assertThrows(UserError.class, () -> c.record().claim());
        assertHandled(2, "jkvm: --record " + noFolder + ": no such folder " + dir.resolve("no/such"), e);
        UserError directory = assertThrows(UserError.class,
                () -> command("--kernel", kernel.toString(), "--record", dir.toString()).record().claim());
        assertEquals("--record " + dir + ": is a directory", directory.getMessage());
    }

    @Test
    void aRecordingOverAnInputIsRefusedBeforeTheGuestRuns() {
        RunCommand c = command("--kernel", kernel.toString(), "--record", kernel.toString());
        assertEquals("--record " + kernel + ": is the kernel " + kernel + "; choose another file",
                assertThrows(Exception.class, c::checkOutputs).getMessage());
    }

    @Test
    void withoutTheOptionNothingIsClaimedOrRecorded() {
        RunCommand c = command("--kernel", kernel.toString());
        assertNull(c.record().claim());
        assertNull(c.record().start());
    }

    @Test
    void theRecordingReplacesTheClaimedFileWholeAtTheEnd() throws Exception {
        Path file = Files.writeString(dir.resolve("run.jfr"), "old");
        RunCommand c = command("--kernel", kernel.toString(), "--record", file.toString());
        try (ClaimedOutput claimed = c.record().claim(); FlightRecording recording = c.record().start()) {
            assertEquals("old", Files.readString(file), "the run has not ended");
            RecordOption.write(recording, claimed);
        }
        assertFalse(RecordingFile.readAllEvents(file).isEmpty(), "JFR reads the recording");
        try (var left = Files.list(dir)) {
            assertEquals(List.of("Image", "run.jfr"), left.map(p -> p.getFileName().toString()).sorted().toList(),
                    "no temporary file left behind");
        }
        assertTrue(Cli.run("run", "--help").out().contains("--record=FILE"));
    }
}
