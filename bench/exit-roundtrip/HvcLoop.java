import java.lang.foreign.MemorySegment;

import org.jkvm.kvm.Arm64;
import org.jkvm.kvm.ExitReason;
import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.KvmRun;
import org.jkvm.kvm.MappedMemory;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The arm64 exit round trip through jkvm's bindings: the guest issues the PV-lock SMCCC call
 * (HVC) in a loop, the SMCCC filter forwards it to userspace, the VMM writes x0 (one
 * KVM_SET_ONE_REG) and enters again, the same work as answering a PV-lock call. Peer:
 * hvc_loop_arm64.c. Prints ns per exit after a warm-up.
 *
 * usage: java --enable-native-access=ALL-UNNAMED -cp jkvm.jar:. HvcLoop EXITS
 */
public class HvcLoop {
    static final long RAM_IPA = 0x4000_0000L;
    static final int RAM_SIZE = 0x10000;

    /** loop: x0 = 0xC6000002; hvc #0; x1 += x0; b loop. */
    static final int[] CODE = {0x52800040, 0x72b8c000, 0xd4000002, 0x8b000021, 0x17fffffc};

    public static void main(String[] args) {
        long exits = args.length > 0 ? Long.parseLong(args[0]) : 20_000;
        long fn = KvmArm64.ARM_SMCCC_VENDOR_HYP_KVM_PV_LOCK_FUNC_ID();
        try (Kvm kvm = Kvm.open();
             VmFd vm = kvm.createVm();
             MappedMemory ram = MappedMemory.anonymous(RAM_SIZE, false)) {
            for (int i = 0; i < CODE.length; i++) ram.segment().set(JAVA_INT, 4L * i, CODE[i]);
            vm.setUserMemoryRegion(0, 0, RAM_IPA, ram.segment());
            vm.setSmcccFilter(fn, 1, Arm64.SmcccAction.FORWARD_TO_USER);
            try (VcpuFd vcpu = vm.createVcpu(0)) {
                vcpu.armVcpuInit(vm.armPreferredTarget());
                vcpu.setOneReg(KvmArm64.JKVM_REG_ARM64_PSTATE(), KvmArm64.JKVM_ARM64_PSTATE_EL1H_DAIF());
                vcpu.setOneReg(KvmArm64.JKVM_REG_ARM64_PC(), RAM_IPA);
                KvmRun run = vcpu.kvmRun();
                loop(vcpu, run, fn, Math.max(2_000, exits)); // warm-up: JIT the exit path (slow under TCG)
                long start = System.nanoTime();
                loop(vcpu, run, fn, exits);
                long took = System.nanoTime() - start;
                long x1 = vcpu.getOneReg(KvmArm64.JKVM_REG_ARM64_X1());
                System.out.printf("java %.1f ns/exit (%d exits, guest sum %d)%n", (double) took / exits, exits, x1);
            }
        }
    }

    private static void loop(VcpuFd vcpu, KvmRun run, long fn, long exits) {
        for (long i = 0; i < exits; i++) {
            if (vcpu.run() != ExitReason.HYPERCALL || run.hypercallNr() != fn) {
                throw new IllegalStateException("unexpected exit " + run.exitReasonNumber());
            }
            vcpu.setOneReg(KvmArm64.JKVM_REG_ARM64_X0(), 1);
        }
    }
}
