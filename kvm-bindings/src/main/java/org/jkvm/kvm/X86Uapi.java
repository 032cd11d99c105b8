package org.jkvm.kvm;

import java.lang.foreign.GroupLayout;
import org.jkvm.kvm.sys.x86_64.KvmX86;
import org.jkvm.kvm.sys.x86_64.jkvm_tun_ifreq;
import org.jkvm.kvm.sys.x86_64.iovec;
import org.jkvm.kvm.sys.x86_64.kvm_create_device;
import org.jkvm.kvm.sys.x86_64.kvm_device_attr;
import org.jkvm.kvm.sys.x86_64.kvm_enable_cap;
import org.jkvm.kvm.sys.x86_64.kvm_ioeventfd;
import org.jkvm.kvm.sys.x86_64.kvm_irq_level;
import org.jkvm.kvm.sys.x86_64.kvm_irqfd;
import org.jkvm.kvm.sys.x86_64.kvm_one_reg;
import org.jkvm.kvm.sys.x86_64.kvm_run;
import org.jkvm.kvm.sys.x86_64.kvm_signal_mask;
import org.jkvm.kvm.sys.x86_64.kvm_stats_desc;
import org.jkvm.kvm.sys.x86_64.kvm_stats_header;
import org.jkvm.kvm.sys.x86_64.kvm_userspace_memory_region;
import org.jkvm.kvm.sys.x86_64.perf_event_attr;
import org.jkvm.kvm.sys.x86_64.perf_event_header;
import org.jkvm.kvm.sys.x86_64.perf_event_mmap_page;
import org.jkvm.kvm.sys.x86_64.sigevent;
import org.jkvm.kvm.sys.x86_64.termios;

/** The x86_64 generated uapi values, read by direct calls to the x86_64 generated classes. */
final class X86Uapi implements Uapi {

