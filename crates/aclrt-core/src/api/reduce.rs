//! `aclrtReduceAsync`: a task that combines a source buffer into a destination buffer element
//! by element (`dst[i] = dst[i] ⊕ src[i]`), as the vendor's copy engine does in place.
//!
//! The emulated device computes it on the stream's host thread: floats in IEEE arithmetic
//! (half and bfloat16 through `f32`, rounded to nearest even), integers wrapping. The source is
//! read whole before the destination is written, so overlapping buffers give the result of
//! combining with the source as it was when the task started.

use std::sync::Arc;

use crate::base::{bf16_to_f32, f32_to_bf16, float16_to_float, float_to_float16};
use crate::codes::*;
use crate::error::{bail, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::runtime::Runtime;
use crate::task_info::{MemRange, TaskKind, TaskMeta};
use crate::vendor_consts as vc;

/// An `aclrtReduceKind` the emulated device computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReduceKind {
    /// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM` (10).
    Sum,
    /// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX` (11).
    Max,
    /// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN` (12).
    Min,
}

/// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM`, the first reduce kind.
const KIND_SUM: u32 = 10;
/// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL`, the last one.
const KIND_EQUAL: u32 = 13;

impl ReduceKind {
    /// The kind an `aclrtReduceKind` value names; `None` for `EQUAL`, which the vendor
    /// defines but does not describe (not supported here). Out of range is `107000`.
    fn from_raw(kind: u32) -> Result<Option<Self>> {
        Ok(match kind {
            10 => Some(Self::Sum),
            11 => Some(Self::Max),
            12 => Some(Self::Min),
            KIND_EQUAL => None,
            _ => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtReduceAsync: kind {kind} is not in [{KIND_SUM}, {}]",
                KIND_EQUAL
            ),
        })
    }
}

/// The element types of the vendor's reduce (its data type table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Element {
    F32,
    F16,
    Bf16,
    I4,
    I8,
    I16,
    I32,
    U8,
    U16,
    U32,
}

impl Element {
    fn from_data_type(data_type: i32) -> Option<Self> {
        Some(match i64::from(data_type) {
            vc::ACL_FLOAT => Self::F32,
            vc::ACL_FLOAT16 => Self::F16,
            vc::ACL_BF16 => Self::Bf16,
            vc::ACL_INT4 => Self::I4,
            vc::ACL_INT8 => Self::I8,
            vc::ACL_INT16 => Self::I16,
            vc::ACL_INT32 => Self::I32,
            vc::ACL_UINT8 => Self::U8,
            vc::ACL_UINT16 => Self::U16,
            vc::ACL_UINT32 => Self::U32,
            _ => return None,
        })
    }

    /// Bytes per unit the buffers must be a whole number of (a byte holds two `INT4`).
    fn unit(self) -> usize {
        match self {
            Self::F32 | Self::I32 | Self::U32 => 4,
            Self::F16 | Self::Bf16 | Self::I16 | Self::U16 => 2,
            Self::I4 | Self::I8 | Self::U8 => 1,
        }
    }
}

fn combine_f32(kind: ReduceKind, a: f32, b: f32) -> f32 {
    match kind {
        ReduceKind::Sum => a + b,
        ReduceKind::Max => a.max(b),
        ReduceKind::Min => a.min(b),
    }
}

fn combine_int<T: Ord + Copy>(kind: ReduceKind, a: T, b: T, add: impl Fn(T, T) -> T) -> T {
    match kind {
        ReduceKind::Sum => add(a, b),
        ReduceKind::Max => a.max(b),
        ReduceKind::Min => a.min(b),
    }
}

/// A signed 4-bit value from the low nibble of `n`.
fn i4(n: u8) -> i8 {
    ((n << 4) as i8) >> 4
}

