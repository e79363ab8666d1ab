/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_blocks.c -- why the chains do not split further (issue
 * 6): per mode, the fine Dulmage-Mendelsohn blocks of the FULL active
 * incidence pattern against the Sigma-method's blocks.
 *
 * Issue 6 asks for an exact decomposition of a model finer than the
 * connected components of its all-modes incidence graph. A decomposition
 * that holds before the offsets are known can only use the incidence pattern
 * itself (every active edge, whatever its derivative order), and in one mode
 * the finest such decomposition is the fine DM (block triangular) form of
 * that pattern. This bench measures it on sampled modes of the chain
 * families, next to the Sigma-method's blocks (fine DM of the *saturated*
 * edges d_j = c_i + sigma_ij, ref_mode_blocks), which exist only once the
 * offsets are known.
 *
 * Everything comes from the brute-force reference (tests/ref), one mode at a
 * time; the implicit engine is not used. Full-pattern blocks: with the
 * reference's perfect matching j(i), equation i -> i' iff i' != i and
 * (i', j(i)) is an active edge; blocks are the strongly connected components
 * (the reference's Tarjan, ref_mode_blocks_by). As for ref_btf.c, the
 * partition does not depend on the perfect matching chosen (fine DM).
 *
 * Modes: K per (family, N), drawn uniformly among the VALID modes by
 * rejection (splitmix64, ref_rand_next, seeded from the family and N, so runs
 * are reproducible). Validity is checked on the invariants first (cheap:
 * at N = 40 about 1 draw in 200,000 is a valid building mode), then by
 * ref_mode_compute's .valid. Singular valid modes have no blocks; they are
 * counted and skipped (none occur in these families).
 *
 * Usage: bench_blocks [--k K] [--seed S] [FAMILY [N...]]
 *   default: building_compressible, brake, rldc_chain for N = 5 10 20 40,
 *   K = 50.
 * Output: a header line, then one row per (family, N), space-separated:
 *   model N equations_per_mode full_blocks_min full_largest_max
 *   sigma_blocks_min sigma_largest_max modes full_largest_min
 *   sigma_blocks_max draws seconds
 * (equations_per_mode is printed as lo-hi if it varies across the sampled
 * modes; draws counts the mode vectors drawn to get the valid ones.)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_run.h"
#include "mdae.h"
#include "mel.h"
#include "ref.h"

/* Rejection sampling gives up after this many draws per valid mode. */
#define BB_MAX_DRAWS_PER_MODE 100000000ULL

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- Blocks ---------------------------------------------------------------- */

/* Full pattern: b depends on a when b uses, along any active edge, the
 * variable the reference's perfect matching gives a. */
static bool full_dep(const ref_mode *rm, uint32_t a, uint32_t b)
{
    return rm->match[a] >= 0 && ref_mode_sigma(rm, b, (uint32_t)rm->match[a]) >= 0;
}

/* Number of fine blocks of the full active pattern of rm (valid,
 * nonsingular) and the size of the largest, in equations; block_of_eq
 * (n_equations) receives each equation's block, -1 if inactive. The blocks
 * are the reference's Tarjan (ref_mode_blocks_by) on full_dep. */
static int full_blocks(const ref_mode *rm, int *block_of_eq, uint32_t *n_blocks,
                       uint32_t *largest)
{
    ref_blocks b;
    int rc = ref_mode_blocks_by(rm, full_dep, &b);
    if (rc < 0)
        return rc;
    const uint32_t ne = rm->model->n_equations;
    uint32_t *size = mdae_calloc(b.n_blocks + 1, sizeof *size);
    if (size == NULL) {
        ref_blocks_close(&b);
        return MDAE_E_NOMEM;
    }
    uint32_t big = 0;
    for (uint32_t i = 0; i < ne; i++)
        if (b.block_of_eq[i] >= 0 && ++size[b.block_of_eq[i]] > big)
            big = size[b.block_of_eq[i]];
    memcpy(block_of_eq, b.block_of_eq, ne * sizeof *block_of_eq);
    *n_blocks = b.n_blocks;
    *largest = big;
    mdae_free(size);
    ref_blocks_close(&b);
    return MDAE_OK;
}

/* Number of Sigma-method blocks of rm and the size of the largest. Checks
 * on the way that each lies inside one full-pattern block (full[], from
 * full_blocks): saturated edges are active edges and both graphs use the same
 * matching, so the Sigma partition must refine the full one; anything else
 * is a bug in this bench or in the reference (MDAE_E_STATE). */
static int sigma_blocks(const ref_mode *rm, const int *full, uint32_t *n_blocks,
                        uint32_t *largest)
{
    ref_blocks b;
    int rc = ref_mode_blocks(rm, &b);
    if (rc < 0)
        return rc;
    const uint32_t ne = rm->model->n_equations;
    uint32_t *size = mdae_calloc(b.n_blocks + 1, sizeof *size);
    int *in_full = mdae_malloc((b.n_blocks + 1) * sizeof *in_full);
    rc = MDAE_E_NOMEM;
    if (size == NULL || in_full == NULL)
        goto done;
    for (uint32_t k = 0; k < b.n_blocks; k++)
        in_full[k] = -1;
    uint32_t big = 0;
    rc = MDAE_OK;
    for (uint32_t i = 0; i < ne; i++) {
        int k = b.block_of_eq[i];
        if ((k >= 0) != (full[i] >= 0)) {
            rc = MDAE_E_STATE;
            break;
        }
        if (k < 0)
            continue;
        if (in_full[k] < 0)
            in_full[k] = full[i];
        else if (in_full[k] != full[i]) {
            rc = MDAE_E_STATE;
            break;
        }
        if (++size[k] > big)
            big = size[k];
    }
    if (rc == MDAE_OK) {
        *n_blocks = b.n_blocks;
        *largest = big;
    }
done:
    mdae_free(size);
    mdae_free(in_full);
    ref_blocks_close(&b);
    return rc;
}

static bool invariants_hold(const mel_model *m, const bool *mode)
{
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode))
            return false;
    return true;
}

