//! Lifecycle calls racing each other: two destroys of one object, a destroy against a device
//! reset or aclFinalize, frees at once, and user code calling the runtime while the runtime
//! waits for it. Exactly one destroy wins (the other gets the documented code), nothing is
//! handed back twice, and nothing deadlocks: each scenario runs on a watchdog that turns a
//! hang into a failure.

mod common;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Barrier};
use std::time::Duration;

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::{Config, Runtime, StreamHandle, MAX_STREAMS_PER_DEVICE};

use common::code;

const WATCHDOG: Duration = Duration::from_secs(30);
const ROUNDS: usize = 200;

/// Runs `body` on its own thread; a hang past the watchdog fails the test.
fn on_watchdog<T: Send + 'static>(what: &str, body: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(body());
    });
    rx.recv_timeout(WATCHDOG)
        .unwrap_or_else(|_| panic!("{what}: hung (or failed) past the watchdog"))
}

/// Runs `a` and `b` at the same moment on two threads; returns both results.
fn at_once<A: Send + 'static, B: Send + 'static>(
    a: impl FnOnce() -> A + Send + 'static,
    b: impl FnOnce() -> B + Send + 'static,
) -> (A, B) {
    let start = Arc::new(Barrier::new(2));
    let s = start.clone();
    let other = std::thread::spawn(move || {
        s.wait();
        b()
    });
    start.wait();
    let ra = a();
    (ra, other.join().expect("the other thread failed"))
}

/// Creates streams in the current context until the device refuses; checks the ids are unique
/// among live streams and that the limit is exact, then destroys them again.
fn check_stream_limit(rt: &Runtime, live_before: usize) {
    let mut created = Vec::new();
    let mut ids = HashSet::new();
    ids.insert(rt.stream_get_id(StreamHandle::NULL).unwrap());
    let refused = loop {
        match rt.create_stream() {
            Ok(s) => {
                assert!(
                    ids.insert(rt.stream_get_id(s).unwrap()),
                    "stream id handed out twice"
                );
                created.push(s);
            }
            Err(e) => break e.code(),
        }
        assert!(created.len() <= MAX_STREAMS_PER_DEVICE, "no limit at all");
    };
    assert_eq!(refused, ACL_ERROR_RT_NO_STREAM_RESOURCE);
    assert_eq!(
        created.len() + live_before,
        MAX_STREAMS_PER_DEVICE,
        "the device's stream count drifted"
    );
    for s in created {
        rt.destroy_stream(s).unwrap();
    }
}

fn own_runtime() -> Arc<Runtime> {
    let rt = Runtime::new(&Config::default());
    rt.set_device(0).unwrap();
    rt
}

#[test]
fn two_destroys_of_one_stream_one_wins() {
    on_watchdog("double stream destroy", || {
        let rt = own_runtime();
        let ctx = rt.get_current_context().unwrap();
        for round in 0..ROUNDS {
            let s = rt.create_stream().unwrap();
            rt.launch_kernel(s, "k", Default::default(), Box::new(|| Ok(())))
                .unwrap();
            let (a, b) = (rt.clone(), rt.clone());
            let force = round % 3;
            let (ra, rb) = at_once(
                move || {
                    a.set_current_context(ctx).unwrap();
                    code(if force == 0 {
                        a.destroy_stream_force(s)
                    } else {
                        a.destroy_stream(s)
                    })
                },
                move || {
                    b.set_current_context(ctx).unwrap();
                    code(if force == 1 {
                        b.destroy_stream_force(s)
                    } else {
                        b.destroy_stream(s)
                    })
                },
            );
            let mut codes = [ra, rb];
            codes.sort();
            assert_eq!(codes, [0, ACL_ERROR_RT_INVALID_HANDLE], "round {round}");
        }
        assert_eq!(rt.live_objects().streams, 1);
        check_stream_limit(&rt, 1);
        rt.shut_down();
    });
}

