package org.jkvm.vmm.virtio;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

import org.jkvm.vmm.config.Disk;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * virtio-blk (virtio 1.2, 5.2) over a raw image file: read, write, flush (fdatasync, through
 * {@link FileChannel#force}) and get-id, on one queue. A read-only disk refuses writes with an
 * I/O error, and so does the host when it fails: the guest sees VIRTIO_BLK_S_IOERR, the VMM goes on.
 * Discard is not offered (punching holes needs fallocate, which Java's file API does not have).
 */
public final class VirtioBlk implements VirtioDevice {
    private static final System.Logger LOG = System.getLogger(VirtioBlk.class.getName());
    /** Feature bits: the most segments per request, a read-only device, the flush command. */
    static final long F_SEG_MAX = 1L << 2, F_RO = 1L << 5, F_FLUSH = 1L << 9;
    /** Status byte values. */
    static final byte S_OK = 0, S_IOERR = 1, S_UNSUPP = 2;
    /** Data segments a request may have: a chain has to fit in the queue with its header and status. */
    static final int SEG_MAX = 126;
    /** The most bytes one file call moves: a descriptor may be up to 4 GiB, a ByteBuffer at most 2 GiB. */
    private static final long CHUNK = 1 << 30;

    private final String name;
    private final FileChannel file;
    private final long sectors;
    private final boolean readOnly;
    private final byte[] id;
    private long hostErrors;

    VirtioBlk(String name, FileChannel file, long sectors, boolean readOnly, String serial) {
        this.name = name;
        this.file = file;
        this.sectors = sectors;
        this.readOnly = readOnly;
        this.id = Arrays.copyOf(serial.getBytes(StandardCharsets.US_ASCII), Disk.SERIAL_BYTES);
    }

    /** The device for {@code disk}, its image opened for reading (and writing unless read-only). */
    public static VirtioBlk open(String name, Disk disk) throws IOException {
        FileChannel f = disk.readOnly() ? FileChannel.open(disk.path(), StandardOpenOption.READ)
                : FileChannel.open(disk.path(), StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            return new VirtioBlk(name, f, f.size() / Disk.SECTOR, disk.readOnly(), disk.serial());
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
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
        return VirtioMmio.F_VERSION_1 | F_SEG_MAX | F_FLUSH | (readOnly ? F_RO : 0);
    }

    @Override
    public int queues() {
        return 1;
    }

    /** capacity (u64, in sectors), size_max (u32, unused), seg_max (u32). */
    @Override
    public byte[] config() {
        return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(0, sectors).putInt(12, SEG_MAX).array();
    }

    @Override
    public boolean serve(int index, VirtQueue queue) throws VirtioException {
        boolean used = false;
        for (DescriptorChain c = queue.next(); c != null; c = queue.next()) {
            queue.complete(c.head(), execute(BlkRequest.parse(c)));
            used = true;
        }
        return used;
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
                        if (!readOnly) file.force(false);
                        status = S_OK;
                    }
                    case BlkRequest.T_GET_ID -> {
                        written = Buffers.copyIn(r.in(), id);
                        status = S_OK;
                    }
                    default -> status = S_UNSUPP;
                }
            }
        } catch (IOException e) {
            if (hostErrors++ < 10) LOG.log(Level.WARNING, name + ": host I/O error, reported to the guest", e);
            status = S_IOERR;
            written = 0;
        }
        r.status().set(JAVA_BYTE, 0, status);
        // The used ring's length is a u32 (held in an int); a chain's buffers can add up to more.
        return (int) Math.min(written + 1, 0xffff_ffffL);
    }

    /** Reads sectors into, or writes them from, {@code buffers}; requests past the end are I/O errors. */
    private byte transfer(long sector, List<MemorySegment> buffers, boolean write) throws IOException {
        long bytes = Buffers.total(buffers);
        if (bytes % Disk.SECTOR != 0 || sector < 0 || sector > sectors || bytes / Disk.SECTOR > sectors - sector) {
            return S_IOERR;
        }
        long at = sector * Disk.SECTOR;
        for (MemorySegment b : buffers) {
            for (long off = 0; off < b.byteSize(); off += CHUNK) {
                ByteBuffer bb = b.asSlice(off, Math.min(CHUNK, b.byteSize() - off)).asByteBuffer();
                while (bb.hasRemaining()) {
                    int n = write ? file.write(bb, at) : file.read(bb, at);
                    if (n < 0) throw new IOException(name + ": the image ended at byte " + at + " (was it truncated?)");
                    at += n;
                }
            }
        }
        return S_OK;
    }

    @Override
    public void close() {
        try {
            file.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, name + ": closing the image failed", e);
        }
    }
}
