/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo_write.h -- private to the model printers (mo_print.c,
 * mo_write.c): a model that kept its expressions as MEL or Modelica text.
 */
#ifndef MO_WRITE_H
#define MO_WRITE_H

#include "fx.h"
#include "mel.h"

/* m (whose expressions were kept: mel_model_exprs(m) != NULL) in `syntax`;
 * name: the Modelica model's name (NULL: "Model"; ignored for MEL). On
 * MDAE_OK *out is a new string (owned: mdae_free); MDAE_E_NOMEM,
 * MDAE_E_INVAL (NULL m or out) otherwise. */
int mo__write(const mel_model *m, fx_syntax syntax, const char *name, char **out);

#endif /* MO_WRITE_H */
