package org.jkvm.kvm;

import java.lang.foreign.GroupLayout;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.kvm.sys.aarch64.jkvm_tun_ifreq;
import org.jkvm.kvm.sys.aarch64.iovec;
import org.jkvm.kvm.sys.aarch64.kvm_create_device;
import org.jkvm.kvm.sys.aarch64.kvm_device_attr;
import org.jkvm.kvm.sys.aarch64.kvm_enable_cap;
import org.jkvm.kvm.sys.aarch64.kvm_ioeventfd;
import org.jkvm.kvm.sys.aarch64.kvm_irq_level;
import org.jkvm.kvm.sys.aarch64.kvm_irqfd;
import org.jkvm.kvm.sys.aarch64.kvm_one_reg;
import org.jkvm.kvm.sys.aarch64.kvm_run;
import org.jkvm.kvm.sys.aarch64.kvm_signal_mask;
import org.jkvm.kvm.sys.aarch64.kvm_stats_desc;
import org.jkvm.kvm.sys.aarch64.kvm_stats_header;
import org.jkvm.kvm.sys.aarch64.kvm_userspace_memory_region;
import org.jkvm.kvm.sys.aarch64.perf_event_attr;
import org.jkvm.kvm.sys.aarch64.perf_event_header;
import org.jkvm.kvm.sys.aarch64.perf_event_mmap_page;
import org.jkvm.kvm.sys.aarch64.sigevent;
import org.jkvm.kvm.sys.aarch64.termios;

/** The arm64 generated uapi values, read by direct calls to the arm64 generated classes. */
final class Arm64Uapi implements Uapi {

