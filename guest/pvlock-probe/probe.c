/*
 * pvlock probe: a bare-metal arm64 guest that checks jkvm's PV-lock device
 * (shared/design/pvlock-abi.md). See README.md for what it prints.
 *
 * Built on guest/baremetal (MMU off: aligned accesses only, no exclusives); CPUs
 * synchronise through per-CPU flags that only one CPU writes. Only CPU 0 writes to the UART.
 */
#include "bm.h"

#define SMCCC_VENDOR_HYP_CALL_UID	0x8600FF01UL
#define SMCCC_VENDOR_HYP_KVM_FEATURES	0x86000000UL
#define SMCCC_VENDOR_HYP_KVM_PV_LOCK	0xC6000002UL
#define KVM_FEATURE_PV_LOCK_BIT		2

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
static struct dtb_info dt;
static u64 ncpus;			/* CPUs used (<= MAX_CPUS) */
static u64 seconds = DEFAULT_SECONDS;
static u64 timer_hz;

extern void secondary_entry(void);

u64 __attribute__((noreturn)) exception(u64 type, u64 esr, u64 elr, u64 far)
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

	const char *err = dtb_parse(dtb, &dt);
	if (err) {
		puts_("PVPROBE dtb=");
		puts_(err);
		puts_(" (assuming 1 cpu)\n");
	}
	bootarg_u64(&dt, "probe.seconds", &seconds);
	ncpus = cpus_to_use(&dt);	/* logical CPU 0 is the boot CPU */

	puts_("PVPROBE cpus=");
	putdec(ncpus);
	if (dt.cpus > MAX_CPUS) {
		puts_(" (of ");
		putdec(dt.cpus);
		puts_(" in the DTB)");
	}
	puts_("\n");

	probe(&slots[0]);
	print_cpu(0);

	u64 entry = (u64)&secondary_entry;
	for (u64 i = 1; i < ncpus; i++) {
		u64 ret = hvc0(PSCI_CPU_ON, dt.mpidr[i], entry, i);
		if (ret != 0) {
			puts_("PVPROBE cpu=");
			putdec(i);
			puts_(" cpu_on=-");
			putdec((u64)-(int64_t)ret);
			puts_(" mpidr=");
			puthex(dt.mpidr[i]);
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
		/* Busy as long as an observation: the host still sees every vCPU running (and
		 * preempted) for probe.seconds, as jkvm's --pvlock track-only wants to. */
		u64 never = 0;
		puts_("PVPROBE pvlock unavailable\n");
		wait_ticks(&never, seconds * timer_hz);
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
