/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jkvm's own header for the arm64 bindings: what the VMM needs that the Linux 6.12 uapi
 * headers do not carry. Written for jkvm (not copied); numbers checked against Linux
 * include/linux/arm-smccc.h and the out-of-tree "KVM: arm64: vcpu_is_preempted" series
 * (see /work/shared/design/pvlock-abi.md, and kvm-bindings/BINDINGS.md).
 *
 * Everything here is an object-like macro or a plain struct so that jextract turns it into
 * KvmArm64 constants and struct layouts, and the conformance test (src/test/c/layout.c)
 * checks those against this very header. Include after <linux/kvm.h> (arm64).
 */
#ifndef JKVM_PVLOCK_H
#define JKVM_PVLOCK_H

#include <stddef.h>	/* offsetof, used by KVM_REG_ARM_CORE_REG */
#include <linux/types.h>
#include <linux/kvm.h>

/* ---- PV lock: the out-of-tree series' vCPU device attribute ----------------------------
 * KVM_{SET,GET,HAS}_DEVICE_ATTR on a vCPU fd; attr.addr points at a __u64 IPA of this vCPU's
 * struct pvlock_vcpu_state (64-byte aligned, inside a memslot). Neighbour: PVTIME_CTRL 2. */
#define KVM_ARM_VCPU_PVLOCK_CTRL	3
#define   KVM_ARM_VCPU_PVLOCK_IPA	0

/* One per vCPU, 64 bytes, little endian. preempted != 0: the owning vCPU is not running. */
struct pvlock_vcpu_state {
	__u64 preempted;
	__u8  pad[56];
};

/* ---- SMCCC function-id encoding (DEN0028; Linux include/linux/arm-smccc.h) -------------
 * Unlike the kernel's, these are unsigned long, so the function ids come out as Java long
 * and compare directly with kvm_run.hypercall.nr (__u64) and the 64-bit x0..x3. (jextract
 * maps a C unsigned int to Java int, so a 32-bit 0xC6000002 would be a negative int.) */
#define ARM_SMCCC_STD_CALL		0UL
#define ARM_SMCCC_FAST_CALL		1UL
#define ARM_SMCCC_TYPE_SHIFT		31
#define ARM_SMCCC_SMC_32		0UL
#define ARM_SMCCC_SMC_64		1UL
#define ARM_SMCCC_CALL_CONV_SHIFT	30
#define ARM_SMCCC_OWNER_MASK		0x3FUL
#define ARM_SMCCC_OWNER_SHIFT		24
#define ARM_SMCCC_FUNC_MASK		0xFFFFUL

#define ARM_SMCCC_OWNER_ARCH		0U
#define ARM_SMCCC_OWNER_CPU		1U
#define ARM_SMCCC_OWNER_SIP		2U
#define ARM_SMCCC_OWNER_OEM		3U
#define ARM_SMCCC_OWNER_STANDARD	4U
#define ARM_SMCCC_OWNER_STANDARD_HYP	5U
#define ARM_SMCCC_OWNER_VENDOR_HYP	6U

/* Function-like, so not generated: only used below to build the ids. */
#define JKVM_SMCCC_CALL_VAL(type, conv, owner, func)			\
	(((type) << ARM_SMCCC_TYPE_SHIFT) |				\
	 ((conv) << ARM_SMCCC_CALL_CONV_SHIFT) |			\
	 (((owner) & ARM_SMCCC_OWNER_MASK) << ARM_SMCCC_OWNER_SHIFT) |	\
	 ((func) & ARM_SMCCC_FUNC_MASK))

#define ARM_SMCCC_VERSION_1_0		0x10000
#define ARM_SMCCC_VERSION_1_1		0x10001
#define ARM_SMCCC_VERSION_1_2		0x10002

/* 0x80000000, 0x80000001: answered by KVM (Arm architecture range, cannot be filtered) */
#define ARM_SMCCC_VERSION_FUNC_ID						\
	JKVM_SMCCC_CALL_VAL(ARM_SMCCC_FAST_CALL, ARM_SMCCC_SMC_32, ARM_SMCCC_OWNER_ARCH, 0U)
