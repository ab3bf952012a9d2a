//! The checker on racy programs and their correctly synchronised twins: every racy program is
//! reported with both call sites, every twin is silent. Each program covers one ordering rule
//! (stream order, record → wait per event family, host synchronise, callbacks, host functions,
//! ACL's default stream) or one of ACL's traps.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use aclrt::api::{self, KernelAccess};
use aclrt::check::{self, AccessKind, Finding, Kind, Options, Parts};
use aclrt::consts::*;
use aclrt::vendor_consts::{
    ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE,
    ACL_STREAM_WAIT_VALUE_GEQ,
};
use aclrt::{MemRange, StreamHandle};
use common::*;

/// `(value, line)`: the line of the call, as the checker should report it.
macro_rules! at {
    ($e:expr) => {{
        let line = line!();
        ($e, line)
    }};
}

const N: usize = 256;
const D2H: u32 = ACL_MEMCPY_DEVICE_TO_HOST;
const H2D: u32 = ACL_MEMCPY_HOST_TO_DEVICE;

fn start() -> std::sync::MutexGuard<'static, ()> {
    let guard = exclusive();
    setup();
    check::enable_with(Options::quiet(Parts::DEFAULT));
    guard
}

fn stop() -> Vec<Finding> {
    api::synchronize_device().unwrap();
    let findings = check::disable();
    for f in &findings {
        eprint!("{}", f.to_text());
    }
    findings
}

/// One access of a finding, as asserted: kind, op, stream id (None: host), line.
type Seen = (AccessKind, String, Option<u32>, u32);

fn seen(f: &Finding, function: &str) -> Vec<Seen> {
    f.accesses
        .iter()
        .map(|a| {
            assert_eq!(
                a.site.function,
                format!("check_races::{function}"),
                "site of {a:?}"
            );
            assert!(
                a.site
                    .file
                    .as_deref()
                    .is_some_and(|f| f.ends_with("check_races.rs")),
                "{:?}",
                a.site
            );
            (
                a.access,
                a.op.clone(),
                a.stream,
                a.site.line.expect("debug info has lines"),
            )
        })
        .collect()
}

fn id(s: StreamHandle) -> Option<u32> {
    Some(api::stream_get_id(s).unwrap() as u32)
}

fn one(findings: &[Finding], kind: Kind) -> &Finding {
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0].kind, kind);
    &findings[0]
}

fn host(len: usize) -> Vec<u8> {
    vec![0u8; len]
}

#[test]
fn stream_order_orders_and_two_streams_race() {
    let _g = start();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let dev = api::malloc(N, 0).unwrap();
    let mut out = host(N);
    // SAFETY: `dev` is a runtime allocation of N bytes; `out` lives to the end of the test, after the device synchronise.
    unsafe {
        api::memset_async(dev, N, 1, N, a).unwrap();
        api::memcpy_async(
            out.as_mut_ptr() as usize,
            N,
            dev,
            N,
            ACL_MEMCPY_DEVICE_TO_HOST,
            a,
        )
        .unwrap();
    }
    assert!(stop().is_empty(), "one stream is in order");

    check::enable_with(Options::quiet(Parts::DEFAULT));
    // SAFETY: as above.
    let (_, w) = at!(unsafe { api::memset_async(dev, N, 1, N, a) }.unwrap());
    let o = out.as_mut_ptr() as usize;
    let (_, r) = at!(unsafe { api::memcpy_async(o, N, dev, N, D2H, b) }.unwrap());
    let findings = stop();
    let f = one(&findings, Kind::Race);
    assert_eq!(
        seen(f, "stream_order_orders_and_two_streams_race"),
        vec![
            (AccessKind::Write, "aclrtMemsetAsync".into(), id(a), w),
            (AccessKind::Read, "aclrtMemcpyAsync".into(), id(b), r),
        ]
    );
    assert_eq!(f.accesses[0].address, dev);
    assert_eq!(f.accesses[0].size, N);
    assert!(f.fix.contains("aclrtStreamWaitEvent"), "{}", f.fix);
    api::free(dev).unwrap();
}

