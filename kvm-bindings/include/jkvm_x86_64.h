/* SPDX-License-Identifier: Apache-2.0 */
/* Umbrella header for the generated x86_64 bindings (KvmX86) and their conformance test. */
#ifndef JKVM_X86_64_H
#define JKVM_X86_64_H
#include <linux/kvm.h>	/* includes <asm/kvm.h> (x86) */
#include "jkvm_perf.h"	/* perf_event_open: <linux/perf_event.h>, __NR_perf_event_open */
#include "jkvm_timer.h"	/* timer_create: struct sigevent, SIGEV_THREAD_ID, CLOCK_THREAD_CPUTIME_ID */
#include "jkvm_falloc.h"	/* fallocate: FALLOC_FL_PUNCH_HOLE, FALLOC_FL_KEEP_SIZE */
#include "jkvm_tun.h"	/* the tap backend: TUNSETIFF, TUNSETOFFLOAD, IFF_*, TUN_F_*, struct jkvm_tun_ifreq */
#include "jkvm_termios.h"	/* raw terminal: struct termios, TCGETS, TCSETS, the flag bits, pty ioctls */
#include "jkvm_uio.h"	/* preadv/pwritev: struct iovec, UIO_MAXIOV */
#include "jkvm_syscall.h"	/* the __NR_* numbers Libc passes to syscall(2) */
#endif