#define ARM_SMCCC_ARCH_FEATURES_FUNC_ID						\
	JKVM_SMCCC_CALL_VAL(ARM_SMCCC_FAST_CALL, ARM_SMCCC_SMC_32, ARM_SMCCC_OWNER_ARCH, 1U)

/* PV steal time (DEN0057A): 0xC5000020, 0xC5000021 */
#define ARM_SMCCC_HV_PV_TIME_FEATURES						\
	JKVM_SMCCC_CALL_VAL(ARM_SMCCC_FAST_CALL, ARM_SMCCC_SMC_64, ARM_SMCCC_OWNER_STANDARD_HYP, 0x20U)
#define ARM_SMCCC_HV_PV_TIME_ST							\
	JKVM_SMCCC_CALL_VAL(ARM_SMCCC_FAST_CALL, ARM_SMCCC_SMC_64, ARM_SMCCC_OWNER_STANDARD_HYP, 0x21U)

/* ---- Vendor-hyp (KVM) services --------------------------------------------------------- */
#define ARM_SMCCC_FUNC_QUERY_CALL_UID	0xFF01U

/* 0x8600FF01: returns the KVM UID 28b46fb6-2ec5-11e9-a9ca-4b564d003a74 in x0..x3 */
#define ARM_SMCCC_VENDOR_HYP_CALL_UID_FUNC_ID					\
	JKVM_SMCCC_CALL_VAL(ARM_SMCCC_FAST_CALL, ARM_SMCCC_SMC_32, ARM_SMCCC_OWNER_VENDOR_HYP, \
			    ARM_SMCCC_FUNC_QUERY_CALL_UID)
#define ARM_SMCCC_VENDOR_HYP_UID_KVM_REG_0	0xb66fb428UL
#define ARM_SMCCC_VENDOR_HYP_UID_KVM_REG_1	0xe911c52eUL
#define ARM_SMCCC_VENDOR_HYP_UID_KVM_REG_2	0x564bcaa9UL
#define ARM_SMCCC_VENDOR_HYP_UID_KVM_REG_3	0x743a004dUL

/* Bit numbers of the vendor-hyp services bitmap (x0 of the features call; also the bits
 * of the KVM_REG_ARM_VENDOR_HYP_BMAP firmware register). Bit 2 is the out-of-tree PV lock;
 * upstream later gave function 2 to pKVM (HYP_MEMINFO): advertise it only when jkvm
 * answers 0xC6000002 itself. */
#define ARM_SMCCC_KVM_FUNC_FEATURES	0
#define ARM_SMCCC_KVM_FUNC_PTP		1
#define ARM_SMCCC_KVM_FUNC_PV_LOCK	2
#define ARM_SMCCC_KVM_FUNC_FEATURES_2	127
#define ARM_SMCCC_KVM_NUM_FUNCS		128
#define KVM_REG_ARM_VENDOR_HYP_BIT_PV_LOCK	2

/* 0x86000000: x0 = bitmap of the services above */
#define ARM_SMCCC_VENDOR_HYP_KVM_FEATURES_FUNC_ID				\
	JKVM_SMCCC_CALL_VAL(ARM_SMCCC_FAST_CALL, ARM_SMCCC_SMC_32, ARM_SMCCC_OWNER_VENDOR_HYP, \
			    ARM_SMCCC_KVM_FUNC_FEATURES)
/* 0x86000001: KVM PTP (answered by KVM) */
#define ARM_SMCCC_VENDOR_HYP_KVM_PTP_FUNC_ID					\
	JKVM_SMCCC_CALL_VAL(ARM_SMCCC_FAST_CALL, ARM_SMCCC_SMC_32, ARM_SMCCC_OWNER_VENDOR_HYP, \
			    ARM_SMCCC_KVM_FUNC_PTP)
/* 0xC6000002: x0 = IPA of the caller's struct pvlock_vcpu_state, or SMCCC_RET_NOT_SUPPORTED */
#define ARM_SMCCC_VENDOR_HYP_KVM_PV_LOCK_FUNC_ID				\
	JKVM_SMCCC_CALL_VAL(ARM_SMCCC_FAST_CALL, ARM_SMCCC_SMC_64, ARM_SMCCC_OWNER_VENDOR_HYP, \
			    ARM_SMCCC_KVM_FUNC_PV_LOCK)

