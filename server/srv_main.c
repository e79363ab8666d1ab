/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_main.c -- mdaed's entry point: command line, configuration;
 * then either the router loop (srv_loop.c) or, with --worker, the
 * worker process (server/worker/).
 *
 *   mdaed [--config FILE] [--listen tcp://HOST:PORT | unix://PATH] [--unix PATH]
 *         [--stdio] [--port-file FILE] [--log-level LEVEL] [--web-root DIR]
 *         [--allow-host HOST[:PORT]]... [--worker ...]
 *
 * Flags override the configuration file. --stdio serves one client on
 * stdin/stdout (editors) and opens no listener unless --listen or --unix is
 * also given.
 */
#include "srv.h"
#include "worker/wk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: mdaed [--config FILE] [--listen tcp://HOST:PORT|unix://PATH] "
               "[--unix PATH] [--stdio]\n"
               "             [--port-file FILE] [--log-level debug|info|warn|error]\n"
               "             [--instance NAME] [--state-dir DIR|none] [--store URL]\n"
               "             [--web-root DIR] [--allow-host HOST[:PORT]]...\n");
}

static int replace(char **slot, const char *value)
{
    char *v = value ? mdae_strdup(value) : NULL;
    if (value && v == NULL)
        return MDAE_E_NOMEM;
    mdae_free(*slot);
    *slot = v;
    return MDAE_OK;
}

static size_t arg_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0') {
        fprintf(stderr, "mdaed: not a number: %s\n", s);
        exit(2);
    }
    return (size_t)v;
}

/* The glibc tunables a worker should start with. BuDDy's node
 * table and operation caches are large fresh allocations, first touched
 * 4 KB page by page: 8,900 page faults and a third of the wall time of the
 * brake at N = 100. malloc.hugetlb=1 (glibc 2.35+) has malloc advise its
 * mmap'd chunks MADV_HUGEPAGE, so a fault maps 2 MB where the kernel allows
 * it (transparent huge pages in "madvise" mode, Debian's default): 3,800
 * faults, 0.24 s to 0.18 s; the building N = 20 49,000 to 15,000. glibc
 * reads tunables when a process starts, so mdaed puts this in the
 * environment its workers start with, unless GLIBC_TUNABLES is already set,
 * which is then left as the user wrote it. Not the CLI: re-executing itself
 * cost 10 ms, the whole budget of a small model; `GLIBC_TUNABLES=` in the
 * shell gives it the same (docs/operations.md). Older glibc ignores the name. */
#define MDAE_GLIBC_TUNABLES "glibc.malloc.hugetlb=1"

/* Workers inherit the router's environment: MDAE_GLIBC_TUNABLES reaches
 * them from here. The router itself started without it, which does not
 * matter: it allocates little. */
static void worker_tunables(void)
{
    if (getenv("GLIBC_TUNABLES") == NULL)
        (void)setenv("GLIBC_TUNABLES", MDAE_GLIBC_TUNABLES, 0);
}

