package org.jkvm.pvlock;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Who a preempted vCPU waited behind, from switch records written by hand: vCPU threads 101 and
 * 102, jkvm's thread 201, another process's 301 and 302 (both named "hog").
 */
@Tag("unit")
class PreemptorLedgerTest {
    private static final long MS = 1_000_000L;

    private static PreemptorLedger ledger(int... cpus) {
        PreemptorLedger l = new PreemptorLedger(2, cpus, tid -> tid == 201
                ? new Preemptors.Who(Preemptors.Kind.VMM, "C1 CompilerThre")
                : new Preemptors.Who(Preemptors.Kind.OTHER, "hog"), Preemptors.Who.IDLE);
        l.vcpuThread(0, 101);
        l.vcpuThread(1, 102);
        return l;
    }

    private static Preemptors.Row row(Preemptors p, Preemptors.Kind kind) {
        return p.rows().stream().filter(r -> r.who().kind() == kind).findFirst().orElseThrow();
    }

    @Test
    void eachTaskThatRunsWhileAVcpuWaitsIsChargedWithThatTime() {
        PreemptorLedger l = ledger(0);
        l.switchedOut(0, 0, 101, false, 0);          // vCPU 0 comes in from idle
        l.switchedOut(0, 101, 301, true, 10 * MS);   // preempted by the hog
        l.switchedOut(0, 301, 201, true, 14 * MS);   // the hog ran 4 ms, then jkvm's thread
        l.switchedOut(0, 201, 302, false, 15 * MS);  // 1 ms, then the other hog thread
        l.switchedOut(0, 302, 101, true, 18 * MS);   // 3 ms, then vCPU 0 is back
        l.switchedOut(0, 101, 301, false, 30 * MS);  // vCPU 0 blocks (WFI): not a wait
        l.switchedOut(0, 301, 101, true, 50 * MS);   // 20 ms of the hog no vCPU waited for
        Preemptors p = l.tally(0);

        assertEquals(1, p.preemptions());
        assertEquals(8 * MS, p.waitedNanos());
        assertEquals(List.of(Preemptors.Kind.OTHER, Preemptors.Kind.VMM), p.rows().stream().map(r -> r.who().kind()).toList());
        Preemptors.Row hog = row(p, Preemptors.Kind.OTHER);
        assertEquals(new Preemptors.Row(new Preemptors.Who(Preemptors.Kind.OTHER, "hog"), 2, 7 * MS, 1), hog,
                "two threads of one name on one row; the one that came in next counted once");
        assertEquals(1 * MS, row(p, Preemptors.Kind.VMM).nanos());
    }

    @Test
    void aWindowBetweenTwoMarksCountsOnlyWhatWasChargedInIt() {
        PreemptorLedger l = ledger(0);
        l.switchedOut(0, 0, 101, false, 0);
        l.switchedOut(0, 101, 201, true, 10 * MS);   // boot: jkvm's thread preempts vCPU 0 for 5 ms
        l.switchedOut(0, 201, 101, true, 15 * MS);
        PreemptorLedger.Mark start = l.mark();
        l.switchedOut(0, 101, 102, true, 20 * MS);   // the workload: vCPU 1 preempts vCPU 0 for 7 ms
        l.switchedOut(0, 102, 201, true, 27 * MS);   // then jkvm's thread runs 1 ms with both waiting
        l.switchedOut(0, 201, 101, true, 28 * MS);
        PreemptorLedger.Mark end = l.mark();
        l.switchedOut(0, 101, 301, true, 30 * MS);   // power-off: the hog, 10 ms
        l.switchedOut(0, 301, 101, true, 40 * MS);

        Preemptors w = l.between(start, end);
        assertEquals(2, w.preemptions(), "vCPU 0 by vCPU 1, vCPU 1 by jkvm's thread");
        assertEquals(7 * MS + 2 * MS, w.waitedNanos());
        assertEquals(List.of(new Preemptors.Row(Preemptors.Who.VCPUS, 1, 7 * MS, 1),
                new Preemptors.Row(new Preemptors.Who(Preemptors.Kind.VMM, "C1 CompilerThre"), 1, 2 * MS, 1)), w.rows(),
                "jkvm's thread charged 2 ms in the window, not its 5 ms of boot; the hog, after it, not at all");
        Preemptors run = l.tally(0);
        assertEquals(4, run.preemptions());
        assertEquals(5 * MS + 9 * MS + 2 * MS + 2 * 10 * MS, run.waitedNanos(),
                "boot, the window, then vCPU 1 (still waiting) behind vCPU 0 for 2 ms and both behind the hog");
    }

    @Test
    void twoVcpusWaitingBehindOneAreBothChargedToIt() {
        PreemptorLedger l = ledger(0);
        l.switchedOut(0, 0, 101, false, 0);
        l.switchedOut(0, 101, 102, true, 10 * MS);   // vCPU 1 preempts vCPU 0
        l.switchedOut(0, 102, 301, true, 12 * MS);   // vCPU 1 ran 2 ms; the hog preempts it
        l.switchedOut(0, 301, 101, true, 15 * MS);   // the hog ran 3 ms with both waiting
        Preemptors p = l.tally(3);

        assertEquals(2, p.preemptions());
        assertEquals(2 * MS + 2 * 3 * MS, p.waitedNanos());
        assertEquals(new Preemptors.Row(new Preemptors.Who(Preemptors.Kind.OTHER, "hog"), 1, 6 * MS, 1), p.rows().get(0));
        assertEquals(new Preemptors.Row(Preemptors.Who.VCPUS, 1, 2 * MS, 1), p.rows().get(1));
        assertEquals(3, p.lostRecords());
    }

