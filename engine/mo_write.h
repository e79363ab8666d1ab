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

/* m's known quantities as Modelica declarations (`  parameter Real p =
 * e;`, one a line), as mo__write prints them: RIMIS (engine/rimis_print.c)
 * declares them so. */
void mo__write_knowns(mdae_buf *b, const mel_model *m);

/* A variable the printed Modelica model declares though the flat model
 * does not keep it (mo_write_decl.c): read only as text; or a function
 * that texts call which must not read as a scalar function
 * (MO_DECL_RECORD: declared as an empty record before the model). */
typedef enum mo__decl_type {
    MO_DECL_REAL,
    MO_DECL_INTEGER,
    MO_DECL_BOOLEAN,
    MO_DECL_RECORD
} mo__decl_type;

typedef struct mo__decl {
    char *name; /* owned */
    mo__decl_type type;
} mo__decl;

/* The names m's FX_OPAQUE and event texts read that are not its unknowns,
 * known quantities or mode variables, in order of first use, with their
 * guessed types, and the functions its FX_OPAQUE texts call that must be
 * declared (MO_DECL_RECORD). On MDAE_OK *out (owned: mo__decls_free) and *n; else
 * MDAE_E_NOMEM. */
int mo__undeclared(const mel_model *m, mo__decl **out, size_t *n);
void mo__decls_free(mo__decl *v, size_t n);

/* What mo__write prints of the names of v (from mo__undeclared): with
 * records, the records declared before the model; else the discrete
 * variables declared in it. */
void mo__write_undeclared(mdae_buf *b, const mel_model *m, const mo__decl *v, size_t n,
                          bool records);

/* m's kept events as mo__write prints them (one a line: discrete
 * equations, asserts, initial sections as comments), the when-clauses
 * only with whens. */
void mo__write_events(mdae_buf *b, const mel_model *m, bool whens);

/* "when", "reinit", "discrete", "initial", "assert": how both printers
 * name a kept event in their comments (a static string). */
const char *mo__event_kind(mel_event_kind k);

#endif /* MO_WRITE_H */
