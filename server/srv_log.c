/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_log.c -- mdaed's log: one line per event on stderr, with the
 * time, the process id (router or worker) and the level. MDAE_LOG (srv.h)
 * checks the level before anything is formatted (Redis's serverLog).
 */
#include "srv.h"

#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>

int srv_log_level = SRV_LOG_INFO;

static const char *level_names[] = {"DEBUG", "INFO", "WARN", "ERROR"};

int srv_log_level_parse(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcasecmp(name, level_names[i]) == 0 ||
            (i == SRV_LOG_WARN && strcasecmp(name, "warning") == 0))
            return i;
    return -1;
}

void srv_log_write(int level, const char *fmt, ...)
{
    char ts[32];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    strftime(ts, sizeof ts, "%H:%M:%S", &tm);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s.%03ld mdaed[%d] %s ", ts, now.tv_nsec / 1000000, (int)uv_os_getpid(),
            level_names[level < 0 ? 0 : level > 3 ? 3 : level]);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

