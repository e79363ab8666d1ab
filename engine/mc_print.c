/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_print.c -- a mode change's equations as text (issue 41 item 8):
 * the body of an equation at a shift, every unknown read at that shift
 * (mc.h, mc_body_format, says the notation). Reads the model's expressions
 * (engine/fx_body.h); prints nothing for a model that keeps none.
 */
#include "mc.h"
#include "mc_int.h"

#include <stdio.h>
#include <string.h>

#include "fx.h"
#include "fx_body.h"

/* The namer's state: the model, the shift, the text of the last
 * occurrence (returned to fx_print, which copies it at once). */
typedef struct shifted {
    const mel_model *m;
    fx_syntax syn;
    int shift;
    mdae_buf text;
    bool encoded; /* unknowns encoded with their shifts (mc_elim.h) */
} shifted;

/* "•" once, "•k" for k > 1, nothing for 0 (the README's and the CLI's
 * notation of shifts). */
static void put_shift(mdae_buf *b, int k)
{
    char s[24];
    if (k == 1)
        mdae_buf_puts(b, "\u2022");
    else if (k > 1) {
        snprintf(s, sizeof s, "\u2022%d", k);
        mdae_buf_puts(b, s);
    }
}

/* x at the shift, x' (x'', x^(o)) for a derivative, read there. */
static const char *occurrence(void *ctx, uint32_t var, uint32_t order)
{
    shifted *s = ctx;
    if (s->encoded && s->m->n_variables > 0) {
        s->shift = (int)(var / s->m->n_variables);
        var %= s->m->n_variables;
    }
    if (var >= s->m->n_variables)
        return NULL;
    s->text.len = 0;
    if (s->text.p != NULL)
        s->text.p[0] = '\0';
    fx_print_name(&s->text, s->m->variables[var].name, s->syn);
    char o[24];
    if (order <= 3) {
        for (uint32_t k = 0; k < order; k++)
            mdae_buf_puts(&s->text, "'");
    } else {
        snprintf(o, sizeof o, "^(%u)", (unsigned)order);
        mdae_buf_puts(&s->text, o);
    }
    put_shift(&s->text, s->shift);
    return s->text.oom ? NULL : s->text.p;
}

int mc_body_format(const mel_model *m, mc_item eq, char **out)
{
    if (m == NULL || out == NULL || eq.index >= m->n_equations || eq.shift < 0)
        return MDAE_E_INVAL;
    *out = NULL;
    fx_pool *p = fx_pool_new();
    if (p == NULL)
        return MDAE_E_NOMEM;
    const fx_node *lhs = NULL, *rhs = NULL;
    int rc = fx_body_sides(m, eq.index, 0, p, &lhs, &rhs);
    if (rc != MDAE_OK || lhs == NULL || rhs == NULL) {
        fx_pool_free(p);
        return rc;
    }
    shifted s = {m, fx_body_syntax(m), eq.shift, {0}, false};
    fx_namer namer = {.ctx = &s, .occurrence = occurrence};
    mdae_buf b = {0};
    fx_print_lhs(&b, m, lhs, s.syn, &namer);
    mdae_buf_puts(&b, " = ");
    fx_print_named(&b, m, rhs, s.syn, &namer);
    bool oom = b.oom || s.text.oom || fx_pool_failed(p);
    mdae_free(s.text.p);
    fx_pool_free(p);
    if (oom) {
        mdae_free(b.p);
        return MDAE_E_NOMEM;
    }
    *out = b.p;
    return MDAE_OK;
}

void mc__print_item(mdae_buf *b, const mel_model *m, mc_item it, bool is_var)
{
    fx_print_name(b, is_var ? m->variables[it.index].name : m->equations[it.index].name,
                  fx_body_syntax(m));
    put_shift(b, it.shift);
}

void mc__print_shifted(mdae_buf *b, const mel_model *m, const fx_node *e)
{
    shifted s = {m, fx_body_syntax(m), 0, {0}, true};
    fx_namer namer = {.ctx = &s, .occurrence = occurrence};
    fx_print_named(b, m, e, s.syn, &namer);
    b->oom |= s.text.oom;
    mdae_free(s.text.p);
}
