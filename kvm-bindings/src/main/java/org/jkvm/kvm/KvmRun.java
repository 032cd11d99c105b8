package org.jkvm.kvm;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * A typed view of one vCPU's mapped {@code struct kvm_run}: the exit reason and, for each exit
 * reason jkvm handles, its fields. Offsets come from the generated layout of the host
 * architecture; nothing here allocates, so it can sit on the exit path.
 */
public final class KvmRun {
    private static final long IMMEDIATE_EXIT = HostUapi.offset(UapiStruct.kvm_run, "immediate_exit");
    private static final long EXIT_REASON = HostUapi.offset(UapiStruct.kvm_run, "exit_reason");
    private static final long FAIL_ENTRY_REASON =
            HostUapi.offset(UapiStruct.kvm_run, "fail_entry", "hardware_entry_failure_reason");
    private static final long FAIL_ENTRY_CPU = HostUapi.offset(UapiStruct.kvm_run, "fail_entry", "cpu");
    private static final long IO_DIRECTION = HostUapi.offset(UapiStruct.kvm_run, "io", "direction");
    private static final long IO_SIZE = HostUapi.offset(UapiStruct.kvm_run, "io", "size");
    private static final long IO_PORT = HostUapi.offset(UapiStruct.kvm_run, "io", "port");
    private static final long IO_COUNT = HostUapi.offset(UapiStruct.kvm_run, "io", "count");
    private static final long IO_DATA_OFFSET = HostUapi.offset(UapiStruct.kvm_run, "io", "data_offset");
    private static final int IO_OUT = (int) HostUapi.constant(UapiConstant.KVM_EXIT_IO_OUT);
    private static final long MMIO_PHYS_ADDR = HostUapi.offset(UapiStruct.kvm_run, "mmio", "phys_addr");
    private static final long MMIO_DATA = HostUapi.offset(UapiStruct.kvm_run, "mmio", "data");
    private static final long MMIO_LEN = HostUapi.offset(UapiStruct.kvm_run, "mmio", "len");
    private static final long MMIO_IS_WRITE = HostUapi.offset(UapiStruct.kvm_run, "mmio", "is_write");
    private static final long HYPERCALL_NR = HostUapi.offset(UapiStruct.kvm_run, "hypercall", "nr");
    private static final long HYPERCALL_ARGS = HostUapi.offset(UapiStruct.kvm_run, "hypercall", "args");
    private static final long HYPERCALL_RET = HostUapi.offset(UapiStruct.kvm_run, "hypercall", "ret");
    private static final long HYPERCALL_FLAGS = HostUapi.offset(UapiStruct.kvm_run, "hypercall", "flags");
    private static final long INTERNAL_SUBERROR = HostUapi.offset(UapiStruct.kvm_run, "internal", "suberror");
    private static final long INTERNAL_NDATA = HostUapi.offset(UapiStruct.kvm_run, "internal", "ndata");
    private static final long INTERNAL_DATA = HostUapi.offset(UapiStruct.kvm_run, "internal", "data");
    private static final long SYSTEM_EVENT_TYPE = HostUapi.offset(UapiStruct.kvm_run, "system_event", "type");
    private static final long SYSTEM_EVENT_NDATA = HostUapi.offset(UapiStruct.kvm_run, "system_event", "ndata");
    private static final long SYSTEM_EVENT_DATA = HostUapi.offset(UapiStruct.kvm_run, "system_event", "data");
    private static final long ARM_NISV_ESR_ISS = HostUapi.offset(UapiStruct.kvm_run, "arm_nisv", "esr_iss");
    private static final long ARM_NISV_FAULT_IPA = HostUapi.offset(UapiStruct.kvm_run, "arm_nisv", "fault_ipa");

    private final MemorySegment run;

    KvmRun(MemorySegment run) {
        this.run = run;
    }

    /** The whole mapping (kvm_run plus what follows it, e.g. I/O data). */
    public MemorySegment segment() {
        return run;
    }

    /** The raw KVM_EXIT_* number of the last exit. */
    public int exitReasonNumber() {
        return run.get(JAVA_INT_UNALIGNED, EXIT_REASON);
    }

    /** Sets or clears {@code immediate_exit}: while set, KVM_RUN returns EINTR at once. */
    public void setImmediateExit(boolean on) {
        run.set(JAVA_BYTE, IMMEDIATE_EXIT, (byte) (on ? 1 : 0));
    }

    /** Whether {@code immediate_exit} is set. */
    public boolean immediateExit() {
        return run.get(JAVA_BYTE, IMMEDIATE_EXIT) != 0;
    }

    // KVM_EXIT_IO (x86 port I/O)

    /** The I/O port. */
    public int ioPort() {
        return Short.toUnsignedInt(run.get(JAVA_SHORT_UNALIGNED, IO_PORT));
    }

    /** Bytes per access: 1, 2 or 4. */
    public int ioSize() {
        return Byte.toUnsignedInt(run.get(JAVA_BYTE, IO_SIZE));
    }

    /** True for OUT (guest writes), false for IN. */
    public boolean ioIsOut() {
        return run.get(JAVA_BYTE, IO_DIRECTION) == IO_OUT;
    }

    /** Repetitions (string I/O); the data holds {@code count * size} bytes. */
    public int ioCount() {
        return run.get(JAVA_INT_UNALIGNED, IO_COUNT);
    }

