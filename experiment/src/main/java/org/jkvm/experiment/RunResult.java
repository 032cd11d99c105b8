package org.jkvm.experiment;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of one run, one line of the results log.
 *
 * @param id          the run's id ({@link Run#id})
 * @param variant     the variant's name
 * @param workload    the workload's label
 * @param repetition  as in {@link Run}
 * @param warmup      a warm-up run (not reported)
 * @param value       the guest's number: the mean over the VMs of the run; NaN when the run failed
 * @param unit        as the guest printed it, or "" when failed
 * @param better      which way is better, as the guest printed it; null when failed
 * @param wallSeconds from starting the VM(s) to the last one ending
 * @param started     when the run started, or null
 * @param vmValues    each VM's number (one entry per VM)
 * @param host        host statistics, opaque to the report: e.g. exits, steal_ns, pvlock_calls,
 *                    preempted_transitions, ms_to_ready (a runner flattens nested counts into dotted keys)
 * @param error       why the run failed (guest panic, timeout, no RESULT line), or null
 * @param kernels     which kernels produced the result: "host" (the release of the kernel jkvm ran
 *                    on) and "guest" (the release the guest Image's banner names); empty when unknown
 * @param kvm         KVM's statistics over the run or its workload, or null (an older log, a run that
 *                    failed before its VMs ended)
 * @param guest       the guests' own counters over their workload, or null (an older log or initramfs,
 *                    a run that failed before its VMs ended)
 * @param placement   where the run's threads were put ({@link ExperimentSpec#placement}: the vCPUs' host
 *                    CPUs, and the rest of jkvm's where it was pinned); empty when unknown (an older log)
 */
public record RunResult(String id, String variant, String workload, int repetition, boolean warmup,
                        double value, String unit, Direction better, double wallSeconds, Instant started,
                        List<Double> vmValues, Map<String, Number> host, String error, Map<String, String> kernels,
                        RunKvmStats kvm, RunGuestStats guest, Map<String, String> placement) {

    /** A {@link #placement} key: the host CPUs of the run's vCPU threads. */
    public static final String PLACEMENT_PIN = "pin";

    /** A {@link #placement} key: the host CPUs of the rest of jkvm in the run, absent where it was not pinned. */
    public static final String PLACEMENT_VMM_PIN = "vmm_pin";

    public RunResult {
        Objects.requireNonNull(id, "id");
        unit = unit == null ? "" : unit;
        vmValues = List.copyOf(vmValues == null ? List.of() : vmValues);
        host = host == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(host));
        kernels = kernels == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(kernels));
        placement = placement == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(placement));
    }

    /** This result, recording the kernels that produced it. */
    public RunResult withKernels(Map<String, String> k) {
        return new RunResult(id, variant, workload, repetition, warmup, value, unit, better, wallSeconds, started,
                vmValues, host, error, k, kvm, guest, placement);
    }

    /** This result, carrying KVM's statistics of its run. */
    public RunResult withKvm(RunKvmStats k) {
        return new RunResult(id, variant, workload, repetition, warmup, value, unit, better, wallSeconds, started,
                vmValues, host, error, kernels, k, guest, placement);
    }

    /** This result, carrying the guests' own counters of its run. */
    public RunResult withGuest(RunGuestStats g) {
        return new RunResult(id, variant, workload, repetition, warmup, value, unit, better, wallSeconds, started,
                vmValues, host, error, kernels, kvm, g, placement);
    }

    /** This result, recording where its threads ran. */
    public RunResult withPlacement(Map<String, String> p) {
        return new RunResult(id, variant, workload, repetition, warmup, value, unit, better, wallSeconds, started,
                vmValues, host, error, kernels, kvm, guest, p);
    }

    /**
     * A successful run: one guest result per VM (the value is their mean). The results must all be
     * for the run's workload and agree on unit and direction; otherwise the run is recorded as failed.
     */
    public static RunResult of(Run run, List<GuestResult> perVm, double wallSeconds, Instant started,
                               Map<String, ? extends Number> host) {
        if (perVm.isEmpty()) return failed(run, "no RESULT line", wallSeconds, started, host);
        GuestResult first = perVm.getFirst();
        List<Double> values = new ArrayList<>();
        double sum = 0;
        for (GuestResult g : perVm) {
            if (!g.workload().equals(run.workload().name())) {
                return failed(run, "the guest reported workload " + g.workload() + ", not " + run.workload().name(),
                        wallSeconds, started, host);
            }
            if (!g.unit().equals(first.unit()) || g.better() != first.better()) {
                return failed(run, "the VMs disagree on the unit or direction", wallSeconds, started, host);
            }
            values.add(g.value());
            sum += g.value();
        }
        return new RunResult(run.id(), run.variant().name(), run.workload().label(), run.repetition(), run.warmup(),
                sum / values.size(), first.unit(), first.better(), wallSeconds, started, values, copy(host), null, Map.of(), null, null, Map.of());
    }

    /** A failed run. */
    public static RunResult failed(Run run, String error, double wallSeconds, Instant started,
                                   Map<String, ? extends Number> host) {
        return new RunResult(run.id(), run.variant().name(), run.workload().label(), run.repetition(), run.warmup(),
                Double.NaN, "", null, wallSeconds, started, List.of(), copy(host), Objects.requireNonNull(error), Map.of(), null, null, Map.of());
    }

    private static Map<String, Number> copy(Map<String, ? extends Number> m) {
        return m == null ? Map.of() : new LinkedHashMap<>(m);
    }

    /** A measured number to report: not failed, finite. */
    public boolean ok() {
        return error == null && Double.isFinite(value);
    }
}
