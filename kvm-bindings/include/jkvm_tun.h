/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jkvm's own header for the tap backend of virtio-net, included by both umbrella headers:
 * TUNSETIFF, TUNSETVNETHDRSZ, TUNSETOFFLOAD, the IFF_* flags and TUN_F_* offloads from the
 * uapi <linux/if_tun.h>, and struct jkvm_tun_ifreq, the part of struct ifreq that TUNSETIFF
 * reads (the name, then the flags at the start of the union), padded to its size. The uapi
 * <linux/if.h> that declares struct ifreq includes the C library's <sys/socket.h>, which the
 * generator does not read (-nostdinc), and glibc's <net/if.h> clashes with the uapi headers.
 * Its layout is the kernel's: the name at 0, the flags at 16, 40 bytes in all on LP64.
 */
#ifndef JKVM_TUN_H
#define JKVM_TUN_H

#include <linux/if_tun.h>

/* IFNAMSIZ, with room for the NUL. */
#define JKVM_TUN_IFNAMSIZ 16

struct jkvm_tun_ifreq {
	char name[JKVM_TUN_IFNAMSIZ];
	short flags;
	/* the rest of struct ifreq's union: 24 bytes on LP64 (struct ifmap, a pointer, ...) */
	unsigned char pad[22];
};

#endif
