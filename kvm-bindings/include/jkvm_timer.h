/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jkvm's own header for a per-thread CPU-time timer (timer_create(2)), included by both
 * umbrella headers: struct sigevent and SIGEV_THREAD_ID from the uapi <asm/siginfo.h> (the
 * kernel's layout, which glibc's timer_create passes on unchanged for SIGEV_THREAD_ID), and
 * CLOCK_THREAD_CPUTIME_ID from <linux/time.h>. The guest profiler samples a vCPU thread on
 * its own CPU time, so a preempted or halted vCPU is never sampled.
 */
#ifndef JKVM_TIMER_H
#define JKVM_TIMER_H

#include <linux/types.h>
#include <linux/time.h>		/* CLOCK_THREAD_CPUTIME_ID */
#include <asm/siginfo.h>	/* struct sigevent, SIGEV_THREAD_ID */

#endif
