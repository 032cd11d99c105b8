package org.jkvm.experiment;

import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.ExperimentSpec.Workload;

/**
 * One run of the matrix: one variant running one workload once (in {@code spec.vms()} VMs at once).
 *
 * @param id         stable name, {@code <workload label>/<variant>/<repetition>} or {@code .../w<k>} for a
 *                   warm-up: depends only on those three, not on the order or on how many runs there
 *                   are, so a results file stays valid when repetitions are added or the order changes
 * @param order      position in the matrix, from 0
 * @param variant    the configuration
 * @param workload   what the guest runs
 * @param repetition 1-based number among the measured runs of this cell, or of the warm-ups if {@code warmup}
 * @param warmup     a discarded run (it warms host caches and the page cache of the images)
 */
public record Run(String id, int order, Variant variant, Workload workload, int repetition, boolean warmup) {
    /** The id of a run, as {@link RunMatrix} makes them. */
    public static String id(String workloadLabel, String variantName, int repetition, boolean warmup) {
        return workloadLabel + "/" + variantName + "/" + (warmup ? "w" : "") + repetition;
    }
}
