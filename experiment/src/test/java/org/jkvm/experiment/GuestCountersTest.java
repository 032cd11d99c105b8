package org.jkvm.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The guest's JKVM-GUEST-STATS lines, as a real guest printed them, and their changes over the window. */
@Tag("unit")
class GuestCountersTest {
    /** A whole console of the workloads initramfs: Debian's 6.12 arm64 kernel under QEMU TCG, -smp 2, pipe-ctxsw. */
    static String tcgConsole() throws IOException {
        return console("tcg-debian-6.12.117.log");
    }

    /** The same initramfs on the project's kernel (kernel/build --with-pvlock: LOCK_EVENT_COUNTS), file-shared. */
    static String pvlockKernelConsole() throws IOException {
        return console("tcg-jkvm-pvlock-6.12.117.log");
    }

    static String console(String name) throws IOException {
        try (InputStream in = GuestCountersTest.class.getResourceAsStream("GuestCountersTest/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static String line(String console, String edge) {
        return console.lines().filter(l -> l.startsWith(GuestCounters.MARKER + " " + edge)).findFirst().orElseThrow();
    }

    @Test
    void aRealLineFlattensToNamedCounters() throws IOException {
        GuestCounters start = GuestCounters.parse(line(tcgConsole(), "start")).orElseThrow();
        assertEquals(GuestCounters.START, start.edge());
        Map<String, Long> c = start.counters();
        assertEquals(780L, c.get("uptime_cs"));
        assertEquals(484L, c.get("cpu.system"));
        assertEquals(0L, c.get("cpu.steal"));
        assertEquals(1L, c.get("cpu0.user"));
        assertEquals(147L, c.get("cpu1.idle"));
        assertEquals(8979068627L, c.get("run_delay_ns"));
        assertEquals(137L, c.get(GuestFigures.RESCHED));
        assertEquals(464L, c.get("irq.Function call interrupts"));
        assertEquals(1836L, c.get("irq.arch_timer"));
        assertTrue(c.keySet().stream().noneMatch(k -> k.startsWith("lock.")), "Debian's kernel has no lock_event_counts");
    }

    @Test
    void theWindowIsTheChangeFromStartToEnd() throws IOException {
        RunGuestStats.Vm v = RunGuestStats.Vm.fromConsole(tcgConsole());
        assertNull(v.unavailable());
        assertEquals(367L, v.change("uptime_cs"));
        assertEquals(36L, v.change("cpu.user"));
        assertEquals(312L, v.change("cpu.system"));
        assertEquals(3574962108L, v.change("run_delay_ns"));
        assertEquals(18L, v.change(GuestFigures.RESCHED));
        assertEquals(952L, v.change("irq.arch_timer"));
        assertEquals(0L, v.change("cpu.steal"));
        assertTrue(!v.changes().containsKey("cpu.steal") && !v.changes().containsKey("irq.Err"), "what did not change is left out");
    }

    @Test
    void theProjectKernelsLockEventsComeAlong() throws IOException {
        GuestCounters start = GuestCounters.parse(line(pvlockKernelConsole(), "start")).orElseThrow();
        assertEquals(42L, start.counters().get("lock.lock_pending"));
        assertEquals(0L, start.counters().get("lock.rwsem_sleep_writer"));
        RunGuestStats.Vm v = RunGuestStats.Vm.fromConsole(pvlockKernelConsole());
        assertNull(v.unavailable());
        // file-shared: every create and unlink takes the one directory's i_rwsem for writing
        assertEquals(6L, v.change("lock.rwsem_sleep_writer"));
        assertEquals(176L, v.change("lock.rwsem_wake_writer"));
        assertEquals(700L, v.change(GuestFigures.SPIN_SLOWPATH));
        assertEquals(338L, v.change("uptime_cs"));
        Run run = RunMatrix.of(RunMatrixTest.spec(1, 0)).runs().getFirst();
        RunResult r = ResultsTest.ok(run, 1599).withGuest(RunGuestStats.fromConsoles(List.of(pvlockKernelConsole())));
        assertEquals(700 / 3.38, GuestFigures.of(r, 3).orElseThrow().spinSlowpathsPerSecond(), 1e-9);
    }

    /**
     * {@code jkvm run} of pipe-ctxsw in the emulated arm64 host, the project kernel as the guest, 4 vCPUs
     * pinned onto one host CPU (its output, jkvm's lines included).
     */
    static String emulatedHostConsole() throws IOException {
        return console("jkvm-emulated-host-pvlock-4on1.log");
    }

    @Test
    void kernelRecordsThatCutALineAreTakenOut() throws IOException {
        String console = emulatedHostConsole();
        RunGuestStats.Vm whole = RunGuestStats.Vm.fromConsole(console);
        assertNull(whole.unavailable());
        assertEquals(932L, whole.change("uptime_cs"));
        assertEquals(2400L, whole.change("cpu.steal"), "4 vCPUs on one host CPU: most of their time stolen");
        // Another run of the same probe lost its end line to these two RCU stall records, which
        // the kernel printed into the middle of it, each in one piece: the same cut, made here
        String end = line(console, "end");
        int first = end.indexOf("\"rwsem_opt_nospin\"") + 7;
        int second = end.indexOf("\"rwsem_rlock\"") + 2;
        String cut = end.substring(0, first)
                + "[   57.710175] rcu: \t3-...!: (1 GPs behind) idle=2b9c/1/0x4000000000000002 softirq=220/221 fqs=3\r\n"
                + end.substring(first, second)
                + "[   58.362692] rcu: \t(detected by 3, t=5453 jiffies, g=-699, q=19 ncpus=4)\r\n"
                + end.substring(second);
        assertTrue(GuestCounters.parse(cut.lines().findFirst().orElseThrow()).isEmpty());
        assertEquals(whole, RunGuestStats.Vm.fromConsole(console.replace(end, cut)));
    }

    @Test
    void withoutAPairOrWithACutLineThereIsNoWindow() throws IOException {
        String console = tcgConsole();
        String end = line(console, "end");
        assertEquals("no JKVM-GUEST-STATS end line", RunGuestStats.Vm.fromConsole(console.replace(end, "")).unavailable());
        int at = end.indexOf("\"cpus\"") + 12;
        String cut = console.replace(end, end.substring(0, at) + "\nrcu: INFO: rcu_sched self-detected stall on CPU\n" + end.substring(at));
        assertEquals("no JKVM-GUEST-STATS end line", RunGuestStats.Vm.fromConsole(cut).unavailable());
        assertEquals("no JKVM-GUEST-STATS start line",
                RunGuestStats.Vm.fromConsole(console.replace(line(console, "start"), "")).unavailable());
        String reset = console.replace(end, end.replace("\"uptime_cs\":1147", "\"uptime_cs\":5"));
        assertEquals("uptime_cs went backwards (780 -> 5)", RunGuestStats.Vm.fromConsole(reset).unavailable());
        assertTrue(GuestCounters.parse("JKVM-GUEST-STATS start {\"cpu\":[1,2]}").isEmpty(), "a cpu line has ten fields");
        assertTrue(GuestCounters.parse("[ 3.2] x JKVM-GUEST-STATS end {\"uptime_cs\":5}").isPresent(), "kernel text may precede the marker");
    }

    @Test
    void aRunWithoutAnyLineHasNoGuestStatsAndOneWithThemKeepsThemInItsResultLine() throws IOException {
        assertNull(RunGuestStats.fromConsoles(List.of("JKVM-GUEST-READY cpus=2\nRESULT cpu 5 ops/s higher\n")));
        RunGuestStats g = RunGuestStats.fromConsoles(List.of(tcgConsole(), "JKVM-GUEST-READY cpus=2\n"));
        assertEquals(2, g.vms().size());
        assertEquals("no JKVM-GUEST-STATS start line", g.vms().get(1).unavailable());
        Run run = RunMatrix.of(RunMatrixTest.spec(1, 0)).runs().getFirst();
        RunResult r = ResultsTest.ok(run, 10, 20).withGuest(g);
        String json = ResultsLog.toJson(r);
        assertTrue(json.contains(",\"guest\":{\"vms\":[{\"changes\":{\"uptime_cs\":367,\"cpu.user\":36,"), json);
        assertTrue(json.endsWith("{\"unavailable\":\"no JKVM-GUEST-STATS start line\",\"changes\":{}}]}}"), json);
        assertEquals(r, ResultsLog.fromJson(json));
    }

    @Test
    void theFiguresOfARun() throws IOException {
        Run run = RunMatrix.of(RunMatrixTest.spec(1, 0)).runs().getFirst();
        RunResult r = ResultsTest.ok(run, 5064).withGuest(RunGuestStats.fromConsoles(List.of(tcgConsole())));
        GuestFigures f = GuestFigures.of(r, 3).orElseThrow();
        assertEquals(0.0, f.stealPercent());
        assertEquals(3574.962108 / 3.67, f.runDelayMsPerSecond(), 1e-9);
        assertEquals(3574962.108 / (5064 * 3), f.runDelayUsPerOp(), 1e-9);
        assertEquals(18 / 3.67, f.reschedPerSecond(), 1e-9);
        assertTrue(Double.isNaN(f.spinSlowpathsPerSecond()), "no lock events on this kernel");
        RunResult stolen = r.withGuest(new RunGuestStats(List.of(new RunGuestStats.Vm(null,
                Map.of("uptime_cs", 200L, "cpu.user", 150L, "cpu.idle", 200L, "cpu.steal", 50L, "lock.lock_pending", 3L)))));
        GuestFigures s = GuestFigures.of(stolen, 3).orElseThrow();
        assertEquals(12.5, s.stealPercent(), 1e-9);
        assertEquals(0.0, s.spinSlowpathsPerSecond(), "a kernel with lock events and no slow path in the window");
        assertTrue(Double.isNaN(s.runDelayMsPerSecond()), "no schedstat on this kernel");
        assertTrue(GuestFigures.of(r.withGuest(null), 3).isEmpty());
    }
}
