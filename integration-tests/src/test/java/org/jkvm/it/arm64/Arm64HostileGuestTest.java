package org.jkvm.it.arm64;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guest is untrusted: guest/hostile's modes, each run by jkvm in the emulated host (one
 * boot for all), show what a user sees when a guest storms unmapped MMIO addresses (also with
 * accesses KVM cannot decode), calls random SMCCC ids with random arguments over HVC and SMC,
 * writes garbage over the PV-lock and steal-time structures and over its device tree, misuses
 * PSCI, turns every CPU off, or spins with interrupts masked: jkvm answers, counts it in
 * {@code --stats-json}, ends when the guest powers off, stops on SIGTERM within 2 s however the
 * guest behaves, and a second VM started meanwhile on the same host runs as usual. The host's
 * output is kept in target/Arm64HostileGuestTest.out.
 */
@Tag("arm64")
class Arm64HostileGuestTest {
    /**
     * jkvm as ./jkvm starts it: native access, the serial GC, and a class-data archive the first
     * run makes and later ones map (under TCG it cuts start-up and the exit path about threefold).
     */
    private static final String JKVM = "java --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC"
            + " -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=/tmp/jkvm.jsa -Xlog:cds=off -Xlog:cds+dynamic=off"
            + " -jar jkvm.jar";
    private static final long SIGTERM_LIMIT_MS = 2000;
    /** How long a guest that never ends runs before the SIGTERM: its storm, and jkvm's JIT, under way. */
    private static final int STORM_SECONDS = 8;
    /** SIGTERM to exit when the statistics are written too: a bound that only catches a hang. */
    private static final long STATS_LIMIT_MS = 30_000;
    private static final String PRELUDE = "JKVM='" + JKVM + "'; "
            + "H=\"$JKVM run --kernel hostile.img --memory 64M\"; "
            + "now() { cut -d' ' -f1 /proc/uptime; }; "
            // waits (at most 300 s) until file $1 holds $2
            + "waitfor() { i=0; while ! grep -q \"$2\" \"$1\" 2>/dev/null; do i=$((i+1)); [ $i -gt 1500 ] && return 1;"
            + " sleep 0.2; done; }; "
            // SIGTERM to pid $2 (a job of this shell): how long until it exited, and its status
            + "sigterm() { t0=$(now); kill -TERM $2; wait $2; rc=$?; t1=$(now);"
            + " echo \"SIGTERM $1 rc=$rc ms=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf \"%d\", (b - a) * 1000 }')\"; }; "
            + "second() { $JKVM run --kernel probe.img --memory 64M --cpus 2 --timeout 600 --cmdline probe.seconds=1"
            + " > second.out 2>&1; echo \"SECOND rc=$?\"; cat second.out; }; ";

