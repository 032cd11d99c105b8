package org.jkvm.vmm.kvmstats;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jkvm.kvm.Capability;
import org.jkvm.kvm.KvmException;
import org.jkvm.kvm.StatDescriptor;
import org.jkvm.kvm.StatsFd;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;

/**
 * The binary statistics files of one VM and its vCPUs, opened once. {@link #snapshot} reads
 * them all (at a run's or a workload window's edges); {@link #window} turns two readings into
 * what happened in between. A host without binary statistics gives empty readings and windows
 * that say why. Closing is idempotent.
 */
public final class KvmStatistics implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(KvmStatistics.class.getName());

    private final StatsFd vm;
    private final List<StatsFd> vcpus;
    private final String unavailable;

    private KvmStatistics(StatsFd vm, List<StatsFd> vcpus, String unavailable) {
        this.vm = vm;
        this.vcpus = List.copyOf(vcpus);
        this.unavailable = unavailable;
    }

    /** Opens the statistics of {@code vm} and of {@code vcpus} (in vCPU order), or records why it cannot. */
    public static KvmStatistics open(VmFd vm, List<VcpuFd> vcpus) {
        List<StatsFd> opened = new ArrayList<>();
        try {
            if (vm.check(Capability.BINARY_STATS_FD) <= 0) {
                return without("this host's KVM lacks KVM_CAP_BINARY_STATS_FD (binary statistics came with Linux 5.14)");
            }
            StatsFd vmStats = vm.statsFd();
            opened.add(vmStats);
            List<StatsFd> perVcpu = new ArrayList<>();
            for (VcpuFd v : vcpus) {
                StatsFd s = v.statsFd();
                opened.add(s);
                perVcpu.add(s);
            }
            return new KvmStatistics(vmStats, perVcpu, null);
        } catch (KvmException | IllegalStateException e) {
            opened.forEach(StatsFd::close);
            return without("reading KVM's binary statistics failed: " + e.getMessage());
        }
    }

    private static KvmStatistics without(String reason) {
        LOG.log(System.Logger.Level.INFO, "KVM statistics unavailable: {0}", reason);
        return new KvmStatistics(null, List.of(), reason);
    }

    /** Why there are no statistics; empty when there are. */
    public Optional<String> unavailable() {
        return Optional.ofNullable(unavailable);
    }

    /** Reads every file now. Safe from any thread while the VM runs. */
    public KvmStatsSnapshot snapshot() {
        if (vm == null) return new KvmStatsSnapshot(new long[0], List.of());
        return new KvmStatsSnapshot(vm.read(), vcpus.stream().map(StatsFd::read).toList());
    }

    /** What happened between two of this VM's snapshots. */
    public KvmStatsWindow window(KvmStatsSnapshot start, KvmStatsSnapshot end) {
        if (vm == null) return KvmStatsWindow.unavailable(unavailable);
        List<List<StatDescriptor>> perVcpu = vcpus.stream().map(StatsFd::descriptors).toList();
        return KvmStatsWindow.between(vm.descriptors(), perVcpu, start, end);
    }

    @Override
    public void close() {
        if (vm != null) vm.close();
        vcpus.forEach(StatsFd::close);
    }
}