/// Writer on `a`, then the wait set up by `order`, then a reader on `b`.
fn record_wait(order: impl FnOnce(StreamHandle, StreamHandle)) -> (Vec<Finding>, usize) {
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let dev = api::malloc(N, 0).unwrap();
    // SAFETY: `dev` is a runtime allocation of N bytes.
    unsafe { api::memset_async(dev, N, 1, N, a).unwrap() };
    order(a, b);
    let mut out = host(N);
    // SAFETY: `out` lives past the device synchronise in `stop`.
    unsafe {
        api::memcpy_async(
            out.as_mut_ptr() as usize,
            N,
            dev,
            N,
            ACL_MEMCPY_DEVICE_TO_HOST,
            b,
        )
        .unwrap()
    };
    let findings = stop();
    drop(out);
    (findings, dev)
}

#[test]
fn record_then_wait_orders_for_every_event_family() {
    let _g = start();
    for create in [
        api::create_event as fn() -> aclrt::Result<aclrt::EventHandle>,
        || api::create_event_with_flag(ACL_EVENT_SYNC),
        || api::create_event_ex_with_flag(ACL_EVENT_SYNC),
    ] {
        check::enable_with(Options::quiet(Parts::DEFAULT));
        let ev = create().unwrap();
        let (findings, _) = record_wait(|a, b| {
            api::record_event(ev, a).unwrap();
            api::stream_wait_event(b, ev).unwrap();
        });
        assert!(findings.is_empty(), "{findings:#?}");
        api::destroy_event(ev).unwrap();
    }
}

#[test]
fn ipc_event_and_notify_records_order_waits_on_them_or_their_twins() {
    let _g = start();
    for opened in [false, true] {
        check::enable_with(Options::quiet(Parts::DEFAULT));
        let ev = api::create_event_ex_with_flag(ACL_EVENT_IPC).unwrap();
        let twin = if opened {
            api::ipc_open_event_handle(&api::ipc_get_event_handle(ev).unwrap()).unwrap()
        } else {
            ev
        };
        let (findings, dev) = record_wait(|a, b| {
            api::record_event(ev, a).unwrap();
            api::stream_wait_event(b, twin).unwrap();
        });
        assert!(findings.is_empty(), "opened {opened}: {findings:#?}");
        api::free(dev).unwrap();
        if opened {
            api::destroy_event(twin).unwrap();
        }
        api::destroy_event(ev).unwrap();
    }
    // An IPC notify recorded through its imported twin releases a wait on the exported one.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    let n = api::create_notify(0).unwrap();
    let key = api::notify_get_export_key(n, 65, 2).unwrap();
    let imported = api::notify_import_by_key(&key, 0).unwrap();
    let (findings, dev) = record_wait(|a, b| {
        api::record_notify(imported, a).unwrap();
        api::wait_and_reset_notify(n, b, 0).unwrap();
    });
    assert!(findings.is_empty(), "IPC notify: {findings:#?}");
    api::free(dev).unwrap();
    api::destroy_notify(imported).unwrap();
    api::destroy_notify(n).unwrap();
    // Without the wait, the same program races.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    let ev = api::create_event_ex_with_flag(ACL_EVENT_IPC).unwrap();
    let (findings, dev) = record_wait(|a, _| api::record_event(ev, a).unwrap());
    assert!(!findings.is_empty(), "an unordered copy was not reported");
    api::free(dev).unwrap();
    api::destroy_event(ev).unwrap();
}

#[test]
fn notifies_counting_notifies_and_value_writes_order_like_events() {
    let _g = start();
    let n = api::create_notify(0).unwrap();
    let (findings, dev) = record_wait(|a, b| {
        api::record_notify(n, a).unwrap();
        api::wait_and_reset_notify(n, b, 0).unwrap();
    });
    assert!(findings.is_empty(), "notify: {findings:#?}");
    api::free(dev).unwrap();

    check::enable_with(Options::quiet(Parts::DEFAULT));
    let c = api::cnt_notify_create(0).unwrap();
    let (findings, dev) = record_wait(|a, b| {
        api::cnt_notify_record(c, a, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE as u32, 1).unwrap();
        api::cnt_notify_wait_with_timeout(
            c,
            b,
            ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE as u32,
            1,
            0,
            true,
        )
        .unwrap();
    });
    assert!(findings.is_empty(), "counting notify: {findings:#?}");
    api::free(dev).unwrap();

    check::enable_with(Options::quiet(Parts::DEFAULT));
    let word = api::malloc(8, 0).unwrap();
    // SAFETY: `word` is a runtime allocation of 8 bytes.
    unsafe { api::memset(word, 8, 0, 8).unwrap() };
    let (findings, dev) = record_wait(|a, b| {
        api::value_write(word, 1, 0, a).unwrap();
        api::value_wait(word, 1, ACL_STREAM_WAIT_VALUE_GEQ as u32, b).unwrap();
    });
    assert!(findings.is_empty(), "value write: {findings:#?}");
    api::free(dev).unwrap();

    // The twins: a record nobody waits for orders nothing.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    let (findings, dev) = record_wait(|a, _| api::record_notify(n, a).unwrap());
    let f = one(&findings, Kind::Race);
    assert_eq!(f.accesses.len(), 2, "{f:#?}");
    api::free(dev).unwrap();
    api::destroy_notify(n).unwrap();
    api::cnt_notify_destroy(c).unwrap();
    api::free(word).unwrap();
}

