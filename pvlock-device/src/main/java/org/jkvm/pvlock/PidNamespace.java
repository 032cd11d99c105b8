package org.jkvm.pvlock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether jkvm runs in a nested PID namespace (a container). Perf's switch records name every task
 * outside the namespace of the process that opened the event as task 0, as they do a CPU's idle
 * task, so the preemptor tally cannot tell the two apart there and says so.
 *
 * <p>Told by the namespace's identity, not by {@code NSpid} in {@code /proc/self/status}: that
 * line lists a task's pids only from the namespace of whoever mounted that procfs down, and a
 * container mounts its own, so inside one it shows a single pid, as on the host.
 */
final class PidNamespace {
    private PidNamespace() {}

    /**
     * The initial PID namespace's inode, which the kernel fixes (PROC_PID_INIT_INO in
     * include/linux/proc_ns.h, since Linux 3.8; not in the uapi headers): every other has another.
     */
    private static final String INITIAL = "pid:[" + 0xEFFFFFFCL + "]";

    /** Whether this process runs in a nested PID namespace; true where that cannot be read, the cautious answer. */
    static boolean nested() {
        try {
            return nested(Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString());
        } catch (IOException e) {
            return true;
        }
    }

    /** Whether {@code link}, the target of a process's {@code /proc/PID/ns/pid}, names a nested PID namespace. */
    static boolean nested(String link) {
        return !link.equals(INITIAL);
    }
}
