package org.jkvm.vmm.virtio;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.jkvm.kvm.VectoredFile;
import org.jkvm.vmm.config.Disk;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.jkvm.vmm.virtio.FakeRam.DATA;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_NEXT;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** virtio-blk requests against an image file, as a driver lays them out and as a hostile one might. */
@Tag("unit")
class VirtioBlkTest {
    private static final int SIZE = 16;
    private static final long HEADER = DATA, BUF = DATA + 0x100, STATUS = DATA + 0x2000;
    private static final int SECTORS = 8;

    @TempDir
    Path dir;
    private Path image;
    private final FakeRam ram = new FakeRam(0x10000);
    private VirtQueue queue;

    @BeforeEach
    void setUp() throws IOException, VirtioException {
        image = dir.resolve("disk.img");
        byte[] content = new byte[SECTORS * 512];
        for (int i = 0; i < content.length; i++) content[i] = (byte) (i / 512 + 1);
        Files.write(image, content);
        queue = ram.queue(SIZE);
    }

    private VirtioBlk device(boolean readOnly) throws IOException {
        return new VirtioBlk("virtio-blk0", VectoredFile.open(image, !readOnly), SECTORS, readOnly, "jkvm-test-disk", null);
    }

    /** The device as {@link VirtioBlk#open} makes it, discard offered when the file system punches holes. */
    private VirtioBlk discarding(boolean readOnly) throws IOException {
        VirtioBlk blk = VirtioBlk.open("virtio-blk0", new Disk(image, readOnly, ""));
        Assumptions.assumeTrue(readOnly || (blk.features() & VirtioBlk.F_DISCARD) != 0,
                "the temporary directory's file system cannot punch holes");
        return blk;
    }

    /** Discard or write-zeroes segments {sector, count, flags} in the data buffer, and the request. */
    private void ranges(int type, long[]... segments) {
        ByteBuffer b = ByteBuffer.allocate(16 * segments.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long[] s : segments) b.putLong(s[0]).putInt((int) s[1]).putInt((int) s[2]);
        ram.put(BUF, b.array());
        request(type, 0, b.capacity(), false);
    }

    /** A header, one data buffer of {@code len} (writable for reads) and the status byte. */
    private void request(int type, long sector, int len, boolean dataWritable) {
        byte[] header = new byte[16];
        header[0] = (byte) type;
        for (int i = 0; i < 8; i++) header[8 + i] = (byte) (sector >>> (8 * i));
        ram.put(HEADER, header);
        ram.put(STATUS, new byte[] {(byte) 0xff});
        ram.descriptor(0, HEADER, 16, DESC_F_NEXT, 1);
        if (len > 0) {
            ram.descriptor(1, BUF, len, DESC_F_NEXT | (dataWritable ? DESC_F_WRITE : 0), 2);
            ram.descriptor(2, STATUS, 1, DESC_F_WRITE, 0);
        } else {
            ram.descriptor(1, STATUS, 1, DESC_F_WRITE, 0);
        }
        ram.offer(0, SIZE);
    }

