package org.jkvm.vmm.virtio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.kvm.FrameFd;
import org.jkvm.kvm.IovecQueue;
import org.jkvm.kvm.Tap;
import org.jkvm.vmm.FuzzInput;
import org.junit.jupiter.api.Tag;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A guest sending anything on virtio-net's transmit queue: any chain, any header, any negotiated
 * features. Every chain the queue accepts is refused (a {@link VirtioException}) or returned; a
 * frame reaches the tap's stand-in (a socket pair) only when its header passed the checks, whole
 * and unchanged, and never more frames than chains. Input: a byte of features (bit 0 F_CSUM,
 * 1 HOST_TSO4, 2 HOST_TSO6, 3 HOST_ECN), then {@link FuzzedQueue}'s layout.
 */
@Tag("unit")
@Tag("fuzz")
class NetTxFuzzTest {
    private static final FrameFd[] PAIR = FrameFd.socketPair();
    private static final VirtioNet NET = new VirtioNet("virtio-net-fuzz", new byte[6], PAIR[0], Set.of(Tap.Offload.values()), s -> { });
    private static final MemorySegment FRAME = Arena.global().allocate(1 << 17);
    private static final IovecQueue INTO_FRAME = IovecQueue.of(FRAME);

    @FuzzTest(maxDuration = "30s")
    void transmit(byte[] data) {
        FuzzInput in = new FuzzInput(data);
        int bits = in.u8();
        long features = ((bits & 1) != 0 ? VirtioNet.F_CSUM : 0) | ((bits & 2) != 0 ? VirtioNet.F_HOST_TSO4 : 0)
                | ((bits & 4) != 0 ? VirtioNet.F_HOST_TSO6 : 0) | ((bits & 8) != 0 ? VirtioNet.F_HOST_ECN : 0);
        NET.negotiated(features);
        FuzzedQueue f = null;
        try {
            f = new FuzzedQueue(in);
            f.zeroUsedIndex();
            NET.serve(VirtioNet.TX, f.queue);
        } catch (VirtioException refused) {
            // a malformed queue or chain: the device needs a reset
        }
        int frames = 0;
        for (long n = PAIR[1].read(INTO_FRAME); n >= 0; n = PAIR[1].read(INTO_FRAME)) {
            frames++;
            assertTrue(n >= NetHeader.BYTES, n + " bytes");
            byte[] header = FRAME.asSlice(0, NetHeader.BYTES).toArray(JAVA_BYTE);
            assertNull(NetHeader.txProblem(header, n - NetHeader.BYTES, features), "a frame the checks refuse reached the tap");
        }
        if (f != null) {
            int chains = f.usedIndex();
            assertTrue(frames <= chains, frames + " frames from " + chains + " chains");
        }
    }
}
