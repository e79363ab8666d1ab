/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_enc.c -- the BuDDy boundary: start/stop, the error and garbage
 * collection hooks, the node limit, the slot stack and temporary memory of an
 * analysis context. Why errors longjmp and how references are kept: see the
 * design notes in sa_int.h.
 */
#include "sa_int.h"

#include <stdlib.h>
#include <string.h>

/* The node table a manager starts with when nothing says more: 4,096
 * nodes, enough for a model whose components are enumerated; the table
 * doubles as needed (up to 4M nodes a step). Before issue 10 it was
 * 1,000,000 nodes, allocated and cleared by every process: 0.28 s and 58 MB
 * for a one-equation model. Memory first touched is what costs on the
 * reference machine (a virtual machine: about 70 us per page fault):
 * bdd_init takes 0.7 ms for 4,096 nodes, 22 ms for 65,536 and 0.23 s for
 * 1,000,000 (measured 2026-11-23). */
#define SA_INITIAL_NODES 4096

/* BuDDy 2.4's reference stack, which a garbage collection marks from. Its
 * operators push results with PUSHREF(rec(...)), i.e.
 * `*(bddrefstacktop++) = rec(...)`: C leaves the order of the increment and
 * the call unspecified, and GCC reserves the slot first, so while rec runs
 * the slot holds whatever the memory held before. A collection inside rec
 * (the node table is full) marks that garbage: a crash in bdd_mark, or a
 * dead node kept alive. Seen on the building at N = 10 from a table of
 * 4,096 nodes (before issue 10 too, with any table that fills in the
 * middle of an operation), found with gdb on BuDDy's sources. The stack is
 * allocated, uninitialised, by bdd_setvarnum (2 * varnum + 4 entries); once
 * zeroed, an unwritten slot holds 0 (a constant, never marked) or a node
 * index an earlier operation left there (a node of the table, which it
 * never shrinks: marking it at worst keeps a dead node one collection
 * longer). So: zero it after every bdd_setvarnum. */
extern int *bddrefstack;
extern int bddvarnum;

static void clear_refstack(void)
{
    if (bddrefstack != NULL)
        memset(bddrefstack, 0, ((size_t)bddvarnum * 2 + 4) * sizeof *bddrefstack);
}

/* BuDDy is process-global, so is this. */
static bool running;
static sa_ctx *armed;      /* the entry point the hooks jump to, or NULL */
static int last_bdd_error; /* reported while nothing was armed */
/* BuDDy ran out of memory growing a table (BDD_MEMORY): it drops the old
 * table with the failed realloc, so bdd_done would walk freed memory
 * (a segfault at exit under an address-space cap) and no new manager can
 * start in this process. */
static bool bdd_broken;
static size_t node_limit;
static size_t peak_nodes;
static size_t base_nodes; /* nodes in use when the analysis started */
static long base_produced; /* BuDDy's count of nodes produced, then */
static int order_kind;
static bool reorder;
static bool reordered; /* the level order is no longer the identity */
/* Bumped whenever a node may stop meaning what it meant: a new manager, a
 * sifting (sa__layout_epoch). */
static unsigned long layout_epoch;
/* Bumped whenever a node handle may stop denoting the node it denoted: a
 * garbage collection (the only time BuDDy frees nodes), a change of the
 * level order, a new manager (sa__node_epoch). */
static unsigned long node_epoch;

/* b[0 .. n) are in use; b[n .. clean) are bddfalse (sa__release clears
 * what it releases); b[clean .. cap) were never handed out (malloc's). */
struct sa__chunk {
    sa__chunk *prev;
    size_t base; /* slots below this chunk */
    size_t n, cap;
    size_t clean;
    BDD b[];
};

/* Temporary memory (sa__alloc): chunks carved from the top, a larger
 * request in a block of its own. */
struct sa__block {
    sa__block *next;
    size_t cap, used; /* bytes of data */
    max_align_t data[];
};

#define ALLOC_CHUNK 16384

/* Slot chunks kept between analyses (a context's, at sa__leave): each
 * cleared below its `clean`, so the next analysis's arrays of slots need
 * no memset (the brake's editor stage cleared four fresh chunks of 256 KB
 * per analysis: 2 % of its instructions). At most POOL_MAX chunks and
 * POOL_BYTES bytes; freed by sa_end. Single-threaded, as BuDDy. */
