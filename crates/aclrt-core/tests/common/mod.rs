//! Setup shared by the integration tests. Each test runs in its own process under nextest,
//! so the process-global runtime starts fresh; the helpers still tolerate an earlier init.
#![allow(dead_code)]

#[path = "../exclusive/mod.rs"]
mod exclusive;
#[allow(unused_imports)]
pub use exclusive::exclusive;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use aclrt::api::{self, PhysicalMemProp};
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::KernelFn;

/// Initialises the runtime (an earlier init is fine) and sets device 0 on this thread.
pub fn setup() {
    first_setup();
    match api::init() {
        Ok(()) => {}
        Err(e) => assert_eq!(e.code(), ACL_ERROR_REPEAT_INITIALIZE, "{e}"),
    }
    api::set_device(0).unwrap();
}

/// When [`setup`] was first called in this process: no earlier than the first device set of a
/// test binary whose tests all start with it (the origin of event timestamps).
pub fn first_setup() -> std::time::Instant {
    static FIRST: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *FIRST.get_or_init(std::time::Instant::now)
}

/// The error code of a result (0 for success).
pub fn code<T>(r: aclrt::Result<T>) -> i32 {
    match r {
        Ok(_) => 0,
        Err(e) => e.code(),
    }
}

/// A kernel that sleeps `ms` milliseconds.
pub fn sleeper(ms: u64) -> KernelFn {
    Box::new(move || {
        std::thread::sleep(Duration::from_millis(ms));
        Ok(())
    })
}

/// A kernel that fails with `code`.
pub fn failing(code: i32) -> KernelFn {
    Box::new(move || Err(code))
}

/// A kernel that runs `f`.
pub fn kernel(f: impl FnOnce() + Send + 'static) -> KernelFn {
    Box::new(move || {
        f();
        Ok(())
    })
}

/// A kernel that blocks until `gate` opens (or 10 s pass, so a broken test cannot hang).
pub fn gated(gate: &Arc<AtomicBool>) -> KernelFn {
    let gate = gate.clone();
    Box::new(move || {
        let t0 = std::time::Instant::now();
        while !gate.load(Ordering::SeqCst) && t0.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    })
}

pub fn launch(stream: aclrt::StreamHandle, k: KernelFn) -> u64 {
    api::launch_kernel(stream, "test", Default::default(), k).unwrap()
}

/// A thread that serves callbacks with `aclrtProcessReport` until stopped.
pub struct Reporter {
    pub tid: u64,
    stop: Arc<AtomicBool>,
    join: Option<JoinHandle<()>>,
}

impl Reporter {
    pub fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let s = stop.clone();
        let join = std::thread::spawn(move || {
            tx.send(aclrt::pthread_id()).unwrap();
            while !s.load(Ordering::SeqCst) {
                // Not subscribed yet (107012) or nothing due (507012): keep polling.
                if api::process_report(20).is_err() {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        });
        Self {
            tid: rx.recv().unwrap(),
            stop,
            join: Some(join),
        }
    }

    pub fn stop(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(j) = self.join.take() {
            j.join().unwrap();
        }
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
    }
}

/// Launches on each stream a kernel that waits (up to 10 s in all) until the kernels of every
/// stream have arrived; returns the most that were ever running at once.
pub fn all_inside(streams: &[aclrt::StreamHandle]) -> usize {
    let n = streams.len();
    // (arrived so far, inside now, most inside at once)
    type Counts = (usize, usize, usize);
    let state: Arc<(std::sync::Mutex<Counts>, std::sync::Condvar)> = Arc::default();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    for &s in streams {
        let st = state.clone();
        launch(
            s,
            Box::new(move || {
                let mut g = st.0.lock().unwrap();
                g.0 += 1;
                g.1 += 1;
                g.2 = g.2.max(g.1);
                st.1.notify_all();
                while g.0 < n && std::time::Instant::now() < deadline {
                    g = st.1.wait_timeout(g, Duration::from_millis(50)).unwrap().0;
                }
                g.1 -= 1;
                Ok(())
            }),
        );
    }
    for &s in streams {
        api::synchronize_stream(s).unwrap();
    }
    let most = state.0.lock().unwrap().2;
    most
}

/// Properties of a physical allocation of normal device memory on device `id`.
pub fn device_prop(id: u32) -> PhysicalMemProp {
    PhysicalMemProp {
        mem_attr: ACL_HBM_MEM_NORMAL,
        location_type: aclrt::vendor_consts::ACL_MEM_LOCATION_TYPE_DEVICE as u32,
        location_id: id,
        ..Default::default()
    }
}

/// Copies `bytes` into device memory at `dev`.
pub fn write_device(dev: usize, bytes: &[u8]) {
    // SAFETY: `bytes` is readable; the device range is checked by the runtime.
    unsafe {
        api::memcpy(
            dev,
            bytes.len(),
            bytes.as_ptr() as usize,
            bytes.len(),
            ACL_MEMCPY_HOST_TO_DEVICE,
        )
    }
    .unwrap();
}

/// Reads `len` bytes of device memory at `dev`, or the copy's refusal.
pub fn try_read_device(dev: usize, len: usize) -> aclrt::Result<Vec<u8>> {
    let mut out = vec![0u8; len];
    // SAFETY: `out` holds `len` bytes; the device range is checked by the runtime.
    unsafe {
        api::memcpy(
            out.as_mut_ptr() as usize,
            len,
            dev,
            len,
            ACL_MEMCPY_DEVICE_TO_HOST,
        )
    }?;
    Ok(out)
}

/// Reads `len` bytes of device memory at `dev`.
pub fn read_device(dev: usize, len: usize) -> Vec<u8> {
    try_read_device(dev, len).unwrap()
}
