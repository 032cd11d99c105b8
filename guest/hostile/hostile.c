/*
 * hostile: a bare-metal arm64 guest that misbehaves on purpose, to show that nothing a guest
 * does crashes or wedges jkvm. The mode comes from the kernel command line (hostile.mode=);
 * see README.md for the modes and what each prints.
 *
 * Built on guest/baremetal (MMU off: aligned accesses only, no exclusives). CPUs report
 * through per-CPU slots that only their owner writes; only CPU 0 prints. Exceptions are
 * counted and the faulting instruction skipped, so an access jkvm refuses does not stop us.
 */
#include "bm.h"

#define SMCCC_VENDOR_HYP_KVM_FEATURES	0x86000000UL
#define SMCCC_VENDOR_HYP_KVM_PV_LOCK	0xC6000002UL
#define SMCCC_PV_TIME_FEATURES		0xC5000020UL
#define SMCCC_PV_TIME_ST		0xC5000021UL
#define PSCI_RET_SUCCESS		0
#define ESR_EC_DABT_CUR			0x25	/* data abort taken without a change of EL */

#define PV_REGION_BYTES			0x10000UL	/* jkvm's PV regions: 64 KiB for up to 1024 vCPUs */
#define PVLOCK_REGION			0x0A100000UL
#define FDT_BYTES			0x200000UL	/* jkvm puts the DTB in the last 2 MiB of RAM */
#define START_TIMEOUT_S			20
#define DONE_TIMEOUT_S			900

enum mode { CALM, MMIO, NISV, HVC, PVLOCK, DTB, PSCI, CPUOFF, SPIN, UNKNOWN };
/* a char matrix, not pointers: the code is position-independent but data pointers would not be */
static const char mode_names[][8] = {
	"calm", "mmio", "nisv", "hvc", "pvlock", "dtb", "psci", "cpuoff", "spin", "unknown",
};
/* count= when not given: accesses (mmio, nisv), calls (hvc), passes (pvlock, dtb) per CPU. */
static const u64 default_count[] = {0, 2000, 200, 5000, 4, 1, 0, 0, 0, 0};

/* Guest-physical ranges jkvm maps nothing at (arm64 layout: Arm64Layout.java), [base, base + size). */
static const struct { u64 base, size; } holes[] = {
	{0x00000000UL, 0x08000000UL},		/* below the GIC distributor */
	{0x08010000UL, 0x00070000UL},		/* between the distributor (64 KiB) and the ITS */
	{0x080A0000UL, 0x00F60000UL},		/* past the ITS (128 KiB), up to the UART */
	{0x09000008UL, 0x00000FF8UL},		/* the UART's page past the 8 bytes it decodes */
	{0x09001000UL, 0x00FFF000UL},		/* past the UART, up to the PV regions */
	{0x0A200000UL, 0x05E00000UL},		/* past the PV regions, up to the redistributors */
	{0x14000000UL, 0x2C000000UL},		/* past 512 vCPUs' redistributors, up to RAM */
	{0x8000000000UL, 0x7FFFFFF000UL},	/* 512 GiB up to the 40-bit IPA limit, far above RAM */
};
#define NHOLES (sizeof(holes) / sizeof(holes[0]))

/* Written by the owning CPU only. */
struct slot {
	volatile u64 started;
	volatile u64 done;
	volatile u64 ops;		/* accesses, calls or words written */
	volatile u64 pv_calls;		/* hvc: calls of the two ids jkvm's PV-lock device answers */
	volatile u64 odd;		/* reads that were not 0, answers that were not the expected */
	volatile u64 exceptions;
	volatile u64 aborts;		/* data aborts among them */
	volatile u64 pvlock;		/* pvlock: the structure's address before and after */
	volatile u64 pvlock_after;
	volatile u64 stolen;		/* pvlock: the steal-time structure's address, or -1 */
};

static struct slot slots[MAX_CPUS];
static struct dtb_info dt;
static u64 dtb_addr;
static u64 ncpus;
static enum mode mode = CALM;
static u64 count;
static u64 seed = 1;
static u64 timer_hz;

