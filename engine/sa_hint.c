/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_hint.c -- the offsets of an earlier result (sa_options.hint),
 * carried into the layout of the result being built, to seed the primal
 * problem (issue 6: an edited model is re-analysed with the previous
 * version's offsets; sa_primal.c says how they are used and why the result
 * cannot change).
 *
 * The hint may be the result of a different model: equations and mode
 * variables are matched by NAME. Its offsets c_i are mode functions over
 * the hint's own BDD variables (hint->mode_var); they are rebuilt over ours
 * by one memoised pass over the hint's nodes, ite(our variable, high, low),
 * and a hint mode variable that this model does not have is taken as false
 * (the low branch), i.e. restricted to false. Why not bdd_replace: a
 * bddPair is malloc'ed by BuDDy, and a jump out of the analysis (node limit,
 * cancellation; sa_int.h) in the middle of the replacement would leak it,
 * since sa__primal owns no cleanup path; the pass below keeps everything in
 * slots and sa__alloc blocks.
 *
 * An equation the hint does not have, named as an instance of an array (the
 * last number in its name, k: rimf[41] after N + 1), takes the offsets of
 * the hint's instance k - 1, else k + 1, read with the hint's mode
 * variables renumbered the same way (open[40] as open[41]): the new room
 * then starts from its neighbour's offsets as functions of its own door.
 * Building N = 40, N + 1: 0.080-0.087 s -> 0.048-0.054 s, the cost-0
 * matchings then covering every mode at once (tests/bench/README.md).
 *
 * Anything is allowed to be wrong here without harming the result: the
 * primal problem is exact for any nonnegative c. Equations without a match
 * get 0, and so does an equation whose hint value does not fit the width the
 * caller asks for.
 *
 * The hint's chosen matching and tight edges are carried the same way, edge
 * by edge (by the names of their equation and variable), for sa_repair.c.
 * That use is not free of conditions: the repair needs the hint's choice to
 * be the smallest in our order too, so sa__hint_matching refuses when two of
 * our edges name one of the hint's, or when the edges both have lie in
 * another relative order (a model whose equations were reordered).
 */
#include "sa_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Names to indices: open addressing over a borrowed string array ---------- */

typedef struct name_map {
    uint32_t *slot; /* index + 1, 0: empty; NULL until first needed */
    size_t mask;
    uint32_t n;
    const char *(*name)(const void *, uint32_t);
    const void *arg;
} name_map;

/* Names come from name(arg, k), k < n; a NULL name is never found. Where two
 * items share a name the first wins (any match is valid, see above). The
 * table is built by the first lookup that needs it (map_find_near seldom
 * does). */
static void map_init(name_map *nm, uint32_t n, const char *(*name)(const void *, uint32_t),
                     const void *arg)
{
    *nm = (name_map){NULL, 0, n, name, arg};
}

static void map_build(sa_ctx *c, name_map *nm)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)nm->n + 2)
        cap *= 2;
    nm->mask = cap - 1;
    nm->slot = sa__alloc(c, cap * sizeof *nm->slot);
    for (uint32_t k = 0; k < nm->n; k++) {
        const char *s = nm->name(nm->arg, k);
        if (s == NULL)
            continue;
        size_t h = (size_t)mdae_hash(s, strlen(s)) & nm->mask;
        while (nm->slot[h] != 0 && strcmp(nm->name(nm->arg, nm->slot[h] - 1), s) != 0)
            h = (h + 1) & nm->mask;
        if (nm->slot[h] == 0)
            nm->slot[h] = k + 1;
    }
}

/* Index of s, or -1. */
static long map_find(sa_ctx *c, name_map *nm, const char *s)
{
    if (s == NULL)
        return -1;
    if (nm->slot == NULL)
        map_build(c, nm);
    size_t h = (size_t)mdae_hash(s, strlen(s)) & nm->mask;
    while (nm->slot[h] != 0) {
        if (strcmp(nm->name(nm->arg, nm->slot[h] - 1), s) == 0)
            return (long)nm->slot[h] - 1;
        h = (h + 1) & nm->mask;
    }
    return -1;
}

/* The same, trying index `guess` first: an edited model's equations mostly
 * keep their places, or shift together (N + 1), so the caller's guess is
 * the previous match's next and the table is seldom built (the brake at
 * N = 100: 1,203 names hashed twice per edit). Where names repeat, the
 * guess may find another of them than the table: any match is valid. */
static long map_find_near(sa_ctx *c, name_map *nm, const char *s, long guess)
{
    if (s != NULL && guess >= 0 && (uint64_t)guess < nm->n) {
        const char *at = nm->name(nm->arg, (uint32_t)guess);
        if (at != NULL && (at == s || strcmp(at, s) == 0))
            return guess;
    }
    return map_find(c, nm, s);
}

static const char *eq_name(const void *m, uint32_t k)
{
    return ((const mel_model *)m)->equations[k].name;
}

static const char *mode_name(const void *m, uint32_t k)
{
    return ((const mel_model *)m)->modes[k].name;
}

/* The name with its last number n replaced by n + delta, into buf; false
 * if it has none or the result does not fit. */
static bool renumber(const char *name, long delta, char *buf, size_t cap)
{
    size_t n = strlen(name), end = n;
    while (end > 0 && (name[end - 1] < '0' || name[end - 1] > '9'))
        end--;
    size_t start = end;
    while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
        start--;
    if (start == end || end - start > 9)
        return false;
    long k = strtol(name + start, NULL, 10) + delta;
    if (k < 0 || start + 21 + (n - end) >= cap)
        return false;
    memcpy(buf, name, start); /* not snprintf: every mode's name, for N + 1 */
    size_t len = start + mdae_put_int(buf + start, k);
    memcpy(buf + len, name + end, n - end + 1);
    return true;
}

/* An equation the hint does not have, named as an instance of an array:
 * the hint's instance with the last number one less (*step = -1), else one
 * more (+1); -1 if neither. */
