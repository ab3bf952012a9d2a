//! `aclFloat16ToFloat` / `aclFloatToFloat16`: IEEE binary16 with the vendor's saturation.
//!
//! Finite values follow IEEE 754: binary16 to binary32 is exact (subnormals included), and
//! binary32 to binary16 rounds to nearest, ties to even, producing subnormals and signed zeros
//! as IEEE does. The special values follow the saturating mode the vendor documents for every
//! product instead: a float whose magnitude rounds beyond 65504, an infinity or a NaN becomes the
//! largest finite half of its sign (`0x7BFF` / `0xFBFF`), and a half with an all-ones exponent
//! (an IEEE infinity or NaN pattern) reads as the finite value its bits would have with an
//! ordinary exponent: `0x7C00` is 65536.0, `0xFC00` is -65536.0, `0x7E00` is 98304.0.

const F32_MANTISSA_BITS: u32 = 23;
const F16_MANTISSA_BITS: u32 = 10;
/// Mantissa bits dropped when narrowing.
const DROPPED: u32 = F32_MANTISSA_BITS - F16_MANTISSA_BITS;
/// binary32 exponent bias minus binary16 exponent bias.
const BIAS_DIFFERENCE: u32 = 127 - 15;
/// The largest finite half, without its sign: 65504.
pub const FLOAT16_MAX_BITS: u16 = 0x7BFF;

/// `aclFloat16ToFloat`: the value of the half `value` (bits) as an `f32`.
///
/// ```
/// use aclrt::base::float16_to_float;
/// assert_eq!(float16_to_float(0x3C00), 1.0);
/// assert_eq!(float16_to_float(0x0001), 2f32.powi(-24));
/// assert_eq!(float16_to_float(0x7C00), 65536.0);
/// assert_eq!(float16_to_float(0x7E00), 98304.0);
/// ```
#[must_use]
pub fn float16_to_float(value: u16) -> f32 {
    let bits = u32::from(value);
    let sign = (bits & 0x8000) << 16;
    let exponent = (bits >> F16_MANTISSA_BITS) & 0x1F;
    let mantissa = bits & 0x3FF;
    let magnitude = if exponent == 0 {
        // Zero or subnormal: mantissa * 2^-24, exact in binary32.
        (mantissa as f32 * f32::powi(2.0, -24)).to_bits()
    } else {
        // Exponent 31 is an ordinary exponent here (the vendor's saturating mode).
        ((exponent + BIAS_DIFFERENCE) << F32_MANTISSA_BITS) | (mantissa << DROPPED)
    };
    f32::from_bits(sign | magnitude)
}

/// `aclFloatToFloat16`: `value` rounded to the nearest half (ties to even), saturating.
///
/// ```
/// use aclrt::base::float_to_float16;
/// assert_eq!(float_to_float16(1.0), 0x3C00);
/// assert_eq!(float_to_float16(65519.0), 0x7BFF);
/// assert_eq!(float_to_float16(f32::INFINITY), 0x7BFF);
/// assert_eq!(float_to_float16(f32::NEG_INFINITY), 0xFBFF);
/// assert_eq!(float_to_float16(f32::NAN), 0x7BFF);
/// ```
#[must_use]
pub fn float_to_float16(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = (bits >> F32_MANTISSA_BITS) & 0xFF;
    let mantissa = bits & 0x7F_FFFF;
    let magnitude = if exponent > BIAS_DIFFERENCE + 30 {
        // |value| >= 65536, an infinity or a NaN.
        FLOAT16_MAX_BITS
    } else if exponent > BIAS_DIFFERENCE {
        // A normal half before rounding. A carry out of the mantissa moves to the exponent,
        // which is the correctly rounded result; past the largest exponent it saturates.
        let truncated = ((exponent - BIAS_DIFFERENCE) << F16_MANTISSA_BITS) | (mantissa >> DROPPED);
        let rounded = truncated + round_up(mantissa, DROPPED, truncated);
        rounded.min(u32::from(FLOAT16_MAX_BITS)) as u16
    } else if exponent == 0 {
        // Zero, or a binary32 subnormal: far below half a half-subnormal.
        0
    } else {
        // A half subnormal (or zero): value / 2^-24 = (1.mantissa) * 2^(exponent - 126).
        let significand = mantissa | (1 << F32_MANTISSA_BITS);
        let shift = 126 - exponent;
        if shift > F32_MANTISSA_BITS + 1 {
            // Below half the smallest subnormal.
            0
        } else {
            let truncated = significand >> shift;
            // May carry into the smallest normal (0x0400), which is again the right encoding.
            (truncated + round_up(significand, shift, truncated)) as u16
        }
    };
    sign | magnitude
}

/// 1 when dropping the low `dropped` bits of `bits` must round the kept part (`kept`) up under
/// round-to-nearest, ties-to-even.
fn round_up(bits: u32, dropped: u32, kept: u32) -> u32 {
    let half = 1u32 << (dropped - 1);
    let rest = bits & ((1u32 << dropped) - 1);
    u32::from(rest > half || (rest == half && kept & 1 == 1))
}

