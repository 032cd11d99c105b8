package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.jkvm.kvm.sys.x86_64.KvmX86;
import org.jkvm.kvm.sys.x86_64.kvm_cpuid2;
import org.jkvm.kvm.sys.x86_64.kvm_cpuid_entry2;
import org.jkvm.kvm.sys.x86_64.kvm_msr_entry;
import org.jkvm.kvm.sys.x86_64.kvm_msrs;
import org.jkvm.kvm.sys.x86_64.kvm_regs;
import org.jkvm.kvm.sys.x86_64.kvm_sregs;

/** The x86_64-only ioctls behind {@link Kvm}, {@link VmFd} and {@link VcpuFd}. */
final class X86 {
    private X86() {}

    private static void requireHost(String ioctl) {
        if (HostUapi.ARCH != Arch.X86_64) {
            throw new UnsupportedOperationException(ioctl + " exists on x86_64 hosts only; this is " + HostUapi.ARCH);
        }
    }

    static void createIrqchip(VmFd vm) {
        requireHost("KVM_CREATE_IRQCHIP");
        vm.ioctl("KVM_CREATE_IRQCHIP", HostUapi.unsigned(KvmX86.KVM_CREATE_IRQCHIP()), 0L);
    }

    static MemorySegment supportedCpuid(Kvm kvm, Arena arena, int maxEntries) {
        requireHost("KVM_GET_SUPPORTED_CPUID");
        MemorySegment c = arena.allocate(kvm_cpuid2.layout().byteSize()
                + maxEntries * kvm_cpuid_entry2.layout().byteSize(), 8);
        kvm_cpuid2.nent(c, maxEntries);
        kvm.ioctl("KVM_GET_SUPPORTED_CPUID", HostUapi.unsigned(KvmX86.KVM_GET_SUPPORTED_CPUID()), c, "max=" + maxEntries);
        return c;
    }

    static MemorySegment getRegs(VcpuFd vcpu, Arena arena) {
        requireHost("KVM_GET_REGS");
        MemorySegment r = arena.allocate(kvm_regs.layout());
        vcpu.ioctl("KVM_GET_REGS", HostUapi.unsigned(KvmX86.KVM_GET_REGS()), r, null);
        return r;
    }

    static void setRegs(VcpuFd vcpu, MemorySegment regs) {
        requireHost("KVM_SET_REGS");
        vcpu.ioctl("KVM_SET_REGS", HostUapi.unsigned(KvmX86.KVM_SET_REGS()), regs, "rip=0x" + Long.toHexString(kvm_regs.rip(regs)));
    }

    static MemorySegment getSregs(VcpuFd vcpu, Arena arena) {
        requireHost("KVM_GET_SREGS");
        MemorySegment s = arena.allocate(kvm_sregs.layout());
        vcpu.ioctl("KVM_GET_SREGS", HostUapi.unsigned(KvmX86.KVM_GET_SREGS()), s, null);
        return s;
    }

    static void setSregs(VcpuFd vcpu, MemorySegment sregs) {
        requireHost("KVM_SET_SREGS");
        vcpu.ioctl("KVM_SET_SREGS", HostUapi.unsigned(KvmX86.KVM_SET_SREGS()), sregs, null);
    }

    static void setCpuid2(VcpuFd vcpu, MemorySegment cpuid) {
        requireHost("KVM_SET_CPUID2");
        vcpu.ioctl("KVM_SET_CPUID2", HostUapi.unsigned(KvmX86.KVM_SET_CPUID2()), cpuid, "nent=" + kvm_cpuid2.nent(cpuid));
    }

    private static MemorySegment msrs(Arena a, int[] indices) {
        long entry = kvm_msr_entry.layout().byteSize();
        long header = kvm_msrs.entries$offset();
        MemorySegment m = a.allocate(header + indices.length * entry, 8);
        kvm_msrs.nmsrs(m, indices.length);
        for (int i = 0; i < indices.length; i++) {
            kvm_msr_entry.index(m.asSlice(header + i * entry, entry), indices[i]);
        }
        return m;
    }

    static long[] getMsrs(VcpuFd vcpu, int... indices) {
        requireHost("KVM_GET_MSRS");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = msrs(a, indices);
            int n = vcpu.ioctl("KVM_GET_MSRS", HostUapi.unsigned(KvmX86.KVM_GET_MSRS()), m, indices.length + " msrs");
            if (n != indices.length) {
                throw new IllegalStateException(vcpu.description() + ": KVM_GET_MSRS read " + n + " of "
                        + indices.length + " MSRs; MSR 0x" + Integer.toHexString(indices[n]) + " is not supported");
            }
            long entry = kvm_msr_entry.layout().byteSize();
            long header = kvm_msrs.entries$offset();
            long[] values = new long[n];
            for (int i = 0; i < n; i++) values[i] = kvm_msr_entry.data(m.asSlice(header + i * entry, entry));
            return values;
        }
    }

    static void setMsrs(VcpuFd vcpu, int[] indices, long[] values) {
        requireHost("KVM_SET_MSRS");
        if (indices.length != values.length) throw new IllegalArgumentException("one value per MSR");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = msrs(a, indices);
            long entry = kvm_msr_entry.layout().byteSize();
            long header = kvm_msrs.entries$offset();
            for (int i = 0; i < values.length; i++) kvm_msr_entry.data(m.asSlice(header + i * entry, entry), values[i]);
            int n = vcpu.ioctl("KVM_SET_MSRS", HostUapi.unsigned(KvmX86.KVM_SET_MSRS()), m, indices.length + " msrs");
            if (n != indices.length) {
                throw new IllegalStateException(vcpu.description() + ": KVM_SET_MSRS wrote " + n + " of "
                        + indices.length + " MSRs; MSR 0x" + Integer.toHexString(indices[n]) + " was refused");
            }
        }
    }
}
