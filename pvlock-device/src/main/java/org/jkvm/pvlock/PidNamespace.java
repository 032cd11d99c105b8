package org.jkvm.pvlock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether jkvm runs in a nested PID namespace (a container). Perf's switch records name every task
 * outside such a namespace as task 0, as they do a CPU's idle task, so the preemptor tally cannot
 * tell the two apart there and says so.
 */
final class PidNamespace {
    private PidNamespace() {}

    /** Whether this process runs in a nested PID namespace; false where its status cannot be read. */
    static boolean nested() {
        try {
            return nested(Files.readString(Path.of("/proc/self/status")));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Whether the process whose {@code /proc/PID/status} is {@code status} runs in a nested PID
     * namespace: its {@code NSpid} line gives its pid in each namespace from the outermost, so more than one.
     */
    static boolean nested(String status) {
        return status.lines().filter(l -> l.startsWith("NSpid:"))
                .anyMatch(l -> l.substring("NSpid:".length()).strip().split("\\s+").length > 1);
    }
}
