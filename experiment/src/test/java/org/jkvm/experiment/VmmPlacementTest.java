package org.jkvm.experiment;

import java.nio.file.Path;
import java.util.BitSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import org.jkvm.kvm.HostCpus;
import org.jkvm.vmm.config.CpuSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Each run puts the rest of jkvm where its variant says, for real (sched_setaffinity on this process). */
@Tag("unit")
class VmmPlacementTest {
    private static ExperimentSpec spec(String pin, String variants) {
        return ExperimentSpec.parse("""
                {"name": "p", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 2, "pin": "%s",
                 "workloads": [{"name": "cpu", "workers": 1, "seconds": 1}],
                 "variants": [%s], "repetitions": 1}
                """.formatted(pin, variants), Path.of("p.json"), false, Map.of());
    }

    /** A thread of the process that, once released, reads the CPUs it may run on. */
    private record Watcher(Thread thread, CountDownLatch go, CompletableFuture<BitSet> seen) {
        static Watcher start(String name) {
            CountDownLatch go = new CountDownLatch(1);
            CompletableFuture<BitSet> seen = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().name(name).start(() -> {
                try {
                    go.await();
                    seen.complete(HostCpus.currentAffinity());
                } catch (InterruptedException e) {
                    seen.completeExceptionally(e);
                }
            });
            return new Watcher(t, go, seen);
        }

        void release() throws InterruptedException {
            go.countDown();
            thread.join();
        }

        BitSet read() throws Exception {
            release();
            return seen.get();
        }
    }

    @Test
    void aVariantsRunsGoToItsVmmPinAndAnUnpinnedVariantsBackWhereTheProcessStarted() throws Exception {
        BitSet all = HostCpus.currentAffinity();
        assumeTrue(all.cardinality() >= 2, "needs 2 host CPUs; this process may use " + CpuSet.format(all));
        String first = Integer.toString(all.nextSetBit(0));
        String second = Integer.toString(all.nextSetBit(all.nextSetBit(0) + 1));
        ExperimentSpec spec = spec(first, """
                {"name": "own", "pvlock": "off", "vmm_pin": "%s"}, {"name": "free", "pvlock": "off"}""".formatted(second));
        VmmPlacement placement = new VmmPlacement(spec, all);
        Watcher other = Watcher.start("device");
        try {
            assertEquals(Map.of("pin", first, "vmm_pin", second), placement.place(spec.variant("own")));
            assertEquals(CpuSet.parse(second), other.read(), "a thread of the process that was running");
            assertEquals(CpuSet.parse(second), HostCpus.currentAffinity(), "the runner's own thread");
            Watcher later = Watcher.start("made-while-pinned");
            try {
                assertEquals(Map.of("pin", first), placement.place(spec.variant("free")));
            } finally {
                later.release();
            }
            assertEquals(all, HostCpus.currentAffinity(), "back on every CPU the process had");
            assertEquals(all, later.read(), "a thread made while the process was pinned (a JIT compiler thread)");
        } finally {
            other.release();
            HostCpus.pinProcess(all);
        }
    }

    @Test
    void aSpecThatPinsNoVmmLeavesTheProcessWhereItIs() {
        BitSet all = HostCpus.currentAffinity();
        assumeTrue(all.cardinality() >= 2, "needs 2 host CPUs; this process may use " + CpuSet.format(all));
        BitSet one = new BitSet();
        one.set(all.nextSetBit(0));
        ExperimentSpec spec = spec(CpuSet.format(one), "{\"name\": \"free\", \"pvlock\": \"off\", \"vmm_pin\": \"none\"}");
        try {
            HostCpus.pinProcess(one);
            assertEquals(Map.of("pin", CpuSet.format(one)), new VmmPlacement(spec, all).place(spec.variant("free")));
            assertEquals(one, HostCpus.currentAffinity(), "as a user's taskset left it");
        } finally {
            HostCpus.pinProcess(all);
        }
    }
}
