/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/pg_proc.h -- a private PostgreSQL server for a test or a
 * benchmark (issue 37 item 4): initdb into a fresh temporary directory,
 * the postmaster listening only on a Unix socket in that directory (no TCP
 * port to collide with anything), trust authentication for the role
 * "mdae", fsync left on (the commits measured are real ones).
 *
 * initdb refuses to run as root, so as root both initdb and the server run
 * as the `postgres` user (Debian's postgresql package makes it; `nobody`
 * otherwise), which is given the directory. The server is a child of the
 * caller and dies with it (PR_SET_PDEATHSIG, set after the change of user,
 * which clears it), so a failed assertion never leaves a database behind.
 *
 * The binaries are Debian's, /usr/lib/postgresql/<major>/bin (15 on
 * bookworm, else the newest there). pg_available() says whether they are
 * installed: the cluster test skips without them (scripts/deps.sh
 * installs them with the test dependencies). Header-only (static), no
 * Criterion: bench programs use it too. scripts/run_cluster.sh does the
 * same in shell.
 */
#ifndef PG_PROC_H
#define PG_PROC_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#define PG_PROC_WAIT_MS 60000

typedef struct pg_proc {
    pid_t pid;      /* the postmaster */
    char dir[64];   /* data in DIR/data, socket and logs in DIR */
    char bin[128];  /* .../bin of the PostgreSQL used */
    char url[200];  /* postgresql://mdae@/postgres?host=DIR */
    char err[256];  /* why pg_start failed */
} pg_proc;

static inline unsigned long long pg__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;
}

/* The bin directory of the PostgreSQL to use, into bin; false if none. */
static inline bool pg_find_bin(char *bin, size_t size)
{
    snprintf(bin, size, "/usr/lib/postgresql/15/bin");
    char path[300];
    snprintf(path, sizeof path, "%s/initdb", bin);
    if (access(path, X_OK) == 0)
        return true;
    DIR *d = opendir("/usr/lib/postgresql");
    int best = -1;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        int v = atoi(e->d_name);
        snprintf(path, sizeof path, "/usr/lib/postgresql/%s/bin/initdb", e->d_name);
        if (v > best && access(path, X_OK) == 0)
            best = v;
    }
    if (d != NULL)
        closedir(d);
    if (best < 0)
        return false;
    snprintf(bin, size, "/usr/lib/postgresql/%d/bin", best);
    return true;
}

static inline bool pg_available(void)
{
    char bin[128];
    return pg_find_bin(bin, sizeof bin);
}

/* The unprivileged user to run as when we are root (uid 0: we are not). */
static inline void pg__user(uid_t *uid, gid_t *gid)
{
    *uid = 0;
    *gid = 0;
    if (geteuid() != 0)
        return;
    struct passwd *pw = getpwnam("postgres");
    if (pw == NULL)
        pw = getpwnam("nobody");
    if (pw != NULL) {
        *uid = pw->pw_uid;
        *gid = pw->pw_gid;
    }
}

/* In a child: become the user, output to log, die with the parent. */
static inline void pg__child(uid_t uid, gid_t gid, const char *log)
{
    if (uid != 0 && (setgid(gid) != 0 || setuid(uid) != 0))
        _exit(126);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* after setuid, which clears it */
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
}

/* Start the server; 0, or -1 with p->err saying why. */
static inline int pg_resume(pg_proc *p);

static inline int pg_start(pg_proc *p)
{
    memset(p, 0, sizeof *p);
    if (!pg_find_bin(p->bin, sizeof p->bin)) {
        snprintf(p->err, sizeof p->err, "PostgreSQL is not installed (apt-get install postgresql)");
        return -1;
    }
    snprintf(p->dir, sizeof p->dir, "/tmp/mdae-pg-XXXXXX");
    if (mkdtemp(p->dir) == NULL) {
        snprintf(p->err, sizeof p->err, "mkdtemp: %s", strerror(errno));
        return -1;
    }
    uid_t uid;
    gid_t gid;
    pg__user(&uid, &gid);
    if (uid != 0 && chown(p->dir, uid, gid) != 0) {
        snprintf(p->err, sizeof p->err, "chown %s: %s", p->dir, strerror(errno));
        return -1;
    }
    char data[128], log[128], exe[192];
    snprintf(data, sizeof data, "%s/data", p->dir);
    snprintf(log, sizeof log, "%s/postgres.log", p->dir);
    snprintf(exe, sizeof exe, "%s/initdb", p->bin);
    pid_t pid = fork();
    if (pid == 0) {
        pg__child(uid, gid, log);
        execl(exe, exe, "-D", data, "-A", "trust", "-U", "mdae", "-E", "UTF8", "--no-sync",
              (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(p->err, sizeof p->err, "initdb failed (see %s)", log);
        return -1;
    }
    snprintf(p->url, sizeof p->url, "postgresql://mdae@/postgres?host=%s", p->dir);
    return pg_resume(p);
}

/* Start the postmaster on p's data directory (made by pg_start) and wait
 * until it accepts connections; 0, or -1 with p->err. */
static inline int pg_resume(pg_proc *p)
{
    uid_t uid;
    gid_t gid;
    pg__user(&uid, &gid);
    char data[128], log[128], exe[192];
    snprintf(data, sizeof data, "%s/data", p->dir);
    snprintf(log, sizeof log, "%s/postgres.log", p->dir);
    snprintf(exe, sizeof exe, "%s/postgres", p->bin);
    p->pid = fork();
    if (p->pid == 0) {
        pg__child(uid, gid, log);
        execl(exe, exe, "-D", data, "-k", p->dir, "-c", "listen_addresses=", "-p", "5432",
              "-c", "max_connections=40", (char *)NULL);
        _exit(127);
    }
    if (p->pid < 0) {
        snprintf(p->err, sizeof p->err, "fork: %s", strerror(errno));
        return -1;
    }
    int st;
    unsigned long long end = pg__now_ms() + PG_PROC_WAIT_MS;
    while (pg__now_ms() < end) {
        if (PQping(p->url) == PQPING_OK)
            return 0;
        if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
            p->pid = 0;
            snprintf(p->err, sizeof p->err, "postgres exited at startup (see %s)", log);
            return -1;
        }
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    snprintf(p->err, sizeof p->err, "postgres did not accept connections (see %s)", log);
    return -1;
}

/* Stop the postmaster (fast shutdown, then SIGKILL), keeping its data for
 * pg_resume. */
static inline void pg_halt(pg_proc *p)
{
    if (p->pid > 0) {
        kill(p->pid, SIGINT);
        unsigned long long end = pg__now_ms() + 20000;
        int st;
        while (waitpid(p->pid, &st, WNOHANG) == 0) {
            if (pg__now_ms() > end) {
                kill(p->pid, SIGKILL);
                waitpid(p->pid, &st, 0);
                break;
            }
            struct timespec ts = {0, 20 * 1000000L};
            nanosleep(&ts, NULL);
        }
        p->pid = 0;
    }
}

/* Stop the server and remove its directory. */
static inline void pg_stop(pg_proc *p)
{
    pg_halt(p);
    if (p->dir[0] != '\0') {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", p->dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", p->dir);
    }
}

#endif /* PG_PROC_H */
