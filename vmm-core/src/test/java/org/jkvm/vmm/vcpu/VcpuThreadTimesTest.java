package org.jkvm.vmm.vcpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading the vCPU threads' run and wait times from another thread, for a window of a run. */
@Tag("unit")
class VcpuThreadTimesTest {
    /** This thread's id: /proc/thread-self links to "PID/task/TID". */
    private static int currentTid() throws IOException {
        return Integer.parseInt(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
    }

    @Test
    void marksOnlyOnceEveryVcpuThreadHasStartedAndUntilOneStops() throws IOException {
        Assumptions.assumeTrue(ThreadSchedStat.current().isPresent(), "this kernel has no schedstat (CONFIG_SCHED_INFO)");
        VcpuThreadTimes times = VcpuThreadTimes.of(2);
        int tid = currentTid();
        times.started(0, tid);
        assertEquals(Optional.empty(), times.mark(), "vCPU 1 has no thread yet");
        times.started(1, tid);
        List<ThreadSchedStat> marked = times.mark().orElseThrow();
        assertEquals(2, marked.size());
        assertTrue(marked.getFirst().onCpuNanos() > 0, marked.toString());
        times.stopped(1);
        assertEquals(Optional.empty(), times.mark(), "vCPU 1's thread has ended: its figures are gone");
    }

    @Test
    void anotherThreadsFiguresAreReadByItsIdWhileItRuns() throws Exception {
        Assumptions.assumeTrue(ThreadSchedStat.current().isPresent(), "this kernel has no schedstat (CONFIG_SCHED_INFO)");
        CompletableFuture<Integer> tid = new CompletableFuture<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                tid.complete(currentTid());
                done.await();
            } catch (IOException | InterruptedException e) {
                tid.completeExceptionally(e);
            }
        });
        try {
            ThreadSchedStat other = ThreadSchedStat.ofThread(tid.get()).orElseThrow();
            assertTrue(other.onCpuNanos() > 0, other.toString());
        } finally {
            done.countDown();
            t.join();
        }
        assertEquals(Optional.empty(), ThreadSchedStat.ofThread(-1), "no such thread: no figures");
    }

    @Test
    void theWindowSumsEachThreadsDifference() {
        ThreadSchedStat d = VcpuThreadTimes.between(
                List.of(new ThreadSchedStat(10, 1), new ThreadSchedStat(20, 2)),
                List.of(new ThreadSchedStat(15, 4), new ThreadSchedStat(40, 2)));
        assertEquals(new ThreadSchedStat(25, 3), d);
    }
}
