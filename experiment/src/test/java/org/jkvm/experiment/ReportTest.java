package org.jkvm.experiment;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import javax.xml.parsers.DocumentBuilderFactory;

import org.jkvm.experiment.Report.Cell;
import org.jkvm.experiment.Report.WorkloadReport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report from results: cells, % change, won back, warm-ups and failures left out; text and SVG. */
@Tag("unit")
class ReportTest {
    static final double EPS = 1e-9;

    static ExperimentSpec spec() {
        return spec("");
    }

    /** The spec of {@link #spec()} with {@code extraTop} (", key: value" pairs) at its top level. */
    static ExperimentSpec spec(String extraTop) {
        String text = """
                {"name": "rep", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 4, "pin": "0-1"%s,
                 "workloads": [{"name": "hackbench", "workers": 8, "seconds": 5}, {"name": "cpu", "workers": 4, "seconds": 5}],
                 "variants": [{"name": "base", "pvlock": "off"}, {"name": "pv", "pvlock": "userspace"},
                              {"name": "ref", "pvlock": "off", "pin": "0-3"}],
                 "reference": "ref", "repetitions": 3, "warmup": 1}
                """.formatted(extraTop);
        return ExperimentSpec.parse(text, Path.of("rep.json"), false, Map.of());
    }

    /** hackbench in seconds (lower is better), cpu in ops/s (higher is better). */
    static List<RunResult> results(ExperimentSpec spec) {
        return results(spec, r -> Map.of("exits", 5));
    }

    /** {@link #results(ExperimentSpec)} with each run's host figures from {@code host}. */
    static List<RunResult> results(ExperimentSpec spec, Function<Run, Map<String, Number>> host) {
        Map<String, double[]> values = Map.of(
                "hackbench/base", new double[] {20, 22, 24},
                "hackbench/pv", new double[] {14, 15, 19},
                "hackbench/ref", new double[] {10, 11, 12},
                "cpu/base", new double[] {100, 100, 100},
                "cpu/pv", new double[] {100, 101, 99},
                "cpu/ref", new double[] {100, 100, Double.NaN});
        List<RunResult> out = new ArrayList<>();
        for (Run r : RunMatrix.of(spec).runs()) {
            boolean lower = r.workload().name().equals("hackbench");
            double v = r.warmup() ? 1e6 : values.get(r.workload().label() + "/" + r.variant().name())[r.repetition() - 1];
            if (Double.isNaN(v)) {
                out.add(RunResult.failed(r, "timeout", 125, Instant.EPOCH, Map.of()));
            } else {
                out.add(RunResult.of(r, List.of(new GuestResult(r.workload().name(), v, lower ? "s" : "ops/s",
                        lower ? Direction.LOWER : Direction.HIGHER)), 10, Instant.EPOCH, host.apply(r)));
            }
        }
        return out;
    }

    @Test
    void cellsHoldTheHandComputedNumbers() {
        ExperimentSpec spec = spec();
        Report rep = Report.of(spec, results(spec));
        assertEquals(17, rep.measured());
        assertEquals(1, rep.failed());
        assertEquals(18, rep.expected());

        WorkloadReport hb = rep.workloads().getFirst();
        assertEquals("s", hb.unit());
        assertEquals(Direction.LOWER, hb.better());
        Cell base = hb.cell("base");
        assertEquals(22.0, base.stats().mean(), EPS);
        assertEquals(2.0, base.stats().stdev(), EPS);
        assertEquals(0.0, base.changeMean(), EPS);
        assertEquals(0.0, base.wonBackMean(), EPS);
        assertEquals(100.0, base.relMean(), EPS);
        Cell pv = hb.cell("pv");
        assertEquals(16.0, pv.stats().mean(), EPS);
        assertEquals(Math.sqrt(7), pv.stats().stdev(), EPS);
        assertEquals(15.0, pv.stats().median(), EPS);
        assertEquals((22 / 16.0 - 1) * 100, pv.changeMean(), EPS);    // +37.5%: less time is better
        assertEquals((22 / 15.0 - 1) * 100, pv.changeMedian(), EPS);  // +46.7%
        assertEquals((16 - 22) / (11 - 22.0) * 100, pv.wonBackMean(), EPS);   // 54.5%
        assertEquals((15 - 22) / (11 - 22.0) * 100, pv.wonBackMedian(), EPS); // 63.6%
        assertEquals(22 / 16.0 * 100, pv.relMean(), EPS);
        assertEquals(22 / 19.0 * 100, pv.relLow(), EPS);  // the slowest run
        assertEquals(22 / 14.0 * 100, pv.relHigh(), EPS); // the fastest run
        assertEquals(100.0, hb.cell("ref").wonBackMean(), EPS);

        WorkloadReport cpu = rep.workloads().get(1);
        assertEquals(Direction.HIGHER, cpu.better());
        assertEquals(0.0, cpu.cell("pv").changeMean(), EPS);
        assertTrue(Double.isNaN(cpu.cell("pv").wonBackMean()), "no overcommit cost on cpu: won back is undefined");
        assertEquals(2, cpu.cell("ref").stats().n());
        assertEquals(1, cpu.cell("ref").failed());

        assertEquals((Math.sqrt(22 / 16.0) - 1) * 100, rep.geomeanChange().get("pv"), 1e-9);
    }