    @Test
    void aWindowCountsTheRecordsLostInItNotTheWholeRuns() {
        PreemptorLedger l = ledger(0);
        l.lost(0, 3, 5 * MS);                        // boot
        PreemptorLedger.Mark start = l.mark();
        l.lost(0, 2, 10 * MS);                       // the workload
        PreemptorLedger.Mark end = l.mark();
        l.lost(0, 5, 20 * MS);                       // power-off

        assertEquals(2, l.between(start, end).lostRecords(), "the window's tally is short by its own losses only");
        assertEquals(10, l.tally(10).lostRecords(), "the run's are the monitor's count");
    }

    @Test
    void aRingThatOverflowedEndsTheWaitsOnItsCpuUncharged() {
        PreemptorLedger l = ledger(3, 5);
        l.switchedOut(0, 0, 101, false, 0);          // CPU 3: vCPU 0 comes in
        l.switchedOut(0, 101, 301, true, 10 * MS);   // preempted by the hog
        l.lost(0, 4, 14 * MS);                       // CPU 3's records up to 14 ms dropped: vCPU 0's return among them?
        l.switchedOut(0, 301, 201, true, 40 * MS);   // the hog, running across the loss, is not charged
        l.switchedOut(1, 0, 102, false, 41 * MS);    // CPU 5 goes on as before
        l.switchedOut(1, 102, 302, true, 42 * MS);
        l.switchedOut(1, 302, 102, true, 45 * MS);
        Preemptors p = l.tally(7);

        assertEquals(2, p.preemptions());
        assertEquals(3 * MS, p.waitedNanos(), "CPU 5's 3 ms; nothing of the wait across CPU 3's loss, rather than 30 ms");
    }

    @Test
    void aRingFoundFullEndsTheWaitsOnItsCpuUnchargedAndIsCounted() {
        PreemptorLedger l = ledger(3);
        l.switchedOut(0, 0, 101, false, 0);          // CPU 3: vCPU 0 comes in
        l.switchedOut(0, 101, 301, true, 10 * MS);   // preempted by the hog
        PreemptorLedger.Mark start = l.mark();
        l.ringFull(0, 14 * MS);                      // read full at 14 ms: what followed 10 ms may be gone
        PreemptorLedger.Mark end = l.mark();
        l.switchedOut(0, 301, 201, true, 40 * MS);   // the hog, running across it, is not charged
        Preemptors p = l.tally(0);

        assertEquals(0, p.waitedNanos(), "nothing of the wait across the full ring, rather than 30 ms");
        assertEquals(List.of(0L, 1L), List.of(p.lostRecords(), p.ringsFull()), "no notice yet, one full ring");
        assertEquals(1, l.between(start, end).ringsFull(), "the window holds it");
        assertEquals(0, l.between(PreemptorLedger.Mark.ZERO, start).ringsFull());
    }

    @Test
    void taskZeroIsNamedAsTheLedgerWasToldInAContainerNotSimplyIdle() {
        PreemptorLedger l = new PreemptorLedger(2, new int[] {0}, tid -> Preemptors.Who.OTHER_VMS_VCPUS,
                Preemptors.Who.IDLE_OR_OUTSIDE);
        l.vcpuThread(0, 101);
        l.switchedOut(0, 0, 101, false, 0);
        l.switchedOut(0, 101, 0, true, 10 * MS);     // a task perf cannot name from inside preempts vCPU 0
        l.switchedOut(0, 0, 101, false, 14 * MS);

        assertEquals(List.of(new Preemptors.Row(Preemptors.Who.IDLE_OR_OUTSIDE, 1, 4 * MS, 1)), l.tally(0).rows(),
                "in a nested PID namespace the 4 ms are not claimed as the idle task's");
    }

    @Test
    void aVcpuThreadThatRanBeforeItWasRegisteredIsStillOneOfThisVms() {
        // As the watch names it: a thread called vcpu-N that is not (yet) this VM's.
        PreemptorLedger l = new PreemptorLedger(2, new int[] {0}, tid -> Preemptors.Who.OTHER_VMS_VCPUS, Preemptors.Who.IDLE);
        l.vcpuThread(0, 101);
        l.switchedOut(0, 0, 101, false, 0);
        l.switchedOut(0, 101, 102, true, 10 * MS);   // vCPU 1's thread runs before it is registered
        l.vcpuThread(1, 102);
        l.switchedOut(0, 102, 101, true, 13 * MS);   // vCPU 0 back: each came in next once
        Preemptors p = l.tally(0);

        assertEquals(List.of(new Preemptors.Row(Preemptors.Who.VCPUS, 2, 3 * MS, 2)), p.rows());
    }
}
