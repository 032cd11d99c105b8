package org.jkvm.kvm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import org.jkvm.kvm.ContextSwitchMonitor.Wakeup;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link ContextSwitchMonitor} on this machine's scheduler: needs perf_event_open, not
 * /dev/kvm, so it is a unit test; skipped with the reason when the host or a container's
 * seccomp profile refuses perf events.
 */
@Tag("unit")
class ContextSwitchMonitorTest {
    private static final long MS = 1_000_000L;
    /** 64 data pages: room for about 10000 switch records should this busy machine starve the poller. */
    private static final int RING_PAGES_LOG2 = 6;

    /**
     * Where the monitored threads run: the first CPU this process may use. The polling thread
     * runs on the others when there are any, so its wakeups (one per record) do not preempt a
     * monitored thread and make yet more records.
     */
    private static BitSet monitoredCpu() {
        BitSet cpu = new BitSet();
        cpu.set(HostCpus.currentAffinity().nextSetBit(0));
        return cpu;
    }

    /** Runs {@code body} with the calling (polling) thread kept off {@code cpu} if it can be. */
    private static void pollingAwayFrom(BitSet cpu, ThrowingRunnable body) throws Exception {
        BitSet before = HostCpus.currentAffinity();
        BitSet others = (BitSet) before.clone();
        others.andNot(cpu);
        if (!others.isEmpty()) HostCpus.pinCurrentThread(others);
        try {
            body.run();
        } finally {
            HostCpus.pinCurrentThread(before);
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Opens a monitor, or skips the test when this host does not allow perf events. */
    static ContextSwitchMonitor openOrSkip(int... tids) {
        return openRing(RING_PAGES_LOG2, Wakeup.EACH_RECORD, tids);
    }

    private static ContextSwitchMonitor openRing(int pagesLog2, Wakeup wakeup, int... tids) {
        try {
            return ContextSwitchMonitor.open(pagesLog2, wakeup, tids);
        } catch (KvmException e) {
            boolean refused = e.operation().equals("perf_event_open")
                    && (e.errno() == Libc.EPERM || e.errno() == Libc.EACCES || e.errno() == Libc.ENOSYS);
            Assumptions.assumeFalse(refused, () -> "perf events are not available here: " + e.getMessage());
            throw e;
        }
    }

    /** Switch records kept in preallocated arrays, with the time each was delivered. */
    static final class Recorder implements ContextSwitchMonitor.SwitchListener {
        final int[] thread = new int[200_000];
        final boolean[] in = new boolean[thread.length];
        final boolean[] preempted = new boolean[thread.length];
        final long[] time = new long[thread.length];
        final long[] deliveredAt = new long[thread.length];
        int n;

        @Override
        public void switched(int threadIndex, boolean in, boolean preempted, long monotonicNanos) {
            if (n == thread.length) return;
            this.thread[n] = threadIndex;
            this.in[n] = in;
            this.preempted[n] = preempted;
            this.time[n] = monotonicNanos;
            this.deliveredAt[n] = System.nanoTime();
            n++;
        }

        /** Each lost notice: its count, and how many switches had been delivered before it. */
        final List<long[]> lost = new ArrayList<>();

        @Override
        public void lost(int threadIndex, long count, long monotonicNanos) {
            lost.add(new long[] {threadIndex, count, n});
        }

        /** Each full ring found: the thread, and how many switches had been delivered before it. */
        final List<long[]> full = new ArrayList<>();

        @Override
        public void ringFull(int threadIndex, long monotonicNanos) {
            full.add(new long[] {threadIndex, n});
        }

        String describe(int i) {
            return "#" + i + " thread " + thread[i] + (in[i] ? " IN" : preempted[i] ? " OUT(preempt)" : " OUT")
                    + " at " + time[i];
        }

        /** Polls until {@code until} is done, then drains what is left. */
        void pollUntil(ContextSwitchMonitor m, Thread... until) throws InterruptedException {
            for (;;) {
                boolean alive = false;
                for (Thread t : until) alive |= t.isAlive();
                m.poll(alive ? 20 : 0, this);
                if (!alive) break;
            }
            for (Thread t : until) t.join();
            m.poll(0, this);
        }
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }

    @Test
    void systemNanoTimeIsClockMonotonic() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ts = a.allocate(Libc.TIMESPEC_BYTES, 8);
            int clock = (int) HostUapi.constant(UapiConstant.CLOCK_MONOTONIC);
            for (int i = 0; i < 1000; i++) {
                long before = System.nanoTime();
                assertEquals(0, Libc.clockGettime(clock, ts));
                long after = System.nanoTime();
                long c = ts.get(JAVA_LONG, 0) * 1_000_000_000L + ts.get(JAVA_LONG, 8);
                assertTrue(before <= c && c <= after,
                        "CLOCK_MONOTONIC " + c + " is not between System.nanoTime() " + before + " and " + after);
            }
        }
    }

