/*
 * pvlock probe: a bare-metal arm64 guest that checks jkvm's PV-lock device
 * (shared/design/pvlock-abi.md). See README.md for what it prints.
 *
 * The MMU stays off, so every data access is Device-nGnRnE: only aligned accesses
 * (-mstrict-align), no exclusives; CPUs synchronise through per-CPU flags that only one
 * CPU writes. Only CPU 0 writes to the UART.
 */
#include <stdint.h>
#include "probe.h"

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint8_t u8;

#ifdef UART_PL011	/* QEMU virt's console, for a quick check under plain QEMU only */
#define UART_BASE 0x09000000UL
#define UART_DR 0x00
#define UART_CR 0x30
#else			/* jkvm: 16550, THR at offset 0, always ready */
#define UART_BASE 0x09000000UL
#define UART_THR 0x00
#endif

#define SMCCC_VENDOR_HYP_CALL_UID	0x8600FF01UL
#define SMCCC_VENDOR_HYP_KVM_FEATURES	0x86000000UL
#define SMCCC_VENDOR_HYP_KVM_PV_LOCK	0xC6000002UL
#define PSCI_CPU_OFF			0x84000002UL
#define PSCI_CPU_ON			0xC4000003UL
#define PSCI_SYSTEM_OFF			0x84000008UL
#define KVM_FEATURE_PV_LOCK_BIT		2
#define SMCCC_NOT_SUPPORTED		((u64)-1)

#define MPIDR_AFF_MASK			0xff00ffffffUL
#define DEFAULT_SECONDS			5
#define START_TIMEOUT_S			20
#define ACK_TIMEOUT_S			10

static const u32 kvm_uid[4] = {0xb66fb428, 0xe911c52e, 0x564bcaa9, 0x743a004d};

/* Written by the owning CPU only (CPU 0 writes state for CPUs it could not start). */
struct slot {
	volatile u64 done;		/* results below are valid */
	volatile u64 ack;		/* saw the stop flag */
	volatile u64 uid[4];
	volatile u64 features;
	volatile u64 pvlock;
};

static struct slot slots[MAX_CPUS];
static volatile u64 stop_flag;
static u64 mpidrs[MAX_CPUS];
static u64 ncpus;			/* CPUs used (<= MAX_CPUS) */
static u64 dt_cpus;			/* cpu nodes in the DTB */
static u64 seconds = DEFAULT_SECONDS;
static u64 timer_hz;

extern void secondary_entry(void);

/* --- compiler support (gcc may emit calls to these even when freestanding) -------------- */
void *memset(void *d, int c, unsigned long n)
{
	volatile u8 *p = d;
	while (n--)
		*p++ = (u8)c;
	return d;
}