static uint64_t seed_of(const char *family, long long n, uint64_t seed)
{
    uint64_t h = 1469598103934665603ULL ^ seed; /* FNV-1a */
    for (const char *p = family; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL);
}

typedef struct row {
    uint32_t eqs_lo, eqs_hi;
    uint32_t full_blocks_min, full_largest_max, full_largest_min;
    uint32_t sigma_blocks_min, sigma_blocks_max, sigma_largest_max;
    uint32_t modes, singular;
    unsigned long long draws;
} row;

static int run(const char *family, long long N, uint32_t K, uint64_t seed)
{
    size_t len;
    char *text = bench_model_text(family, &len);
    if (text == NULL) {
        fprintf(stderr, "bench_blocks: cannot read tests/models/%s.mel\n", family);
        return MDAE_E_INVAL;
    }
    double t0 = now();
    mel_define def = {"N", N};
    mel_options mo = {0};
    mo.defines = &def;
    mo.n_defines = 1;
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    bool *mode = NULL;
    int *full = NULL; /* full-pattern block of each equation, current mode */
    row r;
    memset(&r, 0, sizeof r);
    r.eqs_lo = r.full_blocks_min = r.full_largest_min = r.sigma_blocks_min = UINT32_MAX;
    int rc = mel_model_parse(text, len, &mo, &m, &d);
    if (rc < 0) {
        fprintf(stderr, "bench_blocks: %s N=%lld does not parse (%s)\n", family, N,
                mdae_err_name(rc));
        goto done;
    }
    rc = MDAE_E_NOMEM;
    mode = mdae_calloc(m->n_modes + 1, sizeof *mode);
    full = mdae_malloc((m->n_equations + 1) * sizeof *full);
    if (mode == NULL || full == NULL)
        goto done;
    uint64_t st = seed_of(family, N, seed);
    while (r.modes < K) {
        /* Uniform among valid modes: draw every mode variable, reject. */
        unsigned long long tries = 0;
        do {
            if (++tries > BB_MAX_DRAWS_PER_MODE) {
                fprintf(stderr, "bench_blocks: %s N=%lld: no valid mode in %llu draws\n",
                        family, N, tries - 1);
                rc = MDAE_E_LIMIT;
                goto done;
            }
            uint64_t bits = 0;
            for (uint32_t k = 0; k < m->n_modes; k++) {
                if (k % 64 == 0)
                    bits = ref_rand_next(&st);
                mode[k] = (bits >> (k % 64)) & 1;
            }
        } while (!invariants_hold(m, mode));
        r.draws += tries;
        ref_mode rm;
        rc = ref_mode_compute(m, mode, &rm);
        if (rc < 0)
            goto done;
        if (!rm.valid) { /* cannot happen: the invariants hold */
            ref_mode_close(&rm);
            fprintf(stderr, "bench_blocks: %s N=%lld: reference disagrees on validity\n",
                    family, N);
            rc = MDAE_E_INVAL;
            goto done;
        }
        r.modes++;
        if (rm.singular) {
            r.singular++;
            ref_mode_close(&rm);
            continue;
        }
        uint32_t fb = 0, fl = 0, sb = 0, sl = 0;
        rc = full_blocks(&rm, full, &fb, &fl);
        if (rc == MDAE_OK)
            rc = sigma_blocks(&rm, full, &sb, &sl);
        uint32_t ne = rm.n_active_eqs;
        ref_mode_close(&rm);
        if (rc == MDAE_E_STATE)
            fprintf(stderr, "bench_blocks: %s N=%lld: a Sigma block straddles two "
                    "full-pattern blocks (bug)\n", family, N);
        if (rc < 0)
            goto done;
        if (ne < r.eqs_lo) r.eqs_lo = ne;
        if (ne > r.eqs_hi) r.eqs_hi = ne;
        if (fb < r.full_blocks_min) r.full_blocks_min = fb;
        if (fl > r.full_largest_max) r.full_largest_max = fl;
        if (fl < r.full_largest_min) r.full_largest_min = fl;
        if (sb < r.sigma_blocks_min) r.sigma_blocks_min = sb;
        if (sb > r.sigma_blocks_max) r.sigma_blocks_max = sb;
        if (sl > r.sigma_largest_max) r.sigma_largest_max = sl;
    }
    rc = MDAE_OK;
    char eqs[32];
    if (r.eqs_lo == r.eqs_hi)
        snprintf(eqs, sizeof eqs, "%u", r.eqs_lo);
    else
        snprintf(eqs, sizeof eqs, "%u-%u", r.eqs_lo, r.eqs_hi);
    if (r.singular == r.modes) {
        printf("%s %lld - - - - - %u - - %llu %.2f (all %u modes singular)\n", family, N,
               r.modes, r.draws, now() - t0, r.modes);
    } else {
        printf("%s %lld %s %u %u %u %u %u %u %u %llu %.2f", family, N, eqs,
               r.full_blocks_min, r.full_largest_max, r.sigma_blocks_min, r.sigma_largest_max,
               r.modes, r.full_largest_min, r.sigma_blocks_max, r.draws, now() - t0);
        if (r.singular)
            printf(" (%u singular modes skipped)", r.singular);
        printf("\n");
    }
    fflush(stdout);
done:
    mdae_free(full);
    mdae_free(mode);
    mel_model_free(m);
    mdae_diags_close(&d);
    free(text);
    return rc;
}

