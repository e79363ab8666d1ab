/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo_elab.c -- the meaning of a Modelica model: from the syntax tree of
 * mo_parse.c to the flat guarded incidence structure of engine/mel.h; also
 * mo_model_parse and mo_is_modelica.
 *
 * Steps:
 *  1. Find the model: the one `model` of the file (Base Modelica wraps it in
 *     a package, with the functions, records and types it uses).
 *  2. Declare every component (arrays expanded to elements "x[1]", "x[1,2]",
 *     the names the scalarised export uses); resolve types (enumerations,
 *     aliases of Real/Integer/Boolean, records and external objects).
 *  3. Mark the Reals assigned inside when-clauses (discrete) and those of
 *     clocked partitions (infer_clocks); the unknowns are the remaining
 *     Reals that are not parameter/constant/discrete nor top-level inputs. Parameters and constants are evaluated on demand
 *     from their bindings (cycles and non-constant bindings give "unknown
 *     value", and a condition over such a parameter becomes a mode atom).
 *  4. Walk the equation and algorithm sections with a guard (the conjunction
 *     of the if-equation branches around) and collect, per continuous
 *     equation, its *uses*: unknown, derivative order, guard. Conditions
 *     that select incidences become *atoms* (see atomize); an if-expression
 *     whose branches mention the same unknowns at the same orders, with no
 *     condition inside, selects nothing and its condition is no atom.
 *  5. The atoms that occur in some guard become the mode variables (in
 *     order of first occurrence); guards are rebuilt over them.
 *  6. Derived invariants (all over mode variables only, so they never add a
 *     mode variable):
 *       - a Boolean mode variable b defined by `b = E` (outside when, under
 *         guard g) whose atoms are all mode variables: !g | (b <=> E);
 *       - atoms `E == k1`, `E == k2` (same text E, different integer
 *         constants) exclude each other pairwise;
 *       - an Integer variable m defined by `m = if c1 then k1 elseif ...
 *         else kn` (constants) gives, for each branch whose path condition P
 *         has only mode-variable atoms and each mode atom `m == k`:
 *         !P | (m == k) or !P | !(m == k).
 *       - relations of the same expression text to constants (after
 *         evaluating parameters), x < k1 and x > k2 and so on, pairwise:
 *         what holds for every real x (x > 1 implies x > 0; x > k2 and
 *         x < k1 exclude each other when k1 <= k2, and one of them holds
 *         when k1 > k2).
 *     Not derived: definitions through atoms that are not mode variables
 *     (b = x > 0 when `x > 0` selects nothing itself): such an atom is a free
 *     Boolean in the result, so leaving it out only keeps modes that the
 *     model might exclude, never hides one; relations between different
 *     expressions (x > y, x > 0); when-defined variables.
 *  7. Read the incidences from the equations' expressions, once the sites
 *     are patched (the front-ends' one incidence pass, mel_inc.c: cases by
 *     decreasing order, each the OR of its uses' guards), name everything,
 *     build the mel_model. The uses step 4 collects decide which conditions
 *     are atoms and which atoms are mode variables (step 5), not the
 *     incidences.
 * Expressions (issue 38): step 4 also lowers each equation instance into
 * an fx tree in its environment (section "expressions" below: the rules),
 * with the conditions that may be atoms as *sites*; step 7 replaces the
 * sites whose atom became a mode variable by FX_MODE, and fills the mode
 * variables' definitions and the known quantities.
 *
 * Transient modes (engine/mel.h, mel_when; issue 13 item 5): a
 * `when c then reinit(v, e); end when;` whose condition c is made of
 * Boolean variables and relations (under not, and, or: the Cup-and-Ball's
 * gamma, the bouncing ball's h <= 0) declares the modes where c holds
 * transient, as MEL's `when c then ... end`: c's atoms become mode
 * variables, each reinit the when-equation next(v) = e (v's value after
 * the event, from the values at the event: structurally v and v. plus e's
 * incidences outside pre), and !c an invariant, so the long modes are
 * those of the model without the when-clause. Other when-clauses (sample,
 * initial(), those without a reinit) stay aside in mel_model.events: they
 * are clock ticks or discrete updates, not modes of the continuous system.
 *
 * Names: unknowns and mode variables by their Modelica names (quoted names
 * unquoted); atoms by normalised source text; equations by their label
 * comment, else by their normalised text (shortened beyond 60 bytes, with
 * a hash of the whole text only where two shortened texts would be alike:
 * drop_needless_hashes), so that the name does not change when unrelated
 * lines change;
 * loop iterations append "[i=1]", duplicates "#2".
 */
#include "mo.h"
#include "mo_int.h"
#include "fx.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAME_TEXT 60
#define MAX_CHAIN 1000

typedef enum vtype { T_REAL, T_INT, T_BOOL, T_ENUM, T_STRING, T_CLOCK, T_OTHER } vtype;

typedef struct mvar {
    const char *name;
    vtype type;
    unsigned prefixes;
    mdae_range where;
    const mo__expr *binding;
    const mo__mod *mods;        /* its declaration's attributes (start, fixed) */
    const mo__class *enum_type; /* T_ENUM */
    int state;                  /* evaluation: 0 not yet, 1 running, 2 done, 3 no value */
    double val;
    bool when_assigned;
    bool clocked;    /* in a clocked partition (see infer_clocks) */
    long unknown;    /* index into variables, or -1 */
    long next_elem;  /* next element of the same array, or -1 */
    /* definition `b = E` of a Boolean / Integer variable (for invariants) */
    const mo__expr *def;
    const mel_guard *def_guard;
    int n_defs;
    long known;             /* index into the knowns (issue 38), or -1 */
    const fx_node *def_fx;  /* a Boolean's `def` lowered, NULL: none */
    size_t def_site, def_n_sites; /* its sites (el->sites) */
} mvar;

typedef struct atom {
    const char *key;  /* canonical text */
    const char *name; /* display text (first occurrence) */
    mdae_range where;
    bool flip;        /* atom = key XOR flip */
    long mode;        /* index into modes, or -1 */
    const char *eq_lhs; /* `E == k` atoms: E's text and k */
    long long eq_k;
    bool is_eq;
    const char *var_name; /* a Boolean variable's atom: its name */
    const mo__expr *rel;  /* a relation's atom: its first occurrence */
    /* A relation with one constant side: the key holds iff bnd_lhs < bnd
     * (bnd_above: bnd_lhs > bnd); bnd_lhs NULL otherwise. */
    const char *bnd_lhs;
    double bnd;
    bool bnd_above;
    /* Issue 38: the atom lowered (a relation, a call), the def of its
     * mode variable, with its sites (el->sites); NULL for a Boolean's. */
    const fx_node *def_fx;
    size_t def_site, def_n_sites;
} atom;

/* The constant side of a relation atom (atom.bnd_lhs, for invariants). */
typedef struct bound {
    const mo__expr *lhs; /* the other side, NULL: none */
    double k;
    bool above;
} bound;

typedef struct use {
    uint32_t var;
    int order;
    int next; /* of order, under next(): a reinit's target (mel_order_case.next) */
    const mel_guard *guard;
    mdae_range where;
} use;

typedef struct eqn {
    const char *name;
    bool labelled; /* named by its label comment: the name is the user's, kept as written */
    const mel_guard *guard;
    mdae_range where;
    size_t first_use, n_uses; /* into el->uses */
    long when_ev;   /* a reinit's equation: its MEL_EV_WHEN event; else -1 */
    uint32_t when;  /* build: 0, or k + 1 (mel_equation.when) */
    /* Issue 38: the equation lowered, the sites in it (el->sites), and
     * its place in the if-equations (mel_equation.cond, cond_pos) */
    const fx_node *lhs, *rhs;
    size_t first_site, n_sites;
    uint32_t cond, cond_pos;
} eqn;

/* What new_equation records of the expressions (issue 38). */
typedef struct eq_fx {
    const fx_node *lhs, *rhs;
    size_t first_site;
} eq_fx;

typedef struct named_ix {
    const char *name;
    long i;
} named_ix;

typedef struct vec {
    void *p;
    size_t n, cap;
} vec;

typedef struct env {
    const char *name;
    long long value;
    const struct env *parent;
} env;

typedef struct elab {
    mel__report *rep;
    /* Recovery (issue 36 item 2): a name unknown because its declaration
     * was left out, met in the equation being elaborated; that equation is
     * then left out too (equations), not reported. */
    const char *dropped;
    const mel_options *opt;
    mel__arena tmp;
    mel__arena *ma;
    struct mel_model_priv *priv;
    mel__gfactory gf;
    mel__symtab vars_by_name; /* index into vars */
    vec sorted;               /* variable indices sorted by name */
    vec multi;                /* resolve: the elements of a whole reference */
    mel__symtab atoms_by_key;
    mel__symtab types;        /* class name -> index into classes */
    vec vars, atoms, eqns, uses, events, classes, cur_uses;
    const mo__class *model;
    size_t max_instances, instances;
    bool limit_hit;
    long cur_when;
    const mo__expr *cur_when_cond; /* the condition of that branch */
    int when_if;                   /* if-equations around, inside it */
    long long end_value; /* `end` in the subscript being evaluated, or 0 */
    bool has_clocks;     /* some variable is clocked or a Clock */
    const env *env;
    uint32_t seen[64];
    size_t n_seen;
    /* Issue 38: the expressions' pool (also with no_expressions: dropped at the end),
     * the nodes that may become FX_MODE once the mode variables are known
     * (site), the if-equations counted so far and the current one. */
    fx_pool *fx;
    vec sites;
    uint32_t n_knowns;
    uint32_t n_conds, cur_cond, cond_pos;
    bool arith_scalar; /* lw: the operand of arithmetic already checked scalar */
    /* lw: lowering a side of a continuous equation, where a relation met as
     * a value (not in a condition) is no site: collect counts its unknowns,
     * which a mode variable in its place would not read */
    bool in_side;
} elab;

/* ---- small utilities ---------------------------------------------------------- */

static void *vec_push(elab *el, vec *v, size_t elt)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 16;
        void *p = mdae_realloc(v->p, cap * elt);
        if (p == NULL) {
            mel__nomem(el->rep);
            return NULL;
        }
        v->p = p;
        v->cap = cap;
    }
    void *slot = (char *)v->p + v->n * elt;
    memset(slot, 0, elt);
    v->n++;
    return slot;
}

#define VAR(el, i) (&((mvar *)(el)->vars.p)[i])
#define ATOM(el, i) (&((atom *)(el)->atoms.p)[i])

static void err(elab *el, int code, mdae_range where, const char *fmt, ...) MDAE_PRINTF(4, 5);
/* One error per source position (a loop body would repeat it). */
static void err(elab *el, int code, mdae_range where, const char *fmt, ...)
{
    if (mel__seen_before(el->rep, code, where, el->seen, sizeof el->seen / sizeof *el->seen,
                         &el->n_seen))
        return;
    va_list ap;
    va_start(ap, fmt);
    mel__verror(el->rep, code, where, 1024, fmt, ap);
    va_end(ap);
}

static bool charge(elab *el, size_t n, mdae_range where)
{
    el->instances += n;
    if (el->instances > el->max_instances) {
        mel__instance_limit(el->rep, where, el->max_instances, &el->limit_hit);
        return false;
    }
    return true;
}

static char *mdup(elab *el, mel__arena *a, const char *s, size_t n)
{
    char *q = mel__arena_strndup(a, s, n);
    if (q == NULL)
        mel__nomem(el->rep);
    return q;
}

/* e's normalised text (mo__expr_print, with hook h: NULL for none) in the
 * scratch arena; "" on OOM (reported). */
static char *expr_text_hooked(elab *el, const mo__expr *e, const mo__print_hook *h)
{
    mdae_buf b = {0};
    mo__expr_print_hooked(&b, e, h);
    if (b.oom || b.p == NULL) {
        mdae_free(b.p);
        if (b.oom)
            mel__nomem(el->rep);
        return mdup(el, &el->tmp, "", 0);
    }
    char *s = mdup(el, &el->tmp, b.p, b.len);
    mdae_free(b.p);
    return s;
}

static char *expr_text(elab *el, const mo__expr *e) { return expr_text_hooked(el, e, NULL); }

static long find(const mel__symtab *t, const char *name)
{
    const mel__sym *s = mel__sym_find(t, name);
    return s ? (long)s->index : -1;
}

static bool add_sym(elab *el, mel__symtab *t, const char *name, uint32_t index)
{
    mel__sym *s = mel__sym_add(t, &el->tmp, name);
    if (s == NULL) {
        mel__nomem(el->rep);
        return false;
    }
    s->index = index;
    return true;
}

static const char *plain_name(const mo__expr *e)
{
    if ((e->kind == MO_E_CALL || e->kind == MO_E_REF) && e->n_parts == 1 &&
        e->parts[0].n_subs == 0)
        return e->parts[0].name;
    return NULL;
}

/* ---- evaluation of constant expressions -------------------------------------- */

typedef struct value {
    bool ok;
    double v;
} value;

static value eval(elab *el, const mo__expr *e);
static long resolve(elab *el, const mo__expr *e, bool *whole, bool quiet);

static value val_of_var(elab *el, long i)
{
    value r = {false, 0};
    mvar *v = VAR(el, i);
    if (!(v->prefixes & (MO_P_PARAMETER | MO_P_CONSTANT)))
        return r;
    if (v->state == 2) {
        r.ok = true;
        r.v = v->val;
        return r;
    }
    if (v->state != 0 || v->binding == NULL)
        return r;
    v->state = 1;
    const env *save = el->env;
    el->env = NULL;
    value b = eval(el, v->binding);
    el->env = save;
    v = VAR(el, i); /* vars does not grow during evaluation; keep it simple */
    v->state = b.ok ? 2 : 3;
    v->val = b.v;
    return b;
}

/* The predefined enumerations of Modelica 3.6 section 4.9.5 and 8.3.7. */
static const char *const state_select[] = {"never", "avoid", "default", "prefer", "always",
                                           NULL};
static const char *const assertion_level[] = {"error", "warning", NULL};

static const char *const *builtin_enum(const char *type)
{
    if (strcmp(type, "StateSelect") == 0)
        return state_select;
    if (strcmp(type, "AssertionLevel") == 0)
        return assertion_level;
    return NULL;
}

static long enum_literal(elab *el, const mo__expr *e)
{
    if (e->kind != MO_E_REF || e->n_parts < 2)
        return -1;
    if (e->n_parts == 2 && builtin_enum(e->parts[0].name) != NULL) {
        const char *const *lits = builtin_enum(e->parts[0].name);
        for (long k = 0; lits[k] != NULL; k++)
            if (strcmp(lits[k], e->parts[1].name) == 0)
                return k + 1;
        return -1;
    }
    /* 'T'.'L': the type is all parts but the last */
    char buf[1024];
    size_t n = 0;
    for (uint32_t i = 0; i + 1 < e->n_parts; i++) {
        int w = snprintf(buf + n, sizeof buf - n, "%s%s", i ? "." : "", e->parts[i].name);
        if (w < 0 || (size_t)w >= sizeof buf - n)
            return -1;
        n += (size_t)w;
    }
    long c = find(&el->types, buf);
    if (c < 0)
        return -1;
    const mo__class *cl = ((const mo__class **)el->classes.p)[c];
    const char *lit = e->parts[e->n_parts - 1].name;
    for (uint32_t k = 0; k < cl->n_literals; k++)
        if (strcmp(cl->literals[k], lit) == 0)
            return (long)k + 1;
    return -1;
}

static value eval(elab *el, const mo__expr *e)
{
    value r = {false, 0}, a, b;
    if (e == NULL)
        return r;
    switch ((mo__ek)e->kind) {
    case MO_E_NUM:
        r.ok = true;
        r.v = e->is_int ? (double)e->ival : e->num;
        return r;
    case MO_E_BOOL:
        r.ok = true;
        r.v = (double)e->ival;
        return r;
    case MO_E_END:
        r.ok = el->end_value > 0;
        r.v = (double)el->end_value;
        return r;
    case MO_E_REF: {
        const char *pn = plain_name(e);
        if (pn != NULL) {
            for (const env *x = el->env; x != NULL; x = x->parent) {
                if (strcmp(x->name, pn) == 0) {
                    r.ok = true;
                    r.v = (double)x->value;
                    return r;
                }
            }
        }
        long lit = enum_literal(el, e);
        if (lit > 0) {
            r.ok = true;
            r.v = (double)lit;
            return r;
        }
        bool whole = false;
        long i = resolve(el, e, &whole, true);
        if (i < 0 || whole)
            return r;
        return val_of_var(el, i);
    }
    case MO_E_UN:
        a = eval(el, e->kids[0]);
        if (!a.ok)
            return r;
        r.ok = true;
        r.v = e->op == MO_T_NOT ? (double)(a.v == 0) : e->op == MO_T_MINUS ? -a.v : a.v;
        return r;
    case MO_E_BIN: {
        const uint8_t *ops = (const uint8_t *)e->str;
        a = eval(el, e->kids[0]);
        if (e->op == MO_T_AND || e->op == MO_T_OR) {
            /* short-circuit a constant decision even if the rest is not */
            bool is_and = e->op == MO_T_AND;
            bool all = true;
            for (uint32_t i = 0; i < e->n_kids; i++) {
                value k = i ? eval(el, e->kids[i]) : a;
                if (k.ok && ((k.v != 0) != is_and)) {
                    r.ok = true;
                    r.v = is_and ? 0 : 1;
                    return r;
                }
                all = all && k.ok;
            }
            r.ok = all;
            r.v = is_and ? 1 : 0;
            return r;
        }
        if (!a.ok)
            return r;
        double acc = a.v;
        for (uint32_t i = 1; i < e->n_kids; i++) {
            b = eval(el, e->kids[i]);
            if (!b.ok)
                return r;
            uint8_t op = ops ? ops[i] : e->op;
            switch (op) {
            case MO_T_PLUS: case MO_T_DPLUS: acc += b.v; break;
            case MO_T_MINUS: case MO_T_DMINUS: acc -= b.v; break;
            case MO_T_STAR: case MO_T_DSTAR: acc *= b.v; break;
            case MO_T_SLASH: case MO_T_DSLASH:
                if (b.v == 0)
                    return r;
                acc /= b.v;
                break;
            case MO_T_CARET: case MO_T_DCARET: acc = pow(acc, b.v); break;
            case MO_T_LT: acc = acc < b.v; break;
            case MO_T_LE: acc = acc <= b.v; break;
            case MO_T_GT: acc = acc > b.v; break;
            case MO_T_GE: acc = acc >= b.v; break;
            case MO_T_EQ: acc = acc == b.v; break;
            case MO_T_NE: acc = acc != b.v; break;
            default: return r;
            }
        }
        if (!isfinite(acc))
            return r;
        r.ok = true;
        r.v = acc;
        return r;
    }
    case MO_E_IF:
        for (uint32_t i = 0; i + 1 < e->n_kids; i += 2) {
            a = eval(el, e->kids[i]);
            if (!a.ok)
                return r;
            if (a.v != 0)
                return eval(el, e->kids[i + 1]);
        }
        return eval(el, e->kids[e->n_kids - 1]);
    case MO_E_CALL: {
        const char *f = plain_name(e);
        if (f == NULL || e->n_iters > 0 || e->names != NULL)
            return r;
        if ((strcmp(f, "noEvent") == 0 || strcmp(f, "integer") == 0 ||
             strcmp(f, "Integer") == 0 || strcmp(f, "floor") == 0 || strcmp(f, "ceil") == 0 ||
             strcmp(f, "abs") == 0 || strcmp(f, "sqrt") == 0) && e->n_kids == 1) {
            a = eval(el, e->kids[0]);
            if (!a.ok)
                return r;
            r.ok = true;
            if (strcmp(f, "integer") == 0 || strcmp(f, "floor") == 0)
                r.v = floor(a.v);
            else if (strcmp(f, "ceil") == 0)
                r.v = ceil(a.v);
            else if (strcmp(f, "abs") == 0)
                r.v = fabs(a.v);
            else if (strcmp(f, "sqrt") == 0)
                r.ok = a.v >= 0, r.v = sqrt(a.v);
            else
                r.v = a.v;
            return r;
        }
        if ((strcmp(f, "min") == 0 || strcmp(f, "max") == 0 || strcmp(f, "mod") == 0 ||
             strcmp(f, "div") == 0) && e->n_kids == 2) {
            a = eval(el, e->kids[0]);
            b = eval(el, e->kids[1]);
            if (!a.ok || !b.ok)
                return r;
            r.ok = true;
            if (f[1] == 'i')
                r.v = a.v < b.v ? a.v : b.v;
            else if (f[1] == 'a')
                r.v = a.v > b.v ? a.v : b.v;
            else if (b.v == 0)
                r.ok = false;
            else if (f[0] == 'm')
                r.v = a.v - floor(a.v / b.v) * b.v;
            else
                r.v = trunc(a.v / b.v);
            return r;
        }
        return r;
    }
    default:
        return r;
    }
}

static bool eval_int(elab *el, const mo__expr *e, long long *out)
{
    value v = eval(el, e);
    if (!v.ok || v.v != floor(v.v) || fabs(v.v) > 1e15)
        return false;
    *out = (long long)v.v;
    return true;
}

/* ---- names and resolution ------------------------------------------------------- */

static size_t collect_prefix(elab *el, const char *prefix);

static bool has_end(const mo__expr *e)
{
    if (e == NULL)
        return false;
    if (e->kind == MO_E_END)
        return true;
    if (e->kind == MO_E_REF)
        return false; /* x[a[end]]: the inner end is a's */
    for (uint32_t i = 0; i < e->n_kids; i++)
        if (has_end(e->kids[i]))
            return true;
    return false;
}

/* The number of elements prefix[1], prefix[2], ... (1-D). */
static size_t count_brackets(elab *el, const char *prefix)
{
    char key[2100];
    size_t k = 0;
    for (;;) {
        snprintf(key, sizeof key, "%s[%zu]", prefix, k + 1);
        if (find(&el->vars_by_name, key) < 0)
            return k;
        k++;
    }
}

/* The instance name of a reference with evaluated subscripts into buf; false
 * if a subscript is not constant (then *partial is set) or the name is too
 * long. */
static bool ref_name(elab *el, const mo__expr *e, char *buf, size_t cap, bool *partial)
{
    size_t n = 0;
    *partial = false;
    buf[0] = 0;
    for (uint32_t i = 0; i < e->n_parts; i++) {
        /* memcpy, not snprintf: this runs for every reference */
        size_t len = strlen(e->parts[i].name);
        if (n + len + 2 >= cap)
            return false;
        if (i > 0)
            buf[n++] = '.';
        memcpy(buf + n, e->parts[i].name, len + 1);
        n += len;
        if (e->parts[i].n_subs == 0)
            continue;
        int w;
        long long save_end = el->end_value;
        el->end_value = 0;
        if (e->parts[i].n_subs == 1 && has_end(e->parts[i].subs[0])) {
            /* `end` of a one-dimensional array: its number of elements */
            char *save = mdup(el, &el->tmp, buf, n);
            if (save != NULL && collect_prefix(el, save) > 0)
                el->end_value = (long long)count_brackets(el, save);
        }
        for (uint32_t k = 0; k < e->parts[i].n_subs; k++) {
            long long v;
            bool ok = eval_int(el, e->parts[i].subs[k], &v);
            el->end_value = save_end;
            if (!ok) {
                *partial = true;
                return false;
            }
            w = snprintf(buf + n, cap - n, "%s%lld", k ? "," : "[", v);
            if (w < 0 || (size_t)w >= cap - n)
                return false;
            n += (size_t)w;
        }
        if (n + 2 >= cap)
            return false;
        buf[n++] = ']';
        buf[n] = 0;
    }
    return true;
}

/* All variables whose names start with `prefix` followed by '.' or '[' (the
 * scalarised elements of an array or a record named whole), into el->multi.
 * el->sorted holds the variable indices sorted by name. */
static size_t lower_bound(elab *el, const char *key)
{
    const named_ix *v = el->sorted.p;
    size_t lo = 0, hi = el->sorted.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(v[mid].name, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t collect_prefix(elab *el, const char *prefix)
{
    char key[2100];
    size_t n = strlen(prefix);
    if (n + 2 > sizeof key)
        return 0;
    el->multi.n = 0;
    const named_ix *v = el->sorted.p;
    for (int k = 0; k < 2; k++) {
        memcpy(key, prefix, n);
        key[n] = k ? '[' : '.';
        key[n + 1] = 0;
        for (size_t i = lower_bound(el, key); i < el->sorted.n; i++) {
            if (strncmp(v[i].name, key, n + 1) != 0)
                break;
            long *slot = vec_push(el, &el->multi, sizeof *slot);
            if (slot == NULL)
                return 0;
            *slot = v[i].i;
        }
    }
    return el->multi.n;
}

/* OpenModelica writes some indexed names inside the quotes, with the loop
 * index quoted in turn: 'x[\'i\']' in a loop over 'i'. Substitute the
 * values of the loop indices; false if a quoted index is not one. */
static bool subst_indices(elab *el, const char *name, char *out, size_t cap)
{
    size_t n = 0;
    bool any = false;
    for (const char *p = name; *p; ) {
        if (p[0] == '\\' && p[1] == '\'') {
            const char *q = strstr(p + 2, "\\'");
            if (q == NULL)
                return false;
            size_t len = (size_t)(q - (p + 2));
            const env *x = el->env;
            for (; x != NULL; x = x->parent)
                if (strlen(x->name) == len && memcmp(x->name, p + 2, len) == 0)
                    break;
            if (x == NULL)
                return false;
            int w = snprintf(out + n, cap - n, "%lld", x->value);
            if (w < 0 || (size_t)w >= cap - n)
                return false;
            n += (size_t)w;
            p = q + 2;
            any = true;
            continue;
        }
        if (n + 1 >= cap)
            return false;
        out[n++] = *p++;
    }
    out[n] = 0;
    return any;
}

/* The variable a reference names: its index; or, for an array or record
 * named whole (or indexed by something that is not a constant), *whole set,
 * its elements in el->multi and the first returned; or -1 (reported unless
 * quiet). Loop indices and enumeration literals are not variables (-1,
 * never reported). A slice x[{1, 2}] or x[1:2] names the whole array: the
 * incidence is over-approximated by the elements outside the slice. */
static long resolve(elab *el, const mo__expr *e, bool *whole, bool quiet)
{
    char buf[2048];
    bool partial;
    *whole = false;
    const char *pn = plain_name(e);
    if (pn != NULL)
        for (const env *x = el->env; x != NULL; x = x->parent)
            if (strcmp(x->name, pn) == 0)
                return -1;
    if (e->kind != MO_E_REF)
        return -1;
    bool named = ref_name(el, e, buf, sizeof buf, &partial);
    if (named) {
        long i = find(&el->vars_by_name, buf);
        if (i >= 0)
            return i;
        if (strstr(buf, "\\'") != NULL) {
            char sub[2048];
            if (subst_indices(el, buf, sub, sizeof sub) &&
                (i = find(&el->vars_by_name, sub)) >= 0)
                return i;
        }
        char *lb = strchr(buf, '[');
        if (lb != NULL && e->n_parts == 1 && collect_prefix(el, buf) > 0) {
            /* 'a[1].x' naming the array a[1].x whole, as a[1].x does */
            *whole = true;
            return ((long *)el->multi.p)[0];
        }
        if (lb != NULL && e->n_parts == 1) {
            /* OpenModelica also writes slices inside the quotes:
             * 'x[{1, 2, 3}]' and 'x[:]'. A list of constants names those
             * elements; anything else there, the whole array before it. */
            *lb = 0;
            size_t n = strlen(buf);
            if (lb[1] == '{' && n + 24 < sizeof buf) {
                el->multi.n = 0;
                const char *q = lb + 2;
                bool ok = true;
                while (ok && *q && *q != '}') {
                    char *end;
                    long long k = strtoll(q, &end, 10);
                    if (end == q) {
                        ok = false;
                        break;
                    }
                    char elt[2100];
                    snprintf(elt, sizeof elt, "%s[%lld]", buf, k);
                    long j = find(&el->vars_by_name, elt);
                    long *slot = j >= 0 ? vec_push(el, &el->multi, sizeof *slot) : NULL;
                    if (slot == NULL) {
                        ok = false;
                        break;
                    }
                    *slot = j;
                    q = end;
                    while (*q == ',' || *q == ' ')
                        q++;
                }
                if (ok && el->multi.n > 0) {
                    *whole = true;
                    return ((long *)el->multi.p)[0];
                }
            }
        }
    } else if (partial) {
        /* x[i] with i not constant: the whole of x (subscripts dropped) */
        size_t n = 0;
        named = true;
        for (uint32_t k = 0; k < e->n_parts && n < sizeof buf - 1; k++) {
            int w = snprintf(buf + n, sizeof buf - n, "%s%s", k ? "." : "", e->parts[k].name);
            if (w < 0 || (size_t)w >= sizeof buf - n) {
                named = false;
                break;
            }
            n += (size_t)w;
        }
    }
    if (named && collect_prefix(el, buf) > 0) {
        *whole = true;
        return ((long *)el->multi.p)[0];
    }
    if (enum_literal(el, e) > 0)
        return -1;
    if (!quiet && e->n_parts > 0 && mel__left_out_spells(el->rep, e->parts[0].name)) {
        if (el->dropped == NULL)
            el->dropped = e->parts[0].name;
        return -1;
    }
    if (!quiet) {
        char *t = expr_text(el, e);
        err(el, MDAE_E_MODEL, e->where, "unknown name '%s'", t ? t : "?");
    }
    return -1;
}

/* ---- atoms and guards ----------------------------------------------------------- */

static const mel_guard *atom_guard(elab *el, const char *key, const char *display, bool pol,
                                   mdae_range where, const mo__expr *eq_lhs, long long eq_k,
                                   bool is_eq, const char *var_name, const mo__expr *rel,
                                   const bound *bd)
{
    long i = find(&el->atoms_by_key, key);
    if (i < 0) {
        if (!charge(el, 1, where))
            return mel__g_true();
        i = (long)el->atoms.n;
        atom *a = vec_push(el, &el->atoms, sizeof *a);
        if (a == NULL || !add_sym(el, &el->atoms_by_key, key, (uint32_t)i))
            return mel__g_true();
        a->key = mdup(el, &el->tmp, key, strlen(key));
        a->name = display;
        a->where = where;
        a->flip = !pol;
        a->mode = -1;
        a->is_eq = is_eq;
        a->eq_k = eq_k;
        a->eq_lhs = eq_lhs ? expr_text(el, eq_lhs) : NULL;
        a->var_name = var_name;
        a->rel = rel;
        if (bd != NULL && bd->lhs != NULL) {
            a->bnd_lhs = expr_text(el, bd->lhs);
            a->bnd = bd->k;
            a->bnd_above = bd->above;
        }
    }
    const mel_guard *g = mel__g_var(&el->gf, (uint32_t)i);
    return (pol != !ATOM(el, i)->flip) ? mel__g_not(&el->gf, g) : g;
}

static bool is_clocked(const char *f)
{
    static const char *const names[] = {"hold", "previous", "subSample", "superSample",
                                        "shiftSample", "backSample", "noClock", "interval",
                                        "firstTick", "Clock"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(f, names[i]) == 0)
            return true;
    return false;
}

static bool is_relation(uint8_t op)
{
    return op == MO_T_LT || op == MO_T_LE || op == MO_T_GT || op == MO_T_GE || op == MO_T_EQ ||
           op == MO_T_NE;
}

/* The relation l < r with exactly one constant side: bd := that side and
 * the other (left alone otherwise). */
static void relation_bound(elab *el, const mo__expr *l, const mo__expr *r, bound *bd)
{
    value vl = eval(el, l), vr = eval(el, r);
    if (vl.ok == vr.ok || !isfinite(vl.ok ? vl.v : vr.v))
        return;
    bd->lhs = vl.ok ? r : l;
    bd->k = vl.ok ? vl.v : vr.v;
    bd->above = vl.ok; /* k < r: r > k */
}

/* The atom key of the relation c (two kids): canonical a < b or a == b,
 * the others negations (*pol false) or swaps (owned: mdae_free; NULL on
 * OOM, reported). */
static char *relation_key(elab *el, const mo__expr *c, bool *pol, bool *swap, bool *eq)
{
    char *ta = expr_text(el, c->kids[0]), *tb = expr_text(el, c->kids[1]);
    *pol = true;
    *swap = false;
    *eq = false;
    switch (c->op) {
    case MO_T_LT: break;
    case MO_T_GE: *pol = false; break;
    case MO_T_GT: *swap = true; break;
    case MO_T_LE: *swap = true; *pol = false; break;
    case MO_T_EQ: *eq = true; break;
    default: *eq = true; *pol = false; break;
    }
    if (ta == NULL || tb == NULL)
        return NULL;
    char *key = mdae_asprintf("%s\x01%s\x01%s", *swap ? tb : ta, *eq ? "==" : "<",
                              *swap ? ta : tb);
    if (key == NULL)
        mel__nomem(el->rep);
    return key;
}

static void lower_atom_def(elab *el, size_t i, const mo__expr *c);

/* A Boolean condition as a guard over atoms. Constant parts fold. */
/* c's value is a number, a string or an array whatever its operands: no
 * condition. */
static bool arithmetic(const mo__expr *c)
{
    switch ((mo__ek)c->kind) {
    case MO_E_NUM: case MO_E_STR: case MO_E_TIME: case MO_E_DER: case MO_E_ARRAY:
    case MO_E_MATRIX: case MO_E_RANGE:
        return true;
    case MO_E_UN:
        return c->op == MO_T_MINUS || c->op == MO_T_PLUS;
    case MO_E_BIN:
        return c->op == MO_T_PLUS || c->op == MO_T_MINUS || c->op == MO_T_STAR ||
               c->op == MO_T_SLASH || c->op == MO_T_CARET;
    default:
        return false;
    }
}

static const mel_guard *atomize(elab *el, const mo__expr *c)
{
    value v = eval(el, c);
    if (v.ok)
        return v.v != 0 ? mel__g_true() : mel__g_false();
    if (el->rep->stop)
        return mel__g_true();
    switch ((mo__ek)c->kind) {
    case MO_E_UN:
        if (c->op == MO_T_NOT)
            return mel__g_not(&el->gf, atomize(el, c->kids[0]));
        break;
    case MO_E_BIN:
        if (c->op == MO_T_AND || c->op == MO_T_OR) {
            const mel_guard *g = atomize(el, c->kids[0]);
            for (uint32_t i = 1; i < c->n_kids; i++) {
                const mel_guard *h = atomize(el, c->kids[i]);
                g = c->op == MO_T_AND ? mel__g_and(&el->gf, g, h) : mel__g_or(&el->gf, g, h);
            }
            return g;
        }
        if (is_relation(c->op) && c->n_kids == 2) {
            const mo__expr *a = c->kids[0], *b = c->kids[1];
            bool pol, swap, eq;
            char *key = relation_key(el, c, &pol, &swap, &eq);
            if (key == NULL)
                return mel__g_true();
            char *disp = expr_text(el, c);
            if (key == NULL || disp == NULL) {
                mdae_free(key);
                mel__nomem(el->rep);
                return mel__g_true();
            }
            long long k = 0;
            bool is_eq = false;
            const mo__expr *lhs = NULL;
            if (eq) {
                if (eval_int(el, b, &k)) {
                    is_eq = true;
                    lhs = a;
                } else if (eval_int(el, a, &k)) {
                    is_eq = true;
                    lhs = b;
                }
            }
            bound bd = {0};
            if (!eq)
                relation_bound(el, swap ? b : a, swap ? a : b, &bd);
            size_t before = el->atoms.n;
            const mel_guard *g =
                atom_guard(el, key, disp, pol, c->where, lhs, k, is_eq, NULL, c, &bd);
            mdae_free(key);
            if (el->atoms.n > before)
                lower_atom_def(el, before, c);
            return g;
        }
        break;
    case MO_E_IF: {
        /* (c1 & v1) | (!c1 & c2 & v2) | ... */
        const mel_guard *rest = mel__g_true(), *acc = mel__g_false();
        for (uint32_t i = 0; i + 1 < c->n_kids; i += 2) {
            const mel_guard *ci = atomize(el, c->kids[i]);
            acc = mel__g_or(&el->gf, acc,
                            mel__g_and(&el->gf, mel__g_and(&el->gf, rest, ci),
                                       atomize(el, c->kids[i + 1])));
            rest = mel__g_and(&el->gf, rest, mel__g_not(&el->gf, ci));
        }
        return mel__g_or(&el->gf, acc,
                         mel__g_and(&el->gf, rest, atomize(el, c->kids[c->n_kids - 1])));
    }
    case MO_E_CALL: {
        const char *f = plain_name(c);
        if (f != NULL && strcmp(f, "noEvent") == 0 && c->n_kids == 1)
            return atomize(el, c->kids[0]);
        if (f != NULL && is_clocked(f)) {
            err(el, MDAE_E_MODEL, c->where,
                "clocked partitions are not supported: '%s' (the analysis covers the "
                "continuous-time part)", f);
            return mel__g_true();
        }
        break;
    }
    case MO_E_REF: {
        bool whole;
        long i = resolve(el, c, &whole, false);
        if (i >= 0 && !whole) {
            mvar *mv = VAR(el, i);
            if (mv->type != T_BOOL)
                err(el, MDAE_E_MODEL, c->where, "condition '%s' is not a Boolean", mv->name);
            return atom_guard(el, mv->name, mv->name, true, c->where, NULL, 0, false, mv->name,
                              NULL, NULL);
        }
        return mel__g_true();
    }
    default:
        break;
    }
    /* initial(), edge(b), change(x), sample(t0, dt), pre(b), a Boolean
     * function call...: an atom named by its text; arithmetic is no
     * condition (the Modelica fuzzer's `if -'open' then`) */
    char *t = expr_text(el, c);
    if (t == NULL)
        return mel__g_true();
    if (arithmetic(c)) {
        err(el, MDAE_E_MODEL, c->where, "condition '%s' is not a Boolean", t);
        return mel__g_true();
    }
    size_t before = el->atoms.n;
    const mel_guard *g = atom_guard(el, t, t, true, c->where, NULL, 0, false, NULL, NULL, NULL);
    if (el->atoms.n > before)
        lower_atom_def(el, before, c);
    return g;
}

/* ---- incidences ------------------------------------------------------------------ */

static void add_use(elab *el, vec *uses, uint32_t var, int order, const mel_guard *g,
                    mdae_range where)
{
    if (g == mel__g_false())
        return;
    use *u = vec_push(el, uses, sizeof *u);
    if (u == NULL)
        return;
    u->var = var;
    u->order = order;
    u->guard = g;
    u->where = where;
}

static void use_ref(elab *el, vec *uses, const mo__expr *e, int order, const mel_guard *g)
{
    bool whole;
    long i = resolve(el, e, &whole, false);
    if (i < 0)
        return;
    size_t n = whole ? el->multi.n : 1;
    for (size_t j = 0; j < n; j++) {
        mvar *v = VAR(el, whole ? ((long *)el->multi.p)[j] : i);
        if (v->unknown >= 0)
            add_use(el, uses, (uint32_t)v->unknown, order, g, e->where);
    }
}

static void collect(elab *el, vec *uses, const mo__expr *e, int order, const mel_guard *g);

/* Signature of an if-branch: its (unknown, order) pairs, sorted; false when
 * it contains a condition that is not constant (then the branch selects by
 * itself and the outer condition is kept) or is too big to compare. */
static int cmp_use_sig(const void *x, const void *y)
{
    const use *a = x, *b = y;
    if (a->var != b->var)
        return a->var < b->var ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

/* cmp_use_sig, then the first in the source first. */
static int cmp_use_sig_at(const void *x, const void *y)
{
    const use *a = x, *b = y;
    int c = cmp_use_sig(a, b);
    if (c != 0)
        return c;
    return (a->where.start.offset > b->where.start.offset) -
           (a->where.start.offset < b->where.start.offset);
}

/* Sort the uses of v by (unknown, order) and keep one of each, the first
 * in the source (where the structure locates an incidence). */
static void uses_sort_unique(vec *v)
{
    if (v->n > 1) {
        qsort(v->p, v->n, sizeof(use), cmp_use_sig_at);
        size_t w = 1;
        use *u = v->p;
        for (size_t i = 1; i < v->n; i++)
            if (cmp_use_sig(&u[i], &u[w - 1]) != 0)
                u[w++] = u[i];
        v->n = w;
    }
}

static bool has_condition(elab *el, const mo__expr *e)
{
    if (e == NULL)
        return false;
    if (e->kind == MO_E_IF) {
        for (uint32_t i = 0; i + 1 < e->n_kids; i += 2)
            if (!eval(el, e->kids[i]).ok)
                return true;
    }
    for (uint32_t i = 0; i < e->n_kids; i++)
        if (has_condition(el, e->kids[i]))
            return true;
    return false;
}

static bool branch_sig(elab *el, const mo__expr *e, int order, vec *sig)
{
    if (has_condition(el, e))
        return false;
    collect(el, sig, e, order, mel__g_true());
    uses_sort_unique(sig);
    return true;
}

/* Whether the branches of the if-expression e from its condition kids[from]
 * on (its values kids[from + 1], kids[from + 3], ..., and the else part)
 * read the same unknowns at the same orders, with no condition inside: then
 * the conditions from kids[from] on select nothing. From a later condition,
 * it is what the nested spelling `else if` asks of the inner if-expression,
 * so that `elseif` and `else if` mean the same structure. */
static bool same_sigs(elab *el, const mo__expr *e, uint32_t from, int order)
{
    vec first = {0}, other = {0};
    bool same = branch_sig(el, e->kids[from + 1], order, &first);
    for (uint32_t i = from + 3; same && i <= e->n_kids; i += 2) {
        /* values: kids[1], kids[3], ..., and the else part kids[n_kids - 1] */
        const mo__expr *b = e->kids[i < e->n_kids - 1 ? i : e->n_kids - 1];
        other.n = 0;
        same = branch_sig(el, b, order, &other) && other.n == first.n;
        for (size_t k = 0; same && k < first.n; k++)
            same = cmp_use_sig(&((use *)first.p)[k], &((use *)other.p)[k]) == 0;
        if (i >= e->n_kids - 1)
            break;
    }
    mdae_free(first.p);
    mdae_free(other.p);
    return same;
}

static bool call_is(const char *f, const char *name) { return f != NULL && strcmp(f, name) == 0; }

/* The constant range a:step:b of a reduction's iterator, at most 100,000
 * values; false when it is not constant (the body's x[i] then name whole
 * arrays) or longer. */
static bool iter_bounds(elab *el, const mo__iter *it, long long *a, long long *b,
                        long long *step)
{
    const mo__expr *r = it->range;
    *step = 1;
    bool ok = r != NULL && r->kind == MO_E_RANGE && eval_int(el, r->kids[0], a) &&
              eval_int(el, r->kids[r->n_kids - 1], b) &&
              (r->n_kids == 2 || eval_int(el, r->kids[1], step)) && *step != 0;
    return ok && (*b - *a) / *step <= 100000;
}

static void collect_iter(elab *el, vec *uses, const mo__expr *e, uint32_t k, int order,
                         const mel_guard *g)
{
    if (k == e->n_iters) {
        for (uint32_t i = 0; i < e->n_kids; i++)
            collect(el, uses, e->kids[i], order, g);
        return;
    }
    const mo__iter *it = &e->iters[k];
    long long a, b, step;
    if (!iter_bounds(el, it, &a, &b, &step)) {
        /* not constant: the body's x[i] name whole arrays */
        collect_iter(el, uses, e, k + 1, order, g);
        return;
    }
    env frame = {it->name, a, el->env};
    const env *save = el->env;
    el->env = &frame;
    for (long long i = a; step > 0 ? i <= b : i >= b; i += step) {
        if (!charge(el, 1, e->where))
            break;
        frame.value = i;
        collect_iter(el, uses, e, k + 1, order, g);
    }
    el->env = save;
}

static void collect(elab *el, vec *uses, const mo__expr *e, int order, const mel_guard *g)
{
    if (e == NULL || el->rep->stop)
        return;
    switch ((mo__ek)e->kind) {
    case MO_E_REF:
        use_ref(el, uses, e, order, g);
        for (uint32_t p = 0; p < e->n_parts; p++)
            for (uint32_t k = 0; k < e->parts[p].n_subs; k++)
                if (!eval(el, e->parts[p].subs[k]).ok)
                    collect(el, uses, e->parts[p].subs[k], order, g);
        return;
    case MO_E_DER:
        if (order >= MEL_MAX_ORDER) {
            err(el, MDAE_E_LIMIT, e->where, "derivative order above %d", MEL_MAX_ORDER);
            return;
        }
        collect(el, uses, e->kids[0], order + 1, g);
        return;
    case MO_E_IF: {
        if (e->n_kids > 2 * MAX_CHAIN) {
            err(el, MDAE_E_LIMIT, e->where, "if-expression with more than %d branches",
                MAX_CHAIN);
            return;
        }
        /* constant conditions select a branch now */
        bool all_const = true;
        for (uint32_t i = 0; i + 1 < e->n_kids; i += 2) {
            value v = eval(el, e->kids[i]);
            if (!v.ok) {
                all_const = false;
                break;
            }
            if (v.v != 0) {
                collect(el, uses, e->kids[i + 1], order, g);
                return;
            }
        }
        if (all_const) {
            collect(el, uses, e->kids[e->n_kids - 1], order, g);
            return;
        }
        if (same_sigs(el, e, 0, order)) {
            collect(el, uses, e->kids[1], order, g);
            return;
        }
        const mel_guard *rest = g;
        for (uint32_t i = 0; i + 1 < e->n_kids; i += 2) {
            if (i > 0 && same_sigs(el, e, i, order)) {
                /* the rest of the chain selects nothing (same_sigs) */
                collect(el, uses, e->kids[i + 1], order, rest);
                return;
            }
            const mel_guard *c = atomize(el, e->kids[i]);
            collect(el, uses, e->kids[i + 1], order, mel__g_and(&el->gf, rest, c));
            rest = mel__g_and(&el->gf, rest, mel__g_not(&el->gf, c));
        }
        collect(el, uses, e->kids[e->n_kids - 1], order, rest);
        return;
    }
    case MO_E_CALL: {
        const char *f = plain_name(e);
        if (call_is(f, "pre") || call_is(f, "last") || call_is(f, "edge") ||
            call_is(f, "change") || call_is(f, "initial") || call_is(f, "terminal") ||
            call_is(f, "sample") || call_is(f, "size") || call_is(f, "ndims") ||
            call_is(f, "delay") || call_is(f, "String") || call_is(f, "cardinality") ||
            call_is(f, "getInstanceName") || call_is(f, "hold"))
            return; /* left limits, events, delayed and clocked values: not incident */
        if (f != NULL && is_clocked(f)) {
            err(el, MDAE_E_MODEL, e->where,
                "clocked partitions are not supported: '%s' (the analysis covers the "
                "continuous-time part)", f);
            return;
        }
        if (call_is(f, "reinit") || call_is(f, "assert") || call_is(f, "terminate"))
            return;
        if (f != NULL && find(&el->vars_by_name, f) >= 0) {
            /* a component called as a function (the fuzzer's 'i1'('x')):
             * as MEL says, rather than an uninterpreted function that
             * shadows a declaration */
            err(el, MDAE_E_MODEL, e->where, "'%s' is not a function", f);
            return;
        }
        if (call_is(f, "homotopy") && e->n_kids >= 1) {
            /* the actual expression (first or `actual =`) is what is solved */
            for (uint32_t i = 0; i < e->n_kids; i++)
                if ((e->names && e->names[i] && strcmp(e->names[i], "actual") == 0) ||
                    ((e->names == NULL || e->names[i] == NULL) && i == 0)) {
                    collect(el, uses, e->kids[i], order, g);
                    return;
                }
            return;
        }
        if (call_is(f, "smooth") && e->n_kids == 2) {
            collect(el, uses, e->kids[1], order, g);
            return;
        }
        if (e->n_iters > 0) {
            collect_iter(el, uses, e, 0, order, g);
            return;
        }
        for (uint32_t i = 0; i < e->n_kids; i++)
            collect(el, uses, e->kids[i], order, g);
        if (f == NULL && e->n_parts == 1 && strcmp(e->parts[0].name, "[]") == 0)
            for (uint32_t k = 0; k < e->parts[0].n_subs; k++)
                collect(el, uses, e->parts[0].subs[k], order, g);
        return;
    }
    case MO_E_ARRAY:
        if (e->n_iters > 0) {
            collect_iter(el, uses, e, 0, order, g);
            return;
        }
        /* fall through */
    default:
        for (uint32_t i = 0; i < e->n_kids; i++)
            collect(el, uses, e->kids[i], order, g);
        return;
    }
}

/* ---- expressions (issue 38) -----------------------------------------------------------
 * Every continuous equation instance is lowered into an fx tree (engine/fx.h)
 * in the model's pool, in the environment of its instance (loop indices are
 * numbers), mirroring collect() so that the unknowns a tree reads are its
 * incidences:
 *  - a reference: an unknown FX_VAR (der(x): order 1; der of anything else
 *    FX_DER), a parameter or constant FX_KNOWN, a loop index or an
 *    enumeration literal FX_NUM (the literal's ordinal, 1-based, as eval
 *    reads it); another variable (discrete, input, Integer, String) is an
 *    FX_OPAQUE with its name and no references (it is no unknown);
 *  - an if-expression whose conditions the elaborator decides (parameters
 *    with values) keeps only the branch it selects, as collect does;
 *  - pre(e) FX_PRE; noEvent, smooth, homotopy and the known functions
 *    (fx_fn_lookup) FX_CALL (homotopy's simplified expression an FX_OPAQUE
 *    reading nothing, as collect; noEvent(c) in a condition is c, as
 *    atomize); Integer(e) is e; sum/product/min/max of a
 *    vector or over a constant range are scalarised; other functions with
 *    one scalar output (or not declared in the file) FX_FN_UNKNOWN calls;
 *    initial(), edge(b)... as unknown calls when they read no unknown;
 *    (f(x))[i, j] and (f(x)).h, an element or a field of a function's
 *    array or record result, the unknown functions "f()[i,j]", "f().h";
 *    vectors' elementwise arithmetic in a scalar product v * w expanded;
 *  - what is not scalarised (arrays, records, ranges, strings, matrix
 *    products, named arguments, delay(), change(), functions with array or
 *    several outputs...) is an FX_OPAQUE: its normalised text and the
 *    unknowns it reads as collect() reads them.
 * Conditions: a relation, a Boolean variable, and in a condition any other
 * atom (pre(b), initial(), a Boolean function) is a *site*: after step 5,
 * if its atom became a mode variable, it is replaced by FX_MODE (FX_NOT of
 * it when the atom stands for the negation; site_repls, patch). The mode
 * variables' definitions (mel_mode.def) are lowered where they are met: a
 * Boolean's `b = E` at that equation, a relation or another atom at its
 * first occurrence.
 * With mel_options.no_expressions too: the structure is read from the trees
 * (step 7), which are dropped afterwards (mel__drop_expressions). */

static long find_class(elab *el, const char *name);
static vtype type_of(elab *el, const char *type, const mo__class **enum_type, int depth);

typedef enum site_kind { SITE_VAR, SITE_REL, SITE_TEXT } site_kind;

typedef struct site {
    const fx_node *node;
    const mo__expr *src; /* SITE_REL, SITE_TEXT */
    const char *key;     /* SITE_VAR: the Boolean's name */
    site_kind kind;
} site;

static const fx_node *lw(elab *el, const mo__expr *e, bool cond);
static bool is_array_valued(elab *el, const mo__expr *e);
typedef enum shape { SH_SCALAR, SH_VECTOR, SH_ARRAY } shape;
static const fx_node *lw_dot(elab *el, const mo__expr *e);

static void add_site(elab *el, const fx_node *node, site_kind kind, const mo__expr *src,
                     const char *key)
{
    if (node == NULL)
        return;
    site *st = vec_push(el, &el->sites, sizeof *st);
    if (st != NULL)
        *st = (site){node, src, key, kind};
}

static void gather(elab *el, const mo__expr *e, int order, vec *refs);

static void gather_iter(elab *el, const mo__expr *e, uint32_t k, int order, vec *refs)
{
    if (k == e->n_iters) {
        for (uint32_t i = 0; i < e->n_kids; i++)
            gather(el, e->kids[i], order, refs);
        return;
    }
    const mo__iter *it = &e->iters[k];
    long long a, b, step;
    if (!iter_bounds(el, it, &a, &b, &step)) {
        gather_iter(el, e, k + 1, order, refs);
        return;
    }
    env frame = {it->name, a, el->env};
    const env *save = el->env;
    el->env = &frame;
    for (long long i = a; step > 0 ? i <= b : i >= b; i += step) {
        frame.value = i;
        gather_iter(el, e, k + 1, order, refs);
    }
    el->env = save;
}

/* The unknowns e reads, as collect() finds them (without guards, charges
 * or reports), into refs (use.var, use.order). */
static void gather(elab *el, const mo__expr *e, int order, vec *refs)
{
    if (e == NULL || el->rep->stop)
        return;
    switch ((mo__ek)e->kind) {
    case MO_E_REF: {
        bool whole;
        long i = resolve(el, e, &whole, true);
        size_t n = i < 0 ? 0 : whole ? el->multi.n : 1;
        for (size_t j = 0; j < n; j++) {
            mvar *v = VAR(el, whole ? ((long *)el->multi.p)[j] : i);
            use *u = v->unknown >= 0 ? vec_push(el, refs, sizeof *u) : NULL;
            if (u != NULL)
                *u = (use){.var = (uint32_t)v->unknown, .order = order, .where = e->where};
        }
        for (uint32_t p = 0; p < e->n_parts; p++)
            for (uint32_t k = 0; k < e->parts[p].n_subs; k++)
                if (!eval(el, e->parts[p].subs[k]).ok)
                    gather(el, e->parts[p].subs[k], order, refs);
        return;
    }
    case MO_E_DER:
        if (order < MEL_MAX_ORDER)
            gather(el, e->kids[0], order + 1, refs);
        return;
    case MO_E_IF:
        /* the branches collect() reaches: decided conditions select */
        for (uint32_t i = 0; i + 1 < e->n_kids; i += 2) {
            value v = eval(el, e->kids[i]);
            if (v.ok && v.v == 0)
                continue;
            gather(el, e->kids[i + 1], order, refs);
            if (v.ok)
                return;
        }
        gather(el, e->kids[e->n_kids - 1], order, refs);
        return;
    case MO_E_CALL: {
        const char *f = plain_name(e);
        if (call_is(f, "pre") || call_is(f, "last") || call_is(f, "edge") ||
            call_is(f, "change") || call_is(f, "initial") || call_is(f, "terminal") ||
            call_is(f, "sample") || call_is(f, "size") || call_is(f, "ndims") ||
            call_is(f, "delay") || call_is(f, "String") || call_is(f, "cardinality") ||
            call_is(f, "getInstanceName") || call_is(f, "hold") || call_is(f, "reinit") ||
            call_is(f, "assert") || call_is(f, "terminate") || (f != NULL && is_clocked(f)))
            return;
        if (call_is(f, "homotopy") && e->n_kids >= 1) {
            for (uint32_t i = 0; i < e->n_kids; i++)
                if ((e->names && e->names[i] && strcmp(e->names[i], "actual") == 0) ||
                    ((e->names == NULL || e->names[i] == NULL) && i == 0)) {
                    gather(el, e->kids[i], order, refs);
                    return;
                }
            return;
        }
        if (call_is(f, "smooth") && e->n_kids == 2) {
            gather(el, e->kids[1], order, refs);
            return;
        }
        if (e->n_iters > 0) {
            gather_iter(el, e, 0, order, refs);
            return;
        }
        for (uint32_t i = 0; i < e->n_kids; i++)
            gather(el, e->kids[i], order, refs);
        if (f == NULL && e->n_parts == 1 && strcmp(e->parts[0].name, "[]") == 0)
            for (uint32_t k = 0; k < e->parts[0].n_subs; k++)
                gather(el, e->parts[0].subs[k], order, refs);
        return;
    }
    case MO_E_ARRAY:
        if (e->n_iters > 0) {
            gather_iter(el, e, 0, order, refs);
            return;
        }
        /* fall through */
    default:
        for (uint32_t i = 0; i < e->n_kids; i++)
            gather(el, e->kids[i], order, refs);
        return;
    }
}

/* FX_OPAQUE(text) reading the unknowns of rs (use.var, use.order: sorted
 * and deduplicated here). */
static const fx_node *opaque_of(elab *el, const char *text, vec *rs, mdae_range where)
{
    uses_sort_unique(rs);
    const fx_node **kids = rs->n ? mdae_malloc(rs->n * sizeof *kids) : NULL;
    const fx_node *r = NULL;
    if (rs->n == 0 || kids != NULL) {
        const use *u = rs->p;
        for (size_t i = 0; i < rs->n; i++)
            kids[i] = fx_var(el->fx, u[i].var, (uint32_t)u[i].order, u[i].where);
        r = fx_opaque(el->fx, text, kids, (uint32_t)rs->n, where);
    } else {
        mel__nomem(el->rep);
    }
    mdae_free(kids);
    return r;
}

/* e kept as text: FX_OPAQUE with the unknowns it reads (refs: false, none). */
/* mo__print_hook.ref of a text the flat model keeps: an enumeration
 * literal as its ordinal (as eval reads it), since the flat model keeps no
 * enumeration type that would let the printed text read it back as a
 * literal (docs/convert.md). */
static bool literal_ordinal(void *ctx, mdae_buf *b, const mo__expr *e)
{
    long k = enum_literal(ctx, e);
    if (k <= 0)
        return false;
    char d[MDAE_INT_CHARS + 1];
    d[mdae_put_int(d, k)] = '\0';
    mdae_buf_puts(b, d);
    return true;
}

static const fx_node *lw_opaque(elab *el, const mo__expr *e, bool refs)
{
    const mo__print_hook ordinals = {literal_ordinal, el};
    const char *text = expr_text_hooked(el, e, &ordinals);
    if (text == NULL)
        return NULL;
    vec rs = {0};
    if (refs)
        gather(el, e, 0, &rs);
    const fx_node *r = opaque_of(el, text, &rs, e->where);
    mdae_free(rs.p);
    return r;
}

/* A scalar instance (variable i) read at e's place. */
static const fx_node *lw_instance(elab *el, long i, mdae_range where)
{
    mvar *v = VAR(el, i);
    if (v->unknown >= 0)
        return fx_var(el->fx, (uint32_t)v->unknown, 0, where);
    const fx_node *r;
    if (v->known >= 0) {
        r = fx_known(el->fx, (uint32_t)v->known, where);
    } else {
        const char *name = v->name;
        r = fx_opaque(el->fx, name, NULL, 0, where);
    }
    if (v->type == T_BOOL)
        add_site(el, r, SITE_VAR, NULL, v->name);
    return r;
}

static const fx_node *lw_ref(elab *el, const mo__expr *e)
{
    const char *pn = plain_name(e);
    if (pn != NULL)
        for (const env *x = el->env; x != NULL; x = x->parent)
            if (strcmp(x->name, pn) == 0)
                return fx_num(el->fx, (double)x->value, true, e->where);
    long lit = enum_literal(el, e);
    if (lit > 0)
        return fx_num(el->fx, (double)lit, true, e->where);
    bool whole;
    long i = resolve(el, e, &whole, true);
    if (i < 0 || whole)
        return lw_opaque(el, e, true);
    return lw_instance(el, i, e->where);
}

static const fx_node *lw_der(elab *el, const mo__expr *e)
{
    const fx_node *k = lw(el, e->kids[0], false);
    if (k == NULL)
        return NULL;
    if (k->op == FX_VAR && k->order < MEL_MAX_ORDER)
        return fx_var(el->fx, k->index, k->order + 1u, k->where); /* at the name's use */
    if (k->op == FX_OPAQUE)
        return lw_opaque(el, e, true); /* its references one order up */
    return fx_un(el->fx, FX_DER, k, e->where);
}

/* A chain of kids[0] op1 kids[1] op2 ... (e->str: the operators, else e->op). */
static const fx_node *lw_chain(elab *el, const mo__expr *e, const fx_node **k)
{
    const uint8_t *ops = (const uint8_t *)e->str;
    uint8_t op1 = ops ? ops[1] : e->op;
    fx_pool *p = el->fx;
    uint32_t n = e->n_kids;
    switch (op1) {
    case MO_T_PLUS: case MO_T_DPLUS: case MO_T_MINUS: case MO_T_DMINUS:
        for (uint32_t i = 1; i < n; i++) {
            uint8_t op = ops ? ops[i] : e->op;
            if (op == MO_T_MINUS || op == MO_T_DMINUS)
                k[i] = fx_un(p, FX_NEG, k[i], e->kids[i]->where);
        }
        return fx_make(p, FX_ADD, k, n, e->where);
    case MO_T_STAR: case MO_T_DSTAR: case MO_T_SLASH: case MO_T_DSLASH: {
        /* a * b / c * d: MUL(DIV(MUL(a, b), c), d) (fx.h); runs in place */
        uint32_t run = 0; /* k[run..i) is the current product */
        for (uint32_t i = 1; i <= n; i++) {
            uint8_t op = i < n ? (ops ? ops[i] : e->op) : MO_T_SLASH;
            if (op == MO_T_STAR || op == MO_T_DSTAR)
                continue;
            const fx_node *acc =
                i - run > 1 ? fx_make(p, FX_MUL, k + run, i - run, e->where) : k[run];
            if (i == n)
                return acc;
            k[i] = fx_bin(p, FX_DIV, acc, k[i], e->where);
            run = i;
        }
        return NULL;
    }
    case MO_T_CARET: case MO_T_DCARET: {
        const fx_node *acc = k[0];
        for (uint32_t i = 1; i < n; i++)
            acc = fx_bin(p, FX_POW, acc, k[i], e->where);
        return acc;
    }
    default:
        return NULL;
    }
}

/* scalar: e is an operand of arithmetic already known to be scalar. */
static const fx_node *lw_bin(elab *el, const mo__expr *e, bool cond, bool scalar)
{
    if (e->n_kids < 2)
        return lw_opaque(el, e, true);
    if (is_relation(e->op)) {
        if (e->n_kids != 2)
            return lw_opaque(el, e, true);
        static const fx_op rel[] = {[MO_T_LT] = FX_LT, [MO_T_LE] = FX_LE, [MO_T_GT] = FX_GT,
                                    [MO_T_GE] = FX_GE, [MO_T_EQ] = FX_EQ, [MO_T_NE] = FX_NE};
        const fx_node *r = fx_bin(el->fx, rel[e->op], lw(el, e->kids[0], false),
                                  lw(el, e->kids[1], false), e->where);
        if (cond || !el->in_side)
            add_site(el, r, SITE_REL, e, NULL);
        return r;
    }
    bool logic = e->op == MO_T_AND || e->op == MO_T_OR;
    if (!logic) {
        /* a scalar product of arrays (dot) or a matrix operation (opaque) */
        const uint8_t *ops = (const uint8_t *)e->str;
        uint8_t op1 = ops ? ops[1] : e->op;
        bool array = !scalar && is_array_valued(el, e);
        for (uint32_t i = 0; !array && i < e->n_kids && op1 != MO_T_PLUS &&
                             op1 != MO_T_MINUS && op1 != MO_T_DPLUS && op1 != MO_T_DMINUS;
             i++)
            array = is_array_valued(el, e->kids[i]);
        if (array) {
            const fx_node *r = lw_dot(el, e);
            return r != NULL || fx_pool_failed(el->fx) ? r : lw_opaque(el, e, true);
        }
    }
    const fx_node *small[8];
    const fx_node **k = e->n_kids <= 8 ? small : mdae_malloc(e->n_kids * sizeof *k);
    if (k == NULL) {
        mel__nomem(el->rep);
        return NULL;
    }
    for (uint32_t i = 0; i < e->n_kids; i++) {
        el->arith_scalar = !logic;
        k[i] = lw(el, e->kids[i], cond && logic);
    }
    const fx_node *r = logic ? fx_make(el->fx, e->op == MO_T_AND ? FX_AND : FX_OR, k,
                                       e->n_kids, e->where)
                             : lw_chain(el, e, k);
    if (k != small)
        mdae_free(k);
    return r != NULL || fx_pool_failed(el->fx) ? r : lw_opaque(el, e, true);
}

/* A condition that cannot be a Boolean: arithmetic, or a reference to one
 * scalar variable of another type (`if w then` with w a Real: the Modelica
 * fuzzer's; where the condition selects nothing it is no guard, and the
 * MEL printed of it did not read back). */
static bool not_boolean(elab *el, const mo__expr *c)
{
    if (arithmetic(c))
        return true;
    if (c->kind != MO_E_REF)
        return false;
    bool whole;
    long i = resolve(el, c, &whole, true);
    return i >= 0 && !whole && VAR(el, i)->type != T_BOOL;
}

/* if c1 then v1 elseif ... else vn: decided conditions select (as in
 * collect), the rest nests in the else branches. */
static const fx_node *lw_if(elab *el, const mo__expr *e)
{
    uint32_t small[16];
    uint32_t n = 0, last = e->n_kids - 1;
    if (e->n_kids > 2 * MAX_CHAIN + 1)
        return lw_opaque(el, e, true);
    uint32_t *pairs = e->n_kids <= 32 ? small : mdae_malloc(e->n_kids / 2 * sizeof *pairs);
    if (pairs == NULL) {
        mel__nomem(el->rep);
        return NULL;
    }
    for (uint32_t i = 0; i + 1 < e->n_kids; i += 2) {
        if (not_boolean(el, e->kids[i])) /* also where it selects nothing */
            err(el, MDAE_E_MODEL, e->kids[i]->where, "condition '%s' is not a Boolean",
                expr_text(el, e->kids[i]));
        value v = eval(el, e->kids[i]);
        if (v.ok && v.v == 0)
            continue;
        if (v.ok) {
            last = i + 1;
            break;
        }
        pairs[n++] = i;
    }
    const fx_node *acc = lw(el, e->kids[last], false);
    while (n-- > 0) {
        const mo__expr *c = e->kids[pairs[n]];
        acc = fx_if(el->fx, lw(el, c, true), lw(el, e->kids[pairs[n] + 1], false), acc,
                    c->where);
    }
    if (pairs != small)
        mdae_free(pairs);
    return acc;
}

/* The function's name as written ("a.b.c"), NULL if a part is indexed. */
static const char *call_name(elab *el, const mo__expr *e, char *buf, size_t cap)
{
    size_t n = 0;
    for (uint32_t i = 0; i < e->n_parts; i++) {
        if (e->parts[i].n_subs > 0)
            return NULL;
        int w = snprintf(buf + n, cap - n, "%s%s", i ? "." : "", e->parts[i].name);
        if (w < 0 || (size_t)w >= cap - n)
            return NULL;
        n += (size_t)w;
    }
    (void)el;
    return n > 0 ? buf : NULL;
}

/* Whether the function called f (declared in the file) returns one scalar;
 * a function the file does not declare is taken to. */
static bool scalar_function(elab *el, const char *f)
{
    long c = find_class(el, f);
    if (c < 0)
        return true;
    const mo__class *cl = ((const mo__class **)el->classes.p)[c];
    if (cl->kind != MO_C_FUNCTION)
        return false; /* a record constructor */
    uint32_t outputs = 0;
    for (const mo__comp *k = cl->comps; k != NULL; k = k->next) {
        if (!(k->prefixes & MO_P_OUTPUT))
            continue;
        const mo__class *et = NULL;
        vtype t = type_of(el, k->type, &et, 0);
        if (k->n_dims > 0 || (t != T_REAL && t != T_INT && t != T_BOOL && t != T_ENUM))
            return false;
        outputs++;
    }
    return outputs == 1;
}

static bool reads_unknown(const fx_node *e)
{
    if (e == NULL || e->op == FX_VAR)
        return e != NULL;
    if (e->op == FX_PRE)
        return false;
    for (uint32_t i = 0; i < e->n; i++)
        if (reads_unknown(e->kids[i]))
            return true;
    return false;
}

/* sum(e for i in r), product, min, max of a vector or over constant
 * ranges: the terms, or NULL when not scalarised. */
static const fx_node *lw_reduce(elab *el, const mo__expr *e, const char *f);

/* (f(a, b)).h, a field of a record result: the unknown function named
 * "f().h" of a and b; NULL when not that form. */
static const fx_node *lw_field(elab *el, const mo__expr *e)
{
    char buf[1024], name[1200];
    const mo__expr *c = e->kids[0];
    const char *f = c->kind == MO_E_CALL ? call_name(el, c, buf, sizeof buf) : NULL;
    if (f == NULL || c->names != NULL || c->n_iters > 0 || c->n_kids > 64 || e->str == NULL ||
        strcmp(f, ".") == 0 || strcmp(f, "[]") == 0)
        return NULL;
    snprintf(name, sizeof name, "%s().%s", f, e->str);
    const fx_node *k[64];
    for (uint32_t i = 0; i < c->n_kids; i++)
        k[i] = lw(el, c->kids[i], false);
    return fx_call(el->fx, FX_FN_UNKNOWN, name, k, c->n_kids, e->where);
}

/* (f(a, b))[i, j] with constant subscripts, an element of a call's array
 * result: the unknown function named "f()[i,j]" of a and b; NULL
 * otherwise ({a, b, c}[i] too: collect reads all of the array). */
static const fx_node *lw_index(elab *el, const mo__expr *e)
{
    const mo__part *part = &e->parts[0];
    const mo__expr *c = e->kids[0];
    long long ix[8];
    if (part->n_subs == 0 || part->n_subs > 8)
        return NULL;
    for (uint32_t k = 0; k < part->n_subs; k++)
        if (!eval_int(el, part->subs[k], &ix[k]))
            return NULL;
    char buf[1024], name[1300];
    const char *f = c->kind == MO_E_CALL ? call_name(el, c, buf, sizeof buf) : NULL;
    if (f == NULL || c->names != NULL || c->n_iters > 0 || c->n_kids > 64 ||
        strcmp(f, ".") == 0 || strcmp(f, "[]") == 0 || fx_fn_lookup(f, c->n_kids) != FX_FN_UNKNOWN)
        return NULL;
    size_t n = (size_t)snprintf(name, sizeof name, "%s()", f);
    for (uint32_t k = 0; k < part->n_subs && n < sizeof name; k++)
        n += (size_t)snprintf(name + n, sizeof name - n, "%s%lld", k ? "," : "[", ix[k]);
    if (n + 2 >= sizeof name)
        return NULL;
    memcpy(name + n, "]", 2);
    const fx_node *k[64];
    for (uint32_t i = 0; i < c->n_kids; i++)
        k[i] = lw(el, c->kids[i], false);
    return fx_call(el->fx, FX_FN_UNKNOWN, name, k, c->n_kids, e->where);
}

static const fx_node *lw_call(elab *el, const mo__expr *e, bool cond)
{
    char buf[1024];
    if (e->n_parts == 1 && strcmp(e->parts[0].name, "[]") == 0 && e->n_kids == 1) {
        const fx_node *r = lw_index(el, e);
        return r != NULL || fx_pool_failed(el->fx) ? r : lw_opaque(el, e, true);
    }
    const char *f = call_name(el, e, buf, sizeof buf);
    if (call_is(f, "homotopy") && e->n_kids == 2 && e->names != NULL) {
        /* homotopy(actual = a, simplified = s): positional */
        const mo__expr *act = NULL, *simp = NULL;
        for (uint32_t i = 0; i < 2; i++) {
            const char *nm = e->names[i];
            if (nm == NULL ? i == 0 : strcmp(nm, "actual") == 0)
                act = e->kids[i];
            else if (nm == NULL || strcmp(nm, "simplified") == 0)
                simp = e->kids[i];
        }
        if (act != NULL && simp != NULL)
            return fx_call(el->fx, FX_FN_HOMOTOPY, NULL,
                           (const fx_node *[]){lw(el, act, false), lw_opaque(el, simp, false)},
                           2, e->where);
    }
    if (f != NULL && strcmp(f, ".") == 0 && e->n_kids == 1) {
        const fx_node *r = lw_field(el, e);
        return r != NULL || fx_pool_failed(el->fx) ? r : lw_opaque(el, e, true);
    }
    if (f == NULL || e->names != NULL)
        return lw_opaque(el, e, true);
    fx_pool *p = el->fx;
    uint32_t n = e->n_kids;
    if (call_is(f, "noEvent") && n == 1 && cond)
        return lw(el, e->kids[0], true); /* as atomize: the condition's atoms */
    if (call_is(f, "noEvent") && n == 1)
        return fx_call(p, FX_FN_NOEVENT, NULL, (const fx_node *[]){lw(el, e->kids[0], cond)},
                       1, e->where);
    const fx_node *r = NULL;
    if (e->n_iters > 0 || ((call_is(f, "sum") || call_is(f, "product") || call_is(f, "min") ||
                            call_is(f, "max")) && n == 1)) {
        r = lw_reduce(el, e, f);
        return r != NULL || fx_pool_failed(p) ? r : lw_opaque(el, e, true);
    }
    if (call_is(f, "homotopy") && n == 2)
        /* the simplified expression is not solved (collect): its text */
        return fx_call(p, FX_FN_HOMOTOPY, NULL,
                       (const fx_node *[]){lw(el, e->kids[0], false),
                                           lw_opaque(el, e->kids[1], false)},
                       2, e->where);
    if (call_is(f, "pre") && n == 1)
        r = fx_un(p, FX_PRE, lw(el, e->kids[0], false), e->where);
    else if (call_is(f, "Integer") && n == 1)
        return lw(el, e->kids[0], false); /* an enumeration's ordinal is its value */
    else if (call_is(f, "reinit") || call_is(f, "assert") || call_is(f, "terminate") ||
             is_clocked(f) || call_is(f, "delay") || call_is(f, "change") ||
             call_is(f, "sample") || call_is(f, "String") || call_is(f, "size") ||
             call_is(f, "ndims") || call_is(f, "cardinality") ||
             call_is(f, "getInstanceName") || call_is(f, "last"))
        r = lw_opaque(el, e, false); /* not incident (collect) */
    else if (n > 64 || (fx_fn_lookup(f, n) == FX_FN_UNKNOWN && !scalar_function(el, f)))
        r = lw_opaque(el, e, true);
    else {
        const fx_node *k[64];
        for (uint32_t i = 0; i < n; i++)
            k[i] = lw(el, e->kids[i], false);
        fx_fn fn = fx_fn_lookup(f, n);
        r = fx_call(p, fn, f, k, n, e->where);
        if (r != NULL && (call_is(f, "initial") || call_is(f, "terminal") ||
                          call_is(f, "edge")) && reads_unknown(r))
            r = lw_opaque(el, e, false);
    }
    if (cond) /* an atom by its text (atomize) */
        add_site(el, r, SITE_TEXT, e, NULL);
    return r;
}

static void reduce_terms(elab *el, const mo__expr *e, uint32_t k, vec *terms, bool *ok)
{
    if (!*ok || el->rep->stop)
        return;
    if (k == e->n_iters) {
        const fx_node **t = vec_push(el, terms, sizeof *t);
        if (t == NULL || terms->n > 100000) {
            *ok = false;
            return;
        }
        *t = lw(el, e->kids[0], false);
        return;
    }
    const mo__iter *it = &e->iters[k];
    long long a, b, step = 1;
    const mo__expr *r = it->range;
    *ok = r != NULL && r->kind == MO_E_RANGE && eval_int(el, r->kids[0], &a) &&
          eval_int(el, r->kids[r->n_kids - 1], &b) &&
          (r->n_kids == 2 || eval_int(el, r->kids[1], &step)) && step != 0 &&
          (b - a) / step <= 100000;
    if (!*ok)
        return;
    env frame = {it->name, a, el->env};
    const env *save = el->env;
    el->env = &frame;
    for (long long i = a; *ok && (step > 0 ? i <= b : i >= b); i += step) {
        frame.value = i;
        reduce_terms(el, e, k + 1, terms, ok);
    }
    el->env = save;
}

static bool lw_vector(elab *el, const mo__expr *a, vec *terms);

/* Elementwise arithmetic of vectors (lw_vector): a + b - c of vectors of
 * one length, s * v, v * s, v / s, -v, if c then v else w. */
static bool lw_vector_op(elab *el, const mo__expr *a, vec *terms)
{
    const uint8_t *ops = (const uint8_t *)a->str;
    fx_pool *p = el->fx;
    if (a->kind == MO_E_UN && (a->op == MO_T_MINUS || a->op == MO_T_PLUS)) {
        if (!lw_vector(el, a->kids[0], terms))
            return false;
        for (size_t i = 0; a->op == MO_T_MINUS && i < terms->n; i++)
            ((const fx_node **)terms->p)[i] =
                fx_un(p, FX_NEG, ((const fx_node **)terms->p)[i], a->where);
        return true;
    }
    if (a->kind == MO_E_IF && a->n_kids == 3) {
        vec t = {0}, f = {0};
        bool ok = lw_vector(el, a->kids[1], &t) && lw_vector(el, a->kids[2], &f) && t.n == f.n;
        for (size_t i = 0; ok && i < t.n; i++) {
            const fx_node **slot = vec_push(el, terms, sizeof *slot);
            ok = slot != NULL;
            if (ok)
                *slot = fx_if(p, lw(el, a->kids[0], true), ((const fx_node **)t.p)[i],
                              ((const fx_node **)f.p)[i], a->kids[0]->where);
        }
        mdae_free(t.p);
        mdae_free(f.p);
        return ok;
    }
    if (a->kind != MO_E_BIN || a->n_kids != 2 || is_relation(a->op) || a->op == MO_T_AND ||
        a->op == MO_T_OR)
        return false;
    uint8_t op = ops ? ops[1] : a->op;
    vec l = {0}, r = {0};
    bool ok, lv = is_array_valued(el, a->kids[0]), rv = is_array_valued(el, a->kids[1]);
    const fx_node *scalar = NULL;
    if (op == MO_T_PLUS || op == MO_T_MINUS || op == MO_T_DPLUS || op == MO_T_DMINUS)
        ok = lv && rv && lw_vector(el, a->kids[0], &l) && lw_vector(el, a->kids[1], &r) &&
             l.n == r.n;
    else if (op == MO_T_STAR || op == MO_T_DSTAR)
        ok = lv != rv && lw_vector(el, a->kids[lv ? 0 : 1], &l) &&
             (scalar = lw(el, a->kids[lv ? 1 : 0], false)) != NULL;
    else if (op == MO_T_SLASH || op == MO_T_DSLASH)
        ok = lv && !rv && lw_vector(el, a->kids[0], &l) &&
             (scalar = lw(el, a->kids[1], false)) != NULL;
    else
        ok = false;
    const fx_node **tl = l.p, **tr = r.p;
    for (size_t i = 0; ok && i < l.n; i++) {
        const fx_node *x;
        if (scalar == NULL)
            x = fx_make(p, FX_ADD,
                        (const fx_node *[]){tl[i], op == MO_T_PLUS || op == MO_T_DPLUS
                                                       ? tr[i] : fx_un(p, FX_NEG, tr[i], a->where)},
                        2, a->where);
        else if (op == MO_T_SLASH || op == MO_T_DSLASH)
            x = fx_bin(p, FX_DIV, tl[i], scalar, a->where);
        else
            x = fx_bin(p, FX_MUL, lv ? tl[i] : scalar, lv ? scalar : tl[i], a->where);
        const fx_node **slot = vec_push(el, terms, sizeof *slot);
        ok = slot != NULL;
        if (ok)
            *slot = x;
    }
    mdae_free(l.p);
    mdae_free(r.p);
    return ok;
}

/* The elements of a vector written {a, b, c} or named whole (x, not a
 * matrix or a record), or elementwise arithmetic of such (lw_vector_op),
 * lowered, into terms; false otherwise. */
static bool lw_vector(elab *el, const mo__expr *a, vec *terms)
{
    bool ok = true;
    if (a->kind == MO_E_UN || a->kind == MO_E_BIN || a->kind == MO_E_IF)
        return lw_vector_op(el, a, terms);
    if (a->kind == MO_E_ARRAY && a->n_iters == 0) {
        for (uint32_t i = 0; ok && i < a->n_kids; i++) {
            ok = a->kids[i]->kind != MO_E_ARRAY && a->kids[i]->kind != MO_E_MATRIX;
            const fx_node **t = ok ? vec_push(el, terms, sizeof *t) : NULL;
            ok = t != NULL;
            if (ok)
                *t = lw(el, a->kids[i], false);
        }
        return ok;
    }
    if (a->kind != MO_E_REF)
        return false;
    bool whole;
    long i = resolve(el, a, &whole, true);
    ok = i >= 0 && whole;
    size_t n = ok ? el->multi.n : 0;
    long *elems = n ? mdae_malloc(n * sizeof *elems) : NULL;
    ok = ok && elems != NULL;
    if (ok)
        memcpy(elems, el->multi.p, n * sizeof *elems);
    for (size_t j = 0; ok && j < n; j++) {
        mvar *v = VAR(el, elems[j]);
        const char *lb = strrchr(v->name, '[');
        ok = lb != NULL && strchr(lb, ',') == NULL && strchr(lb, '.') == NULL;
        const fx_node **t = ok ? vec_push(el, terms, sizeof *t) : NULL;
        ok = t != NULL;
        if (ok)
            *t = lw_instance(el, elems[j], a->where);
    }
    mdae_free(elems);
    return ok;
}

/* The shape of e's value as far as the file says: a scalar, a vector
 * lw_vector reads ({a, b} of scalars, x named whole with elements x[i],
 * and elementwise arithmetic of such), or another array or record. One
 * walk of e. */
static shape shape_of(elab *el, const mo__expr *e)
{
    switch ((mo__ek)e->kind) {
    case MO_E_ARRAY:
        for (uint32_t i = 0; i < e->n_kids; i++)
            if (shape_of(el, e->kids[i]) != SH_SCALAR)
                return SH_ARRAY;
        return e->n_iters == 0 ? SH_VECTOR : SH_ARRAY;
    case MO_E_MATRIX: case MO_E_RANGE: case MO_E_TUPLE:
        return SH_ARRAY;
    case MO_E_REF: {
        bool whole;
        long i = resolve(el, e, &whole, true);
        if (i < 0 || !whole)
            return SH_SCALAR;
        for (size_t j = 0; j < el->multi.n; j++) {
            const char *lb = strrchr(VAR(el, ((long *)el->multi.p)[j])->name, '[');
            if (lb == NULL || strchr(lb, ',') != NULL || strchr(lb, '.') != NULL)
                return SH_ARRAY;
        }
        return SH_VECTOR;
    }
    case MO_E_UN:
    case MO_E_DER:
        return shape_of(el, e->kids[0]);
    case MO_E_IF: {
        shape a = shape_of(el, e->kids[1]);
        if (a == SH_VECTOR && (e->n_kids != 3 || shape_of(el, e->kids[2]) != SH_VECTOR))
            return SH_ARRAY;
        return a;
    }
    case MO_E_BIN: {
        if (is_relation(e->op) || e->op == MO_T_AND || e->op == MO_T_OR)
            return SH_SCALAR;
        const uint8_t *ops = (const uint8_t *)e->str;
        uint8_t op = ops ? ops[1] : e->op;
        shape k[2];
        bool all_scalar = true;
        for (uint32_t i = 0; i < e->n_kids; i++) {
            shape h = shape_of(el, e->kids[i]);
            if (i < 2)
                k[i] = h;
            all_scalar = all_scalar && h == SH_SCALAR;
        }
        if (all_scalar)
            return SH_SCALAR;
        if (e->n_kids != 2 || k[0] == SH_ARRAY || k[1] == SH_ARRAY)
            return SH_ARRAY;
        if (op == MO_T_PLUS || op == MO_T_MINUS || op == MO_T_DPLUS || op == MO_T_DMINUS)
            return k[0] == k[1] ? SH_VECTOR : SH_ARRAY;
        if (op == MO_T_STAR || op == MO_T_DSTAR)
            return k[0] == k[1] ? SH_SCALAR : SH_VECTOR; /* v * w: the scalar product */
        if (op == MO_T_SLASH || op == MO_T_DSLASH)
            return k[1] == SH_SCALAR ? SH_VECTOR : SH_ARRAY;
        return SH_ARRAY;
    }
    case MO_E_CALL: {
        char buf[1024];
        const char *f = call_name(el, e, buf, sizeof buf);
        if (f == NULL || e->n_iters > 0 || (e->n_kids == 1 && (call_is(f, "sum") ||
                                                                call_is(f, "product") ||
                                                                call_is(f, "min") ||
                                                                call_is(f, "max"))))
            return SH_SCALAR;
        if (call_is(f, "fill") || call_is(f, "zeros") || call_is(f, "ones") ||
            call_is(f, "cat") || call_is(f, "vector") || call_is(f, "matrix") ||
            call_is(f, "transpose") || call_is(f, "cross") || call_is(f, "skew") ||
            call_is(f, "identity") || call_is(f, "diagonal") || call_is(f, "linspace") ||
            call_is(f, "array") || call_is(f, "outerProduct") || call_is(f, "symmetric"))
            return SH_ARRAY;
        if (call_is(f, "noEvent") && e->n_kids == 1)
            return shape_of(el, e->kids[0]);
        return fx_fn_lookup(f, e->n_kids) == FX_FN_UNKNOWN && !scalar_function(el, f)
                   ? SH_ARRAY : SH_SCALAR;
    }
    default:
        return SH_SCALAR;
    }
}

static bool is_array_valued(elab *el, const mo__expr *e)
{
    return shape_of(el, e) != SH_SCALAR;
}

/* a * b of two vectors of the same length: the scalar product; NULL
 * when not both are vectors lw_vector reads. */
static const fx_node *lw_dot(elab *el, const mo__expr *e)
{
    const uint8_t *ops = (const uint8_t *)e->str;
    if (e->n_kids != 2 || (ops ? ops[1] : e->op) != MO_T_STAR)
        return NULL;
    vec a = {0}, b = {0};
    const fx_node *r = NULL;
    if (lw_vector(el, e->kids[0], &a) && lw_vector(el, e->kids[1], &b) && a.n == b.n &&
        a.n > 0) {
        const fx_node **ta = a.p, **tb = b.p;
        for (size_t i = 0; i < a.n; i++)
            ta[i] = fx_bin(el->fx, FX_MUL, ta[i], tb[i], e->where);
        r = a.n == 1 ? ta[0] : fx_make(el->fx, FX_ADD, ta, (uint32_t)a.n, e->where);
    }
    mdae_free(a.p);
    mdae_free(b.p);
    return r;
}

static const fx_node *lw_reduce(elab *el, const mo__expr *e, const char *f)
{
    if (e->n_kids != 1)
        return NULL;
    vec terms = {0};
    bool ok = true;
    const mo__expr *a = e->kids[0];
    if (e->n_iters > 0) {
        reduce_terms(el, e, 0, &terms, &ok);
    } else if (a->kind == MO_E_ARRAY && a->n_iters > 0 && a->n_kids == 1) {
        reduce_terms(el, a, 0, &terms, &ok); /* sum({e for i in r}) */
    } else {
        ok = lw_vector(el, a, &terms);
    }
    const fx_node *r = NULL;
    const fx_node **t = terms.p;
    fx_pool *p = el->fx;
    if (ok && terms.n == 0)
        r = call_is(f, "sum") ? fx_num(p, 0, true, e->where)
            : call_is(f, "product") ? fx_num(p, 1, true, e->where) : NULL;
    else if (ok && terms.n == 1)
        r = t[0];
    else if (ok && (call_is(f, "sum") || call_is(f, "product")))
        r = fx_make(p, call_is(f, "sum") ? FX_ADD : FX_MUL, t, (uint32_t)terms.n, e->where);
    else if (ok && (call_is(f, "min") || call_is(f, "max"))) {
        r = t[0];
        for (size_t i = 1; i < terms.n; i++)
            r = fx_call(p, call_is(f, "min") ? FX_FN_MIN : FX_FN_MAX, NULL,
                        (const fx_node *[]){r, t[i]}, 2, e->where);
    }
    mdae_free(terms.p);
    return r;
}

/* e as an fx tree in the current environment; cond: e is (part of) a
 * condition, so an atom by text is a site. NULL when the pool fails. */
static const fx_node *lw(elab *el, const mo__expr *e, bool cond)
{
    bool scalar = el->arith_scalar;
    el->arith_scalar = false;
    if (e == NULL || el->fx == NULL || el->rep->stop)
        return NULL;
    fx_pool *p = el->fx;
    switch ((mo__ek)e->kind) {
    case MO_E_NUM:
        return fx_num(p, e->is_int ? (double)e->ival : e->num, e->is_int, e->where);
    case MO_E_BOOL:
        return fx_bool(p, e->ival != 0, e->where);
    case MO_E_TIME:
        return fx_time(p, e->where);
    case MO_E_END:
        return el->end_value > 0 ? fx_num(p, (double)el->end_value, true, e->where)
                                 : lw_opaque(el, e, false);
    case MO_E_REF:
        return lw_ref(el, e);
    case MO_E_DER:
        return lw_der(el, e);
    case MO_E_UN:
        if (e->op == MO_T_NOT)
            return fx_un(p, FX_NOT, lw(el, e->kids[0], cond), e->where);
        if (!scalar && is_array_valued(el, e))
            return lw_opaque(el, e, true);
        el->arith_scalar = true;
        if (e->op == MO_T_MINUS || e->op == MO_T_DMINUS)
            return fx_un(p, FX_NEG, lw(el, e->kids[0], false), e->where);
        return lw(el, e->kids[0], cond);
    case MO_E_BIN:
        return lw_bin(el, e, cond, scalar);
    case MO_E_IF:
        return lw_if(el, e);
    case MO_E_CALL:
        return lw_call(el, e, cond);
    default:
        return lw_opaque(el, e, true);
    }
}

/* A side of a scalar equation (its arithmetic is scalar). */
static const fx_node *lw_scalar(elab *el, const mo__expr *e)
{
    el->arith_scalar = true;
    bool saved = el->in_side;
    el->in_side = true;
    const fx_node *r = lw(el, e, false);
    el->in_side = saved;
    return r;
}

/* The definition of atom i (met first as c): the relation or call itself,
 * not a site at the top (it is what the mode variable stands for). */
static void lower_atom_def(elab *el, size_t i, const mo__expr *c)
{
    if (el->fx == NULL)
        return;
    size_t first = el->sites.n;
    const fx_node *d = lw(el, c, false);
    if (el->sites.n > first && ((site *)el->sites.p)[el->sites.n - 1].node == d)
        el->sites.n--; /* the top (a relation registers itself last) */
    atom *a = ATOM(el, i);
    a->def_fx = d;
    a->def_site = first;
    a->def_n_sites = el->sites.n - first;
}

/* ---- replacing the sites whose atom became a mode variable ---- */
typedef struct repl {
    const fx_node *node, *by;
} repl;

static int cmp_repl(const void *x, const void *y)
{
    uintptr_t a = (uintptr_t)((const repl *)x)->node, b = (uintptr_t)((const repl *)y)->node;
    return (a > b) - (a < b);
}

/* The replacements of sites [first, first + n), sorted by node, into out. */
static void site_repls(elab *el, size_t first, size_t n, vec *out)
{
    out->n = 0;
    for (size_t i = first; i < first + n && i < el->sites.n; i++) {
        const site *st = &((const site *)el->sites.p)[i];
        bool pol = true, swap, eq;
        char *owned = NULL;
        const char *key = st->key;
        if (st->kind == SITE_REL)
            key = owned = relation_key(el, st->src, &pol, &swap, &eq);
        else if (st->kind == SITE_TEXT)
            key = expr_text(el, st->src);
        long a = key != NULL ? find(&el->atoms_by_key, key) : -1;
        mdae_free(owned);
        if (a < 0 || ATOM(el, a)->mode < 0)
            continue;
        const fx_node *by = fx_mode(el->fx, (uint32_t)ATOM(el, a)->mode, st->node->where);
        if (pol == ATOM(el, a)->flip)
            by = fx_un(el->fx, FX_NOT, by, st->node->where);
        repl *r = vec_push(el, out, sizeof *r);
        if (r != NULL)
            *r = (repl){st->node, by};
    }
    if (out->n > 1)
        qsort(out->p, out->n, sizeof(repl), cmp_repl);
}

static const fx_node *patch(elab *el, const fx_node *e, const vec *rs)
{
    if (e == NULL || rs->n == 0)
        return e;
    repl key = {e, NULL};
    const repl *hit = bsearch(&key, rs->p, rs->n, sizeof(repl), cmp_repl);
    if (hit != NULL)
        return hit->by;
    if (e->n == 0 || e->op == FX_OPAQUE)
        return e;
    const fx_node *small[8];
    const fx_node **k = e->n <= 8 ? small : mdae_malloc(e->n * sizeof *k);
    if (k == NULL) {
        mel__nomem(el->rep);
        return NULL;
    }
    bool changed = false;
    for (uint32_t i = 0; i < e->n; i++) {
        k[i] = patch(el, e->kids[i], rs);
        changed = changed || k[i] != e->kids[i];
    }
    const fx_node *r = e;
    if (changed)
        r = e->op == FX_CALL ? fx_call(el->fx, e->fn, e->name, k, e->n, e->where)
                             : fx_make(el->fx, e->op, k, e->n, e->where);
    if (k != small)
        mdae_free(k);
    return r;
}

/* ---- equations -------------------------------------------------------------------- */

static char *stmt_text(elab *el, const mo__stmt *s)
{
    mdae_buf b = {0};
    switch ((mo__sk)s->kind) {
    case MO_S_EQ:
    case MO_S_ASSIGN:
        mo__expr_print(&b, s->lhs);
        mdae_buf_puts(&b, s->kind == MO_S_EQ ? " = " : " := ");
        mo__expr_print(&b, s->rhs);
        break;
    case MO_S_CALL:
        mo__expr_print(&b, s->rhs);
        break;
    case MO_S_IF:
    case MO_S_WHEN:
        mdae_buf_puts(&b, s->kind == MO_S_IF ? "if " : "when ");
        mo__expr_print(&b, s->conds[0]);
        mdae_buf_puts(&b, " then ...");
        break;
    case MO_S_FOR:
        mdae_buf_puts(&b, "for ... loop");
        break;
    case MO_S_WHILE:
        mdae_buf_puts(&b, "while ... loop");
        break;
    case MO_S_CONNECT:
        mdae_buf_puts(&b, "connect(...)");
        break;
    case MO_S_BREAK:
        mdae_buf_puts(&b, "break");
        break;
    case MO_S_RETURN:
        mdae_buf_puts(&b, "return");
        break;
    }
    if (b.oom) {
        mdae_free(b.p);
        mel__nomem(el->rep);
        return NULL;
    }
    char *t = mdup(el, el->ma, b.p ? b.p : "", b.len);
    mdae_free(b.p);
    return t;
}

static void add_event(elab *el, mel_event_kind kind, const char *text, mdae_range where,
                      long var)
{
    mel_event *ev = vec_push(el, &el->events, sizeof *ev);
    if (ev == NULL)
        return;
    ev->kind = kind;
    ev->text = (char *)(text ? text : "");
    ev->where = where;
    ev->var = var;
    ev->parent = el->cur_when;
}

/* The loop indices, for names: "[i=1,j=2]". */
static void env_suffix(const env *x, mdae_buf *b, bool labelled)
{
    if (x == NULL)
        return;
    /* innermost last */
    const env *stack[16];
    size_t n = 0;
    for (; x != NULL && n < 16; x = x->parent)
        stack[n++] = x;
    mdae_buf_puts(b, labelled ? "[" : " [");
    for (size_t i = n; i-- > 0;) {
        char num[32];
        if (!labelled) {
            mdae_buf_puts(b, stack[i]->name);
            mdae_buf_puts(b, "=");
        }
        snprintf(num, sizeof num, "%lld", stack[i]->value);
        mdae_buf_puts(b, num);
        if (i > 0)
            mdae_buf_puts(b, ",");
    }
    mdae_buf_puts(b, "]");
}

static const char *eq_name(elab *el, const mo__stmt *s, const char *text, int slot)
{
    mdae_buf b = {0};
    if (s->label != NULL) {
        mdae_buf_puts(&b, s->label);
        env_suffix(el->env, &b, true);
    } else {
        size_t n = strlen(text);
        if (n <= MAX_NAME_TEXT) {
            mdae_buf_puts(&b, text);
        } else {
            char h[32];
            /* cut at a UTF-8 boundary */
            size_t cut = 48;
            while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80)
                cut--;
            mdae_buf_put(&b, text, cut);
            snprintf(h, sizeof h, "...#%08llx",
                     (unsigned long long)(mdae_hash(text, n) & 0xffffffffu));
            mdae_buf_puts(&b, h);
        }
        env_suffix(el->env, &b, false);
    }
    if (slot > 0) {
        char h[32];
        snprintf(h, sizeof h, "/%d", slot);
        mdae_buf_puts(&b, h);
    }
    if (b.oom) {
        mdae_free(b.p);
        mel__nomem(el->rep);
        return NULL;
    }
    for (size_t i = 0; i < b.len; i++)
        if (b.p[i] == '\n') /* a string's: a name is one line (a MEL quoted name) */
            b.p[i] = ' ';
    char *t = mdup(el, &el->tmp, b.p ? b.p : "", b.len);
    mdae_free(b.p);
    return t;
}

static void new_equation(elab *el, const mo__stmt *s, const char *name, const mel_guard *g,
                         vec *uses, const eq_fx *fx)
{
    if (g == mel__g_false())
        return; /* active in no mode (MEL drops it too, so printing it could not read back) */
    if (!charge(el, 1, s->where))
        return;
    eqn *q = vec_push(el, &el->eqns, sizeof *q);
    if (q == NULL)
        return;
    q->name = name;
    q->labelled = s->label != NULL;
    q->guard = g;
    q->where = s->where;
    q->when_ev = -1;
    q->cond = el->cur_cond;
    q->cond_pos = el->cur_cond != 0 ? el->cond_pos++ : 0;
    if (fx != NULL) {
        q->lhs = fx->lhs;
        q->rhs = fx->rhs;
        q->first_site = fx->first_site;
        q->n_sites = el->sites.n - fx->first_site;
    }
    q->first_use = el->uses.n;
    for (size_t i = 0; i < uses->n; i++) {
        use *u = vec_push(el, &el->uses, sizeof *u);
        if (u == NULL)
            return;
        *u = ((use *)uses->p)[i];
    }
    q->n_uses = uses->n;
}

/* Is e a plain reference to a variable that is not a continuous Real? */
static long discrete_ref(elab *el, const mo__expr *e)
{
    if (e == NULL || e->kind != MO_E_REF)
        return -1;
    bool whole;
    long i = resolve(el, e, &whole, true);
    if (i < 0)
        return -1;
    mvar *v = VAR(el, i);
    return (v->type != T_REAL || (v->unknown < 0 && v->when_assigned)) ? i : -1;
}

static bool is_whole_array(elab *el, const mo__expr *e)
{
    if (e == NULL)
        return false;
    if (e->kind == MO_E_ARRAY || e->kind == MO_E_MATRIX)
        return true;
    if (e->kind != MO_E_REF)
        return false;
    bool whole;
    long i = resolve(el, e, &whole, true);
    return i >= 0 && whole;
}

static void equations(elab *el, const mo__stmt *s, const mel_guard *g);
static bool clocked_equation(elab *el, const mo__stmt *s);
static bool clock_refs(elab *el, const mo__expr *e, vec *refs);

static void simple_equation(elab *el, const mo__stmt *s, const mel_guard *g)
{
    char *text = stmt_text(el, s);
    if (text == NULL)
        return;
    if (el->cur_when >= 0 || (el->has_clocks && clocked_equation(el, s))) {
        add_event(el, MEL_EV_DISCRETE, text, s->where, -1);
        return;
    }
    if (s->lhs->kind == MO_E_TUPLE) {
        /* (a, , b) = f(x): one equation per unknown output */
        vec rhs = {0};
        collect(el, &rhs, s->rhs, 0, g);
        int slot = 0;
        bool any = false;
        for (uint32_t k = 0; k < s->lhs->n_kids; k++) {
            const mo__expr *t = s->lhs->kids[k];
            if (t == NULL)
                continue;
            vec out = {0};
            collect(el, &out, t, 0, g);
            for (size_t j = 0; j < out.n; j++) {
                /* the j-th unknown of output k = the call (its text) */
                eq_fx fx = {NULL, NULL, el->sites.n};
                if (el->fx != NULL) {
                    const use *o = &((use *)out.p)[j];
                    fx.lhs = fx_var(el->fx, o->var, (uint32_t)o->order, o->where);
                    fx.rhs = lw_opaque(el, s->rhs, true);
                }
                vec all = {0};
                use *u = vec_push(el, &all, sizeof *u);
                if (u != NULL)
                    *u = ((use *)out.p)[j];
                for (size_t r = 0; r < rhs.n && u != NULL; r++) {
                    use *w = vec_push(el, &all, sizeof *w);
                    if (w != NULL)
                        *w = ((use *)rhs.p)[r];
                }
                new_equation(el, s, eq_name(el, s, text, ++slot), g, &all, &fx);
                mdae_free(all.p);
                any = true;
            }
            mdae_free(out.p);
        }
        mdae_free(rhs.p);
        if (!any)
            add_event(el, MEL_EV_DISCRETE, text, s->where, -1);
        return;
    }
    /* A definition of a Boolean, Integer, enumeration or String variable
     * (either side, as `b = x > 0` or `x > 0 = b` are both written), or of
     * a Real assigned in a when-clause, is discrete; `y = d` with d
     * discrete and y an unknown is an ordinary equation for y. */
    long dl = discrete_ref(el, s->lhs), dr = discrete_ref(el, s->rhs);
    if (dr >= 0 && VAR(el, dr)->type == T_REAL)
        dr = -1;
    if (dr >= 0 && dl < 0) {
        /* y = k with k an Integer variable and y a Real unknown is an
         * equation for y; `E = b` defines b only if E has no unknown */
        vec probe = {0};
        collect(el, &probe, s->lhs, 0, g);
        if (probe.n > 0)
            dr = -1;
        mdae_free(probe.p);
    }
    if (dl >= 0 && VAR(el, dl)->type == T_REAL) {
        /* d = y with d assigned in a when-clause: an equation for the
         * unknowns of the other side if it has any (an alias of d) */
        vec probe = {0};
        collect(el, &probe, s->rhs, 0, g);
        if (probe.n > 0)
            dl = -1;
        mdae_free(probe.p);
    }
    if (dl < 0 && dr >= 0) {
        dl = dr;
        const mo__expr *t = s->lhs;
        (void)t;
    }
    if (dl >= 0 || dr >= 0) {
        add_event(el, MEL_EV_DISCRETE, text, s->where, -1);
        if (dl >= 0) {
            mvar *v = VAR(el, dl);
            v->n_defs++;
            v->def = dl == discrete_ref(el, s->lhs) ? s->rhs : s->lhs;
            v->def_guard = g;
            if (el->fx != NULL && v->type == T_BOOL && v->n_defs == 1) {
                size_t first = el->sites.n;
                const fx_node *d = lw(el, v->def, false);
                v = VAR(el, dl);
                v->def_fx = d;
                v->def_site = first;
                v->def_n_sites = el->sites.n - first;
            }
        }
        return;
    }
    if (is_whole_array(el, s->lhs) || is_whole_array(el, s->rhs)) {
        err(el, MDAE_E_MODEL, s->where,
            "array equations are not supported: write one equation per element (or export "
            "with scalarize)");
        return;
    }
    vec uses = {0};
    collect(el, &uses, s->lhs, 0, g);
    collect(el, &uses, s->rhs, 0, g);
    eq_fx fx = {NULL, NULL, el->sites.n};
    if (el->fx != NULL) {
        fx.lhs = lw_scalar(el, s->lhs);
        fx.rhs = lw_scalar(el, s->rhs);
    }
    new_equation(el, s, eq_name(el, s, text, 0), g, &uses, &fx);
    mdae_free(uses.p);
}

static void when_clause(elab *el, const mo__stmt *s, bool eqs);

static void for_loop(elab *el, const mo__stmt *s, uint32_t k, const mel_guard *g, bool eqs,
                     void (*body)(elab *, const mo__stmt *, const mel_guard *))
{
    if (k == s->n_iters) {
        body(el, s->body, g);
        return;
    }
    const mo__iter *it = &s->iters[k];
    const mo__expr *r = it->range;
    long long a = 0, b = -1, step = 1;
    long long list[256];
    size_t n_list = 0;
    bool ok = false;
    if (r != NULL && r->kind == MO_E_RANGE) {
        ok = eval_int(el, r->kids[0], &a) && eval_int(el, r->kids[r->n_kids - 1], &b) &&
             (r->n_kids == 2 || eval_int(el, r->kids[1], &step)) && step != 0;
    } else if (r != NULL && r->kind == MO_E_ARRAY && r->n_iters == 0 && r->n_kids <= 256) {
        ok = true;
        for (uint32_t i = 0; i < r->n_kids && ok; i++)
            ok = eval_int(el, r->kids[i], &list[n_list++]);
    }
    if (!ok) {
        err(el, MDAE_E_MODEL, r ? r->where : s->where,
            "the range of a for-%s must be constant (parameters with values)",
            eqs ? "equation" : "statement");
        return;
    }
    unsigned long long trips = n_list;
    if (r->kind == MO_E_RANGE) {
        if ((step > 0 && b < a) || (step < 0 && b > a))
            trips = 0;
        else
            trips = (unsigned long long)((b - a) / step) + 1;
    }
    if (!charge(el, trips > el->max_instances ? el->max_instances + 1 : (size_t)trips,
                s->where))
        return;
    env frame = {it->name, a, el->env};
    const env *save = el->env;
    el->env = &frame;
    for (unsigned long long i = 0; i < trips && !el->rep->stop; i++) {
        frame.value = r->kind == MO_E_RANGE ? a + (long long)i * step : list[i];
        for_loop(el, s, k + 1, g, eqs, body);
    }
    el->env = save;
}

/* Statements of a model algorithm section: what it reads and assigns. */
typedef struct alg {
    vec reads;    /* uses of every unknown read or assigned (guard TRUE) */
    vec assigned; /* uses of the assigned unknowns */
} alg;

static void alg_stmts(elab *el, alg *a, const mo__stmt *s);

static void alg_for_body(elab *el, const mo__stmt *s, const mel_guard *g);
static alg *cur_alg;

static void alg_for_body(elab *el, const mo__stmt *s, const mel_guard *g)
{
    (void)g;
    alg_stmts(el, cur_alg, s);
}

static void alg_stmts(elab *el, alg *a, const mo__stmt *s)
{
    for (; s != NULL && !el->rep->stop; s = s->next) {
        switch ((mo__sk)s->kind) {
        case MO_S_ASSIGN: {
            if (el->cur_when >= 0) {
                char *t = stmt_text(el, s);
                add_event(el, MEL_EV_DISCRETE, t, s->where, -1);
                break;
            }
            collect(el, &a->reads, s->rhs, 0, mel__g_true());
            size_t before = a->reads.n;
            collect(el, &a->reads, s->lhs, 0, mel__g_true());
            for (size_t i = before; i < a->reads.n; i++) {
                use *u = vec_push(el, &a->assigned, sizeof *u);
                if (u != NULL)
                    *u = ((use *)a->reads.p)[i];
            }
            break;
        }
        case MO_S_CALL: {
            const char *f = plain_name(s->rhs);
            char *t = stmt_text(el, s);
            if (call_is(f, "assert") || call_is(f, "terminate"))
                add_event(el, MEL_EV_ASSERT, t, s->where, -1);
            else if (call_is(f, "reinit"))
                err(el, MDAE_E_MODEL, s->where, "reinit outside a when-clause");
            else
                collect(el, &a->reads, s->rhs, 0, mel__g_true());
            break;
        }
        case MO_S_IF:
            for (uint32_t i = 0; i < s->n_branches; i++) {
                if (s->conds[i] != NULL)
                    collect(el, &a->reads, s->conds[i], 0, mel__g_true());
                alg_stmts(el, a, s->bodies[i]);
            }
            break;
        case MO_S_WHILE:
            collect(el, &a->reads, s->conds[0], 0, mel__g_true());
            alg_stmts(el, a, s->body);
            break;
        case MO_S_FOR: {
            alg *save = cur_alg;
            cur_alg = a;
            for_loop(el, s, 0, mel__g_true(), false, alg_for_body);
            cur_alg = save;
            break;
        }
        case MO_S_WHEN:
            when_clause(el, s, false);
            break;
        default:
            break;
        }
    }
}

/* An algorithm section as one expression: FX_OPAQUE("algorithm") reading
 * all it reads (the equation of each unknown it assigns, issue 38). */
static const fx_node *alg_opaque(elab *el, const alg *a, mdae_range where)
{
    vec rs = {0};
    if (a->reads.n > 0) {
        rs.p = mdae_malloc(a->reads.n * sizeof(use));
        if (rs.p == NULL) {
            mel__nomem(el->rep);
            return NULL;
        }
        memcpy(rs.p, a->reads.p, a->reads.n * sizeof(use));
        rs.n = rs.cap = a->reads.n;
    }
    const fx_node *r = opaque_of(el, "algorithm", &rs, where);
    mdae_free(rs.p);
    return r;
}

/* A plain, scalar Boolean variable reference? */
static bool is_boolean_ref(elab *el, const mo__expr *c)
{
    if (c == NULL || c->kind != MO_E_REF)
        return false;
    bool whole;
    long i = resolve(el, c, &whole, true);
    return i >= 0 && !whole && VAR(el, i)->type == T_BOOL;
}

/* A when-condition that declares a transient mode (header): Boolean
 * variables and relations that are not constant, under not, and, or. */
static bool transient_condition(elab *el, const mo__expr *c)
{
    if (c == NULL || eval(el, c).ok)
        return false;
    if (c->kind == MO_E_REF)
        return is_boolean_ref(el, c);
    if (c->kind == MO_E_UN)
        return c->op == MO_T_NOT && transient_condition(el, c->kids[0]);
    if (c->kind != MO_E_BIN)
        return false;
    if (is_relation(c->op))
        return c->n_kids == 2;
    if (c->op != MO_T_AND && c->op != MO_T_OR)
        return false;
    for (uint32_t i = 0; i < c->n_kids; i++)
        if (!transient_condition(el, c->kids[i]))
            return false;
    return true;
}

/* reinit(v, e) under `when c` (see the header): the equation next(v) = e,
 * guarded by c, whose atoms build() makes mode variables. */
static void reinit_equation(elab *el, const mo__stmt *s, long var, char *text)
{
    const mel_guard *g = atomize(el, el->cur_when_cond);
    if (el->rep->stop || g->op == MEL_G_TRUE || g->op == MEL_G_FALSE)
        return;
    vec uses = {0};
    use *u = vec_push(el, &uses, sizeof *u);
    if (u != NULL) {
        u->var = (uint32_t)var;
        u->order = 1;
        u->next = 1;
        u->guard = g;
        u->where = s->rhs->kids[0]->where;
    }
    collect(el, &uses, s->rhs->kids[1], 0, g);
    size_t before = el->eqns.n;
    eq_fx fx = {NULL, NULL, el->sites.n};
    if (el->fx != NULL) {
        const mo__expr *target = s->rhs->kids[0];
        fx.lhs = fx_un(el->fx, FX_NEXT, fx_var(el->fx, (uint32_t)var, 0, target->where),
                       target->where);
        fx.rhs = lw_scalar(el, s->rhs->kids[1]);
    }
    new_equation(el, s, eq_name(el, s, text, 0), g, &uses, &fx);
    mdae_free(uses.p);
    if (el->eqns.n > before)
        ((eqn *)el->eqns.p)[before].when_ev = el->cur_when;
}

static void when_body(elab *el, const mo__stmt *s, bool eqs)
{
    for (; s != NULL && !el->rep->stop; s = s->next) {
        if (s->kind == MO_S_CALL) {
            const char *f = plain_name(s->rhs);
            char *t = stmt_text(el, s);
            if (call_is(f, "reinit") && s->rhs->n_kids == 2) {
                bool whole;
                long i = resolve(el, s->rhs->kids[0], &whole, false);
                long var = i >= 0 && !whole ? VAR(el, i)->unknown : -1;
                if (i >= 0 && var < 0)
                    err(el, MDAE_E_MODEL, s->rhs->kids[0]->where,
                        "reinit of '%s', which is not a continuous unknown", VAR(el, i)->name);
                add_event(el, MEL_EV_REINIT, t, s->where, var);
                /* a reinit under an if inside the when may not happen at
                 * the event: not a when-equation (it stays aside) */
                if (var >= 0 && t != NULL && el->when_if == 0 &&
                    transient_condition(el, el->cur_when_cond))
                    reinit_equation(el, s, var, t);
            } else if (call_is(f, "assert") || call_is(f, "terminate")) {
                add_event(el, MEL_EV_ASSERT, t, s->where, -1);
            } else {
                add_event(el, MEL_EV_DISCRETE, t, s->where, -1);
            }
        } else if (s->kind == MO_S_IF) {
            el->when_if++;
            for (uint32_t i = 0; i < s->n_branches; i++)
                when_body(el, s->bodies[i], eqs);
            el->when_if--;
        } else if (s->kind == MO_S_WHEN) {
            err(el, MDAE_E_MODEL, s->where, "when-clauses cannot be nested");
        } else if (s->kind == MO_S_FOR) {
            char *t = stmt_text(el, s);
            add_event(el, MEL_EV_DISCRETE, t, s->where, -1);
        } else {
            char *t = stmt_text(el, s);
            add_event(el, MEL_EV_DISCRETE, t, s->where, -1);
        }
    }
}

static void when_clause(elab *el, const mo__stmt *s, bool eqs)
{
    long save = el->cur_when;
    for (uint32_t i = 0; i < s->n_branches; i++) {
        el->cur_when = save;
        char *t = expr_text(el, s->conds[i]);
        char *c = t ? mdup(el, el->ma, t, strlen(t)) : NULL;
        (void)atomize; /* when-conditions are events, not modes */
        add_event(el, MEL_EV_WHEN, c, s->conds[i]->where, -1);
        el->cur_when = (long)el->events.n - 1;
        el->cur_when_cond = s->conds[i];
        when_body(el, s->bodies[i], eqs);
    }
    el->cur_when = save;
    el->cur_when_cond = NULL;
}

/* Equation s (of an equation section, or a declaration's binding) under
 * guard g; left out (and said so) when it reads a name whose declaration
 * was left out (recovery). */
static void equation_unless_left_out(elab *el, const mo__stmt *s, const mel_guard *g)
{
    size_t n_eqns = el->eqns.n, n_uses = el->uses.n, n_events = el->events.n;
    uint32_t pos = el->cond_pos;
    el->dropped = NULL;
    simple_equation(el, s, g);
    if (el->dropped != NULL) { /* a consequence of what was left out */
        el->eqns.n = n_eqns;
        el->uses.n = n_uses;
        el->events.n = n_events;
        el->cond_pos = pos;
        char msg[160];
        snprintf(msg, sizeof msg, "left out: uses '%.100s', whose declaration was left out",
                 el->dropped);
        mel__left_out_msg(el->rep, s->where, msg);
        el->dropped = NULL;
    }
}

static void equations(elab *el, const mo__stmt *s, const mel_guard *g)
{
    for (; s != NULL && !el->rep->stop; s = s->next) {
        switch ((mo__sk)s->kind) {
        case MO_S_EQ: equation_unless_left_out(el, s, g); break;
        case MO_S_CALL: {
            const char *f = plain_name(s->rhs);
            char *t = stmt_text(el, s);
            if (call_is(f, "assert") || call_is(f, "terminate"))
                add_event(el, MEL_EV_ASSERT, t, s->where, -1);
            else if (call_is(f, "reinit"))
                err(el, MDAE_E_MODEL, s->where, "reinit outside a when-clause");
            else if (f != NULL && is_clocked(f))
                err(el, MDAE_E_MODEL, s->where, "clocked partitions are not supported: '%s'", f);
            else
                add_event(el, MEL_EV_DISCRETE, t, s->where, -1);
            break;
        }
        case MO_S_IF: {
            if (s->n_branches > MAX_CHAIN) {
                err(el, MDAE_E_LIMIT, s->where, "if-equation with more than %d branches",
                    MAX_CHAIN);
                break;
            }
            const mel_guard *rest = g;
            /* mel_equation.cond: a conditional once a condition is not
             * decided; its branches start at the same position */
            uint32_t save_cond = el->cur_cond, start = el->cond_pos, end = el->cond_pos;
            bool open = false;
            for (uint32_t i = 0; i < s->n_branches && !el->rep->stop; i++) {
                if (open) {
                    end = el->cond_pos > end ? el->cond_pos : end;
                    el->cond_pos = start;
                }
                if (s->conds[i] == NULL) {
                    equations(el, s->bodies[i], rest);
                    break;
                }
                vec crefs = {0};
                bool clocked = el->has_clocks && clock_refs(el, s->conds[i], &crefs);
                mdae_free(crefs.p);
                if (clocked) {
                    /* a condition on clocked values: the if-equation is
                     * part of a clocked partition */
                    for (uint32_t b = 0; b < s->n_branches; b++)
                        for (const mo__stmt *q = s->bodies[b]; q != NULL; q = q->next)
                            add_event(el, MEL_EV_DISCRETE, stmt_text(el, q), q->where, -1);
                    break;
                }
                value v = eval(el, s->conds[i]);
                if (v.ok) {
                    if (v.v != 0) {
                        equations(el, s->bodies[i], rest);
                        break;
                    }
                    continue;
                }
                const mel_guard *c = el->cur_when >= 0 ? mel__g_true() : atomize(el, s->conds[i]);
                if (!open) {
                    open = true;
                    if (save_cond == 0) {
                        el->cur_cond = ++el->n_conds;
                        el->cond_pos = start = 0;
                    }
                }
                equations(el, s->bodies[i], mel__g_and(&el->gf, rest, c));
                rest = mel__g_and(&el->gf, rest, mel__g_not(&el->gf, c));
            }
            if (open) {
                end = el->cond_pos > end ? el->cond_pos : end;
                el->cur_cond = save_cond;
                el->cond_pos = save_cond == 0 ? start : end;
                if (save_cond == 0)
                    el->cond_pos = 0;
            }
            break;
        }
        case MO_S_FOR:
            for_loop(el, s, 0, g, true, equations);
            break;
        case MO_S_WHEN:
            if (el->cur_when >= 0)
                err(el, MDAE_E_MODEL, s->where, "when-clauses cannot be nested");
            else
                when_clause(el, s, true);
            break;
        case MO_S_CONNECT:
            err(el, MDAE_E_MODEL, s->where,
                "connect equations are not supported: the model must be flat (Base Modelica)");
            break;
        default:
            err(el, MDAE_E_PARSE, s->where, "not an equation");
            break;
        }
    }
}

/* ---- clocked partitions -------------------------------------------------------------
 * Modelica 3.6 chapter 16: clocked equations are discrete-time, solved at the
 * clock's ticks, so like when-clauses they are not part of the continuous
 * system. Clock inference, as the structure needs it: an equation is clocked
 * when it contains a clock operator (sample(u, c) with a clock, subSample,
 * superSample, shiftSample, backSample, previous, noClock, interval,
 * firstTick, Clock(...)) or a Clock variable, or mentions a variable of a
 * clocked equation; its variables are then clocked. hold(u) is the way back
 * to continuous time and sample(u, c)'s u is continuous: neither propagates.
 * Equations inside if- and for-equations are left out of the inference. */

typedef struct clk_eq {
    size_t first, n; /* variable indices in el->clk_refs */
    bool seed;
} clk_eq;

/* Collect the variables of e that propagate clocks into refs; true if e has
 * a clock operator or a Clock variable. */
static bool clock_refs(elab *el, const mo__expr *e, vec *refs)
{
    if (e == NULL)
        return false;
    bool seed = false;
    if (e->kind == MO_E_REF) {
        bool whole;
        long i = resolve(el, e, &whole, true);
        if (i < 0)
            return false;
        size_t n = whole ? el->multi.n : 1;
        for (size_t j = 0; j < n; j++) {
            long k = whole ? ((long *)el->multi.p)[j] : i;
            seed |= VAR(el, k)->type == T_CLOCK;
            long *slot = vec_push(el, refs, sizeof *slot);
            if (slot != NULL)
                *slot = k;
        }
        return seed;
    }
    if (e->kind == MO_E_CALL) {
        const char *f = plain_name(e);
        if (call_is(f, "hold"))
            return false;
        if (call_is(f, "sample") && e->n_kids == 2) {
            /* sample(start, interval) is the event operator; sample(u, c)
             * with c a clock samples u */
            vec tmp = {0};
            bool c = clock_refs(el, e->kids[1], &tmp);
            mdae_free(tmp.p);
            if (c)
                return true;
        }
        if (call_is(f, "sample") && e->n_kids == 1)
            return true; /* sample(u): inferred clock */
        if (f != NULL && is_clocked(f) && !call_is(f, "hold"))
            seed = true;
        if (call_is(f, "sample"))
            return seed;
    }
    for (uint32_t i = 0; i < e->n_kids; i++)
        seed |= clock_refs(el, e->kids[i], refs);
    return seed;
}

static bool clk_add(elab *el, vec *eqs, vec *refs, const mo__expr *lhs, const mo__expr *rhs)
{
    clk_eq *q = vec_push(el, eqs, sizeof *q);
    if (q == NULL)
        return false;
    q->first = refs->n;
    q->seed = clock_refs(el, lhs, refs);
    q->seed |= clock_refs(el, rhs, refs);
    q->n = refs->n - q->first;
    return q->seed;
}

/* The equations of a list, and those of its if-equations' branches. */
static bool clk_stmts(elab *el, vec *eqs, vec *refs, const mo__stmt *st, int depth)
{
    bool any = false;
    for (; st != NULL && depth < 64; st = st->next) {
        if (st->kind == MO_S_EQ)
            any |= clk_add(el, eqs, refs, st->lhs, st->rhs);
        else if (st->kind == MO_S_IF)
            for (uint32_t i = 0; i < st->n_branches; i++)
                any |= clk_stmts(el, eqs, refs, st->bodies[i], depth + 1);
    }
    return any;
}

static void infer_clocks(elab *el, const mo__class *model)
{
    bool any_clock = false;
    for (size_t i = 0; i < el->vars.n && !any_clock; i++)
        any_clock = VAR(el, i)->type == T_CLOCK;
    vec eqs = {0}, refs = {0};
    for (const mo__section *sec = model->sections; sec != NULL; sec = sec->next)
        if (sec->kind == MO_SEC_EQUATION)
            any_clock |= clk_stmts(el, &eqs, &refs, sec->stmts, 0);
    /* declaration bindings of non-parameters are equations too */
    for (const mo__comp *k = model->comps; k != NULL; k = k->next) {
        if (k->binding == NULL || k->n_dims > 0 ||
            (k->prefixes & (MO_P_PARAMETER | MO_P_CONSTANT)))
            continue;
        long v = find(&el->vars_by_name, k->name);
        if (v < 0)
            continue;
        clk_eq *q = vec_push(el, &eqs, sizeof *q);
        if (q == NULL)
            goto out;
        q->first = refs.n;
        long *slot = vec_push(el, &refs, sizeof *slot);
        if (slot == NULL)
            goto out;
        *slot = v;
        q->seed = clock_refs(el, k->binding, &refs);
        q->n = refs.n - q->first;
        any_clock |= q->seed;
    }
    if (!any_clock)
        goto out;
    /* propagate to a fixpoint (each pass marks at least one more variable) */
    for (bool changed = true; changed && !el->rep->stop;) {
        changed = false;
        clk_eq *E = eqs.p;
        const long *R = refs.p;
        for (size_t q = 0; q < eqs.n; q++) {
            bool clocked = E[q].seed;
            for (size_t k = 0; k < E[q].n && !clocked; k++)
                clocked = VAR(el, R[E[q].first + k])->clocked;
            if (!clocked)
                continue;
            for (size_t k = 0; k < E[q].n; k++) {
                mvar *v = VAR(el, R[E[q].first + k]);
                if (!v->clocked && v->type != T_CLOCK) {
                    v->clocked = true;
                    changed = true;
                }
            }
        }
    }
out:
    mdae_free(eqs.p);
    mdae_free(refs.p);
}

/* Is this equation in a clocked partition? */
static bool clocked_equation(elab *el, const mo__stmt *s)
{
    vec refs = {0};
    bool c = clock_refs(el, s->lhs, &refs) || clock_refs(el, s->rhs, &refs);
    for (size_t k = 0; k < refs.n && !c; k++)
        c = VAR(el, ((long *)refs.p)[k])->clocked;
    mdae_free(refs.p);
    return c;
}

/* ---- pre-pass: Reals assigned in when-clauses ------------------------------------ */

static void mark_assigned(elab *el, const mo__expr *lhs)
{
    if (lhs == NULL)
        return;
    if (lhs->kind == MO_E_TUPLE) {
        for (uint32_t i = 0; i < lhs->n_kids; i++)
            mark_assigned(el, lhs->kids[i]);
        return;
    }
    if (lhs->kind != MO_E_REF)
        return;
    bool whole;
    long i = resolve(el, lhs, &whole, true);
    if (i < 0)
        return;
    size_t n = whole ? el->multi.n : 1;
    for (size_t j = 0; j < n; j++)
        VAR(el, whole ? ((long *)el->multi.p)[j] : i)->when_assigned = true;
}

static void mark_when(elab *el, const mo__stmt *s, bool in_when)
{
    for (; s != NULL; s = s->next) {
        switch ((mo__sk)s->kind) {
        case MO_S_EQ:
        case MO_S_ASSIGN:
            if (in_when)
                mark_assigned(el, s->lhs);
            break;
        case MO_S_IF:
        case MO_S_WHEN:
            for (uint32_t i = 0; i < s->n_branches; i++)
                mark_when(el, s->bodies[i], in_when || s->kind == MO_S_WHEN);
            break;
        case MO_S_FOR:
        case MO_S_WHILE:
            if (in_when) {
                /* loop indices are unbound here: mark whole arrays */
                const env *save = el->env;
                mark_when(el, s->body, in_when);
                el->env = save;
            } else {
                mark_when(el, s->body, in_when);
            }
            break;
        default:
            break;
        }
    }
}

/* ---- declarations --------------------------------------------------------------- */

static long find_class(elab *el, const char *name)
{
    return find(&el->types, name);
}

static vtype type_of(elab *el, const char *type, const mo__class **enum_type, int depth)
{
    if (strcmp(type, "Real") == 0)
        return T_REAL;
    if (strcmp(type, "Integer") == 0)
        return T_INT;
    if (strcmp(type, "Boolean") == 0)
        return T_BOOL;
    if (strcmp(type, "String") == 0)
        return T_STRING;
    if (strcmp(type, "Clock") == 0)
        return T_CLOCK;
    if (builtin_enum(type) != NULL)
        return T_ENUM;
    long c = find_class(el, type);
    if (c < 0 || depth > 16)
        return T_OTHER;
    const mo__class *cl = ((const mo__class **)el->classes.p)[c];
    if (cl->is_enum) {
        *enum_type = cl;
        return T_ENUM;
    }
    if (cl->alias != NULL)
        return type_of(el, cl->alias, enum_type, depth + 1);
    return T_OTHER;
}

static void declare_elem(elab *el, const mo__comp *k, const char *name, vtype t,
                         const mo__class *et, long *prev_elem)
{
    if (find(&el->vars_by_name, name) >= 0) {
        err(el, MDAE_E_MODEL, k->where, "'%s' is declared twice", name);
        return;
    }
    if (!charge(el, 1, k->where))
        return;
    long i = (long)el->vars.n;
    mvar *v = vec_push(el, &el->vars, sizeof *v);
    if (v == NULL)
        return;
    v->name = mdup(el, el->ma, name, strlen(name));
    v->type = t;
    v->enum_type = et;
    v->prefixes = k->prefixes;
    v->where = k->where;
    v->binding = k->binding;
    v->mods = k->mods;
    v->unknown = -1;
    v->known = -1;
    v->next_elem = -1;
    if (v->name == NULL || !add_sym(el, &el->vars_by_name, name, (uint32_t)i))
        return;
    if (prev_elem != NULL) {
        if (*prev_elem >= 0)
            VAR(el, *prev_elem)->next_elem = i;
        *prev_elem = i;
    }
}

static int cmp_var_name(const void *x, const void *y)
{
    return strcmp(((const named_ix *)x)->name, ((const named_ix *)y)->name);
}

static void declare(elab *el, const mo__comp *k)
{
    const mo__class *et = NULL;
    vtype t = type_of(el, k->type, &et, 0);
    if (t == T_OTHER && find_class(el, k->type) < 0 && strchr(k->type, '.') == NULL &&
        strcmp(k->type, "ExternalObject") != 0)
        err(el, MDAE_E_MODEL, k->type_where, "unknown type '%s'", k->type);
    if (t == T_OTHER && !(k->prefixes & (MO_P_PARAMETER | MO_P_CONSTANT))) {
        long c = find_class(el, k->type);
        if (c >= 0 && ((const mo__class **)el->classes.p)[c]->kind == MO_C_RECORD)
            err(el, MDAE_E_MODEL, k->type_where,
                "record variables are not supported: '%s' of type '%s' (export with scalarize)",
                k->name, k->type);
    }
    if (k->n_dims == 0) {
        declare_elem(el, k, k->name, t, et, NULL);
        return;
    }
    long long dims[8];
    if (k->n_dims > 8) {
        err(el, MDAE_E_MODEL, k->where, "more than 8 array dimensions");
        return;
    }
    unsigned long long total = 1;
    for (uint32_t d = 0; d < k->n_dims; d++) {
        if (!eval_int(el, k->dims[d], &dims[d]) || dims[d] < 0) {
            err(el, MDAE_E_MODEL, k->dims[d]->where,
                "array size of '%s' must be a constant (a parameter with a value)", k->name);
            return;
        }
        total *= (unsigned long long)dims[d];
        if (total > el->max_instances) {
            charge(el, el->max_instances + 1, k->where);
            return;
        }
    }
    long long idx[8];
    for (uint32_t d = 0; d < k->n_dims; d++)
        idx[d] = 1;
    long prev = -1;
    for (unsigned long long c = 0; c < total && !el->rep->stop; c++) {
        char buf[2048];
        size_t n = (size_t)snprintf(buf, sizeof buf, "%s", k->name);
        for (uint32_t d = 0; d < k->n_dims && n < sizeof buf; d++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%lld", d ? "," : "[", idx[d]);
        if (n + 2 >= sizeof buf)
            return;
        buf[n++] = ']';
        buf[n] = 0;
        declare_elem(el, k, buf, t, et, &prev);
        for (uint32_t d = k->n_dims; d-- > 0;) {
            if (++idx[d] <= dims[d])
                break;
            idx[d] = 1;
        }
    }
}

static void register_classes(elab *el, const mo__class *c, const char *prefix)
{
    for (; c != NULL; c = c->next) {
        const mo__class **slot = vec_push(el, &el->classes, sizeof *slot);
        if (slot == NULL)
            return;
        *slot = c;
        if (find(&el->types, c->name) < 0)
            (void)add_sym(el, &el->types, c->name, (uint32_t)(el->classes.n - 1));
        if (c->kind == MO_C_PACKAGE)
            register_classes(el, c->classes, c->name);
        (void)prefix;
    }
}

static bool is_model_kind(const mo__class *c, bool strict)
{
    if (c->kind == MO_C_MODEL)
        return true;
    return !strict && (c->kind == MO_C_BLOCK || c->kind == MO_C_CLASS) && !c->has_extends;
}

/* The model of the file: the one `model` (at top level or in the package);
 * failing that, the one block or class that is not an external object. */
static const mo__class *find_model(elab *el, const mo__class *top)
{
    const mo__class *found = NULL;
    size_t n = 0;
    for (int strict = 1; strict >= 0 && found == NULL; strict--) {
        n = 0;
        for (const mo__class *c = top; c != NULL; c = c->next) {
            if (c->kind == MO_C_PACKAGE) {
                for (const mo__class *d = c->classes; d != NULL; d = d->next)
                    if (is_model_kind(d, strict)) {
                        found = d;
                        n++;
                    }
            } else if (is_model_kind(c, strict)) {
                found = c;
                n++;
            }
        }
    }
    if (found == NULL) {
        mdae_range r = top ? top->where : (mdae_range){{1, 1, 0}, {1, 1, 0}};
        err(el, MDAE_E_MODEL, r, "no model in this file (expected 'model NAME ... end NAME;')");
        return NULL;
    }
    if (n > 1)
        err(el, MDAE_E_MODEL, found->where,
            "more than one model in this file: a flat model is expected");
    return found;
}

/* The model's name as written, unquoted, in the model's arena (NULL when
 * memory runs out). */
static const char *model_name(elab *el, const mo__class *model)
{
    const char *s = model->name;
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '\'' && s[n - 1] == '\'') {
        s++;
        n -= 2;
    }
    return mel__arena_strndup(el->ma, s, n); /* NULL: out of memory */
}

/* ---- invariants --------------------------------------------------------------------- */

static bool guard_atoms_used(elab *el, const mel_guard *g)
{
    switch (g->op) {
    case MEL_G_FALSE:
    case MEL_G_TRUE:
        return true;
    case MEL_G_VAR:
        return ATOM(el, g->var)->mode >= 0;
    case MEL_G_NOT:
        return guard_atoms_used(el, g->lhs);
    default:
        return guard_atoms_used(el, g->lhs) && guard_atoms_used(el, g->rhs);
    }
}

static void mark_used(elab *el, const mel_guard *g, vec *order, uint8_t *seen)
{
    uint32_t id = mel__g_id(g);
    if (seen[id])
        return;
    seen[id] = 1;
    switch (g->op) {
    case MEL_G_VAR: {
        atom *a = ATOM(el, g->var);
        if (a->mode == -1) {
            a->mode = -2; /* used; numbered later in atom order */
            long *o = vec_push(el, order, sizeof *o);
            if (o != NULL)
                *o = (long)g->var;
        }
        return;
    }
    case MEL_G_NOT:
        mark_used(el, g->lhs, order, seen);
        return;
    case MEL_G_AND:
    case MEL_G_OR:
        mark_used(el, g->lhs, order, seen);
        mark_used(el, g->rhs, order, seen);
        return;
    default:
        return;
    }
}

typedef struct remap {
    const mel_guard **memo; /* by guard id */
    size_t n;
} remap;

static const mel_guard *rebuild(elab *el, remap *rm, const mel_guard *g)
{
    uint32_t id = mel__g_id(g);
    if (id < rm->n && rm->memo[id] != NULL)
        return rm->memo[id];
    const mel_guard *r;
    switch (g->op) {
    case MEL_G_FALSE: return g;
    case MEL_G_TRUE: return g;
    case MEL_G_VAR: {
        long m = ATOM(el, g->var)->mode;
        r = m >= 0 ? mel__g_var(&el->gf, (uint32_t)m) : mel__g_true();
        break;
    }
    case MEL_G_NOT: r = mel__g_not(&el->gf, rebuild(el, rm, g->lhs)); break;
    case MEL_G_AND:
        r = mel__g_and(&el->gf, rebuild(el, rm, g->lhs), rebuild(el, rm, g->rhs));
        break;
    default:
        r = mel__g_or(&el->gf, rebuild(el, rm, g->lhs), rebuild(el, rm, g->rhs));
        break;
    }
    if (id < rm->n)
        rm->memo[id] = r;
    return r;
}

/* ---- building the model ------------------------------------------------------------- */

static int cmp_use(const void *x, const void *y)
{
    const use *a = x, *b = y;
    if (a->var != b->var)
        return a->var < b->var ? -1 : 1;
    if (a->order != b->order)
        return a->order > b->order ? -1 : 1;
    if (a->where.start.offset != b->where.start.offset)
        return a->where.start.offset < b->where.start.offset ? -1 : 1;
    return 0;
}

typedef struct inv_item {
    const mel_guard *cond;
    mdae_range where;
    uint32_t when; /* mel_invariant.when */
} inv_item;

/* The mode variable of atom i as the truth of its key (atom.flip). */
static const mel_guard *key_guard(elab *el, size_t i)
{
    const mel_guard *g = mel__g_var(&el->gf, (uint32_t)i);
    return ATOM(el, i)->flip ? mel__g_not(&el->gf, g) : g;
}

/* What the real line says about two relations of the same expression to
 * constants, a (x < ka or x > ka) and b: the implication or exclusion that
 * holds for every x, as a guard; NULL when there is none. */
static const mel_guard *bound_relation(elab *el, size_t i, size_t j)
{
    const atom *a = ATOM(el, i), *b = ATOM(el, j);
    const mel_guard *ga = key_guard(el, i), *gb = key_guard(el, j);
    mel__gfactory *gf = &el->gf;
    if (a->bnd_above == b->bnd_above) {
        /* x < ka implies x < kb when ka <= kb; x > ka implies x > kb when
         * ka >= kb (equal bounds: both ways) */
        bool a_in_b = a->bnd_above ? a->bnd >= b->bnd : a->bnd <= b->bnd;
        bool b_in_a = a->bnd_above ? b->bnd >= a->bnd : b->bnd <= a->bnd;
        const mel_guard *ab = mel__g_or(gf, mel__g_not(gf, ga), gb);
        const mel_guard *ba = mel__g_or(gf, mel__g_not(gf, gb), ga);
        return a_in_b && b_in_a ? mel__g_and(gf, ab, ba) : a_in_b ? ab : ba;
    }
    double below = a->bnd_above ? b->bnd : a->bnd, above = a->bnd_above ? a->bnd : b->bnd;
    /* x < below and x > above: disjoint when below <= above, covering the
     * line when below > above */
    if (below <= above)
        return mel__g_not(gf, mel__g_and(gf, ga, gb));
    return mel__g_or(gf, ga, gb);
}

static void derive_invariants(elab *el, vec *invs)
{
    size_t n_atoms = el->atoms.n;
    /* b <=> E */
    for (size_t i = 0; i < n_atoms && !el->rep->stop; i++) {
        atom *a = ATOM(el, i);
        if (a->mode < 0 || a->var_name == NULL)
            continue;
        long v = find(&el->vars_by_name, a->var_name);
        if (v < 0)
            continue;
        mvar *mv = VAR(el, v);
        if (mv->n_defs != 1 || mv->def == NULL)
            continue;
        const mel_guard *e = atomize(el, mv->def);
        a = ATOM(el, i); /* atomize may have grown the table */
        if (!guard_atoms_used(el, e) || !guard_atoms_used(el, mv->def_guard))
            continue;
        const mel_guard *b = mel__g_var(&el->gf, (uint32_t)i);
        if (a->flip)
            b = mel__g_not(&el->gf, b);
        const mel_guard *iff = mel__g_and(
            &el->gf, mel__g_or(&el->gf, mel__g_not(&el->gf, b), e),
            mel__g_or(&el->gf, b, mel__g_not(&el->gf, e)));
        inv_item *it = vec_push(el, invs, sizeof *it);
        if (it == NULL)
            return;
        it->cond = mel__g_or(&el->gf, mel__g_not(&el->gf, mv->def_guard), iff);
        it->where = mv->where;
    }
    /* E == k1 excludes E == k2 */
    for (size_t i = 0; i < n_atoms && !el->rep->stop; i++) {
        atom *a = ATOM(el, i);
        if (a->mode < 0 || !a->is_eq)
            continue;
        size_t paired = 0;
        for (size_t j = i + 1; j < n_atoms && paired < 64; j++) {
            atom *b = ATOM(el, j);
            if (b->mode < 0 || !b->is_eq || b->eq_k == a->eq_k || strcmp(a->eq_lhs, b->eq_lhs))
                continue;
            const mel_guard *ga = mel__g_var(&el->gf, (uint32_t)i);
            const mel_guard *gb = mel__g_var(&el->gf, (uint32_t)j);
            if (a->flip)
                ga = mel__g_not(&el->gf, ga);
            if (b->flip)
                gb = mel__g_not(&el->gf, gb);
            inv_item *it = vec_push(el, invs, sizeof *it);
            if (it == NULL)
                return;
            it->cond = mel__g_not(&el->gf, mel__g_and(&el->gf, ga, gb));
            it->where = b->where;
            paired++;
        }
    }
    /* x < k1, x > k2, ...: what the order of the reals implies */
    for (size_t i = 0; i < n_atoms && !el->rep->stop; i++) {
        atom *a = ATOM(el, i);
        if (a->mode < 0 || a->bnd_lhs == NULL)
            continue;
        size_t paired = 0;
        for (size_t j = i + 1; j < n_atoms && paired < 64; j++) {
            atom *b = ATOM(el, j);
            if (b->mode < 0 || b->bnd_lhs == NULL || strcmp(a->bnd_lhs, b->bnd_lhs) != 0)
                continue;
            inv_item *it = vec_push(el, invs, sizeof *it);
            if (it == NULL)
                return;
            it->cond = bound_relation(el, i, j);
            it->where = b->where;
            paired++;
        }
    }
    /* m = if c1 then k1 elseif ... else kn */
    for (size_t v = 0; v < el->vars.n && !el->rep->stop; v++) {
        mvar *mv = VAR(el, v);
        if ((mv->type != T_INT && mv->type != T_ENUM) || mv->n_defs != 1 || mv->def == NULL ||
            mv->def->kind != MO_E_IF)
            continue;
        const mo__expr *e = mv->def;
        const mel_guard *rest = mv->def_guard;
        for (uint32_t k = 0; k < e->n_kids; k += 2) {
            bool last = k + 1 >= e->n_kids;
            const mel_guard *c = last ? mel__g_true() : atomize(el, e->kids[k]);
            const mel_guard *path = mel__g_and(&el->gf, rest, c);
            if (!last)
                rest = mel__g_and(&el->gf, rest, mel__g_not(&el->gf, c));
            long long val;
            if (!eval_int(el, e->kids[last ? k : k + 1], &val) || !guard_atoms_used(el, path))
                continue;
            for (size_t i = 0; i < n_atoms; i++) {
                atom *a = ATOM(el, i);
                if (a->mode < 0 || !a->is_eq || strcmp(a->eq_lhs, mv->name) != 0)
                    continue;
                const mel_guard *ga = mel__g_var(&el->gf, (uint32_t)i);
                if (a->flip != (val != a->eq_k))
                    ga = mel__g_not(&el->gf, ga);
                inv_item *it = vec_push(el, invs, sizeof *it);
                if (it == NULL)
                    return;
                it->cond = mel__g_or(&el->gf, mel__g_not(&el->gf, path), ga);
                it->where = mv->where;
            }
            if (last)
                break;
        }
    }
}

static const char *unique_name(elab *el, mel__symtab *t, const char *name)
{
    if (mel__sym_find(t, name) == NULL)
        return name;
    char buf[4096];
    for (int k = 2;; k++) {
        snprintf(buf, sizeof buf, "%s#%d", name, k);
        if (mel__sym_find(t, buf) == NULL)
            return mdup(el, &el->tmp, buf, strlen(buf));
    }
}

/* The first unknown a mode atom reads at its current value (collect leaves
 * pre/last out), for the guard-fixpoint check of the mode-change analysis
 * (mel.h, mel_mode.reads_var; RR-9459 section 5.2: `gamma = (s <= 0)` is
 * model (19)): a Boolean variable's through its definition `b = E`, a
 * relation written in a condition (`if s <= 0 then`) through the relation
 * itself. */
static void mode_reads(elab *el, const atom *a, mel_mode *md)
{
    const mo__expr *e = a->rel;
    if (a->var_name != NULL) {
        long v = find(&el->vars_by_name, a->var_name);
        if (v < 0 || VAR(el, v)->n_defs != 1 || VAR(el, v)->def == NULL)
            return;
        e = VAR(el, v)->def;
    }
    if (e == NULL)
        return;
    vec uses = {0};
    collect(el, &uses, e, 0, mel__g_true());
    if (uses.n > 0) {
        md->reads_var = (long)((use *)uses.p)[0].var;
        md->reads_where = ((use *)uses.p)[0].where;
    }
    mdae_free(uses.p);
}

/* The reinit equations whose condition (and every guard of their uses) is
 * over mode variables only are kept (header), the others dropped; one
 * when-clause per kept condition event (wl: event indices), with its
 * invariant !b appended to invs. */
static void keep_reinits(elab *el, vec *invs, vec *wl)
{
    eqn *E = el->eqns.p;
    use *U = el->uses.p;
    size_t n = 0;
    for (size_t q = 0; q < el->eqns.n; q++) {
        bool keep = E[q].when_ev < 0;
        if (!keep) {
            keep = guard_atoms_used(el, E[q].guard);
            for (size_t u = E[q].first_use; keep && u < E[q].first_use + E[q].n_uses; u++)
                keep = guard_atoms_used(el, U[u].guard);
        }
        if (keep && E[q].when_ev >= 0) {
            size_t k = 0;
            while (k < wl->n && ((long *)wl->p)[k] != E[q].when_ev)
                k++;
            if (k == wl->n) {
                long *slot = vec_push(el, wl, sizeof *slot);
                inv_item *it = vec_push(el, invs, sizeof *it);
                if (slot == NULL || it == NULL)
                    return;
                *slot = E[q].when_ev;
                it->cond = mel__g_not(&el->gf, E[q].guard);
                it->where = ((mel_event *)el->events.p)[E[q].when_ev].where;
                it->when = (uint32_t)wl->n;
            }
            E[q].when = (uint32_t)k + 1;
        }
        if (keep)
            E[n++] = E[q];
    }
    el->eqns.n = n;
}

/* node with the sites [first, first + n) whose atom became a mode
 * variable replaced by FX_MODE (rv: scratch). */
static const fx_node *patched(elab *el, const fx_node *node, size_t first, size_t n, vec *rv)
{
    if (node == NULL || n == 0)
        return node;
    site_repls(el, first, n, rv);
    return patch(el, node, rv);
}

/* mel_mode.def of atom a's mode variable. */
static const fx_node *mode_def(elab *el, const atom *a, vec *rv)
{
    if (a->var_name == NULL)
        return patched(el, a->def_fx, a->def_site, a->def_n_sites, rv);
    long v = find(&el->vars_by_name, a->var_name);
    if (v < 0 || VAR(el, v)->n_defs != 1)
        return NULL;
    const mvar *mv = VAR(el, v);
    return patched(el, mv->def_fx, mv->def_site, mv->def_n_sites, rv);
}

/* The value of attribute `name` in mods (the last one written), or NULL. */
static const mo__expr *attribute(const mo__mod *mods, const char *name)
{
    const mo__expr *e = NULL;
    for (const mo__mod *m = mods; m != NULL; m = m->next)
        if (strcmp(m->name, name) == 0)
            e = m->value;
    return e;
}

/* mel_variable.start and .fixed of unknown mv: its `start = e` lowered like
 * a binding (a scalar's only), its `fixed = e` evaluated. */
static void initial_value(elab *el, const mvar *mv, mel_variable *x)
{
    const mo__expr *fixed = attribute(mv->mods, "fixed");
    if (fixed != NULL) {
        value f = eval(el, fixed);
        x->fixed = f.ok && f.v != 0;
    }
    const mo__expr *start = attribute(mv->mods, "start");
    if (start == NULL || el->fx == NULL || strchr(mv->name, '[') != NULL)
        return;
    size_t sites = el->sites.n;
    x->start = lw(el, start, false);
    el->sites.n = sites; /* a start value is not a mode */
}

/* The known quantities (mel_model.knowns): every parameter and constant
 * scalar instance, with its binding lowered when it is a scalar's and its
 * value when eval computes it. */
static int build_knowns(elab *el, mel_model *m)
{
    if (el->fx == NULL || el->n_knowns == 0)
        return MDAE_OK;
    mel_known *ks = mdae_calloc(el->n_knowns, sizeof *ks);
    el->priv->knowns = ks;
    if (ks == NULL)
        return MDAE_E_NOMEM;
    for (size_t i = 0; i < el->vars.n; i++) {
        mvar *mv = VAR(el, i);
        if (mv->known < 0)
            continue;
        mel_known *k = &ks[mv->known];
        k->name = (char *)mv->name;
        k->kind = mv->type == T_REAL ? MEL_KNOWN_REAL
                  : mv->type == T_BOOL ? MEL_KNOWN_BOOLEAN : MEL_KNOWN_INTEGER;
        k->where = mv->where;
        k->constant = (mv->prefixes & MO_P_CONSTANT) != 0;
        const mo__expr *b = mv->binding;
        if (b != NULL && strchr(mv->name, '[') == NULL) {
            size_t sites = el->sites.n;
            k->binding = lw(el, b, false);
            el->sites.n = sites; /* parameters are not modes */
        }
        value v = val_of_var(el, (long)i);
        k->known = v.ok;
        k->value = v.ok ? v.v : 0;
    }
    m->n_knowns = el->n_knowns;
    m->knowns = ks;
    return el->rep->stop ? MDAE_E_NOMEM : MDAE_OK;
}

/* The hash in a long equation text's name (eq_name: "x = f(a, b...#6a146e04
 * [i=1]"): where "...#" and 8 hex digits are, or NULL. */
static const char *name_hash(const char *name)
{
    for (const char *h = strstr(name, "...#"); h != NULL; h = strstr(h + 1, "...#")) {
        size_t k = 0;
        while (k < 8 && isxdigit((unsigned char)h[4 + k]))
            k++;
        if (k == 8 && !isxdigit((unsigned char)h[12]))
            return h;
    }
    return NULL;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Issue 42: a long equation text's name keeps its hash only where another
 * equation's name would be the same without it (two long texts that start
 * alike); elsewhere "x = f(a, b..." reads better in every message. Names
 * stay independent of the order of the equations. */
static void drop_needless_hashes(elab *el)
{
    eqn *E = el->eqns.p;
    size_t n = el->eqns.n, n_hashed = 0;
    const char **names = n ? mdae_malloc(n * sizeof *names) : NULL;
    if (n > 0 && names == NULL) {
        mel__nomem(el->rep);
        return;
    }
    for (size_t q = 0; q < n; q++) {
        const char *nm = E[q].name;
        const char *h = nm && !E[q].labelled ? name_hash(nm) : NULL;
        if (h == NULL) {
            names[q] = nm ? nm : "";
            continue;
        }
        mdae_buf b = {0};
        mdae_buf_put(&b, nm, (size_t)(h - nm) + 3); /* up to "..." */
        mdae_buf_puts(&b, h + 12);                   /* the instance and slot suffixes */
        names[q] = b.oom ? NULL : mdup(el, &el->tmp, b.p, b.len);
        mdae_free(b.p);
        if (names[q] == NULL) {
            mel__nomem(el->rep);
            mdae_free(names);
            return;
        }
        n_hashed++;
    }
    if (n_hashed > 0) {
        const char **sorted = mdae_malloc(n * sizeof *sorted);
        if (sorted == NULL) {
            mel__nomem(el->rep);
            mdae_free(names);
            return;
        }
        memcpy(sorted, names, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, cmp_names);
        for (size_t q = 0; q < n; q++) {
            if (names[q] == E[q].name || E[q].name == NULL)
                continue;
            const char **at = bsearch(&names[q], sorted, n, sizeof *sorted, cmp_names);
            MDAE_ASSERT(at != NULL);
            bool twice = (at > sorted && strcmp(at[-1], names[q]) == 0) ||
                         (at + 1 < sorted + n && strcmp(at[1], names[q]) == 0);
            if (!twice)
                E[q].name = names[q];
        }
        mdae_free(sorted);
    }
    mdae_free(names);
}

static int build(elab *el, mel_model *m)
{
    struct mel_model_priv *priv = el->priv;
    /* 5. mode variables: the atoms used by some guard, in atom order */
    vec order = {0};
    eqn *E = el->eqns.p;
    use *U = el->uses.p;
    uint8_t *seen = mdae_calloc((size_t)el->gf.next_id + 2, 1);
    if (seen == NULL)
        return MDAE_E_NOMEM;
    for (size_t q = 0; q < el->eqns.n; q++) {
        mark_used(el, E[q].guard, &order, seen);
        if (E[q].when_ev >= 0)
            continue; /* a reinit's condition only (header) */
        for (size_t u = E[q].first_use; u < E[q].first_use + E[q].n_uses; u++)
            mark_used(el, U[u].guard, &order, seen);
    }
    mdae_free(seen);
    mdae_free(order.p);
    uint32_t n_modes = 0;
    for (size_t i = 0; i < el->atoms.n; i++)
        if (ATOM(el, i)->mode == -2)
            ATOM(el, i)->mode = n_modes++;
    /* 6. invariants over the atoms (before renumbering) */
    vec invs = {0};
    derive_invariants(el, &invs);
    vec wl = {0}; /* the when-clauses kept, as their event indices */
    keep_reinits(el, &invs, &wl);
    E = el->eqns.p;
    if (el->rep->stop) {
        mdae_free(invs.p);
        mdae_free(wl.p);
        return el->rep->rc ? el->rep->rc : MDAE_E_NOMEM;
    }
    remap rm;
    rm.n = el->gf.next_id + 1;
    rm.memo = mdae_calloc(rm.n, sizeof *rm.memo);
    if (rm.memo == NULL) {
        mdae_free(invs.p);
        mdae_free(wl.p);
        return MDAE_E_NOMEM;
    }
    int rc = MDAE_OK;
    vec rv = {0}; /* site replacements (issue 38) */
    mel_mode *modes = mdae_calloc(n_modes ? n_modes : 1, sizeof *modes);
    mel_variable *vars = NULL;
    mel_equation *eqs = mdae_calloc(el->eqns.n ? el->eqns.n : 1, sizeof *eqs);
    mel_invariant *iv = mdae_calloc(invs.n ? invs.n : 1, sizeof *iv);
    priv->modes = modes;
    priv->equations = eqs;
    priv->invariants = iv;
    if (modes == NULL || eqs == NULL || iv == NULL)
        goto nomem;
    for (size_t i = 0; i < el->atoms.n; i++) {
        atom *a = ATOM(el, i);
        if (a->mode < 0)
            continue;
        mel_mode *md = &modes[a->mode];
        md->name = mdup(el, el->ma, a->name, strlen(a->name));
        md->where = a->where;
        md->reads_var = -1;
        mode_reads(el, a, md);
        const char *nm = unique_name(el, &priv->syms, a->name);
        mel__sym *s = nm ? mel__sym_add(&priv->syms, el->ma, nm) : NULL;
        if (md->name == NULL || s == NULL)
            goto nomem;
        s->kind = MEL_SYM_MODE;
        s->index = (uint32_t)a->mode;
        md->name = (char *)s->name;
        if (el->fx != NULL)
            md->def = mode_def(el, a, &rv);
    }
    for (size_t i = 0; i < invs.n; i++) {
        inv_item *it = &((inv_item *)invs.p)[i];
        iv[i].cond = rebuild(el, &rm, it->cond);
        iv[i].where = it->where;
        iv[i].when = it->when;
    }
    /* unknowns */
    uint32_t n_vars = 0;
    for (size_t v = 0; v < el->vars.n; v++)
        if (VAR(el, v)->unknown >= 0)
            n_vars++;
    vars = mdae_calloc(n_vars ? n_vars : 1, sizeof *vars);
    priv->variables = vars;
    if (vars == NULL)
        goto nomem;
    uint32_t n_params = 0, n_ints = 0;
    for (size_t v = 0; v < el->vars.n; v++) {
        mvar *mv = VAR(el, v);
        if (mv->unknown < 0) {
            if (mv->prefixes & (MO_P_PARAMETER | MO_P_CONSTANT)) {
                if (mv->type == T_REAL)
                    n_params++;
                else if (mv->type == T_INT || mv->type == T_ENUM)
                    n_ints++;
            }
            continue;
        }
        mel_variable *x = &vars[mv->unknown];
        const char *nm = unique_name(el, &priv->syms, mv->name);
        mel__sym *s = nm ? mel__sym_add(&priv->syms, el->ma, nm) : NULL;
        if (s == NULL)
            goto nomem;
        s->kind = MEL_SYM_VAR;
        s->index = (uint32_t)mv->unknown;
        x->name = (char *)s->name;
        x->guard = mel__g_true();
        x->where = mv->where;
        initial_value(el, mv, x);
    }
    /* equations and incidences */
    drop_needless_hashes(el);
    if (el->rep->stop)
        goto nomem;
    size_t n_edges = 0;
    mel__uses iu = {0}; /* what the equations read (mel_inc.c) */
    for (size_t q = 0; q < el->eqns.n; q++) {
        eqn *src = &E[q];
        mel_equation *dst = &eqs[q];
        const char *nm = unique_name(el, &priv->syms, src->name ? src->name : "equation");
        mel__sym *s = nm ? mel__sym_add(&priv->syms, el->ma, nm) : NULL;
        if (s == NULL)
            goto nomem_iu;
        s->kind = MEL_SYM_EQN;
        s->index = (uint32_t)q;
        dst->name = (char *)s->name;
        dst->guard = rebuild(el, &rm, src->guard);
        dst->where = src->where;
        dst->when = src->when;
        dst->cond = src->cond;
        dst->cond_pos = src->cond_pos;
        if (el->fx != NULL && src->n_sites > 0) {
            site_repls(el, src->first_site, src->n_sites, &rv);
            dst->lhs = patch(el, src->lhs, &rv);
            dst->rhs = patch(el, src->rhs, &rv);
        } else {
            dst->lhs = src->lhs;
            dst->rhs = src->rhs;
        }
        if (!mel__inc_uses(&el->gf, &iu, (uint32_t)q, dst->lhs, dst->guard) ||
            !mel__inc_uses(&el->gf, &iu, (uint32_t)q, dst->rhs, dst->guard))
            goto nomem_iu;
    }
    {
        int irc = mel__inc_build(&iu, eqs, el->ma, &el->gf, &n_edges);
        if (irc == MDAE_E_NOMEM && el->gf.err == MDAE_OK)
            goto nomem_iu;
    }
    mdae_free(iu.p);
    if (el->gf.err != MDAE_OK) {
        rc = el->gf.err;
        if (rc == MDAE_E_LIMIT)
            mel__error(el->rep, MDAE_E_LIMIT, el->model->where, "a guard is too large");
        goto out;
    }
    /* events */
    mel_event *evs = NULL;
    if (el->events.n > 0) {
        evs = mel__arena_alloc(el->ma, el->events.n * sizeof *evs);
        if (evs == NULL)
            goto nomem;
        memcpy(evs, el->events.p, el->events.n * sizeof *evs);
    }
    m->n_modes = n_modes;
    m->modes = modes;
    m->n_invariants = (uint32_t)invs.n;
    m->invariants = iv;
    m->n_variables = n_vars;
    m->variables = vars;
    m->n_equations = (uint32_t)el->eqns.n;
    m->equations = eqs;
    m->n_edges = n_edges;
    m->n_params = n_params;
    m->n_integers = n_ints;
    m->n_events = (uint32_t)el->events.n;
    m->events = evs;
    if (build_knowns(el, m) != MDAE_OK || (el->fx != NULL && fx_pool_failed(el->fx)) ||
        el->rep->stop)
        goto nomem;
    if (wl.n > 0) {
        mel_when *ws = mdae_calloc(wl.n, sizeof *ws);
        if (ws == NULL)
            goto nomem;
        priv->whens = ws;
        for (size_t k = 0; k < wl.n; k++) {
            const mel_event *ev = &evs[((long *)wl.p)[k]];
            ws[k].where = ev->where;
            for (size_t i = 0; i < invs.n; i++)
                if (iv[i].when == k + 1)
                    ws[k].cond = mel__g_not(&el->gf, iv[i].cond);
        }
        m->n_whens = (uint32_t)wl.n;
        m->whens = ws;
    }
    goto out;
nomem_iu:
    mdae_free(iu.p);
nomem:
    rc = MDAE_E_NOMEM;
    mel__nomem(el->rep);
out:
    mdae_free(rv.p);
    mdae_free(rm.memo);
    mdae_free(invs.p);
    mdae_free(wl.p);
    return rc;
}

static void elab_close(elab *el)
{
    mel__gf_close(&el->gf);
    mel__symtab_close(&el->vars_by_name);
    mdae_free(el->sorted.p);
    mdae_free(el->multi.p);
    mel__symtab_close(&el->atoms_by_key);
    mel__symtab_close(&el->types);
    mdae_free(el->vars.p);
    mdae_free(el->atoms.p);
    mdae_free(el->eqns.p);
    mdae_free(el->uses.p);
    mdae_free(el->events.p);
    mdae_free(el->classes.p);
    mdae_free(el->cur_uses.p);
    mdae_free(el->sites.p);
    mel__arena_free(&el->tmp);
}

static int elaborate(const mo__class *top, const mel_options *opt, mel__report *rep,
                     mel_model **out)
{
    elab el = {.rep = rep, .opt = opt, .cur_when = -1, .max_instances = mel__max_instances(opt)};
    mel_model *m = mel__elab_open(rep, &el.tmp, &el.gf, &el.ma);
    if (m == NULL) {
        elab_close(&el);
        return MDAE_E_NOMEM;
    }
    struct mel_model_priv *priv = el.priv = m->priv;
    int rc = MDAE_OK;

    register_classes(&el, top, NULL);
    const mo__class *model = find_model(&el, top);
    el.model = model;
    if (model == NULL || rep->stop)
        goto done;
    for (const mo__comp *k = model->comps; k != NULL && !rep->stop; k = k->next)
        declare(&el, k);
    if (rep->stop)
        goto done; /* out of memory or a limit: names may be missing */
    for (size_t i = 0; i < el.vars.n; i++) {
        named_ix *slot = vec_push(&el, &el.sorted, sizeof *slot);
        if (slot == NULL)
            break;
        slot->name = VAR(&el, i)->name;
        slot->i = (long)i;
    }
    if (el.sorted.n > 1)
        qsort(el.sorted.p, el.sorted.n, sizeof(named_ix), cmp_var_name);
    if (rep->stop)
        goto done;
    for (const mo__section *s = model->sections; s != NULL; s = s->next)
        if (s->kind == MO_SEC_EQUATION || s->kind == MO_SEC_ALGORITHM)
            mark_when(&el, s->stmts, false);
    infer_clocks(&el, model);
    if (rep->stop)
        goto done;
    for (size_t i = 0; i < el.vars.n && !el.has_clocks; i++)
        el.has_clocks = VAR(&el, i)->clocked || VAR(&el, i)->type == T_CLOCK;
    /* unknowns, in declaration order */
    long n_unknowns = 0;
    for (size_t i = 0; i < el.vars.n; i++) {
        mvar *v = VAR(&el, i);
        if (v->type == T_REAL && !(v->prefixes & (MO_P_PARAMETER | MO_P_CONSTANT |
                                                  MO_P_DISCRETE)) &&
            !(v->prefixes & MO_P_INPUT) && !v->when_assigned && !v->clocked)
            v->unknown = n_unknowns++;
    }
    /* issue 38: the expressions' pool (owned by the model) and the known
     * quantities' indices */
    priv->exprs = el.fx = fx_pool_new(); /* the structure is read from them */
    if (el.fx == NULL) {
        rc = MDAE_E_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < el.vars.n; i++) {
        mvar *v = VAR(&el, i);
        if ((v->prefixes & (MO_P_PARAMETER | MO_P_CONSTANT)) &&
            (v->type == T_REAL || v->type == T_INT || v->type == T_BOOL || v->type == T_ENUM))
            v->known = el.n_knowns++;
    }
    /* bindings of non-parameters are equations */
    for (const mo__comp *k = model->comps; k != NULL && !rep->stop; k = k->next) {
        if (k->binding == NULL || (k->prefixes & (MO_P_PARAMETER | MO_P_CONSTANT)))
            continue;
        if (k->n_dims > 0) {
            err(&el, MDAE_E_MODEL, k->binding->where,
                "bindings of arrays are not supported: write one equation per element");
            continue;
        }
        mo__stmt *st = mel__arena_alloc(&el.tmp, sizeof *st);
        mo__expr *lhs = mel__arena_alloc(&el.tmp, sizeof *lhs);
        mo__part *part = mel__arena_alloc(&el.tmp, sizeof *part);
        if (st == NULL || lhs == NULL || part == NULL) {
            mel__nomem(rep);
            break;
        }
        part->name = k->name;
        lhs->kind = MO_E_REF;
        lhs->n_parts = 1;
        lhs->parts = part;
        lhs->where = k->where;
        st->kind = MO_S_EQ;
        st->lhs = lhs;
        st->rhs = k->binding;
        st->where.start = k->where.start;
        st->where.end = k->binding->where.end;
        equation_unless_left_out(&el, st, mel__g_true());
    }
    for (const mo__section *s = model->sections; s != NULL && !rep->stop; s = s->next) {
        switch (s->kind) {
        case MO_SEC_EQUATION:
            equations(&el, s->stmts, mel__g_true());
            break;
        case MO_SEC_ALGORITHM: {
            alg a;
            memset(&a, 0, sizeof a);
            alg_stmts(&el, &a, s->stmts);
            /* one equation per assigned unknown, incident on all it reads */
            if (a.assigned.n > 1)
                qsort(a.assigned.p, a.assigned.n, sizeof(use), cmp_use);
            use *as = a.assigned.p;
            for (size_t i = 0; i < a.assigned.n && !rep->stop; i++) {
                if (i > 0 && as[i].var == as[i - 1].var)
                    continue;
                mo__stmt st;
                memset(&st, 0, sizeof st);
                st.where = s->where;
                long vi = -1;
                for (size_t v = 0; v < el.vars.n; v++)
                    if (VAR(&el, v)->unknown == (long)as[i].var) {
                        vi = (long)v;
                        break;
                    }
                char buf[1200];
                snprintf(buf, sizeof buf, "algorithm: %s", vi >= 0 ? VAR(&el, vi)->name : "?");
                const char *nm = mdup(&el, &el.tmp, buf, strlen(buf));
                const env *save = el.env;
                el.env = NULL;
                /* x = the algorithm (its text), reading all it reads */
                eq_fx fx = {NULL, NULL, el.sites.n};
                if (el.fx != NULL) {
                    fx.lhs = fx_var(el.fx, as[i].var, 0, as[i].where);
                    fx.rhs = alg_opaque(&el, &a, s->where);
                }
                new_equation(&el, &st, nm, mel__g_true(), &a.reads, &fx);
                el.env = save;
            }
            mdae_free(a.reads.p);
            mdae_free(a.assigned.p);
            break;
        }
        case MO_SEC_INITIAL_EQUATION:
        case MO_SEC_INITIAL_ALGORITHM:
            for (const mo__stmt *st = s->stmts; st != NULL; st = st->next) {
                char *t = stmt_text(&el, st);
                add_event(&el, MEL_EV_INITIAL, t, st->where, -1);
            }
            break;
        }
    }
    if (rep->stop || rep->rc != MDAE_OK)
        goto done;
    rc = build(&el, m);
    if (rc == MDAE_OK && (m->name = model_name(&el, model)) == NULL)
        rc = MDAE_E_NOMEM;
done:
    if (rc == MDAE_OK && rep->rc != MDAE_OK)
        rc = rep->rc;
    elab_close(&el);
    if (rc != MDAE_OK) {
        mel_model_free(m);
        return rc;
    }
    if (opt->no_expressions)
        mel__drop_expressions(m);
    *out = m;
    return MDAE_OK;
}

/* mo_model_parse's own steps (mel__front_parse): parse, recover, elaborate. */
static int parse_and_elaborate(const char *text, size_t len, const mel_options *opt,
                               mel__report *rep, mel__arena *ast, mel_model **out)
{
    mo__class *top = NULL;
    int rc = mo__parse(text, len, opt->max_depth, ast, rep, &top);
    if (rc == MDAE_E_PARSE && rep->recover && !rep->stop && top != NULL)
        rc = rep->rc = MDAE_OK; /* elaborate what parsed (mel.h, "Recovery") */
    if (rc != MDAE_OK)
        return rc;
    rc = elaborate(top, opt, rep, out);
    if (rc == MDAE_OK)
        (*out)->modelica = true;
    return rc;
}

int mo_model_parse(const char *text, size_t len, const mel_options *opt, mel_model **out,
                   mdae_diags *diags)
{
    return mel__front_parse(text, len, opt, out, diags, parse_and_elaborate);
}

/* The offset of the first byte of text[i..len) that is neither blank space
 * nor inside a comment (an unterminated block comment runs to the end). */
static size_t skip_blank_and_comments(const char *text, size_t len, size_t i)
{
    for (;;) {
        while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
            i++;
        if (i + 1 < len && text[i] == '/' && text[i + 1] == '/') {
            const char *nl = memchr(text + i, '\n', len - i);
            i = nl ? (size_t)(nl - text) + 1 : len;
        } else if (i + 1 < len && text[i] == '/' && text[i + 1] == '*') {
            size_t k = i + 2;
            while (k + 1 < len && !(text[k] == '*' && text[k + 1] == '/'))
                k++;
            i = k + 1 < len ? k + 2 : len;
        } else {
            return i;
        }
    }
}

/* True if the first word of the text (after blank space and comments) opens
 * a Modelica class or file (`model M`, `within P;`, `partial model`...) and
 * is not a MEL declaration of a variable with that name (`model : real;`). */
static bool starts_like_modelica(const char *text, size_t len)
{
    static const char *const first_words[] = {
        "within", "model", "package", "block", "class", "record", "connector",
        "function", "type", "partial", "encapsulated", "operator", "expandable"};
    size_t i = skip_blank_and_comments(text, len, 0), n = 0;
    while (i + n < len && (isalnum((unsigned char)text[i + n]) || text[i + n] == '_'))
        n++;
    bool known = false;
    for (size_t k = 0; k < sizeof first_words / sizeof first_words[0] && !known; k++)
        known = strlen(first_words[k]) == n && memcmp(text + i, first_words[k], n) == 0;
    if (!known)
        return false;
    size_t next = skip_blank_and_comments(text, len, i + n);
    return next < len && text[next] != ':';
}

bool mo_is_modelica(const char *text, size_t len, const char *filename)
{
    if (filename != NULL) {
        size_t n = strlen(filename);
        if ((n >= 3 && strcmp(filename + n - 3, ".mo") == 0) ||
            (n >= 4 && strcmp(filename + n - 4, ".bmo") == 0))
            return true;
    }
    size_t i = 0;
    if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        i = 3; /* UTF-8 byte-order mark */
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
        i++;
    if (len - i >= 8 && memcmp(text + i, "//! base", 8) == 0)
        return true;
    size_t n = filename != NULL ? strlen(filename) : 0;
    if (n >= 4 && strcmp(filename + n - 4, ".mel") == 0)
        return false;
    return starts_like_modelica(text, len);
}
