package org.jkvm.vmm.virtio;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.kvm.VectoredFile;
import org.jkvm.vmm.FuzzInput;
import org.junit.jupiter.api.Tag;

import static org.jkvm.vmm.virtio.BlkRequestFuzzTest.IMAGE;
import static org.jkvm.vmm.virtio.BlkRequestFuzzTest.SECTORS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A guest's virtio-blk requests served through the device's queue ({@link BlkRequestFuzzTest}'s
 * chains and image), the requests left in flight and finished in an order the rest of the input
 * picks: each request started finishes once, no more than a queue's worth is ever waiting to
 * run, nothing but a {@link VirtioException} escapes, and the image never changes size.
 */
@Tag("unit")
@Tag("fuzz")
class BlkServeFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void served(byte[] data) throws IOException {
        FuzzInput in = new FuzzInput(data);
        FuzzedQueue f;
        try {
            f = new FuzzedQueue(in);
        } catch (VirtioException refused) {
            return;
        }
        // The guest's buffers may lie over its own used ring, so the device's bookkeeping is
        // checked through the tasks: each runs once and wakes the worker once.
        List<Runnable> tasks = new ArrayList<>();
        AtomicInteger wakes = new AtomicInteger();
        VirtioBlk blk = new VirtioBlk("virtio-blk-fuzz", VectoredFile.open(IMAGE, true),
                SECTORS, false, "fuzz", null, tasks::add, -1, VirtioBlk.CACHED_READ_BYTES); // on the worker only reads the page cache has
        blk.attach(wakes::incrementAndGet);
        try (blk) {
            for (int round = 0; round < 32 && in.more(); round++) {
                blk.serve(0, f.queue);
                assertTrue(tasks.size() - wakes.get() <= f.queue.size(), tasks.size() + " started, " + wakes.get() + " finished");
                for (int n = in.u8() % 4; n > 0 && !tasks.isEmpty(); n--) {
                    tasks.set((int) (in.u8() % tasks.size()), () -> { }).run();
                }
            }
            // Then the rest, until a pass starts nothing more (reads into the rings may go on offering chains: bounded).
            for (int pass = 0, started = -1; pass < 64 && started != tasks.size(); pass++) {
                started = tasks.size();
                blk.serve(0, f.queue);
                for (int i = 0; i < tasks.size(); i++) tasks.set(i, () -> { }).run(); // a flush is added once the writes before it finish
            }
            assertEquals(tasks.size(), wakes.get(), "every request started finishes once");
        } catch (VirtioException refused) {
            // a malformed queue or a request with nowhere to put its status
        }
        assertEquals(SECTORS * 512L, Files.size(IMAGE));
    }
}
