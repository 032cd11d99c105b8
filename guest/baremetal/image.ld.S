/* Linked at the RAM base; preprocessed with layout.h. */
#include "layout.h"
OUTPUT_FORMAT("elf64-littleaarch64")
ENTRY(_start)
SECTIONS
{
	. = RAM_BASE;
	.text : { KEEP(*(.head)) *(.text .text.*) }
	.rodata : { *(.rodata .rodata.*) }
	.data : { *(.data .data.*) }
	. = ALIGN(64);
	__bss_start = .;
	.bss (NOLOAD) : { *(.bss .bss.*) *(COMMON) }
	. = ALIGN(64);
	__bss_end = .;
	.stacks (NOLOAD) : ALIGN(4096) { __stacks = .; . += MAX_CPUS * STACK_SIZE; }
	_end = .;
	_image_size = _end - RAM_BASE;
	/DISCARD/ : { *(.comment) *(.note*) *(.eh_frame*) *(.interp) *(.dynamic) }
}
