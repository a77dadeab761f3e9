// P-256 field arithmetic (p = 2^256 - 2^224 + 2^192 + 2^96 - 1) and k*G's table sum for SimctlCrypto's signing.
// Field elements are four 64-bit limbs, least significant first, in Montgomery form (x * 2^256 mod p), the same
// representation as SimctlCrypto's UInt256 and MontgomeryModulus.p. Points are Jacobian (x = X/Z^2, y = Y/Z^3);
// the formulas are the Explicit-Formulas Database's "g1p/shortw/jacobian-3" madd-2007-bl and dbl-2001-b, as in
// P256Point.swift. The field multiplication and squaring have a second engine, x86-64 assembly with BMI2 and ADX,
// and the table sum is compiled once per engine. Inversion (Kaliski's almost Montgomery inverse) works modulo any
// odd modulus: SimctlCrypto uses it mod p and mod n. NOT constant-time: for simulated test data only.
#include "cp256.h"

#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

typedef unsigned __int128 u128;

static const uint64_t P[4] = {0xffffffffffffffffULL, 0x00000000ffffffffULL, 0, 0xffffffff00000001ULL};
/// 2^256 mod p: the Montgomery form of 1.
static const uint64_t ONE[4] = {1, 0xffffffff00000000ULL, 0xffffffffffffffffULL, 0x00000000fffffffeULL};

/// r = (t4 * 2^256 + t) mod p for a value below 2p. Branch-free: whether p is subtracted depends on the data and
/// is a coin toss for the branch predictor, so both are computed and one is kept by a mask.
static inline void reduce_once(uint64_t r[4], const uint64_t t[4], uint64_t t4) {
    uint64_t d[4];
    u128 b = (u128)t[0] - P[0];
    d[0] = (uint64_t)b;
    b = (u128)t[1] - P[1] - (uint64_t)(b >> 127);
    d[1] = (uint64_t)b;
    b = (u128)t[2] - P[2] - (uint64_t)(b >> 127);
    d[2] = (uint64_t)b;
    b = (u128)t[3] - P[3] - (uint64_t)(b >> 127);
    d[3] = (uint64_t)b;
    uint64_t borrow = (uint64_t)(b >> 127);
    // t >= p unless the subtraction borrowed with no carry bit above: keep t (mask all ones) only then.
    uint64_t keep = 0 - (borrow & (t4 ^ 1));
    for (int i = 0; i < 4; i++) r[i] = (t[i] & keep) | (d[i] & ~keep);
}

/// Montgomery reduction of the 512-bit t (t < p * 2^256): r = t * 2^-256 mod p. Since p = -1 mod 2^64, the
/// quotient digit of each step is the lowest limb itself, and adding q * p clears it: q * p = q * 2^256 -
/// q * 2^224 + q * 2^192 + q * 2^96 - q, so the step adds q * 2^32 one limb up and q * (2^64 - 2^32 + 1) three up.
static inline void montgomery_reduce(uint64_t r[4], uint64_t t[8]) {
    uint64_t top = 0;  // the carry out of t[7]
    for (int i = 0; i < 4; i++) {
        uint64_t q = t[i];
        u128 m = (u128)q * 0xffffffff00000001ULL;
        u128 acc = (u128)t[i + 1] + (q << 32);
        t[i + 1] = (uint64_t)acc;
        acc = (acc >> 64) + t[i + 2] + (q >> 32);
        t[i + 2] = (uint64_t)acc;
        acc = (acc >> 64) + t[i + 3] + (uint64_t)m;
        t[i + 3] = (uint64_t)acc;
        acc = (acc >> 64) + t[i + 4] + (uint64_t)(m >> 64);
        t[i + 4] = (uint64_t)acc;
        uint64_t carry = (uint64_t)(acc >> 64);
        for (int j = i + 5; j < 8; j++) {
            acc = (u128)t[j] + carry;
            t[j] = (uint64_t)acc;
            carry = (uint64_t)(acc >> 64);
        }
        top += carry;
    }
    reduce_once(r, t + 4, top);
}

/// r = a * b * 2^-256 mod p (Montgomery form in and out; a, b < p). r may alias a or b.
static void field_multiply_portable(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t t[8];
    u128 acc;
    uint64_t carry;
    // Schoolbook 4x4 product, row by row.
    carry = 0;
    for (int j = 0; j < 4; j++) {
        acc = (u128)a[0] * b[j] + carry;
        t[j] = (uint64_t)acc;
        carry = (uint64_t)(acc >> 64);
    }
    t[4] = carry;
    for (int i = 1; i < 4; i++) {
        carry = 0;
        for (int j = 0; j < 4; j++) {
            acc = (u128)a[i] * b[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)acc;
            carry = (uint64_t)(acc >> 64);
        }
        t[i + 4] = carry;
    }
    montgomery_reduce(r, t);
}