int main(int argc, char **argv)
{
    uint32_t K = 50;
    uint64_t seed = 6; /* issue 6 */
    const char *fam = NULL;
    long long ns[64];
    size_t nn = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--k") && a + 1 < argc)
            K = (uint32_t)strtoul(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
            seed = strtoull(argv[++a], NULL, 10);
        else if (fam == NULL)
            fam = argv[a];
        else if (nn < 64)
            ns[nn++] = atoll(argv[a]);
    }
    if (K == 0) {
        fprintf(stderr, "usage: bench_blocks [--k K] [--seed S] [FAMILY [N...]]\n");
        return 2;
    }
    const long long def_ns[] = {5, 10, 20, 40};
    if (nn == 0) {
        memcpy(ns, def_ns, sizeof def_ns);
        nn = 4;
    }
    static const char *const fams[] = {"building_compressible", "brake", "rldc_chain"};
    printf("model N equations_per_mode full_blocks_min full_largest_max sigma_blocks_min "
           "sigma_largest_max modes full_largest_min sigma_blocks_max draws seconds\n");
    int status = 0;
    for (size_t f = 0; f < 3; f++) {
        if (fam != NULL && f > 0)
            break;
        const char *name = fam != NULL ? fam : fams[f];
        for (size_t k = 0; k < nn; k++)
            if (run(name, ns[k], K, seed) < 0) {
                status = 1;
                break;
            }
    }
    return status;
}
