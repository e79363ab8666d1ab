/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * render/svg_render.h -- lay out a graph given in Graphviz DOT with Graphviz's
 * dot algorithm and render it as SVG.
 * Why: the dependency graph is drawn by mdaed's session/svg (for the web page,
 * issue 14) and by `mdae analyze --svg`; both need the same call into libgvc,
 * which the layers they live in (server/, clients/) may not share otherwise.
 * Its own directory and prefix because it is neither engine/ (libc and BuDDy
 * only) nor protocol/ (JSON-RPC): a thin wrapper over one outside library.
 * Promises: no I/O besides loading libgvc (dlopen of Debian 12's
 * libgvc.so.6, once per process, on the first call: linking it costs every
 * mdaed worker's start a dozen libraries); no logging. Not thread-safe (the
 * loaded library is process state). libgvc allocates with libc's malloc,
 * outside mdae's allocator; all of it is released before the call returns.
 * Errors: MDAE_OK; MDAE_E_NOMEM; MDAE_E_IO when libgvc cannot be loaded or
 * fails, with *why set to a static sentence naming the step. */
#ifndef SVG_RENDER_H
#define SVG_RENDER_H

#include "mdae.h"

/* Lay out dot (NUL-terminated DOT text) and render it. On MDAE_OK *out is a
 * new NUL-terminated SVG document (free with mdae_free); on failure *out is
 * untouched and *why (may be NULL) says why.
 * So that a chain reads (issue 42): node labels longer than 40 bytes are
 * broken into lines (before each " \u2192 ", after the ", " that ends a 40-byte
 * line); components are packed (pack, packmode array_u); and a top-to-bottom
 * layout more than 2.5 times as wide as tall is laid out again left to
 * right (rankdir LR), which stacks each rank's nodes in a column. */
int svg_render(const char *dot /* borrowed */, char **out /* out: owned */,
               const char **why /* out: static, optional */);

#endif /* SVG_RENDER_H */
