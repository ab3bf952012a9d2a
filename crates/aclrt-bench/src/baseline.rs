//! Physical baselines: the same hand-offs done with plain std primitives, measured in the same
//! run as the runtime cases so that ratios compare like with like on the same loaded machine.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How a waiting thread waits in a ping-pong.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// `thread::park` until the peer's `unpark` (futex sleep and wake).
    Park,
    /// Busy-wait on the atomic, yielding the core now and then.
    Spin,
}

fn wait_for(cell: &AtomicU64, value: u64, how: Wait) {
    match how {
        Wait::Park => {
            while cell.load(Ordering::Acquire) != value {
                thread::park();
            }
        }
        Wait::Spin => {
            let mut n = 0u32;
            while cell.load(Ordering::Acquire) != value {
                std::hint::spin_loop();
                n += 1;
                // Without a yield a spinning pair on a loaded 2-core machine can starve the
                // very thread it waits for.
                if n.is_multiple_of(1024) {
                    thread::yield_now();
                }
            }
        }
    }
}

/// Round-trip time of a two-thread wake-up ping-pong, in seconds per round trip.
pub fn ping_pong(rounds: u64, how: Wait) -> f64 {
    let ping = Arc::new(AtomicU64::new(0));
    let pong = Arc::new(AtomicU64::new(0));
    let main = thread::current();
    let peer = {
        let (ping, pong) = (ping.clone(), pong.clone());
        thread::spawn(move || {
            for i in 1..=rounds {
                wait_for(&ping, i, how);
                pong.store(i, Ordering::Release);
                if how == Wait::Park {
                    main.unpark();
                }
            }
        })
    };
    let start = Instant::now();
    for i in 1..=rounds {
        ping.store(i, Ordering::Release);
        if how == Wait::Park {
            peer.thread().unpark();
        }
        wait_for(&pong, i, how);
    }
    let elapsed = start.elapsed();
    peer.join().expect("ping-pong peer panicked");
    elapsed.as_secs_f64() / rounds as f64
}

type Job = Box<dyn FnOnce() + Send>;

/// A std channel feeding boxed closures to a worker thread: the textbook host work queue.
pub struct ChannelWorker {
    tx: Option<mpsc::Sender<Job>>,
    done: Arc<AtomicU64>,
    join: Option<thread::JoinHandle<()>>,
}

impl ChannelWorker {
    pub fn new() -> ChannelWorker {
        let (tx, rx) = mpsc::channel::<Job>();
        let done = Arc::new(AtomicU64::new(0));
        let d = done.clone();
        let join = thread::spawn(move || {
            for job in rx {
                job();
                d.fetch_add(1, Ordering::Release);
            }
        });
        ChannelWorker {
            tx: Some(tx),
            done,
            join: Some(join),
        }
    }

    pub fn send(&self, job: Job) {
        self.tx
            .as_ref()
            .expect("worker open")
            .send(job)
            .expect("worker alive");
    }

    /// Waits (spinning, then yielding) until `count` jobs have run.
    pub fn drain(&self, count: u64) {
        while self.done.load(Ordering::Acquire) < count {
            thread::yield_now();
        }
    }
}

impl Drop for ChannelWorker {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
    }
}

/// Allocate a completion flag and send a task that sets it to a thread that runs tasks as they
/// arrive. Seconds per enqueue: the median over runs, as the cases report theirs, so runs in
/// which the receiver drains concurrently count as they do for the runtime.
pub fn channel_enqueue(iters: usize) -> f64 {
    channel_runs(iters, |w| {
        let flag = Arc::new(AtomicBool::new(false));
        w.send(Box::new(move || flag.store(true, Ordering::Release)));
    })
}

/// Enqueue plus a check of the latest completion flag. Seconds per pair (median over runs).
pub fn channel_enqueue_and_check(iters: usize) -> f64 {
    channel_runs(iters, |w| {
        let flag = Arc::new(AtomicBool::new(false));
        let f2 = flag.clone();
        w.send(Box::new(move || f2.store(true, Ordering::Release)));
        black_box(flag.load(Ordering::Acquire));
    })
}

fn channel_runs(iters: usize, mut op: impl FnMut(&ChannelWorker)) -> f64 {
    const RUNS: usize = 11;
    let w = ChannelWorker::new();
    let mut sent = 0u64;
    let mut runs = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let start = Instant::now();
        for _ in 0..iters {
            op(&w);
        }
        runs.push(start.elapsed().as_secs_f64() / iters as f64);
        sent += iters as u64;
        w.drain(sent);
    }
    runs.sort_by(f64::total_cmp);
    runs[RUNS / 2]
}

/// A lookup of a shared object with std parts: mutex lock/unlock, `Arc` clone and drop, one
/// atomic compare. Seconds per lookup.
pub fn locked_lookup(iters: usize) -> f64 {
    let table = Mutex::new(vec![Arc::new(AtomicU64::new(7))]);
    let start = Instant::now();
    for _ in 0..iters {
        let obj = table.lock().unwrap()[0].clone();
        black_box(obj.load(Ordering::Acquire) == 7);
    }
    start.elapsed().as_secs_f64() / iters as f64
}

