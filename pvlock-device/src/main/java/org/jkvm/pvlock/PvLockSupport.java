package org.jkvm.pvlock;

import org.jkvm.vmm.config.SettingException;

/**
 * What the host offers for PV lock, and which mode a request resolves to there.
 *
 * @param attribute the vCPUs accept KVM_ARM_VCPU_PVLOCK_IPA (a host kernel with the series)
 * @param filter    the VM accepts the SMCCC filter (Linux 6.4+: jkvm can answer the calls)
 */
public record PvLockSupport(boolean attribute, boolean filter) {
    /**
     * A mode that can run here, with the reason in words.
     *
     * @param mode   KERNEL, USERSPACE, OFF or TRACK_ONLY
     * @param reason why, in one line
     */
    public record Resolution(PvLockMode mode, String reason) {}

    /**
     * Resolves {@code requested} for a VM whose userspace preemption tracker would or would not
     * have a CPU of its own ({@code trackerCpu}): AUTO picks the best the host has, but not the
     * userspace mode where its tracker would have none: there each of its wake-ups preempts a
     * vCPU and its flags come later than the preemptions they describe last (bench/blk/README.md),
     * a cost with nothing in return. KERNEL and USERSPACE are refused with the reason when the
     * host lacks what they need.
     */
    public Resolution resolve(PvLockMode requested, boolean trackerCpu) {
        return switch (requested) {
            case AUTO -> attribute
                    ? new Resolution(PvLockMode.KERNEL, "the host kernel has the PV-lock attribute")
                    : !filter
                    ? new Resolution(PvLockMode.OFF, "the host kernel has neither the PV-lock attribute nor the SMCCC filter (Linux 6.4+)")
                    : trackerCpu
                    ? new Resolution(PvLockMode.USERSPACE, "the host kernel lacks the PV-lock series, but its SMCCC filter lets jkvm answer the calls")
                    : new Resolution(PvLockMode.OFF, "the host kernel lacks the PV-lock series, and the vCPUs could keep every"
                            + " CPU busy, leaving jkvm's preemption tracker none: its flags would come late and cost the guest;"
                            + " --pvlock userspace tracks anyway, fewer vCPUs than CPUs or --pin leaves it one");
            case KERNEL -> {
                if (!attribute) {
                    throw new SettingException("pvlock", "kernel", "this host kernel lacks the PV-lock series"
                            + " (its vCPUs refuse KVM_ARM_VCPU_PVLOCK_CTRL); use the userspace mode or a host kernel built"
                            + " with kernel/build --with-pvlock");
                }
                yield new Resolution(PvLockMode.KERNEL, "requested");
            }
            case USERSPACE -> {
                if (!filter) {
                    throw new SettingException("pvlock", "userspace", "this host kernel has no SMCCC filter"
                            + " (KVM_ARM_VM_SMCCC_FILTER, Linux 6.4+), so the guest's PV-lock calls cannot reach jkvm");
                }
                yield new Resolution(PvLockMode.USERSPACE, "requested");
            }
            case OFF -> new Resolution(PvLockMode.OFF, "requested");
            case TRACK_ONLY -> new Resolution(PvLockMode.TRACK_ONLY, "requested: jkvm tracks the preemptions and writes the"
                    + " flags, the guest is not offered them");
        };
    }
}
