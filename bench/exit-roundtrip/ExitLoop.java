import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.jkvm.kvm.ExitReason;
import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.KvmRun;
import org.jkvm.kvm.MappedMemory;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.kvm.sys.x86_64.kvm_regs;
import org.jkvm.kvm.sys.x86_64.kvm_segment;
import org.jkvm.kvm.sys.x86_64.kvm_sregs;

/**
 * The Java side of the exit round-trip benchmark: the guest of exit_loop_x86.c, run through
 * jkvm's bindings. Prints ns per exit after a warm-up, in the C peer's format.
 *
 * usage: java --enable-native-access=ALL-UNNAMED -cp jkvm.jar ExitLoop.java EXITS
 */
public class ExitLoop {
    public static void main(String[] args) {
        long exits = args.length > 0 ? Long.parseLong(args[0]) : 200_000;
        // mov dx, 0x3f8; loop: inc al; out dx, al; jmp loop
        byte[] code = {(byte) 0xba, (byte) 0xf8, 0x03, (byte) 0xfe, (byte) 0xc0, (byte) 0xee, (byte) 0xeb, (byte) 0xfb};
        try (Kvm kvm = Kvm.open();
             VmFd vm = kvm.createVm();
             MappedMemory ram = MappedMemory.anonymous(0x8000, false)) {
            MemorySegment.copy(MemorySegment.ofArray(code), 0, ram.segment(), 0x1000, code.length);
            vm.setUserMemoryRegion(0, 0, 0, ram.segment());
            try (VcpuFd vcpu = vm.createVcpu(0); Arena a = Arena.ofConfined()) {
                MemorySegment sregs = vcpu.getSregs(a);
                kvm_segment.base(kvm_sregs.cs(sregs), 0);
                kvm_segment.selector(kvm_sregs.cs(sregs), (short) 0);
                vcpu.setSregs(sregs);
                MemorySegment regs = vcpu.getRegs(a);
                kvm_regs.rip(regs, 0x1000);
                kvm_regs.rflags(regs, 2);
                vcpu.setRegs(regs);
                KvmRun run = vcpu.kvmRun();
                loop(vcpu, run, Math.max(20_000, exits / 4)); // warm-up: JIT the exit path
                long start = System.nanoTime();
                long sum = loop(vcpu, run, exits);
                long took = System.nanoTime() - start;
                System.out.printf("java %.1f ns/exit (%d exits, checksum %d)%n", (double) took / exits, exits, sum);
            }
        }
    }

    private static long loop(VcpuFd vcpu, KvmRun run, long exits) {
        long sum = 0;
        for (long i = 0; i < exits; i++) {
            if (vcpu.run() != ExitReason.IO || run.ioPort() != 0x3f8) {
                throw new IllegalStateException("unexpected exit " + run.exitReasonNumber());
            }
            sum += run.ioDataByte(0);
        }
        return sum;
    }
}