static long neighbour(sa_ctx *c, name_map *eqs, const char *name, int *step)
{
    char buf[256];
    for (*step = -1; *step <= 1; *step += 2) {
        if (!renumber(name, *step, buf, sizeof buf))
            continue;
        long q = map_find(c, eqs, buf);
        if (q >= 0)
            return q;
    }
    return -1;
}

/* ---- Carrying a hint mode function into our variables --------------------- */

typedef struct carry_ctx {
    const sa_result *h;
    const int *to_var; /* hint BDD variable -> ours, -1: absent (false) */
    int *key;          /* memo: hint node, -1 empty */
    BDD *val;          /* memo: slots */
    size_t mask;
    bool identity;     /* every mode variable of the hint is ours: f itself */
} carry_ctx;

static size_t carry_probe(const carry_ctx *cc, BDD f)
{
    size_t h = ((size_t)f * 2654435761u) & cc->mask;
    while (cc->key[h] != -1 && cc->key[h] != f)
        h = (h + 1) & cc->mask;
    return h;
}

static BDD carry_rec(sa_ctx *c, carry_ctx *cc, BDD f)
{
    if (f < 2 || cc->identity)
        return f;
    size_t h = carry_probe(cc, f);
    if (cc->key[h] == f)
        return cc->val[h];
    int v = bdd_var(f);
    int to = v < cc->h->n_bddvars ? cc->to_var[v] : -1;
    BDD lo = carry_rec(c, cc, bdd_low(f)), out = lo;
    if (to >= 0) {
        BDD hi = carry_rec(c, cc, bdd_high(f));
        out = bdd_ite(bdd_ithvar(to), hi, lo);
    }
    /* Else an absent mode variable: restricted to false. (An edge variable
     * cannot occur in an offset, a mode function; if it did, the same
     * restriction would still yield some nonnegative function: harmless.)
     * Probe again: the recursion may have taken the slot found above. */
    h = carry_probe(cc, f);
    cc->key[h] = f;
    sa__put(&cc->val[h], out);
    return out;
}

/* The hint's offsets of the equations from[i] >= 0 (i < n), in the hint's
 * layout, n * w_off slots, each extended beyond the modes where it holds
 * (the hint's ok and the equation's activity; it reads 0 elsewhere) by the
 * generalized cofactor: in a mode outside, the value of a
 * nearest mode inside (Coudert and Madre's constrain; one projection for
 * every bit, so the vector is a value the offset takes). An edit that
 * moves an equation into other modes (a guard flipped) so finds its old
 * offsets there instead of 0. Either stored form of h's c gives the same
 * vectors: f constrained by care depends only on f in care and care, and
 * care is inside h->ok, where a within bit is the exact one (a constant
 * within bit w: the exact bit is w & ok, and ok constrained by care is
 * true, as w is; care true means ok true, where the forms are one). */
static BDD *hint_vectors(sa_ctx *c, const sa_result *h, const long *from, uint32_t n)
{
    int hw = h->w_off;
    BDD *hv = sa__slots(c, (size_t)n * (size_t)hw + 1);
    BDD *care = sa__slots(c, 1);
    for (uint32_t i = 0; i < n; i++) {
        if (from[i] < 0)
            continue;
        const BDD *hc = sa__c_row(h, (size_t)from[i]);
        sa__put(care, sa__and(h->chi_i[from[i]], h->ok));
        for (int b = 0; b < hw; b++) {
            BDD *to = &hv[(size_t)i * (size_t)hw + b];
            if (*care == bddtrue || *care == bddfalse)
                sa__put(to, *care == bddtrue ? hc[b] : bddfalse);
            else if (hc[b] < 2) /* a constant constrains to itself */
                sa__put(to, hc[b]);
            else
                sa__put(to, bdd_constrain(hc[b], *care));
        }
    }
    return hv;
}

/* Our equation i's hint offsets (hw bits): hv's row if the caller
 * constrained them (hint_vectors), else the hint's own row from[i]. */
static const BDD *hint_row(const sa_result *h, const BDD *hv, const long *from, uint32_t i)
{
    size_t hw = (size_t)h->w_off;
    return hv != NULL ? &hv[i * hw] : sa__c_row(h, (size_t)from[i]);
}

/* Hint BDD variable -> ours (-1: absent), the hint's mode variables found
 * by name in r's model after their last number is moved by delta (an
 * equation seeded by its neighbour reads the neighbour's mode variables as
 * its own: open[40] as open[41]); a name that has no number, or whose
 * renumbered name r lacks, by name alone. */
static int *mode_map(sa_ctx *c, const sa_result *h, const sa_result *r, name_map *modes,
                     long delta)
{
    const mel_model *hm = h->m;
    int nb = h->n_bddvars; /* a local: the stores below may alias h's int */
    int *to_var = sa__alloc_raw(c, ((size_t)nb + 1) * sizeof *to_var);
    for (int v = 0; v <= nb; v++)
        to_var[v] = -1;
    char buf[256];
    for (uint32_t k = 0; k < h->n_modes && k < hm->n_modes; k++) {
        const char *name = hm->modes[k].name;
        long q = -1;
        if (delta != 0 && name != NULL && renumber(name, delta, buf, sizeof buf))
            q = map_find_near(c, modes, buf, (long)k + delta);
        if (q < 0)
            q = map_find_near(c, modes, name, (long)k);
        if (q >= 0 && h->mode_var[k] >= 0 && h->mode_var[k] < h->n_bddvars)
            to_var[h->mode_var[k]] = r->mode_var[q];
    }
    return to_var;
}

/* Whether the bits of v from w up to hw are all false. */
static bool fits_in(const BDD *v, int w, int hw)
{
    for (int b = w; b < hw; b++)
        if (v[b] != bddfalse)
            return false;
    return true;
}

