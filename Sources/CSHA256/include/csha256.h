// The SHA-256 compression function (FIPS 180-4 section 6.2.2) for SimctlCrypto: the CPU's SHA instructions where
// present (x86-64 SHA-NI, ARMv8 SHA2), else the message schedule in x86-64 vectors (AVX2, AVX-512VL) or portable C
// (built for BMI2 too where x86-64 has it). No dependencies; SimctlCrypto's SHA256.swift does the
// padding, the message length and the digest bytes.
#ifndef CSHA256_H
#define CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// The compression engines: 0 portable C, 1 x86-64 SHA-NI, 2 ARMv8 SHA2, 3 the portable C compiled for x86-64 BMI2,
/// 4 and 5 scalar rounds with the message schedule in x86-64 vectors, built for AVX2 + BMI2 and for AVX-512VL.
enum {
    CSHA256_PORTABLE = 0,
    CSHA256_X86_SHA_NI = 1,
    CSHA256_ARMV8_SHA2 = 2,
    CSHA256_X86_BMI2 = 3,
    CSHA256_X86_AVX2 = 4,
    CSHA256_X86_AVX512VL = 5,
};

/// The fastest engine this CPU runs: SHA instructions, else AVX-512VL, AVX2, BMI2, portable (cpuid on x86-64, the
/// hardware capabilities on Linux ARMv8; SHA256.Engine.best asks once).
int csha256_best_engine(void);

/// Whether `engine` runs on this CPU (the portable one always does).
int csha256_engine_available(int engine);

/// Compresses `blocks` 64-byte blocks of `data` into `state` (H0...H7) with `engine`, which must be available.
void csha256_compress(int engine, uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
