//! `aclrtRandomNumAsync`: a task that fills device memory with random numbers, as the vendor's
//! DSA engine does (uniform, normal and truncated normal distributions, dropout bitmasks).
//!
//! The emulated engine is Philox4x32-10 (the counter-based generator the vendor's engine also
//! uses for every function): the 64-bit seed is its key, and the 16 bytes at
//! `randomCounterAddr` are its 128-bit counter (little-endian), which the task advances past
//! the blocks it used, so launches that share a counter continue one sequence. Each block
//! gives four 32-bit words, consumed in order:
//! - uniform floats (`FLOAT`, `FLOAT16`, `BF16`): one word each, `u = (w >> 8) · 2⁻²⁴` in
//!   [0, 1), the value `min + u · (max − min)` computed in `f32` and rounded to nearest;
//! - uniform integers: a value in [min, max) (`min` when `max <= min`), `min + w mod (max −
//!   min)`; one word for 32-bit types, two (low, high) for 64-bit ones;
//! - normal: Box–Muller on two words, giving two values, `mean + stddev · z`; truncated
//!   normal redraws any `z` outside [−2, 2] (two standard deviations);
//! - dropout bitmask: one word per element; bit `i` (least significant bit first) is 1 when
//!   element `i` is kept (`u ≥ ratio`); `dataType` is the ratio's type, the output is
//!   `ceil(num / 8)` bytes.
//!
//! The values differ from the hardware's (its bit-level conversions are not published); the
//! distributions, the counter's role and every argument rule are the vendor's.
//!
//! Parameters given by value are read at launch; those given by address (`isAddr = 1`: an
//! 8-byte device address in `valueOrAddr`), the seed and count included, are read when the
//! task runs. As the vendor does, the launch writes the function's two parameters (8 bytes
//! each, zero-extended) to `randomParaAddr` when it is not NULL.

use std::sync::Arc;

use crate::base::{bf16_to_f32, f32_to_bf16, float16_to_float, float_to_float16};
use crate::codes::*;
use crate::error::{bail, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::memory::Access;
use crate::runtime::Runtime;
use crate::task_info::{MemRange, TaskKind, TaskMeta};
use crate::vendor_consts as vc;

const CALL: &str = "aclrtRandomNumAsync";
/// Bytes of the counter at `randomCounterAddr`.
pub const RANDOM_COUNTER_SIZE: usize = 16;
/// Bytes the launch writes at `randomParaAddr`: two parameters of 8 bytes.
pub const RANDOM_PARAM_AREA_SIZE: usize = 16;

/// One `aclrtRandomParaInfo`: a value of `size` bytes (little-endian), or with `is_addr` the
/// 8-byte device address of one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RandomParam {
    /// `isAddr`: 0, the value is in `value_or_addr`; 1, `value_or_addr` holds its address.
    pub is_addr: u8,
    /// `valueOrAddr`.
    pub value_or_addr: [u8; 8],
    /// `size`: the bytes of `value_or_addr` that are filled.
    pub size: u8,
}

impl RandomParam {
    /// A value given in place: its first 8 bytes at most (a longer one is cut, as its `size`
    /// could not say more).
    pub fn value(bytes: &[u8]) -> Self {
        let n = bytes.len().min(8);
        let mut value_or_addr = [0; 8];
        value_or_addr[..n].copy_from_slice(&bytes[..n]);
        Self {
            is_addr: 0,
            value_or_addr,
            size: n as u8,
        }
    }

    /// A value read from device memory at `addr` when the task runs.
    pub fn at(addr: usize) -> Self {
        Self {
            is_addr: 1,
            value_or_addr: (addr as u64).to_le_bytes(),
            size: 8,
        }
    }

    /// The bytes given in place, zero-extended to 8 (the vendor's copy of `size` bytes).
    fn raw(&self) -> u64 {
        let mut bytes = [0u8; 8];
        let n = usize::from(self.size.min(8));
        bytes[..n].copy_from_slice(&self.value_or_addr[..n]);
        u64::from_le_bytes(bytes)
    }
}

