package org.jkvm.vmm.vcpu;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.jkvm.kvm.ExitReason;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.bus.ArrayHypercall;
import org.jkvm.vmm.bus.Hypercall;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.MmioBus;

/**
 * A vCPU without KVM: hands the run loop a script of exits, one per {@link #run}, and records
 * what the loop hands back to the guest. When the script is done it stops the machine the way
 * a stop from outside does (the outcome {@link #SCRIPT_ENDED}, then a kick: INTR). Entering the
 * guest after the machine stopped is a test failure. Replaying MMIO writes and INTRs allocates
 * nothing (the steps are built beforehand), so the loop's own allocation can be measured.
 */
public final class ScriptedVcpu implements VcpuExits {
    /** The outcome of a script that ran to its end without the guest ending the machine. */
    public static final VmOutcome SCRIPT_ENDED = new VmOutcome.Stopped("script ended");

    private record Step(ExitReason reason, Consumer<ScriptedVcpu> fields) {}

    private final int id;
    private final RecordingMachine machine;
    private final List<Step> script = new ArrayList<>();
    private int next;
    private boolean bound;

    private boolean mmioWrite;
    private long mmioAddress;
    private int mmioLength;
    private long mmioValue;
    private long hypercallNr;
    private ArrayHypercall hypercall;
    private int systemEventType;
    private long failEntryReason;
    private int internalSuberror;
    private long armNisvFaultIpa;
    private long armNisvEsrIss;

    private final List<Long> mmioValuesReturned = new ArrayList<>();
    private final List<ArrayHypercall> hypercalls = new ArrayList<>();
    private final List<Long> dataAbortsInjected = new ArrayList<>();

    /** vCPU {@code id} of {@code machine}. */
    public ScriptedVcpu(int id, RecordingMachine machine) {
        this.id = id;
        this.machine = machine;
    }

    /** The run loop over this vCPU with the given buses and system-event mapping. */
    public VcpuLoop loop(MmioBus mmio, HypercallBus hypercalls, SystemEvents events) {
        return new VcpuLoop(this, mmio, hypercalls, events, machine, null, null);
    }

    /** An exit that carries no fields, or whose fields the loop does not read. */
    public ScriptedVcpu exit(ExitReason reason) {
        return step(reason, v -> { });
    }

    /** The same exit {@code times} times over (one step object, so replaying it allocates nothing). */
    public ScriptedVcpu repeat(int times, ExitReason reason, Consumer<ScriptedVcpu> fields) {
        Step s = new Step(reason, fields);
        for (int i = 0; i < times; i++) script.add(s);
        return this;
    }

    /** A guest write of {@code length} bytes of {@code value} at {@code address}. */
    public ScriptedVcpu mmioWrite(long address, int length, long value) {
        return step(ExitReason.MMIO, v -> v.mmio(true, address, length, value));
    }

    /** A guest read of {@code length} bytes at {@code address}. */
    public ScriptedVcpu mmioRead(long address, int length) {
        return step(ExitReason.MMIO, v -> v.mmio(false, address, length, 0));
    }

    /** A hypercall of function {@code nr} with {@code arguments}. */
    public ScriptedVcpu hypercall(long nr, long... arguments) {
        return step(ExitReason.HYPERCALL, v -> {
            v.hypercallNr = nr;
            v.hypercall = new ArrayHypercall(arguments);
            v.hypercalls.add(v.hypercall);
        });
    }

    /** A system event of {@code type}. */
    public ScriptedVcpu systemEvent(int type) {
        return step(ExitReason.SYSTEM_EVENT, v -> v.systemEventType = type);
    }

    /** A failed entry with the hardware's {@code reason}. */
    public ScriptedVcpu failEntry(long reason) {
        return step(ExitReason.FAIL_ENTRY, v -> v.failEntryReason = reason);
    }

    /** A KVM internal error with {@code suberror}. */
    public ScriptedVcpu internalError(int suberror) {
        return step(ExitReason.INTERNAL_ERROR, v -> v.internalSuberror = suberror);
    }

    /** An arm64 data abort at {@code ipa} that KVM could not decode. */
    public ScriptedVcpu armNisv(long ipa, long esrIss) {
        return step(ExitReason.ARM_NISV, v -> {
            v.armNisvFaultIpa = ipa;
            v.armNisvEsrIss = esrIss;
        });
    }

    /** KVM_RUN returning an exit number no {@link ExitReason} has: thrown as the real vCPU does. */
    public ScriptedVcpu unknownExit(int number) {
        return step(null, v -> {
            throw new IllegalStateException("vcpu " + id + ": KVM_RUN returned unknown exit reason " + number);
        });
    }

    private ScriptedVcpu step(ExitReason reason, Consumer<ScriptedVcpu> fields) {
        script.add(new Step(reason, fields));
        return this;
    }

    /** Sets the MMIO fields (for {@link #repeat}). */
    public void mmio(boolean write, long address, int length, long value) {
        mmioWrite = write;
        mmioAddress = address;
        mmioLength = length;
        mmioValue = value;
    }

    /**
     * Sets the hypercall fields (for {@link #repeat}): function {@code nr} with no arguments,
     * answered into {@code call}, which is neither copied nor listed in {@link #hypercallResults}.
     */
    public void hypercall(long nr, ArrayHypercall call) {
        hypercallNr = nr;
        hypercall = call;
    }

    /** The values the loop gave the guest's MMIO reads, in order. */
    public List<Long> mmioValuesReturned() {
        return mmioValuesReturned;
    }

    /** The results the loop handed back for each hypercall, in order. */
    public List<long[]> hypercallResults() {
        return hypercalls.stream().map(ArrayHypercall::results).toList();
    }

    /** The addresses of the NISV exits the loop answered with a data abort, in order. */
    public List<Long> dataAbortsInjected() {
        return dataAbortsInjected;
    }

    /** Whether the loop bound this vCPU to its thread. */
    public boolean bound() {
        return bound;
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public void bindToCurrentThread() {
        bound = true;
    }

    @Override
    public ExitReason run() {
        if (machine.stopping()) throw new AssertionError("vcpu " + id + " entered the guest after the machine stopped");
        if (next == script.size()) {
            machine.finish(SCRIPT_ENDED);
            return ExitReason.INTR;
        }
        Step s = script.get(next++);
        s.fields().accept(this);
        return s.reason();
    }

    @Override
    public boolean mmioIsWrite() {
        return mmioWrite;
    }

    @Override
    public long mmioAddress() {
        return mmioAddress;
    }

    @Override
    public int mmioLength() {
        return mmioLength;
    }

    @Override
    public long mmioValue() {
        return mmioValue;
    }

    @Override
    public void setMmioValue(long value) {
        mmioValuesReturned.add(value);
    }

    @Override
    public long hypercallNr() {
        return hypercallNr;
    }

    @Override
    public Hypercall hypercall() {
        return hypercall;
    }

    @Override
    public int systemEventType() {
        return systemEventType;
    }

    @Override
    public long failEntryReason() {
        return failEntryReason;
    }

    @Override
    public int internalSuberror() {
        return internalSuberror;
    }

    @Override
    public long armNisvFaultIpa() {
        return armNisvFaultIpa;
    }

    @Override
    public long armNisvEsrIss() {
        return armNisvEsrIss;
    }

    @Override
    public void injectDataAbort() {
        dataAbortsInjected.add(armNisvFaultIpa);
    }
}