/* Whether to_var maps every mode variable of h to itself: then h's mode
 * functions are ours as they are (an edit that keeps the modes' names and
 * order: sa_encode.c numbers them the same). */
static bool same_mode_vars(const sa_result *h, const int *to_var)
{
    for (uint32_t k = 0; k < h->n_modes; k++) {
        int v = h->mode_var[k];
        if (v < 0 || v >= h->n_bddvars || to_var[v] != v)
            return false;
    }
    return true;
}

/* Mode k's variable in r as mode_map finds it (-1: none). */
static int mapped_mode_var(sa_ctx *c, const sa_result *h, const sa_result *r, name_map *modes,
                           long delta, uint32_t k)
{
    const char *name = h->m->modes[k].name;
    char buf[256];
    long q = -1;
    if (delta != 0 && name != NULL && renumber(name, delta, buf, sizeof buf))
        q = map_find_near(c, modes, buf, (long)k + delta);
    if (q < 0)
        q = map_find_near(c, modes, name, (long)k);
    return q >= 0 ? r->mode_var[q] : -1;
}

/* same_mode_vars(h, mode_map(c, h, r, modes, delta)) without the map over
 * every BDD variable (the brake's first edit at N = 2,000 filled 70,000
 * entries for 2,000 modes): when the hint's mode variables increase with
 * k (sa_encode.c numbers them so), each is written by its own mode only,
 * so the map holds v where mode k's variable is v itself; else the whole
 * map. Under sa_options.self_check, checked against the whole map. */
static bool modes_in_place(sa_ctx *c, const sa_result *h, const sa_result *r, name_map *modes,
                           long delta)
{
    bool same = true, increasing = true;
    for (uint32_t k = 0; k < h->n_modes && increasing; k++) {
        int v = h->mode_var[k];
        if (v < 0 || v >= h->n_bddvars)
            same = false; /* same_mode_vars' answer, whatever the map */
        increasing = k == 0 || v > h->mode_var[k - 1];
    }
    if (!increasing) {
        same = same_mode_vars(h, mode_map(c, h, r, modes, delta));
    } else {
        for (uint32_t k = 0; k < h->n_modes && same; k++) /* k past hm's modes: unmapped */
            same = k < h->m->n_modes && mapped_mode_var(c, h, r, modes, delta, k) == h->mode_var[k];
    }
    if (c->opt != NULL && c->opt->self_check)
        MDAE_ASSERT(same == same_mode_vars(h, mode_map(c, h, r, modes, delta)));
    return same;
}

/* Whether same_mode_vars(h, mode_map(c, h, r, modes, 0)) holds, seen
 * without a pass over the BDD variables or the names: r's model has the
 * hint's modes (the same array: a private model shares them with the one
 * before, inc_session.c) and r the hint's mode variables (the same layout,
 * sa_encode.c). Then each of the hint's modes k is found at k by name
 * (map_find_near's guess, by pointer) and maps its variable to
 * r->mode_var[k], itself; same_mode_vars asks too that it be one of the
 * hint's variables. False: not known (the caller asks mode_map). */
static bool shared_mode_vars(const sa_result *h, const sa_result *r)
{
    const mel_model *hm = h->m, *m = r->m;
    if (hm->modes != m->modes || h->mode_var != r->mode_var || h->n_modes > hm->n_modes ||
        h->n_modes > m->n_modes)
        return false;
    for (uint32_t k = 0; k < h->n_modes; k++) {
        int v = h->mode_var[k];
        if (v < 0 || v >= h->n_bddvars || hm->modes[k].name == NULL)
            return false;
    }
    return true;
}

/* A memo's size for carrying the offsets hv (hw bits each) of the n
 * equations i with from[i] >= 0 and step[i] == st: a power of two, at
 * least twice their nodes (only those: the brake's N + 1 carries one
 * railcar's by a renumbering, and counted all 1,200 equations' first). */
static size_t step_cap(sa_ctx *c, const sa_result *h, const BDD *hv, const long *from,
                       const int *step, uint32_t n, int st)
{
    int hw = h->w_off;
    sa__amark mark = sa__alloc_mark(c);
    size_t k = 0;
    BDD *f = sa__alloc(c, ((size_t)n * (size_t)hw + 1) * sizeof *f); /* hv references them */
    for (uint32_t i = 0; i < n; i++)
        if (from[i] >= 0 && step[i] == st)
            for (int b = 0; b < hw; b++)
                f[k++] = hint_row(h, hv, from, i)[b];
    size_t cap = 16, nodes = (size_t)bdd_anodecount(f, (int)k) + 2;
    while (cap < 2 * nodes)
        cap *= 2;
    sa__alloc_release(c, mark);
    return cap;
}

/* An empty memo of cap entries (a power of two) for carrying h's functions
 * with to_var. */
static void carry_init(sa_ctx *c, carry_ctx *cc, const sa_result *h, const int *to_var,
                       size_t cap)
{
    *cc = (carry_ctx){h, to_var, NULL, NULL, cap - 1, false};
    cc->key = sa__alloc(c, cap * sizeof *cc->key);
    for (size_t k = 0; k < cap; k++)
        cc->key[k] = -1;
    cc->val = sa__slots(c, cap);
}

/* The width in bits at which r can read the hint h's offsets: enough for
 * any canonical offset of r (n_eq + 2 times the largest sigma), at most the
 * hint's own; 0 if unusable. */
static int read_width(const sa_result *r, const sa_result *h)
{
    unsigned long long maxs = (1ull << r->w_sigma) - 1;
    int wh = sa__vbits(((unsigned long long)r->n_eq + 2) * (maxs + 1)) + 1;
    if (h->w_off < wh)
        wh = h->w_off;
    return wh <= 0 || wh > 30 ? 0 : wh;
}

/* The bits that n vectors of w bits (v, one after the other) use: one more
 * than the highest bit that is not false in any of them, 0 if none is.
 * Only the low `top` bits of each are read: the caller knows the others
 * are false (known_bits). */
