// base64url without padding, RFC 4648 section 5: each 3 input bytes (24 bits) become 4 characters of the alphabet
// A-Z a-z 0-9 - _ (6 bits each, most significant first); a last group of 1 or 2 bytes becomes 2 or 3 characters.
#include "cbase64.h"

#include <string.h>

static const char ALPHABET[64] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The two characters of each 12-bit value, first character first in memory, filled when the program loads.
static uint8_t pairs[4096][2];

__attribute__((constructor)) static void fill_pairs(void) {
    for (int value = 0; value < 4096; value++) {
        pairs[value][0] = (uint8_t)ALPHABET[value >> 6];
        pairs[value][1] = (uint8_t)ALPHABET[value & 63];
    }
}

/// The whole groups and the tail, one 3-byte group at a time (two pair lookups each).
static void encode_portable(const uint8_t *source, size_t count, uint8_t *destination) {
    size_t i = 0;
    uint8_t *o = destination;
    for (; i + 3 <= count; i += 3) {
        uint32_t n = (uint32_t)source[i] << 16 | (uint32_t)source[i + 1] << 8 | source[i + 2];
        memcpy(o, pairs[n >> 12], 2);
        memcpy(o + 2, pairs[n & 0xFFF], 2);
        o += 4;
    }
    size_t rest = count - i;
    if (rest > 0) {
        uint32_t n = (uint32_t)source[i] << 16 | (rest == 2 ? (uint32_t)source[i + 1] << 8 : 0);
        o[0] = (uint8_t)ALPHABET[n >> 18];
        o[1] = (uint8_t)ALPHABET[n >> 12 & 63];
        if (rest == 2) o[2] = (uint8_t)ALPHABET[n >> 6 & 63];
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

/// 12 bytes to 16 characters per step while 16 bytes can be read (the load reads 4 bytes beyond the 12 it uses), then
/// the portable code for the rest.
__attribute__((target("ssse3"))) static void encode_ssse3(const uint8_t *source, size_t count, uint8_t *destination) {
    // Each 32-bit lane gets the bytes b1 b0 b2 b1 of its group: as 16-bit words, b0:b1 and b1:b2.
    const __m128i spread = _mm_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10);
    // Sextets 0 and 2 (bits 10-15 of the low word, 6-11 of the high one) shifted down by a high multiplication,
    // sextets 1 and 3 (bits 4-9, 0-5) shifted up into bytes 1 and 3 by a low one.
    const __m128i mask02 = _mm_set1_epi32(0x0FC0FC00);
    const __m128i shift02 = _mm_set1_epi32(0x04000040);
    const __m128i mask13 = _mm_set1_epi32(0x003F03F0);
    const __m128i shift13 = _mm_set1_epi32(0x01000010);
    // A sextet's character is the sextet plus an offset that depends on its range: 0-25 'A', 26-51 'a' - 26,
    // 52-61 '0' - 52, 62 '-' - 62, 63 '_' - 63. The range is found as a 0-13 selector of the offset table.
    const __m128i offsets = _mm_setr_epi8(
        'a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
        '-' - 62, '_' - 63, 'A', 0, 0);
    size_t i = 0;
    uint8_t *o = destination;
    for (; i + 16 <= count; i += 12) {
        __m128i in = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(source + i)), spread);
        __m128i high = _mm_mulhi_epu16(_mm_and_si128(in, mask02), shift02);
        __m128i low = _mm_mullo_epi16(_mm_and_si128(in, mask13), shift13);
        __m128i sextets = _mm_or_si128(high, low);
        // 52-63 give 1-12; 0-51 give 0, then 0-25 are marked 13.
        __m128i selector = _mm_subs_epu8(sextets, _mm_set1_epi8(51));
        __m128i below26 = _mm_cmpgt_epi8(_mm_set1_epi8(26), sextets);
        selector = _mm_or_si128(selector, _mm_and_si128(below26, _mm_set1_epi8(13)));
        __m128i characters = _mm_add_epi8(sextets, _mm_shuffle_epi8(offsets, selector));
        _mm_storeu_si128((__m128i *)o, characters);
        o += 16;
    }
    encode_portable(source + i, count - i, o);
}

/// The SSSE3 step on two 12-byte groups at once, one in each 128-bit lane (AVX2's byte shuffles stay within a
/// lane): 24 bytes to 32 characters per step while 28 bytes can be read (the lanes are loaded from offsets 0 and 12,
/// 16 bytes each), then the SSSE3 code for the rest.
__attribute__((target("avx2"))) static void encode_avx2(const uint8_t *source, size_t count, uint8_t *destination) {
    const __m256i spread = _mm256_setr_epi8(
        1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10, 1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10);
    const __m256i mask02 = _mm256_set1_epi32(0x0FC0FC00);
    const __m256i shift02 = _mm256_set1_epi32(0x04000040);
    const __m256i mask13 = _mm256_set1_epi32(0x003F03F0);
    const __m256i shift13 = _mm256_set1_epi32(0x01000010);
    const __m256i offsets = _mm256_setr_epi8(
        'a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
        '-' - 62, '_' - 63, 'A', 0, 0, 'a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
        '0' - 52, '0' - 52, '0' - 52, '-' - 62, '_' - 63, 'A', 0, 0);
    size_t i = 0;
    uint8_t *o = destination;
    for (; i + 28 <= count; i += 24) {
        __m256i in = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(source + i))),
            _mm_loadu_si128((const __m128i *)(source + i + 12)), 1);
        in = _mm256_shuffle_epi8(in, spread);
        __m256i high = _mm256_mulhi_epu16(_mm256_and_si256(in, mask02), shift02);
        __m256i low = _mm256_mullo_epi16(_mm256_and_si256(in, mask13), shift13);
        __m256i sextets = _mm256_or_si256(high, low);
        __m256i selector = _mm256_subs_epu8(sextets, _mm256_set1_epi8(51));
        __m256i below26 = _mm256_cmpgt_epi8(_mm256_set1_epi8(26), sextets);
        selector = _mm256_or_si256(selector, _mm256_and_si256(below26, _mm256_set1_epi8(13)));
        __m256i characters = _mm256_add_epi8(sextets, _mm256_shuffle_epi8(offsets, selector));
        _mm256_storeu_si256((__m256i *)o, characters);
        o += 32;
    }
    encode_ssse3(source + i, count - i, o);
}

int cbase64_engine_available(int engine) {
    if (engine == CBASE64_PORTABLE) return 1;
    if (engine == CBASE64_X86_SSSE3) return __builtin_cpu_supports("ssse3");
    // The compiler's runtime sets "avx2" only when the operating system also saves the 256-bit registers (XGETBV).
    if (engine == CBASE64_X86_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("ssse3");
    return 0;
}
#else
int cbase64_engine_available(int engine) { return engine == CBASE64_PORTABLE; }
#endif

int cbase64_best_engine(void) {
    if (cbase64_engine_available(CBASE64_X86_AVX2)) return CBASE64_X86_AVX2;
    return cbase64_engine_available(CBASE64_X86_SSSE3) ? CBASE64_X86_SSSE3 : CBASE64_PORTABLE;
}

void cbase64_url_encode(int engine, const uint8_t *source, size_t count, uint8_t *destination) {
#if defined(__x86_64__)
    if (engine == CBASE64_X86_AVX2) {
        encode_avx2(source, count, destination);
        return;
    }
    if (engine == CBASE64_X86_SSSE3) {
        encode_ssse3(source, count, destination);
        return;
    }
#endif
    (void)engine;
    encode_portable(source, count, destination);
}
