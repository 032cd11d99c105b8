package org.jkvm.vmm.config;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The kernel's console is the last console= before "--", without its options. */
@Tag("unit")
class KernelConsoleTest {
    @Test
    void theLastConsoleBeforeInitsArgumentsIsTheKernels() {
        assertEquals("hvc0", KernelConsole.last("console=ttyS0 root=/dev/vda console=hvc0"));
        assertEquals("ttyS0", KernelConsole.last("  console=hvc0\tconsole=ttyS0,115200n8 quiet "));
        assertEquals("ttyS0", KernelConsole.last("console=ttyS0 -- console=hvc0"));
        assertEquals("", KernelConsole.last("root=/dev/vda rw"));
        assertEquals("", KernelConsole.last(""));
    }
}
