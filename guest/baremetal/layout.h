/* Shared by start.S, image.ld.S and the C code of every bare-metal guest (via cpp). */
#ifndef BM_LAYOUT_H
#define BM_LAYOUT_H
#define MAX_CPUS	8
#define STACK_SHIFT	13		/* 8 KiB per CPU */
#define STACK_SIZE	(1 << STACK_SHIFT)
#define RAM_BASE	0x40000000	/* jkvm's (and QEMU virt's) RAM base: the image is linked here */
#define FRAME_SIZE	256		/* x0..x30 saved by the exception vectors */
#endif
