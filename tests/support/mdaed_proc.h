/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/mdaed_proc.h -- start a real mdaed for a test and stop it:
 * the one copy shared by the server suites (tests/server/srv_test.h) and the
 * CLI's --server tests (tests/clients/test_cli_mode.c).
 *
 * mdaed_start writes the configuration the caller gives into a fresh
 * temporary directory, forks and execs the built server with --port-file,
 * and waits (bounded by MDAED_PROC_WAIT_MS) until the port is written. The
 * child dies with the test process (PR_SET_PDEATHSIG), so a failed
 * assertion never leaves a server behind; its workers follow when their
 * pipes close. mdaed_stop sends SIGTERM, waits (bounded), kills if it must
 * and removes the directory. Header-only (static), like every test helper.
 */
#ifndef MDAED_PROC_H
#define MDAED_PROC_H

#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MDAED_PROC_WAIT_MS 20000
#define MDAED_PROC_EXE MDAE_BINARY_DIR "/server/mdaed"

typedef struct mdaed_proc {
    pid_t pid;
    int port;
    char dir[64];   /* the temporary directory (configuration, socket, log) */
    char sock[100]; /* DIR/sock, for a configuration's "unix" listener */
} mdaed_proc;

static inline uint64_t t_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline void t_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Make the temporary directory; the caller then writes the configuration
 * (it may name p->sock) with mdaed_start. prefix: "mdaed-test" or the like. */
static inline void mdaed_prepare(mdaed_proc *p, const char *prefix)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "/tmp/%s-XXXXXX", prefix);
    cr_assert_not_null(mkdtemp(p->dir));
    snprintf(p->sock, sizeof p->sock, "%s/sock", p->dir);
}

/* Write conf (the whole configuration file) into DIR/mdaed.json and fork
 * the server on it, with --port-file DIR/port (a previous one removed).
 * The server's stdout goes to /dev/null, its stderr to DIR/mdaed.log when
 * log_to_file (else it is the test's). Does not wait: mdaed_start waits
 * for the port, a test of a refused start for the exit. */
static inline void mdaed_spawn(mdaed_proc *p, const char *conf_text, bool log_to_file)
{
    cr_assert_eq(access(MDAED_PROC_EXE, X_OK), 0,
                 "%s is not built (cmake --build ... --target mdaed)", MDAED_PROC_EXE);
    char conf[128], port_file[128], log[128];
    snprintf(conf, sizeof conf, "%s/mdaed.json", p->dir);
    snprintf(port_file, sizeof port_file, "%s/port", p->dir);
    snprintf(log, sizeof log, "%s/mdaed.log", p->dir);
    unlink(port_file); /* a restart must not read the previous port */
    FILE *f = fopen(conf, "w");
    cr_assert_not_null(f);
    fputs(conf_text, f);
    fclose(f);
    p->pid = fork();
    cr_assert_geq(p->pid, 0);
    if (p->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1); /* keep Criterion's pipes free of our output */
        if (log_to_file) {
            int lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (lfd >= 0)
                dup2(lfd, 2);
        }
        execl(MDAED_PROC_EXE, MDAED_PROC_EXE, "--config", conf, "--port-file", port_file,
              (char *)NULL);
        _exit(127);
    }
}

/* mdaed_spawn, then wait (bounded) until the server has written its port
 * into p->port. */
static inline void mdaed_start(mdaed_proc *p, const char *conf_text, bool log_to_file)
{
    mdaed_spawn(p, conf_text, log_to_file);
    char port_file[128];
    snprintf(port_file, sizeof port_file, "%s/port", p->dir);
    uint64_t end = t_now_ms() + MDAED_PROC_WAIT_MS;
    while (t_now_ms() < end) {
        FILE *pf = fopen(port_file, "r");
        if (pf != NULL) {
            int ok = fscanf(pf, "%d", &p->port);
            fclose(pf);
            if (ok == 1 && p->port > 0)
                return;
        }
        int st;
        cr_assert_eq(waitpid(p->pid, &st, WNOHANG), 0, "mdaed exited at startup");
        t_sleep_ms(10);
    }
    cr_assert_fail("mdaed did not write its port");
}

/* Remove a directory and what is in it (a server's, a state directory). */
static inline void mdaed_remove_dir(const char *dir)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* Stop with SIGTERM; returns the exit status (or -1 when it had to be
 * killed). */
static inline int mdaed_stop(mdaed_proc *p)
{
    int st = 0;
    kill(p->pid, SIGTERM);
    uint64_t end = t_now_ms() + MDAED_PROC_WAIT_MS;
    int rc = -1;
    while (t_now_ms() < end) {
        pid_t r = waitpid(p->pid, &st, WNOHANG);
        if (r == p->pid) {
            rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            break;
        }
        t_sleep_ms(10);
    }
    if (rc == -1 && waitpid(p->pid, &st, WNOHANG) == 0) {
        kill(p->pid, SIGKILL);
        waitpid(p->pid, &st, 0);
    }
    mdaed_remove_dir(p->dir);
    return rc;
}

#endif /* MDAED_PROC_H */
