/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_scale.c -- time and memory that follow the model (issue
 * 40 items 1 and 2): the complete analysis with its JSON, `mdae analyze
 * --json -D N=n MODEL > /dev/null`, of the papers' families at growing N,
 * each run a child process of the built `mdae` (peak memory is per
 * process), and the fitted exponents between the sizes.
 *
 * Rows (tab-separated), one per model and size:
 *   binary model N equations wall_s cpu_s peak_MB exp_cpu exp_mem status
 * where equations is the declared count (`mdae check`), cpu_s the child's
 * user + system time, peak_MB its peak resident set (wait4's ru_maxrss;
 * wall_s, cpu_s and peak_MB are each the median of --runs runs),
 * exp_cpu / exp_mem the exponents a fitted to t ~ N^a against the
 * previous size of the same model, and after each model a row "fit" with
 * the exponents from its first size to its last. A run past the budget
 * (RLIMIT_CPU in the child: "over budget"), killed by another signal
 * ("signal N") or failing ("exit N") ends the model.
 *
 * Models: brake (tests/models/brake.mel, N = 1,000 .. 10,000), building
 * (building_compressible.mel, N = 100 .. 1,000), rldc (rldc_chain.mel,
 * N = 6, 8, 10: its blocks grow like 2^N, docs/block_families.md).
 *
 * Usage: bench_scale [--mdae PATH] [--base PATH] [--budget S] [--quick]
 *                    [--model NAME] [--max-n N]
 *   --mdae  the binary measured (default: this build's clients/mdae)
 *   --base  a second binary measured in the same run, each model's rows
 *           right after the first's (an older build: before / after)
 *   --budget CPU seconds allowed per run (default 120)
 *   --quick the two smallest sizes of each model
 *   --model only this model (brake, building or rldc)
 *   --max-n the sizes up to N only (a quick run: --model building
 *           --max-n 400)
 *   --runs  runs per size (default 3, at most 9): the rows give each
 *           field's median
 * Prints; asserts nothing. See docs/figures.md for measured numbers.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MODELS MDAE_SOURCE_DIR "/tests/models/"

typedef struct family {
    const char *name, *file;
    long sizes[4];
} family;

static const family families[] = {
    {"brake", MODELS "brake.mel", {1000, 2000, 5000, 10000}},
    {"building", MODELS "building_compressible.mel", {100, 200, 400, 1000}},
    {"rldc", MODELS "rldc_chain.mel", {6, 8, 10, 0}},
};

typedef struct measure {
    double wall, cpu, peak_mb;
    int status; /* exit status; -signal if killed (SIGXCPU: the budget) */
} measure;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Run bin with argv (NULL-terminated, argv[0] included) under a CPU budget,
 * stdout into out_path (or /dev/null), stderr into /dev/null. */
static measure run_child(const char *bin, char *const *argv, double budget, const char *out_path)
{
    measure m = {0, 0, 0, -SIGKILL};
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0)
        return m;
    if (pid == 0) {
        struct rlimit rl = {(rlim_t)budget, (rlim_t)budget + 1};
        int fo = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open("/dev/null", O_WRONLY);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 ||
            setrlimit(RLIMIT_CPU, &rl) != 0)
            _exit(125);
        execv(bin, argv);
        _exit(126);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return m;
    m.wall = now() - t0;
    m.cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
            (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    m.peak_mb = (double)ru.ru_maxrss / 1024.0;
    m.status = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    return m;
}

/* The declared equations of file at N = n (`mdae check`), or -1. */
static long equations(const char *bin, const char *file, long n)
{
    char def[32], path[] = "/tmp/bench_scale_XXXXXX";
    snprintf(def, sizeof def, "N=%ld", n);
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    char *argv[] = {(char *)bin, "check", "-D", def, (char *)file, NULL};
    run_child(bin, argv, 60, path);
    long eqs = -1;
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        char line[512];
        while (eqs < 0 && fgets(line, sizeof line, f) != NULL) {
            const char *p = strstr(line, ": ");
            if (p != NULL && strstr(p, " equation") != NULL)
                eqs = strtol(p + 2, NULL, 10);
        }
        fclose(f);
    }
    unlink(path);
    return eqs;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* runs runs of argv (at most MAX_RUNS): each field's median, or the first
 * run that failed. A run of 0.13 s varies by 10 ms from one run to the
 * next, which moves a fit over a decade by 0.03: the median of three
 * steadies the exponents. */
#define MAX_RUNS 9
static measure run_median(const char *bin, char *const *argv, double budget, int runs)
{
    double wall[MAX_RUNS], cpu[MAX_RUNS], peak[MAX_RUNS];
    measure m = {0, 0, 0, 0};
    for (int k = 0; k < runs; k++) {
        m = run_child(bin, argv, budget, NULL);
        if (m.status != 0)
            return m;
        wall[k] = m.wall, cpu[k] = m.cpu, peak[k] = m.peak_mb;
    }
    m.wall = median(wall, runs);
    m.cpu = median(cpu, runs);
    m.peak_mb = median(peak, runs);
    return m;
}

static double exponent(double a, double b, long na, long nb)
{
    if (a <= 0 || b <= 0 || na <= 0 || nb <= na)
        return NAN;
    return log(b / a) / log((double)nb / (double)na);
}

/* The rows of one model for one binary; stops at the first run that fails. */
static void bench_family(const char *label, const char *bin, const family *f, double budget,
                         bool quick, long max_n, int runs)
{
    measure first = {0, 0, 0, -1}, prev = {0, 0, 0, -1};
    long n_first = 0, n_prev = 0;
    for (int k = 0; k < 4 && f->sizes[k] > 0 && f->sizes[k] <= max_n && (!quick || k < 2); k++) {
        long n = f->sizes[k];
        char def[32];
        snprintf(def, sizeof def, "N=%ld", n);
        char *argv[] = {(char *)bin, "analyze", "--json", "-D", def, (char *)f->file, NULL};
        long eqs = equations(bin, f->file, n);
        measure m = run_median(bin, argv, budget, runs);
        bool ok = m.status == 0;
        char why[32];
        if (m.status == -SIGXCPU)
            snprintf(why, sizeof why, "over budget");
        else if (m.status < 0)
            snprintf(why, sizeof why, "signal %d", -m.status);
        else
            snprintf(why, sizeof why, ok ? "ok" : "exit %d", m.status);
        printf("%s\t%s\t%ld\t%ld\t%.3f\t%.3f\t%.0f\t%.2f\t%.2f\t%s\n", label, f->name, n, eqs,
               m.wall, m.cpu, m.peak_mb, exponent(prev.cpu, m.cpu, n_prev, n),
               exponent(prev.peak_mb, m.peak_mb, n_prev, n), why);
        fflush(stdout);
        if (!ok)
            break;
        if (n_first == 0)
            first = m, n_first = n;
        prev = m, n_prev = n;
    }
    if (n_first > 0 && n_prev > n_first)
        printf("%s\t%s\tfit %ld..%ld\t\t\t\t\t%.2f\t%.2f\t\n", label, f->name, n_first, n_prev,
               exponent(first.cpu, prev.cpu, n_first, n_prev),
               exponent(first.peak_mb, prev.peak_mb, n_first, n_prev));
}

int main(int argc, char **argv)
{
    const char *bin = MDAE_BINARY_DIR "/clients/mdae", *base = NULL, *only = NULL;
    double budget = 120;
    long max_n = LONG_MAX;
    bool quick = false;
    int runs = 3;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--mdae") && a + 1 < argc)
            bin = argv[++a];
        else if (!strcmp(argv[a], "--base") && a + 1 < argc)
            base = argv[++a];
        else if (!strcmp(argv[a], "--budget") && a + 1 < argc)
            budget = atof(argv[++a]);
        else if (!strcmp(argv[a], "--quick"))
            quick = true;
        else if (!strcmp(argv[a], "--model") && a + 1 < argc)
            only = argv[++a];
        else if (!strcmp(argv[a], "--max-n") && a + 1 < argc)
            max_n = atol(argv[++a]);
        else if (!strcmp(argv[a], "--runs") && a + 1 < argc && atoi(argv[a + 1]) >= 1 &&
                 atoi(argv[a + 1]) <= MAX_RUNS)
            runs = atoi(argv[++a]);
        else {
            fprintf(stderr, "usage: bench_scale [--mdae PATH] [--base PATH] [--budget S] "
                            "[--quick] [--model NAME] [--max-n N] [--runs K]\n");
            return 2;
        }
    }
    printf("binary\tmodel\tN\tequations\twall_s\tcpu_s\tpeak_MB\texp_cpu\texp_mem\tstatus\n");
    for (size_t k = 0; k < sizeof families / sizeof *families; k++) {
        if (only != NULL && strcmp(only, families[k].name) != 0)
            continue;
        bench_family("mdae", bin, &families[k], budget, quick, max_n, runs);
        if (base != NULL)
            bench_family("base", base, &families[k], budget, quick, max_n, runs);
    }
    return 0;
}
