/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jkvm's own header for terminal settings, included by both umbrella headers: the kernel's
 * struct termios and its flag bits from the uapi <asm/termbits.h>, and the TCGETS/TCSETS and
 * pseudo-terminal (TIOCGPTN, TIOCSPTLCK) ioctls from <asm/ioctls.h>. jkvm run puts a terminal
 * on its standard input into raw mode with them; the C library's struct termios (with speeds)
 * is not the one these ioctls take.
 */
#ifndef JKVM_TERMIOS_H
#define JKVM_TERMIOS_H

#include <asm/termbits.h>
#include <asm/ioctls.h>

#endif