extern void secondary_entry(void);

static u64 self(void)
{
	u64 v;
	__asm__ volatile("mrs %0, tpidr_el1" : "=r"(v));
	return v;
}

u64 exception(u64 type, u64 esr, u64 elr, u64 far)
{
	(void)far;
	struct slot *s = &slots[self() & (MAX_CPUS - 1)];
	s->exceptions++;
	if ((esr >> 26) == ESR_EC_DABT_CUR)
		s->aborts++;
	/* synchronous ones (vectors 0, 4, 8, 12) would repeat: resume past the instruction */
	return type % 4 == 0 ? elr + 4 : elr;
}

static u64 rnd(u64 *state)	/* xorshift64* */
{
	u64 x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DUL;
}

static u64 hole_address(u64 *st, u64 align)
{
	u64 h = rnd(st) % NHOLES;
	u64 a = holes[h].base + rnd(st) % holes[h].size;
	a &= ~(align - 1);
	return a < holes[h].base ? holes[h].base : a;
}

static void wait_ticks(volatile u64 *flag, u64 ticks)
{
	u64 t0 = read_cntvct();
	while (!*flag && read_cntvct() - t0 < ticks)
		;
}

/* --- mmio: plain loads and stores KVM decodes (ISV set), each one exit to jkvm -------------- */
static u64 mmio_read(u64 a, u64 size)
{
	u64 v = 0;
	switch (size) {
	case 1: __asm__ volatile("ldrb %w0, [%1]" : "+r"(v) : "r"(a) : "memory"); break;
	case 2: __asm__ volatile("ldrh %w0, [%1]" : "+r"(v) : "r"(a) : "memory"); break;
	case 4: __asm__ volatile("ldr %w0, [%1]" : "+r"(v) : "r"(a) : "memory"); break;
	default: __asm__ volatile("ldr %0, [%1]" : "+r"(v) : "r"(a) : "memory"); break;
	}
	return v;
}

static void mmio_write(u64 a, u64 size, u64 v)
{
	switch (size) {
	case 1: __asm__ volatile("strb %w0, [%1]" :: "r"(v), "r"(a) : "memory"); break;
	case 2: __asm__ volatile("strh %w0, [%1]" :: "r"(v), "r"(a) : "memory"); break;
	case 4: __asm__ volatile("str %w0, [%1]" :: "r"(v), "r"(a) : "memory"); break;
	default: __asm__ volatile("str %0, [%1]" :: "r"(v), "r"(a) : "memory"); break;
	}
}

static void mmio_storm(struct slot *s, u64 *st)
{
	for (u64 i = 0; count == 0 || i < count; i++) {
		u64 r = rnd(st);
		u64 size = 1UL << (r & 3);
		u64 a = hole_address(st, size);
		if (r & 4) {
			if (mmio_read(a, size) != 0)
				s->odd++;
		} else {
			mmio_write(a, size, rnd(st));
		}
		s->ops++;
	}
}

/* --- nisv: accesses KVM cannot decode (no ISV): load/store pair, post-index writeback ------ */
static void nisv_storm(struct slot *s, u64 *st)
{
	for (u64 i = 0; count == 0 || i < count; i++) {
		u64 a = hole_address(st, 16), b = a, x = 0, y = 0;
		__asm__ volatile("ldp %0, %1, [%2]" : "+r"(x), "+r"(y) : "r"(a) : "memory");
		__asm__ volatile("stp %0, %1, [%2]" :: "r"(x), "r"(y), "r"(a) : "memory");
		__asm__ volatile("ldr %0, [%1], #8" : "+r"(x), "+r"(b) :: "memory");
		s->ops += 3;
	}
}

