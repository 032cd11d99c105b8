/* forkexec NAME WORKERS SECONDS [PROGRAM ARGS...]
 * WORKERS forked processes loop: fork, exec PROGRAM (default /bin/true) in the child, wait
 * for it. One op = one fork+exec+exit+wait (UnixBench's Execl and, with a shell pipeline as
 * PROGRAM, its Shell Scripts). Loads fork (copying the mm), exec (a new mm), exit and wait:
 * the mm, page-table and task-list locks, the scheduler's wake-ups. */
#include "wl.h"

static char **prog;
static char *deflt[] = { "/bin/true", NULL };

static void body(int id, _Atomic uint64_t *ops) {
    (void)id;
    for (;;) {
        pid_t p = fork();
        if (p < 0) wl_die("fork");
        if (p == 0) {
            execv(prog[0], prog);
            _exit(127);
        }
        int st;
        if (waitpid(p, &st, 0) < 0) wl_die("waitpid");
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "forkexec: %s failed (status 0x%x)\n", prog[0], st);
            exit(1);
        }
        wl_count(ops, 1);
    }
}

int main(int argc, char **argv) {
    const char *name; int workers; double secs;
    wl_args(argc, argv, &name, &workers, &secs, "[PROGRAM ARGS...]");
    prog = argc > 4 ? argv + 4 : deflt;
    return run_workers(name, workers, secs, 0, body);
}
