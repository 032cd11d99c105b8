package org.jkvm.it.arm64;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jkvm run --preemptors} in the emulated host: 4 busy vCPUs pinned onto host CPU 0 beside
 * a shell loop hogging it. Each vCPU waits behind the other three and the hog, and the tally
 * says so: both kinds charged, the hog by its name, the shares adding up to the whole wait; with
 * {@code --vmm-pin 1} no thread of jkvm's own is charged. The guest marks its workload, so the
 * run also prints the tally over that window alone: part of the whole run's, seconds of waiting.
 */
@Tag("arm64")
class Arm64PreemptorsTest {
    private static final Pattern HEAD = Pattern.compile(
            "jkvm: preemptors: (\\d+) preemptions of vCPU threads on host CPUs 0, ([0-9.]+) s waited behind:");
    private static final Pattern WINDOW_HEAD = Pattern.compile(
            "jkvm: preemptors over the workload: (\\d+) preemptions of vCPU threads on host CPUs 0, ([0-9.]+) s waited behind:");
    private static final Pattern WORKLOAD = Pattern.compile("jkvm: workload: ([0-9.]+) s from the guest's ready line to its result");
    private static final Pattern ACCOUNT = Pattern.compile("jkvm: workload: the vCPUs ran ([0-9.]+)% of their time in it and"
            + " waited for a CPU ([0-9.]+)%; their (\\d+) host CPUs? idle ([0-9.]+)%");
    private static final Pattern ROW = Pattern.compile(
            "jkvm:   (vcpu|vmm|other|idle|)\\s+(.+?)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)%\\s+(\\d+)");
    private static Path image;
    private static Path workloads;

    @BeforeAll
    static void host() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        image = GuestFixture.filesOrSkip().getFirst();
        workloads = Path.of(BuildScript.output("guest/workloads/build", "JKVM_WORKLOADS_INITRD", "--quiet"));
    }

    private record Row(String kind, String who, int tasks, double seconds, double share, long cameNext) {}

    @Test
    void theOtherVcpusAndTheHogAreChargedWithTheWaitAndJkvmOnlyWhereItMayRun() throws Exception {
        String run = "java -jar jkvm.jar run --kernel " + image.getFileName() + " --initrd " + workloads.getFileName()
                + " --cpus 4 --pin 0 --memory 512M --timeout 300 --pvlock off --preemptors"
                + " --cmdline 'console=ttyS0 panic=-1 quiet jkvm.workload=cpu jkvm.workers=4 jkvm.seconds=4'";
        String hog = "taskset -c 0 sh -c 'while :; do :; done' & h=$!; ";
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(12), new Steps()
                .step("hog", hog + run + "; rc=$?; kill $h; exit $rc")
                .step("vmm-pin", hog + run + " --vmm-pin 1; rc=$?; kill $h; exit $rc")
                .script(), List.of(image, workloads));
        assertEquals(0, r.exitCode(), "the emulated host failed:\n" + r.output());
        Map<String, Steps.Step> steps = Steps.parse(r.output());
        for (String name : List.of("hog", "vmm-pin")) {
            Steps.Step step = Steps.require(steps, name);
            assertEquals(0, step.exitCode(), step.output());
            step.output().lines().filter(l -> l.startsWith("jkvm: preemptors") || l.startsWith("jkvm:   ") || l.startsWith("jkvm: workload"))
                    .forEach(l -> System.err.println("preemptors, " + name + ": " + l));
            List<Row> rows = rows(step);
            Row vcpus = rows.stream().filter(row -> row.kind().equals("vcpu")).findFirst()
                    .orElseThrow(() -> new AssertionError(name + ": the other vCPUs are not charged: " + rows));
            assertEquals(new Row("vcpu", "vCPUs of this VM", 4, vcpus.seconds(), vcpus.share(), vcpus.cameNext()), vcpus);
            assertTrue(vcpus.share() >= 30, name + ": the other vCPUs hold each one off most (measured: 60%): " + rows);
            Row sh = rows.stream().filter(row -> row.kind().equals("other") && row.who().equals("sh")).findFirst()
                    .orElseThrow(() -> new AssertionError(name + ": the hog (sh) is not charged: " + rows));
            assertTrue(sh.share() >= 5 && sh.cameNext() > 0, name + ": the hog takes its turn (measured: 39.5%): " + sh);
            double sum = rows.stream().mapToDouble(Row::share).sum();
            assertEquals(100, sum, 1.5, name + ": the rows (the top ones and the rest's sum) are the whole wait: " + rows);

            Matcher whole = HEAD.matcher(step.output());
            Matcher window = WINDOW_HEAD.matcher(step.output());
            Matcher workload = WORKLOAD.matcher(step.output());
            assertTrue(whole.find() && window.find() && workload.find(), name + ": no workload window:\n" + step.output());
            double seconds = Double.parseDouble(workload.group(1));
            assertTrue(seconds >= 3.5 && seconds < 60, name + ": a 4 s workload's window lasted " + seconds + " s");
            assertTrue(Long.parseLong(window.group(1)) <= Long.parseLong(whole.group(1))
                    && Double.parseDouble(window.group(2)) <= Double.parseDouble(whole.group(2)),
                    name + ": the window is part of the run: " + window.group() + " against " + whole.group());
            assertTrue(Double.parseDouble(window.group(2)) > 1, name + ": 4 busy vCPUs and a hog for 4 s on one CPU wait seconds: "
                    + window.group());
            Matcher account = ACCOUNT.matcher(step.output());
            assertTrue(account.find(), name + ": no account of the window:\n" + step.output());
            // five busy tasks on one CPU: a vCPU runs a fifth of the time at most and waits most of it; the CPU never idles
            assertTrue(Double.parseDouble(account.group(1)) <= 30 && Double.parseDouble(account.group(2)) >= 50,
                    name + ": " + account.group());
            assertEquals("1", account.group(3), name + ": the vCPUs' CPUs are --pin's: " + account.group());
            assertTrue(Double.parseDouble(account.group(4)) < 10, name + ": " + account.group());
        }
        // With the rest of jkvm on CPU 1, none of its threads runs where the vCPUs wait.
        double jkvm = rows(Steps.require(steps, "vmm-pin")).stream().filter(row -> row.kind().equals("vmm"))
                .mapToDouble(Row::share).sum();
        assertTrue(jkvm < 1, "jkvm's own threads charged " + jkvm + "% of the wait under --vmm-pin 1");
    }

    private static List<Row> rows(Steps.Step step) {
        Matcher head = HEAD.matcher(step.output());
        assertTrue(head.find(), "no preemptors line:\n" + step.output());
        assertTrue(Long.parseLong(head.group(1)) >= 50, "4 busy vCPUs and a hog on one CPU: " + head.group());
        double waited = Double.parseDouble(head.group(2));
        assertTrue(waited > 1, "4 busy vCPUs for 4 s on one CPU wait seconds, not " + waited + " s");
        List<Row> rows = new ArrayList<>();
        // the whole run's table: up to the workload window's, which follows it
        String output = step.output();
        int windowAt = output.indexOf("jkvm: preemptors over the workload");
        Matcher m = ROW.matcher(windowAt < 0 ? output : output.substring(0, windowAt));
        while (m.find()) {
            rows.add(new Row(m.group(1), m.group(2), Integer.parseInt(m.group(3)), Double.parseDouble(m.group(4)),
                    Double.parseDouble(m.group(5)), Long.parseLong(m.group(6))));
        }
        return rows;
    }
}
