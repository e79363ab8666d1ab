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
#include <string.h>

/* A label line longer than this many bytes breaks after its next ", ". */
#define SVG_WRAP_COLUMNS 40
/* A drawing wider than this many times its height is laid out again left
 * to right. */
#define SVG_MAX_ASPECT 2.5

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
    Agnode_t *(*fstnode)(Agraph_t *);
    Agnode_t *(*nxtnode)(Agraph_t *, Agnode_t *);
    char *(*get)(void *, char *);
    int (*safeset)(void *, char *, char *, const char *);
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
    GV_SYM(fstnode, "agfstnode");
    GV_SYM(nxtnode, "agnxtnode");
    GV_SYM(get, "agget");
    GV_SYM(safeset, "agsafeset");
#undef GV_SYM
    if (!api.context || !api.memread || !api.layout || !api.render_data ||
        !api.free_render_data || !api.free_layout || !api.close || !api.free_context ||
        !api.fstnode || !api.nxtnode || !api.get || !api.safeset) {
        *why = "Graphviz (libgvc) lacks a function the layout needs";
        dlclose(h);
        return NULL;
    }
    loaded = true;
    return &api;
}

/* label, NUL-terminated, with a line break ("\\n" in DOT's escString) after
 * the ", " or " : " that ends a line of SVG_WRAP_COLUMNS characters or more,
 * and before each " \u2192 " (cdg_graph_dot's labels: guard : reads ->
 * equations -> unknowns); NULL on OOM (owned: mdae_free). Counting bytes is
 * enough for a line length. */
static char *wrapped(const char *label)
{
    size_t n = strlen(label);
    char *w = mdae_malloc(2 * n + 1); /* each break adds at most one byte per byte */
    if (w == NULL)
        return NULL;
    static const char arrow[] = " \xe2\x86\x92 ";
    size_t o = 0, col = 0;
    for (size_t i = 0; i < n;) {
        if (strncmp(label + i, arrow, sizeof arrow - 1) == 0 && col > 0) {
            memcpy(w + o, "\\n", 2); /* the arrow starts the next line */
            o += 2;
            memcpy(w + o, arrow + 1, sizeof arrow - 2);
            o += sizeof arrow - 2;
            i += sizeof arrow - 1;
            col = sizeof arrow - 2;
            continue;
        }
        bool sep = (label[i] == ',' && label[i + 1] == ' ') ||
                   (label[i] == ' ' && label[i + 1] == ':' && label[i + 2] == ' ');
        if (sep && col >= SVG_WRAP_COLUMNS) {
            size_t k = label[i] == ',' ? 1 : 2; /* keep "," or " :" on this line */
            memcpy(w + o, label + i, k);
            o += k;
            memcpy(w + o, "\\n", 2);
            o += 2;
            i += k + 1; /* the blank goes */
            col = 0;
            continue;
        }
        w[o++] = label[i++];
        col++;
    }
    w[o] = '\0';
    return w;
}

/* Wrap every node's label of g (wrapped()). MDAE_OK or MDAE_E_NOMEM. */
static int wrap_labels(const gv_api *gv, Agraph_t *g)
{
    for (Agnode_t *v = gv->fstnode(g); v != NULL; v = gv->nxtnode(g, v)) {
        const char *label = gv->get(v, "label");
        if (label == NULL || strlen(label) <= SVG_WRAP_COLUMNS)
            continue;
        char *w = wrapped(label);
        if (w == NULL)
            return MDAE_E_NOMEM;
        gv->safeset(v, "label", w, "");
        mdae_free(w);
    }
    return MDAE_OK;
}

/* Lay g out top to bottom; if that is more than SVG_MAX_ASPECT times as
 * wide as tall (a wide rank, or many small components side by side), again
 * left to right, which stacks each rank's blocks in a column. 0 or
 * Graphviz's error. */
static int lay_out(GVC_t *gvc, const gv_api *gv, Agraph_t *g)
{
    /* Components one by one, packed in rows (dot's pack, Graphviz >= 2.30). */
    gv->safeset(g, "pack", "true", "");
    gv->safeset(g, "packmode", "array_u", "");
    if (gv->layout(gvc, g, "dot") != 0)
        return -1;
    boxf bb = GD_bb(g);
    double w = bb.UR.x - bb.LL.x, h = bb.UR.y - bb.LL.y;
    if (w <= SVG_MAX_ASPECT * h)
        return 0;
    gv->free_layout(gvc, g);
    gv->safeset(g, "rankdir", "LR", "TB");
    return gv->layout(gvc, g, "dot");
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
    if (wrap_labels(gv, g) != MDAE_OK) {
        *why = "out of memory";
        rc = MDAE_E_NOMEM;
        goto done;
    }
    if (lay_out(gvc, gv, g) != 0) {
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
