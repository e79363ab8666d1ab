/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis_print.c -- the text of a RIMIS (engine/rimis.h, "Output
 * layout"), from what rimis_build.c, rimis_names.c and rimis_eqs.c made:
 * declarations (knowns as `mdae convert` prints them, source variables,
 * mode variables -- `input Boolean` when free --, dummy derivatives,
 * replicates with what they stand for), then the equations section by
 * section, each equation starting a line of its own, recorded in
 * res->eqs with that line, and the blocks' groups. Unknowns print under
 * the output's names (fx_print_named); names that are not Modelica
 * identifiers are quoted (fx_print_name).
 */
#include "mo_write.h"
#include "rimis_core.h"

#include <assert.h>
#include <string.h>

typedef struct printer {
    rc_build *b;
    mdae_buf out;
    size_t scanned;  /* bytes of out whose newlines are counted */
    uint32_t lines;  /* newlines in out[0 .. scanned) */
    size_t cap_eqs;
    fx_namer namer;
    mo__decl *decls; /* names only texts read (mo__undeclared) */
    size_t n_decls;
} printer;

static const mdae_range r0;

static const char *var_name(void *ctx, uint32_t var)
{
    const rc_build *b = ctx;
    return var < b->res->n_vars ? b->res->vars[var].name : NULL;
}

static void puts_(printer *p, const char *s)
{
    mdae_buf_puts(&p->out, s);
}

static void put_name(printer *p, const char *s)
{
    fx_print_name(&p->out, s, FX_SYNTAX_MODELICA);
}

static void put_expr(printer *p, const fx_node *e)
{
    fx_print_named(&p->out, p->b->m, e, FX_SYNTAX_MODELICA, &p->namer);
}

static void put_var(printer *p, uint32_t v)
{
    put_name(p, p->b->res->vars[v].name);
}

/* Text for a comment: no line breaks. */
static void put_comment(printer *p, const char *s)
{
    for (; *s; s++) {
        char c = (*s == '\n' || *s == '\r') ? ' ' : *s;
        mdae_buf_put(&p->out, &c, 1);
    }
}

/* A source name with a prime per order (x'), for comments. */
static void put_item(printer *p, const char *name, int order)
{
    put_comment(p, name);
    for (int k = 0; k < order; k++)
        puts_(p, "'");
}

/* The current line (1-based); MDAE_E_LIMIT past max_lines. */
static uint32_t line_now(printer *p)
{
    if (p->out.oom)
        rc__oom(p->b);
    for (; p->scanned < p->out.len; p->scanned++)
        p->lines += p->out.p[p->scanned] == '\n';
    size_t max = p->b->opt->max_lines ? p->b->opt->max_lines : 10000000;
    if (p->lines >= max) {
        mdae_diags_add(p->b->diags, MDAE_SEV_ERROR, r0,
                       "the RIMIS has more than %zu lines (rimis_options.max_lines)", max);
        sa__fail(p->b->c, MDAE_E_LIMIT);
    }
    size_t max_bytes = p->b->opt->max_bytes ? p->b->opt->max_bytes : (size_t)64 << 20;
    if (p->out.len > max_bytes) {
        mdae_diags_add(p->b->diags, MDAE_SEV_ERROR, r0,
                       "the RIMIS is larger than %zu bytes, more than mdae reads back "
                       "(rimis_options.max_bytes): its blocks take too many forms across "
                       "the modes",
                       max_bytes);
        sa__fail(p->b->c, MDAE_E_LIMIT);
    }
    return p->lines + 1;
}

/* A new equation of the result, starting on the current line. */
static uint32_t new_eq(printer *p, rimis_eq_kind kind, long defines)
{
    rimis_result *res = p->b->res;
    if (res->n_eqs == p->cap_eqs) {
        size_t cap = p->cap_eqs ? 2 * p->cap_eqs : 64;
        rimis_eq *q = mdae_realloc(res->eqs, cap * sizeof *q);
        if (q == NULL)
            rc__oom(p->b);
        res->eqs = q;
        p->cap_eqs = cap;
    }
    uint32_t k = res->n_eqs++;
    res->eqs[k] = (rimis_eq){.kind = kind, .line = line_now(p), .block = -1, .equation = -1,
                             .defines = defines};
    return k;
}

/* ---- Declarations ----------------------------------------------------------- */

static void declare_modes(printer *p)
{
    const mel_model *m = p->b->m;
    for (uint32_t k = 0; k < m->n_modes; k++) {
        if (fx_mode_is_atom(m, k))
            continue;
        if (mel_model_find_known(m, m->modes[k].name) >= 0)
            continue;
        bool free = p->b->mode_def[k] == NULL;
        puts_(p, free ? "  input Boolean " : "  Boolean ");
        put_name(p, m->modes[k].name);
        puts_(p, free ? "; // free mode variable\n" : ";\n");
    }
}

/* Whether start value e reads only numbers and knowns (a parameter
 * expression, as Modelica requires of start values; one reading an unknown
 * or a mode is left out rather than renamed). */
static bool reads_knowns_only(const fx_node *e, unsigned depth)
{
    if (depth > 64)
        return false;
    switch ((fx_op)e->op) {
    case FX_VAR: case FX_MODE: case FX_TIME: case FX_OPAQUE: case FX_DER: case FX_PRE:
    case FX_LAST: case FX_NEXT:
        return false;
    default:
        break;
    }
    for (uint32_t i = 0; i < e->n; i++)
        if (!reads_knowns_only(e->kids[i], depth + 1))
            return false;
    return true;
}

/* x's `(start = e[, fixed = true])` (rimis.h step 2): the source's start
 * value goes on the variable that holds V(u, 0): u itself when FACTORED
 * (fixed as the source says), a state replicate rho(b, u, 0) (idem, RR-9459
 * Fig. 13's x_3). Algebraic holders, u when DIRECT and an algebraic
 * replicate, keep it as a guess (no fixed: fixing an algebraic unknown
 * over-determines initialisation). A multiplexed u gets none: its
 * replicates carry it, and `u = if ...` defines it. */
static void put_start(printer *p, const rimis_var *x)
{
    const mel_variable *u = &p->b->m->variables[x->var];
    if (x->order != 0 || u->start == NULL || !reads_knowns_only(u->start, 0))
        return;
    bool fixed;
    if (x->kind == RIMIS_V_SOURCE) {
        rc_class cl = rc__class(p->b, x->var, 0, NULL);
        if (cl == RC_REPL)
            return;
        fixed = cl == RC_FACTORED && u->fixed;
    } else if (x->kind == RIMIS_V_REPLICATE) {
        fixed = x->state && u->fixed;
    } else {
        return;
    }
    puts_(p, "(start = ");
    put_expr(p, u->start);
    puts_(p, fixed ? ", fixed = true)" : ")");
}

static void declare_vars(printer *p, rimis_var_kind kind, const char *title)
{
    const rimis_result *res = p->b->res;
    bool any = false;
    for (uint32_t v = 0; v < res->n_vars; v++) {
        const rimis_var *x = &res->vars[v];
        if (x->kind != kind && !(kind == RIMIS_V_REPLICATE && x->kind == RIMIS_V_READ))
            continue;
        if (!any)
            puts_(p, title);
        any = true;
        puts_(p, "  Real ");
        put_name(p, x->name);
        put_start(p, x);
        puts_(p, ";");
        if (x->kind == RIMIS_V_REPLICATE || x->kind == RIMIS_V_READ) {
            puts_(p, " // ");
            put_item(p, p->b->m->variables[x->var].name, x->order);
            puts_(p, x->kind == RIMIS_V_READ ? " read under " : " if ");
            puts_(p, x->cond >= 0 ? res->conds[x->cond].text : "true");
        }
        puts_(p, "\n");
    }
}

static void declarations(printer *p)
{
    const mel_model *m = p->b->m;
    if (m->n_knowns > 0) {
        puts_(p, "  // Known quantities\n");
        mo__write_knowns(&p->out, m);
    }
    mo__write_undeclared(&p->out, m, p->decls, p->n_decls, false);
    puts_(p, "  // Source variables\n");
    declare_vars(p, RIMIS_V_SOURCE, "");
    declare_modes(p);
    declare_vars(p, RIMIS_V_DUMMY, "  // Dummy derivatives\n");
    declare_vars(p, RIMIS_V_REPLICATE, "  // Replicate variables\n");
}

/* ---- Equations --------------------------------------------------------------- */

static void mode_equations(printer *p)
{
    const rc_build *b = p->b;
    bool any = false;
    for (uint32_t k = 0; k < b->m->n_modes; k++) {
        if (b->mode_def[k] == NULL || fx_mode_is_atom(b->m, k))
            continue;
        if (!any)
            puts_(p, "  // Mode equations\n");
        any = true;
        new_eq(p, RIMIS_EQ_MODE, -1);
        puts_(p, "  ");
        put_name(p, b->m->modes[k].name);
        puts_(p, " = ");
        put_expr(p, b->mode_def[k]);
        puts_(p, ";\n");
    }
}

static void diff_equations(printer *p)
{
    const rc_diff *d = p->b->diff.p;
    for (size_t k = 0; k < p->b->diff.n; k++) {
        if (k == 0)
            puts_(p, "  // Differential equations\n");
        new_eq(p, RIMIS_EQ_DIFF, d[k].state);
        puts_(p, "  der(");
        put_var(p, d[k].state);
        puts_(p, ") = ");
        put_var(p, d[k].rate);
        puts_(p, ";\n");
    }
}

/* if conds[0] then rhos[0] else ... as one expression. */
static const fx_node *multi_expr(rc_build *b, const rc_multi *x)
{
    if (x->n == 0)
        return fx_num(b->pool, 0, true, r0);
    const fx_node *e = fx_var(b->pool, x->rhos[x->n - 1], 0, r0);
    for (uint32_t i = x->n - 1; i-- > 0;)
        e = fx_if(b->pool, x->conds[i], fx_var(b->pool, x->rhos[i], 0, r0), e, r0);
    if (e == NULL)
        rc__oom(b);
    return e;
}

static void multiplexers(printer *p)
{
    const rc_multi *x = p->b->multi.p;
    for (size_t k = 0; k < p->b->multi.n; k++) {
        if (k == 0)
            puts_(p, "  // Multiplexing\n");
        new_eq(p, RIMIS_EQ_MULTI, x[k].var);
        p->b->res->n_multiplexers++;
        puts_(p, "  ");
        put_var(p, x[k].var);
        puts_(p, " = ");
        put_expr(p, multi_expr(p->b, &x[k]));
        puts_(p, x[k].n == 0 ? "; // exists in no valid mode\n" : ";\n");
    }
}

static void put_items(printer *p, const cdg_item *v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        puts_(p, k ? " " : "");
        put_item(p, v[k].name, v[k].order);
    }
}

