package org.jkvm.vmm.arch.aarch64;

import org.jkvm.kvm.VmFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.devices.IrqLine;

/** A shared peripheral interrupt of the in-kernel GIC, driven with KVM_IRQ_LINE. */
public final class SpiLine implements IrqLine {
    private final VmFd vm;
    private final int encoded;

    /** SPI {@code spi} (INTID 32 + spi), the number the device tree names. */
    public SpiLine(VmFd vm, int spi) {
        this.vm = vm;
        this.encoded = (KvmArm64.KVM_ARM_IRQ_TYPE_SPI() << KvmArm64.KVM_ARM_IRQ_TYPE_SHIFT())
                | ((32 + spi) & KvmArm64.KVM_ARM_IRQ_NUM_MASK());
    }

    @Override
    public void set(boolean high) {
        vm.irqLine(encoded, high);
    }
}
