package org.jkvm.it.arm64;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.jkvm.experiment.Direction;
import org.jkvm.experiment.MedianInterval;
import org.jkvm.vmm.profile.Category;
import org.jkvm.vmm.profile.CategoryRules;
import org.jkvm.vmm.profile.FoldedLine;
import org.jkvm.vmm.profile.ProfileFiles;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.NodeList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jkvm run --profile} in the emulated arm64 host (one boot): a bare-metal guest whose
 * CPUs spin in known places (guest/hostile's spin mode: CPU 0 in {@code main}, the others in
 * {@code attack}, where the compiler inlined the spin loop) shows them on top, named from an
 * {@code nm} map (vCPU 0's thread also handles the guest's console output: that CPU shows as
 * {@code [jkvm]}); a Linux guest running a shell loop shows user time as {@code [user]}
 * and its kernel samples with their callers from the frame records (kernel PCs stay hex: the
 * Debian kernel's System.map is a stub); the project's kernel, named by its own System.map,
 * running a lock-heavy workload, which marks its window, gets a profile of that window without
 * the boot's samples, and over its whole run (in whole-run/) categories that match the rule
 * table applied to its folded stacks and a flame graph of them; an experiment whose one variant says
 * {@code "profile": "on"} leaves that variant's profile under {@code --out} and none for the
 * other; and the profiler's cost on a workload's throughput,
 * measured with and without {@code --profile} in interleaved runs.
 * The host's output is kept in target/Arm64ProfilerTest.out.
 */
@Tag("arm64")
class Arm64ProfilerTest {
    private static final String JKVM = "java --enable-native-access=ALL-UNNAMED -jar jkvm.jar";
    /** Pairs of cost runs, with and without --profile. */
    private static final int COST_PAIRS = 5;
    private static final Pattern RESULT = Pattern.compile("(?m)^RESULT syscall ([0-9.]+) ");
    private static final Pattern SAMPLE_COST = Pattern.compile("each cost its vCPU thread ([0-9.]+) us \\(median");

    @Test
    void spinningCpusShowTheirSymbolOnTopAndUserTimeShowsAsUser(@TempDir Path tmp) throws Exception {
        EmulatedArm64Host.requireOrSkip();
        List<Path> guest = GuestFixture.filesOrSkip();
        Path hostile = Path.of(BuildScript.output("guest/hostile/build", "JKVM_HOSTILE"));
        Path map = nmMap(hostile.resolveSibling("hostile.elf"));
        Path built = BuildScript.projectKernel();
        // the guest fixture's files have the same names: these go in as their own
        Path pvImage = Files.copy(built, tmp.resolve("pvImage"));
        Path pvMap = Files.copy(built.resolveSibling("System.map"), tmp.resolve("System.map"));
        Path workloads = Files.copy(Path.of(BuildScript.output("guest/workloads/build", "JKVM_WORKLOADS_INITRD", "--quiet")),
                tmp.resolve("workloads.cpio.gz"));
        String loop = "(while :; do :; done) & p=$!; sleep 15; kill $p";
        Steps steps = new Steps()
                .step("spin", JKVM + " run --kernel hostile.img --memory 64M --cpus 2 --timeout 15"
                        + " --cmdline 'hostile.mode=spin hostile.count=0' --profile=199 --symbols hostile.map"
                        + " --profile-out spin.d; rc=$?; echo FOLDED; cat spin.d/profile.folded; exit $rc")
                .step("linux", GuestFixture.jkvmRun("--cpus 2 --memory 512M --timeout 600 --profile --profile-out l.d",
                        GuestFixture.command(loop)) + "; rc=$?; echo FOLDED; cat l.d/profile.folded; exit $rc")
                .step("lock", JKVM + " run --kernel pvImage --initrd workloads.cpio.gz --cpus 2 --pin 0 --memory 512M"
                        + " --timeout 600 --profile --symbols System.map --profile-out lock.d --cmdline 'console=ttyS0 panic=-1 quiet"
                        + " jkvm.workload=mmap-shared jkvm.workers=4 jkvm.seconds=8'; rc=$?; echo CATEGORIES; cat lock.d/whole-run/categories.csv;"
                        + " echo FOLDED; cat lock.d/whole-run/profile.folded; echo SVG; gzip -c lock.d/whole-run/flame.svg | base64 -w0;"
                        + " echo; " + bootSamples("lock.d/profile.folded lock.d/whole-run/profile.folded") + "; exit $rc");
        Path spec = Files.writeString(tmp.resolve("prof.json"), """
                {
                  "name": "prof",
                  "guest": { "kernel": "pvImage", "initrd": "workloads.cpio.gz" },
                  "vcpus": 2, "memory": "256M", "pin": "0",
                  "workloads": [ { "name": "cpu", "workers": 2, "seconds": 2 } ],
                  "variants": [ { "name": "plain", "pvlock": "off" }, { "name": "sampled", "pvlock": "off", "profile": "on" } ],
                  "repetitions": 1
                }
                """);
        steps.step("experiment", "java -jar jkvm.jar experiment run prof.json --out pout && find pout/profiles -type f | sort"
                + " && grep -c '\"profile_hz\":99' prof.results.jsonl && grep '^all,' pout/profiles/cpu/sampled/1/categories.csv"
                + " && " + bootSamples("pout/profiles/cpu/sampled/1/profile.folded pout/profiles/cpu/sampled/1/whole-run/profile.folded"));
        for (int i = 0; i < 2 * COST_PAIRS; i++) {
            boolean on = i % 4 == 0 || i % 4 == 3; // on off off on: drift over the boot falls on both alike
            steps.step("cost-" + (on ? "on-" : "off-") + i, "java -jar jkvm.jar run --kernel Image --initrd workloads.cpio.gz"
                    + " --cpus 2 --memory 512M --timeout 600" + (on ? " --profile" : "")
                    + " --cmdline 'console=ttyS0 panic=-1 quiet jkvm.workload=syscall jkvm.workers=2 jkvm.seconds=5'");
        }
        List<Path> files = new ArrayList<>(guest);
        files.addAll(List.of(hostile, map, pvImage, pvMap, workloads, spec));
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(40), steps.script(), files);
        Files.writeString(Path.of("target", getClass().getSimpleName() + ".out"), r.output());
        assertEquals(0, r.exitCode(), "the emulated host itself failed:\n" + r.output());
        Map<String, Steps.Step> out = Steps.parse(r.output());

        Steps.Step spin = Steps.require(out, "spin");
        assertEquals(5, spin.exitCode(), "the spinning guest runs until --timeout:\n" + spin.output());
        assertTrue(spin.output().contains("KASLR offset 0x0 (VBAR_EL1 0x"), spin.output());
        String folded = spin.output().substring(spin.output().indexOf("FOLDED"));
        // vCPU 0 also prints: its thread's CPU in jkvm for those UART exits is [jkvm]; KVM's own part of
        // each exit (inside KVM_RUN) stays with the PC that exited (puts_)
        assertTrue(guestShare(folded, "vcpu0", "main") > 0.8, folded);
        assertTrue(guestShare(folded, "vcpu1", "attack") > 0.95, folded);
        assertEquals("attack", top(spin.output(), "vcpu 1"), spin.output());

        Steps.Step linux = Steps.require(out, "linux");
        assertEquals(0, linux.exitCode(), linux.output());
        Matcher user = Pattern.compile("jkvm: profile: +([\\d.]+)% +\\[[^]]*] +(\\d+) +\\[user]").matcher(
                linux.output().substring(linux.output().indexOf("all vCPUs:")));
        assertTrue(user.find(), "no [user] samples over all vCPUs:\n" + linux.output());
        assertTrue(Long.parseLong(user.group(2)) > 0, linux.output());
        // Kernel samples come with the callers their frame records name (the Debian kernel keeps frame pointers)
        String linuxFolded = linux.output().substring(linux.output().indexOf("FOLDED"));
        long kernel = 0;
        long withCallers = 0;
        for (Matcher m = Pattern.compile("(?m)^vcpu\\d+((?:;\\S+)+) (\\d+)$").matcher(linuxFolded); m.find(); ) {
            if (m.group(1).endsWith(";[user]") || m.group(1).endsWith(";[jkvm]")) continue;
            long n = Long.parseLong(m.group(2));
            kernel += n;
            if (m.group(1).chars().filter(c -> c == ';').count() >= 3) withCallers += n;
        }
        assertTrue(kernel > 0 && withCallers * 2 > kernel,
                withCallers + " of " + kernel + " kernel samples have two or more callers:\n" + linuxFolded);
        System.err.println(withCallers + " of " + kernel + " kernel samples have two or more callers; deepest stacks:\n"
                + linuxFolded.lines().sorted(Comparator.comparingLong(l -> -l.chars().filter(c -> c == ';').count()))
                        .limit(3).reduce("", (a, b) -> a + b + "\n"));
        System.err.println("profiles (emulated arm64 host):\n" + profileLines(spin.output()) + profileLines(linux.output()));

        Steps.Step lock = Steps.require(out, "lock");
        assertEquals(0, lock.exitCode(), lock.output());
        assertTrue(lock.output().contains("jkvm: profile: over the workload's window ("), lock.output());
        windowLeavesTheBootOut("jkvm run", lock.output(), "lock.d/" + ProfileFiles.FOLDED,
                "lock.d/" + ProfileFiles.WHOLE_RUN + "/" + ProfileFiles.FOLDED);
        categoriesFollowTheRules(lock.output());
        flameGraphDrawsTheFoldedStacks(lock.output());
        System.err.println("lock-heavy profile (project kernel, mmap-shared, 2 vCPUs on 1 host CPU):\n" + profileLines(lock.output()));

        Steps.Step experiment = Steps.require(out, "experiment");
        assertEquals(0, experiment.exitCode(), experiment.output());
        String run = "pout/profiles/cpu/sampled/1/";
        String whole = run + ProfileFiles.WHOLE_RUN + "/";
        assertTrue(experiment.output().contains(run + ProfileFiles.CATEGORIES + "\n" + run + ProfileFiles.FLAME_GRAPH + "\n"
                + run + ProfileFiles.FOLDED + "\n" + whole + ProfileFiles.CATEGORIES + "\n" + whole + ProfileFiles.FLAME_GRAPH + "\n"
                + whole + ProfileFiles.FOLDED + "\n1\n"),
                "the profiled variant's files (its workload window, and its whole run), none for the other, one result saying so:\n"
                        + experiment.output());
        assertTrue(Pattern.compile("(?m)^all,user,[1-9]").matcher(experiment.output()).find(), experiment.output());
        windowLeavesTheBootOut("experiment", experiment.output(), run + ProfileFiles.FOLDED, whole + ProfileFiles.FOLDED);

        cost(out);
    }

    /**
     * The workload window's profile holds fewer samples than the whole run's, none of them in the
     * guest's boot (unpacking the initramfs, kernel_init), which the whole run's has.
     */
    private static void windowLeavesTheBootOut(String who, String output, String window, String whole) {
        Matcher w = Pattern.compile("(?m)^" + Pattern.quote(window) + " (\\d+) (\\d+)$").matcher(output);
        Matcher r = Pattern.compile("(?m)^" + Pattern.quote(whole) + " (\\d+) (\\d+)$").matcher(output);
        assertTrue(w.find() && r.find(), "no sample counts of both profiles:\n" + output);
        long windowSamples = Long.parseLong(w.group(1));
        long wholeSamples = Long.parseLong(r.group(1));
        System.err.println(who + " profile: workload window " + windowSamples + " samples (" + w.group(2) + " in the boot), whole run "
                + wholeSamples + " (" + r.group(2) + " in the boot)");
        assertTrue(windowSamples > 0 && windowSamples < wholeSamples, output);
        assertEquals(0, Long.parseLong(w.group(2)), "the window's profile has boot samples:\n" + output);
        assertTrue(Long.parseLong(r.group(2)) > 0, "the whole run's profile has no boot samples:\n" + output);
    }

    /** A shell line printing, for each folded-stacks file, its samples and those in the guest's boot (initramfs, kernel_init). */
    private static String bootSamples(String files) {
        return "echo BOOT-SAMPLES && for f in " + files + "; do echo \"$f $(awk '{n += $NF} /kernel_init|do_populate_rootfs/"
                + " {b += $NF} END {print n + 0, b + 0}' $f)\"; done";
    }

    /** The categories file holds what the rule table makes of the folded stacks, and the real kernel's samples are named. */
    private static void categoriesFollowTheRules(String output) {
        String csv = between(output, "CATEGORIES\n", "FOLDED\n");
        Map<String, Long> expected = new TreeMap<>();
        long total = 0;
        for (String line : between(output, "FOLDED\n", "SVG\n").lines().filter(l -> l.startsWith("vcpu")).toList()) {
            FoldedLine f = FoldedLine.parse(line);
            Category c = CategoryRules.classify(f.frames().subList(1, f.frames().size()));
            expected.merge(c.label(), f.count(), Long::sum);
            total += f.count();
        }
        Map<String, Long> written = new TreeMap<>();
        for (String row : csv.lines().filter(l -> l.startsWith("all,")).toList()) {
            String[] col = row.split(",");
            if (Long.parseLong(col[2]) > 0) written.put(col[1], Long.parseLong(col[2]));
        }
        assertTrue(total > 0, output);
        assertEquals(expected, written, "categories.csv against the rules applied to profile.folded:\n" + csv);
        assertTrue(written.getOrDefault(Category.IDLE.label(), 0L) > 0, "the booting kernel idles, named by its System.map:\n" + csv);
        assertTrue(written.getOrDefault(Category.USER.label(), 0L) > 0, csv);
        assertTrue(output.contains("by category"), output);
    }

    /** flame.svg is a document of titled frames whose root counts every folded sample. */
    private static void flameGraphDrawsTheFoldedStacks(String output) throws Exception {
        long total = between(output, "FOLDED\n", "SVG\n").lines().filter(l -> l.startsWith("vcpu"))
                .mapToLong(l -> FoldedLine.parse(l).count()).sum();
        String b64 = output.substring(output.indexOf("SVG\n") + 4).lines().findFirst().orElseThrow().strip();
        byte[] svg;
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(b64)))) {
            svg = in.readAllBytes();
        }
        NodeList titles = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(svg))
                .getElementsByTagName("title");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < titles.getLength(); i++) names.add(titles.item(i).getTextContent());
        assertTrue(names.contains("all (" + total + " samples, 100.00%)"), names.subList(0, Math.min(5, names.size())).toString());
        assertTrue(names.stream().anyMatch(n -> n.startsWith("vcpu1 (")), "both vCPUs drawn");
        assertTrue(names.stream().anyMatch(n -> List.of("cpu_do_idle", "arch_cpu_idle", "default_idle_call", "do_idle")
                .contains(n.substring(0, n.indexOf(" (")))), "kernel frames by name");
        System.err.println("flame.svg: " + svg.length + " bytes, " + names.size() + " frames");
    }

    /** Throughput with --profile against without, over interleaved runs; and each sample's cost. */
    private static void cost(Map<String, Steps.Step> out) {
        List<Double> on = new ArrayList<>();
        List<Double> off = new ArrayList<>();
        List<Double> perSample = new ArrayList<>();
        for (Map.Entry<String, Steps.Step> e : out.entrySet()) {
            if (!e.getKey().startsWith("cost-")) continue;
            assertEquals(0, e.getValue().exitCode(), e.getValue().output());
            Matcher m = RESULT.matcher(e.getValue().output());
            assertTrue(m.find(), "no RESULT line:\n" + e.getValue().output());
            boolean profiled = e.getKey().startsWith("cost-on-");
            (profiled ? on : off).add(Double.parseDouble(m.group(1)));
            Matcher c = SAMPLE_COST.matcher(e.getValue().output());
            assertEquals(profiled, c.find(), e.getValue().output());
            if (profiled) perSample.add(Double.parseDouble(c.group(1)));
        }
        assertEquals(COST_PAIRS, on.size());
        assertEquals(COST_PAIRS, off.size());
        double[] a = off.stream().mapToDouble(Double::doubleValue).toArray();
        double[] b = on.stream().mapToDouble(Double::doubleValue).toArray();
        MedianInterval interval = MedianInterval.of(a, b, Direction.HIGHER);
        double ratio = median(b) / median(a);
        System.err.printf(Locale.ROOT, "profiler cost (syscall, 2 workers, 5 s, 2 vCPUs, 99 Hz, %d runs each, interleaved):"
                + " throughput with --profile %.3f of without (median ratio; 95%% bootstrap interval %.1f%%..%.1f%%, %s);"
                + " per sample %s us (each run's median); without %s, with %s%n", COST_PAIRS, ratio, interval.low(),
                interval.high(), interval.verdict(), perSample, off, on);
        // no bound on the ratio: it is a measurement (README states it), not a property; only that it was made
        assertTrue(Double.isFinite(interval.low()) && Double.isFinite(interval.high()), "no interval: " + on + " against " + off);
    }

    private static double median(double[] x) {
        double[] s = x.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static String between(String text, String from, String to) {
        int a = text.indexOf(from);
        int b = text.indexOf(to, a + 1);
        assertTrue(a >= 0 && b > a, "no '" + from.strip() + "' ... '" + to.strip() + "' in:\n" + text);
        return text.substring(a + from.length(), b);
    }

    /** The symbols of the bare-metal guest, as {@code nm} lists them. */
    private static Path nmMap(Path elf) throws Exception {
        Path map = Path.of("target", "hostile.map").toAbsolutePath();
        Process p = new ProcessBuilder("aarch64-linux-gnu-nm", elf.toString()).redirectOutput(map.toFile())
                .redirectErrorStream(false).start();
        assertEquals(0, p.waitFor(), "aarch64-linux-gnu-nm " + elf + " failed");
        return map;
    }

    /** The first symbol in a vCPU's top list. */
    private static String top(String output, String vcpu) {
        Matcher m = Pattern.compile("jkvm: profile: " + vcpu + ": .*\\n(?:.*\\n)*?jkvm: profile: +[\\d.]+% +\\[[^]]*] +\\d+ +(\\S+)")
                .matcher(output);
        assertTrue(m.find(), "no profile of " + vcpu + " in:\n" + output);
        return m.group(1);
    }

    /** A symbol's share of a vCPU's samples in the guest (all but [jkvm]), from folded stacks. */
    private static double guestShare(String folded, String vcpu, String symbol) {
        long of = 0;
        long guest = 0;
        for (Matcher m = Pattern.compile("(?m)^" + vcpu + ";(\\S+) (\\d+)$").matcher(folded); m.find(); ) {
            long n = Long.parseLong(m.group(2));
            if (!m.group(1).equals("[jkvm]")) guest += n;
            if (m.group(1).equals(symbol)) of += n;
        }
        assertTrue(guest > 0, "no guest samples of " + vcpu + " in:\n" + folded);
        return (double) of / guest;
    }

    private static String profileLines(String output) {
        StringBuilder b = new StringBuilder();
        output.lines().filter(l -> l.startsWith("jkvm: profile")).forEach(l -> b.append(l).append('\n'));
        return b.toString();
    }
}
