/* See bm.h. */
#include "bm.h"

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

/* --- SMCCC ------------------------------------------------------------------------------ */
void hvc(u64 fn, u64 a1, u64 a2, u64 a3, struct res *out)
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

u64 hvc0(u64 fn, u64 a1, u64 a2, u64 a3)
{
	struct res r;
	hvc(fn, a1, a2, a3, &r);
	return r.r0;
}

void __attribute__((noreturn)) system_off(void)
{
	hvc0(PSCI_SYSTEM_OFF, 0, 0, 0);
	for (;;)
		__asm__ volatile("wfi");
}

/* --- console ---------------------------------------------------------------------------- */
#ifdef UART_PL011	/* QEMU virt's console, for a quick check under plain QEMU only */
#define UART_DR 0x00
#define UART_CR 0x30
#else			/* jkvm: 16550, THR at offset 0, always ready */
#define UART_THR 0x00
#endif

void uart_init(void)
{
#ifdef UART_PL011
	*(volatile u32 *)(UART_BASE + UART_CR) = 0x301;	/* UARTEN | TXE | RXE */
#endif
}

void putc_(char c)
{
#ifdef UART_PL011
	*(volatile u32 *)(UART_BASE + UART_DR) = (u8)c;
#else
	*(volatile u8 *)(UART_BASE + UART_THR) = (u8)c;
#endif
}

void puts_(const char *s)
{
	while (*s) {
		if (*s == '\n')
			putc_('\r');
		putc_(*s++);
	}
}

void putdec(u64 v)
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

void puthex(u64 v)
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

enum { K_OTHER, K_ROOT, K_CHOSEN, K_CPUS, K_CPU };

static const char *walk(u64 dtb, struct dtb_info *d)
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
				if (d->cpus < MAX_CPUS)
					d->mpidr[d->cpus] = d->cpus;	/* until reg says otherwise */
				d->cpus++;
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
			if (k == K_CHOSEN && streq(name, "bootargs")) {
				d->bootargs = val;
				d->bootargs_len = len;
			} else if (k == K_CPU && streq(name, "reg") && d->cpus <= MAX_CPUS) {
				u64 r = len == 8 ? ((u64)be32(val) << 32) | be32(val + 4)
						 : len == 4 ? be32(val) : d->cpus - 1;
				d->mpidr[d->cpus - 1] = r & MPIDR_AFF_MASK;
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

const char *dtb_parse(u64 dtb, struct dtb_info *d)
{
	const char *err = walk(dtb, d);
	if (err)
		d->cpus = 0;
	return err;
}

u64 cpus_to_use(struct dtb_info *d)
{
	u64 n = d->cpus < MAX_CPUS ? d->cpus : MAX_CPUS;
	u64 self = read_mpidr() & MPIDR_AFF_MASK;
	if (n == 0) {
		d->mpidr[0] = self;
		return 1;
	}
	for (u64 i = 1; i < n; i++)
		if (d->mpidr[i] == self) {
			d->mpidr[i] = d->mpidr[0];
			d->mpidr[0] = self;
		}
	return n;
}

/* The position just past "key=" of each whole-word match, in turn: start with *at = 0. */
static int next_key(const struct dtb_info *d, const char *key, u64 *at)
{
	const volatile u8 *p = (const volatile u8 *)d->bootargs;
	u64 len = d->bootargs_len;
	for (u64 i = *at; i < len && p[i]; i++) {
		if (i > 0 && p[i - 1] != ' ')
			continue;
		u64 k = 0;
		while (key[k] && i + k < len && p[i + k] == (u8)key[k])
			k++;
		if (key[k] || i + k >= len || p[i + k] != '=')
			continue;
		*at = i + k + 1;
		return 1;
	}
	return 0;
}

static int word_end(const struct dtb_info *d, u64 j)
{
	const volatile u8 *p = (const volatile u8 *)d->bootargs;
	return j >= d->bootargs_len || p[j] == ' ' || p[j] == 0;
}

int bootarg_u64(const struct dtb_info *d, const char *key, u64 *value)
{
	const volatile u8 *p = (const volatile u8 *)d->bootargs;
	int found = 0;
	u64 at = 0;
	while (next_key(d, key, &at)) {
		u64 j = at, v = 0, digits = 0;
		while (j < d->bootargs_len && p[j] >= '0' && p[j] <= '9' && digits < 9) {
			v = v * 10 + (p[j] - '0');
			j++;
			digits++;
		}
		if (digits && word_end(d, j)) {
			*value = v;
			found = 1;
		}
	}
	return found;
}

int bootarg_has(const struct dtb_info *d, const char *key)
{
	u64 at = 0;
	return next_key(d, key, &at);
}

int bootarg_is(const struct dtb_info *d, const char *key, const char *value)
{
	const volatile u8 *p = (const volatile u8 *)d->bootargs;
	u64 at = 0;
	while (next_key(d, key, &at)) {
		u64 j = at, k = 0;
		while (value[k] && j < d->bootargs_len && p[j] == (u8)value[k]) {
			j++;
			k++;
		}
		if (!value[k] && word_end(d, j))
			return 1;
	}
	return 0;
}
