//! The benchmark cases. Each returns rows whose baseline was measured in the same run.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aclrt::api::{self, KernelAccess};
use aclrt::consts::{
    ACL_CALLBACK_BLOCK, ACL_EVENT_SYNC, ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_STREAM_FAST_SYNC,
};
use aclrt::{EventHandle, StreamHandle};

use crate::alloc::{counted, cpu_seconds, rss_bytes, runtime_threads};
use crate::baseline::{self as base, Wait};
use crate::report::{per_op, repeat, secs, Row, Stats, Target};

#[path = "check_cost.rs"]
mod check_cost;

type R<T> = aclrt::Result<T>;
type CaseFn = fn(&Plan) -> R<Vec<Row>>;

/// Sizes that differ between quick and full mode.
struct Plan {
    quick: bool,
    /// Samples of a micro case.
    samples: usize,
    /// Calls per micro sample.
    iters: usize,
    /// Round trips per sample.
    trips: usize,
    hop_rounds: usize,
    tasks: usize,
    stream_counts: &'static [usize],
    overlap_counts: &'static [usize],
    idle_window: Duration,
    scale_streams_with_workers: usize,
    scale_events: usize,
    copy_samples: usize,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                quick,
                samples: 11,
                iters: 2_000,
                trips: 500,
                hop_rounds: 2_000,
                tasks: 40_000,
                stream_counts: &[1, 2, 16, 64],
                overlap_counts: &[2, 16, 64],
                idle_window: Duration::from_millis(500),
                scale_streams_with_workers: 128,
                scale_events: 16_384,
                copy_samples: 3,
            }
        } else {
            Plan {
                quick,
                samples: 41,
                iters: 10_000,
                trips: 2_000,
                hop_rounds: 20_000,
                tasks: 400_000,
                stream_counts: &[1, 2, 16, 256],
                overlap_counts: &[2, 16, 64, 128, 256],
                idle_window: Duration::from_secs(2),
                scale_streams_with_workers: usize::MAX,
                scale_events: 65_536,
                copy_samples: 11,
            }
        }
    }
}

fn setup() -> R<()> {
    if let Err(e) = api::init() {
        if e.code() != aclrt::codes::ACL_ERROR_REPEAT_INITIALIZE {
            return Err(e);
        }
    }
    api::set_device(0)
}

fn noop_kernel() -> aclrt::KernelFn {
    Box::new(|| Ok(()))
}

fn launch_noop(s: StreamHandle) -> R<u64> {
    api::launch_kernel(s, "", KernelAccess::default(), noop_kernel())
}

/// Streams destroyed on drop, so a failing case leaves nothing behind for the next.
struct Streams(Vec<StreamHandle>);

impl Streams {
    fn new(n: usize, flags: u32) -> R<Streams> {
        let mut v = Streams(Vec::with_capacity(n));
        for _ in 0..n {
            v.0.push(api::create_stream_with_config(0, flags)?);
        }
        Ok(v)
    }

    fn sync(&self) -> R<()> {
        for s in &self.0 {
            api::synchronize_stream(*s)?;
        }
        Ok(())
    }
}

impl Drop for Streams {
    fn drop(&mut self) {
        for s in self.0.drain(..) {
            let _ = api::destroy_stream(s);
        }
    }
}

struct Events(Vec<EventHandle>);

impl Events {
    fn new(n: usize) -> R<Events> {
        let mut v = Events(Vec::with_capacity(n));
        for _ in 0..n {
            v.0.push(api::create_event()?);
        }
        Ok(v)
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        for e in self.0.drain(..) {
            let _ = api::destroy_event(e);
        }
    }
}

/// One benchmark case: its number (what `--only` takes), its name and its body.
pub struct Case {
    pub id: u32,
    pub name: &'static str,
    run: CaseFn,
}

const fn case(id: u32, name: &'static str, run: CaseFn) -> Case {
    Case { id, name, run }
}