/* SMCCC return codes, as the 64-bit x0 value (long in Java: -1L is all ones) */
#define SMCCC_RET_SUCCESS		0L
#define SMCCC_RET_NOT_SUPPORTED		(-1L)
#define SMCCC_RET_NOT_REQUIRED		(-2L)
#define SMCCC_RET_INVALID_PARAMETER	(-3L)

/* ---- arm64 ONE_REG ids the VMM sets at boot (uapi only has function-like macros) -------- */
#define JKVM_REG_ARM64_CORE(field)	\
	(KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | KVM_REG_ARM_CORE_REG(field))
#define JKVM_REG_ARM64_X0	JKVM_REG_ARM64_CORE(regs.regs[0])
#define JKVM_REG_ARM64_X1	JKVM_REG_ARM64_CORE(regs.regs[1])
#define JKVM_REG_ARM64_X2	JKVM_REG_ARM64_CORE(regs.regs[2])
#define JKVM_REG_ARM64_X3	JKVM_REG_ARM64_CORE(regs.regs[3])
#define JKVM_REG_ARM64_X4	JKVM_REG_ARM64_CORE(regs.regs[4])
#define JKVM_REG_ARM64_X5	JKVM_REG_ARM64_CORE(regs.regs[5])
#define JKVM_REG_ARM64_X6	JKVM_REG_ARM64_CORE(regs.regs[6])
#define JKVM_REG_ARM64_X7	JKVM_REG_ARM64_CORE(regs.regs[7])
#define JKVM_REG_ARM64_X30	JKVM_REG_ARM64_CORE(regs.regs[30])
#define JKVM_REG_ARM64_SP	JKVM_REG_ARM64_CORE(regs.sp)
#define JKVM_REG_ARM64_PC	JKVM_REG_ARM64_CORE(regs.pc)
#define JKVM_REG_ARM64_PSTATE	JKVM_REG_ARM64_CORE(regs.pstate)
#define JKVM_REG_ARM64_SP_EL1	JKVM_REG_ARM64_CORE(sp_el1)
#define JKVM_REG_ARM64_ELR_EL1	JKVM_REG_ARM64_CORE(elr_el1)
#define JKVM_REG_ARM64_SPSR_EL1	JKVM_REG_ARM64_CORE(spsr[0])
/* Xn for any n: JKVM_REG_ARM64_X0 + 2 * n (each core register id counts 32-bit words) */
#define JKVM_REG_ARM64_CORE_X_STRIDE	(JKVM_REG_ARM64_X1 - JKVM_REG_ARM64_X0)

/* MPIDR_EL1 (op0 3, op1 0, CRn 0, CRm 0, op2 5): the affinity the FDT's cpu@ nodes use */
#define JKVM_REG_ARM64_MPIDR_EL1	ARM64_SYS_REG(3, 0, 0, 0, 5)
/* VBAR_EL1 (op0 3, op1 0, CRn 12, CRm 0, op2 0): where the guest kernel put its vectors, which
 * the profiler compares with the System.map's to find the KASLR offset */
#define JKVM_REG_ARM64_VBAR_EL1	ARM64_SYS_REG(3, 0, 12, 0, 0)
/* TTBR1_EL1 (3, 0, 2, 0, 1) and TCR_EL1 (3, 0, 2, 0, 2): the kernel's stage-1 tables and their
 * geometry, which the profiler walks to read the guest kernel's frame records */
#define JKVM_REG_ARM64_TTBR1_EL1	ARM64_SYS_REG(3, 0, 2, 0, 1)
#define JKVM_REG_ARM64_TCR_EL1	ARM64_SYS_REG(3, 0, 2, 0, 2)

/* PSTATE at boot: EL1h with D, A, I, F masked (0x3C5); bits from uapi <asm/ptrace.h> */
#define JKVM_ARM64_PSTATE_EL1H_DAIF	\
	(PSR_D_BIT | PSR_A_BIT | PSR_I_BIT | PSR_F_BIT | PSR_MODE_EL1h)

#endif /* JKVM_PVLOCK_H */
