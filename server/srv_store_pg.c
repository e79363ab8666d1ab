/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_store_pg.c -- the PostgreSQL backend of the session store
 * (issue 37 item 4): a placeholder until it is written, so that a
 * postgresql:// store.url is refused with a clear message instead of
 * failing to link. Every entry but open is unreachable (open fails).
 */
#include "srv.h"

#include <stdio.h>

static int pg_open(void **db, const char *where, char *err, size_t errlen)
{
    (void)db;
    (void)where;
    snprintf(err, errlen, "PostgreSQL store not built: use SQLite (no store.url)");
    return MDAE_E_NOTIMPL;
}

const srv_store_backend srv_store_pg = {
    .name = "postgresql",
    .open = pg_open,
};
