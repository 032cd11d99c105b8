/* SPDX-License-Identifier: Apache-2.0 */
/* Umbrella header for the generated aarch64 bindings (KvmArm64) and their conformance test. */
#ifndef JKVM_AARCH64_H
#define JKVM_AARCH64_H
/* arm64 <asm/kvm.h> uses these without including them (the kernel build always has them):
 * __GENMASK (KVM_ARM_DEVICE_*_MASK) from uapi <linux/bits.h>, SZ_64K (KVM_VGIC_V3_*_SIZE)
 * from the kernel-internal <linux/sizes.h>. */
#include <linux/bits.h>
#ifndef SZ_64K
#define SZ_64K 0x00010000
#endif
#include <linux/kvm.h>	/* includes <asm/kvm.h> (arm64), <asm/ptrace.h>, <linux/psci.h> */
#include <linux/psci.h>
#include "jkvm_pvlock.h"
#include "jkvm_perf.h"	/* perf_event_open: <linux/perf_event.h>, __NR_perf_event_open */
#include "jkvm_timer.h"	/* timer_create: struct sigevent, SIGEV_THREAD_ID, CLOCK_THREAD_CPUTIME_ID */
#include "jkvm_falloc.h"	/* fallocate: FALLOC_FL_PUNCH_HOLE, FALLOC_FL_KEEP_SIZE */
#include "jkvm_tun.h"	/* the tap backend: TUNSETIFF, TUNSETOFFLOAD, IFF_*, TUN_F_*, struct jkvm_tun_ifreq */
#include "jkvm_termios.h"	/* raw terminal: struct termios, TCGETS, TCSETS, the flag bits, pty ioctls */
#include "jkvm_uio.h"	/* preadv/pwritev: struct iovec, UIO_MAXIOV */
#include "jkvm_syscall.h"	/* the __NR_* numbers Libc passes to syscall(2) */
#endif