static void block_header(printer *p, uint32_t blk)
{
    const cdg_block *k = &p->b->blk[blk];
    long ci = p->b->bcond[blk];
    puts_(p, "  // Block ");
    if (ci >= 0) {
        put_comment(p, p->b->res->conds[ci].text);
        puts_(p, ": ");
    }
    if (k->n_reads > 0) {
        put_items(p, k->reads, k->n_reads);
        puts_(p, " -- ");
    }
    put_items(p, k->equations, k->n_equations);
    puts_(p, " -> ");
    put_items(p, k->unknowns, k->n_unknowns);
    puts_(p, "\n");
}

static void block_equation(printer *p, const rc_beq *e)
{
    uint32_t k = new_eq(p, RIMIS_EQ_BLOCK, e->w);
    rimis_eq *q = &p->b->res->eqs[k];
    q->block = e->block;
    q->equation = e->eq;
    q->order = e->order;
    q->guarded = e->guard != NULL;
    puts_(p, "  ");
    if (e->guard != NULL) {
        puts_(p, "if ");
        put_expr(p, e->guard);
        puts_(p, " then ");
    }
    fx_print_lhs(&p->out, p->b->m, e->lhs, FX_SYNTAX_MODELICA, &p->namer);
    puts_(p, " = ");
    put_expr(p, e->rhs);
    if (e->guard != NULL) {
        puts_(p, "; else ");
        put_expr(p, e->alt);
        puts_(p, " = 0; end if");
    }
    puts_(p, ";\n");
}

