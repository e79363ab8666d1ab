/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/bn.h -- exact counts: unsigned big integers as arrays of 32-bit
 * limbs (issue 41 item 2). The analysis counts modes and pairs of modes on
 * BDDs; past 2^53 a double rounds them (the brake at N = 50 has
 * 3^50 - 2^50 continuous changes), so the counts that can be large are
 * also kept exactly, and printed as decimal strings.
 *
 * Why not GMP: GMP aborts when out of memory, and out of memory must be an
 * error code here; the counts need only addition, subtraction, shifts, a
 * product by a small factor and a decimal conversion.
 *
 * Promises: pure, reentrant, no global state. A value is little-endian
 * limbs d[0..n), n = 0 for zero, d[n-1] != 0 (normalised after every call).
 * Every function that may grow a value returns MDAE_OK or MDAE_E_NOMEM, and
 * on MDAE_E_NOMEM leaves it as it was. Ownership: a value owns d (free with
 * mdae_bn_free); a zero-initialised mdae_bn is zero and owns nothing.
 */
#ifndef BN_H
#define BN_H

#include <stddef.h>
#include <stdint.h>

#include "mdae.h"

typedef struct mdae_bn {
    uint32_t n;   /* limbs in use */
    uint32_t cap; /* limbs allocated */
    uint32_t *d;  /* owned */
} mdae_bn;

/* Release x's limbs; x is zero afterwards. NULL ok. */
MDAE_API void mdae_bn_free(mdae_bn *x);
/* x := v. */
MDAE_API int mdae_bn_set_u64(mdae_bn *x, uint64_t v);
/* x := the integer v (v >= 0, finite, integral: every double >= 2^53 is). */
MDAE_API int mdae_bn_set_double(mdae_bn *x, double v);
/* dst := src (dst != src). */
MDAE_API int mdae_bn_copy(mdae_bn *dst, const mdae_bn *src);
/* acc := acc + x (acc may be x). */
MDAE_API int mdae_bn_add(mdae_bn *acc, const mdae_bn *x);
/* acc := acc - x; MDAE_E_INVAL (acc unchanged) when x > acc. */
MDAE_API int mdae_bn_sub(mdae_bn *acc, const mdae_bn *x);
/* x := x * 2^k. */
MDAE_API int mdae_bn_shl(mdae_bn *x, unsigned k);
/* x := x * f. */
MDAE_API int mdae_bn_mul_u32(mdae_bn *x, uint32_t f);
/* -1, 0, 1 as a < b, a = b, a > b. */
MDAE_API int mdae_bn_cmp(const mdae_bn *a, const mdae_bn *b);
/* x rounded to a double (HUGE_VAL past its range). */
MDAE_API double mdae_bn_double(const mdae_bn *x);
/* log2(x) to a double's precision; -HUGE_VAL for zero. */
MDAE_API double mdae_bn_log2(const mdae_bn *x);
/* The decimal digits of x ("0" for zero): new (owned: mdae_free), NULL on
 * OOM. */
MDAE_API char *mdae_bn_dec(const mdae_bn *x);
/* The decimal digits of the integer v (v >= 0, integral; the exact value of
 * the double, not its shortest rendering): new (mdae_free), NULL on OOM. */
MDAE_API char *mdae_bn_dec_double(double v);

#endif /* BN_H */
