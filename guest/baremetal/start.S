/*
 * Bare-metal arm64 guests: Image header, entry points, exception vectors.
 * Booted at EL1h, MMU off, DAIF masked, x0 = DTB (Documentation/arch/arm64/booting.rst).
 * The guest provides main(dtb), secondary_main(index) and
 * u64 exception(type, esr, elr, far): the address to resume at (it may also not return).
 */
#include "layout.h"

	.section .head, "ax"
	.globl	_start
_start:
	b	entry			/* code0 */
	.long	0			/* code1 */
	.quad	0			/* text_offset */
	.quad	_image_size		/* image_size: file + BSS + stacks (image.ld) */
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

/* x2..x30 to or from the frame: "frame stp" saves, "frame ldp" restores. */
	.macro	frame op
	\op	x2, x3, [sp, #16]
	\op	x4, x5, [sp, #32]
	\op	x6, x7, [sp, #48]
	\op	x8, x9, [sp, #64]
	\op	x10, x11, [sp, #80]
	\op	x12, x13, [sp, #96]
	\op	x14, x15, [sp, #112]
	\op	x16, x17, [sp, #128]
	\op	x18, x19, [sp, #144]
	\op	x20, x21, [sp, #160]
	\op	x22, x23, [sp, #176]
	\op	x24, x25, [sp, #192]
	\op	x26, x27, [sp, #208]
	\op	x28, x29, [sp, #224]
	.ifc	\op, stp
	str	x30, [sp, #240]
	.else
	ldr	x30, [sp, #240]
	.endif
	.endm

/* Every exception: save x0..x30, ask exception() where to resume, restore, return. */
	.balign	2048
vectors:
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	.balign	128
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp, #0]
	mov	x0, #\n
	b	exc_common
	.endr
exc_common:
	frame	stp
	mrs	x1, esr_el1
	mrs	x2, elr_el1
	mrs	x3, far_el1
	bl	exception
	msr	elr_el1, x0
	frame	ldp
	ldp	x0, x1, [sp, #0]
	add	sp, sp, #FRAME_SIZE
	eret
