/* cpuloop NAME WORKERS SECONDS
 * WORKERS forked processes run a register-only integer loop (xorshift), no system calls and
 * no shared memory: a control that lock work must not move. One op = 1000 iterations. */
#include "wl.h"

static volatile uint64_t sink;

static void body(int id, _Atomic uint64_t *ops) {
    uint64_t x = 0x9e3779b97f4a7c15ULL + (uint64_t)id;
    for (;;) {
        for (int i = 0; i < 1000; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            __asm__ volatile("" : "+r"(x));
        }
        sink = x;
        wl_count(ops, 1);
    }
}

int main(int argc, char **argv) {
    const char *name; int workers; double secs;
    wl_args(argc, argv, &name, &workers, &secs, "");
    return run_workers(name, workers, secs, 0, body);
}
