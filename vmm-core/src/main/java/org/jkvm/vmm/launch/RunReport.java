package org.jkvm.vmm.launch;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import org.jkvm.kvm.ExitReason;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.kvmstats.KvmStatsWindow;
import org.jkvm.vmm.vcpu.VcpuStats;

/**
 * What one VM's run came to, as every front end reports it.
 *
 * @param outcome           how the guest ended
 * @param setup             building the VM (memory, vCPUs, GIC, payload)
 * @param ran               from starting the vCPUs to the last one stopping
 * @param vcpus             each vCPU's counters, in id order
 * @param strayMmio         guest accesses to addresses no device owns
 * @param unknownHypercalls guest calls of function ids KVM forwarded and no device owns
 * @param stealTimeRegion   where the steal-time structures sit, if the guest had them
 * @param cpuFeatures       the optional CPU features the vCPUs had, by {@code --cpu}'s names
 * @param hostKernel        this host's kernel release
 * @param guestKernel       the release the guest kernel's banner names, if it has one
 * @param kvm               KVM's own statistics from starting the vCPUs to the last one stopping
 */
public record RunReport(VmOutcome outcome, Duration setup, Duration ran, List<VcpuStats> vcpus, long strayMmio,
                        long unknownHypercalls, OptionalLong stealTimeRegion, List<String> cpuFeatures, String hostKernel,
                        Optional<String> guestKernel, KvmStatsWindow kvm) {
    public RunReport {
        vcpus = List.copyOf(vcpus);
        cpuFeatures = List.copyOf(cpuFeatures);
    }

    /** Exits of all vCPUs. */
    public long exits() {
        return vcpus.stream().mapToLong(VcpuStats::totalExits).sum();
    }

    /** Guest accesses outside RAM that KVM could not decode, answered with a data abort (arm64 NISV exits). */
    public long undecodableMmio() {
        return vcpus.stream().mapToLong(v -> v.exits(ExitReason.ARM_NISV)).sum();
    }
}
