package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A VM file descriptor: memory slots, vCPUs, in-kernel devices, interrupt lines, irqfd and
 * ioeventfd, and VM-wide device attributes (on arm64, the SMCCC filter).
 */
public final class VmFd extends KvmFd {
    private static final long CHECK_EXTENSION = HostUapi.request(UapiConstant.KVM_CHECK_EXTENSION);
    private static final long SET_USER_MEMORY_REGION = HostUapi.request(UapiConstant.KVM_SET_USER_MEMORY_REGION);
    private static final long CREATE_VCPU = HostUapi.request(UapiConstant.KVM_CREATE_VCPU);
    private static final long CREATE_DEVICE = HostUapi.request(UapiConstant.KVM_CREATE_DEVICE);
    private static final long IRQ_LINE = HostUapi.request(UapiConstant.KVM_IRQ_LINE);
    private static final long IRQFD = HostUapi.request(UapiConstant.KVM_IRQFD);
    private static final long IOEVENTFD = HostUapi.request(UapiConstant.KVM_IOEVENTFD);
    private static final long ENABLE_CAP = HostUapi.request(UapiConstant.KVM_ENABLE_CAP);
    private static final int CREATE_DEVICE_TEST = (int) HostUapi.constant(UapiConstant.KVM_CREATE_DEVICE_TEST);
    private static final int IRQFD_FLAG_DEASSIGN = (int) HostUapi.constant(UapiConstant.KVM_IRQFD_FLAG_DEASSIGN);
    private static final int IOEVENTFD_FLAG_DATAMATCH =
            (int) HostUapi.constant(UapiConstant.KVM_IOEVENTFD_FLAG_DATAMATCH);
    private static final int IOEVENTFD_FLAG_PIO = (int) HostUapi.constant(UapiConstant.KVM_IOEVENTFD_FLAG_PIO);
    private static final int IOEVENTFD_FLAG_DEASSIGN =
            (int) HostUapi.constant(UapiConstant.KVM_IOEVENTFD_FLAG_DEASSIGN);

    private static final GroupLayout MEM_REGION = HostUapi.struct(UapiStruct.kvm_userspace_memory_region);
    private static final long MR_SLOT = HostUapi.offset(UapiStruct.kvm_userspace_memory_region, "slot");
    private static final long MR_FLAGS = HostUapi.offset(UapiStruct.kvm_userspace_memory_region, "flags");
    private static final long MR_GPA = HostUapi.offset(UapiStruct.kvm_userspace_memory_region, "guest_phys_addr");
    private static final long MR_SIZE = HostUapi.offset(UapiStruct.kvm_userspace_memory_region, "memory_size");
    private static final long MR_UADDR = HostUapi.offset(UapiStruct.kvm_userspace_memory_region, "userspace_addr");

    private static final GroupLayout CREATE_DEV = HostUapi.struct(UapiStruct.kvm_create_device);
    private static final long CD_TYPE = HostUapi.offset(UapiStruct.kvm_create_device, "type");
    private static final long CD_FD = HostUapi.offset(UapiStruct.kvm_create_device, "fd");
    private static final long CD_FLAGS = HostUapi.offset(UapiStruct.kvm_create_device, "flags");

    private static final GroupLayout IRQ_LEVEL = HostUapi.struct(UapiStruct.kvm_irq_level);
    private static final long IL_IRQ = HostUapi.offset(UapiStruct.kvm_irq_level, "irq");
    private static final long IL_LEVEL = HostUapi.offset(UapiStruct.kvm_irq_level, "level");

    private static final GroupLayout IRQFD_S = HostUapi.struct(UapiStruct.kvm_irqfd);
    private static final long IF_FD = HostUapi.offset(UapiStruct.kvm_irqfd, "fd");
    private static final long IF_GSI = HostUapi.offset(UapiStruct.kvm_irqfd, "gsi");
    private static final long IF_FLAGS = HostUapi.offset(UapiStruct.kvm_irqfd, "flags");

    private static final GroupLayout IOEVENTFD_S = HostUapi.struct(UapiStruct.kvm_ioeventfd);
    private static final long IE_DATAMATCH = HostUapi.offset(UapiStruct.kvm_ioeventfd, "datamatch");
    private static final long IE_ADDR = HostUapi.offset(UapiStruct.kvm_ioeventfd, "addr");
    private static final long IE_LEN = HostUapi.offset(UapiStruct.kvm_ioeventfd, "len");
    private static final long IE_FD = HostUapi.offset(UapiStruct.kvm_ioeventfd, "fd");
    private static final long IE_FLAGS = HostUapi.offset(UapiStruct.kvm_ioeventfd, "flags");

