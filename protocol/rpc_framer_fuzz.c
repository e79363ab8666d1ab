/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_framer_fuzz.c -- libFuzzer target: any bytes through the
 * framer (split in two at a position taken from the input, so partial reads
 * are exercised) and every frame through the JSON-RPC parser and the
 * relay's reader (protocol/rpc_relay.h), which must accept nothing that
 * rpc_parse reads otherwise: a response, with the same id.
 *
 * Build: CC=clang cmake -DMDAE_FUZZ=ON ...; target rpc_framer_fuzz.
 */
#include <stdint.h>
#include <string.h>

#include "rpc_framer.h"
#include "rpc_message.h"
#include "rpc_relay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What rpc_relay_read accepts, rpc_parse reads as a response with that id. */
static void check_relay(const rpc_frame *f, int parsed, const rpc_parsed *p)
{
    rpc_relay_head h;
    if (rpc_relay_read(f->body, f->len, &h) != MDAE_OK || parsed == MDAE_E_NOMEM)
        return;
    if (parsed != MDAE_OK || p->batch || p->msgs[0].kind != RPC_MSG_RESPONSE ||
        !cJSON_IsNumber(p->msgs[0].id) || (uint64_t)p->msgs[0].id->valuedouble != h.id)
        __builtin_trap();
}

static int on_frame(void *ctx, const rpc_frame *f)
{
    (void)ctx;
    rpc_parsed p;
    int parsed = rpc_parse(f->body, f->len, &p);
    check_relay(f, parsed, &p);
    if (parsed == MDAE_OK) {
        for (size_t i = 0; i < p.n; i++) {
            /* Build the answer the router would, to exercise the builders. */
            cJSON *r = rpc_response_error(p.msgs[i].id, RPC_INVALID_REQUEST,
                                          p.msgs[i].why ? p.msgs[i].why : "x", NULL);
            char *s;
            size_t n;
            if (r != NULL && rpc_print(r, &s, &n) == MDAE_OK)
                mdae_free(s);
            cJSON_Delete(r);
        }
        rpc_parsed_close(&p);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int inited;
    if (!inited) {
        rpc_message_init();
        inited = 1;
    }
    size_t cut = size > 0 ? data[0] % (size + 1) : 0;
    rpc_framer fr;
    rpc_framer_init(&fr, 4096);
    const char *p = (const char *)data;
    if (rpc_framer_feed(&fr, p, cut, on_frame, NULL) == MDAE_OK)
        (void)rpc_framer_feed(&fr, p + cut, size - cut, on_frame, NULL);
    rpc_framer_close(&fr);
    return 0;
}