#define POOL_MAX 8
#define POOL_BYTES ((size_t)16 << 20)
static sa__chunk *pool[POOL_MAX];
static size_t pool_n, pool_bytes;

void sa_config_default(sa_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->node_limit = 50000000;
}

static int bdd_rc(int e)
{
    /* Table exhaustion at the node cap is the configured limit; the
     * memory for a larger table running out is out of memory (a worker at
     * its memory cap then exits as such); anything else is our misuse of
     * BuDDy. */
    if (e == BDD_MEMORY)
        return MDAE_E_NOMEM;
    return e == BDD_NODENUM ? MDAE_E_BDD_LIMIT : MDAE_E_BDD;
}

static void on_bdd_error(int e)
{
    if (e == BDD_MEMORY)
        bdd_broken = true;
    if (armed != NULL)
        sa__fail(armed, bdd_rc(e));
    last_bdd_error = e; /* BuDDy goes on with bddfalse: nothing armed. */
}

static long produced_now(void)
{
    bddStat s;
    bdd_stats(&s);
    return s.produced;
}

/* Fail if the context's budget is spent: more nodes produced since the
 * analysis started (the work of the implicit path, whether the nodes are
 * still live or not) than c->budget. A count, not a clock: the method
 * chosen, and so the result's reported method, does not depend on the
 * machine's load. */
static void check_budget(sa_ctx *c)
{
    if (c->budget > 0 && produced_now() - base_produced > (long)c->budget) {
        c->budget_hit = true;
        sa__fail(c, MDAE_E_BDD_LIMIT);
    }
}

/* Fail if `live` nodes exceed the node limit, or the budget is spent. */
static void check_live(sa_ctx *c, size_t live)
{
    if (live > c->node_limit)
        sa__fail(c, MDAE_E_BDD_LIMIT);
    check_budget(c);
}

/* The caller's progress callback with the last checkpoint's phase, done
 * and total; a non-zero answer cancels. Called at each checkpoint
 * (sa__progress) and after each collection, so that a cancel asked during
 * one long BDD operation is seen too (the later instants of mode changes
 * once ran minutes inside a single conjunction; sa.h). */
static void poll_progress(sa_ctx *c)
{
    const sa_options *o = c->opt;
    if (o != NULL && o->progress != NULL &&
        o->progress(o->progress_ctx, c->phase != NULL ? c->phase : "encode", c->done,
                    c->total) != 0)
        sa__fail(c, MDAE_E_CANCELED);
}

static void on_gbc(int pre, bddGbcStat *s)
{
    /* Replaces BuDDy's default handler, which prints: stdout carries JSON. */
    size_t live = (size_t)(s->nodes - s->freenodes);
    node_epoch++; /* before and after: nodes are freed in between */
    if (pre) {
        if (live > base_nodes && live - base_nodes > peak_nodes)
            peak_nodes = live - base_nodes;
        return;
    }
    if (live < base_nodes)
        base_nodes = live; /* the garbage we started with is gone */
    /* The collection is complete here, so jumping out is as safe as from the
     * error hook (sa_int.h). */
    if (armed != NULL) {
        check_live(armed, live);
        poll_progress(armed);
    }
}

size_t sa_bdd_table_bytes(void)
{
    /* a node is 20 bytes (kernel.h's BddNode); the operation caches, at a
     * quarter of the nodes each, about 24 bytes a node more */
    return bdd_isrunning() ? (size_t)bdd_getallocnum() * 44u : 0;
}

static int apply_limit(void)
{
    /* BuDDy refuses a cap below its current table; then the garbage
     * collection hook and sa__sample enforce the limit on live nodes. */
    int size = bdd_getallocnum();
    size_t cap = node_limit > (size_t)size ? node_limit : (size_t)size;
    if (cap > (size_t)INT32_MAX)
        cap = INT32_MAX;
    bdd_setmaxnodenum((int)cap);
    return MDAE_OK;
}