/// r = a^2 * 2^-256 mod p: the six cross products once, doubled, plus the four squares.
static inline void field_square_portable(uint64_t r[4], const uint64_t a[4]) {
    uint64_t t[8];
    u128 acc;
    uint64_t carry;
    // Cross products a[i] * a[j], i < j, at limb i + j.
    acc = (u128)a[0] * a[1];
    t[1] = (uint64_t)acc;
    acc = (acc >> 64) + (u128)a[0] * a[2];
    t[2] = (uint64_t)acc;
    acc = (acc >> 64) + (u128)a[0] * a[3];
    t[3] = (uint64_t)acc;
    t[4] = (uint64_t)(acc >> 64);
    acc = (u128)a[1] * a[2] + t[3];
    t[3] = (uint64_t)acc;
    acc = (acc >> 64) + (u128)a[1] * a[3] + t[4];
    t[4] = (uint64_t)acc;
    t[5] = (uint64_t)(acc >> 64);
    acc = (u128)a[2] * a[3] + t[5];
    t[5] = (uint64_t)acc;
    t[6] = (uint64_t)(acc >> 64);
    // Doubled.
    t[7] = t[6] >> 63;
    t[6] = (t[6] << 1) | (t[5] >> 63);
    t[5] = (t[5] << 1) | (t[4] >> 63);
    t[4] = (t[4] << 1) | (t[3] >> 63);
    t[3] = (t[3] << 1) | (t[2] >> 63);
    t[2] = (t[2] << 1) | (t[1] >> 63);
    t[1] = t[1] << 1;
    // Plus the squares a[i]^2 at limb 2i.
    acc = (u128)a[0] * a[0];
    t[0] = (uint64_t)acc;
    carry = (uint64_t)(acc >> 64);
    for (int i = 1; i < 4; i++) {
        u128 s = (u128)a[i] * a[i];
        acc = (u128)t[2 * i - 1] + carry;
        t[2 * i - 1] = (uint64_t)acc;
        acc = (acc >> 64) + t[2 * i] + (uint64_t)s;
        t[2 * i] = (uint64_t)acc;
        carry = (uint64_t)(acc >> 64) + (uint64_t)(s >> 64);
    }
    t[7] += carry;
    montgomery_reduce(r, t);
}

// MARK: - x86-64 BMI2 + ADX multiplication

