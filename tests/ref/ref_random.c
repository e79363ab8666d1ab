/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/ref_random.c -- reproducible random MEL models for the
 * engine-versus-reference comparison.
 *
 * Shape of a model (most modes square by construction):
 *   - 0..4 mode variables g1.. and a few parameters p1..;
 *   - m unguarded unknowns x1..xm and m "units": a unit is one equation, or
 *     `if C then <unit + k locals + k equations> else <same> end`, so every
 *     branch adds as many equations as unknowns and each mode stays square;
 *   - optional guarded blocks `if C then x : real; e : equation ... end`
 *     (locals exist only under C and are used only inside the block);
 *   - invariants restricting the valid modes;
 *   - with nonsquare_percent, an extra equation or unknown somewhere, so some
 *     modes are non-square (singular);
 *   - with singular_edits, one or more of those edits: singular models;
 *   - with `violate`, equations sometimes use a local of another branch,
 *     which the engine must reject (RR-9322 section 4.3 consistency).
 * Equations mix derivative orders 0..max_order (der(der(x)), der(x*y)),
 * conditional expressions, external calls and non-incident uses (last, pre,
 * parameters). Random structure makes many modes singular too, which
 * exercises the Dulmage-Mendelsohn diagnostics.
 */
#include "ref.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

uint64_t ref_rand_next(uint64_t *state) {
    /* splitmix64 (Steele, Lea, Flood 2014): tiny, full-period, good enough. */
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define MAX_VARS 128

typedef struct gen {
    uint64_t st;
    ref_random_opts o;
    uint32_t n_modes, n_params;
    uint32_t next_eq, next_var;
    uint32_t budget;   /* equations still allowed in the text */
    uint32_t vis[MAX_VARS], n_vis;       /* unknowns usable here */
    uint32_t hidden[MAX_VARS], n_hidden; /* locals of closed branches */
    char *buf;
    size_t len, cap;
    bool oom;
} gen;

static uint32_t below(gen *g, uint32_t n) {
    return n ? (uint32_t)(ref_rand_next(&g->st) % n) : 0;
}

static bool chance(gen *g, int percent) {
    return (int)below(g, 100) < percent;
}

static void emit(gen *g, const char *fmt, ...) {
    if (g->oom) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        g->oom = true;
        return;
    }
    if (g->len + (size_t)n + 1 > g->cap) {
        size_t cap = g->cap ? g->cap : 256;
        while (cap < g->len + (size_t)n + 1) cap *= 2;
        char *p = mdae_realloc(g->buf, cap);
        if (!p) {
            g->oom = true;
            return;
        }
        g->buf = p;
        g->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(g->buf + g->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    g->len += (size_t)n;
}

static void indent(gen *g, int depth) {
    emit(g, "%*s", 2 * depth, "");
}

/* A mode literal `g2` or `!g2`. */
static void emit_literal(gen *g) {
    emit(g, "%sg%u", chance(g, 40) ? "!" : "", 1 + below(g, g->n_modes));
}

/* A Boolean formula over the mode variables (n_modes > 0). */
static void emit_cond(gen *g) {
    switch (below(g, 10)) {
    case 0: case 1: case 2: case 3: case 4:
        emit_literal(g);
        break;
    case 5: case 6:
        emit_literal(g), emit(g, " & "), emit_literal(g);
        break;
    case 7: case 8:
        emit_literal(g), emit(g, " | "), emit_literal(g);
        break;
    default:
        emit(g, "!("), emit_literal(g), emit(g, " & "), emit_literal(g), emit(g, ")");
        break;
    }
}

/* A usable unknown; with `violate`, sometimes one that does not exist here. */
static uint32_t pick_var(gen *g) {
    if (g->o.violate && g->n_hidden && chance(g, 30))
        return g->hidden[below(g, g->n_hidden)];
    return g->vis[below(g, g->n_vis)];
}

/* Orders are skewed towards 0 and 1, as in real models. */
static int pick_order(gen *g) {
    int o = (int)below(g, (uint32_t)g->o.max_order + 1);
    return chance(g, 50) ? o / 2 : o;
}

static void emit_ders(gen *g, int order, bool open) {
    for (int k = 0; k < order; k++) emit(g, open ? "der(" : ")");
}

/* A term with incidences: der^k of a variable, a product, or a call. */
static void emit_var_term(gen *g) {
    int order = pick_order(g);
    emit_ders(g, order, true);
    switch (below(g, 6)) {
    case 0: /* der(x * y): both at the same order */
        emit(g, "x%u * x%u", 1 + pick_var(g), 1 + pick_var(g));
        break;
    case 1: /* f(x, der(y)): a call passes incidences through */
        emit(g, "f(x%u, der(x%u))", 1 + pick_var(g), 1 + pick_var(g));
        break;
    case 2:
        emit(g, "%sx%u", g->n_params && chance(g, 50) ? "p1 * " : "", 1 + pick_var(g));
        break;
    default:
        emit(g, "x%u", 1 + pick_var(g));
        break;
    }
    emit_ders(g, order, false);
}

/* A term without incidence (left limits, parameters, literals). */
static void emit_dead_term(gen *g) {
    switch (below(g, 4)) {
    case 0: emit(g, "last(x%u)", 1 + pick_var(g)); break;
    case 1: emit(g, "pre(der(x%u))", 1 + pick_var(g)); break;
    case 2: emit(g, g->n_params ? "p1" : "1.5"); break;
    default: emit(g, "2"); break;
    }
}

static void emit_term(gen *g, int depth) {
    unsigned r = below(g, 20);
    if (r < 4 && g->n_modes && depth < 2) {
        emit(g, "(if "), emit_cond(g), emit(g, " then ");
        if (chance(g, 85)) emit_term(g, depth + 1); else emit(g, "0");
        emit(g, " else ");
        if (chance(g, 85)) emit_term(g, depth + 1); else emit(g, "0");
        emit(g, ")");
    } else if (r < 6) {
        emit_dead_term(g);
    } else {
        emit_var_term(g);
    }
}

static void emit_equation(gen *g, int depth) {
    static const char *const ops[] = {" + ", " - ", " * "};
    indent(g, depth);
    emit(g, "e%u : equation ", ++g->next_eq);
    unsigned n = 1 + below(g, 3);
    for (unsigned t = 0; t < n; t++) {
        if (t) emit(g, "%s", ops[below(g, 3)]);
        emit_term(g, 0);
    }
    emit(g, " = ");
    if (chance(g, 60)) emit(g, "0"); else emit_term(g, 0);
    emit(g, ";\n");
    if (g->budget) g->budget--;
}

static void declare_local(gen *g, int depth) {
    uint32_t v = g->next_var++;
    indent(g, depth);
    emit(g, "x%u : real;\n", v + 1);
    if (g->n_vis < MAX_VARS) g->vis[g->n_vis++] = v;
}

/* Pop the locals of a branch: they become "hidden" (not usable outside). */
static void close_branch(gen *g, uint32_t vis_mark) {
    while (g->n_vis > vis_mark) {
        uint32_t v = g->vis[--g->n_vis];
        if (g->n_hidden < MAX_VARS) g->hidden[g->n_hidden++] = v;
    }
}

static uint32_t gen_unit(gen *g, int depth, uint32_t spare);

/* One branch of a conditional unit: k locals, one unit and k more equations,
 * so the branch is square. Returns the equations used (<= 1 + spare). */
static uint32_t gen_branch(gen *g, int depth, uint32_t spare) {
    uint32_t mark = g->n_vis, k = 0;
    int p = g->o.violate ? 70 : 40;
    if (spare >= 1 && chance(g, p)) k = 1 + below(g, spare >= 2 ? 2 : 1);
    for (uint32_t t = 0; t < k; t++) declare_local(g, depth);
    if (g->n_modes >= 2 && chance(g, 8)) {
        indent(g, depth), emit(g, "invariant "), emit_cond(g), emit(g, ";\n");
    }
    uint32_t used = gen_unit(g, depth, spare - k);
    for (uint32_t t = 0; t < k; t++) emit_equation(g, depth);
    close_branch(g, mark);
    return used + k;
}

/* A unit: in every mode, exactly one equation of it... or one more equation
 * and unknown per local. Uses between 1 and 1 + spare equations. */
static uint32_t gen_unit(gen *g, int depth, uint32_t spare) {
    if (g->n_modes == 0 || depth >= 3 || spare == 0 || chance(g, 45)) {
        emit_equation(g, depth);
        return 1;
    }
    uint32_t spare_then = below(g, spare); /* then + else use >= 2 */
    indent(g, depth), emit(g, "if "), emit_cond(g), emit(g, " then\n");
    uint32_t used = gen_branch(g, depth + 1, spare_then);
    indent(g, depth), emit(g, "else\n");
    used += gen_branch(g, depth + 1, spare - used);
    indent(g, depth), emit(g, "end;\n");
    return used;
}

/* `if C then x : real; e : equation ... end`: square under C, absent else. */
static uint32_t gen_guarded_block(gen *g, uint32_t spare) {
    uint32_t mark = g->n_vis, k = 1 + below(g, spare >= 2 ? 2 : 1);
    emit(g, "if "), emit_cond(g), emit(g, " then\n");
    for (uint32_t t = 0; t < k; t++) declare_local(g, 1);
    for (uint32_t t = 0; t < k; t++) emit_equation(g, 1);
    emit(g, "end;\n");
    close_branch(g, mark);
    return k;
}

/* Deliberately break squareness: an extra (maybe guarded) equation, or an
 * extra unknown. */
static void gen_nonsquare(gen *g) {
    unsigned r = below(g, 3);
    if (r == 0 || g->budget == 0) {
        uint32_t v = g->next_var++;
        emit(g, "x%u : real;\n", v + 1);
        if (chance(g, 50) && g->n_vis < MAX_VARS) g->vis[g->n_vis++] = v;
    } else if (r == 1 || g->n_modes == 0) {
        emit_equation(g, 0);
    } else {
        emit(g, "if "), emit_cond(g), emit(g, " then\n");
        emit_equation(g, 1);
        emit(g, "end;\n");
    }
}

/* `when C then <1-2 equations over the unguarded unknowns> end`, one of
 * them perhaps `next(x) = term` (transient modes, issue 13 item 5). */
static void gen_when(gen *g) {
    emit(g, "when ");
    if (g->o.max_whens > 1 && chance(g, 70)) /* cascades: conjunctions (T6) */
        emit_literal(g), emit(g, " & "), emit_literal(g);
    else if (chance(g, 70)) emit(g, "g%u", 1 + below(g, g->n_modes)); else emit_cond(g);
    emit(g, " then\n");
    uint32_t n = 1 + below(g, 2);
    for (uint32_t k = 0; k < n; k++) {
        if (k + 1 == n && chance(g, 40)) {
            emit(g, "  e%u : equation next(x%u) = ", ++g->next_eq, 1 + g->vis[below(g, g->n_vis)]);
            emit_term(g, 0);
            emit(g, ";\n");
        } else {
            emit_equation(g, 1);
        }
    }
    emit(g, "end;\n");
}

static void gen_model(gen *g) {
    g->n_modes = below(g, g->o.max_modes + 1);
    g->n_params = below(g, 2);
    uint32_t total = 1 + below(g, g->o.max_equations);
    g->budget = total;
    uint32_t m = 1 + below(g, total);
    emit(g, "// random model (ref_random_model)\n");
    for (uint32_t k = 0; k < g->n_modes; k++) emit(g, "g%u : boolean;\n", k + 1);
    for (uint32_t k = 0; k < g->n_params; k++) emit(g, "p%u : real = 1.5;\n", k + 1);
    for (uint32_t j = 0; j < m; j++) {
        emit(g, "x%u : real;\n", j + 1);
        g->vis[g->n_vis++] = j;
    }
    g->next_var = m;
    if (g->n_modes >= 2 && chance(g, 30)) {
        emit(g, "invariant "), emit_cond(g), emit(g, ";\n");
    }
    /* m units: each uses 1 + (part of the spare budget) equations. */
    uint32_t spare = total - m;
    for (uint32_t u = 0; u < m; u++) {
        uint32_t give = u + 1 == m ? spare : below(g, spare + 1);
        uint32_t used = gen_unit(g, 0, give);
        spare -= used - 1;
    }
    if (g->n_modes && spare && chance(g, 50)) gen_guarded_block(g, spare);
    if (g->o.violate && g->n_modes && g->n_hidden == 0)
        gen_guarded_block(g, 1); /* something to misuse */
    if (g->o.violate && g->n_hidden) {
        /* At least one use of a local outside its block. */
        emit(g, "e%u : equation x%u = der(x%u);\n", ++g->next_eq,
             1 + g->hidden[below(g, g->n_hidden)], 1 + g->vis[below(g, g->n_vis)]);
    }
    if (chance(g, g->o.nonsquare_percent)) gen_nonsquare(g);
    if (g->o.when_percent > 0 && g->n_modes && chance(g, g->o.when_percent)) {
        gen_when(g);
        for (uint32_t k = g->o.max_whens > 1 ? below(g, g->o.max_whens) : 0; k > 0; k--)
            gen_when(g);
    }
    for (uint32_t k = g->o.singular_edits ? 1 + below(g, g->o.singular_edits) : 0; k > 0; k--)
        gen_nonsquare(g);
}

char *ref_random_model(uint64_t seed, const ref_random_opts *o) {
    gen g;
    memset(&g, 0, sizeof g);
    g.st = seed;
    if (o) g.o = *o;
    if (g.o.max_modes == 0 || g.o.max_modes > 12) g.o.max_modes = 4;
    if (g.o.max_equations == 0 || g.o.max_equations > 100) g.o.max_equations = 7;
    if (g.o.max_order <= 0 || g.o.max_order > 10) g.o.max_order = 3;
    gen_model(&g);
    if (g.oom || !g.buf) {
        mdae_free(g.buf);
        return NULL;
    }
    return g.buf;
}

mel_model *ref_random_parsed(uint64_t seed, const ref_random_opts *o) {
    char *text = ref_random_model(seed, o);
    if (!text) return NULL;
    mel_model *m = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    int rc = mel_model_parse(text, strlen(text), NULL, &m, &d);
    mdae_diags_close(&d);
    mdae_free(text);
    if (rc != MDAE_OK) {
        mel_model_free(m);
        return NULL;
    }
    return m;
}