/// Every case, in the order they run.
pub const CASES: &[Case] = &[
    case(1, "record enqueue", case_record),
    case(2, "record + query", case_record_query),
    case(3, "record + synchronise round trip", case_round_trip),
    case(4, "synchronise an empty stream", case_sync_empty),
    case(5, "cross-stream hop", case_hop),
    case(6, "blocking callback round trip", case_callback),
    case(7, "launch_host_func", case_host_func),
    case(8, "host-kernel throughput", case_throughput),
    case(9, "overlap", case_overlap),
    case(10, "idle cost", case_idle),
    case(11, "scale", case_scale),
    case(12, "memcpyAsync bandwidth", case_memcpy),
    case(13, "elapsed-time accuracy", case_elapsed),
    case(14, "tracing cost", case_tracing),
    case(15, "checker cost", check_cost::case_checker),
];

pub fn run_all(quick: bool, only: Option<&[u32]>) -> R<Vec<Row>> {
    setup()?;
    let plan = Plan::new(quick);
    let wanted = |id: u32| only.is_none_or(|o| o.contains(&id));
    let mut rows = Vec::new();
    for c in CASES {
        if !wanted(c.id) {
            continue;
        }
        let t = Instant::now();
        eprint!("case {:>2} {} ...", c.id, c.name);
        let r = (c.run)(&plan)?;
        eprintln!(" {:.1} s", t.elapsed().as_secs_f64());
        rows.extend(r);
    }
    Ok(rows)
}

fn case_record(p: &Plan) -> R<Vec<Row>> {
    let streams = Streams::new(1, 0)?;
    let s = streams.0[0];
    let ev = Events::new(1)?;
    let e = ev.0[0];
    let st = per_op(
        p.samples,
        p.iters,
        1e9,
        || {},
        |_| api::record_event(e, s).expect("record"),
        || api::synchronize_stream(s).expect("sync"),
    );
    let b = base::channel_enqueue(p.iters) * 1e9;
    Ok(vec![Row::new("1", "event record enqueue", "ns", st)
        .baseline("alloc flag + mpsc send", b)
        .target(Target::AtMost(100.0))])
}

fn case_record_query(p: &Plan) -> R<Vec<Row>> {
    let streams = Streams::new(1, 0)?;
    let s = streams.0[0];
    let ev = Events::new(2)?;
    let (e, done) = (ev.0[0], ev.0[1]);
    let pair = per_op(
        p.samples,
        p.iters,
        1e9,
        || {},
        |_| {
            api::record_event(e, s).expect("record");
            black_box(api::query_event_status(e).expect("query"));
        },
        || api::synchronize_stream(s).expect("sync"),
    );
    api::record_event(done, s)?;
    api::synchronize_event(done)?;
    let query = per_op(
        p.samples,
        p.iters,
        1e9,
        || {},
        |_| {
            black_box(api::query_event_status(done).expect("query"));
        },
        || {},
    );
    let b = base::channel_enqueue_and_check(p.iters) * 1e9;
    let bq = base::locked_lookup(p.iters * 10) * 1e9;
    Ok(vec![
        Row::new("2", "record + query (same event)", "ns", pair)
            .baseline("mpsc send + flag load", b)
            .target(Target::AtMost(150.0)),
        Row::new("2q", "query of a completed event", "ns", query)
            .baseline("mutex + Arc clone + load", bq),
    ])
}

/// `trips` record + synchronise-event round trips on `s`; seconds per trip per sample.
fn round_trips(p: &Plan, s: StreamHandle, e: EventHandle) -> Stats {
    per_op(
        p.samples,
        p.trips,
        1e6,
        || {},
        |_| {
            api::record_event(e, s).expect("record");
            api::synchronize_event(e).expect("sync");
        },
        || {},
    )
}