    @Test
    void sleepingThreadSwitchesOutAndInInOrderOnTheNanoTimeClock() throws Exception {
        int sleeps = 20;
        long[] beforeSleep = new long[sleeps];
        long[] afterSleep = new long[sleeps];
        CountDownLatch ready = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger tid = new AtomicInteger();
        BitSet cpu = monitoredCpu();
        Thread worker = Thread.ofPlatform().name("sleeper").start(() -> {
            HostCpus.pinCurrentThread(cpu);
            tid.set(HostCpus.currentTid());
            ready.countDown();
            try {
                go.await();
                for (int i = 0; i < sleeps; i++) {
                    spin(2 * MS);
                    beforeSleep[i] = System.nanoTime();
                    Thread.sleep(5);
                    afterSleep[i] = System.nanoTime();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        ready.await();
        Recorder r = new Recorder();
        try (ContextSwitchMonitor m = openOrSkip(tid.get())) {
            pollingAwayFrom(cpu, () -> {
                go.countDown();
                r.pollUntil(m, worker);
            });
            assertEquals(r.n, m.switchRecords());
            assertEquals(0, m.lostRecords());
        }
        assertTrue(r.n >= 2 * sleeps, "only " + r.n + " switch records for " + sleeps + " sleeps");
        for (int i = 1; i < r.n; i++) {
            assertTrue(r.in[i] != r.in[i - 1], "switches of one thread must alternate: " + r.describe(i - 1)
                    + ", then " + r.describe(i));
            assertTrue(r.time[i] >= r.time[i - 1], "time went back: " + r.describe(i - 1) + ", then " + r.describe(i));
        }
        for (int i = 0; i < r.n; i++) {
            assertTrue(r.time[i] <= r.deliveredAt[i], "delivered before it happened: " + r.describe(i)
                    + ", delivered at " + r.deliveredAt[i] + " (not System.nanoTime's clock?)");
        }
        // Each sleep: a voluntary switch out right after beforeSleep, and in again before afterSleep.
        long slack = 2 * MS;
        for (int s = 0; s < sleeps; s++) {
            boolean out = false, back = false;
            for (int i = 0; i < r.n; i++) {
                boolean inWindow = r.time[i] >= beforeSleep[s] - slack && r.time[i] <= afterSleep[s] + slack;
                if (inWindow && !r.in[i] && !r.preempted[i]) out = true;
                if (inWindow && r.in[i]) back = true;
            }
            assertTrue(out && back, "sleep " + s + " [" + beforeSleep[s] + ", " + afterSleep[s]
                    + "] has no OUT/IN pair within " + slack / MS + " ms: out=" + out + " in=" + back);
        }
        long[] latency = new long[r.n];
        for (int i = 0; i < r.n; i++) latency[i] = r.deliveredAt[i] - r.time[i];
        Arrays.sort(latency);
        System.out.printf("sleeper: %d switches, delivery latency p50 %.1f us, p99 %.1f us, max %.1f us%n",
                r.n, latency[r.n / 2] / 1e3, latency[r.n * 99 / 100] / 1e3, latency[r.n - 1] / 1e3);
    }

    @Test
    void aRingLeftUnreadFillsAndTheListenerIsToldWhereRecordsWentMissing() throws Exception {
        AtomicInteger tid = new AtomicInteger();
        CountDownLatch ready = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        Thread parker = Thread.ofPlatform().name("parker").start(() -> {
            tid.set(HostCpus.currentTid());
            ready.countDown();
            while (!stop.get()) LockSupport.parkNanos(20_000); // two records a park
        });
        ready.await();
        Recorder r = new Recorder();
        // One data page: about 170 switch records, filled in a few milliseconds of parking.
        try (ContextSwitchMonitor m = openRing(0, Wakeup.EACH_RECORD, tid.get())) {
            Thread.sleep(150);
            m.poll(0, r);
            int firstRead = r.n;
            assertEquals(1, m.fullRings(), "the unread ring was not found full after 150 ms of parking");
            assertEquals(List.of(List.of(0L, (long) firstRead)), r.full.stream().map(f -> List.of(f[0], f[1])).toList(),
                    "the full ring must be told once, after its records");
            assertEquals(List.of(), r.lost, "no record followed the gap yet, so the kernel has not said how many it dropped");
            assertTrue(firstRead > 50 && firstRead < 200, firstRead + " records in a one-page ring");
            Thread.sleep(50);
            stop.set(true);
            parker.join();
            r.pollUntil(m);
            long[] dropped = r.lost.stream().findFirst()
                    .orElseThrow(() -> new AssertionError("no notice of the dropped records after the ring had room again"));
            assertTrue(dropped[2] >= firstRead && dropped[2] < r.n,
                    "the kernel's notice must come where the records went missing, before the next one: at " + dropped[2]
                            + " of " + r.n + ", the first read ended at " + firstRead);
            assertEquals(r.lost.stream().mapToLong(l -> l[1]).sum(), m.lostRecords());
            System.out.printf("parker on a one-page ring: %d records read, %d dropped, ring found full %d times%n",
                    r.n, m.lostRecords(), m.fullRings());
        } finally {
            stop.set(true);
        }
    }

    @Test
    void aRingWakingWhenHalfFullLeavesAWaitingPollAsleep() throws Exception {
        CompletableFuture<Integer> tid = new CompletableFuture<>();
        CountDownLatch polled = new CountDownLatch(1);
        Thread sleeper = Thread.ofPlatform().name("sleeper").start(() -> {
            tid.complete(HostCpus.currentTid());
            LockSupport.parkNanos(200 * MS); // until the poll below waits
            for (int i = 0; i < 20; i++) LockSupport.parkNanos(MS);
            try {
                polled.await(); // an exiting thread would wake the poll: it stays until the poll is over
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Recorder r = new Recorder();
        try (ContextSwitchMonitor m = openRing(RING_PAGES_LOG2, Wakeup.HALF_FULL, tid.join())) {
            long start = System.nanoTime();
            int first = m.poll(800, r);
            long waited = System.nanoTime() - start;
            polled.countDown();
            sleeper.join();
            m.poll(0, r);
            assertTrue(waited >= 750 * MS, "~40 records in a ring of ~10000 woke the poll after " + waited / MS + " ms, delivering "
                    + first);
            assertTrue(r.n >= 40, "the records wait in the ring for the next read: " + r.n + " (" + first + " at the timeout)");
        } finally {
            polled.countDown();
        }
    }

    @Test
    void onlyARingWakingAtEachRecordCostsTheThreadsCpuAnInterruptPerRecord() throws Exception {
        int cpu = monitoredCpu().nextSetBit(0);
        long[] interrupts = new long[2];
        long[] records = new long[2];
        for (Wakeup w : Wakeup.values()) {
            AtomicInteger tid = new AtomicInteger();
            CountDownLatch ready = new CountDownLatch(1);
            CountDownLatch go = new CountDownLatch(1);
            Thread parker = Thread.ofPlatform().name("parker").start(() -> {
                HostCpus.pinCurrentThread(monitoredCpu());
                tid.set(HostCpus.currentTid());
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long end = System.nanoTime() + 100 * MS;
                while (System.nanoTime() < end) LockSupport.parkNanos(20_000);
            });
            ready.await();
            Recorder r = new Recorder();
            try (ContextSwitchMonitor m = openRing(RING_PAGES_LOG2, w, tid.get())) {
                OptionalLong before = irqWorkInterrupts(cpu);
                Assumptions.assumeTrue(before.isPresent(), "/proc/interrupts has no IRQ work row for CPU " + cpu);
                go.countDown();
                parker.join(); // nobody polls meanwhile: the interrupts are the records' own
                interrupts[w.ordinal()] = irqWorkInterrupts(cpu).getAsLong() - before.getAsLong();
                m.poll(0, r);
                records[w.ordinal()] = m.switchRecords();
            }
        }
        System.out.printf("IRQ work on CPU %d over 100 ms of parking: %d at each record (%d records), %d half full (%d)%n",
                cpu, interrupts[0], records[0], interrupts[1], records[1]);
        assertTrue(records[0] > 500 && records[1] > 500, "the parker switched: " + Arrays.toString(records));
        assertTrue(interrupts[0] > records[0] / 4, "each record raised one: " + interrupts[0] + " for " + records[0]);
        assertTrue(interrupts[1] < interrupts[0] / 20, "half full raised a few at most: " + interrupts[1]);
    }

    /** The IRQ-work interrupts {@code cpu} took so far, from /proc/interrupts (x86's IWI row, arm64's IPI row), if listed. */
    private static OptionalLong irqWorkInterrupts(int cpu) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/interrupts"));
        int column = List.of(lines.getFirst().trim().split("\\s+")).indexOf("CPU" + cpu);
        if (column < 0) return OptionalLong.empty();
        return lines.stream().filter(l -> l.endsWith("IRQ work interrupts")).findFirst()
                .map(l -> OptionalLong.of(Long.parseLong(l.trim().split("\\s+")[1 + column])))
                .orElse(OptionalLong.empty());
    }

    @Test
    void twoSpinnersPinnedToOneCpuArePreempted() throws Exception {
        BitSet cpu = monitoredCpu();
        int[] tids = new int[2];
        CountDownLatch go = new CountDownLatch(1);
        Thread[] spinners = spinners(cpu, tids, go);
        Recorder r = new Recorder();
        try (ContextSwitchMonitor m = openOrSkip(tids)) {
            pollingAwayFrom(cpu, () -> {
                go.countDown();
                r.pollUntil(m, spinners);
            });
            assertEquals(0, m.lostRecords());
        }
        int[] preempted = new int[2];
        for (int i = 0; i < r.n; i++) {
            if (!r.in[i] && r.preempted[i]) preempted[r.thread[i]]++;
        }
        System.out.printf("two spinners on CPU %s: %d switches, preempted out: %d and %d%n",
                cpu, r.n, preempted[0], preempted[1]);
        assertTrue(preempted[0] > 0 && preempted[1] > 0,
                "each spinner must be preempted at least once: " + preempted[0] + ", " + preempted[1]);
    }

    @Test
    void closeLeavesFdsAndMappingsAsBefore() throws Exception {
        int self = HostCpus.currentTid();
        for (int i = 0; i < 5; i++) openOrSkip(self).close(); // classes loaded
        Set<String> fds = openFds();
        List<String> maps = perfMappings();
        for (int i = 0; i < 200; i++) {
            try (ContextSwitchMonitor m = openOrSkip(self)) {
                assertEquals(fds.size() + 1, openFds().size(), "one perf fd while open");
                assertEquals(maps.size() + 1, perfMappings().size(), "one perf ring mapped while open");
                m.poll(0, (t, in, p, ns) -> { });
                m.close(); // idempotent
            }
        }
        assertEquals(fds, openFds());
        assertEquals(maps, perfMappings());
    }

    @Test
    void aFailedOpenNamesTheCallAndLeaksNothing() throws Exception {
        int self = HostCpus.currentTid();
        openOrSkip(self).close();
        Set<String> fds = openFds();
        List<String> maps = perfMappings();
        // The first thread opens (fd and ring), the second does not exist: all is undone.
        KvmException e = assertThrows(KvmException.class, () -> ContextSwitchMonitor.open(self, 1 << 30));
        assertEquals("perf_event_open", e.operation());
        assertEquals("ESRCH", e.errnoName());
        assertTrue(e.getMessage().contains("pid=" + (1 << 30)), e.getMessage());
        assertEquals(fds, openFds());
        assertEquals(maps, perfMappings());
    }

    @Test
    void aClosedMonitorRefusesToPoll() {
        ContextSwitchMonitor m = openOrSkip(HostCpus.currentTid());
        m.close();
        assertThrows(IllegalStateException.class, () -> m.poll(0, (t, in, p, ns) -> fail("no records")));
    }

    private static Set<String> openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            Set<String> fds = new TreeSet<>();
            for (Path p : s.toList()) {
                try {
                    fds.add(p.getFileName() + " -> " + Files.readSymbolicLink(p));
                } catch (IOException gone) {
                    // the directory stream's own descriptor, closed by now
                }
            }
            return fds;
        }
    }

    private static List<String> perfMappings() throws IOException {
        return new ArrayList<>(Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> l.contains("perf_event"))
                .toList());
    }

    /** Opens a monitor of CPUs, or skips the test when this host does not allow CPU-wide perf events. */
    static ContextSwitchMonitor openCpusOrSkip(int... cpus) {
        return openCpusOrSkip(RING_PAGES_LOG2, cpus);
    }

    private static ContextSwitchMonitor openCpusOrSkip(int pagesLog2, int[] cpus) {
        try {
            return ContextSwitchMonitor.openCpus(pagesLog2, cpus);
        } catch (KvmException e) {
            boolean refused = e.operation().equals("perf_event_open")
                    && (e.errno() == Libc.EPERM || e.errno() == Libc.EACCES || e.errno() == Libc.ENOSYS);
            Assumptions.assumeFalse(refused, () -> "CPU-wide perf events are not available here: " + e.getMessage());
            throw e;
        }
    }

    @Test
    void aCpuMonitorNamesWhoTookTheCpuFromAPreemptedThread() throws Exception {
        BitSet cpu = monitoredCpu();
        int[] tids = new int[2];
        CountDownLatch go = new CountDownLatch(1);
        Thread[] spinners = spinners(cpu, tids, go);
        int[] byOther = new int[2];
        int[] seen = {0};
        long[] last = {Long.MIN_VALUE};
        boolean[] ordered = {true};
        ContextSwitchMonitor.CpuSwitchListener tally = (cpuIndex, tid, nextTid, preempted, when) -> {
            seen[0]++;
            ordered[0] &= cpuIndex == 0 && when >= last[0];
            last[0] = when;
            for (int k = 0; k < 2; k++) {
                if (tid == tids[k] && preempted && nextTid == tids[1 - k]) byOther[k]++;
            }
        };
        try (ContextSwitchMonitor m = openCpusOrSkip(cpu.nextSetBit(0))) {
            assertThrows(IllegalStateException.class, () -> m.poll(0, (i, in, p, t) -> { }), "a CPU monitor has no thread records");
            pollingAwayFrom(cpu, () -> {
                go.countDown();
                while (spinners[0].isAlive() || spinners[1].isAlive()) m.pollCpus(50, tally);
                m.flushCpus(tally);
            });
            assertEquals(seen[0], m.switchRecords());
        }
        assertTrue(ordered[0], "records of one CPU come in time order");
        assertTrue(byOther[0] >= 3 && byOther[1] >= 3, "each spinner preempted by the other only "
                + byOther[0] + " and " + byOther[1] + " times in 400 ms, of " + seen[0] + " switches on CPU " + cpu);
    }

    @Test
    void aCpuRingFoundFullIsToldInTimeOrderAfterItsRecords() throws Exception {
        BitSet cpu = monitoredCpu();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch ready = new CountDownLatch(1);
        List<String> told = new ArrayList<>();
        long[] lastSwitch = {Long.MIN_VALUE};
        ContextSwitchMonitor.CpuSwitchListener listener = new ContextSwitchMonitor.CpuSwitchListener() {
            @Override
            public void switchedOut(int cpuIndex, int tid, int nextTid, boolean preempted, long when) {
                lastSwitch[0] = when;
            }

            @Override
            public void lost(int cpuIndex, long count, long when) {
                told.add("lost " + count);
            }

            @Override
            public void ringFull(int cpuIndex, long when) {
                told.add(when >= lastSwitch[0] ? "full, after its records" : "full, before a record stamped later");
            }
        };
        // One data page: about 130 CPU-wide switch records, filled in a few milliseconds of 20 us parks.
        try (ContextSwitchMonitor m = openCpusOrSkip(0, new int[] {cpu.nextSetBit(0)})) {
            Thread parker = Thread.ofPlatform().name("cpu-parker").start(() -> {
                HostCpus.pinCurrentThread(cpu);
                ready.countDown();
                while (!stop.get()) LockSupport.parkNanos(20_000);
            });
            try {
                pollingAwayFrom(cpu, () -> {
                    assertTrue(ready.await(10, TimeUnit.SECONDS), "the parker did not start on CPU " + cpu);
                    Thread.sleep(150);
                    int delivered = m.flushCpus(listener);
                    assertTrue(delivered > 20, delivered + " switches delivered from a one-page ring");
                });
            } finally {
                stop.set(true);
                parker.join();
            }
            assertEquals(1, m.fullRings(), "the unread ring was not found full after 150 ms of parking");
            assertEquals(List.of("full, after its records"), told,
                    "the full ring is told once, in time order after the records read, and no notice yet says how many went");
        }
    }

    /**
     * Two threads pinned to {@code cpu}, their tids in {@code tids}, each spinning 400 ms once
     * {@code go} opens: two runnable threads on one CPU, so the scheduler preempts each for the other.
     */
    private static Thread[] spinners(BitSet cpu, int[] tids, CountDownLatch go) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(2);
        Thread[] spinners = new Thread[2];
        for (int k = 0; k < 2; k++) {
            int index = k;
            spinners[k] = Thread.ofPlatform().name("spinner-" + k).start(() -> {
                HostCpus.pinCurrentThread(cpu);
                tids[index] = HostCpus.currentTid();
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                spin(400 * MS);
            });
        }
        assertTrue(ready.await(10, TimeUnit.SECONDS), "the spinners did not start");
        return spinners;
    }
}
