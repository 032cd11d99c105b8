package org.jkvm.vmm.virtio;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.jkvm.kvm.HolePuncher;
import org.jkvm.kvm.KvmException;
import org.jkvm.kvm.VectoredFile;
import org.jkvm.vmm.config.Disk;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * virtio-blk (virtio 1.2, 5.2) over a raw image file: read, write, flush (fdatasync) and get-id,
 * on one queue. A read or write moves all its guest buffers with one call ({@link VectoredFile}:
 * preadv/pwritev), through the host's page cache, as QEMU's default cache=writeback does. A
 * read-only disk refuses writes with an I/O error, and so does the host when it fails: the guest
 * sees VIRTIO_BLK_S_IOERR, the VMM goes on.
 * Discard and write-zeroes punch holes in the image ({@link HolePuncher}), so the sectors read
 * as zeroes and the image's blocks go back to the host; they are offered only on a writable disk
 * whose file system punches holes (probed once, when the image is opened).
 * <p>
 * Reads and writes of up to {@link #INLINE_BYTES} run on the worker as it takes them, up to
 * {@link #INLINE_BYTES_IN_MEMORY} for an image in memory (tmpfs, ramfs, an initramfs's rootfs:
 * its reads and writes never wait for a device, so a trip through an I/O thread buys no overlap,
 * only two thread switches). Other requests run on a small pool of I/O threads
 * ({@link #IO_THREADS}), several at a time, and go
 * back through the used ring in the order they finish: the worker takes every chain available
 * (at most a queue's worth in flight), and each finished request wakes it to return what is
 * done, so one pass, and one interrupt, covers every request finished meanwhile. A flush starts
 * once every write, discard and write-zeroes taken before it has finished, so it makes them
 * durable too, not only those the guest already saw complete.
 */
public final class VirtioBlk implements VirtioDevice {
    private static final System.Logger LOG = System.getLogger(VirtioBlk.class.getName());
    /** Feature bits: the most segments per request, a read-only device, the flush command, discard, write-zeroes. */
    static final long F_SEG_MAX = 1L << 2, F_RO = 1L << 5, F_FLUSH = 1L << 9, F_DISCARD = 1L << 13, F_WRITE_ZEROES = 1L << 14;
    /** Status byte values. */
    static final byte S_OK = 0, S_IOERR = 1, S_UNSUPP = 2;
    /** Bytes of one discard or write-zeroes segment, and write-zeroes' unmap flag. */
    static final int SEGMENT = 16, SEGMENT_UNMAP = 1;
    /**
     * Data segments a request may have: a chain has to fit in the queue (256 entries, the
     * transport's default) with its header and status. Fewer would split the guest's larger requests.
     */
    static final int SEG_MAX = 254;
    /** Requests carried out at once: file calls that block overlap, and the guest's vCPUs get the rest of the host. */
    static final int IO_THREADS = 4;
    /** Reads and writes up to this many bytes run on the worker, not on the pool. */
    static final int INLINE_BYTES = 16 << 10;
    /**
     * The same for an image in memory: a booting guest's reads are up to its 128 KiB readahead,
     * and while the device's code still runs interpreted the hand-over to an I/O thread costs
     * more than such a copy (bench/blk/README.md, 2026-12-03).
     */
    static final int INLINE_BYTES_IN_MEMORY = 128 << 10;
    /**
     * The same for an image on a disk's file system, for a read whose bytes are all in the host's
     * page cache: tried on the worker with RWF_NOWAIT, which refuses rather than wait, and handed
     * to an I/O thread only when refused. Larger reads keep the I/O threads' parallel copies.
     */
    static final int CACHED_READ_BYTES = 128 << 10;
    /** Bytes of the config space with the discard and write-zeroes limits (up to write_zeroes_may_unmap). */
    static final int CONFIG_BYTES = 60;
    /** The most sectors one discard or write-zeroes segment may cover (2 GiB), and segments per request. */
    static final int MAX_RANGE_SECTORS = 1 << 22, MAX_RANGES = 32;
    /** Discards are whole host blocks (4 KiB): a smaller hole would only be zeroes written. */
    static final int RANGE_ALIGNMENT_SECTORS = 8;

    private final String name;
    private final VectoredFile file;
    private final long sectors;
    private final boolean readOnly;
    private final byte[] id;
    /** Discard and write-zeroes go here; null when they are not offered. */
    private final HolePuncher holes;
    private final AtomicInteger hostErrors = new AtomicInteger();
    /** Where requests run: the device's pool, or the caller's thread (tests, fuzzing). */
    private final Executor io;
    /** Reads and writes up to this many bytes run on the worker ({@link #small}). */
    private final int inlineBytes;
    /** Reads up to this many bytes run on the worker when the page cache has them ({@link #readFromCache}). */
    private final int cachedReadBytes;
    /** Requests finished on the I/O threads, for the worker to return through the used ring. */
    private final Queue<Done> done = new ConcurrentLinkedQueue<>();
    /** Requests taken from the queue and not finished; the worker's (and reset's, under the transport's lock). */
    private final List<CompletableFuture<Void>> inFlight = new ArrayList<>();
    /** The image-changing requests among them, which a later flush waits for. */
    private final List<CompletableFuture<Void>> changes = new ArrayList<>();
    /** Requests taken and not yet returned through the used ring. */
    private int taken;
    /** The worker's counts of requests it carried out itself, of those read from the page cache, and of those handed on. */
    private long onWorker, fromCache, handedOn;
    /** A request that failed with an unexpected exception, rethrown on the worker so the device needs a reset. */
    private volatile RuntimeException failure;
    private volatile Runnable wakeWorker = () -> { };

    /** A finished request: its chain's head and the bytes written to the guest. */
    private record Done(int head, int written) { }

    /** The device carrying out requests on the caller's thread, one at a time. */
    VirtioBlk(String name, VectoredFile file, long sectors, boolean readOnly, String serial, HolePuncher holes) {
        this(name, file, sectors, readOnly, serial, holes, Runnable::run, 0, 0);
    }

    /**
     * The device carrying out reads and writes of up to {@code inlineBytes} on the worker, and
     * reads of up to {@code cachedReadBytes} whose bytes the page cache holds, other requests on
     * {@code io}; closing the device closes {@code io} if it is an {@link ExecutorService}.
     */
    VirtioBlk(String name, VectoredFile file, long sectors, boolean readOnly, String serial, HolePuncher holes, Executor io,
              int inlineBytes, int cachedReadBytes) {
        this.io = io;
        this.inlineBytes = inlineBytes;
        this.cachedReadBytes = cachedReadBytes;
        this.name = name;
        this.file = file;
        this.sectors = sectors;
        this.readOnly = readOnly;
        this.id = Arrays.copyOf(serial.getBytes(StandardCharsets.US_ASCII), Disk.SERIAL_BYTES);
        this.holes = readOnly ? null : holes;
    }

    /**
     * The device for {@code disk}, its image opened for reading (and writing unless read-only);
     * a writable image is probed for hole punching, which discard needs.
     */
    public static VirtioBlk open(String name, Disk disk) throws IOException {
        long size = Files.size(disk.path());
        VectoredFile f = VectoredFile.open(disk.path(), !disk.readOnly());
        HolePuncher holes = null;
        try {
            if (!disk.readOnly()) {
                holes = HolePuncher.probe(disk.path(), size).orElse(null);
                if (holes == null) LOG.log(Level.INFO, name + ": " + disk.path() + "'s file system cannot punch holes: discard not offered");
            }
            return new VirtioBlk(name, f, size / Disk.SECTOR, disk.readOnly(), disk.serial(), holes,
                    Executors.newFixedThreadPool(IO_THREADS, Thread.ofPlatform().name(name + "-io", 0).daemon().factory()),
                    inlineBytes(disk.path()), CACHED_READ_BYTES);
        } catch (RuntimeException e) {
            f.close();
            if (holes != null) holes.close();
            throw e;
        }
    }

    /**
     * How large a read or write runs on the worker for an image at {@code path}: more for one in
     * memory. A file system that cannot be told (the mount table unreadable) counts as one that
     * may wait for a device.
     */
    static int inlineBytes(Path path) {
        try {
            if (inMemory(Files.getFileStore(path).type())) return INLINE_BYTES_IN_MEMORY;
        } catch (IOException e) {
            LOG.log(Level.DEBUG, () -> path + ": its file system is not known (" + e.getMessage() + ")");
        }
        return INLINE_BYTES;
    }

    /**
     * Whether files of a file system of this type (as the mount table names it) live in memory.
     * Not devtmpfs: its files are device nodes, whose I/O waits for the device.
     */
    static boolean inMemory(String fileSystemType) {
        return switch (fileSystemType) {
            case "tmpfs", "ramfs", "rootfs" -> true;
            default -> false;
        };
    }

    @Override
    public int deviceId() {
        return 2;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long features() {
        return VirtioMmio.F_VERSION_1 | F_SEG_MAX | F_FLUSH | (readOnly ? F_RO : 0)
                | (holes != null ? F_DISCARD | F_WRITE_ZEROES : 0);
    }

    @Override
    public int queues() {
        return 1;
    }

    /**
     * capacity (u64, in sectors) at 0, seg_max (u32) at 12; with discard, its limits at 36
     * (max_discard_sectors, max_discard_seg, discard_sector_alignment) and write-zeroes' at 48
     * (max_write_zeroes_sectors, max_write_zeroes_seg, write_zeroes_may_unmap). The rest is zero.
     */
    @Override
    public byte[] config() {
        ByteBuffer c = ByteBuffer.allocate(CONFIG_BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, sectors).putInt(12, SEG_MAX);
        if (holes != null) {
            c.putInt(36, MAX_RANGE_SECTORS).putInt(40, MAX_RANGES).putInt(44, RANGE_ALIGNMENT_SECTORS)
                    .putInt(48, MAX_RANGE_SECTORS).putInt(52, MAX_RANGES).put(56, (byte) 1);
        }
        return c.array();
    }

    @Override
    public void attach(Runnable wakeWorker) {
        this.wakeWorker = wakeWorker;
    }

    /**
     * Returns the requests finished since the last pass, starts every chain available (while
     * fewer than the queue's size are in flight) and returns those that finished meanwhile.
     */
    @Override
    public boolean serve(int index, VirtQueue queue) throws VirtioException {
        RuntimeException failed = failure;
        if (failed != null) throw failed;
        boolean used = returnDone(queue);
        for (DescriptorChain c; taken < queue.size() && (c = queue.next()) != null; taken++) {
            start(c.head(), BlkRequest.parse(c));
        }
        return returnDone(queue) | used;
    }

    private boolean returnDone(VirtQueue queue) {
        boolean used = false;
        for (Done d; (d = done.poll()) != null; taken--) {
            queue.complete(d.head(), d.written());
            used = true;
        }
        return used;
    }

    private void start(int head, BlkRequest r) {
        if (small(r)) {
            onWorker++;
            done.add(new Done(head, execute(r)));
            return;
        }
        if (readFromCache(r)) {
            fromCache++;
            done.add(new Done(head, completed(r, S_OK, Buffers.total(r.in()))));
            return;
        }
        handedOn++;
        Runnable run = () -> {
            try {
                done.add(new Done(head, execute(r)));
            } catch (RuntimeException e) {
                failure = e;
            }
            wakeWorker.run();
        };
        inFlight.removeIf(CompletableFuture::isDone);
        changes.removeIf(CompletableFuture::isDone);
        CompletableFuture<Void> f = r.type() == BlkRequest.T_FLUSH
                ? CompletableFuture.allOf(changes.toArray(CompletableFuture[]::new)).thenRunAsync(run, io)
                : CompletableFuture.runAsync(run, io);
        inFlight.add(f);
        if (r.type() == BlkRequest.T_OUT || r.type() == BlkRequest.T_DISCARD || r.type() == BlkRequest.T_WRITE_ZEROES) {
            changes.add(f);
        }
    }

    /**
     * A read or write of at most {@code inlineBytes}, carried out on the worker itself, without
     * the two thread switches of a trip through an I/O thread.
     */
    private boolean small(BlkRequest r) {
        return (r.type() == BlkRequest.T_IN || r.type() == BlkRequest.T_OUT)
                && Buffers.total(r.in()) + Buffers.total(r.out()) <= inlineBytes;
    }

    /**
     * Whether {@code r} is a read of up to {@code cachedReadBytes} whose bytes were all in the
     * host's page cache, and are now in its buffers: a read that waits for no device gains
     * nothing from an I/O thread but its two thread switches. Otherwise nothing is settled: an I/O
     * thread reads it whole, and reports what goes wrong.
     */
    private boolean readFromCache(BlkRequest r) {
        if (r.type() != BlkRequest.T_IN || !r.wellFormed()) return false;
        long bytes = Buffers.total(r.in());
        return bytes <= cachedReadBytes && inImage(r.sector(), bytes) && file.readCached(r.sector() * Disk.SECTOR, r.in());
    }

    /** Waits for the requests in flight and forgets them: the driver has reset, their chains are no longer its. */
    @Override
    public void reset() {
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).join();
        inFlight.clear();
        changes.clear();
        done.clear();
        taken = 0;
        failure = null;
    }

    /** Carries out {@code r}, sets its status byte, and returns the bytes written to the guest (a u32). */
    int execute(BlkRequest r) {
        byte status;
        long written = 0;
        try {
            if (!r.wellFormed()) {
                status = S_IOERR;
            } else {
                switch (r.type()) {
                    case BlkRequest.T_IN -> {
                        status = transfer(r.sector(), r.in(), false);
                        if (status == S_OK) written = Buffers.total(r.in());
                    }
                    case BlkRequest.T_OUT -> status = readOnly ? S_IOERR : transfer(r.sector(), r.out(), true);
                    case BlkRequest.T_FLUSH -> {
                        if (!readOnly) file.syncData();
                        status = S_OK;
                    }
                    case BlkRequest.T_GET_ID -> {
                        written = Buffers.copyIn(r.in(), id);
                        status = S_OK;
                    }
                    case BlkRequest.T_DISCARD -> status = holes == null ? S_UNSUPP : punch(r.out(), 0);
                    case BlkRequest.T_WRITE_ZEROES -> status = holes == null ? S_UNSUPP : punch(r.out(), SEGMENT_UNMAP);
                    default -> status = S_UNSUPP;
                }
            }
        } catch (IOException | KvmException e) {
            if (hostErrors.getAndIncrement() < 10) LOG.log(Level.WARNING, name + ": host I/O error, reported to the guest", e);
            status = S_IOERR;
            written = 0;
        }
        return completed(r, status, written);
    }

    /** Sets {@code r}'s status byte; returns the used ring's length for it: the bytes written to the guest and that byte. */
    private static int completed(BlkRequest r, byte status, long written) {
        r.status().set(JAVA_BYTE, 0, status);
        // The used ring's length is a u32 (held in an int); a chain's buffers can add up to more.
        return (int) Math.min(written + 1, 0xffff_ffffL);
    }

    /**
     * Punches a hole for each 16-byte segment {@code sector (u64), num_sectors (u32), flags (u32)}
     * of a discard or write-zeroes request; {@code allowedFlags} are the flag bits the type may
     * carry (write-zeroes' unmap: a hole is zeroes either way). All segments are checked first,
     * so a bad one leaves the disk as it was.
     */
    private byte punch(List<MemorySegment> data, int allowedFlags) {
        long bytes = Buffers.total(data);
        if (bytes == 0 || bytes % SEGMENT != 0 || bytes / SEGMENT > MAX_RANGES) return S_IOERR;
        ByteBuffer segments = ByteBuffer.wrap(Buffers.copyOut(data, (int) bytes)).order(ByteOrder.LITTLE_ENDIAN);
        for (int at = 0; at < bytes; at += SEGMENT) {
            long sector = segments.getLong(at);
            long count = Integer.toUnsignedLong(segments.getInt(at + 8));
            if ((segments.getInt(at + 12) & ~allowedFlags) != 0) return S_UNSUPP;
            if (count > MAX_RANGE_SECTORS || sector < 0 || sector > sectors || count > sectors - sector) return S_IOERR;
        }
        for (int at = 0; at < bytes; at += SEGMENT) {
            long count = Integer.toUnsignedLong(segments.getInt(at + 8));
            if (count > 0) holes.punch(segments.getLong(at) * Disk.SECTOR, count * Disk.SECTOR);
        }
        return S_OK;
    }

    /** Reads sectors into, or writes them from, {@code buffers}; requests past the end are I/O errors. */
    private byte transfer(long sector, List<MemorySegment> buffers, boolean write) throws IOException {
        long bytes = Buffers.total(buffers);
        if (!inImage(sector, bytes)) return S_IOERR;
        long at = sector * Disk.SECTOR;
        long moved = write ? file.write(at, buffers) : file.read(at, buffers);
        if (moved < bytes) {
            throw new IOException(name + ": " + (write ? "writing" : "reading") + " " + bytes + " bytes at byte " + at
                    + " stopped after " + moved + (write ? "" : ": the image ended (was it truncated?)"));
        }
        return S_OK;
    }

    /** Whether {@code bytes} from {@code sector} are whole sectors, all within the image. */
    private boolean inImage(long sector, long bytes) {
        return bytes % Disk.SECTOR == 0 && sector >= 0 && sector <= sectors && bytes / Disk.SECTOR <= sectors - sector;
    }

    /** Waits for the requests in flight, then closes the image. */
    @Override
    public void close() {
        if (io instanceof ExecutorService pool) pool.close();
        LOG.log(Level.DEBUG, () -> name + ": " + onWorker + " requests carried out on the worker, " + fromCache
                + " reads from the page cache there, " + handedOn + " on I/O threads");
        file.close();
        if (holes != null) holes.close();
    }
}
