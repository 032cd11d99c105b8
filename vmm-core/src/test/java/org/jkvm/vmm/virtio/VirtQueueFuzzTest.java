package org.jkvm.vmm.virtio;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.vmm.FuzzInput;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A guest writing anything into its descriptor table and rings: the queue either hands out chains
 * whose buffers lie inside guest memory and fit in the queue, or refuses with a
 * {@link VirtioException}; nothing else escapes, and every chain handed out is returned through
 * the used ring, its index counting from 0, whatever the guest's flags or event indexes say about
 * notifications and interrupts. Input: {@link FuzzedQueue}'s layout.
 */
@Tag("unit")
@Tag("fuzz")
class VirtQueueFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void chains(byte[] data) {
        try {
            FuzzedQueue f = new FuzzedQueue(new FuzzInput(data));
            int before = f.usedIndex();
            for (int served = 1; served <= 64; served++) {
                f.queue.suppressNotifications();
                DescriptorChain c = f.queue.next();
                f.queue.resumeNotifications();
                if (c == null) return;
                f.checkInside(c);
                f.queue.complete(c.head(), 0);
                assertEquals(served, f.usedIndex(), "the device's used index counts from 0 whatever the guest left there");
                f.queue.interruptWanted();
            }
        } catch (VirtioException refused) {
            // the guest's malformed queue, refused as it should be
        }
    }
}
