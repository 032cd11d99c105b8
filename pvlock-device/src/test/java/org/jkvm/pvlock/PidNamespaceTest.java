package org.jkvm.pvlock;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Whether a process runs in a nested PID namespace, from its {@code NSpid} line. */
@Tag("unit")
class PidNamespaceTest {
    @Test
    void oneIdIsTheInitialNamespaceMoreAreNested() {
        assertFalse(PidNamespace.nested("Name:\tjava\nTgid:\t4242\nNSpid:\t4242\nPPid:\t1\n"));
        assertTrue(PidNamespace.nested("Name:\tjava\nTgid:\t7\nNSpid:\t31337\t7\nPPid:\t1\n"),
                "a container: the host's pid, then the container's");
        assertFalse(PidNamespace.nested(""), "no status read: the initial namespace is assumed");
    }
}