#if defined(__x86_64__)
#define CP256_X86 1
/// r = t * 2^-256 mod p for the 512-bit t = t7...t0 (t < p^2), for the engine CP256_X86_ADX: the low half is
/// Montgomery-reduced alone, four steps with the lowest limb as quotient digit as in `montgomery_reduce` (each step's
/// (c + q p) / 2^64 stays below 2^256, since c / 2^64 < 2^192 and q p / 2^64 < p < 2^256 - 2^192), leaving u <= p;
/// high half + u < 2p, so one conditional subtraction of p ends it.
static inline void montgomery_reduce_adx(
    uint64_t r[4], uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4, uint64_t t5, uint64_t t6,
    uint64_t t7) {
    uint64_t x, y;
    __asm__(
        // Four reduction steps on the low half, the limbs rotating through t0...t3. As in montgomery_reduce, with
        // q the lowest limb (in rdx for mulx, then shifted), (c + q p) / 2^64 adds q * 2^32 to the next limb (split
        // over two: q << 32, q >> 32) and q * P[3] three limbs up; the lowest limb, which becomes zero, is dropped.
        "movq %[t0], %%rdx\n\t"
        "mulxq %[p3], %[x], %[y]\n\t"
        "shlq $32, %%rdx\n\t"
        "shrq $32, %[t0]\n\t"
        "addq %%rdx, %[t1]\n\t"
        "adcq %[t0], %[t2]\n\t"
        "adcq %[x], %[t3]\n\t"
        "adcq $0, %[y]\n\t"
        "movq %[y], %[t0]\n\t"  // limbs t1 t2 t3 t0
        "movq %[t1], %%rdx\n\t"
        "mulxq %[p3], %[x], %[y]\n\t"
        "shlq $32, %%rdx\n\t"
        "shrq $32, %[t1]\n\t"
        "addq %%rdx, %[t2]\n\t"
        "adcq %[t1], %[t3]\n\t"
        "adcq %[x], %[t0]\n\t"
        "adcq $0, %[y]\n\t"
        "movq %[y], %[t1]\n\t"  // t2 t3 t0 t1
        "movq %[t2], %%rdx\n\t"
        "mulxq %[p3], %[x], %[y]\n\t"
        "shlq $32, %%rdx\n\t"
        "shrq $32, %[t2]\n\t"
        "addq %%rdx, %[t3]\n\t"
        "adcq %[t2], %[t0]\n\t"
        "adcq %[x], %[t1]\n\t"
        "adcq $0, %[y]\n\t"
        "movq %[y], %[t2]\n\t"  // t3 t0 t1 t2
        "movq %[t3], %%rdx\n\t"
        "mulxq %[p3], %[x], %[y]\n\t"
        "shlq $32, %%rdx\n\t"
        "shrq $32, %[t3]\n\t"
        "addq %%rdx, %[t0]\n\t"
        "adcq %[t3], %[t1]\n\t"
        "adcq %[x], %[t2]\n\t"
        "adcq $0, %[y]\n\t"
        "movq %[y], %[t3]\n\t"  // t0 t1 t2 t3: u <= p
        // s = high half + u (y: the carry out), then s - p unless that borrows.
        "xorl %k[y], %k[y]\n\t"
        "addq %[t0], %[t4]\n\t"
        "adcq %[t1], %[t5]\n\t"
        "adcq %[t2], %[t6]\n\t"
        "adcq %[t3], %[t7]\n\t"
        "adcq $0, %[y]\n\t"
        "movq %[t4], %[t0]\n\t"
        "movq %[t5], %[t1]\n\t"
        "movq %[t6], %[t2]\n\t"
        "movq %[t7], %[t3]\n\t"
        "subq $-1, %[t0]\n\t"
        "sbbq %[p1], %[t1]\n\t"
        "sbbq $0, %[t2]\n\t"
        "sbbq %[p3], %[t3]\n\t"
        "sbbq $0, %[y]\n\t"
        "cmovcq %[t4], %[t0]\n\t"
        "cmovcq %[t5], %[t1]\n\t"
        "cmovcq %[t6], %[t2]\n\t"
        "cmovcq %[t7], %[t3]\n\t"
        : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4), [t5] "+&r"(t5),
          [t6] "+&r"(t6), [t7] "+&r"(t7), [x] "=&r"(x), [y] "=&r"(y)
        : [p3] "m"(P[3]), [p1] "m"(P[1])
        : "rdx", "cc");
    r[0] = t0;
    r[1] = t1;
    r[2] = t2;
    r[3] = t3;
}


