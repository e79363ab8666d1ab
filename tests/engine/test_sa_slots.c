/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_slots.c -- engine/sa_enc.c's slot stack (h-inc14):
 * sa__release clears what it releases (a block of constants without a test
 * per slot, the nodes dereferenced), sa__slots clears only slots never
 * handed out, and the chunks of a context are pooled for the next one.
 * Against the slow path's promise: every slot handed out is bddfalse, and
 * the references are those sa__put took (the nodes the slots held are
 * freed by a collection once released: the node count returns to its
 * value before; one reference too few would free a node still held).
 */
#include <criterion/criterion.h>
#include <setjmp.h>
#include <stdlib.h>

#include "sa_int.h"
#include "sa_enter.h"

#include <bdd.h>

#define NV 12

TestSuite(sa_slots, .timeout = 60);


static unsigned next(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* A value for a slot: mostly constants, some nodes, made here and held
 * by the slot alone (a conjunction of three literals). */
static BDD some_value(unsigned *s)
{
    unsigned k = next(s) % 16;
    if (k < 10)
        return k < 7 ? bddfalse : bddtrue;
    int a = (int)(next(s) % NV), b = (int)(next(s) % NV), d = (int)(next(s) % NV);
    return bdd_and(bdd_and(bdd_ithvar(a), bdd_nithvar(b)), next(s) % 2 ? bdd_ithvar(d) : bddtrue);
}

static void fill(BDD *p, size_t n, unsigned *s)
{
    for (size_t k = 0; k < n; k++)
        sa__put(&p[k], some_value(s));
}

static void all_false(const BDD *p, size_t n, const char *what)
{
    for (size_t k = 0; k < n; k++)
        cr_assert_eq(p[k], bddfalse, "%s: slot %zu of %zu is %d", what, k, n, p[k]);
}

/* Nodes in use once unreferenced ones are collected. */
static int live_nodes(void)
{
    bdd_gbc();
    return bdd_getnodenum();
}

/* A context's first n slots are bddfalse. */
static void one_context(size_t n)
{
    ENTER(c);
    all_false(sa__slots(c, n), n, "a new context's");
    leave(c);
}

static const size_t sizes[] = {1, 3, 4, 5, 31, 32, 33, 64, 100, 1000, 70000, 7, 65536, 200000};
#define N_SIZES (sizeof sizes / sizeof *sizes)

/* Context ctx: four rounds of slots taken, filled and released. */
static void one_session(int ctx, unsigned *sp, int before)
{
    unsigned seed = *sp;
    ENTER(c);
    for (int round = 0; round < 4; round++) {
        size_t mark = sa__mark(c);
        BDD *got[N_SIZES];
        for (size_t i = 0; i < N_SIZES; i++) {
            got[i] = sa__slots(c, sizes[i]);
            all_false(got[i], sizes[i], "taken");
            fill(got[i], sizes[i], &seed);
        }
        /* a partial release, from the middle of the last chunk */
        size_t inner = sa__mark(c) - sizes[N_SIZES - 1] / 2;
        sa__release(c, inner);
        BDD *again = sa__slots(c, sizes[N_SIZES - 1] / 2);
        all_false(again, sizes[N_SIZES - 1] / 2, "taken again");
        fill(again, sizes[N_SIZES - 1] / 2, &seed);
        cr_assert_gt(live_nodes(), before, "the slots hold nodes");
        sa__release(c, mark);
        cr_assert_eq(live_nodes(), before, "context %d round %d: released", ctx, round);
    }
    BDD *held = sa__slots(c, 40);
    fill(held, 40, &seed);
    leave(c); /* releases the rest */
    cr_assert_eq(live_nodes(), before, "context %d left", ctx);
    *sp = seed;
}

Test(sa_slots, released_slots_come_back_false_and_unreferenced)
{
    sa_config cfg;
    sa_config_default(&cfg);
    cr_assert_eq(sa_begin(&cfg), MDAE_OK);
    cr_assert_geq(bdd_setvarnum(NV), 0);
    int before = live_nodes();
    unsigned seed = 7;
    for (int ctx = 0; ctx < 3; ctx++) /* the later contexts: pooled chunks */
        one_session(ctx, &seed, before);
    sa_end();
    /* and again after sa_end (which frees the pool) */
    cr_assert_eq(sa_begin(&cfg), MDAE_OK);
    cr_assert_geq(bdd_setvarnum(NV), 0);
    one_context(70000);
    sa_end();
}

/* ---- sa__take_memo against sa__put ---------------------------------------- */

static bddinthandler sa_handler;
static int breaks; /* a reference dropped from a node that had none */

static void count_breaks(int e)
{
    breaks += e == BDD_BREAK;
    sa_handler(e);
}

/* sa_begin with NV variables and BuDDy's errors counted by count_breaks
 * (the library's handler kept, called after); end_counting_breaks puts it
 * back and ends. */
static void begin_counting_breaks(void)
{
    sa_config cfg;
    sa_config_default(&cfg);
    cr_assert_eq(sa_begin(&cfg), MDAE_OK);
    cr_assert_geq(bdd_setvarnum(NV), 0);
    sa_handler = bdd_error_hook(count_breaks);
}

static void end_counting_breaks(void)
{
    bdd_error_hook(sa_handler);
    sa_end();
}

static void drop_all(BDD *a, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (a[k] >= 2)
            bdd_delref(a[k]);
}

/* ne edges over nv variables, the memo of nm functions (held by the memo),
 * some columns to do, some tight slots not bddfalse (the blocks done edge
 * by edge), from a map or not: the fast path's slots and references are
 * sa__put's (the same values; dropping the memo's and the slow path's
 * references leaves the fast path's nodes alive, and dropping these then
 * finds each one referenced). */
static void take_memo_case(size_t ne, uint32_t nv, bool mapped, bool dirty, unsigned seed)
{
    size_t nm = ne + 7;
    uint32_t *edge_v = malloc(ne * sizeof *edge_v);
    long *from = malloc(ne * sizeof *from);
    bool *todo = calloc(nv, 1);
    BDD *memo = malloc(nm * sizeof *memo), *fast = calloc(ne + 1, sizeof *fast),
        *slow = calloc(ne + 1, sizeof *slow);
    cr_assert(edge_v && from && todo && memo && fast && slow);
    for (size_t e = 0; e < ne; e++) {
        edge_v[e] = next(&seed) % nv;
        from[e] = (long)(next(&seed) % nm);
    }
    for (uint32_t j = 0; j < nv; j++)
        todo[j] = next(&seed) % 5 == 0;
    for (size_t k = 0; k < nm; k++)
        memo[k] = bdd_addref(some_value(&seed));
    if (dirty) /* an earlier value in some slots: sa__put drops it */
        for (size_t e = 0; e < ne; e += 45) {
            BDD f = some_value(&seed);
            sa__put(&fast[e], f);
            sa__put(&slow[e], f);
        }
    sa_result r = {0};
    r.n_edges = ne;
    r.edge_v = edge_v;
    sa__take_memo(&r, todo, memo, mapped ? from : NULL, fast);
    for (size_t e = 0; e < ne; e++)
        if (!todo[edge_v[e]])
            sa__put(&slow[e], memo[mapped ? (size_t)from[e] : e]);
    for (size_t e = 0; e < ne; e++)
        cr_assert_eq(fast[e], slow[e], "edge %zu of %zu: %d, sa__put %d", e, ne, fast[e], slow[e]);
    breaks = 0;
    int live = live_nodes();
    drop_all(memo, nm);
    drop_all(slow, ne);
    cr_assert_eq(breaks, 0);
    bdd_gbc();
    for (size_t e = 0; e < ne; e++) /* still alive: a node of fast's */
        if (fast[e] >= 2)
            cr_assert_geq(bdd_nodecount(fast[e]), 1);
    drop_all(fast, ne);
    cr_assert_eq(breaks, 0, "%d references dropped from nodes that had none (%zu edges)", breaks,
                 ne);
    cr_assert_leq(live_nodes(), live);
    free(edge_v);
    free(from);
    free(todo);
    free(memo);
    free(fast);
    free(slow);
}

Test(sa_slots, take_memo_is_sa_put)
{
    begin_counting_breaks();
    static const size_t ns[] = {0, 1, 31, 32, 33, 100, 1000, 4099};
    unsigned seed = 11;
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (int v = 0; v < 4; v++)
            take_memo_case(ns[i], 1 + (uint32_t)(ns[i] / 3), v & 1, v & 2, seed++);
    end_counting_breaks();
}

/* sa__take_memo_cols (from NULL, by columns) against sa__put, fresh slots
 * or not, as take_memo_case. */
static void take_cols_case(size_t ne, uint32_t nv, bool dirty, unsigned seed)
{
    uint32_t *edge_v = malloc((ne + 1) * sizeof *edge_v);
    size_t *first = calloc(nv + 2, sizeof *first), *edges = malloc((ne + 1) * sizeof *edges);
    bool *todo = calloc(nv + 1, 1);
    BDD *memo = malloc((ne + 1) * sizeof *memo), *fast = calloc(ne + 1, sizeof *fast),
        *slow = calloc(ne + 1, sizeof *slow);
    cr_assert(edge_v && first && edges && todo && memo && fast && slow);
    for (size_t e = 0; e < ne; e++) {
        edge_v[e] = next(&seed) % nv;
        first[edge_v[e] + 1]++;
    }
    for (uint32_t j = 0; j < nv; j++)
        first[j + 1] += first[j];
    size_t *fill = calloc(nv + 1, sizeof *fill);
    cr_assert_not_null(fill);
    for (size_t e = 0; e < ne; e++)
        edges[first[edge_v[e]] + fill[edge_v[e]]++] = e;
    for (uint32_t j = 0; j < nv; j++)
        todo[j] = next(&seed) % 5 == 0;
    for (size_t k = 0; k < ne; k++)
        memo[k] = bdd_addref(some_value(&seed));
    if (dirty)
        for (size_t e = 0; e < ne; e += 45) {
            BDD f = some_value(&seed);
            sa__put(&fast[e], f);
            sa__put(&slow[e], f);
        }
    sa_result r = {0};
    r.n_edges = ne;
    r.n_var = nv;
    r.edge_v = edge_v;
    sa__take_memo_cols(&r, todo, memo, fast, first, edges);
    for (size_t e = 0; e < ne; e++)
        if (!todo[edge_v[e]])
            sa__put(&slow[e], memo[e]);
    for (size_t e = 0; e < ne; e++)
        cr_assert_eq(fast[e], slow[e], "edge %zu of %zu: %d, sa__put %d", e, ne, fast[e], slow[e]);
    breaks = 0;
    drop_all(memo, ne);
    drop_all(slow, ne);
    bdd_gbc();
    drop_all(fast, ne);
    cr_assert_eq(breaks, 0, "%d references dropped from nodes that had none (%zu edges)", breaks,
                 ne);
    free(fill);
    free(edge_v);
    free(first);
    free(edges);
    free(todo);
    free(memo);
    free(fast);
    free(slow);
}

Test(sa_slots, take_memo_by_columns_is_sa_put)
{
    begin_counting_breaks();
    static const size_t ns[] = {0, 1, 31, 32, 33, 100, 1000, 4099};
    unsigned seed = 23;
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (int v = 0; v < 2; v++)
            take_cols_case(ns[i], 1 + (uint32_t)(ns[i] / 3), v & 1, seed++);
    end_counting_breaks();
}

/* ---- sa__bits_in_use (h-inc15): one pass of ORs, against a test per bit
 * and vector from the highest bit down (the loop it replaced). */

static int bits_in_use_slow(const BDD *v, size_t n, int w, int top)
{
    int used = 0;
    for (size_t k = 0; k < n; k++) {
        const BDD *row = &v[k * (size_t)w];
        for (int b = top - 1; b >= used; b--)
            if (row[b] != bddfalse) {
                used = b + 1;
                break;
            }
    }
    return used;
}

/* Vectors of every width up to 31 bits, every top, nodes (any value >= 2)
 * and bddtrue sprinkled at random in a few bits (some above top, which
 * must not count), all false too. */
Test(sa_slots, bits_in_use_is_the_test_per_bit)
{
    unsigned seed = 15;
    for (int w = 1; w <= SA_MAX_OFFSET_BITS; w++)
        for (int top = 0; top <= w; top++)
            for (size_t n = 0; n < 40; n += 1 + n / 3)
                for (int density = 0; density < 4; density++) {
                    BDD *v = calloc(n * (size_t)w + 1, sizeof *v);
                    cr_assert_not_null(v);
                    for (size_t k = 0; k < n * (size_t)w && density > 0; k++) {
                        seed = seed * 1103515245u + 12345u;
                        unsigned x = (seed >> 16) % 64;
                        if (x < (unsigned)density)
                            v[k] = x == 0 ? bddtrue : (BDD)(2 + x);
                    }
                    cr_assert_eq(sa__bits_in_use(v, n, w, top), bits_in_use_slow(v, n, w, top),
                                 "w %d top %d n %zu density %d", w, top, n, density);
                    free(v);
                }
}

/* ---- sa__free_bdds against a bdd_delref per slot (wk15) ------------------- */

/* n slots, mostly constants, each node referenced once by the array a
 * (allocated as sa__free_bdds frees it) and once by a copy: sa__free_bdds
 * drops a's references, one per node slot (the copy's then keep every
 * node alive; dropping them finds each one referenced, and leaves the
 * nodes there were before: one reference too many or too few fails). */
static void free_bdds_case(size_t n, unsigned seed, int before)
{
    BDD *a = mdae_malloc((n + 1) * sizeof *a), *copy = malloc((n + 1) * sizeof *copy);
    cr_assert(a && copy);
    for (size_t k = 0; k < n; k++) {
        a[k] = bdd_addref(some_value(&seed));
        copy[k] = bdd_addref(a[k]);
    }
    if (n > 40) /* a block of constants, then one node at its end */
        for (size_t k = 16; k < 32; k++) {
            bdd_delref(a[k]);
            bdd_delref(copy[k]);
            a[k] = copy[k] =
                k == 31 ? bdd_addref(bdd_addref(bdd_and(bdd_ithvar(0), bdd_ithvar(1)))) : (BDD)(k % 2);
        }
    breaks = 0;
    sa__free_bdds(a, n);
    cr_assert_eq(breaks, 0, "%zu slots: a reference dropped from a node that had none", n);
    bdd_gbc();
    for (size_t k = 0; k < n; k++) /* still alive: held by the copy */
        if (copy[k] >= 2)
            cr_assert_geq(bdd_nodecount(copy[k]), 1);
    drop_all(copy, n);
    cr_assert_eq(breaks, 0, "%zu slots: %d references dropped twice", n, breaks);
    cr_assert_eq(live_nodes(), before, "%zu slots: a reference left", n);
    free(copy);
}

Test(sa_slots, free_bdds_drops_one_reference_per_node_slot)
{
    begin_counting_breaks();
    int before = live_nodes();
    static const size_t ns[] = {0, 1, 15, 16, 17, 31, 32, 33, 47, 100, 1000, 70001};
    unsigned seed = 23;
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        free_bdds_case(ns[i], seed++, before);
    sa__free_bdds(NULL, 5);
    end_counting_breaks();
}

/* ---- sa__swap_bdds (h-enc19): seeded_rounds' te into r->te --------------- */

/* A kept array `kept` (some entries already held) and n slots of a context
 * filled, then the slots' values put into the kept array and the slots
 * released: by sa__put per entry (slow) or by sa__swap_bdds (fast), from
 * the same seed. The same values and the same nodes alive after; dropping
 * the kept array's references then finds each one referenced and leaves
 * the nodes there were before (one reference too many or too few fails). */
static BDD *swap_case(size_t n, unsigned seed, bool fast)
{
    BDD *kept = calloc(n + 1, sizeof *kept);
    cr_assert_not_null(kept);
    for (size_t k = 0; k < n; k += 3) /* old values: the release drops them */
        sa__put(&kept[k], some_value(&seed));
    ENTER(c);
    size_t mark = sa__mark(c);
    BDD *slots = sa__slots(c, n + 1);
    fill(slots, n, &seed);
    if (n > 3)
        sa__put(&kept[1], slots[1]); /* the same node on both sides */
    if (fast) {
        sa__swap_bdds(kept, slots, n);
    } else {
        for (size_t k = 0; k < n; k++)
            sa__put(&kept[k], slots[k]);
    }
    sa__release(c, mark);
    leave(c);
    return kept;
}

Test(sa_slots, swap_bdds_is_sa_put_then_release)
{
    begin_counting_breaks();
    int before = live_nodes();
    static const size_t ns[] = {0, 1, 4, 31, 32, 33, 100, 1000, 70001};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        breaks = 0;
        BDD *slow = swap_case(ns[i], 41u + (unsigned)i, false);
        int live_slow = live_nodes();
        BDD *fast = swap_case(ns[i], 41u + (unsigned)i, true);
        cr_assert_eq(breaks, 0, "%zu: a reference dropped from a node that had none", ns[i]);
        for (size_t k = 0; k < ns[i]; k++)
            cr_assert_eq(fast[k], slow[k], "%zu: entry %zu %d, sa__put %d", ns[i], k, fast[k],
                         slow[k]);
        cr_assert_eq(live_nodes(), live_slow, "%zu: the nodes alive differ", ns[i]);
        drop_all(slow, ns[i]);
        bdd_gbc();
        for (size_t k = 0; k < ns[i]; k++) /* still alive: held by fast */
            if (fast[k] >= 2)
                cr_assert_geq(bdd_nodecount(fast[k]), 1);
        drop_all(fast, ns[i]);
        cr_assert_eq(breaks, 0, "%zu: %d references dropped twice", ns[i], breaks);
        cr_assert_eq(live_nodes(), before, "%zu: a reference left", ns[i]);
        free(slow);
        free(fast);
    }
    end_counting_breaks();
}

