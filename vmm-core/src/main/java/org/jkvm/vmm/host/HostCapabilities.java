package org.jkvm.vmm.host;

import org.jkvm.kvm.Arch;

/**
 * What this host's KVM offers that jkvm cares about, as probed by {@link HostProbe}.
 *
 * @param arch            the host architecture
 * @param kernelRelease   the host kernel's release string
 * @param flavour         which KVM this is (e.g. "KVM-PVM (software)", "VHE", "nVHE")
 * @param apiVersion      KVM_GET_API_VERSION
 * @param maxVcpus        KVM_CAP_MAX_VCPUS: the most vCPUs one VM may have
 * @param recommendedVcpus KVM_CAP_NR_VCPUS: the most KVM recommends
 * @param maxVcpuId       KVM_CAP_MAX_VCPU_ID
 * @param memslots        KVM_CAP_NR_MEMSLOTS
 * @param irqfd           KVM_CAP_IRQFD
 * @param ioeventfd       KVM_CAP_IOEVENTFD
 * @param immediateExit   KVM_CAP_IMMEDIATE_EXIT (how jkvm stops a running vCPU)
 * @param stealTime       KVM_CAP_STEAL_TIME
 * @param arm64           the arm64-only answers; null on other hosts
 */
public record HostCapabilities(
        Arch arch,
        String kernelRelease,
        String flavour,
        int apiVersion,
        int maxVcpus,
        int recommendedVcpus,
        int maxVcpuId,
        int memslots,
        boolean irqfd,
        boolean ioeventfd,
        boolean immediateExit,
        boolean stealTime,
        Arm64 arm64) {

    /**
     * The arm64 answers.
     *
     * @param ipaLimitBits   KVM_CAP_ARM_VM_IPA_SIZE: the largest guest physical address space
     * @param psci02         KVM_CAP_ARM_PSCI_0_2
     * @param pmuV3          KVM_CAP_ARM_PMU_V3
     * @param sve            KVM_CAP_ARM_SVE
     * @param ptrAuth        KVM_CAP_ARM_PTRAUTH_ADDRESS and KVM_CAP_ARM_PTRAUTH_GENERIC (pointer authentication)
     * @param smcccFilter    the VM accepts KVM_ARM_VM_SMCCC_FILTER (SMCCC calls can exit to jkvm)
     * @param pvTimeAttr     a vCPU accepts KVM_ARM_VCPU_PVTIME_IPA (steal time)
     * @param pvLockAttr     a vCPU accepts KVM_ARM_VCPU_PVLOCK_IPA (needs the PV-lock kernel series)
     */
    public record Arm64(int ipaLimitBits, boolean psci02, boolean pmuV3, boolean sve,
                        boolean ptrAuth, boolean smcccFilter, boolean pvTimeAttr, boolean pvLockAttr) {}
}
