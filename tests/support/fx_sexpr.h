/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/fx_sexpr.h -- the tests' S-expression printer of fx trees
 * (engine/fx.h): a number, a name, or (op kids...). One printer, in the
 * three dialects the tests were written in (a style, below). Implemented in
 * fx_sexpr.c, part of the mdae_ref library (tests/CMakeLists.txt).
 */
#ifndef FX_SEXPR_H
#define FX_SEXPR_H

#include <stdbool.h>

#include "fx.h"
#include "mel.h"

/* How an FX_OPAQUE node prints. */
typedef enum fx_sexpr_opaque {
    FX_SEXPR_OPAQUE_CALL,   /* [(text kids...)] */
    FX_SEXPR_OPAQUE_TEXT,   /* {text}, its refs not printed */
    FX_SEXPR_OPAQUE_QUOTED, /* (opaque "text" kids...) */
} fx_sexpr_opaque;

/* A dialect. Zero-initialised: numbers %.17g, unknowns x y z w yh by index
 * (? beyond) with one ' per derivative, knowns k<i>, modes m<i>, operators
 * - + * / ^ < <= > >= == <> ! and or if der pre last next, known calls by
 * their name (fx_fn_name), other calls by theirs, opaque as
 * FX_SEXPR_OPAQUE_CALL. */
typedef struct fx_sexpr_style {
    const mel_model *m;   /* not NULL: unknowns, knowns and modes by m's names */
    bool short_numbers;   /* numbers %g */
    bool mode_brackets;   /* modes [name] */
    const char *neg, *not_, *and_, *or_; /* not NULL: the text of these ops */
    fx_sexpr_opaque opaque;
} fx_sexpr_style;

/* Append e (NULL prints NULL) to b; b->oom on OOM. */
void fx_sexpr_put(mdae_buf *b, const fx_sexpr_style *s, const fx_node *e);

/* e as text in a static buffer of 4096 bytes (truncated beyond), valid
 * until the next call: for assertions on one line. "<OOM>" on OOM. */
const char *fx_sexpr(const fx_sexpr_style *s, const fx_node *e);

#endif /* FX_SEXPR_H */
