/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_within.c -- engine/sa_within.c: sa__within_simplify
 * (c, w, x) is the node bdd_simplify(bdd_and(x, d), d) (BuDDy's own), and
 * sa__within_empty and sa__within_implies say whether x & d is false and
 * whether d implies x, for random x and d, and for d a chain of clauses,
 * one group of variables each, as the compressible building's valid modes
 * (where the walk starts below d's root: the frontier table is checked to
 * be used); sa__within_dominator's nodes meet every path to the node they
 * are asked for (sa__edge_modes factors its contexts at them).
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "sa_int.h"
#include "sa_enter.h"

#define NV 12

static void begin(void)
{
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
    cr_assert_geq(bdd_setvarnum(NV), 0);
}
static void end(void) { sa_end(); }

TestSuite(sa_within, .init = begin, .fini = end, .timeout = 300);

/* A random function: an OR of random cubes over variables [lo, hi). */
static BDD random_fun(sa_ctx *c, unsigned *seed, int lo, int hi, int cubes)
{
    BDD f = sa__tmp(c, bddfalse);
    for (int k = 0; k < cubes; k++) {
        BDD cube = bddtrue;
        for (int v = lo; v < hi; v++) {
            int r = rand_r(seed) % 3;
            if (r < 2)
                cube = sa__tmp(c, bdd_and(cube, r ? bdd_ithvar(v) : bdd_nithvar(v)));
        }
        f = sa__tmp(c, bdd_or(f, cube));
    }
    return f;
}

static void check(sa_ctx *c, const sa__within *w, BDD x, const char *what, int k)
{
    size_t mark = sa__mark(c);
    BDD want = sa__tmp(c, bdd_simplify(sa__tmp(c, bdd_and(x, w->d)), w->d));
    BDD got = sa__within_simplify(c, w, x);
    cr_assert_eq(got, want, "%s %d: node %d, BuDDy's %d", what, k, got, want);
    bool empty = sa__tmp(c, bdd_and(x, w->d)) == bddfalse;
    bool implied = sa__tmp(c, bdd_imp(w->d, x)) == bddtrue;
    cr_assert_eq(sa__within_empty(w, x), empty, "%s %d: x & d empty: %d", what, k, empty);
    cr_assert_eq(sa__within_implies(w, x), implied, "%s %d: d => x: %d", what, k, implied);
    sa__release(c, mark);
}

/* Whether x is reachable from f without passing through node p. */
static bool reaches_avoiding(BDD f, BDD x, BDD p)
{
    if (f == x)
        return true;
    if (f < 2 || f == p)
        return false;
    return reaches_avoiding(bdd_low(f), x, p) || reaches_avoiding(bdd_high(f), x, p);
}

/* sa__within_dominator(w, x) for every node x of d: a node of d at a
 * level <= x's that every path from d's root to x meets (x itself, or one
 * without which x cannot be reached), checked by walking d; on a chain of
 * clauses, below d's root for the nodes past the first group (the factoring
 * of sa__edge_modes needs them deep). */
static void check_dominators(BDD d, BDD f, const sa__within *w, int *below_root)
{
    if (f < 2)
        return;
    BDD p = sa__within_dominator(w, f);
    cr_assert(p == f || reaches_avoiding(d, p, -1), "dominator %d of %d is not d's", p, f);
    cr_assert_leq(bdd_var2level(bdd_var(p)), bdd_var2level(bdd_var(f)));
    if (p != f)
        cr_assert(!reaches_avoiding(d, f, p), "node %d reached around its dominator %d", f, p);
    *below_root += p != d;
    check_dominators(d, bdd_low(f), w, below_root);
    check_dominators(d, bdd_high(f), w, below_root);
}

/* Random d: simplify, emptiness, implication and the dominators. */
Test(sa_within, random_functions_and_care_sets)
{
    ENTER(c);
    unsigned seed = 40;
    for (int k = 0; k < 400; k++) {
        size_t mark = sa__mark(c);
        sa__amark temps = sa__alloc_mark(c);
        BDD d = random_fun(c, &seed, 0, NV, 1 + k % 6);
        sa__within w;
        sa__within_init(c, d, &w);
        for (int j = 0; j < 8; j++) {
            int lo = rand_r(&seed) % NV, hi = lo + 1 + rand_r(&seed) % (NV - lo);
            check(c, &w, random_fun(c, &seed, lo, hi, 1 + j % 4), "random", k);
        }
        check(c, &w, bddtrue, "true", k);
        check(c, &w, bddfalse, "false", k);
        check(c, &w, d, "d itself", k);
        int below = 0;
        check_dominators(d, d, &w, &below);
        sa__alloc_release(c, temps);
        sa__release(c, mark);
    }
    leave(c);
}

/* d = AND over groups g of (v_3g | !v_3g+1) & (v_3g+2 | v_3g): a chain
 * through every group; x a function of one group (and its neighbour). */
Test(sa_within, chains_of_clauses)
{
    ENTER(c);
    unsigned seed = 41;
    BDD d = bddtrue;
    for (int g = NV / 3 - 1; g >= 0; g--) {
        BDD clause = sa__tmp(c, bdd_or(bdd_ithvar(3 * g), bdd_nithvar(3 * g + 1)));
        clause = sa__tmp(c, bdd_and(clause, sa__tmp(c, bdd_or(bdd_ithvar(3 * g + 2),
                                                               bdd_ithvar(3 * g)))));
        d = sa__tmp(c, bdd_and(d, clause));
    }
    sa__within w;
    sa__within_init(c, d, &w);
    cr_assert_not_null(w.start);
    /* below the first group the walk starts inside the chain */
    cr_assert_neq(w.start[bdd_var2level(3 * (NV / 3 - 1))], d);
    for (int k = 0; k < 2000; k++) {
        int g = rand_r(&seed) % (NV / 3);
        int hi = 3 * g + 3 + (g + 1 < NV / 3 && k % 2 ? 3 : 0);
        check(c, &w, random_fun(c, &seed, 3 * g, hi, 1 + k % 5), "chain", k);
    }
    leave(c);
}

Test(sa_within, dominators_of_a_chain)
{
    ENTER(c);
    BDD d = bddtrue;
    for (int g = NV / 3 - 1; g >= 0; g--)
        d = sa__tmp(c, bdd_and(d, sa__tmp(c, bdd_or(bdd_ithvar(3 * g), bdd_nithvar(3 * g + 1)))));
    sa__within w;
    sa__within_init(c, d, &w);
    int below = 0;
    check_dominators(d, d, &w, &below);
    cr_assert_gt(below, 0, "every dominator was the root");
    leave(c);
}
