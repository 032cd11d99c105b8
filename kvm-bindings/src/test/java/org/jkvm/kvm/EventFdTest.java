package org.jkvm.kvm;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The eventfd a device worker waits on: signals add up, a take resets them, await sees them. */
@Tag("unit")
class EventFdTest {
    @Test
    void awaitTimesOutUntilSignalledAndTakeResets() throws InterruptedException {
        try (EventFd e = EventFd.create()) {
            assertFalse(e.await(10));
            assertEquals(0, e.take());
            Thread t = Thread.ofPlatform().start(() -> {
                e.signal();
                e.signal();
            });
            assertTrue(e.await(5_000));
            t.join();
            assertEquals(2, e.take());
            assertFalse(e.await(0));
        }
    }
}