/// A bfloat16 (the high half of an `f32`) as `f32`: exact.
pub(crate) fn bf16_to_f32(v: u16) -> f32 {
    f32::from_bits(u32::from(v) << 16)
}

/// `v` as bfloat16, rounded to nearest, ties to even; a NaN stays a (quiet) NaN.
pub(crate) fn f32_to_bf16(v: f32) -> u16 {
    let bits = v.to_bits();
    if v.is_nan() {
        return ((bits >> 16) as u16) | 0x40;
    }
    ((bits.wrapping_add(0x7FFF + ((bits >> 16) & 1))) >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nearest-even rounding of an f64 to a multiple of `ulp`, the reference for the tests.
    fn reference(value: f32) -> u16 {
        if value.is_nan() || value.is_infinite() {
            return (if value.is_sign_negative() { 0x8000 } else { 0 }) | FLOAT16_MAX_BITS;
        }
        // Search all halves: the nearest finite half, ties to the even encoding.
        let target = f64::from(value);
        let sign: u16 = if value.is_sign_negative() { 0x8000 } else { 0 };
        let mut best = 0u16;
        let mut best_err = f64::INFINITY;
        for h in 0..=FLOAT16_MAX_BITS {
            let v = f64::from(float16_to_float(h));
            let err = (v - target.abs()).abs();
            if err < best_err || (err == best_err && h & 1 == 0) {
                best = h;
                best_err = err;
            }
        }
        sign | best
    }

    #[test]
    fn every_half_round_trips_or_saturates() {
        for h in 0..=u16::MAX {
            let f = float16_to_float(h);
            let exponent = (h >> 10) & 0x1F;
            if exponent == 0x1F {
                let expected = f64::from(1024 + (h & 0x3FF)) * 64.0;
                assert_eq!(f64::from(f.abs()), expected, "{h:#06x}");
                assert_eq!(float_to_float16(f), (h & 0x8000) | FLOAT16_MAX_BITS);
            } else {
                assert_eq!(float_to_float16(f), h, "{h:#06x} -> {f}");
                assert_eq!(f.is_sign_negative(), h & 0x8000 != 0);
            }
        }
    }

    #[test]
    fn documented_special_values() {
        assert_eq!(float16_to_float(0x7C00), 65536.0);
        assert_eq!(float16_to_float(0xFC00), -65536.0);
        assert_eq!(float16_to_float(0x7E00), 98304.0);
        assert_eq!(float_to_float16(f32::NAN), 0x7BFF);
        assert_eq!(float_to_float16(-f32::NAN), 0xFBFF);
        assert_eq!(float_to_float16(f32::INFINITY), 0x7BFF);
        assert_eq!(float_to_float16(f32::NEG_INFINITY), 0xFBFF);
        assert_eq!(float_to_float16(65504.0), 0x7BFF);
        assert_eq!(float_to_float16(65520.0), 0x7BFF);
        assert_eq!(float_to_float16(1e9), 0x7BFF);
        assert_eq!(float_to_float16(-1e9), 0xFBFF);
        assert_eq!(float_to_float16(0.0), 0x0000);
        assert_eq!(float_to_float16(-0.0), 0x8000);
        assert_eq!(float_to_float16(f32::MIN_POSITIVE), 0);
        assert_eq!(float_to_float16(-1e-8), 0x8000);
    }

    #[test]
    fn rounding_is_to_nearest_even() {
        let one_and_half_ulp = 1.0 + 1.5 * f32::powi(2.0, -10);
        assert_eq!(float_to_float16(one_and_half_ulp), 0x3C02);
        let one_and_half = 1.0 + 0.5 * f32::powi(2.0, -10);
        assert_eq!(float_to_float16(one_and_half), 0x3C00);
        let just_above = f32::from_bits(one_and_half.to_bits() + 1);
        assert_eq!(float_to_float16(just_above), 0x3C01);
        // Half the smallest subnormal ties to zero; anything above rounds to it.
        assert_eq!(float_to_float16(f32::powi(2.0, -25)), 0);
        let above = f32::from_bits(f32::powi(2.0, -25).to_bits() + 1);
        assert_eq!(float_to_float16(above), 1);
        assert_eq!(float_to_float16(1.5 * f32::powi(2.0, -24)), 2);
        assert_eq!(float_to_float16(2.5 * f32::powi(2.0, -24)), 2);
        // The largest subnormal rounds up into the smallest normal.
        assert_eq!(
            float_to_float16(f32::powi(2.0, -14) * (1.0 - f32::powi(2.0, -12))),
            0x0400
        );
    }

    #[test]
    fn agrees_with_an_exhaustive_search_on_samples() {
        let mut x: u32 = 0x1234_5678;
        for _ in 0..2000 {
            // xorshift over binary32 values around the half range.
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let exponent = 95 + (x >> 24) % 50;
            let bits = (x & 0x8000_0000) | (exponent << 23) | (x & 0x7F_FFFF);
            let v = f32::from_bits(bits);
            assert_eq!(float_to_float16(v), reference(v), "{v:e}");
        }
    }
}