int sa__bits_in_use(const BDD *v, size_t n, int w, int top)
{
    MDAE_ASSERT(top >= 0 && top <= w && top <= SA_MAX_OFFSET_BITS);
    MDAE_ASSERT(bddfalse == 0); /* every node more: an OR is 0 iff all false */
    /* The OR of each of the low top bits over every vector: one pass, no
     * branch per vector (issue 40 item 5: a test per bit and vector was
     * 0.45 M instructions of the brake's edit at N = 2,000). Up to 4 bits
     * (the brake's 3: known_bits) in registers, bit b >= top reading bit
     * top - 1 again; more in an array. */
    BDD any[SA_MAX_OFFSET_BITS] = {0};
    if (top <= 4 && top > 0) {
        int i1 = top > 1 ? 1 : top - 1, i2 = top > 2 ? 2 : top - 1, i3 = top - 1;
        BDD a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (size_t k = 0; k < n; k++) {
            const BDD *row = &v[k * (size_t)w];
            a0 |= row[0];
            a1 |= row[i1];
            a2 |= row[i2];
            a3 |= row[i3];
        }
        any[0] = a0;
        any[i1] = a1;
        any[i2] = a2;
        any[i3] = a3;
    } else {
        for (size_t k = 0; k < n; k++)
            for (int b = 0; b < top; b++)
                any[b] |= v[k * (size_t)w + b];
    }
    for (int b = top - 1; b >= 0; b--)
        if (any[b] != bddfalse)
            return b + 1;
    return 0;
}

/* The low bits of h's offsets that may be other than false: those below
 * w_sigma + 2 when sa__dual says h is small (sa_int.h), else all. The
 * brake's edit read 19 bits of each of 110,000 offsets for 3 (issue 40). */
static int known_bits(const sa_result *h)
{
    return h->small && h->w_sigma + 2 < h->w_off ? h->w_sigma + 2 : h->w_off;
}

/* Whether our offsets are the hint's own vectors as they are: every
 * equation i is the hint's i (by name, not renumbered), the hint's mode
 * variables are ours (the step-0 carry, made here into *cc, is the
 * identity) and every offset fits in w bits. Then they are read in place
 * (an edit of the brake: 1,203 vectors not copied). */
static bool in_place(sa_ctx *c, const sa_result *h, const long *from, bool identity,
                     name_map *modes, carry_ctx *cc, int w)
{
    const sa_result *r = c->r;
    if (r->n_eq > h->n_eq || !identity) /* identity: from[i] = i, step[i] = 0 for every i */
        return false;
    if (!shared_mode_vars(h, r) && !modes_in_place(c, h, r, modes, 0))
        return false;
    cc->identity = true;
    for (uint32_t i = 0; i < r->n_eq && w < h->w_off; i++) /* else every one fits */
        if (!fits_in(hint_row(h, NULL, from, i), w, h->w_off))
            return false;
    return true;
}

/* ---- Entry points ----------------------------------------------------------- */

/* The caller's rows that may differ from the hint's (sa_options.hint_rows:
 * the others have the hint's name pointer), and the first of them not
 * passed yet (the rows are matched in increasing order). */
typedef struct listed_rows {
    const uint32_t *rows;
    uint32_t n, next;
} listed_rows;

/* The rows of r from i on whose equation is the hint's at the same index
 * by name pointer (n: the hint's equations the name map holds), as the
 * loop of sa__hint_offsets matches them while its shift is 0
 * (map_find_near's guess): from[k] = k, step[k] = 0; returns the first
 * row after them. A private model shares the names of what the edit left
 * alone (inc_session.c): an edit of the brake reads two pointers a row;
 * and with the caller's list (lr->rows not NULL), the rows before the
 * next listed one are not read (h-inc15: tested against the pointers by
 * test_inc_follow's listed_rows tests, the hint taken both ways). */
static uint32_t shared_rows_from(const sa_result *r, const mel_model *hm, uint32_t n,
                                 long *from, int *step, uint32_t i, listed_rows *lr)
{
    if (r->eq_whole != NULL)
        return i;
    const mel_equation *mine = r->m->equations, *hint = hm->equations;
    uint32_t lim = r->n_eq < n ? r->n_eq : n;
    if (lr->rows != NULL) { /* the rows before the next listed one: not read */
        uint32_t k = lr->next;
        while (k < lr->n && lr->rows[k] < i)
            k++;
        lr->next = k;
        uint32_t end = k < lr->n && lr->rows[k] < lim ? lr->rows[k] : lim;
        for (; i < end; i++) {
            from[i] = (long)i;
            step[i] = 0;
        }
    }
    while (i < lim && mine[i].name != NULL && mine[i].name == hint[i].name) {
        from[i] = (long)i;
        step[i] = 0;
        i++;
    }
    return i;
}

