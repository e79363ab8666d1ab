/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/fx_sexpr.c -- the tests' S-expression printer (fx_sexpr.h).
 */
#include "fx_sexpr.h"

#include <assert.h>
#include <stdio.h>

static const char *op_text(const fx_sexpr_style *s, const fx_node *e)
{
    static const char *const ops[] = {
        [FX_NEG] = "-",   [FX_ADD] = "+",     [FX_MUL] = "*",     [FX_DIV] = "/",
        [FX_POW] = "^",   [FX_LT] = "<",      [FX_LE] = "<=",     [FX_GT] = ">",
        [FX_GE] = ">=",   [FX_EQ] = "==",     [FX_NE] = "<>",     [FX_NOT] = "!",
        [FX_AND] = "and", [FX_OR] = "or",     [FX_IF] = "if",     [FX_DER] = "der",
        [FX_PRE] = "pre", [FX_LAST] = "last", [FX_NEXT] = "next",
    };
    const char *own = e->op == FX_NEG   ? s->neg
                      : e->op == FX_NOT ? s->not_
                      : e->op == FX_AND ? s->and_
                      : e->op == FX_OR  ? s->or_
                                        : NULL;
    if (own != NULL)
        return own;
    if (e->op == FX_CALL)
        return e->fn == FX_FN_UNKNOWN ? e->name : fx_fn_name((fx_fn)e->fn);
    return e->op < sizeof ops / sizeof ops[0] && ops[e->op] != NULL ? ops[e->op] : "?";
}

/* " kid" for each kid, then ")". */
static void put_kids(mdae_buf *b, const fx_sexpr_style *s, const fx_node *e)
{
    for (uint32_t k = 0; k < e->n; k++) {
        mdae_buf_puts(b, " ");
        fx_sexpr_put(b, s, e->kids[k]);
    }
    mdae_buf_puts(b, ")");
}

/* (head kids...) */
static void put_list(mdae_buf *b, const fx_sexpr_style *s, const char *head, const fx_node *e)
{
    mdae_buf_puts(b, "(");
    mdae_buf_puts(b, head);
    put_kids(b, s, e);
}

static void put_opaque(mdae_buf *b, const fx_sexpr_style *s, const fx_node *e)
{
    switch (s->opaque) {
    case FX_SEXPR_OPAQUE_CALL:
        mdae_buf_puts(b, "[");
        put_list(b, s, e->name, e);
        mdae_buf_puts(b, "]");
        return;
    case FX_SEXPR_OPAQUE_TEXT:
        mdae_buf_puts(b, "{");
        mdae_buf_puts(b, e->name);
        mdae_buf_puts(b, "}");
        return;
    case FX_SEXPR_OPAQUE_QUOTED:
        mdae_buf_puts(b, "(opaque \"");
        mdae_buf_puts(b, e->name);
        mdae_buf_puts(b, "\"");
        put_kids(b, s, e);
        return;
    }
}

/* An unknown, known or mode by its name (s->m) or index. */
static void put_leaf_name(mdae_buf *b, const fx_sexpr_style *s, const fx_node *e)
{
    static const char *const var_names[] = {"x", "y", "z", "w", "yh"};
    char t[32];
    switch ((fx_op)e->op) {
    case FX_VAR:
        mdae_buf_puts(b, s->m != NULL ? s->m->variables[e->index].name
                         : e->index < 5 ? var_names[e->index]
                                        : "?");
        for (unsigned k = 0; k < e->order; k++)
            mdae_buf_puts(b, "'");
        return;
    case FX_KNOWN:
        if (s->m != NULL) {
            mdae_buf_puts(b, s->m->knowns[e->index].name);
            return;
        }
        snprintf(t, sizeof t, "k%u", (unsigned)e->index);
        mdae_buf_puts(b, t);
        return;
    default:
        assert(e->op == FX_MODE);
        if (s->m == NULL) {
            snprintf(t, sizeof t, "m%u", (unsigned)e->index);
            mdae_buf_puts(b, t);
            return;
        }
        mdae_buf_puts(b, s->mode_brackets ? "[" : "");
        mdae_buf_puts(b, s->m->modes[e->index].name);
        mdae_buf_puts(b, s->mode_brackets ? "]" : "");
        return;
    }
}

void fx_sexpr_put(mdae_buf *b, const fx_sexpr_style *s, const fx_node *e)
{
    char t[64];
    if (e == NULL) {
        mdae_buf_puts(b, "NULL");
        return;
    }
    switch ((fx_op)e->op) {
    case FX_NUM:
        snprintf(t, sizeof t, s->short_numbers ? "%g" : "%.17g", e->num);
        mdae_buf_puts(b, t);
        return;
    case FX_BOOL: mdae_buf_puts(b, e->num != 0 ? "true" : "false"); return;
    case FX_TIME: mdae_buf_puts(b, "time"); return;
    case FX_VAR:
    case FX_KNOWN:
    case FX_MODE: put_leaf_name(b, s, e); return;
    case FX_OPAQUE: put_opaque(b, s, e); return;
    default: put_list(b, s, op_text(s, e), e); return;
    }
}

const char *fx_sexpr(const fx_sexpr_style *s, const fx_node *e)
{
    static char out[4096];
    mdae_buf b = {0};
    fx_sexpr_put(&b, s, e);
    snprintf(out, sizeof out, "%s", b.oom ? "<OOM>" : b.p != NULL ? b.p : "");
    mdae_free(b.p);
    return out;
}
