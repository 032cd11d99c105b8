package org.jkvm.it.arm64;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jkvm run --profile} in the emulated arm64 host (one boot): a bare-metal guest whose
 * CPUs spin in known places (guest/hostile's spin mode: CPU 0 in {@code main}, the others in
 * {@code attack}, where the compiler inlined the spin loop) shows them on top, named from an
 * {@code nm} map (vCPU 0's thread also handles the guest's console output: that CPU shows as
 * {@code [jkvm]}); and a Linux guest running a shell loop shows user time as {@code [user]}
 * and its kernel samples with their callers from the frame records (kernel PCs stay hex: the
 * Debian kernel's System.map is a stub).
 * The host's output is kept in target/Arm64ProfilerTest.out.
 */
@Tag("arm64")
class Arm64ProfilerTest {
    private static final String JKVM = "java --enable-native-access=ALL-UNNAMED -jar jkvm.jar";

    @Test
    void spinningCpusShowTheirSymbolOnTopAndUserTimeShowsAsUser() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        List<Path> guest = GuestFixture.filesOrSkip();
        Path hostile = Path.of(BuildScript.output("guest/hostile/build", "JKVM_HOSTILE"));
        Path map = nmMap(hostile.resolveSibling("hostile.elf"));
        String loop = "(while :; do :; done) & p=$!; sleep 15; kill $p";
        Steps steps = new Steps()
                .step("spin", JKVM + " run --kernel hostile.img --memory 64M --cpus 2 --timeout 15"
                        + " --cmdline 'hostile.mode=spin hostile.count=0' --profile=199 --symbols hostile.map"
                        + " --profile-out spin.folded; rc=$?; echo FOLDED; cat spin.folded; exit $rc")
                .step("linux", GuestFixture.jkvmRun("--cpus 2 --memory 512M --timeout 600 --profile --profile-out l.folded",
                        GuestFixture.command(loop)) + "; rc=$?; echo FOLDED; cat l.folded; exit $rc");
        List<Path> files = new ArrayList<>(guest);
        files.addAll(List.of(hostile, map));
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(15), steps.script(), files);
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