    @Override
    public long constant(UapiConstant c) {
        return switch (c) {
            case BRKINT -> KvmX86.BRKINT();
            case CLOCK_MONOTONIC -> KvmX86.CLOCK_MONOTONIC();
            case CLOCK_THREAD_CPUTIME_ID -> KvmX86.CLOCK_THREAD_CPUTIME_ID();
            case ECHO -> KvmX86.ECHO();
            case ECHONL -> KvmX86.ECHONL();
            case FALLOC_FL_KEEP_SIZE -> KvmX86.FALLOC_FL_KEEP_SIZE();
            case FALLOC_FL_PUNCH_HOLE -> KvmX86.FALLOC_FL_PUNCH_HOLE();
            case ICANON -> KvmX86.ICANON();
            case ICRNL -> KvmX86.ICRNL();
            case IEXTEN -> KvmX86.IEXTEN();
            case IFF_NO_PI -> KvmX86.IFF_NO_PI();
            case IFF_TAP -> KvmX86.IFF_TAP();
            case IFF_VNET_HDR -> KvmX86.IFF_VNET_HDR();
            case IGNBRK -> KvmX86.IGNBRK();
            case IGNCR -> KvmX86.IGNCR();
            case INLCR -> KvmX86.INLCR();
            case ISIG -> KvmX86.ISIG();
            case ISTRIP -> KvmX86.ISTRIP();
            case IXON -> KvmX86.IXON();
            case JKVM_PERF_ATTR_FLAGS_OFFSET -> KvmX86.JKVM_PERF_ATTR_FLAGS_OFFSET();
            case JKVM_PERF_ATTR_FLAG_CONTEXT_SWITCH -> KvmX86.JKVM_PERF_ATTR_FLAG_CONTEXT_SWITCH();
            case JKVM_PERF_ATTR_FLAG_DISABLED -> KvmX86.JKVM_PERF_ATTR_FLAG_DISABLED();
            case JKVM_PERF_ATTR_FLAG_EXCLUDE_HV -> KvmX86.JKVM_PERF_ATTR_FLAG_EXCLUDE_HV();
            case JKVM_PERF_ATTR_FLAG_EXCLUDE_KERNEL -> KvmX86.JKVM_PERF_ATTR_FLAG_EXCLUDE_KERNEL();
            case JKVM_PERF_ATTR_FLAG_SAMPLE_ID_ALL -> KvmX86.JKVM_PERF_ATTR_FLAG_SAMPLE_ID_ALL();
            case JKVM_PERF_ATTR_FLAG_USE_CLOCKID -> KvmX86.JKVM_PERF_ATTR_FLAG_USE_CLOCKID();
            case JKVM_PERF_ATTR_FLAG_WATERMARK -> KvmX86.JKVM_PERF_ATTR_FLAG_WATERMARK();
            case JKVM_TUN_IFNAMSIZ -> KvmX86.JKVM_TUN_IFNAMSIZ();
            case KVM_API_VERSION -> KvmX86.KVM_API_VERSION();
            case KVM_CHECK_EXTENSION -> KvmX86.KVM_CHECK_EXTENSION();
            case KVM_CREATE_DEVICE -> KvmX86.KVM_CREATE_DEVICE();
            case KVM_CREATE_DEVICE_TEST -> KvmX86.KVM_CREATE_DEVICE_TEST();
            case KVM_CREATE_VCPU -> KvmX86.KVM_CREATE_VCPU();
            case KVM_CREATE_VM -> KvmX86.KVM_CREATE_VM();
            case KVM_ENABLE_CAP -> KvmX86.KVM_ENABLE_CAP();
            case KVM_EXIT_IO_OUT -> KvmX86.KVM_EXIT_IO_OUT();
            case KVM_GET_API_VERSION -> KvmX86.KVM_GET_API_VERSION();
            case KVM_GET_DEVICE_ATTR -> KvmX86.KVM_GET_DEVICE_ATTR();
            case KVM_GET_ONE_REG -> KvmX86.KVM_GET_ONE_REG();
            case KVM_GET_STATS_FD -> KvmX86.KVM_GET_STATS_FD();
            case KVM_GET_VCPU_MMAP_SIZE -> KvmX86.KVM_GET_VCPU_MMAP_SIZE();
            case KVM_HAS_DEVICE_ATTR -> KvmX86.KVM_HAS_DEVICE_ATTR();
            case KVM_IOEVENTFD -> KvmX86.KVM_IOEVENTFD();
            case KVM_IOEVENTFD_FLAG_DATAMATCH -> KvmX86.KVM_IOEVENTFD_FLAG_DATAMATCH();
            case KVM_IOEVENTFD_FLAG_DEASSIGN -> KvmX86.KVM_IOEVENTFD_FLAG_DEASSIGN();
            case KVM_IOEVENTFD_FLAG_PIO -> KvmX86.KVM_IOEVENTFD_FLAG_PIO();
            case KVM_IRQFD -> KvmX86.KVM_IRQFD();
            case KVM_IRQFD_FLAG_DEASSIGN -> KvmX86.KVM_IRQFD_FLAG_DEASSIGN();
            case KVM_IRQ_LINE -> KvmX86.KVM_IRQ_LINE();
            case KVM_RUN -> KvmX86.KVM_RUN();
            case KVM_SET_DEVICE_ATTR -> KvmX86.KVM_SET_DEVICE_ATTR();
            case KVM_SET_ONE_REG -> KvmX86.KVM_SET_ONE_REG();
            case KVM_SET_SIGNAL_MASK -> KvmX86.KVM_SET_SIGNAL_MASK();
            case KVM_SET_USER_MEMORY_REGION -> KvmX86.KVM_SET_USER_MEMORY_REGION();
            case KVM_STATS_BASE_MASK -> KvmX86.KVM_STATS_BASE_MASK();
            case KVM_STATS_BASE_POW2 -> KvmX86.KVM_STATS_BASE_POW2();
            case KVM_STATS_TYPE_MASK -> KvmX86.KVM_STATS_TYPE_MASK();
            case KVM_STATS_TYPE_CUMULATIVE -> KvmX86.KVM_STATS_TYPE_CUMULATIVE();
            case KVM_STATS_TYPE_INSTANT -> KvmX86.KVM_STATS_TYPE_INSTANT();
            case KVM_STATS_TYPE_PEAK -> KvmX86.KVM_STATS_TYPE_PEAK();
            case KVM_STATS_TYPE_LINEAR_HIST -> KvmX86.KVM_STATS_TYPE_LINEAR_HIST();
            case KVM_STATS_TYPE_LOG_HIST -> KvmX86.KVM_STATS_TYPE_LOG_HIST();
            case KVM_STATS_UNIT_MASK -> KvmX86.KVM_STATS_UNIT_MASK();
            case KVM_STATS_UNIT_NONE -> KvmX86.KVM_STATS_UNIT_NONE();
            case KVM_STATS_UNIT_BYTES -> KvmX86.KVM_STATS_UNIT_BYTES();
            case KVM_STATS_UNIT_SECONDS -> KvmX86.KVM_STATS_UNIT_SECONDS();
            case KVM_STATS_UNIT_CYCLES -> KvmX86.KVM_STATS_UNIT_CYCLES();
            case KVM_STATS_UNIT_BOOLEAN -> KvmX86.KVM_STATS_UNIT_BOOLEAN();
            case KVM_VM_TYPE_ARM_IPA_SIZE_MASK -> KvmX86.KVM_VM_TYPE_ARM_IPA_SIZE_MASK();
            case PARMRK -> KvmX86.PARMRK();
            case PERF_COUNT_SW_DUMMY -> KvmX86.PERF_COUNT_SW_DUMMY();
            case PERF_EVENT_IOC_DISABLE -> KvmX86.PERF_EVENT_IOC_DISABLE();
            case PERF_EVENT_IOC_ENABLE -> KvmX86.PERF_EVENT_IOC_ENABLE();
            case PERF_FLAG_FD_CLOEXEC -> KvmX86.PERF_FLAG_FD_CLOEXEC();
            case PERF_RECORD_LOST -> KvmX86.PERF_RECORD_LOST();
            case PERF_RECORD_MISC_SWITCH_OUT -> KvmX86.PERF_RECORD_MISC_SWITCH_OUT();
            case PERF_RECORD_MISC_SWITCH_OUT_PREEMPT -> KvmX86.PERF_RECORD_MISC_SWITCH_OUT_PREEMPT();
            case PERF_RECORD_SWITCH -> KvmX86.PERF_RECORD_SWITCH();
            case PERF_RECORD_SWITCH_CPU_WIDE -> KvmX86.PERF_RECORD_SWITCH_CPU_WIDE();
            case PERF_SAMPLE_TID -> KvmX86.PERF_SAMPLE_TID();
            case PERF_SAMPLE_TIME -> KvmX86.PERF_SAMPLE_TIME();
            case PERF_TYPE_SOFTWARE -> KvmX86.PERF_TYPE_SOFTWARE();
            case SIGEV_THREAD_ID -> KvmX86.SIGEV_THREAD_ID();
            case TCGETS -> KvmX86.TCGETS();
            case TCSETS -> KvmX86.TCSETS();
            case TIOCGPTN -> KvmX86.TIOCGPTN();
            case TIOCSPTLCK -> KvmX86.TIOCSPTLCK();
            case TUNSETIFF -> KvmX86.TUNSETIFF();
            case TUNSETOFFLOAD -> KvmX86.TUNSETOFFLOAD();
            case TUNSETVNETHDRSZ -> KvmX86.TUNSETVNETHDRSZ();
            case TUN_F_CSUM -> KvmX86.TUN_F_CSUM();
            case TUN_F_TSO4 -> KvmX86.TUN_F_TSO4();
            case TUN_F_TSO6 -> KvmX86.TUN_F_TSO6();
            case TUN_F_TSO_ECN -> KvmX86.TUN_F_TSO_ECN();
            case UIO_MAXIOV -> KvmX86.UIO_MAXIOV();
            case VMIN -> KvmX86.VMIN();
            case VTIME -> KvmX86.VTIME();
            case __NR_perf_event_open -> KvmX86.__NR_perf_event_open();
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
            case UNKNOWN -> KvmX86.KVM_EXIT_UNKNOWN();
            case EXCEPTION -> KvmX86.KVM_EXIT_EXCEPTION();
            case IO -> KvmX86.KVM_EXIT_IO();
            case HYPERCALL -> KvmX86.KVM_EXIT_HYPERCALL();
            case DEBUG -> KvmX86.KVM_EXIT_DEBUG();
            case HLT -> KvmX86.KVM_EXIT_HLT();
            case MMIO -> KvmX86.KVM_EXIT_MMIO();
            case IRQ_WINDOW_OPEN -> KvmX86.KVM_EXIT_IRQ_WINDOW_OPEN();
            case SHUTDOWN -> KvmX86.KVM_EXIT_SHUTDOWN();
            case FAIL_ENTRY -> KvmX86.KVM_EXIT_FAIL_ENTRY();
            case INTR -> KvmX86.KVM_EXIT_INTR();
            case SET_TPR -> KvmX86.KVM_EXIT_SET_TPR();
            case TPR_ACCESS -> KvmX86.KVM_EXIT_TPR_ACCESS();
            case S390_SIEIC -> KvmX86.KVM_EXIT_S390_SIEIC();
            case S390_RESET -> KvmX86.KVM_EXIT_S390_RESET();
            case DCR -> KvmX86.KVM_EXIT_DCR();
            case NMI -> KvmX86.KVM_EXIT_NMI();
            case INTERNAL_ERROR -> KvmX86.KVM_EXIT_INTERNAL_ERROR();
            case OSI -> KvmX86.KVM_EXIT_OSI();
            case PAPR_HCALL -> KvmX86.KVM_EXIT_PAPR_HCALL();
            case S390_UCONTROL -> KvmX86.KVM_EXIT_S390_UCONTROL();
            case WATCHDOG -> KvmX86.KVM_EXIT_WATCHDOG();
            case S390_TSCH -> KvmX86.KVM_EXIT_S390_TSCH();
            case EPR -> KvmX86.KVM_EXIT_EPR();
            case SYSTEM_EVENT -> KvmX86.KVM_EXIT_SYSTEM_EVENT();
            case S390_STSI -> KvmX86.KVM_EXIT_S390_STSI();
            case IOAPIC_EOI -> KvmX86.KVM_EXIT_IOAPIC_EOI();
            case HYPERV -> KvmX86.KVM_EXIT_HYPERV();
            case ARM_NISV -> KvmX86.KVM_EXIT_ARM_NISV();
            case X86_RDMSR -> KvmX86.KVM_EXIT_X86_RDMSR();
            case X86_WRMSR -> KvmX86.KVM_EXIT_X86_WRMSR();
            case DIRTY_RING_FULL -> KvmX86.KVM_EXIT_DIRTY_RING_FULL();
            case AP_RESET_HOLD -> KvmX86.KVM_EXIT_AP_RESET_HOLD();
            case X86_BUS_LOCK -> KvmX86.KVM_EXIT_X86_BUS_LOCK();
            case XEN -> KvmX86.KVM_EXIT_XEN();
            case RISCV_SBI -> KvmX86.KVM_EXIT_RISCV_SBI();
            case RISCV_CSR -> KvmX86.KVM_EXIT_RISCV_CSR();
            case NOTIFY -> KvmX86.KVM_EXIT_NOTIFY();
            case LOONGARCH_IOCSR -> KvmX86.KVM_EXIT_LOONGARCH_IOCSR();
            case MEMORY_FAULT -> KvmX86.KVM_EXIT_MEMORY_FAULT();
        };
    }

