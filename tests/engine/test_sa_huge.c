/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_huge.c -- engine/sa_enc.c asks for huge pages for
 * BuDDy's node table from its resize hook, before the realloc that grows
 * it. Advice only: a table grown past SA_HUGE_MIN_BYTES (from 5 MB to
 * 20 MB here, the hook called on every doubling) holds the same functions
 * as one that never grew (the same counts of models and nodes), and
 * rebuilding them after the growth finds the very nodes (the unique table
 * intact).
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "sa_int.h"

#define NV 40
#define CUBES 40000

TestSuite(sa_huge, .timeout = 60);

/* Cube k over NV variables: variable v positive, negative or absent
 * by a hash of (k, v); most cubes share few nodes. */
static BDD cube_of(unsigned k)
{
    BDD cube = bddtrue;
    for (int v = NV - 1; v >= 0; v--) {
        unsigned h = (k * 2654435761u) ^ ((unsigned)v * 40503u);
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        h ^= h >> 15;
        int r = (int)(h % 3u);
        if (r == 2)
            continue;
        BDD next = bdd_addref(bdd_and(cube, r ? bdd_ithvar(v) : bdd_nithvar(v)));
        bdd_delref(cube);
        cube = next;
    }
    return cube;
}

typedef struct figures {
    double models;  /* of every cube, summed */
    int nodes;      /* of all cubes together */
    int table;      /* BuDDy's table at the end */
} figures;

/* The cubes, kept referenced, from a table of `initial` nodes. */
static figures run(size_t initial)
{
    sa_config cfg;
    sa_config_default(&cfg);
    cfg.initial_nodes = initial;
    cr_assert_eq(sa_begin(&cfg), MDAE_OK);
    cr_assert_geq(bdd_setvarnum(NV), 0);
    BDD *cubes = malloc(CUBES * sizeof *cubes);
    cr_assert_not_null(cubes);
    for (unsigned k = 0; k < CUBES; k++)
        cubes[k] = cube_of(k);
    figures f = {0, bdd_anodecount(cubes, CUBES), bdd_getallocnum()};
    for (unsigned k = 0; k < CUBES; k++)
        f.models += bdd_satcount(cubes[k]);
    /* the unique table after the growth: the same cubes are the same nodes */
    for (unsigned k = 0; k < CUBES; k += 97) {
        BDD again = cube_of(k);
        cr_assert_eq(again, cubes[k], "cube %u rebuilt as another node", k);
        bdd_delref(again);
    }
    for (unsigned k = 0; k < CUBES; k++)
        bdd_delref(cubes[k]);
    free(cubes);
    sa_end();
    return f;
}

Test(sa_huge, grown_table_holds_the_same_functions)
{
    figures grown = run((size_t)1 << 18);    /* 5 MB: advised, then grown */
    figures whole = run((size_t)1 << 21);    /* large enough from the start */
    cr_assert_gt(grown.table, 1 << 19, "the table grew at least twice (%d)", grown.table);
    cr_assert_gt(grown.nodes, 1 << 19, "the cubes need the growth (%d nodes)", grown.nodes);
    cr_assert_eq(grown.nodes, whole.nodes);
    cr_assert(grown.models == whole.models, "%g models against %g", grown.models,
              whole.models);
}
