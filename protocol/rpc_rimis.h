/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_rimis.h -- the JSON form of a Reduced-Index Mode-Independent
 * Structure (engine/rimis.h, issue 39): what `mdae rimis --json` prints and
 * session/rimis answers, built in one place so that both say the same.
 *
 * The shape (the wire contract: it only ever grows):
 *   {"name":"WaterTank_rimis",          the output model's name
 *    "text":"model ...\nend ...;\n",    the flat Modelica model
 *    "lines":n, "replicates":n, "multiplexers":n, "reinits":n,
 *    "conditions":[{"id":n,"text":"not bh",
 *                   "modes":{"formula","cubes":[cube...]}}],
 *    "variables":[{"name":"x_2","kind":"source"|"dummy"|"replicate"|"read",
 *                  "source":"x","order":n,"condition":id|null,
 *                  "block":n|null}],
 *    "groups":[{"block":n,"condition":id|null,"lines":[n...]}],
 *    "warnings":[diagnostic...]}        (rpc_json_diags's entries)
 * A condition's "modes" are exact on the valid modes (sa_report's
 * convention); "condition" is a condition's "id" (the suffix of the
 * replicates' names), null when the block holds in every mode; a group's
 * "lines" are the 1-based lines of the text where its equations start, in
 * text order. "name" is what follows `model` on the text's first line that
 * starts with it.
 *
 * Promises: pure data conversion (no I/O, no BuDDy); the inputs are
 * borrowed for the call, the tree holds copies. Errors: MDAE_OK,
 * MDAE_E_NOMEM (nothing leaked, *out untouched), MDAE_E_INVAL (a NULL
 * argument, or a result whose indices point past the model's or its own
 * arrays).
 */
#ifndef RPC_RIMIS_H
#define RPC_RIMIS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "mdae.h"
#include "mel.h"
#include "rimis.h"

/* The JSON above for res, built from m (res's source model: the names of
 * the mode variables and of the source variables). MDAE_OK with *out new
 * (owned: cJSON_Delete). */
MDAE_API int rpc_json_rimis(const mel_model *m /* borrowed */,
                            const rimis_result *res /* borrowed */, cJSON **out /* out: owned */);

/* The name the output model of a source read from `file` gets
 * (rimis_options.model_name): its base name without extension plus
 * "_rimis" ("tests/models/water_tank.mel" -> "water_tank_rimis"), into buf,
 * when that is a Modelica identifier that fits; NULL otherwise ("-", a
 * name with a '.' or a '-'...), and then rimis_build chooses. For a MEL
 * source: a Modelica source has a name of its own, which rimis_build takes
 * when model_name is NULL. */
MDAE_API const char *rpc_rimis_model_name(const char *file /* borrowed; NULL ok */, char *buf,
                                          size_t size);

#endif /* RPC_RIMIS_H */
