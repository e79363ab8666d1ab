/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_elab.c -- elaboration: from the syntax tree to the flat guarded
 * incidence structure of engine/mel.h; also mel_model_parse and
 * mel_model_free.
 *
 * Two passes, because reals, parameters and mode variables may be used
 * before they are declared while integer constants may not:
 *
 *  1. Expand: walk the statements in order, expanding `foreach` loops and
 *     folding conditions that are constant (integer comparisons, with
 *     Kleene three-valued logic so that `i > 1 & g` folds to FALSE when
 *     i = 1). Integer constants get their values here, sequentially. Every
 *     declaration becomes a symbol named by its instance ("x[3]"); equations,
 *     invariants and defining expressions become *items* that remember their
 *     loop environment and their *context*: the chain of mode-dependent
 *     conditionals around them (not yet turned into guards, since the mode
 *     variables they mention may be declared further down).
 *  2. Resolve: turn contexts into guards, walk each item's expressions to
 *     check their names and conditions (an equation statement is walked
 *     once; its later executions, a loop body's, run the plan of that walk:
 *     see "Pass 2: plans"), lower each equation instance into fx trees,
 *     and read the structure from them: the uses of unknowns (variable,
 *     derivative order, absolute guard, source range) grouped into
 *     incidences and order cases, by the front-ends' one incidence pass
 *     (mel_inc.c).
 *
 * Limits (mel_options): objects created (variables, equations, modes,
 * parameters, integer constants, invariants) and loop iterations are each
 * bounded by max_instances, and a loop's trip count is checked against the
 * remaining budget before it runs, so `foreach i in 1..1000000000` fails at
 * once. Statement executions are bounded by 16 * max_instances, and the
 * expression nodes they carry (each execution charges its statement's size,
 * which bounds the work of both passes) by 64 * max_instances, so that a big
 * body inside a big loop cannot run for hours either.
 *
 * Redeclaration: an unknown or an equation may be declared more than once
 * only in different branches of the same conditional statement instance
 * (`if g then y : real else y : real end`); its guard is then the OR.
 *
 * Expressions (issue 38; engine/fx.h): pass 2 lowers each equation
 * instance's sides into fx trees, once, directly with the item's loop
 * environment (see "Pass 2: expressions kept"), and pass 1 records the
 * known quantities (parameters and integer constants, mel_model.knowns).
 * The structure is read from the trees; mel_options.no_expressions drops
 * them afterwards.
 */
#include "mel_int.h"
#include "fx.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INDICES 16
#define NAME_BUF (MEL__MAX_NAME + MAX_INDICES * 24 + 8)

/* ---- Pass-1 records (scratch arena) ----------------------------------------- */

/* A loop index binding; frames are shared by the items created inside. */
typedef struct env {
    uint32_t id; /* the index's name number (mel_ast.h, "Names") */
    long long value;
    const struct env *parent;
    const char *name; /* the index's name (the parser's interned copy) */
} env;

/* One execution of a mode-dependent conditional statement. */
typedef struct condinst {
    const mel__expr *cond;
    const env *env;
    uint64_t seq;
    const mel_guard *guard; /* pass 2, memoised */
    bool done;
} condinst;

/* Being in one branch of a condinst, inside `parent`. NULL is the
 * constant-true context. */
typedef struct ctxnode {
    condinst *ci;
    bool pol; /* true: then-branch */
    const struct ctxnode *parent;
    const mel_guard *guard; /* pass 2, memoised */
    bool done;
} ctxnode;

/* The contexts in which an unknown or an equation was declared. */
typedef struct ctxlist {
    const ctxnode *ctx;
    struct ctxlist *next;
} ctxlist;

/* An unknown or an equation, in declaration order (its symbol's aux): the
 * model's records are written from these once pass 1 has counted them, so
 * no array of them is regrown (and copied) as they come. */
typedef struct obj {
    mel__sym *sym;
    ctxlist *ctx;  /* its declarations' contexts; NULL: one, outside any conditional */
    uint32_t when; /* an equation's mel_equation.when */
    uint32_t cond, cond_pos; /* an equation's mel_equation.cond, cond_pos */
    struct obj *next;
} obj;

typedef struct objlist {
    obj *head, *tail;
    uint32_t n;
} objlist;

typedef enum item_kind { IT_EQ, IT_INV, IT_CHECK } item_kind;

typedef struct item {
    item_kind kind;
    const mel__stmt *s;
    const mel__expr *e; /* IT_CHECK: the defining expression */
    const env *env;
    const ctxnode *ctx;
    uint64_t seq;
    uint32_t eq; /* IT_EQ; IT_CHECK of a parameter: its index in knowns */
    long mode;   /* IT_CHECK of a mode variable: its index; else -1 */
    uint32_t when; /* 0, or k + 1: inside when-clause k */
} item;

/* Items in blocks of the tmp arena, which never move: pass 2 reads them in
 * order, and one array grown by doubling copied every item once more. */
typedef struct iblock {
    struct iblock *next;
    size_t n, cap;
    item it[];
} iblock;

/* A when-clause met in pass 1: its condition is the then-context `yes`. */
typedef struct whenrec {
    const ctxnode *yes;
    const mel__stmt *s;
} whenrec;

/* What pass 1 knows of one name of the text (by its number, mel_ast.h's
 * "Names"), so that declarations and uses find their symbols without
 * writing and hashing instance names: its kind, the instance without an
 * index, and those with one index (x[i]: every MEL loop's) in an array
 * over lo, lo + 1, ... as long as they are dense, else in elab.itab. */
typedef struct nameinfo {
    bool declared;      /* the name or some name[...] is declared */
    bool sparse;        /* some name[i] are in elab.itab */
    bool has_int;       /* the name or some name[...] is an integer constant */
    mel__sym_kind kind; /* of its first declaration */
    uint32_t len;       /* strlen of the name, once declared */
    mel__sym *sym0;     /* the name without index, or NULL */
    long long lo;
    size_t cap, count;  /* dense[0 .. cap), count of them not NULL */
    mel__sym **dense;   /* dense[k] is name[lo + k] or NULL; tmp arena */
    const char *last;   /* the name of the last name[i] made (new_sym), or NULL */
    size_t last_len;    /* its length */
    long long last_i;   /* its i */
    const char *base;   /* the name (the parser's), once declared */
} nameinfo;

/* A growable array of mdae_malloc memory. */
typedef struct vec {
    void *p;
    size_t n, cap;
} vec;

typedef struct elab {
    mel__report *rep;
    mel__arena tmp;            /* pass-1 records */
    mel__arena *ma;            /* the model's arena */
    struct mel_model_priv *priv;
    mel__gfactory gf;
    nameinfo *names;           /* by name number; grown on demand */
    size_t n_names;
    const mel_options *opt;
    bool *define_used;
    size_t max_instances;
    size_t objects, iterations;
    uint64_t seq, max_seq;
    uint64_t work, max_work; /* expression nodes to elaborate (see p1_stmts) */
    bool limit_hit;
    vec modes, invariants;     /* mel_* records */
    objlist vars, eqs;         /* pass 1's unknowns and equations */
    mel_variable *variables;   /* the model's, from vars and eqs after pass 1 */
    mel_equation *equations;
    /* Symbols named with at most one index, found through names[] in pass
     * 1, enter the model's table once it is over, in one go, chained
     * through their `next` here until then. */
    mel__sym *pending;
    size_t n_pending;
    iblock *items, *items_tail;
    size_t use_bound; /* identifiers of the equation items (reserve_uses) */
    mel__uses uses;   /* what the equations' expressions read (mel_inc.c) */
    vec wrecs, whens;          /* whenrec (pass 1), mel_when (the model's) */
    uint32_t n_params, n_ints;
    /* Issue 38: the model's expression pool (NULL: no_expressions) and
     * known quantities (mel_known); the outermost conditional statement
     * being expanded (mel_equation.cond: 0 or k + 1), the nesting of
     * mode-dependent conditionals, and the next cond_pos in its branch. */
    struct fx_pool *fx;
    vec knowns;
    uint32_t n_conds, cur_cond, cond_depth, cond_pos;
    /* Some declared name has a '[' (a quoted 'x[1]'): its instance name
     * may equal one written x[1] (p1_finish checks). */
    bool bracket_names;
    /* Lowering (lower()) looks names up again, quietly: err() reports
     * nothing then (what lower meets was checked, or is in a branch the
     * structure does not elaborate). */
    bool quiet;
    vec memo; /* const fx_node *: lowered forms shared by instances (mel__expr.aux) */
    struct fncache {
        const char *name; /* interned: compared by address */
        uint32_t n;
        fx_fn fn;
    } fns[16]; /* fx_fn_lookup's answers by call name (call_fn) */
    /* pass 1 */
    const env *env;
    const ctxnode *ctx;
    uint32_t cur_when;         /* 0, or k + 1: inside when-clause k */
    /* pass 2: the item being resolved */
    const item *it;
    bool gf_reported;
    uint32_t seen[128]; /* offsets of reported errors (err) */
    size_t n_seen;
    /* An instance name for a message or a lookup by name (inst_text), here
     * rather than in the frames of the recursive walkers. */
    char name[NAME_BUF];
    size_t name_len;
    /* The symbols declared with one index outside their name's dense
     * array, by (name number, index): open addressing, at most half full. */
    struct islot *itab;
    size_t icap, icount;
    /* Pass 2's plans (see "Pass 2: plans"), by statement: open
     * addressing, at most half full; el->sites is the scratch of the one
     * being made. */
    struct plan **ptab;
    size_t pcap, pcount;
    vec sites;
    /* Reuse of a previous version (mel_options.since; "Pass 2: what an
     * edit left alone"): the text, the previous model when its
     * declarations are this one's (else NULL), and what this model keeps
     * for the next version: each equation's statement and loop indices
     * (owned until handed to the model), the last environment written. */
    const char *text;
    size_t len;
    const mel_model *prev;
    bool shared; /* some equation's sides are prev's */
    size_t copied_edges; /* incidences copied from prev (copied_incidences) */
    mel__eqsrc *eqsrc;
    const env *env_last;
    const char *env_text;
    /* Statements found the same bytes as in prev's text (reused_sides),
     * by address, direct-mapped: a loop body's statements are compared
     * once, not once per execution. */
    struct stmt_memo {
        const mel__stmt *s;
        bool same;
    } same_text[64];
    bool *copied; /* by equation: its incidences copied (check_model); NULL */
    /* This text's declarations key (declarations_key), mdae_malloc'ed
     * until handed to the model; NULL when not made. */
    char *key;
    size_t key_len;
    /* opt->since has this text's declarations key (same_key), known
     * before pass 1: it made the same declarations without an error. */
    bool decls_as_since;
    bool replaying; /* a replay (see "Replay"): look-ups index what they find */
    vec folded; /* uint32_t: offsets of the `if`s pass 1 folded (mel_model_priv.folded) */
    /* declarations_key: where statement key_mark's piece starts in the key
     * (a replay's edited condition), when it has one. */
    const mel__stmt *key_mark;
    size_t key_mark_at;
    const mel_variable *shared_variables; /* a replay's unknowns, when prev's */
    vec instances; /* uint32_t: a replayed equation statement's instances (replay_sources) */
    /* A replay: E's instances keep their sources (replay_sources), and
     * eqsrc is prev's when no source moves (replay_copy): then it is
     * neither written nor freed here (mel_model_priv.eqsrc_borrowed). */
    bool instances_same, eqsrc_shared;
    /* A replay of an edit of E's integer conditions only ("Replay:
     * instances an edited condition leaves alone"): the if-expressions'
     * conditions now and before, and their count (0: none such). */
    struct cond_pair {
        const mel__expr *now, *before;
        /* now's lhs, rhs, before's lhs, rhs resolved (atoms_resolved):
         * at >= 0: the loop index `at` steps up from an instance's
         * innermost; ATOM_LITERAL: lit; ATOM_NONE: not an atom of E's loops */
        int at[4];
        long long lit[4];
    } edited[8];
    size_t n_edited;
    bool shifted; /* a replay: the edit moves what follows it (replay_copy) */
    size_t n_before; /* a shifting replay: equations before the edit, but E's (replay_copy) */
    bool rebased; /* a replay: its incidences and unknowns copied (rebase) */
    /* A replay's mel_model_priv.tree_pool being made (replay_copy, then
     * the instances), handed over by trees_placed; tree_own: the value
     * of the trees in the replay's own pool. */
    uint8_t *tree_pool;
    uint8_t tree_own;
    /* The integer conditions run_sites evaluated in the instance being
     * replayed (its if-expressions, the branch taken), which lower()'s
     * fold3 would evaluate again to the same value (lower_if). */
    struct if_fold {
        const mel__expr *e;
        bool yes;
    } ifs[8];
    uint32_t n_ifs;
} elab;

typedef struct islot {
    uint32_t name; /* name number + 1; 0: empty */
    long long idx;
    mel__sym *sym;
} islot;

static const mdae_range no_range = {{0, 0, 0}, {0, 0, 0}};

/* Room for cap elements; false on OOM (reported). */
static bool vec_reserve(elab *el, vec *v, size_t cap, size_t elt)
{
    if (cap <= v->cap)
        return true;
    void *p = cap <= SIZE_MAX / elt ? mdae_realloc(v->p, cap * elt) : NULL;
    if (p == NULL) {
        mel__nomem(el->rep);
        return false;
    }
    v->p = p;
    v->cap = cap;
    return true;
}

/* A new last element, not initialised (callers write it in full); NULL on
 * OOM (reported). */
static void *vec_push(elab *el, vec *v, size_t elt)
{
    if (v->n == v->cap && !vec_reserve(el, v, v->cap ? v->cap * 2 : 16, elt))
        return NULL;
    return (char *)v->p + v->n++ * elt;
}

/* Pass-1 records, written in full by their callers. */
static void *talloc(elab *el, size_t n)
{
    void *p = mel__arena_alloc_raw(&el->tmp, n);
    if (p == NULL)
        mel__nomem(el->rep);
    return p;
}

static size_t islot_at(const elab *el, uint32_t name, long long idx)
{
    uint64_t h = ((uint64_t)name ^ (uint64_t)idx * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
    return (size_t)(h ^ h >> 32) & (el->icap - 1);
}

/* The symbol of itab declared as name[idx] (name: number + 1), or NULL. */
static mel__sym *itab_find(const elab *el, uint32_t name, long long idx)
{
    if (el->icap == 0)
        return NULL;
    for (size_t k = islot_at(el, name, idx);; k = (k + 1) & (el->icap - 1)) {
        const islot *t = &el->itab[k];
        if (t->name == 0)
            return NULL;
        if (t->name == name && t->idx == idx)
            return t->sym;
    }
}

/* Record s as name[idx] (not there yet); false on OOM (reported). */
static bool itab_put(elab *el, uint32_t name, long long idx, mel__sym *s)
{
    if (2 * (el->icount + 1) > el->icap) {
        size_t cap = el->icap ? 2 * el->icap : 64;
        islot *old = el->itab, *t = mdae_calloc(cap, sizeof *t);
        if (t == NULL) {
            mel__nomem(el->rep);
            return false;
        }
        size_t n_old = el->icap;
        el->itab = t;
        el->icap = cap;
        for (size_t k = 0; k < n_old; k++)
            if (old[k].name != 0) {
                size_t a = islot_at(el, old[k].name, old[k].idx);
                while (t[a].name != 0)
                    a = (a + 1) & (cap - 1);
                t[a] = old[k];
            }
        mdae_free(old);
    }
    size_t a = islot_at(el, name, idx);
    while (el->itab[a].name != 0)
        a = (a + 1) & (el->icap - 1);
    el->itab[a] = (islot){name, idx, s};
    el->icount++;
    return true;
}

/* ---- Names ---------------------------------------------------------------------- */

/* What is declared of name number id, or NULL: nothing. */
static const nameinfo *name_get(const elab *el, uint32_t id)
{
    return id < el->n_names && el->names[id].declared ? &el->names[id] : NULL;
}

/* The record of name number id, to declare it; NULL on OOM (reported). */
/* Inline (declare's, a few times an instance, as before replays called it too). */
static inline __attribute__((always_inline)) nameinfo *name_at(elab *el, uint32_t id)
{
    if (id >= el->n_names) {
        size_t n = id < 32 ? 64 : 2 * (size_t)id;
        nameinfo *t = n <= SIZE_MAX / sizeof *t ? mdae_realloc(el->names, n * sizeof *t) : NULL;
        if (t == NULL) {
            mel__nomem(el->rep);
            return NULL;
        }
        memset(t + el->n_names, 0, (n - el->n_names) * sizeof *t);
        el->names = t;
        el->n_names = n;
    }
    return &el->names[id];
}

/* The symbol declared as name[idx], or NULL (ni: name number id's). */
static inline mel__sym *index_find(const elab *el, const nameinfo *ni, uint32_t id, long long idx)
{
    unsigned long long k = (unsigned long long)idx - (unsigned long long)ni->lo;
    mel__sym *s = idx >= ni->lo && k < ni->cap ? ni->dense[k] : NULL;
    if (s == NULL && ni->sparse)
        s = itab_find(el, id + 1, idx);
    return s;
}

/* Record s as name[idx] (not declared yet); false on OOM (reported). The
 * dense array takes the indices from the first one up as long as they stay
 * dense (below lo + 2 count + 64: loops count up, x[1], x[2], ...); the
 * others go to itab. */
static inline __attribute__((always_inline)) bool index_put(elab *el, nameinfo *ni,
                                                             uint32_t id, long long idx,
                                                             mel__sym *s)
{
    if (ni->cap == 0)
        ni->lo = idx;
    unsigned long long k = (unsigned long long)idx - (unsigned long long)ni->lo;
    if (idx < ni->lo || k >= 2 * (unsigned long long)ni->count + 64) {
        ni->sparse = true;
        return itab_put(el, id + 1, idx, s);
    }
    if (k >= ni->cap) {
        size_t cap = 2 * ni->cap > k + 1 ? 2 * ni->cap : (size_t)k + 1;
        cap = cap < 16 ? 16 : cap;
        mel__sym **d = talloc(el, cap * sizeof *d); /* the old array stays behind */
        if (d == NULL)
            return false;
        if (ni->cap > 0)
            memcpy(d, ni->dense, ni->cap * sizeof *d);
        memset(d + ni->cap, 0, (cap - ni->cap) * sizeof *d);
        ni->dense = d;
        ni->cap = cap;
    }
    ni->dense[k] = s;
    ni->count++;
    return true;
}

static void err(elab *el, mdae_range where, const char *fmt, ...) MDAE_PRINTF(3, 4);
/* A semantic error. The same source position is reported once: an error in
 * a loop body would otherwise repeat for every iteration and use up
 * max_errors on one mistake. */
static void err(elab *el, mdae_range where, const char *fmt, ...)
{
    if (el->quiet)
        return;
    if (mel__seen_before(el->rep, MDAE_E_MODEL, where, el->seen,
                         sizeof el->seen / sizeof *el->seen, &el->n_seen))
        return;
    va_list ap;
    va_start(ap, fmt);
    mel__verror(el->rep, MDAE_E_MODEL, where, NAME_BUF + 256, fmt, ap);
    va_end(ap);
}

static void limit(elab *el, mdae_range where)
{
    mel__instance_limit(el->rep, where, el->max_instances, &el->limit_hit);
}

static bool count_object(elab *el, mdae_range where)
{
    if (el->objects >= el->max_instances) {
        limit(el, where);
        return false;
    }
    el->objects++;
    return true;
}

/* The binding of the loop index with name number id, or NULL. */
static const env *env_find(const env *e, uint32_t id)
{
    for (; e != NULL; e = e->parent)
        if (e->id == id)
            return e;
    return NULL;
}

static bool base_is(elab *el, uint32_t id, mel__sym_kind kind)
{
    const nameinfo *ni = name_get(el, id);
    return ni != NULL && ni->kind == kind;
}

/* ---- Integer constant expressions ---------------------------------------------- */

static int eval_int(elab *el, const mel__expr *e, const env *en, uint64_t seq, long long *out);

/* An instance of a name: the values of its indices (x[1,2]: 1, 2). */
typedef struct inst {
    uint32_t n;
    long long v[MAX_INDICES];
} inst;

/* Evaluate the n indices idx (of a name at `where`) into *out; an error is
 * reported and returned. */
static inline int inst_eval(elab *el, uint32_t n, mel__expr *const *idx, mdae_range where,
                            const env *en, uint64_t seq, inst *out)
{
    if (n > MAX_INDICES) {
        err(el, where, "more than %d indices", MAX_INDICES);
        return MDAE_E_MODEL;
    }
    out->n = n;
    for (uint32_t k = 0; k < n; k++) {
        const mel__expr *i = idx[k];
        const env *f = i->kind == MEL_X_ID && i->u.id.n == 0 ? env_find(en, i->u.id.name_id)
                                                              : NULL;
        if (f != NULL) { /* x[i]: eval_int's first case, without the call */
            out->v[k] = f->value;
            continue;
        }
        int rc = eval_int(el, i, en, seq, &out->v[k]);
        if (rc < 0)
            return rc;
    }
    return MDAE_OK;
}

/* Characters of v in decimal, its sign included. Two digits a step: loop
 * indices are mostly below 100. */
static size_t int_width(long long v)
{
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    size_t n = 1 + (v < 0);
    for (; u >= 100; u /= 100)
        n += 2;
    return n + (u >= 10);
}

/* Write the digits of u so that they end at p; where they start. Two
 * digits a step, from a table of the hundred pairs. */
static char *put_digits(char *p, unsigned long long u)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    for (; u >= 100; u /= 100) {
        p -= 2;
        memcpy(p, pairs + 2 * (u % 100), 2);
    }
    if (u >= 10) {
        p -= 2;
        memcpy(p, pairs + 2 * u, 2);
    } else {
        *--p = (char)('0' + u);
    }
    return p;
}

/* The length of the instance name of `in`, "x" or "x[1,2]", whose base name
 * has blen bytes. */
static size_t inst_len(size_t blen, const inst *in)
{
    size_t len = blen + (in->n > 0 ? in->n + 1 : 0); /* brackets and commas */
    for (uint32_t k = 0; k < in->n; k++)
        len += int_width(in->v[k]);
    return len;
}

/* Write the instance name of `in` (base name base[0 .. blen)), of length
 * len (inst_len), at buf and a NUL after it. From the end backwards, so
 * that each index is written in one pass over its digits (not snprintf:
 * every instance is named here). */
static inline void inst_write(char *buf, size_t len, const char *base, size_t blen,
                              const inst *in)
{
    char *p = buf + len;
    *p = '\0';
    for (uint32_t k = in->n; k-- > 0;) {
        *--p = k + 1 == in->n ? ']' : ',';
        long long v = in->v[k];
        p = put_digits(p, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);
        if (v < 0)
            *--p = '-';
    }
    if (in->n > 0)
        *--p = '[';
    memcpy(buf, base, blen);
}

/* The instance name of `in` (base name `base`) in el->name, for a message or
 * a lookup by name; valid until the next call. NAME_BUF holds a name of
 * MEL__MAX_NAME bytes and MAX_INDICES indices of at most 21 characters. */
static const char *inst_text(elab *el, const char *base, const inst *in)
{
    size_t blen = strlen(base);
    el->name_len = inst_len(blen, in);
    inst_write(el->name, el->name_len, base, blen, in);
    return el->name;
}

/* The symbol that identifier e (x, x[i], x[i,j]; not a loop index) names:
 * MDAE_OK and *out, or *out NULL when it is undeclared, and then el->name
 * holds its instance name for the message. An index's error is reported and
 * returned. The same as looking the instance name up in the model's table,
 * which only names of two or more indices need. */
static int lookup_named(elab *el, const mel__expr *e, const env *en, uint64_t seq,
                        const mel__sym **out);

static int lookup(elab *el, const mel__expr *e, const env *en, uint64_t seq, const mel__sym **out)
{
    const nameinfo *ni = name_get(el, e->u.id.name_id);
    *out = NULL;
    if (ni != NULL && e->u.id.n <= 1) {
        if (e->u.id.n == 0) {
            *out = ni->sym0;
        } else {
            long long v;
            const mel__expr *i = e->u.id.args[0];
            const env *f = i->kind == MEL_X_ID && i->u.id.n == 0 ? env_find(en, i->u.id.name_id)
                                                                  : NULL;
            if (f != NULL) { /* x[i]: eval_int's first case, without the call */
                v = f->value;
            } else {
                int rc = eval_int(el, i, en, seq, &v);
                if (rc < 0)
                    return rc;
            }
            *out = index_find(el, ni, e->u.id.name_id, v);
        }
        if (*out != NULL)
            return MDAE_OK;
    }
    return lookup_named(el, e, en, seq, out);
}

/* lookup's way for the rest: by the instance name. */
static __attribute__((noinline)) int lookup_named(elab *el, const mel__expr *e, const env *en,
                                                  uint64_t seq, const mel__sym **out)
{
    inst in;
    int rc = inst_eval(el, e->u.id.n, e->u.id.args, e->where, en, seq, &in);
    if (rc < 0)
        return rc;
    inst_text(el, e->u.id.name, &in);
    /* Names of two indices or more; else a quoted spelling of another's
     * instance name ('x[1]' for x[1] or the converse; only in the table
     * once pass 1 is over). */
    mel__sym *s = mel__sym_findn(&el->priv->syms, el->name, el->name_len);
    *out = s;
    /* A replay (pass 1 did not index the names): the next look-up of
     * name[i], lowering's after the walk's, finds it as pass 1's would. */
    nameinfo *ni = el->replaying && s != NULL && in.n == 1
                       ? (nameinfo *)name_get(el, e->u.id.name_id)
                       : NULL;
    if (ni != NULL && !index_put(el, ni, e->u.id.name_id, in.v[0], s))
        return MDAE_E_NOMEM;
    return MDAE_OK;
}

