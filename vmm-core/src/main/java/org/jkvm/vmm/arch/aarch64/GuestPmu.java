package org.jkvm.vmm.arch.aarch64;

import java.lang.System.Logger.Level;

import org.jkvm.kvm.Arm64;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.arch.aarch64.fdt.ArmDeviceTree;

/**
 * Whether the guest gets a PMUv3, and what that takes: the vCPU feature at KVM_ARM_VCPU_INIT, the
 * overflow interrupt and PMU init per vCPU, and the device tree's {@code pmu} node (without which
 * the guest's PMU driver never probes).
 *
 * <p>Off unless asked for: with a guest PMU, KVM backs each guest counter with a perf event on the
 * vCPU thread (created as soon as the guest's PMU driver resets the counters), so every switch of
 * that thread runs perf's task-context code. On the 6.12 hosts jkvm is measured on, that code
 * oopsed once (a NULL task context in {@code perf_ctx_sched_task_cb}, a perf-core race also seen
 * upstream without KVM); a vCPU thread without perf events never enters it.
 *
 * @param on the guest has a PMUv3
 */
public record GuestPmu(boolean on) {
    private static final System.Logger LOG = System.getLogger(GuestPmu.class.getName());
    private static final int INTID = 16 + ArmDeviceTree.PMU_PPI;

    /** The guest's PMU: on when {@code asked} for and the host {@code offered} KVM_CAP_ARM_PMU_V3. */
    public static GuestPmu choose(boolean asked, boolean offered) {
        if (asked && !offered) LOG.log(Level.WARNING, "this host offers no PMUv3 (KVM_CAP_ARM_PMU_V3); the guest runs without one");
        return new GuestPmu(asked && offered);
    }

    /** {@code init} with the PMUv3 vCPU feature when on. */
    public Arm64.VcpuInit features(Arm64.VcpuInit init) {
        return on ? init.with(KvmArm64.KVM_ARM_VCPU_PMU_V3()) : init;
    }

    /** After the GIC exists: the overflow interrupt on every vCPU, then PMU init (KVM's order); nothing when off. */
    public void setUp(Iterable<VcpuFd> vcpus) {
        if (!on) return;
        for (VcpuFd v : vcpus) {
            v.setDeviceAttr(KvmArm64.KVM_ARM_VCPU_PMU_V3_CTRL(), KvmArm64.KVM_ARM_VCPU_PMU_V3_IRQ(), INTID);
            v.setDeviceAttr(KvmArm64.KVM_ARM_VCPU_PMU_V3_CTRL(), KvmArm64.KVM_ARM_VCPU_PMU_V3_INIT());
        }
    }
}
