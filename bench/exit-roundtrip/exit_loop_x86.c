/*
 * The C peer of ExitLoop.java: the same tiny x86 real-mode guests, the same KVM calls, built
 * against the same uapi headers. Prints ns per exit round trip (KVM_RUN returning, the VMM
 * looking at the exit, KVM_RUN again). Guest io: OUT to a port in a loop (KVM_EXIT_IO); guest
 * mmio: a store to a page past the RAM in a loop (KVM_EXIT_MMIO).
 *
 * usage: exit_loop_x86 EXITS [io|mmio]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#define RAM 0x8000
#define CODE 0x1000
#define PORT 0x3f8
#define STORE 0x9000 /* past the RAM: no memory slot, so each store exits */

static void die(const char *what) {
	fprintf(stderr, "exit_loop_x86: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

int main(int argc, char **argv) {
	long exits = argc > 1 ? atol(argv[1]) : 200000;
	const char *guest = argc > 2 ? argv[2] : "io";
	/* mov dx, 0x3f8; loop: inc al; out dx, al; jmp loop */
	static const uint8_t out_loop[] = {0xba, 0xf8, 0x03, 0xfe, 0xc0, 0xee, 0xeb, 0xfb};
	/* mov bx, 0x9000; loop: inc al; mov [bx], al; jmp loop */
	static const uint8_t store_loop[] = {0xbb, 0x00, 0x90, 0xfe, 0xc0, 0x88, 0x07, 0xeb, 0xfa};
	int mmio = strcmp(guest, "mmio") == 0;
	if (!mmio && strcmp(guest, "io") != 0) {
		fprintf(stderr, "exit_loop_x86: unknown guest %s (io or mmio)\n", guest);
		return 2;
	}

	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) die("open /dev/kvm");
	int vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) die("KVM_CREATE_VM");
	uint8_t *ram = mmap(NULL, RAM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ram == MAP_FAILED) die("mmap ram");
	if (mmio) memcpy(ram + CODE, store_loop, sizeof store_loop);
	else memcpy(ram + CODE, out_loop, sizeof out_loop);
	struct kvm_userspace_memory_region r = {
		.slot = 0, .guest_phys_addr = 0, .memory_size = RAM, .userspace_addr = (uintptr_t)ram};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &r) < 0) die("KVM_SET_USER_MEMORY_REGION");
	int vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0) die("KVM_CREATE_VCPU");
	int size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	struct kvm_run *run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED) die("mmap kvm_run");

	struct kvm_sregs s;
	if (ioctl(vcpu, KVM_GET_SREGS, &s) < 0) die("KVM_GET_SREGS");
	s.cs.base = 0;
	s.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &s) < 0) die("KVM_SET_SREGS");
	struct kvm_regs g = {.rip = CODE, .rflags = 2};
	if (ioctl(vcpu, KVM_SET_REGS, &g) < 0) die("KVM_SET_REGS");

	uint64_t sum = 0, start = now_ns();
	for (long i = 0; i < exits; i++) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0) die("KVM_RUN");
		if (mmio && run->exit_reason == KVM_EXIT_MMIO && run->mmio.is_write && run->mmio.phys_addr == STORE) {
			sum += run->mmio.data[0];
		} else if (!mmio && run->exit_reason == KVM_EXIT_IO && run->io.port == PORT) {
			sum += ((uint8_t *)run)[run->io.data_offset];
		} else {
			fprintf(stderr, "exit_loop_x86: unexpected exit %u\n", run->exit_reason);
			return 1;
		}
	}
	uint64_t took = now_ns() - start;
	printf("c-%s %.1f ns/exit (%ld exits, checksum %lu)\n", guest, (double)took / exits, exits, (unsigned long)sum);
	return 0;
}
