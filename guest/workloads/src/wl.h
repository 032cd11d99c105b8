/* Common runner of jkvm's guest workloads (guest/workloads/README.md).
 *
 * run_workers() starts WORKERS workers (threads of this process, or forked processes with
 * separate address spaces), lets them loop for SECONDS, and prints one line
 *   RESULT <name> <ops per second> ops/s higher
 * The time limit is hard: once SECONDS have passed the parent sums the workers' counters,
 * prints the line and exits; worker processes are killed (SIGKILL; PR_SET_PDEATHSIG kills them
 * too if the parent is killed), worker threads die with the process. A worker never has to
 * notice the stop. */
#ifndef JKVM_WL_H
#define JKVM_WL_H
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WL_MAX_WORKERS 1024

/* One cache line per worker: no false sharing between the counters. */
struct wl_slot {
    _Atomic uint64_t ops;
    char pad[56];
};

struct wl_shared {                  /* MAP_SHARED: visible to forked workers too */
    _Atomic int ready;
    _Atomic int go;
    char pad[56];
    struct wl_slot slot[WL_MAX_WORKERS];
};

typedef void (*wl_body)(int id, _Atomic uint64_t *ops);

static struct wl_shared *wl_sh;     /* a program may map it before run_workers (execl) */
static wl_body wl_fn;

static inline void wl_count(_Atomic uint64_t *ops, uint64_t n) {
    atomic_store_explicit(ops, atomic_load_explicit(ops, memory_order_relaxed) + n,
                          memory_order_relaxed);
}

static double wl_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void wl_nap_ms(long ms) {
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

static void wl_die(const char *what) {
    fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void wl_start(int id) {
    atomic_fetch_add(&wl_sh->ready, 1);
    while (!atomic_load(&wl_sh->go)) wl_nap_ms(1);
    wl_fn(id, &wl_sh->slot[id].ops);
}

static void *wl_thread(void *arg) {
    wl_start((int)(intptr_t)arg);
    return NULL;
}

/* Parses "NAME WORKERS SECONDS" from argv[1..3]; extra arguments are left to the caller. */
static void wl_args(int argc, char **argv, const char **name, int *workers, double *secs,
                    const char *usage) {
    if (argc < 4) { fprintf(stderr, "usage: %s NAME WORKERS SECONDS %s\n", argv[0], usage); exit(2); }
    *name = argv[1];
    *workers = atoi(argv[2]);
    *secs = atof(argv[3]);
    if (*workers < 1 || *workers > WL_MAX_WORKERS || !(*secs > 0)) {
        fprintf(stderr, "%s: WORKERS must be 1..%d and SECONDS > 0\n", argv[0], WL_MAX_WORKERS);
        exit(2);
    }
}

/* threads != 0: workers are threads of this process (one mm); else forked processes. */
static int run_workers(const char *name, int workers, double secs, int threads, wl_body fn) {
    pid_t pids[WL_MAX_WORKERS];
    wl_fn = fn;
    if (wl_sh == NULL) wl_sh = mmap(NULL, sizeof *wl_sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (wl_sh == MAP_FAILED) wl_die("mmap");
    for (int i = 0; i < workers; i++) {
        if (threads) {
            pthread_t t;
            pthread_attr_t a;
            pthread_attr_init(&a);
            pthread_attr_setstacksize(&a, 256 * 1024);
            pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
            if ((errno = pthread_create(&t, &a, wl_thread, (void *)(intptr_t)i)) != 0) wl_die("pthread_create");
        } else {
            pids[i] = fork();
            if (pids[i] < 0) wl_die("fork");
            if (pids[i] == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);   /* a killed parent takes its workers along */
                wl_start(i);
                _exit(0);
            }
        }
    }
    /* Wait for the workers to be ready, at most SECONDS (an overcommitted guest may be slow
     * to run them; the measurement then starts with those that are). */
    double limit = wl_now() + secs;
    while (atomic_load(&wl_sh->ready) < workers && wl_now() < limit) wl_nap_ms(1);
    double t0 = wl_now();
    atomic_store(&wl_sh->go, 1);
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    double s = secs;
    end.tv_sec += (time_t)s;
    end.tv_nsec += (long)((s - (time_t)s) * 1e9);
    if (end.tv_nsec >= 1000000000L) { end.tv_sec++; end.tv_nsec -= 1000000000L; }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR) {}
    uint64_t total = 0;
    for (int i = 0; i < workers; i++) total += atomic_load(&wl_sh->slot[i].ops);
    double t1 = wl_now();
    if (!threads) {
        for (int i = 0; i < workers; i++) kill(pids[i], SIGKILL);
        for (int i = 0; i < workers; i++) waitpid(pids[i], NULL, 0);
    }
    printf("RESULT %s %.0f ops/s higher\n", name, total / (t1 - t0));
    fflush(stdout);
    _exit(0);                       /* threads still running die here */
}
#endif
