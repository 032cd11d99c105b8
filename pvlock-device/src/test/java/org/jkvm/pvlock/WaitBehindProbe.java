package org.jkvm.pvlock;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jkvm.kvm.ContextSwitchMonitor;
import org.jkvm.kvm.HostCpus;

/**
 * A stand-in vCPU on the host's real scheduler, for the container tier: a thread spinning on one
 * CPU, registered as vCPU 0 of a {@link PreemptorLedger} that reads every switch on that CPU
 * (CPU-wide perf records), for a while; then the tally, one line a figure. Whoever the caller runs
 * on that CPU meanwhile is who the thread waits behind. Tasks are named as {@link PreemptorWatch}
 * names them; task 0 is the idle task, and in a nested PID namespace also any task outside it.
 *
 * <p>Usage: {@code WaitBehindProbe CPU MILLIS}; prints {@code nested true|false}, {@code waited_ns N}
 * and a {@code row NANOS KIND NAME} line per row of the tally, largest first.
 */
public final class WaitBehindProbe {
    private WaitBehindProbe() {}

    public static void main(String[] args) throws Exception {
        int cpu = Integer.parseInt(args[0]);
        long millis = Long.parseLong(args[1]);
        PreemptorLedger ledger = new PreemptorLedger(1, new int[] {cpu}, PreemptorWatch::name, PreemptorWatch.taskZero());
        BitSet theCpu = new BitSet();
        theCpu.set(cpu);
        BitSet others = HostCpus.currentAffinity();
        others.clear(cpu);
        // The reader stays off the measured CPU, so it is not among what the stand-in waits behind.
        if (!others.isEmpty()) HostCpus.pinCurrentThread(others);
        try (ContextSwitchMonitor m = ContextSwitchMonitor.openCpus(5, new int[] {cpu})) {
            AtomicBoolean stop = new AtomicBoolean();
            Thread vcpu = Thread.ofPlatform().name("probe-vcpu").start(() -> {
                HostCpus.pinCurrentThread(theCpu);
                ledger.vcpuThread(0, HostCpus.currentTid());
                while (!stop.get()) Thread.onSpinWait();
            });
            long end = System.nanoTime() + millis * 1_000_000;
            while (System.nanoTime() < end) m.pollCpus(100, ledger);
            stop.set(true);
            vcpu.join();
            m.flushCpus(ledger);
            Preemptors p = ledger.tally(m.lostRecords());
            System.out.println("nested " + PidNamespace.nested());
            System.out.println("waited_ns " + p.waitedNanos());
            for (Preemptors.Row r : p.rows()) {
                System.out.println("row " + r.nanos() + " " + r.who().kind() + " " + r.who().name());
            }
        }
    }
}