/// Combines `src` into `dst` element by element (equal lengths, whole units).
fn reduce_bytes(kind: ReduceKind, element: Element, dst: &mut [u8], src: &[u8]) {
    macro_rules! each {
        ($n:literal, $from:expr, $to:expr, $op:expr) => {
            for (d, s) in dst.chunks_exact_mut($n).zip(src.chunks_exact($n)) {
                let a = $from(d.try_into().expect("whole unit"));
                let b = $from(s.try_into().expect("whole unit"));
                d.copy_from_slice(&$to($op(a, b)));
            }
        };
    }
    match element {
        Element::F32 => each!(4, f32::from_ne_bytes, f32::to_ne_bytes, |a, b| {
            combine_f32(kind, a, b)
        }),
        Element::F16 => each!(2, u16::from_ne_bytes, u16::to_ne_bytes, |a, b| {
            float_to_float16(combine_f32(kind, float16_to_float(a), float16_to_float(b)))
        }),
        Element::Bf16 => each!(2, u16::from_ne_bytes, u16::to_ne_bytes, |a, b| {
            f32_to_bf16(combine_f32(kind, bf16_to_f32(a), bf16_to_f32(b)))
        }),
        Element::I8 => each!(1, i8::from_ne_bytes, i8::to_ne_bytes, |a, b| {
            combine_int(kind, a, b, i8::wrapping_add)
        }),
        Element::U8 => each!(1, u8::from_ne_bytes, u8::to_ne_bytes, |a, b| {
            combine_int(kind, a, b, u8::wrapping_add)
        }),
        Element::I16 => each!(2, i16::from_ne_bytes, i16::to_ne_bytes, |a, b| {
            combine_int(kind, a, b, i16::wrapping_add)
        }),
        Element::U16 => each!(2, u16::from_ne_bytes, u16::to_ne_bytes, |a, b| {
            combine_int(kind, a, b, u16::wrapping_add)
        }),
        Element::I32 => each!(4, i32::from_ne_bytes, i32::to_ne_bytes, |a, b| {
            combine_int(kind, a, b, i32::wrapping_add)
        }),
        Element::U32 => each!(4, u32::from_ne_bytes, u32::to_ne_bytes, |a, b| {
            combine_int(kind, a, b, u32::wrapping_add)
        }),
        Element::I4 => {
            for (d, &s) in dst.iter_mut().zip(src) {
                let nibble = |shift: u32| {
                    let a = i4(*d >> shift);
                    let b = i4(s >> shift);
                    (combine_int(kind, a, b, |x: i8, y: i8| i4(x.wrapping_add(y) as u8)) as u8)
                        & 0xF
                };
                *d = nibble(0) | (nibble(4) << 4);
            }
        }
    }
}

