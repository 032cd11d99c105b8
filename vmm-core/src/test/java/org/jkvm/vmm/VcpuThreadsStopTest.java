package org.jkvm.vmm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.jkvm.kvm.Arch;
import org.jkvm.kvm.Capability;
import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.MappedMemory;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.MmioBus;
import org.jkvm.vmm.memory.KvmTier;
import org.jkvm.vmm.vcpu.VcpuLoop;
import org.jkvm.vmm.vcpu.VcpuRunListener;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real KVM (x86_64): a VM of many vCPUs stops and releases its vCPUs within a bound a user
 * would wait for, and vCPU threads that do not return hold the stop up for the join limit in
 * all, not each.
 */
@Tag("kvm")
class VcpuThreadsStopTest {
    private static final int VCPUS = 1024;
    /** What a user would wait after Ctrl-C or SIGTERM. */
    private static final Duration BOUND = Duration.ofSeconds(10);
    /** An x86 vCPU starts at 0xfffffff0, which is this 64 KiB page's offset 0xfff0. */
    private static final long RESET_PAGE = 0xffff_0000L;
    private static final long RESET_OFFSET = 0xfff0;
    /** hlt. */
    private static final byte HLT = (byte) 0xf4;

    /** Idle vCPUs, as a guest's are after it turned its CPUs off (bench/footprint's bm-512). */
    @Test
    void manyIdleVcpusStopAndAreReleasedWithinTheBound() throws Exception {
        assumeTrue(Arch.host() == Arch.X86_64, "the guest here is x86 code");
        try (Kvm kvm = KvmTier.openOrSkip(); VmFd vm = kvm.createVm();
             MappedMemory ram = MappedMemory.anonymous(0x1_0000, false)) {
            int n = Math.min(VCPUS, kvm.check(Capability.MAX_VCPUS));
            idleGuest(vm, ram);
            List<VcpuFd> vcpus = new ArrayList<>();
            try {
                for (int i = 0; i < n; i++) vcpus.add(vm.createVcpu(i));
                CountDownLatch allEntered = new CountDownLatch(n);
                VcpuThreads threads = new VcpuThreads(vcpus);
                for (VcpuFd v : vcpus) {
                    threads.addLoop(new VcpuLoop(v, new MmioBus(), new HypercallBus(), null, null, threads, null,
                            firstEntry(allEntered)));
                }
                threads.start();
                assertTrue(allEntered.await(60, TimeUnit.SECONDS), "every vCPU called KVM_RUN");

                long t0 = System.nanoTime();
                threads.stop("test");
                VmOutcome outcome = threads.await(null);
                long joined = System.nanoTime();
                assertEquals(new VmOutcome.Stopped("test"), outcome);
                assertTrue(threads.allThreadsEnded());
                for (VcpuFd v : vcpus) v.close();
                vm.close();
                long released = System.nanoTime();
                System.err.printf("%d idle vCPUs: threads returned %d ms after the stop,"
                        + " vCPUs and VM closed %d ms after it%n", n, (joined - t0) / 1_000_000, (released - t0) / 1_000_000);
                assertTrue(Duration.ofNanos(released - t0).compareTo(BOUND) < 0,
                        "stopped and released in " + Duration.ofNanos(released - t0).toMillis() + " ms");
            } finally {
                for (VcpuFd v : vcpus) v.close();
            }
        }
    }

    @Test
    void threadsThatDoNotReturnDelayTheStopByTheJoinLimitInAllNotEach() throws Exception {
        assumeTrue(Arch.host() == Arch.X86_64, "the guest here is x86 code");
        int stuck = 3;
        try (Kvm kvm = KvmTier.openOrSkip(); VmFd vm = kvm.createVm();
             MappedMemory ram = MappedMemory.anonymous(0x1_0000, false)) {
            idleGuest(vm, ram);
            List<VcpuFd> vcpus = new ArrayList<>();
            CountDownLatch release = new CountDownLatch(1);
            try {
                for (int i = 0; i < stuck + 1; i++) vcpus.add(vm.createVcpu(i));
                CountDownLatch allEntered = new CountDownLatch(vcpus.size());
                VcpuThreads threads = new VcpuThreads(vcpus);
                for (VcpuFd v : vcpus) {
                    VcpuRunListener entered = firstEntry(allEntered);
                    // vCPUs 1..stuck hang on their way out, as a thread stuck in a device would
                    VcpuRunListener hangs = v.id() == 0 ? entered : VcpuRunListener.both(entered, hangingOnStop(release));
                    threads.addLoop(new VcpuLoop(v, new MmioBus(), new HypercallBus(), null, null, threads, null, hangs));
                }
                threads.start();
                assertTrue(allEntered.await(60, TimeUnit.SECONDS), "every vCPU called KVM_RUN");

                long t0 = System.nanoTime();
                threads.stop("test");
                threads.await(null);
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                assertFalse(threads.allThreadsEnded(), "the stuck threads are still running");
                assertTrue(took.compareTo(VcpuThreads.JOIN_LIMIT.plusSeconds(2)) < 0,
                        stuck + " stuck threads held the stop for " + took.toMillis() + " ms");
            } finally {
                release.countDown();
                for (VcpuFd v : vcpus) v.close();
            }
        }
    }

    /** The guest of both tests: vCPU 0 halts, the others wait for a start-up IPI, all in KVM_RUN. */
    private static void idleGuest(VmFd vm, MappedMemory ram) {
        vm.createX86Irqchip();
        ram.segment().set(JAVA_BYTE, RESET_OFFSET, HLT);
        vm.setUserMemoryRegion(0, 0, RESET_PAGE, ram.segment());
    }

    /** Blocks the vCPU's thread as it stops until {@code release} opens. */
    private static VcpuRunListener hangingOnStop(CountDownLatch release) {
        return new VcpuRunListener() {
            @Override
            public void started(int vcpu, int tid) {}

            @Override
            public void stopped(int vcpu) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    /** Counts each vCPU's first entry into the guest down. */
    private static VcpuRunListener firstEntry(CountDownLatch latch) {
        return new VcpuRunListener() {
            private final BitSet seen = new BitSet();

            @Override
            public void started(int vcpu, int tid) {}

            @Override
            public synchronized void entering(int vcpu) {
                if (!seen.get(vcpu)) {
                    seen.set(vcpu);
                    latch.countDown();
                }
            }

            @Override
            public boolean followsEntries() {
                return true;
            }

            @Override
            public void stopped(int vcpu) {}
        };
    }
}