/// An `aclrtRandomNumTaskInfo`, its union unpacked: `params` are the function's two
/// parameters in the vendor's order (dropout: the ratio; uniform: min, max; normal and
/// truncated normal: mean, stddev).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RandomNumTask {
    /// `dataType` (`aclDataType`): the results' type; for a dropout bitmask, the ratio's.
    pub data_type: i32,
    /// `randomNumFuncParaInfo.funcType` (`aclrtRandomNumFuncType`).
    pub func_type: i32,
    /// The function's parameters (the union of `randomNumFuncParaInfo.paramInfo`).
    pub params: [RandomParam; 2],
    /// `randomParaAddr`: device memory the launch writes the parameters to, or 0.
    pub para_addr: usize,
    /// `randomResultAddr`: where the results go.
    pub result_addr: usize,
    /// `randomCounterAddr`: the generator's 16-byte counter.
    pub counter_addr: usize,
    /// `randomSeed`.
    pub seed: RandomParam,
    /// `randomNum`: how many numbers.
    pub num: RandomParam,
}

/// `aclrtRandomNumFuncType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Func {
    DropoutBitmask,
    Uniform,
    Normal,
    TruncatedNormal,
}

impl Func {
    fn from_raw(raw: i32) -> Option<Self> {
        Some(match raw {
            0 => Self::DropoutBitmask,
            1 => Self::Uniform,
            2 => Self::Normal,
            3 => Self::TruncatedNormal,
            _ => return None,
        })
    }

    /// How many of the two parameters the function has.
    fn param_count(self) -> usize {
        match self {
            Self::DropoutBitmask => 1,
            _ => 2,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::DropoutBitmask => "dropout bitmask",
            Self::Uniform => "uniform distribution",
            Self::Normal => "normal distribution",
            Self::TruncatedNormal => "truncated normal distribution",
        }
    }
}

/// The data types of random number tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Element {
    I32,
    I64,
    U32,
    U64,
    Bf16,
    F16,
    F32,
}

impl Element {
    fn from_data_type(data_type: i32) -> Option<Self> {
        Some(match i64::from(data_type) {
            vc::ACL_INT32 => Self::I32,
            vc::ACL_INT64 => Self::I64,
            vc::ACL_UINT32 => Self::U32,
            vc::ACL_UINT64 => Self::U64,
            vc::ACL_BF16 => Self::Bf16,
            vc::ACL_FLOAT16 => Self::F16,
            vc::ACL_FLOAT => Self::F32,
            _ => return None,
        })
    }

    fn size(self) -> usize {
        match self {
            Self::Bf16 | Self::F16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::I64 | Self::U64 => 8,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Self::Bf16 | Self::F16 | Self::F32)
    }

    /// A parameter's value as `f32` (float types only).
    fn to_f32(self, raw: u64) -> f32 {
        match self {
            Self::F32 => f32::from_bits(raw as u32),
            Self::F16 => float16_to_float(raw as u16),
            Self::Bf16 => bf16_to_f32(raw as u16),
            _ => raw as f32,
        }
    }

    /// Writes `v` as this float type at `out` (`size()` bytes).
    fn put_f32(self, v: f32, out: &mut [u8]) {
        match self {
            Self::F16 => out.copy_from_slice(&float_to_float16(v).to_le_bytes()),
            Self::Bf16 => out.copy_from_slice(&f32_to_bf16(v).to_le_bytes()),
            _ => out.copy_from_slice(&v.to_le_bytes()),
        }
    }
}