/* ---- sa__next_flag (h-enc19) against a test per flag ---------------------- */

static uint32_t next_flag_slow(const bool *flags, uint32_t from, uint32_t n)
{
    for (uint32_t j = from; j < n; j++)
        if (flags[j])
            return j;
    return n;
}

Test(sa_slots, next_flag_is_the_test_per_flag)
{
    unsigned seed = 5;
    bool *buf = malloc(300);
    cr_assert_not_null(buf);
    for (uint32_t n = 0; n < 140; n++)
        for (int density = 0; density < 4; density++)
            for (uint32_t shift = 0; shift < 3; shift++) { /* unaligned arrays too */
                bool *flags = buf + shift;
                for (uint32_t j = 0; j < n; j++)
                    flags[j] = density == 0 ? false : next(&seed) % (density == 3 ? 2 : 40) == 0;
                flags[n] = true; /* past the end: never reported */
                for (uint32_t from = 0; from <= n; from++)
                    cr_assert_eq(sa__next_flag(flags, from, n), next_flag_slow(flags, from, n),
                                 "n %u, from %u, density %d, shift %u", n, from, density, shift);
                /* the walk over every set flag */
                uint32_t count = 0, slow = 0;
                for (uint32_t j = sa__next_flag(flags, 0, n); j < n; j = sa__next_flag(flags, j + 1, n))
                    count++;
                for (uint32_t j = 0; j < n; j++)
                    slow += flags[j];
                cr_assert_eq(count, slow);
            }
    free(buf);
}