/// r = a * b * 2^-256 mod p, as `field_multiply_portable`, in inline assembly for x86-64 BMI2 and ADX (the engine
/// CP256_X86_ADX, run only where cpuid reports both): `mulx` leaves the flags alone, so each row of the schoolbook
/// product adds its low halves on the carry flag (`adcx`) and its high halves on the overflow flag (`adox`), two
/// carry chains at once; then `montgomery_reduce_adx`. r may alias a or b.
static inline void field_multiply_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t t0, t1, t2, t3, t4, t5, t6, t7, x, y;
    __asm__(
        // Row 0: b[0] * a.
        "movq 0(%[b]), %%rdx\n\t"
        "mulxq 0(%[a]), %[t0], %[t1]\n\t"
        "mulxq 8(%[a]), %[x], %[t2]\n\t"
        "addq %[x], %[t1]\n\t"
        "mulxq 16(%[a]), %[x], %[t3]\n\t"
        "adcq %[x], %[t2]\n\t"
        "mulxq 24(%[a]), %[x], %[t4]\n\t"
        "adcq %[x], %[t3]\n\t"
        "adcq $0, %[t4]\n\t"
        // Row 1: b[1] * a, one limb up; xor clears both flags.
        "movq 8(%[b]), %%rdx\n\t"
        "xorl %k[y], %k[y]\n\t"
        "mulxq 0(%[a]), %[x], %[y]\n\t"
        "adcxq %[x], %[t1]\n\t"
        "adoxq %[y], %[t2]\n\t"
        "mulxq 8(%[a]), %[x], %[y]\n\t"
        "adcxq %[x], %[t2]\n\t"
        "adoxq %[y], %[t3]\n\t"
        "mulxq 16(%[a]), %[x], %[y]\n\t"
        "adcxq %[x], %[t3]\n\t"
        "adoxq %[y], %[t4]\n\t"
        "mulxq 24(%[a]), %[x], %[t5]\n\t"
        "adcxq %[x], %[t4]\n\t"
        "movl $0, %k[y]\n\t"  // a zero that leaves both flags alone
        "adoxq %[y], %[t5]\n\t"
        "adcxq %[y], %[t5]\n\t"
        // Row 2.
        "movq 16(%[b]), %%rdx\n\t"
        "xorl %k[y], %k[y]\n\t"
        "mulxq 0(%[a]), %[x], %[y]\n\t"
        "adcxq %[x], %[t2]\n\t"
        "adoxq %[y], %[t3]\n\t"
        "mulxq 8(%[a]), %[x], %[y]\n\t"
        "adcxq %[x], %[t3]\n\t"
        "adoxq %[y], %[t4]\n\t"
        "mulxq 16(%[a]), %[x], %[y]\n\t"
        "adcxq %[x], %[t4]\n\t"
        "adoxq %[y], %[t5]\n\t"
        "mulxq 24(%[a]), %[x], %[t6]\n\t"
        "adcxq %[x], %[t5]\n\t"
        "movl $0, %k[y]\n\t"  // a zero that leaves both flags alone
        "adoxq %[y], %[t6]\n\t"
        "adcxq %[y], %[t6]\n\t"
        // Row 3.
        "movq 24(%[b]), %%rdx\n\t"
        "xorl %k[y], %k[y]\n\t"
        "mulxq 0(%[a]), %[x], %[y]\n\t"
        "adcxq %[x], %[t3]\n\t"
        "adoxq %[y], %[t4]\n\t"
        "mulxq 8(%[a]), %[x], %[y]\n\t"
        "adcxq %[x], %[t4]\n\t"
        "adoxq %[y], %[t5]\n\t"
        "mulxq 16(%[a]), %[x], %[y]\n\t"
        "adcxq %[x], %[t5]\n\t"
        "adoxq %[y], %[t6]\n\t"
        "mulxq 24(%[a]), %[x], %[t7]\n\t"
        "adcxq %[x], %[t6]\n\t"
        "movl $0, %k[y]\n\t"  // a zero that leaves both flags alone
        "adoxq %[y], %[t7]\n\t"
        "adcxq %[y], %[t7]\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
          [t6] "=&r"(t6), [t7] "=&r"(t7), [x] "=&r"(x), [y] "=&r"(y)
        // The arrays are read through their addresses with a "memory" clobber: giving them as memory operands too
        // needs more registers than x86-64 has at -O0 (debug builds), where each operand gets its own.
        : [a] "r"(a), [b] "r"(b)
        : "rdx", "cc", "memory");
    montgomery_reduce_adx(r, t0, t1, t2, t3, t4, t5, t6, t7);
}

/// r = a^2 * 2^-256 mod p, as `field_square_portable`, for the engine CP256_X86_ADX: the six cross products once
/// (the second row on both carry chains), doubled, plus the four squares, then `montgomery_reduce_adx`.
static inline void field_square_adx(uint64_t r[4], const uint64_t a[4]) {
    uint64_t t0, t1, t2, t3, t4, t5, t6, t7, x, y;
    __asm__(
        // a[0] * a[1...3] at limbs 1 to 4.
        "movq 0(%[a]), %%rdx\n\t"
        "mulxq 8(%[a]), %[t1], %[t2]\n\t"
        "mulxq 16(%[a]), %[x], %[t3]\n\t"
        "addq %[x], %[t2]\n\t"
        "mulxq 24(%[a]), %[x], %[t4]\n\t"
        "adcq %[x], %[t3]\n\t"
        "adcq $0, %[t4]\n\t"
        // a[1] * a[2...3] at limbs 3 to 5; xor clears both flags.
        "movq 8(%[a]), %%rdx\n\t"
        "xorl %k[y], %k[y]\n\t"
        "mulxq 16(%[a]), %[x], %[y]\n\t"
        "adcxq %[x], %[t3]\n\t"
        "adoxq %[y], %[t4]\n\t"
        "mulxq 24(%[a]), %[x], %[t5]\n\t"
        "adcxq %[x], %[t4]\n\t"
        "movl $0, %k[y]\n\t"  // a zero that leaves both flags alone
        "adoxq %[y], %[t5]\n\t"
        "adcxq %[y], %[t5]\n\t"
        // a[2] * a[3] at limbs 5 and 6.
        "movq 16(%[a]), %%rdx\n\t"
        "mulxq 24(%[a]), %[x], %[t6]\n\t"
        "addq %[x], %[t5]\n\t"
        "adcq $0, %[t6]\n\t"
        // Doubled, the bit out in t7.
        "xorl %k[t7], %k[t7]\n\t"
        "addq %[t1], %[t1]\n\t"
        "adcq %[t2], %[t2]\n\t"
        "adcq %[t3], %[t3]\n\t"
        "adcq %[t4], %[t4]\n\t"
        "adcq %[t5], %[t5]\n\t"
        "adcq %[t6], %[t6]\n\t"
        "adcq $0, %[t7]\n\t"
        // Plus a[i]^2 at limb 2i (mulx and mov leave the carry chain alone).
        "movq 0(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[t0], %[x]\n\t"
        "addq %[x], %[t1]\n\t"
        "movq 8(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[x], %[y]\n\t"
        "adcq %[x], %[t2]\n\t"
        "adcq %[y], %[t3]\n\t"
        "movq 16(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[x], %[y]\n\t"
        "adcq %[x], %[t4]\n\t"
        "adcq %[y], %[t5]\n\t"
        "movq 24(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[x], %[y]\n\t"
        "adcq %[x], %[t6]\n\t"
        "adcq %[y], %[t7]\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
          [t6] "=&r"(t6), [t7] "=&r"(t7), [x] "=&r"(x), [y] "=&r"(y)
        : [a] "r"(a), "m"(*(const uint64_t(*)[4])a)
        : "rdx", "cc");
    montgomery_reduce_adx(r, t0, t1, t2, t3, t4, t5, t6, t7);
}