int main(int argc, char **argv)
{
    const char *config = NULL;
    const char *listen = NULL, *unix_path = NULL, *port_file = NULL, *level = NULL;
    const char *instance = NULL, *state_dir = NULL, *store_url = NULL;
    const char *web_root = NULL;
    bool stdio = false, worker = false;
    srv_worker_opts wo = {0};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDS_VALUE()                                                   \
    do {                                                                \
        if (v == NULL) {                                                \
            fprintf(stderr, "mdaed: %s needs a value\n", a);            \
            return 2;                                                   \
        }                                                               \
        i++;                                                            \
    } while (0)
        if (strcmp(a, "--config") == 0) {
            NEEDS_VALUE();
            config = v;
        } else if (strcmp(a, "--listen") == 0) {
            NEEDS_VALUE();
            listen = v;
        } else if (strcmp(a, "--unix") == 0) {
            NEEDS_VALUE();
            unix_path = v;
        } else if (strcmp(a, "--state-dir") == 0) {
            NEEDS_VALUE();
            state_dir = v;
        } else if (strcmp(a, "--store") == 0) {
            NEEDS_VALUE();
            store_url = v;
        } else if (strcmp(a, "--instance") == 0) {
            NEEDS_VALUE();
            instance = v;
        } else if (strcmp(a, "--port-file") == 0) {
            NEEDS_VALUE();
            port_file = v;
        } else if (strcmp(a, "--log-level") == 0) {
            NEEDS_VALUE();
            level = v;
        } else if (strcmp(a, "--web-root") == 0) {
            NEEDS_VALUE();
            web_root = v;
        } else if (strcmp(a, "--allow-host") == 0) {
            NEEDS_VALUE(); /* taken below, after the configuration */
        } else if (strcmp(a, "--stdio") == 0) {
            stdio = true;
        } else if (strcmp(a, "--worker") == 0) {
            worker = true;
        } else if (strcmp(a, "--memory-mb") == 0) { /* worker options, set by the router */
            NEEDS_VALUE();
            wo.memory_mb = arg_size(v);
        } else if (strcmp(a, "--node-limit") == 0) {
            NEEDS_VALUE();
            wo.node_limit = arg_size(v);
        } else if (strcmp(a, "--initial-nodes") == 0) {
            NEEDS_VALUE();
            wo.initial_nodes = arg_size(v);
        } else if (strcmp(a, "--timeout-ms") == 0) {
            NEEDS_VALUE();
            wo.timeout_ms = arg_size(v);
        } else if (strcmp(a, "--cache-size") == 0) {
            NEEDS_VALUE();
            wo.cache_size = arg_size(v);
        } else if (strcmp(a, "--debug-methods") == 0) {
            wo.debug_methods = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("mdaed %s\n", MDAE_VERSION);
            return 0;
        } else {
            fprintf(stderr, "mdaed: unknown argument: %s\n", a);
            usage(stderr);
            return 2;
        }
#undef NEEDS_VALUE
    }
    if (level != NULL) {
        srv_log_level = srv_log_level_parse(level);
        if (srv_log_level < 0) {
            fprintf(stderr, "mdaed: unknown log level: %s\n", level);
            return 2;
        }
    }
    rpc_message_init();
    if (worker)
        return wk_main(&wo);
    worker_tunables();

    srv_config_default(&srv.cfg);
    if (config != NULL) {
        char err[256];
        int rc = srv_config_load(&srv.cfg, config, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "mdaed: %s: %s\n", config, err);
            return 2;
        }
    }
    if (level != NULL)
        srv.cfg.log_level = srv_log_level;
    srv_log_level = srv.cfg.log_level;
    if (stdio) {
        srv.cfg.stdio = true;
        if (listen == NULL && unix_path == NULL) { /* an editor's private server */
            replace(&srv.cfg.listen_tcp, NULL);
            replace(&srv.cfg.listen_unix, NULL);
        }
    }
    if (listen != NULL) {
        if (strncmp(listen, "tcp://", 6) == 0) {
            replace(&srv.cfg.listen_tcp, listen + 6);
        } else if (strncmp(listen, "unix://", 7) == 0) {
            replace(&srv.cfg.listen_unix, listen + 7);
            if (unix_path == NULL)
                replace(&srv.cfg.listen_tcp, NULL);
        } else {
            fprintf(stderr, "mdaed: --listen wants tcp://HOST:PORT or unix://PATH\n");
            return 2;
        }
    }
    if (unix_path != NULL) {
        replace(&srv.cfg.listen_unix, unix_path);
        if (listen == NULL)
            replace(&srv.cfg.listen_tcp, NULL);
    }
    if (port_file != NULL)
        replace(&srv.cfg.port_file, port_file);
    if (state_dir != NULL) {
        replace(&srv.cfg.state_dir, strcmp(state_dir, "none") == 0 ? NULL : state_dir);
        srv.cfg.state_dir_set = true;
    } else if (!srv.cfg.state_dir_set && !stdio) {
        /* The default; an editor's private server (--stdio) keeps nothing. */
        char *d = srv_store_default_dir();
        if (d != NULL)
            replace(&srv.cfg.state_dir, d);
        mdae_free(d);
    }
    if (store_url != NULL)
        replace(&srv.cfg.store_url, store_url);
    if (instance != NULL) {
        if (!srv_session_id_ok(instance, SRV_INSTANCE_MAX)) {
            fprintf(stderr, "mdaed: --instance wants 1 to %d letters, digits, '.', '_' or '-'\n",
                    SRV_INSTANCE_MAX);
            return 2;
        }
        replace(&srv.cfg.instance, instance);
    }
    if (web_root != NULL)
        replace(&srv.cfg.web_root, web_root);
    /* --allow-host adds to http.allowed_hosts (the proxy's address in front
     * of a cluster, scripts/run_cluster.sh). */
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--allow-host") == 0 &&
            srv_config_list_add(&srv.cfg.http_allowed_hosts, argv[++i]) < 0) {
            fprintf(stderr, "mdaed: out of memory\n");
            return 1;
        }
    size_t n = sizeof srv.exe;
    if (uv_exepath(srv.exe, &n) != 0) {
        fprintf(stderr, "mdaed: cannot find my own executable\n");
        return 1;
    }
    int rc = srv_loop_run();
    srv_config_close(&srv.cfg);
    return rc < 0 ? 1 : 0;
}
