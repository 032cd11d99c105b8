package org.jkvm.kvm;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** preadv/pwritev on a real file in the temporary directory, buffers in native memory. */
@Tag("unit")
class VectoredFileTest {
    private final Arena arena = Arena.ofAuto();

    @Test
    void writesTheBuffersInOrderAtTheOffsetAndReadsThemBack(@TempDir Path tmp) throws IOException {
        Path f = Files.write(tmp.resolve("image"), new byte[8192]);
        List<MemorySegment> out = List.of(pattern(512, 1), pattern(0, 0), pattern(4096, 2), pattern(3, 3));
        try (VectoredFile v = VectoredFile.open(f, true)) {
            assertEquals(4611, v.write(1000, out));
            v.syncData();
            byte[] expected = new byte[8192];
            System.arraycopy(concat(out), 0, expected, 1000, 4611);
            assertArrayEquals(expected, Files.readAllBytes(f));

            List<MemorySegment> in = List.of(arena.allocate(7), arena.allocate(0), arena.allocate(4604));
            assertEquals(4611, v.read(1000, in));
            assertArrayEquals(concat(out), concat(in));
        }
    }

    @Test
    void aHeapBufferIsRefusedBeforeAnyByteMoves(@TempDir Path tmp) throws IOException {
        Path f = Files.write(tmp.resolve("image"), new byte[] {1, 2, 3, 4});
        byte[] heap = new byte[4];
        try (VectoredFile v = VectoredFile.open(f, true)) {
            var e = assertThrows(IllegalArgumentException.class, () -> v.read(0, List.of(MemorySegment.ofArray(heap))));
            assertTrue(e.getMessage().contains("native memory"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> v.write(0, List.of(pattern(2, 9), MemorySegment.ofArray(heap))));
        }
        assertArrayEquals(new byte[4], heap);
        assertArrayEquals(new byte[] {1, 2, 3, 4}, Files.readAllBytes(f));
    }

    @Test
    void eachThreadsCallsKeepTheirOwnBuffers(@TempDir Path tmp) throws Exception {
        int size = 64 << 10;
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) data[i] = (byte) (i * 31 + 7);
        Path f = Files.write(tmp.resolve("image"), data);
        try (VectoredFile v = VectoredFile.open(f, false); var pool = Executors.newFixedThreadPool(4)) {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int first = t;
                results.add(pool.submit(() -> {
                    for (int round = 0; round < 200; round++) {
                        int at = ((first * 200 + round) * 509) % (size - 4096);
                        List<MemorySegment> in = List.of(arena.allocate(100), arena.allocate(3996));
                        if (v.read(at, in) != 4096 || !Arrays.equals(concat(in), Arrays.copyOfRange(data, at, at + 4096))) return false;
                    }
                    return true;
                }));
            }
            for (var r : results) assertTrue(r.get(), "a read returned another read's bytes");
        }
    }

    @Test
    void moreBuffersThanOneCallTakesGoInSeveralCalls(@TempDir Path tmp) throws IOException {
        int count = VectoredFile.MAX_BUFFERS * 2 + 5;
        Path f = Files.write(tmp.resolve("image"), new byte[count * 3 + 1]);
        List<MemorySegment> out = new ArrayList<>();
        for (int i = 0; i < count; i++) out.add(pattern(3, i));
        try (VectoredFile v = VectoredFile.open(f, true)) {
            assertEquals(count * 3L, v.write(1, out));
            List<MemorySegment> in = new ArrayList<>();
            for (int i = 0; i < count; i++) in.add(arena.allocate(3));
            assertEquals(count * 3L, v.read(1, in));
            assertArrayEquals(concat(out), concat(in));
        }
        byte[] file = Files.readAllBytes(f);
        assertEquals(0, file[0]);
        assertArrayEquals(concat(out), Arrays.copyOfRange(file, 1, file.length));
    }

    @Test
    void aReadPastTheEndIsShortAndFillsWhatTheFileHolds(@TempDir Path tmp) throws IOException {
        byte[] data = concat(List.of(pattern(1500, 9)));
        Path f = Files.write(tmp.resolve("image"), data);
        try (VectoredFile v = VectoredFile.open(f, false)) {
            MemorySegment a = arena.allocate(600), b = arena.allocate(1024);
            b.fill((byte) 0x77);
            assertEquals(1000, v.read(500, List.of(a, b)), "the file ends inside the second buffer");
            assertArrayEquals(Arrays.copyOfRange(data, 500, 1500), concat(List.of(a, b.asSlice(0, 400))));
            assertEquals(0x77, b.get(JAVA_BYTE, 400), "bytes past the end are left as they were");
            assertEquals(0, v.read(1500, List.of(a)), "at the end");
            assertEquals(0, v.read(5000, List.of(a)), "past the end");
        }
    }

    @Test
    void aFailedCallCarriesItsNameFileOffsetAndErrno(@TempDir Path tmp) throws IOException {
        Path f = Files.write(tmp.resolve("image"), new byte[4096]);
        try (VectoredFile v = VectoredFile.open(f, false)) {
            KvmException e = assertThrows(KvmException.class, () -> v.write(512, List.of(pattern(512, 1), pattern(512, 2))));
            assertEquals("EBADF", e.errnoName());
            assertEquals("pwritev(" + f + ", offset 512, 2 buffers)", e.getMessage().substring(0, e.getMessage().indexOf(": ")));
        }
        assertArrayEquals(new byte[4096], Files.readAllBytes(f), "a read-only file is left as it was");
        KvmException missing = assertThrows(KvmException.class, () -> VectoredFile.open(tmp.resolve("absent"), true));
        assertEquals("ENOENT", missing.errnoName());
        assertTrue(missing.getMessage().startsWith("open(" + tmp.resolve("absent") + ", O_RDWR)"), missing.getMessage());
    }

    @Test
    void noBuffersMoveNothing(@TempDir Path tmp) throws IOException {
        Path f = Files.write(tmp.resolve("image"), new byte[16]);
        try (VectoredFile v = VectoredFile.open(f, true)) {
            assertEquals(0, v.write(0, List.of()));
            assertEquals(0, v.read(0, List.of(arena.allocate(0))));
        }
    }

    @Test
    void aReadFromThePageCacheAloneFillsTheBuffersOnlyWhenEveryByteIsThere(@TempDir Path tmp) throws IOException {
        String type = Files.getFileStore(tmp).type();
        Assumptions.assumeFalse(List.of("tmpfs", "ramfs").contains(type),
                "the temporary directory is on " + type + ", whose files are all in memory: nothing would wait");
        byte[] bytes = concat(List.of(pattern(64 << 10, 5)));
        Path cached = Files.write(tmp.resolve("cached"), bytes);
        Path uncached = refusedFromTheCache(tmp, bytes);
        try (VectoredFile c = VectoredFile.open(cached, false); VectoredFile u = VectoredFile.open(uncached, false)) {
            List<MemorySegment> in = List.of(arena.allocate(100), arena.allocate(4000));
            assertTrue(c.readCached(1000, in), "bytes just written are in the page cache");
            assertArrayEquals(Arrays.copyOfRange(bytes, 1000, 5100), concat(in));
            assertFalse(c.readCached((64 << 10) - 256, List.of(arena.allocate(512))), "the file ends first");

            List<MemorySegment> all = List.of(arena.allocate(64 << 10));
            assertEquals(64 << 10, u.read(0, all));
            assertTrue(u.readCached(0, all), "the read brought them into the page cache");
            assertArrayEquals(bytes, concat(all));
        }
    }

    /**
     * A new file of {@code bytes} whose read from the page cache alone was refused. A refused read
     * still starts the kernel's readahead, which a fast disk on a loaded machine can finish before the
     * kernel looks again, and the read is then served: such a try shows nothing, so up to ten fresh
     * files are tried. A read that does not keep to the cache is served every time.
     */
    private Path refusedFromTheCache(Path dir, byte[] bytes) throws IOException {
        for (int i = 0; i < 10; i++) {
            Path f = writtenPastThePageCache(dir.resolve("uncached-" + i), bytes);
            try (VectoredFile u = VectoredFile.open(f, false)) {
                if (!u.readCached(0, List.of(arena.allocate(bytes.length)))) return f;
            }
        }
        return fail("ten reads of bytes written with O_DIRECT were all served from the page cache alone");
    }

    /** {@code bytes} written to a new file with O_DIRECT, which leaves none of them in the page cache. */
    private static Path writtenPastThePageCache(Path file, byte[] bytes) throws IOException {
        int block = Math.toIntExact(Files.getFileStore(file.getParent()).getBlockSize());
        ByteBuffer aligned = ByteBuffer.allocateDirect(bytes.length + block).alignedSlice(block).put(bytes).flip();
        try (FileChannel f = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
            while (aligned.hasRemaining()) f.write(aligned, aligned.position());
        } catch (UnsupportedOperationException | IOException e) {
            Assumptions.abort(file.getParent() + "'s file system takes no O_DIRECT writes (" + e + "): no way to leave bytes uncached");
        }
        return file;
    }

    /** {@code size} native bytes counting up from {@code seed}. */
    private MemorySegment pattern(int size, int seed) {
        MemorySegment s = arena.allocate(Math.max(size, 1)).asSlice(0, size);
        for (int i = 0; i < size; i++) s.set(JAVA_BYTE, i, (byte) (seed * 31 + i));
        return s;
    }

    private static byte[] concat(List<MemorySegment> buffers) {
        long total = 0;
        for (MemorySegment b : buffers) total += b.byteSize();
        byte[] all = new byte[(int) total];
        int at = 0;
        for (MemorySegment b : buffers) {
            MemorySegment.copy(b, JAVA_BYTE, 0, all, at, (int) b.byteSize());
            at += (int) b.byteSize();
        }
        return all;
    }
}
