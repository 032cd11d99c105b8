package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.jkvm.kvm.sys.x86_64.kvm_regs;
import org.jkvm.kvm.sys.x86_64.kvm_segment;
import org.jkvm.kvm.sys.x86_64.kvm_sregs;

/**
 * A one-vCPU x86 VM running a few bytes of 16-bit real-mode code: 32 KiB of RAM at 0, the
 * code at {@link #CODE}, everything above {@link #RAM_SIZE} unmapped (so it exits as MMIO).
 */
final class TinyGuest implements AutoCloseable {
    static final long RAM_SIZE = 0x8000;
    static final long CODE = 0x1000;

    final VmFd vm;
    final MappedMemory ram;
    final VcpuFd vcpu;

    TinyGuest(Kvm kvm, byte[] code) {
        vm = kvm.createVm();
        ram = MappedMemory.anonymous(RAM_SIZE, false);
        MemorySegment.copy(MemorySegment.ofArray(code), 0, ram.segment(), CODE, code.length);
        vm.setUserMemoryRegion(0, 0, 0, ram.segment());
        vcpu = vm.createVcpu(0);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sregs = vcpu.getSregs(a);
            for (MemorySegment seg : new MemorySegment[] {kvm_sregs.cs(sregs), kvm_sregs.ds(sregs)}) {
                kvm_segment.base(seg, 0);
                kvm_segment.selector(seg, (short) 0);
            }
            vcpu.setSregs(sregs);
            MemorySegment regs = vcpu.getRegs(a);
            kvm_regs.rip(regs, CODE);
            kvm_regs.rflags(regs, 0x2); // bit 1 is reserved and must be set
            vcpu.setRegs(regs);
        }
    }

    @Override
    public void close() {
        vcpu.close();
        vm.close();
        ram.close();
    }
}
