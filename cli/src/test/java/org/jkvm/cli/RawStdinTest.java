package org.jkvm.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * jkvm run's standard input when it is no terminal (the test JVM's: a pipe): left as it is. Raw
 * mode on a terminal is tested on a pseudo-terminal in kvm-bindings (TerminalTest).
 */
@Tag("unit")
class RawStdinTest {
    @Test
    void leavesAPipeAlone() throws IOException {
        String stdin = Files.readSymbolicLink(Path.of("/proc/self/fd/0")).toString();
        assumeFalse(stdin.startsWith("/dev/pts/") || stdin.startsWith("/dev/tty"), "stdin is a terminal: " + stdin);
        // Switching a pipe to raw mode fails (TCGETS: ENOTTY), so this throws unless enter() checks first.
        assertDoesNotThrow(() -> {
            try (RawStdin keys = RawStdin.enter()) {
                return keys;
            }
        });
    }
}
