/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/clients/test_cli_rimis.c -- `mdae rimis` (issue 39): the Water
 * Tank's mode-independent model with its multiplexers, written with -o to a
 * file `mdae analyze` reads back as nonsingular, atomically (a write that
 * fails leaves the old file whole and no temporary behind); a singular
 * model refused with located errors and exit status 1; bad input and a bad
 * command line; the JSON's shape.
 */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli_test.h"

static run run_args(const char *const *args) { return cli_run(NULL, environ, args); }

#define RUN(...) run_args((const char *const[]){__VA_ARGS__, NULL})

static const cJSON *item(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* A new empty directory under /tmp (its path in buf). */
static void temp_dir(char *buf, size_t size)
{
    snprintf(buf, size, "/tmp/mdae-rimis-XXXXXX");
    cr_assert_not_null(mkdtemp(buf));
}

/* The names in dir, other than . and .., joined by spaces. */
static void dir_names(const char *dir, char *out, size_t size)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    out[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            strncat(out, e->d_name, size - strlen(out) - 2);
            strncat(out, " ", size - strlen(out) - 1);
        }
    closedir(d);
}

/* The whole file at path (free() it). */
static char *t_read(const char *path)
{
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "cannot open %s", path);
    char *text = slurp_fd(fd);
    close(fd);
    return text;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

Test(cli_rimis, water_tank_is_printed_with_its_multiplexers)
{
    run r = RUN("rimis", MODEL("water_tank.mel"));
    expect(&r, 0);
    cr_assert_eq(strncmp(r.out, "model water_tank_rimis", 22), 0, "%s", r.out);
    contains(r.out, "end water_tank_rimis;");
    contains(r.out, "// Multiplexing");
    contains(r.out, "// Block ");
    /* RR-9459 Fig. 15: yh, yl, sh, sl are multiplexed over their replicates */
    contains(r.out, "\n  yh = if ");
    contains(r.out, "\n  sl = if ");
    cr_assert_str_eq(r.err, "");
    run_free(&r);
}

Test(cli_rimis, output_file_reads_back_nonsingular)
{
    char dir[64], out[128];
    temp_dir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/wt.mo", dir);
    write_text(out, "an older file\n");
    run r = RUN("rimis", MODEL("water_tank.mel"), "-o", out);
    expect(&r, 0);
    cr_assert_str_eq(r.out, "", "-o: nothing on stdout");
    run_free(&r);
    run s = RUN("rimis", MODEL("water_tank.mel"));
    char *written = t_read(out);
    cr_assert_str_eq(written, s.out, "-o writes what stdout gets");
    free(written);
    run_free(&s);
    run a = RUN("analyze", out);
    expect(&a, 0);
    contains(a.out, "wt.mo: nonsingular");
    run_free(&a);
    char names[256];
    dir_names(dir, names, sizeof names);
    cr_assert_str_eq(names, "wt.mo ", "no temporary file left: %s", names);
    unlink(out);
    rmdir(dir);
}

/* A write that fails (here the file size limit, as a full disk would) is an
 * error, and the file keeps its old content whole. */
Test(cli_rimis, failed_write_leaves_the_old_file_whole)
{
    char dir[64], out[128];
    temp_dir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/wt.mo", dir);
    write_text(out, "an older file\n");
    signal(SIGXFSZ, SIG_IGN); /* inherited: write() fails with EFBIG instead */
    struct rlimit lim = {256, 256};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    run r = RUN("rimis", MODEL("water_tank.mel"), "-o", out);
    expect(&r, 4);
    contains(r.err, "cannot write '");
    contains(r.err, "left as it was");
    run_free(&r);
    char *kept = t_read(out);
    cr_assert_str_eq(kept, "an older file\n");
    free(kept);
    char names[256];
    dir_names(dir, names, sizeof names);
    cr_assert_str_eq(names, "wt.mo ", "temporary file left behind: %s", names);
    unlink(out);
    rmdir(dir);
}