    /** Serves the queue until the request is returned (the device of {@link VirtioBlk#open} runs it on its pool); its status. */
    private int serve(VirtioBlk blk) throws VirtioException, InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!blk.serve(0, queue)) {
            assertTrue(System.nanoTime() < deadline, "the request was not returned in 10 s");
            Thread.sleep(1);
        }
        return ram.get(STATUS);
    }

    private byte[] buffer(int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) b[i] = ram.get(BUF + i);
        return b;
    }

    @Test
    void readsWritesAndFlushesTheImage() throws Exception {
        try (VirtioBlk blk = device(false)) {
            request(BlkRequest.T_IN, 2, 1024, true);
            assertEquals(VirtioBlk.S_OK, serve(blk));
            byte[] expected = new byte[1024];
            Arrays.fill(expected, 0, 512, (byte) 3);
            Arrays.fill(expected, 512, 1024, (byte) 4);
            assertArrayEquals(expected, buffer(1024));
            assertArrayEquals(new long[] {0, 1025}, ram.usedEntry(0));

            byte[] data = new byte[512];
            Arrays.fill(data, (byte) 0x5a);
            ram.put(BUF, data);
            request(BlkRequest.T_OUT, 7, 512, false);
            assertEquals(VirtioBlk.S_OK, serve(blk));
            request(BlkRequest.T_FLUSH, 0, 0, false);
            assertEquals(VirtioBlk.S_OK, serve(blk));
        }
        byte[] now = Files.readAllBytes(image);
        assertEquals(0x5a, now[7 * 512]);
        assertEquals(7, now[6 * 512 + 511]);
    }

    @Test
    void discardAndWriteZeroesPunchHolesThatReadAsZeroes() throws Exception {
        try (VirtioBlk blk = discarding(false)) {
            assertEquals(VirtioBlk.F_DISCARD | VirtioBlk.F_WRITE_ZEROES,
                    blk.features() & (VirtioBlk.F_DISCARD | VirtioBlk.F_WRITE_ZEROES));
            ByteBuffer config = ByteBuffer.wrap(blk.config()).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(60, config.capacity());
            assertEquals(SECTORS, config.getLong(0));
            assertEquals(VirtioBlk.MAX_RANGE_SECTORS, config.getInt(36));
            assertEquals(VirtioBlk.MAX_RANGES, config.getInt(40));
            assertEquals(8, config.getInt(44));
            assertEquals(VirtioBlk.MAX_RANGE_SECTORS, config.getInt(48));
            assertEquals(VirtioBlk.MAX_RANGES, config.getInt(52));
            assertEquals(1, config.get(56));

            ranges(BlkRequest.T_DISCARD, new long[] {1, 2, 0}, new long[] {6, 1, 0});
            assertEquals(VirtioBlk.S_OK, serve(blk));
            ranges(BlkRequest.T_WRITE_ZEROES, new long[] {4, 1, VirtioBlk.SEGMENT_UNMAP});
            assertEquals(VirtioBlk.S_OK, serve(blk));
        }
        byte[] now = Files.readAllBytes(image);
        assertEquals(SECTORS * 512, now.length);
        for (int s = 0; s < SECTORS; s++) {
            int expected = s == 1 || s == 2 || s == 4 || s == 6 ? 0 : s + 1;
            assertEquals(expected, now[s * 512], "sector " + s);
            assertEquals(expected, now[s * 512 + 511], "sector " + s);
        }
    }

    @Test
    void aBadSegmentRefusesTheWholeRequestAndLeavesTheDiskAsItWas() throws Exception {
        try (VirtioBlk blk = discarding(false)) {
            ranges(BlkRequest.T_DISCARD, new long[] {0, 1, 0}, new long[] {SECTORS - 1, 2, 0});
            assertEquals(VirtioBlk.S_IOERR, serve(blk));
            ranges(BlkRequest.T_DISCARD, new long[] {0, 1, 0}, new long[] {-1, 1, 0});
            assertEquals(VirtioBlk.S_IOERR, serve(blk));
            ranges(BlkRequest.T_DISCARD, new long[] {0, 1, VirtioBlk.SEGMENT_UNMAP});
            assertEquals(VirtioBlk.S_UNSUPP, serve(blk), "discard has no unmap flag");
            ranges(BlkRequest.T_WRITE_ZEROES, new long[] {0, 1, 2});
            assertEquals(VirtioBlk.S_UNSUPP, serve(blk), "an unknown flag");
            ranges(BlkRequest.T_DISCARD, new long[VirtioBlk.MAX_RANGES + 1][3]);
            assertEquals(VirtioBlk.S_IOERR, serve(blk), "more segments than max_discard_seg");
            ram.put(BUF, new byte[16]);
            request(BlkRequest.T_DISCARD, 0, 15, false);
            assertEquals(VirtioBlk.S_IOERR, serve(blk), "part of a segment");
            request(BlkRequest.T_DISCARD, 0, 0, false);
            assertEquals(VirtioBlk.S_IOERR, serve(blk), "no segment");
        }
        byte[] now = Files.readAllBytes(image);
        for (int s = 0; s < SECTORS; s++) assertEquals(s + 1, now[s * 512], "sector " + s);
    }

    @Test
    void aReadOnlyDiskOffersNoDiscardAndRefusesIt() throws Exception {
        try (VirtioBlk blk = discarding(true)) {
            assertEquals(0, blk.features() & (VirtioBlk.F_DISCARD | VirtioBlk.F_WRITE_ZEROES));
            ByteBuffer config = ByteBuffer.wrap(blk.config()).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(0, config.getInt(36));
            assertEquals(0, config.getInt(48));
            ranges(BlkRequest.T_DISCARD, new long[] {0, 1, 0});
            assertEquals(VirtioBlk.S_UNSUPP, serve(blk));
            ranges(BlkRequest.T_WRITE_ZEROES, new long[] {0, 1, 0});
            assertEquals(VirtioBlk.S_UNSUPP, serve(blk));
        }
        assertEquals(1, Files.readAllBytes(image)[0]);
    }

    @Test
    void getIdAnswersTheSerialPaddedToTwentyBytes() throws Exception {
        try (VirtioBlk blk = device(false)) {
            request(BlkRequest.T_GET_ID, 0, 20, true);
            assertEquals(VirtioBlk.S_OK, serve(blk));
            assertArrayEquals(Arrays.copyOf("jkvm-test-disk".getBytes(), 20), buffer(20));
        }
    }

    @Test
    void aReadOnlyDiskRefusesWritesWithAnIoError() throws Exception {
        try (VirtioBlk blk = device(true)) {
            assertTrue((blk.features() & VirtioBlk.F_RO) != 0);
            request(BlkRequest.T_OUT, 0, 512, false);
            assertEquals(VirtioBlk.S_IOERR, serve(blk));
            request(BlkRequest.T_IN, 0, 512, true);
            assertEquals(VirtioBlk.S_OK, serve(blk));
        }
        assertEquals(1, Files.readAllBytes(image)[0]);
    }

    @Test
    void requestsPastTheEndOrOfPartSectorsOrUnknownTypesAreErrors() throws Exception {
        try (VirtioBlk blk = device(false)) {
            request(BlkRequest.T_IN, SECTORS, 512, true);
            assertEquals(VirtioBlk.S_IOERR, serve(blk));
            request(BlkRequest.T_IN, -1, 512, true);
            assertEquals(VirtioBlk.S_IOERR, serve(blk));
            request(BlkRequest.T_OUT, SECTORS - 1, 1024, false);
            assertEquals(VirtioBlk.S_IOERR, serve(blk));
            request(BlkRequest.T_IN, 0, 100, true);
            assertEquals(VirtioBlk.S_IOERR, serve(blk));
            request(11, 0, 16, false);
            assertEquals(VirtioBlk.S_UNSUPP, serve(blk));
        }
    }

    @Test
    void aHostIoErrorBecomesAnIoErrorForTheGuest() throws Exception {
        VirtioBlk blk = device(false);
        blk.close();
        request(BlkRequest.T_IN, 0, 512, true);
        assertEquals(VirtioBlk.S_IOERR, serve(blk));
        assertArrayEquals(new long[] {0, 1}, ram.usedEntry(0));
    }

    @Test
    void theHeaderMaySpanDescriptorsAndTheStatusShareOne() throws Exception {
        try (VirtioBlk blk = device(false)) {
            byte[] header = new byte[16];
            header[8] = 1; // sector 1, type IN
            ram.put(HEADER, header);
            ram.descriptor(0, HEADER, 5, DESC_F_NEXT, 1);
            ram.descriptor(1, HEADER + 5, 11, DESC_F_NEXT, 2);
            ram.descriptor(2, BUF, 513, DESC_F_WRITE, 0);
            ram.offer(0, SIZE);
            assertTrue(blk.serve(0, queue));
            assertEquals(VirtioBlk.S_OK, ram.get(BUF + 512));
            assertEquals(2, ram.get(BUF));
        }
    }

    @Test
    void aShortHeaderIsAnIoErrorAndNoStatusByteIsAProtocolError() throws Exception {
        try (VirtioBlk blk = device(false)) {
            ram.descriptor(0, HEADER, 8, DESC_F_NEXT, 1);
            ram.descriptor(1, STATUS, 1, DESC_F_WRITE, 0);
            ram.offer(0, SIZE);
            assertEquals(VirtioBlk.S_IOERR, serve(blk));
            ram.descriptor(0, HEADER, 16, 0, 0);
            ram.offer(0, SIZE);
            assertTrue(assertThrows(VirtioException.class, () -> blk.serve(0, queue)).getMessage().contains("no status byte"));
            assertFalse(blk.serve(0, queue));
        }
    }

    /** A request of {@code type} at {@code sector} in descriptors {@code first..first+2}, its header, 512-byte buffer and status from {@code at}. */
    private void chain(int first, int type, long sector, long at) {
        byte[] header = new byte[16];
        header[0] = (byte) type;
        header[8] = (byte) sector;
        ram.put(at, header);
        ram.put(at + 0x400, new byte[] {(byte) 0xff});
        ram.descriptor(first, at, 16, DESC_F_NEXT, first + 1);
        ram.descriptor(first + 1, at + 0x100, 512, DESC_F_NEXT | (type == BlkRequest.T_IN ? DESC_F_WRITE : 0), first + 2);
        ram.descriptor(first + 2, at + 0x400, 1, DESC_F_WRITE, 0);
        ram.offer(first, SIZE);
    }

    /** The device with requests left in {@code tasks}, to be run in any order the test likes. */
    private VirtioBlk deferred(List<Runnable> tasks) throws IOException {
        return deferred(tasks, 0);
    }

    /** The same, reads and writes of up to {@code inlineBytes} carried out at once. */
    private VirtioBlk deferred(List<Runnable> tasks, int inlineBytes) throws IOException {
        return new VirtioBlk("virtio-blk0", VectoredFile.open(image, true), SECTORS, false, "jkvm-test-disk", null, tasks::add, inlineBytes, 0);
    }

    @Test
    void smallReadsAndWritesAreCarriedOutOnTheWorkerAndAFlushNever() throws Exception {
        List<Runnable> tasks = new ArrayList<>();
        try (VirtioBlk blk = deferred(tasks, 512)) {
            chain(0, BlkRequest.T_IN, 3, DATA);
            assertTrue(blk.serve(0, queue), "returned in the same pass");
            assertEquals(4, ram.get(DATA + 0x100));
            chain(3, BlkRequest.T_FLUSH, 0, DATA + 0x1000);
            ram.descriptor(3, DATA + 0x1000, 16, DESC_F_NEXT, 5);
            assertFalse(blk.serve(0, queue));
            assertEquals(1, tasks.size(), "the flush went to the I/O threads");
        }
    }

    @ParameterizedTest
    @CsvSource({"tmpfs, true", "ramfs, true", "rootfs, true", "ext4, false", "xfs, false", "overlay, false", "devtmpfs, false"})
    void imagesInMemoryAreThoseOfTmpfsRamfsAndAnInitramfsButNotDeviceNodes(String type, boolean inMemory) {
        assertEquals(inMemory, VirtioBlk.inMemory(type));
    }

    @Test
    void aFileSystemNotKnownCountsAsOneThatWaitsForADevice() {
        assertEquals(16 << 10, VirtioBlk.inlineBytes(dir.resolve("missing.img")));
    }

    @Test
    void aThirtyTwoKiBReadIsCarriedOutOnTheWorkerWhenItsImageIsInMemoryOrItsBytesInThePageCacheAndOnAnIoThreadOtherwise()
            throws Exception {
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && "tmpfs".equals(Files.getFileStore(shm).type()), "no tmpfs at /dev/shm");
        Assumptions.assumeFalse("tmpfs".equals(Files.getFileStore(dir).type()), "the temporary directory is on tmpfs too");
        Path inMemory = Files.createTempFile(shm, "jkvm-blk-test", ".img");
        byte[] bytes = new byte[64 << 10];
        Arrays.fill(bytes, (byte) 0x5a);
        try {
            Files.write(inMemory, bytes);
            Path cached = Files.write(dir.resolve("cached.img"), bytes);
            assertEquals(List.of(), readThirtyTwoKiB(inMemory, "virtio-blk-mem"), "no I/O thread started");
            assertEquals(List.of(), readThirtyTwoKiB(cached, "virtio-blk-cached"), "no I/O thread started");
            // The worker's refused try starts the kernel's readahead, which a fast disk on a loaded machine can
            // finish before the kernel looks again, serving the read: up to ten fresh images, as VectoredFileTest does.
            List<String> io = List.of();
            for (int i = 0; i < 10 && io.isEmpty(); i++) {
                io = readThirtyTwoKiB(directlyWritten(dir.resolve("uncached-" + i + ".img"), bytes), "virtio-blk-uncached" + i);
            }
            assertEquals(1, io.size(), "one I/O thread for a read of bytes only on the disk: " + io);
        } finally {
            Files.delete(inMemory);
        }
    }

    /** An image of {@code bytes} written with O_DIRECT: on the disk, and none of it in the page cache. */
    private static Path directlyWritten(Path image, byte[] bytes) throws IOException {
        long block = Files.getFileStore(image.getParent()).getBlockSize();
        ByteBuffer b = ByteBuffer.allocateDirect((int) (bytes.length + block)).alignedSlice((int) block);
        b.put(bytes).flip();
        try (FileChannel c = FileChannel.open(image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
            while (b.hasRemaining()) c.write(b, b.position());
        } catch (UnsupportedOperationException | IOException e) {
            Assumptions.abort("O_DIRECT refused in " + image.getParent() + " (" + e + "): an image not in the page cache cannot be made");
        }
        return image;
    }

    /** Reads 32 KiB from {@code image} through a device {@link VirtioBlk#open} makes; the I/O threads it started. */
    private List<String> readThirtyTwoKiB(Path image, String name) throws Exception {
        try (VirtioBlk blk = VirtioBlk.open(name, new Disk(image, true, ""))) {
            long data = DATA + 0x3000;
            ram.put(HEADER, new byte[16]);
            ram.descriptor(0, HEADER, 16, DESC_F_NEXT, 1);
            ram.descriptor(1, data, 32 << 10, DESC_F_NEXT | DESC_F_WRITE, 2);
            ram.descriptor(2, STATUS, 1, DESC_F_WRITE, 0);
            ram.offer(0, SIZE);
            assertEquals(VirtioBlk.S_OK, serve(blk));
            assertEquals(0x5a, ram.get(data + (32 << 10) - 1), "the read's last byte");
            return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith(name + "-io")).toList();
        }
    }

    @Test
    void requestsInFlightGoBackThroughTheUsedRingInTheOrderTheyFinishEachWakingTheWorker() throws Exception {
        List<Runnable> tasks = new ArrayList<>();
        AtomicInteger wakes = new AtomicInteger();
        try (VirtioBlk blk = deferred(tasks)) {
            blk.attach(wakes::incrementAndGet);
            chain(0, BlkRequest.T_IN, 0, DATA);
            chain(3, BlkRequest.T_IN, 5, DATA + 0x1000);
            assertFalse(blk.serve(0, queue), "nothing finished yet");
            assertEquals(2, tasks.size(), "both started at once");
            tasks.get(1).run();
            assertEquals(1, wakes.get());
            assertTrue(blk.serve(0, queue));
            assertEquals(1, ram.usedIndex());
            assertArrayEquals(new long[] {3, 513}, ram.usedEntry(0), "the second chain, finished first, is returned first");
            assertEquals(6, ram.get(DATA + 0x1100));
            tasks.get(0).run();
            assertTrue(blk.serve(0, queue));
            assertArrayEquals(new long[] {0, 513}, ram.usedEntry(1));
            assertEquals(1, ram.get(DATA + 0x100));
            assertFalse(blk.serve(0, queue));
        }
    }

    @Test
    void aFlushStartsOnlyOnceEveryWriteTakenBeforeItHasFinishedAndLaterRequestsDoNotWaitForIt() throws Exception {
        List<Runnable> tasks = new ArrayList<>();
        try (VirtioBlk blk = deferred(tasks)) {
            chain(0, BlkRequest.T_OUT, 2, DATA);
            ram.put(DATA + 0x100, new byte[] {42});
            chain(3, BlkRequest.T_FLUSH, 0, DATA + 0x1000);
            ram.descriptor(4, DATA + 0x1400, 1, DESC_F_WRITE, 0); // a flush has no data: header, then status
            ram.descriptor(3, DATA + 0x1000, 16, DESC_F_NEXT, 4);
            chain(6, BlkRequest.T_IN, 1, DATA + 0x2000);
            assertFalse(blk.serve(0, queue));
            assertEquals(2, tasks.size(), "the write and the read; the flush waits for the write");
            tasks.get(1).run();
            assertTrue(blk.serve(0, queue));
            assertArrayEquals(new long[] {6, 513}, ram.usedEntry(0));
            tasks.get(0).run();
            assertEquals(3, tasks.size(), "the write finished: the flush started");
            assertTrue(blk.serve(0, queue));
            assertArrayEquals(new long[] {0, 1}, ram.usedEntry(1));
            tasks.get(2).run();
            assertTrue(blk.serve(0, queue));
            assertArrayEquals(new long[] {3, 1}, ram.usedEntry(2));
            assertEquals(VirtioBlk.S_OK, ram.get(DATA + 0x1400));
            assertEquals(42, Files.readAllBytes(image)[2 * 512]);
        }
    }

    @Test
    void noMoreThanAQueueOfRequestsIsInFlightWhateverTheGuestMakesAvailable() throws Exception {
        List<Runnable> tasks = new ArrayList<>();
        try (VirtioBlk blk = deferred(tasks)) {
            for (int i = 0; i < SIZE; i++) chain(0, BlkRequest.T_IN, 0, DATA);
            assertFalse(blk.serve(0, queue));
            assertEquals(SIZE, tasks.size());
            ram.offer(0, SIZE); // a hostile driver: the chain is still in flight
            assertFalse(blk.serve(0, queue));
            assertEquals(SIZE, tasks.size(), "a full queue's worth in flight: nothing more is taken");
            tasks.get(0).run();
            assertTrue(blk.serve(0, queue));
            assertEquals(SIZE + 1, tasks.size(), "one returned, one more taken");
        }
    }
}