    @Override
    public long constant(UapiConstant c) {
        return switch (c) {
            case BRKINT -> KvmArm64.BRKINT();
            case CLOCK_MONOTONIC -> KvmArm64.CLOCK_MONOTONIC();
            case CLOCK_THREAD_CPUTIME_ID -> KvmArm64.CLOCK_THREAD_CPUTIME_ID();
            case ECHO -> KvmArm64.ECHO();
            case ECHONL -> KvmArm64.ECHONL();
            case FALLOC_FL_KEEP_SIZE -> KvmArm64.FALLOC_FL_KEEP_SIZE();
            case FALLOC_FL_PUNCH_HOLE -> KvmArm64.FALLOC_FL_PUNCH_HOLE();
            case ICANON -> KvmArm64.ICANON();
            case ICRNL -> KvmArm64.ICRNL();
            case IEXTEN -> KvmArm64.IEXTEN();
            case IFF_NO_PI -> KvmArm64.IFF_NO_PI();
            case IFF_TAP -> KvmArm64.IFF_TAP();
            case IFF_VNET_HDR -> KvmArm64.IFF_VNET_HDR();
            case IGNBRK -> KvmArm64.IGNBRK();
            case IGNCR -> KvmArm64.IGNCR();
            case INLCR -> KvmArm64.INLCR();
            case ISIG -> KvmArm64.ISIG();
            case ISTRIP -> KvmArm64.ISTRIP();
            case IXON -> KvmArm64.IXON();
            case JKVM_PERF_ATTR_FLAGS_OFFSET -> KvmArm64.JKVM_PERF_ATTR_FLAGS_OFFSET();
            case JKVM_PERF_ATTR_FLAG_CONTEXT_SWITCH -> KvmArm64.JKVM_PERF_ATTR_FLAG_CONTEXT_SWITCH();
            case JKVM_PERF_ATTR_FLAG_DISABLED -> KvmArm64.JKVM_PERF_ATTR_FLAG_DISABLED();
            case JKVM_PERF_ATTR_FLAG_EXCLUDE_HV -> KvmArm64.JKVM_PERF_ATTR_FLAG_EXCLUDE_HV();
            case JKVM_PERF_ATTR_FLAG_EXCLUDE_KERNEL -> KvmArm64.JKVM_PERF_ATTR_FLAG_EXCLUDE_KERNEL();
            case JKVM_PERF_ATTR_FLAG_SAMPLE_ID_ALL -> KvmArm64.JKVM_PERF_ATTR_FLAG_SAMPLE_ID_ALL();
            case JKVM_PERF_ATTR_FLAG_USE_CLOCKID -> KvmArm64.JKVM_PERF_ATTR_FLAG_USE_CLOCKID();
            case JKVM_PERF_ATTR_FLAG_WATERMARK -> KvmArm64.JKVM_PERF_ATTR_FLAG_WATERMARK();
            case JKVM_TUN_IFNAMSIZ -> KvmArm64.JKVM_TUN_IFNAMSIZ();
            case KVM_API_VERSION -> KvmArm64.KVM_API_VERSION();
            case KVM_CHECK_EXTENSION -> KvmArm64.KVM_CHECK_EXTENSION();
            case KVM_CREATE_DEVICE -> KvmArm64.KVM_CREATE_DEVICE();
            case KVM_CREATE_DEVICE_TEST -> KvmArm64.KVM_CREATE_DEVICE_TEST();
            case KVM_CREATE_VCPU -> KvmArm64.KVM_CREATE_VCPU();
            case KVM_CREATE_VM -> KvmArm64.KVM_CREATE_VM();
            case KVM_ENABLE_CAP -> KvmArm64.KVM_ENABLE_CAP();
            case KVM_EXIT_IO_OUT -> KvmArm64.KVM_EXIT_IO_OUT();
            case KVM_GET_API_VERSION -> KvmArm64.KVM_GET_API_VERSION();
            case KVM_GET_DEVICE_ATTR -> KvmArm64.KVM_GET_DEVICE_ATTR();
            case KVM_GET_ONE_REG -> KvmArm64.KVM_GET_ONE_REG();
            case KVM_GET_STATS_FD -> KvmArm64.KVM_GET_STATS_FD();
            case KVM_GET_VCPU_MMAP_SIZE -> KvmArm64.KVM_GET_VCPU_MMAP_SIZE();
            case KVM_HAS_DEVICE_ATTR -> KvmArm64.KVM_HAS_DEVICE_ATTR();
            case KVM_IOEVENTFD -> KvmArm64.KVM_IOEVENTFD();
            case KVM_IOEVENTFD_FLAG_DATAMATCH -> KvmArm64.KVM_IOEVENTFD_FLAG_DATAMATCH();
            case KVM_IOEVENTFD_FLAG_DEASSIGN -> KvmArm64.KVM_IOEVENTFD_FLAG_DEASSIGN();
            case KVM_IOEVENTFD_FLAG_PIO -> KvmArm64.KVM_IOEVENTFD_FLAG_PIO();
            case KVM_IRQFD -> KvmArm64.KVM_IRQFD();
            case KVM_IRQFD_FLAG_DEASSIGN -> KvmArm64.KVM_IRQFD_FLAG_DEASSIGN();
            case KVM_IRQ_LINE -> KvmArm64.KVM_IRQ_LINE();
            case KVM_RUN -> KvmArm64.KVM_RUN();
            case KVM_SET_DEVICE_ATTR -> KvmArm64.KVM_SET_DEVICE_ATTR();
            case KVM_SET_ONE_REG -> KvmArm64.KVM_SET_ONE_REG();
            case KVM_SET_SIGNAL_MASK -> KvmArm64.KVM_SET_SIGNAL_MASK();
            case KVM_SET_USER_MEMORY_REGION -> KvmArm64.KVM_SET_USER_MEMORY_REGION();
            case KVM_STATS_BASE_MASK -> KvmArm64.KVM_STATS_BASE_MASK();
            case KVM_STATS_BASE_POW2 -> KvmArm64.KVM_STATS_BASE_POW2();
            case KVM_STATS_TYPE_MASK -> KvmArm64.KVM_STATS_TYPE_MASK();
            case KVM_STATS_TYPE_CUMULATIVE -> KvmArm64.KVM_STATS_TYPE_CUMULATIVE();
            case KVM_STATS_TYPE_INSTANT -> KvmArm64.KVM_STATS_TYPE_INSTANT();
            case KVM_STATS_TYPE_PEAK -> KvmArm64.KVM_STATS_TYPE_PEAK();
            case KVM_STATS_TYPE_LINEAR_HIST -> KvmArm64.KVM_STATS_TYPE_LINEAR_HIST();
            case KVM_STATS_TYPE_LOG_HIST -> KvmArm64.KVM_STATS_TYPE_LOG_HIST();
            case KVM_STATS_UNIT_MASK -> KvmArm64.KVM_STATS_UNIT_MASK();
            case KVM_STATS_UNIT_NONE -> KvmArm64.KVM_STATS_UNIT_NONE();
            case KVM_STATS_UNIT_BYTES -> KvmArm64.KVM_STATS_UNIT_BYTES();
            case KVM_STATS_UNIT_SECONDS -> KvmArm64.KVM_STATS_UNIT_SECONDS();
            case KVM_STATS_UNIT_CYCLES -> KvmArm64.KVM_STATS_UNIT_CYCLES();
            case KVM_STATS_UNIT_BOOLEAN -> KvmArm64.KVM_STATS_UNIT_BOOLEAN();
            case KVM_VM_TYPE_ARM_IPA_SIZE_MASK -> KvmArm64.KVM_VM_TYPE_ARM_IPA_SIZE_MASK();
            case PARMRK -> KvmArm64.PARMRK();
            case PERF_COUNT_SW_DUMMY -> KvmArm64.PERF_COUNT_SW_DUMMY();
            case PERF_EVENT_IOC_DISABLE -> KvmArm64.PERF_EVENT_IOC_DISABLE();
            case PERF_EVENT_IOC_ENABLE -> KvmArm64.PERF_EVENT_IOC_ENABLE();
            case PERF_FLAG_FD_CLOEXEC -> KvmArm64.PERF_FLAG_FD_CLOEXEC();
            case PERF_RECORD_LOST -> KvmArm64.PERF_RECORD_LOST();
            case PERF_RECORD_MISC_SWITCH_OUT -> KvmArm64.PERF_RECORD_MISC_SWITCH_OUT();
            case PERF_RECORD_MISC_SWITCH_OUT_PREEMPT -> KvmArm64.PERF_RECORD_MISC_SWITCH_OUT_PREEMPT();
            case PERF_RECORD_SWITCH -> KvmArm64.PERF_RECORD_SWITCH();
            case PERF_RECORD_SWITCH_CPU_WIDE -> KvmArm64.PERF_RECORD_SWITCH_CPU_WIDE();
            case PERF_SAMPLE_TID -> KvmArm64.PERF_SAMPLE_TID();
            case PERF_SAMPLE_TIME -> KvmArm64.PERF_SAMPLE_TIME();
            case PERF_TYPE_SOFTWARE -> KvmArm64.PERF_TYPE_SOFTWARE();
            case SIGEV_THREAD_ID -> KvmArm64.SIGEV_THREAD_ID();
            case TCGETS -> KvmArm64.TCGETS();
            case TCSETS -> KvmArm64.TCSETS();
            case TIOCGPTN -> KvmArm64.TIOCGPTN();
            case TIOCSPTLCK -> KvmArm64.TIOCSPTLCK();
            case TUNSETIFF -> KvmArm64.TUNSETIFF();
            case TUNSETOFFLOAD -> KvmArm64.TUNSETOFFLOAD();
            case TUNSETVNETHDRSZ -> KvmArm64.TUNSETVNETHDRSZ();
            case TUN_F_CSUM -> KvmArm64.TUN_F_CSUM();
            case TUN_F_TSO4 -> KvmArm64.TUN_F_TSO4();
            case TUN_F_TSO6 -> KvmArm64.TUN_F_TSO6();
            case TUN_F_TSO_ECN -> KvmArm64.TUN_F_TSO_ECN();
            case UIO_MAXIOV -> KvmArm64.UIO_MAXIOV();
            case VMIN -> KvmArm64.VMIN();
            case VTIME -> KvmArm64.VTIME();
            case __NR_perf_event_open -> KvmArm64.__NR_perf_event_open();
        };
    }

