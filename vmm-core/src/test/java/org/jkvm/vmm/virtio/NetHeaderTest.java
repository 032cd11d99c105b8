package org.jkvm.vmm.virtio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Which transmit headers reach the tap: only negotiated offloads, offsets inside the frame, sane lengths. */
@Tag("unit")
class NetHeaderTest {
    private static final long ALL = VirtioNet.F_CSUM | VirtioNet.F_HOST_TSO4 | VirtioNet.F_HOST_TSO6 | VirtioNet.F_HOST_ECN;

    private static byte[] header(int flags, int gso, int hdrLen, int gsoSize, int csumStart, int csumOffset) {
        return ByteBuffer.allocate(NetHeader.BYTES).order(ByteOrder.LITTLE_ENDIAN).put((byte) flags).put((byte) gso)
                .putShort((short) hdrLen).putShort((short) gsoSize).putShort((short) csumStart)
                .putShort((short) csumOffset).array();
    }

    @Test
    void aPlainFrameNeedsNothingNegotiated() {
        assertNull(NetHeader.txProblem(header(0, 0, 0, 0, 0, 0), 60, 0));
        assertNotNull(NetHeader.txProblem(header(0, 0, 0, 0, 0, 0), 13, ALL), "shorter than an Ethernet header");
        assertNotNull(NetHeader.txProblem(header(0, 0, 0, 0, 0, 0), NetHeader.MAX_FRAME + 1, ALL), "longer than any IP packet");
    }

    @Test
    void checksumOffloadNeedsTheFeatureAndOffsetsInsideTheFrame() {
        assertNotNull(NetHeader.txProblem(header(1, 0, 0, 0, 34, 16), 60, 0));
        assertNull(NetHeader.txProblem(header(1, 0, 0, 0, 34, 16), 60, VirtioNet.F_CSUM));
        assertNull(NetHeader.txProblem(header(1, 0, 0, 0, 34, 24), 60, VirtioNet.F_CSUM), "the last two bytes");
        assertNotNull(NetHeader.txProblem(header(1, 0, 0, 0, 34, 25), 60, VirtioNet.F_CSUM));
        assertNotNull(NetHeader.txProblem(header(0xff, 0, 0, 0, 34, 16), 60, ALL), "flags a driver may not send");
        assertNotNull(NetHeader.txProblem(header(2, 0, 0, 0, 0, 0), 60, ALL), "DATA_VALID is the device's");
    }

    @Test
    void segmentationNeedsItsFeatureChecksumOffloadAndASegmentSize() {
        byte[] tso4 = header(1, NetHeader.GSO_TCPV4, 66, 1448, 34, 16);
        assertNull(NetHeader.txProblem(tso4, 65_000, ALL));
        assertNotNull(NetHeader.txProblem(tso4, 65_000, VirtioNet.F_CSUM | VirtioNet.F_HOST_TSO6));
        assertNotNull(NetHeader.txProblem(header(0, NetHeader.GSO_TCPV4, 66, 1448, 0, 0), 65_000, ALL), "without NEEDS_CSUM");
        assertNotNull(NetHeader.txProblem(header(1, NetHeader.GSO_TCPV4, 66, 0, 34, 16), 65_000, ALL), "gso_size 0");
        assertNotNull(NetHeader.txProblem(header(1, NetHeader.GSO_TCPV6, 70_000 & 0xffff, 1428, 54, 16), 100, ALL), "hdr_len past the end");
        assertNull(NetHeader.txProblem(header(1, NetHeader.GSO_TCPV6 | NetHeader.GSO_ECN, 86, 1428, 54, 16), 9000, ALL));
        assertNotNull(NetHeader.txProblem(header(1, NetHeader.GSO_TCPV6 | NetHeader.GSO_ECN, 86, 1428, 54, 16), 9000,
                VirtioNet.F_CSUM | VirtioNet.F_HOST_TSO6), "ECN not negotiated");
        assertNotNull(NetHeader.txProblem(header(1, 3, 42, 1400, 34, 6), 9000, ALL), "UDP fragmentation is not offered");
    }
}
