package org.jkvm.experiment;

import java.util.Optional;

import org.jkvm.experiment.ExperimentSpec.Workload;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A command workload's result: stress-ng's bogo ops/s (real time) from its metrics table, after a command that exited with 0. */
@Tag("unit")
class StressNgMetricsTest {
    /** The shape of stress-ng 0.19's --metrics-brief output on jkvm-init's console, with a kernel message in between. */
    static final String CONSOLE = """
            JKVM-GUEST-READY cpus=4 kernel=6.12.117 debian=13.8
            stress-ng: info:  [201] setting to a 5 secs run per stressor
            stress-ng: info:  [201] dispatching hogs: 4 futex
            [    9.120000] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:
            stress-ng: metrc: [201] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s
            stress-ng: metrc: [201]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)
            stress-ng: metrc: [201] futex            169634      5.00      0.27      4.54     33925.46       35271.94
            stress-ng: info:  [201] skipped: 0
            stress-ng: info:  [201] passed: 4: futex (4)
            stress-ng: info:  [201] successful run completed in 5.01 secs
            JKVM-GUEST-CMD-EXIT 0
            """;

    private static final Workload FUTEX = new Workload(ExperimentSpec.COMMAND, "futex", 4, 5, false,
            "stress-ng --futex {workers} --timeout {seconds}s --metrics-brief");

    @Test
    void theResultIsTheRealTimeBogoOpsPerSecond() {
        GuestResult r = StressNgMetrics.result("command", CONSOLE).orElseThrow();
        assertEquals(new GuestResult("command", 33925.46, "bogo-ops/s", Direction.HIGHER), r);
    }

    @Test
    void severalStressorsAddUpAndOlderVersionsInfoRowsCount() {
        String console = """
                stress-ng: info:  [77] futex             1000     10.00      0.10      9.00       100.00         109.89
                stress-ng: info:  [77] sem               2500     10.00      1.00      8.00       250.50         277.78 extra
                stress-ng: info:  [77] futex             1000     10.00      0.10      9.00       100.00         109.89
                """;
        assertEquals(350.5, StressNgMetrics.result("command", console).orElseThrow().value(), 1e-9,
                "a stressor's row seen twice (a repeated console line) counts once");
    }

    @Test
    void headersAndOtherLinesAreNoResult() {
        assertEquals(Optional.empty(), StressNgMetrics.result("command", CONSOLE.lines()
                .filter(l -> !l.contains("169634")).reduce("", (a, b) -> a + b + "\n")));
        assertEquals(Optional.empty(), StressNgMetrics.result("command", "RESULT futex 5 ops/s higher\n"));
        assertEquals(Optional.empty(), StressNgMetrics.result("command", "stress-ng: metrc: [1] futex 12 5.00 x 1.0 2.0 3.0\n"));
    }

    @Test
    void theRunnerTakesTheMetricsOnlyFromACommandThatExitedWithZero() {
        assertEquals(33925.46, ExperimentRunner.guestResult(FUTEX, CONSOLE).orElseThrow().value());
        assertTrue(ExperimentRunner.guestResult(FUTEX, CONSOLE.replace("CMD-EXIT 0", "CMD-EXIT 2")).isEmpty());
        assertTrue(ExperimentRunner.guestResult(FUTEX, CONSOLE.replace("JKVM-GUEST-CMD-EXIT 0\n", "")).isEmpty());
        Workload cpu = new Workload("cpu", "cpu", 1, 1, false);
        assertTrue(ExperimentRunner.guestResult(cpu, CONSOLE).isEmpty(), "an initramfs workload needs its RESULT line");
        assertEquals(5.0, ExperimentRunner.guestResult(cpu, CONSOLE + "RESULT cpu 5 ops/s higher\n").orElseThrow().value());
    }
}
