/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_bodies.c -- what the differentiated bodies (issue 38,
 * engine/fx_body.h) add to the analysis JSON: the time of
 * rpc_json_analysis (the JSON without them) and of rpc_json_add_bodies,
 * best of 5, with the number of bodies and their text (docs/bodies.md).
 *
 * Usage: bench_bodies FILE N   (FILE under tests/models, N its size)
 * Output: one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"
#include "cdg.h"
#include "fx_body.h"
#include "rpc_json.h"

/* The number of bodies of an analysis tree and their total length. */
static void count_bodies(const cJSON *j, size_t *n, size_t *bytes)
{
    const cJSON *b, *e;
    *n = *bytes = 0;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(j, "blocks"))
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(b, "equations"))
    {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "body");
        if (cJSON_IsString(s)) {
            (*n)++;
            *bytes += strlen(s->valuestring);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_bodies FILE N\n");
        return 2;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/models/%s", MDAE_SOURCE_DIR, argv[1]);
    size_t len;
    char *text = bench_slurp(path, &len);
    mel_define def = {"N", atoll(argv[2])};
    mel_options o = {.defines = &def, .n_defines = 1};
    mel_model *m = NULL;
    sa_result *r = NULL;
    cdg_graph *g = NULL;
    sa_report *rep = NULL;
    cdg_report *crep = NULL;
    if (text == NULL || mel_model_parse(text, len, &o, &m, NULL) != MDAE_OK ||
        sa_begin(NULL) != MDAE_OK || sa_analyze(m, NULL, &r, NULL) != MDAE_OK ||
        cdg_build(r, NULL, &g, NULL) != MDAE_OK || sa_result_report(r, &rep) != MDAE_OK ||
        cdg_graph_report(g, &crep) != MDAE_OK) {
        fprintf(stderr, "bench_bodies: cannot analyse %s\n", argv[1]);
        return 1;
    }
    double best_json = 1e9, best_bodies = 1e9;
    size_t n = 0, bytes = 0;
    for (int k = 0; k < 5; k++) {
        cJSON *j = NULL;
        double t0 = bench_now();
        int rc = rpc_json_analysis(rep, crep, &j);
        double t1 = bench_now();
        if (rc == MDAE_OK)
            rc = rpc_json_add_bodies(j, crep, m);
        double t2 = bench_now();
        if (rc != MDAE_OK) {
            fprintf(stderr, "bench_bodies: %s\n", mdae_strerror(rc));
            return 1;
        }
        best_json = t1 - t0 < best_json ? t1 - t0 : best_json;
        best_bodies = t2 - t1 < best_bodies ? t2 - t1 : best_bodies;
        count_bodies(j, &n, &bytes);
        cJSON_Delete(j);
    }
    printf("%s N=%s: %zu blocks, %zu bodies (%zu bytes): analysis JSON %.2f ms, bodies %.2f ms\n",
           argv[1], argv[2], crep->n_blocks, n, bytes, best_json * 1e3, best_bodies * 1e3);
    cdg_report_free(crep);
    sa_report_free(rep);
    cdg_graph_free(g);
    sa_result_free(r);
    sa_end();
    mel_model_free(m);
    free(text);
    return 0;
}
