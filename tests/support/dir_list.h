/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/dir_list.h -- the files of a folder whose names end in one
 * of a few suffixes, sorted: how the suites and benchmarks that walk the
 * MSL exports (../shared/msl) list them. Plain C (no Criterion), so the
 * benchmarks use it too. Header-only (static functions), so each suite
 * stays one executable.
 */
#ifndef DIR_LIST_H
#define DIR_LIST_H

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline bool dir_list_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

static inline int dir_list_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names (not paths) of dir's entries that end in one of suffixes[0 ..
 * n_suffixes) and are more than that suffix, sorted by strcmp; their count
 * in *n. free() each name and the array (dir_list_free). NULL when dir
 * cannot be opened; on OOM the names listed so far. */
static inline char **dir_list(const char *dir, const char *const *suffixes, size_t n_suffixes,
                              size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return NULL;
    size_t cap = 64;
    char **names = malloc(cap * sizeof *names);
    for (struct dirent *e; names != NULL && (e = readdir(d)) != NULL;) {
        bool keep = false;
        for (size_t k = 0; k < n_suffixes && !keep; k++)
            keep = dir_list_ends_with(e->d_name, suffixes[k]);
        if (!keep)
            continue;
        if (*n == cap) {
            char **q = realloc(names, 2 * cap * sizeof *q);
            if (q == NULL)
                break;
            names = q;
            cap *= 2;
        }
        names[*n] = strdup(e->d_name);
        if (names[*n] != NULL)
            ++*n;
    }
    closedir(d);
    if (*n > 1)
        qsort(names, *n, sizeof *names, dir_list_cmp);
    return names;
}

static inline void dir_list_free(char **names, size_t n)
{
    for (size_t k = 0; k < n && names != NULL; k++)
        free(names[k]);
    free(names);
}

#endif /* DIR_LIST_H */