    /** Offset of the I/O data inside the mapping. */
    public long ioDataOffset() {
        return run.get(JAVA_LONG_UNALIGNED, IO_DATA_OFFSET);
    }

    /** Reads byte {@code i} of the I/O data. */
    public int ioDataByte(int i) {
        return Byte.toUnsignedInt(run.get(JAVA_BYTE, ioDataOffset() + i));
    }

    /** The first access's value, little endian, {@link #ioSize()} bytes. */
    public long ioValue() {
        return readLe(ioDataOffset(), ioSize());
    }

    /** Sets the value an IN returns to the guest (first access). */
    public void setIoValue(long value) {
        writeLe(ioDataOffset(), ioSize(), value);
    }

    // KVM_EXIT_MMIO

    /** The guest physical address accessed. */
    public long mmioAddress() {
        return run.get(JAVA_LONG_UNALIGNED, MMIO_PHYS_ADDR);
    }

    /** The access width in bytes (1 to 8). */
    public int mmioLength() {
        return run.get(JAVA_INT_UNALIGNED, MMIO_LEN);
    }

    /** True for a guest write. */
    public boolean mmioIsWrite() {
        return run.get(JAVA_BYTE, MMIO_IS_WRITE) != 0;
    }

    /** The written value, little endian, {@link #mmioLength()} bytes. */
    public long mmioValue() {
        return readLe(MMIO_DATA, Math.min(8, mmioLength()));
    }

    /** Sets the value a guest read gets. */
    public void setMmioValue(long value) {
        writeLe(MMIO_DATA, Math.min(8, mmioLength()), value);
    }

    // KVM_EXIT_HYPERCALL (on arm64: an SMCCC call forwarded by the SMCCC filter)

    /** The hypercall number; on arm64 the SMCCC function id. */
    public long hypercallNr() {
        return run.get(JAVA_LONG_UNALIGNED, HYPERCALL_NR);
    }

    /** Argument {@code i} (0..5); on arm64 always zero: read x1.. with ONE_REG instead. */
    public long hypercallArg(int i) {
        return run.get(JAVA_LONG_UNALIGNED, HYPERCALL_ARGS + 8L * i);
    }

    /** Sets the return value (x86; arm64 returns through x0..x3 with ONE_REG). */
    public void setHypercallRet(long value) {
        run.set(JAVA_LONG_UNALIGNED, HYPERCALL_RET, value);
    }

    /** The flags; on arm64 bit 0 (KVM_HYPERCALL_EXIT_SMC) is set for SMC, clear for HVC. */
    public long hypercallFlags() {
        return run.get(JAVA_LONG_UNALIGNED, HYPERCALL_FLAGS);
    }

    // KVM_EXIT_SYSTEM_EVENT

    /** The KVM_SYSTEM_EVENT_* type (shutdown, reset, crash, ...). */
    public int systemEventType() {
        return run.get(JAVA_INT_UNALIGNED, SYSTEM_EVENT_TYPE);
    }

    /** How many data words the event carries. */
    public int systemEventNdata() {
        return run.get(JAVA_INT_UNALIGNED, SYSTEM_EVENT_NDATA);
    }

    /** Data word {@code i} (on arm64 data[0] is the PSCI function's x1... per event). */
    public long systemEventData(int i) {
        return run.get(JAVA_LONG_UNALIGNED, SYSTEM_EVENT_DATA + 8L * i);
    }

    // KVM_EXIT_FAIL_ENTRY, KVM_EXIT_INTERNAL_ERROR, KVM_EXIT_ARM_NISV

    /** The hardware's reason for failing to enter the guest. */
    public long failEntryReason() {
        return run.get(JAVA_LONG_UNALIGNED, FAIL_ENTRY_REASON);
    }

    /** The host CPU a failed entry happened on. */
    public int failEntryCpu() {
        return run.get(JAVA_INT_UNALIGNED, FAIL_ENTRY_CPU);
    }

    /** The KVM_INTERNAL_ERROR_* sub-error. */
    public int internalSuberror() {
        return run.get(JAVA_INT_UNALIGNED, INTERNAL_SUBERROR);
    }

    /** How many data words an internal error carries. */
    public int internalNdata() {
        return run.get(JAVA_INT_UNALIGNED, INTERNAL_NDATA);
    }

    /** Internal-error data word {@code i}. */
    public long internalData(int i) {
        return run.get(JAVA_LONG_UNALIGNED, INTERNAL_DATA + 8L * i);
    }

    /** arm64: the syndrome of a data abort KVM could not decode (no valid ISV). */
    public long armNisvEsrIss() {
        return run.get(JAVA_LONG_UNALIGNED, ARM_NISV_ESR_ISS);
    }

    /** arm64: the faulting IPA of such an abort. */
    public long armNisvFaultIpa() {
        return run.get(JAVA_LONG_UNALIGNED, ARM_NISV_FAULT_IPA);
    }

    private long readLe(long offset, int len) {
        long v = 0;
        for (int i = len - 1; i >= 0; i--) v = (v << 8) | Byte.toUnsignedLong(run.get(JAVA_BYTE, offset + i));
        return v;
    }

    private void writeLe(long offset, int len, long value) {
        for (int i = 0; i < len; i++) run.set(JAVA_BYTE, offset + i, (byte) (value >>> (8 * i)));
    }
}