#[test]
fn stream_destroy_racing_device_reset_hands_the_stream_back_once() {
    on_watchdog("destroy vs reset", || {
        let rt = Runtime::new(&Config::default());
        for round in 0..ROUNDS {
            rt.set_device(0).unwrap();
            let ctx = rt.get_current_context().unwrap();
            let s = rt.create_stream().unwrap();
            // Both calls find work to wait for, so both are past their lookups at once.
            rt.launch_kernel(s, "k", Default::default(), common::sleeper(1))
                .unwrap();
            let (a, b) = (rt.clone(), rt.clone());
            let (destroyed, reset) = at_once(
                move || {
                    if let Err(e) = a.set_current_context(ctx) {
                        return e.code();
                    }
                    if round % 2 == 0 {
                        code(a.destroy_stream(s))
                    } else {
                        code(a.destroy_stream_force(s))
                    }
                },
                move || code(b.reset_device(0)),
            );
            assert_eq!(reset, 0, "round {round}");
            // The reset destroyed it first (the handle is dead, or the context is) or the
            // destroy won.
            assert!(
                [0, ACL_ERROR_RT_INVALID_HANDLE, ACL_ERROR_RT_CONTEXT_NULL].contains(&destroyed),
                "round {round}: destroy returned {destroyed}"
            );
            assert_eq!(rt.live_objects().streams, 0, "round {round}");
        }
        rt.set_device(0).unwrap();
        check_stream_limit(&rt, 1);
        rt.shut_down();
    });
}

#[test]
fn two_destroys_of_one_event_or_context_one_wins() {
    on_watchdog("double event and context destroy", || {
        let rt = own_runtime();
        let ctx = rt.get_current_context().unwrap();
        let s = rt.create_stream().unwrap();
        for round in 0..ROUNDS {
            let ev = if round % 2 == 0 {
                rt.create_event_with_flag(ACL_EVENT_SYNC).unwrap()
            } else {
                rt.create_event().unwrap()
            };
            let (a, b) = (rt.clone(), rt.clone());
            // One thread destroys while the other records, then destroys too.
            let (ra, (recorded, rb)) = at_once(
                move || {
                    a.set_current_context(ctx).unwrap();
                    code(a.destroy_event(ev))
                },
                move || {
                    b.set_current_context(ctx).unwrap();
                    let recorded = code(b.record_event(ev, s));
                    (recorded, code(b.destroy_event(ev)))
                },
            );
            assert!([0, ACL_ERROR_RT_INVALID_HANDLE].contains(&recorded));
            let mut codes = [ra, rb];
            codes.sort();
            assert_eq!(codes, [0, ACL_ERROR_RT_INVALID_HANDLE], "round {round}");
        }
        rt.synchronize_stream(s).unwrap();
        assert_eq!(rt.live_objects().events, 0);
        assert_eq!(
            rt.get_event_avail_num().unwrap() as usize,
            aclrt::MAX_SYNC_EVENTS_PER_DEVICE,
            "a SYNC event resource leaked"
        );

        for round in 0..ROUNDS / 4 {
            let made = rt.create_context(0).unwrap();
            let (a, b) = (rt.clone(), rt.clone());
            let (ra, rb) = at_once(
                move || code(a.destroy_context(made)),
                move || code(b.destroy_context(made)),
            );
            let mut codes = [ra, rb];
            codes.sort();
            assert_eq!(codes, [0, ACL_ERROR_RT_CONTEXT_NULL], "round {round}");
        }
        rt.set_current_context(ctx).unwrap();
        assert_eq!(rt.live_objects().contexts, 1);
        check_stream_limit(&rt, 2);
        rt.shut_down();
    });
}