    @Override
    public GroupLayout struct(UapiStruct s) {
        return switch (s) {
            case jkvm_tun_ifreq -> jkvm_tun_ifreq.layout();
            case kvm_create_device -> kvm_create_device.layout();
            case kvm_device_attr -> kvm_device_attr.layout();
            case kvm_enable_cap -> kvm_enable_cap.layout();
            case kvm_ioeventfd -> kvm_ioeventfd.layout();
            case kvm_irq_level -> kvm_irq_level.layout();
            case kvm_irqfd -> kvm_irqfd.layout();
            case kvm_one_reg -> kvm_one_reg.layout();
            case kvm_run -> kvm_run.layout();
            case kvm_signal_mask -> kvm_signal_mask.layout();
            case kvm_stats_desc -> kvm_stats_desc.layout();
            case kvm_stats_header -> kvm_stats_header.layout();
            case kvm_userspace_memory_region -> kvm_userspace_memory_region.layout();
            case perf_event_attr -> perf_event_attr.layout();
            case perf_event_header -> perf_event_header.layout();
            case perf_event_mmap_page -> perf_event_mmap_page.layout();
            case sigevent -> sigevent.layout();
            case termios -> termios.layout();
            case iovec -> iovec.layout();
        };
    }

    @Override
    public int exitReason(ExitReason r) {
        return switch (r) {
            case UNKNOWN -> KvmArm64.KVM_EXIT_UNKNOWN();
            case EXCEPTION -> KvmArm64.KVM_EXIT_EXCEPTION();
            case IO -> KvmArm64.KVM_EXIT_IO();
            case HYPERCALL -> KvmArm64.KVM_EXIT_HYPERCALL();
            case DEBUG -> KvmArm64.KVM_EXIT_DEBUG();
            case HLT -> KvmArm64.KVM_EXIT_HLT();
            case MMIO -> KvmArm64.KVM_EXIT_MMIO();
            case IRQ_WINDOW_OPEN -> KvmArm64.KVM_EXIT_IRQ_WINDOW_OPEN();
            case SHUTDOWN -> KvmArm64.KVM_EXIT_SHUTDOWN();
            case FAIL_ENTRY -> KvmArm64.KVM_EXIT_FAIL_ENTRY();
            case INTR -> KvmArm64.KVM_EXIT_INTR();
            case SET_TPR -> KvmArm64.KVM_EXIT_SET_TPR();
            case TPR_ACCESS -> KvmArm64.KVM_EXIT_TPR_ACCESS();
            case S390_SIEIC -> KvmArm64.KVM_EXIT_S390_SIEIC();
            case S390_RESET -> KvmArm64.KVM_EXIT_S390_RESET();
            case DCR -> KvmArm64.KVM_EXIT_DCR();
            case NMI -> KvmArm64.KVM_EXIT_NMI();
            case INTERNAL_ERROR -> KvmArm64.KVM_EXIT_INTERNAL_ERROR();
            case OSI -> KvmArm64.KVM_EXIT_OSI();
            case PAPR_HCALL -> KvmArm64.KVM_EXIT_PAPR_HCALL();
            case S390_UCONTROL -> KvmArm64.KVM_EXIT_S390_UCONTROL();
            case WATCHDOG -> KvmArm64.KVM_EXIT_WATCHDOG();
            case S390_TSCH -> KvmArm64.KVM_EXIT_S390_TSCH();
            case EPR -> KvmArm64.KVM_EXIT_EPR();
            case SYSTEM_EVENT -> KvmArm64.KVM_EXIT_SYSTEM_EVENT();
            case S390_STSI -> KvmArm64.KVM_EXIT_S390_STSI();
            case IOAPIC_EOI -> KvmArm64.KVM_EXIT_IOAPIC_EOI();
            case HYPERV -> KvmArm64.KVM_EXIT_HYPERV();
            case ARM_NISV -> KvmArm64.KVM_EXIT_ARM_NISV();
            case X86_RDMSR -> KvmArm64.KVM_EXIT_X86_RDMSR();
            case X86_WRMSR -> KvmArm64.KVM_EXIT_X86_WRMSR();
            case DIRTY_RING_FULL -> KvmArm64.KVM_EXIT_DIRTY_RING_FULL();
            case AP_RESET_HOLD -> KvmArm64.KVM_EXIT_AP_RESET_HOLD();
            case X86_BUS_LOCK -> KvmArm64.KVM_EXIT_X86_BUS_LOCK();
            case XEN -> KvmArm64.KVM_EXIT_XEN();
            case RISCV_SBI -> KvmArm64.KVM_EXIT_RISCV_SBI();
            case RISCV_CSR -> KvmArm64.KVM_EXIT_RISCV_CSR();
            case NOTIFY -> KvmArm64.KVM_EXIT_NOTIFY();
            case LOONGARCH_IOCSR -> KvmArm64.KVM_EXIT_LOONGARCH_IOCSR();
            case MEMORY_FAULT -> KvmArm64.KVM_EXIT_MEMORY_FAULT();
        };
    }

