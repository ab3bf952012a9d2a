//! Shared setup, gates and measurements for the CUDA tests.
#![allow(dead_code)]

#[path = "../exclusive/mod.rs"]
mod exclusive;
#[allow(unused_imports)]
pub use exclusive::exclusive;

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use aclrt::cuda::{self, CuResult, CuResultOf};
use aclrt::{ContextHandle, StreamHandle};

/// `cuInit` + a fresh CUDA context on device 0, current on this thread.
pub fn setup() -> ContextHandle {
    cuda::init(0).unwrap();
    let dev = cuda::device_get(0).unwrap();
    cuda::ctx_create(0, dev).unwrap()
}

/// The `CUresult` of a call: 0 on success.
pub fn code<T>(r: CuResultOf<T>) -> CuResult {
    match r {
        Ok(_) => 0,
        Err(e) => e.code(),
    }
}

/// A gate a kernel blocks on until the test opens it: makes "work still pending" exact.
#[derive(Clone, Default)]
pub struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn open(&self) {
        *self.0 .0.lock().unwrap() = true;
        self.0 .1.notify_all();
    }

    pub fn pass(&self) {
        let mut open = self.0 .0.lock().unwrap();
        while !*open {
            open = self.0 .1.wait(open).unwrap();
        }
    }
}

/// Launches a kernel that blocks until `gate` opens, then returns `result`.
pub fn gated(stream: StreamHandle, gate: &Gate, result: Result<(), CuResult>) {
    let g = gate.clone();
    cuda::launch_host_kernel(
        stream,
        "gated",
        Box::new(move || {
            g.pass();
            result
        }),
    )
    .unwrap();
}

/// Launches a kernel that appends `tag` to `log`.
pub fn logger(stream: StreamHandle, log: &Arc<Mutex<Vec<&'static str>>>, tag: &'static str) {
    let l = log.clone();
    cuda::launch_host_func(stream, Box::new(move || l.lock().unwrap().push(tag))).unwrap();
}

/// Polls `cond` for up to `secs` seconds.
pub fn eventually(secs: u64, cond: impl Fn() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    cond()
}

/// CPU time the calling thread has used.
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime fills the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Voluntary context switches (blocking waits) of the calling thread so far.
pub fn voluntary_switches() -> i64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    usage.ru_nvcsw
}
