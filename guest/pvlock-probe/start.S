/*
 * pvlock probe: arm64 Image header, entry points, exception vectors.
 * Booted at EL1h, MMU off, DAIF masked, x0 = DTB (Documentation/arch/arm64/booting.rst).
 */
#include "probe.h"

	.section .head, "ax"
	.globl	_start
_start:
	b	entry			/* code0 */
	.long	0			/* code1 */
	.quad	0			/* text_offset */
	.quad	_image_size		/* image_size: file + BSS + stacks (probe.ld) */
	.quad	0xa			/* flags: LE, 4K pages, anywhere */
	.quad	0, 0, 0			/* res2..res4 */
	.ascii	"ARM\x64"		/* magic */
	.long	0			/* res5 (no PE header) */

entry:
	mov	x19, x0			/* DTB */
	adr	x1, vectors
	msr	vbar_el1, x1
	isb
	/* zero .bss (aligned 8-byte stores: memory is Device-nGnRnE with the MMU off) */
	adrp	x1, __bss_start
	add	x1, x1, :lo12:__bss_start
	adrp	x2, __bss_end
	add	x2, x2, :lo12:__bss_end
1:	cmp	x1, x2
	b.hs	2f
	str	xzr, [x1], #8
	b	1b
2:	adrp	x1, __stacks
	add	x1, x1, :lo12:__stacks
	add	sp, x1, #STACK_SIZE
	mov	x0, x19
	bl	main
3:	wfi
	b	3b

/* PSCI CPU_ON entry: x0 = context id = logical CPU index. */
	.globl	secondary_entry
secondary_entry:
	mov	x19, x0
	adr	x1, vectors
	msr	vbar_el1, x1
	isb
	cmp	x19, #MAX_CPUS
	b.hs	3b
	adrp	x1, __stacks
	add	x1, x1, :lo12:__stacks
	add	x2, x19, #1
	lsl	x2, x2, #STACK_SHIFT
	add	sp, x1, x2
	mov	x0, x19
	bl	secondary_main
	b	3b

/* Any exception is fatal: report it and power off. */
	.balign	2048
vectors:
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	.balign	128
	mov	x0, #\n
	b	exc_common
	.endr
exc_common:
	mrs	x1, esr_el1
	mrs	x2, elr_el1
	mrs	x3, far_el1
	b	exception