/* A model too large for the cap of 2^18 below starts at 4 nodes per incidence (at most
 * 2^22): the brake at N = 10,000 (340,000 incidences) peaks at 1.7 million
 * live nodes, and growing to them from 2^18 cost four collections and
 * rehashes of the whole table and 50 MB of the freed tables (issue 40:
 * 2.30 -> 2.19 CPU s, 502 -> 453 MB). Below about 65,000 incidences
 * nothing changes.
 *
 * Not done, measured (issue 40, h-gc22, 2026-12-05): the compressible
 * building at N = 1,000 (52,007 incidences) starts from 2^18 and collects
 * 16 times (10 in 262,147 nodes, 6 in 524,287, all in the primal's
 * matchings, whose kept BDD grows linearly: 462,084 live after the last),
 * then grows to 1,048,573; at N = 300, 4 times. Starting it at 16 nodes
 * per incidence (832,121 nodes; for models with invariants) made 4
 * collections, -3.0 % instructions (bdd_gbc 385 -> 167 M) and 133 MB
 * instead of 145 MB, but +8 % CPU time (1.42 -> 1.54 s, medians of 8
 * alternated pairs; bdd_makenode 23 -> 30 % of the samples): the random
 * lookups in a table three times larger miss the caches and TLB more than
 * the collections cost. 12 per incidence, or a larger free share before
 * BuDDy grows (bdd_setminfreenodes 30-50 %, fewer collections in a table
 * grown earlier), measured no faster either. */
#define PEAK_PER_EDGE 4
#define MAX_SIZED ((size_t)1 << 22)

void sa_config_size_for(sa_config *cfg, const mel_model *m)
{
    /* Enumerated components need almost no nodes; the implicit path's
     * peak grows with the incidences of chains with many modes: about 70
     * per incidence on the brake, 1,800 on the compressible building
     * (bench_cdg's peak_nodes). A table that starts small costs a
     * collection per doubling, one that starts large the memory it
     * clears. Measured with callgrind (2026-11-23, Release): building
     * N = 20 runs 1.65 G instructions from 65,536 nodes and 1.74 G from
     * 1,000,000; brake N = 100, 0.94 G and 0.93 G; but the large table
     * costs its page faults (brake: 58 MB resident instead of 28 MB). So:
     * the small table when no component can have more than 2^16
     * assignments, else 64 nodes per incidence, within [2^16, 2^18]. The
     * cap was 2^21 until the MSL showed what it cost: models with many
     * atoms but small blocks (HeatExchangerSimulation, 15,733 incidences,
     * peak 55,000 nodes) cleared a table of a million nodes, half of
     * their time in page faults; the papers' chains stay under the cap
     * (brake N = 100: 218,000; building N = 50: 167,000). */
    if (m == NULL || m->n_modes <= 16)
        return;
    size_t nodes = m->n_edges * 64;
    if (nodes < 65536)
        nodes = 65536;
    if (nodes > (size_t)1 << 18)
        nodes = (size_t)1 << 18;
    if (nodes < m->n_edges * PEAK_PER_EDGE)
        nodes = m->n_edges * PEAK_PER_EDGE < MAX_SIZED ? m->n_edges * PEAK_PER_EDGE : MAX_SIZED;
    if (cfg->initial_nodes < nodes)
        cfg->initial_nodes = nodes;
}

int sa_begin(const sa_config *cfg)
{
    sa_config def;
    if (running)
        return MDAE_E_STATE;
    if (bdd_broken)
        return MDAE_E_NOMEM;
    if (cfg == NULL) {
        sa_config_default(&def);
        cfg = &def;
    }
    node_limit = cfg->node_limit ? cfg->node_limit : 50000000;
    order_kind = cfg->order;
    size_t nodes = cfg->initial_nodes ? cfg->initial_nodes : SA_INITIAL_NODES;
    if (nodes > node_limit)
        nodes = node_limit;
    if (nodes < 1000)
        nodes = 1000;
    size_t cache = cfg->cache_size ? cfg->cache_size : nodes / 4;
    if (cache < 1000)
        cache = 1000;
    bdd_error_hook(on_bdd_error);
    if (bdd_init((int)nodes, (int)cache) < 0)
        return MDAE_E_BDD;
    /* bdd_init installs the default (exiting, printing) handlers. */
    bdd_error_hook(on_bdd_error);
    bdd_gbc_hook(on_gbc);
    bdd_resize_hook(NULL);
    bdd_reorder_verbose(0);
    /* Grow the table by up to 4M nodes at a time instead of BuDDy's 50,000:
     * fewer collections. Measured 2026-11-21: building N = 20, 8.9 s with
     * BuDDy's default, 4.3 s with this (brake N = 100: 0.7 s / 1.0 s). */
    bdd_setmaxincrease(4000000);
    if (cfg->cache_size == 0)
        bdd_setcacheratio(4);
    bdd_setvarnum(2);
    clear_refstack();
    running = true;
    peak_nodes = 0;
    apply_limit();
    /* Never automatic: the memo tables of sa_primal.c key on node handles
     * and levels, which sifting would change under them. sa__reorder() sifts
     * at one safe point instead (sa_config.dynamic_reorder). */
    bdd_autoreorder(BDD_REORDER_NONE);
    reorder = cfg->dynamic_reorder;
    layout_epoch++;
    node_epoch++;
    return MDAE_OK;
}