static int overflow(elab *el, const mel__expr *e)
{
    err(el, e->where, "integer overflow in constant expression");
    return MDAE_E_MODEL;
}

static int ipow(elab *el, const mel__expr *e, long long b, long long x, long long *out)
{
    if (x < 0) {
        err(el, e->where, "negative exponent in integer constant expression");
        return MDAE_E_MODEL;
    }
    long long r = 1;
    while (x > 0) { /* square-and-multiply: O(log x) steps whatever x */
        if ((x & 1) && __builtin_mul_overflow(r, b, &r))
            return overflow(el, e);
        x >>= 1;
        if (x > 0 && __builtin_mul_overflow(b, b, &b))
            return overflow(el, e);
    }
    *out = r;
    return MDAE_OK;
}

/* The value of identifier e, an integer constant declared before seq. */
static int eval_const(elab *el, const mel__expr *e, const env *en, uint64_t seq, long long *out)
{
    const mel__sym *s;
    int rc = lookup(el, e, en, seq, &s);
    if (rc < 0)
        return rc;
    if (s == NULL) {
        err(el, e->where, "undeclared integer constant '%s'", el->name);
        return MDAE_E_MODEL;
    }
    if (s->kind != MEL_SYM_INT) {
        err(el, e->where, "'%s' is not an integer constant", s->name);
        return MDAE_E_MODEL;
    }
    if (s->seq >= seq) {
        err(el, e->where, "integer constant '%s' used before its declaration", s->name);
        return MDAE_E_MODEL;
    }
    *out = s->value;
    return MDAE_OK;
}

static int eval_int(elab *el, const mel__expr *e, const env *en, uint64_t seq, long long *out)
{
    long long a, b;
    int rc;
    switch (e->kind) {
    case MEL_X_NUM:
        if (!e->u.num.is_int) {
            err(el, e->where, "expected an integer, found a real number");
            return MDAE_E_MODEL;
        }
        *out = e->u.num.ival;
        return MDAE_OK;
    case MEL_X_ID:
        if (e->u.id.n == 0) {
            const env *f = env_find(en, e->u.id.name_id);
            if (f != NULL) {
                *out = f->value;
                return MDAE_OK;
            }
        }
        return eval_const(el, e, en, seq, out);
    case MEL_X_NEG:
        if ((rc = eval_int(el, e->u.kid, en, seq, &a)) < 0)
            return rc;
        if (a == LLONG_MIN)
            return overflow(el, e);
        *out = -a;
        return MDAE_OK;
    case MEL_X_ADD:
    case MEL_X_MUL:
        if ((rc = eval_int(el, e->u.nary.kids[0], en, seq, &a)) < 0)
            return rc;
        for (uint32_t k = 1; k < e->u.nary.n; k++) {
            const mel__expr *kid = e->u.nary.kids[k];
            if ((rc = eval_int(el, kid, en, seq, &b)) < 0)
                return rc;
            bool ovf = false;
            switch (e->u.nary.ops[k]) {
            case '+': ovf = __builtin_add_overflow(a, b, &a); break;
            case '-': ovf = __builtin_sub_overflow(a, b, &a); break;
            case '*': ovf = __builtin_mul_overflow(a, b, &a); break;
            default: /* '/': truncating integer division */
                if (b == 0) {
                    err(el, kid->where, "division by zero in integer constant expression");
                    return MDAE_E_MODEL;
                }
                if (a == LLONG_MIN && b == -1)
                    ovf = true;
                else
                    a /= b;
                break;
            }
            if (ovf)
                return overflow(el, e);
        }
        *out = a;
        return MDAE_OK;
    case MEL_X_POW:
        if ((rc = eval_int(el, e->u.bin.lhs, en, seq, &a)) < 0 ||
            (rc = eval_int(el, e->u.bin.rhs, en, seq, &b)) < 0)
            return rc;
        return ipow(el, e, a, b, out);
    default:
        err(el, e->where, "expected an integer constant expression");
        return MDAE_E_MODEL;
    }
}

/* Does e look like an integer expression (int literals, loop indices,
 * integer constants, + - * / ^)? Structural, so it never reports; eval_int
 * then gives precise errors. */
static bool is_int_expr(elab *el, const mel__expr *e, const env *en)
{
    switch (e->kind) {
    case MEL_X_NUM: return e->u.num.is_int;
    case MEL_X_ID:
        return (e->u.id.n == 0 && env_find(en, e->u.id.name_id) != NULL) ||
               base_is(el, e->u.id.name_id, MEL_SYM_INT);
    case MEL_X_NEG: return is_int_expr(el, e->u.kid, en);
    case MEL_X_POW:
        return is_int_expr(el, e->u.bin.lhs, en) && is_int_expr(el, e->u.bin.rhs, en);
    case MEL_X_ADD:
    case MEL_X_MUL:
        for (uint32_t k = 0; k < e->u.nary.n; k++)
            if (!is_int_expr(el, e->u.nary.kids[k], en))
                return false;
        return true;
    default: return false;
    }
}

static bool cmp_ll(int op, long long a, long long b)
{
    switch (op) {
    case MEL_CMP_LT: return a < b;
    case MEL_CMP_LE: return a <= b;
    case MEL_CMP_GT: return a > b;
    case MEL_CMP_GE: return a >= b;
    case MEL_CMP_EQ: return a == b;
    default: return a != b;
    }
}

/* ---- Pass 1: three-valued folding of conditions ----------------------------------- */

enum { TRI_FALSE, TRI_TRUE, TRI_UNKNOWN, TRI_ERROR };

static int fold3(elab *el, const mel__expr *e, const env *en)
{
    int a, b;
    switch (e->kind) {
    case MEL_X_BOOL: return e->u.b ? TRI_TRUE : TRI_FALSE;
    case MEL_X_NOT:
        a = fold3(el, e->u.kid, en);
        return a == TRI_TRUE ? TRI_FALSE : a == TRI_FALSE ? TRI_TRUE : a;
    case MEL_X_AND:
    case MEL_X_OR: {
        int absorb = e->kind == MEL_X_AND ? TRI_FALSE : TRI_TRUE;
        int r = e->kind == MEL_X_AND ? TRI_TRUE : TRI_FALSE;
        for (uint32_t k = 0; k < e->u.nary.n; k++) {
            a = fold3(el, e->u.nary.kids[k], en);
            if (a == TRI_ERROR)
                return a;
            if (a == absorb)
                r = absorb;
            else if (a == TRI_UNKNOWN && r != absorb)
                r = TRI_UNKNOWN;
        }
        return r;
    }
    case MEL_X_CMP: {
        const mel__expr *l = e->u.bin.lhs, *r = e->u.bin.rhs;
        if (is_int_expr(el, l, en) && is_int_expr(el, r, en)) {
            long long x, y;
            if (eval_int(el, l, en, el->seq, &x) < 0 || eval_int(el, r, en, el->seq, &y) < 0)
                return TRI_ERROR;
            return cmp_ll(e->u.bin.op, x, y) ? TRI_TRUE : TRI_FALSE;
        }
        if (e->u.bin.op != MEL_CMP_EQ && e->u.bin.op != MEL_CMP_NE)
            return TRI_UNKNOWN;
        a = fold3(el, l, en);
        if (a == TRI_ERROR)
            return a;
        b = fold3(el, r, en);
        if (b == TRI_ERROR)
            return b;
        if (a == TRI_UNKNOWN || b == TRI_UNKNOWN)
            return TRI_UNKNOWN;
        return ((a == b) == (e->u.bin.op == MEL_CMP_EQ)) ? TRI_TRUE : TRI_FALSE;
    }
    case MEL_X_IF:
        a = fold3(el, e->u.ite.c, en);
        if (a == TRI_TRUE)
            return fold3(el, e->u.ite.a, en);
        if (a == TRI_FALSE)
            return fold3(el, e->u.ite.b, en);
        if (a == TRI_ERROR)
            return a;
        a = fold3(el, e->u.ite.a, en);
        b = fold3(el, e->u.ite.b, en);
        if (a == TRI_ERROR || b == TRI_ERROR)
            return TRI_ERROR;
        return a == b ? a : TRI_UNKNOWN;
    default: return TRI_UNKNOWN;
    }
}

/* ---- Pass 1: statements ------------------------------------------------------ */

static void p1_stmts(elab *el, const mel__stmt *s);

/* Are the contexts a and b in different branches of one conditional? */
static bool disjoint(const ctxnode *a, const ctxnode *b)
{
    for (const ctxnode *x = a; x != NULL; x = x->parent)
        for (const ctxnode *y = b; y != NULL; y = y->parent)
            if (x->ci == y->ci && x->pol != y->pol)
                return true;
    return false;
}

static item *new_item(elab *el, item_kind kind, const mel__stmt *s)
{
    iblock *b = el->items_tail;
    if (b == NULL || b->n == b->cap) {
        size_t cap = b ? 2 * b->cap : 16;
        iblock *nb = talloc(el, sizeof *nb + cap * sizeof(item));
        if (nb == NULL)
            return NULL;
        *nb = (iblock){NULL, 0, cap};
        if (b != NULL)
            b->next = nb;
        else
            el->items = nb;
        el->items_tail = b = nb;
    }
    item *it = &b->it[b->n++];
    *it = (item){.kind = kind, .s = s, .env = el->env, .ctx = el->ctx, .seq = el->seq,
                 .mode = -1, .when = el->cur_when};
    return it;
}

static const char *kind_name(mel__sym_kind k)
{
    switch (k) {
    case MEL_SYM_VAR: return "a real variable";
    case MEL_SYM_PARAM: return "a parameter";
    case MEL_SYM_MODE: return "a boolean";
    case MEL_SYM_INT: return "an integer constant";
    case MEL_SYM_EQN: return "an equation";
    }
    return "a name";
}

/* The symbol already declared as instance `in` of label l, or NULL. */
static mel__sym *declared(elab *el, const mel__label *l, const inst *in)
{
    const nameinfo *ni = name_get(el, l->name_id);
    if (ni == NULL)
        return NULL;
    if (l->n == 0)
        return ni->sym0;
    if (l->n == 1)
        return index_find(el, ni, l->name_id, in->v[0]);
    inst_text(el, l->name, in);
    return mel__sym_findn(&el->priv->syms, el->name, el->name_len);
}

/* Record the new symbol s of label l (instance `in`, kind k) in ni, its
 * name's record; false on OOM (reported). */
static bool record(elab *el, nameinfo *ni, const mel__label *l, const inst *in, mel__sym_kind k,
                   mel__sym *s)
{
    if (!ni->declared) {
        ni->declared = true;
        ni->kind = k;
        ni->base = l->name;
    }
    ni->has_int = ni->has_int || k == MEL_SYM_INT;
    if (l->n == 0)
        ni->sym0 = s;
    else if (l->n == 1)
        return index_put(el, ni, l->name_id, in->v[0], s);
    return true;
}

/* Is the last name[i] made (ni) name[v - 1], without a sign, and does
 * name[v] have as many digits (not x[9], x[10])? name_after then writes
 * name[v]'s name. */
static bool follows_last(const nameinfo *ni, const inst *in)
{
    if (in->n != 1 || ni->last == NULL || in->v[0] <= 0 || ni->last_i != in->v[0] - 1)
        return false;
    MDAE_ASSERT(ni->last_len >= 3 && ni->last[ni->last_len - 1] == ']');
    for (const char *p = ni->last + ni->last_len - 2; *p != '['; p--)
        if (*p != '9')
            return true;
    return false;
}

/* The name of name[v] (len bytes) at buf, from that of name[v - 1] (ni,
 * follows_last): a copy with its last digits counted up, as a loop
 * declares x[1], x[2], ... (writing the digits again, inst_len and
 * inst_write, were a fifth of pass 1 on the brake). */
static void name_after(char *buf, const nameinfo *ni, size_t len)
{
    MDAE_ASSERT(len == ni->last_len);
    memcpy(buf, ni->last, len);
    char *p = buf + len - 2;
    for (; *p == '9'; p--)
        *p = '0';
    MDAE_ASSERT(*p >= '0' && *p < '9');
    (*p)++;
}

/* A new symbol named by instance `in` of label l (ni: its name's record),
 * its name written in place. It enters the model's table at once when it
 * has two indices or more (pass 1 finds those by name), else with the
 * others after pass 1 (el->pending). NULL on OOM (reported). */
static mel__sym *new_sym(elab *el, nameinfo *ni, const mel__label *l, const inst *in)
{
    if (ni->len == 0) {
        ni->len = (uint32_t)strlen(l->name); /* at most MEL__MAX_NAME */
        el->bracket_names = el->bracket_names || memchr(l->name, '[', ni->len) != NULL;
    }
    bool after = follows_last(ni, in);
    size_t len = after ? ni->last_len : inst_len(ni->len, in);
    mel__sym *s = mel__sym_new(el->ma, len);
    if (s == NULL) {
        mel__nomem(el->rep);
        return NULL;
    }
    if (after)
        name_after((char *)s->name, ni, len);
    else
        inst_write((char *)s->name, len, l->name, ni->len, in);
    if (in->n == 1) {
        ni->last = s->name;
        ni->last_len = len;
        ni->last_i = in->v[0];
    }
    s->hash = mel__hash(s->name, len);
    if (in->n < 2) {
        s->next = el->pending;
        el->pending = s;
        el->n_pending++;
    } else if (mel__sym_insert(&el->priv->syms, s) < 0) {
        mel__nomem(el->rep);
        return NULL;
    }
    return s;
}

/* A new unknown or equation s, the last of objs (s->index: its number);
 * false on OOM (reported). */
static bool new_obj(elab *el, mel__sym *s, objlist *objs)
{
    obj *o = talloc(el, sizeof *o);
    ctxlist *c = el->ctx != NULL ? talloc(el, sizeof *c) : NULL;
    if (o == NULL || (c == NULL && el->ctx != NULL))
        return false;
    if (c != NULL)
        *c = (ctxlist){el->ctx, NULL};
    *o = (obj){s, c, el->cur_when, 0, 0, NULL};
    if (objs->tail != NULL)
        objs->tail->next = o;
    else
        objs->head = o;
    objs->tail = o;
    s->aux = o;
    s->index = objs->n++;
    return true;
}

/* Register instance `in` of label l, of kind k; NULL on error (reported).
 * *again is set when the name is a compatible redeclaration (same kind,
 * disjoint branches). An unknown or an equation (objs: the list of its
 * kind, else NULL) gets its object and its number. */
static mel__sym *declare(elab *el, const mel__label *l, const inst *in, mel__sym_kind k,
                         mdae_range where, objlist *objs, bool *again)
{
    *again = false;
    /* Declared again, or a loop index: with the previous version's
     * declarations (el->decls_as_since), an error there, so neither
     * outside conditionals, where only an error may declare a name
     * again (the look-up a tenth of declare on the brake). */
    bool fresh = el->decls_as_since && el->ctx == NULL;
    mel__sym *s = fresh ? NULL : declared(el, l, in);
    if (s != NULL) {
        obj *o = s->kind == k && objs != NULL ? s->aux : NULL;
        if (o != NULL && o->ctx != NULL && el->ctx != NULL) {
            bool ok = true;
            for (ctxlist *c = o->ctx; c != NULL; c = c->next)
                ok = ok && c->ctx != NULL && disjoint(c->ctx, el->ctx);
            if (ok) {
                ctxlist *c = talloc(el, sizeof *c);
                if (c == NULL)
                    return NULL;
                *c = (ctxlist){el->ctx, NULL};
                ctxlist **tail = &o->ctx;
                while (*tail != NULL) /* declaration order, for readable guards */
                    tail = &(*tail)->next;
                *tail = c;
                *again = true;
                return s;
            }
        }
        err(el, where, "'%s' is already declared as %s (line %u)", inst_text(el, l->name, in),
            kind_name(s->kind), (unsigned)s->where.start.line);
        return NULL;
    }
    if (!fresh && env_find(el->env, l->name_id) != NULL) {
        err(el, where, "'%s' is a loop index", l->name);
        return NULL;
    }
    nameinfo *ni = name_at(el, l->name_id);
    s = ni != NULL ? new_sym(el, ni, l, in) : NULL;
    if (s == NULL)
        return NULL;
    s->kind = k;
    s->seq = el->seq;
    s->where = where;
    if (!record(el, ni, l, in, k, s))
        return NULL;
    return objs == NULL || new_obj(el, s, objs) ? s : NULL;
}

/* The value of integer constant `in` of st: from the last -D of its name,
 * else from its definition; false on error (reported). */
static bool int_value(elab *el, const mel__stmt *st, const inst *in, long long *value,
                      bool *defined_out)
{
    const mel__label *l = &st->u.decl.label;
    const char *name = inst_text(el, l->name, in);
    bool defined = false;
    for (size_t i = 0; i < el->opt->n_defines; i++) {
        const char *dn = el->opt->defines[i].name;
        if (dn != NULL && strcmp(dn, name) == 0) { /* the last one wins, like cc -D */
            *value = el->opt->defines[i].value;
            el->define_used[i] = true;
            defined = true;
        }
    }
    *defined_out = defined;
    if (defined)
        return true;
    if (st->u.decl.init == NULL) {
        err(el, l->where, "integer constant '%s' needs a value ('%s : integer = ...')", name,
            name);
        return false;
    }
    return eval_int(el, st->u.decl.init, el->env, el->seq, value) >= 0;
}

static const fx_node *lower(elab *el, const mel__expr *e, const env *en, uint64_t seq,
                            bool *dep);

/* Known quantity s->index (mel.h, mel_known) of declaration st, when
 * expressions are kept: an integer constant's binding is lowered here
 * (init, or its value when a -D set it: init NULL), a parameter's in
 * pass 2 (p2_item). OOM is the pool's (checked at the end) or reported. */
static void new_known(elab *el, const mel__sym *s, const mel__stmt *st, const mel__expr *init)
{
    if (el->fx == NULL)
        return;
    MDAE_ASSERT(s->index == el->knowns.n);
    mel_known *k = vec_push(el, &el->knowns, sizeof *k);
    if (k == NULL)
        return;
    bool is_int = s->kind == MEL_SYM_INT;
    mel__type ty = st->u.decl.type;
    *k = (mel_known){.name = (char *)s->name, .where = st->where,
                     .kind = ty == MEL_TY_INTEGER   ? MEL_KNOWN_INTEGER
                             : ty == MEL_TY_BOOLEAN ? MEL_KNOWN_BOOLEAN
                                                    : MEL_KNOWN_REAL,
                     .value = is_int ? (double)s->value : 0, .known = is_int,
                     .constant = st->u.decl.prefix == MEL_PFX_CONSTANT};
    if (st->u.decl.has_value) { /* given, not computed (known_values) */
        k->value = st->u.decl.value;
        k->known = true;
    }
    if (is_int && init != NULL) {
        el->quiet = true; /* eval_int has checked init */
        bool dep = false;
        k->binding = lower(el, init, el->env, el->seq, &dep);
        el->quiet = false;
    } else if (is_int) {
        k->binding = fx_num(el->fx, (double)s->value, true, st->where);
    }
}

/* The Boolean parameter without `(value = v)` that mode-variable
 * declaration `in` of l (outside conditional statements) names again, or
 * NULL: `b : parameter boolean; b : boolean;` is one Boolean, fixed but of
 * unknown value, that conditions read as a mode variable (as the Modelica
 * importer makes an atom of a parameter it cannot evaluate, under the
 * parameter's name). Its known quantity stays; its name now names the mode
 * variable. */
static mel__sym *open_boolean(elab *el, const mel__label *l, const inst *in)
{
    if (l->n != 0 || el->ctx != NULL)
        return NULL;
    mel__sym *s = declared(el, l, in);
    if (s == NULL || s->kind != MEL_SYM_PARAM || !s->open_boolean)
        return NULL;
    s->kind = MEL_SYM_MODE;
    s->open_boolean = false; /* a third declaration is an error */
    return s;
}

static void p1_decl(elab *el, const mel__stmt *st)
{
    const mel__label *l = &st->u.decl.label;
    inst in;
    if (inst_eval(el, l->n, l->idx, l->where, el->env, el->seq, &in) < 0)
        return;
    mel__type ty = st->u.decl.type;
    const mel__expr *init = st->u.decl.init;
    bool prefixed = st->u.decl.prefix != MEL_PFX_NONE;
    mel__sym_kind k = prefixed                 ? MEL_SYM_PARAM
                      : ty == MEL_TY_INTEGER ? MEL_SYM_INT
                      : ty == MEL_TY_BOOLEAN ? MEL_SYM_MODE
                      : init != NULL         ? MEL_SYM_PARAM
                                             : MEL_SYM_VAR;
    if (k != MEL_SYM_VAR && el->ctx != NULL) {
        err(el, l->where, "%s cannot be declared under a mode-dependent condition ('%s')",
            k == MEL_SYM_INT ? "an integer constant" : k == MEL_SYM_MODE ? "a boolean" : "a parameter",
            inst_text(el, l->name, &in));
        return;
    }
    long long value = 0;
    bool defined = false;
    if (k == MEL_SYM_INT && !int_value(el, st, &in, &value, &defined))
        return;
    if (!count_object(el, st->where))
        return;
    bool again = false;
    mel__sym *s = k == MEL_SYM_MODE ? open_boolean(el, l, &in) : NULL;
    if (s == NULL)
        s = declare(el, l, &in, k, st->where, k == MEL_SYM_VAR ? &el->vars : NULL, &again);
    if (s == NULL || again)
        return;
    switch (k) {
    case MEL_SYM_INT:
        s->value = value;
        s->index = el->n_params + el->n_ints++;
        new_known(el, s, st, defined ? NULL : init);
        return;
    case MEL_SYM_PARAM: {
        s->index = el->n_params++ + el->n_ints;
        s->open_boolean = ty == MEL_TY_BOOLEAN && !st->u.decl.has_value && l->n == 0;
        new_known(el, s, st, NULL);
        item *it = init != NULL ? new_item(el, IT_CHECK, st) : NULL;
        if (it != NULL) {
            it->e = init;
            it->eq = s->index;
        }
        return;
    }
    case MEL_SYM_MODE: {
        s->index = (uint32_t)el->modes.n;
        mel_mode *m = vec_push(el, &el->modes, sizeof *m);
        if (m == NULL)
            return;
        *m = (mel_mode){.name = (char *)s->name, .where = st->where, .reads_var = -1};
        if (init != NULL) {
            item *it = new_item(el, IT_CHECK, st);
            if (it != NULL) {
                it->e = init;
                it->mode = (long)s->index;
            }
        }
        return;
    }
    case MEL_SYM_VAR: /* declare numbered it */
    case MEL_SYM_EQN: return;
    }
}

static void p1_equ(elab *el, const mel__stmt *st)
{
    const mel__label *l = &st->u.equ.label;
    inst in;
    if (inst_eval(el, l->n, l->idx, l->where, el->env, el->seq, &in) < 0)
        return;
    if (!count_object(el, st->where))
        return;
    bool again;
    mel__sym *s = declare(el, l, &in, MEL_SYM_EQN, st->where, &el->eqs, &again);
    if (s == NULL)
        return;
    uint32_t pos = el->cur_cond != 0 ? el->cond_pos++ : 0;
    if (!again) {
        obj *o = s->aux;
        o->cond = el->cur_cond;
        o->cond_pos = pos;
    }
    if (again && ((const obj *)s->aux)->when != el->cur_when) {
        err(el, l->where, "equation '%s' is declared both in and out of a when-clause (or in "
                          "two of them)", inst_text(el, l->name, &in));
        return;
    }
    item *it = new_item(el, IT_EQ, st);
    if (it != NULL) {
        it->eq = s->index;
        el->use_bound += st->ids;
    }
}

static void p1_for(elab *el, const mel__stmt *st)
{
    long long lo, hi;
    if (eval_int(el, st->u.loop.lo, el->env, el->seq, &lo) < 0 ||
        eval_int(el, st->u.loop.hi, el->env, el->seq, &hi) < 0)
        return;
    const char *name = st->u.loop.index;
    uint32_t id = st->u.loop.index_id;
    if (env_find(el->env, id) != NULL || name_get(el, id) != NULL) {
        err(el, st->u.loop.index_where, "loop index '%s' hides another name", name);
        return;
    }
    if (hi < lo)
        return;
    /* hi - lo fits an unsigned long long since hi >= lo. */
    unsigned long long span = (unsigned long long)hi - (unsigned long long)lo;
    if (span >= el->max_instances - el->iterations) {
        limit(el, st->where);
        return;
    }
    el->iterations += (size_t)span + 1;
    const env *saved = el->env;
    for (long long v = lo;; v++) {
        env *f = talloc(el, sizeof *f);
        if (f == NULL)
            break;
        *f = (env){id, v, saved, name};
        el->env = f;
        p1_stmts(el, st->u.loop.body);
        if (v == hi || el->rep->stop)
            break;
    }
    el->env = saved;
}

