package org.jkvm.pvlock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

import org.jkvm.kvm.HostCpus;
import org.jkvm.kvm.MappedMemory;
import org.jkvm.vmm.memory.MemoryRegion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Userspace mode's meaning of {@code preempted}, fed with the switches perf would report: only
 * a switch-out while runnable flags a vCPU; a halt (voluntary switch-out) and an exit handled
 * in jkvm leave it at 0, as the host kernel series does. And its lazy start: nothing runs or
 * is written before the guest's first PV-lock call.
 */
@Tag("unit")
class UserspacePreemptionTrackerTest {
    private MappedMemory mem;
    private PvLockRegion region;
    private PvLockStats stats;
    private UserspacePreemptionTracker tracker;

    @BeforeEach
    void setUp() {
        mem = MappedMemory.anonymous(0x10000, false);
        region = new PvLockRegion(new MemoryRegion("pvlock", MemoryRegion.Kind.RESERVED, 0x0A10_0000L, 0x10000, 1, mem), 2);
        stats = new PvLockStats(2);
        tracker = new UserspacePreemptionTracker(region, stats, 2);
    }

    @AfterEach
    void tearDown() {
        tracker.close();
        mem.close();
    }

    @Test
    void theTrackerStaysIdleUntilTheGuestsFirstPvLockCall() {
        int tid = parkedThreadTid();
        tracker.started(0, tid);
        tracker.started(1, tid);
        tracker.entering(0);
        tracker.entering(1);
        assertFalse(trackerThreadRuns(), "no thread before the guest asks");
        assertEquals(-1, stats.trackingStartedMillis());
        assertTrue(tracker.switchSource().startsWith("idle"), tracker.switchSource());
        assertEquals(0, region.preempted(0));
        assertEquals(0, region.preempted(1));
        assertEquals(0, stats.preemptedSet(0) + stats.preemptedCleared(0) + stats.preemptedSet(1) + stats.preemptedCleared(1),
                "nothing written while idle");

        tracker.guestAsked(1);
        long started = stats.trackingStartedMillis();
        assertTrue(started >= 0, "tracking starts at the first PV-lock call");
        assertEquals(0, region.preempted(0), "a vCPU reads as running until a switch record says otherwise");
        assertEquals(0, region.preempted(1));
        tracker.guestAsked(0);
        assertEquals(started, stats.trackingStartedMillis(), "later calls start nothing more");
    }

    @Test
    void aCallBeforeEveryVcpuThreadRanStartsTrackingWithTheLastThread() {
        int tid = HostCpus.currentTid();
        tracker.started(0, tid);
        tracker.guestAsked(0);
        assertEquals(-1, stats.trackingStartedMillis(), "vCPU 1's thread is not known yet");
        tracker.started(1, tid);
        assertTrue(stats.trackingStartedMillis() >= 0);
    }

    @Test
    void aClosedTrackerNeverStarts() {
        tracker.close();
        tracker.started(0, HostCpus.currentTid());
        tracker.started(1, HostCpus.currentTid());
        tracker.guestAsked(0);
        assertEquals(-1, stats.trackingStartedMillis());
    }

    /** A thread that never runs again, so a started tracker gets no switch to write about. */
    private static int parkedThreadTid() {
        CompletableFuture<Integer> tid = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            tid.complete(HostCpus.currentTid());
            while (true) LockSupport.park();
        });
        return tid.join();
    }

    private static boolean trackerThreadRuns() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("pvlock-tracker") && t.isAlive());
    }

    @Test
    void aHaltedVcpuAndOneHandlingAnExitAreNotPreempted() {
        tracker.entering(0);
        tracker.left(0);
        assertEquals(0, region.preempted(0), "an exit handled in jkvm");
        tracker.entering(0);
        tracker.switched(0, false, false, System.nanoTime());
        assertEquals(0, region.preempted(0), "blocked in KVM_RUN on WFI");
        tracker.switched(0, true, false, System.nanoTime());
        assertEquals(0, region.preempted(0));
        assertEquals(1, stats.voluntarySwitchOuts(0));
        assertEquals(0, stats.preemptions(0));
        assertEquals(0, stats.preemptedSet(0));
        assertEquals(0.0, stats.preemptedShare(0), "never preempted: 0, not unknown");
    }

    @Test
    void aSwitchOutWhileRunnableFlagsTheVcpuUntilItRunsAgain() {
        tracker.entering(0);
        long t = System.nanoTime();
        tracker.switched(0, false, true, t);
        assertEquals(1, region.preempted(0));
        assertEquals(0, region.preempted(1), "the other vCPU is untouched");
        tracker.switched(0, true, false, t + 2_000_000);
        assertEquals(0, region.preempted(0));
        assertEquals(1, stats.preemptions(0));
        assertEquals(1, stats.preemptedSet(0));
        assertEquals(1, stats.preemptedCleared(0), "the switch-in");
        double share = stats.preemptedShare(0);
        assertTrue(share > 0 && share <= 1, "2 ms of preempted time, as a share: " + share);
    }
}
