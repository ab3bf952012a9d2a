//! The demo: a three-stage pipeline on three streams of the emulated device.
//!
//! Each chunk of data goes through three stages, one stream each:
//! - `load`: copy the chunk to device memory, then kernel `unpack` scales it in place;
//! - `compute`: kernel `square` squares it in place;
//! - `store`: kernel `pack` (a checksum pass), then copy the result back to the host, then a
//!   blocking callback reports the chunk from the `reporter` host thread.
//!
//! Events order the stages per chunk (`loaded`, `computed`), and nothing else does, so while
//! chunk N computes, chunk N+1 loads and chunk N-1 is stored. The emulated device's copies take
//! microseconds, so each stage's kernel also takes a fixed [`STAGE_TIME`] (it sleeps out the
//! rest of it), as a real stage of comparable cost would. Every time printed is on the trace's
//! clock (milliseconds since the first `aclrtSetDevice`), the clock of the picture's axis.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aclrt::api::{self, KernelAccess};
use aclrt::consts::*;
use aclrt::{MemRange, Result, StreamHandle};

/// Chunks through the pipeline: enough for several steps with all three stages busy.
pub const CHUNKS: usize = 6;
const CHUNK_LEN: usize = 1 << 16;
/// What each stage's kernel takes per chunk.
pub const STAGE_TIME: Duration = Duration::from_millis(20);

/// The three stages, in pipeline order; also their streams' names.
const STAGES: [&str; 3] = ["load", "compute", "store"];

/// Milliseconds on the trace's clock.
fn now_ms() -> f64 {
    aclrt::trace::host_now_ns() as f64 / 1e6
}

/// What happened: stage kernels with their start and end, and one-off notes.
#[derive(Clone, Default)]
struct Log {
    entries: Arc<Mutex<Vec<Entry>>>,
}

#[derive(Clone)]
struct Entry {
    start: f64,
    end: Option<f64>,
    stage: usize,
    text: String,
}

impl Log {
    fn note(&self, stage: usize, text: impl Into<String>) {
        self.entries.lock().unwrap().push(Entry {
            start: now_ms(),
            end: None,
            stage,
            text: text.into(),
        });
    }

    fn span(&self, stage: usize, start: f64, text: impl Into<String>) {
        self.entries.lock().unwrap().push(Entry {
            start,
            end: Some(now_ms()),
            stage,
            text: text.into(),
        });
    }

    fn sorted(&self) -> Vec<Entry> {
        let mut entries = self.entries.lock().unwrap().clone();
        entries.sort_by(|a, b| a.start.total_cmp(&b.start));
        entries
    }

    fn print(&self) {
        for e in self.sorted() {
            let when = match e.end {
                Some(end) => format!("{:>7.2} - {end:>7.2} ms", e.start),
                None => format!("{:>7.2} ms          ", e.start),
            };
            let stage = STAGES.get(e.stage).copied().unwrap_or("host");
            println!("  [{when}] {stage:<8} {}", e.text);
        }
    }

    /// Time during which a kernel of every stage was running, and when that first began.
    fn all_stages_busy(&self) -> (f64, Option<f64>) {
        let spans: Vec<(f64, f64, usize)> = self
            .sorted()
            .into_iter()
            .filter_map(|e| e.end.map(|end| (e.start, end, e.stage)))
            .collect();
        let mut edges: Vec<f64> = spans.iter().flat_map(|&(s, e, _)| [s, e]).collect();
        edges.sort_by(f64::total_cmp);
        let (mut total, mut first) = (0.0, None);
        for w in edges.windows(2) {
            let mid = (w[0] + w[1]) / 2.0;
            let busy = (0..STAGES.len()).all(|st| {
                spans
                    .iter()
                    .any(|&(s, e, k)| k == st && s <= mid && mid < e)
            });
            if busy && w[1] > w[0] {
                total += w[1] - w[0];
                first.get_or_insert(w[0]);
            }
        }
        (total, first)
    }
}

/// Does `work`, then sleeps out the rest of the stage time, and logs the kernel's span.
fn stage_kernel(
    log: &Log,
    stage: usize,
    label: String,
    work: impl FnOnce() + Send + 'static,
) -> aclrt::KernelFn {
    let log = log.clone();
    Box::new(move || {
        let start = now_ms();
        let began = std::time::Instant::now();
        work();
        if let Some(rest) = STAGE_TIME.checked_sub(began.elapsed()) {
            std::thread::sleep(rest);
        }
        log.span(stage, start, label);
        Ok(())
    })
}