/// BMI2 (cpuid leaf 7 EBX bit 8) and ADX (bit 19).
static int x86_has_bmi2_adx(void) {
    unsigned int a, b, c, d;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return ((b >> 8) & 1) && ((b >> 19) & 1);
}
#endif

int cp256_engine_available(int engine) {
    switch (engine) {
    case CP256_PORTABLE: return 1;
#ifdef CP256_X86
    case CP256_X86_ADX: return x86_has_bmi2_adx();
#endif
    default: return 0;
    }
}

int cp256_best_engine(void) {
    return cp256_engine_available(CP256_X86_ADX) ? CP256_X86_ADX : CP256_PORTABLE;
}

/// r = a * b * 2^-256 mod p with `engine`: a constant wherever the callers below are inlined into one engine's copy
/// of the table sum, so the test folds away.
static inline __attribute__((always_inline)) void field_multiply(
    int engine, uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
#ifdef CP256_X86
    if (engine == CP256_X86_ADX) {
        field_multiply_adx(r, a, b);
        return;
    }
#endif
    (void)engine;
    field_multiply_portable(r, a, b);
}

/// r = a^2 * 2^-256 mod p with `engine`.
static inline __attribute__((always_inline)) void field_square(int engine, uint64_t r[4], const uint64_t a[4]) {
#ifdef CP256_X86
    if (engine == CP256_X86_ADX) {
        field_square_adx(r, a);
        return;
    }
#endif
    (void)engine;
    field_square_portable(r, a);
}

/// r = a + b mod p.
static inline void field_add(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t t[4];
    u128 acc = (u128)a[0] + b[0];
    t[0] = (uint64_t)acc;
    acc = (acc >> 64) + a[1] + b[1];
    t[1] = (uint64_t)acc;
    acc = (acc >> 64) + a[2] + b[2];
    t[2] = (uint64_t)acc;
    acc = (acc >> 64) + a[3] + b[3];
    t[3] = (uint64_t)acc;
    reduce_once(r, t, (uint64_t)(acc >> 64));
}

/// r = a - b mod p. Branch-free: p, masked by the borrow, is added back.
static inline void field_subtract(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t t[4];
    u128 d = (u128)a[0] - b[0];
    t[0] = (uint64_t)d;
    d = (u128)a[1] - b[1] - (uint64_t)(d >> 127);
    t[1] = (uint64_t)d;
    d = (u128)a[2] - b[2] - (uint64_t)(d >> 127);
    t[2] = (uint64_t)d;
    d = (u128)a[3] - b[3] - (uint64_t)(d >> 127);
    t[3] = (uint64_t)d;
    uint64_t mask = 0 - (uint64_t)(d >> 127);  // all ones when a < b
    u128 acc = (u128)t[0] + (P[0] & mask);
    r[0] = (uint64_t)acc;
    acc = (acc >> 64) + t[1] + (P[1] & mask);
    r[1] = (uint64_t)acc;
    acc = (acc >> 64) + t[2] + (P[2] & mask);
    r[2] = (uint64_t)acc;
    acc = (acc >> 64) + t[3] + (P[3] & mask);
    r[3] = (uint64_t)acc;
}

