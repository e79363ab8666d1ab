/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/test_env.h -- the suites' knobs from the environment
 * (MDAE_SEED, MDAE_RANDOM_MODELS, ...), so that a failure on a random model
 * can be replayed alone. Header-only (static functions), as model_files.h.
 */
#ifndef TEST_ENV_H
#define TEST_ENV_H

#include <stdint.h>
#include <stdlib.h>

/* The unsigned value of environment variable `name` (decimal, 0x hex or 0
 * octal), or dflt when it is unset or empty. */
static inline uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtoull(s, NULL, 0) : dflt;
}

#endif /* TEST_ENV_H */