    @Test
    void theHeaderSaysWhereTheRestOfJkvmRan() {
        ExperimentSpec spec = spec(", \"vmm_pin\": \"4-5\"");
        String text = Report.of(spec, results(spec)).text();
        assertTrue(text.contains("(overcommit 1.00x)\n  the rest of jkvm (JVM, devices, PV-lock thread) on host CPUs 4-5\nmean"), text);
    }

    @Test
    void aTrackOnlyVariantSaysItsGuestIsNotOfferedTheFlags() {
        ExperimentSpec spec = ExperimentSpec.parse("""
                {"name": "rep", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 4, "pin": "0",
                 "workloads": [{"name": "cpu", "workers": 4, "seconds": 5}],
                 "variants": [{"name": "off", "pvlock": "off"}, {"name": "sham", "pvlock": "track-only"}],
                 "repetitions": 1}
                """, Path.of("rep.json"), false, Map.of());
        String text = Report.of(spec, List.of()).text();
        assertTrue(text.contains("  sham: pvlock track-only (jkvm tracks and writes the flags; the guest is not offered them),"
                + " steal time on"), text);
        assertTrue(text.contains("  off [base]: pvlock off, steal time on"), text);
    }

    @Test
    void aVariantsOwnVmmPinIsOnItsLine() {
        ExperimentSpec spec = ExperimentSpec.parse("""
                {"name": "rep", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 4, "pin": "0", "vmm_pin": "1",
                 "workloads": [{"name": "cpu", "workers": 4, "seconds": 5}],
                 "variants": [{"name": "base", "pvlock": "off"}, {"name": "own", "pvlock": "off", "vmm_pin": "2-3"},
                              {"name": "ref", "pvlock": "off", "pin": "0-3", "vmm_pin": "none"}],
                 "repetitions": 1}
                """, Path.of("rep.json"), false, Map.of());
        String text = Report.of(spec, List.of()).text();
        assertTrue(text.contains("  base [base]: pvlock off, steal time on, 4 vCPUs on host CPUs 0 (overcommit 4.00x)\n"), text);
        assertTrue(text.contains("  own: pvlock off, steal time on, 4 vCPUs on host CPUs 0 (overcommit 4.00x), the rest of jkvm on host CPUs 2-3\n"), text);
        assertTrue(text.contains("  ref: pvlock off, steal time on, 4 vCPUs on host CPUs 0-3 (overcommit 1.00x), the rest of jkvm unpinned\n"), text);
    }

    @Test
    void resultsThatRanWithOtherPlacementsAreNoted() {
        ExperimentSpec spec = spec(", \"vmm_pin\": \"4-5\"");
        List<RunResult> results = new ArrayList<>();
        for (RunResult r : results(spec)) {
            Map<String, String> placed = spec.placement(spec.variant(r.variant()));
            if (r.variant().equals("pv") && r.repetition() <= 2) placed = Map.of("pin", "0-1");
            if (r.variant().equals("base") && r.repetition() == 3) placed = Map.of();
            results.add(r.withPlacement(placed));
        }
        Report rep = Report.of(spec, results);
        assertEquals(List.of("pv: 4 result(s) ran with vCPUs on host CPUs 0-1 and the rest of jkvm unpinned, the spec now says"
                + " vCPUs on host CPUs 0-1 and the rest of jkvm on 4-5"), rep.notes(),
                "two repetitions of two workloads; the base's results without a placement (an older log) pass");
        assertTrue(rep.text().contains("\nnote: pv: 4 result(s) ran with"), rep.text());
    }

