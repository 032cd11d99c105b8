/* Shared by start.S, probe.c and probe.ld (via the C preprocessor). */
#ifndef PROBE_H
#define PROBE_H
#define MAX_CPUS	8
#define STACK_SHIFT	13		/* 8 KiB per CPU */
#define STACK_SIZE	(1 << STACK_SHIFT)
#endif
