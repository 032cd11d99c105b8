import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import org.jkvm.kvm.ExitReason;
import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.KvmRun;
import org.jkvm.kvm.MappedMemory;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.kvm.sys.x86_64.kvm_regs;
import org.jkvm.kvm.sys.x86_64.kvm_segment;
import org.jkvm.kvm.sys.x86_64.kvm_sregs;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.MmioBus;
import org.jkvm.vmm.bus.MmioWindow;
import org.jkvm.vmm.bus.MmioDevice;
import org.jkvm.vmm.vcpu.VcpuLoop;

/**
 * The Java side of the exit round-trip benchmark: the guests of exit_loop_x86.c, run by jkvm.
 * Guest io: its OUTs answered by a loop over jkvm's bindings (KVM_RUN, read kvm_run), the C
 * peer's work. Guest mmio: its stores handled by the VMM's own run loop ({@link VcpuLoop}: exit
 * dispatch, statistics, the MMIO bus) and a device that counts them, what every guest exit of a
 * real VM goes through. Prints ns per exit after a warm-up, in the C peer's format, and for
 * mmio the time per exit spent in jkvm between KVM_RUNs (the loop's own statistics) and the
 * bytes the vCPU thread allocated per exit. Guest mmio-record: mmio under what {@code jkvm run
 * --record} turns on (a JFR recording with the default settings and jkvm's periodic exit events);
 * it also counts JFR's allocation samples taken on the vCPU thread while measured.
 *
 * usage: java --enable-native-access=ALL-UNNAMED -cp jkvm.jar ExitLoop.java EXITS [io|mmio|mmio-record]
 */
public class ExitLoop {
    /** mov dx, 0x3f8; loop: inc al; out dx, al; jmp loop */
    static final byte[] OUT_LOOP = {(byte) 0xba, (byte) 0xf8, 0x03, (byte) 0xfe, (byte) 0xc0, (byte) 0xee, (byte) 0xeb, (byte) 0xfb};
    /** mov bx, 0x9000; loop: inc al; mov [bx], al; jmp loop */
    static final byte[] STORE_LOOP = {(byte) 0xbb, 0x00, (byte) 0x90, (byte) 0xfe, (byte) 0xc0, (byte) 0x88, 0x07, (byte) 0xeb, (byte) 0xfa};
    static final int RAM = 0x8000;
    static final int CODE = 0x1000;
    /** Past the RAM: no memory slot, so each store exits to the VMM. */
    static final long STORE = 0x9000;

    public static void main(String[] args) throws IOException {
        long exits = args.length > 0 ? Long.parseLong(args[0]) : 200_000;
        String guest = args.length > 1 ? args[1] : "io";
        if (!List.of("io", "mmio", "mmio-record").contains(guest)) {
            throw new IllegalArgumentException("guest " + guest + ": io, mmio or mmio-record");
        }
        byte[] code = guest.equals("io") ? OUT_LOOP : STORE_LOOP;
        // C2 compiles the exit path after about 100k trips round the loop (KVM-PVM, JDK 25)
        long warmup = Math.max(150_000, exits / 4);
        try (Kvm kvm = Kvm.open();
             VmFd vm = kvm.createVm();
             MappedMemory ram = MappedMemory.anonymous(RAM, false)) {
            MemorySegment.copy(MemorySegment.ofArray(code), 0, ram.segment(), CODE, code.length);
            vm.setUserMemoryRegion(0, 0, 0, ram.segment());
            try (VcpuFd vcpu = vm.createVcpu(0); Arena a = Arena.ofConfined()) {
                MemorySegment sregs = vcpu.getSregs(a);
                kvm_segment.base(kvm_sregs.cs(sregs), 0);
                kvm_segment.selector(kvm_sregs.cs(sregs), (short) 0);
                vcpu.setSregs(sregs);
                MemorySegment regs = vcpu.getRegs(a);
                kvm_regs.rip(regs, CODE);
                kvm_regs.rflags(regs, 2);
                vcpu.setRegs(regs);
                if (guest.equals("io")) outLoop(vcpu, warmup, exits);
                else throughVcpuLoop(vcpu, warmup, exits, guest.equals("mmio-record"));
            }
        }
    }

    private static void outLoop(VcpuFd vcpu, long warmup, long exits) {
        KvmRun run = vcpu.kvmRun();
        long sum = 0;
        long start = 0;
        for (long i = 0; i < warmup + exits; i++) {
            if (i == warmup) {
                start = System.nanoTime();
                sum = 0;
            }
            if (vcpu.run() != ExitReason.IO || run.ioPort() != 0x3f8) {
                throw new IllegalStateException("unexpected exit " + run.exitReasonNumber());
            }
            sum += run.ioDataByte(0);
        }
        long took = System.nanoTime() - start;
        System.out.printf("java-io %.1f ns/exit (%d exits, checksum %d)%n", (double) took / exits, exits, sum);
    }

    private static void throughVcpuLoop(VcpuFd vcpu, long warmup, long exits, boolean record) throws IOException {
        MeasuredLoop measured = new MeasuredLoop(warmup, exits);
        StoreCounter counter = new StoreCounter(measured);
        MmioBus mmio = new MmioBus();
        mmio.register("store-counter", MmioWindow.of(STORE, 0x1000), counter);
        // the guest makes neither hypercalls nor system events: no registers, no event mapping
        VcpuLoop loop = new VcpuLoop(vcpu, mmio, new HypercallBus(), null, null, measured, null, null);
        String figures = measured.run(loop, true, record);
        System.out.printf("java-%s %s, checksum %d)%n", record ? "mmio-record" : "mmio", figures, counter.sum);
    }

    /** The MMIO device the guest stores to: sums the values and tells the measurement of each store. */
    static final class StoreCounter implements MmioDevice {
        private final MeasuredLoop measured;
        long sum;

        StoreCounter(MeasuredLoop measured) {
            this.measured = measured;
        }

        @Override
        public long read(int vcpu, long offset, int size) {
            throw new IllegalStateException("the guest only stores");
        }

        @Override
        public void write(int vcpu, long offset, int size, long value) {
            sum += value;
            measured.exited();
        }
    }
}
