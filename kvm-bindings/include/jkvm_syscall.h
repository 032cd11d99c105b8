/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jkvm's own header for the system call numbers, included by both umbrella headers: __NR_*
 * from the uapi <asm/unistd.h> (x86_64's own table; arm64's is asm-generic's). Libc makes
 * every system call through the C library's syscall(2), one downcall shape for all of them,
 * so it needs each call's number for the host's architecture; and <asm/mman.h> for madvise(2)'s
 * MADV_HUGEPAGE, which asks for guest RAM in transparent huge pages.
 */
#ifndef JKVM_SYSCALL_H
#define JKVM_SYSCALL_H

#include <asm/unistd.h>
#include <asm/mman.h>

#endif
