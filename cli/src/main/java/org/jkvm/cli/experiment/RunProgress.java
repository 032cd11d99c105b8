package org.jkvm.cli.experiment;

import java.io.PrintWriter;

import org.jkvm.experiment.ExperimentRunner;
import org.jkvm.experiment.Run;
import org.jkvm.experiment.RunResult;

/** One status line per run: a bar, counts and an estimate of the time left. */
final class RunProgress {
    private static final int WIDTH = 30;
    private final PrintWriter err;
    private final int total;
    private final long startNanos = System.nanoTime();
    private final int doneAtStart;
    private final int toRunHere;
    private int done;
    private int failed;

    RunProgress(PrintWriter err, int total, int done, int toRunHere) {
        this.err = err;
        this.total = total;
        this.doneAtStart = done;
        this.done = done;
        this.toRunHere = toRunHere;
    }

    void starting(Run r) {
        err.printf("%s %d/%d %s %s%s%n", bar(), done, total, r.variant().name(), r.workload().label(),
                r.warmup() ? " (warm-up)" : " #" + r.repetition());
        err.flush();
    }

    void finished(RunResult r) {
        done++;
        if (!r.ok()) {
            failed++;
            err.println("  failed: " + r.error());
        }
        long ranHere = done - doneAtStart;
        long perRun = (System.nanoTime() - startNanos) / Math.max(1, ranHere);
        long etaSeconds = perRun * (toRunHere - ranHere) / 1_000_000_000L;
        Number ready = r.host().get(ExperimentRunner.READY_MS);
        err.printf("  %s %.1f s%s%s; %d failed; about %d min %d s left%n", r.ok() ? "done in" : "after", r.wallSeconds(),
                ready == null ? "" : String.format(" (ready after %.1f s)", ready.longValue() / 1000.0),
                r.ok() ? ", " + r.value() + " " + r.unit() : "", failed, etaSeconds / 60, etaSeconds % 60);
        err.flush();
    }

    private String bar() {
        int filled = total == 0 ? WIDTH : done * WIDTH / total;
        return "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "]";
    }
}
