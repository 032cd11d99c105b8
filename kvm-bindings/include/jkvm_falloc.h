/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jkvm's own header for fallocate(2)'s modes, included by both umbrella headers: FALLOC_FL_*
 * from the uapi <linux/falloc.h>. virtio-blk's discard and write-zeroes punch holes in the
 * disk image (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE).
 */
#ifndef JKVM_FALLOC_H
#define JKVM_FALLOC_H

#include <linux/falloc.h>

#endif
