//! The demo: a three-stage pipeline on three streams of the emulated device.
//!
//! `load` copies each chunk to device memory, `compute` squares it in place with a host
//! kernel, `store` copies the result back; events order the stages per chunk, so chunk N+1
//! loads while chunk N computes. A blocking callback on the store stream reports each chunk
//! from a subscribed host thread, and a pair of timing events measures the whole run.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aclrt::api::{self, KernelAccess};
use aclrt::consts::*;
use aclrt::{MemRange, Result};

const CHUNKS: usize = 4;
const CHUNK_LEN: usize = 1 << 16;
const KERNEL_TIME: Duration = Duration::from_millis(30);

/// What happened, in order, with the time since the demo started.
#[derive(Clone, Default)]
struct Log {
    start: Option<Instant>,
    lines: Arc<Mutex<Vec<(Duration, String)>>>,
}

impl Log {
    fn new() -> Self {
        Self {
            start: Some(Instant::now()),
            lines: Arc::default(),
        }
    }

    fn say(&self, text: impl Into<String>) {
        let at = self.start.expect("started").elapsed();
        self.lines.lock().unwrap().push((at, text.into()));
    }

    fn print(&self) {
        let mut lines = self.lines.lock().unwrap().clone();
        lines.sort_by_key(|(at, _)| *at);
        for (at, text) in lines {
            println!("  [{:>7.2} ms] {text}", at.as_secs_f64() * 1e3);
        }
    }
}

/// Runs the demo, prints what happened, and writes the trace and its picture into `out`.
pub fn run(out: &Path) -> std::result::Result<(), String> {
    crate::output::prepare_folder(out)?;
    pipeline(out).map_err(|e| e.to_string())
}

fn pipeline(out: &Path) -> Result<()> {
    let _ = api::init();
    api::set_device(0)?;
    let log = Log::new();
    let load = api::create_stream()?;
    let compute = api::create_stream()?;
    let store = api::create_stream()?;
    let names = [(load, "load"), (compute, "compute"), (store, "store")];

    // A host thread serves the store stream's callbacks.
    let stop = Arc::new(AtomicBool::new(false));
    let (tid_tx, tid_rx) = mpsc::channel();
    let reporter = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            tid_tx.send(aclrt::pthread_id()).unwrap();
            while !stop.load(Ordering::Acquire) {
                let _ = api::process_report(50);
            }
        })
    };
    let reporter_id = tid_rx.recv().unwrap();
    api::subscribe_report(reporter_id, store)?;
    aclrt::trace::start();

    let host_in: Vec<Vec<f32>> = (0..CHUNKS)
        .map(|c| {
            (0..CHUNK_LEN)
                .map(|i| (c * CHUNK_LEN + i) as f32 * 1e-3)
                .collect()
        })
        .collect();
    let host_out: Vec<Arc<Mutex<Vec<f32>>>> = (0..CHUNKS)
        .map(|_| Arc::new(Mutex::new(vec![0f32; CHUNK_LEN])))
        .collect();
    let bytes = CHUNK_LEN * std::mem::size_of::<f32>();
    let device_bufs: Vec<usize> = (0..CHUNKS)
        .map(|_| api::malloc(bytes, ACL_MEM_MALLOC_HUGE_FIRST))
        .collect::<Result<_>>()?;

    let begin = api::create_event()?;
    let end = api::create_event()?;
    api::record_event(begin, load)?;
    for chunk in 0..CHUNKS {
        let loaded = api::create_event_ex_with_flag(ACL_EVENT_SYNC)?;
        let computed = api::create_event_ex_with_flag(ACL_EVENT_SYNC)?;
        let dev = device_bufs[chunk];

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
        let l = log.clone();
        api::launch_host_func(
            load,
            Box::new(move || l.say(format!("load     chunk {chunk}: copied host -> device"))),
        )?;
        api::record_event(loaded, load)?;

        api::stream_wait_event(compute, loaded)?;
        let l = log.clone();
        let access = KernelAccess {
            reads: vec![MemRange {
                start: dev,
                len: bytes,
            }],
            writes: vec![MemRange {
                start: dev,
                len: bytes,
            }],
        };
        api::launch_kernel(
            compute,
            "square",
            access,
            Box::new(move || {
                l.say(format!("compute  chunk {chunk}: kernel `square` starts"));
                // SAFETY: the kernel owns `dev` between the `loaded` and `computed` events.
                let data = unsafe { std::slice::from_raw_parts_mut(dev as *mut f32, CHUNK_LEN) };
                for x in data.iter_mut() {
                    *x *= *x;
                }
                std::thread::sleep(KERNEL_TIME);
                l.say(format!("compute  chunk {chunk}: kernel `square` done"));
                Ok(())
            }),
        )?;
        api::record_event(computed, compute)?;

        api::stream_wait_event(store, computed)?;
        let out = host_out[chunk].clone();
        let out_ptr = out.lock().unwrap().as_mut_ptr() as usize;
        // SAFETY: the output vector is kept alive by `host_out` until the end.
        unsafe {
            api::memcpy_async(out_ptr, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, store)?;
        }
        let l = log.clone();
        api::launch_callback(
            Box::new(move || {
                let data = out.lock().unwrap();
                let sum: f64 = data.iter().map(|&x| f64::from(x)).sum();
                l.say(format!("store    chunk {chunk}: blocking callback on the report thread, sum = {sum:.1}"));
            }),
            ACL_CALLBACK_BLOCK,
            store,
        )?;
        api::destroy_event(loaded)?;
        api::destroy_event(computed)?;
    }
    api::record_event(end, store)?;
    log.say("host: all work queued, synchronising the device");
    api::synchronize_device()?;
    log.say("host: device idle");
    let elapsed = api::event_elapsed_time(begin, end)?;

    stop.store(true, Ordering::Release);
    reporter.join().unwrap();
    api::unsubscribe_report(reporter_id, store)?;
    let (trace_file, picture) = (out.join("trace.json"), out.join("timeline.svg"));
    let write_failed = |e: String| aclrt::Error::new(aclrt::codes::ACL_ERROR_WRITE_FILE, e);
    aclrt::trace::stop_and_write(&trace_file).map_err(|e| write_failed(e.to_string()))?;
    crate::trace::render_file(&trace_file, &picture).map_err(write_failed)?;

    println!("aclrt demo: a 3-stage pipeline ({CHUNKS} chunks) on 3 streams of emulated device 0");
    for (s, n) in names {
        println!("  stream {:<2} = {n}", api::stream_get_id(s)?);
    }
    println!("what happened:");
    log.print();
    let serial = KERNEL_TIME.as_secs_f64() * 1e3 * CHUNKS as f64;
    println!(
        "elapsed between the begin and end events: {elapsed:.2} ms (kernels alone: {serial:.0} ms)"
    );
    let expected: f64 = host_in.iter().flatten().map(|&x| f64::from(x * x)).sum();
    let got: f64 = host_out
        .iter()
        .map(|o| o.lock().unwrap().iter().map(|&x| f64::from(x)).sum::<f64>())
        .sum();
    println!("result check: sum of squares {got:.1} (expected {expected:.1})");
    println!(
        "timeline: {} (open in Perfetto or chrome://tracing), picture: {}",
        trace_file.display(),
        picture.display()
    );
    for buf in device_bufs {
        api::free(buf)?;
    }
    for s in [load, compute, store] {
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
