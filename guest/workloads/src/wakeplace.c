/* wakeplace NAME WORKERS SECONDS
 * Where the guest's scheduler places a woken task. WORKERS sleeper threads (unpinned) wait on
 * futexes; one waker thread, pinned to CPU 0 and kept busy by spinning, wakes them in turn
 * every 4 ms with FUTEX_WAKE (not a synchronous wake-up, so the scheduler weighs the sleeper's
 * previous CPU rather than preferring the waker's). Each sleeper notes the CPU it runs on
 * right after waking. With fewer sleepers than CPUs an idle CPU is always there; the value is
 * the share of wake-ups placed off the waker's busy CPU:
 *   RESULT <name> <percent> % higher
 * A guest that takes its idle CPUs for busy ones (available_idle_cpu() is false where
 * vcpu_is_preempted() says "preempted") may place fewer there. Needs at least 2 CPUs. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_SLEEPERS 256
#define PERIOD_NS 4000000L

struct sleeper {
    _Atomic uint32_t word;          /* the futex: bumped by the waker */
    _Atomic uint64_t wakeups;
    _Atomic uint64_t elsewhere;     /* woken onto a CPU other than the waker's */
    char pad[40];
};

static struct sleeper sl[MAX_SLEEPERS];
static int nsleepers;
static _Atomic int stop;
static const int waker_cpu = 0;

static long futex(_Atomic uint32_t *w, int op, uint32_t val) {
    return syscall(SYS_futex, (uint32_t *)w, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *sleep_loop(void *arg) {
    struct sleeper *s = arg;
    uint32_t seen = atomic_load(&s->word);
    while (!atomic_load(&stop)) {
        futex(&s->word, FUTEX_WAIT, seen);
        uint32_t w = atomic_load(&s->word);
        if (w == seen) continue;    /* spurious or EINTR */
        seen = w;
        int cpu = sched_getcpu();
        atomic_fetch_add(&s->wakeups, 1);
        if (cpu != waker_cpu) atomic_fetch_add(&s->elsewhere, 1);
    }
    return NULL;
}

static void *wake_loop(void *arg) {
    (void)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(waker_cpu, &set);
    if ((errno = pthread_setaffinity_np(pthread_self(), sizeof set, &set)) != 0) {
        perror("wakeplace: pinning the waker to CPU 0");
        exit(1);
    }
    double next = now();
    for (int i = 0; !atomic_load(&stop); i++) {
        next += PERIOD_NS / 1e9;
        while (now() < next) {}     /* busy: CPU 0 is never idle */
        struct sleeper *s = &sl[i % nsleepers];
        atomic_fetch_add(&s->word, 1);
        futex(&s->word, FUTEX_WAKE, 1);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s NAME WORKERS SECONDS\n", argv[0]); return 2; }
    const char *name = argv[1];
    nsleepers = atoi(argv[2]);
    double secs = atof(argv[3]);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (nsleepers < 1 || nsleepers > MAX_SLEEPERS || !(secs > 0)) {
        fprintf(stderr, "%s: WORKERS must be 1..%d and SECONDS > 0\n", argv[0], MAX_SLEEPERS);
        return 2;
    }
    if (cpus < 2) { fprintf(stderr, "%s: needs at least 2 online CPUs, has %ld\n", argv[0], cpus); return 2; }
    pthread_t t;
    for (int i = 0; i < nsleepers; i++) {
        if ((errno = pthread_create(&t, NULL, sleep_loop, &sl[i])) != 0) { perror("pthread_create"); return 1; }
    }
    if ((errno = pthread_create(&t, NULL, wake_loop, NULL)) != 0) { perror("pthread_create"); return 1; }
    struct timespec d = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
    while (nanosleep(&d, &d) != 0 && errno == EINTR) {}
    atomic_store(&stop, 1);
    uint64_t wakeups = 0, elsewhere = 0;
    for (int i = 0; i < nsleepers; i++) {
        wakeups += atomic_load(&sl[i].wakeups);
        elsewhere += atomic_load(&sl[i].elsewhere);
    }
    if (wakeups == 0) { fprintf(stderr, "%s: no wake-up in %.1f s\n", argv[0], secs); return 1; }
    fprintf(stderr, "wakeplace: %llu wake-ups, %llu off CPU %d\n",
            (unsigned long long)wakeups, (unsigned long long)elsewhere, waker_cpu);
    printf("RESULT %s %.1f %% higher\n", name, 100.0 * elsewhere / wakeups);
    fflush(stdout);
    _exit(0);                       /* the sleepers and the waker die here */
}
