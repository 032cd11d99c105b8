package org.jkvm.kvm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A tap jkvm creates: its name, the offloads Linux's tun driver takes, and names it refuses. */
@Tag("unit")
class TapTest {
    @Test
    void createsATapAndProbesItsOffloads() {
        assumeTrue(Files.isWritable(Path.of("/dev/net/tun")), "needs /dev/net/tun and CAP_NET_ADMIN");
        String name = "jkvmt" + ProcessHandle.current().pid() % 100_000;
        try (Tap tap = Tap.open(name)) {
            assertEquals(name, tap.name());
            assertTrue(Files.isDirectory(Path.of("/sys/class/net", name)), "the interface exists while jkvm holds it");
            // Every tun driver since 2.6.27 takes checksum and TSO offloads.
            assertEquals(EnumSet.allOf(Tap.Offload.class), tap.offered());
            tap.offload(EnumSet.of(Tap.Offload.CSUM));
        }
        assertTrue(Files.notExists(Path.of("/sys/class/net", name)), "a tap jkvm created goes with its descriptor");
    }

    @Test
    void refusesNamesLinuxCannotHold() {
        assertThrows(IllegalArgumentException.class, () -> Tap.open(""));
        assertThrows(IllegalArgumentException.class, () -> Tap.open("a-name-of-16-chr"));
    }
}
