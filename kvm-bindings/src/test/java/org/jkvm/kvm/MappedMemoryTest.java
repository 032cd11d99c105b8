package org.jkvm.kvm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Guest RAM's host memory as the kernel sees it: where it starts, and whether it asked for huge pages. */
@Tag("unit")
class MappedMemoryTest {
    private static final long MIB = 1L << 20;
    /** The first line of a mapping's entry in smaps: "start-end perms ...". */
    private static final Pattern MAPPING = Pattern.compile("[0-9a-f]+-[0-9a-f]+ ");

    @Test
    void ramOfWholeHugePagesStartsOnAHugePageBoundary() {
        for (int i = 0; i < 8; i++) {
            try (MappedMemory m = MappedMemory.anonymous(6 * MIB, true)) {
                assertEquals(0, m.segment().address() % MappedMemory.HUGE_PAGE, "0x" + Long.toHexString(m.segment().address()));
                m.segment().set(JAVA_BYTE, 6 * MIB - 1, (byte) 1);
            }
        }
    }

    @Test
    void adviceForHugePagesShowsInTheMappingsFlags() throws IOException {
        assumeTrue(Files.exists(Path.of("/sys/kernel/mm/transparent_hugepage/enabled")),
                "this kernel has no transparent huge pages (no /sys/kernel/mm/transparent_hugepage): nothing to advise");
        try (MappedMemory m = MappedMemory.anonymous(4 * MIB, true)) {
            assertTrue(m.adviseHugePages());
            assertTrue(vmFlags(m.segment().address()).contains("hg"), "VmFlags of the mapping: " + vmFlags(m.segment().address()));
        }
    }

    /** The VmFlags line of /proc/self/smaps for the mapping that starts at {@code address}. */
    private static List<String> vmFlags(long address) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
        String start = Long.toHexString(address) + "-";
        boolean in = false;
        for (String line : lines) {
            if (MAPPING.matcher(line).lookingAt()) {
                in = line.startsWith(start);
            } else if (in && line.startsWith("VmFlags:")) {
                return List.of(line.substring("VmFlags:".length()).trim().split(" "));
            }
        }
        throw new AssertionError("no mapping starts at 0x" + Long.toHexString(address) + " in /proc/self/smaps");
    }
}