fn case_round_trip(p: &Plan) -> R<Vec<Row>> {
    let sleepy = Streams::new(1, 0)?;
    let fast = Streams::new(1, ACL_STREAM_FAST_SYNC)?;
    let ev = Events::new(1)?;
    let slow_st = round_trips(p, sleepy.0[0], ev.0[0]);
    let fast_st = round_trips(p, fast.0[0], ev.0[0]);
    let rounds = p.trips as u64 * 4;
    let park = repeat(5, 1, || base::ping_pong(rounds, Wait::Park) * 1e6).median;
    let spin = repeat(5, 1, || base::ping_pong(rounds, Wait::Spin) * 1e6).median;
    // A stream whose worker has gone to sleep between round trips: the full wake-up path.
    let s = sleepy.0[0];
    let e = ev.0[0];
    let parked = repeat(p.samples.min(21), 1, || {
        std::thread::sleep(Duration::from_millis(2));
        let t = Instant::now();
        api::record_event(e, s).expect("record");
        api::synchronize_event(e).expect("sync");
        secs(t.elapsed()) * 1e6
    });
    Ok(vec![
        Row::new(
            "3a",
            "record + sync round trip, default stream",
            "us",
            slow_st,
        )
        .baseline("park/unpark ping-pong", park)
        .target(Target::RatioAtMost(1.5)),
        Row::new(
            "3b",
            "record + sync round trip, FAST_SYNC stream",
            "us",
            fast_st,
        )
        .baseline("spinning ping-pong", spin)
        .target(Target::AtMost(5.0)),
        Row::new(
            "3c",
            "round trip after the worker parked (2 ms idle)",
            "us",
            parked,
        )
        .baseline("park/unpark ping-pong", park)
        .note("one trip per sample, the worker asleep when the record arrives"),
    ])
}

fn case_sync_empty(p: &Plan) -> R<Vec<Row>> {
    let streams = Streams::new(1, 0)?;
    let s = streams.0[0];
    launch_noop(s)?;
    api::synchronize_stream(s)?;
    let st = per_op(
        p.samples,
        p.iters,
        1e9,
        || {},
        |_| api::synchronize_stream(s).expect("sync"),
        || {},
    );
    let b = base::locked_lookup(p.iters * 10) * 1e9;
    Ok(vec![Row::new("4", "synchronise an empty stream", "ns", st)
        .baseline("mutex + Arc clone + load", b)])
}

fn case_hop(p: &Plan) -> R<Vec<Row>> {
    let streams = Streams::new(2, 0)?;
    let (a, b) = (streams.0[0], streams.0[1]);
    let ev = Events::new(2)?;
    let (ea, eb) = (ev.0[0], ev.0[1]);
    let rounds = p.hop_rounds;
    // Start the chain blocked behind a gate so the whole chain runs after enqueueing ends.
    let gate = api::create_event_with_flag(ACL_EVENT_SYNC)?;
    let hop = repeat(p.samples.min(15), 1, || {
        api::reset_event(gate, a).expect("reset");
        api::synchronize_stream(a).expect("sync");
        api::stream_wait_event(a, gate).expect("gate");
        api::record_event(ea, a).expect("record");
        for _ in 0..rounds {
            api::stream_wait_event(b, ea).expect("wait");
            api::record_event(eb, b).expect("record");
            api::stream_wait_event(a, eb).expect("wait");
            api::record_event(ea, a).expect("record");
        }
        let helper = Streams::new(1, 0).expect("stream");
        let t = Instant::now();
        api::record_event(gate, helper.0[0]).expect("open");
        api::synchronize_stream(a).expect("sync");
        api::synchronize_stream(b).expect("sync");
        secs(t.elapsed()) * 1e6 / (2 * rounds) as f64
    });
    api::destroy_event(gate)?;
    let spin = repeat(5, 1, || {
        base::ping_pong(rounds as u64, Wait::Spin) * 1e6 / 2.0
    })
    .median;
    let park = repeat(5, 1, || {
        base::ping_pong(rounds as u64, Wait::Park) * 1e6 / 2.0
    })
    .median;
    Ok(vec![
        Row::new("5", "cross-stream hop (record -> wait)", "us", hop)
            .baseline("spinning one-way hand-off", spin)
            .target(Target::AtMost(1.0))
            .note(format!(
                "{rounds} rounds queued behind a gate, timed from opening it; park/unpark one-way hand-off: {:.2} us",
                park
            )),
    ])
}

