/* mmapchurn NAME WORKERS SECONDS shared|private [KIB]
 * Each worker loops: mmap KIB (64) of anonymous memory, write one byte in it (a page fault),
 * munmap it. One op = one mmap+munmap pair.
 *   shared:  WORKERS threads of one process: one mm, so every mmap/munmap takes the same
 *            mmap_lock for writing (and munmap's TLB invalidation covers every CPU of the mm).
 *   private: WORKERS forked processes: one mm each, no shared lock (the control). */
#include "wl.h"

static size_t len;

static void body(int id, _Atomic uint64_t *ops) {
    (void)id;
    for (;;) {
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) wl_die("mmap");
        p[0] = 1;
        if (munmap(p, len) != 0) wl_die("munmap");
        wl_count(ops, 1);
    }
}

int main(int argc, char **argv) {
    const char *name; int workers; double secs;
    wl_args(argc, argv, &name, &workers, &secs, "shared|private [KIB]");
    int shared = argc > 4 && strcmp(argv[4], "shared") == 0;
    if (argc <= 4 || (!shared && strcmp(argv[4], "private") != 0)) {
        fprintf(stderr, "mmapchurn: the 4th argument is shared or private\n");
        return 2;
    }
    len = (argc > 5 ? (size_t)atol(argv[5]) : 64) * 1024;
    if (len == 0) len = 4096;
    return run_workers(name, workers, secs, shared, body);
}
