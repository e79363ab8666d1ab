/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/fx_body.h -- the body of an equation differentiated c times
 * (issue 38 item 3): what a block whose equation has the offset c > 0
 * actually solves.
 *
 * Why: a block `eh2' -> x'` (the Water Tank when bh) tells the modeler that
 * eh2 is differentiated once, not what the differentiated equation says.
 * The CLI, the analysis JSON ("body" of a block's equation, protocol/
 * rpc_json.h), the web page's block view and the editor's hover print it.
 *
 * Form: `der^c(lhs) = der^c(rhs)`, each side differentiated c times on its
 * own (fx_dt, folded), not `0 = der^c(lhs - rhs)`: the equation keeps the
 * shape the modeler wrote (`der(x) = ...` stays on the left), and a side
 * that is constant becomes 0 (`0 = if bh then x - xmax else yh` gives
 * `0 = if bh then der(x) else der(yh)`). Both are the same equation, since
 * differentiation is linear. If-expressions keep every branch: the body is
 * that of the equation in all modes, as the block's guard is printed beside
 * it.
 *
 * Language: the model's own (mel_model.modelica: Modelica for what
 * mo_model_parse read, MEL otherwise), printed by fx_print.
 *
 * Cost and memory: each body is built in a scratch pool freed before the
 * call returns, so nothing accumulates in the model (which a server keeps
 * for the whole session). The derivative is taken one order at a time and
 * a body larger than FX_BODY_MAX_NODES nodes (fx_size, shared nodes counted
 * per use, as printed) is refused (MDAE_E_LIMIT) instead of being printed:
 * the product rule can multiply a large expression's size at each order.
 *
 * Promises: pure computation, no I/O, no global state. Reentrant.
 */
#ifndef FX_BODY_H
#define FX_BODY_H

#include <stdint.h>

#include "fx.h"
#include "mel.h"

/* The largest body printed, in nodes (about 10 bytes of text each). */
#define FX_BODY_MAX_NODES 20000u

/* The language m's expressions print in: FX_SYNTAX_MODELICA when
 * mo_model_parse read it, else FX_SYNTAX_MEL. */
MDAE_API fx_syntax fx_body_syntax(const mel_model *m);

/* The two sides of equation eq of m differentiated c times (c = 0: as
 * written), folded, built in pool p (the caller's; the model's expressions
 * are only read). MDAE_OK with *lhs and *rhs set; both NULL (still
 * MDAE_OK) when m keeps no expressions. Errors: MDAE_E_INVAL (NULL
 * argument, eq out of range), MDAE_E_NOMEM (the pool failed),
 * MDAE_E_LIMIT (a side exceeds FX_BODY_MAX_NODES), MDAE_E_NOTIMPL
 * (next()/last() inside: fx_dt). */
MDAE_API int fx_body_sides(const mel_model *m, uint32_t eq, unsigned c, fx_pool *p,
                           const fx_node **lhs /* out */, const fx_node **rhs /* out */);

/* The same printed, "lhs' = rhs'" in m's language (fx_body_syntax), as a new
 * string (owned: mdae_free) in *out; *out = NULL (MDAE_OK) when m keeps no
 * expressions. Same errors as fx_body_sides; nothing to free on error. */
MDAE_API int fx_body_format(const mel_model *m, uint32_t eq, unsigned c, char **out /* out */);

#endif /* FX_BODY_H */