void sa_end(void)
{
    if (!running)
        return;
    if (!bdd_broken)
        bdd_done();
    running = false;
    armed = NULL;
    while (pool_n > 0)
        mdae_free(pool[--pool_n]);
    pool_bytes = 0;
}

/* Chunk k (no slot in use, cleared below its clean) into the pool, or
 * freed. */
static void pool_put(sa__chunk *k)
{
    if (k == NULL)
        return;
    MDAE_ASSERT(k->n == 0);
    size_t bytes = k->cap * sizeof(BDD);
    if (pool_n == POOL_MAX) { /* the smallest goes, if smaller than k */
        size_t least = 0;
        for (size_t i = 1; i < pool_n; i++)
            least = pool[i]->cap < pool[least]->cap ? i : least;
        if (pool[least]->cap >= k->cap) {
            mdae_free(k);
            return;
        }
        pool_bytes -= pool[least]->cap * sizeof(BDD);
        mdae_free(pool[least]);
        pool[least] = pool[--pool_n];
    }
    if (bytes > POOL_BYTES - pool_bytes) {
        mdae_free(k);
        return;
    }
    pool[pool_n++] = k;
    pool_bytes += bytes;
}

/* A chunk of the pool with room for n slots (the smallest), or NULL. */
static sa__chunk *pool_take(size_t n)
{
    size_t best = pool_n;
    for (size_t i = 0; i < pool_n; i++)
        if (pool[i]->cap >= n && (best == pool_n || pool[i]->cap < pool[best]->cap))
            best = i;
    if (best == pool_n)
        return NULL;
    sa__chunk *k = pool[best];
    pool[best] = pool[--pool_n];
    pool_bytes -= k->cap * sizeof(BDD);
    return k;
}

void sa_forget_caches(void)
{
    MDAE_ASSERT(armed == NULL);
    if (running)
        bdd_gbc(); /* which resets the operation caches */
}

int sa_set_node_limit(size_t limit)
{
    if (!running)
        return MDAE_E_STATE;
    node_limit = limit ? limit : 50000000;
    return apply_limit();
}

bool sa__running(void) { return running; }
void sa__peak_reset(void)
{
    base_nodes = (size_t)bdd_getnodenum();
    base_produced = produced_now();
    peak_nodes = 0;
}
size_t sa__node_limit(void) { return node_limit; }
int sa__order(void) { return order_kind; }
bool sa__sifting(void) { return reorder; }
unsigned long sa__layout_epoch(void) { return layout_epoch; }
unsigned long sa__node_epoch(void) { return node_epoch; }

void sa__need_vars(sa_ctx *c, int n)
{
    if (bdd_varnum() < n) {
        if (bdd_setvarnum(n) < 0)
            sa__fail(c, MDAE_E_BDD);
        clear_refstack();
    }
    if (reordered) {
        /* sa_encode.c lays the variables out by index: restore levels. */
        int nv = bdd_varnum();
        int *ord = sa__alloc(c, (size_t)nv * sizeof *ord);
        for (int v = 0; v < nv; v++)
            ord[v] = v;
        bdd_clrvarblocks();
        bdd_setvarorder(ord);
        reordered = false;
        node_epoch++;
    }
}

