//! A subscribed report thread that exits without `aclrtUnSubscribeReport`: its subscription
//! ends, blocking callbacks it never ran fail with `107015` and a message instead of holding
//! their stream forever, and a new thread that happens to get the same `pthread_t` value is not
//! taken for the old one. Runs on its own runtime instance.

use std::sync::{mpsc, Arc};
use std::time::Duration;

use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::{Config, Runtime};

fn code<T>(r: aclrt::Result<T>) -> i32 {
    r.err().map_or(0, |e| e.code())
}

/// Runs `body` on its own thread; a hang past the watchdog fails the test.
fn on_watchdog<T: Send + 'static>(what: &str, body: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(body());
    });
    rx.recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("{what}: hung (or failed) past the watchdog"))
}

#[test]
fn a_report_thread_that_exits_ends_its_subscription() {
    on_watchdog("report thread exit", || {
        let rt = Runtime::new(&Config::default());
        rt.set_device(0).unwrap();
        let s = rt.create_stream().unwrap();
        let (tid_tx, tid_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (served_tx, served_rx) = mpsc::channel::<()>();
        let (leave_tx, leave_rx) = mpsc::channel::<()>();
        let inner = rt.clone();
        let reporter = std::thread::spawn(move || {
            tid_tx.send(aclrt::pthread_id()).unwrap();
            go_rx.recv().unwrap();
            // Serves once (nothing is due yet), then leaves without unsubscribing.
            assert_eq!(code(inner.process_report(5)), ACL_ERROR_RT_REPORT_TIMEOUT);
            served_tx.send(()).unwrap();
            leave_rx.recv().unwrap();
        });
        let tid = tid_rx.recv().unwrap();
        rt.subscribe_report(tid, s).unwrap();
        go_tx.send(()).unwrap();
        served_rx.recv().unwrap();
        // Launched while the thread is alive: it becomes due before or after the exit; either
        // way nobody will run it.
        rt.launch_callback(Box::new(|| {}), ACL_CALLBACK_BLOCK, s)
            .unwrap();
        leave_tx.send(()).unwrap();
        reporter.join().unwrap();
        let err = rt.synchronize_stream(s).unwrap_err();
        assert_eq!(err.code(), ACL_ERROR_RT_STREAM_NO_CB_REG, "{err}");
        assert!(err.message().contains("exited"), "{err}");
        assert_eq!(rt.live_objects().callback_threads, 0);
        // The stream goes on, and says why callbacks are refused now.
        let refused = rt
            .launch_callback(Box::new(|| {}), ACL_CALLBACK_NO_BLOCK, s)
            .unwrap_err();
        assert_eq!(refused.code(), ACL_ERROR_RT_STREAM_NO_CB_REG);
        assert!(refused.message().contains("exited"), "{refused}");
        rt.synchronize_stream(s).unwrap();

        // A new thread, possibly with the same pthread_t value, is not subscribed.
        let inner = rt.clone();
        let (same_id, served) =
            std::thread::spawn(move || (aclrt::pthread_id() == tid, code(inner.process_report(5))))
                .join()
                .unwrap();
        assert_eq!(
            served, ACL_ERROR_RT_THREAD_SUBSCRIBE,
            "a new thread (same id: {same_id}) took over the old subscription"
        );
        // Cleaning up after the thread, as programs do after joining it, still works, and
        // the stream can be subscribed again.
        rt.unsubscribe_report(tid, s).unwrap();
        assert_eq!(
            code(rt.unsubscribe_report(tid, s)),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        rt.subscribe_report(aclrt::pthread_id(), s).unwrap();
        let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let r = ran.clone();
        rt.launch_callback(
            Box::new(move || r.store(true, std::sync::atomic::Ordering::SeqCst)),
            ACL_CALLBACK_NO_BLOCK,
            s,
        )
        .unwrap();
        rt.process_report(5_000).unwrap();
        assert!(ran.load(std::sync::atomic::Ordering::SeqCst));
        rt.destroy_stream(s).unwrap();
        rt.shut_down();
    });
}

#[test]
fn a_thread_that_subscribed_itself_and_exits_without_processing_ends_its_subscription() {
    on_watchdog("self-subscribed thread exit", || {
        let rt = Runtime::new(&Config::default());
        rt.set_device(0).unwrap();
        let s = rt.create_stream().unwrap();
        let ctx = rt.get_current_context().unwrap();
        let (subscribed_tx, subscribed_rx) = mpsc::channel();
        let (leave_tx, leave_rx) = mpsc::channel::<()>();
        let inner = rt.clone();
        let reporter = std::thread::spawn(move || {
            // Subscribes itself, never calls aclrtProcessReport, leaves without unsubscribing.
            inner.set_current_context(ctx).unwrap();
            inner.subscribe_report(aclrt::pthread_id(), s).unwrap();
            subscribed_tx.send(aclrt::pthread_id()).unwrap();
            leave_rx.recv().unwrap();
        });
        let tid = subscribed_rx.recv().unwrap();
        assert_eq!(rt.live_objects().callback_threads, 1);
        // Launched while the thread is alive; nobody will run it.
        rt.launch_callback(Box::new(|| {}), ACL_CALLBACK_BLOCK, s)
            .unwrap();
        leave_tx.send(()).unwrap();
        reporter.join().unwrap();
        let err = rt.synchronize_stream_with_timeout(s, 10_000).unwrap_err();
        assert_eq!(err.code(), ACL_ERROR_RT_STREAM_NO_CB_REG, "{err}");
        assert!(err.message().contains("exited"), "{err}");
        assert_eq!(rt.live_objects().callback_threads, 0);
        let refused = rt
            .launch_callback(Box::new(|| {}), ACL_CALLBACK_BLOCK, s)
            .unwrap_err();
        assert_eq!(refused.code(), ACL_ERROR_RT_STREAM_NO_CB_REG);
        assert!(refused.message().contains("exited"), "{refused}");
        rt.synchronize_stream(s).unwrap();
        // The program's clean-up after joining still works; the stream may be served again.
        rt.unsubscribe_report(tid, s).unwrap();
        rt.subscribe_report(aclrt::pthread_id(), s).unwrap();
        rt.launch_callback(Box::new(|| {}), ACL_CALLBACK_BLOCK, s)
            .unwrap();
        rt.process_report(5_000).unwrap();
        rt.synchronize_stream(s).unwrap();
        rt.unsubscribe_report(aclrt::pthread_id(), s).unwrap();
        rt.destroy_stream(s).unwrap();
        rt.shut_down();
    });
}

#[test]
fn a_report_thread_waiting_forever_wakes_when_the_runtime_shuts_down() {
    on_watchdog("report wait across shut down", || {
        let rt = Runtime::new(&Config::default());
        rt.set_device(0).unwrap();
        let s = rt.create_stream().unwrap();
        rt.subscribe_report(aclrt::pthread_id(), s).unwrap();
        let other = rt.clone();
        let shutter = std::thread::spawn(move || {
            // Shuts down once this thread is subscribed and (soon) waiting.
            other.shut_down();
        });
        let r = rt.process_report(-1);
        shutter.join().unwrap();
        assert_eq!(code(r), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    });
}
