package org.jkvm.vmm.virtio;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A virtio-blk request (virtio 1.2, 5.2.6) read from a descriptor chain under the any-layout
 * rule: the 16-byte header {@code type, reserved, sector} is the first 16 readable bytes, the
 * status the last writable byte, and the data what lies between. The header is copied out of
 * guest memory once, so the guest cannot change it while it is served.
 *
 * @param type    VIRTIO_BLK_T_*
 * @param sector  the first 512-byte sector
 * @param out     readable data after the header (what a write writes)
 * @param in      writable data before the status byte (what a read fills)
 * @param status  the status byte
 * @param wellFormed whether the chain held a whole header; if not, only the status is answered
 */
public record BlkRequest(int type, long sector, List<MemorySegment> out, List<MemorySegment> in, MemorySegment status,
                         boolean wellFormed) {
    /** Read sectors. */
    public static final int T_IN = 0;
    /** Write sectors. */
    public static final int T_OUT = 1;
    /** Make completed writes durable. */
    public static final int T_FLUSH = 4;
    /** Read the device's serial (20 bytes). */
    public static final int T_GET_ID = 8;
    /** Deallocate ranges of sectors (segments in the data). */
    public static final int T_DISCARD = 11;
    /** Zero ranges of sectors (segments in the data). */
    public static final int T_WRITE_ZEROES = 13;
    /** Bytes of the request header. */
    static final int HEADER = 16;

    /** Keeps unmodifiable copies of the buffer lists. */
    public BlkRequest {
        out = List.copyOf(out);
        in = List.copyOf(in);
    }

    /**
     * The request {@code chain} carries. A chain with no writable byte leaves nowhere to put the
     * status: that is a {@link VirtioException}. One too short for the header is answered with an
     * I/O error ({@link #wellFormed} false).
     */
    public static BlkRequest parse(DescriptorChain chain) throws VirtioException {
        long writable = chain.writableBytes();
        if (writable == 0) {
            throw new VirtioException("block request at descriptor %d has no status byte".formatted(chain.head()));
        }
        MemorySegment status = Buffers.range(chain.writable(), writable - 1, writable).getFirst();
        List<MemorySegment> in = Buffers.range(chain.writable(), 0, writable - 1);
        long readable = Buffers.total(chain.readable());
        if (readable < HEADER) return new BlkRequest(-1, 0, List.of(), in, status, false);
        ByteBuffer header = ByteBuffer.wrap(Buffers.copyOut(chain.readable(), HEADER)).order(ByteOrder.LITTLE_ENDIAN);
        List<MemorySegment> out = Buffers.range(chain.readable(), HEADER, readable);
        return new BlkRequest(header.getInt(0), header.getLong(8), out, in, status, true);
    }
}
