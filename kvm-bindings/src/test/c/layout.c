/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Conformance facts for the generated kvm-bindings layer, printed by the C compiler from the
 * same headers jextract read (include/jkvm_<arch>.h on the pinned 6.12 uapi headers).
 * Built and run by run-layout.sh; compared with the Java classes by LayoutConformanceTest.
 *
 * One fact a line, "kind name value":
 *   size      STRUCT             sizeof(struct STRUCT)
 *   offset    STRUCT.path        offsetof(struct STRUCT, path)   (path may go through unions)
 *   fieldsize STRUCT.path        sizeof the member (not for flexible array members)
 *   const     NAME               the value of the constant, in decimal, exactly
 *   constsize NAME               sizeof the constant's C type (4: Java int, 8: Java long)
 *   bitfield  NAME               the 64-bit word at JKVM_PERF_ATTR_FLAGS_OFFSET of a zeroed
 *                                struct perf_event_attr after setting the one-bit bitfield
 *                                that the constant NAME (a JKVM_PERF_ATTR_FLAG_* mask) stands
 *                                for; 0 if any other byte of the struct changed. The test
 *                                checks it equals the generated constant NAME.
 *
 * Structs and fields: the ones a VMM touches, listed here by hand. Constants: all those
 * regen generated (constants_<arch>.inc, written by regen).
 */
