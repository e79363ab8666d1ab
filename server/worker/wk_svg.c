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
 * libgvc (Debian's libgraphviz-dev, installed by scripts/deps.sh) is loaded
 * with dlopen on the first session/svg, not linked: linking it made every
 * worker's exec load a dozen more libraries (about 8 ms each start, paid by
 * every session), for a method few sessions call. It allocates with libc's
 * malloc, outside mdae's allocator; everything it returns is released here
 * before the handler returns.
 */
#include "wk.h"

#include <dlfcn.h>
#include <graphviz/gvc.h>

#include "rpc_message.h"

/* The libgvc functions we call, found by dlsym (agmemread and agclose are
 * libcgraph's, reached through libgvc's dependencies). */
typedef struct gv_api {
    GVC_t *(*context)(void);
    Agraph_t *(*memread)(const char *);
    int (*layout)(GVC_t *, Agraph_t *, const char *);
    int (*render_data)(GVC_t *, Agraph_t *, const char *, char **, unsigned int *);
    void (*free_render_data)(char *);
    int (*free_layout)(GVC_t *, Agraph_t *);
    int (*close)(Agraph_t *);
    int (*free_context)(GVC_t *);
} gv_api;

/* libgvc, loaded once per worker; NULL with *why set if it cannot be. The
 * handle stays open for the life of the process. */
static const gv_api *gv_load(const char **why)
{
    static gv_api api;
    static bool loaded;
    if (loaded)
        return &api;
    void *h = dlopen("libgvc.so.6", RTLD_NOW | RTLD_LOCAL); /* Debian 12's libgvc6 */
    if (h == NULL)
        h = dlopen("libgvc.so", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        *why = "Graphviz (libgvc) is not installed";
        return NULL;
    }
    /* POSIX's way from void * to a function pointer (dlsym's rationale). */
#define GV_SYM(field, name) *(void **)(&api.field) = dlsym(h, name)
    GV_SYM(context, "gvContext");
    GV_SYM(memread, "agmemread");
    GV_SYM(layout, "gvLayout");
    GV_SYM(render_data, "gvRenderData");
    GV_SYM(free_render_data, "gvFreeRenderData");
    GV_SYM(free_layout, "gvFreeLayout");
    GV_SYM(close, "agclose");
    GV_SYM(free_context, "gvFreeContext");
#undef GV_SYM
    if (!api.context || !api.memread || !api.layout || !api.render_data ||
        !api.free_render_data || !api.free_layout || !api.close || !api.free_context) {
        *why = "Graphviz (libgvc) lacks a function session/svg needs";
        dlclose(h);
        return NULL;
    }
    loaded = true;
    return &api;
}

/* Lay out dot (NUL-terminated) and render it as SVG: a new string owned by
 * the caller (mdae_free), or NULL with *why set. */
static char *render_svg(const char *dot, const char **why)
{
    const gv_api *gv = gv_load(why);
    if (gv == NULL)
        return NULL;
    char *svg = NULL;
    GVC_t *gvc = gv->context();
    Agraph_t *g = gvc ? gv->memread(dot) : NULL;
    if (gvc == NULL || g == NULL) {
        *why = "Graphviz could not read the graph";
        goto done;
    }
    if (gv->layout(gvc, g, "dot") != 0) {
        *why = "Graphviz could not lay out the graph";
        goto done;
    }
    char *data = NULL;
    unsigned int len = 0;
    if (gv->render_data(gvc, g, "svg", &data, &len) != 0 || data == NULL) {
        *why = "Graphviz could not render SVG";
    } else {
        svg = mdae_strndup(data, len);
        gv->free_render_data(data);
    }
    gv->free_layout(gvc, g);
done:
    if (g != NULL)
        gv->close(g);
    if (gvc != NULL)
        gv->free_context(gvc);
    return svg;
}

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
    char *svg = render_svg(dot, &why);
    mdae_free(dot);
    if (svg == NULL)
        return rpc_response_mdae(id, MDAE_E_IO, why, NULL); /* a library failure */
    cJSON *s = cJSON_CreateString(svg);
    mdae_free(svg);
    return rpc_response_result(id, s);
}