/// One Philox4x32-10 block: four words from `counter` under `key`.
fn philox(counter: u128, key: u64) -> [u32; 4] {
    const M0: u64 = 0xD251_1F53;
    const M1: u64 = 0xCD9E_8D57;
    const W0: u32 = 0x9E37_79B9;
    const W1: u32 = 0xBB67_AE85;
    let mut c = [
        counter as u32,
        (counter >> 32) as u32,
        (counter >> 64) as u32,
        (counter >> 96) as u32,
    ];
    let (mut k0, mut k1) = (key as u32, (key >> 32) as u32);
    for round in 0..10 {
        if round > 0 {
            k0 = k0.wrapping_add(W0);
            k1 = k1.wrapping_add(W1);
        }
        let p0 = M0 * u64::from(c[0]);
        let p1 = M1 * u64::from(c[2]);
        c = [
            ((p1 >> 32) as u32) ^ c[1] ^ k0,
            p1 as u32,
            ((p0 >> 32) as u32) ^ c[3] ^ k1,
            p0 as u32,
        ];
    }
    c
}

/// The words of consecutive Philox blocks from a starting counter.
struct Words {
    key: u64,
    next_block: u128,
    block: [u32; 4],
    used: usize,
    blocks: u128,
}

impl Words {
    fn new(key: u64, counter: u128) -> Self {
        Self {
            key,
            next_block: counter,
            block: [0; 4],
            used: 4,
            blocks: 0,
        }
    }

    fn next(&mut self) -> u32 {
        if self.used == 4 {
            self.block = philox(self.next_block, self.key);
            self.next_block = self.next_block.wrapping_add(1);
            self.blocks += 1;
            self.used = 0;
        }
        self.used += 1;
        self.block[self.used - 1]
    }

    /// A uniform `f32` in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 8) as f32 * (1.0 / 16_777_216.0)
    }

    /// Two standard normal values (Box–Muller).
    fn normal_pair(&mut self) -> (f32, f32) {
        // (w + 1) / 2³² lies in (0, 1]: its logarithm is finite.
        let u1 = (f64::from(self.next()) + 1.0) / 4_294_967_296.0;
        let u2 = f64::from(self.next()) / 4_294_967_296.0;
        let r = (-2.0 * u1.ln()).sqrt();
        let theta = std::f64::consts::TAU * u2;
        ((r * theta.cos()) as f32, (r * theta.sin()) as f32)
    }
}

/// What one task computes, its inputs resolved.
#[derive(Debug, Clone, Copy)]
struct Generate {
    func: Func,
    element: Element,
    first: u64,
    second: u64,
    seed: u64,
    num: u64,
}

impl Generate {
    /// Bytes of output for `num` elements.
    fn output_len(func: Func, element: Element, num: u64) -> Option<usize> {
        let num = usize::try_from(num).ok()?;
        match func {
            Func::DropoutBitmask => Some(num.div_ceil(8)),
            _ => num.checked_mul(element.size()),
        }
    }

