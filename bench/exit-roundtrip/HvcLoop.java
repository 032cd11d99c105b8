import java.io.IOException;
import java.util.List;

import org.jkvm.kvm.Arm64;
import org.jkvm.kvm.ExitReason;
import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.KvmRun;
import org.jkvm.kvm.MappedMemory;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.arch.aarch64.SmcccRegisters;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.MmioBus;
import org.jkvm.vmm.vcpu.VcpuLoop;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The arm64 exit round trip in Java: the guest issues the PV-lock SMCCC call (HVC) in a loop,
 * the SMCCC filter forwards it to userspace, x0 is answered (one KVM_SET_ONE_REG) and the vCPU
 * enters again, the C peer's work (hvc_loop_arm64.c). Mode bindings: a loop over jkvm's
 * bindings alone. Mode loop: jkvm's own vCPU loop ({@link VcpuLoop}: exit dispatch,
 * statistics, the hypercall bus, the SMCCC registers) and a handler answering the call, as a
 * VM's PV-lock calls go, timing each exit as {@code --stats-json} and experiments have it do;
 * it also prints the bytes the vCPU thread allocated per exit. Mode loop-untimed: that loop as
 * a plain {@code jkvm run} runs it, without the two clock reads an exit. Mode loop-record: loop
 * under what {@code jkvm run --record} turns on (JFR with jkvm's exit events), also counting
 * JFR's allocation samples on the vCPU thread while measured. Prints ns per exit after a warm-up.
 *
 * usage: java --enable-native-access=ALL-UNNAMED -cp jkvm.jar:. HvcLoop EXITS [bindings|loop|loop-untimed|loop-record]
 */
public class HvcLoop {
    static final long RAM_IPA = 0x4000_0000L;
    static final int RAM_SIZE = 0x10000;
    static final long FN = KvmArm64.ARM_SMCCC_VENDOR_HYP_KVM_PV_LOCK_FUNC_ID();

    /** loop: x0 = 0xC6000002; hvc #0; x1 += x0; b loop. */
    static final int[] CODE = {0x52800040, 0x72b8c000, 0xd4000002, 0x8b000021, 0x17fffffc};

    public static void main(String[] args) throws IOException {
        long exits = args.length > 0 ? Long.parseLong(args[0]) : 20_000;
        String mode = args.length > 1 ? args[1] : "bindings";
        if (!List.of("bindings", "loop", "loop-untimed", "loop-record").contains(mode)) {
            throw new IllegalArgumentException("mode " + mode + ": bindings, loop, loop-untimed or loop-record");
        }
        long warmup = Math.max(2_000, exits); // JIT the exit path (slow under TCG)
        try (Kvm kvm = Kvm.open();
             VmFd vm = kvm.createVm();
             MappedMemory ram = MappedMemory.anonymous(RAM_SIZE, false)) {
            for (int i = 0; i < CODE.length; i++) ram.segment().set(JAVA_INT, 4L * i, CODE[i]);
            vm.setUserMemoryRegion(0, 0, RAM_IPA, ram.segment());
            vm.setSmcccFilter(FN, 1, Arm64.SmcccAction.FORWARD_TO_USER);
            try (VcpuFd vcpu = vm.createVcpu(0)) {
                vcpu.armVcpuInit(vm.armPreferredTarget());
                vcpu.setOneReg(KvmArm64.JKVM_REG_ARM64_PSTATE(), KvmArm64.JKVM_ARM64_PSTATE_EL1H_DAIF());
                vcpu.setOneReg(KvmArm64.JKVM_REG_ARM64_PC(), RAM_IPA);
                String figures = mode.equals("bindings") ? bindings(vcpu, warmup, exits)
                        : throughVcpuLoop(vcpu, warmup, exits, !mode.equals("loop-untimed"), mode.equals("loop-record"));
                long x1 = vcpu.getOneReg(KvmArm64.JKVM_REG_ARM64_X1());
                System.out.printf("java-%s %s, guest sum %d)%n", mode, figures, x1);
            }
        }
    }

    private static String bindings(VcpuFd vcpu, long warmup, long exits) {
        KvmRun run = vcpu.kvmRun();
        long start = 0;
        for (long i = 0; i < warmup + exits; i++) {
            if (i == warmup) start = System.nanoTime();
            if (vcpu.run() != ExitReason.HYPERCALL || run.hypercallNr() != FN) {
                throw new IllegalStateException("unexpected exit " + run.exitReasonNumber());
            }
            vcpu.setOneReg(KvmArm64.JKVM_REG_ARM64_X0(), 1);
        }
        return String.format("%.1f ns/exit (%d exits", (double) (System.nanoTime() - start) / exits, exits);
    }

    private static String throughVcpuLoop(VcpuFd vcpu, long warmup, long exits, boolean timed, boolean record)
            throws IOException {
        MeasuredLoop measured = new MeasuredLoop(warmup, exits);
        HypercallBus hypercalls = new HypercallBus();
        hypercalls.register("pv-lock", FN, 1, (id, function, call) -> {
            call.result(0, 1);
            measured.exited();
        });
        return measured.run(new VcpuLoop(vcpu, new MmioBus(), hypercalls, new SmcccRegisters(), null, measured, null, null),
                timed, record);
    }
}
