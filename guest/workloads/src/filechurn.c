/* filechurn NAME WORKERS SECONDS shared|private DIR
 * WORKERS forked processes loop: create a file (open O_CREAT|O_EXCL), close it, unlink it.
 * One op = one create+unlink.
 *   shared:  every worker in DIR/shared: each create and unlink takes that directory's
 *            inode lock (i_rwsem) for writing.
 *   private: worker i in DIR/w<i>, a tmpfs of its own mounted there: its own directory lock
 *            and its own superblock (the superblock's inode list lock and free-inode count
 *            are per file system), so the workers share no lock of the file system (the
 *            control). The caller unmounts them (jkvm-workload does). */
#include "wl.h"
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>

static char dirs[WL_MAX_WORKERS][256];

static void body(int id, _Atomic uint64_t *ops) {
    char path[300];
    snprintf(path, sizeof path, "%s/f%d", dirs[id], id);
    unlink(path);
    for (;;) {
        int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
        if (fd < 0) wl_die("open");
        close(fd);
        if (unlink(path) != 0) wl_die("unlink");
        wl_count(ops, 1);
    }
}

int main(int argc, char **argv) {
    const char *name; int workers; double secs;
    wl_args(argc, argv, &name, &workers, &secs, "shared|private DIR");
    if (argc < 6 || (strcmp(argv[4], "shared") != 0 && strcmp(argv[4], "private") != 0)) {
        fprintf(stderr, "filechurn: arguments 4 and 5 are shared|private and DIR\n");
        return 2;
    }
    int shared = strcmp(argv[4], "shared") == 0;
    mkdir(argv[5], 0755);
    for (int i = 0; i < workers; i++) {
        if (shared) snprintf(dirs[i], sizeof dirs[i], "%s/shared", argv[5]);
        else snprintf(dirs[i], sizeof dirs[i], "%s/w%d", argv[5], i);
        if (mkdir(dirs[i], 0755) != 0 && errno != EEXIST) wl_die(dirs[i]);
        if (!shared && mount("tmpfs", dirs[i], "tmpfs", 0, "size=1m") != 0) wl_die(dirs[i]);
    }
    return run_workers(name, workers, secs, 0, body);
}