    @Override
    public int capability(Capability c) {
        return switch (c) {
            case NR_VCPUS -> KvmArm64.KVM_CAP_NR_VCPUS();
            case MAX_VCPUS -> KvmArm64.KVM_CAP_MAX_VCPUS();
            case MAX_VCPU_ID -> KvmArm64.KVM_CAP_MAX_VCPU_ID();
            case NR_MEMSLOTS -> KvmArm64.KVM_CAP_NR_MEMSLOTS();
            case USER_MEMORY -> KvmArm64.KVM_CAP_USER_MEMORY();
            case READONLY_MEM -> KvmArm64.KVM_CAP_READONLY_MEM();
            case SYNC_MMU -> KvmArm64.KVM_CAP_SYNC_MMU();
            case IMMEDIATE_EXIT -> KvmArm64.KVM_CAP_IMMEDIATE_EXIT();
            case COALESCED_MMIO -> KvmArm64.KVM_CAP_COALESCED_MMIO();
            case IRQCHIP -> KvmArm64.KVM_CAP_IRQCHIP();
            case IRQFD -> KvmArm64.KVM_CAP_IRQFD();
            case IOEVENTFD -> KvmArm64.KVM_CAP_IOEVENTFD();
            case SIGNAL_MSI -> KvmArm64.KVM_CAP_SIGNAL_MSI();
            case ONE_REG -> KvmArm64.KVM_CAP_ONE_REG();
            case DEVICE_CTRL -> KvmArm64.KVM_CAP_DEVICE_CTRL();
            case ENABLE_CAP -> KvmArm64.KVM_CAP_ENABLE_CAP();
            case STEAL_TIME -> KvmArm64.KVM_CAP_STEAL_TIME();
            case SYSTEM_EVENT_DATA -> KvmArm64.KVM_CAP_SYSTEM_EVENT_DATA();
            case BINARY_STATS_FD -> KvmArm64.KVM_CAP_BINARY_STATS_FD();
            case EXT_CPUID -> KvmArm64.KVM_CAP_EXT_CPUID();
            case SET_TSS_ADDR -> KvmArm64.KVM_CAP_SET_TSS_ADDR();
            case HLT -> KvmArm64.KVM_CAP_HLT();
            case ARM_VM_IPA_SIZE -> KvmArm64.KVM_CAP_ARM_VM_IPA_SIZE();
            case ARM_PSCI -> KvmArm64.KVM_CAP_ARM_PSCI();
            case ARM_PSCI_0_2 -> KvmArm64.KVM_CAP_ARM_PSCI_0_2();
            case ARM_PMU_V3 -> KvmArm64.KVM_CAP_ARM_PMU_V3();
            case ARM_SVE -> KvmArm64.KVM_CAP_ARM_SVE();
            case ARM_PTRAUTH_ADDRESS -> KvmArm64.KVM_CAP_ARM_PTRAUTH_ADDRESS();
            case ARM_PTRAUTH_GENERIC -> KvmArm64.KVM_CAP_ARM_PTRAUTH_GENERIC();
            case ARM_USER_IRQ -> KvmArm64.KVM_CAP_ARM_USER_IRQ();
            case ARM_NISV_TO_USER -> KvmArm64.KVM_CAP_ARM_NISV_TO_USER();
            case ARM_INJECT_EXT_DABT -> KvmArm64.KVM_CAP_ARM_INJECT_EXT_DABT();
            case ARM_SYSTEM_SUSPEND -> KvmArm64.KVM_CAP_ARM_SYSTEM_SUSPEND();
            case ARM_EL1_32BIT -> KvmArm64.KVM_CAP_ARM_EL1_32BIT();
            case ARM_MTE -> KvmArm64.KVM_CAP_ARM_MTE();
            case VCPU_ATTRIBUTES -> KvmArm64.KVM_CAP_VCPU_ATTRIBUTES();
        };
    }
}