void sa__reorder(sa_ctx *c)
{
    if (!reorder)
        return;
    /* One block per row (its edges keep their relative order inside);
     * mode variables move alone. */
    sa_result *r = c->r;
    bdd_clrvarblocks();
    for (uint32_t i = 0; i < r->n_eq; i++) {
        size_t a = r->eq_first[i], b = r->eq_first[i + 1];
        if (b - a < 2)
            continue;
        int lo = r->edge_var[a], hi = r->edge_var[a];
        for (size_t e = a; e < b; e++) {
            lo = r->edge_var[e] < lo ? r->edge_var[e] : lo;
            hi = r->edge_var[e] > hi ? r->edge_var[e] : hi;
        }
        bdd_intaddvarblock(lo, hi, BDD_REORDER_FIXED);
    }
    reordered = true;
    layout_epoch++;
    node_epoch++;
    bdd_reorder(BDD_REORDER_SIFT);
}

void sa__ctx_init(sa_ctx *c, const sa_options *opt, mdae_diags *diags)
{
    memset(c, 0, sizeof *c);
    c->opt = opt;
    c->diags = diags;
    c->node_limit = node_limit;
}

void sa__push_cleanup(sa_ctx *c, void (*fn)(void *arg), void *arg)
{
    MDAE_ASSERT(c->n_cleanups < SA_MAX_CLEANUPS);
    c->cleanups[c->n_cleanups].fn = fn;
    c->cleanups[c->n_cleanups].arg = arg;
    c->n_cleanups++;
}

void sa__pop_cleanup(sa_ctx *c)
{
    MDAE_ASSERT(c->n_cleanups > 0);
    c->n_cleanups--;
}

void sa__enter(sa_ctx *c)
{
    armed = c;
    last_bdd_error = 0;
}

/* Run the cleanups pushed after the first `keep`, last first. */
static void run_cleanups(sa_ctx *c, int keep)
{
    while (c->n_cleanups > keep) {
        c->n_cleanups--;
        c->cleanups[c->n_cleanups].fn(c->cleanups[c->n_cleanups].arg);
    }
}

void sa__leave(sa_ctx *c)
{
    if (armed == c)
        armed = NULL;
    run_cleanups(c, 0);
    sa__release(c, 0); /* every slot cleared: the chunks can be pooled */
    while (c->top != NULL) {
        sa__chunk *p = c->top->prev;
        pool_put(c->top);
        c->top = p;
    }
    pool_put(c->spare);
    c->spare = NULL;
    mdae_free(c->seen);
    c->seen = NULL;
    c->seen_bytes = 0;
    mdae_free(c->flags);
    c->flags = NULL;
    c->flags_n = 0;
    c->flags_lent = false;
    mdae_free(c->spare_block);
    c->spare_block = NULL;
    while (c->blocks != NULL) {
        sa__block *n = c->blocks->next;
        mdae_free(c->blocks);
        c->blocks = n;
    }
}

int sa__run_on(const sa_result *r, const sa_options *opt, size_t max_cubes,
               void (*fn)(sa_ctx *c, void *arg), void *arg)
{
    sa_ctx *c = mdae_malloc(sizeof *c);
    if (c == NULL)
        return MDAE_E_NOMEM;
    sa__ctx_init(c, opt, NULL);
    if (setjmp(c->jb)) {
        int rc = c->rc;
        sa__leave(c);
        mdae_free(c);
        return rc;
    }
    sa__enter(c);
    c->r = (sa_result *)r; /* read only: fn must not change it */
    c->care = r->chi_m;
    c->max_cubes = max_cubes;
    fn(c, arg);
    sa__leave(c);
    mdae_free(c);
    return MDAE_OK;
}

unsigned char *sa__seen(sa_ctx *c)
{
    size_t need = (size_t)bdd_getallocnum() / 8 + 1;
    if (need > c->seen_bytes) {
        mdae_free(c->seen);
        c->seen = mdae_calloc(need, 1);
        c->seen_bytes = c->seen != NULL ? need : 0;
        if (c->seen == NULL)
            sa__fail(c, MDAE_E_NOMEM);
    }
    return c->seen;
}