    /// Fills `out` from the counter; returns the counter after the blocks used.
    fn fill(&self, counter: u128, out: &mut [u8]) -> u128 {
        let mut words = Words::new(self.seed, counter);
        let size = self.element.size();
        match self.func {
            Func::DropoutBitmask => {
                out.fill(0);
                let ratio = self.element.to_f32(self.first);
                for i in 0..self.num as usize {
                    if words.unit() >= ratio {
                        out[i / 8] |= 1 << (i % 8);
                    }
                }
            }
            Func::Uniform if self.element.is_float() => {
                let (min, max) = (
                    self.element.to_f32(self.first),
                    self.element.to_f32(self.second),
                );
                for slot in out.chunks_exact_mut(size) {
                    let u = words.unit();
                    self.element.put_f32(min + u * (max - min), slot);
                }
            }
            Func::Uniform => {
                // Signed bounds are sign-extended from their size; the span is taken modulo
                // 2⁶⁴, which is the exact difference for every ordered pair.
                let signed = matches!(self.element, Element::I32 | Element::I64);
                let bound = |raw: u64| -> u64 {
                    match self.element {
                        Element::I32 => raw as u32 as i32 as i64 as u64,
                        Element::U32 => u64::from(raw as u32),
                        _ => raw,
                    }
                };
                let (min, max) = (bound(self.first), bound(self.second));
                let ordered = if signed {
                    (max as i64) > (min as i64)
                } else {
                    max > min
                };
                let span = max.wrapping_sub(min);
                for slot in out.chunks_exact_mut(size) {
                    let w = if size == 8 {
                        u64::from(words.next()) | (u64::from(words.next()) << 32)
                    } else {
                        u64::from(words.next())
                    };
                    let v = if ordered {
                        min.wrapping_add(w % span)
                    } else {
                        min
                    };
                    slot.copy_from_slice(&v.to_le_bytes()[..size]);
                }
            }
            Func::Normal | Func::TruncatedNormal => {
                let (mean, stddev) = (
                    self.element.to_f32(self.first),
                    self.element.to_f32(self.second),
                );
                let truncated = self.func == Func::TruncatedNormal;
                let mut spare: Option<f32> = None;
                let mut draw = |words: &mut Words| loop {
                    let z = match spare.take() {
                        Some(z) => z,
                        None => {
                            let (a, b) = words.normal_pair();
                            spare = Some(b);
                            a
                        }
                    };
                    if !truncated || z.abs() <= 2.0 {
                        return z;
                    }
                };
                for slot in out.chunks_exact_mut(size) {
                    let z = draw(&mut words);
                    self.element.put_f32(mean + stddev * z, slot);
                }
            }
        }
        counter.wrapping_add(words.blocks)
    }
}

/// Checks one `aclrtRandomParaInfo`: `isAddr` 0 or 1, `size` in [1, `max_size`].
fn check_param(param: &RandomParam, name: &str, max_size: usize) -> Result<()> {
    if param.is_addr > 1 {
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{CALL}: {name}.isAddr is {}; it must be 0 (a value) or 1 (an address)",
            param.is_addr
        );
    }
    if param.size == 0 || usize::from(param.size) > max_size {
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{CALL}: {name}.size is {}; it must be in [1, {max_size}]",
            param.size
        );
    }
    Ok(())
}

/// Reads `size` bytes (at most 8, little-endian) of device memory at `addr`.
///
/// # Safety
/// `[addr, addr + size)` must be readable.
unsafe fn read_le(addr: usize, size: usize) -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: the caller's contract; `size` is at most 8.
    unsafe { std::ptr::copy_nonoverlapping(addr as *const u8, bytes.as_mut_ptr(), size.min(8)) };
    u64::from_le_bytes(bytes)
}

impl Runtime {
    /// Checks that `[addr, addr + len)` lies in one live runtime allocation: the task reads
    /// and writes its memory on a runtime thread, so nothing the runtime does not own is taken.
    fn random_range(&self, addr: usize, len: usize, what: &str) -> Result<()> {
        match self.memory.check_access(addr, len, what)? {
            Access::Runtime => Ok(()),
            _ => bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: {what} {addr:#x} (+{len}) is not in memory of this runtime (aclrtMalloc)"
            ),
        }
    }

