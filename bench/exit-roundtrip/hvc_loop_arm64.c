/*
 * The C peer of HvcLoop.java: the same arm64 guest (PV-lock SMCCC call in a loop, forwarded
 * to userspace by the SMCCC filter), the same KVM calls per exit (KVM_RUN, KVM_SET_ONE_REG
 * of x0), built against the same uapi headers and jkvm's own header. Prints ns per exit.
 *
 * With PAGES > 0 it also reads one byte from each of PAGES pages of its own memory per exit, and
 * with CALLS > 0 it calls that many functions, each on a page of its own, per exit: how much an
 * exit's cost in the emulated host grows with the distinct memory and code a VMM touches between
 * two KVM_RUNs (the TCG that runs the host flushes its software TLB on the world switch, or not).
 *
 * usage: hvc_loop_arm64 EXITS [PAGES [CALLS]]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

/* glibc's <time.h> declares what <linux/time.h> would; jkvm_perf.h includes the uapi header
 * (for jextract's CLOCK_MONOTONIC), whose struct timeval and itimerspec clash with glibc's. */
#define _LINUX_TIME_H
#include "jkvm_aarch64.h"

#define RAM_IPA 0x40000000UL
#define RAM_SIZE 0x10000

static void die(const char *what) {
	fprintf(stderr, "hvc_loop_arm64: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

static void set_reg(int vcpu, uint64_t id, uint64_t value) {
	struct kvm_one_reg r = {.id = id, .addr = (uintptr_t)&value};
	if (ioctl(vcpu, KVM_SET_ONE_REG, &r) < 0) die("KVM_SET_ONE_REG");
}

static uint64_t get_reg(int vcpu, uint64_t id) {
	uint64_t value = 0;
	struct kvm_one_reg r = {.id = id, .addr = (uintptr_t)&value};
	if (ioctl(vcpu, KVM_GET_ONE_REG, &r) < 0) die("KVM_GET_ONE_REG");
	return value;
}

#define MAX_CALLS 64
#define PAGE 4096

/* One function per page: calling all of them runs code on as many distinct pages. */
#define SPREAD(n) __attribute__((noinline, aligned(PAGE))) static long spread##n(long x) { return x * 3 + n; }
#define S8(a) SPREAD(a##0) SPREAD(a##1) SPREAD(a##2) SPREAD(a##3) SPREAD(a##4) SPREAD(a##5) SPREAD(a##6) SPREAD(a##7)
S8(1) S8(2) S8(3) S8(4) S8(5) S8(6) S8(7) S8(8)
#define R8(a) spread##a##0, spread##a##1, spread##a##2, spread##a##3, spread##a##4, spread##a##5, spread##a##6, spread##a##7
static long (*const spread[MAX_CALLS])(long) = {R8(1), R8(2), R8(3), R8(4), R8(5), R8(6), R8(7), R8(8)};

static long pages, calls;
static volatile uint8_t *touched;
static volatile long sink;

/* The extra work per exit: one load per page, one call per function. */
static void touch(void) {
	long sum = 0;
	for (long p = 0; p < pages; p++) sum += touched[p * PAGE];
	for (long c = 0; c < calls; c++) sum = spread[c](sum);
	sink = sum;
}

static void loop(int vcpu, struct kvm_run *run, long exits) {
	for (long i = 0; i < exits; i++) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0) die("KVM_RUN");
		if (run->exit_reason != KVM_EXIT_HYPERCALL ||
		    run->hypercall.nr != ARM_SMCCC_VENDOR_HYP_KVM_PV_LOCK_FUNC_ID) {
			fprintf(stderr, "hvc_loop_arm64: unexpected exit %u\n", run->exit_reason);
			exit(1);
		}
		if (pages || calls) touch();
		set_reg(vcpu, JKVM_REG_ARM64_X0, 1);
	}
}

int main(int argc, char **argv) {
	long exits = argc > 1 ? atol(argv[1]) : 20000;
	pages = argc > 2 ? atol(argv[2]) : 0;
	calls = argc > 3 ? atol(argv[3]) : 0;
	if (pages < 0 || calls < 0 || calls > MAX_CALLS) {
		fprintf(stderr, "hvc_loop_arm64: PAGES >= 0, 0 <= CALLS <= %d\n", MAX_CALLS);
		return 2;
	}
	if (pages) {
		uint8_t *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) die("mmap pages");
		for (long i = 0; i < pages; i++) p[i * PAGE] = (uint8_t)i; /* backed, not the zero page */
		touched = p;
	}
	static const uint32_t code[] = {0x52800040, 0x72b8c000, 0xd4000002, 0x8b000021, 0x17fffffc};

	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) die("open /dev/kvm");
	int vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) die("KVM_CREATE_VM");
	uint8_t *ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ram == MAP_FAILED) die("mmap ram");
	memcpy(ram, code, sizeof code);
	struct kvm_userspace_memory_region mr = {
		.slot = 0, .guest_phys_addr = RAM_IPA, .memory_size = RAM_SIZE, .userspace_addr = (uintptr_t)ram};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &mr) < 0) die("KVM_SET_USER_MEMORY_REGION");
	struct kvm_smccc_filter f = {
		.base = ARM_SMCCC_VENDOR_HYP_KVM_PV_LOCK_FUNC_ID, .nr_functions = 1,
		.action = KVM_SMCCC_FILTER_FWD_TO_USER};
	struct kvm_device_attr fa = {
		.group = KVM_ARM_VM_SMCCC_CTRL, .attr = KVM_ARM_VM_SMCCC_FILTER, .addr = (uintptr_t)&f};
	if (ioctl(vm, KVM_SET_DEVICE_ATTR, &fa) < 0) die("KVM_ARM_VM_SMCCC_FILTER");
	int vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0) die("KVM_CREATE_VCPU");
	struct kvm_vcpu_init init;
	if (ioctl(vm, KVM_ARM_PREFERRED_TARGET, &init) < 0) die("KVM_ARM_PREFERRED_TARGET");
	if (ioctl(vcpu, KVM_ARM_VCPU_INIT, &init) < 0) die("KVM_ARM_VCPU_INIT");
	int size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	struct kvm_run *run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED) die("mmap kvm_run");
	set_reg(vcpu, JKVM_REG_ARM64_PSTATE, JKVM_ARM64_PSTATE_EL1H_DAIF);
	set_reg(vcpu, JKVM_REG_ARM64_PC, RAM_IPA);

	loop(vcpu, run, exits > 2000 ? exits : 2000); /* the same warm-up as the Java side */
	uint64_t start = now_ns();
	loop(vcpu, run, exits);
	uint64_t took = now_ns() - start;
	char label[32] = "c";
	if (pages || calls) snprintf(label, sizeof label, "c-p%ld-f%ld", pages, calls);
	printf("%s %.1f ns/exit (%ld exits, guest sum %lu)\n", label, (double)took / exits, exits,
	       (unsigned long)get_reg(vcpu, JKVM_REG_ARM64_X1));
	return 0;
}