/* Remember that pass 1 folded an execution of `if` statement st
 * (mel_model_priv.folded; once a run of executions). */
static void note_folded(elab *el, const mel__stmt *st)
{
    const uint32_t *f = el->folded.p;
    uint32_t at = st->where.start.offset;
    for (size_t k = el->folded.n, j = 0; k-- > 0 && j < 8; j++)
        if (f[k] == at)
            return;
    uint32_t *p = vec_push(el, &el->folded, sizeof *p);
    if (p != NULL)
        *p = at;
}

static void p1_if(elab *el, const mel__stmt *st)
{
    int t = fold3(el, st->u.cond.cond, el->env);
    if (t == TRI_ERROR)
        return;
    if (t != TRI_UNKNOWN)
        note_folded(el, st);
    if (t == TRI_TRUE) {
        p1_stmts(el, st->u.cond.body);
        return;
    }
    if (t == TRI_FALSE) {
        p1_stmts(el, st->u.cond.orelse);
        return;
    }
    condinst *ci = talloc(el, sizeof *ci);
    ctxnode *yes = talloc(el, sizeof *yes), *no = talloc(el, sizeof *no);
    if (ci == NULL || yes == NULL || no == NULL)
        return;
    const ctxnode *saved = el->ctx;
    *ci = (condinst){st->u.cond.cond, el->env, el->seq, NULL, false};
    *yes = (ctxnode){ci, true, saved, NULL, false};
    *no = (ctxnode){ci, false, saved, NULL, false};
    /* mel_equation.cond_pos, as the Modelica importer counts: both
     * branches start where the conditional starts (an outermost one at 0),
     * what follows it comes after its longer branch; so an `else if` that
     * is a whole else-branch numbers its branches as Modelica's elseif */
    if (el->cond_depth++ == 0) { /* mel_equation.cond */
        el->cur_cond = ++el->n_conds;
        el->cond_pos = 0;
    }
    uint32_t start = el->cond_pos;
    el->ctx = yes;
    p1_stmts(el, st->u.cond.body);
    uint32_t end = el->cond_pos;
    el->cond_pos = start;
    el->ctx = no;
    p1_stmts(el, st->u.cond.orelse);
    el->ctx = saved;
    el->cond_pos = el->cond_pos > end ? el->cond_pos : end;
    if (--el->cond_depth == 0) {
        el->cur_cond = 0;
        el->cond_pos = 0;
    }
}

/* `when c then body end` (mel.h, mel_when). Restrictions, each a located
 * error: not inside an `if` or another `when` (the transient modes are the
 * modes where c holds, whatever else holds: a condition around it would
 * make that ambiguous); c not constant (it must be able to become true);
 * no declarations or invariants in the body (checked where those are). */
static void p1_when(elab *el, const mel__stmt *st)
{
    const mel__expr *c = st->u.cond.cond;
    if (el->ctx != NULL || el->cur_when != 0) {
        err(el, (mdae_range){st->where.start, c->where.end},
            "a 'when' cannot be inside %s: transient modes are declared at the top level "
            "(or in a foreach)", el->cur_when != 0 ? "another 'when'" : "an 'if'");
        return;
    }
    int t = fold3(el, c, el->env);
    if (t == TRI_ERROR)
        return;
    if (t != TRI_UNKNOWN) {
        err(el, c->where, "the condition of a 'when' is always %s: it never becomes true",
            t == TRI_TRUE ? "true" : "false");
        return;
    }
    condinst *ci = talloc(el, sizeof *ci);
    ctxnode *yes = talloc(el, sizeof *yes);
    whenrec *w = vec_push(el, &el->wrecs, sizeof *w);
    if (ci == NULL || yes == NULL || w == NULL)
        return;
    *ci = (condinst){c, el->env, el->seq, NULL, false};
    *yes = (ctxnode){ci, true, NULL, NULL, false};
    *w = (whenrec){yes, st};
    el->cur_when = (uint32_t)el->wrecs.n;
    el->ctx = yes;
    p1_stmts(el, st->u.cond.body);
    el->ctx = NULL;
    el->cur_when = 0;
}

/* Declarations and invariants are not allowed in a when-body. */
static bool outside_when(elab *el, const mel__stmt *s)
{
    if (el->cur_when == 0)
        return true;
    err(el, s->where, "a when-body holds equations only: %s belong outside the 'when'",
        s->kind == MEL_S_INV ? "invariants" : "declarations");
    return false;
}

static void p1_stmts(elab *el, const mel__stmt *s)
{
    for (; s != NULL && !el->rep->stop; s = s->next) {
        el->work += (uint64_t)s->size + 1;
        if (++el->seq > el->max_seq || el->work > el->max_work) {
            limit(el, s->where);
            return;
        }
        switch (s->kind) {
        case MEL_S_DECL:
            if (outside_when(el, s))
                p1_decl(el, s);
            break;
        case MEL_S_EQU: p1_equ(el, s); break;
        case MEL_S_INV:
            if (outside_when(el, s))
                new_item(el, IT_INV, s);
            break;
        case MEL_S_IF: p1_if(el, s); break;
        case MEL_S_WHEN: p1_when(el, s); break;
        case MEL_S_FOR: p1_for(el, s); break;
        }
    }
}

/* Two declarations with one instance name, spelt differently: 'x[1]'
 * (a quoted name) and x[1]. Only when some declared name has a '['. */
static void check_spellings(elab *el)
{
    const mel__symtab *t = &el->priv->syms;
    for (size_t b = 0; b < t->cap; b++)
        for (const mel__sym *s = t->buckets[b]; s != NULL; s = s->next)
            for (const mel__sym *u = s->next; u != NULL; u = u->next)
                if (u->hash == s->hash && strcmp(u->name, s->name) == 0) {
                    const mel__sym *first = s->seq <= u->seq ? s : u, *later = s == first ? u : s;
                    err(el, later->where, "'%s' is already declared as %s (line %u)",
                        later->name, kind_name(first->kind), (unsigned)first->where.start.line);
                }
}

/* After pass 1: the pending symbols enter the model's table, and the model's
 * unknowns and equations are written from their objects (guards TRUE until
 * pass 2). Out of memory is reported. */
static void p1_finish(elab *el)
{
    if (mel__sym_insert_list(&el->priv->syms, el->pending, el->n_pending) < 0) {
        mel__nomem(el->rep);
        return;
    }
    el->pending = NULL;
    uint32_t nv = el->vars.n, ne = el->eqs.n;
    el->variables = nv > 0 ? mdae_malloc(nv * sizeof *el->variables) : NULL;
    el->equations = ne > 0 ? mdae_malloc(ne * sizeof *el->equations) : NULL;
    if ((nv > 0 && el->variables == NULL) || (ne > 0 && el->equations == NULL)) {
        mel__nomem(el->rep);
        return;
    }
    const mel_guard *t = mel__g_true();
    mel_variable *v = el->variables;
    for (const obj *o = el->vars.head; o != NULL; o = o->next)
        *v++ = (mel_variable){(char *)o->sym->name, t, o->sym->where, NULL, false};
    mel_equation *q = el->equations;
    for (const obj *o = el->eqs.head; o != NULL; o = o->next)
        *q++ = (mel_equation){.name = (char *)o->sym->name, .guard = t, .where = o->sym->where,
                              .when = o->when, .cond = o->cond, .cond_pos = o->cond_pos};
    if (el->bracket_names)
        check_spellings(el);
}

/* ---- Pass 2: guards --------------------------------------------------------- */

static void not_boolean(elab *el, const mel__expr *e)
{
    err(el, e->where, "condition must be a Boolean formula over mode variables");
}

static const mel_guard *to_guard(elab *el, const mel__expr *e, const env *en, uint64_t seq);

/* Whether e is `time` where no declaration names it: the independent
 * variable (Modelica's time; issue 38, so that a Modelica model that reads
 * it prints as MEL): known, never incident, FX_TIME. A declaration `time :
 * real = ...` (the papers' MEL models) takes precedence. */
static bool is_time(const mel__expr *e)
{
    return e->kind == MEL_X_ID && e->u.id.n == 0 && strcmp(e->u.id.name, "time") == 0;
}

/* The first name in e that is neither a loop index nor declared (by base
 * name), or NULL. */
static const mel__expr *first_unknown(elab *el, const mel__expr *e, const env *en)
{
    const mel__expr *u = NULL;
    switch (e->kind) {
    case MEL_X_ID:
        if ((e->u.id.n > 0 || env_find(en, e->u.id.name_id) == NULL) &&
            name_get(el, e->u.id.name_id) == NULL && !is_time(e))
            return e;
        for (uint32_t k = 0; k < e->u.id.n && u == NULL; k++)
            u = first_unknown(el, e->u.id.args[k], en);
        return u;
    case MEL_X_CALL:
        for (uint32_t k = 0; k < e->u.id.n && u == NULL; k++)
            u = first_unknown(el, e->u.id.args[k], en);
        return u;
    case MEL_X_NEG:
    case MEL_X_NOT:
    case MEL_X_DER:
    case MEL_X_LAST:
    case MEL_X_NEXT:
    case MEL_X_PRE: return first_unknown(el, e->u.kid, en);
    case MEL_X_POW:
    case MEL_X_CMP:
        u = first_unknown(el, e->u.bin.lhs, en);
        return u ? u : first_unknown(el, e->u.bin.rhs, en);
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR:
        for (uint32_t k = 0; k < e->u.nary.n && u == NULL; k++)
            u = first_unknown(el, e->u.nary.kids[k], en);
        return u;
    case MEL_X_IF:
        u = first_unknown(el, e->u.ite.c, en);
        if (u == NULL)
            u = first_unknown(el, e->u.ite.a, en);
        return u ? u : first_unknown(el, e->u.ite.b, en);
    default: return NULL;
    }
}

/* Operands lo..hi-1 of an n-ary & or |, combined as a balanced tree: a chain
 * `a1 & a2 & ... & a100000` must not become a 10^5-deep guard that every
 * recursive consumer (mel_guard_eval, the BDD encoding) would descend. */
static const mel_guard *nary_guard(elab *el, const mel__expr *e, uint32_t lo, uint32_t hi,
                                   const env *en, uint64_t seq)
{
    if (hi - lo == 1)
        return to_guard(el, e->u.nary.kids[lo], en, seq);
    uint32_t mid = lo + (hi - lo) / 2;
    const mel_guard *a = nary_guard(el, e, lo, mid, en, seq);
    const mel_guard *b = a ? nary_guard(el, e, mid, hi, en, seq) : NULL;
    if (b == NULL)
        return NULL;
    return e->kind == MEL_X_AND ? mel__g_and(&el->gf, a, b) : mel__g_or(&el->gf, a, b);
}

/* Whether e can be a Boolean formula's operand (not a number, a call or
 * arithmetic). */
static bool boolean_operand(const mel__expr *e)
{
    switch (e->kind) {
    case MEL_X_NUM:
    case MEL_X_CALL:
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_NEG:
    case MEL_X_POW: return false;
    default: return true;
    }
}

/* Whether condition e compares reals (`x > 0`, `time < t0`), calls a
 * function or reads a Boolean parameter (through !, & and |): such a condition of an if-expression selects nothing, so both
 * branches' incidences hold in every mode, as Modelica's importer treats a
 * relation that selects nothing (issue 38: Modelica models print as MEL).
 * A comparison of integers is evaluated; == and <> of Booleans are
 * formulas. */
static bool real_condition(elab *el, const mel__expr *e, const env *en)
{
    switch (e->kind) {
    case MEL_X_NOT: return real_condition(el, e->u.kid, en);
    case MEL_X_AND:
    case MEL_X_OR:
        for (uint32_t k = 0; k < e->u.nary.n; k++)
            if (real_condition(el, e->u.nary.kids[k], en))
                return true;
        return false;
    case MEL_X_CMP:
        if (is_int_expr(el, e->u.bin.lhs, en) && is_int_expr(el, e->u.bin.rhs, en))
            return false;
        return (e->u.bin.op != MEL_CMP_EQ && e->u.bin.op != MEL_CMP_NE) ||
               !boolean_operand(e->u.bin.lhs) || !boolean_operand(e->u.bin.rhs);
    case MEL_X_CALL: return true; /* an uninterpreted Boolean function */
    case MEL_X_ID: { /* a Boolean parameter: known, not a mode variable */
        const nameinfo *ni = e->u.id.n == 0 && env_find(en, e->u.id.name_id) == NULL
                                 ? name_get(el, e->u.id.name_id)
                                 : NULL;
        return ni != NULL && ni->sym0 != NULL && ni->sym0->kind == MEL_SYM_PARAM;
    }
    default: return false;
    }
}

/* The guard of a condition; NULL on error (reported). */
static const mel_guard *to_guard(elab *el, const mel__expr *e, const env *en, uint64_t seq)
{
    mel__gfactory *f = &el->gf;
    switch (e->kind) {
    case MEL_X_BOOL: return e->u.b ? mel__g_true() : mel__g_false();
    case MEL_X_ID: {
        if (e->u.id.n == 0 && env_find(en, e->u.id.name_id) != NULL) {
            not_boolean(el, e);
            return NULL;
        }
        const mel__sym *s;
        if (lookup(el, e, en, seq, &s) < 0)
            return NULL;
        if (s == NULL && !is_time(e)) {
            err(el, e->where, "undeclared variable '%s'", el->name);
            return NULL;
        }
        if (s == NULL || s->kind != MEL_SYM_MODE) {
            not_boolean(el, e);
            return NULL;
        }
        return mel__g_var(f, s->index);
    }
    case MEL_X_NOT: {
        const mel_guard *a = to_guard(el, e->u.kid, en, seq);
        return a ? mel__g_not(f, a) : NULL;
    }
    case MEL_X_AND:
    case MEL_X_OR: return nary_guard(el, e, 0, e->u.nary.n, en, seq);
    case MEL_X_CMP: {
        const mel__expr *l = e->u.bin.lhs, *r = e->u.bin.rhs;
        if (is_int_expr(el, l, en) && is_int_expr(el, r, en)) {
            long long x, y;
            if (eval_int(el, l, en, seq, &x) < 0 || eval_int(el, r, en, seq, &y) < 0)
                return NULL;
            return cmp_ll(e->u.bin.op, x, y) ? mel__g_true() : mel__g_false();
        }
        if (e->u.bin.op != MEL_CMP_EQ && e->u.bin.op != MEL_CMP_NE) {
            /* `i > N` with N misspelt: say so rather than blame the shape. */
            const mel__expr *u = first_unknown(el, l, en);
            if (u == NULL)
                u = first_unknown(el, r, en);
            if (u != NULL)
                err(el, u->where, "undeclared %s '%s'",
                    is_int_expr(el, u == first_unknown(el, l, en) ? r : l, en) ? "integer constant"
                                                                                : "variable",
                    u->u.id.name);
            else
                not_boolean(el, e);
            return NULL;
        }
        const mel_guard *a = to_guard(el, l, en, seq);
        const mel_guard *b = a ? to_guard(el, r, en, seq) : NULL;
        if (b == NULL)
            return NULL;
        const mel_guard *same = mel__g_or(f, mel__g_and(f, a, b),
                                          mel__g_and(f, mel__g_not(f, a), mel__g_not(f, b)));
        return e->u.bin.op == MEL_CMP_EQ ? same : mel__g_not(f, same);
    }
    case MEL_X_IF: {
        const mel_guard *c = to_guard(el, e->u.ite.c, en, seq);
        if (c == NULL)
            return NULL;
        const mel_guard *a = c->op == MEL_G_FALSE ? mel__g_false() : to_guard(el, e->u.ite.a, en, seq);
        if (a == NULL)
            return NULL;
        const mel_guard *b = c->op == MEL_G_TRUE ? mel__g_false() : to_guard(el, e->u.ite.b, en, seq);
        if (b == NULL)
            return NULL;
        return mel__g_or(f, mel__g_and(f, c, a), mel__g_and(f, mel__g_not(f, c), b));
    }
    default: not_boolean(el, e); return NULL;
    }
}

/* Guard of a context; on a bad condition (reported) the branch is TRUE so
 * elaboration can go on and report more; the model is discarded anyway. */
static const mel_guard *ctx_guard(elab *el, const ctxnode *c)
{
    if (c == NULL)
        return mel__g_true();
    ctxnode *w = (ctxnode *)c; /* memo fields only */
    if (w->done)
        return w->guard;
    condinst *ci = c->ci;
    if (!ci->done) {
        ci->guard = to_guard(el, ci->cond, ci->env, ci->seq);
        if (ci->guard == NULL)
            ci->guard = mel__g_true();
        ci->done = true;
    }
    const mel_guard *g = c->pol ? ci->guard : mel__g_not(&el->gf, ci->guard);
    w->guard = mel__g_and(&el->gf, ctx_guard(el, c->parent), g);
    w->done = true;
    return w->guard;
}

/* The guard of an unknown or an equation: the OR of its contexts' (l NULL:
 * declared once, outside any conditional). */
static const mel_guard *ctxlist_guard(elab *el, const ctxlist *l)
{
    if (l == NULL)
        return mel__g_true();
    const mel_guard *g = mel__g_false();
    for (; l != NULL; l = l->next)
        g = mel__g_or(&el->gf, g, ctx_guard(el, l->ctx));
    return g;
}

/* ---- Pass 2: expressions ---------------------------------------------------------- */

/* A name in an expression; kept out of walk() (and not inlined) so the name
 * buffer is not part of every recursive frame. */
static __attribute__((noinline)) void walk_id(elab *el, const mel__expr *e, bool collect_use,
                                              bool current)
{
    const env *en = el->it->env;
    uint64_t seq = el->it->seq;
    if (e->u.id.n == 0 && env_find(en, e->u.id.name_id) != NULL)
        return;
    const mel__sym *s;
    if (lookup(el, e, en, seq, &s) < 0)
        return;
    if (s == NULL && is_time(e))
        return; /* the independent variable: known */
    if (s == NULL) {
        err(el, e->where, "undeclared variable '%s'", el->name);
        return;
    }
    switch (s->kind) {
    case MEL_SYM_VAR:
        if (!collect_use && current && el->it->mode >= 0) {
            /* a mode variable's definition reads x (not last(x)): engine/mc.h */
            mel_mode *md = &((mel_mode *)el->modes.p)[el->it->mode];
            if (md->reads_var < 0) {
                md->reads_var = (long)s->index;
                md->reads_where = e->where;
            }
        }
        return;
    case MEL_SYM_INT:
        if (s->seq >= seq)
            err(el, e->where, "integer constant '%s' used before its declaration", s->name);
        return;
    case MEL_SYM_EQN: err(el, e->where, "'%s' is an equation, not a variable", s->name); return;
    default: return;
    }
}

/* Check the names and conditions of e as the structure will read it
 * (incident: not under last/pre; collect: an equation, not a defining
 * expression, which is only resolved); the uses themselves are read from
 * the lowered sides (lower_equation). */
static void walk(elab *el, const mel__expr *e, const mel_guard *g, int order, bool incident,
                 bool collect)
{
    const env *en = el->it->env;
    uint64_t seq = el->it->seq;
    if (el->rep->stop)
        return;
    switch (e->kind) {
    case MEL_X_NUM:
    case MEL_X_BOOL: return;
    case MEL_X_ID: walk_id(el, e, incident && collect, incident); return;
    case MEL_X_CALL:
        if (!e->u.id.text &&
            (name_get(el, e->u.id.name_id) != NULL || env_find(en, e->u.id.name_id) != NULL)) {
            err(el, e->where, "'%s' is not a function", e->u.id.name);
            return;
        }
        for (uint32_t k = 0; k < e->u.id.n; k++)
            walk(el, e->u.id.args[k], g, order, incident, collect);
        return;
    case MEL_X_NEG:
    case MEL_X_NOT: walk(el, e->u.kid, g, order, incident, collect); return;
    case MEL_X_DER:
        if (order >= MEL_MAX_ORDER) {
            err(el, e->where, "derivative order exceeds %d", MEL_MAX_ORDER);
            return;
        }
        walk(el, e->u.kid, g, order + 1, incident, collect);
        return;
    case MEL_X_LAST:
    case MEL_X_PRE: walk(el, e->u.kid, g, order, false, collect); return;
    case MEL_X_NEXT:
        /* next(e): e one instant later, x. = x + dt x': structurally the
         * same incidence as der (x and x.), hence order + 1. Only where an
         * instant has a "later" that differs from the mode's own dynamics:
         * the event's equations (docs/mode_changes.md). */
        if (el->it->when == 0) {
            err(el, e->where, "next(...) is the value just after an event: only an equation "
                              "in a when-body can use it");
            return;
        }
        if (order >= MEL_MAX_ORDER) {
            err(el, e->where, "derivative order exceeds %d", MEL_MAX_ORDER);
            return;
        }
        walk(el, e->u.kid, g, order + 1, incident, collect);
        return;
    case MEL_X_POW:
    case MEL_X_CMP:
        walk(el, e->u.bin.lhs, g, order, incident, collect);
        walk(el, e->u.bin.rhs, g, order, incident, collect);
        return;
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR:
        for (uint32_t k = 0; k < e->u.nary.n; k++)
            walk(el, e->u.nary.kids[k], g, order, incident, collect);
        return;
    case MEL_X_IF: {
        if (!collect) {
            /* A defining expression may branch on anything (`x > 0`): it is
             * not part of the structure, its names only have to exist. */
            walk(el, e->u.ite.c, g, order, incident, collect);
            walk(el, e->u.ite.a, g, order, incident, collect);
            walk(el, e->u.ite.b, g, order, incident, collect);
            return;
        }
        if (real_condition(el, e->u.ite.c, en)) {
            /* selects nothing: both branches in every mode (issue 38); the
             * condition's unknowns are not incident (resolved only), as
             * neither a mode variable's nor the Modelica importer's are */
            walk(el, e->u.ite.c, g, order, false, collect);
            walk(el, e->u.ite.a, g, order, incident, collect);
            walk(el, e->u.ite.b, g, order, incident, collect);
            return;
        }
        const mel_guard *c = to_guard(el, e->u.ite.c, en, seq);
        if (c == NULL)
            return;
        const mel_guard *ga = mel__g_and(&el->gf, g, c);
        const mel_guard *gb = mel__g_and(&el->gf, g, mel__g_not(&el->gf, c));
        /* A branch that cannot be taken is not elaborated: `if i > 1 then
         * x[i-1] else 0` must not complain about x[0] when i = 1. */
        if (ga->op != MEL_G_FALSE)
            walk(el, e->u.ite.a, ga, order, incident, collect);
        if (gb->op != MEL_G_FALSE)
            walk(el, e->u.ite.b, gb, order, incident, collect);
        return;
    }
    }
}

/* ---- Pass 2: plans ------------------------------------------------------------------
 * An equation is walked once per execution of its statement, and a loop
 * body is executed many times. What walk() does there depends on the values
 * of the loop indices only at identifiers (x[i]: which unknown) and at
 * if-expressions (which branches can be taken). The rest -- the path to each
 * identifier, its order, next() count and incidence, which names are loop
 * indices, parameters or unknowns without index -- is the same at every
 * execution: pass 2 declares nothing, and a statement's loop indices are
 * always those of the same enclosing loops, as its when-clause is always the
 * same one or none. A statement's plan is that part, made at its first
 * execution: the identifiers walk() would pass to walk_id, in walk()'s
 * order, with walk_id's arguments. Running it makes the same walk_id calls
 * in the same order (the same messages), without the descent, and leaves
 * out the identifiers walk_id would do nothing with (the unknowns found:
 * their uses are read from the lowered sides). A statement
 * with an if-expression, or where walk() itself would report something, has
 * no plan: it is walked. Only equations have plans (IT_EQ: collect). */

typedef enum site_kind {
    SITE_ANY,  /* walk_id */
    SITE_VAR,  /* no index: always unknown `var`, incident */
    SITE_LOOP, /* x[i], x[i + c], x[i - c] with i a loop index: see loop_site */
    SITE_IF    /* a replay's if-expression whose condition compares integers: see plan_if */
} site_kind;

typedef struct site {
    const mel__expr *e; /* the identifier */
    bool incident;      /* not under last/pre */
    site_kind kind;
    uint32_t var;       /* SITE_VAR */
    /* SITE_LOOP: the index is loop index `index`, `depth` frames up the
     * item's environment, plus or minus (op) c; x is name number `name`. */
    uint32_t index, depth, name;
    char op;
    long long c;
    /* SITE_IF: the sites of its branches follow, n_then then n_else. */
    uint32_t n_then, n_else;
} site;

typedef struct plan {
    const mel__stmt *s;
    bool walk;          /* no plan: walk the statement */
    /* Every site SITE_VAR, or SITE_LOOP of a name without integer
     * constants: what running the plan reports depends only on the
     * statement, its loop indices and the declared names and kinds, not
     * on the order of declarations (an integer constant used before its
     * declaration) nor on integer expressions in indices. */
    bool local;
    bool has_if;        /* some site is a SITE_IF (a replay's: plan_if) */
    uint32_t n;
    site *sites;        /* tmp arena */
} plan;

/* Make st a SITE_LOOP when identifier e has one index of the form i, i + c
 * or i - c (c an integer literal) with i a loop index of environment en. */