static inline int is_zero(const uint64_t a[4]) { return (a[0] | a[1] | a[2] | a[3]) == 0; }

/// Jacobian point, Montgomery-form coordinates; z = 0 is the point at infinity.
typedef struct {
    uint64_t x[4], y[4], z[4];
} jacobian;

/// 2P (dbl-2001-b, a = -3); P not at infinity.
static void point_double(int engine, jacobian *out, const jacobian *p) {
    uint64_t delta[4], gamma[4], beta[4], t[4], u[4], alpha[4], beta4[4], beta8[4], x3[4], y3[4], z3[4];
    if (is_zero(p->y)) {
        memset(out, 0, sizeof *out);
        return;
    }
    field_square(engine, delta, p->z);
    field_square(engine, gamma, p->y);
    field_multiply(engine, beta, p->x, gamma);
    field_subtract(t, p->x, delta);
    field_add(u, p->x, delta);
    field_multiply(engine, t, t, u);
    field_add(alpha, t, t);
    field_add(alpha, alpha, t);
    field_add(beta4, beta, beta);
    field_add(beta4, beta4, beta4);
    field_add(beta8, beta4, beta4);
    field_square(engine, x3, alpha);
    field_subtract(x3, x3, beta8);
    field_add(t, p->y, p->z);
    field_square(engine, t, t);
    field_subtract(t, t, gamma);
    field_subtract(z3, t, delta);
    field_square(engine, u, gamma);
    field_add(u, u, u);
    field_add(u, u, u);
    field_add(u, u, u);
    field_subtract(t, beta4, x3);
    field_multiply(engine, t, alpha, t);
    field_subtract(y3, t, u);
    memcpy(out->x, x3, sizeof x3);
    memcpy(out->y, y3, sizeof y3);
    memcpy(out->z, z3, sizeof z3);
}

/// P + Q for an affine Q = (qx, qy) (madd-2007-bl); P may be the point at infinity.
static inline __attribute__((always_inline)) void point_add_affine(
    int engine, jacobian *p, const uint64_t qx[4], const uint64_t qy[4]) {
    if (is_zero(p->z)) {
        memcpy(p->x, qx, 32);
        memcpy(p->y, qy, 32);
        memcpy(p->z, ONE, 32);
        return;
    }
    uint64_t z1z1[4], u2[4], s2[4], h[4], r[4], hh[4], i[4], j[4], v[4], x3[4], y3[4], z3[4], t[4];
    field_square(engine, z1z1, p->z);
    field_multiply(engine, u2, qx, z1z1);
    field_multiply(engine, t, p->z, z1z1);
    field_multiply(engine, s2, qy, t);
    field_subtract(h, u2, p->x);
    field_subtract(r, s2, p->y);
    // Equal or opposite points. In k*G's table sum the running sum's scalar is below the entry's and both are below
    // n, so only the opposite case can occur (k = n: the point at infinity); the doubling stays for any other use.
    if (is_zero(h)) {
        if (is_zero(r)) {
            point_double(engine, p, p);
        } else {
            memset(p, 0, sizeof *p);
        }
        return;
    }
    field_square(engine, hh, h);
    field_add(i, hh, hh);
    field_add(i, i, i);
    field_multiply(engine, j, h, i);
    field_add(r, r, r);
    field_multiply(engine, v, p->x, i);
    field_square(engine, x3, r);
    field_subtract(x3, x3, j);
    field_subtract(x3, x3, v);
    field_subtract(x3, x3, v);
    field_multiply(engine, t, p->y, j);
    field_add(t, t, t);
    field_subtract(y3, v, x3);
    field_multiply(engine, y3, r, y3);
    field_subtract(y3, y3, t);
    field_add(z3, p->z, h);
    field_square(engine, z3, z3);
    field_subtract(z3, z3, z1z1);
    field_subtract(z3, z3, hh);
    memcpy(p->x, x3, 32);
    memcpy(p->y, y3, 32);
    memcpy(p->z, z3, 32);
}

/// R^3 mod p (R = 2^256): turns the plain inverse of a Montgomery-form value into the Montgomery-form inverse.
static const uint64_t R_CUBED[4] = {
    0xfffffffd0000000aULL, 0xffffffedfffffff7ULL, 0x00000005fffffffcULL, 0x0000001800000001ULL};

