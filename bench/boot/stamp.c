/*
 * stamp: runs a command with its stdout and stderr merged into a pipe, passes every line on
 * (prefixed "  | ") and times it: from just before fork to the first line, to the first line
 * holding MARKER, and to the command's exit (wait4); the command's peak RSS is wait4's
 * ru_maxrss (the same figure as VmHWM in /proc/PID/status just before it exits), and
 * LABEL-matching lines can be timed too.
 *
 * usage: stamp [-t SECS] [-l LINE_SUBSTRING] [-g GUEST_KB] [-k] NAME MARKER COMMAND [ARGS...]
 * prints at the end one line:
 *   STAMP NAME first_ms=F line_ms=L marker_ms=M exit_ms=E status=S maxrss_kb=R
 * (-1 for a line that never came; status is the exit code, or 128+signal; -t kills the
 * command with SIGKILL after SECS seconds).
 * -g GUEST_KB (footprint, for a guest that stays up after its marker): 3 s after the marker,
 * the VMM's mapping of the guest's RAM (the mapping of GUEST_KB to GUEST_KB + 8 MiB with the
 * most resident pages, in /proc/PID/smaps) is read, the command gets SIGTERM, and the line
 * adds " guest_rss_kb=G guest_map_kb=S" (-1 when no mapping matched): G is the guest RAM
 * actually touched, so maxrss_kb - G is the VMM's own overhead.
 * -k (for a guest that stays up at its marker, e.g. at a login prompt): MARKER is also looked for
 * in a line still unfinished (a prompt ends none), and the command gets SIGTERM as soon as it is seen.
 * Built static for arm64 by bench/boot/run-arm64; it runs inside the emulated arm64 host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static pid_t child;

/* The resident kB of the child's mapping of the guest's RAM (see -g), and its size in *size. */
static long guest_rss_kb(long guest_kb, long *size) {
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/smaps", (int) child);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long best = -1, vma = 0, kb;
    *size = -1;
    while (fgets(buf, sizeof buf, f)) {
        if (sscanf(buf, "Size: %ld kB", &kb) == 1) vma = kb;
        else if (sscanf(buf, "Rss: %ld kB", &kb) == 1
                 && vma >= guest_kb && vma <= guest_kb + 8192 && kb > best) {
            best = kb;
            *size = vma;
        }
    }
    fclose(f);
    return best;
}
static void on_alarm(int sig) {
    (void) sig;
    if (child > 0) kill(child, SIGKILL);
}

int main(int argc, char **argv) {
    int timeout = 0;
    const char *watch = NULL;
    long guest_kb = 0, guest_rss = -1, guest_map = -1;
    int opt, end_at_marker = 0;
    while ((opt = getopt(argc, argv, "+t:l:g:k")) != -1) {
        if (opt == 't') timeout = atoi(optarg);
        else if (opt == 'k') end_at_marker = 1;
        else if (opt == 'l') watch = optarg;
        else if (opt == 'g') guest_kb = atol(optarg);
        else return 125;
    }
    if (argc - optind < 3) {
        fprintf(stderr, "usage: stamp [-t SECS] [-l LINE_SUBSTRING] [-g GUEST_KB] [-k] NAME MARKER COMMAND [ARGS...]\n");
        return 125;
    }
    const char *name = argv[optind], *marker = argv[optind + 1];
    char **cmd = argv + optind + 2;
    int fds[2];
    if (pipe(fds) != 0) { perror("stamp: pipe"); return 125; }
    double t0 = now_ms();
    child = fork();
    if (child < 0) { perror("stamp: fork"); return 125; }
    if (child == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execvp(cmd[0], cmd);
        fprintf(stderr, "stamp: cannot run %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    if (timeout > 0) {
        signal(SIGALRM, on_alarm);
        alarm(timeout);
    }
    /* Read as it comes, not by line: with -k the marker may sit in a line that never ends. */
    char buf[4096], *line = malloc(4096);
    size_t len = 0, cap = 4096;
    double first = -1, seen = -1, mark = -1;
    if (!line) { perror("stamp: malloc"); return 125; }
    for (;;) {
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        double t = now_ms() - t0;
        for (ssize_t i = 0; i < n; i++) {
            if (len + 2 > cap && !(line = realloc(line, cap *= 2))) { perror("stamp: realloc"); return 125; }
            line[len++] = buf[i];
            line[len] = 0;
            int done = buf[i] == '\n' || (end_at_marker && i == n - 1);
            if (!done) continue;
            int marked = mark < 0 && strstr(line, marker);
            if (marked) mark = t;
            if (buf[i] == '\n') {
                if (first < 0) first = t;
                if (watch && seen < 0 && strstr(line, watch)) seen = t;
                printf("  | %s", line);
                fflush(stdout);
                len = 0;
            }
            if (marked && guest_kb > 0) {
                sleep(3);
                guest_rss = guest_rss_kb(guest_kb, &guest_map);
                kill(child, SIGTERM);
            } else if (marked && end_at_marker) {
                kill(child, SIGTERM);
            }
        }
    }
    if (len > 0) printf("  | %s\n", line);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(child, &status, 0, &ru) < 0 && errno == EINTR) {}
    double end = now_ms() - t0;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    printf("STAMP %s first_ms=%.0f line_ms=%.0f marker_ms=%.0f exit_ms=%.0f status=%d maxrss_kb=%ld",
           name, first, seen, mark, end, code, ru.ru_maxrss);
    if (guest_kb > 0) printf(" guest_rss_kb=%ld guest_map_kb=%ld", guest_rss, guest_map);
    putchar('\n');
    fflush(stdout);
    return 0;
}
