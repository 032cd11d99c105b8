/* pipectxsw NAME WORKERS SECONDS
 * UnixBench's Pipe-based Context Switching: each of WORKERS forked processes forks a partner,
 * and the two pass a 4-byte token back and forth over two pipes, each blocking until the other
 * has written. One op = one hand-over of the token (one switch), counted by the worker as 2 per
 * round trip; with fewer CPUs than processes every hand-over is a wake-up and a context switch. */
#include "wl.h"

static void body(int id, _Atomic uint64_t *ops) {
    (void)id;
    int there[2], back[2];
    if (pipe(there) != 0 || pipe(back) != 0) wl_die("pipe");
    pid_t p = fork();
    if (p < 0) wl_die("fork");
    uint32_t token = 0;
    if (p == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);         /* the worker is SIGKILLed at the end */
        for (;;) {
            if (read(there[0], &token, sizeof token) != sizeof token) _exit(1);
            token++;
            if (write(back[1], &token, sizeof token) != sizeof token) _exit(1);
        }
    }
    for (;;) {
        if (write(there[1], &token, sizeof token) != sizeof token) wl_die("pipectxsw: write");
        if (read(back[0], &token, sizeof token) != sizeof token) wl_die("pipectxsw: read");
        wl_count(ops, 2);
    }
}

int main(int argc, char **argv) {
    const char *name; int workers; double secs;
    wl_args(argc, argv, &name, &workers, &secs, "");
    return run_workers(name, workers, secs, 0, body);
}
