package org.jkvm.kvm;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Libc's system calls through syscall(2), where they differ from the C library's wrappers they
 * replace: the offset of preadv/pwritev (two words to the kernel), poll's timeout (a timespec
 * for ppoll), sched_getaffinity's result (bytes, not 0), errno, and pointers (native only).
 */
@Tag("unit")
class LibcSyscallTest {
    private static final int EBADF = 9;
    private static final long BEYOND_4G = (5L << 30) + 3;

    @Test
    void vectoredIoReachesAnOffsetBeyondFourGibibytes(@TempDir Path tmp) throws IOException {
        Path f = Files.createFile(tmp.resolve("sparse"));
        try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "rw")) {
            r.setLength(BEYOND_4G + 4096);
        }
        byte[] data = {1, 2, 3, 4, 5, 6, 7};
        try (Arena a = Arena.ofConfined(); VectoredFile v = VectoredFile.open(f, true)) {
            assertEquals(data.length, v.write(BEYOND_4G, List.of(a.allocateFrom(JAVA_BYTE, data))));
            MemorySegment back = a.allocate(data.length);
            assertEquals(data.length, v.read(BEYOND_4G, List.of(back)));
            assertArrayEquals(data, back.toArray(JAVA_BYTE));
        }
        try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "r")) {
            byte[] onDisk = new byte[data.length];
            r.seek(BEYOND_4G);
            r.readFully(onDisk);
            assertArrayEquals(data, onDisk, "the bytes landed at the offset asked for, not at its low 32 bits");
        }
    }

    @Test
    void pollWaitsForItsTimeoutAndSeesAnEventAtOnce() {
        try (Arena a = Arena.ofConfined(); EventFd e = EventFd.create()) {
            MemorySegment pfd = a.allocate(Libc.POLLFD_BYTES, 8);
            pfd.set(JAVA_INT, Libc.POLLFD_FD, e.fd());
            pfd.set(JAVA_SHORT, Libc.POLLFD_EVENTS, Libc.POLLIN);
            long start = System.nanoTime();
            assertEquals(0, Libc.poll(pfd, 1, 1_250));
            long waitedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(waitedMillis >= 1_200 && waitedMillis < 10_000, "waited " + waitedMillis + " ms for a 1250 ms timeout");
            e.signal();
            assertEquals(1, Libc.poll(pfd, 1, -1));
            assertEquals(Libc.POLLIN, pfd.get(JAVA_SHORT, Libc.POLLFD_REVENTS));
        }
    }

    @Test
    void aFailedCallLeavesItsErrno() {
        assertEquals(-1, Libc.close(-1));
        assertEquals(EBADF, Libc.errno());
        assertEquals(-1, Libc.open("/nonexistent/jkvm", Libc.O_RDONLY));
        assertEquals(Libc.ENOENT, Libc.errno());
    }

    @Test
    void theAffinityMaskIsTheOneTheKernelShowsForThisThread() throws IOException {
        String allowed = Files.readAllLines(Path.of("/proc/thread-self/status")).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst().orElseThrow()
                .substring("Cpus_allowed_list:".length()).trim();
        BitSet expected = new BitSet();
        for (String range : allowed.split(",")) {
            String[] ends = range.split("-");
            expected.set(Integer.parseInt(ends[0]), Integer.parseInt(ends[ends.length - 1]) + 1);
        }
        assertEquals(expected, HostCpus.currentAffinity(), "Cpus_allowed_list " + allowed);
    }

    @Test
    void aHeapSegmentIsRefusedWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Libc.write(1, MemorySegment.ofArray(new byte[4]), 4));
        assertTrue(e.getMessage().contains("native memory"), e.getMessage());
    }
}
