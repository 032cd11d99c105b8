package org.jkvm.vmm.arch.aarch64;

import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.vcpu.HypercallRegisters;

/**
 * SMCCC calls forwarded by KVM: arguments in x1..x3 (KVM leaves kvm_run's args empty on
 * arm64), results in x0..x3. The PC already points past the HVC/SMC.
 */
final class SmcccRegisters implements HypercallRegisters {
    /** Arguments read per call: all that jkvm's handlers use. */
    private static final int ARGS = 3;

    private final long x0 = KvmArm64.JKVM_REG_ARM64_X0();
    private final long stride = KvmArm64.JKVM_REG_ARM64_CORE_X_STRIDE();

    @Override
    public long[] arguments(VcpuFd vcpu) {
        long[] args = new long[ARGS];
        for (int i = 0; i < ARGS; i++) args[i] = vcpu.getOneReg(x0 + stride * (i + 1));
        return args;
    }

    @Override
    public void returnValues(VcpuFd vcpu, long[] results) {
        for (int i = 0; i < results.length && i < 4; i++) vcpu.setOneReg(x0 + stride * i, results[i]);
    }
}