    @Test
    void noResultsGiveNaNNotExceptions() {
        ExperimentSpec spec = spec();
        Report rep = Report.of(spec, List.of());
        assertEquals(0, rep.measured());
        Cell pv = rep.workloads().getFirst().cell("pv");
        assertEquals(0, pv.stats().n());
        assertTrue(Double.isNaN(pv.changeMean()) && Double.isNaN(pv.wonBackMean()) && Double.isNaN(pv.relMean()));
        String text = rep.text();
        assertTrue(text.contains("hackbench  ?     ?               n/a  n/a"), text);
        svgIsWellFormed(rep.svg());
    }

    @Test
    void textHasARowPerWorkloadAndTheSpread() {
        ExperimentSpec spec = spec();
        String text = Report.of(spec, results(spec)).text();
        assertTrue(text.startsWith("Experiment rep: 17 of 18 measured runs, 1 failed (left out)\n"), text);
        assertTrue(text.contains("  ref [reference]: pvlock off, steal time on, 4 vCPUs on host CPUs 0-3 (overcommit 1.00x)\nmean"), text);
        String[] lines = text.split("\n");
        assertEquals("Workload   unit   better   base (base)            pv  % mean  % median  won back           ref   % mean  % median  won back",
                find(lines, "Workload   unit"));
        assertEquals("hackbench  s      lower   22.00 ± 2.00  16.00 ± 2.65  +37.5%    +46.7%       55%  11.00 ± 1.00  +100.0%   +100.0%      100%",
                find(lines, "hackbench  s"));
        assertEquals("cpu        ops/s  higher   100.0 ± 0.0   100.0 ± 1.0   +0.0%     +0.0%       n/a   100.0 ± 0.0    +0.0%     +0.0%       n/a",
                find(lines, "cpu        ops/s"));
        assertEquals("geomean                                               +17.3%                                     +41.4%", find(lines, "geomean"));
        assertEquals("           pv           3  14.00   15.00  19.00   33.3%", find(lines, "           pv           3  14"));
        assertEquals("           ref      2 (1)  100.0   100.0  100.0    0.0%", find(lines, "           ref      2 (1)"));
    }

    @Test
    void theGuestsCountersAreAveragedPerCellAndShownWhereAnyRunHasThem() {
        ExperimentSpec spec = spec();
        String plain = Report.of(spec, results(spec)).text();
        assertTrue(!plain.contains("guests' own counters"), "no table without the counters");
        List<RunResult> withGuest = new ArrayList<>();
        for (RunResult r : results(spec)) {
            // cpu's pv runs (100, 101, 99 ops/s over 5 s): 10% stolen in the first, 30% in the others
            boolean pvCpu = r.id().startsWith("cpu/pv/");
            long steal = r.id().equals("cpu/pv/1") ? 10 : 30;
            withGuest.add(!pvCpu ? r : r.withGuest(new RunGuestStats(List.of(new RunGuestStats.Vm(null, Map.of(
                    "uptime_cs", 500L, "cpu.user", 90L - steal, "cpu.idle", 10L, "cpu.steal", steal,
                    "run_delay_ns", 1_000_000_000L, GuestFigures.RESCHED, 250L))))));
        }
        Report rep = Report.of(spec, withGuest);
        GuestFigures f = rep.workloads().get(1).cell("pv").guest();
        assertEquals(70.0 / 3, f.stealPercent(), EPS, "warm-up runs are left out");
        assertEquals(200.0, f.runDelayMsPerSecond(), EPS);
        assertEquals((1e6 / 500 + 1e6 / 505 + 1e6 / 495) / 3, f.runDelayUsPerOp(), EPS);
        assertEquals(50.0, f.reschedPerSecond(), EPS);
        assertNull(rep.workloads().get(1).cell("base").guest());
        String[] lines = rep.text().split("\n");
        assertEquals("Workload   variant  steal %  run delay ms/s  run delay us/op  resched/s  slowpath/s", find(lines, "Workload   variant  steal"));
        assertEquals("cpu        base         n/a             n/a              n/a        n/a         n/a", find(lines, "cpu        base         n/a"));
        assertEquals("           pv         23.33           200.0             2000      50.00         n/a", find(lines, "           pv         23"));
    }

