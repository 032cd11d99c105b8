package org.jkvm.pvlock;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Whether a process runs in a nested PID namespace, from its {@code /proc/PID/ns/pid} link. */
@Tag("unit")
class PidNamespaceTest {
    @Test
    void theInitialNamespaceHasTheKernelsFixedInodeEveryOtherIsNested() {
        assertFalse(PidNamespace.nested("pid:[4026531836]"));
        assertTrue(PidNamespace.nested("pid:[4026532180]"), "a Docker container's, as read inside one");
    }
}