    /// `aclrtRandomNumAsync`: a task on the stream that writes random numbers (see the module
    /// documentation). A data type outside the vendor's table is `100000`; a non-NULL
    /// `reserve`, a function type out of range, a data type the function does not take, a
    /// NULL result or counter address and a parameter whose `isAddr` is not 0 or 1 or whose
    /// `size` is 0 or larger than its type (8 for addresses, the seed and the count) are
    /// `107000`. Every address must lie in memory of this runtime (`100000` otherwise), checked
    /// at launch: the counter's 16 bytes, every parameter given by address, the parameter
    /// area's 16 bytes and, with a count given by value, the result's `num` elements. With a count
    /// given by address the task checks the result's size when it runs and fails with
    /// `507000` (`ACL_ERROR_RT_INTERNAL_ERROR`) rather than write outside the allocation.
    ///
    /// # Safety
    /// The addresses given stay valid until the task has run (runtime memory is
    /// bounds-checked).
    pub unsafe fn random_num_async(
        &self,
        task: &RandomNumTask,
        stream: StreamHandle,
        reserve: usize,
    ) -> Result<()> {
        let Some(element) = Element::from_data_type(task.data_type) else {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: taskInfo->dataType {} is not supported: random numbers are INT32, \
                 INT64, UINT32, UINT64, BF16, FLOAT16 or FLOAT",
                task.data_type
            );
        };
        if reserve != 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: reserve is a reserved parameter and must be NULL"
            );
        }
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        let Some(func) = Func::from_raw(task.func_type) else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: funcType {} is not in [0, 3]",
                task.func_type
            );
        };
        if func != Func::Uniform && !element.is_float() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: the {} takes BF16, FLOAT16 or FLOAT, not data type {}",
                func.name(),
                task.data_type
            );
        }
        if task.counter_addr == 0 || task.result_addr == 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: {} is NULL",
                if task.counter_addr == 0 {
                    "randomCounterAddr"
                } else {
                    "randomResultAddr"
                }
            );
        }
        check_param(&task.seed, "randomSeed", 8)?;
        check_param(&task.num, "randomNum", 8)?;
        let names: [&str; 2] = match func {
            Func::DropoutBitmask => ["dropoutRation", ""],
            Func::Uniform => ["min", "max"],
            _ => ["mean", "stddev"],
        };
        for (param, name) in task.params.iter().zip(names).take(func.param_count()) {
            let max = if param.is_addr == 1 {
                8
            } else {
                element.size()
            };
            check_param(param, name, max)?;
        }

        self.random_range(task.counter_addr, RANDOM_COUNTER_SIZE, "randomCounterAddr")?;
        let addr_of = |p: &RandomParam| (p.is_addr == 1).then(|| p.raw() as usize);
        for (param, name) in [(&task.seed, "randomSeed"), (&task.num, "randomNum")] {
            if let Some(at) = addr_of(param) {
                self.random_range(at, 8, name)?;
            }
        }
        for param in task.params.iter().take(func.param_count()) {
            if let Some(at) = addr_of(param) {
                self.random_range(at, element.size(), "a parameter's address")?;
            }
        }
        let known_num = (task.num.is_addr == 0).then(|| task.num.raw());
        let mut writes = vec![MemRange {
            start: task.counter_addr,
            len: RANDOM_COUNTER_SIZE,
        }];
        let written = match known_num {
            Some(num) => {
                let Some(len) = Generate::output_len(func, element, num) else {
                    bail!(
                        ACL_ERROR_RT_PARAM_INVALID,
                        "{CALL}: randomNum {num} is too large"
                    );
                };
                self.random_range(task.result_addr, len, "randomResultAddr")?;
                len
            }
            // The count is read when the task runs: what it may write is the rest of the
            // allocation the result starts in (checked then to hold the output).
            None => {
                self.random_range(task.result_addr, 1, "randomResultAddr")?;
                let (base, allocation) = self
                    .memory
                    .allocation_at(task.result_addr)
                    .expect("checked to lie in a live allocation just above");
                base + allocation.size - task.result_addr
            }
        };
        writes.push(MemRange {
            start: task.result_addr,
            len: written,
        });
        if task.para_addr != 0 {
            self.random_range(task.para_addr, RANDOM_PARAM_AREA_SIZE, "randomParaAddr")?;
        }
        let mut reads = vec![MemRange {
            start: task.counter_addr,
            len: RANDOM_COUNTER_SIZE,
        }];
        reads.extend(
            [&task.seed, &task.num]
                .into_iter()
                .filter_map(addr_of)
                .map(|start| MemRange { start, len: 8 }),
        );
        reads.extend(
            task.params
                .iter()
                .take(func.param_count())
                .filter_map(addr_of)
                .map(|start| MemRange {
                    start,
                    len: element.size(),
                }),
        );
        let meta = TaskMeta {
            name: Some(Arc::from(CALL)),
            reads,
            writes,
            submitter_thread: super::os_thread_id(),
            ..TaskMeta::default()
        };
        let mut area = [0u8; RANDOM_PARAM_AREA_SIZE];
        area[..8].copy_from_slice(&task.params[0].raw().to_le_bytes());
        if func.param_count() == 2 {
            area[8..].copy_from_slice(&task.params[1].raw().to_le_bytes());
        }
        let para_addr = task.para_addr;
        let task = *task;
        let memory = self.memory.clone();
        let work = Work::Kernel(Box::new(move || {
            let value = |p: &RandomParam, size: usize| match addr_of(p) {
                // SAFETY: checked at launch to lie inside runtime memory, which the caller
                // keeps valid until the task has run.
                Some(at) => unsafe { read_le(at, size) },
                None => p.raw(),
            };
            let num = value(&task.num, 8);
            let generate = Generate {
                func,
                element,
                first: value(&task.params[0], element.size()),
                // A dropout bitmask has one parameter: the other half of the C union is not
                // read (it may hold anything).
                second: if func.param_count() == 2 {
                    value(&task.params[1], element.size())
                } else {
                    0
                },
                seed: value(&task.seed, 8),
                num,
            };
            // A count read from memory is checked here: a task reports a code only, so
            // the launch's documentation names the rule.
            let fits = Generate::output_len(func, element, num).filter(|&len| {
                matches!(
                    memory.check_access(task.result_addr, len, CALL),
                    Ok(Access::Runtime)
                )
            });
            let Some(len) = fits else {
                return Err(ACL_ERROR_RT_INTERNAL_ERROR);
            };
            let mut counter_bytes = [0u8; RANDOM_COUNTER_SIZE];
            // SAFETY: the counter's 16 bytes were checked at launch (see above).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    task.counter_addr as *const u8,
                    counter_bytes.as_mut_ptr(),
                    RANDOM_COUNTER_SIZE,
                )
            };
            let counter = u128::from_le_bytes(counter_bytes);
            // SAFETY: `len` bytes at the result address lie inside runtime memory (checked just
            // above), which the caller keeps valid until the task has run.
            let out = unsafe { std::slice::from_raw_parts_mut(task.result_addr as *mut u8, len) };
            let next = generate.fill(counter, out);
            // SAFETY: as for the read of the counter.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    next.to_le_bytes().as_ptr(),
                    task.counter_addr as *mut u8,
                    RANDOM_COUNTER_SIZE,
                )
            };
            Ok(())
        }));
        self.submit(&s, TaskKind::Kernel, work, meta)?;
        // The parameter area is written once the task is accepted (a refused launch leaves
        // memory as it was); the task itself never reads it.
        if para_addr != 0 {
            let range = MemRange {
                start: para_addr,
                len: RANDOM_PARAM_AREA_SIZE,
            };
            if crate::observe::enabled() {
                crate::observe::host_access(CALL, &[], &[range]);
            }
            // SAFETY: 16 bytes inside one live runtime allocation (checked above; the
            // caller keeps it valid for the call).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    area.as_ptr(),
                    para_addr as *mut u8,
                    RANDOM_PARAM_AREA_SIZE,
                )
            };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_matches_the_published_known_answers() {
        assert_eq!(
            philox(0, 0),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox(u128::MAX, u64::MAX),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        let counter = 0x0370_7344_1319_8a2e_85a3_08d3_243f_6a88_u128;
        assert_eq!(
            philox(counter, 0x299f_31d0_a409_3822),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    fn generate(func: Func, element: Element, first: u64, second: u64, num: u64) -> Vec<u8> {
        let g = Generate {
            func,
            element,
            first,
            second,
            seed: 7,
            num,
        };
        let mut out = vec![0u8; Generate::output_len(func, element, num).unwrap()];
        g.fill(0, &mut out);
        out
    }

    fn f32s(bytes: &[u8]) -> Vec<f32> {
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn uniform_values_stay_in_range_and_cover_it() {
        let out = generate(Func::Uniform, Element::I32, (-5i32) as u32 as u64, 5, 4000);
        let v: Vec<i32> = out
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!(v.iter().all(|x| (-5..5).contains(x)), "{v:?}");
        for x in -5..5 {
            assert!(v.contains(&x), "{x} never drawn");
        }
        let out = generate(Func::Uniform, Element::U64, 10, 1 << 40, 1000);
        assert!(out
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .all(|x| (10..1 << 40).contains(&x)));
        let f = f32s(&generate(
            Func::Uniform,
            Element::F32,
            1.0f32.to_bits().into(),
            2.0f32.to_bits().into(),
            1000,
        ));
        assert!(f.iter().all(|x| (1.0..2.0).contains(x)));
        let mean = f.iter().sum::<f32>() / f.len() as f32;
        assert!((mean - 1.5).abs() < 0.05, "{mean}");
        // An empty range gives its minimum.
        let out = generate(Func::Uniform, Element::I32, 9, 3, 4);
        assert_eq!(
            out,
            [9i32; 4]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn normal_values_have_the_mean_and_spread_asked_and_truncation_cuts_the_tails() {
        let (mean, stddev) = (3.0f32, 2.0f32);
        let v = f32s(&generate(
            Func::Normal,
            Element::F32,
            mean.to_bits().into(),
            stddev.to_bits().into(),
            20_000,
        ));
        let m = v.iter().sum::<f32>() / v.len() as f32;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f32>() / v.len() as f32;
        assert!((m - 3.0).abs() < 0.1, "{m}");
        assert!((var.sqrt() - 2.0).abs() < 0.1, "{}", var.sqrt());
        assert!(v.iter().any(|x| (x - mean).abs() > 2.0 * stddev));
        let t = f32s(&generate(
            Func::TruncatedNormal,
            Element::F32,
            mean.to_bits().into(),
            stddev.to_bits().into(),
            20_000,
        ));
        assert!(t.iter().all(|x| (x - mean).abs() <= 2.0 * stddev + 1e-4));
        // Half-precision output: the same values, rounded.
        let h = generate(
            Func::Normal,
            Element::F16,
            float_to_float16(mean).into(),
            float_to_float16(stddev).into(),
            4,
        );
        let first = float16_to_float(u16::from_le_bytes([h[0], h[1]]));
        assert!((first - v[0]).abs() < 0.01, "{first} vs {}", v[0]);
    }

    #[test]
    fn dropout_bitmasks_keep_about_one_minus_the_ratio() {
        let out = generate(
            Func::DropoutBitmask,
            Element::F32,
            0.4f32.to_bits().into(),
            0,
            8001,
        );
        assert_eq!(out.len(), 1001);
        // Bits past the count are zero.
        assert_eq!(out[1000] & !1, 0);
        let kept: u32 = out.iter().map(|b| b.count_ones()).sum();
        assert!((4500..5100).contains(&kept), "{kept}");
        assert_eq!(
            generate(
                Func::DropoutBitmask,
                Element::F32,
                0f32.to_bits().into(),
                0,
                16
            ),
            vec![0xff, 0xff]
        );
    }

    #[test]
    fn the_counter_advances_past_the_blocks_used_so_launches_continue_one_sequence() {
        let g = Generate {
            func: Func::Uniform,
            element: Element::U32,
            first: 0,
            second: u32::MAX.into(),
            seed: 1,
            num: 10,
        };
        let mut once = vec![0u8; 40];
        assert_eq!(g.fill(5, &mut once), 8, "10 words take 3 blocks");
        let half = Generate { num: 8, ..g };
        let mut a = vec![0u8; 32];
        let mut b = vec![0u8; 32];
        let next = half.fill(5, &mut a);
        half.fill(next, &mut b);
        // Two launches of 8 words equal one of 16 from the same counter.
        let whole = Generate { num: 16, ..g };
        let mut both = vec![0u8; 64];
        whole.fill(5, &mut both);
        assert_eq!([a, b].concat(), both);
    }
}