    @Test
    void theTrackersDelaysAreSummedUpPerCellWithAnIntervalOfTheirMedian() {
        ExperimentSpec spec = spec();
        assertTrue(!Report.of(spec, results(spec)).text().contains("PV-lock tracker"), "no table where no run recorded delays");
        // hackbench's pv runs: means 100, 300, 200 us; the warm-up's 99999 us is left out
        double[] means = {100, 300, 200};
        Report rep = Report.of(spec, results(spec, r -> !r.id().startsWith("hackbench/pv/") ? Map.of("exits", 5)
                : r.warmup() ? delays(1, 99_999, 99_999, 99_999)
                : delays(10L * r.repetition(), means[r.repetition() - 1], 1000.0 * r.repetition(), 5000 + 2000.0 * r.repetition())));

        TrackerDelay.Summary t = rep.workloads().getFirst().cell("pv").tracker();
        assertEquals(3, t.runs());
        assertEquals(20, t.switches(), EPS);
        assertEquals(200, t.meanUs(), EPS);
        assertEquals(100, t.meanInterval().low(), EPS, "the median of 3 resampled means is 100 about a quarter of the time");
        assertEquals(300, t.meanInterval().high(), EPS);
        assertEquals(2000, t.p99BoundUs(), EPS);
        assertEquals(11_000, t.maxUs(), EPS, "the longest of any run");
        assertTrue(Double.isNaN(t.wakeups()), "results logged before wake-ups were counted have none");
        assertNull(rep.workloads().getFirst().cell("base").tracker());
        assertNull(rep.workloads().get(1).cell("pv").tracker());

        String[] lines = rep.text().split("\n");
        assertEquals("Workload   variant  runs  switches  delay mean us    95% interval  p99 <= us  max us",
                find(lines, "Workload   variant  runs"));
        assertEquals("hackbench  pv          3     20.00          200.0  [100.0, 300.0]       2000   11000",
                find(lines, "hackbench  pv          3"));
    }

    @Test
    void theTrackersWakeUpsGetAColumnWhereTheRunsCountedThem() {
        ExperimentSpec spec = spec();
        // hackbench's pv runs woke 900, 100, 300 times; the runs of an older log (no count) leave a dash
        long[] wakeups = {900, 100, 300};
        Report rep = Report.of(spec, results(spec, r -> r.id().startsWith("hackbench/pv/")
                ? withWakeups(delays(10, 100, 1000, 2000), wakeups[r.warmup() ? 0 : r.repetition() - 1])
                : r.id().startsWith("cpu/pv/") ? delays(10, 100, 1000, 2000) : Map.of("exits", 5)));
        assertEquals(300, rep.workloads().getFirst().cell("pv").tracker().wakeups(), EPS, "the median of the measured runs");
        assertEquals(List.of("Workload   variant  runs  switches  delay mean us    95% interval  p99 <= us  max us  wake-ups",
                "hackbench  pv          3     10.00          100.0  [100.0, 100.0]       1000    2000     300.0",
                "cpu        pv          3     10.00          100.0  [100.0, 100.0]       1000    2000         -"), trackerRows(rep));
    }

