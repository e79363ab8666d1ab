/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * render/svg_render.c -- DOT to SVG through libgvc, loaded with dlopen (the
 * header says why). Moved here from server/worker/wk_svg.c when the CLI
 * gained `mdae analyze --svg` (issue 14).
 */
#include "svg_render.h"

#include <dlfcn.h>
#include <graphviz/gvc.h>
#include <stdbool.h>

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

/* libgvc, loaded once per process; NULL with *why set if it cannot be. The
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
        *why = "Graphviz (libgvc) lacks a function the layout needs";
        dlclose(h);
        return NULL;
    }
    loaded = true;
    return &api;
}

int svg_render(const char *dot, char **out, const char **why)
{
    const char *ignored;
    if (why == NULL)
        why = &ignored;
    if (dot == NULL || out == NULL)
        return MDAE_E_INVAL;
    const gv_api *gv = gv_load(why);
    if (gv == NULL)
        return MDAE_E_IO;
    int rc = MDAE_E_IO;
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
        char *svg = mdae_strndup(data, len);
        gv->free_render_data(data);
        if (svg == NULL) {
            *why = "out of memory";
            rc = MDAE_E_NOMEM;
        } else {
            *out = svg;
            rc = MDAE_OK;
        }
    }
    gv->free_layout(gvc, g);
done:
    if (g != NULL)
        gv->close(g);
    if (gvc != NULL)
        gv->free_context(gvc);
    return rc;
}
