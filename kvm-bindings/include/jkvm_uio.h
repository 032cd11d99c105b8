/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jkvm's own header for vectored I/O, included by both umbrella headers: struct iovec and
 * UIO_MAXIOV from the uapi <linux/uio.h>. virtio-blk moves a request's guest buffers to and
 * from the disk image with one preadv(2) or pwritev(2), and first tries a read with
 * preadv2(2)'s RWF_NOWAIT (<linux/fs.h>), which only succeeds from the page cache.
 */
#ifndef JKVM_UIO_H
#define JKVM_UIO_H

#include <linux/uio.h>
#include <linux/fs.h>

#endif
