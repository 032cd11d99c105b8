package org.jkvm.vmm.virtio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The header before every virtio-net frame (virtio 1.2, 5.1.6: struct virtio_net_hdr with
 * num_buffers, {@link #BYTES} bytes under VIRTIO_F_VERSION_1), and the checks a frame the guest
 * sends gets before it reaches the tap: only the offloads the driver negotiated, offsets inside
 * the frame, a frame no longer than an IP packet can be. A frame that fails them is dropped and
 * counted; the tap's own checks come after these.
 */
final class NetHeader {
    private NetHeader() {}

    /** Bytes of the header: flags u8, gso_type u8, hdr_len, gso_size, csum_start, csum_offset, num_buffers (u16 each). */
    static final int BYTES = 12;
    /** Where num_buffers lies. */
    static final int NUM_BUFFERS = 10;
    /** flags: the checksum from csum_start on is left to the receiver (the only flag a driver sends). */
    static final int F_NEEDS_CSUM = 1;
    /** gso_type values, and the ECN bit that may be added to the TCP ones (UDP fragmentation is not offered). */
    static final int GSO_NONE = 0, GSO_TCPV4 = 1, GSO_TCPV6 = 4, GSO_ECN = 0x80;
    /** An Ethernet header. */
    static final int ETH_BYTES = 14;
    /** The longest frame: an IP packet's 65535 bytes after an Ethernet header with a VLAN tag. */
    static final int MAX_FRAME = 65_535 + ETH_BYTES + 4;

    /**
     * Why the frame of {@code frameBytes} after {@code header} (its first {@link #BYTES} bytes)
     * may not be sent, or null when it may; {@code features}: what the driver negotiated.
     */
    static String txProblem(byte[] header, long frameBytes, long features) {
        if (frameBytes < ETH_BYTES || frameBytes > MAX_FRAME) {
            return "a frame of " + frameBytes + " bytes (" + ETH_BYTES + ".." + MAX_FRAME + ")";
        }
        ByteBuffer h = ByteBuffer.wrap(header, 0, BYTES).order(ByteOrder.LITTLE_ENDIAN);
        int flags = h.get(0) & 0xff;
        int gso = h.get(1) & 0xff;
        int hdrLen = Short.toUnsignedInt(h.getShort(2));
        int gsoSize = Short.toUnsignedInt(h.getShort(4));
        int csumStart = Short.toUnsignedInt(h.getShort(6));
        int csumOffset = Short.toUnsignedInt(h.getShort(8));
        if ((flags & ~F_NEEDS_CSUM) != 0) return "flags 0x" + Integer.toHexString(flags) + " (only NEEDS_CSUM is the driver's)";
        boolean csum = (flags & F_NEEDS_CSUM) != 0;
        if (csum) {
            if ((features & VirtioNet.F_CSUM) == 0) return "NEEDS_CSUM without VIRTIO_NET_F_CSUM";
            if ((long) csumStart + csumOffset + 2 > frameBytes) {
                return "a checksum at %d+%d past the frame's %d bytes".formatted(csumStart, csumOffset, frameBytes);
            }
        }
        if (gso == GSO_NONE) return null;
        long needed = switch (gso & ~GSO_ECN) {
            case GSO_TCPV4 -> VirtioNet.F_HOST_TSO4;
            case GSO_TCPV6 -> VirtioNet.F_HOST_TSO6;
            default -> 0;
        };
        if (needed == 0) return "gso_type 0x" + Integer.toHexString(gso);
        if ((gso & GSO_ECN) != 0) needed |= VirtioNet.F_HOST_ECN;
        if ((features & needed) != needed) return "gso_type 0x" + Integer.toHexString(gso) + " was not negotiated";
        if (!csum) return "segmentation without NEEDS_CSUM";
        if (gsoSize == 0) return "segmentation with gso_size 0";
        if (hdrLen > frameBytes) return "hdr_len " + hdrLen + " past the frame's " + frameBytes + " bytes";
        return null;
    }
}
