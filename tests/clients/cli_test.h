/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/clients/cli_test.h -- shared harness of the CLI tests
 * (test_cli_main.c, test_cli_mode.c): spawn the built `mdae` with stdout and
 * stderr captured, and the few assertions every CLI test uses.
 *
 * The binary is spawned (posix_spawn) with stdout and stderr redirected to
 * unlinked temporary files, never pipes, so a large output can never
 * deadlock. Functions are static: each test file is its own executable.
 */
#ifndef CLI_TEST_H
#define CLI_TEST_H

#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MDAE MDAE_BINARY_DIR "/clients/mdae"
#define MODEL(name) MDAE_SOURCE_DIR "/tests/models/" name

extern char **environ;

typedef struct run {
    int code; /* exit status, or -1 if killed by a signal */
    char *out;
    char *err;
} run;

/* The whole content of fd (rewound first), NUL-terminated; free() it. */
static inline char *slurp_fd(int fd)
{
    off_t n = lseek(fd, 0, SEEK_END);
    cr_assert_geq(n, 0);
    lseek(fd, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    size_t got = 0;
    while (got < (size_t)n) {
        ssize_t r = read(fd, buf + got, (size_t)n - got);
        cr_assert_gt(r, 0);
        got += (size_t)r;
    }
    buf[got] = '\0';
    return buf;
}

/* Run mdae with args (NULL-terminated, without the program name, at most 38),
 * the environment envp, and stdin from `in` (a path, or NULL for /dev/null);
 * wait for it. Release the result with run_free(). */
static inline run cli_run(const char *in, char *const *envp, const char *const *args)
{
    const char *argv[40] = {MDAE};
    size_t n = 1;
    for (; args[n - 1] != NULL; n++) {
        cr_assert_lt(n, 39);
        argv[n] = args[n - 1];
    }
    argv[n] = NULL;

    char out_path[] = "/tmp/mdae-cli-out-XXXXXX", err_path[] = "/tmp/mdae-cli-err-XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    cr_assert(out_fd >= 0 && err_fd >= 0);
    unlink(out_path);
    unlink(err_path);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, MDAE, &fa, NULL, (char *const *)argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "cannot spawn %s", MDAE);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);

    run r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp_fd(out_fd);
    r.err = slurp_fd(err_fd);
    close(out_fd);
    close(err_fd);
    return r;
}

static inline void run_free(run *r)
{
    free(r->out);
    free(r->err);
}

/* Assert the exit code; on failure show both streams. */
static inline void expect(const run *r, int code)
{
    cr_assert_eq(r->code, code, "exit %d, expected %d\n--- stdout:\n%s\n--- stderr:\n%s", r->code,
                 code, r->out, r->err);
}

static inline void contains(const char *hay, const char *needle)
{
    cr_assert_not_null(strstr(hay, needle), "expected \"%s\" in:\n%s", needle, hay);
}

#endif /* CLI_TEST_H */