fn case_callback(p: &Plan) -> R<Vec<Row>> {
    let streams = Streams::new(1, 0)?;
    let s = streams.0[0];
    let ev = Events::new(1)?;
    let e = ev.0[0];
    let me = aclrt::pthread_id();
    api::subscribe_report(me, s)?;
    let ran = Arc::new(AtomicU64::new(0));
    let st = per_op(
        p.samples,
        p.trips,
        1e6,
        || {},
        |_| {
            let r = ran.clone();
            api::launch_callback(
                Box::new(move || {
                    r.fetch_add(1, Ordering::Relaxed);
                }),
                ACL_CALLBACK_BLOCK,
                s,
            )
            .expect("launch");
            api::record_event(e, s).expect("record");
            api::process_report(-1).expect("process");
            api::synchronize_event(e).expect("sync");
        },
        || {},
    );
    api::unsubscribe_report(me, s)?;
    assert_eq!(
        ran.load(Ordering::Relaxed),
        ((p.samples + 1) * p.trips) as u64,
        "every callback ran exactly once"
    );
    let park = repeat(5, 1, || {
        base::ping_pong(p.trips as u64 * 4, Wait::Park) * 1e6
    })
    .median;
    Ok(vec![Row::new(
        "6",
        "blocking callback round trip",
        "us",
        st,
    )
    .baseline("2 x park/unpark ping-pong", 2.0 * park)
    .target(Target::AtMost(10.0))
    .note(
        "launch_callback(BLOCK) + record, process_report runs it, synchronise the record",
    )])
}

fn case_host_func(p: &Plan) -> R<Vec<Row>> {
    let streams = Streams::new(1, 0)?;
    let s = streams.0[0];
    let st = per_op(
        p.samples,
        p.iters,
        1e6,
        || {},
        |_| {
            api::launch_host_func(
                s,
                Box::new(|| {
                    black_box(());
                }),
            )
            .expect("launch")
        },
        || api::synchronize_stream(s).expect("sync"),
    );
    // The timed part above is the enqueue; this one includes running them all.
    let total = per_op(
        p.samples.min(15),
        1,
        1e6 / p.iters as f64,
        || {},
        |_| {
            for _ in 0..p.iters {
                api::launch_host_func(
                    s,
                    Box::new(|| {
                        black_box(());
                    }),
                )
                .expect("launch");
            }
            api::synchronize_stream(s).expect("sync");
        },
        || {},
    );
    let b = base::channel_host_funcs(p.iters) * 1e6;
    Ok(vec![
        Row::new("7", "launch_host_func enqueue", "us", st)
            .baseline("mpsc send + run (per closure)", b),
        Row::new("7r", "launch_host_func enqueue + run", "us", total)
            .baseline("mpsc send + run (per closure)", b),
    ])
}

/// Trivial kernels round robin over `n` streams; with `dag`, each wave fans out from stream 0
/// to the others and back in through events. Tasks (kernels) per second.
fn throughput(p: &Plan, n: usize, dag: bool) -> R<Stats> {
    let streams = Streams::new(n, 0)?;
    let events = Events::new(n)?;
    let tasks = p.tasks;
    let samples = if p.quick { 3 } else { 7 };
    let st = repeat(samples, 1, || {
        let start = Instant::now();
        if dag {
            let waves = tasks / n;
            let root = streams.0[0];
            let fan = &events.0;
            for _ in 0..waves {
                launch_noop(root).expect("launch");
                api::record_event(fan[0], root).expect("record");
                for i in 1..n {
                    api::stream_wait_event(streams.0[i], fan[0]).expect("wait");
                    launch_noop(streams.0[i]).expect("launch");
                    api::record_event(fan[i], streams.0[i]).expect("record");
                }
                for e in &fan[1..] {
                    api::stream_wait_event(root, *e).expect("wait");
                }
            }
            streams.sync().expect("sync");
            (waves * n) as f64 / secs(start.elapsed())
        } else {
            for t in 0..tasks {
                launch_noop(streams.0[t % n]).expect("launch");
            }
            streams.sync().expect("sync");
            tasks as f64 / secs(start.elapsed())
        }
    });
    Ok(st)
}

