/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jkvm's own header for perf_event_open(2), included by both umbrella headers
 * (jkvm_x86_64.h, jkvm_aarch64.h): the uapi <linux/perf_event.h>, the syscall number
 * __NR_perf_event_open (<asm/unistd.h>: 298 on x86_64, 241 on arm64 via asm-generic),
 * CLOCK_MONOTONIC (<linux/time.h>, for perf_event_attr.clockid), and what jextract cannot
 * express: the bit positions of perf_event_attr's one-bit bitfields.
 *
 * jextract skips bitfields ("bitfields are not supported") and lays the whole 64-bit word
 * that holds disabled .. __reserved_1 out as 8 bytes of unnamed padding, right after
 * read_format. So the word's offset and the bits inside it are object-like macros here,
 * generated into KvmX86/KvmArm64 as constants like everything else. The offset is computed
 * (offsetof); the bit positions cannot be (C has no constant expression for a bitfield's
 * position, and jextract does not evaluate a compound-literal union), so they are written
 * from the declaration order in <linux/perf_event.h> (both targets allocate bitfields from
 * the least significant bit, little endian). src/test/c/layout.c sets each bitfield in a
 * real struct perf_event_attr and prints the word it finds ("bitfield NAME VALUE");
 * LayoutConformanceTest fails when that differs from the macro.
 */
#ifndef JKVM_PERF_H
#define JKVM_PERF_H

#include <stddef.h>	/* offsetof */
#include <linux/types.h>
#include <linux/perf_event.h>
#include <linux/time.h>	/* CLOCK_MONOTONIC */
#include <asm/unistd.h>	/* __NR_perf_event_open */

/* Byte offset of the __u64 that holds perf_event_attr's bitfields (disabled ... sigtrap). */
#define JKVM_PERF_ATTR_FLAGS_OFFSET \
	(offsetof(struct perf_event_attr, read_format) + sizeof(__u64))

/* Bits of that word, in <linux/perf_event.h> declaration order (precise_ip is 2 bits: 15-16). */
#define JKVM_PERF_ATTR_FLAG_DISABLED		(1ULL << 0)
#define JKVM_PERF_ATTR_FLAG_INHERIT		(1ULL << 1)
#define JKVM_PERF_ATTR_FLAG_PINNED		(1ULL << 2)
#define JKVM_PERF_ATTR_FLAG_EXCLUSIVE		(1ULL << 3)
#define JKVM_PERF_ATTR_FLAG_EXCLUDE_USER	(1ULL << 4)
#define JKVM_PERF_ATTR_FLAG_EXCLUDE_KERNEL	(1ULL << 5)
#define JKVM_PERF_ATTR_FLAG_EXCLUDE_HV		(1ULL << 6)
#define JKVM_PERF_ATTR_FLAG_EXCLUDE_IDLE	(1ULL << 7)
#define JKVM_PERF_ATTR_FLAG_WATERMARK		(1ULL << 14)
#define JKVM_PERF_ATTR_FLAG_SAMPLE_ID_ALL	(1ULL << 18)
#define JKVM_PERF_ATTR_FLAG_EXCLUDE_HOST	(1ULL << 19)
#define JKVM_PERF_ATTR_FLAG_EXCLUDE_GUEST	(1ULL << 20)
#define JKVM_PERF_ATTR_FLAG_USE_CLOCKID		(1ULL << 25)
#define JKVM_PERF_ATTR_FLAG_CONTEXT_SWITCH	(1ULL << 26)
#define JKVM_PERF_ATTR_FLAG_WRITE_BACKWARD	(1ULL << 27)
#define JKVM_PERF_ATTR_FLAG_INHERIT_THREAD	(1ULL << 35)
#define JKVM_PERF_ATTR_FLAG_REMOVE_ON_EXEC	(1ULL << 36)

#endif