/* --- hvc: random function ids and arguments over HVC and SMC, with and without immediates -- */
static u64 call(u64 conduit, u64 fn, u64 *st)
{
	register u64 x0 __asm__("x0") = fn;
	register u64 x1 __asm__("x1") = rnd(st);
	register u64 x2 __asm__("x2") = rnd(st);
	register u64 x3 __asm__("x3") = rnd(st);
	register u64 x4 __asm__("x4") = rnd(st);
	register u64 x5 __asm__("x5") = rnd(st);
	register u64 x6 __asm__("x6") = rnd(st);
	register u64 x7 __asm__("x7") = rnd(st);
#define CALL(insn) __asm__ volatile(insn : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4), \
		"+r"(x5), "+r"(x6), "+r"(x7) :: "x8", "x9", "x10", "x11", "x12", "x13", "x14", \
		"x15", "x16", "x17", "memory")
	switch (conduit) {
	case 0: CALL("hvc #0"); break;
	case 1: CALL("hvc #0x5a5a"); break;
	case 2: CALL("smc #0"); break;
	default: CALL("smc #0x1234"); break;	/* a reserved immediate: the answer is always -1 */
	}
#undef CALL
	return x0;
}

/* A fast-call id outside the services KVM implements (arch, standard secure/hypervisor, vendor hyp). */
static u64 unowned_id(u64 *st)
{
	for (;;) {
		u64 id = rnd(st) & 0xffffffffUL;
		u64 oen = (id >> 24) & 0x3f;
		if (!(id & 0x80000000UL) || (oen != 0 && oen != 4 && oen != 5 && oen != 6))
			return id;
	}
}

static void hvc_storm(struct slot *s, u64 *st)
{
	/* what an honest guest gets; the storm's answers must not differ */
	u64 features = hvc0(SMCCC_VENDOR_HYP_KVM_FEATURES, 0, 0, 0);
	u64 pvlock = hvc0(SMCCC_VENDOR_HYP_KVM_PV_LOCK, 0, 0, 0);
	s->pv_calls += 2;
	for (u64 i = 0; count == 0 || i < count; i++) {
		u64 kind = rnd(st) % 8, garbage = rnd(st) << 32, got, want;
		if (kind == 0) {
			got = call(rnd(st) % 3, SMCCC_VENDOR_HYP_KVM_FEATURES | garbage, st);
			want = features;
			s->pv_calls++;
		} else if (kind == 1) {
			got = call(rnd(st) % 3, SMCCC_VENDOR_HYP_KVM_PV_LOCK | garbage, st);
			want = pvlock;
			s->pv_calls++;
		} else {
			got = call(rnd(st) % 4, unowned_id(st) | garbage, st);
			want = SMCCC_NOT_SUPPORTED;
		}
		if (got != want)
			s->odd++;
		s->ops++;
	}
}

/* --- pvlock: garbage over the PV-lock and steal-time structures of every vCPU -------------- */
static void scribble(u64 base, u64 bytes, u64 *st, struct slot *s)
{
	for (u64 a = base; a < base + bytes; a += 8) {
		*(volatile u64 *)a = rnd(st);
		s->ops++;
	}
}

static void pvlock_scribble(struct slot *s, u64 *st)
{
	s->pvlock = hvc0(SMCCC_VENDOR_HYP_KVM_PV_LOCK, 0, 0, 0);
	s->stolen = hvc0(SMCCC_PV_TIME_FEATURES, SMCCC_PV_TIME_ST, 0, 0) == 0
		? hvc0(SMCCC_PV_TIME_ST, 0, 0, 0) : SMCCC_NOT_SUPPORTED;
	for (u64 pass = 0; pass < count; pass++) {
		if (s->pvlock != SMCCC_NOT_SUPPORTED)
			scribble(PVLOCK_REGION, PV_REGION_BYTES, st, s);
		if (s->stolen != SMCCC_NOT_SUPPORTED)
			scribble(s->stolen & ~(PV_REGION_BYTES - 1), PV_REGION_BYTES, st, s);
	}
	s->pvlock_after = hvc0(SMCCC_VENDOR_HYP_KVM_PV_LOCK, 0, 0, 0);
}

/* --- spin: interrupts masked, never leaving the guest ----------------------------------- */
static void __attribute__((noreturn)) spin(void)
{
	__asm__ volatile("msr daifset, #0xf\n1: b 1b" ::: "memory");
	__builtin_unreachable();
}

