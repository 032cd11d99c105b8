package org.jkvm.vmm.arch.aarch64;

/**
 * KVM's SMCCC filter (KVM_ARM_VM_SMCCC_FILTER) as jkvm uses it: function-id ranges the host
 * kernel forwards to userspace instead of answering them itself. A VM's is
 * {@code VmFd.setSmcccFilter} with {@code FORWARD_TO_USER}.
 */
@FunctionalInterface
public interface SmcccFilter {
    /** Has KVM forward the ids {@code first .. first + count - 1} to userspace. */
    void forwardToUser(long first, int count);
}