const BDD *sa__hint_offsets(sa_ctx *c, bool extend, int *width, int *used, const long **same)
{
    const sa_result *h = c->opt != NULL ? c->opt->hint : NULL;
    sa_result *r = c->r;
    /* A hint whose c is stored within its ok (h->cd_within) is read as
     * stored: extended (hint_vectors), the same vectors as the exact ones
     * (the care is inside h->ok, where both forms agree); as they are,
     * values that agree with the exact ones in h->ok and may be any
     * nonnegative integers out of it, which the primal problem allows
     * (above). What the seeded primal keeps of them (sa__own_tight's c)
     * is compared with the hint's stored rows (own_stale), the very rows a
     * later analysis reads: the same handles, the same functions. */
    if (h == NULL || h == r || h->m == NULL || h->c == NULL || h->w_off <= 0 ||
        h->ok == bddfalse || r->n_eq == 0)
        return NULL;
    int w = read_width(r, h);
    if (w == 0)
        return NULL;
    const mel_model *hm = h->m, *m = r->m;

    name_map modes;
    map_init(&modes, m->n_modes, mode_name, m);

    /* Equations by name: ours -> the hint's. */
    name_map eqs;
    map_init(&eqs, h->n_eq < hm->n_equations ? h->n_eq : hm->n_equations, eq_name, hm);
    long *from = sa__alloc_raw(c, ((size_t)r->n_eq + 1) * sizeof *from); /* both: each row's */
    int *step = sa__alloc_raw(c, ((size_t)r->n_eq + 1) * sizeof *step);
    long shift = 0; /* the last match's index in the hint less ours */
    bool any = false, identity = true; /* every row the hint's at its index */
    listed_rows lr = {c->opt->hint_rows, c->opt->n_hint_rows, 0};
    for (uint32_t i = 0; i < r->n_eq; i++) {
        if (shift == 0) {
            uint32_t next = shared_rows_from(r, hm, eqs.n, from, step, i, &lr);
            any = any || next > i;
            if ((i = next) == r->n_eq)
                break;
        }
        uint32_t whole = r->eq_whole != NULL ? r->eq_whole[i] : i;
        const char *name = m->equations[whole].name;
        from[i] = map_find_near(c, &eqs, name, (long)whole + shift);
        step[i] = 0;
        if (from[i] >= 0)
            shift = from[i] - (long)whole;
        else if (name != NULL)
            from[i] = neighbour(c, &eqs, name, &step[i]);
        any = any || from[i] >= 0;
        identity = identity && from[i] == (long)i && step[i] == 0;
    }
    if (!any)
        return NULL;

    int hw = h->w_off;
    carry_ctx ccs[3] = {{0}, {0}, {0}}; /* by step + 1, made when first needed */
    long *rows = NULL; /* *same: rows whose offsets are the hint's row as it is */
    if (same != NULL) {
        *same = NULL;
        if (!extend)
            rows = sa__alloc_raw(c, ((size_t)r->n_eq + 1) * sizeof *rows);
    }
    if (!extend && in_place(c, h, from, identity, &modes, &ccs[1], w)) {
        if (same != NULL)
            *same = from;
        r->seeded += r->n_eq;
        *width = hw;
        int u = sa__bits_in_use(sa__c_stored(h), r->n_eq, hw, known_bits(h));
        *used = u > 0 ? u : 1;
        return sa__c_stored(h);
    }
    BDD *out = sa__slots(c, (size_t)r->n_eq * (size_t)w + 1);
    size_t mark = sa__mark(c);
    const BDD *hv = extend ? hint_vectors(c, h, from, r->n_eq) : NULL;
    BDD *over = sa__slots(c, 1);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        if (rows != NULL)
            rows[i] = -1;
        if (from[i] < 0)
            continue;
        r->seeded++;
        carry_ctx *ccp = &ccs[step[i] + 1];
        if (ccp->key == NULL && !ccp->identity) {
            if (modes_in_place(c, h, r, &modes, -step[i]))
                ccp->identity = true;
            else
                carry_init(c, ccp, h, mode_map(c, h, r, &modes, -step[i]),
                           step_cap(c, h, hv, from, step, r->n_eq, step[i]));
        }
        const BDD *hc = hint_row(h, hv, from, i);
        BDD *ci = &out[(size_t)i * (size_t)w];
        if (ccp->identity && fits_in(hc, w, hw)) { /* most: the hint's bits */
            for (int b = 0; b < w && b < hw; b++)
                sa__put(&ci[b], hc[b]);
            if (rows != NULL && step[i] == 0)
                rows[i] = from[i];
            continue;
        }
        /* Bits we cannot hold: where any is set, the equation gets 0. */
        sa__put(over, bddfalse);
        for (int b = w; b < hw; b++) {
            BDD x = carry_rec(c, ccp, hc[b]);
            sa__put(over, sa__or(*over, x));
        }
        for (int b = 0; b < w && b < hw; b++) {
            BDD x = carry_rec(c, ccp, hc[b]);
            sa__put(&ci[b], sa__diff(x, *over));
        }
        if ((i & 1023) == 1023)
            sa__progress(c, "weights", i, r->n_eq);
    }
    sa__release(c, mark);
    if (same != NULL)
        *same = rows;
    *width = w;
    int u = sa__bits_in_use(out, r->n_eq, w, w);
    *used = u > 0 ? u : 1;
    return out;
}

/* ---- The hint's chosen matching (sa_repair.c) ---------------------------------- */

static const char *var_name(const void *m, uint32_t k)
{
    return ((const mel_model *)m)->variables[k].name;
}

/* The hint's edge of equation q and variable p, or -1. */
static long hint_edge(const sa_result *h, long q, long p)
{
    if (q < 0 || p < 0)
        return -1;
    for (size_t e = h->eq_first[q]; e < h->eq_first[q + 1]; e++)
        if (h->edge_v[e] == (uint32_t)p)
            return (long)e;
    return -1;
}

/* Our edges by the names of their equation and variable: from[e], the
 * hint's edge or -1. Our equation i is the hint's rows[i] (-1: none) when
 * rows is not NULL (sa__hint_offsets found them already), else found by
 * name. False if two of ours name the same edge of the hint (then neither
 * the matching nor its order can be read across). */
