package org.jkvm.pvlock;

import org.jkvm.kvm.MappedMemory;
import org.jkvm.vmm.memory.MemoryRegion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Userspace mode's meaning of {@code preempted}, fed with the switches perf would report: only
 * a switch-out while runnable flags a vCPU; a halt (voluntary switch-out) and an exit handled
 * in jkvm leave it at 0, as the host kernel series does.
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
    void aVcpuIsNotRunningUntilItFirstEntersTheGuest() {
        assertEquals(1, region.preempted(0));
        tracker.entering(0);
        assertEquals(0, region.preempted(0));
        assertEquals(1, region.preempted(1));
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
        assertEquals(1, region.preempted(1), "the other vCPU, not started yet, is untouched");
        tracker.switched(0, true, false, t + 2_000_000);
        assertEquals(0, region.preempted(0));
        assertEquals(1, stats.preemptions(0));
        assertEquals(1, stats.preemptedSet(0));
        assertEquals(2, stats.preemptedCleared(0), "the first entry and the switch-in");
        double share = stats.preemptedShare(0);
        assertTrue(share > 0 && share <= 1, "2 ms of preempted time, as a share: " + share);
    }
}