fn case_throughput(p: &Plan) -> R<Vec<Row>> {
    let mut rows = Vec::new();
    for &n in p.stream_counts {
        let b = base::channel_throughput(n, p.tasks);
        let st = throughput(p, n, false)?;
        let mut row = Row::new(
            &format!("8.{n}"),
            &format!("trivial kernels, {n} stream(s), independent"),
            "tasks/s",
            st,
        )
        .baseline(&format!("mpsc to {n} thread(s)"), b);
        if n == 16 {
            row = row.target(Target::AtLeast(2e6));
        }
        rows.push(row);
        if n > 1 {
            let st = throughput(p, n, true)?;
            rows.push(
                Row::new(
                    &format!("8.{n}d"),
                    &format!("trivial kernels, {n} streams, fan-out/fan-in DAG"),
                    "tasks/s",
                    st,
                )
                .baseline(&format!("mpsc to {n} thread(s)"), b)
                .note("per wave: stream 0 records, every other stream waits, runs, records; stream 0 waits on all; kernels counted"),
            );
            // What a Rust program would use for the same graph of trivial closures, in the
            // same run: the ratio column is the runtime over each.
            let (samples, waves) = (if p.quick { 3 } else { 7 }, p.tasks / n);
            let tokio = repeat(samples, 1, || base::tokio_dag(n, waves)).median;
            let rayon = repeat(samples, 1, || base::rayon_dag(n, waves)).median;
            rows.push(
                Row::new(
                    &format!("8.{n}d-tokio"),
                    &format!("{n}-stream DAG against tokio"),
                    "tasks/s",
                    st,
                )
                .baseline("tokio tasks, oneshot edges", tokio)
                .note("runtime's DAG rate over tokio's: every node a task spawned up front on a multi-thread runtime, every edge a oneshot channel"),
            );
            rows.push(
                Row::new(
                    &format!("8.{n}d-rayon"),
                    &format!("{n}-stream DAG against rayon"),
                    "tasks/s",
                    st,
                )
                .baseline("rayon, a scope per wave", rayon)
                .note("runtime's DAG rate over rayon's: per wave the root closure, then a scope spawning the others (its end is the fan-in)"),
            );
        }
    }
    Ok(rows)
}

fn case_overlap(p: &Plan) -> R<Vec<Row>> {
    let nap = Duration::from_millis(200);
    let mut rows = Vec::new();
    for &n in p.overlap_counts {
        let samples = if p.quick { 1 } else { 3 };
        let st = repeat(samples, 0, || {
            let streams = Streams::new(n, 0).expect("streams");
            let start = Instant::now();
            for s in &streams.0 {
                api::launch_kernel(
                    *s,
                    "nap",
                    KernelAccess::default(),
                    Box::new(move || {
                        std::thread::sleep(nap);
                        Ok(())
                    }),
                )
                .expect("launch");
            }
            streams.sync().expect("sync");
            secs(start.elapsed()) * 1e3
        });
        let b = base::sleeping_threads(n, nap) * 1e3;
        rows.push(
            Row::new(
                &format!("9.{n}"),
                &format!("overlap: {n} streams x 200 ms kernel, wall"),
                "ms",
                st,
            )
            .baseline(&format!("{n} std threads x 200 ms"), b)
            .target(Target::AtMost(240.0)),
        );
    }
    Ok(rows)
}