#[test]
fn frees_at_once_one_wins() {
    on_watchdog("double free", || {
        let rt = own_runtime();
        let ctx = rt.get_current_context().unwrap();
        let (free_before, total) = rt.get_mem_info(ACL_HBM_MEM).unwrap();
        for round in 0..ROUNDS {
            let p = rt.malloc(4096, 0).unwrap();
            let (a, b) = (rt.clone(), rt.clone());
            let (ra, rb) = at_once(
                move || {
                    a.set_current_context(ctx).unwrap();
                    code(a.free(p))
                },
                move || {
                    b.set_current_context(ctx).unwrap();
                    code(b.free(p))
                },
            );
            let mut codes = [ra, rb];
            codes.sort();
            assert_eq!(codes, [0, ACL_ERROR_RT_MEMORY_FREE], "round {round}");
        }
        assert_eq!(rt.get_mem_info(ACL_HBM_MEM).unwrap(), (free_before, total));
        assert_eq!(rt.live_objects().allocations, 0);
        rt.shut_down();
    });
}

#[test]
fn set_and_reset_from_many_threads_keep_the_count() {
    on_watchdog("set vs reset", || {
        let rt = Runtime::new(&Config::default());
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let rt = rt.clone();
                std::thread::spawn(move || {
                    for _ in 0..ROUNDS {
                        rt.set_device(0).unwrap();
                        let s = rt.create_stream();
                        if let Ok(s) = s {
                            // Another thread's reset may have destroyed it already.
                            let r = code(rt.destroy_stream(s));
                            assert!(
                                [0, ACL_ERROR_RT_INVALID_HANDLE, ACL_ERROR_RT_CONTEXT_NULL]
                                    .contains(&r),
                                "destroy returned {r}"
                            );
                        }
                        rt.reset_device(0).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("a thread failed");
        }
        assert_eq!(code(rt.reset_device(0)), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
        assert_eq!(rt.live_objects().streams, 0);
        assert_eq!(rt.live_objects().contexts, 0);
        rt.set_device(0).unwrap();
        check_stream_limit(&rt, 1);
        rt.shut_down();
    });
}

/// A kernel that sets the device while `aclrtResetDevice` waits for it: the reset holds no
/// lock while it waits, so the kernel's call goes through.
#[test]
fn a_kernel_may_set_the_device_while_a_reset_waits_for_it() {
    on_watchdog("reset vs a kernel's set device", || {
        let rt = Runtime::new(&Config::default());
        rt.set_device(0).unwrap();
        let s = rt.create_stream().unwrap();
        let inner = rt.clone();
        let (tx, rx) = mpsc::channel();
        rt.launch_kernel(
            s,
            "sets the device",
            Default::default(),
            Box::new(move || {
                // The reset has taken the context away once no context is left.
                while inner.live_objects().contexts != 0 {
                    std::thread::yield_now();
                }
                tx.send(code(inner.set_device(0))).unwrap();
                Ok(())
            }),
        )
        .unwrap();
        rt.reset_device(0).unwrap();
        assert_eq!(rx.recv().unwrap(), 0, "the kernel's aclrtSetDevice failed");
        // The kernel's set made a fresh default context, still counted once.
        assert_eq!(rt.live_objects().contexts, 1);
        rt.reset_device(0).unwrap();
        assert_eq!(rt.live_objects(), api::LiveObjects::default());
    });
}

/// Opens `gate` once aclFinalize has begun (the runtime is no longer installed).
fn open_when_finalizing(gate: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while api::runtime().is_ok() {
            std::thread::yield_now();
        }
        gate.store(true, Ordering::SeqCst);
    })
}

#[test]
fn kernels_calling_finalize_or_init_get_an_error_at_once() {
    let _serial = common::exclusive();
    common::setup();
    let s = api::create_stream().unwrap();
    let (tx, rx) = mpsc::channel();
    let tx2 = tx.clone();
    common::launch(
        s,
        common::kernel(move || {
            tx.send(("finalize", code(api::finalize()))).unwrap();
        }),
    );
    api::synchronize_stream(s).unwrap();
    assert_eq!(rx.recv().unwrap(), ("finalize", ACL_ERROR_RT_PARAM_INVALID));
    // aclInit from a kernel while aclFinalize waits for that kernel.
    let (started_tx, started_rx) = mpsc::channel();
    common::launch(
        s,
        common::kernel(move || {
            started_tx.send(()).unwrap();
            while api::runtime().is_ok() {
                std::thread::yield_now();
            }
            tx2.send(("init", code(api::init()))).unwrap();
        }),
    );
    // The kernel runs before the finalize starts (a queued one would be discarded unrun).
    started_rx.recv().unwrap();
    on_watchdog("finalize waiting for a kernel that calls aclInit", || {
        api::finalize().unwrap()
    });
    assert_eq!(rx.recv().unwrap(), ("init", ACL_ERROR_RT_PARAM_INVALID));
    // The kernel's refused aclInit left nothing installed; a plain one works.
    assert_eq!(code(api::get_device()), ACL_ERROR_UNINITIALIZE);
    api::init().unwrap();
    api::finalize().unwrap();
}

#[test]
fn a_synchronise_whose_work_finalize_discards_reports_it() {
    let _serial = common::exclusive();
    let mut waited = 0;
    for _ in 0..20 {
        common::setup();
        let s = api::create_stream().unwrap();
        let gate = Arc::new(AtomicBool::new(false));
        common::launch(s, common::gated(&gate));
        // The gate opens once finalize has begun, which may be before it discards the queue:
        // then these may all run, and the synchronise rightly succeeds.
        let ran = Arc::new(std::sync::atomic::AtomicU32::new(0));
        for _ in 0..3 {
            let r = ran.clone();
            common::launch(
                s,
                common::kernel(move || {
                    r.fetch_add(1, Ordering::SeqCst);
                }),
            );
        }
        let (ready_tx, ready_rx) = mpsc::channel();
        let syncer = std::thread::spawn(move || {
            api::set_device(0).unwrap();
            ready_tx.send(()).unwrap();
            code(api::synchronize_stream(s))
        });
        ready_rx.recv().unwrap();
        let opener = open_when_finalizing(gate);
        on_watchdog("finalize", || api::finalize().unwrap());
        opener.join().unwrap();
        let got = syncer.join().unwrap();
        // Started after the runtime went away: uninitialised. Otherwise never success when
        // finalize discarded any of the queued work.
        let all_ran = ran.load(Ordering::SeqCst) == 3;
        if got != ACL_ERROR_UNINITIALIZE && !(all_ran && got == 0) {
            assert_eq!(
                got, ACL_ERROR_RT_STREAM_ABORT,
                "the discard was not reported"
            );
            waited += 1;
        }
    }
    assert!(waited > 0, "no synchronise was under way during a finalize");
}

#[test]
fn finalize_waits_for_a_kernel_a_concurrent_force_destroy_waits_for() {
    let _serial = common::exclusive();
    common::setup();
    let s = api::create_stream().unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    let (running_tx, running_rx) = mpsc::channel();
    let done = Arc::new(AtomicBool::new(false));
    let (g, d) = (gate.clone(), done.clone());
    common::launch(
        s,
        common::kernel(move || {
            running_tx.send(()).unwrap();
            while !g.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            // Long enough that a finalize that does not wait returns first.
            std::thread::sleep(Duration::from_millis(50));
            d.store(true, Ordering::SeqCst);
        }),
    );
    running_rx.recv().unwrap();
    let destroyer = std::thread::spawn(move || {
        api::set_device(0).unwrap();
        code(api::destroy_stream_force(s))
    });
    // The forced destroy has claimed the stream once its handle is gone.
    while api::live_objects().streams == 2 {
        std::thread::yield_now();
    }
    let opener = open_when_finalizing(gate);
    let kernel_done = on_watchdog("finalize", move || {
        api::finalize().unwrap();
        done.load(Ordering::SeqCst)
    });
    assert!(kernel_done, "aclFinalize returned while a kernel still ran");
    opener.join().unwrap();
    assert_eq!(destroyer.join().unwrap(), 0);
}

/// What one creating thread made before and during a shut-down.
#[derive(Default)]
struct Made {
    streams: Vec<StreamHandle>,
    events: Vec<aclrt::EventHandle>,
    device_memory: Vec<usize>,
    host_memory: Vec<usize>,
    contexts: usize,
    refused: usize,
}

#[test]
fn creates_racing_a_shut_down_fail_or_are_torn_down() {
    const CREATORS: usize = 3;
    const PER_CREATOR: usize = 150;
    on_watchdog("creates vs shut down", || {
        let (mut made_before, mut refused) = (0, 0);
        for round in 0..20 {
            let rt = own_runtime();
            let ctx = rt.get_current_context().unwrap();
            let start = Arc::new(Barrier::new(CREATORS + 1));
            let creators: Vec<_> = (0..CREATORS)
                .map(|i| {
                    let (rt, start) = (rt.clone(), start.clone());
                    std::thread::spawn(move || {
                        rt.set_current_context(ctx).unwrap();
                        let mut made = Made::default();
                        start.wait();
                        for n in 0..PER_CREATOR {
                            let r = match (n + i) % 6 {
                                0 => rt.create_stream().map(|s| made.streams.push(s)),
                                1 => rt.create_event().map(|e| made.events.push(e)),
                                2 => rt
                                    .create_event_with_flag(ACL_EVENT_SYNC)
                                    .map(|e| made.events.push(e)),
                                3 => rt.malloc(4096, 0).map(|p| made.device_memory.push(p)),
                                4 => rt.malloc_host(4096).map(|p| made.host_memory.push(p)),
                                // A new current context: later streams go there.
                                _ => rt.create_context(0).map(|_| made.contexts += 1),
                            };
                            if let Err(e) = r {
                                assert_eq!(e.code(), ACL_ERROR_UNINITIALIZE, "round {round}: {e}");
                                made.refused += 1;
                            }
                        }
                        made
                    })
                })
                .collect();
            start.wait();
            rt.shut_down();
            let made: Vec<Made> = creators.into_iter().map(|c| c.join().unwrap()).collect();
            // Whatever was made is gone with the runtime; nothing was made into it after.
            assert_eq!(
                rt.live_objects(),
                aclrt::api::LiveObjects::default(),
                "round {round}"
            );
            for m in &made {
                refused += m.refused;
                made_before += m.streams.len() + m.events.len() + m.contexts;
                made_before += m.device_memory.len() + m.host_memory.len();
                for s in &m.streams {
                    assert_eq!(code(rt.stream_get_id(*s)), ACL_ERROR_RT_INVALID_HANDLE);
                }
                for e in &m.events {
                    assert_eq!(code(rt.get_event_id(*e)), ACL_ERROR_RT_INVALID_HANDLE);
                }
                for p in &m.device_memory {
                    assert_eq!(code(rt.free(*p)), ACL_ERROR_RT_MEMORY_FREE);
                }
                for p in &m.host_memory {
                    assert_eq!(code(rt.free_host(*p)), ACL_ERROR_RT_MEMORY_FREE);
                }
            }
            // Every create after the shut-down is refused.
            assert_eq!(code(rt.create_stream()), ACL_ERROR_UNINITIALIZE);
            assert_eq!(code(rt.create_event()), ACL_ERROR_UNINITIALIZE);
            assert_eq!(code(rt.malloc(64, 0)), ACL_ERROR_UNINITIALIZE);
            assert_eq!(code(rt.malloc_host(64)), ACL_ERROR_UNINITIALIZE);
            assert_eq!(code(rt.create_context(0)), ACL_ERROR_UNINITIALIZE);
            assert_eq!(code(rt.set_device(0)), ACL_ERROR_UNINITIALIZE);
            assert_eq!(code(rt.create_notify(0)), ACL_ERROR_UNINITIALIZE);
            assert_eq!(rt.live_objects(), aclrt::api::LiveObjects::default());
        }
        // Both outcomes happened (the creates overlap the shut-down, not just precede it).
        eprintln!("creates vs shut down: {made_before} made, {refused} refused");
        assert!(made_before > 0 && refused > 0);
    });
}
