package org.jkvm.vmm.devices;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Spotting a guest's kernel panic on its console. */
@Tag("unit")
class PanicWatcherTest {
    static final String PANIC = "Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)";

    ByteArrayOutputStream console;
    PanicWatcher watcher;

    @BeforeEach
    void watcher() {
        console = new ByteArrayOutputStream();
        watcher = new PanicWatcher(console);
    }

    void print(String s) throws IOException {
        watcher.write(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void passesEveryByteThrough() throws IOException {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) all[i] = (byte) i;
        watcher.write(all);
        watcher.write(all, 10, 5);
        watcher.write('!');
        watcher.flush();
        byte[] seen = console.toByteArray();
        assertEquals(256 + 5 + 1, seen.length);
        for (int i = 0; i < 256; i++) assertEquals(all[i], seen[i]);
        for (int i = 0; i < 5; i++) assertEquals(all[10 + i], seen[256 + i]);
        assertEquals('!', seen[261]);
    }

    @Test
    void noPanicOnAnOrdinaryBoot() throws IOException {
        print("[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x410fd083]\n");
        print("[    1.000000] Run /init as init process\n");
        print("Welcome to the guest\r\n");
        assertNull(watcher.panic());
    }

    @Test
    void findsThePanicLine() throws IOException {
        print("[    0.500000] VFS: Cannot open root device\n");
        print("[    0.510000] " + PANIC + "\n");
        assertEquals(PANIC, watcher.panic());
        assertEquals("[    0.500000] VFS: Cannot open root device\n[    0.510000] " + PANIC + "\n",
                console.toString(StandardCharsets.ISO_8859_1));
    }

    @Test
    void findsThePanicLineWithCrLf() throws IOException {
        print("[    0.510000] " + PANIC + "\r\n");
        assertEquals(PANIC, watcher.panic());
    }

    @Test
    void findsThePanicLineSplitAcrossWrites() throws IOException {
        print("[    0.51] Kernel pa");
        assertNull(watcher.panic());
        print("nic - not syn");
        print("cing: Attempted to kill init! exitcode=0x00000100");
        assertNull(watcher.panic(), "reported before the line ended");
        print("\n");
        assertEquals("Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100", watcher.panic());
    }

    @Test
    void findsThePanicLineWrittenByteByByte() throws IOException {
        for (byte b : (PANIC + "\n").getBytes(StandardCharsets.ISO_8859_1)) watcher.write(b);
        assertEquals(PANIC, watcher.panic());
    }

    @Test
    void markSplitOverTwoLinesIsNoPanic() throws IOException {
        print("Kernel panic\n - not syncing: no\n");
        assertNull(watcher.panic());
    }

    @Test
    void unfinishedPanicLineIsNotReported() throws IOException {
        print(PANIC);
        assertNull(watcher.panic());
    }

    @Test
    void keepsTheFirstPanic() throws IOException {
        print(PANIC + "\n");
        print("---[ end Kernel panic - not syncing: something else ]---\n");
        assertEquals(PANIC, watcher.panic());
    }

    @Test
    void ignoresLinesThatMerelyMentionPanic() throws IOException {
        print("panic=-1 console=ttyS0\n");
        print("Kernel panic test skipped\n");
        assertNull(watcher.panic());
    }
}