fn case_idle(p: &Plan) -> R<Vec<Row>> {
    let streams = Streams::new(64, 0)?;
    let events = Events::new(1000)?;
    for (i, e) in events.0.iter().enumerate() {
        let s = streams.0[i % 64];
        launch_noop(s)?;
        api::record_event(*e, s)?;
    }
    streams.sync()?;
    // Let every worker finish its idle spin and park before the window opens.
    std::thread::sleep(Duration::from_millis(50));
    let window = p.idle_window;
    let measure = || {
        let c0 = cpu_seconds();
        let t0 = Instant::now();
        std::thread::sleep(window);
        (cpu_seconds() - c0) * 1e3 / secs(t0.elapsed())
    };
    let st = repeat(1, 0, measure);
    drop(events);
    drop(streams);
    let parked = base::ParkedThreads::spawn(64);
    std::thread::sleep(Duration::from_millis(50));
    let b = measure();
    drop(parked);
    Ok(vec![Row::new(
        "10",
        "idle CPU: 64 streams (workers started) + 1000 recorded events",
        "ms/s",
        st,
    )
    .baseline("64 parked std threads", b)
    .target(Target::AtMost(1.0))
    .note(format!(
        "getrusage user+sys over a {:.1} s window",
        window.as_secs_f64()
    ))])
}

