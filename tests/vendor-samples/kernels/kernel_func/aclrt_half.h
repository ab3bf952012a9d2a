/*
 * IEEE binary16 <-> binary32 for the host stand-ins of the half-precision sample kernels.
 * Rounding to half is to nearest, ties to even, as the device's vector unit rounds.
 */
#ifndef ACLRT_VENDOR_SAMPLES_HALF_H_
#define ACLRT_VENDOR_SAMPLES_HALF_H_

#include <cstdint>
#include <cstring>

namespace aclrt_samples {

inline float HalfToFloat(uint16_t h)
{
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1fu) {
        bits = sign | 0x7f800000u | (man << 13); // inf, nan
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (man << 13); // normal: rebias 15 -> 127
    } else if (man == 0) {
        bits = sign; // zero
    } else {
        // subnormal: shift the mantissa up to a normal float
        int e = -1;
        do {
            ++e;
            man <<= 1;
        } while ((man & 0x400u) == 0);
        bits = sign | ((112u - static_cast<uint32_t>(e)) << 23) | ((man & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

inline uint16_t FloatToHalf(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, sizeof x);
    uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) { // inf, nan
        return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    }
    if (abs >= 0x477ff000u) { // rounds past the largest half
        return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (abs < 0x38800000u) { // below the smallest normal half: subnormal or zero
        if (abs < 0x33000000u) {
            return sign;
        }
        uint32_t e = abs >> 23;
        uint32_t man = (abs & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; // 14..24
        uint32_t half = man >> shift;
        uint32_t rest = man & ((1u << shift) - 1u);
        uint32_t mid = 1u << (shift - 1u);
        if (rest > mid || (rest == mid && (half & 1u))) {
            ++half;
        }
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = ((abs >> 13) - (112u << 10));
    uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) {
        ++half; // may carry into the exponent, which is still right
    }
    return static_cast<uint16_t>(sign | half);
}

} // namespace aclrt_samples

#endif // ACLRT_VENDOR_SAMPLES_HALF_H_