/// Runs `jobs` trivial boxed closures over `threads` channel workers, round robin; tasks/s.
pub fn channel_throughput(threads: usize, jobs: usize) -> f64 {
    let workers: Vec<ChannelWorker> = (0..threads).map(|_| ChannelWorker::new()).collect();
    let start = Instant::now();
    for j in 0..jobs {
        workers[j % threads].send(Box::new(|| {
            black_box(());
        }));
    }
    for (i, w) in workers.iter().enumerate() {
        let share = jobs / threads + usize::from(i < jobs % threads);
        w.drain(share as u64);
    }
    let elapsed = start.elapsed().as_secs_f64();
    drop(workers);
    jobs as f64 / elapsed
}

/// Runs boxed host closures on one channel worker and waits for the last; seconds per closure.
pub fn channel_host_funcs(iters: usize) -> f64 {
    let w = ChannelWorker::new();
    let mut sent = 0u64;
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..iters {
            w.send(Box::new(|| {
                black_box(());
            }));
        }
        sent += iters as u64;
        w.drain(sent);
        best = best.min(start.elapsed().as_secs_f64() / iters as f64);
    }
    best
}

/// Wall time of `n` threads each sleeping `d`, spawned and joined; seconds.
pub fn sleeping_threads(n: usize, d: Duration) -> f64 {
    let start = Instant::now();
    let ts: Vec<_> = (0..n)
        .map(|_| thread::spawn(move || thread::sleep(d)))
        .collect();
    for t in ts {
        t.join().expect("sleeper panicked");
    }
    start.elapsed().as_secs_f64()
}

/// Parked std threads, unparked and joined on drop.
pub struct ParkedThreads {
    stop: Arc<AtomicBool>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl ParkedThreads {
    pub fn spawn(n: usize) -> ParkedThreads {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..n)
            .map(|_| {
                let stop = stop.clone();
                thread::spawn(move || {
                    while !stop.load(Ordering::Acquire) {
                        thread::park();
                    }
                })
            })
            .collect();
        ParkedThreads { stop, threads }
    }
}

impl Drop for ParkedThreads {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        for t in self.threads.drain(..) {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// The textbook host event: a mutex-guarded flag with a condition variable.
pub type CondvarEvent = Arc<(Mutex<bool>, Condvar)>;

pub fn condvar_event() -> CondvarEvent {
    Arc::new((Mutex::new(false), Condvar::new()))
}

/// The fan-out/fan-in DAG of case 8's `d` rows built the way a Rust program without the runtime
/// would: every node a tokio task on a multi-thread runtime (one worker per core), every edge a
/// `tokio::sync::oneshot` channel. Per wave the root node runs, then `n - 1` nodes that each
/// wait for it, then the next wave's root waits for all of them. The whole graph is spawned up
/// front (as the runtime's tasks are enqueued up front) and the clock stops when the last root
/// has run. Nodes per second.
pub fn tokio_dag(n: usize, waves: usize) -> f64 {
    use tokio::sync::oneshot;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .build()
        .expect("tokio runtime");
    let start = Instant::now();
    let (last_tx, last_rx) = oneshot::channel::<()>();
    // What the next root waits for: the previous wave's nodes (nothing before the first).
    let mut fan_in: Vec<oneshot::Receiver<()>> = Vec::new();
    for _ in 0..waves {
        let (outs, ins): (Vec<_>, Vec<_>) = (1..n).map(|_| oneshot::channel::<()>()).unzip();
        let waits = std::mem::take(&mut fan_in);
        rt.spawn(async move {
            for r in waits {
                r.await.expect("fan-in edge");
            }
            black_box(());
            for s in outs {
                let _ = s.send(());
            }
        });
        for r in ins {
            let (tx, rx) = oneshot::channel::<()>();
            fan_in.push(rx);
            rt.spawn(async move {
                r.await.expect("fan-out edge");
                black_box(());
                let _ = tx.send(());
            });
        }
    }
    rt.spawn(async move {
        for r in fan_in {
            r.await.expect("fan-in edge");
        }
        let _ = last_tx.send(());
    });
    rt.block_on(last_rx).expect("last wave");
    let elapsed = start.elapsed().as_secs_f64();
    drop(rt);
    (waves * n) as f64 / elapsed
}

/// The same DAG with rayon: per wave the root closure runs, then a `rayon::scope` spawns the
/// `n - 1` others and its end is the fan-in. Nodes per second.
pub fn rayon_dag(n: usize, waves: usize) -> f64 {
    let pool = rayon::ThreadPoolBuilder::new().build().expect("rayon pool");
    let start = Instant::now();
    pool.install(|| {
        for _ in 0..waves {
            black_box(());
            rayon::scope(|s| {
                for _ in 1..n {
                    s.spawn(|_| {
                        black_box(());
                    });
                }
            });
        }
    });
    let elapsed = start.elapsed().as_secs_f64();
    (waves * n) as f64 / elapsed
}
