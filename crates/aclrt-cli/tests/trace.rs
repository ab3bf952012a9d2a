//! Traces of known programs: the Chrome JSON the core writes, and what `aclrt trace` makes of it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use aclrt::api;
use aclrt::consts::ACL_CALLBACK_BLOCK;
use aclrt::trace::{self, TraceRecord};
use aclrt::StreamHandle;
use serde_json::Value;

/// The tests of this file share one process and its runtime and trace collector: each holds
/// this guard, which also starts it from an uninitialised runtime.
fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let _ = api::finalize();
    api::get_last_error();
    api::get_recent_err_msg();
    guard
}

fn setup() {
    let _ = api::init();
    api::set_device(0).unwrap();
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("aclrt-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn sleeper(ms: u64) -> aclrt::KernelFn {
    Box::new(move || {
        std::thread::sleep(Duration::from_millis(ms));
        Ok(())
    })
}

/// The known program: two streams joined by an event, a blocking callback served by a
/// subscribed host thread, and a device synchronise.
///
/// - producer: kernel `produce` (8 ms), record `ready`
/// - consumer: wait `ready`, kernel `consume` (3 ms), callback, record `done`
/// - consumer waits again on `ready` (already complete) before a host function
///
/// Tasks: producer 2, consumer 6 = 8, with two record→wait edges (both from `ready`).
struct Known {
    producer: StreamHandle,
    consumer: StreamHandle,
}

const KNOWN_TASKS: usize = 8;
const KNOWN_EDGES: usize = 2;

fn run_known() -> Known {
    let producer = api::create_stream().unwrap();
    let consumer = api::create_stream().unwrap();
    // Before the reporter starts: a report call already waiting when tracing begins is not
    // traced, though a callback it runs would be.
    trace::start();
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let reporter = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("reporter".into())
            .spawn(move || {
                tx.send(aclrt::pthread_id()).unwrap();
                while !stop.load(Ordering::Acquire) {
                    let _ = api::process_report(20);
                }
            })
            .unwrap()
    };
    let reporter_id = rx.recv().unwrap();
    api::subscribe_report(reporter_id, consumer).unwrap();

    let ready = api::create_event().unwrap();
    let done = api::create_event().unwrap();
    api::launch_kernel(producer, "produce", Default::default(), sleeper(8)).unwrap();
    api::record_event(ready, producer).unwrap();
    api::stream_wait_event(consumer, ready).unwrap();
    api::launch_kernel(consumer, "consume", Default::default(), sleeper(3)).unwrap();
    api::launch_callback(
        Box::new(|| std::thread::sleep(Duration::from_millis(2))),
        ACL_CALLBACK_BLOCK,
        consumer,
    )
    .unwrap();
    api::record_event(done, consumer).unwrap();
    api::stream_wait_event(consumer, ready).unwrap();
    api::launch_host_func(consumer, Box::new(|| {})).unwrap();
    api::synchronize_device().unwrap();
    stop.store(true, Ordering::Release);
    reporter.join().unwrap();
    api::unsubscribe_report(reporter_id, consumer).unwrap();
    Known { producer, consumer }
}

fn parse(json: &str) -> Vec<Value> {
    let root: Value = serde_json::from_str(json).expect("the trace is valid JSON");
    root["traceEvents"].as_array().expect("traceEvents").clone()
}

fn stream_id(s: StreamHandle) -> i64 {
    i64::from(api::stream_get_id(s).unwrap())
}

fn track(e: &Value) -> (i64, i64) {
    (e["pid"].as_i64().unwrap(), e["tid"].as_i64().unwrap())
}

/// Microseconds as nanoseconds, exactly (the file has three decimals).
fn ns(v: &Value) -> i64 {
    (v.as_f64().unwrap() * 1000.0).round() as i64
}

/// The deepest `X` slice on a track that contains `ts`: what a viewer binds a flow end to.
fn enclosing(events: &[Value], at: (i64, i64), ts: i64) -> Option<&Value> {
    events
        .iter()
        .filter(|e| e["ph"] == "X" && track(e) == at)
        .filter(|e| ns(&e["ts"]) <= ts && ts <= ns(&e["ts"]) + ns(&e["dur"]))
        .min_by_key(|e| ns(&e["dur"]))
}