#[test]
fn a_legacy_sync_wait_queued_before_its_record_orders() {
    let _g = start();
    let ev = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let dev = api::malloc(N, 0).unwrap();
    let mut out = host(N);
    // The wait comes first: a legacy SYNC wait waits for the next record.
    api::stream_wait_event(b, ev).unwrap();
    // SAFETY: `dev` is a runtime allocation of N bytes; `out` lives past the synchronise.
    unsafe {
        api::memcpy_async(
            out.as_mut_ptr() as usize,
            N,
            dev,
            N,
            ACL_MEMCPY_DEVICE_TO_HOST,
            b,
        )
        .unwrap();
        api::memset_async(dev, N, 1, N, a).unwrap();
    }
    api::record_event(ev, a).unwrap();
    // The reader is behind the wait, and the record after the writer: ordered.
    let findings = stop();
    // The read ran after the record released it, and the write before the record: silent.
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn a_record_made_before_the_write_it_should_cover_races() {
    let _g = start();
    let ev = api::create_event().unwrap();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let dev = api::malloc(N, 0).unwrap();
    let mut out = host(N);
    api::record_event(ev, a).unwrap();
    // SAFETY: `dev` is a runtime allocation of N bytes.
    let (_, w) = at!(unsafe { api::memset_async(dev, N, 1, N, a) }.unwrap());
    api::stream_wait_event(b, ev).unwrap();
    // SAFETY: `out` lives past the synchronise.
    let o = out.as_mut_ptr() as usize;
    let (_, r) = at!(unsafe { api::memcpy_async(o, N, dev, N, D2H, b) }.unwrap());
    let findings = stop();
    let f = one(&findings, Kind::Race);
    assert_eq!(
        seen(f, "a_record_made_before_the_write_it_should_cover_races"),
        vec![
            (AccessKind::Write, "aclrtMemsetAsync".into(), id(a), w),
            (AccessKind::Read, "aclrtMemcpyAsync".into(), id(b), r),
        ]
    );
    // The fix names the record that came too early.
    let ev_id = api::get_event_id(ev).unwrap();
    assert!(
        f.fix
            .contains(&format!("the last record of event {ev_id} on stream")),
        "{}",
        f.fix
    );
}

#[test]
fn re_recording_an_ex_event_after_a_wait_was_queued_races() {
    let _g = start();
    let ev = api::create_event_ex_with_flag(ACL_EVENT_SYNC).unwrap();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let dev = api::malloc(N, 0).unwrap();
    let mut out = host(N);
    api::record_event(ev, a).unwrap();
    // The wait takes the record current now: the write below is not in it.
    api::stream_wait_event(b, ev).unwrap();
    // SAFETY: `dev` is a runtime allocation of N bytes.
    let (_, w) = at!(unsafe { api::memset_async(dev, N, 1, N, a) }.unwrap());
    api::record_event(ev, a).unwrap();
    // SAFETY: `out` lives past the synchronise.
    let o = out.as_mut_ptr() as usize;
    let (_, r) = at!(unsafe { api::memcpy_async(o, N, dev, N, D2H, b) }.unwrap());
    let findings = stop();
    let f = one(&findings, Kind::Race);
    assert_eq!(
        seen(f, "re_recording_an_ex_event_after_a_wait_was_queued_races"),
        vec![
            (AccessKind::Write, "aclrtMemsetAsync".into(), id(a), w),
            (AccessKind::Read, "aclrtMemcpyAsync".into(), id(b), r),
        ]
    );

    // Twin: wait after the second record.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    api::record_event(ev, a).unwrap();
    // SAFETY: as above.
    unsafe { api::memset_async(dev, N, 1, N, a).unwrap() };
    api::record_event(ev, a).unwrap();
    api::stream_wait_event(b, ev).unwrap();
    // SAFETY: as above.
    unsafe {
        api::memcpy_async(
            out.as_mut_ptr() as usize,
            N,
            dev,
            N,
            ACL_MEMCPY_DEVICE_TO_HOST,
            b,
        )
        .unwrap()
    };
    assert!(stop().is_empty());
}

#[test]
fn a_legacy_sync_record_made_before_the_write_races() {
    let _g = start();
    let ev = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let dev = api::malloc(N, 0).unwrap();
    let mut out = host(N);
    api::record_event(ev, a).unwrap();
    // The flag is set by a record that comes before the write.
    api::synchronize_stream(a).unwrap();
    // SAFETY: `dev` is a runtime allocation of N bytes.
    let (_, w) = at!(unsafe { api::memset_async(dev, N, 1, N, a) }.unwrap());
    api::stream_wait_event(b, ev).unwrap();
    // SAFETY: `out` lives past the synchronise.
    let o = out.as_mut_ptr() as usize;
    let (_, r) = at!(unsafe { api::memcpy_async(o, N, dev, N, D2H, b) }.unwrap());
    let findings = stop();
    let f = one(&findings, Kind::Race);
    assert_eq!(
        seen(f, "a_legacy_sync_record_made_before_the_write_races"),
        vec![
            (AccessKind::Write, "aclrtMemsetAsync".into(), id(a), w),
            (AccessKind::Read, "aclrtMemcpyAsync".into(), id(b), r),
        ]
    );
}

#[test]
fn the_default_stream_does_not_synchronise_with_other_streams() {
    let _g = start();
    let b = api::create_stream().unwrap();
    let dev = api::malloc(N, 0).unwrap();
    let mut out = host(N);
    let null = StreamHandle::NULL;
    // SAFETY: `dev` is a runtime allocation of N bytes.
    let (_, w) = at!(unsafe { api::memset_async(dev, N, 1, N, null) }.unwrap());
    // SAFETY: `out` lives past the synchronise.
    let o = out.as_mut_ptr() as usize;
    let (_, r) = at!(unsafe { api::memcpy_async(o, N, dev, N, D2H, b) }.unwrap());
    let findings = stop();
    let f = one(&findings, Kind::Race);
    let default_id = Some(f.accesses[0].stream.expect("a stream"));
    assert_eq!(
        seen(
            f,
            "the_default_stream_does_not_synchronise_with_other_streams"
        ),
        vec![
            (AccessKind::Write, "aclrtMemsetAsync".into(), default_id, w),
            (AccessKind::Read, "aclrtMemcpyAsync".into(), id(b), r),
        ]
    );

    // Twin: an event orders them.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    let ev = api::create_event().unwrap();
    // SAFETY: as above.
    unsafe { api::memset_async(dev, N, 1, N, null).unwrap() };
    api::record_event(ev, null).unwrap();
    api::stream_wait_event(b, ev).unwrap();
    // SAFETY: as above.
    unsafe {
        api::memcpy_async(
            out.as_mut_ptr() as usize,
            N,
            dev,
            N,
            ACL_MEMCPY_DEVICE_TO_HOST,
            b,
        )
        .unwrap()
    };
    assert!(stop().is_empty());
}

#[test]
fn a_host_copy_races_with_the_stream_until_it_is_synchronised() {
    let _g = start();
    let a = api::create_stream().unwrap();
    let dev = api::malloc(N, 0).unwrap();
    let mut out = host(N);
    // SAFETY: `dev` is a runtime allocation of N bytes.
    let (_, w) = at!(unsafe { api::memset_async(dev, N, 1, N, a) }.unwrap());
    // SAFETY: `out` is a live buffer of N bytes; `dev` a runtime allocation of N.
    let o = out.as_mut_ptr() as usize;
    let (_, r) = at!(unsafe { api::memcpy(o, N, dev, N, D2H) }.unwrap());
    let findings = stop();
    let f = one(&findings, Kind::Race);
    assert_eq!(
        seen(
            f,
            "a_host_copy_races_with_the_stream_until_it_is_synchronised"
        ),
        vec![
            (AccessKind::Write, "aclrtMemsetAsync".into(), id(a), w),
            (AccessKind::Read, "aclrtMemcpy".into(), None, r),
        ]
    );
    assert!(f.fix.contains("aclrtSynchronizeStream"), "{}", f.fix);

    // Twins: each way a host thread learns the work is done.
    type Learn = Box<dyn Fn(StreamHandle)>;
    let ways: Vec<(&str, Learn)> = vec![
        ("stream", Box::new(|s| api::synchronize_stream(s).unwrap())),
        ("device", Box::new(|_| api::synchronize_device().unwrap())),
        (
            "event",
            Box::new(|s| {
                let ev = api::create_event().unwrap();
                api::record_event(ev, s).unwrap();
                api::synchronize_event(ev).unwrap();
                api::destroy_event(ev).unwrap();
            }),
        ),
        (
            "query",
            Box::new(|s| while api::stream_query(s).unwrap() != ACL_STREAM_STATUS_COMPLETE {}),
        ),
        (
            "event query",
            Box::new(|s| {
                let ev = api::create_event().unwrap();
                api::record_event(ev, s).unwrap();
                while api::query_event_status(ev).unwrap() != ACL_EVENT_RECORDED_STATUS_COMPLETE {}
                api::destroy_event(ev).unwrap();
            }),
        ),
    ];
    for (name, learn) in ways {
        check::enable_with(Options::quiet(Parts::DEFAULT));
        // SAFETY: as above.
        unsafe { api::memset_async(dev, N, 1, N, a).unwrap() };
        learn(a);
        // SAFETY: as above.
        unsafe {
            api::memcpy(
                out.as_mut_ptr() as usize,
                N,
                dev,
                N,
                ACL_MEMCPY_DEVICE_TO_HOST,
            )
            .unwrap()
        };
        let findings = stop();
        assert!(findings.is_empty(), "{name}: {findings:#?}");
    }
}

#[test]
fn a_host_buffer_reused_after_an_async_copy_without_a_sync_races() {
    let _g = start();
    let a = api::create_stream().unwrap();
    let dev = api::malloc(N, 0).unwrap();
    let staging = host(N);
    let p = staging.as_ptr() as usize;
    // SAFETY: `staging` lives past the synchronise; `dev` is a runtime allocation of N.
    let (_, r) = at!(unsafe { api::memcpy_async(dev, N, p, N, H2D, a) }.unwrap());
    // The host refills the buffer for the next batch before the copy is known to be done.
    // SAFETY: as above.
    let (_, w) = at!(unsafe { api::memset(p, N, 9, N) }.unwrap());
    let findings = stop();
    let f = one(&findings, Kind::Race);
    assert_eq!(
        seen(
            f,
            "a_host_buffer_reused_after_an_async_copy_without_a_sync_races"
        ),
        vec![
            (AccessKind::Read, "aclrtMemcpyAsync".into(), id(a), r),
            (AccessKind::Write, "aclrtMemset".into(), None, w),
        ]
    );

    check::enable_with(Options::quiet(Parts::DEFAULT));
    // SAFETY: as above.
    unsafe { api::memcpy_async(dev, N, p, N, H2D, a).unwrap() };
    api::synchronize_stream(a).unwrap();
    // SAFETY: as above.
    unsafe { api::memset(p, N, 9, N).unwrap() };
    assert!(stop().is_empty());
    drop(staging);
}

/// A thread that serves callbacks until told to stop.
struct Reporter {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    pthread: u64,
}

impl Reporter {
    fn start() -> Reporter {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let s = stop.clone();
        let thread = std::thread::spawn(move || {
            tx.send(aclrt::pthread_id()).unwrap();
            while !s.load(Ordering::Acquire) {
                let _ = api::process_report(10);
            }
        });
        Reporter {
            stop,
            thread: Some(thread),
            pthread: rx.recv().unwrap(),
        }
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

#[test]
fn callbacks_come_after_earlier_tasks_and_blocking_ones_before_later_tasks() {
    let _g = start();
    let reporter = Reporter::start();
    let a = api::create_stream().unwrap();
    api::subscribe_report(reporter.pthread, a).unwrap();
    let dev = api::malloc(N, 0).unwrap();
    for block in [ACL_CALLBACK_BLOCK, ACL_CALLBACK_NO_BLOCK] {
        check::enable_with(Options::quiet(Parts::DEFAULT));
        // SAFETY: `dev` is a runtime allocation of N bytes.
        unsafe { api::memset_async(dev, N, 1, N, a).unwrap() };
        let ran = Arc::new(AtomicBool::new(false));
        let r = ran.clone();
        let read_line = line!() + 5;
        let body = Box::new(move || {
            let mut out = vec![0u8; N];
            let o = out.as_mut_ptr() as usize;
            // SAFETY: `out` is local; `dev` stays allocated until the end of the test.
            unsafe { api::memcpy(o, N, dev, N, D2H) }.unwrap();
            r.store(true, Ordering::Release);
        });
        api::launch_callback(body, block, a).unwrap();
        // SAFETY: as above.
        let (_, w) = at!(unsafe { api::memset_async(dev, N, 1, N, a) }.unwrap());
        // A NO_BLOCK callback may run after the stream is done: wait until it ran.
        while !ran.load(Ordering::Acquire) {
            std::thread::yield_now();
        }
        let findings = stop();
        if block == ACL_CALLBACK_BLOCK {
            assert!(findings.is_empty(), "{findings:#?}");
        } else {
            let f = one(&findings, Kind::Race);
            let got: Vec<(AccessKind, Option<u32>, Option<u32>)> = f
                .accesses
                .iter()
                .map(|a| (a.access, a.stream, a.site.line))
                .collect();
            assert_eq!(
                got,
                vec![
                    (AccessKind::Write, id(a), Some(w)),
                    (AccessKind::Read, None, Some(read_line)),
                ],
                "{f:#?}"
            );
            assert_eq!(
                f.accesses[1].site.function,
                "check_races::callbacks_come_after_earlier_tasks_and_blocking_ones_before_later_tasks::{{closure}}"
            );
        }
    }
    api::unsubscribe_report(reporter.pthread, a).unwrap();
}

#[test]
fn host_functions_run_in_stream_order_but_not_with_other_streams() {
    let _g = start();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let dev = api::malloc(N, 0).unwrap();
    let read = move || {
        let mut out = vec![0u8; N];
        // SAFETY: `out` is local; `dev` stays allocated until the end of the test.
        unsafe {
            api::memcpy(
                out.as_mut_ptr() as usize,
                N,
                dev,
                N,
                ACL_MEMCPY_DEVICE_TO_HOST,
            )
        }
        .unwrap();
    };
    // SAFETY: `dev` is a runtime allocation of N bytes.
    unsafe { api::memset_async(dev, N, 1, N, a).unwrap() };
    api::launch_host_func(a, Box::new(read)).unwrap();
    assert!(stop().is_empty());

    check::enable_with(Options::quiet(Parts::DEFAULT));
    // SAFETY: as above.
    let (_, w) = at!(unsafe { api::memset_async(dev, N, 1, N, a) }.unwrap());
    let (_, hf) = at!(api::launch_host_func(b, Box::new(read)).unwrap());
    let findings = stop();
    let f = one(&findings, Kind::Race);
    let got: Vec<(AccessKind, Option<u32>, String)> = f
        .accesses
        .iter()
        .map(|a| (a.access, a.stream, a.op.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (AccessKind::Write, id(a), "aclrtMemsetAsync".into()),
            (AccessKind::Read, id(b), "aclrtMemcpy".into()),
        ]
    );
    assert_eq!(f.accesses[0].site.line, Some(w));
    // The host function's copy is reported where the host function body called it.
    assert!(f.accesses[1].site.function.ends_with("{{closure}}"));
    assert!(f.accesses[1].site.line.unwrap() < hf);
}

#[test]
fn host_kernels_race_only_on_declared_overlapping_writes() {
    let _g = start();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let dev = api::malloc(N, 0).unwrap();
    let range = |start: usize, len: usize| vec![MemRange { start, len }];
    let reads = |r| KernelAccess {
        reads: r,
        writes: vec![],
    };
    let writes = |w| KernelAccess {
        reads: vec![],
        writes: w,
    };
    // Reads never race with reads; disjoint writes never race.
    api::launch_kernel(a, "r1", reads(range(dev, N)), kernel(|| {})).unwrap();
    api::launch_kernel(b, "r2", reads(range(dev, N)), kernel(|| {})).unwrap();
    assert!(stop().is_empty());
    check::enable_with(Options::quiet(Parts::DEFAULT));
    api::launch_kernel(a, "w1", writes(range(dev, N / 2)), kernel(|| {})).unwrap();
    api::launch_kernel(b, "w2", writes(range(dev + N / 2, N / 2)), kernel(|| {})).unwrap();
    assert!(stop().is_empty());

    check::enable_with(Options::quiet(Parts::DEFAULT));
    let (wa, ra) = (
        writes(range(dev, N / 2 + 1)),
        reads(range(dev + N / 2, N / 2)),
    );
    let (_, w) = at!(api::launch_kernel(a, "produce", wa, kernel(|| {})).unwrap());
    let (_, r) = at!(api::launch_kernel(b, "consume", ra, kernel(|| {})).unwrap());
    let findings = stop();
    let f = one(&findings, Kind::Race);
    assert_eq!(
        seen(f, "host_kernels_race_only_on_declared_overlapping_writes"),
        vec![
            (AccessKind::Write, "produce".into(), id(a), w),
            (AccessKind::Read, "consume".into(), id(b), r),
        ]
    );
}

#[test]
fn a_thread_started_later_knows_what_the_threads_before_it_did() {
    let _g = start();
    let dev = api::malloc(N, 0).unwrap();
    let src = host(N);
    let p = src.as_ptr() as usize;
    // SAFETY: `src` outlives the copies; `dev` is a runtime allocation of N.
    unsafe { api::memcpy(dev, N, p, N, H2D) }.unwrap();
    // A thread the runtime first sees now submits work reading what the main thread wrote:
    // it was started after the write (threads the runtime has not seen inherit what the
    // threads it knows have done).
    std::thread::spawn(move || {
        api::set_device(0).unwrap();
        let s = api::create_stream().unwrap();
        let mut out = vec![0u8; N];
        // SAFETY: `out` lives until the stream is synchronised below.
        unsafe {
            api::memcpy_async(
                out.as_mut_ptr() as usize,
                N,
                dev,
                N,
                ACL_MEMCPY_DEVICE_TO_HOST,
                s,
            )
            .unwrap()
        };
        api::synchronize_stream(s).unwrap();
        api::destroy_stream(s).unwrap();
    })
    .join()
    .unwrap();
    assert!(stop().is_empty());
    drop(src);
}

#[test]
fn a_joined_thread_hands_what_it_learned_to_the_thread_that_joins_it() {
    let _g = start();
    let dev = api::malloc(N, 0).unwrap();
    // A worker writes the buffer on its stream; `synchronise` says whether it waits for that.
    let worker = |synchronise: bool| {
        std::thread::spawn(move || {
            api::set_device(0).unwrap();
            let s = api::create_stream().unwrap();
            // SAFETY: `dev` is a runtime allocation of N bytes, freed only at the end.
            unsafe { api::memset_async(dev, N, 7, N, s) }.unwrap();
            if synchronise {
                api::synchronize_stream(s).unwrap();
            }
            s
        })
        .join()
        .unwrap()
    };
    let mut out = host(N);
    let o = out.as_mut_ptr() as usize;
    // The main thread is known to the checker before the worker starts (a thread seen first
    // after the worker would inherit what the worker did for that reason alone).
    // SAFETY: `out` is a live buffer of N bytes; `dev` a runtime allocation of N.
    unsafe { api::memcpy(dev, N, o, N, H2D) }.unwrap();

    // Twin: the worker synchronised before it ended; the main thread joined it, then reads.
    let s = worker(true);
    // SAFETY: `out` is a live buffer of N bytes; `dev` a runtime allocation of N.
    unsafe { api::memcpy(o, N, dev, N, D2H) }.unwrap();
    assert_eq!(out, vec![7u8; N]);
    let findings = stop();
    assert!(findings.is_empty(), "{findings:#?}");
    api::destroy_stream(s).unwrap();

    // Racy: the worker ended without waiting for its write; joining it orders only what it
    // did and learned, not its stream's work.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    // SAFETY: as above.
    unsafe { api::memcpy(dev, N, o, N, H2D) }.unwrap();
    let s = worker(false);
    // SAFETY: as above.
    let (_, r) = at!(unsafe { api::memcpy(o, N, dev, N, D2H) }.unwrap());
    let findings = stop();
    let f = one(&findings, Kind::Race);
    assert_eq!(f.accesses.len(), 2, "{f:#?}");
    assert_ne!(f.accesses[0].thread, f.accesses[1].thread);
    assert_eq!(f.accesses[0].access, AccessKind::Write);
    assert_eq!(f.accesses[0].op, "aclrtMemsetAsync");
    assert_eq!(f.accesses[0].stream, id(s));
    assert!(
        f.accesses[0].site.function.contains("{{closure}}"),
        "{f:#?}"
    );
    let read = &f.accesses[1];
    assert_eq!(
        (read.access, read.op.as_str(), read.stream, read.site.line),
        (AccessKind::Read, "aclrtMemcpy", None, Some(r))
    );
    api::destroy_stream(s).unwrap();
    api::free(dev).unwrap();
}

#[test]
fn freeing_memory_a_queued_task_uses_is_reported_and_a_synchronised_free_is_not() {
    let _g = start();
    let a = api::create_stream().unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    api::launch_kernel(a, "gate", KernelAccess::default(), gated(&gate)).unwrap();
    let dev = api::malloc(N, 0).unwrap();
    // SAFETY: freed memory stays mapped (the runtime's segments are never unmapped), so the
    // queued set cannot fault; the checker reports the program's mistake.
    let (_, w) = at!(unsafe { api::memset_async(dev, N, 1, N, a) }.unwrap());
    let (_, fr) = at!(api::free(dev).unwrap());
    gate.store(true, Ordering::Release);
    let findings = stop();
    let f = one(&findings, Kind::FreeWhileInUse);
    assert_eq!(
        seen(
            f,
            "freeing_memory_a_queued_task_uses_is_reported_and_a_synchronised_free_is_not"
        ),
        vec![
            (AccessKind::Write, "aclrtMemsetAsync".into(), id(a), w),
            (AccessKind::Free, "aclrtFree".into(), None, fr),
        ]
    );
    assert!(f.fix.contains("aclrtSynchronizeStream"), "{}", f.fix);

    // Ran, but the host never learned it finished: still in use as far as the program knows.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    let dev = api::malloc(N, 0).unwrap();
    let done = Arc::new(AtomicBool::new(false));
    // SAFETY: as above.
    unsafe { api::memset_async(dev, N, 1, N, a).unwrap() };
    let d = done.clone();
    api::launch_kernel(
        a,
        "done",
        KernelAccess::default(),
        kernel(move || d.store(true, Ordering::Release)),
    )
    .unwrap();
    while !done.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
    api::free(dev).unwrap();
    let findings = stop();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0].kind, Kind::FreeWhileInUse);

    // Twin: synchronised first.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    let dev = api::malloc(N, 0).unwrap();
    // SAFETY: as above.
    unsafe { api::memset_async(dev, N, 1, N, a).unwrap() };
    api::synchronize_stream(a).unwrap();
    api::free(dev).unwrap();
    assert!(stop().is_empty());
}

#[test]
fn a_kernel_that_touches_freed_memory_is_a_use_after_free() {
    let _g = start();
    let a = api::create_stream().unwrap();
    let dev = api::malloc(N, 0).unwrap();
    let (_, fr) = at!(api::free(dev).unwrap());
    let access = KernelAccess {
        reads: vec![MemRange { start: dev, len: N }],
        writes: vec![],
    };
    let (_, k) = at!(api::launch_kernel(a, "late", access, kernel(|| {})).unwrap());
    let findings = stop();
    let f = one(&findings, Kind::UseAfterFree);
    assert_eq!(
        seen(f, "a_kernel_that_touches_freed_memory_is_a_use_after_free"),
        vec![
            (AccessKind::Free, "aclrtFree".into(), None, fr),
            (AccessKind::Read, "late".into(), id(a), k),
        ]
    );
    // Memory allocated again at that address is live.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    let again = api::malloc(N, 0).unwrap();
    let access = KernelAccess {
        reads: vec![MemRange {
            start: again,
            len: N,
        }],
        writes: vec![],
    };
    api::launch_kernel(a, "fresh", access, kernel(|| {})).unwrap();
    assert!(stop().is_empty());
    api::free(again).unwrap();
}

#[test]
fn leaks_name_what_is_still_alive_and_where_it_was_made() {
    let _g = start();
    check::enable_with(Options::quiet(Parts {
        leak: true,
        ..Parts::DEFAULT
    }));
    let (s, ls) = at!(api::create_stream().unwrap());
    let (_, le) = at!(api::create_event().unwrap());
    let (p, lp) = at!(api::malloc(100, 0).unwrap());
    let kept = api::create_stream().unwrap();
    api::destroy_stream(kept).unwrap();
    check::check_leaks();
    let findings = check::disable();
    let got: Vec<(Kind, &str, Option<u32>)> = findings
        .iter()
        .map(|f| (f.kind, f.objects[0].object, f.objects[0].site.line))
        .collect();
    assert_eq!(
        got,
        vec![
            (Kind::Leak, "stream", Some(ls)),
            (Kind::Leak, "event", Some(le)),
            (Kind::Leak, "allocation", Some(lp)),
        ]
    );
    assert_eq!(
        findings[0].objects[0].id,
        api::stream_get_id(s).unwrap() as u64
    );
    assert_eq!(findings[2].objects[0].id, p as u64);
    assert_eq!(findings[2].objects[0].size, Some(100));
}
