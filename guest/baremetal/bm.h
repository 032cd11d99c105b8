/*
 * What jkvm's bare-metal arm64 test guests share: barriers and system registers, SMCCC calls
 * over HVC, the 16550 console (only one CPU may print), the device tree's CPUs and bootargs.
 * The MMU stays off, so every data access is Device-nGnRnE: aligned accesses only
 * (-mstrict-align), no exclusives or atomics.
 */
#ifndef BM_H
#define BM_H
#include <stdint.h>
#include "layout.h"

typedef uint64_t u64;
typedef int64_t s64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;

#define UART_BASE		0x09000000UL	/* jkvm's 16550 (QEMU virt's PL011 with -DUART_PL011) */
#define MPIDR_AFF_MASK		0xff00ffffffUL

#define PSCI_CPU_OFF		0x84000002UL
#define PSCI_CPU_ON		0xC4000003UL
#define PSCI_SYSTEM_OFF		0x84000008UL
#define SMCCC_NOT_SUPPORTED	((u64)-1)

#define dmb()	__asm__ volatile("dmb sy" ::: "memory")
#define dsb()	__asm__ volatile("dsb sy" ::: "memory")

static inline u64 read_cntvct(void)
{
	u64 v;
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

static inline u64 read_cntfrq(void)
{
	u64 v;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

static inline u64 read_mpidr(void)
{
	u64 v;
	__asm__ volatile("mrs %0, mpidr_el1" : "=r"(v));
	return v;
}

/* SMCCC over HVC: x0..x3 in, x0..x3 out. */
struct res { u64 r0, r1, r2, r3; };
void hvc(u64 fn, u64 a1, u64 a2, u64 a3, struct res *out);
u64 hvc0(u64 fn, u64 a1, u64 a2, u64 a3);
void __attribute__((noreturn)) system_off(void);

/* Console (16550 THR written without polling LSR: jkvm's is always ready). */
void uart_init(void);
void putc_(char c);
void puts_(const char *s);	/* '\n' goes out as "\r\n" */
void putdec(u64 v);
void puthex(u64 v);		/* 0x + lowercase, no leading zeros */

/* The device tree jkvm passes in x0. */
struct dtb_info {
	u64 cpus;		/* cpu nodes under /cpus (0 when the DTB does not parse) */
	u64 mpidr[MAX_CPUS];	/* their MPIDRs (reg), the first MAX_CPUS of them */
	u64 bootargs;		/* address of /chosen/bootargs, 0 if none */
	u64 bootargs_len;
};

/* Fills *d from the DTB at dtb; returns 0, or a short reason it does not parse. */
const char *dtb_parse(u64 dtb, struct dtb_info *d);
/* The CPUs to use, at most MAX_CPUS (1, this one, when the DTB named none); the boot CPU first. */
u64 cpus_to_use(struct dtb_info *d);
/* "key=<1..9 digits>" as a whole word of the bootargs (the last one wins): 1 and *value, else 0. */
int bootarg_u64(const struct dtb_info *d, const char *key, u64 *value);
/* Whether a word of the bootargs starts with "key=". */
int bootarg_has(const struct dtb_info *d, const char *key);
/* Whether "key=value" is a whole word of the bootargs. */
int bootarg_is(const struct dtb_info *d, const char *key, const char *value);
#endif