static bool edges_by_name(sa_ctx *c, const sa_result *h, const sa_result *r, const long *rows,
                          long *from)
{
    const mel_model *hm = h->m, *m = r->m;
    name_map eqs, vars;
    map_init(&eqs, h->n_eq < hm->n_equations ? h->n_eq : hm->n_equations, eq_name, hm);
    map_init(&vars, h->n_var < hm->n_variables ? h->n_var : hm->n_variables, var_name, hm);
    /* Our variables first, in order: their guesses then mostly hold (an
     * edge's variable is not its row's previous one's neighbour). */
    long *vmap = sa__alloc_raw(c, ((size_t)r->n_var + 1) * sizeof *vmap);
    long vshift = 0;
    for (uint32_t j = 0; j < r->n_var; j++) {
        uint32_t wj = r->var_whole != NULL ? r->var_whole[j] : j;
        vmap[j] = map_find_near(c, &vars, m->variables[wj].name, (long)wj + vshift);
        vshift = vmap[j] >= 0 ? vmap[j] - (long)wj : vshift;
    }
    bool *used = sa__alloc(c, h->n_edges + 1);
    long eshift = 0; /* as in sa__hint_offsets */
    for (uint32_t i = 0; i < r->n_eq; i++) {
        uint32_t wi = r->eq_whole != NULL ? r->eq_whole[i] : i;
        long q = rows != NULL ? rows[i]
                              : map_find_near(c, &eqs, m->equations[wi].name, (long)wi + eshift);
        eshift = q >= 0 ? q - (long)wi : eshift;
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            from[e] = hint_edge(h, q, vmap[r->edge_v[e]]);
            if (from[e] >= 0 && used[from[e]])
                return false;
            if (from[e] >= 0)
                used[from[e]] = true;
        }
    }
    return true;
}

typedef struct level_pair {
    int ours, hints;
} level_pair;

static int cmp_ours(const void *a, const void *b)
{
    int x = ((const level_pair *)a)->ours, y = ((const level_pair *)b)->ours;
    return (x > y) - (x < y);
}

/* Whether the carried edges lie in the same relative order in both
 * layouts. Both orders are the variables' indices (sa__need_vars lays them
 * out so, and sa__sifting says when sifting moved them). */
static bool same_order(sa_ctx *c, const sa_result *h, const sa_result *r, const long *from)
{
    level_pair *lp = sa__alloc(c, (r->n_edges + 1) * sizeof *lp);
    size_t n = 0;
    for (size_t e = 0; e < r->n_edges; e++)
        if (from[e] >= 0)
            lp[n++] = (level_pair){r->edge_var[e], h->edge_var[from[e]]};
    qsort(lp, n, sizeof *lp, cmp_ours);
    for (size_t k = 1; k < n; k++)
        if (lp[k].hints <= lp[k - 1].hints)
            return false;
    return true;
}

/* The bits in use by the hint's offsets and sigmas, plus one for a sum. */
static int hint_bits(const sa_result *h)
{
    int wv = h->w_sigma, wc = sa__bits_in_use(sa__c_stored(h), h->n_eq, h->w_off, known_bits(h));
    int wd = sa__bits_in_use(sa__d_stored(h), h->n_var, h->w_off, known_bits(h));
    wv = wc > wv ? wc : wv;
    wv = wd > wv ? wd : wv;
    return wv + 1 < h->w_off ? wv + 1 : h->w_off;
}

/* The value of the first wv bits of a, or -1 if one of them is not a
 * constant. */
static long constant_value(const BDD *a, int wv)
{
    long v = 0;
    for (int b = 0; b < wv; b++) {
        if (a[b] != bddtrue && a[b] != bddfalse)
            return -1;
        v |= (long)(a[b] == bddtrue) << b;
    }
    return v;
}

/* The hint's edge e is tight: active in a mode of its ok where
 * d_j = c_i + sigma_e for its canonical offsets; into *out (a slot). Where
 * the offsets and sigma are the same in every mode, by integers (half of
 * the building's edges; 0.3 ms of 1.9 per edit at N = 40). */
static void hint_tight(sa_ctx *c, const sa_result *h, size_t e, int wv, BDD *out)
{
    long ci = constant_value(sa__c_row(h, h->edge_eq[e]), wv);
    long dv = constant_value(sa__d_row(h, h->edge_v[e]), wv);
    long se = h->w_sigma <= wv ? constant_value(&h->sigma[e * (size_t)h->w_sigma], h->w_sigma)
                               : -1;
    if (ci >= 0 && dv >= 0 && se >= 0) {
        sa__put(out, ci + se == dv ? sa__and(h->chi_e[e], h->ok) : bddfalse);
        return;
    }
    size_t mark = sa__mark(c);
    BDD *sg = sa__slots(c, (size_t)wv), *sum = sa__slots(c, (size_t)wv);
    for (int b = 0; b < wv; b++)
        sa__put(&sg[b], b < h->w_sigma ? h->sigma[e * (size_t)h->w_sigma + b] : bddfalse);
    sa__vadd(c, sum, sa__c_row(h, h->edge_eq[e]), sg, wv);
    BDD act = sa__tmp(c, sa__and(h->chi_e[e], h->ok));
    sa__put(out, sa__vequal(c, act, sum, sa__d_row(h, h->edge_v[e]), wv));
    sa__release(c, mark);
}

/* h's c and d may be stored within h->ok (h->cd_within): hint_tight's
 * result is the same function in either form. Its symbolic way is masked
 * by act = chi_e & ok, inside ok, where the forms agree; its integer way
 * reads each row's value in ok (a within row whose bits are constants is
 * that value wherever ok holds; an exact one only when its bits are
 * constants, i.e. that value there too) and gives act or false, what
 * the symbolic way gives then. hint_bits reads which bits are false:
 * false within iff false exactly. */
