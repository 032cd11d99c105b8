/* tlimit SECONDS COMMAND [ARGS...]
 * Runs COMMAND in a process group of its own; if it has not exited after SECONDS, kills the
 * whole group (SIGKILL) and exits 124. Otherwise exits with COMMAND's status (128+signal if
 * it was killed). Unlike busybox timeout it also ends COMMAND's children (hackbench's). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3 || !(atof(argv[1]) > 0)) {
        fprintf(stderr, "usage: tlimit SECONDS COMMAND [ARGS...]\n");
        return 2;
    }
    double secs = atof(argv[1]);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    pid_t pid = fork();
    if (pid < 0) { perror("tlimit: fork"); return 125; }
    if (pid == 0) {
        setpgid(0, 0);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        execvp(argv[2], argv + 2);
        fprintf(stderr, "tlimit: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    struct timespec now, end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += (time_t)secs;
    end.tv_nsec += (long)((secs - (time_t)secs) * 1e9);
    if (end.tv_nsec >= 1000000000L) { end.tv_sec++; end.tv_nsec -= 1000000000L; }
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            kill(-pid, SIGKILL);            /* leftovers of the group */
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = (end.tv_sec - now.tv_sec) + (end.tv_nsec - now.tv_nsec) / 1e9;
        if (left <= 0) {
            kill(-pid, SIGKILL);
            waitpid(pid, NULL, 0);
            fprintf(stderr, "tlimit: %s killed after %s s\n", argv[2], argv[1]);
            return 124;
        }
        struct timespec w = { (time_t)left, (long)((left - (time_t)left) * 1e9) };
        sigtimedwait(&set, NULL, &w);
    }
}
