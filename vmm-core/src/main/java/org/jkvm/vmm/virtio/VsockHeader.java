package org.jkvm.vmm.virtio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The 44-byte header of a virtio-vsock packet (virtio 1.2, 5.10.6), little-endian on the wire.
 * Values are kept as the guest wrote them (ports, lengths and counters are unsigned 32-bit).
 *
 * @param srcCid   the sender's context id
 * @param dstCid   the receiver's context id
 * @param srcPort  the sender's port
 * @param dstPort  the receiver's port
 * @param len      bytes of payload after the header
 * @param type     {@link #TYPE_STREAM} is the only one offered
 * @param op       one of the {@code OP_} values
 * @param flags    SHUTDOWN's {@link #SHUTDOWN_RCV} and {@link #SHUTDOWN_SEND}
 * @param bufAlloc the sender's receive buffer for this stream, in bytes
 * @param fwdCnt   bytes the sender has taken out of that buffer so far (wraps at 2^32)
 */
public record VsockHeader(long srcCid, long dstCid, int srcPort, int dstPort, int len, int type, int op, int flags,
                          int bufAlloc, int fwdCnt) {
    /** Bytes of the header. */
    public static final int BYTES = 44;
    /** The host's context id. */
    public static final long HOST_CID = 2;
    /** A connection-oriented byte stream. */
    public static final int TYPE_STREAM = 1;
    /** Operations. */
    public static final int OP_REQUEST = 1, OP_RESPONSE = 2, OP_RST = 3, OP_SHUTDOWN = 4, OP_RW = 5,
            OP_CREDIT_UPDATE = 6, OP_CREDIT_REQUEST = 7;
    /** SHUTDOWN flags: the sender will receive, send, no more. */
    public static final int SHUTDOWN_RCV = 1, SHUTDOWN_SEND = 2;

    /** Reads a header from the first {@link #BYTES} of {@code bytes}. */
    public static VsockHeader parse(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes, 0, BYTES).order(ByteOrder.LITTLE_ENDIAN);
        return new VsockHeader(b.getLong(0), b.getLong(8), b.getInt(16), b.getInt(20), b.getInt(24),
                Short.toUnsignedInt(b.getShort(28)), Short.toUnsignedInt(b.getShort(30)), b.getInt(32), b.getInt(36),
                b.getInt(40));
    }

    /** The header's bytes followed by {@code payload} (whose length {@link #len} should be). */
    public byte[] encode(byte[] payload, int payloadLength) {
        return ByteBuffer.allocate(BYTES + payloadLength).order(ByteOrder.LITTLE_ENDIAN)
                .putLong(srcCid).putLong(dstCid).putInt(srcPort).putInt(dstPort).putInt(len)
                .putShort((short) type).putShort((short) op).putInt(flags).putInt(bufAlloc).putInt(fwdCnt)
                .put(payload, 0, payloadLength).array();
    }

    /** The payload length as a non-negative number. */
    public long payloadLength() {
        return Integer.toUnsignedLong(len);
    }
}
