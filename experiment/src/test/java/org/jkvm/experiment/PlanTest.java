package org.jkvm.experiment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What {@code jkvm experiment plan --json} tells a driver. */
@Tag("unit")
class PlanTest {
    @TempDir
    Path dir;

    @Test
    void jsonNamesTheFilesTheVariablesAndTheHostBootsStillNeeded() throws Exception {
        Path spec = dir.resolve("wfe.json");
        Files.writeString(spec, """
                {"name": "wfe", "guest": {"kernel": "${JKVM_KERNEL_IMAGE}", "initrd": "${JKVM_WORKLOADS_INITRD}"},
                 "vcpus": 8, "pin": "0-1", "workloads": [{"name": "cpu", "workers": 8, "seconds": 5}],
                 "variants": [{"name": "base", "pvlock": "off"},
                              {"name": "notrap", "pvlock": "off", "host_kernel_args": "kvm-arm.wfe_trap_policy=notrap"},
                              {"name": "new", "pvlock": "off", "kernel": "${NEW_IMAGE}/Image"}],
                 "repetitions": 2}
                """);
        Map<String, String> env = Map.of("JKVM_KERNEL_IMAGE", "/k/Image", "JKVM_WORKLOADS_INITRD", "", "OTHER", "x");
        Plan fresh = Plan.of(spec, null, List.of(), env);
        assertEquals("""
                {
                  "spec": "%1$s/wfe.json",
                  "results": "%1$s/wfe.results.jsonl",
                  "report_dir": "%1$s/wfe-report",
                  "variables": {
                    "JKVM_KERNEL_IMAGE": true,
                    "JKVM_WORKLOADS_INITRD": false,
                    "NEW_IMAGE": false
                  },
                  "total_runs": 6,
                  "pending_runs": 6,
                  "failed_runs": 0,
                  "host_kernel_args": ["", "kvm-arm.wfe_trap_policy=notrap"]
                }""".formatted(dir), Json.pretty(fresh.toMap()));

        Path results = dir.resolve("sub/r.jsonl");
        try (ResultsLog log = ResultsLog.open(results)) {
            for (Run r : fresh.pending()) {
                if (!r.variant().name().equals("base")) {
                    log.append(RunResult.of(r, List.of(new GuestResult("cpu", 1, "ops/s", Direction.HIGHER)), 6, Instant.EPOCH, Map.of()));
                }
            }
        }
        Plan later = Plan.of(spec, results, ResultsLog.read(results), env);
        assertEquals(results, later.results());
        assertEquals(2, later.pending().size());
        assertEquals(Map.of(), later.failed(), "nothing failed: the base runs were never run");
        assertEquals(List.of(""), later.hostKernelArgs(), "only the boot without host arguments is still needed");
    }

    @Test
    void aRunWhoseLastResultFailedIsPendingAndSaysWhy() throws Exception {
        Path spec = dir.resolve("f.json");
        Files.writeString(spec, """
                {"name": "f", "guest": {"kernel": "/k/Image", "initrd": "/k/initrd"}, "vcpus": 2,
                 "workloads": [{"name": "cpu", "workers": 2, "seconds": 5}],
                 "pin": "0", "variants": [{"name": "base", "pvlock": "off"}, {"name": "pv", "pvlock": "userspace"}], "repetitions": 2}
                """);
        Plan fresh = Plan.of(spec, null, List.of(), Map.of());
        List<Run> runs = fresh.pending();
        GuestResult value = new GuestResult("cpu", 1, "ops/s", Direction.HIGHER);
        List<RunResult> logged = List.of(
                RunResult.of(runs.get(0), List.of(value), 6, Instant.EPOCH, Map.of()),
                RunResult.failed(runs.get(1), "no RESULT line in 26 s", 26, Instant.EPOCH, Map.of()),
                RunResult.failed(runs.get(2), "guest panic", 3, Instant.EPOCH, Map.of()),
                RunResult.of(runs.get(2), List.of(value), 6, Instant.EPOCH, Map.of()),
                RunResult.of(runs.get(3), List.of(value), 6, Instant.EPOCH, Map.of()),
                RunResult.failed(runs.get(3), "guest panic", 3, Instant.EPOCH, Map.of()));

        Plan later = Plan.of(spec, null, logged, Map.of());
        assertEquals(List.of(runs.get(1), runs.get(3)), later.pending().subList(0, 2), "the last result of each id counts");
        assertEquals(Map.of(runs.get(1).id(), "no RESULT line in 26 s", runs.get(3).id(), "guest panic"), later.failed());
        assertEquals(runs.size() - 2, later.pending().size());
        assertEquals(2, later.toMap().get("failed_runs"));
        assertEquals(runs.size() - 2, later.toMap().get("pending_runs"));
    }
}