bool *sa__flags(sa_ctx *c, size_t n)
{
    if (n > c->flags_n) {
        size_t cap = c->flags_n > 0 ? c->flags_n : 64;
        while (cap < n)
            cap *= 2;
        mdae_free(c->flags);
        c->flags = mdae_calloc(cap, sizeof *c->flags);
        c->flags_n = c->flags != NULL ? cap : 0;
        c->flags_lent = false;
        if (c->flags == NULL)
            sa__fail(c, MDAE_E_NOMEM);
    } else if (c->flags_lent) { /* its last user jumped out */
        memset(c->flags, 0, c->flags_n * sizeof *c->flags);
    }
    c->flags_lent = true;
    return c->flags;
}

void sa__flags_done(sa_ctx *c)
{
    MDAE_ASSERT(c->flags_lent);
    c->flags_lent = false;
}

_Noreturn void sa__fail(sa_ctx *c, int rc)
{
    c->rc = rc;
    /* Disarm first: errors raised while cleaning up must not jump again. */
    if (armed == c)
        armed = NULL;
    longjmp(c->jb, 1);
}

long sa__produced(void) { return produced_now() - base_produced; }

void sa__raise_budget(sa_ctx *c, size_t more)
{
    size_t want = (size_t)(produced_now() - base_produced) + more;
    if (c->budget > 0 && c->budget < want)
        c->budget = want;
}

bool sa__try(sa_ctx *c, size_t budget, void (*fn)(sa_ctx *c, void *arg), void *arg)
{
    jmp_buf outer;
    memcpy(outer, c->jb, sizeof outer);
    size_t whole = c->budget;
    size_t mine = (size_t)(produced_now() - base_produced) + budget;
    bool binding = whole == 0 || mine < whole;
    size_t mark = sa__mark(c);
    const sa__amark temps = sa__alloc_mark(c);
    int n_cleanups = c->n_cleanups;
    if (binding)
        c->budget = mine;
    if (setjmp(c->jb)) {
        memcpy(c->jb, outer, sizeof outer);
        c->budget = whole;
        /* The cleanups fn pushed, now, while its caller's frame (where
         * their arguments may live: sa__tight_primal's tight_state) still
         * exists, also when the failure is not ours: the entry point ran
         * them after that frame was gone (a use after return, found by
         * UBSan on an allocation failure inside the tight rounds). */
        run_cleanups(c, n_cleanups);
        if (c->rc != MDAE_E_BDD_LIMIT || !c->budget_hit || !binding)
            longjmp(c->jb, 1); /* not ours: on to the entry point */
        c->budget_hit = false;
        sa__release(c, mark);
        sa__alloc_release(c, temps);
        sa__enter(c);
        return false;
    }
    fn(c, arg);
    memcpy(c->jb, outer, sizeof outer);
    c->budget = whole;
    return true;
}

void sa__sample(sa_ctx *c)
{
    size_t used = (size_t)bdd_getnodenum();
    check_budget(c);
    if (used > c->node_limit) {
        /* Counted with garbage: collect to see what is really live. */
        bdd_gbc();
        check_live(c, (size_t)bdd_getnodenum());
        used = (size_t)bdd_getnodenum();
    }
    if (used > base_nodes && used - base_nodes > peak_nodes)
        peak_nodes = used - base_nodes;
}

size_t sa__peak_final(void)
{
    /* Nodes this analysis took from the table (live, plus its garbage not
     * yet collected), sampled at every checkpoint and before each
     * collection. No collection at the start to measure exactly: on a table
     * grown to tens of millions of nodes it costs 0.3-0.7 s per analysis
     * (measured, tests/bench/README.md). */
    size_t used = (size_t)bdd_getnodenum();
    if (used > base_nodes && used - base_nodes > peak_nodes)
        peak_nodes = used - base_nodes;
    return peak_nodes;
}

/* ---- Slots ------------------------------------------------------------------ */