static void loop_site(elab *el, const mel__expr *e, const env *en, site *st)
{
    const mel__expr *x = e->u.id.args[0], *c = NULL;
    char op = '+';
    if (x->kind == MEL_X_ADD && x->u.nary.n == 2) {
        c = x->u.nary.kids[1];
        op = x->u.nary.ops[1];
        x = x->u.nary.kids[0];
        if (c->kind != MEL_X_NUM || !c->u.num.is_int)
            return;
    }
    if (x->kind != MEL_X_ID || x->u.id.n != 0 || name_get(el, e->u.id.name_id) == NULL)
        return;
    uint32_t depth = 0;
    for (; en != NULL && en->id != x->u.id.name_id; en = en->parent)
        depth++;
    if (en == NULL)
        return;
    st->kind = SITE_LOOP;
    st->index = x->u.id.name_id;
    st->depth = depth;
    st->name = e->u.id.name_id;
    st->op = op;
    st->c = c != NULL ? c->u.num.ival : 0;
}

/* Add the site of identifier e unless walk_id would do nothing with it;
 * false on OOM (reported). */
static bool plan_id(elab *el, const mel__expr *e, bool incident, const env *en)
{
    site_kind kind = SITE_ANY;
    uint32_t var = 0;
    if (e->u.id.n == 0) {
        if (env_find(en, e->u.id.name_id) != NULL)
            return true; /* a loop index */
        const nameinfo *ni = name_get(el, e->u.id.name_id);
        const mel__sym *s = ni != NULL ? ni->sym0 : NULL;
        if (s != NULL && (s->kind == MEL_SYM_PARAM || s->kind == MEL_SYM_MODE ||
                          (s->kind == MEL_SYM_VAR && !incident)))
            return true; /* walk_id's default case, or an unknown that is no use */
        if (s != NULL && s->kind == MEL_SYM_VAR) {
            kind = SITE_VAR;
            var = s->index;
        }
    }
    site *st = vec_push(el, &el->sites, sizeof *st);
    if (st == NULL)
        return false;
    *st = (site){e, incident, kind, var, 0, 0, 0, 0, 0, 0, 0};
    if (e->u.id.n == 1 && incident)
        loop_site(el, e, en, st);
    return true;
}

static bool plan_expr(elab *el, const mel__expr *e, int order, bool incident, const item *it);

/* Whether e, a condition, compares integers (walk() neither walks it nor
 * reads it as a formula but evaluates it: real_condition is false,
 * to_guard is TRUE or FALSE). The same at every execution of a statement:
 * the names that are loop indices and integer constants are. */
static bool int_comparison(elab *el, const mel__expr *e, const env *en)
{
    return e->kind == MEL_X_CMP && is_int_expr(el, e->u.bin.lhs, en) &&
           is_int_expr(el, e->u.bin.rhs, en);
}

/* The SITE_IF of if-expression e, then its branches' sites, when its
 * condition compares integers, in a replay (whose walk is only a check:
 * any error elaborates the text in full); false otherwise (walk it) or on
 * OOM (reported). */
static bool plan_if(elab *el, const mel__expr *e, int order, bool incident, const item *it)
{
    if (!el->replaying || !int_comparison(el, e->u.ite.c, it->env))
        return false;
    size_t at = el->sites.n;
    site *st = vec_push(el, &el->sites, sizeof *st);
    if (st == NULL)
        return false;
    *st = (site){e, incident, SITE_IF, 0, 0, 0, 0, 0, 0, 0, 0};
    if (!plan_expr(el, e->u.ite.a, order, incident, it))
        return false;
    size_t mid = el->sites.n;
    if (!plan_expr(el, e->u.ite.b, order, incident, it))
        return false;
    site *s = &((site *)el->sites.p)[at];
    s->n_then = (uint32_t)(mid - at - 1);
    s->n_else = (uint32_t)(el->sites.n - mid);
    return true;
}

/* Add the sites of e, which walk() would visit with these arguments (and
 * collect true) in item it, to el->sites; false when walk() would do more
 * than pass identifiers to walk_id (or on OOM, reported). */
static bool plan_expr(elab *el, const mel__expr *e, int order, bool incident, const item *it)
{
    switch (e->kind) {
    case MEL_X_NUM:
    case MEL_X_BOOL: return true;
    case MEL_X_ID: return plan_id(el, e, incident, it->env);
    case MEL_X_CALL:
        if (!e->u.id.text && (name_get(el, e->u.id.name_id) != NULL ||
                              env_find(it->env, e->u.id.name_id) != NULL))
            return false;
        for (uint32_t k = 0; k < e->u.id.n; k++)
            if (!plan_expr(el, e->u.id.args[k], order, incident, it))
                return false;
        return true;
    case MEL_X_NEG:
    case MEL_X_NOT: return plan_expr(el, e->u.kid, order, incident, it);
    case MEL_X_DER:
        return order < MEL_MAX_ORDER && plan_expr(el, e->u.kid, order + 1, incident, it);
    case MEL_X_LAST:
    case MEL_X_PRE: return plan_expr(el, e->u.kid, order, false, it);
    case MEL_X_NEXT:
        return it->when != 0 && order < MEL_MAX_ORDER &&
               plan_expr(el, e->u.kid, order + 1, incident, it);
    case MEL_X_POW:
    case MEL_X_CMP:
        return plan_expr(el, e->u.bin.lhs, order, incident, it) &&
               plan_expr(el, e->u.bin.rhs, order, incident, it);
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR:
        for (uint32_t k = 0; k < e->u.nary.n; k++)
            if (!plan_expr(el, e->u.nary.kids[k], order, incident, it))
                return false;
        return true;
    case MEL_X_IF: return plan_if(el, e, order, incident, it);
    default: return false;
    }
}

