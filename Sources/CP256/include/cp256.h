// P-256 arithmetic in C for SimctlCrypto's ES256 signing: Montgomery multiplication and squaring modulo the field prime
// p with 128-bit products (or x86-64 BMI2 and ADX assembly), the sum of k*G's precomputed table entries, and the affine
// x of the result. No dependencies; SimctlCrypto's P256Point.swift builds the table and keeps the Swift reference code
// the tests compare this with. NOT constant-time (see SimctlCrypto/P256.swift): for simulated test data only.
#ifndef CP256_H
#define CP256_H

#include <stdint.h>

/// The engines of cp256_generator_multiple_x: 0 portable C (128-bit products), 1 its field multiplication in x86-64
/// assembly with BMI2 and ADX (`mulx`, `adcx`, `adox`). Both give the same bits.
enum {
    CP256_PORTABLE = 0,
    CP256_X86_ADX = 1,
};

/// The fastest engine this CPU runs: CP256_X86_ADX where cpuid reports BMI2 and ADX, else CP256_PORTABLE.
int cp256_best_engine(void);

/// Whether `engine` runs on this CPU (the portable one always does).
int cp256_engine_available(int engine);

/// The affine x of k*G, plain (not Montgomery form), with `engine` (which must be available), for k given as 32
/// little-endian bytes (byte i is k's i-th least significant byte): the sum of one table entry per nonzero byte, then
/// one inversion. `table` holds 32 * 256 affine points of 8 limbs each (x then y, Montgomery form, least significant
/// limb first), entry 256 i + j being j * 256^i * G (entries with j = 0 unused). Returns 0 when k*G is the point at
/// infinity (k = 0 mod n), 1 otherwise.
int cp256_generator_multiple_x(int engine, uint64_t x[4], const uint64_t *table, const uint8_t k[32]);

/// r = a^-1 mod m for a plain a < m and an odd m with gcd(a, m) = 1 (zero for a = 0): Kaliski's almost
/// Montgomery inverse (a binary extended Euclidean algorithm with shifts and additions only), then a division by
/// the power of two it leaves. Variable-time.
void cp256_plain_inverse(uint64_t r[4], const uint64_t a[4], const uint64_t m[4]);

#endif