    private static final GroupLayout ENABLE_CAP_S = HostUapi.struct(UapiStruct.kvm_enable_cap);
    private static final long EC_CAP = HostUapi.offset(UapiStruct.kvm_enable_cap, "cap");
    private static final long EC_ARGS = HostUapi.offset(UapiStruct.kvm_enable_cap, "args");

    private final Kvm kvm;
    private final long type;

    VmFd(int fd, Kvm kvm, long type) {
        super(fd, "vm");
        this.kvm = kvm;
        this.type = type;
    }

    /** The KVM this VM belongs to. */
    public Kvm kvm() {
        return kvm;
    }

    /** The machine type it was created with (on arm64: the IPA size in bits, 0 for 40). */
    public long type() {
        return type;
    }

    /**
     * KVM_CREATE_IRQCHIP (x86_64): the in-kernel PIC, IOAPIC and local APICs, so a halted vCPU
     * and an application processor waiting for its start-up IPI wait inside KVM_RUN. Call it
     * before creating vCPUs.
     */
    public void createX86Irqchip() {
        X86.createIrqchip(this);
    }

    /**
     * The arm64 VM type for a guest physical address space of {@code bits} bits,
     * KVM_VM_TYPE_ARM_IPA_SIZE(bits).
     */
    public static long armIpaType(int bits) {
        return bits & HostUapi.constant(UapiConstant.KVM_VM_TYPE_ARM_IPA_SIZE_MASK);
    }

    /**
     * KVM_GET_STATS_FD: KVM's binary statistics of this VM (needs KVM_CAP_BINARY_STATS_FD). The
     * caller closes it.
     */
    public StatsFd statsFd() {
        return openStats();
    }

    /** KVM_CHECK_EXTENSION on this VM: the answer that holds for this VM. */
    public int check(Capability cap) {
        return ioctl("KVM_CHECK_EXTENSION", CHECK_EXTENSION, cap.number());
    }

    /**
     * KVM_SET_USER_MEMORY_REGION: maps {@code memory} (host memory that must stay valid while
     * the slot exists) at guest physical address {@code gpa} in {@code slot}. A size of 0
     * deletes the slot.
     */
    public void setUserMemoryRegion(int slot, int flags, long gpa, MemorySegment memory) {
        setUserMemoryRegion(slot, flags, gpa, memory.byteSize(), memory.address());
    }

