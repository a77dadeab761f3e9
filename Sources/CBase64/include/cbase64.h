// base64url without padding (RFC 4648 section 5) for SimctlCrypto: most of a jsonl run's bytes pass through it (every
// JWS payload, and the nested JWS inside it once more). x86-64 AVX2 where present (24 input bytes to 32 characters
// per step), else SSSE3 (12 to 16), else portable C with a 12-bit pair table. No dependencies; SimctlCrypto's
// Base64URL.swift sizes the output.
#ifndef CBASE64_H
#define CBASE64_H

#include <stddef.h>
#include <stdint.h>

/// The encoders: 0 portable C, 1 x86-64 SSSE3, 2 x86-64 AVX2.
enum {
    CBASE64_PORTABLE = 0,
    CBASE64_X86_SSSE3 = 1,
    CBASE64_X86_AVX2 = 2,
};

/// The fastest encoder this CPU runs (cpuid on x86-64; portable elsewhere).
int cbase64_best_engine(void);

/// Whether `engine` runs on this CPU (the portable one always does).
int cbase64_engine_available(int engine);

/// Writes the unpadded base64url of the `count` bytes at `source` to `destination`: count / 3 * 4 characters, plus
/// count % 3 + 1 when count % 3 is not 0. `engine` must be available.
void cbase64_url_encode(int engine, const uint8_t *source, size_t count, uint8_t *destination);

#endif