static void blocks(printer *p)
{
    rc_build *b = p->b;
    rimis_result *res = b->res;
    res->groups = mdae_calloc(b->nb + 1, sizeof *res->groups);
    if (res->groups == NULL)
        rc__oom(b);
    const rc_beq *e = b->beq.p;
    size_t at = 0;
    for (uint32_t blk = 0; blk < b->nb; blk++) {
        rimis_group *gr = &res->groups[blk];
        res->n_groups = blk + 1; /* freed with the result from now on */
        gr->block = blk;
        gr->cond = b->bcond[blk];
        gr->eqs = mdae_malloc((b->blk[blk].n_equations + 1) * sizeof *gr->eqs);
        if (gr->eqs == NULL)
            rc__oom(b);
        block_header(p, blk);
        for (; at < b->beq.n && e[at].block == blk; at++) {
            gr->eqs[gr->n_eqs++] = res->n_eqs;
            block_equation(p, &e[at]);
        }
    }
}

/* `when {c} then reinit(v, e); end when;`: the braces (a vector of one
 * condition, the same event in Modelica: c becoming true) keep a reader
 * of the papers' Modelica (engine/mo_elab.c) from taking c for a
 * transient mode, which `when c` with a reinit declares there: c is a
 * long mode of the output. */
static void reinits(printer *p)
{
    const rc_reinit *x = p->b->reinit.p;
    for (size_t k = 0; k < p->b->reinit.n; k++) {
        if (k == 0)
            puts_(p, "  // Replicate reinitializations\n");
        new_eq(p, RIMIS_EQ_REINIT, -1);
        p->b->res->n_reinits++;
        puts_(p, "  when {");
        put_expr(p, x[k].cond);
        puts_(p, "} then reinit(");
        put_var(p, x[k].var);
        puts_(p, ", ");
        put_expr(p, x[k].value);
        puts_(p, "); end when;\n");
    }
}

