package org.jkvm.kvm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Optional;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** fallocate(PUNCH_HOLE | KEEP_SIZE) on a file in the temporary directory's file system. */
@Tag("unit")
class HolePuncherTest {
    private static final int MIB = 1 << 20;

    @Test
    void aPunchedRangeReadsAsZeroesFreesItsBlocksAndKeepsTheSize(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("image");
        byte[] data = new byte[4 * MIB];
        Arrays.fill(data, (byte) 0x5a);
        Files.write(f, data);
        long before = allocatedBytes(f);
        Optional<HolePuncher> probed = HolePuncher.probe(f, data.length);
        Assumptions.assumeTrue(probed.isPresent(), "the temporary directory's file system cannot punch holes");
        try (HolePuncher h = probed.get()) {
            assertEquals(data.length, Files.size(f), "the probe past the end keeps the size");
            assertEquals(before, allocatedBytes(f), "the probe past the end frees nothing");
            h.punch(MIB, 2 * MIB);
        }
        assertEquals(data.length, Files.size(f));
        assertTrue(allocatedBytes(f) <= before - 2 * MIB, "allocated " + allocatedBytes(f) + " of " + before);
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.READ)) {
            assertArrayEquals(filled(MIB, 0x5a), read(c, 0, MIB));
            assertArrayEquals(new byte[2 * MIB], read(c, MIB, 2 * MIB));
            assertArrayEquals(filled(MIB, 0x5a), read(c, 3 * MIB, MIB));
        }
    }

    @Test
    void aBadRangeFailsWithTheCallAndItsArguments(@TempDir Path tmp) throws Exception {
        Path f = Files.write(tmp.resolve("image"), new byte[4096]);
        Optional<HolePuncher> probed = HolePuncher.probe(f, 4096);
        Assumptions.assumeTrue(probed.isPresent(), "the temporary directory's file system cannot punch holes");
        try (HolePuncher h = probed.get()) {
            KvmException e = assertThrows(KvmException.class, () -> h.punch(-1, 4096));
            assertEquals("EINVAL", e.errnoName());
            assertTrue(e.getMessage().startsWith("fallocate(" + f + ", PUNCH_HOLE|KEEP_SIZE, offset=-1"), e.getMessage());
        }
    }

    @Test
    void aFileThatDoesNotOpenForWritingIsAnError(@TempDir Path tmp) {
        KvmException e = assertThrows(KvmException.class, () -> HolePuncher.probe(tmp.resolve("missing"), 0));
        assertEquals("ENOENT", e.errnoName());
    }

    private static byte[] filled(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }

    private static byte[] read(FileChannel c, long at, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        int n0;
        do {
            n0 = c.read(b, at + b.position());
        } while (n0 > 0 && b.hasRemaining());
        return b.array();
    }

    /** st_blocks * 512, from stat(1): Java's file attributes do not have it. */
    static long allocatedBytes(Path f) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("stat", "-c", "%b", f.toString()).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertEquals(0, p.waitFor(), "stat " + f);
        return Long.parseLong(out) * 512;
    }
}