void *memcpy(void *d, const void *s, unsigned long n)
{
	volatile u8 *p = d;
	const volatile u8 *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

/* --- barriers, system registers, SMCCC ------------------------------------------------- */
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

struct res { u64 r0, r1, r2, r3; };

static void hvc(u64 fn, u64 a1, u64 a2, u64 a3, struct res *out)
{
	register u64 x0 __asm__("x0") = fn;
	register u64 x1 __asm__("x1") = a1;
	register u64 x2 __asm__("x2") = a2;
	register u64 x3 __asm__("x3") = a3;
	__asm__ volatile("hvc #0"
			 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
			 :
			 : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
			   "x14", "x15", "x16", "x17", "memory");
	out->r0 = x0;
	out->r1 = x1;
	out->r2 = x2;
	out->r3 = x3;
}

static u64 hvc0(u64 fn, u64 a1, u64 a2, u64 a3)
{
	struct res r;
	hvc(fn, a1, a2, a3, &r);
	return r.r0;
}

static void __attribute__((noreturn)) system_off(void)
{
	hvc0(PSCI_SYSTEM_OFF, 0, 0, 0);
	for (;;)
		__asm__ volatile("wfi");
}

/* --- console ---------------------------------------------------------------------------- */
static void putc_(char c)
{
#ifdef UART_PL011
	*(volatile u32 *)(UART_BASE + UART_DR) = (u8)c;
#else
	*(volatile u8 *)(UART_BASE + UART_THR) = (u8)c;
#endif
}

static void puts_(const char *s)
{
	while (*s) {
		if (*s == '\n')
			putc_('\r');
		putc_(*s++);
	}
}

static void putdec(u64 v)
{
	char b[24];
	int i = 0;
	do {
		b[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (i)
		putc_(b[--i]);
}

static void puthex(u64 v)	/* 0x + lowercase, no leading zeros */
{
	char b[16];
	int i = 0;
	puts_("0x");
	do {
		b[i++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (i)
		putc_(b[--i]);
}

static void uart_init(void)
{
#ifdef UART_PL011
	*(volatile u32 *)(UART_BASE + UART_CR) = 0x301;	/* UARTEN | TXE | RXE */
#endif
}

void __attribute__((noreturn)) exception(u64 type, u64 esr, u64 elr, u64 far)
{
	puts_("PVPROBE exception cpu_mpidr=");
	puthex(read_mpidr() & MPIDR_AFF_MASK);
	puts_(" vector=");
	putdec(type);
	puts_(" esr=");
	puthex(esr);
	puts_(" elr=");
	puthex(elr);
	puts_(" far=");
	puthex(far);
	puts_("\n");
	system_off();
}

/* --- device tree: CPU count and MPIDRs, /chosen/bootargs -------------------------------- */
#define FDT_MAGIC	0xd00dfeedU
#define FDT_BEGIN_NODE	1
#define FDT_END_NODE	2
#define FDT_PROP	3
#define FDT_NOP		4
#define FDT_END		9

static u32 be32(u64 a)	/* byte loads: always aligned */
{
	const volatile u8 *p = (const volatile u8 *)a;
	return ((u32)p[0] << 24) | ((u32)p[1] << 16) | ((u32)p[2] << 8) | p[3];
}

static int streq(u64 a, const char *s)
{
	const volatile u8 *p = (const volatile u8 *)a;
	while (*s)
		if (*p++ != (u8)*s++)
			return 0;
	return *p == 0;
}

static int prefix(u64 a, const char *s)
{
	const volatile u8 *p = (const volatile u8 *)a;
	while (*s)
		if (*p++ != (u8)*s++)
			return 0;
	return 1;
}

static u64 strlen_(u64 a)
{
	u64 n = 0;
	while (*(const volatile u8 *)(a + n))
		n++;
	return n;
}

/* Finds "probe.seconds=<n>" as a whole word of the bootargs [a, a+len). */
static void parse_bootargs(u64 a, u64 len)
{
	static const char key[] = "probe.seconds=";
	const volatile u8 *p = (const volatile u8 *)a;
	for (u64 i = 0; i < len && p[i]; i++) {
		if (i > 0 && p[i - 1] != ' ')
			continue;
		u64 k = 0;
		while (key[k] && i + k < len && p[i + k] == (u8)key[k])
			k++;
		if (key[k])
			continue;
		u64 j = i + k, v = 0, digits = 0;
		while (j < len && p[j] >= '0' && p[j] <= '9' && digits < 9) {
			v = v * 10 + (p[j] - '0');
			j++;
			digits++;
		}
		if (digits && (j >= len || p[j] == ' ' || p[j] == 0))
			seconds = v;
	}
}

enum { K_OTHER, K_ROOT, K_CHOSEN, K_CPUS, K_CPU };

/* Returns 0 on success, else a short reason. */
static const char *parse_dtb(u64 dtb)
{
	if (dtb == 0 || (dtb & 7))
		return "no-dtb";
	if (be32(dtb) != FDT_MAGIC)
		return "bad-magic";
	u64 total = be32(dtb + 4);
	u64 off_struct = be32(dtb + 8);
	u64 off_strings = be32(dtb + 12);
	u64 size_struct = be32(dtb + 36);
	if (off_struct + size_struct > total || off_strings > total)
		return "bad-header";
	u64 p = dtb + off_struct, end = p + size_struct;
	u8 kind[32];
	int depth = 0;
	while (p + 4 <= end) {
		u32 tok = be32(p);
		p += 4;
		if (tok == FDT_BEGIN_NODE) {
			u64 name = p, n = strlen_(p);
			p += (n + 1 + 3) & ~3UL;
			if (depth >= 31)
				return "too-deep";
			u8 parent = depth ? kind[depth - 1] : K_OTHER;
			u8 k = K_OTHER;
			if (depth == 0)
				k = K_ROOT;
			else if (parent == K_ROOT && streq(name, "chosen"))
				k = K_CHOSEN;
			else if (parent == K_ROOT && streq(name, "cpus"))
				k = K_CPUS;
			else if (parent == K_CPUS && (streq(name, "cpu") || prefix(name, "cpu@"))) {
				k = K_CPU;
				if (dt_cpus < MAX_CPUS)
					mpidrs[dt_cpus] = dt_cpus;	/* until reg says otherwise */
				dt_cpus++;
			}
			kind[depth++] = k;
		} else if (tok == FDT_END_NODE) {
			if (depth == 0)
				return "unbalanced";
			depth--;
		} else if (tok == FDT_PROP) {
			u64 len = be32(p), nameoff = be32(p + 4);
			u64 val = p + 8;
			p = val + ((len + 3) & ~3UL);
			if (off_strings + nameoff >= total || depth == 0)
				return "bad-prop";
			u64 name = dtb + off_strings + nameoff;
			u8 k = kind[depth - 1];
			if (k == K_CHOSEN && streq(name, "bootargs"))
				parse_bootargs(val, len);
			else if (k == K_CPU && streq(name, "reg") && dt_cpus <= MAX_CPUS) {
				u64 r = len == 8 ? ((u64)be32(val) << 32) | be32(val + 4)
						 : len == 4 ? be32(val) : dt_cpus - 1;
				mpidrs[dt_cpus - 1] = r & MPIDR_AFF_MASK;
			}
		} else if (tok == FDT_NOP) {
			continue;
		} else if (tok == FDT_END) {
			return 0;
		} else {
			return "bad-token";
		}
	}
	return "no-end";
}

/* --- the probe itself ------------------------------------------------------------------- */
static void probe(struct slot *s)
{
	struct res r;
	hvc(SMCCC_VENDOR_HYP_CALL_UID, 0, 0, 0, &r);
	s->uid[0] = r.r0;
	s->uid[1] = r.r1;
	s->uid[2] = r.r2;
	s->uid[3] = r.r3;
	s->features = hvc0(SMCCC_VENDOR_HYP_KVM_FEATURES, 0, 0, 0);
	s->pvlock = hvc0(SMCCC_VENDOR_HYP_KVM_PV_LOCK, 0, 0, 0);
	dmb();
	s->done = 1;
	dsb();
}

void __attribute__((noreturn)) secondary_main(u64 idx)
{
	probe(&slots[idx]);
	while (!stop_flag)	/* runnable, so an overcommitted host preempts us */
		;
	dmb();
	slots[idx].ack = 1;
	dsb();
	hvc0(PSCI_CPU_OFF, 0, 0, 0);
	for (;;)
		__asm__ volatile("wfi");
}

static int has_addr(u64 i)
{
	return slots[i].done == 1 && slots[i].pvlock != SMCCC_NOT_SUPPORTED;
}

static void print_cpu(u64 i)
{
	struct slot *s = &slots[i];
	int uid_ok = 1;
	for (int w = 0; w < 4; w++)
		if (s->uid[w] != kvm_uid[w])
			uid_ok = 0;
	puts_("PVPROBE cpu=");
	putdec(i);
	puts_(uid_ok ? " uid=ok" : " uid=bad");
	puts_(" features=");
	puthex(s->features);
	puts_(" pvlock=");
	if (s->pvlock == SMCCC_NOT_SUPPORTED)
		puts_("unsupported");
	else
		puthex(s->pvlock);
	puts_("\n");
}

/* Reads another vCPU's `preempted` (u64 at offset 0). The host writes it through a
 * cacheable mapping while our access is non-cacheable: clean+invalidate the line first
 * (a no-op where the host forces write-back with FEAT_S2FWB, or under TCG). */
static u64 read_preempted(u64 ipa)
{
	__asm__ volatile("dc civac, %0; dsb sy" :: "r"(ipa) : "memory");
	return *(volatile u64 *)ipa;
}

static void wait_ticks(volatile u64 *flag, u64 ticks)
{
	u64 t0 = read_cntvct();
	while (!*flag && read_cntvct() - t0 < ticks)
		;
}

static void observe(void)
{
	u64 watch[MAX_CPUS], nwatch = 0;
	u64 went[MAX_CPUS], back[MAX_CPUS], prev[MAX_CPUS];
	for (u64 i = 1; i < ncpus; i++)
		if (has_addr(i) && (slots[i].pvlock & 63) == 0)
			watch[nwatch++] = i;
	if (nwatch == 0 && has_addr(0) && (slots[0].pvlock & 63) == 0)
		watch[nwatch++] = 0;	/* single vCPU: watch ourselves (must stay 0) */
	for (u64 k = 0; k < nwatch; k++) {
		went[k] = back[k] = 0;
		prev[k] = read_preempted(slots[watch[k]].pvlock) != 0;
	}
	u64 t0 = read_cntvct(), ticks = seconds * timer_hz;
	while (read_cntvct() - t0 < ticks) {
		for (u64 k = 0; k < nwatch; k++) {
			u64 nz = read_preempted(slots[watch[k]].pvlock) != 0;
			if (nz && !prev[k])
				went[k]++;
			else if (!nz && prev[k])
				back[k]++;
			prev[k] = nz;
		}
	}
	for (u64 k = 0; k < nwatch; k++) {
		puts_("PVPROBE observe cpu=");
		putdec(watch[k]);
		puts_(" went_nonzero=");
		putdec(went[k]);
		puts_(" back_to_zero=");
		putdec(back[k]);
		puts_(" seconds=");
		putdec(seconds);
		puts_("\n");
	}
}

void __attribute__((noreturn)) main(u64 dtb)
{
	uart_init();
	timer_hz = read_cntfrq();
	if (timer_hz == 0)
		timer_hz = 62500000;

	const char *err = parse_dtb(dtb);
	if (err) {
		puts_("PVPROBE dtb=");
		puts_(err);
		puts_(" (assuming 1 cpu)\n");
		dt_cpus = 0;
	}
	ncpus = dt_cpus < MAX_CPUS ? dt_cpus : MAX_CPUS;
	if (ncpus == 0) {
		ncpus = 1;
		mpidrs[0] = read_mpidr() & MPIDR_AFF_MASK;
	}
	/* logical CPU 0 is the boot CPU */
	u64 self = read_mpidr() & MPIDR_AFF_MASK;
	for (u64 i = 1; i < ncpus; i++)
		if (mpidrs[i] == self) {
			mpidrs[i] = mpidrs[0];
			mpidrs[0] = self;
		}

	puts_("PVPROBE cpus=");
	putdec(ncpus);
	if (dt_cpus > MAX_CPUS) {
		puts_(" (of ");
		putdec(dt_cpus);
		puts_(" in the DTB)");
	}
	puts_("\n");

	probe(&slots[0]);
	print_cpu(0);

	u64 entry = (u64)&secondary_entry;
	for (u64 i = 1; i < ncpus; i++) {
		u64 ret = hvc0(PSCI_CPU_ON, mpidrs[i], entry, i);
		if (ret != 0) {
			puts_("PVPROBE cpu=");
			putdec(i);
			puts_(" cpu_on=-");
			putdec((u64)-(int64_t)ret);
			puts_(" mpidr=");
			puthex(mpidrs[i]);
			puts_("\n");
			slots[i].ack = 1;	/* nothing to wait for */
			continue;
		}
		wait_ticks(&slots[i].done, START_TIMEOUT_S * timer_hz);
		dmb();
		if (!slots[i].done) {
			puts_("PVPROBE cpu=");
			putdec(i);
			puts_(" timeout\n");
			continue;
		}
		print_cpu(i);
	}

	/* addresses: distinct, 64-byte aligned */
	u64 count = 0;
	int distinct = 1, aligned = 1;
	for (u64 i = 0; i < ncpus; i++) {
		if (!has_addr(i))
			continue;
		count++;
		if (slots[i].pvlock & 63)
			aligned = 0;
		for (u64 j = 0; j < i; j++)
			if (has_addr(j) && slots[j].pvlock == slots[i].pvlock)
				distinct = 0;
	}
	if (count) {
		puts_("PVPROBE addresses distinct=");
		puts_(distinct ? "yes" : "no");
		puts_(" aligned64=");
		puts_(aligned ? "yes" : "no");
		puts_(" count=");
		putdec(count);
		puts_("\n");
		observe();
	} else {
		puts_("PVPROBE pvlock unavailable\n");
	}

	stop_flag = 1;
	dsb();
	for (u64 i = 1; i < ncpus; i++) {
		if (!slots[i].done)
			continue;
		wait_ticks(&slots[i].ack, ACK_TIMEOUT_S * timer_hz);
		if (!slots[i].ack) {
			puts_("PVPROBE cpu=");
			putdec(i);
			puts_(" no-ack\n");
		}
	}
	puts_("PVPROBE done\n");
	system_off();
}
