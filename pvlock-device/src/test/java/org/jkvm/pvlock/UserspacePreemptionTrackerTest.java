package org.jkvm.pvlock;

import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

import org.jkvm.kvm.HostCpus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Userspace mode's meaning of {@code preempted}, fed with the switches perf would report: only
 * a switch-out while runnable flags a vCPU; a halt (voluntary switch-out) and an exit handled
 * in jkvm leave it at 0, as the host kernel series does. And its lazy start: nothing runs or
 * is written before the guest's first PV-lock call; and where its thread runs: off the vCPUs'
 * pin, whichever vCPU thread started it.
 */
@Tag("unit")
class UserspacePreemptionTrackerTest {
    private AnonymousRegion anon;
    private PvLockRegion region;
    private PvLockStats stats;
    private UserspacePreemptionTracker tracker;

    @BeforeEach
    void setUp() {
        anon = AnonymousRegion.of(2);
        region = anon.region();
        stats = new PvLockStats(2);
        tracker = new UserspacePreemptionTracker(region, stats, 2, TrackerCpus.of(2, null), 0);
    }

    @AfterEach
    void tearDown() {
        tracker.close();
        anon.close();
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

    @Test
    void theTrackerThreadRunsOffTheVcpusPinThoughAPinnedVcpuThreadStartsIt() throws Exception {
        BitSet all = HostCpus.currentAffinity();
        BitSet pin = firstOfTwoOrMore(all);
        BitSet outside = (BitSet) all.clone();
        outside.andNot(pin);
        tracker.close();
        tracker = new UserspacePreemptionTracker(region, stats, 2, TrackerCpus.of(2, pin), 0);
        assertEquals(outside, startFromThreadOn(pin), "the CPUs outside the vCPUs' pin " + pin);
    }

    @Test
    void unpinnedVcpusLeaveTheTrackerAllOfJkvmsCpus() throws Exception {
        BitSet all = HostCpus.currentAffinity();
        BitSet one = firstOfTwoOrMore(all);
        assertEquals(all, startFromThreadOn(one), "not the starting thread's " + one);
    }

    @Test
    void aTrackerWithoutACpuOfItsOwnSaysHowToLeaveItOne() {
        String crowded = UserspacePreemptionTracker.noSpareCpu(new TrackerCpus(cpus(0, 1), 2), 0);
        assertNotNull(crowded, "2 vCPUs could keep both CPUs busy");
        assertTrue(crowded.contains("all 2 host CPUs") && crowded.contains("--pin") && crowded.contains("came late")
                && crowded.contains("each switch it read woke it"), crowded);
        String batched = UserspacePreemptionTracker.noSpareCpu(new TrackerCpus(cpus(0, 1), 2), 20);
        assertTrue(batched.contains("one every 20 ms") && !batched.contains("each switch"), "its own timer woke it: " + batched);
        assertNull(UserspacePreemptionTracker.noSpareCpu(new TrackerCpus(cpus(0, 1, 2), 2), 0), "a third CPU is the tracker's");
        assertNull(UserspacePreemptionTracker.noSpareCpu(new TrackerCpus(cpus(2, 3), 0), 0), "pinned vCPUs leave the other CPUs free");
    }

    @Test
    void aVcpuWhoseSwitchesWentMissingReadsAsRunningUntilItsNextRecord() {
        tracker.started(0, 1);
        long t = System.nanoTime();
        tracker.switched(0, false, true, t);
        assertEquals(1, region.preempted(0));
        tracker.ringFull(0, t + 1_000_000);
        assertEquals(0, region.preempted(0), "its ring was found full: it may have run since, so not flagged");
        assertEquals(1_000_000, tracker.mark().flagged()[0], "flagged until the ring was found full");
        tracker.lost(0, 12, t + 2_000_000);
        tracker.switched(0, false, true, t + 3_000_000);
        assertEquals(1, region.preempted(0), "the next record says where it is again");
        assertEquals(12, stats.switchRecordsLost());
        assertEquals(1, stats.fullRings());
        assertEquals(2, stats.preemptedSet(0));
        assertEquals(1, stats.preemptedCleared(0));
    }

    @Test
    void droppedRecordsAreToldWithHowToReadThemInTime() {
        assertNull(UserspacePreemptionTracker.droppedRecords(0, 0, 20));
        String batched = UserspacePreemptionTracker.droppedRecords(2728, 6, 100);
        assertTrue(batched.contains("dropped 2728") && batched.contains("full 6 times")
                && batched.contains("--pvlock-batch shorter than 100 ms"), batched);
        String each = UserspacePreemptionTracker.droppedRecords(0, 1, 0);
        assertTrue(each.contains("a CPU of its own"), each);
    }

    @Test
    void aTrackerReadingTooSeldomForItsThreadsCountsWhatTheKernelDropped() throws InterruptedException {
        PvLockStats s = track(100, UserspacePreemptionTrackerTest::handingOver);
        assertTrue(s.fullRings() > 0 && s.switchRecordsLost() > 0, "two threads handing a turn to each other against a 100 ms"
                + " period fill a ~1300-record ring: found full " + s.fullRings() + " times, " + s.switchRecordsLost() + " dropped");
        PvLockStats sleepers = trackSleepers(20);
        assertEquals(List.of(0L, 0L), List.of(sleepers.fullRings(), sleepers.switchRecordsLost()),
                "1 ms sleeps read every 20 ms leave the rings room");
        System.out.printf("handing over, read every 100 ms: %d switch-outs read, %d records dropped, rings found full %d times%n",
                s.voluntarySwitchOuts(0) + s.voluntarySwitchOuts(1), s.switchRecordsLost(), s.fullRings());
    }

    @Test
    void aStoppingTrackerReadsWhatItsLastPeriodLeftInTheRings() throws InterruptedException {
        // A 10 s period outlasts the 600 ms tracked: every record waits in the rings for the stop.
        PvLockStats sleepers = trackSleepers(10_000);
        long read = sleepers.voluntarySwitchOuts(0) + sleepers.voluntarySwitchOuts(1);
        assertTrue(read > 100, "two threads sleeping 1 ms at a time for 600 ms: " + read + " switch-outs read at the stop");
        PvLockStats handing = track(10_000, UserspacePreemptionTrackerTest::handingOver);
        assertTrue(handing.fullRings() > 0, "two threads handing a turn to each other fill their rings within the period,"
                + " and the stop finds them full: " + handing.fullRings() + " times");
        System.out.printf("read only at the stop: sleepers %d switch-outs; handing over, rings found full %d times%n",
                read, handing.fullRings());
    }

    @Test
    void theTrackersCpusAreTheOnesOutsideThePinAndOneIsItsOwnOnlyWhereTheVcpusLeaveOne() {
        BitSet all = HostCpus.currentAffinity();
        int n = all.cardinality();
        assertFalse(TrackerCpus.of(n, null).ownCpu(), "as many unpinned vCPUs as CPUs keep them all busy");
        assertFalse(TrackerCpus.of(n + 7, null).ownCpu(), "overcommitted");
        assertEquals(all, TrackerCpus.of(n, null).cpus());
        BitSet first = firstOfTwoOrMore(all);
        BitSet outside = (BitSet) all.clone();
        outside.andNot(first);
        assertEquals(outside, TrackerCpus.of(8, first).cpus(), "8 vCPUs on one CPU leave it the rest");
        assertTrue(TrackerCpus.of(8, first).ownCpu());
        assertTrue(TrackerCpus.of(n - 1, null).ownCpu(), "one vCPU fewer than CPUs");
        assertFalse(TrackerCpus.of(n, all).ownCpu(), "a pin on every CPU leaves nothing outside it");
    }

    private static BitSet cpus(int... ids) {
        BitSet b = new BitSet();
        for (int id : ids) b.set(id);
        return b;
    }

    /** The first of {@code cpus}, which must be 2 or more for the test to mean anything. */
    private static BitSet firstOfTwoOrMore(BitSet cpus) {
        assumeTrue(cpus.cardinality() >= 2, "needs 2 host CPUs; this process may use " + cpus);
        BitSet first = new BitSet();
        first.set(cpus.nextSetBit(0));
        return first;
    }

    /** Starts the tracker from a (vCPU) thread pinned to {@code cpus}; returns where the tracker's thread runs. */
    private BitSet startFromThreadOn(BitSet cpus) throws InterruptedException {
        int tid = parkedThreadTid();
        Thread vcpu = Thread.ofPlatform().start(() -> {
            HostCpus.pinCurrentThread(cpus);
            tracker.started(0, tid);
            tracker.started(1, tid);
            tracker.guestAsked(0);
        });
        vcpu.join();
        for (int i = 0; i < 500 && tracker.ranOn() == null; i++) Thread.sleep(10);
        assertNotNull(tracker.ranOn(), "the tracker's thread started within 5 s");
        return tracker.ranOn();
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
        tracker.started(0, 1);
        assertFalse(tracker.followsEntries(), "an exit handled in jkvm is not a preemption: nothing to do on the exit path");
        assertEquals(0, region.preempted(0), "an exit handled in jkvm");
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
        tracker.started(0, 1);
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

    @Test
    void aVcpusShareIsTimedFromItsThreadsStartNotFromTheSetUp() throws InterruptedException {
        Thread.sleep(2000);
        assertTrue(Double.isNaN(stats.preemptedShare(0)), "no thread yet: nothing measured");
        tracker.started(0, 1);
        long t = System.nanoTime();
        tracker.switched(0, false, true, t);
        tracker.switched(0, true, false, t + 1_000_000_000L);
        double share = stats.preemptedShare(0);
        assertTrue(share > 0.5, "1 s flagged right after the thread started, 2 s of set-up before it not counted: " + share);
    }

    @Test
    void aMarkCountsAStretchStillOpenUpToItsMoment() {
        tracker.started(0, 1);
        long t = System.nanoTime();
        tracker.switched(0, false, true, t - 50_000_000L);
        FlagMark.Timed m = tracker.mark();
        assertTrue(m.flagged()[0] >= 50_000_000L, "50 ms flagged and still set: " + m.flagged()[0]);
        assertEquals(-1, m.since()[1], "vCPU 1's thread has not started");
        tracker.switched(0, true, false, t);
        assertEquals(50_000_000L, tracker.mark().flagged()[0], "the stretch closed at the switch-in");
    }

    @Test
    void aBatchingTrackerReadsTheSameSwitchesWithFarFewerWakeUpsAndLaterFlags() throws InterruptedException {
        PvLockStats each = trackSleepers(0);
        PvLockStats batched = trackSleepers(20);
        long eachRead = each.voluntarySwitchOuts(0) + each.voluntarySwitchOuts(1);
        long batchedRead = batched.voluntarySwitchOuts(0) + batched.voluntarySwitchOuts(1);
        assertTrue(eachRead > 100 && batchedRead > 100, "both read the threads' sleeps: " + eachRead + ", " + batchedRead);
        assertTrue(batched.trackerWakeups() <= 600 / 20 + 5,
                "one wake-up per 20 ms over 600 ms: " + batched.trackerWakeups());
        assertTrue(each.trackerWakeups() > 3 * batched.trackerWakeups(),
                "waking at each record: " + each.trackerWakeups() + " against " + batched.trackerWakeups());
        assertTrue(batched.staleness().meanNanos() > 2_000_000,
                "a batched flag waits for the period's end: " + batched.staleness().meanNanos() + " ns on average");
    }

    /** Tracks two threads that sleep 1 ms at a time for 600 ms, reading every {@code batchMillis}; its counters. */
    private PvLockStats trackSleepers(int batchMillis) throws InterruptedException {
        return track(batchMillis, (a, b) -> new Thread[] {sleeper(a), sleeper(b)});
    }

    /** Starts two threads, each telling its tid through its future, that switch until interrupted. */
    private interface ThreadPair {
        Thread[] start(CompletableFuture<Integer> first, CompletableFuture<Integer> second);
    }

    /** Tracks the two threads of {@code pair} for 600 ms, reading every {@code batchMillis}; its counters. */
    private PvLockStats track(int batchMillis, ThreadPair pair) throws InterruptedException {
        PvLockStats s = new PvLockStats(2);
        try (UserspacePreemptionTracker t = new UserspacePreemptionTracker(region, s, 2, TrackerCpus.of(2, null), batchMillis)) {
            CompletableFuture<Integer> first = new CompletableFuture<>();
            CompletableFuture<Integer> second = new CompletableFuture<>();
            Thread[] threads = pair.start(first, second);
            t.started(0, first.join());
            t.started(1, second.join());
            t.trackFromStart();
            for (int i = 0; i < 500 && t.switchSource().equals("starting"); i++) Thread.sleep(10);
            assumeTrue(t.switchSource().startsWith("perf"), "perf context-switch records are not available here: " + t.switchSource());
            Thread.sleep(600);
            for (Thread th : threads) th.interrupt();
            for (Thread th : threads) th.join();
        }
        return s;
    }

    /** A thread that tells its tid, then sleeps 1 ms at a time until interrupted: two switches a sleep. */
    private static Thread sleeper(CompletableFuture<Integer> tid) {
        return Thread.ofPlatform().daemon().start(() -> {
            tid.complete(HostCpus.currentTid());
            while (!Thread.currentThread().isInterrupted()) LockSupport.parkNanos(1_000_000);
        });
    }

    /** Two threads handing a turn to each other (wake the other, park) until interrupted: each turn switches both. */
    private static Thread[] handingOver(CompletableFuture<Integer> first, CompletableFuture<Integer> second) {
        Thread[] pair = new Thread[2];
        pair[0] = Thread.ofPlatform().daemon().unstarted(() -> handOver(first, pair[1]));
        pair[1] = Thread.ofPlatform().daemon().unstarted(() -> handOver(second, pair[0]));
        for (Thread t : pair) t.start();
        return pair;
    }

    private static void handOver(CompletableFuture<Integer> tid, Thread other) {
        tid.complete(HostCpus.currentTid());
        while (!Thread.currentThread().isInterrupted()) {
            LockSupport.unpark(other);
            LockSupport.parkNanos(1_000_000); // a turn lost to the other's interrupt ends after 1 ms
        }
    }
}
