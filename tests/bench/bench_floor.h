/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_floor.h -- the floor every all-modes figure is judged
 * against (issue 10): the time of a single-mode analysis of one valid mode
 * of the same model by the engine's own single-mode path (sm_model_mode:
 * matching, offsets, Dulmage-Mendelsohn), the clock, a deadline and a
 * phase clock for analyses. Header-only,
 * shared by the benchmarks that print a floor column.
 */
#ifndef BENCH_FLOOR_H
#define BENCH_FLOOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mel.h"
#include "sm.h"

static inline double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* This process's CPU seconds: for the ratios of short runs, which the
 * other jobs of a loaded machine scatter by 2x in wall time. */
static inline double bench_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A progress callback (sa_options.progress) that cancels an analysis once
 * the clock passes ctx's deadline (a bench_deadline). */
typedef struct bench_deadline {
    double at; /* bench_now() seconds */
} bench_deadline;

static inline int bench_past_deadline(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)phase;
    (void)done;
    (void)total;
    return bench_now() > ((const bench_deadline *)ctx)->at;
}

/* A progress callback (sa_options.progress) that prints on stderr the time
 * of each phase as the next one starts (--phases of the benchmarks; the
 * caller prints the last one), unless quiet, and cancels the analysis past
 * the deadline, if any. */
typedef struct bench_phases {
    const char *phase;
    double last;
    double deadline; /* bench_now() seconds past which the analysis is
                        cancelled; 0: none */
    bool quiet;      /* time the phases without printing them */
} bench_phases;

static inline int bench_on_phase(void *ctx, const char *phase, size_t done, size_t total)
{
    bench_phases *pc = ctx;
    if (pc->phase == NULL || strcmp(pc->phase, phase) != 0) {
        double t = bench_now();
        if (pc->phase != NULL && !pc->quiet)
            fprintf(stderr, "    %-12s %8.4f s\n", pc->phase, t - pc->last);
        pc->phase = phase;
        pc->last = t;
    }
    (void)done;
    (void)total;
    return pc->deadline > 0 && bench_now() > pc->deadline;
}

static inline bool bench_valid(const mel_model *m, const bool *mode)
{
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode))
            return false;
    return true;
}

/* Seconds of one sm_model_mode on a valid mode of m (all false if valid,
 * else the first of up to 10,000 pseudo-random modes that is), averaged
 * over repetitions of at least 20 ms in all. -1 if no valid mode was found
 * or the analysis failed. */
static inline double bench_floor(const mel_model *m)
{
    bool *mode = calloc((size_t)m->n_modes + 1, sizeof *mode);
    if (mode == NULL)
        return -1;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int t = 0; t < 10000 && !bench_valid(m, mode); t++)
        for (uint32_t k = 0; k < m->n_modes; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            mode[k] = x & 1;
        }
    double per = -1;
    if (bench_valid(m, mode)) {
        int reps = 0;
        double t0 = bench_now(), t1 = t0;
        do {
            sm_mode v;
            if (sm_model_mode(m, mode, &v) != MDAE_OK)
                break;
            sm_mode_close(&v);
            reps++;
            t1 = bench_now();
        } while (t1 - t0 < 0.02);
        if (reps > 0)
            per = (t1 - t0) / reps;
    }
    free(mode);
    return per;
}

#endif /* BENCH_FLOOR_H */
