/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_bn.c -- exact counts (engine/bn.h): the closed forms
 * issue 41 names (3^50 - 2^50, 2^200 - 2^100) against their known decimal
 * digits, the round trip through doubles, carries and borrows across limbs.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "bn.h"

static void pow_u32(mdae_bn *x, uint32_t b, unsigned e)
{
    cr_assert_eq(mdae_bn_set_u64(x, 1), MDAE_OK);
    for (unsigned k = 0; k < e; k++)
        cr_assert_eq(mdae_bn_mul_u32(x, b), MDAE_OK);
}

static void expect_dec(const mdae_bn *x, const char *want)
{
    char *s = mdae_bn_dec(x);
    cr_assert_not_null(s);
    cr_assert_str_eq(s, want);
    mdae_free(s);
}

Test(bn, three_to_the_50_less_two_to_the_50)
{
    mdae_bn a = {0}, b = {0};
    pow_u32(&a, 3, 50);
    pow_u32(&b, 2, 50);
    expect_dec(&a, "717897987691852588770249");
    cr_assert_eq(mdae_bn_sub(&a, &b), MDAE_OK);
    expect_dec(&a, "717897986565952681927625"); /* a double: ...671580160 */
    cr_assert_float_eq(mdae_bn_log2(&a), log2(717897986565952681927625.0), 1e-9);
    mdae_bn_free(&a);
    mdae_bn_free(&b);
}

Test(bn, two_to_the_200_less_two_to_the_100)
{
    mdae_bn a = {0}, b = {0};
    cr_assert_eq(mdae_bn_set_u64(&a, 1), MDAE_OK);
    cr_assert_eq(mdae_bn_shl(&a, 200), MDAE_OK);
    expect_dec(&a, "1606938044258990275541962092341162602522202993782792835301376");
    cr_assert_eq(mdae_bn_set_u64(&b, 1), MDAE_OK);
    cr_assert_eq(mdae_bn_shl(&b, 100), MDAE_OK);
    cr_assert_eq(mdae_bn_sub(&a, &b), MDAE_OK);
    expect_dec(&a, "1606938044258990275541962092339894951921974764381296132096000");
    cr_assert_eq(mdae_bn_cmp(&a, &b), 1);
    cr_assert_eq(mdae_bn_sub(&b, &a), MDAE_E_INVAL, "a negative result is refused");
    cr_assert_eq(mdae_bn_log2(&a), 200.0);
    mdae_bn_free(&a);
    mdae_bn_free(&b);
}

Test(bn, carries_and_borrows_across_limbs)
{
    mdae_bn a = {0}, b = {0};
    cr_assert_eq(mdae_bn_set_u64(&a, UINT64_MAX), MDAE_OK);
    cr_assert_eq(mdae_bn_set_u64(&b, 1), MDAE_OK);
    cr_assert_eq(mdae_bn_add(&a, &b), MDAE_OK);
    expect_dec(&a, "18446744073709551616");
    cr_assert_eq(a.n, 3u);
    cr_assert_eq(mdae_bn_sub(&a, &b), MDAE_OK);
    expect_dec(&a, "18446744073709551615");
    cr_assert_eq(mdae_bn_add(&a, &a), MDAE_OK, "a value added to itself");
    expect_dec(&a, "36893488147419103230");
    mdae_bn_free(&b);
    cr_assert_eq(mdae_bn_sub(&a, &a), MDAE_OK);
    expect_dec(&a, "0");
    cr_assert_eq(a.n, 0u);
    cr_assert(isinf(mdae_bn_log2(&a)));
    mdae_bn_free(&a);
}

Test(bn, doubles_both_ways)
{
    mdae_bn a = {0};
    cr_assert_eq(mdae_bn_set_double(&a, ldexp(1, 200)), MDAE_OK);
    expect_dec(&a, "1606938044258990275541962092341162602522202993782792835301376");
    cr_assert_eq(mdae_bn_double(&a), ldexp(1, 200));
    char *s = mdae_bn_dec_double(1e22);
    cr_assert_str_eq(s, "10000000000000000000000");
    mdae_free(s);
    s = mdae_bn_dec_double(717897986565952681927625.0); /* rounded by the compiler */
    cr_assert_str_eq(s, "717897986565952671580160");
    mdae_free(s);
    cr_assert_eq(mdae_bn_set_double(&a, 123456789.0), MDAE_OK);
    expect_dec(&a, "123456789");
    cr_assert_eq(mdae_bn_set_u64(&a, 0), MDAE_OK);
    expect_dec(&a, "0");
    cr_assert_eq(mdae_bn_set_u64(&a, 1000000000), MDAE_OK);
    expect_dec(&a, "1000000000");
    mdae_bn_free(&a);
}