    @Test
    void droppedSwitchRecordsGetAColumnOnlyWhereARunLostSome() {
        ExperimentSpec spec = spec();
        // hackbench's pv runs lost 0, 40, 2 records (the warm-up's 1000 left out); cpu's counted none; none of an older log
        long[] dropped = {1000, 0, 40, 2};
        Report rep = Report.of(spec, results(spec, r -> r.id().startsWith("hackbench/pv/")
                ? withDropped(withWakeups(delays(10, 100, 1000, 2000), 5), dropped[r.warmup() ? 0 : r.repetition()])
                : r.id().startsWith("cpu/pv/") ? withDropped(withWakeups(delays(10, 100, 1000, 2000), 5), 0)
                : Map.of("exits", 5)));
        assertEquals(42, rep.workloads().getFirst().cell("pv").tracker().dropped(), "summed over the measured runs");
        assertEquals(2, rep.workloads().getFirst().cell("pv").tracker().ringsFull(), "runs 2 and 3 found a ring full once each");
        assertEquals(List.of("Workload   variant  runs  switches  delay mean us    95% interval  p99 <= us  max us  wake-ups  dropped"
                        + "  rings full",
                "hackbench  pv          3     10.00          100.0  [100.0, 100.0]       1000    2000     5.000       42           2",
                "cpu        pv          3     10.00          100.0  [100.0, 100.0]       1000    2000     5.000        0           0"),
                trackerRows(rep));
        assertTrue(rep.text().contains("dropped = switch records the kernel dropped"), rep.text());
        assertTrue(rep.text().contains("rings full = times the tracker found a vCPU thread's ring full"), rep.text());

        Report none = Report.of(spec, results(spec, r -> r.id().startsWith("hackbench/pv/")
                ? withDropped(withWakeups(delays(10, 100, 1000, 2000), 5), 0) : Map.of("exits", 5)));
        assertTrue(!none.text().contains("dropped"), "no column where no run lost a record: " + none.text());
        assertEquals(-1, Report.of(spec, results(spec, r -> r.id().startsWith("hackbench/pv/") ? delays(10, 100, 1000, 2000)
                : Map.of("exits", 5))).workloads().getFirst().cell("pv").tracker().dropped(), "an older log counted none");
    }

    @Test
    void aRingFoundFullWithNothingDroppedGetsItsOwnColumn() {
        ExperimentSpec spec = spec();
        // A tracker's last read found a ring full at the run's end: no record came after to carry the kernel's count.
        Report rep = Report.of(spec, results(spec, r -> r.id().startsWith("hackbench/pv/")
                ? withRingsFull(withDropped(withWakeups(delays(10, 100, 1000, 2000), 5), 0), r.repetition() == 1 ? 1 : 0)
                : r.id().startsWith("cpu/pv/") ? withWakeups(delays(10, 100, 1000, 2000), 5) : Map.of("exits", 5)));
        assertEquals(List.of("Workload   variant  runs  switches  delay mean us    95% interval  p99 <= us  max us  wake-ups  rings full",
                "hackbench  pv          3     10.00          100.0  [100.0, 100.0]       1000    2000     5.000           1",
                "cpu        pv          3     10.00          100.0  [100.0, 100.0]       1000    2000     5.000           -"),
                trackerRows(rep), "no dropped column, as none was counted; cpu's older log counted no ring");
    }

    @Test
    void theWaitsOfACellWhoseRingsDroppedRecordsAreToldShort() {
        ExperimentSpec spec = spec();
        double[][] ms = {{600, 300, 100}, {600, 0, 1400}, {1600, 200, 200}};
        Report none = Report.of(spec, results(spec, r -> !r.id().startsWith("cpu/base/") ? Map.of("exits", 5)
                : waited(100, 600, 300, 100, true)));
        assertTrue(!none.text().contains("rings full"), "no column where no run lost a record or found a ring full");

        // cpu's base runs 1 and 3 lost 7 and 0 records, found a ring full 1 and 2 times; run 2 is an older log; pv counted none
        long[][] gaps = {{7, 1}, {-1, -1}, {0, 2}};
        Report rep = Report.of(spec, results(spec, r -> r.warmup() ? Map.of("exits", 5)
                : r.id().startsWith("cpu/base/") ? withGaps(waited(100, ms[r.repetition() - 1][0], ms[r.repetition() - 1][1],
                        ms[r.repetition() - 1][2], true), gaps[r.repetition() - 1][0], gaps[r.repetition() - 1][1])
                : r.id().startsWith("cpu/pv/") ? withGaps(waited(100, 600, 300, 100, true), 0, 0)
                : Map.of("exits", 5)));
        WaitedBehind.Summary base = rep.workloads().get(1).cell("base").waited();
        assertEquals(List.of(7L, 3L), List.of(base.lost(), base.ringsFull()), "summed over the runs that counted them");
        String[] lines = rep.text().split("\n");
        assertEquals("Workload  variant  runs  preemptions  waited ms  95% interval  vCPUs %  jkvm %  other %      over  lost  rings full",
                find(lines, "Workload  variant  runs  pre"));
        assertEquals("cpu       base        3        100.0       2000  [1000, 2000]    60.00   10.00    10.00  workload     7           3",
                find(lines, "cpu       base"));
        assertTrue(find(lines, "          pv   ").endsWith("workload     0           0"), find(lines, "          pv   "));
        assertTrue(rep.text().contains("so the cell's waits are short"), rep.text());
    }

