//! What tracing costs on the enqueue path: run with
//! `cargo nextest run --release -p aclrt-cli --run-ignored only -E 'test(cost)' --no-capture`.

use std::time::Instant;

use aclrt::api;
use aclrt::trace::{self, TraceRecord};

const OPS: usize = 100_000;

/// Mean nanoseconds per `aclrtRecordEvent` enqueue, best of three rounds.
fn record_enqueue_ns(stream: aclrt::StreamHandle, event: aclrt::EventHandle) -> f64 {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..OPS {
                api::record_event(event, stream).unwrap();
            }
            let ns = start.elapsed().as_nanos() as f64 / OPS as f64;
            api::synchronize_stream(stream).unwrap();
            ns
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
#[ignore = "timing run; see the module docs"]
fn cost_of_tracing_on_record_enqueue() {
    let _ = api::init();
    api::set_device(0).unwrap();
    let stream = api::create_stream().unwrap();
    let event = api::create_event_ex_with_flag(aclrt::consts::ACL_EVENT_SYNC).unwrap();
    record_enqueue_ns(stream, event);

    let off = record_enqueue_ns(stream, event);
    trace::start();
    let on = record_enqueue_ns(stream, event);
    let gathered = trace::stop();
    let after = record_enqueue_ns(stream, event);

    let per_task = 3 * std::mem::size_of::<TraceRecord>();
    println!("record enqueue, tracing off:        {off:>8.1} ns");
    println!("record enqueue, tracing on:         {on:>8.1} ns");
    println!("record enqueue, off again:          {after:>8.1} ns");
    println!(
        "trace record size {} B, {per_task} B per task; {} records gathered",
        std::mem::size_of::<TraceRecord>(),
        gathered.records.len()
    );
    // Three records per task (submit, start, finish), plus the synchronise calls.
    assert_eq!(gathered.records.len(), 3 * 3 * OPS + 3);
    assert!(
        on < off + 20_000.0,
        "tracing must stay cheap: {on} ns vs {off} ns"
    );
}