/// Flow pairs of a category: (start event, finish event).
fn flows<'a>(events: &'a [Value], cat: &str) -> Vec<(&'a Value, &'a Value)> {
    let mut starts: HashMap<i64, &Value> = HashMap::new();
    let mut pairs = Vec::new();
    for e in events.iter().filter(|e| e["cat"] == cat) {
        match e["ph"].as_str() {
            Some("s") => {
                assert!(
                    starts.insert(e["id"].as_i64().unwrap(), e).is_none(),
                    "flow ids are unique"
                );
            }
            Some("f") => {
                assert_eq!(e["bp"], "e", "flow ends bind to the enclosing slice");
                let s = starts
                    .remove(&e["id"].as_i64().unwrap())
                    .expect("every flow end has a start, earlier in the file");
                assert!(ns(&s["ts"]) <= ns(&e["ts"]), "flows go forward in time");
                pairs.push((s, e));
            }
            _ => {}
        }
    }
    assert!(starts.is_empty(), "every flow start has an end");
    pairs
}

fn host_pid(json: &str) -> i64 {
    let root: Value = serde_json::from_str(json).unwrap();
    root["otherData"]["host_pid"].as_i64().unwrap()
}

#[test]
fn chrome_trace_of_a_known_program() {
    let _serial = exclusive();
    setup();
    let known = run_known();
    let t = trace::stop();
    let json = t.to_chrome_json();
    let events = parse(&json);
    let host = host_pid(&json);
    let (p, c) = (stream_id(known.producer), stream_id(known.consumer));

    // Metadata names every track.
    let meta = |name: &str, pid: i64, tid: Option<i64>| {
        events
            .iter()
            .find(|e| {
                e["ph"] == "M"
                    && e["name"] == name
                    && e["pid"] == pid
                    && tid.is_none_or(|t| e["tid"] == t)
            })
            .map(|e| e["args"]["name"].as_str().unwrap().to_owned())
    };
    assert_eq!(meta("process_name", 0, None).as_deref(), Some("device 0"));
    assert_eq!(meta("process_name", host, None).as_deref(), Some("host"));
    assert_eq!(meta("thread_name", 0, Some(p)), Some(format!("stream {p}")));
    assert_eq!(meta("thread_name", 0, Some(c)), Some(format!("stream {c}")));

    // One slice per task, on its stream's track, with its kind and name.
    let tasks: Vec<&Value> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["pid"] == 0)
        .collect();
    assert_eq!(tasks.len(), KNOWN_TASKS);
    let on = |tid: i64| -> Vec<(String, String)> {
        let mut v: Vec<_> = tasks
            .iter()
            .filter(|e| e["tid"] == tid)
            .map(|e| {
                (
                    e["args"]["kind"].as_str().unwrap().to_owned(),
                    e["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        v.dedup();
        v
    };
    let pair = |k: &str, n: &str| (k.to_owned(), n.to_owned());
    assert_eq!(
        on(p),
        vec![pair("kernel", "produce"), pair("record", "record")]
    );
    assert_eq!(
        on(c),
        vec![
            pair("wait", "wait"),
            pair("kernel", "consume"),
            pair("callback", "callback"),
            pair("record", "record"),
            pair("wait", "wait"),
            pair("host_func", "host_func"),
        ]
    );
    let consume = tasks.iter().find(|e| e["name"] == "consume").unwrap();
    let produce = tasks.iter().find(|e| e["name"] == "produce").unwrap();
    assert!(ns(&produce["dur"]) >= 8_000_000, "the kernel slept 8 ms");
    assert!(
        ns(&consume["ts"]) >= ns(&produce["ts"]) + ns(&produce["dur"]),
        "consume waited for produce"
    );

    // Timestamps never go back on a track, and slices nest (no partial overlap).
    let mut by_track: BTreeMap<(i64, i64), Vec<&Value>> = BTreeMap::new();
    for e in events.iter().filter(|e| e["ph"] != "M") {
        by_track.entry(track(e)).or_default().push(e);
    }
    for (tr, evs) in &by_track {
        let ts: Vec<i64> = evs.iter().map(|e| ns(&e["ts"])).collect();
        assert!(
            ts.windows(2).all(|w| w[0] <= w[1]),
            "timestamps go back on {tr:?}"
        );
        let mut open: Vec<i64> = Vec::new();
        for e in evs.iter().filter(|e| e["ph"] == "X") {
            let (s, end) = (ns(&e["ts"]), ns(&e["ts"]) + ns(&e["dur"]));
            while open.last().is_some_and(|&o| o <= s) {
                open.pop();
            }
            if let Some(&outer) = open.last() {
                assert!(end <= outer, "slice {e} overlaps its parent on {tr:?}");
            }
            open.push(end);
        }
    }
    // The callback body runs nested inside the reporter's aclrtProcessReport slice.
    let callback = events
        .iter()
        .find(|e| e["ph"] == "X" && e["pid"] == host && e["cat"] == "callback")
        .expect("the callback ran on a host thread");
    let reporter = track(callback);
    let parent = events
        .iter()
        .filter(|e| e["ph"] == "X" && track(e) == reporter && e["name"] == "aclrtProcessReport")
        .find(|e| {
            ns(&e["ts"]) <= ns(&callback["ts"])
                && ns(&callback["ts"]) + ns(&callback["dur"]) <= ns(&e["ts"]) + ns(&e["dur"])
        });
    assert!(parent.is_some(), "the callback nests in the report call");
    assert_eq!(
        meta("thread_name", host, Some(reporter.1)),
        Some(format!("reporter ({})", reporter.1))
    );

    // A flow for every record→wait edge, bound to the record and to the wait it released.
    let uid = |e: &Value| e["args"]["uid"].as_u64().unwrap();
    let deps = flows(&events, "dependency");
    assert_eq!(deps.len(), KNOWN_EDGES);
    let record = tasks
        .iter()
        .find(|e| e["tid"] == p && e["args"]["kind"] == "record")
        .unwrap();
    let mut released = HashSet::new();
    for (s, f) in &deps {
        let from = enclosing(&events, track(s), ns(&s["ts"])).unwrap();
        let to = enclosing(&events, track(f), ns(&f["ts"])).unwrap();
        assert_eq!(uid(from), uid(record));
        assert_eq!(to["args"]["kind"], "wait");
        assert_eq!(to["args"]["released_by"].as_u64(), Some(uid(record)));
        released.insert(uid(to));
    }
    let waits: HashSet<u64> = tasks
        .iter()
        .filter(|e| e["args"]["kind"] == "wait")
        .map(|e| uid(e))
        .collect();
    assert_eq!(released, waits, "each wait has its own arrow");

    // A flow from each launch call on the main thread to its task.
    let main_tid = i64::from(aclrt::os_thread_id());
    let launches = flows(&events, "launch");
    assert_eq!(launches.len(), KNOWN_TASKS);
    let mut launched = HashSet::new();
    for (s, f) in &launches {
        assert_eq!(track(s), (host, main_tid));
        let call = enclosing(&events, track(s), ns(&s["ts"])).unwrap();
        let task = enclosing(&events, track(f), ns(&f["ts"])).unwrap();
        assert_eq!(call["cat"], "launch");
        assert_eq!(uid(call), uid(task));
        launched.insert(uid(task));
    }
    assert_eq!(launched.len(), KNOWN_TASKS);

    // The callback task points at the thread that ran it.
    let cb = flows(&events, "callback");
    assert_eq!(cb.len(), 1);
    let from = enclosing(&events, track(cb[0].0), ns(&cb[0].0["ts"])).unwrap();
    let to = enclosing(&events, track(cb[0].1), ns(&cb[0].1["ts"])).unwrap();
    assert_eq!(from["args"]["kind"], "callback");
    assert_eq!(uid(to), uid(from));

    // The host's synchronise call and how long it blocked.
    let sync = events
        .iter()
        .find(|e| e["ph"] == "X" && e["name"] == "aclrtSynchronizeDevice")
        .expect("the synchronise call is traced");
    assert_eq!(track(sync), (host, main_tid));
    assert!(
        ns(&sync["dur"]) >= 8_000_000,
        "it blocked behind the 8 ms kernel"
    );
}

#[test]
fn failures_and_failed_calls_are_traced() {
    let _serial = exclusive();
    setup();
    let s = api::create_stream().unwrap();
    trace::start();
    api::launch_kernel(s, "broken", Default::default(), Box::new(|| Err(507015))).unwrap();
    assert_eq!(api::synchronize_stream(s).unwrap_err().code(), 507015);
    let bogus = StreamHandle::from_raw(0x7777_0000_0001);
    assert_eq!(api::synchronize_stream(bogus).unwrap_err().code(), 107017);
    let json = trace::stop().to_chrome_json();
    let events = parse(&json);
    let broken = events
        .iter()
        .find(|e| e["ph"] == "X" && e["name"] == "broken")
        .unwrap();
    assert_eq!(broken["args"]["error"], 507015);
    assert!(broken["args"]["message"]
        .as_str()
        .unwrap()
        .contains("507015"));
    assert!(events
        .iter()
        .any(|e| e["ph"] == "i" && e["name"] == "failed 507015" && track(e) == track(broken)));
    let failed_call = events
        .iter()
        .find(|e| e["ph"] == "i" && e["name"] == "error 107017")
        .expect("the failed call is traced");
    assert_eq!(failed_call["pid"].as_i64(), Some(host_pid(&json)));
    assert_eq!(
        failed_call["tid"].as_i64(),
        Some(i64::from(aclrt::os_thread_id()))
    );
}

#[test]
fn records_are_fixed_size_and_three_per_task() {
    let _serial = exclusive();
    assert!(std::mem::size_of::<TraceRecord>() <= 96);
    setup();
    let s = api::create_stream().unwrap();
    trace::start();
    for _ in 0..100 {
        api::launch_kernel(s, "noop", Default::default(), Box::new(|| Ok(()))).unwrap();
    }
    api::synchronize_stream(s).unwrap();
    let t = trace::stop();
    let tasks = t
        .records
        .iter()
        .filter(|r| {
            matches!(
                r,
                TraceRecord::Submitted { .. }
                    | TraceRecord::Started { .. }
                    | TraceRecord::Finished { .. }
            )
        })
        .count();
    assert_eq!(tasks, 300);
    assert_eq!(t.records.len(), 301, "plus the synchronise call");
    // Off again: nothing more is gathered.
    api::launch_kernel(s, "noop", Default::default(), Box::new(|| Ok(()))).unwrap();
    api::synchronize_stream(s).unwrap();
    assert!(!trace::enabled());
    assert!(trace::stop().records.is_empty());
}

#[test]
fn acl_trace_variable_writes_the_file_at_finalize() {
    let _serial = exclusive();
    let path = scratch("env.json");
    let _ = std::fs::remove_file(&path);
    std::env::set_var(trace::ENV_TRACE, &path);
    api::init().unwrap();
    // Read at aclInit; the tests after this one share the process's environment.
    std::env::remove_var(trace::ENV_TRACE);
    assert!(trace::is_collecting());
    api::set_device(0).unwrap();
    let s = api::create_stream().unwrap();
    api::launch_kernel(s, "from_env", Default::default(), sleeper(1)).unwrap();
    api::synchronize_stream(s).unwrap();
    assert!(!path.exists(), "written at finalize, not before");
    api::finalize().unwrap();
    assert!(!trace::is_collecting());
    let json = std::fs::read_to_string(&path).expect("finalize wrote the trace");
    let events = parse(&json);
    assert!(events
        .iter()
        .any(|e| e["ph"] == "X" && e["name"] == "from_env" && e["pid"] == 0));
}

fn cli(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_aclrt"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "aclrt {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn render_and_summary_of_a_known_program() {
    let _serial = exclusive();
    setup();
    let known = run_known();
    let json_path = scratch("known.json");
    let svg_path = scratch("known.svg");
    trace::stop_and_write(&json_path).unwrap();
    let (p, c) = (stream_id(known.producer), stream_id(known.consumer));

    cli(&[
        "trace",
        "render",
        json_path.to_str().unwrap(),
        "-o",
        svg_path.to_str().unwrap(),
    ]);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("the SVG is well-formed XML");
    let class = |n: &roxmltree::Node, c: &str| n.attribute("class") == Some(c);
    let rows: Vec<_> = doc
        .descendants()
        .filter(|n| class(n, "stream-row"))
        .collect();
    let row_streams: Vec<i64> = rows
        .iter()
        .map(|r| r.attribute("data-stream").unwrap().parse().unwrap())
        .collect();
    let mut expected = vec![p, c];
    expected.sort();
    assert_eq!(row_streams, expected, "one row per stream");
    // In task order: the drawing order puts narrow boxes last, which depends on timing.
    let boxes_in = |stream: i64| {
        let mut boxes: Vec<(u64, String)> = rows
            .iter()
            .find(|r| r.attribute("data-stream") == Some(&stream.to_string()))
            .unwrap()
            .descendants()
            .filter(|n| class(n, "task"))
            .map(|n| {
                let task = n.attribute("data-task").unwrap().parse().unwrap();
                (task, n.attribute("data-kind").unwrap().to_owned())
            })
            .collect();
        boxes.sort();
        boxes.into_iter().map(|(_, kind)| kind).collect::<Vec<_>>()
    };
    assert_eq!(boxes_in(p), ["kernel", "record"]);
    assert_eq!(
        boxes_in(c),
        ["wait", "kernel", "callback", "record", "wait", "host_func"]
    );
    assert_eq!(
        doc.descendants().filter(|n| class(n, "task")).count(),
        KNOWN_TASKS,
        "one box per task"
    );
    assert_eq!(
        doc.descendants().filter(|n| class(n, "dep")).count(),
        KNOWN_EDGES,
        "one arrow per record→wait edge"
    );
    assert!(doc.descendants().any(|n| class(&n, "host-row")));

    let summary = cli(&["trace", "summary", json_path.to_str().unwrap()]);
    assert!(
        summary.contains(&format!("device 0 stream {p}")),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("device 0 stream {c}")),
        "{summary}"
    );
    // The consumer's first wait is the longest, released by the producer's record.
    let waits = summary
        .lines()
        .skip_while(|l| !l.starts_with("longest stream waits"))
        .nth(1)
        .unwrap();
    assert!(
        waits.contains(&format!(
            "device 0 stream {c} task 0 (wait), released by device 0 stream {p} task 1 (record)"
        )),
        "{summary}"
    );
    // The critical path runs produce → record → wait → consume → ... → host function.
    let path: Vec<&str> = summary
        .lines()
        .skip_while(|l| !l.contains("start ms"))
        .skip(1)
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    assert_eq!(path.first(), Some(&"produce"), "{summary}");
    assert!(path.contains(&"consume"), "{summary}");
    assert_eq!(path.last(), Some(&"host_func"), "{summary}");
    assert!(summary.contains("aclrtSynchronizeDevice"), "{summary}");
}

#[test]
fn a_legacy_sync_wait_names_the_record_that_set_its_flag() {
    let _serial = exclusive();
    setup();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let flag = api::create_event_with_flag(aclrt::consts::ACL_EVENT_SYNC).unwrap();
    trace::start();
    // The wait is queued before the record: it follows the flag, not a snapshot.
    api::stream_wait_event(b, flag).unwrap();
    api::launch_kernel(a, "late", Default::default(), sleeper(3)).unwrap();
    api::record_event(flag, a).unwrap();
    api::synchronize_device().unwrap();
    let t = trace::stop();
    let (wait, by) = t
        .records
        .iter()
        .find_map(|r| match r {
            TraceRecord::WaitReleased { task, by, .. } => Some((*task, *by)),
            _ => None,
        })
        .expect("the wait was released");
    assert_eq!(i64::from(wait.stream_id), stream_id(b));
    let by = by.expect("the releasing record is known");
    assert_eq!(i64::from(by.stream_id), stream_id(a));
    assert_eq!(by.task_id, 1, "the record after the kernel");
    let events = parse(&t.to_chrome_json());
    assert_eq!(flows(&events, "dependency").len(), 1);
}

#[test]
fn stream_and_thread_names_label_the_tracks() {
    let _serial = exclusive();
    setup();
    let load = api::create_stream().unwrap();
    let store = api::create_stream().unwrap();
    let late = api::create_stream().unwrap();
    let bogus = StreamHandle::from_raw(0x7777_0000_0001);
    assert_eq!(api::set_stream_name(bogus, "x").unwrap_err().code(), 107017);
    // Named before the trace starts: the trace still knows.
    api::set_stream_name(load, "provisional").unwrap();
    api::set_stream_name(load, "load").unwrap();
    api::set_stream_name(store, "store").unwrap();
    api::set_stream_name(StreamHandle::NULL, "default").unwrap();
    trace::start();
    api::set_stream_name(late, "late").unwrap();
    let (tx, rx) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let reporter = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("reporter".into())
            .spawn(move || {
                tx.send((aclrt::pthread_id(), aclrt::os_thread_id()))
                    .unwrap();
                while !stop.load(Ordering::Acquire) {
                    let _ = api::process_report(20);
                }
            })
            .unwrap()
    };
    let (reporter_id, reporter_tid) = rx.recv().unwrap();
    api::subscribe_report(reporter_id, store).unwrap();
    for s in [load, store, late, StreamHandle::NULL] {
        api::launch_kernel(s, "work", Default::default(), sleeper(1)).unwrap();
    }
    api::launch_callback(Box::new(|| {}), ACL_CALLBACK_BLOCK, store).unwrap();
    api::synchronize_device().unwrap();
    api::unsubscribe_report(reporter_id, store).unwrap();
    stop.store(true, Ordering::Release);
    reporter.join().unwrap();
    let ids = [load, store, late, StreamHandle::NULL].map(stream_id);
    // A named stream destroyed before the trace is written keeps its name there.
    api::destroy_stream(late).unwrap();

    let json_path = scratch("names.json");
    trace::stop_and_write(&json_path).unwrap();
    let json = std::fs::read_to_string(&json_path).unwrap();
    let events = parse(&json);
    let host = host_pid(&json);
    let name_of = |pid: i64, tid: i64| {
        events
            .iter()
            .find(|e| e["ph"] == "M" && e["name"] == "thread_name" && track(e) == (pid, tid))
            .map(|e| e["args"]["name"].as_str().unwrap().to_owned())
    };
    let names = ids.map(|id| name_of(0, id).unwrap());
    assert_eq!(
        names,
        [
            format!("load (stream {})", ids[0]),
            format!("store (stream {})", ids[1]),
            format!("late (stream {})", ids[2]),
            format!("default (stream {})", ids[3]),
        ]
    );
    let reporter_tid = i64::from(reporter_tid);
    assert_eq!(
        name_of(host, reporter_tid),
        Some(format!("reporter ({reporter_tid})"))
    );
    assert!(!json.contains("provisional"), "the last name holds");

    // The picture labels its rows with the same names and keeps the ids beside them.
    let svg_path = scratch("names.svg");
    cli(&[
        "trace",
        "render",
        json_path.to_str().unwrap(),
        "-o",
        svg_path.to_str().unwrap(),
    ]);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let labels: Vec<String> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("row-label"))
        .map(|n| n.text().unwrap().to_owned())
        .collect();
    for (name, id) in ["load", "store", "late", "default"].iter().zip(ids) {
        let want = format!("{name} (device 0, stream {id})");
        assert!(labels.contains(&want), "{want} in {labels:?}");
    }
    assert!(
        labels.contains(&format!("host reporter ({reporter_tid})")),
        "{labels:?}"
    );
    // And so does the summary.
    let summary = cli(&["trace", "summary", json_path.to_str().unwrap()]);
    assert!(
        summary.contains(&format!("load (device 0, stream {})", ids[0])),
        "{summary}"
    );
}
