/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_framer_fuzz.c -- libFuzzer target: any bytes through the
 * framer (split in two at a position taken from the input, so partial reads
 * are exercised) and every frame through the JSON-RPC parser.
 *
 * Build: CC=clang cmake -DMDAE_FUZZ=ON ...; target rpc_framer_fuzz.
 */
#include <stdint.h>
#include <string.h>

#include "rpc_framer.h"
#include "rpc_message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_frame(void *ctx, const rpc_frame *f)
{
    (void)ctx;
    rpc_parsed p;
    if (rpc_parse(f->body, f->len, &p) == MDAE_OK) {
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