/// cp256_generator_multiple_x with `engine`, inlined into one copy per engine below.
static inline __attribute__((always_inline)) int generator_multiple_x(
    int engine, uint64_t x[4], const uint64_t *table, const uint8_t k[32]) {
    jacobian sum;
    memset(&sum, 0, sizeof sum);
    // The table (512 KB) is larger than the caches: each entry's two cache lines are requested one addition ahead.
    const uint64_t *next = table + 8 * k[0];
    __builtin_prefetch(next);
    __builtin_prefetch(next + 7);
    for (int i = 0; i < 32; i++) {
        const uint64_t *entry = next;
        unsigned digit = k[i];
        if (i < 31) {
            next = table + 8 * (256 * (i + 1) + k[i + 1]);
            __builtin_prefetch(next);
            __builtin_prefetch(next + 7);
        }
        if (digit == 0) continue;
        point_add_affine(engine, &sum, entry, entry + 4);
    }
    if (is_zero(sum.z)) return 0;
    // x = X / Z^2: one inversion (the binary algorithm below beats a^(p-2) here) and two products.
    uint64_t zInverse[4], zInverse2[4], one[4] = {1, 0, 0, 0};
    cp256_plain_inverse(zInverse, sum.z, P);
    field_multiply(engine, zInverse, zInverse, R_CUBED);
    field_square(engine, zInverse2, zInverse);
    field_multiply(engine, x, sum.x, zInverse2);
    field_multiply(engine, x, x, one);  // out of Montgomery form
    return 1;
}

static int generator_multiple_x_portable(uint64_t x[4], const uint64_t *table, const uint8_t k[32]) {
    return generator_multiple_x(CP256_PORTABLE, x, table, k);
}

#ifdef CP256_X86
static int generator_multiple_x_adx(uint64_t x[4], const uint64_t *table, const uint8_t k[32]) {
    return generator_multiple_x(CP256_X86_ADX, x, table, k);
}
#endif

int cp256_generator_multiple_x(int engine, uint64_t x[4], const uint64_t *table, const uint8_t k[32]) {
#ifdef CP256_X86
    if (engine == CP256_X86_ADX) return generator_multiple_x_adx(x, table, k);
#endif
    return generator_multiple_x_portable(x, table, k);
}

// MARK: - Inversion modulo any odd modulus

/// a >= b.
static inline int at_least(const uint64_t a[4], const uint64_t b[4]) {
    for (int i = 3; i >= 0; i--) {
        if (a[i] != b[i]) return a[i] > b[i];
    }
    return 1;
}

/// a -= b (no borrow out: a >= b).
static inline void subtract_in_place(uint64_t a[4], const uint64_t b[4]) {
    u128 d = (u128)a[0] - b[0];
    a[0] = (uint64_t)d;
    d = (u128)a[1] - b[1] - (uint64_t)(d >> 127);
    a[1] = (uint64_t)d;
    d = (u128)a[2] - b[2] - (uint64_t)(d >> 127);
    a[2] = (uint64_t)d;
    d = (u128)a[3] - b[3] - (uint64_t)(d >> 127);
    a[3] = (uint64_t)d;
}

/// a >>= s for 0 < s < 64.
static inline void shift_right(uint64_t a[4], int s) {
    a[0] = (a[0] >> s) | (a[1] << (64 - s));
    a[1] = (a[1] >> s) | (a[2] << (64 - s));
    a[2] = (a[2] >> s) | (a[3] << (64 - s));
    a[3] = a[3] >> s;
}

/// x = x / 2^s mod m (x < m, m odd, 0 < s < 64): adds the multiple of m that clears x's low s bits, then shifts.
static inline void halve_mod(uint64_t x[4], int s, const uint64_t m[4], uint64_t mInverse) {
    uint64_t mask = (1ULL << s) - 1;
    uint64_t q = (x[0] * mInverse) & mask;  // x + q m = 0 mod 2^s, q < 2^s
    u128 acc = (u128)q * m[0] + x[0];
    uint64_t t0 = (uint64_t)acc;
    acc = (acc >> 64) + (u128)q * m[1] + x[1];
    uint64_t t1 = (uint64_t)acc;
    acc = (acc >> 64) + (u128)q * m[2] + x[2];
    uint64_t t2 = (uint64_t)acc;
    acc = (acc >> 64) + (u128)q * m[3] + x[3];
    uint64_t t3 = (uint64_t)acc;
    uint64_t t4 = (uint64_t)(acc >> 64);  // (x + q m) < 2^(256 + s)
    x[0] = (t0 >> s) | (t1 << (64 - s));
    x[1] = (t1 >> s) | (t2 << (64 - s));
    x[2] = (t2 >> s) | (t3 << (64 - s));
    x[3] = (t3 >> s) | (t4 << (64 - s));
    // (x + q m) / 2^s < (m + 2^s m) / 2^s <= 2m: one subtraction at most.
    if (at_least(x, m)) subtract_in_place(x, m);
}