static size_t ptab_at(const mel__stmt *s, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

/* Record plan p of a statement that has none yet; false on OOM (reported). */
static bool ptab_put(elab *el, plan *p)
{
    if (2 * (el->pcount + 1) > el->pcap) {
        size_t cap = el->pcap ? 2 * el->pcap : 64;
        plan **t = mdae_calloc(cap, sizeof *t);
        if (t == NULL) {
            mel__nomem(el->rep);
            return false;
        }
        for (size_t k = 0; k < el->pcap; k++)
            if (el->ptab[k] != NULL) {
                size_t a = ptab_at(el->ptab[k]->s, cap);
                while (t[a] != NULL)
                    a = (a + 1) & (cap - 1);
                t[a] = el->ptab[k];
            }
        mdae_free(el->ptab);
        el->ptab = t;
        el->pcap = cap;
    }
    size_t a = ptab_at(p->s, el->pcap);
    while (el->ptab[a] != NULL)
        a = (a + 1) & (el->pcap - 1);
    el->ptab[a] = p;
    el->pcount++;
    return true;
}

/* The plan of equation item it's statement, made at its first execution;
 * NULL when it has none (walk it) or on OOM (reported). */
static const plan *plan_make(elab *el, const item *it);

/* Inline: p2_item looks the plan up for every equation instance. */
static inline __attribute__((always_inline)) const plan *plan_of(elab *el, const item *it)
{
    for (size_t a = el->pcap ? ptab_at(it->s, el->pcap) : 0; el->pcap != 0;
         a = (a + 1) & (el->pcap - 1)) {
        const plan *p = el->ptab[a];
        if (p == NULL)
            break;
        if (p->s == it->s)
            return p->walk ? NULL : p;
    }
    return plan_make(el, it);
}

/* plan_of's plan of a statement met for the first time. */
static __attribute__((noinline)) const plan *plan_make(elab *el, const item *it)
{
    el->sites.n = 0;
    bool ok = plan_expr(el, it->s->u.equ.lhs, 0, true, it) &&
              plan_expr(el, it->s->u.equ.rhs, 0, true, it);
    plan *p = talloc(el, sizeof *p);
    site *sites = ok && el->sites.n > 0 ? talloc(el, el->sites.n * sizeof *sites) : NULL;
    if (p == NULL || (ok && el->sites.n > 0 && sites == NULL))
        return NULL;
    if (sites != NULL)
        memcpy(sites, el->sites.p, el->sites.n * sizeof *sites);
    bool local = ok, has_if = false;
    for (size_t k = 0; k < el->sites.n; k++) {
        const site *st = &((const site *)el->sites.p)[k];
        local = local && (st->kind == SITE_VAR ||
                          (st->kind == SITE_LOOP && !el->names[st->name].has_int));
        has_if = has_if || st->kind == SITE_IF;
    }
    *p = (plan){it->s, !ok, local, has_if, ok ? (uint32_t)el->sites.n : 0, sites};
    if (!ptab_put(el, p))
        return NULL;
    return p->walk ? NULL : p;
}

/* The unknown that SITE_LOOP st names in environment en when it names one
 * (walk_id's lookup), else NULL: walk_id will say what it is. */
static inline __attribute__((always_inline)) const mel__sym *loop_var(const elab *el,
                                                                      const site *st,
                                                                      const env *en)
{
    for (uint32_t k = 0; k < st->depth && en != NULL; k++)
        en = en->parent;
    long long v;
    if (en == NULL || en->id != st->index) /* not as planned: cannot happen */
        return NULL;
    if (st->op == '+' ? __builtin_add_overflow(en->value, st->c, &v)
                      : __builtin_sub_overflow(en->value, st->c, &v))
        return NULL;
    const mel__sym *s = index_find(el, &el->names[st->name], st->name, v);
    return s != NULL && s->kind == MEL_SYM_VAR ? s : NULL;
}

/* walk() of sites [from, to) of plan p in equation item it, whose guard
 * g is FALSE when dead: walk_id where a name is not an unknown known in
 * advance (the uses themselves are read from the lowered sides,
 * mel_inc.c); at a SITE_IF, walk()'s to_guard of its condition (integers
 * compared: TRUE or FALSE, made by no factory; an error skips both
 * branches) and the branch it takes (none when dead: walk's branch
 * guards are g's and the condition). Recursion as deep as the
 * if-expressions' nesting. */
static void run_sites(elab *el, const plan *p, uint32_t from, uint32_t to, const item *it,
                      bool dead)
{
    for (uint32_t k = from; k < to && !el->rep->stop; k++) {
        const site *st = &p->sites[k];
        if (st->kind == SITE_IF) { /* to_guard's integer comparison (int_comparison) */
            const mel__expr *c = st->e->u.ite.c;
            long long x, y;
            bool ok = eval_int(el, c->u.bin.lhs, it->env, it->seq, &x) >= 0 &&
                      eval_int(el, c->u.bin.rhs, it->env, it->seq, &y) >= 0;
            uint32_t a = k + 1, b = a + st->n_then, end = b + st->n_else;
            bool yes = ok && cmp_ll(c->u.bin.op, x, y);
            if (ok && el->n_ifs < sizeof el->ifs / sizeof *el->ifs)
                el->ifs[el->n_ifs++] = (struct if_fold){st->e, yes};
            if (ok && !dead)
                yes ? run_sites(el, p, a, b, it, dead) : run_sites(el, p, b, end, it, dead);
            k = end - 1;
            continue;
        }
        if (st->kind == SITE_VAR || (st->kind == SITE_LOOP && loop_var(el, st, it->env) != NULL))
            continue;
        walk_id(el, st->e, st->incident, st->incident);
    }
}

/* walk() of equation item it's sides under guard g, by its statement's
 * plan p (see run_sites); a plan without SITE_IF (every plan of a full
 * elaboration) by the loop of run_sites' other sites, inline (p2_item
 * runs it for every equation instance). */
static inline __attribute__((always_inline)) void run_plan(elab *el, const plan *p,
                                                           const item *it, const mel_guard *g)
{
    if (p->has_if) {
        run_sites(el, p, 0, p->n, it, g->op == MEL_G_FALSE);
        return;
    }
    for (uint32_t k = 0; k < p->n && !el->rep->stop; k++) {
        const site *st = &p->sites[k];
        if (st->kind == SITE_VAR || (st->kind == SITE_LOOP && loop_var(el, st, it->env) != NULL))
            continue;
        walk_id(el, st->e, st->incident, st->incident);
    }
}

/* ---- Pass 2: expressions kept (issue 38) ----------------------------------------
 * lower() turns a syntax tree into an fx tree (engine/fx.h) in the item's
 * environment: loop indices and integer constants become numbers, other
 * names their unknown, known quantity or mode variable. It runs after the
 * structure's walk of the same item found no error, so its lookups succeed
 * where the walk looked; it looks quietly (el->quiet) because it also goes
 * where the walk does not: a branch of an if-expression whose guard is
 * FALSE there. An if-expression whose condition is constant (i > 1 in a
 * loop) is its branch, as in the structure; a name it cannot resolve (only
 * in such branches) is kept as FX_OPAQUE text. Recursion is bounded by the
 * parser's depth. NULL only when the pool fails (sticky, checked once). */

/* mel__expr.aux of a node whose lowered form depends on the loop
 * environment (found at the statement's first instance). */
#define AUX_DEPENDS UINT32_MAX

/* Does e read a loop index of en (itself, or in an index)? */
static bool reads_env(const mel__expr *e, const env *en)
{
    if (en == NULL)
        return false;
    switch (e->kind) {
    case MEL_X_ID:
    case MEL_X_CALL:
        if (e->kind == MEL_X_ID && e->u.id.n == 0)
            return env_find(en, e->u.id.name_id) != NULL;
        for (uint32_t k = 0; k < e->u.id.n; k++)
            if (reads_env(e->u.id.args[k], en))
                return true;
        return false;
    case MEL_X_NEG:
    case MEL_X_NOT:
    case MEL_X_DER:
    case MEL_X_LAST:
    case MEL_X_PRE:
    case MEL_X_NEXT: return reads_env(e->u.kid, en);
    case MEL_X_POW:
    case MEL_X_CMP: return reads_env(e->u.bin.lhs, en) || reads_env(e->u.bin.rhs, en);
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR:
        for (uint32_t k = 0; k < e->u.nary.n; k++)
            if (reads_env(e->u.nary.kids[k], en))
                return true;
        return false;
    case MEL_X_IF:
        return reads_env(e->u.ite.c, en) || reads_env(e->u.ite.a, en) ||
               reads_env(e->u.ite.b, en);
    default: return false;
    }
}

static const fx_node *lower_id(elab *el, const mel__expr *e, const env *en, uint64_t seq,
                               bool *dep)
{
    fx_pool *p = el->fx;
    const env *f = e->u.id.n == 0 ? env_find(en, e->u.id.name_id) : NULL;
    if (f != NULL) {
        *dep = true;
        return fx_num(p, (double)f->value, true, e->where);
    }
    *dep = e->u.id.n > 0 && (e->aux == AUX_DEPENDS || reads_env(e, en));
    const mel__sym *s = NULL;
    if (lookup(el, e, en, seq, &s) < 0)
        s = NULL;
    if (s == NULL && is_time(e))
        return fx_time(p, e->where);
    switch (s != NULL ? s->kind : MEL_SYM_EQN) {
    case MEL_SYM_VAR: return fx_var(p, s->index, 0, e->where);
    case MEL_SYM_PARAM: return fx_known(p, s->index, e->where);
    case MEL_SYM_MODE: return fx_mode(p, s->index, e->where);
    case MEL_SYM_INT: return fx_num(p, (double)s->value, true, e->where);
    default: return fx_opaque(p, e->u.id.name, NULL, 0, e->where);
    }
}

/* The n kids of e (an n-ary node or a call) lowered into kids[0 .. n). */
static bool lower_kids(elab *el, mel__expr *const *es, uint32_t n, const env *en, uint64_t seq,
                       const fx_node **kids, bool *dep)
{
    for (uint32_t k = 0; k < n; k++)
        if ((kids[k] = lower(el, es[k], en, seq, dep)) == NULL)
            return false;
    return true;
}

/* a * b / c * d: FX_MUL(FX_DIV(FX_MUL(a, b), c), d) (fx.h, "Shape"), the
 * factors lowered in kids (reused as the run of factors being multiplied). */
static const fx_node *lower_mul(elab *el, const mel__expr *e, const fx_node **kids)
{
    fx_pool *p = el->fx;
    uint32_t run = 1; /* kids[0 .. run): the factors since the last '/' */
    for (uint32_t k = 1; k < e->u.nary.n; k++) {
        const fx_node *x = kids[k];
        if (e->u.nary.ops[k] == '*') {
            kids[run++] = x;
            continue;
        }
        mdae_range r = {e->u.nary.kids[0]->where.start, e->u.nary.kids[k]->where.end};
        const fx_node *a = run == 1 ? kids[0] : fx_make(p, FX_MUL, kids, run, r);
        kids[0] = fx_bin(p, FX_DIV, a, x, r);
        run = 1;
    }
    return run == 1 ? kids[0] : fx_make(p, FX_MUL, kids, run, e->where);
}

static const fx_node *lower_nary(elab *el, const mel__expr *e, const env *en, uint64_t seq,
                                 bool *dep)
{
    const fx_node *small[8], **kids = small;
    uint32_t n = e->u.nary.n;
    if (n > sizeof small / sizeof *small && (kids = mdae_malloc(n * sizeof *kids)) == NULL) {
        mel__nomem(el->rep);
        return NULL;
    }
    const fx_node *r = NULL;
    if (lower_kids(el, e->u.nary.kids, n, en, seq, kids, dep)) {
        fx_op op = e->kind == MEL_X_AND ? FX_AND : e->kind == MEL_X_OR ? FX_OR : FX_ADD;
        if (e->kind == MEL_X_MUL) {
            r = lower_mul(el, e, kids);
        } else {
            for (uint32_t k = 1; k < n && e->kind == MEL_X_ADD; k++)
                if (e->u.nary.ops[k] == '-')
                    kids[k] = fx_un(el->fx, FX_NEG, kids[k], e->u.nary.kids[k]->where);
            r = fx_make(el->fx, op, kids, n, e->where);
        }
    }
    if (kids != small)
        mdae_free(kids);
    return r;
}

/* fx_fn_lookup of call e, remembered by name (the parser's interned
 * copy) and arity: a loop body's calls look the same name up at every
 * instance. */
static fx_fn call_fn(elab *el, const mel__expr *e)
{
    uint32_t n = e->u.id.n;
    struct fncache *c = &el->fns[((uintptr_t)e->u.id.name / 16 ^ n) % 16];
    if (c->name != e->u.id.name || c->n != n)
        *c = (struct fncache){e->u.id.name, n, fx_fn_lookup(e->u.id.name, n)};
    return c->fn;
}

static const fx_node *lower_call(elab *el, const mel__expr *e, const env *en, uint64_t seq,
                                 bool *dep)
{
    const fx_node *small[4], **kids = small;
    uint32_t n = e->u.id.n;
    if (n > sizeof small / sizeof *small && (kids = mdae_malloc(n * sizeof *kids)) == NULL) {
        mel__nomem(el->rep);
        return NULL;
    }
    const fx_node *r = NULL;
    if (lower_kids(el, e->u.id.args, n, en, seq, kids, dep))
        r = e->u.id.text ? fx_opaque(el->fx, e->u.id.name, kids, n, e->where)
                         : fx_call(el->fx, call_fn(el, e), e->u.id.name, kids, n, e->where);
    if (kids != small)
        mdae_free(kids);
    return r;
}

/* fold3 of if-expression e's condition: the value run_sites found for it
 * in this instance (el->ifs: the same comparison of the same integers,
 * evaluated without error before the item's seq, hence before pass 1's
 * end), else evaluated. */
static int lower_if(elab *el, const mel__expr *e, const env *en)
{
    for (uint32_t k = 0; k < el->n_ifs; k++)
        if (el->ifs[k].e == e)
            return el->ifs[k].yes ? TRI_TRUE : TRI_FALSE;
    return fold3(el, e->u.ite.c, en);
}

static const fx_node *lower_node(elab *el, const mel__expr *e, const env *en, uint64_t seq,
                                 bool *dep)
{
    fx_pool *p = el->fx;
    const fx_node *a;
    switch (e->kind) {
    case MEL_X_NUM: return fx_num(p, e->u.num.value, e->u.num.is_int, e->where);
    case MEL_X_BOOL: return fx_bool(p, e->u.b, e->where);
    case MEL_X_ID: return lower_id(el, e, en, seq, dep);
    case MEL_X_CALL: return lower_call(el, e, en, seq, dep);
    case MEL_X_NEG: return fx_un(p, FX_NEG, lower(el, e->u.kid, en, seq, dep), e->where);
    case MEL_X_NOT: return fx_un(p, FX_NOT, lower(el, e->u.kid, en, seq, dep), e->where);
    case MEL_X_DER: /* der(x): FX_VAR(x, 1) */
        a = lower(el, e->u.kid, en, seq, dep);
        if (a != NULL && a->op == FX_VAR && a->order < MEL_MAX_ORDER) /* at the name's use */
            return fx_var(p, a->index, a->order + 1u, a->where);
        return fx_un(p, FX_DER, a, e->where);
    case MEL_X_LAST: return fx_un(p, FX_LAST, lower(el, e->u.kid, en, seq, dep), e->where);
    case MEL_X_PRE: return fx_un(p, FX_PRE, lower(el, e->u.kid, en, seq, dep), e->where);
    case MEL_X_NEXT: return fx_un(p, FX_NEXT, lower(el, e->u.kid, en, seq, dep), e->where);
    case MEL_X_POW:
        a = lower(el, e->u.bin.lhs, en, seq, dep);
        return fx_bin(p, FX_POW, a, a ? lower(el, e->u.bin.rhs, en, seq, dep) : NULL, e->where);
    case MEL_X_CMP:
        a = lower(el, e->u.bin.lhs, en, seq, dep);
        return fx_bin(p, (fx_op)(FX_LT + e->u.bin.op), a,
                      a ? lower(el, e->u.bin.rhs, en, seq, dep) : NULL, e->where);
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR: return lower_nary(el, e, en, seq, dep);
    case MEL_X_IF: {
        int t = lower_if(el, e, en);
        if (t == TRI_TRUE || t == TRI_FALSE) { /* the structure's choice too */
            *dep = *dep || e->aux == AUX_DEPENDS || reads_env(e->u.ite.c, en);
            return lower(el, t == TRI_TRUE ? e->u.ite.a : e->u.ite.b, en, seq, dep);
        }
        const fx_node *c = lower(el, e->u.ite.c, en, seq, dep);
        const fx_node *x = c ? lower(el, e->u.ite.a, en, seq, dep) : NULL;
        return fx_if(p, c, x, x ? lower(el, e->u.ite.b, en, seq, dep) : NULL, e->where);
    }
    }
    return NULL;
}

/* e lowered in environment en; *dep set when the result depends on en
 * (else it is kept in e->aux and shared by the statement's later
 * instances: pass 2 declares nothing, so a name resolves to the same
 * symbol at every execution). */
static const fx_node *lower(elab *el, const mel__expr *e, const env *en, uint64_t seq, bool *dep)
{
    if (e->aux != 0 && e->aux != AUX_DEPENDS)
        return ((const fx_node **)el->memo.p)[e->aux - 1];
    bool d = false;
    const fx_node *r = lower_node(el, e, en, seq, &d);
    if (d) {
        *dep = true;
        ((mel__expr *)e)->aux = AUX_DEPENDS; /* the elaborator's field */
    } else if (r != NULL && el->memo.n < AUX_DEPENDS - 1) {
        const fx_node **slot = vec_push(el, &el->memo, sizeof *slot);
        if (slot != NULL) {
            *slot = r;
            ((mel__expr *)e)->aux = (uint32_t)el->memo.n; /* the elaborator's field */
        }
    }
    return r;
}

/* lower() of an item's expression e, when expressions are kept and no
 * error was reported (the model is discarded then); NULL otherwise. */
static const fx_node *lower_item(elab *el, const item *it, const mel__expr *e)
{
    if (el->rep->rc != MDAE_OK || el->rep->stop)
        return NULL;
    el->quiet = true;
    bool dep = false;
    const fx_node *r = lower(el, e, it->env, it->seq, &dep);
    el->quiet = false;
    return r;
}

/* The condition of context c as an expression: the conjunction of its
 * conditionals' branches, outermost first. */
static const fx_node *ctx_cond(elab *el, const ctxnode *c)
{
    size_t n = 0;
    for (const ctxnode *x = c; x != NULL; x = x->parent)
        n++;
    const fx_node **kids = mdae_malloc((n > 0 ? n : 1) * sizeof *kids);
    if (kids == NULL) {
        mel__nomem(el->rep);
        return NULL;
    }
    size_t k = n;
    bool ok = true;
    el->quiet = true;
    for (const ctxnode *x = c; x != NULL && ok; x = x->parent) {
        bool dep = false;
        const fx_node *g = lower(el, x->ci->cond, x->ci->env, x->ci->seq, &dep);
        kids[--k] = x->pol ? g : fx_un(el->fx, FX_NOT, g, x->ci->cond->where);
        ok = kids[k] != NULL;
    }
    el->quiet = false;
    const fx_node *r = !ok ? NULL : n == 1 ? kids[0]
                                           : fx_make(el->fx, FX_AND, kids, (uint32_t)n, no_range);
    mdae_free(kids);
    return r;
}

/* ---- Pass 2: what an edit left alone ------------------------------------------
 * An editor parses the text again after every keystroke (issue 40 item 3).
 * With mel_options.since, the previous version's model, an equation
 * instance shares its sides with it when lowering them again would give
 * the same trees: lowering reads the statement's text, its loop indices'
 * values and the symbols its names resolve to, and nothing else (pass 2
 * declares nothing; lower() folds integer constants and loop indices, and
 * refers to unknowns, known quantities and mode variables by their index),
 * and writes locations. So when the declarations are the same
 * (same_declarations: the same unknowns, equations, mode variables and
 * known quantities in the same order, integer constants of the same value
 * and still integer constants, not parameters)
 * and an equation's statement is the same bytes at the same place (offset,
 * line, column) with the same loop indices (mel__eqsrc), the previous
 * version's sides are what lower() would make, node for node, and its
 * incidences what mel__inc_uses and mel__inc_build would read from them
 * where they do not depend on the guards (copied_incidences). This model
 * then holds the previous pools (mel_model_priv.held), so the sides outlive
 * the previous model. Names are still checked (walk), except where the
 * check could only repeat the previous version's, which reported nothing
 * (a shared statement whose plan is local: p2_item), and the incidences
 * still read from the sides under this version's guards, so errors, guards
 * and structure are this text's. A statement that moved is lowered again:
 * a copy of its trees with the locations moved cost as much as lowering
 * (measured: docs/figures.md). */

/* The loop indices of en as text ("i=3;j=1;", innermost first) in the
 * model's arena, remembered for the last environment (a loop body's items
 * share theirs); NULL on OOM. */
static const char *env_string(elab *el, const env *en)
{
    if (en == el->env_last && el->env_text != NULL)
        return el->env_text;
    size_t n = 1;
    for (const env *f = en; f != NULL; f = f->parent)
        n += strlen(f->name) + 2 + int_width(f->value);
    char *t = mel__arena_alloc_raw(el->ma, n);
    if (t == NULL) {
        mel__nomem(el->rep);
        return NULL;
    }
    char *p = t;
    for (const env *f = en; f != NULL; f = f->parent) {
        size_t k = strlen(f->name);
        memcpy(p, f->name, k);
        p += k;
        *p++ = '=';
        size_t w = int_width(f->value);
        if (f->value < 0)
            *p = '-';
        put_digits(p + w, f->value < 0 ? 0ULL - (unsigned long long)f->value
                                        : (unsigned long long)f->value);
        p += w;
        *p++ = ';';
    }
    *p = '\0';
    MDAE_ASSERT((size_t)(p - t) < n);
    el->env_last = en;
    return el->env_text = t;
}

/* Whether known quantity `name` of a model whose symbols are t is an
 * integer constant, which lower() folds into a number, rather than a
 * parameter (of type integer too, perhaps of the same value), which it
 * leaves a known quantity. */
static bool folded(const mel__symtab *t, const char *name)
{
    const mel__sym *s = mel__sym_find(t, name);
    return s != NULL && s->kind == MEL_SYM_INT;
}

/* ---- The declarations key
 * Pass 1 reads, of the syntax tree, the statements' kinds and nesting,
 * the declarations (whole), the equations' labels (not their sides), the
 * invariants' places (not their conditions), the loops' and conditionals'
 * headers; and the defines. It reads no position into what it declares
 * (names, kinds, numbers, integer values: what same_declarations
 * compares; positions are the `where` fields, which it does not). The key
 * is that, as bytes: per statement a tag and the text of what pass 1
 * reads of it (length first, so that no two trees make one key), then
 * the defines. Two texts with the same key and no syntax errors (the
 * left-out text could make pass 1 leave a statement out: mel.h,
 * "Recovery") declare the same things in the same order, so
 * same_declarations need not compare the names one by one (230,000
 * string comparisons on the brake at N = 10,000). Each piece is the text
 * from the statement's start to where pass 1 stops reading (an
 * equation's left side, a loop's or conditional's first inner
 * statement): comments and spaces in it count, which only makes keys
 * differ that could have been the same. A conditional's piece ends with
 * its header's size (mel__stmt.size: the work pass 1 charges for each of
 * its executions), which a replay of an edited condition reads from the
 * previous version's key (see "Replay: an edited condition"). */
static void key_piece(mdae_buf *b, char tag, const char *text, size_t from, size_t to)
{
    uint64_t n = to > from ? to - from : 0;
    mdae_buf_putc(b, tag);
    mdae_buf_put(b, (const char *)&n, sizeof n);
    mdae_buf_put(b, text + from, (size_t)n);
}

/* The key of statements s (and those after) of text into b; *mark_at
 * where the piece of statement `mark` starts. Recursion as deep as the
 * statements' nesting, which the parser bounds. */
static void key_stmts(mdae_buf *b, const char *text, const mel__stmt *s, const mel__stmt *mark,
                      size_t *mark_at)
{
    for (; s != NULL; s = s->next) {
        size_t a = s->where.start.offset, z = s->where.end.offset;
        switch (s->kind) {
        case MEL_S_DECL: key_piece(b, 'D', text, a, z); break;
        case MEL_S_EQU:
            key_piece(b, 'E', text, a, s->u.equ.lhs ? s->u.equ.lhs->where.start.offset : z);
            break;
        case MEL_S_INV: key_piece(b, 'I', text, a, a); break;
        case MEL_S_FOR:
            key_piece(b, 'F', text, a, s->u.loop.body ? s->u.loop.body->where.start.offset : z);
            key_stmts(b, text, s->u.loop.body, mark, mark_at);
            break;
        case MEL_S_IF:
        case MEL_S_WHEN: {
            const mel__stmt *in = s->u.cond.body ? s->u.cond.body : s->u.cond.orelse;
            if (s == mark)
                *mark_at = b->len;
            key_piece(b, s->kind == MEL_S_IF ? 'C' : 'W', text, a, in ? in->where.start.offset : z);
            mdae_buf_put(b, (const char *)&s->size, sizeof s->size);
            key_stmts(b, text, s->u.cond.body, mark, mark_at);
            key_piece(b, '|', text, a, a);
            key_stmts(b, text, s->u.cond.orelse, mark, mark_at);
            break;
        }
        }
        key_piece(b, ';', text, a, a);
    }
}

/* This text's declarations key (above) in el->key, when the sources are
 * kept (expressions kept) and the parse met no syntax error; else (and
 * when out of memory: then only nothing is skipped) none. */
static void declarations_key(elab *el, const mel__stmt *prog)
{
    if (el->opt->no_expressions || el->rep->syntax_errors > 0 || el->rep->stop)
        return;
    mdae_buf b = {0};
    key_stmts(&b, el->text, prog, el->key_mark, &el->key_mark_at);
    for (size_t k = 0; k < el->opt->n_defines; k++) {
        const mel_define *d = &el->opt->defines[k];
        const char *name = d->name != NULL ? d->name : "";
        key_piece(&b, 'N', name, 0, strlen(name));
        mdae_buf_put(&b, (const char *)&d->value, sizeof d->value);
    }
    if (b.oom || b.p == NULL) {
        mdae_free(b.p);
        return;
    }
    el->key = b.p;
    el->key_len = b.len;
}

/* Whether prev was elaborated from a text of this one's declarations key. */
static bool same_key(const elab *el, const struct mel_model_priv *pp)
{
    return el->key != NULL && pp->decl_key != NULL && el->key_len == pp->decl_key_len &&
           memcmp(el->key, pp->decl_key, el->key_len) == 0;
}

/* Whether prev (a MEL model with what the next version reuses) declares
 * what pass 1 has declared, in the same order (see above): known at once
 * when the declarations keys are the same. */
static bool same_declarations(const elab *el, const mel_model *prev)
{
    const struct mel_model_priv *pp = prev->priv;
    if (prev->modelica || pp == NULL || pp->src == NULL || pp->eqsrc == NULL ||
        prev->n_variables != el->vars.n || prev->n_equations != el->eqs.n ||
        prev->n_modes != el->modes.n || prev->n_knowns != el->knowns.n)
        return false;
    if (same_key(el, pp))
        return true;
    const mel_mode *modes = el->modes.p;
    const mel_known *ks = el->knowns.p;
    for (uint32_t k = 0; k < prev->n_knowns; k++) {
        const mel_known *a = &ks[k], *b = &prev->knowns[k];
        if (a->kind != b->kind || strcmp(a->name, b->name) != 0 ||
            (a->kind == MEL_KNOWN_INTEGER &&
             (a->value != b->value ||
              folded(&el->priv->syms, a->name) != folded(&pp->syms, b->name))))
            return false;
    }
    for (uint32_t k = 0; k < prev->n_variables; k++)
        if (strcmp(el->variables[k].name, prev->variables[k].name) != 0)
            return false;
    for (uint32_t k = 0; k < prev->n_equations; k++)
        if (strcmp(el->equations[k].name, prev->equations[k].name) != 0)
            return false;
    for (uint32_t k = 0; k < prev->n_modes; k++)
        if (strcmp(modes[k].name, prev->modes[k].name) != 0)
            return false;
    return true;
}

/* Whether statement st (range r, within both texts) is the same bytes in
 * prev's text (pp) as in this one; remembered by statement (the answer
 * does not depend on the execution). */
static bool same_text(elab *el, const struct mel_model_priv *pp, const mel__stmt *st,
                      mdae_range r)
{
    struct stmt_memo *m = &el->same_text[((uintptr_t)st >> 4) % 64];
    if (m->s != st)
        *m = (struct stmt_memo){st, memcmp(pp->src + r.start.offset, el->text + r.start.offset,
                                           r.end.offset - r.start.offset) == 0};
    return m->same;
}

/* Equation item it's sides shared with el->prev (see above), with envs
 * its loop indices; false (nothing set) when they cannot be. */
static bool reused_sides(elab *el, const item *it, const char *envs, const fx_node **lhs,
                         const fx_node **rhs)
{
    const struct mel_model_priv *pp = el->prev->priv;
    const mel__eqsrc *o = &pp->eqsrc[it->eq];
    const mel_equation *q = &el->prev->equations[it->eq];
    mdae_range a = o->stmt, b = it->s->where;
    if (o->env == NULL || envs == NULL || q->lhs == NULL || q->rhs == NULL ||
        memcmp(&a, &b, sizeof a) != 0 || b.end.offset > pp->src_len ||
        b.end.offset > el->len || strcmp(o->env, envs) != 0 || !same_text(el, pp, it->s, b))
        return false;
    *lhs = q->lhs;
    *rhs = q->rhs;
    el->shared = true;
    return true;
}

/* The incidences of equation eq copied from el->prev's, when every case
 * of them is unconditional (an equation whose sides are shared, declared
 * outside conditional statements and when-clauses in both versions, hence
 * once: its guard is TRUE, and the uses mel__inc_uses would read from the
 * same sides group into the same cases); false (nothing set) otherwise, or
 * when out of memory (then mel__inc_uses meets the same), or when prev's
 * cases of eq are not one run (mel__inc_build and this copy both lay an
 * equation's cases out as one run, incidence after incidence). The
 * previous version's statement must have been plain too: inside a
 * when-clause whose condition is false it had no incidences at all (found
 * by mel_parse_fuzz's since check). mel__inc_build leaves them: eq has no
 * uses. Their count goes to el->copied_edges, and el->copied marks eq
 * (check_model: a copy of a checked equation). */
static bool copied_incidences(elab *el, uint32_t eq)
{
    const mel_equation *p = &el->prev->equations[eq];
    const mel_guard *t = mel__g_true();
    if (!el->prev->priv->eqsrc[eq].plain || p->guard != t)
        return false;
    const mel_order_case *run = p->n_incs > 0 ? p->incs[0].cases : NULL;
    size_t n_cases = 0;
    for (uint32_t k = 0; k < p->n_incs; k++) {
        if (p->incs[k].cases != run + n_cases)
            return false;
        n_cases += p->incs[k].n_cases;
    }
    for (size_t c = 0; c < n_cases; c++)
        if (run[c].guard != t)
            return false;
    /* One block: the incidences, then their cases. */
    size_t bytes = p->n_incs * sizeof(mel_incidence) + n_cases * sizeof(mel_order_case);
    mel_incidence *incs = bytes ? mel__arena_alloc_raw(el->ma, bytes) : NULL;
    if (bytes > 0 && incs == NULL)
        return false;
    if (bytes > 0) { /* no incidences: incs stays NULL */
        mel_order_case *cases = (mel_order_case *)(incs + p->n_incs);
        memcpy(incs, p->incs, p->n_incs * sizeof *incs);
        memcpy(cases, run, n_cases * sizeof *cases);
        for (uint32_t k = 0; k < p->n_incs; k++)
            incs[k].cases = cases + (p->incs[k].cases - run);
    }
    mel_equation *q = &el->equations[eq];
    MDAE_ASSERT(q->n_incs == 0);
    q->incs = incs;
    q->n_incs = p->n_incs;
    el->copied_edges += p->n_incs;
    if (el->copied != NULL)
        el->copied[eq] = true;
    return true;
}

/* What equation item it reuses of el->prev (see "what an edit left
 * alone"): its loop indices as text (NULL when no sources are kept), and
 * the previous version's sides when they are this item's. */
typedef struct reuse {
    const char *envs;
    bool shared;
    const fx_node *lhs, *rhs;
} reuse;

static reuse reuse_of(elab *el, const item *it)
{
    reuse r = {NULL, false, NULL, NULL};
    const mel_equation *q = &el->equations[it->eq];
    bool first = q->lhs == NULL || q->rhs == NULL;
    r.envs = el->eqsrc != NULL ? env_string(el, it->env) : NULL;
    r.shared = el->prev != NULL && first && reused_sides(el, it, r.envs, &r.lhs, &r.rhs);
    return r;
}

/* Equation item it's sides, lowered (or r's), and what they read under
 * the item's guard g (el->uses, the structure: mel_inc.c). An equation
 * declared in several branches (ctxlist) is, after its first declaration,
 * if <this context> then <these sides> else <the sides so far>: exactly
 * one of its contexts holds where it is active. */
static void lower_equation(elab *el, const item *it, const mel_guard *g, const reuse *r)
{
    if (el->rep->rc != MDAE_OK || el->rep->stop)
        return;
    mel_equation *q = &el->equations[it->eq];
    bool first = q->lhs == NULL || q->rhs == NULL;
    const char *envs = r->envs;
    const fx_node *lhs = r->lhs, *rhs = r->rhs;
    bool shared = r->shared;
    bool plain = it->ctx == NULL && it->when == 0;
    if (!shared) {
        lhs = lower_item(el, it, it->s->u.equ.lhs);
        rhs = lower_item(el, it, it->s->u.equ.rhs);
    }
    if (el->eqsrc != NULL)
        el->eqsrc[it->eq] =
            first ? (mel__eqsrc){envs, it->s->where, plain, false, 0, it->s->size, it->seq}
                  : (mel__eqsrc){NULL, no_range, false, false, 0, 0, 0};
    if (shared && plain && copied_incidences(el, it->eq)) {
        /* the structure too (see "what an edit left alone") */
    } else if (!mel__inc_uses(&el->gf, &el->uses, it->eq, lhs, g) ||
               !mel__inc_uses(&el->gf, &el->uses, it->eq, rhs, g)) {
        mel__nomem(el->rep);
        return;
    }
    if (q->lhs != NULL && q->rhs != NULL) {
        const fx_node *c = ctx_cond(el, it->ctx);
        lhs = fx_if(el->fx, c, lhs, q->lhs, no_range);
        rhs = fx_if(el->fx, c, rhs, q->rhs, no_range);
    }
    q->lhs = lhs;
    q->rhs = rhs;
}

/* The value of a known quantity's binding, when it is made of numbers and
 * known quantities with values (arithmetic and the functions of math.h);
 * false otherwise. */
static bool known_value(const mel_known *ks, const fx_node *e, double *out)
{
    double a, b;
    switch ((fx_op)e->op) {
    case FX_NUM:
    case FX_BOOL: *out = e->num; return true;
    case FX_KNOWN:
        *out = ks[e->index].value;
        return ks[e->index].known;
    case FX_NEG:
        if (!known_value(ks, e->kids[0], &a))
            return false;
        *out = -a;
        return true;
    case FX_ADD:
    case FX_MUL:
        if (!known_value(ks, e->kids[0], &a))
            return false;
        for (uint32_t k = 1; k < e->n; k++) {
            if (!known_value(ks, e->kids[k], &b))
                return false;
            a = e->op == FX_ADD ? a + b : a * b;
        }
        *out = a;
        return true;
    case FX_DIV:
    case FX_POW:
        if (!known_value(ks, e->kids[0], &a) || !known_value(ks, e->kids[1], &b))
            return false;
        *out = e->op == FX_DIV ? a / b : pow(a, b);
        return true;
    case FX_CALL:
        if (e->n != 1 || !known_value(ks, e->kids[0], &a))
            return false;
        switch ((fx_fn)e->fn) {
        case FX_FN_SIN: *out = sin(a); return true;
        case FX_FN_COS: *out = cos(a); return true;
        case FX_FN_TAN: *out = tan(a); return true;
        case FX_FN_EXP: *out = exp(a); return true;
        case FX_FN_LOG: *out = log(a); return true;
        case FX_FN_SQRT: *out = sqrt(a); return true;
        case FX_FN_ABS: *out = fabs(a); return true;
        default: return false;
        }
    default: return false;
    }
}

/* The values of the real parameters: sweeps in declaration order until
 * none is added (a parameter may read one declared after it), at most
 * 8 sweeps (a longer chain written backwards keeps the rest unknown). */
static void known_values(elab *el)
{
    mel_known *ks = el->knowns.p;
    bool more = true;
    for (int sweep = 0; sweep < 8 && more; sweep++) {
        more = false;
        for (size_t k = 0; k < el->knowns.n; k++)
            if (!ks[k].known && ks[k].binding != NULL &&
                known_value(ks, ks[k].binding, &ks[k].value))
                more = ks[k].known = true;
    }
}

static void check_gf(elab *el, mdae_range where)
{
    if (el->gf.err == MDAE_OK || el->gf_reported)
        return;
    el->gf_reported = true;
    if (el->gf.err == MDAE_E_NOMEM)
        mel__nomem(el->rep);
    else
        mel__error(el->rep, MDAE_E_LIMIT, where, "condition too complex (more than %llu nodes)",
                   (unsigned long long)MEL__MAX_GUARD_SIZE);
    el->rep->stop = true;
}

static void p2_item(elab *el, const item *it)
{
    el->it = it;
    switch (it->kind) {
    case IT_CHECK: {
        walk(el, it->e, mel__g_true(), 0, true, false);
        const fx_node *d = lower_item(el, it, it->e);
        if (it->mode >= 0)
            ((mel_mode *)el->modes.p)[it->mode].def = d;
        else if (el->fx != NULL && it->eq < el->knowns.n)
            ((mel_known *)el->knowns.p)[it->eq].binding = d;
        break;
    }
    case IT_EQ: {
        uint32_t mark = el->gf.next_id;
        const mel_guard *g = ctx_guard(el, it->ctx);
        const plan *p = plan_of(el, it);
        reuse r = reuse_of(el, it);
        /* A shared item's plan, when local, reports what it reported in
         * el->prev, which parsed: nothing (reused_sides: the same
         * statement, loop indices and declarations). */
        if (p != NULL && !(p->local && r.shared))
            run_plan(el, p, it, g);
        else if (p == NULL) {
            walk(el, it->s->u.equ.lhs, g, 0, true, true);
            walk(el, it->s->u.equ.rhs, g, 0, true, true);
        }
        lower_equation(el, it, g, &r);
        if (el->eqsrc != NULL) { /* what a replay needs (see "Replay") */
            el->eqsrc[it->eq].guard_mark = mark;
            el->eqsrc[it->eq].made_guards = el->gf.next_id != mark;
        }
        break;
    }
    case IT_INV: {
        const mel_guard *c = to_guard(el, it->s->u.inv, it->env, it->seq);
        if (c == NULL)
            break;
        const mel_guard *g = ctx_guard(el, it->ctx);
        if (g->op == MEL_G_FALSE)
            break;
        if (!count_object(el, it->s->where))
            break;
        mel_invariant *inv = vec_push(el, &el->invariants, sizeof *inv);
        if (inv == NULL)
            break;
        *inv = (mel_invariant){mel__g_or(&el->gf, mel__g_not(&el->gf, g), c), it->s->where, 0};
        break;
    }
    }
    check_gf(el, it->s->where);
}

/* The guards of the model's unknowns and equations: the OR of their
 * declarations' contexts. Those declared once outside any conditional keep
 * p1_finish's TRUE (ctxlist_guard's, and no guard was made before). */
static void p2_guards(elab *el)
{
    size_t i = 0;
    for (const obj *o = el->vars.head; o != NULL && !el->rep->stop; o = o->next, i++) {
        if (o->ctx != NULL) {
            el->variables[i].guard = ctxlist_guard(el, o->ctx);
            check_gf(el, el->variables[i].where);
        }
    }
    i = 0;
    for (const obj *o = el->eqs.head; o != NULL && !el->rep->stop; o = o->next, i++) {
        if (o->ctx != NULL) {
            el->equations[i].guard = ctxlist_guard(el, o->ctx);
            check_gf(el, el->equations[i].where);
        }
    }
}

/* Each when-clause: its condition, and the invariant !c that keeps its
 * transient modes out of the long modes (mel.h). */
static void p2_whens(elab *el)
{
    const whenrec *w = el->wrecs.p;
    for (size_t k = 0; k < el->wrecs.n && !el->rep->stop; k++) {
        const mel_guard *c = ctx_guard(el, w[k].yes);
        mdae_range where = {w[k].s->where.start, w[k].s->u.cond.cond->where.end};
        check_gf(el, where);
        if (el->rep->stop || !count_object(el, where))
            return;
        mel_when *mw = vec_push(el, &el->whens, sizeof *mw);
        if (mw == NULL)
            return;
        *mw = (mel_when){c, where};
    }
}

/* The invariant !c of each when-clause (mel_invariant.when), after the
 * model's own invariants, as the Modelica importer orders them (so that a
 * model printed as MEL reads back with its invariants in their order). */
static void p2_when_invariants(elab *el)
{
    const mel_when *w = el->whens.p;
    for (size_t k = 0; k < el->whens.n && !el->rep->stop; k++) {
        mel_invariant *inv = vec_push(el, &el->invariants, sizeof *inv);
        if (inv == NULL)
            return;
        *inv = (mel_invariant){mel__g_not(&el->gf, w[k].cond), w[k].where, (uint32_t)k + 1};
        check_gf(el, w[k].where);
    }
}

/* Size the list of uses once: an equation reads at most as many unknowns
 * as it has identifiers (mel__stmt.ids), for each of its items (summed by
 * p1_equ in el->use_bound). Up to
 * 2^16 uses (2.6 MB); beyond, the list grows as it fills, since the bound
 * also counts parameters, loop indices and branches not taken. */
static void reserve_uses(elab *el)
{
    size_t bound = el->use_bound < ((size_t)1 << 16) ? el->use_bound : (size_t)1 << 16;
    if (bound == 0 || el->rep->stop)
        return;
    if ((el->uses.p = mdae_malloc(bound * sizeof *el->uses.p)) == NULL)
        mel__nomem(el->rep);
    else
        el->uses.cap = bound;
}

/* ---- Driver ------------------------------------------------------------------ */

static void elab_close(elab *el)
{
    mdae_free(el->itab);
    mdae_free(el->ptab);
    mdae_free(el->sites.p);
    mdae_free(el->names);
    mel__arena_free(&el->tmp);
    mel__gf_close(&el->gf);
    mdae_free(el->define_used);
    mdae_free(el->uses.p);
    mdae_free(el->wrecs.p);
    mdae_free(el->memo.p);
    mdae_free(el->copied);
    mdae_free(el->key);
    mdae_free(el->folded.p);
    mdae_free(el->instances.p);
}

static void model_release_arrays(elab *el)
{
    mdae_free(el->modes.p);
    mdae_free(el->invariants.p);
    mdae_free(el->variables);
    mdae_free(el->equations);
    mdae_free(el->whens.p);
    mdae_free(el->knowns.p);
}

struct fx_pool *mel_model_exprs(const mel_model *m)
{
    return m != NULL && m->priv != NULL ? m->priv->exprs : NULL;
}

bool mel_model_edited_rows(const mel_model *m, const mel_model *since, const uint32_t **rows,
                           size_t *n)
{
    if (m == NULL || since == NULL || m->priv == NULL || m->priv->rows_from != since)
        return false;
    *rows = m->priv->edited_rows;
    *n = m->priv->n_edited_rows;
    return true;
}

/* How many of m's equations have since's sides because m's replay kept
 * them as they were (mel_model_priv.sides_kept); 0 when m was not so
 * made from since. */
static size_t sides_kept(const mel_model *m, const mel_model *since)
{
    if (m->modelica || m->priv == NULL || m->priv->kept_from != since)
        return 0;
    return m->priv->sides_kept;
}

size_t mel_model_sides_shared(const mel_model *m, const mel_model *since)
{
    if (m == NULL || since == NULL)
        return 0;
    const mel_equation *a = m->equations, *b = since->equations;
    const uint32_t *rows = NULL;
    size_t n_rows = 0, n = 0;
    if (!m->modelica && m->priv != NULL && m->priv->shared_from == since) {
        /* a shifting replay: the equations before the edit are since's,
         * with expressions; E's and those after it are new */
        n = m->priv->n_shared;
    } else if (mel_model_edited_rows(m, since, &rows, &n_rows)) {
        /* every other row is since's, with expressions (a replay keeps
         * them): its sides non-NULL */
        MDAE_ASSERT(m->n_equations == since->n_equations && n_rows <= m->n_equations);
        n = m->n_equations - n_rows;
        for (size_t k = 0; k < n_rows; k++)
            n += a[rows[k]].lhs == b[rows[k]].lhs && a[rows[k]].lhs != NULL;
    } else {
        uint32_t n_eq = m->n_equations < since->n_equations ? m->n_equations : since->n_equations;
        for (uint32_t i = 0; i < n_eq; i++)
            n += a[i].lhs == b[i].lhs && a[i].lhs != NULL;
    }
    size_t kept = sides_kept(m, since);
    MDAE_ASSERT(kept <= n);
    return n - kept;
}

void mel_model_forget_edited_rows(mel_model *m)
{
    if (m != NULL && m->priv != NULL) {
        m->priv->rows_from = NULL;
        m->priv->rows_known = false;
        m->priv->shared_from = NULL;
    }
}

long mel_model_find_known(const mel_model *m, const char *name)
{
    for (uint32_t k = 0; k < m->n_knowns; k++)
        if (strcmp(m->knowns[k].name, name) == 0)
            return (long)k;
    return -1;
}

/* Free what is left of p (arena, symbols, guards: mel_model_priv.gone,
 * refs) once its model is freed and no version replayed from it holds
 * it; then the same of the version it holds. A loop: the chain is at
 * most MEL__MAX_HELD long, but a loop costs nothing. */
static void priv_release(struct mel_model_priv *p)
{
    while (p != NULL && p->gone && p->refs == 0) {
        struct mel_model_priv *base = p->base;
        if (!p->borrowed) {
            mel__symtab_close(&p->syms);
            mel__symtab_close(&p->bases);
        }
        if (!p->borrowed || p->own_guards)
            mel__gf_close(&p->guards);
        mdae_free(p->folded);
        mdae_free(p->variables); /* a replay of it may share them */
        if (p->eqsrc_lent)
            mdae_free(p->eqsrc); /* replays of it shared them */
        mel__arena_free(&p->arena);
        mdae_free(p);
        if (base != NULL) {
            MDAE_ASSERT(base->refs > 0);
            base->refs--;
        }
        p = base;
    }
}

void mel_model_free(mel_model *m)
{
    if (m == NULL)
        return;
    struct mel_model_priv *priv = m->priv;
    if (priv != NULL) {
        mdae_free(priv->modes);
        mdae_free(priv->invariants);
        mdae_free(priv->equations);
        mdae_free(priv->whens);
        for (uint32_t k = 0; priv->left_out != NULL && k < m->n_left_out; k++)
            mdae_free(priv->left_out[k].message);
        mdae_free(priv->left_out);
        mdae_free(priv->knowns);
        mdae_free(priv->src);
        if (!priv->eqsrc_borrowed && !priv->eqsrc_lent)
            mdae_free(priv->eqsrc); /* else a replay's or priv_release's */
        mdae_free(priv->decl_key);
        mdae_free(priv->tree_pool);
        mdae_free(priv->edited_rows);
        fx_pool_free(priv->exprs);
        for (size_t k = 0; k < priv->n_held; k++)
            fx_pool_free(priv->held[k]);
        priv->gone = true;
        priv_release(priv);
    }
    mdae_free(m);
}

/* What the next version reuses (mel_options.since), once pass 1 has
 * declared everything: the equations' sources to fill, and opt->since
 * when its declarations are these. Only with expressions kept. */
static void prepare_reuse(elab *el, const mel_options *opt)
{
    if (el->rep->stop || el->fx == NULL || opt->no_expressions || el->eqs.n == 0)
        return;
    if ((el->eqsrc = mdae_calloc(el->eqs.n, sizeof *el->eqsrc)) == NULL) {
        mel__nomem(el->rep);
        return;
    }
    const mel_model *prev = opt->since;
    if (prev != NULL && prev->priv != NULL && prev->priv->n_held < MEL__MAX_HELD &&
        same_declarations(el, prev)) {
        el->prev = prev;
        el->copied = mdae_calloc(el->eqs.n, sizeof *el->copied); /* NULL: all checked */
    }
}

/* priv holds pp's pools, whose nodes its model shares (mel_model_priv.held). */
static void hold_pools(struct mel_model_priv *priv, const struct mel_model_priv *pp)
{
    MDAE_ASSERT(pp->n_held < MEL__MAX_HELD);
    for (size_t k = 0; k < pp->n_held; k++)
        priv->held[k] = fx_pool_hold(pp->held[k]);
    priv->held[pp->n_held] = fx_pool_hold(pp->exprs);
    priv->n_held = pp->n_held + 1;
}

/* The text, the equations' sources (el->eqsrc) and the declarations key
 * handed to priv, for the next version's since; false (nothing handed)
 * when out of memory. */
static bool hand_sources(elab *el, struct mel_model_priv *priv)
{
    if ((priv->src = mdae_malloc(el->len + 1)) == NULL)
        return false;
    if (el->len > 0)
        memcpy(priv->src, el->text, el->len);
    priv->src[el->len] = '\0';
    priv->src_len = el->len;
    priv->eqsrc = el->eqsrc;
    priv->eqsrc_borrowed = el->eqsrc_shared;
    el->eqsrc = NULL;
    priv->decl_key = el->key;
    priv->decl_key_len = el->key_len;
    el->key = NULL;
    return true;
}

/* Hand the text and the equations' sources to m (the next version's
 * since); without them when out of memory (nothing is reused then). When
 * m shares nodes with el->prev, hold the pools they are in. */
static void keep_sources(elab *el, mel_model *m)
{
    struct mel_model_priv *priv = m->priv;
    if (el->shared)
        hold_pools(priv, el->prev->priv);
    if (el->eqsrc == NULL || !hand_sources(el, priv)) {
        mdae_free(el->eqsrc);
        el->eqsrc = NULL;
    }
}

/* A name's symbols with one index as pass 1 indexed them (nameinfo's
 * dense array: name[lo + k] or NULL), kept with its base (the aux of its
 * mel_model_priv.bases symbol) for the replays of later versions (see
 * "Replay"), whose look-ups of name[i] then find them as pass 1's would
 * rather than by writing and hashing the instance name. */
typedef struct kept_index {
    long long lo;
    size_t cap, count;
    mel__sym *dense[];
} kept_index;

/* ni's dense array kept in the model's arena; NULL on OOM. */
static kept_index *keep_index(elab *el, const nameinfo *ni)
{
    kept_index *k = mel__arena_alloc_raw(el->ma, sizeof *k + ni->cap * sizeof *k->dense);
    if (k == NULL)
        return NULL;
    k->lo = ni->lo;
    k->cap = ni->cap;
    k->count = ni->count;
    memcpy(k->dense, ni->dense, ni->cap * sizeof *k->dense);
    return k;
}

/* mel_model_priv.vars_end of the n unknowns vs. */
static uint32_t vars_end(const mel_variable *vs, uint32_t n)
{
    uint32_t end = 0;
    for (uint32_t k = 0; k < n; k++)
        if (vs[k].where.start.offset >= end)
            end = vs[k].where.start.offset + 1;
    return end;
}

/* What a replay of the next version needs (see "Replay"), kept when this
 * parse reported nothing and kept its sources: the names declared without
 * their indices, the guard factory's table (moved out of el), pass 1's
 * work. Out of memory only leaves the model not replayable. */
static void keep_replay(elab *el, mel_model *m, uint32_t guards_items)
{
    struct mel_model_priv *priv = m->priv;
    if (priv->src == NULL || el->rep->errors > 0 || el->rep->syntax_errors > 0 ||
        m->n_left_out > 0 || el->gf.next_id != guards_items || el->gf.frozen)
        return;
    for (size_t id = 0; id < el->n_names; id++) {
        const nameinfo *ni = &el->names[id];
        if (!ni->declared)
            continue;
        MDAE_ASSERT(ni->base != NULL);
        mel__sym *s = mel__sym_add(&priv->bases, el->ma, ni->base);
        if (s == NULL)
            return;
        s->kind = ni->kind;
        s->value = ni->has_int;
        if (ni->cap > 0 && (s->aux = keep_index(el, ni)) == NULL)
            return;
    }
    priv->guards = el->gf;
    el->gf.table = NULL; /* the model's now */
    el->gf.cap = el->gf.count = 0;
    priv->or_compared = el->gf.compared > 0;
    priv->folded = el->folded.p;
    priv->n_folded = el->folded.n;
    el->folded = (vec){NULL, 0, 0};
    priv->guards_items = guards_items;
    priv->work = el->work;
    priv->max_instances = el->max_instances;
    priv->seq_end = el->seq;
    priv->vars_end = vars_end(m->variables, m->n_variables);
    priv->once = true;
    for (uint32_t q = 0; q < m->n_equations && priv->once; q++)
        priv->once = priv->eqsrc[q].env != NULL;
    priv->replayable = true;
}

/* What mel.h promises of an elaborated model (issue 12): per equation,
 * incidences sorted by variable index, one per variable, each with at least
 * one case, cases by strictly decreasing order within 0..MEL_MAX_ORDER; and
 * n_edges counts them. Linear in the model, once per parse; an equation
 * whose incidences are a copy of the previous version's (copied, may be
 * NULL) is counted only: its original was checked. */
static void check_equation(const mel_model *m, const mel_equation *e)
{
    for (uint32_t k = 0; k < e->n_incs; k++) {
        const mel_incidence *inc = &e->incs[k];
        MDAE_ASSERT(inc->var < m->n_variables);
        MDAE_ASSERT(k == 0 || e->incs[k - 1].var < inc->var);
        MDAE_ASSERT(inc->n_cases > 0);
        for (uint32_t c = 0; c < inc->n_cases; c++) {
            MDAE_ASSERT(inc->cases[c].order >= 0 && inc->cases[c].order <= MEL_MAX_ORDER);
            MDAE_ASSERT(c == 0 || inc->cases[c - 1].order > inc->cases[c].order);
        }
    }
}

static void check_model(const mel_model *m, const bool *copied)
{
    size_t edges = 0;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *e = &m->equations[i];
        edges += e->n_incs;
        if (copied == NULL || !copied[i])
            check_equation(m, e);
    }
    MDAE_ASSERT(edges == m->n_edges);
}