    @Override
    public int capability(Capability c) {
        return switch (c) {
            case NR_VCPUS -> KvmX86.KVM_CAP_NR_VCPUS();
            case MAX_VCPUS -> KvmX86.KVM_CAP_MAX_VCPUS();
            case MAX_VCPU_ID -> KvmX86.KVM_CAP_MAX_VCPU_ID();
            case NR_MEMSLOTS -> KvmX86.KVM_CAP_NR_MEMSLOTS();
            case USER_MEMORY -> KvmX86.KVM_CAP_USER_MEMORY();
            case READONLY_MEM -> KvmX86.KVM_CAP_READONLY_MEM();
            case SYNC_MMU -> KvmX86.KVM_CAP_SYNC_MMU();
            case IMMEDIATE_EXIT -> KvmX86.KVM_CAP_IMMEDIATE_EXIT();
            case COALESCED_MMIO -> KvmX86.KVM_CAP_COALESCED_MMIO();
            case IRQCHIP -> KvmX86.KVM_CAP_IRQCHIP();
            case IRQFD -> KvmX86.KVM_CAP_IRQFD();
            case IOEVENTFD -> KvmX86.KVM_CAP_IOEVENTFD();
            case SIGNAL_MSI -> KvmX86.KVM_CAP_SIGNAL_MSI();
            case ONE_REG -> KvmX86.KVM_CAP_ONE_REG();
            case DEVICE_CTRL -> KvmX86.KVM_CAP_DEVICE_CTRL();
            case ENABLE_CAP -> KvmX86.KVM_CAP_ENABLE_CAP();
            case STEAL_TIME -> KvmX86.KVM_CAP_STEAL_TIME();
            case SYSTEM_EVENT_DATA -> KvmX86.KVM_CAP_SYSTEM_EVENT_DATA();
            case BINARY_STATS_FD -> KvmX86.KVM_CAP_BINARY_STATS_FD();
            case EXT_CPUID -> KvmX86.KVM_CAP_EXT_CPUID();
            case SET_TSS_ADDR -> KvmX86.KVM_CAP_SET_TSS_ADDR();
            case HLT -> KvmX86.KVM_CAP_HLT();
            case ARM_VM_IPA_SIZE -> KvmX86.KVM_CAP_ARM_VM_IPA_SIZE();
            case ARM_PSCI -> KvmX86.KVM_CAP_ARM_PSCI();
            case ARM_PSCI_0_2 -> KvmX86.KVM_CAP_ARM_PSCI_0_2();
            case ARM_PMU_V3 -> KvmX86.KVM_CAP_ARM_PMU_V3();
            case ARM_SVE -> KvmX86.KVM_CAP_ARM_SVE();
            case ARM_PTRAUTH_ADDRESS -> KvmX86.KVM_CAP_ARM_PTRAUTH_ADDRESS();
            case ARM_PTRAUTH_GENERIC -> KvmX86.KVM_CAP_ARM_PTRAUTH_GENERIC();
            case ARM_USER_IRQ -> KvmX86.KVM_CAP_ARM_USER_IRQ();
            case ARM_NISV_TO_USER -> KvmX86.KVM_CAP_ARM_NISV_TO_USER();
            case ARM_INJECT_EXT_DABT -> KvmX86.KVM_CAP_ARM_INJECT_EXT_DABT();
            case ARM_SYSTEM_SUSPEND -> KvmX86.KVM_CAP_ARM_SYSTEM_SUSPEND();
            case ARM_EL1_32BIT -> KvmX86.KVM_CAP_ARM_EL1_32BIT();
            case ARM_MTE -> KvmX86.KVM_CAP_ARM_MTE();
            case VCPU_ATTRIBUTES -> KvmX86.KVM_CAP_VCPU_ATTRIBUTES();
        };
    }
}
