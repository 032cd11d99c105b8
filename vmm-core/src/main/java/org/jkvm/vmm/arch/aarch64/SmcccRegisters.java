package org.jkvm.vmm.arch.aarch64;

import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.vcpu.HypercallRegisters;

/**
 * SMCCC calls forwarded by KVM: arguments in x1..x17 (KVM leaves kvm_run's args empty on
 * arm64), results in x0..x3; each one register access, made only for what a handler reads or
 * sets. The PC already points past the HVC/SMC.
 */
public final class SmcccRegisters implements HypercallRegisters {
    /** SMCCC 1.2: up to 17 arguments (x1..x17). */
    private static final int ARGUMENTS = 17;
    /** Results jkvm hands back: x0..x3. */
    private static final int RESULTS = 4;

    private final long x0 = KvmArm64.JKVM_REG_ARM64_X0();
    private final long stride = KvmArm64.JKVM_REG_ARM64_CORE_X_STRIDE();

    @Override
    public long argument(VcpuFd vcpu, int index) {
        if (index < 0 || index >= ARGUMENTS) {
            throw new IllegalArgumentException("vcpu " + vcpu.id() + ": SMCCC argument " + index + " is not in x1..x17");
        }
        return vcpu.getOneReg(x0 + stride * (index + 1));
    }

    @Override
    public void result(VcpuFd vcpu, int index, long value) {
        if (index < 0 || index >= RESULTS) {
            throw new IllegalArgumentException("vcpu " + vcpu.id() + ": SMCCC result " + index + " is not in x0..x3");
        }
        vcpu.setOneReg(x0 + stride * index, value);
    }
}
