package org.jkvm.pvlock;

import java.util.BitSet;
import java.util.function.BooleanSupplier;

import org.jkvm.kvm.HostCpus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Kernel mode's flag sampler, on flags written here as the host kernel would write them: it sees
 * a flag set and cleared again, and its thread runs off the vCPUs' pin where jkvm has CPUs
 * outside it, so that its wake-ups do not preempt the vCPUs it watches.
 */
@Tag("unit")
class KernelFlagSamplerTest {
    private AnonymousRegion anon;
    private PvLockRegion region;
    private PvLockStats stats;

    @BeforeEach
    void setUp() {
        anon = AnonymousRegion.of(2);
        region = anon.region();
        stats = new PvLockStats(2);
    }

    @AfterEach
    void tearDown() {
        anon.close();
    }

    @Test
    void theSamplerSeesAFlagTheKernelSetsAndClears() throws InterruptedException {
        try (KernelFlagSampler sampler = new KernelFlagSampler(region, stats, 2, PvLockDevice.MAX_SAMPLE_HZ, TrackerCpus.of(2, null))) {
            waitFor(() -> stats.preemptedShare(1) == 0.0, "vCPU 1 sampled while its flag reads 0");
            region.setPreempted(1, true);
            waitFor(() -> stats.changesSeen(1) == 1, "the flag seen set");
            region.setPreempted(1, false);
            waitFor(() -> stats.changesSeen(1) == 2, "the flag seen cleared");
        }
        double share = stats.preemptedShare(1);
        assertTrue(share > 0 && share < 1, "some of vCPU 1's reads found the flag set: " + share);
        assertEquals(0, stats.changesSeen(0), "vCPU 0's flag never changed");
        assertEquals(0.0, stats.preemptedShare(0));
    }

    @Test
    void aVcpuCountsFromItsFirstRunNotFromTheSetUpsNotRunningYet() throws InterruptedException {
        region.setPreempted(0, true);
        region.setPreempted(1, true);
        try (KernelFlagSampler sampler = new KernelFlagSampler(region, stats, 2, PvLockDevice.MAX_SAMPLE_HZ, TrackerCpus.of(2, null))) {
            Thread.sleep(200);
            assertTrue(Double.isNaN(stats.preemptedShare(0)), "a vCPU not run yet is not measured: " + stats.preemptedShare(0));
            region.setPreempted(0, false);
            waitFor(() -> stats.preemptedShare(0) == 0.0, "vCPU 0 sampled once the kernel cleared its flag at its first entry");
            // as long running as the set-up was flagged, so that counting the set-up would show
            Thread.sleep(200);
            region.setPreempted(0, true);
            waitFor(() -> stats.changesSeen(0) == 1, "a preemption after the first run seen");
            region.setPreempted(0, false);
            waitFor(() -> stats.changesSeen(0) == 2, "its end seen");
        }
        double share = stats.preemptedShare(0);
        assertTrue(share > 0 && share < 0.5, "vCPU 0 was flagged for a moment of its run, not for the set-up before it: " + share);
        assertTrue(Double.isNaN(stats.preemptedShare(1)), "vCPU 1 never ran (a CPU the guest did not bring up)");
        assertEquals(0, stats.changesSeen(1));
    }

    @Test
    void theSamplersThreadRunsOffTheVcpusPin() throws InterruptedException {
        BitSet all = HostCpus.currentAffinity();
        assumeTrue(all.cardinality() >= 2, "needs 2 host CPUs; this process may use " + all);
        BitSet pin = new BitSet();
        pin.set(all.nextSetBit(0));
        BitSet outside = (BitSet) all.clone();
        outside.andNot(pin);
        try (KernelFlagSampler sampler = new KernelFlagSampler(region, stats, 2, 10, TrackerCpus.of(2, pin))) {
            waitFor(() -> sampler.ranOn() != null, "the sampler's thread started");
            assertEquals(outside, sampler.ranOn(), "2 vCPUs pinned to CPU " + pin + " leave the sampler the rest");
        }
    }

    private static void waitFor(BooleanSupplier condition, String what) throws InterruptedException {
        for (int i = 0; i < 500 && !condition.getAsBoolean(); i++) Thread.sleep(10);
        assertTrue(condition.getAsBoolean(), what + " within 5 s");
    }
}