static const fx_node *guard_fx(fx_pool *pool, const mel_guard *g)
{
    switch (g->op) {
    case MEL_G_FALSE: return fx_bool(pool, false, r0);
    case MEL_G_TRUE: return fx_bool(pool, true, r0);
    case MEL_G_VAR: return fx_mode(pool, g->var, r0);
    case MEL_G_NOT: return fx_un(pool, FX_NOT, guard_fx(pool, g->lhs), r0);
    case MEL_G_AND:
    case MEL_G_OR:
        return fx_bin(pool, g->op == MEL_G_AND ? FX_AND : FX_OR, guard_fx(pool, g->lhs),
                      guard_fx(pool, g->rhs), r0);
    }
    return NULL;
}

static void invariants(printer *p)
{
    rc_build *b = p->b;
    bool any = false;
    for (uint32_t k = 0; k < b->m->n_invariants; k++) {
        const mel_invariant *inv = &b->m->invariants[k];
        if (inv->when != 0)
            continue;
        const char *why = NULL;
        const fx_node *e = guard_fx(b->pool, inv->cond);
        e = e != NULL ? rc__rename(b, e, UINT32_MAX, &why) : NULL;
        if (e == NULL)
            rc__oom(b);
        if (!any)
            puts_(p, "  // Invariants\n");
        any = true;
        new_eq(p, RIMIS_EQ_ASSERT, -1);
        puts_(p, "  assert(");
        put_expr(p, e);
        puts_(p, ", \"invariant of the source model\");\n");
    }
}

/* The source's when-clauses as rimis_mc.c printed them: a clause starts
 * on each line that starts with "  when ". */