/* --- per CPU ---------------------------------------------------------------------------- */
static void attack(u64 idx)
{
	struct slot *s = &slots[idx];
	u64 st = seed * 0x9E3779B97F4A7C15UL + idx + 1;
	__asm__ volatile("msr tpidr_el1, %0" :: "r"(idx));
	s->started = 1;
	dsb();
	switch (mode) {
	case MMIO: mmio_storm(s, &st); break;
	case NISV: nisv_storm(s, &st); break;
	case HVC: hvc_storm(s, &st); break;
	case PVLOCK: pvlock_scribble(s, &st); break;
	case SPIN: if (idx != 0) spin(); break;
	default: break;
	}
	dmb();
	s->done = 1;
	dsb();
}

void __attribute__((noreturn)) secondary_main(u64 idx)
{
	attack(idx);
	if (mode == PSCI)
		system_off();	/* SYSTEM_OFF from a secondary, with CPUs 1-3 stuck */
	hvc0(PSCI_CPU_OFF, 0, 0, 0);
	for (;;)
		__asm__ volatile("wfi");
}

/* --- CPU 0 ------------------------------------------------------------------------------ */
static void put_ret(const char *name, u64 ret)
{
	puts_(name);
	if ((s64)ret < 0) {
		putc_('-');
		putdec((u64)-(s64)ret);
	} else {
		putdec(ret);
	}
}

static int start_secondaries(void)
{
	u64 entry = (u64)&secondary_entry;
	int ok = 1;
	for (u64 i = 1; i < ncpus; i++) {
		u64 ret = hvc0(PSCI_CPU_ON, dt.mpidr[i], entry, i);
		if (ret == PSCI_RET_SUCCESS)
			wait_ticks(&slots[i].started, START_TIMEOUT_S * timer_hz);
		if (ret != PSCI_RET_SUCCESS || !slots[i].started) {
			puts_("HOSTILE cpu=");
			putdec(i);
			put_ret(" cpu_on=", ret);
			puts_(slots[i].started ? "\n" : " not-started\n");
			ok = 0;
		}
	}
	return ok;
}

static void report(void)
{
	struct slot t = {0};
	for (u64 i = 0; i < ncpus; i++) {
		struct slot *s = &slots[i];
		wait_ticks(&s->done, DONE_TIMEOUT_S * timer_hz);
		dmb();
		puts_("HOSTILE cpu=");
		putdec(i);
		puts_(s->done ? "" : " not-done");
		puts_(" ops=");
		putdec(s->ops);
		puts_(" pv_calls=");
		putdec(s->pv_calls);
		puts_(" odd=");
		putdec(s->odd);
		puts_(" exceptions=");
		putdec(s->exceptions);
		puts_(" aborts=");
		putdec(s->aborts);
		if (mode == PVLOCK) {
			puts_(" pvlock=");
			puthex(s->pvlock);
			puts_(s->pvlock_after == s->pvlock ? " again=same" : " again=differs");
			puts_(" stolen=");
			puthex(s->stolen);
		}
		puts_("\n");
		t.ops += s->ops;
		t.pv_calls += s->pv_calls;
		t.odd += s->odd;
		t.exceptions += s->exceptions;
		t.aborts += s->aborts;
	}
	puts_("HOSTILE total ops=");
	putdec(t.ops);
	puts_(" pv_calls=");
	putdec(t.pv_calls);
	puts_(" odd=");
	putdec(t.odd);
	puts_(" exceptions=");
	putdec(t.exceptions);
	puts_(" aborts=");
	putdec(t.aborts);
	puts_("\n");
}

/* Overwrites the device tree jkvm wrote (the last 2 MiB of RAM, where x0 pointed) with garbage. */
static void dtb_overwrite(void)
{
	u64 st = seed;
	for (u64 pass = 0; pass < count; pass++)
		scribble(dtb_addr, FDT_BYTES, &st, &slots[0]);
	puts_("HOSTILE dtb at=");
	puthex(dtb_addr);
	puts_(" bytes=");
	putdec(FDT_BYTES);
	puts_(" passes=");
	putdec(count);
	puts_("\n");
}

