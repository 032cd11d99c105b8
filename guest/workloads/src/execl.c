/* execl NAME WORKERS SECONDS
 * UnixBench's Execl: each of WORKERS forked processes re-executes this (dynamically linked)
 * program over and over, never returning; one op = one execve of it, so each op maps the
 * program, the dynamic loader and libc anew and tears the old mm down, while every other
 * process shares libc's page cache pages. The counters live in a memfd that survives the exec:
 * a re-executed image (argv: --again FD WORKER) maps it, counts, and execs again. */
#include "wl.h"

static int fd;

static void again(int id) {
    char fds[16], ids[16];
    snprintf(fds, sizeof fds, "%d", fd);
    snprintf(ids, sizeof ids, "%d", id);
    execl("/proc/self/exe", "execl", "--again", fds, ids, (char *)NULL);
    wl_die("execl /proc/self/exe");
}

static void body(int id, _Atomic uint64_t *ops) {
    (void)ops;
    again(id);
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--again") == 0) {
        fd = atoi(argv[2]);
        int id = atoi(argv[3]);
        wl_sh = mmap(NULL, sizeof *wl_sh, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (wl_sh == MAP_FAILED || id < 0 || id >= WL_MAX_WORKERS) wl_die("execl: mapping the counters");
        wl_count(&wl_sh->slot[id].ops, 1);
        again(id);
    }
    const char *name; int workers; double secs;
    wl_args(argc, argv, &name, &workers, &secs, "");
    fd = memfd_create("execl-counters", 0);           /* no MFD_CLOEXEC: the execs inherit it */
    if (fd < 0 || ftruncate(fd, sizeof *wl_sh) != 0) wl_die("memfd_create");
    wl_sh = mmap(NULL, sizeof *wl_sh, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return run_workers(name, workers, secs, 0, body);
}