impl Runtime {
    /// `aclrtReduceAsync`: a task on the stream that combines the `count` bytes at `src` into
    /// those at `dst` (see the module documentation). NULL pointers, a non-NULL `reserve` and
    /// a data type outside the vendor's table are `100000`; a zero count, a kind out of range
    /// and a count that is not a whole number of elements are `107000`; `EQUAL` is `207000`.
    ///
    /// # Safety
    /// As [`Runtime::memcpy_async`]: the ranges stay valid until the task has run (runtime
    /// memory is bounds-checked).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn reduce_async(
        &self,
        dst: usize,
        src: usize,
        count: u64,
        kind: u32,
        data_type: i32,
        stream: StreamHandle,
        reserve: usize,
    ) -> Result<()> {
        const CALL: &str = "aclrtReduceAsync";
        if dst == 0 || src == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: {} is NULL",
                if dst == 0 { "dst" } else { "src" }
            );
        }
        if reserve != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: reserve is a reserved parameter and must be NULL"
            );
        }
        let Some(element) = Element::from_data_type(data_type) else {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: data type {data_type} is not supported by reduce tasks"
            );
        };
        if count == 0 {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: count is 0");
        }
        let Some(kind) = ReduceKind::from_raw(kind)? else {
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "{CALL}: ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL is not supported on the emulated device"
            );
        };
        let len = usize::try_from(count).unwrap_or(usize::MAX);
        if len % element.unit() != 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: count {count} is not a whole number of {}-byte elements",
                element.unit()
            );
        }
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        self.memory.check_access(dst, len, "reduce destination")?;
        self.memory.check_access(src, len, "reduce source")?;
        self.check_peer_access(dst, src, CALL)?;
        let meta = TaskMeta {
            name: Some(Arc::from(CALL)),
            reads: vec![MemRange { start: src, len }, MemRange { start: dst, len }],
            writes: vec![MemRange { start: dst, len }],
            submitter_thread: super::os_thread_id(),
            ..TaskMeta::default()
        };
        let work = Work::Kernel(Box::new(move || {
            // SAFETY: the caller of reduce_async promised both ranges stay valid until the
            // task has run; runtime memory was bounds-checked above.
            let source = unsafe { std::slice::from_raw_parts(src as *const u8, len) }.to_vec();
            // SAFETY: as above; the source was copied out first, so no slice aliases it.
            let target = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, len) };
            reduce_bytes(kind, element, target, &source);
            Ok(())
        }));
        self.submit(&s, TaskKind::Memcpy, work, meta).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: ReduceKind, element: Element, dst: &[u8], src: &[u8]) -> Vec<u8> {
        let mut out = dst.to_vec();
        reduce_bytes(kind, element, &mut out, src);
        out
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn floats_sum_max_min() {
        let a = f32s(&[1.0, -2.0, 3.5]);
        let b = f32s(&[1.0, 5.0, -0.5]);
        assert_eq!(
            run(ReduceKind::Sum, Element::F32, &a, &b),
            f32s(&[2.0, 3.0, 3.0])
        );
        assert_eq!(
            run(ReduceKind::Max, Element::F32, &a, &b),
            f32s(&[1.0, 5.0, 3.5])
        );
        assert_eq!(
            run(ReduceKind::Min, Element::F32, &a, &b),
            f32s(&[1.0, -2.0, -0.5])
        );
    }

    #[test]
    fn halves_round_through_f32() {
        let h = |x: f32| float_to_float16(x).to_ne_bytes();
        let out = run(ReduceKind::Sum, Element::F16, &h(1.5), &h(2.25));
        assert_eq!(float16_to_float(u16::from_ne_bytes([out[0], out[1]])), 3.75);
        let b = |x: f32| f32_to_bf16(x).to_ne_bytes();
        let out = run(ReduceKind::Sum, Element::Bf16, &b(1.0), &b(2.0));
        assert_eq!(bf16_to_f32(u16::from_ne_bytes([out[0], out[1]])), 3.0);
        // 1 + 2^-8 is not a bfloat16: ties round to even (1.0).
        assert_eq!(f32_to_bf16(1.0 + 1.0 / 256.0), f32_to_bf16(1.0));
    }

    #[test]
    fn integers_wrap() {
        assert_eq!(run(ReduceKind::Sum, Element::U8, &[250], &[10]), vec![4]);
        assert_eq!(
            run(ReduceKind::Sum, Element::I8, &[127i8 as u8], &[1]),
            vec![(-128i8) as u8]
        );
        let i32s = |v: i32| v.to_ne_bytes().to_vec();
        assert_eq!(
            run(ReduceKind::Min, Element::I32, &i32s(-5), &i32s(3)),
            i32s(-5)
        );
        assert_eq!(
            run(
                ReduceKind::Max,
                Element::U32,
                &5u32.to_ne_bytes(),
                &7u32.to_ne_bytes()
            ),
            7u32.to_ne_bytes().to_vec()
        );
    }

    #[test]
    fn int4_nibbles_are_signed_and_wrap() {
        // Low nibble 7 + 1 wraps to -8 (0x8); high nibble -1 (0xF) + -1 = -2 (0xE).
        assert_eq!(
            run(ReduceKind::Sum, Element::I4, &[0xF7], &[0xF1]),
            vec![0xE8]
        );
        // Max of low nibbles -8 (0x8) and 3: 3; of high nibbles 2 and -1: 2.
        assert_eq!(
            run(ReduceKind::Max, Element::I4, &[0x28], &[0xF3]),
            vec![0x23]
        );
    }
}