Test(cli_rimis, singular_model_is_refused_with_located_errors)
{
    run r = RUN("rimis", MODEL("singular_simple.mel"));
    expect(&r, 1);
    cr_assert_str_eq(r.out, "", "no model printed: %s", r.out);
    /* FILE:LINE:COL: error: ... */
    const char *at = strstr(r.err, "singular_simple.mel:");
    cr_assert_not_null(at, "%s", r.err);
    unsigned line = 0, col = 0;
    cr_assert_eq(sscanf(at, "singular_simple.mel:%u:%u: error: ", &line, &col), 2, "%s", r.err);
    cr_assert_gt(line, 0);
    contains(r.err, "singular");
    contains(r.err, "no mode-independent model");
    run_free(&r);
}

Test(cli_rimis, bad_input_and_bad_command_lines)
{
    run r = RUN("rimis", MODEL("syntax_error.mel"));
    expect(&r, 1);
    contains(r.err, "syntax_error.mel:");
    run_free(&r);
    r = RUN("rimis", "/nonexistent/model.mel");
    expect(&r, 4);
    contains(r.err, "cannot read '/nonexistent/model.mel'");
    run_free(&r);
    r = RUN("rimis", MODEL("water_tank.mel"), "-o");
    expect(&r, 2);
    contains(r.err, "needs a file name");
    run_free(&r);
    r = RUN("rimis", MODEL("water_tank.mel"), "--mode", "bh=1");
    expect(&r, 2);
    run_free(&r);
    r = RUN("rimis", MODEL("water_tank.mel"), "-o", "/nonexistent-dir/out.mo");
    expect(&r, 4);
    contains(r.err, "cannot write '/nonexistent-dir/out.mo'");
    run_free(&r);
}

Test(cli_rimis, json_has_the_agreed_shape)
{
    run r = RUN("rimis", MODEL("water_tank.mel"), "--json");
    expect(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "not JSON:\n%s", r.out);
    static const char *const keys[] = {"name",       "text",      "lines",     "replicates",
                                       "multiplexers", "reinits", "conditions", "variables",
                                       "groups",     "warnings"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        cr_assert_not_null(item(j, keys[k]), "no \"%s\"", keys[k]);
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "name")), "water_tank_rimis");
    run t = RUN("rimis", MODEL("water_tank.mel"));
    cr_assert_str_eq(cJSON_GetStringValue(item(j, "text")), t.out, "the text is stdout's");
    run_free(&t);
    cr_assert_geq(item(j, "multiplexers")->valueint, 4);
    /* every variable names its source; replicates their condition */
    const cJSON *v, *g, *c;
    int replicates = 0;
    cJSON_ArrayForEach(v, item(j, "variables"))
    {
        cr_assert(cJSON_IsString(item(v, "source")));
        const char *kind = cJSON_GetStringValue(item(v, "kind"));
        if (strcmp(kind, "replicate") == 0) {
            replicates++;
            cr_assert(cJSON_IsNumber(item(v, "condition")), "%s", cJSON_PrintUnformatted(v));
            cr_assert(cJSON_IsNumber(item(v, "block")));
        }
    }
    cr_assert_gt(replicates, 0);
    cJSON_ArrayForEach(c, item(j, "conditions"))
    {
        cr_assert(cJSON_IsNumber(item(c, "id")));
        cr_assert(cJSON_IsString(item(c, "text")));
        cr_assert(cJSON_IsArray(item(item(c, "modes"), "cubes")));
    }
    /* one group per block of the dependency graph, each with its lines */
    int groups = 0;
    cJSON_ArrayForEach(g, item(j, "groups"))
    {
        cr_assert_eq(item(g, "block")->valueint, groups++);
        cr_assert_gt(cJSON_GetArraySize(item(g, "lines")), 0);
    }
    cr_assert_eq(groups, 13, "the Water Tank's 13 blocks (RR-9459 Fig. 15)");
    cJSON_Delete(j);
    run_free(&r);
}

Test(cli_rimis, no_guard_prints_block_equations_unguarded)
{
    run g = RUN("rimis", MODEL("water_tank.mel"));
    run u = RUN("rimis", MODEL("water_tank.mel"), "--no-guard");
    expect(&g, 0);
    expect(&u, 0);
    cr_assert_lt(strlen(u.out), strlen(g.out), "guards make the text longer");
    run_free(&g);
    run_free(&u);
}
