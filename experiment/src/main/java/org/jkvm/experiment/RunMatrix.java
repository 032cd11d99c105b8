package org.jkvm.experiment;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.ExperimentSpec.Workload;

/**
 * The runs of an experiment in the order to run them.
 *
 * <p>Order: rounds, first the {@code warmup} warm-up rounds then the {@code repetitions} measured
 * ones; each round runs every workload (spec order) under every variant, and the variants' order
 * is rotated by one each round (round r starts with variant r mod V). So repetitions of different
 * variants alternate in time instead of running as blocks: slow drift of the host (thermal state
 * and clock, page cache, memory fragmentation, noisy neighbours, time-of-day load on a cloud
 * host) then falls on every variant alike instead of on whichever block ran during it, and
 * the rotation keeps any carry-over from the previous run (caches a VM left warm or cold) from
 * always favouring the same variant. A stopped experiment also has every cell at about the same
 * number of repetitions.
 */
public final class RunMatrix {
    private final List<Run> runs;

    private RunMatrix(List<Run> runs) {
        this.runs = List.copyOf(runs);
    }

    /** The matrix of a spec. */
    public static RunMatrix of(ExperimentSpec spec) {
        List<Run> runs = new ArrayList<>();
        List<Variant> variants = spec.variants();
        int v = variants.size();
        int rounds = spec.warmup() + spec.repetitions();
        for (int round = 0; round < rounds; round++) {
            boolean warmup = round < spec.warmup();
            int repetition = warmup ? round + 1 : round - spec.warmup() + 1;
            for (Workload w : spec.workloads()) {
                for (int k = 0; k < v; k++) {
                    Variant variant = variants.get((round + k) % v);
                    runs.add(new Run(Run.id(w.label(), variant.name(), repetition, warmup), runs.size(), variant, w,
                            repetition, warmup));
                }
            }
        }
        return new RunMatrix(runs);
    }

    /** Every run, in order. */
    public List<Run> runs() {
        return runs;
    }

    /** The runs whose ids are not among {@code done}, in order: what is left to resume. */
    public List<Run> pending(Collection<String> done) {
        Set<String> d = done instanceof Set<String> s ? s : Set.copyOf(done);
        return runs.stream().filter(r -> !d.contains(r.id())).toList();
    }

    /** The run with this id, or null. */
    public Run run(String id) {
        for (Run r : runs) if (r.id().equals(id)) return r;
        return null;
    }

    public int size() {
        return runs.size();
    }
}