bool sa__hint_matching(sa_ctx *c, BDD *tc, BDD *tz)
{
    const sa_result *h = c->opt != NULL ? c->opt->hint : NULL;
    sa_result *r = c->r;
    if (h == NULL || h == r || h->m == NULL || sa__te_exact(h) == NULL || h->c == NULL ||
        h->w_off <= 0 || h->ok == bddfalse || r->n_edges == 0 || sa__sifting())
        return false;
    long *from = sa__alloc_raw(c, (r->n_edges + 1) * sizeof *from); /* all, when true */
    if (!edges_by_name(c, h, r, NULL, from) || !same_order(c, h, r, from))
        return false;
    size_t mark = sa__mark(c);
    /* The hint's functions, in its layout: te, then tight, per our edge. */
    BDD *hf = sa__slots(c, 2 * r->n_edges + 1);
    int wv = h->tight_memo != NULL ? 0 : hint_bits(h); /* for hint_tight only */
    for (size_t e = 0; e < r->n_edges; e++)
        if (from[e] >= 0) {
            sa__put(&hf[2 * e], sa__te(c, h, (size_t)from[e]));
            if (h->tight_memo != NULL) /* cdg_build's, exact in ok */
                sa__put(&hf[2 * e + 1], sa__and(h->tight_memo[from[e]], h->ok));
            else
                hint_tight(c, h, (size_t)from[e], wv, &hf[2 * e + 1]);
        }
    name_map modes;
    map_init(&modes, r->m->n_modes, mode_name, r->m);
    const int *to_var = mode_map(c, h, r, &modes, 0);
    carry_ctx cc = {h, to_var, NULL, NULL, 0, true};
    if (!same_mode_vars(h, to_var)) { /* else the carry is the identity (an
                                         edit that kept the mode variables
                                         in place: the building's guard) */
        size_t cap = 16, n = (size_t)bdd_anodecount(hf, (int)(2 * r->n_edges)) + 2;
        while (cap < 2 * n)
            cap *= 2;
        carry_init(c, &cc, h, to_var, cap);
    }
    for (size_t e = 0; e < r->n_edges; e++) {
        sa__put(&tc[e], carry_rec(c, &cc, hf[2 * e]));
        sa__put(&tz[e], carry_rec(c, &cc, hf[2 * e + 1]));
    }
    sa__release(c, mark);
    return true;
}

/* The mapped reading for sa__hint_tight: our edges to the hint's (by
 * edges_by_name, our rows the hint's rows same[i], into *from); a column is
 * the hint's when each of its edges is the hint's, with the same activity
 * and weight, in a row whose offsets are the hint's row as it is (same[i]),
 * all in one hint column that has no other edge and is not stale[] (NULL:
 * none is). Returns the other columns (flags), or NULL. */
static bool *mapped_columns(sa_ctx *c, const sa_result *h, const long *same, const bool *stale,
                            long **from)
{
    const sa_result *r = c->r;
    long *f = sa__alloc_raw(c, (r->n_edges + 1) * sizeof *f); /* all, when true */
    if (!edges_by_name(c, h, r, same, f)) /* only same's rows can be read */
        return NULL;
    size_t ws = (size_t)r->w_sigma;
    uint32_t *hcount = sa__alloc(c, ((size_t)h->n_var + 1) * sizeof *hcount);
    for (size_t e = 0; e < h->n_edges; e++)
        hcount[h->edge_v[e]]++;
    uint32_t *count = sa__alloc(c, ((size_t)r->n_var + 1) * sizeof *count);
    long *hcol = sa__alloc_raw(c, ((size_t)r->n_var + 1) * sizeof *hcol); /* below */
    bool *todo = sa__alloc(c, (size_t)r->n_var + 1);
    for (uint32_t j = 0; j < r->n_var; j++)
        hcol[j] = -1;
    for (size_t e = 0; e < r->n_edges; e++) {
        uint32_t j = r->edge_v[e];
        long q = f[e];
        if (q < 0 || same[r->edge_eq[e]] != (long)h->edge_eq[q] || r->chi_e[e] != h->chi_e[q] ||
            memcmp(&r->sigma[e * ws], &h->sigma[(size_t)q * ws], ws * sizeof(BDD)) != 0 ||
            (hcol[j] >= 0 && hcol[j] != (long)h->edge_v[q])) {
            todo[j] = true;
            continue;
        }
        hcol[j] = h->edge_v[q];
        count[j]++;
    }
    for (size_t e = 0; e < r->n_edges; e++) {
        uint32_t j = r->edge_v[e];
        if (!todo[j] && (count[j] != hcount[hcol[j]] || (stale != NULL && stale[hcol[j]])))
            todo[j] = true;
    }
    *from = f;
    return todo;
}

/* The in-place reading: r's edges are the hint's, by index. Compared a
 * run of edges at a time (memcmp of chi_E and sigma), edge by edge only
 * in a run that differs: an edit's few rows, where a comparison per edge
 * walked the brake's 340,000 (issue 40). The columns to compute are
 * marked in stale (n_var flags, the hint's columns whose memo does not
 * hold, by index: ours), or in new flags if it is NULL. */
static bool *same_columns(sa_ctx *c, const sa_result *h, bool *stale)
{
    const sa_result *r = c->r;
    bool *todo = stale != NULL ? stale : sa__alloc(c, (size_t)r->n_var + 1);
    for (size_t lo = 0; lo < r->n_edges; lo += SA_RUN_EDGES) {
        size_t n = r->n_edges - lo < SA_RUN_EDGES ? r->n_edges - lo : SA_RUN_EDGES;
        if (sa__run_same(r, h, lo, n, false))
            continue;
        for (size_t e = lo; e < lo + n; e++)
            if (!sa__edge_same(r, h, e))
                todo[r->edge_v[e]] = true;
    }
    return todo;
}

/* Whether offsets a (wa bits) and b (wb bits) are the same integers in
 * every mode: the same bits, those beyond one's width false in the other. */
static inline bool same_offsets(const BDD *a, int wa, const BDD *b, int wb)
{
    int lo = wa < wb ? wa : wb, k;
    if (!sa__vsame(a, b, lo))
        return false;
    for (k = lo; k < wa; k++)
        if (a[k] != bddfalse)
            return false;
    for (k = lo; k < wb; k++)
        if (b[k] != bddfalse)
            return false;
    return true;
}

/* The hint's columns whose own tight edges (h->own_tight, a seeded
 * result's round 0: sa_tight.c says why they are exact) are not those of
 * its final offsets: the stale ones, and those with an edge in a row whose
 * final offsets (h->c, bits above known_bits false) are not the ones round
 * 0 read. n_var flags (temporaries). */