BDD *sa__slots(sa_ctx *c, size_t n)
{
    sa__chunk *t = c->top;
    if (t == NULL || t->cap - t->n < n) {
        if (n > SIZE_MAX / (4 * sizeof(BDD)))
            sa__fail(c, MDAE_E_NOMEM);
        size_t cap = 65536; /* a larger one by powers of 2: pooled, it fits again */
        while (cap < n)
            cap *= 2;
        sa__chunk *k = c->spare;
        if (k != NULL && k->cap >= n) {
            c->spare = NULL; /* reuse the chunk released last */
            cap = k->cap;
        } else if ((k = pool_take(n)) != NULL) {
            cap = k->cap; /* an earlier analysis's, cleared below k->clean */
        } else {
            k = mdae_malloc(sizeof *k + cap * sizeof(BDD));
            if (k == NULL)
                sa__fail(c, MDAE_E_NOMEM);
            k->clean = 0; /* a new chunk: nothing cleared yet */
        }
        k->prev = t;
        k->base = c->n_slots;
        k->n = 0;
        k->cap = cap;
        c->top = t = k;
    }
    BDD *p = t->b + t->n;
    /* (a slot written after its release would break this) */
    MDAE_ASSERT(t->n >= t->clean || (p[0] == bddfalse && t->b[t->clean - 1] == bddfalse));
    /* Below clean the slots are bddfalse already (released slots are
     * cleared by sa__release): only those never handed out are cleared,
     * the first time (a round's arrays are taken and released again and
     * again: their memsets were 2 % of the editor's first stage). */
    if (t->n + n > t->clean) {
        size_t from = t->clean > t->n ? t->clean : t->n;
        BDD *q = t->b + from;
        size_t m = t->n + n - from;
        if (m <= 4)
            for (size_t k = 0; k < m; k++)
                q[k] = bddfalse;
        else
            memset(q, 0, m * sizeof(BDD)); /* bddfalse */
        t->clean = t->n + n;
    }
    t->n += n;
    c->n_slots += n;
    return p;
}

