package org.jkvm.kvm;

import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Pinning the whole process (--vmm-pin): threads running already move, threads made later start there. */
@Tag("unit")
class HostCpusTest {
    @Test
    void pinningTheProcessMovesItsOtherThreadsAndTheThreadsItMakesLater() throws Exception {
        BitSet all = HostCpus.currentAffinity();
        assumeTrue(all.cardinality() >= 2, "needs 2 host CPUs; this process may use " + all);
        BitSet first = new BitSet();
        first.set(all.nextSetBit(0));
        CountDownLatch pinned = new CountDownLatch(1);
        CompletableFuture<BitSet> seenByOther = new CompletableFuture<>();
        Thread other = Thread.ofPlatform().name("other").start(() -> {
            try {
                pinned.await();
                seenByOther.complete(HostCpus.currentAffinity());
            } catch (InterruptedException e) {
                seenByOther.completeExceptionally(e);
            }
        });
        try {
            assertTrue(HostCpus.pinProcess(first) >= 2, "this thread and the other at least");
            pinned.countDown();
            assertEquals(first, seenByOther.get(), "a thread that was running");
            CompletableFuture<BitSet> seenByLater = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> seenByLater.complete(HostCpus.currentAffinity())).join();
            assertEquals(first, seenByLater.get(), "a thread made afterwards");
        } finally {
            pinned.countDown();
            other.join();
            HostCpus.pinProcess(all);
        }
        assertEquals(all, HostCpus.currentAffinity(), "the process is back on every CPU it had");
    }
}
