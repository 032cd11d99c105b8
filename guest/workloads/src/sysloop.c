/* sysloop NAME WORKERS SECONDS
 * WORKERS forked processes loop on the bare getppid system call (no lock, no memory): a
 * control for the cost of a guest system call. One op = one getppid. */
#include "wl.h"
#include <sys/syscall.h>

static void body(int id, _Atomic uint64_t *ops) {
    (void)id;
    for (;;) {
        syscall(SYS_getppid);
        wl_count(ops, 1);
    }
}

int main(int argc, char **argv) {
    const char *name; int workers; double secs;
    wl_args(argc, argv, &name, &workers, &secs, "");
    return run_workers(name, workers, secs, 0, body);
}