/* ---- Replay: an edit inside one equation statement ----------------------------
 * Issue 40 item 3: an edit's cost should follow the edit. When the
 * previous version (mel_options.since) reported nothing and kept what a
 * replay needs (keep_replay), and this text parses without a diagnostic
 * with the same declarations key, and the bytes that differ (the longest
 * common prefix and suffix of the two texts leave old [at, old_end) and
 * new [at, new_end)) lie inside the sides of one equation statement E
 * (after its label), this model is made from the previous one without
 * pass 1 and with pass 2 over E's instances only:
 *  - The token streams of the two texts are the same before E and, shifted,
 *    after it, and E is one equation statement in both (its old range is
 *    the range its instances recorded, mel__eqsrc.stmt), so the trees are
 *    the same but for E's sides and the locations after the edit. Pass 1
 *    reads nothing of an equation's sides but its size (the work limit:
 *    checked from the previous total, mel_model_priv.work), so it declares
 *    the same symbols in the same order, with the same contexts and loop
 *    indices, and E's executions are its instances in the previous model
 *    (every equation declared once: mel__eqsrc.env set).
 *  - Pass 2 gives every other item what it gave it in the previous version
 *    (same text, declarations, guards), with the locations after the edit
 *    moved (fx_shift_pos: offset, line and, on the edit's last line, column)
 *    and no error (the previous version had none). E's instances are walked
 *    (errors: no replay, the full elaboration reports them), lowered and
 *    read under their equation's guard, with the symbols of the previous
 *    version (its table, borrowed) and the names its expressions use
 *    (mel_model_priv.bases).
 *  - Guards are hash-consed and ordered by creation (mel__g_or_all sorts
 *    by id), so this version's guards must be made in the cold parse's
 *    order: the factory is the previous one's, frozen (mel__gf_view), and
 *    finds only the guards made before E's item began in the previous
 *    parse (mel__eqsrc.guard_mark); E's items made none there and make
 *    none here, and the incidences' grouping made none in the previous
 *    parse (keep_replay) and makes none here. So a cold parse of this text
 *    makes the same guards in the same order.
 * Anything else (another edit, an error, a guard not found, the chain of
 * versions at MEL__MAX_HELD) elaborates the text in full. The replayed
 * model holds the previous version's private part (arena, symbols,
 * guards: mel_model_priv.base) and expression pools; either model may be
 * freed first. */

/* Where the edit moves a position of the previous text (see above). */
typedef struct span {
    size_t at;   /* where the texts start to differ */
    fx_shift mv; /* old [at, mv.old_end) became new [at, mv.new_end) (engine/fx.h) */
} span;

static inline mdae_range moved(const span *sp, mdae_range r)
{
    return fx_shift_range(&sp->mv, r);
}

/* Column of offset off of text t (as mel_lex.c counts them, from 0 here). */
static size_t column_of(const char *t, size_t off)
{
    size_t s = off;
    while (s > 0 && t[s - 1] != '\n')
        s--;
    if (s == 0 && off >= 3 && memcmp(t, "\xef\xbb\xbf", 3) == 0)
        s = 3; /* mel__lex_init: columns count from after a byte-order mark */
    return off - s;
}

static int64_t newlines(const char *t, size_t from, size_t to)
{
    int64_t n = 0;
    for (size_t k = from; k < to; k++)
        n += t[k] == '\n';
    return n;
}

static span edit_span(const char *o, size_t olen, const char *n, size_t nlen)
{
    size_t m = olen < nlen ? olen : nlen, a = 0, z = 0;
    while (a < m && o[a] == n[a])
        a++;
    while (z < m - a && o[olen - 1 - z] == n[nlen - 1 - z])
        z++;
    span sp = {a, {olen - z, nlen - z, olen, 0, 0}};
    const char *nl = memchr(o + sp.mv.old_end, '\n', olen - sp.mv.old_end);
    sp.mv.old_nl = nl != NULL ? (size_t)(nl - o) : olen;
    sp.mv.d_line = newlines(n, a, sp.mv.new_end) - newlines(o, a, sp.mv.old_end);
    sp.mv.d_col = (int64_t)column_of(n, sp.mv.new_end) - (int64_t)column_of(o, sp.mv.old_end);
    return sp;
}

#define REPLAY_MAX_LOOPS 64

/* The equation statement of s (and those after) whose sides hold the edit
 * sp, with the loops around it (outermost first) in loops[0 .. *n_loops);
 * NULL when the edit is elsewhere. Recursion as deep as the nesting. */
static const mel__stmt *edited_equation(const mel__stmt *s, const span *sp,
                                        const mel__stmt **loops, size_t *n_loops)
{
    for (; s != NULL; s = s->next) {
        if (s->where.start.offset > sp->at || sp->mv.new_end > s->where.end.offset)
            continue;
        switch (s->kind) {
        case MEL_S_EQU:
            return s->u.equ.lhs != NULL && s->u.equ.rhs != NULL &&
                           s->u.equ.lhs->where.start.offset <= sp->at
                       ? s
                       : NULL;
        case MEL_S_FOR:
            if (*n_loops == REPLAY_MAX_LOOPS)
                return NULL;
            loops[(*n_loops)++] = s;
            return edited_equation(s->u.loop.body, sp, loops, n_loops);
        case MEL_S_IF:
        case MEL_S_WHEN: {
            const mel__stmt *e = edited_equation(s->u.cond.body, sp, loops, n_loops);
            return e != NULL ? e : edited_equation(s->u.cond.orelse, sp, loops, n_loops);
        }
        default: return NULL;
        }
    }
    return NULL;
}

/* ni's one-index symbols from k (kept_index, NULL: none), copied into
 * the scratch arena (look-ups index what they find by name: the copy is
 * this replay's); none on OOM (reported: the replay gives up). */
static void index_kept(elab *el, nameinfo *ni, const kept_index *k)
{
    mel__sym **d = k != NULL ? talloc(el, k->cap * sizeof *d) : NULL;
    if (d == NULL)
        return;
    memcpy(d, k->dense, k->cap * sizeof *d);
    ni->lo = k->lo;
    ni->cap = k->cap;
    ni->count = k->count;
    ni->dense = d;
}

/* Make the names e reads known to name_get as pass 1 would have
 * (declared, kind of the first declaration, integer constant, the symbol
 * without index, those with one index: kept_index), from the previous
 * version's bases and symbols. */
static void replay_names(elab *el, const struct mel_model_priv *pp, const mel__expr *e)
{
    if (e == NULL || el->rep->stop)
        return;
    switch (e->kind) {
    case MEL_X_ID:
    case MEL_X_CALL:
        if (!(e->kind == MEL_X_CALL && e->u.id.text)) {
            const mel__sym *b = mel__sym_find(&pp->bases, e->u.id.name);
            nameinfo *ni = b != NULL ? name_at(el, e->u.id.name_id) : NULL;
            if (ni != NULL && !ni->declared) {
                ni->declared = true;
                ni->kind = b->kind;
                ni->has_int = b->value != 0;
                ni->sym0 = mel__sym_find(&pp->syms, e->u.id.name);
                index_kept(el, ni, b->aux);
            }
        }
        for (uint32_t k = 0; k < e->u.id.n; k++)
            replay_names(el, pp, e->u.id.args[k]);
        return;
    case MEL_X_NEG:
    case MEL_X_NOT:
    case MEL_X_DER:
    case MEL_X_LAST:
    case MEL_X_PRE:
    case MEL_X_NEXT: replay_names(el, pp, e->u.kid); return;
    case MEL_X_POW:
    case MEL_X_CMP:
        replay_names(el, pp, e->u.bin.lhs);
        replay_names(el, pp, e->u.bin.rhs);
        return;
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR:
        for (uint32_t k = 0; k < e->u.nary.n; k++)
            replay_names(el, pp, e->u.nary.kids[k]);
        return;
    case MEL_X_IF:
        replay_names(el, pp, e->u.ite.c);
        replay_names(el, pp, e->u.ite.a);
        replay_names(el, pp, e->u.ite.b);
        return;
    default: return;
    }
}

/* Forget what lowering memoised in e (mel__expr.aux), for the full
 * elaboration after a replay that did not go through. */
static void clear_aux(mel__expr *e)
{
    if (e == NULL)
        return;
    e->aux = 0;
    switch (e->kind) {
    case MEL_X_ID:
    case MEL_X_CALL:
        for (uint32_t k = 0; k < e->u.id.n; k++)
            clear_aux(e->u.id.args[k]);
        return;
    case MEL_X_NEG:
    case MEL_X_NOT:
    case MEL_X_DER:
    case MEL_X_LAST:
    case MEL_X_PRE:
    case MEL_X_NEXT: clear_aux(e->u.kid); return;
    case MEL_X_POW:
    case MEL_X_CMP:
        clear_aux(e->u.bin.lhs);
        clear_aux(e->u.bin.rhs);
        return;
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR:
        for (uint32_t k = 0; k < e->u.nary.n; k++)
            clear_aux(e->u.nary.kids[k]);
        return;
    case MEL_X_IF:
        clear_aux(e->u.ite.c);
        clear_aux(e->u.ite.a);
        clear_aux(e->u.ite.b);
        return;
    default: return;
    }
}

/* The value "=-12;" at *s (as env_string writes it: '=', an optional '-',
 * decimal digits, ';') into *v, *s moved past the ';'; false when it is
 * not one or overflows. */
static bool env_value(const char **s, long long *v)
{
    const char *p = *s + 1;
    bool neg = *p == '-';
    p += neg;
    if (*p < '0' || *p > '9')
        return false;
    unsigned long long u = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if (__builtin_mul_overflow(u, 10ull, &u) ||
            __builtin_add_overflow(u, (unsigned long long)(*p - '0'), &u))
            return false;
    if (*p != ';' || u > (unsigned long long)LLONG_MAX + neg)
        return false;
    *v = neg ? (long long)(0ull - u) : (long long)u;
    *s = p + 1;
    return true;
}

/* The loop indices of an instance of E (loops[0 .. n), outermost first)
 * from its source's text ("i=3;j=1;", innermost first: env_string), in
 * the scratch arena; false when they do not read back. */
static bool replay_env(elab *el, const char *s, const mel__stmt *const *loops, size_t n,
                       const env **out)
{
    long long v[REPLAY_MAX_LOOPS];
    for (size_t k = n; k-- > 0;) {
        const char *x = loops[k]->u.loop.index;
        while (*x != '\0' && *s == *x)
            x++, s++;
        if (*x != '\0' || *s != '=' || !env_value(&s, &v[k]))
            return false;
    }
    if (*s != '\0')
        return false;
    const env *parent = NULL;
    for (size_t k = 0; k < n; k++) {
        env *f = talloc(el, sizeof *f);
        if (f == NULL)
            return false;
        *f = (env){loops[k]->u.loop.index_id, v[k], parent, loops[k]->u.loop.index};
        parent = f;
    }
    *out = parent;
    return true;
}

/* e (of the previous version) with its locations moved by sp, in el's
 * pool, node for node (fx_copy: what the constructors make of its fields). */
static const fx_node *fx_moved(elab *el, const span *sp, const fx_node *e)
{
    return fx_copy(el->fx, e, &sp->mv);
}

/* A copy of e (of the previous version) in el's pool, node for node:
 * fx_moved without a move. */
static const fx_node *fx_copied(elab *el, const fx_node *e)
{
    return fx_copy(el->fx, e, NULL);
}

/* The incidences of q (of the previous version) with their locations
 * moved by sp, in el's arena (one block: incidences, then cases); false
 * on OOM. */
static bool incs_moved(elab *el, const span *sp, mel_equation *q)
{
    size_t n_cases = 0;
    for (uint32_t k = 0; k < q->n_incs; k++)
        n_cases += q->incs[k].n_cases;
    if (q->n_incs == 0)
        return true;
    size_t bytes = q->n_incs * sizeof(mel_incidence) + n_cases * sizeof(mel_order_case);
    mel_incidence *incs = mel__arena_alloc_raw(el->ma, bytes);
    if (incs == NULL)
        return false;
    mel_order_case *cases = (mel_order_case *)(incs + q->n_incs);
    for (uint32_t k = 0; k < q->n_incs; k++) {
        incs[k] = q->incs[k];
        incs[k].cases = cases;
        for (uint32_t c = 0; c < q->incs[k].n_cases; c++) {
            cases[c] = q->incs[k].cases[c];
            cases[c].where = moved(sp, cases[c].where);
        }
        cases += q->incs[k].n_cases;
    }
    q->incs = incs;
    return true;
}

/* A copy of n elements of elt bytes at p (mdae_malloc), or NULL (also
 * when n is 0: *ok tells OOM apart). */
static void *copy_of(const void *p, size_t n, size_t elt, bool *ok)
{
    if (n == 0)
        return NULL;
    void *c = mdae_malloc(n * elt);
    if (c == NULL)
        *ok = false;
    else
        memcpy(c, p, n * elt);
    return c;
}

/* The previous version's records copied into el, with the locations after
 * the edit moved and the expressions of the declarations after it copied
 * with theirs (their sources: el->eqsrc); false on OOM. */
