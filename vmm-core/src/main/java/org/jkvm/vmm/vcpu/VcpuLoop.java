package org.jkvm.vmm.vcpu;

import java.lang.System.Logger.Level;
import java.util.BitSet;
import java.util.Optional;

import org.jkvm.kvm.ExitReason;
import org.jkvm.kvm.HostCpus;
import org.jkvm.kvm.KvmException;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.MmioBus;
import org.jkvm.vmm.bus.RangeBus;

/**
 * One vCPU's thread body: pins itself if asked, enters the guest, sends each exit to the bus
 * that owns it, and returns when the machine stops. What the guest does wrong (an access or a
 * call nothing answers, an access KVM cannot decode) is answered and counted, never fatal; an
 * exit jkvm cannot handle ends the machine with a {@link VmOutcome.Failed} that names the vCPU
 * and the exit. It reads each exit through {@link VcpuExits}, in place and without allocating;
 * a test drives it with a scripted vCPU.
 */
public final class VcpuLoop implements Runnable {
    private static final System.Logger LOG = System.getLogger(VcpuLoop.class.getName());

    private final VcpuExits vcpu;
    private final int id;
    private final MmioBus mmio;
    private final HypercallBus hypercalls;
    private final SystemEvents systemEvents;
    private final MachineControl machine;
    private final BitSet pin;
    private final VcpuRunListener listener;
    private final VcpuStats stats;
    /** Whether each exit reads the clock twice, for the times inside and outside KVM_RUN; set before the thread starts. */
    private boolean timed;

    /**
     * @param pin      the host CPUs this vCPU's thread may run on, or null for no pinning
     * @param listener told as the vCPU enters and leaves KVM_RUN, or null
     */
    public VcpuLoop(VcpuFd vcpu, MmioBus mmio, HypercallBus hypercalls, HypercallRegisters registers,
                    SystemEvents systemEvents, MachineControl machine, BitSet pin, VcpuRunListener listener) {
        this(new KvmVcpuExits(vcpu, registers), mmio, hypercalls, systemEvents, machine, pin, listener);
    }

    /** The loop over any vCPU's exits, e.g. a scripted one in a test; parameters as above. */
    public VcpuLoop(VcpuExits vcpu, MmioBus mmio, HypercallBus hypercalls, SystemEvents systemEvents,
                    MachineControl machine, BitSet pin, VcpuRunListener listener) {
        this.vcpu = vcpu;
        this.id = vcpu.id();
        this.mmio = mmio;
        this.hypercalls = hypercalls;
        this.systemEvents = systemEvents;
        this.machine = machine;
        this.pin = pin;
        this.listener = listener;
        this.stats = new VcpuStats(id);
    }

    /** This vCPU's counters. */
    public VcpuStats stats() {
        return stats;
    }

    /**
     * Has the loop time each stay inside KVM_RUN and each exit's handling outside it
     * ({@link VcpuStats#nanosInKvmRun}, {@link VcpuStats#nanosOutside}); call before {@link #run}.
     * Off unless asked: the two clock reads are a part of every exit's round trip that nothing
     * reads without it (bench/exit-roundtrip/README.md).
     */
    public VcpuLoop timeExits() {
        timed = true;
        return this;
    }

    @Override
    public void run() {
        Optional<ThreadSchedStat> start = ThreadSchedStat.current();
        try {
            if (pin != null) HostCpus.pinCurrentThread(pin);
            vcpu.bindToCurrentThread();
            if (listener != null) listener.started(id, HostCpus.currentTid());
            loop();
        } catch (KvmException | IllegalStateException e) {
            machine.finish(new VmOutcome.Failed("vcpu " + id + ": " + e.getMessage(), e));
        } catch (RuntimeException | Error e) {
            LOG.log(Level.ERROR, "vcpu " + id + " failed", e);
            machine.finish(new VmOutcome.Failed("vcpu " + id + ": " + e, e));
        } finally {
            start.ifPresent(s -> ThreadSchedStat.current().ifPresent(end -> stats.scheduled(end.since(s))));
            if (listener != null) listener.stopped(id);
        }
    }

    private void loop() {
        boolean timed = this.timed; // set before the thread started: one read serves the whole loop
        VcpuRunListener entries = listener != null && listener.followsEntries() ? listener : null;
        long left = timed ? System.nanoTime() : 0;
        while (!machine.stopping()) {
            if (entries != null) entries.entering(id);
            long entered = timed ? System.nanoTime() : 0;
            ExitReason exit = vcpu.run();
            long returned = timed ? System.nanoTime() : 0;
            stats.exit(exit, returned - entered, entered - left);
            left = returned;
            switch (exit) {
                case MMIO -> {
                    if (vcpu.mmioIsWrite()) {
                        mmio.write(id, vcpu.mmioAddress(), vcpu.mmioLength(), vcpu.mmioValue());
                    } else {
                        vcpu.setMmioValue(mmio.read(id, vcpu.mmioAddress(), vcpu.mmioLength()));
                    }
                }
                case HYPERCALL -> hypercalls.call(id, vcpu.hypercallNr(), vcpu.hypercall());
                case SYSTEM_EVENT -> machine.finish(systemEvents.outcome(vcpu.systemEventType(), id));
                case INTR -> {
                    if (listener != null && !machine.stopping()) listener.interrupted(id);
                }
                case FAIL_ENTRY -> machine.finish(new VmOutcome.Failed("vcpu " + id
                        + ": KVM could not enter the guest, hardware reason 0x"
                        + Long.toHexString(vcpu.failEntryReason()), null));
                case INTERNAL_ERROR -> machine.finish(new VmOutcome.Failed("vcpu " + id
                        + ": KVM internal error, suberror " + vcpu.internalSuberror(), null));
                case ARM_NISV -> undecodable();
                default -> machine.finish(new VmOutcome.Failed("vcpu " + id + ": unexpected exit "
                        + exit + " (" + exit.number() + ")", null));
            }
        }
    }

    /**
     * An access outside RAM that KVM could not decode (a load/store pair, a writeback, ...): no
     * device can be given it, so the guest gets an external data abort, as from a bus error,
     * and goes on. It is the guest's mistake; a guest doing it in a loop is only logged at first.
     */
    private void undecodable() {
        vcpu.injectDataAbort();
        long n = stats.exits(ExitReason.ARM_NISV);
        if (n <= RangeBus.LOGGED_MISSES) {
            LOG.log(Level.WARNING, "vcpu {0}: access at guest address 0x{1} with an instruction KVM cannot decode"
                    + " (ESR ISS 0x{2}): the guest gets an external data abort{3}", id,
                    Long.toHexString(vcpu.armNisvFaultIpa()), Long.toHexString(vcpu.armNisvEsrIss()),
                    n == RangeBus.LOGGED_MISSES ? " (further ones on this vCPU are only counted)" : "");
        }
    }
}