#if defined(__x86_64__)
#include "jkvm_x86_64.h"
#elif defined(__aarch64__)
#include "jkvm_aarch64.h"
#else
#error "layout.c: x86_64 or aarch64 only"
#endif

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define S(t) printf("size %s %zu\n", #t, sizeof(struct t));
#define U(t) printf("size %s %zu\n", #t, sizeof(union t));
#define F(t, path)                                                             \
	printf("offset %s.%s %zu\n", #t, #path, offsetof(struct t, path));     \
	printf("fieldsize %s.%s %zu\n", #t, #path, sizeof(((struct t *)0)->path));
/* flexible array member: offset only */
#define FX(t, path) printf("offset %s.%s %zu\n", #t, #path, offsetof(struct t, path));

/* Exact decimal whatever the type: negative values of signed types print signed. */
#define C(name)                                                                \
	if ((name) < 0)                                                        \
		printf("const %s %lld\n", #name, (long long)(name));          \
	else                                                                   \
		printf("const %s %llu\n", #name, (unsigned long long)(name)); \
	printf("constsize %s %zu\n", #name, sizeof(name));

static void constants(void)
{
#if defined(__x86_64__)
#include "constants_x86_64.inc"
#else
#include "constants_aarch64.inc"
#endif
}

static void kvm_run(void)
{
	S(kvm_run)
	F(kvm_run, request_interrupt_window)
	F(kvm_run, immediate_exit)
	F(kvm_run, exit_reason)
	F(kvm_run, ready_for_interrupt_injection)
	F(kvm_run, if_flag)
	F(kvm_run, flags)
	F(kvm_run, cr8)
	F(kvm_run, apic_base)
	F(kvm_run, hw)
	F(kvm_run, hw.hardware_exit_reason)
	F(kvm_run, fail_entry)
	F(kvm_run, fail_entry.hardware_entry_failure_reason)
	F(kvm_run, fail_entry.cpu)
	F(kvm_run, ex.exception)
	F(kvm_run, ex.error_code)
	F(kvm_run, io)
	F(kvm_run, io.direction)
	F(kvm_run, io.size)
	F(kvm_run, io.port)
	F(kvm_run, io.count)
	F(kvm_run, io.data_offset)
	F(kvm_run, debug.arch)
	F(kvm_run, mmio)
	F(kvm_run, mmio.phys_addr)
	F(kvm_run, mmio.data)
	F(kvm_run, mmio.len)
	F(kvm_run, mmio.is_write)
	F(kvm_run, hypercall)
	F(kvm_run, hypercall.nr)
	F(kvm_run, hypercall.args)
	F(kvm_run, hypercall.ret)
	F(kvm_run, hypercall.longmode)
	F(kvm_run, hypercall.flags)
	F(kvm_run, internal)
	F(kvm_run, internal.suberror)
	F(kvm_run, internal.ndata)
	F(kvm_run, internal.data)
	F(kvm_run, emulation_failure.suberror)
	F(kvm_run, emulation_failure.ndata)
	F(kvm_run, emulation_failure.flags)
	F(kvm_run, emulation_failure.insn_size)
	F(kvm_run, emulation_failure.insn_bytes)
	F(kvm_run, system_event)
	F(kvm_run, system_event.type)
	F(kvm_run, system_event.ndata)
	F(kvm_run, system_event.flags)
	F(kvm_run, system_event.data)
	F(kvm_run, arm_nisv.esr_iss)
	F(kvm_run, arm_nisv.fault_ipa)
	F(kvm_run, msr.error)
	F(kvm_run, msr.reason)
	F(kvm_run, msr.index)
	F(kvm_run, msr.data)
	F(kvm_run, memory_fault.flags)
	F(kvm_run, memory_fault.gpa)
	F(kvm_run, memory_fault.size)
	F(kvm_run, padding)
	F(kvm_run, kvm_valid_regs)
	F(kvm_run, kvm_dirty_regs)
	F(kvm_run, s)
	F(kvm_run, s.regs)
	F(kvm_run, s.padding)
}

static void common(void)
{
	S(kvm_userspace_memory_region)
	F(kvm_userspace_memory_region, slot)
	F(kvm_userspace_memory_region, flags)
	F(kvm_userspace_memory_region, guest_phys_addr)
	F(kvm_userspace_memory_region, memory_size)
	F(kvm_userspace_memory_region, userspace_addr)
	S(kvm_userspace_memory_region2)
	F(kvm_userspace_memory_region2, slot)
	F(kvm_userspace_memory_region2, flags)
	F(kvm_userspace_memory_region2, guest_phys_addr)
	F(kvm_userspace_memory_region2, memory_size)
	F(kvm_userspace_memory_region2, userspace_addr)
	F(kvm_userspace_memory_region2, guest_memfd_offset)
	F(kvm_userspace_memory_region2, guest_memfd)
	F(kvm_userspace_memory_region2, pad1)
	F(kvm_userspace_memory_region2, pad2)
	S(kvm_one_reg)
	F(kvm_one_reg, id)
	F(kvm_one_reg, addr)
	S(kvm_reg_list)
	F(kvm_reg_list, n)
	FX(kvm_reg_list, reg)
	S(kvm_device_attr)
	F(kvm_device_attr, flags)
	F(kvm_device_attr, group)
	F(kvm_device_attr, attr)
	F(kvm_device_attr, addr)
	S(kvm_create_device)
	F(kvm_create_device, type)
	F(kvm_create_device, fd)
	F(kvm_create_device, flags)
	S(kvm_irq_level)
	F(kvm_irq_level, irq)
	F(kvm_irq_level, status)
	F(kvm_irq_level, level)
	S(kvm_irqfd)
	F(kvm_irqfd, fd)
	F(kvm_irqfd, gsi)
	F(kvm_irqfd, flags)
	F(kvm_irqfd, resamplefd)
	F(kvm_irqfd, pad)
	S(kvm_ioeventfd)
	F(kvm_ioeventfd, datamatch)
	F(kvm_ioeventfd, addr)
	F(kvm_ioeventfd, len)
	F(kvm_ioeventfd, fd)
	F(kvm_ioeventfd, flags)
	F(kvm_ioeventfd, pad)
	S(kvm_msi)
	F(kvm_msi, address_lo)
	F(kvm_msi, address_hi)
	F(kvm_msi, data)
	F(kvm_msi, flags)
	F(kvm_msi, devid)
	F(kvm_msi, pad)
	S(kvm_enable_cap)
	F(kvm_enable_cap, cap)
	F(kvm_enable_cap, flags)
	F(kvm_enable_cap, args)
	F(kvm_enable_cap, pad)
	S(kvm_mp_state)
	F(kvm_mp_state, mp_state)
	S(kvm_signal_mask)
	F(kvm_signal_mask, len)
	FX(kvm_signal_mask, sigset)
	S(kvm_stats_header)
	F(kvm_stats_header, flags)
	F(kvm_stats_header, name_size)
	F(kvm_stats_header, num_desc)
	F(kvm_stats_header, id_offset)
	F(kvm_stats_header, desc_offset)
	F(kvm_stats_header, data_offset)
	S(kvm_stats_desc)
	F(kvm_stats_desc, flags)
	F(kvm_stats_desc, exponent)
	F(kvm_stats_desc, size)
	F(kvm_stats_desc, offset)
	F(kvm_stats_desc, bucket_size)
	FX(kvm_stats_desc, name)
	S(kvm_dirty_log)
	F(kvm_dirty_log, slot)
	F(kvm_dirty_log, padding1)
	F(kvm_dirty_log, dirty_bitmap)
	S(kvm_irq_routing)
	F(kvm_irq_routing, nr)
	F(kvm_irq_routing, flags)
	FX(kvm_irq_routing, entries)
	S(kvm_irq_routing_entry)
	F(kvm_irq_routing_entry, gsi)
	F(kvm_irq_routing_entry, type)
	F(kvm_irq_routing_entry, flags)
	F(kvm_irq_routing_entry, pad)
	F(kvm_irq_routing_entry, u)
	F(kvm_irq_routing_entry, u.irqchip)
	F(kvm_irq_routing_entry, u.msi)
	S(kvm_irq_routing_irqchip)
	F(kvm_irq_routing_irqchip, irqchip)
	F(kvm_irq_routing_irqchip, pin)
	S(kvm_irq_routing_msi)
	F(kvm_irq_routing_msi, address_lo)
	F(kvm_irq_routing_msi, address_hi)
	F(kvm_irq_routing_msi, data)
	F(kvm_irq_routing_msi, devid)
	S(kvm_irq_routing_s390_adapter)
	S(kvm_irq_routing_hv_sint)
	S(kvm_irq_routing_xen_evtchn)
	S(kvm_vcpu_events)
	S(kvm_guest_debug)
	F(kvm_guest_debug, control)
	F(kvm_guest_debug, pad)
	F(kvm_guest_debug, arch)
	S(kvm_guest_debug_arch)
	S(kvm_debug_exit_arch)
	S(kvm_hyperv_exit)
	S(kvm_xen_exit)
	S(kvm_sync_regs)
}

/* perf_event_open(2): the structs, and the bitfield positions of include/jkvm_perf.h. */
static void perf_bitfield(const char *name, const struct perf_event_attr *attr)
{
	unsigned char bytes[sizeof(struct perf_event_attr)];
	unsigned long long word;
	size_t i;

	memcpy(bytes, attr, sizeof bytes);
	memcpy(&word, bytes + JKVM_PERF_ATTR_FLAGS_OFFSET, sizeof word);
	for (i = 0; i < sizeof bytes; i++) {
		if (bytes[i] != 0 && (i < JKVM_PERF_ATTR_FLAGS_OFFSET ||
				      i >= JKVM_PERF_ATTR_FLAGS_OFFSET + sizeof word))
			word = 0; /* the bitfield is not in the word the macro names */
	}
	printf("bitfield %s %llu\n", name, word);
}

/* Sets one bitfield in a zeroed attr and prints the word it lands in. */
#define B(field, macro)                                                        \
	do {                                                                   \
		struct perf_event_attr a;                                      \
		memset(&a, 0, sizeof a);                                       \
		a.field = 1;                                                   \
		perf_bitfield(#macro, &a);                                     \
	} while (0);

/* timer_create(2) with SIGEV_THREAD_ID: the guest profiler's per-thread CPU-time timer */
static void timer(void)
{
	U(sigval)
	S(sigevent)
	F(sigevent, sigev_value)
	F(sigevent, sigev_signo)
	F(sigevent, sigev_notify)
	F(sigevent, _sigev_un._tid)
}

/* TUNSETIFF's argument: the tap backend of virtio-net */
static void tun(void)
{
	S(jkvm_tun_ifreq)
	F(jkvm_tun_ifreq, name)
	F(jkvm_tun_ifreq, flags)
	F(jkvm_tun_ifreq, pad)
}

/* TCGETS/TCSETS's argument: raw mode for a terminal on jkvm run's stdin */
static void termios(void)
{
	S(termios)
	F(termios, c_iflag)
	F(termios, c_oflag)
	F(termios, c_cflag)
	F(termios, c_lflag)
	F(termios, c_line)
	F(termios, c_cc)
}

/* preadv/pwritev's vector: virtio-blk's transfers to and from the disk image */
static void uio(void)
{
	S(iovec)
	F(iovec, iov_base)
	F(iovec, iov_len)
}

static void perf(void)
{
	S(perf_event_attr)
	F(perf_event_attr, type)
	F(perf_event_attr, size)
	F(perf_event_attr, config)
	F(perf_event_attr, sample_period)
	F(perf_event_attr, sample_freq)
	F(perf_event_attr, sample_type)
	F(perf_event_attr, read_format)
	F(perf_event_attr, wakeup_events)
	F(perf_event_attr, wakeup_watermark)
	F(perf_event_attr, bp_type)
	F(perf_event_attr, bp_addr)
	F(perf_event_attr, config1)
	F(perf_event_attr, bp_len)
	F(perf_event_attr, config2)
	F(perf_event_attr, branch_sample_type)
	F(perf_event_attr, sample_regs_user)
	F(perf_event_attr, sample_stack_user)
	F(perf_event_attr, clockid)
	F(perf_event_attr, sample_regs_intr)
	F(perf_event_attr, aux_watermark)
	F(perf_event_attr, sample_max_stack)
	F(perf_event_attr, aux_sample_size)
	F(perf_event_attr, aux_action)
	F(perf_event_attr, sig_data)
	F(perf_event_attr, config3)
	B(disabled, JKVM_PERF_ATTR_FLAG_DISABLED)
	B(inherit, JKVM_PERF_ATTR_FLAG_INHERIT)
	B(pinned, JKVM_PERF_ATTR_FLAG_PINNED)
	B(exclusive, JKVM_PERF_ATTR_FLAG_EXCLUSIVE)
	B(exclude_user, JKVM_PERF_ATTR_FLAG_EXCLUDE_USER)
	B(exclude_kernel, JKVM_PERF_ATTR_FLAG_EXCLUDE_KERNEL)
	B(exclude_hv, JKVM_PERF_ATTR_FLAG_EXCLUDE_HV)
	B(exclude_idle, JKVM_PERF_ATTR_FLAG_EXCLUDE_IDLE)
	B(watermark, JKVM_PERF_ATTR_FLAG_WATERMARK)
	B(sample_id_all, JKVM_PERF_ATTR_FLAG_SAMPLE_ID_ALL)
	B(exclude_host, JKVM_PERF_ATTR_FLAG_EXCLUDE_HOST)
	B(exclude_guest, JKVM_PERF_ATTR_FLAG_EXCLUDE_GUEST)
	B(use_clockid, JKVM_PERF_ATTR_FLAG_USE_CLOCKID)
	B(context_switch, JKVM_PERF_ATTR_FLAG_CONTEXT_SWITCH)
	B(write_backward, JKVM_PERF_ATTR_FLAG_WRITE_BACKWARD)
	B(inherit_thread, JKVM_PERF_ATTR_FLAG_INHERIT_THREAD)
	B(remove_on_exec, JKVM_PERF_ATTR_FLAG_REMOVE_ON_EXEC)
	S(perf_event_header)
	F(perf_event_header, type)
	F(perf_event_header, misc)
	F(perf_event_header, size)
	S(perf_event_mmap_page)
	F(perf_event_mmap_page, version)
	F(perf_event_mmap_page, compat_version)
	F(perf_event_mmap_page, lock)
	F(perf_event_mmap_page, index)
	F(perf_event_mmap_page, offset)
	F(perf_event_mmap_page, time_enabled)
	F(perf_event_mmap_page, time_running)
	F(perf_event_mmap_page, capabilities)
	F(perf_event_mmap_page, pmc_width)
	F(perf_event_mmap_page, time_shift)
	F(perf_event_mmap_page, time_mult)
	F(perf_event_mmap_page, time_offset)
	F(perf_event_mmap_page, time_zero)
	F(perf_event_mmap_page, size)
	F(perf_event_mmap_page, time_cycles)
	F(perf_event_mmap_page, time_mask)
	F(perf_event_mmap_page, __reserved)
	F(perf_event_mmap_page, data_head)
	F(perf_event_mmap_page, data_tail)
	F(perf_event_mmap_page, data_offset)
	F(perf_event_mmap_page, data_size)
	F(perf_event_mmap_page, aux_head)
	F(perf_event_mmap_page, aux_tail)
	F(perf_event_mmap_page, aux_offset)
	F(perf_event_mmap_page, aux_size)
}

#if defined(__x86_64__)
static void arch(void)
{
	S(kvm_regs)
	F(kvm_regs, rax) F(kvm_regs, rbx) F(kvm_regs, rcx) F(kvm_regs, rdx)
	F(kvm_regs, rsi) F(kvm_regs, rdi) F(kvm_regs, rsp) F(kvm_regs, rbp)
	F(kvm_regs, r8)  F(kvm_regs, r9)  F(kvm_regs, r10) F(kvm_regs, r11)
	F(kvm_regs, r12) F(kvm_regs, r13) F(kvm_regs, r14) F(kvm_regs, r15)
	F(kvm_regs, rip) F(kvm_regs, rflags)
	S(kvm_segment)
	F(kvm_segment, base)
	F(kvm_segment, limit)
	F(kvm_segment, selector)
	F(kvm_segment, type)
	F(kvm_segment, present)
	F(kvm_segment, dpl)
	F(kvm_segment, db)
	F(kvm_segment, s)
	F(kvm_segment, l)
	F(kvm_segment, g)
	F(kvm_segment, avl)
	F(kvm_segment, unusable)
	F(kvm_segment, padding)
	S(kvm_dtable)
	F(kvm_dtable, base)
	F(kvm_dtable, limit)
	F(kvm_dtable, padding)
	S(kvm_sregs)
	F(kvm_sregs, cs) F(kvm_sregs, ds) F(kvm_sregs, es) F(kvm_sregs, fs)
	F(kvm_sregs, gs) F(kvm_sregs, ss) F(kvm_sregs, tr) F(kvm_sregs, ldt)
	F(kvm_sregs, gdt) F(kvm_sregs, idt)
	F(kvm_sregs, cr0) F(kvm_sregs, cr2) F(kvm_sregs, cr3) F(kvm_sregs, cr4)
	F(kvm_sregs, cr8) F(kvm_sregs, efer) F(kvm_sregs, apic_base)
	F(kvm_sregs, interrupt_bitmap)
	S(kvm_fpu)
	F(kvm_fpu, fpr)
	F(kvm_fpu, fcw)
	F(kvm_fpu, fsw)
	F(kvm_fpu, ftwx)
	F(kvm_fpu, last_opcode)
	F(kvm_fpu, last_ip)
	F(kvm_fpu, last_dp)
	F(kvm_fpu, xmm)
	F(kvm_fpu, mxcsr)
	S(kvm_msr_entry)
	F(kvm_msr_entry, index)
	F(kvm_msr_entry, reserved)
	F(kvm_msr_entry, data)
	S(kvm_msrs)
	F(kvm_msrs, nmsrs)
	F(kvm_msrs, pad)
	FX(kvm_msrs, entries)
	S(kvm_msr_list)
	F(kvm_msr_list, nmsrs)
	FX(kvm_msr_list, indices)
	S(kvm_cpuid_entry2)
	F(kvm_cpuid_entry2, function)
	F(kvm_cpuid_entry2, index)
	F(kvm_cpuid_entry2, flags)
	F(kvm_cpuid_entry2, eax)
	F(kvm_cpuid_entry2, ebx)
	F(kvm_cpuid_entry2, ecx)
	F(kvm_cpuid_entry2, edx)
	F(kvm_cpuid_entry2, padding)
	S(kvm_cpuid2)
	F(kvm_cpuid2, nent)
	F(kvm_cpuid2, padding)
	FX(kvm_cpuid2, entries)
	S(kvm_lapic_state)
	F(kvm_lapic_state, regs)
	S(kvm_pit_config)
	F(kvm_pit_config, flags)
	F(kvm_pit_config, pad)
}
#else
static void arch(void)
{
	S(user_pt_regs)
	F(user_pt_regs, regs)
	F(user_pt_regs, sp)
	F(user_pt_regs, pc)
	F(user_pt_regs, pstate)
	/* user_fpsimd_state.vregs (__uint128_t[32]) is not here: jextract has no 128-bit type
	 * and lays it out as padding; size and the fields after it still pin it down. */
	S(user_fpsimd_state)
	F(user_fpsimd_state, fpsr)
	F(user_fpsimd_state, fpcr)
	S(kvm_regs)
	F(kvm_regs, regs)
	F(kvm_regs, regs.regs)
	F(kvm_regs, regs.sp)
	F(kvm_regs, regs.pc)
	F(kvm_regs, regs.pstate)
	F(kvm_regs, sp_el1)
	F(kvm_regs, elr_el1)
	F(kvm_regs, spsr)
	F(kvm_regs, fp_regs)
	F(kvm_regs, fp_regs.fpsr)
	F(kvm_regs, fp_regs.fpcr)
	S(kvm_vcpu_init)
	F(kvm_vcpu_init, target)
	F(kvm_vcpu_init, features)
	S(kvm_arm_device_addr)
	F(kvm_arm_device_addr, id)
	F(kvm_arm_device_addr, addr)
	S(kvm_smccc_filter)
	F(kvm_smccc_filter, base)
	F(kvm_smccc_filter, nr_functions)
	F(kvm_smccc_filter, action)
	F(kvm_smccc_filter, pad)
	S(kvm_arm_counter_offset)
	F(kvm_arm_counter_offset, counter_offset)
	F(kvm_arm_counter_offset, reserved)
	S(pvlock_vcpu_state)
	F(pvlock_vcpu_state, preempted)
	F(pvlock_vcpu_state, pad)
}
#endif

int main(void)
{
	kvm_run();
	common();
	timer();
	tun();
	termios();
	uio();
	perf();
	arch();
	constants();
	return 0;
}
