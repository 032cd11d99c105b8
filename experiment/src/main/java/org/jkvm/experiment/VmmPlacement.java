package org.jkvm.experiment;

import java.util.BitSet;
import java.util.Map;

import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.kvm.HostCpus;
import org.jkvm.vmm.config.CpuSet;

/**
 * Puts the rest of jkvm (the JVM's threads, devices, the PV-lock thread) where each run's variant
 * says before the run's threads start: onto its {@code vmm_pin}, or back onto the CPUs the process
 * had at the start where the variant has none. A spec in which no variant pins it leaves the
 * process alone. The vCPU threads leave the process's CPUs for their variant's pin as they start.
 */
public final class VmmPlacement {
    private final ExperimentSpec spec;
    private final BitSet start;

    /**
     * A placement for {@code spec}'s runs.
     *
     * @param spec  the experiment whose variants say where the rest of jkvm goes
     * @param start the CPUs the process may use before any run ({@link HostCpus#currentAffinity}
     *              read before the first placement): where an unpinned variant's runs go back to
     */
    public VmmPlacement(ExperimentSpec spec, BitSet start) {
        this.spec = spec;
        this.start = (BitSet) start.clone();
    }

    /**
     * Places the process for a run of {@code v}; returns where the run's threads go, as its result
     * records it ({@link ExperimentSpec#placement}).
     */
    public Map<String, String> place(Variant v) {
        if (spec.placesVmm()) {
            BitSet vmm = spec.vmmPinSet(v);
            BitSet cpus = vmm != null ? vmm : start;
            try {
                HostCpus.pinProcess(cpus);
            } catch (RuntimeException e) {
                throw new IllegalStateException("placing the rest of jkvm on host CPUs " + CpuSet.format(cpus) + " for variant "
                        + v.name() + (vmm != null ? " (its vmm_pin)" : " (where the process started)") + ": " + e.getMessage(), e);
            }
        }
        return spec.placement(v);
    }
}