fn case_scale(p: &Plan) -> R<Vec<Row>> {
    let mut rows = Vec::new();
    // Streams: as many as the device allows (its default stream counts too).
    let rss0 = rss_bytes();
    let t = Instant::now();
    let (created, heap) = counted(|| {
        let mut v = Vec::with_capacity(aclrt::MAX_STREAMS_PER_DEVICE);
        while let Ok(s) = api::create_stream() {
            v.push(s);
        }
        v
    });
    let create_rate = created.len() as f64 / secs(t.elapsed());
    let n = created.len();
    let heap_per_stream = heap as f64 / n as f64;
    // Start a worker on each (or on the quick mode's share) and let them park: an idle stream.
    let with_workers = n.min(p.scale_streams_with_workers);
    for s in &created[..with_workers] {
        launch_noop(*s)?;
    }
    for s in &created[..with_workers] {
        api::synchronize_stream(*s)?;
    }
    std::thread::sleep(Duration::from_millis(20));
    let rss_per_stream = (rss_bytes().saturating_sub(rss0)) as f64 / with_workers as f64;
    let threads = runtime_threads();
    let t = Instant::now();
    for s in &created {
        api::destroy_stream(*s)?;
    }
    let destroy_rate = n as f64 / secs(t.elapsed());

    let rss_t0 = rss_bytes();
    let t = Instant::now();
    let parked = base::ParkedThreads::spawn(with_workers);
    let thread_rate = with_workers as f64 / secs(t.elapsed());
    std::thread::sleep(Duration::from_millis(20));
    let rss_per_thread = (rss_bytes().saturating_sub(rss_t0)) as f64 / with_workers as f64;
    drop(parked);
    rows.push(
        Row::new(
            "11a",
            &format!("create {n} streams"),
            "streams/s",
            Stats::of(vec![create_rate]),
        )
        .baseline("spawn parked std thread /s", thread_rate),
    );
    rows.push(
        Row::new(
            "11b",
            &format!("destroy {n} streams ({with_workers} with workers)"),
            "streams/s",
            Stats::of(vec![destroy_rate]),
        )
        .baseline("spawn parked std thread /s", thread_rate),
    );
    rows.push(
        Row::new(
            "11c",
            "heap bytes per stream (no worker yet)",
            "B",
            Stats::of(vec![heap_per_stream]),
        )
        .target(Target::AtMost(16384.0)),
    );
    rows.push(
        Row::new(
            "11d",
            "RSS per idle stream with its worker",
            "B",
            Stats::of(vec![rss_per_stream]),
        )
        .baseline("RSS per parked std thread", rss_per_thread)
        .target(Target::AtMost(16384.0))
        .note(format!(
            "RSS growth over {with_workers} streams after each ran one task; a worker's stack is virtual until touched"
        )),
    );
    let cores = std::thread::available_parallelism().map_or(2, |c| c.get());
    rows.push(
        Row::new(
            "11h",
            &format!("runtime threads alive with {n} streams, {with_workers} idle after a task"),
            "threads",
            Stats::of(vec![threads as f64]),
        )
        .target(Target::AtMost((cores + 4) as f64))
        .note("threads named aclrt-* once the streams ran a task and went idle; target: cores + 4"),
    );

    // SYNC events: each holds a device resource from creation.
    let m = p.scale_events;
    let rss0 = rss_bytes();
    let t = Instant::now();
    let (events, heap) = counted(|| {
        let mut v = Vec::with_capacity(m);
        for _ in 0..m {
            match api::create_event_with_flag(ACL_EVENT_SYNC) {
                Ok(e) => v.push(e),
                Err(_) => break,
            }
        }
        v
    });
    let ev_rate = events.len() as f64 / secs(t.elapsed());
    let rss_per_event = rss_bytes().saturating_sub(rss0) as f64 / events.len() as f64;
    let heap_per_event = heap as f64 / events.len() as f64;
    let t = Instant::now();
    for e in &events {
        api::destroy_event(*e)?;
    }
    let ev_destroy = events.len() as f64 / secs(t.elapsed());
    let got = events.len();
    drop(events);
    let t = Instant::now();
    let (cv, cv_heap) = counted(|| (0..m).map(|_| base::condvar_event()).collect::<Vec<_>>());
    let cv_rate = m as f64 / secs(t.elapsed());
    let cv_bytes =
        (cv_heap as f64 - (m * std::mem::size_of::<base::CondvarEvent>()) as f64) / m as f64;
    drop(cv);
    rows.push(
        Row::new(
            "11e",
            &format!("create {got} SYNC events"),
            "events/s",
            Stats::of(vec![ev_rate]),
        )
        .baseline("Arc<(Mutex, Condvar)> /s", cv_rate),
    );
    rows.push(
        Row::new(
            "11f",
            &format!("destroy {got} SYNC events"),
            "events/s",
            Stats::of(vec![ev_destroy]),
        )
        .baseline("Arc<(Mutex, Condvar)> /s", cv_rate),
    );
    rows.push(
        Row::new(
            "11g",
            "heap bytes per event",
            "B",
            Stats::of(vec![heap_per_event]),
        )
        .baseline("Arc<(Mutex, Condvar)>", cv_bytes)
        .target(Target::AtMost(256.0))
        .note(format!(
            "counted by the allocator; process RSS grew {:.0} B per event (freed heap is reused)",
            rss_per_event
        )),
    );
    Ok(rows)
}

fn case_memcpy(p: &Plan) -> R<Vec<Row>> {
    const SIZE: usize = 64 << 20;
    let streams = Streams::new(1, 0)?;
    let s = streams.0[0];
    let src = api::malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)?;
    let dst = api::malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)?;
    // SAFETY: both are live runtime allocations of SIZE bytes.
    unsafe {
        std::ptr::write_bytes(src as *mut u8, 0x5A, SIZE);
        std::ptr::write_bytes(dst as *mut u8, 0, SIZE);
    }
    let gib = SIZE as f64 / (1u64 << 30) as f64;
    let asyncs = repeat(p.copy_samples, 1, || {
        let t = Instant::now();
        // SAFETY: the buffers stay alive until the stream is synchronised below.
        unsafe { api::memcpy_async(dst, SIZE, src, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, s) }
            .expect("memcpy_async");
        api::synchronize_stream(s).expect("sync");
        gib / secs(t.elapsed())
    });
    let plain = repeat(p.copy_samples, 1, || {
        let t = Instant::now();
        // SAFETY: distinct live allocations of SIZE bytes each.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, SIZE) };
        black_box(dst);
        gib / secs(t.elapsed())
    });
    // SAFETY: dst is a live allocation of SIZE bytes.
    let last = unsafe { *(dst as *const u8).add(SIZE - 1) };
    assert_eq!(last, 0x5A, "the copy reached the end of the buffer");
    api::free(src)?;
    api::free(dst)?;
    Ok(vec![Row::new(
        "12",
        "memcpyAsync 64 MiB, enqueue to sync",
        "GiB/s",
        asyncs,
    )
    .baseline("memcpy of the same buffers", plain.median)
    .target(Target::RatioAtLeast(0.9))])
}