    private void setUserMemoryRegion(int slot, int flags, long gpa, long size, long hostAddress) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment r = a.allocate(MEM_REGION);
            r.set(JAVA_INT, MR_SLOT, slot);
            r.set(JAVA_INT, MR_FLAGS, flags);
            r.set(JAVA_LONG, MR_GPA, gpa);
            r.set(JAVA_LONG, MR_SIZE, size);
            r.set(JAVA_LONG, MR_UADDR, hostAddress);
            ioctl("KVM_SET_USER_MEMORY_REGION", SET_USER_MEMORY_REGION, r,
                    "slot=" + slot + ", flags=" + flags + ", gpa=0x" + Long.toHexString(gpa)
                            + ", size=0x" + Long.toHexString(size));
        }
    }

    /** Deletes a memory slot. */
    public void deleteUserMemoryRegion(int slot, long gpa) {
        setUserMemoryRegion(slot, 0, gpa, 0, 0);
    }

    /** KVM_CREATE_VCPU, then maps its {@code kvm_run}. */
    public VcpuFd createVcpu(int id) {
        int vcpu = Libc.ioctl(fd(), CREATE_VCPU, id);
        if (vcpu < 0) throw failure("KVM_CREATE_VCPU", "id=" + id);
        return VcpuFd.map(vcpu, id, kvm.vcpuMmapSize());
    }

    /** Whether KVM_CREATE_DEVICE with {@code type} (a KVM_DEV_TYPE_*) would succeed here. */
    public boolean supportsDevice(int type) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment d = createDeviceArg(a, type, CREATE_DEVICE_TEST);
            return Libc.ioctl(fd(), CREATE_DEVICE, d) == 0;
        }
    }

    /** KVM_CREATE_DEVICE for a KVM_DEV_TYPE_* (e.g. the arm64 vGICv3). */
    public DeviceFd createDevice(int type) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment d = createDeviceArg(a, type, 0);
            ioctl("KVM_CREATE_DEVICE", CREATE_DEVICE, d, "type=" + type);
            return new DeviceFd(d.get(JAVA_INT, CD_FD), type);
        }
    }

    private static MemorySegment createDeviceArg(Arena a, int type, int flags) {
        MemorySegment d = a.allocate(CREATE_DEV);
        d.set(JAVA_INT, CD_TYPE, type);
        d.set(JAVA_INT, CD_FLAGS, flags);
        return d;
    }

    /** KVM_IRQ_LINE: drives an interrupt line (on arm64 {@code irq} encodes type, vCPU and number). */
    public void irqLine(int irq, boolean high) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment l = a.allocate(IRQ_LEVEL);
            l.set(JAVA_INT, IL_IRQ, irq);
            l.set(JAVA_INT, IL_LEVEL, high ? 1 : 0);
            ioctl("KVM_IRQ_LINE", IRQ_LINE, l, "irq=0x" + Integer.toHexString(irq) + ", level=" + (high ? 1 : 0));
        }
    }

    /** KVM_IRQFD: a write to {@code event} raises interrupt {@code gsi} without leaving the kernel. */
    public void irqfd(EventFd event, int gsi) {
        irqfd(event, gsi, 0);
    }

    /** KVM_IRQFD with KVM_IRQFD_FLAG_DEASSIGN: undoes {@link #irqfd(EventFd, int)}. */
    public void removeIrqfd(EventFd event, int gsi) {
        irqfd(event, gsi, IRQFD_FLAG_DEASSIGN);
    }

    private void irqfd(EventFd event, int gsi, int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(IRQFD_S);
            s.set(JAVA_INT, IF_FD, event.fd());
            s.set(JAVA_INT, IF_GSI, gsi);
            s.set(JAVA_INT, IF_FLAGS, flags);
            ioctl("KVM_IRQFD", IRQFD, s, "fd=" + event.fd() + ", gsi=" + gsi + ", flags=" + flags);
        }
    }

    /**
     * KVM_IOEVENTFD: a guest write of {@code length} bytes at {@code address} (an MMIO address, or
     * a port when {@code pio}) signals {@code event} instead of exiting; with a {@code datamatch}
     * only writes of that value do.
     */
    public void ioeventfd(EventFd event, long address, int length, boolean pio, Long datamatch) {
        ioeventfd(event, address, length, pio, datamatch, false);
    }

    /** Undoes {@link #ioeventfd(EventFd, long, int, boolean, Long)} with the same arguments. */
    public void removeIoeventfd(EventFd event, long address, int length, boolean pio, Long datamatch) {
        ioeventfd(event, address, length, pio, datamatch, true);
    }

    private void ioeventfd(EventFd event, long address, int length, boolean pio, Long datamatch,
                           boolean deassign) {
        int flags = (pio ? IOEVENTFD_FLAG_PIO : 0) | (datamatch != null ? IOEVENTFD_FLAG_DATAMATCH : 0)
                | (deassign ? IOEVENTFD_FLAG_DEASSIGN : 0);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(IOEVENTFD_S);
            s.set(JAVA_LONG, IE_DATAMATCH, datamatch == null ? 0 : datamatch);
            s.set(JAVA_LONG, IE_ADDR, address);
            s.set(JAVA_INT, IE_LEN, length);
            s.set(JAVA_INT, IE_FD, event.fd());
            s.set(JAVA_INT, IE_FLAGS, flags);
            ioctl("KVM_IOEVENTFD", IOEVENTFD, s, "addr=0x" + Long.toHexString(address) + ", len="
                    + length + ", flags=" + flags);
        }
    }

    /** KVM_ENABLE_CAP on the VM with up to four arguments. */
    public void enableCap(Capability cap, long... args) {
        if (args.length > 4) throw new IllegalArgumentException("KVM_ENABLE_CAP takes at most 4 arguments");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(ENABLE_CAP_S);
            s.set(JAVA_INT, EC_CAP, cap.number());
            for (int i = 0; i < args.length; i++) s.set(JAVA_LONG, EC_ARGS + 8L * i, args[i]);
            ioctl("KVM_ENABLE_CAP", ENABLE_CAP, s, cap);
        }
    }

    /** KVM_ARM_PREFERRED_TARGET (arm64): the CPU target and features KVM suggests for vCPUs. */
    public Arm64.VcpuInit armPreferredTarget() {
        return Arm64.preferredTarget(this);
    }

    /**
     * KVM_ARM_VM_SMCCC_FILTER (arm64, Linux 6.4+): what KVM does with SMCCC function ids
     * {@code firstFunction .. firstFunction + count - 1}. Must be set before any vCPU runs.
     */
    public void setSmcccFilter(long firstFunction, int count, Arm64.SmcccAction action) {
        Arm64.setSmcccFilter(this, firstFunction, count, action);
    }
}
