//! Case 15: what the checker (`aclrt::check`, `ACLRT_CHECK`) costs. Each row runs the same
//! work with the checker off and on, alternately, and compares the medians.

use std::time::Instant;

use aclrt::api::{self, KernelAccess};
use aclrt::check::{self, Options, Parts};
use aclrt::consts::{
    ACL_EVENT_SYNC, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEM_MALLOC_HUGE_FIRST,
};
use aclrt::{EventHandle, MemRange};

use super::{throughput, Plan, Streams, R};
use crate::report::{repeat, secs, Row, Stats, Target};

/// Slots the pipeline rotates through.
const SLOTS: usize = 8;
/// Bytes per pipeline item.
const ITEM: usize = 4096;

/// Events destroyed on drop.
struct ExEvents(Vec<EventHandle>);

impl ExEvents {
    fn new(n: usize) -> R<ExEvents> {
        let mut v = ExEvents(Vec::with_capacity(n));
        for _ in 0..n {
            v.0.push(api::create_event_ex_with_flag(ACL_EVENT_SYNC)?);
        }
        Ok(v)
    }
}

impl Drop for ExEvents {
    fn drop(&mut self) {
        for e in self.0.drain(..) {
            let _ = api::destroy_event(e);
        }
    }
}

/// A correctly synchronised three-stage pipeline over `SLOTS` rotating buffers: stream 0 copies
/// an item in, stream 1 runs a kernel that reads it and writes a result (declaring both), stream
/// 2 copies the result out; events hand each slot forward and back. Items per second.
fn pipeline(items: usize) -> R<f64> {
    let streams = Streams::new(3, 0)?;
    let [s0, s1, s2] = [streams.0[0], streams.0[1], streams.0[2]];
    let (in_ready, in_free) = (ExEvents::new(SLOTS)?, ExEvents::new(SLOTS)?);
    let (out_ready, out_free) = (ExEvents::new(SLOTS)?, ExEvents::new(SLOTS)?);
    let host_in = vec![1u8; ITEM * SLOTS];
    let mut host_out = vec![0u8; ITEM * SLOTS];
    let mut dev_in = Vec::new();
    let mut dev_out = Vec::new();
    for _ in 0..SLOTS {
        dev_in.push(api::malloc(ITEM, ACL_MEM_MALLOC_HUGE_FIRST)?);
        dev_out.push(api::malloc(ITEM, ACL_MEM_MALLOC_HUGE_FIRST)?);
    }
    let start = Instant::now();
    for i in 0..items {
        let k = i % SLOTS;
        let (din, dout) = (dev_in[k], dev_out[k]);
        let hin = host_in.as_ptr() as usize + k * ITEM;
        let hout = host_out.as_mut_ptr() as usize + k * ITEM;
        api::stream_wait_event(s0, in_free.0[k])?;
        // SAFETY: the host buffers live until every stream is synchronised below; the device
        // buffers are runtime allocations of ITEM bytes.
        unsafe { api::memcpy_async(din, ITEM, hin, ITEM, ACL_MEMCPY_HOST_TO_DEVICE, s0)? };
        api::record_event(in_ready.0[k], s0)?;
        api::stream_wait_event(s1, in_ready.0[k])?;
        api::stream_wait_event(s1, out_free.0[k])?;
        let access = KernelAccess {
            reads: vec![MemRange {
                start: din,
                len: ITEM,
            }],
            writes: vec![MemRange {
                start: dout,
                len: ITEM,
            }],
        };
        api::launch_kernel(
            s1,
            "transform",
            access,
            Box::new(move || {
                // SAFETY: both are runtime allocations of ITEM bytes, ordered by the events.
                unsafe { std::ptr::copy_nonoverlapping(din as *const u8, dout as *mut u8, ITEM) };
                Ok(())
            }),
        )?;
        api::record_event(in_free.0[k], s1)?;
        api::record_event(out_ready.0[k], s1)?;
        api::stream_wait_event(s2, out_ready.0[k])?;
        // SAFETY: as above.
        unsafe { api::memcpy_async(hout, ITEM, dout, ITEM, ACL_MEMCPY_DEVICE_TO_HOST, s2)? };
        api::record_event(out_free.0[k], s2)?;
    }
    streams.sync()?;
    let rate = items as f64 / secs(start.elapsed());
    for p in dev_in.into_iter().chain(dev_out) {
        api::free(p)?;
    }
    drop(host_in);
    drop(host_out);
    Ok(rate)
}

/// `work` with the checker off, then on, alternately; every run must be clean.
fn off_and_on(samples: usize, mut work: impl FnMut() -> R<f64>) -> R<(Stats, Stats)> {
    let (mut off, mut on) = (Vec::new(), Vec::new());
    work()?;
    for _ in 0..samples {
        off.push(work()?);
        check::enable_with(Options::quiet(Parts::DEFAULT));
        let rate = work();
        let findings = check::disable();
        assert!(
            findings.is_empty(),
            "the benchmark programs are correctly synchronised: {findings:#?}"
        );
        on.push(rate?);
    }
    Ok((Stats::of(off), Stats::of(on)))
}

pub(super) fn case_checker(p: &Plan) -> R<Vec<Row>> {
    let samples = 3;
    let _ = p;
    // Each throughput call already takes the median of several runs: the quick plan's sizes
    // keep a full run of this case to a few minutes with the checker on.
    let inner = Plan::new(true);
    let mut rows = Vec::new();
    for (id, name, dag) in [
        ("15a", "trivial kernels, 16 streams, checker on", false),
        ("15b", "16-stream fan-out/fan-in DAG, checker on", true),
    ] {
        let (off, on) = off_and_on(samples, || Ok(throughput(p, 16, dag)?.median))?;
        rows.push(
            Row::new(id, name, "tasks/s", on)
                .baseline("same, checker off", off.median)
                .target(Target::RatioAtLeast(0.2))
                .note("race, free and hang checks on; off and on run alternately; target: at most 5x slower"),
        );
    }
    let items = inner.tasks / 4;
    let (off, on) = off_and_on(samples, || {
        Ok(repeat(1, 0, || pipeline(items).expect("pipeline")).median)
    })?;
    rows.push(
        Row::new(
            "15c",
            "3-stage copy/kernel/copy pipeline, checker on",
            "items/s",
            on,
        )
        .baseline("same, checker off", off.median)
        .target(Target::RatioAtLeast(0.2))
        .note("4 KiB items over 8 slots, every access declared and checked; 11 tasks per item (3 touch memory)"),
    );
    Ok(rows)
}
