package org.jkvm.vmm.vcpu;

import org.jkvm.kvm.ExitReason;
import org.jkvm.kvm.KvmRun;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.vmm.bus.Hypercall;

/**
 * A KVM vCPU's exits: KVM_RUN on its {@link VcpuFd}, the exit's fields read in place from its
 * mapped {@link KvmRun}, a hypercall's registers where the architecture keeps them, each read
 * or written only when a handler asks.
 */
final class KvmVcpuExits implements VcpuExits, Hypercall {
    private final VcpuFd vcpu;
    private final KvmRun run;
    private final HypercallRegisters registers;

    KvmVcpuExits(VcpuFd vcpu, HypercallRegisters registers) {
        this.vcpu = vcpu;
        this.run = vcpu.kvmRun();
        this.registers = registers;
    }

    @Override
    public int id() {
        return vcpu.id();
    }

    @Override
    public void bindToCurrentThread() {
        vcpu.bindToCurrentThread();
    }

    @Override
    public ExitReason run() {
        return vcpu.run();
    }

    @Override
    public boolean mmioIsWrite() {
        return run.mmioIsWrite();
    }

    @Override
    public long mmioAddress() {
        return run.mmioAddress();
    }

    @Override
    public int mmioLength() {
        return run.mmioLength();
    }

    @Override
    public long mmioValue() {
        return run.mmioValue();
    }

    @Override
    public void setMmioValue(long value) {
        run.setMmioValue(value);
    }

    @Override
    public long hypercallNr() {
        return run.hypercallNr();
    }

    @Override
    public Hypercall hypercall() {
        return this;
    }

    @Override
    public long argument(int index) {
        return registers.argument(vcpu, index);
    }

    @Override
    public void result(int index, long value) {
        registers.result(vcpu, index, value);
    }

    @Override
    public int systemEventType() {
        return run.systemEventType();
    }

    @Override
    public long failEntryReason() {
        return run.failEntryReason();
    }

    @Override
    public int internalSuberror() {
        return run.internalSuberror();
    }

    @Override
    public long armNisvFaultIpa() {
        return run.armNisvFaultIpa();
    }

    @Override
    public long armNisvEsrIss() {
        return run.armNisvEsrIss();
    }

    @Override
    public void injectDataAbort() {
        vcpu.armInjectExternalDataAbort();
    }
}