    @Test
    void aBatchingTrackersPeriodIsOnItsVariantsLine() {
        ExperimentSpec spec = ExperimentSpec.parse("""
                {"name": "rep", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 4, "pin": "0",
                 "workloads": [{"name": "cpu", "workers": 4, "seconds": 5}],
                 "variants": [{"name": "off", "pvlock": "off"}, {"name": "slow", "pvlock": "track-only", "pvlock_batch": 4}],
                 "repetitions": 1}
                """, Path.of("rep.json"), false, Map.of());
        String text = Report.of(spec, List.of()).text();
        assertTrue(text.contains("  slow: pvlock track-only (jkvm tracks and writes the flags; the guest is not offered them),"
                + " its tracker reading the switches every 4 ms, steal time on"), text);
        assertTrue(text.contains("  off [base]: pvlock off, steal time on"), text);
    }

    @Test
    void whoTheVcpusWaitedBehindIsSharedOutPerRunThenTheMedianTaken() {
        ExperimentSpec spec = spec();
        assertTrue(!Report.of(spec, results(spec)).text().contains("waited behind"), "no table where no run told it");
        // cpu's base runs: (vCPUs, jkvm, other) ms 600/300/100, 600/0/1400, 1600/200/200; the warm-up is left out
        double[][] ms = {{600, 300, 100}, {600, 0, 1400}, {1600, 200, 200}};
        Report rep = Report.of(spec, results(spec, r -> !r.id().startsWith("cpu/base/") ? Map.of("exits", 5)
                : r.warmup() ? waited(1, 9_999, 9_999, 9_999, true)
                : waited(100L * r.repetition(), ms[r.repetition() - 1][0], ms[r.repetition() - 1][1], ms[r.repetition() - 1][2],
                        r.repetition() != 2)));

        WaitedBehind.Summary w = rep.workloads().get(1).cell("base").waited();
        assertEquals(3, w.runs());
        assertEquals(2, w.overWorkload(), "run 2's results say nothing of a window: the whole run");
        assertEquals(200, w.preemptions(), EPS);
        assertEquals(2000, w.waitedMs(), EPS, "waits 1000, 2000, 2000 ms");
        assertEquals(new MedianInterval(1000, 2000), w.waitedInterval(), "a resampled median is one of the two");
        assertEquals(60, w.vcpusPct(), EPS, "shares 60, 30 and 80: the median of each run's own");
        assertEquals(10, w.vmmPct(), EPS);
        assertEquals(10, w.otherPct(), EPS, "shares 10, 70, 10");
        assertNull(rep.workloads().get(1).cell("pv").waited());
        assertNull(rep.workloads().getFirst().cell("base").waited());

        String[] lines = rep.text().split("\n");
        assertEquals("Workload  variant  runs  preemptions  waited ms  95% interval  vCPUs %  jkvm %  other %        over",
                find(lines, "Workload  variant  runs  pre"));
        assertEquals("cpu       base        3        200.0       2000  [1000, 2000]    60.00   10.00    10.00  2 workload",
                find(lines, "cpu       base        3"));
    }

    @Test
    void howMuchOfTheWorkloadTheVcpusWereFlaggedIsAMedianWithItsInterval() {
        ExperimentSpec spec = spec();
        assertTrue(!Report.of(spec, results(spec)).text().contains("saw its vCPUs as preempted"), "no table where no run told it");
        double[] pct = {10, 30, 20};
        Report rep = Report.of(spec, results(spec, r -> !r.id().startsWith("cpu/base/") ? Map.of("exits", 5)
                : r.warmup() ? Map.of(FlaggedShare.PCT, 99.0) : Map.of(FlaggedShare.PCT, pct[r.repetition() - 1])));

        FlaggedShare.Summary f = rep.workloads().get(1).cell("base").flagged();
        assertEquals(3, f.runs(), "the warm-up is left out");
        assertEquals(20, f.pct(), EPS);
        assertEquals(new MedianInterval(10, 30), f.interval(), "a resampled median of three is any of them");
        assertNull(rep.workloads().get(1).cell("pv").flagged());
        String[] lines = rep.text().split("\n");
        assertEquals("Workload  variant  runs  preempted %    95% interval", find(lines, "Workload  variant  runs  preempted"));
        assertEquals("cpu       base        3        20.00  [10.00, 30.00]", find(lines, "cpu       base        3"));
    }