BDD sa__tmp(sa_ctx *c, BDD f)
{
    if (f < 2)
        return f; /* a constant needs no slot */
    BDD *s = sa__slots(c, 1);
    *s = bdd_addref(f);
    return f;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

BDD sa__cube(sa_ctx *c, const int *vars, size_t n)
{
    /* Not bdd_makeset: it conjoins the variables in the order given, each
     * conjunction walking the cube built so far down to the new variable's
     * level, quadratic in n (the edge set of the brake's pair model at
     * N = 50, 1,500 variables, was 2 % of its mode changes' time). Sorted
     * by level (level << 32 | variable), unless they already are. */
    long *by = sa__alloc(c, (n + 1) * sizeof *by);
    bool sorted = true;
    for (size_t k = 0; k < n; k++) {
        by[k] = (long)bdd_var2level(vars[k]) << 32 | (long)vars[k];
        sorted = sorted && (k == 0 || by[k - 1] <= by[k]);
    }
    if (!sorted)
        qsort(by, n, sizeof *by, cmp_long);
    BDD *cube = sa__slots(c, 1);
    sa__put(cube, bddtrue);
    for (size_t k = n; k-- > 0;) /* deepest first: each lands on top */
        if (k + 1 == n || by[k] != by[k + 1])
            sa__put(cube, bdd_ite(bdd_ithvar((int)(by[k] & 0xffffffffL)), *cube, bddfalse));
    return *cube;
}

BDD sa__edgeset(sa_ctx *c, const sa_result *r)
{
    if (r->edgeset != bddfalse)
        return r->edgeset;
    const sa_result *h = c->opt != NULL ? c->opt->hint : NULL;
    size_t ne = r->n_edges;
    BDD cube;
    if (h != NULL && h != r && h->n_edges == ne && h->edgeset != bddfalse &&
        (ne == 0 || memcmp(h->edge_var, r->edge_var, ne * sizeof *r->edge_var) == 0))
        cube = h->edgeset; /* referenced by h: the same function in any order */
    else
        cube = sa__cube(c, r->edge_var, ne);
    if (r == c->r)
        sa__put(&c->r->edgeset, cube);
    return cube;
}

size_t sa__mark(const sa_ctx *c) { return c->n_slots; }

#define RELEASE_BLOCK 32
#define RELEASE_PART 8

/* Dereference the nodes among b[0 .. n) and set them all to bddfalse,
 * RELEASE_BLOCK at a time: the OR of a block tells whether any is a node
 * (BDDs are >= 0; 0 and 1 the constants), then RELEASE_PART at a time: most released slots hold
 * constants (the rounds' vectors of bits), which a test per slot cost
 * 2 % of the editor's first stage. */
static void release_slots(BDD *b, size_t n)
{
    size_t k = 0;
    for (; k + RELEASE_BLOCK <= n; k += RELEASE_BLOCK) {
        BDD *x = b + k, any = 0;
        for (size_t q = 0; q < RELEASE_BLOCK; q++)
            any |= x[q];
        if (any >= 2 && running)
            for (size_t p = 0; p < RELEASE_BLOCK; p += RELEASE_PART) {
                BDD part = 0;
                for (size_t q = p; q < p + RELEASE_PART; q++)
                    part |= x[q];
                if (part >= 2)
                    for (size_t q = p; q < p + RELEASE_PART; q++)
                        if (x[q] >= 2)
                            bdd_delref(x[q]);
            }
        for (size_t q = 0; q < RELEASE_BLOCK; q++)
            x[q] = bddfalse;
    }
    for (; k < n; k++) {
        if (b[k] >= 2 && running)
            bdd_delref(b[k]);
        b[k] = bddfalse;
    }
}

void sa__release(sa_ctx *c, size_t mark)
{
    while (c->top != NULL && c->n_slots > mark) {
        sa__chunk *t = c->top;
        size_t n = c->n_slots - mark < t->n ? c->n_slots - mark : t->n;
        release_slots(t->b + (t->n - n), n);
        t->n -= n;
        c->n_slots -= n;
        if (t->n == 0 && t->prev != NULL) {
            /* Kept for the next sa__slots: a mark / release cycle at a
             * chunk's boundary would otherwise map and unmap 256 KB each
             * time (measured: a fifth of the brake's analysis, issue 10). */
            c->top = t->prev;
            pool_put(c->spare);
            c->spare = t;
        } else {
            break;
        }
    }
}

/* ---- Memory ----------------------------------------------------------------- */

void *sa__alloc(sa_ctx *c, size_t n)
{
    void *p = sa__alloc_raw(c, n);
    memset(p, 0, n);
    return p;
}

void *sa__alloc_raw(sa_ctx *c, size_t n)
{
    const size_t align = sizeof(max_align_t);
    if (n > SIZE_MAX / 2)
        sa__fail(c, MDAE_E_NOMEM);
    size_t need = n == 0 ? align : (n + align - 1) / align * align;
    sa__block *b = c->blocks;
    if (b == NULL || b->cap - b->used < need) {
        size_t cap = need > ALLOC_CHUNK ? need : ALLOC_CHUNK;
        if (cap == ALLOC_CHUNK && c->spare_block != NULL) {
            b = c->spare_block;
            c->spare_block = NULL;
        } else {
            b = mdae_malloc(sizeof *b + cap);
        }
        if (b == NULL)
            sa__fail(c, MDAE_E_NOMEM);
        b->cap = cap;
        b->used = 0;
        b->next = c->blocks;
        c->blocks = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += need;
    return p;
}

sa__amark sa__alloc_mark(const sa_ctx *c)
{
    return (sa__amark){c->blocks, c->blocks != NULL ? c->blocks->used : 0};
}

void sa__alloc_release(sa_ctx *c, sa__amark mark)
{
    while (c->blocks != NULL && c->blocks != mark.block) {
        sa__block *n = c->blocks->next;
        /* One chunk is kept: a function called per block that needs a
         * chunk of its own would otherwise malloc and free one per call,
         * and glibc's free of a chunk beside a large free space sweeps its
         * fast bins each time (issue 40: 7 % of the brake at N = 10,000). */
        if (c->blocks->cap == ALLOC_CHUNK && c->spare_block == NULL)
            c->spare_block = c->blocks;
        else
            mdae_free(c->blocks);
        c->blocks = n;
    }
    MDAE_ASSERT(c->blocks == mark.block);
    if (c->blocks != NULL) {
        MDAE_ASSERT(c->blocks->used >= mark.used);
        c->blocks->used = mark.used;
    }
}

void *sa__alloc_keep(sa_ctx *c, size_t n)
{
    void *p = mdae_calloc(1, n ? n : 1);
    if (p == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    return p;
}

void *sa__alloc_keep_raw(sa_ctx *c, size_t n)
{
    void *p = mdae_malloc(n ? n : 1);
    if (p == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    return p;
}

void sa__poll_cancel(sa_ctx *c) { poll_progress(c); }

void sa__progress(sa_ctx *c, const char *phase, size_t done, size_t total)
{
    c->phase = phase;
    c->done = done;
    c->total = total;
    sa__sample(c);
    poll_progress(c);
}
