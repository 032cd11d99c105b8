package org.jkvm.vmm.kvmstats;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.jkvm.kvm.StatDescriptor;

/**
 * KVM's own statistics over a window of a run (the whole run, or a workload's): every statistic
 * the host kernel offers, by its name, for the VM and for each vCPU; or why there are none.
 *
 * @param unavailable why the host gave no statistics; empty when it did
 * @param vm          the VM's statistics, in the host's order
 * @param vcpus       each vCPU's statistics, in vCPU order
 */
public record KvmStatsWindow(Optional<String> unavailable, Map<String, StatChange> vm,
                             List<Map<String, StatChange>> vcpus) {
    public KvmStatsWindow {
        vm = Collections.unmodifiableMap(new LinkedHashMap<>(vm));
        vcpus = vcpus.stream().map(m -> Collections.unmodifiableMap(new LinkedHashMap<>(m))).toList();
    }

    /** A window without statistics, saying why. */
    public static KvmStatsWindow unavailable(String reason) {
        return new KvmStatsWindow(Optional.of(reason), Map.of(), List.of());
    }

    /**
     * The window from {@code start} to {@code end}, two readings of files with these
     * descriptors ({@code vcpuDescriptors} in vCPU order).
     */
    public static KvmStatsWindow between(List<StatDescriptor> vmDescriptors,
                                         List<List<StatDescriptor>> vcpuDescriptors,
                                         KvmStatsSnapshot start, KvmStatsSnapshot end) {
        List<Map<String, StatChange>> vcpus = new ArrayList<>();
        for (int i = 0; i < vcpuDescriptors.size(); i++) {
            vcpus.add(changes(vcpuDescriptors.get(i), start.vcpus().get(i), end.vcpus().get(i)));
        }
        return new KvmStatsWindow(Optional.empty(), changes(vmDescriptors, start.vm(), end.vm()), vcpus);
    }

    private static Map<String, StatChange> changes(List<StatDescriptor> ds, long[] start, long[] end) {
        Map<String, StatChange> m = new LinkedHashMap<>();
        for (StatDescriptor d : ds) m.put(d.name(), StatChange.between(d, start, end));
        return m;
    }

    /** The sum over every vCPU of a statistic's {@link StatChange#value}; 0 where no vCPU has it. */
    public long vcpuTotal(String name) {
        return vcpus.stream().map(m -> m.get(name)).filter(Objects::nonNull)
                .mapToLong(StatChange::value).sum();
    }
}