    @Test
    void nothingAGuestDoesCrashesOrWedgesJkvm() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        Path hostile = Path.of(BuildScript.output("guest/hostile/build", "JKVM_HOSTILE"));
        Path probe = Path.of(BuildScript.output("guest/pvlock-probe/build", "JKVM_PVLOCK_PROBE"));
        Steps steps = new Steps()
                .step("warm", "$H --cpus 2 --timeout 600 --cmdline hostile.mode=calm --stats-json warm.json")
                .step("mmio", finite("mmio", 2, "hostile.count=2000", ""))
                .step("nisv", finite("nisv", 2, "hostile.count=100", ""))
                .step("hvc", finite("hvc", 2, "hostile.count=2000", "--pvlock userspace"))
                .step("pvlock", finite("pvlock", 2, "hostile.count=4", "--pvlock userspace"))
                .step("dtb", finite("dtb", 1, "", ""))
                .step("psci", finite("psci", 5, "", ""))
                .step("cpuoff_timeout", "$H --cpus 2 --timeout 10 --cmdline hostile.mode=cpuoff")
                .step("term_mmio", endless("mmio", true, ""))
                .step("term_nisv", endless("nisv", false, ""))
                .step("term_hvc", endless("hvc", false, ""))
                .step("term_spin", endless("spin", true, ""))
                .step("term_cpuoff", endless("cpuoff", false, ""))
                .step("term_stats", endless("mmio", false, "--stats-json term.json") + "; cat term.json");
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(40), PRELUDE + steps.script(),
                List.of(hostile, probe));
        Files.writeString(Path.of("target", getClass().getSimpleName() + ".out"), r.output());
        assertEquals(0, r.exitCode(), "the emulated host itself failed:\n" + r.output());
        Map<String, Steps.Step> out = Steps.parse(r.output());

        Steps.Step warm = Steps.require(out, "warm");
        assertEquals(0, warm.exitCode(), warm.output());
        assertTrue(warm.output().contains("HOSTILE done mode=calm"), warm.output());

        // Every access to an unmapped address is one stray access, reads see 0, the guest goes on.
        Steps.Step mmio = Steps.require(out, "mmio");
        assertEquals(0, mmio.exitCode(), mmio.output());
        Totals m = Totals.of(mmio.output());
        assertEquals(4000, m.ops(), mmio.output());
        assertEquals(0, m.odd() + m.exceptions(), "reads that were not 0, or exceptions:\n" + mmio.output());
        assertEquals(m.ops(), number(mmio, "stray_mmio"), mmio.output());
        // With --stats-json the vCPUs time their exits: each run splits into the guest's time and jkvm's.
        assertTrue(sum(mmio, "ms_in_kvm_run") > 0, "no time inside KVM_RUN:\n" + mmio.output());
        assertTrue(sum(mmio, "ms_outside") > 0, "no time outside KVM_RUN:\n" + mmio.output());

        // Accesses KVM cannot decode: each one a data abort for the guest, counted; the VM goes on.
        Steps.Step nisv = Steps.require(out, "nisv");
        assertEquals(0, nisv.exitCode(), nisv.output());
        Totals n = Totals.of(nisv.output());
        assertEquals(600, n.ops(), nisv.output());
        assertEquals(n.ops(), n.aborts(), "each undecodable access must be a data abort:\n" + nisv.output());
        assertEquals(n.ops(), number(nisv, "undecodable_mmio"), nisv.output());

        // Random ids and arguments: every answer as for an honest call; jkvm saw only the two ids
        // its PV-lock device owns (the SMCCC filter), and answered each of them.
        Steps.Step hvc = Steps.require(out, "hvc");
        assertEquals(0, hvc.exitCode(), hvc.output());
        Totals h = Totals.of(hvc.output());
        assertEquals(4000, h.ops(), hvc.output());
        assertEquals(0, h.odd(), "answers that differ from an honest call's:\n" + hvc.output());
        assertEquals(0, number(hvc, "unknown_hypercalls"), hvc.output());
        assertEquals(h.pvCalls(), sum(hvc, "hypercall"), hvc.output());
        assertEquals(h.pvCalls(), sum(hvc, "feature_calls") + sum(hvc, "pvlock_calls"), hvc.output());

        Steps.Step pv = Steps.require(out, "pvlock");
        assertEquals(0, pv.exitCode(), pv.output());
        assertTrue(pv.output().contains("pvlock=0xa100000 again=same"), pv.output());
        assertTrue(pv.output().contains("pvlock=0xa100040 again=same"), pv.output());
        assertTrue(Totals.of(pv.output()).ops() >= 2 * 4 * 8192, pv.output());
        assertEquals("userspace", text(pv, "mode"), pv.output());

        Steps.Step dtb = Steps.require(out, "dtb");
        assertEquals(0, dtb.exitCode(), dtb.output());
        assertTrue(dtb.output().contains("HOSTILE dtb at=0x43e00000 bytes=2097152 passes=1"), dtb.output());

        // Three vCPUs left in abort loops that never leave KVM; SYSTEM_OFF from a fourth ends the VM.
        Steps.Step psci = Steps.require(out, "psci");
        assertEquals(0, psci.exitCode(), psci.output());
        assertTrue(psci.output().contains("HOSTILE psci on_self=-4 on_absent=-2 on_unmapped_entry=0 on_again=-4"
                + " on_mmio_entry=0 on_past_ipa_entry=0"), psci.output());
        assertEquals("poweroff", text(psci, "outcome"), psci.output());

        // Every CPU off: nothing will ever power the VM off; the timeout still ends it.
        Steps.Step off = Steps.require(out, "cpuoff_timeout");
        assertEquals(5, off.exitCode(), off.output());
        assertTrue(off.output().contains("HOSTILE cpuoff all cpus going off"), off.output());

        // However the guest behaves, SIGTERM ends jkvm within 2 s, with its report.
        for (String mode : List.of("mmio", "nisv", "hvc", "spin", "cpuoff")) {
            Steps.Step t = Steps.require(out, "term_" + mode);
            assertTrue(sigtermMillis(t, mode) < SIGTERM_LIMIT_MS, mode + ": SIGTERM took too long:\n" + t.output());
            assertTrue(t.output().contains("jkvm: stopped by SIGTERM after"), t.output());
        }
        assertTrue(Steps.require(out, "term_mmio").output().contains("accesses to unmapped addresses"));
        // With --stats-json the statistics are written after the stop: that takes longer the first
        // time the JSON writer runs in a JVM (Jackson's start-up, several seconds under TCG).
        Steps.Step ts = Steps.require(out, "term_stats");
        assertTrue(sigtermMillis(ts, "mmio") < STATS_LIMIT_MS, ts.output());
        assertEquals("stopped", text(ts, "outcome"), ts.output());
        assertTrue(number(ts, "stray_mmio") > 0, ts.output());

        // A second VM beside the storm and beside two vCPUs spinning with interrupts masked.
        for (String mode : List.of("mmio", "spin")) {
            String o = Steps.require(out, "term_" + mode).output();
            assertTrue(o.contains("SECOND rc=0"), mode + ":\n" + o);
            assertTrue(o.contains("PVPROBE cpu=1 uid=ok"), mode + ":\n" + o);
            assertTrue(o.contains("PVPROBE done"), mode + ":\n" + o);
        }
    }

    /** A mode that ends by itself: its console, jkvm's status, then its statistics. */
    private static String finite(String mode, int cpus, String args, String options) {
        return "$H --cpus " + cpus + " --timeout 600 " + options + " --cmdline 'hostile.mode=" + mode + " " + args
                + "' --stats-json " + mode + ".json; rc=$?; cat " + mode + ".json; exit $rc";
    }

    /**
     * A mode that never ends, run with jkvm {@code options}: started in the background, SIGTERM
     * once it is under way (and, with {@code second}, once a second VM has run beside it), then
     * its output.
     */
    private static String endless(String mode, boolean second, String options) {
        String f = "term-" + mode;
        return "$H --cpus 2 --timeout 600 " + options + " --cmdline 'hostile.mode=" + mode + " hostile.count=0' > " + f
                + ".out 2>&1 & pid=$!; "
                + "waitfor " + f + ".out 'HOSTILE started' || { cat " + f + ".out; kill -KILL $pid; exit 1; }; "
                + (second ? "second; " : "") + "sleep " + STORM_SECONDS + "; sigterm " + mode + " $pid; cat " + f + ".out";
    }

    /** How long the step's SIGTERM took to end jkvm, which must have exited with 143. */
    private static long sigtermMillis(Steps.Step step, String mode) {
        Matcher s = Pattern.compile("SIGTERM " + mode + " rc=(\\d+) ms=(\\d+)").matcher(step.output());
        assertTrue(s.find(), step.output());
        assertEquals(143, Integer.parseInt(s.group(1)), step.output());
        return Long.parseLong(s.group(2));
    }

    /** The first number named {@code key} in the statistics a step printed ({@code --stats-json}, pretty). */
    private static long number(Steps.Step step, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": (-?\\d+)").matcher(step.output());
        assertTrue(m.find(), "no " + key + " in:\n" + step.output());
        return Long.parseLong(m.group(1));
    }

    /** The sum of every number named {@code key} in the statistics a step printed (one per vCPU). */
    private static long sum(Steps.Step step, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": (\\d+)").matcher(step.output());
        long total = 0;
        while (m.find()) total += Long.parseLong(m.group(1));
        return total;
    }

    /** The first string named {@code key} in the statistics a step printed. */
    private static String text(Steps.Step step, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": \"([^\"]*)\"").matcher(step.output());
        assertTrue(m.find(), "no " + key + " in:\n" + step.output());
        return m.group(1);
    }

    /** The guest's {@code HOSTILE total} line. */
    private record Totals(long ops, long pvCalls, long odd, long exceptions, long aborts) {
        static Totals of(String out) {
            Matcher m = Pattern.compile("HOSTILE total ops=(\\d+) pv_calls=(\\d+) odd=(\\d+) exceptions=(\\d+) aborts=(\\d+)")
                    .matcher(out);
            assertTrue(m.find(), "no HOSTILE total line:\n" + out);
            return new Totals(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                    Long.parseLong(m.group(4)), Long.parseLong(m.group(5)));
        }
    }
}