/*
 * PSCI misuse: CPU_ON of this (running) CPU, of an MPIDR no vCPU has, of CPU 1 at an address
 * where nothing is mapped and again while it is on, of CPU 2 at the UART's MMIO address, of
 * CPU 3 past the guest's IPA space; then CPU 4 powers the system off. CPUs 1-3 take aborts
 * in a loop (VBAR_EL1 is 0 after CPU_ON) that never leaves KVM; jkvm must still stop them.
 */
static void __attribute__((noreturn)) psci_misuse(void)
{
	if (ncpus < 5) {
		puts_("HOSTILE psci needs 5 cpus\n");
		system_off();
	}
	u64 entry = (u64)&secondary_entry;
	put_ret("HOSTILE psci on_self=", hvc0(PSCI_CPU_ON, dt.mpidr[0], entry, 0));
	put_ret(" on_absent=", hvc0(PSCI_CPU_ON, 0x7f7f7fUL, entry, 1));
	put_ret(" on_unmapped_entry=", hvc0(PSCI_CPU_ON, dt.mpidr[1], 0x1000, 1));
	put_ret(" on_again=", hvc0(PSCI_CPU_ON, dt.mpidr[1], entry, 1));
	put_ret(" on_mmio_entry=", hvc0(PSCI_CPU_ON, dt.mpidr[2], UART_BASE, 2));
	put_ret(" on_past_ipa_entry=", hvc0(PSCI_CPU_ON, dt.mpidr[3], 1UL << 48, 3));
	puts_("\nHOSTILE psci system_off from cpu=4\n");
	hvc0(PSCI_CPU_ON, dt.mpidr[4], entry, 4);
	for (;;)
		__asm__ volatile("wfi");
}

/* Every CPU calls CPU_OFF, CPU 0 last: no CPU is left to power the system off. */
static void __attribute__((noreturn)) all_off(void)
{
	puts_("HOSTILE started\nHOSTILE cpuoff all cpus going off\n");
	dsb();
	u64 ret = hvc0(PSCI_CPU_OFF, 0, 0, 0);
	put_ret("HOSTILE cpuoff returned ", ret);
	puts_("\n");
	system_off();
}

void __attribute__((noreturn)) main(u64 dtb)
{
	uart_init();
	timer_hz = read_cntfrq();
	if (timer_hz == 0)
		timer_hz = 62500000;
	dtb_addr = dtb;
	const char *err = dtb_parse(dtb, &dt);
	if (err) {
		puts_("HOSTILE dtb=");
		puts_(err);
		puts_(" (assuming 1 cpu)\n");
	}
	ncpus = cpus_to_use(&dt);
	mode = bootarg_has(&dt, "hostile.mode") ? UNKNOWN : CALM;
	for (int m = CALM; m < UNKNOWN; m++)
		if (bootarg_is(&dt, "hostile.mode", mode_names[m]))
			mode = (enum mode)m;
	count = default_count[mode];
	bootarg_u64(&dt, "hostile.count", &count);
	bootarg_u64(&dt, "hostile.seed", &seed);
	puts_("HOSTILE mode=");
	puts_(mode_names[mode]);
	puts_(" cpus=");
	putdec(ncpus);
	puts_(" count=");
	putdec(count);
	puts_(" seed=");
	putdec(seed);
	puts_("\n");
	__asm__ volatile("msr tpidr_el1, xzr");

	switch (mode) {
	case UNKNOWN:
		puts_("HOSTILE unknown mode: give hostile.mode=calm|mmio|nisv|hvc|pvlock|dtb|psci|cpuoff|spin\n");
		system_off();
	case PSCI:
		psci_misuse();
	case DTB:
		dtb_overwrite();
		break;
	default:
		break;
	}
	if (mode != DTB && ncpus > 1)
		start_secondaries();
	if (mode == CPUOFF)
		all_off();
	if ((count == 0 && (mode == MMIO || mode == NISV || mode == HVC)) || mode == SPIN)
		puts_("HOSTILE started\n");
	attack(0);
	if (mode == SPIN)
		spin();
	report();
	puts_("HOSTILE done mode=");
	puts_(mode_names[mode]);
	puts_("\n");
	system_off();
}