/// a <<= s for 0 < s < 64 (the caller knows no bits leave).
static inline void shift_left(uint64_t a[4], int s) {
    a[3] = (a[3] << s) | (a[2] >> (64 - s));
    a[2] = (a[2] << s) | (a[1] >> (64 - s));
    a[1] = (a[1] << s) | (a[0] >> (64 - s));
    a[0] = a[0] << s;
}

/// a += b (no carry out: the caller knows the sum fits).
static inline void add_in_place(uint64_t a[4], const uint64_t b[4]) {
    u128 acc = (u128)a[0] + b[0];
    a[0] = (uint64_t)acc;
    acc = (acc >> 64) + a[1] + b[1];
    a[1] = (uint64_t)acc;
    acc = (acc >> 64) + a[2] + b[2];
    a[2] = (uint64_t)acc;
    acc = (acc >> 64) + a[3] + b[3];
    a[3] = (uint64_t)acc;
}

/// The number of trailing zero bits of a nonzero even a, at most 63 (a longer run is removed in several steps).
static inline int trailing_zeros(const uint64_t a[4]) { return a[0] == 0 ? 63 : __builtin_ctzll(a[0]); }

void cp256_plain_inverse(uint64_t result[4], const uint64_t a[4], const uint64_t m[4]) {
    if (is_zero(a)) {
        memset(result, 0, 32);
        return;
    }
    // Phase 1 of Kaliski's almost Montgomery inverse ("The Montgomery inverse and its applications", IEEE Trans.
    // Computers 44(8), 1995): x = a^-1 2^k mod m with 256 <= k <= 512, using only shifts, additions and
    // subtractions. Invariant m = u s + v r, so r and s stay at most m while v > 0; runs of trailing zeros are
    // shifted out together (k counts the single steps they stand for).
    uint64_t u[4], v[4], r[4] = {0, 0, 0, 0}, s[4] = {1, 0, 0, 0};
    memcpy(u, m, sizeof u);
    memcpy(v, a, sizeof v);
    // The steps are taken in the textbook order, but each subtraction is followed at once by the shift of the even
    // difference it leaves (u stays odd throughout, and v after its first shift), so the loop tests only which of
    // u and v is larger: one data-dependent branch per subtraction instead of three.
    int k = 0;
    while ((v[0] & 1) == 0) {
        int c = trailing_zeros(v);
        shift_right(v, c);
        shift_left(r, c);
        k += c;
    }
    for (;;) {
        if (!at_least(v, u)) {
            subtract_in_place(u, v);
            add_in_place(r, s);
            do {
                int c = trailing_zeros(u);
                shift_right(u, c);
                shift_left(s, c);
                k += c;
            } while ((u[0] & 1) == 0);
        } else {
            subtract_in_place(v, u);
            add_in_place(s, r);
            if (is_zero(v)) break;
            do {
                int c = trailing_zeros(v);
                shift_right(v, c);
                shift_left(r, c);
                k += c;
            } while ((v[0] & 1) == 0);
        }
    }
    // The last step (v - u = 0) doubles r too: r < 2m, with the bit above 256 in `carry`.
    uint64_t carry = r[3] >> 63;
    shift_left(r, 1);
    k += 1;
    if (carry || at_least(r, m)) subtract_in_place(r, m);
    uint64_t x[4];
    memcpy(x, m, sizeof x);
    subtract_in_place(x, r);  // x = m - r = a^-1 2^k mod m
    // Phase 2: divide by 2^k, up to 63 bits per step (a Montgomery reduction step: add the multiple of m that
    // clears the low bits, shift).
    uint64_t inverse = m[0];
    for (int i = 0; i < 5; i++) inverse *= 2 - m[0] * inverse;  // m^-1 mod 2^64 (Newton; m m = 1 mod 8)
    uint64_t mInverse = 0 - inverse;
    if (at_least(x, m)) subtract_in_place(x, m);
    while (k > 0) {
        int step = k < 63 ? k : 63;
        halve_mod(x, step, m, mInverse);
        k -= step;
    }
    memcpy(result, x, 32);
}