static bool replay_copy(elab *el, const mel_model *prev, const span *sp, const mel__stmt *E)
{
    const struct mel_model_priv *pp = prev->priv;
    bool ok = true;
    bool shifts = sp->mv.new_end != sp->mv.old_end || sp->mv.d_line != 0 || sp->mv.d_col != 0;
    el->shifted = shifts;
    size_t from = sp->mv.old_end;
    /* The unknowns, when none is declared after the edit, are prev's
     * (freed with the last model that holds prev's private part). */
    bool vars_move = shifts && pp->vars_end > from;
    el->equations = copy_of(prev->equations, prev->n_equations, sizeof *el->equations, &ok);
    if (vars_move)
        el->variables = copy_of(prev->variables, prev->n_variables, sizeof *el->variables, &ok);
    else
        el->shared_variables = (mel_variable *)prev->variables;
    if (!shifts && el->instances_same) { /* no source changes: prev's, shared */
        el->eqsrc = pp->eqsrc;
        el->eqsrc_shared = true;
    } else {
        el->eqsrc = copy_of(pp->eqsrc, prev->n_equations, sizeof *el->eqsrc, &ok);
    }
    el->modes = (vec){copy_of(prev->modes, prev->n_modes, sizeof(mel_mode), &ok), prev->n_modes,
                      prev->n_modes};
    el->invariants = (vec){copy_of(prev->invariants, prev->n_invariants, sizeof(mel_invariant), &ok),
                           prev->n_invariants, prev->n_invariants};
    el->whens = (vec){copy_of(prev->whens, prev->n_whens, sizeof(mel_when), &ok), prev->n_whens,
                      prev->n_whens};
    el->knowns = (vec){copy_of(prev->knowns, prev->n_knowns, sizeof(mel_known), &ok),
                       prev->n_knowns, prev->n_knowns};
    size_t n_trees = (size_t)prev->n_equations + prev->n_modes + prev->n_knowns;
    if (ok && (el->tree_pool = mdae_malloc(n_trees + 1)) == NULL)
        ok = false;
    if (ok && pp->tree_pool != NULL)
        memcpy(el->tree_pool, pp->tree_pool, n_trees);
    else if (ok)
        memset(el->tree_pool, 0, n_trees); /* prev is the root: its group's */
    MDAE_ASSERT(pp->n_held < MEL__MAX_HELD); /* replay(): the new one holds one more */
    el->tree_own = (uint8_t)(pp->n_held + 1);
    if (!ok || !shifts)
        return ok;
    for (uint32_t q = 0; q < prev->n_equations; q++) {
        mel_equation *e = &el->equations[q];
        mel__eqsrc *o = &el->eqsrc[q];
        if (E != NULL && o->stmt.start.offset == E->where.start.offset)
            continue; /* E's (replayed) */
        if (o->stmt.start.offset < from) {
            el->n_before++; /* before the edit: prev's, field for field */
            continue;
        }
        e->where = moved(sp, e->where);
        o->stmt = moved(sp, o->stmt);
        e->lhs = fx_moved(el, sp, e->lhs);
        e->rhs = fx_moved(el, sp, e->rhs);
        el->tree_pool[q] = el->tree_own;
        if (e->lhs == NULL || e->rhs == NULL || !incs_moved(el, sp, e))
            return false;
    }
    mel_mode *modes = el->modes.p;
    for (size_t k = 0; k < el->modes.n; k++) {
        if (modes[k].where.start.offset < from)
            continue; /* before the edit, its use too */
        if (modes[k].def != NULL &&
            (modes[k].def = fx_moved(el, sp, modes[k].def)) == NULL)
            return false;
        el->tree_pool[prev->n_equations + k] = el->tree_own;
        modes[k].where = moved(sp, modes[k].where);
        modes[k].reads_where = moved(sp, modes[k].reads_where);
    }
    mel_known *ks = el->knowns.p;
    for (size_t k = 0; k < el->knowns.n; k++) {
        if (ks[k].where.start.offset < from)
            continue;
        if (ks[k].binding != NULL &&
            (ks[k].binding = fx_moved(el, sp, ks[k].binding)) == NULL)
            return false;
        el->tree_pool[prev->n_equations + prev->n_modes + k] = el->tree_own;
        ks[k].where = moved(sp, ks[k].where);
    }
    for (uint32_t k = 0; vars_move && k < prev->n_variables; k++)
        if (el->variables[k].where.start.offset >= from) /* else all before the edit */
            el->variables[k].where = moved(sp, el->variables[k].where);
    mel_invariant *inv = el->invariants.p;
    for (size_t k = 0; k < el->invariants.n; k++)
        inv[k].where = moved(sp, inv[k].where);
    mel_when *w = el->whens.p;
    for (size_t k = 0; k < el->whens.n; k++)
        w[k].where = moved(sp, w[k].where);
    return true;
}

static inline bool same_pos(mdae_pos a, mdae_pos b)
{
    return a.offset == b.offset && a.line == b.line && a.col == b.col;
}

static inline bool same_range(mdae_range a, mdae_range b)
{
    return same_pos(a.start, b.start) && same_pos(a.end, b.end);
}

/* Whether trees a and b are the same node for node, locations included
 * (fx_equal's fields, is_int and where too). */
static bool same_tree(const fx_node *a, const fx_node *b)
{
    if (a == b)
        return true;
    uint64_t an, bn; /* the numbers' bits, as memcmp would compare them */
    if (a == NULL || b == NULL)
        return false;
    memcpy(&an, &a->num, sizeof an);
    memcpy(&bn, &b->num, sizeof bn);
    if (a->op != b->op || a->fn != b->fn || a->is_int != b->is_int || a->order != b->order ||
        a->n != b->n || a->index != b->index || an != bn || !same_range(a->where, b->where) ||
        (a->name == NULL) != (b->name == NULL) || (a->name != NULL && strcmp(a->name, b->name) != 0))
        return false;
    for (uint32_t k = 0; k < a->n; k++)
        if (!same_tree(a->kids[k], b->kids[k]))
            return false;
    return true;
}

/* ---- Replay: instances an edited condition leaves alone ---------------
 * An edit of E that moves nothing (the same length, lines and columns)
 * and changes, of E's sides, only conditions of if-expressions that
 * compare integer literals and loop indices (the bench's `if i == 10`
 * -> `if i == 11`): at an instance where each such condition has the
 * value it had in the previous text, lowering takes the same branches
 * (lower_if: the condition folds, to the same value: eval_int of a
 * literal or a loop index, cmp_ll) and reads the same nodes at the same
 * places, so the sides are prev's node for node, and its incidences are
 * kept (as instance_sides's same trees: the same uses under the same
 * guard); walk checks the same branches as prev's did, without error
 * (the conditions name nothing else, the branch not taken is not
 * walked). The sides are prev's trees themselves (its pools are held);
 * mel_model_sides_shared, a worker's count of the equations a version
 * took from the previous one, leaves them out (they were copies before
 * h-fe19). That the rest is the same is checked: the previous text of
 * E is parsed again, alone (a statement parses the same in or out of its
 * context), and compared node for node with E's (same_ast), positions
 * relative to the statement. Other instances are replayed as usual. */

static bool is_atom(const mel__expr *e)
{
    return (e->kind == MEL_X_NUM && e->u.num.is_int) || (e->kind == MEL_X_ID && e->u.id.n == 0);
}

/* Whether condition c compares two atoms: integer literals or names
 * without index (atom_resolved's kinds). */
static bool atom_comparison(const mel__expr *c)
{
    return c->kind == MEL_X_CMP && is_atom(c->u.bin.lhs) && is_atom(c->u.bin.rhs);
}

/* Whether a (E's, text offsets) and b (the previous text of E parsed
 * alone: offsets from E's start `off`) are the same node for node but
 * for the conditions of if-expressions that compare atoms in both,
 * which are collected in el->edited (false when more than it holds). */
static bool same_ast(elab *el, const mel__expr *a, const mel__expr *b, uint32_t off)
{
    if (a->kind != b->kind || a->where.start.offset - off != b->where.start.offset ||
        a->where.end.offset - off != b->where.end.offset)
        return false;
    switch (a->kind) {
    case MEL_X_NUM:
        return a->u.num.is_int == b->u.num.is_int && a->u.num.value == b->u.num.value &&
               (!a->u.num.is_int || a->u.num.ival == b->u.num.ival);
    case MEL_X_BOOL: return a->u.b == b->u.b;
    case MEL_X_ID:
    case MEL_X_CALL:
        if (a->u.id.n != b->u.id.n || a->u.id.text != b->u.id.text ||
            strcmp(a->u.id.name, b->u.id.name) != 0)
            return false;
        for (uint32_t k = 0; k < a->u.id.n; k++)
            if (!same_ast(el, a->u.id.args[k], b->u.id.args[k], off))
                return false;
        return true;
    case MEL_X_NEG:
    case MEL_X_NOT:
    case MEL_X_DER:
    case MEL_X_LAST:
    case MEL_X_PRE:
    case MEL_X_NEXT: return same_ast(el, a->u.kid, b->u.kid, off);
    case MEL_X_POW:
    case MEL_X_CMP:
        return a->u.bin.op == b->u.bin.op && same_ast(el, a->u.bin.lhs, b->u.bin.lhs, off) &&
               same_ast(el, a->u.bin.rhs, b->u.bin.rhs, off);
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR:
        if (a->u.nary.n != b->u.nary.n)
            return false;
        for (uint32_t k = 0; k < a->u.nary.n; k++)
            if (a->u.nary.ops[k] != b->u.nary.ops[k] ||
                !same_ast(el, a->u.nary.kids[k], b->u.nary.kids[k], off))
                return false;
        return true;
    case MEL_X_IF:
        if (atom_comparison(a->u.ite.c) && atom_comparison(b->u.ite.c)) {
            if (el->n_edited == sizeof el->edited / sizeof *el->edited)
                return false;
            el->edited[el->n_edited++] = (struct cond_pair){a->u.ite.c, b->u.ite.c, {0}, {0}};
        } else if (!same_ast(el, a->u.ite.c, b->u.ite.c, off)) {
            return false;
        }
        return same_ast(el, a->u.ite.a, b->u.ite.a, off) &&
               same_ast(el, a->u.ite.b, b->u.ite.b, off);
    default: return false;
    }
}

/* el->edited for edit sp of E (see above), the previous text of E parsed
 * into `ast`; none when the edit is not one such. */
static void edited_conditions(elab *el, const struct mel_model_priv *pp, const span *sp,
                              const mel__stmt *E, mel__arena *ast)
{
    el->n_edited = 0;
    uint32_t a = E->where.start.offset, z = E->where.end.offset;
    if (sp->mv.new_end != sp->mv.old_end || sp->mv.d_line != 0 || sp->mv.d_col != 0 ||
        !el->instances_same || pp->unordered || z > pp->src_len || a >= z)
        return;
    mel__report rep;
    mel__report_init(&rep, NULL, 1);
    mel__stmt *old = NULL;
    if (mel__parse(pp->src + a, z - a, el->opt->max_depth, ast, &rep, &old) != MDAE_OK ||
        rep.errors > 0 || rep.syntax_errors > 0 || old == NULL || old->next != NULL ||
        old->kind != MEL_S_EQU || old->u.equ.lhs == NULL || old->u.equ.rhs == NULL ||
        !same_ast(el, E->u.equ.lhs, old->u.equ.lhs, a) ||
        !same_ast(el, E->u.equ.rhs, old->u.equ.rhs, a))
        el->n_edited = 0;
}

enum { ATOM_LITERAL = -1, ATOM_NONE = -2 };

/* Atom e of a condition of E resolved once for all of E's instances
 * (loops[0 .. n) E's loops, outermost first; an instance's environment
 * holds their indices, innermost first: replay_env): an integer literal,
 * or a loop index by name, innermost first (as env_find); anything else
 * has no value (ATOM_NONE). */
static void atom_resolved(const mel__expr *e, const mel__stmt *const *loops, size_t n, int *at,
                          long long *lit)
{
    *at = ATOM_NONE;
    *lit = 0;
    if (e->kind == MEL_X_NUM && e->u.num.is_int) {
        *at = ATOM_LITERAL;
        *lit = e->u.num.ival;
    } else if (e->kind == MEL_X_ID && e->u.id.n == 0) {
        for (size_t k = n; k-- > 0;)
            if (strcmp(loops[k]->u.loop.index, e->u.id.name) == 0) {
                *at = (int)(n - 1 - k);
                break;
            }
    }
}

/* el->edited's atoms resolved (atom_resolved) for E's loops. */
static void atoms_resolved(elab *el, const mel__stmt *const *loops, size_t n)
{
    for (size_t k = 0; k < el->n_edited; k++) {
        struct cond_pair *c = &el->edited[k];
        const mel__expr *x[4] = {c->now->u.bin.lhs, c->now->u.bin.rhs, c->before->u.bin.lhs,
                                 c->before->u.bin.rhs};
        for (int j = 0; j < 4; j++)
            atom_resolved(x[j], loops, n, &c->at[j], &c->lit[j]);
    }
}

/* The value of resolved atom j of c in an instance's environment en
 * into *v; false when it has none. */
static inline bool atom_value(const struct cond_pair *c, int j, const env *en, long long *v)
{
    if (c->at[j] == ATOM_LITERAL) {
        *v = c->lit[j];
        return true;
    }
    for (int k = 0; k < c->at[j] && en != NULL; k++)
        en = en->parent;
    if (c->at[j] < 0 || en == NULL)
        return false;
    *v = en->value;
    return true;
}

/* Whether every condition of el->edited has, in environment en (an
 * instance's of E: replay_env), the value it had before (both compare
 * atoms of en, resolved once: atoms_resolved). */
static bool conditions_as_before(const elab *el, const env *en)
{
    for (size_t k = 0; k < el->n_edited; k++) {
        const struct cond_pair *c = &el->edited[k];
        long long w, x, y, z;
        if (!atom_value(c, 0, en, &w) || !atom_value(c, 1, en, &x) ||
            !atom_value(c, 2, en, &y) || !atom_value(c, 3, en, &z) ||
            cmp_ll(c->now->u.bin.op, w, x) != cmp_ll(c->before->u.bin.op, y, z))
            return false;
    }
    return true;
}

/* e's sides (prev's) taken as copies in el's pool (see above); false on
 * OOM. */
static bool sides_copied(elab *el, mel_equation *e)
{
    e->lhs = fx_copied(el, e->lhs);
    e->rhs = fx_copied(el, e->rhs);
    return e->lhs != NULL && e->rhs != NULL;
}

/* Replayed instance e (item it; prev's copy) lowered again, and its uses
 * read (el->uses), its old incidences' count gone from *edges; or, when
 * keep allows and the sides lowered are prev's node for node, with
 * prev's incidences: mel__inc_uses and mel__inc_build would read the same
 * uses under the same guard (prev's, ids in the cold order: keep is false
 * after an edited condition) and group them into the same incidences,
 * equation by equation, making no guard. The sides are the new trees
 * all the same: a worker counts the equations whose sides a version took
 * from the previous one (the "sharedEquations" of session/analyze's
 * reuse), which these were not. false when the replay cannot go on. */
static bool instance_sides(elab *el, const item *it, mel_equation *e, bool keep, size_t *edges)
{
    const fx_node *lhs = lower_item(el, it, it->s->u.equ.lhs);
    const fx_node *rhs = lower_item(el, it, it->s->u.equ.rhs);
    bool same = keep && lhs != NULL && rhs != NULL && same_tree(lhs, e->lhs) &&
                same_tree(rhs, e->rhs);
    e->lhs = lhs;
    e->rhs = rhs;
    if (same)
        return true;
    *edges -= e->n_incs;
    e->incs = NULL;
    e->n_incs = 0;
    return mel__inc_uses(&el->gf, &el->uses, it->eq, lhs, e->guard) &&
           mel__inc_uses(&el->gf, &el->uses, it->eq, rhs, e->guard) && el->gf.err == MDAE_OK;
}

/* E's instances (el->instances: replay_sources) elaborated again:
 * walked, lowered, read (see "Replay"); their old incidences' count
 * goes from *edges. false when the replay cannot go on. */
static bool replay_instances(elab *el, const mel_model *prev, const mel__stmt *E,
                             const mel__stmt *const *loops, size_t n_loops, size_t *edges)
{
    const struct mel_model_priv *pp = prev->priv;
    replay_names(el, pp, E->u.equ.lhs);
    replay_names(el, pp, E->u.equ.rhs);
    const uint32_t *qs = el->instances.p;
    for (size_t k = 0; k < el->instances.n && !el->rep->stop; k++) {
        uint32_t q = qs[k];
        mel__eqsrc *o = &el->eqsrc[q];
        MDAE_ASSERT(o->stmt.start.offset == E->where.start.offset);
        const env *en = NULL;
        if (!replay_env(el, o->env, loops, n_loops, &en))
            return false;
        mel_equation *e = &el->equations[q];
        e->where = E->where;
        if (el->n_edited > 0 && conditions_as_before(el, en)) { /* prev's sides and incidences */
            el->priv->sides_as_before++; /* prev's trees, where prev has them (tree_pool) */
            MDAE_ASSERT(memcmp(&o->stmt, &E->where, sizeof o->stmt) == 0 && o->size == E->size);
            continue;
        }
        el->tree_pool[q] = el->tree_own; /* new sides */
        item it = {IT_EQ, E, NULL, en, NULL, o->seq, q, -1, e->when};
        el->it = &it;
        el->gf.below = o->guard_mark;
        const plan *p = plan_of(el, &it);
        el->n_ifs = 0; /* this instance's (run_sites) */
        if (p != NULL) {
            run_plan(el, p, &it, e->guard);
        } else {
            walk(el, E->u.equ.lhs, e->guard, 0, true, true);
            walk(el, E->u.equ.rhs, e->guard, 0, true, true);
        }
        if (el->rep->errors > 0 || el->rep->rc != MDAE_OK || el->gf.err != MDAE_OK)
            return false;
        bool sides = instance_sides(el, &it, e, !pp->unordered, edges);
        el->n_ifs = 0;
        if (!sides)
            return false;
        if (!el->eqsrc_shared) {
            o->stmt = E->where;
            o->size = E->size;
        }
        MDAE_ASSERT(memcmp(&o->stmt, &E->where, sizeof o->stmt) == 0 && o->size == E->size);
        el->it = NULL;
    }
    el->gf.below = pp->guards_items;
    size_t n_new = 0;
    if (mel__inc_build(&el->uses, el->equations, el->ma, &el->gf, &n_new) != MDAE_OK ||
        el->gf.err != MDAE_OK || el->rep->stop)
        return false;
    *edges += n_new;
    return true;
}

/* Whether prev's equations are declared once each (mel_model_priv.once)
 * and E's instances there are E's (their old range: the edit undone) and
 * made no guard; their equations in el->instances, in order; *work: pass
 * 1's work with E's new size. Prev's sources are scanned for those that
 * begin where E does, or, when prev was itself a replay of the statement
 * that begins there, its list read (mel_model_priv.rows_at: the same
 * rows, none of the others begins there: those before stay before, those
 * after the edit moved after it). */
static bool replay_sources(elab *el, const mel_model *prev, const span *sp, const mel__stmt *E,
                           uint64_t *work)
{
    const struct mel_model_priv *pp = prev->priv;
    uint64_t w = pp->work;
    if (!pp->once)
        return false;
    el->instances_same = true;
    uint32_t at = E != NULL ? E->where.start.offset : 0;
    const uint32_t *rows = E != NULL && pp->rows_known && pp->rows_at == at ? pp->edited_rows : NULL;
    size_t n = E == NULL ? 0 : pp->rows_known && pp->rows_at == at ? pp->n_edited_rows
                                                                     : prev->n_equations;
    for (size_t k = 0; k < n; k++) {
        uint32_t q = rows != NULL ? rows[k] : (uint32_t)k;
        const mel__eqsrc *o = &pp->eqsrc[q];
        MDAE_ASSERT(rows == NULL || o->stmt.start.offset == at);
        if (o->stmt.start.offset != at)
            continue;
        uint32_t *slot = vec_push(el, &el->instances, sizeof *slot);
        if (slot == NULL || o->made_guards ||
            o->stmt.end.offset + sp->mv.new_end != E->where.end.offset + sp->mv.old_end)
            return false;
        *slot = q;
        el->instances_same = el->instances_same && o->size == E->size &&
                             memcmp(&o->stmt, &E->where, sizeof o->stmt) == 0;
        w = w - o->size + E->size;
    }
    *work = w;
    return true;
}

/* prev's folded conditionals (mel_model_priv.folded), moved by sp, to
 * priv; false on OOM. */
static bool folded_moved(struct mel_model_priv *priv, const struct mel_model_priv *pp,
                         const span *sp)
{
    if (pp->n_folded == 0)
        return true;
    if ((priv->folded = mdae_malloc(pp->n_folded * sizeof *priv->folded)) == NULL)
        return false;
    for (size_t k = 0; k < pp->n_folded; k++) {
        uint32_t f = pp->folded[k];
        priv->folded[k] = f >= sp->mv.old_end ? (uint32_t)(f - sp->mv.old_end + sp->mv.new_end) : f;
    }
    priv->n_folded = pp->n_folded;
    return true;
}

/* ---- Replay: a chain without end ----------------------------------------
 * A replayed version holds the previous one's private part (its arena
 * holds incidences this one shares; through it, the root's symbols,
 * guards, names and loop indices' text) and pools (trees this one
 * shares). So held, the chain grows with every edit; it was cut at
 * MEL__MAX_HELD versions by a full elaboration (150-480 ms at N =
 * 10,000). Instead, the replay whose chain reaches MEL__MAX_HELD rebases:
 *  - it copies into its own arena every equation's incidences (field for
 *    field: the same model), takes its own copy of the unknowns when they
 *    are not the root's and of the sources when borrowed;
 *  - it holds the root's private part (the full parse the chain started
 *    from: the first not `borrowed`) directly instead of the previous
 *    version's, and only the pools its trees are in
 *    (mel_model_priv.tree_pool: the root's group always, the others when
 *    some tree is in them); when those leave no room for the next
 *    version's, the trees outside the root's group are copied into its
 *    own pool (fx_moved without a move: field for field).
 * Nothing else of an intermediate version is reachable from it: a
 * replay's arena holds only the incidences it made or moved (guards,
 * names and symbols are the root's while no condition was edited), its
 * unknowns are copied or shared, its modes, knowns, invariants and
 * whens are copies. So a version holds its root, at most MEL__MAX_HELD
 * pools and its own copies: memory stays bounded, and a chain of edits
 * never needs a full elaboration. Not after an edited condition (the
 * guards are then an overlay in an intermediate version's arena:
 * `unordered`), whose chain still ends in a full elaboration. */

/* priv->tree_pool (see the field) handed over from el: prev's, with
 * the entries whose trees this replay made (replay_copy's moved ones, E's
 * instances) in priv's own pool. Checked for E's instances: their sides
 * are new (a replay makes nodes in its new pool only, both sides of an
 * equation or neither), or prev's where prev has them for those kept as
 * before (sides_as_before of them). */
static void trees_placed(elab *el, const mel_model *prev, struct mel_model_priv *priv)
{
    const struct mel_model_priv *pp = prev->priv;
    MDAE_ASSERT(el->tree_pool != NULL && el->tree_own == priv->n_held);
    const uint32_t *qs = el->instances.p;
    size_t kept = 0;
    for (size_t k = 0; k < el->instances.n; k++) {
        const mel_equation *a = &el->equations[qs[k]], *b = &prev->equations[qs[k]];
        uint8_t was = pp->tree_pool != NULL ? pp->tree_pool[qs[k]] : 0;
        bool same = a->lhs == b->lhs && a->rhs == b->rhs;
        MDAE_ASSERT(same ? el->tree_pool[qs[k]] == was
                         : a->lhs != b->lhs && a->rhs != b->rhs &&
                               el->tree_pool[qs[k]] == el->tree_own);
        kept += same;
    }
    MDAE_ASSERT(kept == priv->sides_as_before);
    priv->tree_pool = el->tree_pool;
    el->tree_pool = NULL;
    priv->root_slots = pp->tree_pool != NULL ? pp->root_slots : pp->n_held + 1;
}

/* The trees of entry i of priv->tree_pool (see trees_placed) copied
 * into el's pool, field for field; false on OOM. */
static bool tree_copied(elab *el, size_t ne, size_t i)
{
    size_t nm = el->modes.n;
    if (i < ne) {
        mel_equation *e = &el->equations[i];
        MDAE_ASSERT(e->lhs != NULL && e->rhs != NULL); /* a replay's: replay_copy */
        return sides_copied(el, e);
    }
    const fx_node **x = i < ne + nm ? &((mel_mode *)el->modes.p)[i - ne].def
                                    : &((mel_known *)el->knowns.p)[i - ne - nm].binding;
    if (*x != NULL && (*x = fx_copied(el, *x)) == NULL)
        return false;
    return true;
}

/* The incidences of el's ne equations copied into el's arena (see
 * above); false on OOM. */
static bool incidences_owned(elab *el, size_t ne)
{
    const span same = {SIZE_MAX, {SIZE_MAX, SIZE_MAX, SIZE_MAX, 0, 0}};
    for (size_t q = 0; q < ne; q++)
        if (!incs_moved(el, &same, &el->equations[q]))
            return false;
    return true;
}

/* The version the chain of pp started from (see above). */
static struct mel_model_priv *chain_root(const struct mel_model_priv *pp)
{
    struct mel_model_priv *r = (struct mel_model_priv *)pp;
    while (r->borrowed) {
        MDAE_ASSERT(r->base != NULL);
        r = r->base;
    }
    return r;
}

/* priv (replayed from pp, which it holds as after replay_keep) rebased
 * (see above): what it shares of the intermediate versions copied, their
 * pools it no longer needs released, root held instead of pp. false on
 * OOM (then priv still holds pp: the model is freed as it is). */
static bool rebase(elab *el, const mel_model *prev, struct mel_model_priv *priv)
{
    struct mel_model_priv *pp = prev->priv, *root = chain_root(pp);
    size_t n = priv->n_held, roots = priv->root_slots, ne = prev->n_equations;
    el->rebased = true;
    size_t entries = ne + el->modes.n + el->knowns.n;
    uint8_t *t = priv->tree_pool;
    bool used[MEL__MAX_HELD] = {false};
    size_t n_used = 0;
    MDAE_ASSERT(roots <= n && n <= MEL__MAX_HELD);
    for (size_t i = 0; i < entries; i++)
        if (t[i] >= roots && t[i] < n && !used[t[i]]) {
            used[t[i]] = true;
            n_used++;
        }
    if (roots + n_used >= MEL__MAX_HELD) { /* no room for the next: all in the own pool */
        for (size_t i = 0; i < entries; i++)
            if (t[i] >= roots && t[i] < n) {
                if (!tree_copied(el, ne, i))
                    return false;
                t[i] = (uint8_t)n;
            }
        memset(used, 0, sizeof used);
    }
    bool ok = incidences_owned(el, ne);
    if (ok && el->variables == NULL && el->shared_variables != root->variables)
        el->variables =
            copy_of(el->shared_variables, prev->n_variables, sizeof *el->variables, &ok);
    if (ok && priv->eqsrc_borrowed) {
        mel__eqsrc *own = copy_of(priv->eqsrc, ne, sizeof *own, &ok);
        if (own != NULL) {
            priv->eqsrc = own;
            priv->eqsrc_borrowed = false;
        }
    }
    if (!ok || fx_pool_failed(el->fx))
        return false;
    uint8_t slot[MEL__MAX_HELD + 1];
    size_t kept = roots;
    for (size_t k = 0; k < n; k++) {
        if (k < roots || used[k]) {
            slot[k] = (uint8_t)(k < roots ? k : kept);
            priv->held[slot[k]] = priv->held[k];
            kept += k >= roots;
        } else {
            fx_pool_free(priv->held[k]);
        }
    }
    slot[n] = (uint8_t)kept; /* the own pool */
    for (size_t i = 0; i < entries; i++)
        t[i] = slot[t[i]];
    priv->n_held = kept;
    MDAE_ASSERT(kept < MEL__MAX_HELD);
    MDAE_ASSERT(pp->refs > 0);
    pp->refs--; /* pp is not freed here: its model (gone or not) is the caller's */
    root->refs++;
    priv->base = root;
    priv->depth = 1;
    return true;
}

