/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_log.c -- mdaed's log: one line per event on stderr, with the
 * time, the process id (router or worker) and the level. MDAE_LOG (srv.h)
 * checks the level before anything is formatted (Redis's serverLog).
 *
 * Client bytes reach the log inside messages (a method name, a payload at
 * debug level), so a line is written as text a reader can trust (issue 37
 * item 6): a control byte (a newline would forge a line) and bytes that
 * are not UTF-8 appear as \xNN, and a line longer than LOG_LINE_MAX says
 * how much was left out.
 */
#include "srv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "rpc_message.h"

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

#define LOG_LINE_MAX 4096

/* Append s (n bytes) to out (room for 4 * n bytes) escaped; returns the
 * bytes written. */
static size_t escape(const char *s, size_t n, char *out)
{
    size_t i = 0, o = 0;
    while (i < n) {
        unsigned char ch = (unsigned char)s[i];
        size_t seq = rpc_utf8_sequence(s + i, n - i);
        if (seq == 1 && ch >= 0x20 && ch != 0x7f) {
            out[o++] = (char)ch;
        } else if (seq > 1) {
            memcpy(out + o, s + i, seq);
            o += seq;
            i += seq;
            continue;
        } else {
            static const char hex[] = "0123456789abcdef";
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[ch >> 4];
            out[o++] = hex[ch & 15];
        }
        i++;
    }
    return o;
}

/* One write per line, so that the router's and the workers' lines on one
 * stderr never interleave. */
void srv_log_write(int level, const char *fmt, ...)
{
    char line[LOG_LINE_MAX], out[64 + 4 * LOG_LINE_MAX + 48];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    char ts[16];
    strftime(ts, sizeof ts, "%H:%M:%S", &tm);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    size_t kept = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    int head = snprintf(out, 64, "%s.%03ld mdaed[%d] %s ", ts, now.tv_nsec / 1000000,
                        (int)uv_os_getpid(), level_names[level < 0 ? 0 : level > 3 ? 3 : level]);
    size_t o = head > 0 && head < 64 ? (size_t)head : 0;
    o += escape(line, kept, out + o);
    if ((size_t)n > kept)
        o += (size_t)snprintf(out + o, 48, " ... (%zu bytes more)", (size_t)n - kept);
    out[o++] = '\n';
    fwrite(out, 1, o, stderr);
}
