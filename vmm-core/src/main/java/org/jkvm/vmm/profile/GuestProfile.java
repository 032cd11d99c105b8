package org.jkvm.vmm.profile;

import java.util.List;
import java.util.OptionalLong;

/**
 * What {@link GuestProfiler} collected: per vCPU, its samples; and the guest's VBAR_EL1 at the
 * end, if it had set one.
 *
 * @param hz    samples per second of CPU time
 * @param vcpus each vCPU's samples, in vCPU order
 * @param vbar  VBAR_EL1 of vCPU 0 when the VM stopped
 */
public record GuestProfile(int hz, List<VcpuSamples> vcpus, OptionalLong vbar) {
    public GuestProfile {
        vcpus = List.copyOf(vcpus);
    }

    /**
     * The samples taken from {@code fromNanos} (included) to {@code toNanos} (not), by
     * {@link System#nanoTime}: a workload's window instead of the whole run with its boot.
     */
    public GuestProfile between(long fromNanos, long toNanos) {
        long period = 1_000_000_000L / hz;
        return new GuestProfile(hz, vcpus.stream().map(v -> v.between(fromNanos, toNanos, period)).toList(), vbar);
    }
}
