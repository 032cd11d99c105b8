package org.jkvm.it.arm64;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A short real experiment inside the emulated arm64 host: 4 vCPUs pinned onto one host CPU and
 * the rest of jkvm onto the other, PV lock off against userspace on the project's guest kernel
 * (which makes the PV-lock calls, so the userspace tracker runs), two workloads, two repetitions
 * each; then the same command again, which finds nothing left to run and reports the same results.
 * Each result carries KVM's statistics and the guest's own counters over its workload's window,
 * each userspace one the tracker's switch-to-flag delays, and each (the spec says
 * {@code "preemptors": "on"}) who its vCPUs waited behind.
 */
@Tag("arm64")
class Arm64ExperimentTest {
    private static Path workloads;
    private static Path image;

    @BeforeAll
    static void host() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        image = GuestFixture.filesOrSkip().getFirst();
        workloads = Path.of(BuildScript.output("guest/workloads/build", "JKVM_WORKLOADS_INITRD", "--quiet"));
    }

    @Test
    void aTwoVariantExperimentRunsReportsAndResumes(@TempDir Path tmp) throws Exception {
        Path pvlockGuest = BuildScript.projectKernel();
        Path spec = writeSpec(tmp, "short", pvlockGuest.getFileName().toString(), workloads.getFileName().toString(), 4, """
                  "vmm_pin": "1",
                  "preemptors": "on",
                  "workloads": [
                    { "name": "mmap-shared", "workers": 4, "seconds": 2 },
                    { "name": "cpu", "workers": 4, "seconds": 2 }
                  ],
                  "variants": [ { "name": "off", "pvlock": "off" }, { "name": "user", "pvlock": "userspace" } ],
                  "repetitions": 2
                """);
        String run = "java -jar jkvm.jar experiment run short.json --out out";
        Map<String, Steps.Step> out = Steps.parse(EmulatedArm64Host.run("", Duration.ofMinutes(20), new Steps()
                // Once a userspace run's tracker is up (it starts at the guest's first PV-lock
                // call, once every vCPU thread runs, on that vCPU thread's CPU, and moves itself
                // first thing: up to 10 s left for that), where each of jkvm's threads may run.
                .step("first", run + " > first.out 2>&1 & j=$!;"
                        + " until tr=$(grep -lx pvlock-tracker /proc/$j/task/*/comm 2>/dev/null) || ! kill -0 $j 2>/dev/null;"
                        + " do sleep 0.2; done; i=0;"
                        + " while [ $i -lt 50 ] && grep -qx 'Cpus_allowed_list:[[:space:]]*0' ${tr%/comm}/status 2>/dev/null;"
                        + " do sleep 0.2; i=$((i + 1)); done; " + ThreadPlacement.listing("j")
                        + " wait $j; rc=$?; cat first.out; [ $rc = 0 ] || exit $rc;"
                        + " wc -l < short.results.jsonl && grep -c '<svg' out/chart.svg && head -n 1 out/results.csv"
                        + " && grep -o '\"ms_vcpus_waiting\":[0-9]*' short.results.jsonl"
                        + " && echo kvm-windows $(grep -c '\"kvm\":{\"window\":\"workload\"' short.results.jsonl)"
                        + " && echo kvm-mmio $(grep -c '\"mmio_exit_user\":[1-9]' short.results.jsonl)"
                        + " && echo guest-windows $(grep -c '\"guest\":{\"vms\":\\[{\"changes\":{\"uptime_cs\"' short.results.jsonl)"
                        + " && echo guest-steal $(grep -c '\"cpu.steal\":[1-9]' short.results.jsonl)"
                        + " && echo waited-behind-vcpus $(grep -c '\"ms_waited_behind_vcpus\":[1-9]' short.results.jsonl)"
                        + " && echo preemptor-windows $(grep -c '\"preemptors_over_workload\":1' short.results.jsonl)"
                        + " && { grep -o '\"preempted_pct_workload\":[0-9.E-]*' short.results.jsonl; true; }"
                        + " && echo placed $(grep -c '\"placement\":{\"pin\":\"0\",\"vmm_pin\":\"1\"}' short.results.jsonl)"
                        + " && echo flag-delays $(grep -c '\"flag_delay_switches\":[1-9]' short.results.jsonl)"
                        + " $(grep '\"variant\":\"user\"' short.results.jsonl | grep -c '\"flag_delay_us_mean\":[0-9]')"
                        + " && grep -o '\"flag_delay_us_[a-z0-9_]*\":[0-9.]*' short.results.jsonl"
                        + " && grep -o '\"wall_s\":[0-9.]*' short.results.jsonl && grep -o '\"ms_to_ready\":[0-9]*' short.results.jsonl")
                .step("again", run + " && wc -l < short.results.jsonl")
                .script(), List.of(pvlockGuest, workloads, spec)).output());

        Steps.Step first = out.get("first");
        assertTrue(first != null, out.keySet().toString());
        assertEquals(0, first.exitCode(), first.output());
        assertTrue(first.output().contains("8/8") || first.output().contains("mmap-shared"), first.output());
        assertTrue(Pattern.compile("(?m)^8$").matcher(first.output()).find(), "8 results:\n" + first.output());
        assertTrue(first.output().contains("Experiment short: 8 of 8 measured runs"), "the report:\n" + first.output());
        assertTrue(first.output().contains("the rest of jkvm (JVM, devices, PV-lock thread) on host CPUs 1"),
                "the report's vmm_pin:\n" + first.output());
        ThreadPlacement.assertPinned(first.output(), "0", "1", 4);
        assertTrue(first.output().contains("THREAD pvlock-tracker 1\n"), "the tracker on the CPU the vCPUs leave:\n" + first.output());
        // the 4 userspace runs, and only they, record how late the tracker's flags were; the report's table of them
        assertTrue(first.output().contains("flag-delays 4 4\n"), "the tracker's delays in each userspace run:\n" + first.output());
        assertTrue(first.output().contains("The userspace PV-lock tracker, in the measured runs that ran it"),
                "the report's tracker table:\n" + first.output());
        assertDelaysPlausible(first.output());
        assertTrue(first.output().contains("placed 8\n"), "every result records where its threads ran:\n" + first.output());
        // "preemptors": "on": 4 vCPUs on one host CPU wait behind each other in every run
        assertTrue(first.output().contains("waited-behind-vcpus 8\n"), "who the vCPUs waited behind, per run:\n" + first.output());
        assertTrue(first.output().contains("preemptor-windows 8\n"), "each over its workload's window:\n" + first.output());
        // PV lock off measures no flag; userspace mode's 4 busy vCPUs on one CPU wait preempted most of the workload
        Matcher flagged = Pattern.compile("\"preempted_pct_workload\":([0-9.E-]+)").matcher(first.output());
        int userRuns = 0;
        while (flagged.find()) {
            userRuns++;
            assertTrue(Double.parseDouble(flagged.group(1)) > 20, "4 busy vCPUs on one host CPU flagged " + flagged.group(1)
                    + "% of the workload:\n" + first.output());
        }
        assertEquals(4, userRuns, "a share in each userspace run, none in an off run:\n" + first.output());
        assertTrue(first.output().contains("How much of the workload the guest saw its vCPUs as preempted"),
                "the report's table of it:\n" + first.output());
        assertTrue(first.output().contains("Who the vCPUs waited behind, in the measured runs that told it"),
                "the report's table of it:\n" + first.output());
        assertTrue(first.output().contains("id,variant,workload"), "the CSV:\n" + first.output());
        assertTrue(!first.output().contains("failed: "), "a run failed:\n" + first.output());
        // 4 vCPUs on one host CPU: their threads wait for it (the guests' steal time)
        Matcher waits = Pattern.compile("\"ms_vcpus_waiting\":(\\d+)").matcher(first.output());
        int runs = 0;
        while (waits.find()) {
            runs++;
            assertTrue(Long.parseLong(waits.group(1)) > 100, "vCPU threads barely waited: " + waits.group());
        }
        assertEquals(8, runs, "a run-queue wait per run:\n" + first.output());
        // KVM's statistics over each workload's window, from the ready line to the RESULT line
        // (which the guest writes through the emulated UART: MMIO exits to jkvm inside the window)
        assertTrue(first.output().contains("kvm-windows 8\n"), "KVM statistics over the workload in every run:\n" + first.output());
        assertTrue(first.output().contains("kvm-mmio 8\n"), "MMIO exits counted in every run:\n" + first.output());
        // the guest's JKVM-GUEST-STATS lines around each workload; 4 vCPUs on one CPU: the guest saw time stolen
        assertTrue(first.output().contains("guest-windows 8\n"), "the guest's counters in every run:\n" + first.output());
        assertTrue(first.output().contains("guest-steal 8\n"), "steal time in every run's guest counters:\n" + first.output());
        assertTrue(first.output().contains("Workload     variant  steal %  run delay ms/s"), "the report's guest table:\n" + first.output());
        // each run's time to its guest's ready line: the set-up and the boot, within the run's wall time
        List<Double> walls = Pattern.compile("\"wall_s\":([0-9.]+)").matcher(first.output()).results()
                .map(m -> Double.parseDouble(m.group(1))).toList();
        List<Long> ready = Pattern.compile("\"ms_to_ready\":(\\d+)").matcher(first.output()).results()
                .map(m -> Long.parseLong(m.group(1))).toList();
        assertEquals(8, walls.size(), "a wall time per run:\n" + first.output());
        assertEquals(8, ready.size(), "a time to ready per run:\n" + first.output());
        for (int i = 0; i < 8; i++) {
            assertTrue(ready.get(i) > 500 && ready.get(i) < walls.get(i) * 1000 - 1500,
                    "a boot to the ready line of " + ready.get(i) + " ms in a run of " + walls.get(i) + " s (2 s of workload)");
        }
        assertTrue(first.output().contains("(ready after "), "the progress line's boot time:\n" + first.output());

        Steps.Step again = out.get("again");
        assertTrue(again != null, out.keySet().toString());
        assertEquals(0, again.exitCode(), again.output());
        assertTrue(Pattern.compile("(?m)^8$").matcher(again.output()).find(), "still 8 results:\n" + again.output());
        assertTrue(!again.output().contains("done in"), "nothing should run again:\n" + again.output());
        assertTrue(again.output().contains("The userspace PV-lock tracker, in the measured runs that ran it"),
                "the tracker table from the results read back:\n" + again.output());
        assertTrue(again.output().contains("Who the vCPUs waited behind, in the measured runs that told it"),
                "the preemptors table from the results read back:\n" + again.output());
    }

    /**
     * Each userspace run's delays as the results log holds them (mean, p99 bound, longest, in
     * that order): in microseconds, so a mean of at least 1 us (a wake-up and a write across CPUs
     * under emulation take longer), none above the longest, the longest under a minute (a run is shorter).
     */
    private static void assertDelaysPlausible(String output) {
        List<Double> figures = Pattern.compile("\"flag_delay_us_[a-z0-9_]+\":([0-9.]+)").matcher(output).results()
                .map(m -> Double.parseDouble(m.group(1))).toList();
        assertEquals(12, figures.size(), "three delay figures in each of the 4 userspace results:\n" + output);
        for (int i = 0; i < figures.size(); i += 3) {
            double mean = figures.get(i), p99 = figures.get(i + 1), max = figures.get(i + 2);
            assertTrue(mean >= 1 && mean <= max && p99 <= max && max < 60e6,
                    "delays in us: mean " + mean + ", p99 <= " + p99 + ", max " + max);
        }
    }

    /**
     * arm64-host/experiment from this machine: one host boot per set of host kernel arguments
     * (here plain and {@code kvm-arm.wfe_trap_policy=notrap}), each running only its variant; the
     * results come back into the local log and the report is written here; run again, it boots
     * nothing. The hosts have the CPUs {@code --smp} asks for: the rest of jkvm runs on a third.
     */
    @Test
    void theDriverBootsOneHostPerSetOfHostKernelArguments(@TempDir Path tmp) throws Exception {
        Path spec = writeSpec(tmp, "wfe", image.toString(), workloads.toString(), 2, """
                  "workloads": [ { "name": "cpu", "workers": 2, "seconds": 2 } ],
                  "variants": [
                    { "name": "trap", "pvlock": "off" },
                    { "name": "notrap", "pvlock": "off", "host_kernel_args": "kvm-arm.wfe_trap_policy=notrap" }
                  ],
                  "vmm_pin": "2",
                  "repetitions": 1
                """);
        Path driver = EmulatedArm64Host.repo().resolve("arm64-host/experiment");

        Driven first = drive(driver, spec, tmp.resolve("out"));
        assertEquals(0, first.exitCode(), first.output());
        assertTrue(first.output().contains("host boot for host kernel arguments 'none'"), first.output());
        assertTrue(first.output().contains("host boot for host kernel arguments 'kvm-arm.wfe_trap_policy=notrap'"), first.output());
        assertTrue(first.output().contains("skipping variant notrap here: it needs a host booted with 'kvm-arm.wfe_trap_policy=notrap'"),
                first.output());
        String secondBoot = first.output().substring(first.output().indexOf("arguments 'kvm-arm.wfe_trap_policy=notrap'"));
        assertTrue(secondBoot.contains("] 1/2 notrap cpu #1") && !secondBoot.contains(" trap cpu #1"),
                "the notrap host runs notrap only:\n" + secondBoot);
        List<String> results = Files.readAllLines(tmp.resolve("wfe.results.jsonl"));
        assertEquals(2, results.size(), String.join("\n", results));
        assertTrue(results.stream().allMatch(l -> l.contains("\"value\":") && !l.contains("\"value\":null")), String.join("\n", results));
        assertTrue(results.stream().allMatch(l -> l.contains("\"placement\":{\"pin\":\"0\",\"vmm_pin\":\"2\"}")),
                "each run had a host with a third CPU for the rest of jkvm:\n" + String.join("\n", results));
        assertTrue(Files.readString(tmp.resolve("out/report.txt")).contains("Experiment wfe: 2 of 2 measured runs"),
                Files.readString(tmp.resolve("out/report.txt")));
        assertTrue(Files.readString(tmp.resolve("out/chart.svg")).contains("<svg"));

        Driven again = drive(driver, spec, tmp.resolve("out"));
        assertEquals(0, again.exitCode(), again.output());
        assertTrue(!again.output().contains("host boot for"), "nothing left to boot a host for:\n" + again.output());
        assertEquals(2, Files.readAllLines(tmp.resolve("wfe.results.jsonl")).size());
    }

    private record Driven(int exitCode, String output) {}

    private static Driven drive(Path driver, Path spec, Path out) throws Exception {
        Process p = new ProcessBuilder(driver.toString(), "--out", out.toString(), "--timeout", "900", "--smp", "3", spec.toString())
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.MINUTES), "arm64-host/experiment did not finish");
        return new Driven(p.exitValue(), output);
    }

    /**
     * A spec of {@code vcpus} vCPUs pinned onto host CPU 0, 256M; {@code rest} holds workloads,
     * variants, repetitions and any other top-level field (vmm_pin).
     */
    private static Path writeSpec(Path dir, String name, String kernel, String initrd, int vcpus, String rest) throws Exception {
        Path spec = dir.resolve(name + ".json");
        Files.writeString(spec, """
                {
                  "name": "%s",
                  "guest": { "kernel": "%s", "initrd": "%s" },
                  "vcpus": %d,
                  "memory": "256M",
                  "pin": "0",
                %s}
                """.formatted(name, kernel, initrd, vcpus, rest));
        return spec;
    }
}