    @Test
    void theWindowsAccountSharesOutTheCpusAndTheVcpusTimePerRunThenTakesTheMedian() {
        ExperimentSpec spec = spec();
        assertTrue(!Report.of(spec, results(spec)).text().contains("Where the workload's window went"), "no table where no run told it");
        long[] idleMs = {1000, 3000, 2000};
        // 5 s window on 2 CPUs (10 s) and 4 vCPUs (20 s): vCPUs ran 8 s, waited 2 s, were halted 2.5 s each
        List<RunResult> runs = results(spec, r -> !r.variant().name().equals("base") ? Map.of("exits", 5)
                : Map.of(WindowTimes.MS, 5000L, WindowTimes.ON_CPU, 8000L, WindowTimes.WAITING, 2000L,
                        WindowTimes.IDLE, r.warmup() ? 9000L : idleMs[r.repetition() - 1], WindowTimes.IDLE_CPUS, 2));
        Map<String, Object> halted = Map.of("halt_wait_ns", 2_500_000_000L);
        RunKvmStats kvm = new RunKvmStats(RunKvmStats.WORKLOAD, List.of(new RunKvmStats.Vm(null, Map.of(), List.of(halted, halted, halted, halted))));
        Report rep = Report.of(spec, runs.stream().map(r -> r.withKvm(kvm)).toList());

        WindowAccount.Summary cpu = rep.workloads().get(1).cell("base").account();
        assertEquals(3, cpu.runs(), "the warm-up is left out");
        assertEquals(0.2, cpu.cpusIdle(), EPS);
        assertEquals(new MedianInterval(0.1, 0.3), cpu.idleInterval());
        assertEquals(0.8, cpu.cpusOnVcpus(), EPS);
        assertEquals(0.4, cpu.vcpusRunning(), EPS);
        assertEquals(0.1, cpu.vcpusWaiting(), EPS);
        assertEquals(0.5, cpu.vcpusHalted(), EPS);
        assertEquals(16, cpu.cpuMsPerOp(), EPS, "8000 ms over 100 ops/s for 5 s");
        assertTrue(Double.isNaN(rep.workloads().get(0).cell("base").account().cpuMsPerOp()), "hackbench's seconds are no rate of operations");
        assertNull(rep.workloads().get(1).cell("pv").account());
        String[] lines = rep.text().split("\n");
        assertEquals("cpu        base        3        20.00  [10.00, 30.00]       80.00        40.00   10.00     50.00  [50.00, 50.00]"
                + "      16.00  [16.00, 16.00]", find(lines, "cpu        base        3"));
        assertTrue(find(lines, "hackbench  base        3").endsWith("  n/a             n/a"), "no CPU per operation for seconds");

        Report noHalts = Report.of(spec, runs);
        WindowAccount.Summary withoutKvm = noHalts.workloads().get(1).cell("base").account();
        assertTrue(Double.isNaN(withoutKvm.vcpusHalted()), "without KVM's statistics over the window, no halted share");
        assertEquals(0.4, withoutKvm.vcpusRunning(), EPS, "the threads' own times need no KVM statistics");
        assertEquals(0.1, withoutKvm.vcpusWaiting(), EPS);
    }

    @Test
    void variantsWhosePvLockThreadHadNoCpuOfItsOwnAreNoted() {
        ExperimentSpec spec = spec();
        Report rep = Report.of(spec, results(spec, r -> !r.variant().name().equals("pv") ? Map.of("exits", 5)
                : Map.of(PvLockThreadPlace.OWN_CPU, r.repetition() == 1 || r.warmup() ? 0 : 1)));
        assertEquals(List.of("pv: in 2 of 6 results the PV-lock thread (tracker or sampler) had no host CPU of its own, so its"
                + " wake-ups could preempt the vCPUs it measured; pin the vCPUs to fewer CPUs than jkvm has, or give vmm_pin"
                + " a CPU outside them"), rep.notes(), "repetition 1 of both workloads; the warm-ups are left out, base and ref record none");
        Report own = Report.of(spec, results(spec, r -> Map.of(PvLockThreadPlace.OWN_CPU, 1)));
        assertEquals(List.of(), own.notes(), "every thread had a CPU of its own");
    }

