package org.jkvm.cli.experiment;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jkvm.experiment.Direction;
import org.jkvm.experiment.Experiment;
import org.jkvm.experiment.GuestResult;
import org.jkvm.experiment.Run;
import org.jkvm.experiment.RunResult;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Experiment} (resume, outputs) and {@code jkvm experiment check|plan|report}. */
@Tag("unit")
class ExperimentCommandTest {
    @TempDir
    Path dir;

    record Out(int code, String out, String err) {}

    static Out run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(ExperimentCommand.spec());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setExecutionExceptionHandler((e, c, p) -> {
            c.getErr().println("jkvm: " + e.getMessage());
            return e instanceof IllegalArgumentException ? 2 : 1;
        });
        return new Out(cl.execute(args), out.toString(), err.toString());
    }

    Path spec() throws Exception {
        Path f = dir.resolve("rep.json");
        Files.writeString(f, """
                {"name": "rep", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 4, "pin": "0-1",
                 "workloads": [{"name": "cpu", "workers": 4, "seconds": 5}],
                 "variants": [{"name": "base", "pvlock": "off"}, {"name": "pv", "pvlock": "userspace"}],
                 "repetitions": 2}
                """);
        return f;
    }

    @Test
    void resumeAndOutputs() throws Exception {
        Path f = spec();
        assertEquals(dir.resolve("rep.results.jsonl"), Experiment.defaultResults(f));
        try (Experiment ex = Experiment.open(f, null, false)) {
            assertEquals(4, ex.pending().size());
            Run first = ex.pending().getFirst();
            ex.log().append(RunResult.of(first, List.of(new GuestResult("cpu", 100, "ops/s", Direction.HIGHER)), 6, Instant.EPOCH, Map.of()));
        }
        try (Experiment ex = Experiment.open(f, null, false)) {
            assertEquals(3, ex.pending().size(), "resumed");
            for (Run r : ex.pending()) {
                ex.log().append(RunResult.of(r, List.of(new GuestResult("cpu", r.variant().name().equals("pv") ? 120 : 100,
                        "ops/s", Direction.HIGHER)), 6, Instant.EPOCH, Map.of()));
            }
            assertTrue(ex.pending().isEmpty());
            ex.writeOutputs(dir.resolve("out"));
        }
        assertTrue(Files.readString(dir.resolve("out/report.txt")).contains("+20.0%"));
        assertTrue(Files.readString(dir.resolve("out/chart.svg")).startsWith("<?xml"));
        assertEquals(5, Files.readAllLines(dir.resolve("out/results.csv")).size());
        assertEquals(3, Files.readAllLines(dir.resolve("out/cells.csv")).size(), "a header and a row per cell");

        Out plan = run("plan", f.toString());
        assertEquals(0, plan.code());
        assertTrue(plan.out().contains("   0  done   cpu/base/1\n"), plan.out());
        assertTrue(plan.out().endsWith("0 of 4 runs pending (0 failed, 0 not run yet)\n"), plan.out());

        Path svg = dir.resolve("c.svg");
        Out rep = run("report", f.toString(), "--svg", svg.toString(), "--csv", dir.resolve("c.csv").toString(),
                "--cells-csv", dir.resolve("cells.csv").toString());
        assertEquals(0, rep.code(), rep.err());
        assertTrue(rep.out().startsWith("Experiment rep: 4 of 4 measured runs\n"), rep.out());
        assertTrue(Files.exists(svg) && Files.exists(dir.resolve("c.csv")));
        assertEquals(Files.readString(dir.resolve("out/cells.csv")), Files.readString(dir.resolve("cells.csv")));
    }

    @Test
    void checkSummarisesOrListsTheProblems() throws Exception {
        Out ok = run("check", spec().toString());
        assertEquals(0, ok.code(), ok.err());
        assertTrue(ok.out().startsWith("rep: 1 workloads x 2 variants x (2 + 0 warm-up) = 4 runs\n"), ok.out());
        assertTrue(ok.out().contains("  pv: pvlock userspace, steal time on, 4 vCPUs x 1 VM(s) on 0-1 (overcommit 2.00x)\n"), ok.out());
        assertFalse(ok.out().contains("the rest of jkvm"), ok.out());
        Path pinned = dir.resolve("pinned.json");
        Files.writeString(pinned, Files.readString(spec()).replace("\"pin\": \"0-1\",", "\"pin\": \"0-1\", \"vmm_pin\": \"2\","));
        Out p = run("check", pinned.toString());
        assertEquals(0, p.code(), p.err());
        assertTrue(p.out().endsWith("(overcommit 2.00x)\n  the rest of jkvm (JVM, devices, PV-lock thread) on host CPUs 2\n"), p.out());
        Path own = dir.resolve("own.json");
        Files.writeString(own, Files.readString(pinned).replace("\"pvlock\": \"userspace\"}",
                "\"pvlock\": \"userspace\", \"vmm_pin\": \"3\"}, {\"name\": \"ref\", \"pvlock\": \"off\", \"pin\": \"0-3\", \"vmm_pin\": \"none\"}"));
        Out o = run("check", own.toString());
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("  pv: pvlock userspace, steal time on, 4 vCPUs x 1 VM(s) on 0-1 (overcommit 2.00x),"
                + " the rest of jkvm on host CPUs 3\n  ref: pvlock off, steal time on, 4 vCPUs x 1 VM(s) on 0-3 (overcommit 1.00x),"
                + " the rest of jkvm unpinned\n  the rest of jkvm (JVM, devices, PV-lock thread) on host CPUs 2\n"), o.out());

        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"name\": \"x\",\n \"vcpus\": \"two\"}");
        Out b = run("check", bad.toString());
        assertEquals(2, b.code());
        assertTrue(b.err().startsWith("jkvm: " + bad + ":1:1: guest: missing; this object needs it\n"), b.err());
        assertTrue(b.err().contains(bad + ":2:11: vcpus: must be a positive whole number, not \"two\"\n"), b.err());

        Out files = run("check", "--files", spec().toString());
        assertEquals(2, files.code());
        assertTrue(files.err().contains("guest.kernel: no such file: " + dir.resolve("I")), files.err());
    }

    @Test
    void checkListsTheInputFilesAndPlanTheHostBootsForADriver() throws Exception {
        Path f = dir.resolve("in.json");
        Files.createDirectories(dir.resolve("k"));
        for (String n : List.of("k/Image", "k/Image-new")) Files.write(dir.resolve(n), ArmImageHeader.bytes());
        Files.writeString(dir.resolve("initrd"), "x");
        Files.writeString(f, """
                {"name": "in", "guest": {"kernel": "k/Image", "initrd": "initrd"}, "vcpus": 4, "pin": "0",
                 "workloads": [{"name": "cpu", "workers": 4, "seconds": 5}],
                 "variants": [{"name": "base", "pvlock": "off"},
                              {"name": "new", "pvlock": "off", "kernel": "k/Image-new"},
                              {"name": "notrap", "pvlock": "off", "host_kernel_args": "kvm-arm.wfe_trap_policy=notrap"}],
                 "repetitions": 1}
                """);
        Out files = run("check", "--list-files", f.toString());
        assertEquals(0, files.code(), files.err());
        assertEquals(dir.resolve("k/Image") + "\n" + dir.resolve("initrd") + "\n" + dir.resolve("k/Image-new") + "\n", files.out());

        Out hosts = run("plan", "--host-kernel-args", f.toString());
        assertEquals(0, hosts.code(), hosts.err());
        assertEquals("\nkvm-arm.wfe_trap_policy=notrap\n", hosts.out());
        try (Experiment ex = Experiment.open(f, null, false)) {
            Run notrap = ex.pending().stream().filter(r -> r.variant().name().equals("notrap")).findFirst().orElseThrow();
            ex.log().append(RunResult.of(notrap, List.of(new GuestResult("cpu", 1, "ops/s", Direction.HIGHER)), 6, Instant.EPOCH, Map.of()));
        }
        assertEquals("\n", run("plan", "--host-kernel-args", f.toString()).out(), "only the boot still needed");

        Files.delete(dir.resolve("k/Image-new"));
        Out missing = run("check", "--list-files", f.toString());
        assertEquals(2, missing.code(), "a spec error");
        assertEquals("", missing.out());
        assertTrue(missing.err().contains("k/Image-new"), missing.err());
    }

    @Test
    void planMarksAFailedRunWithWhyAndCountsItApart() throws Exception {
        Path f = spec();
        try (Experiment ex = Experiment.open(f, null, false)) {
            ex.log().append(RunResult.failed(ex.pending().getFirst(), "guest panic", 3, Instant.EPOCH, Map.of()));
        }
        Out plan = run("plan", f.toString());
        assertEquals(0, plan.code(), plan.err());
        assertTrue(plan.out().startsWith("   0  failed cpu/base/1  (guest panic)\n   1         cpu/pv/1\n"), plan.out());
        assertTrue(plan.out().endsWith("4 of 4 runs pending (1 failed, 3 not run yet)\n"), plan.out());
        assertTrue(run("plan", f.toString(), "--shell").out().contains("plan_pending_runs='4'\nplan_failed_runs='1'\n"));
    }

    @Test
    void planForADriverAsJsonOrBashAssignments() throws Exception {
        Path f = spec();
        Out json = run("plan", f.toString(), "--json");
        assertEquals(0, json.code(), json.err());
        assertEquals("""
                {
                  "spec": "%1$s/rep.json",
                  "results": "%1$s/rep.results.jsonl",
                  "report_dir": "%1$s/rep-report",
                  "variables": {},
                  "total_runs": 4,
                  "pending_runs": 4,
                  "failed_runs": 0,
                  "host_kernel_args": [""]
                }
                """.formatted(dir), json.out());

        Path quoted = Files.createFile(dir.resolve("it's.jsonl"));
        Out shell = run("plan", f.toString(), "--shell", "--results", quoted.toString());
        assertEquals(0, shell.code(), shell.err());
        assertEquals("""
                plan_spec='%1$s/rep.json'
                plan_results='%1$s/it'\\''s.jsonl'
                plan_report_dir='%1$s/rep-report'
                declare -A plan_variables=()
                plan_total_runs='4'
                plan_pending_runs='4'
                plan_failed_runs='0'
                plan_host_kernel_args=('')
                """.formatted(dir), shell.out());

        Out both = run("plan", f.toString(), "--json", "--shell");
        assertEquals(2, both.code(), "one form at a time");
    }

    @Test
    void repairSaysWhatItKeptOrDropped() throws Exception {
        Path f = spec();
        Path log = dir.resolve("r.jsonl");
        try (Experiment ex = Experiment.open(f, log, false)) {
            ex.log().append(RunResult.of(ex.pending().getFirst(), List.of(new GuestResult("cpu", 1, "ops/s", Direction.HIGHER)), 6,
                    Instant.EPOCH, Map.of()));
        }
        String line = Files.readString(log).strip();
        Files.writeString(log, line);
        Out kept = run("repair", "--results", log.toString());
        assertEquals(0, kept.code(), kept.err());
        assertEquals(log + ": kept the last result, which lacked its newline\n", kept.out());
        assertEquals(line + "\n", Files.readString(log));

        Files.writeString(log, line + "\n{\"id\":\"cpu/pv/1\",\"var");
        Out dropped = run("repair", "--results", log.toString());
        assertEquals(log + ": dropped a torn last line (21 characters): {\"id\":\"cpu/pv/1\",\"var\n", dropped.out());
        assertEquals(line + "\n", Files.readString(log));

        assertEquals("", run("repair", "--results", log.toString()).out(), "nothing to repair");
    }
}
