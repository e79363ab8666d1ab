/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/worker/wk_svg.c -- session/svg: the conditional dependency graph
 * (cdg_graph_dot, what session/dot answers) laid out by Graphviz's dot and
 * rendered as SVG, for pages and dashboards that cannot run Graphviz
 * themselves. The SVG document is the result, as a JSON string.
 *
 * Why in the worker: layout is CPU work of unbounded length on a large graph
 * (seconds for thousands of blocks), so it must not run in the loop; the
 * worker's time budget and cancel grace bound it, and libgvc's own
 * allocations count against the worker's RLIMIT_AS. It is not SRV_M_QUICK:
 * a layout is no sub-millisecond projection.
 *
 * This file is also the example of issue 12's promise: the method is this
 * handler plus one line in SRV_FORWARDED_METHODS (server/srv_methods.h).
 *
 * The layout itself is render/svg_render.c (libgvc, loaded with dlopen on
 * the first session/svg of a worker), shared with `mdae analyze --svg`.
 */
#include "wk.h"

#include "rpc_message.h"
#include "svg_render.h"

cJSON *wk_m_svg(wk_state *w, const cJSON *id, const cJSON *params)
{
    cJSON *err = NULL;
    cdg_graph *graph = NULL;
    if (!wk_graph(w, id, &graph, &err))
        return err;
    char *dot = NULL;
    int rc = cdg_graph_dot(graph, &dot);
    if (rc == MDAE_E_NOMEM)
        wk_oom();
    if (rc < 0)
        return rpc_response_mdae(id, rc, NULL, NULL);
    const char *why = NULL;
    char *svg = NULL;
    rc = svg_render(dot, &svg, &why);
    mdae_free(dot);
    if (rc == MDAE_E_NOMEM)
        wk_oom();
    if (rc < 0)
        return rpc_response_mdae(id, MDAE_E_IO, why, NULL); /* a library failure */
    cJSON *s = cJSON_CreateString(svg);
    mdae_free(svg);
    return rpc_response_result(id, s);
}