fn case_elapsed(p: &Plan) -> R<Vec<Row>> {
    let streams = Streams::new(1, 0)?;
    let s = streams.0[0];
    let ev = Events::new(2)?;
    let (e0, e1) = (ev.0[0], ev.0[1]);
    let samples = if p.quick { 5 } else { 21 };
    let mut walls = Vec::new();
    let st = repeat(samples, 1, || {
        let wall = Arc::new(AtomicU64::new(0));
        let w = wall.clone();
        api::record_event(e0, s).expect("record");
        api::launch_kernel(
            s,
            "sleep10",
            KernelAccess::default(),
            Box::new(move || {
                let t = Instant::now();
                std::thread::sleep(Duration::from_millis(10));
                w.store(t.elapsed().as_nanos() as u64, Ordering::Release);
                Ok(())
            }),
        )
        .expect("launch");
        api::record_event(e1, s).expect("record");
        api::synchronize_event(e1).expect("sync");
        let events_ms = f64::from(api::event_elapsed_time(e0, e1).expect("elapsed"));
        let wall_ms = wall.load(Ordering::Acquire) as f64 / 1e6;
        walls.push(wall_ms);
        (events_ms - wall_ms).abs() * 1e3
    });
    let wall = Stats::of(walls).median * 1e3;
    Ok(vec![Row::new("13", "elapsed-time error, 10 ms kernel", "us", st)
        .baseline("kernel's own wall time (us)", wall)
        .target(Target::AtMost(50.0))
        .note("|event_elapsed_time(start, end) - wall clock measured inside the kernel|; ratio is the relative error")])
}

/// Record enqueue with the built-in trace collector on, against the same enqueue with it off,
/// sampled alternately so both see the same machine; and the trace memory each task takes.
fn case_tracing(p: &Plan) -> R<Vec<Row>> {
    let streams = Streams::new(1, 0)?;
    let s = streams.0[0];
    let ev = Events::new(1)?;
    let e = ev.0[0];
    let sample = || {
        per_op(
            1,
            p.iters,
            1e9,
            || {},
            |_| api::record_event(e, s).expect("record"),
            || api::synchronize_stream(s).expect("sync"),
        )
        .median
    };
    let (mut off, mut on) = (Vec::new(), Vec::new());
    let mut trace = aclrt::trace::Trace::default();
    for _ in 0..p.samples {
        off.push(sample());
        aclrt::trace::start();
        on.push(sample());
        trace = aclrt::trace::stop();
    }
    let tasks = trace
        .records
        .iter()
        .filter(|r| matches!(r, aclrt::trace::TraceRecord::Submitted { .. }))
        .count()
        .max(1);
    let bytes_per_task = (trace.records.len() * std::mem::size_of::<aclrt::trace::TraceRecord>())
        as f64
        / tasks as f64;
    Ok(vec![
        Row::new("14a", "record enqueue, tracing on", "ns", Stats::of(on))
            .baseline("same, tracing off", Stats::of(off).median)
            .note("the overhead of recording one task; off and on sampled alternately"),
        Row::new(
            "14b",
            "trace memory per task",
            "B",
            Stats::of(vec![bytes_per_task]),
        )
        .target(Target::AtMost(256.0))
        .note("fixed-size records in per-thread buffers"),
    ])
}