/// A device buffer of `CHUNK_LEN` floats, as a slice for a kernel.
///
/// # Safety
/// `dev` is a live allocation of that size, and the kernel has it to itself (the events order
/// every access to it).
unsafe fn floats<'a>(dev: usize) -> &'a mut [f32] {
    // SAFETY: as this function's contract says: a live allocation of that size, used by this kernel alone.
    unsafe { std::slice::from_raw_parts_mut(dev as *mut f32, CHUNK_LEN) }
}

/// Runs the demo, prints what happened, and writes the trace and its picture into `out`.
pub fn run(out: &Path) -> std::result::Result<(), String> {
    crate::output::prepare_folder(out)?;
    pipeline(out).map_err(|e| e.to_string())
}

fn pipeline(out: &Path) -> Result<()> {
    let _ = api::init();
    api::set_device(0)?;
    let log = Log::default();
    let streams: Vec<StreamHandle> = (0..STAGES.len())
        .map(|_| api::create_stream())
        .collect::<Result<_>>()?;
    for (s, name) in streams.iter().zip(STAGES) {
        api::set_stream_name(*s, name)?;
    }
    let (load, compute, store) = (streams[0], streams[1], streams[2]);

    // A host thread serves the store stream's callbacks.
    let stop = Arc::new(AtomicBool::new(false));
    let (tid_tx, tid_rx) = mpsc::channel();
    let reporter = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("reporter".into())
            .spawn(move || {
                tid_tx.send(aclrt::pthread_id()).unwrap();
                while !stop.load(Ordering::Acquire) {
                    let _ = api::process_report(50);
                }
            })
            .expect("a thread for the callbacks")
    };
    let reporter_id = tid_rx.recv().unwrap();
    api::subscribe_report(reporter_id, store)?;
    // With ACLRT_TRACE set the collector already runs for the whole program: the demo then
    // takes a copy for its own files and leaves the collection to be written at aclFinalize.
    let traced_by_env = aclrt::trace::is_collecting();
    if !traced_by_env {
        aclrt::trace::start();
    }

    let host_in: Vec<Vec<f32>> = (0..CHUNKS)
        .map(|c| (0..CHUNK_LEN).map(|i| (c * CHUNK_LEN + i) as f32).collect())
        .collect();
    let host_out: Vec<Arc<Mutex<Vec<f32>>>> = (0..CHUNKS)
        .map(|_| Arc::new(Mutex::new(vec![0f32; CHUNK_LEN])))
        .collect();
    let bytes = CHUNK_LEN * std::mem::size_of::<f32>();
    let device_bufs: Vec<usize> = (0..CHUNKS)
        .map(|_| api::malloc(bytes, ACL_MEM_MALLOC_HUGE_FIRST))
        .collect::<Result<_>>()?;
    let checksums: Arc<Mutex<Vec<f64>>> = Arc::new(Mutex::new(vec![0.0; CHUNKS]));

    let begin = api::create_event()?;
    let end = api::create_event()?;
    api::record_event(begin, load)?;
    for chunk in 0..CHUNKS {
        let loaded = api::create_event_ex_with_flag(ACL_EVENT_SYNC)?;
        let computed = api::create_event_ex_with_flag(ACL_EVENT_SYNC)?;
        let dev = device_bufs[chunk];
        let range = vec![MemRange {
            start: dev,
            len: bytes,
        }];
        let access = || KernelAccess {
            reads: range.clone(),
            writes: range.clone(),
        };

        // load: copy in, then unpack (scale) in place.
        // SAFETY: host_in outlives the synchronisation below; dev is a live allocation.
        unsafe {
            api::memcpy_async(
                dev,
                bytes,
                host_in[chunk].as_ptr() as usize,
                bytes,
                ACL_MEMCPY_HOST_TO_DEVICE,
                load,
            )?;
        }
        let unpack = stage_kernel(&log, 0, format!("chunk {chunk}: unpack"), move || {
            // SAFETY: the load stream owns `dev` until `loaded`.
            for x in unsafe { floats(dev) } {
                *x *= 1e-3;
            }
        });
        api::launch_kernel(load, &format!("unpack {chunk}"), access(), unpack)?;
        api::record_event(loaded, load)?;

        // compute: square in place, once loaded.
        api::stream_wait_event(compute, loaded)?;
        let square = stage_kernel(&log, 1, format!("chunk {chunk}: square"), move || {
            // SAFETY: the compute stream owns `dev` between `loaded` and `computed`.
            for x in unsafe { floats(dev) } {
                *x *= *x;
            }
        });
        api::launch_kernel(compute, &format!("square {chunk}"), access(), square)?;
        api::record_event(computed, compute)?;

        // store: checksum pass, copy out, report from the reporter thread.
        api::stream_wait_event(store, computed)?;
        let sums = checksums.clone();
        let pack = stage_kernel(&log, 2, format!("chunk {chunk}: pack"), move || {
            // SAFETY: the store stream owns `dev` after `computed`.
            let sum = unsafe { floats(dev) }.iter().map(|&x| f64::from(x)).sum();
            sums.lock().unwrap()[chunk] = sum;
        });
        api::launch_kernel(store, &format!("pack {chunk}"), access(), pack)?;
        let out_buf = host_out[chunk].clone();
        let out_ptr = out_buf.lock().unwrap().as_mut_ptr() as usize;
        // SAFETY: the output vector is kept alive by `host_out` until the end.
        unsafe {
            api::memcpy_async(out_ptr, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, store)?;
        }
        let l = log.clone();
        let sums = checksums.clone();
        api::launch_callback(
            Box::new(move || {
                let copied: f64 = out_buf.lock().unwrap().iter().map(|&x| f64::from(x)).sum();
                let packed = sums.lock().unwrap()[chunk];
                let verdict = if copied == packed {
                    "matches"
                } else {
                    "DIFFERS FROM"
                };
                l.note(
                    2,
                    format!("chunk {chunk}: callback on the reporter thread: sum {copied:.4e} {verdict} the checksum"),
                );
            }),
            ACL_CALLBACK_BLOCK,
            store,
        )?;
        api::destroy_event(loaded)?;
        api::destroy_event(computed)?;
    }
    api::record_event(end, store)?;
    log.note(3, "all work queued; synchronising the device");
    api::synchronize_device()?;
    log.note(3, "device idle");
    let elapsed = api::event_elapsed_time(begin, end)?;

    stop.store(true, Ordering::Release);
    reporter.join().expect("the reporter thread");
    api::unsubscribe_report(reporter_id, store)?;
    let (trace_file, picture) = (out.join("trace.json"), out.join("timeline.svg"));
    let write_failed = |e: String| aclrt::Error::new(aclrt::codes::ACL_ERROR_WRITE_FILE, e);
    let trace = if traced_by_env {
        aclrt::trace::snapshot()
    } else {
        aclrt::trace::stop()
    };
    trace
        .write_chrome(&trace_file)
        .map_err(|e| write_failed(e.to_string()))?;
    crate::trace::render_file(&trace_file, &picture).map_err(write_failed)?;

    println!("aclrt demo: a 3-stage pipeline, {CHUNKS} chunks, on 3 streams of emulated device 0");
    for (s, n) in streams.iter().zip(STAGES) {
        println!("  stream {:<2} = {n}", api::stream_get_id(*s)?);
    }
    println!("what happened (ms on the trace's clock, as in the picture):");
    log.print();
    let stage_ms = STAGE_TIME.as_secs_f64() * 1e3;
    let serial = stage_ms * (STAGES.len() * CHUNKS) as f64;
    println!(
        "elapsed between the begin and end events: {elapsed:.1} ms \
         (the stages one after another: {serial:.0} ms)"
    );
    match log.all_stages_busy() {
        (busy, Some(from)) => println!(
            "all three stages ran at once for {busy:.1} ms in all, first from {from:.2} ms"
        ),
        _ => println!("the three stages never ran at once"),
    }
    let expected: f64 = host_in
        .iter()
        .flatten()
        .map(|&x| {
            let y = x * 1e-3;
            f64::from(y * y)
        })
        .sum();
    let got: f64 = host_out
        .iter()
        .map(|o| o.lock().unwrap().iter().map(|&x| f64::from(x)).sum::<f64>())
        .sum();
    println!("result check: sum of squares {got:.6e} (expected {expected:.6e})");
    println!(
        "trace: {} (open in Perfetto or chrome://tracing), picture: {}",
        trace_file.display(),
        picture.display()
    );
    for buf in device_bufs {
        api::free(buf)?;
    }
    for s in streams {
        api::destroy_stream(s)?;
    }
    api::reset_device(0)?;
    api::finalize()?;
    if (got - expected).abs() > expected * 1e-6 {
        return Err(aclrt::Error::new(
            aclrt::codes::ACL_ERROR_INTERNAL_ERROR,
            "pipeline result mismatch",
        ));
    }
    Ok(())
}
