package org.jkvm.pvlock;

import org.jkvm.kvm.Arch;
import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.KvmException;
import org.jkvm.kvm.MappedMemory;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The kernel-mode ioctl sequence on a real arm64 VM: probe KVM_ARM_VCPU_PVLOCK_IPA, set it to a
 * memslot-backed, 64-byte aligned structure, read it back. On a host kernel without the series
 * every step answers ENXIO; with the series set/get work and the ABI's errors hold (EEXIST on
 * a second set, EINVAL for a misaligned address). Runs on arm64 hosts (the integration tests
 * run it inside the emulated arm64 host).
 */
@Tag("arm64")
class PvLockAttributeTest {
    private static final long RAM = 0x4000_0000L;
    private static final long REGION = 0x0A10_0000L;

    @Test
    void theAttributeSequenceAnswersAsTheHostKernelCan() {
        Assumptions.assumeTrue(Arch.host() == Arch.AARCH64, "arm64 tier skipped: this host is " + Arch.host()
                + "; the integration tests run this inside the emulated arm64 host");
        int group = KvmArm64.KVM_ARM_VCPU_PVLOCK_CTRL();
        long attr = KvmArm64.KVM_ARM_VCPU_PVLOCK_IPA();
        try (Kvm kvm = Kvm.open(); VmFd vm = kvm.createVm();
             MappedMemory ram = MappedMemory.anonymous(0x10000, false);
             MappedMemory region = MappedMemory.anonymous(0x10000, false)) {
            vm.setUserMemoryRegion(0, 0, RAM, ram.segment());
            vm.setUserMemoryRegion(1, 0, REGION, region.segment());
            try (VcpuFd v0 = vm.createVcpu(0); VcpuFd v1 = vm.createVcpu(1)) {
                v0.armVcpuInit(vm.armPreferredTarget());
                v1.armVcpuInit(vm.armPreferredTarget());
                if (!v0.hasDeviceAttr(group, attr)) {
                    KvmException e = assertThrows(KvmException.class, () -> v0.setDeviceAttr(group, attr, REGION));
                    assertEquals("ENXIO", e.errnoName(), e.getMessage());
                    assertEquals("KVM_SET_DEVICE_ATTR", e.operation());
                    System.err.println("PV-lock attribute absent (stock kernel): set answers " + e.getMessage());
                    return;
                }
                v0.setDeviceAttr(group, attr, REGION);
                assertEquals(REGION, v0.getDeviceAttr(group, attr));
                KvmException again = assertThrows(KvmException.class, () -> v0.setDeviceAttr(group, attr, REGION + 64));
                assertEquals("EEXIST", again.errnoName(), again.getMessage());
                KvmException misaligned = assertThrows(KvmException.class, () -> v1.setDeviceAttr(group, attr, REGION + 8));
                assertEquals("EINVAL", misaligned.errnoName(), misaligned.getMessage());
                v1.setDeviceAttr(group, attr, REGION + 64);
                assertEquals(REGION + 64, v1.getDeviceAttr(group, attr));
                System.err.println("PV-lock attribute present: set, get, EEXIST and EINVAL as the ABI says");
            }
        }
    }
}
