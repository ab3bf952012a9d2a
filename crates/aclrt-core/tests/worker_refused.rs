//! An OS that refuses the runtime a worker thread: the launch that needed it fails with
//! `ACL_ERROR_RT_RESOURCE_ALLOC_FAIL`, nothing queued is stranded (a synchronise returns
//! instead of hanging), and once threads are available again the stream works. Runs on its own
//! runtime instance, not the process's.

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use aclrt::codes::*;
use aclrt::threads::{OsThreads, ThreadSpawner};
use aclrt::{Config, Runtime};

/// Refuses the first `refusals` threads, then behaves like the OS.
struct Stingy {
    refusals: AtomicU32,
}

impl ThreadSpawner for Stingy {
    fn spawn(&self, name: String, body: Box<dyn FnOnce() + Send>) -> io::Result<JoinHandle<()>> {
        let left = self.refusals.load(Ordering::SeqCst);
        if left > 0 {
            self.refusals.store(left - 1, Ordering::SeqCst);
            return Err(io::Error::new(io::ErrorKind::WouldBlock, "no threads left"));
        }
        OsThreads.spawn(name, body)
    }
}

fn code<T>(r: aclrt::Result<T>) -> i32 {
    r.err().map_or(0, |e| e.code())
}

#[test]
fn a_refused_worker_fails_the_launch_and_strands_nothing() {
    let rt = Runtime::with_threads(
        &Config::default(),
        Arc::new(Stingy {
            refusals: AtomicU32::new(1),
        }),
    );
    rt.set_device(0).unwrap();
    let s = rt.create_stream().unwrap();
    let ev = rt.create_event().unwrap();
    let launched = rt.launch_kernel(s, "k", Default::default(), Box::new(|| Ok(())));
    assert_eq!(code(launched), ACL_ERROR_RT_RESOURCE_ALLOC_FAIL);
    // Nothing runs the stream, yet nothing waits forever: run the synchronise on a watchdog.
    let (tx, rx) = mpsc::channel();
    let rt2 = rt.clone();
    let ctx = rt.get_current_context().unwrap();
    std::thread::spawn(move || {
        rt2.set_current_context(ctx).unwrap();
        tx.send(code(rt2.synchronize_stream(s))).unwrap();
    });
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(10)),
        Ok(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL),
        "the discarded work is reported by the next synchronise"
    );
    assert_eq!(code(rt.synchronize_stream(s)), 0, "reported once");
    // Threads are available again: the stream starts a worker and runs in order.
    let order = Arc::new(std::sync::Mutex::new(Vec::new()));
    for i in 0..3 {
        let o = order.clone();
        rt.launch_kernel(
            s,
            "k",
            Default::default(),
            Box::new(move || {
                o.lock().unwrap().push(i);
                Ok(())
            }),
        )
        .unwrap();
    }
    rt.record_event(ev, s).unwrap();
    rt.synchronize_event(ev).unwrap();
    assert_eq!(*order.lock().unwrap(), vec![0, 1, 2]);
    rt.shut_down();
}

/// The record of a legacy SYNC event is queued under the event's lock; when the worker it
/// needs is refused, the record is discarded on the spot and sets the event's flag, which has
/// its own lock, so the recording thread does not wait on itself.
#[test]
fn a_refused_worker_under_a_flag_record_does_not_deadlock() {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let rt = Runtime::with_threads(
            &Config::default(),
            Arc::new(Stingy {
                refusals: AtomicU32::new(1),
            }),
        );
        rt.set_device(0).unwrap();
        let s = rt.create_stream().unwrap();
        let ev = rt
            .create_event_with_flag(aclrt::consts::ACL_EVENT_SYNC)
            .unwrap();
        let recorded = code(rt.record_event(ev, s));
        let synced = code(rt.synchronize_event(ev));
        rt.shut_down();
        tx.send((recorded, synced)).unwrap();
    });
    let (recorded, synced) = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("recording a flag event with the worker refused deadlocked");
    assert_eq!(recorded, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL);
    // The failed record never became the event's latest: nothing to wait for.
    assert_eq!(synced, 0);
}