static void source_whens(printer *p)
{
    const char *t = p->b->whens;
    if (t == NULL || *t == '\0')
        return;
    puts_(p, "  // When-clauses of the source\n");
    while (*t != '\0') {
        size_t n = strcspn(t, "\n");
        if (strncmp(t, "  when ", 7) == 0)
            new_eq(p, RIMIS_EQ_WHEN, -1);
        mdae_buf_put(&p->out, t, n);
        puts_(p, "\n");
        t += n + (t[n] == '\n');
        line_now(p);
    }
}

/* The source's discrete equations and asserts, as `mdae convert` prints
 * them (its when-clauses are the mode-change step's: rimis_mc.c). */
static void source_events(printer *p)
{
    mdae_buf t = {0};
    mo__write_events(&t, p->b->m, false);
    if (t.oom) {
        mdae_free(t.p);
        rc__oom(p->b);
    }
    if (t.len > 0) {
        puts_(p, "  // Events of the source\n");
        mdae_buf_put(&p->out, t.p, t.len);
    }
    mdae_free(t.p);
}

static void count_replicates(rimis_result *res)
{
    for (uint32_t v = 0; v < res->n_vars; v++)
        res->n_replicates += res->vars[v].kind == RIMIS_V_REPLICATE ||
                             res->vars[v].kind == RIMIS_V_READ;
}

static void cond_texts(printer *p)
{
    rc_build *b = p->b;
    for (uint32_t k = 0; k < b->res->n_conds; k++) {
        mdae_buf t = {0};
        fx_print_named(&t, b->m, b->cond_fx[k], FX_SYNTAX_MODELICA, &p->namer);
        if (t.oom) {
            mdae_free(t.p);
            rc__oom(b);
        }
        b->res->conds[k].text = t.p;
    }
}

static void print_all(printer *p, const char *name)
{
    cond_texts(p);
    mo__write_undeclared(&p->out, p->b->m, p->decls, p->n_decls, true);
    puts_(p, "model ");
    put_name(p, name);
    puts_(p, "\n");
    declarations(p);
    puts_(p, "equation\n");
    mode_equations(p);
    diff_equations(p);
    multiplexers(p);
    blocks(p);
    reinits(p);
    source_whens(p);
    source_events(p);
    invariants(p);
    puts_(p, "end ");
    put_name(p, name);
    puts_(p, ";\n");
    line_now(p);
}

static void free_out(void *arg)
{
    printer *p = arg;
    mdae_free(p->out.p);
    p->out.p = NULL;
    mo__decls_free(p->decls, p->n_decls);
    p->decls = NULL;
    p->n_decls = 0;
}

static const char *default_name(rc_build *b, const char *source)
{
    static const char suffix[] = "_rimis";
    size_t n = strlen(source);
    char *s = sa__alloc_raw(b->c, n + sizeof suffix);
    memcpy(s, source, n);
    memcpy(s + n, suffix, sizeof suffix);
    return s;
}

void rc__print(rc_build *b)
{
    printer p = {.b = b, .namer = {.ctx = b, .var = var_name}};
    printer *pp = sa__alloc(b->c, sizeof *pp); /* reachable from the cleanup */
    *pp = p;
    sa__push_cleanup(b->c, free_out, pp);
    if (mo__undeclared(b->m, &pp->decls, &pp->n_decls) != MDAE_OK)
        rc__oom(b);
    const char *name = b->opt->model_name;
    if (name == NULL || name[0] == '\0') /* the source's name + "_rimis" */
        name = b->m->name == NULL ? "Model_rimis" : default_name(b, b->m->name);
    print_all(pp, name);
    sa__pop_cleanup(b->c);
    mo__decls_free(pp->decls, pp->n_decls);
    count_replicates(b->res);
    b->res->text = pp->out.p != NULL ? pp->out.p : mdae_strdup("");
    if (b->res->text == NULL)
        rc__oom(b);
    b->res->text_len = strlen(b->res->text);
    b->res->n_lines = pp->lines;
}