    /**
     * The host figures of a run whose vCPUs waited behind the VM's vCPUs, jkvm and the rest so many ms, over the
     * workload's window, or (without the key, as results recorded before the window existed) the whole run.
     */
    private static Map<String, Number> waited(long preemptions, double vcpusMs, double vmmMs, double otherMs, boolean workload) {
        Map<String, Number> m = new HashMap<>(Map.of(WaitedBehind.PREEMPTIONS, preemptions, WaitedBehind.VCPUS_MS, vcpusMs,
                WaitedBehind.VMM_MS, vmmMs, WaitedBehind.OTHER_MS, otherMs, WaitedBehind.LOST, 0));
        if (workload) m.put(WaitedBehind.OVER_WORKLOAD, 1);
        return m;
    }

    private static Map<String, Number> withWakeups(Map<String, Number> host, long wakeups) {
        Map<String, Number> m = new HashMap<>(host);
        m.put(TrackerDelay.WAKEUPS, wakeups);
        return m;
    }

    /** The tracker table's header and its rows of hackbench's and cpu's pv cells. */
    private static List<String> trackerRows(Report rep) {
        String[] lines = rep.text().split("\n");
        return List.of(find(lines, "Workload   variant  runs"), find(lines, "hackbench  pv          3"),
                find(lines, "cpu        pv          3"));
    }

    /** {@code host} with the preemptor tally's dropped records and full rings, or without either key where negative. */
    private static Map<String, Number> withGaps(Map<String, Number> host, long lost, long ringsFull) {
        Map<String, Number> m = new HashMap<>(host);
        m.remove(WaitedBehind.LOST);
        if (lost >= 0) m.put(WaitedBehind.LOST, lost);
        if (ringsFull >= 0) m.put(WaitedBehind.RINGS_FULL, ringsFull);
        return m;
    }

    private static Map<String, Number> withRingsFull(Map<String, Number> host, long ringsFull) {
        Map<String, Number> m = new HashMap<>(host);
        m.put(TrackerDelay.RINGS_FULL, ringsFull);
        return m;
    }

    private static Map<String, Number> withDropped(Map<String, Number> host, long dropped) {
        Map<String, Number> m = new HashMap<>(host);
        m.put(TrackerDelay.DROPPED, dropped);
        m.put(TrackerDelay.RINGS_FULL, dropped > 0 ? 1 : 0);
        return m;
    }

    /** The host figures of a run whose tracker read {@code switches} switches. */
    private static Map<String, Number> delays(long switches, double meanUs, double p99Us, double maxUs) {
        return Map.of(TrackerDelay.SWITCHES, switches, TrackerDelay.MEAN_US, meanUs, TrackerDelay.P99_BOUND_US, p99Us,
                TrackerDelay.MAX_US, maxUs);
    }

    @Test
    void svgHasABarPerCellAndALegend() throws Exception {
        ExperimentSpec spec = spec();
        String svg = Report.of(spec, results(spec)).svg();
        Document d = svgIsWellFormed(svg);
        // background + 3 legend squares + 6 bars
        assertEquals(1 + 3 + 6, d.getElementsByTagName("rect").getLength());
        assertTrue(svg.contains(">pv (2x)</text>"), svg);
        assertTrue(svg.contains(">ref (1x, reference)</text>"));
        assertTrue(svg.contains(">relative performance, base = 100</text>"));
        assertTrue(svg.contains(">+37.5%</text>"));
        assertTrue(svg.contains(">s, lower is better</text>"));
    }

    static String find(String[] lines, String start) {
        for (String l : lines) if (l.startsWith(start)) return l;
        throw new AssertionError("no line starting " + start);
    }

    static Document svgIsWellFormed(String svg) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            Document d = f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
            assertEquals("svg", d.getDocumentElement().getLocalName());
            return d;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
