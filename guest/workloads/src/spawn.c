/* spawn NAME WORKERS SECONDS
 * UnixBench's Spawn: WORKERS forked processes loop: fork a child that calls _exit at once,
 * wait for it. One op = one fork+exit+wait with no exec: the mm copied and torn down, the
 * task list, a wake-up; the negative control of execl and shell-dyn (no loader, no new mm
 * mapped from files). */
#include "wl.h"

static void body(int id, _Atomic uint64_t *ops) {
    (void)id;
    for (;;) {
        pid_t p = fork();
        if (p < 0) wl_die("fork");
        if (p == 0) _exit(0);
        int st;
        if (waitpid(p, &st, 0) < 0) wl_die("waitpid");
        wl_count(ops, 1);
    }
}

int main(int argc, char **argv) {
    const char *name; int workers; double secs;
    wl_args(argc, argv, &name, &workers, &secs, "");
    return run_workers(name, workers, secs, 0, body);
}