/* The replayed model's own part: sources for the next version, what a
 * replay of it needs (shared with prev), prev held (see "Replay"); the
 * guard factory's table is prev's (borrowed), or, after an edited
 * condition, el's overlay of it (owned: see "Replay: an edited
 * condition"). */
static bool replay_keep(elab *el, const mel_model *prev, mel_model *m, uint64_t work,
                        const span *sp, bool overlay)
{
    struct mel_model_priv *priv = m->priv, *pp = prev->priv;
    if (!folded_moved(priv, pp, sp) || !hand_sources(el, priv))
        return false;
    hold_pools(priv, pp);
    priv->or_compared = pp->or_compared || el->gf.compared > 0;
    priv->unordered = pp->unordered || overlay;
    if (overlay) {
        priv->guards = el->gf;
        priv->own_guards = true;
        el->gf.table = NULL; /* the model's now */
        el->gf.cap = el->gf.count = 0;
        priv->guards_items = priv->guards.next_id;
    } else {
        priv->guards = pp->guards; /* the table is pp's (borrowed), as after pp's parse */
        priv->guards_items = pp->guards_items;
    }
    priv->work = work;
    priv->max_instances = pp->max_instances;
    priv->once = pp->once; /* the same loop indices */
    priv->seq_end = pp->seq_end; /* the same declarations key: the same executions */
    priv->vars_end = el->variables != NULL ? vars_end(el->variables, prev->n_variables)
                                           : pp->vars_end;
    priv->replayable = true;
    priv->base = pp;
    pp->refs++;
    priv->depth = pp->depth + 1;
    trees_placed(el, prev, priv);
    /* the chain at its end: rebased, unless guards lie in an overlay */
    if ((priv->n_held >= MEL__MAX_HELD || priv->depth >= MEL__MAX_HELD) && !priv->unordered &&
        priv->root_slots < MEL__MAX_HELD && !rebase(el, prev, priv))
        return false;
    pp->eqsrc_lent = pp->eqsrc_lent || (priv->eqsrc_borrowed && !pp->eqsrc_borrowed);
    return true;
}

/* ---- Replay: an edited condition ---------------------------------------------
 * Issue 40 item 3, edit (b) of bench_edit: the bytes that differ lie in
 * the condition of an `if` statement C (between its start and the
 * `then`), C is outside conditionals (in loops or at the top level) and
 * its branches are equation statements only. Then the model is made from
 * the previous one (as in "Replay") with only the guards of C's
 * equations made again, and those equations whose guard changed walked
 * and read again:
 *  - Pass 1 reads of C's condition only its size (the work, from the
 *    previous version's key: declarations_key ends a conditional's piece
 *    with it) and whether it folds (fold3). The previous version folded
 *    no execution of C (mel_model_priv.folded, and every execution
 *    declared all of C's equations), this one folds none (checked per
 *    execution), and the declarations keys are the same but for C's
 *    piece: pass 1 declares the same things in the same order with the
 *    same contexts (the condition's text aside) and loop indices.
 *  - Pass 2 gives C's equations the guard of their branch (the
 *    condition's, or its negation: ctx_guard and ctxlist_guard of a
 *    context directly inside a top-level conditional), and every other
 *    record what the previous version gave it. An equation whose guard
 *    is the same keeps its incidences (the same sides read under the
 *    same guard); the others are walked (a branch of an if-expression
 *    the guard no longer rules out is checked: errors fall back), and
 *    their uses read and grouped again.
 *  - New guards go to an overlay of the previous version's table
 *    (mel__gf_overlay): the previous model is untouched, and the new one
 *    holds it. Their ids follow the previous ones, not the cold parse's
 *    creation order; the only thing the order shapes is the OR of a
 *    case's uses (mel__g_or_all sorts by id), so the replay requires
 *    that no such OR compared two guards, in the previous versions
 *    (mel_model_priv.or_compared) or here (mel__gfactory.compared): then
 *    every guard is the cold parse's, node for node. A model so made is
 *    `unordered`, and a replay from it checks the same of its own ORs. */

/* Where the `then` after a condition ending at `from` starts, when only
 * spaces lie between; else from. */
static size_t then_at(const char *t, size_t len, size_t from)
{
    size_t k = from;
    while (k < len && (t[k] == ' ' || t[k] == '\t' || t[k] == '\n' || t[k] == '\r'))
        k++;
    bool word_end = k + 4 == len || (k + 4 < len && t[k + 4] != '_' &&
                                     !(t[k + 4] >= 'a' && t[k + 4] <= 'z') &&
                                     !(t[k + 4] >= 'A' && t[k + 4] <= 'Z') &&
                                     !(t[k + 4] >= '0' && t[k + 4] <= '9'));
    return k + 4 <= len && memcmp(t + k, "then", 4) == 0 && word_end ? k : from;
}

/* The `if` statement of s (and those after) whose condition holds the
 * edit sp, outside conditionals, with the loops around it (outermost
 * first) in loops[0 .. *n_loops); NULL when the edit is elsewhere. */
static const mel__stmt *edited_condition(const mel__stmt *s, const char *text, size_t len,
                                         const span *sp, const mel__stmt **loops,
                                         size_t *n_loops)
{
    for (; s != NULL; s = s->next) {
        if (s->where.start.offset > sp->at || sp->mv.new_end > s->where.end.offset)
            continue;
        switch (s->kind) {
        case MEL_S_FOR:
            if (*n_loops == REPLAY_MAX_LOOPS)
                return NULL;
            loops[(*n_loops)++] = s;
            return edited_condition(s->u.loop.body, text, len, sp, loops, n_loops);
        case MEL_S_IF: {
            const mel__expr *c = s->u.cond.cond;
            return c != NULL && c->where.start.offset <= sp->at &&
                           sp->mv.new_end <= then_at(text, len, c->where.end.offset)
                       ? s
                       : NULL;
        }
        default: return NULL;
        }
    }
    return NULL;
}

/* Whether pp's declarations key is this text's (el->key) but for the
 * piece of the edited conditional (el->key_mark_at: tag, length, text,
 * header size), whose header size in pp's is then *size_a. */
static bool same_key_but_mark(const elab *el, const struct mel_model_priv *pp, uint32_t *size_a)
{
    const char *a = pp->decl_key, *b = el->key;
    size_t p = el->key_mark_at, na = pp->decl_key_len, nb = el->key_len;
    const size_t head = 1 + sizeof(uint64_t), tail = sizeof(uint32_t);
    if (a == NULL || b == NULL || p == SIZE_MAX || p + head + tail > na || p + head + tail > nb ||
        memcmp(a, b, p) != 0 || a[p] != 'C' || b[p] != 'C')
        return false;
    uint64_t la, lb;
    memcpy(&la, a + p + 1, sizeof la);
    memcpy(&lb, b + p + 1, sizeof lb);
    if (la > na - p - head - tail || lb > nb - p - head - tail)
        return false;
    size_t ea = p + head + (size_t)la + tail, eb = p + head + (size_t)lb + tail;
    if (na - ea != nb - eb || memcmp(a + ea, b + eb, na - ea) != 0)
        return false;
    memcpy(size_a, a + ea - tail, tail);
    return true;
}

/* The number of statements of s when all are equations with both sides,
 * else 0; their names made known to name_get (replay_names). */
static size_t equations_only(elab *el, const struct mel_model_priv *pp, const mel__stmt *s)
{
    size_t n = 0;
    for (; s != NULL; s = s->next, n++) {
        if (s->kind != MEL_S_EQU || s->u.equ.lhs == NULL || s->u.equ.rhs == NULL)
            return 0;
        replay_names(el, pp, s->u.equ.lhs);
        replay_names(el, pp, s->u.equ.rhs);
    }
    return n;
}

/* The statement of C's branches that starts at offset at, and its branch
 * (*then), or NULL. */
static const mel__stmt *branch_stmt(const mel__stmt *C, uint32_t at, bool *then)
{
    for (int b = 0; b < 2; b++)
        for (const mel__stmt *s = b == 0 ? C->u.cond.body : C->u.cond.orelse; s != NULL;
             s = s->next)
            if (s->where.start.offset == at) {
                *then = b == 0;
                return s;
            }
    return NULL;
}

/* The guards of an execution of C (loop indices en; seq: pass 1's
 * order of C) in yes and no (see above); false when this text's
 * condition folds there, or is in error. */
static bool execution_guards(elab *el, const mel__stmt *C, const env *en, uint64_t seq,
                             const mel_guard **yes, const mel_guard **no)
{
    mel__gfactory *f = &el->gf;
    el->seq = seq;
    if (fold3(el, C->u.cond.cond, en) != TRI_UNKNOWN || el->rep->errors > 0)
        return false;
    const mel_guard *g = to_guard(el, C->u.cond.cond, en, seq);
    if (g == NULL || el->rep->errors > 0)
        return false;
    /* what ctxlist_guard of ctx_guard gives a context whose parent is TRUE:
     * OR with FALSE and AND with TRUE return their other operand */
    *yes = g;
    *no = mel__g_not(f, g);
    return true;
}

/* Equation q (statement st, loop indices en, guard g, not its previous
 * one) walked and its uses read again; its old incidences' count goes
 * from *edges. false when the replay cannot go on. */
static bool equation_guarded(elab *el, uint32_t q, const mel__stmt *st, const env *en,
                             const mel_guard *g, size_t *edges)
{
    mel_equation *e = &el->equations[q];
    item it = {IT_EQ, st, NULL, en, NULL, el->eqsrc[q].seq, q, -1, e->when};
    e->guard = g;
    el->it = &it;
    walk(el, st->u.equ.lhs, g, 0, true, true);
    walk(el, st->u.equ.rhs, g, 0, true, true);
    el->it = NULL;
    if (el->rep->errors > 0 || el->rep->rc != MDAE_OK || el->gf.err != MDAE_OK)
        return false;
    *edges -= e->n_incs;
    e->incs = NULL;
    e->n_incs = 0;
    return mel__inc_uses(&el->gf, &el->uses, q, e->lhs, g) &&
           mel__inc_uses(&el->gf, &el->uses, q, e->rhs, g) && el->gf.err == MDAE_OK;
}

/* C's equations given their guards again (see above); *work: pass 1's
 * with C's header of size size_a in prev's replaced by this one's; the
 * count of incidences in *edges. false when the replay cannot go on. */
static bool replay_condition(elab *el, const mel_model *prev, const mel__stmt *C,
                             const mel__stmt *const *loops, size_t n_loops, uint32_t size_a,
                             uint64_t *work, size_t *edges)
{
    const struct mel_model_priv *pp = prev->priv;
    if (pp->or_compared)
        return false;
    for (size_t k = 0; k < pp->n_folded; k++)
        if (pp->folded[k] == C->where.start.offset)
            return false;
    replay_names(el, pp, C->u.cond.cond);
    size_t n_stmts = equations_only(el, pp, C->u.cond.body);
    bool all = n_stmts > 0 || C->u.cond.body == NULL;
    size_t n_else = equations_only(el, pp, C->u.cond.orelse);
    if (!all || (n_else == 0 && C->u.cond.orelse != NULL) ||
        n_stmts + n_else == 0)
        return false;
    n_stmts += n_else;
    const mel__stmt *first = C->u.cond.body != NULL ? C->u.cond.body : C->u.cond.orelse;
    uint32_t lo = C->where.start.offset, hi = C->where.end.offset;
    const char *last_env = NULL;
    const env *en = NULL;
    const mel_guard *yes = NULL, *no = NULL;
    uint64_t execs = 0;
    size_t in_exec = 0;
    for (uint32_t q = 0; q < prev->n_equations && !el->rep->stop; q++) {
        const mel__eqsrc *o = &el->eqsrc[q];
        uint32_t at = o->stmt.start.offset;
        bool then = false;
        const mel__stmt *st = at >= lo && at < hi ? branch_stmt(C, at, &then) : NULL;
        if (st == NULL)
            continue;
        if (last_env == NULL || strcmp(o->env, last_env) != 0) { /* C's next execution */
            if ((last_env != NULL && in_exec != n_stmts) || st != first || o->seq == 0 ||
                !replay_env(el, o->env, loops, n_loops, &en) ||
                !execution_guards(el, C, en, o->seq - 1, &yes, &no))
                return false;
            last_env = o->env;
            execs++;
            in_exec = 0;
        }
        in_exec++;
        const mel_guard *g = then ? yes : no;
        if (g != el->equations[q].guard && !equation_guarded(el, q, st, en, g, edges))
            return false;
    }
    /* every execution declared all of C's equations: none folded there */
    if (execs == 0 || in_exec != n_stmts || *work < execs * size_a)
        return false;
    uint64_t w = *work - execs * size_a + execs * C->size;
    if (w > el->max_work)
        return false;
    *work = w;
    size_t n_new = 0;
    if (mel__inc_build(&el->uses, el->equations, el->ma, &el->gf, &n_new) != MDAE_OK ||
        el->gf.err != MDAE_OK || el->rep->stop || el->gf.compared > 0)
        return false;
    *edges += n_new;
    return true;
}

/* Replay (above) of prog (text, len) from opt->since into *out: MDAE_OK,
 * or 1 when this text is to be elaborated in full (then nothing was
 * reported or kept, and prog is as the parser left it). */
static int replay(const mel__stmt *prog, const char *text, size_t len, const mel_options *opt,
                  const mel__report *outer, mel_model **out)
{
    const mel_model *prev = opt->since;
    const struct mel_model_priv *pp = prev != NULL ? prev->priv : NULL;
    if (pp == NULL || !pp->replayable || prev->modelica || opt->no_expressions ||
        pp->n_held >= MEL__MAX_HELD || pp->depth >= MEL__MAX_HELD || outer->errors > 0 ||
        outer->syntax_errors > 0 || outer->stop || mel__max_instances(opt) != pp->max_instances)
        return 1;
    span sp = edit_span(pp->src, pp->src_len, text, len);
    const mel__stmt *loops[REPLAY_MAX_LOOPS];
    size_t n_loops = 0;
    bool same = sp.at == len && len == pp->src_len;
    const mel__stmt *E = same ? NULL : edited_equation(prog, &sp, loops, &n_loops);
    const mel__stmt *C = NULL;
    if (!same && E == NULL) {
        n_loops = 0;
        C = edited_condition(prog, text, len, &sp, loops, &n_loops);
    }
    if (!same && E == NULL && C == NULL)
        return 1;
    mel__report rep; /* silent: an error means a full elaboration, which reports */
    mel__report_init(&rep, NULL, outer->max_errors);
    elab el = {.rep = &rep, .opt = opt, .max_instances = pp->max_instances, .text = text,
               .len = len};
    uint64_t work = 0;
    if (!replay_sources(&el, prev, &sp, E, &work)) {
        mdae_free(el.instances.p);
        return 1;
    }
    el.max_work = (uint64_t)el.max_instances * 64;
    el.replaying = true;
    el.seq = pp->seq_end; /* as after pass 1: lower()'s fold3 reads the integer constants so */
    mel_model *m = mel__elab_open(&rep, &el.tmp, &el.gf, &el.ma);
    if (m == NULL) {
        mel__arena_free(&el.tmp);
        mdae_free(el.instances.p);
        return 1;
    }
    struct mel_model_priv *priv = el.priv = m->priv;
    priv->syms = pp->syms;
    priv->bases = pp->bases;
    priv->borrowed = true;
    if (C != NULL)
        mel__gf_overlay(&el.gf, &pp->guards, el.ma);
    else
        mel__gf_view(&el.gf, &pp->guards);
    el.fx = priv->exprs = fx_pool_new();
    size_t edges = prev->n_edges;
    el.key_mark = C;
    el.key_mark_at = SIZE_MAX;
    mel__arena before; /* the previous text of E (edited_conditions) */
    mel__arena_init(&before);
    if (E != NULL)
        edited_conditions(&el, pp, &sp, E, &before);
    atoms_resolved(&el, loops, n_loops);
    declarations_key(&el, prog);
    uint32_t size_a = 0;
    bool ok = el.fx != NULL && work <= el.max_work &&
              (C == NULL ? same_key(&el, pp) : same_key_but_mark(&el, pp, &size_a)) &&
              replay_copy(&el, prev, &sp, E) &&
              (E == NULL || replay_instances(&el, prev, E, loops, n_loops, &edges)) &&
              (C == NULL || replay_condition(&el, prev, C, loops, n_loops, size_a, &work, &edges)) &&
              /* from ids not in creation order: only while no OR's shape depends on them */
              !(pp->unordered && el.gf.compared > 0) && !fx_pool_failed(el.fx) &&
              replay_keep(&el, prev, m, work, &sp, C != NULL);
    mel__arena_free(&before);
    if (!ok) {
        if (E != NULL) {
            clear_aux(E->u.equ.lhs);
            clear_aux(E->u.equ.rhs);
        }
        if (!el.eqsrc_shared)
            mdae_free(el.eqsrc);
        mdae_free(el.tree_pool);
        elab_close(&el);
        model_release_arrays(&el);
        mel_model_free(m);
        return 1;
    }
    m->n_modes = prev->n_modes;
    m->modes = priv->modes = el.modes.p;
    m->n_invariants = prev->n_invariants;
    m->invariants = priv->invariants = el.invariants.p;
    m->n_variables = prev->n_variables;
    m->variables = priv->variables = el.variables; /* NULL: shared */
    if (el.variables == NULL)
        m->variables = el.shared_variables;
    m->n_equations = prev->n_equations;
    m->equations = priv->equations = el.equations;
    m->n_whens = prev->n_whens;
    m->whens = priv->whens = el.whens.p;
    m->n_edges = edges;
    m->n_params = prev->n_params;
    m->n_integers = prev->n_integers;
    m->n_knowns = prev->n_knowns;
    m->knowns = priv->knowns = el.knowns.p;
    /* What was elaborated again is checked, the others are as in prev. */
    const uint32_t *qs = el.instances.p;
    for (size_t k = 0; k < el.instances.n; k++) /* E's, but prev's incidences (checked there) */
        if (m->equations[qs[k]].incs != prev->equations[qs[k]].incs)
            check_equation(m, &m->equations[qs[k]]);
    for (uint32_t q = 0; C != NULL && q < m->n_equations; q++) {
        uint32_t at = priv->eqsrc[q].stmt.start.offset;
        if (at >= C->where.start.offset && at < C->where.end.offset)
            check_equation(m, &m->equations[q]);
    }
    if (priv->sides_as_before > 0) { /* kept as before: prev's trees, unless the rebase copied them */
        for (size_t k = 0; k < el.instances.n; k++)
            priv->sides_kept += m->equations[qs[k]].lhs != NULL &&
                                m->equations[qs[k]].lhs == prev->equations[qs[k]].lhs;
        priv->kept_from = prev;
    }
    if (E != NULL && el.shifted && !el.rebased) { /* prev's sides: those before the edit */
        MDAE_ASSERT(priv->sides_kept == 0); /* edited_conditions: no shift */
        priv->shared_from = prev;
        priv->n_shared = el.n_before;
    }
    if (E != NULL) { /* E's instances: the next replay of E's (replay_sources) */
        priv->edited_rows = el.instances.p;
        priv->n_edited_rows = el.instances.n;
        priv->rows_at = E->where.start.offset;
        priv->rows_known = true;
        el.instances = (vec){0};
        if (!el.shifted && !el.rebased) /* and the rows E's instances only */
            priv->rows_from = prev;
    }
    elab_close(&el);
    *out = m;
    return MDAE_OK;
}

static int elaborate(const mel__stmt *prog, const char *text, size_t len,
                     const mel_options *opt, mel__report *rep, mel_model **out)
{
    elab el = {.rep = rep, .opt = opt, .max_instances = mel__max_instances(opt), .text = text,
               .len = len};
    el.max_seq = (uint64_t)el.max_instances * 16;
    el.max_work = (uint64_t)el.max_instances * 64;
    mel_model *m = mel__elab_open(rep, &el.tmp, &el.gf, &el.ma);
    if (m == NULL)
        return MDAE_E_NOMEM;
    struct mel_model_priv *priv = el.priv = m->priv;
    if ((el.fx = priv->exprs = fx_pool_new()) == NULL) /* the structure is read from them */
        mel__nomem(rep);
    if (opt->n_defines > 0) {
        el.define_used = mdae_calloc(opt->n_defines, sizeof(bool));
        if (el.define_used == NULL)
            mel__nomem(rep);
    }

    declarations_key(&el, prog);
    el.decls_as_since = opt->since != NULL && opt->since->priv != NULL &&
                        same_key(&el, opt->since->priv);
    if (!rep->stop)
        p1_stmts(&el, prog);
    if (!rep->stop)
        p1_finish(&el);
    for (size_t i = 0; i < opt->n_defines && !rep->stop; i++) {
        if (!el.define_used[i])
            mel__error(rep, MDAE_E_MODEL, no_range,
                       "-D %s: the model declares no integer constant '%s'",
                       opt->defines[i].name ? opt->defines[i].name : "(null)",
                       opt->defines[i].name ? opt->defines[i].name : "(null)");
    }

    prepare_reuse(&el, opt);
    /* Pass 2: guards of unknowns and equations, then the items. */
    p2_guards(&el);
    p2_whens(&el);
    reserve_uses(&el);
    for (const iblock *b = el.items; b != NULL && !rep->stop; b = b->next)
        for (size_t i = 0; i < b->n && !rep->stop; i++)
            p2_item(&el, &b->it[i]);
    p2_when_invariants(&el);
    uint32_t guards_items = el.gf.next_id;
    size_t n_edges = 0;
    if (rep->rc == MDAE_OK &&
        mel__inc_build(&el.uses, el.equations, el.ma, &el.gf, &n_edges) == MDAE_E_NOMEM &&
        el.gf.err == MDAE_OK)
        mel__nomem(rep);
    n_edges += el.copied_edges;
    check_gf(&el, no_range);
    if (el.fx != NULL && fx_pool_failed(el.fx))
        mel__nomem(rep);
    if (rep->rc == MDAE_OK && el.fx != NULL)
        known_values(&el);

    int rc = rep->rc;
    if (rc == MDAE_OK && el.gf.err)
        rc = el.gf.err;
    if (rc != MDAE_OK) {
        mdae_free(el.eqsrc);
        elab_close(&el);
        model_release_arrays(&el);
        mel_model_free(m);
        return rc;
    }
    m->n_modes = (uint32_t)el.modes.n;
    m->modes = priv->modes = el.modes.p;
    m->n_invariants = (uint32_t)el.invariants.n;
    m->invariants = priv->invariants = el.invariants.p;
    m->n_variables = el.vars.n;
    m->variables = priv->variables = el.variables;
    m->n_equations = el.eqs.n;
    m->equations = priv->equations = el.equations;
    m->n_whens = (uint32_t)el.whens.n;
    m->whens = priv->whens = el.whens.p;
    m->n_edges = n_edges;
    m->n_params = el.n_params;
    m->n_integers = el.n_ints;
    m->n_knowns = (uint32_t)el.knowns.n;
    m->knowns = priv->knowns = el.knowns.p;
    keep_sources(&el, m);
    keep_replay(&el, m, guards_items);
    check_model(m, el.copied);
    elab_close(&el);
    if (opt->no_expressions)
        mel__drop_expressions(m);
    *out = m;
    return MDAE_OK;
}

/* mel_model_parse's own steps (mel__front_parse): parse, recover, elaborate. */
static int parse_and_elaborate(const char *text, size_t len, const mel_options *opt,
                               mel__report *rep, mel__arena *ast, mel_model **out)
{
    mel__stmt *prog = NULL;
    int rc = mel__parse(text, len, opt->max_depth, ast, rep, &prog);
    if (rc == MDAE_E_PARSE && rep->recover && !rep->stop)
        rc = rep->rc = MDAE_OK; /* elaborate the rest (mel.h, "Recovery") */
    if (rc != MDAE_OK)
        return rc;
    if (opt->since != NULL && replay(prog, text, len, opt, rep, out) == MDAE_OK)
        return MDAE_OK;
    return elaborate(prog, text, len, opt, rep, out);
}

int mel_model_parse(const char *text, size_t len, const mel_options *opt, mel_model **out,
                    mdae_diags *diags)
{
    if (opt != NULL && opt->n_defines > 0 && opt->defines == NULL)
        return MDAE_E_INVAL;
    return mel__front_parse(text, len, opt, out, diags, parse_and_elaborate);
}
