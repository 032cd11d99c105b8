package org.jkvm.vmm.virtio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.kvm.FrameFd;
import org.jkvm.kvm.IovecQueue;
import org.jkvm.kvm.Tap;
import org.jkvm.vmm.FuzzInput;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A guest offering anything on virtio-net's receive queue, with or without mergeable buffers,
 * while frames of any length wait on the tap's stand-in (a socket pair). Serving is refused (a
 * {@link VirtioException}) or returns chains whose written lengths stay inside the fuzzer's guest
 * memory (a chain may name the same bytes again) and add up to no more than the frames held; the
 * used ring is read only when no buffer the device writes lies over a ring or a descriptor table. Input: a byte (bit 0: VIRTIO_NET_F_MRG_RXBUF,
 * bits 1-2: how many frames), a u16 length per frame, then {@link FuzzedQueue}'s layout.
 */
@Tag("unit")
@Tag("fuzz")
class NetRxFuzzTest {
    private static final FrameFd[] PAIR = FrameFd.socketPair();
    private static final VirtioNet NET = new VirtioNet("virtio-net-fuzz", new byte[6], PAIR[0], Set.of(Tap.Offload.values()), s -> { });
    private static final MemorySegment FRAME = Arena.global().allocate(1 << 16);
    private static final IovecQueue INTO_FRAME = IovecQueue.of(FRAME);

    @FuzzTest(maxDuration = "30s")
    void receive(byte[] data) {
        FuzzInput in = new FuzzInput(data);
        int bits = in.u8();
        NET.reset();
        NET.negotiated(VirtioMmio.F_VERSION_1 | ((bits & 1) != 0 ? VirtioNet.F_MRG_RXBUF : 0));
        long sent = 0;
        for (int i = 0; i < (bits >> 1 & 3); i++) {
            int length = 1 + in.u16();
            assertTrue(PAIR[1].write(List.of(FRAME.asSlice(0, length))));
            sent += length;
        }
        try {
            FuzzedQueue f = new FuzzedQueue(in);
            f.zeroUsedIndex();
            NET.serve(VirtioNet.RX, f.queue);
            if (!f.deviceMayOverwriteRings()) checkUsed(f, sent);
        } catch (VirtioException refused) {
            // a malformed queue or chain: the device needs a reset
        }
        while (PAIR[0].read(INTO_FRAME) >= 0) {
            // frames no chain took are dropped before the next input
        }
    }

    private static void checkUsed(FuzzedQueue f, long sent) {
        long written = 0;
        for (int i = 0; i != f.usedIndex(); i = (i + 1) & 0xffff) {
            long[] entry = f.usedEntry(i % f.queue.size());
            assertTrue(entry[0] < f.queue.size() && entry[1] <= (long) f.queue.size() * FuzzedQueue.RAM,
                    "used entry " + entry[0] + ", " + entry[1]);
            written += entry[1];
        }
        assertTrue(written <= sent, written + " bytes written of " + sent);
    }
}
