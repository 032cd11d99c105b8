package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real KVM: a vCPU thread's own CPU-time timer gets a spinning guest out of KVM_RUN, and an idle thread is left alone. */
@Tag("kvm")
class ThreadCpuTimerTest {
    private static final long PERIOD_NANOS = 5_000_000;
    private static Kvm kvm;

    @BeforeAll
    static void open() {
        kvm = KvmTier.openOrSkip();
    }

    @AfterAll
    static void close() {
        if (kvm != null) kvm.close();
    }

    /** What the vCPU thread saw: why KVM_RUN returned and the CPU time it had used by then. */
    private record Interrupted(ExitReason exit, long cpuNanos) {}

    @Test
    void aSpinningGuestIsInterruptedOnceItsThreadHasUsedAPeriodOfCpu() throws Exception {
        byte[] spin = {(byte) 0xeb, (byte) 0xfe}; // jmp $
        try (TinyGuest g = new TinyGuest(kvm, spin); Arena arena = Arena.ofShared()) {
            MemorySegment clock = ThreadCpuTimer.clockScratch(arena);
            CompletableFuture<Interrupted> result = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().name("vcpu-0").start(() -> {
                try {
                    g.vcpu.bindToCurrentThread();
                    long start = ThreadCpuTimer.currentThreadCpuNanos(clock);
                    try (ThreadCpuTimer timer = ThreadCpuTimer.startOnCurrentThread(VcpuFd.KICK_SIGNAL, PERIOD_NANOS)) {
                        ExitReason r = g.vcpu.run();
                        result.complete(new Interrupted(r, ThreadCpuTimer.currentThreadCpuNanos(clock) - start));
                    }
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
            Interrupted i;
            try {
                i = result.get(10, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                g.vcpu.kick();
                t.join();
                throw new AssertionError("the CPU-time timer never interrupted the spinning guest", e);
            }
            t.join();
            assertEquals(ExitReason.INTR, i.exit());
            assertTrue(i.cpuNanos() >= PERIOD_NANOS, "interrupted after only " + i.cpuNanos() + " ns of CPU");
        }
    }

    @Test
    void aSleepingThreadUsesNoCpuSoItsTimerSendsNothing() throws Exception {
        CompletableFuture<Integer> taken = new CompletableFuture<>();
        // A thread of its own: the signal stays blocked in it until it ends.
        Thread.ofPlatform().start(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment set = arena.allocate(Libc.GLIBC_SIGSET_BYTES);
                set.set(JAVA_LONG, 0, 1L << (VcpuFd.KICK_SIGNAL - 1));
                Libc.sigprocmask(Libc.SIG_BLOCK, set, arena.allocate(Libc.GLIBC_SIGSET_BYTES));
                try (ThreadCpuTimer timer = ThreadCpuTimer.startOnCurrentThread(VcpuFd.KICK_SIGNAL, PERIOD_NANOS)) {
                    Thread.sleep(200);
                    taken.complete(Libc.sigtimedwait(set, MemorySegment.NULL, arena.allocate(Libc.TIMESPEC_BYTES)));
                }
            } catch (Throwable e) {
                taken.completeExceptionally(e);
            }
        });
        assertEquals(-1, taken.get(10, TimeUnit.SECONDS), "no signal pending after 200 ms asleep");
    }

    @Test
    void aPeriodMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> ThreadCpuTimer.startOnCurrentThread(VcpuFd.KICK_SIGNAL, 0));
    }
}
