/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/sa_enter.h -- an analysis context entered in the test's
 * own frame, for the suites that call the engine's internals (sa_int.h)
 * directly: ENTER(c) declares c, armed so that a failure inside fails the
 * test with its error's name (its setjmp must outlive the calls that may
 * jump, hence a macro); leave(c) releases and frees it. Header-only.
 */
#ifndef SA_ENTER_H
#define SA_ENTER_H

#include <criterion/criterion.h>
#include <setjmp.h>
#include <stdlib.h>

#include "sa_int.h"

#define ENTER(c)                                                   \
    sa_ctx *c = calloc(1, sizeof *c);                              \
    cr_assert_not_null(c);                                         \
    sa__ctx_init(c, NULL, NULL);                                   \
    if (setjmp(c->jb))                                             \
        cr_assert_fail("failed: %s", mdae_err_name(c->rc));        \
    sa__enter(c)

/* ENTER_ENCODING(c, o, what): c entered with the options o (borrowed) and a
 * fresh result c->r to encode into, in SA_ORDER_AUTO and SA_METHOD_AUTO,
 * as sa_analyze starts; a failure fails the test naming what. The caller
 * sa__leave(c)s, keeps or frees c->r (sa_result_free), then free(c)s. */
#define ENTER_ENCODING(c, o, what)                                         \
    sa_ctx *c = calloc(1, sizeof *c);                                      \
    cr_assert_not_null(c);                                                 \
    sa__ctx_init(c, (o), NULL);                                            \
    c->r = mdae_calloc(1, sizeof *c->r);                                   \
    cr_assert_not_null(c->r);                                              \
    c->order = SA_ORDER_AUTO;                                              \
    c->method = SA_METHOD_AUTO;                                            \
    if (setjmp(c->jb))                                                     \
        cr_assert_fail("%s: failed: %s", (what), mdae_err_name(c->rc));    \
    sa__enter(c)

static inline void leave(sa_ctx *c)
{
    sa__leave(c);
    free(c);
}

#endif
