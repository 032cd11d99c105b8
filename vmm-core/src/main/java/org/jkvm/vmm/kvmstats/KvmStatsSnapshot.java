package org.jkvm.vmm.kvmstats;

import java.util.List;

/**
 * One reading of a VM's KVM statistics: the VM's data block and each vCPU's, in vCPU order
 * (all empty where the statistics are unavailable).
 *
 * @param vm    the VM file's values
 * @param vcpus each vCPU file's values
 */
public record KvmStatsSnapshot(long[] vm, List<long[]> vcpus) {
    public KvmStatsSnapshot {
        vm = vm.clone();
        vcpus = vcpus.stream().map(long[]::clone).toList();
    }
}
