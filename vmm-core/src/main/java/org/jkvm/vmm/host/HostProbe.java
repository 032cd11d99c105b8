package org.jkvm.vmm.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.jkvm.kvm.Arch;
import org.jkvm.kvm.Capability;
import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;

/**
 * Asks the host's KVM what it offers. On arm64 it makes a throw-away VM with one initialised
 * vCPU, because the SMCCC filter and the per-vCPU PV attributes can only be probed on such fds.
 */
public final class HostProbe {
    private HostProbe() {}

    /** Probes through an open KVM. */
    public static HostCapabilities probe(Kvm kvm) {
        Arch arch = Arch.host();
        HostCapabilities.Arm64 arm = arch == Arch.AARCH64 ? probeArm64(kvm) : null;
        return new HostCapabilities(
                arch,
                kernelRelease(),
                KvmFlavour.detect(arch),
                kvm.apiVersion(),
                kvm.check(Capability.MAX_VCPUS),
                kvm.check(Capability.NR_VCPUS),
                kvm.check(Capability.MAX_VCPU_ID),
                kvm.check(Capability.NR_MEMSLOTS),
                kvm.check(Capability.IRQFD) > 0,
                kvm.check(Capability.IOEVENTFD) > 0,
                kvm.check(Capability.IMMEDIATE_EXIT) > 0,
                kvm.check(Capability.STEAL_TIME) > 0,
                arm);
    }

    private static HostCapabilities.Arm64 probeArm64(Kvm kvm) {
        try (VmFd vm = kvm.createVm()) {
            boolean filter = vm.hasDeviceAttr(KvmArm64.KVM_ARM_VM_SMCCC_CTRL(), KvmArm64.KVM_ARM_VM_SMCCC_FILTER());
            try (VcpuFd vcpu = vm.createVcpu(0)) {
                vcpu.armVcpuInit(vm.armPreferredTarget());
                return new HostCapabilities.Arm64(
                        kvm.check(Capability.ARM_VM_IPA_SIZE),
                        vm.check(Capability.ARM_PSCI_0_2) > 0,
                        vm.check(Capability.ARM_PMU_V3) > 0,
                        vm.check(Capability.ARM_SVE) > 0,
                        vm.check(Capability.ARM_PTRAUTH_ADDRESS) > 0 && vm.check(Capability.ARM_PTRAUTH_GENERIC) > 0,
                        filter,
                        vcpu.hasDeviceAttr(KvmArm64.KVM_ARM_VCPU_PVTIME_CTRL(), KvmArm64.KVM_ARM_VCPU_PVTIME_IPA()),
                        vcpu.hasDeviceAttr(KvmArm64.KVM_ARM_VCPU_PVLOCK_CTRL(), KvmArm64.KVM_ARM_VCPU_PVLOCK_IPA()));
            }
        }
    }

    private static String kernelRelease() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        } catch (IOException e) {
            return System.getProperty("os.version");
        }
    }
}