static bool *own_stale(sa_ctx *c, const sa_result *h)
{
    const sa__own_tight *o = h->own_tight;
    bool *stale = sa__alloc_raw(c, (size_t)h->n_var + 1);
    memcpy(stale, o->stale, h->n_var);
    size_t ow = (size_t)o->w;
    int kb = known_bits(h);
    for (uint32_t i = 0; i < h->n_eq; i++)
        if (!same_offsets(sa__c_row(h, i), kb, &o->c[i * ow], o->w))
            for (size_t e = h->eq_first[i]; e < h->eq_first[i + 1]; e++)
                stale[h->edge_v[e]] = true;
    return stale;
}

#define TAKE_BLOCK 32
#define TAKE_PART 8

/* (see sa_int.h) A block of TAKE_BLOCK edges whose
 * slots are all bddfalse (round 0's fresh slots: every block) is written
 * without a test per slot and its nodes referenced after (the OR of the
 * block tells whether it has any: BDDs are >= 0, 0 and 1 the constants);
 * another block, edge by edge with sa__put. The brake's 68,000 edges per
 * sa__put were 3 % of the editor's first stage. */
void sa__take_memo(const sa_result *r, const bool *todo, const BDD *memo, const long *from,
                   BDD *tight)
{
    const uint32_t *edge_v = r->edge_v;
    size_t n = r->n_edges, k = 0;
    for (; k + TAKE_BLOCK <= n; k += TAKE_BLOCK) {
        BDD *t = tight + k, old = 0, any = 0;
        for (size_t q = 0; q < TAKE_BLOCK; q++)
            old |= t[q];
        if (old != bddfalse) {
            for (size_t e = k; e < k + TAKE_BLOCK; e++)
                if (!todo[edge_v[e]])
                    sa__put(&tight[e], memo[from != NULL ? (size_t)from[e] : e]);
            continue;
        }
        const uint32_t *ev = edge_v + k;
        if (from == NULL) {
            const BDD *m = memo + k;
            for (size_t q = 0; q < TAKE_BLOCK; q++) {
                BDD f = todo[ev[q]] ? bddfalse : m[q];
                t[q] = f;
                any |= f;
            }
        } else {
            for (size_t q = 0; q < TAKE_BLOCK; q++) {
                BDD f = todo[ev[q]] ? bddfalse : memo[from[k + q]];
                t[q] = f;
                any |= f;
            }
        }
        if (any >= 2) /* the nodes are few: TAKE_PART at a time again */
            for (size_t p = 0; p < TAKE_BLOCK; p += TAKE_PART) {
                BDD part = 0;
                for (size_t q = p; q < p + TAKE_PART; q++)
                    part |= t[q];
                if (part >= 2)
                    for (size_t q = p; q < p + TAKE_PART; q++)
                        if (t[q] >= 2)
                            bdd_addref(t[q]);
            }
    }
    for (size_t e = k; e < n; e++)
        if (!todo[edge_v[e]])
            sa__put(&tight[e], memo[from != NULL ? (size_t)from[e] : e]);
}

void sa__take_memo_cols(const sa_result *r, const bool *todo, const BDD *memo, BDD *tight,
                        const size_t *first, const size_t *edges)
{
    size_t n = r->n_edges;
    BDD old = 0;
    for (size_t e = 0; e < n; e++)
        old |= tight[e];
    if (old != bddfalse) { /* not fresh slots: edge by edge */
        sa__take_memo(r, todo, memo, NULL, tight);
        return;
    }
    sa__copy_refs(tight, memo, n);
    uint32_t nv = r->n_var, j = 0;
    for (; j + 8 <= nv; j += 8) { /* the columns to do are few: 8 flags at a time */
        uint64_t w;
        memcpy(&w, todo + j, sizeof w);
        if (w == 0)
            continue;
        for (uint32_t k = j; k < j + 8; k++)
            if (todo[k])
                for (size_t q = first[k]; q < first[k + 1]; q++)
                    sa__put(&tight[edges[q]], bddfalse);
    }
    for (; j < nv; j++)
        if (todo[j])
            for (size_t q = first[j]; q < first[j + 1]; q++)
                sa__put(&tight[edges[q]], bddfalse);
}

bool *sa__hint_tight(sa_ctx *c, const BDD *hc, const long *same, BDD *tight)
{
    const sa_result *h = c->opt != NULL ? c->opt->hint : NULL;
    const sa_result *r = c->r;
    /* h->cd_within: hc and own_stale read h's rows as stored (above and
     * sa__hint_offsets), so the comparisons are in one form. */
    if (h == NULL || same == NULL || r->w_sigma != h->w_sigma)
        return NULL;
    /* The graph's memo (exact in ok: everywhere when ok is true), else the
     * hint's own round 0's. */
    const BDD *memo = h->ok == bddtrue ? h->tight_memo : NULL;
    bool *stale = NULL; /* the hint's columns where memo does not hold */
    if (memo == NULL) {
        if (h->own_tight == NULL || sa__c_stored(h) == NULL || h->w_off <= 0)
            return NULL;
        memo = h->own_tight->tight;
        stale = own_stale(c, h);
    }
    long *from = NULL; /* our edge -> the hint's; NULL: the same index */
    bool *todo = hc == sa__c_stored(h) && sa__same_edges(r, h) ? same_columns(c, h, stale)
                                                : mapped_columns(c, h, same, stale, &from);
    if (todo == NULL)
        return NULL;
    if (from == NULL) { /* the columns: the layout's (no pass), or made */
        const size_t *first, *edges;
        sa__layout_columns(c, r, &first, &edges);
        sa__take_memo_cols(r, todo, memo, tight, first, edges);
    } else {
        sa__take_memo(r, todo, memo, from, tight);
    }
    return todo;
}
