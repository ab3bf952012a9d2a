//! IPC events and IPC notifies across processes.
//!
//! The test spawns its partner processes by running this binary again (the `agent` test, with
//! `ACLRT_TEST_IPC_AGENT` set). An agent obeys one-line commands on its stdin and answers on
//! stdout with lines starting with `@`, so the test sequences the processes through pipes and
//! never through sleeps. Ordering is checked through a file of the test's own: a producer's
//! stream writes it from a kernel held at a gate until the test opens the gate, then records;
//! a consumer's stream waits and then reads the file from a kernel. A consumer that read before
//! the record would read nothing. The same rounds run on IPC memory (`aclrtIpcMemGetExportKey`
//! in one process, `aclrtIpcMemImportByKey` in the other), checked byte for byte both ways.

mod common;

use std::io::{BufRead, Write};
use std::os::unix::fs::FileExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::vendor_consts as vc;
use aclrt::{EventHandle, NotifyHandle};
use common::*;

const AGENT: &str = "ACLRT_TEST_IPC_AGENT";
const PAYLOAD: &str = "written-before-the-record";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `len` bytes that differ with `seed` and along the buffer (no zeros at page boundaries).
fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ ((i >> 8) as u8))
        .collect()
}

fn unhex(text: &str) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

// ---- the agent (a partner process)

/// What an agent shares: an IPC event or an IPC notify.
enum Shared {
    None,
    Event(EventHandle),
    Notify(NotifyHandle),
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "@{line}").unwrap();
    out.flush().unwrap();
}

/// Runs the agent's command loop when this process is one.
#[test]
fn agent() {
    if std::env::var_os(AGENT).is_none() {
        return;
    }
    api::init().unwrap();
    api::set_device(0).unwrap();
    let stream = api::create_stream().unwrap();
    let mut shared = Shared::None;
    let mut gate: Option<mpsc::Sender<()>> = None;
    let read = Arc::new(Mutex::new(None::<String>));
    // IPC memory: its address here, its size, its key.
    let mut mem: Option<(usize, usize, String)> = None;
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let mut words = line.split_whitespace();
        let cmd = words.next().unwrap_or("");
        let arg = words.next().unwrap_or("");
        match cmd {
            // Events.
            "make-event" => {
                let ev = api::create_event_ex_with_flag(ACL_EVENT_IPC).unwrap();
                shared = Shared::Event(ev);
                say(&format!(
                    "handle {}",
                    hex(&api::ipc_get_event_handle(ev).unwrap())
                ));
            }
            "open-event" => match api::ipc_open_event_handle(&unhex(arg)) {
                Ok(ev) => {
                    shared = Shared::Event(ev);
                    say("opened 0");
                }
                Err(e) => say(&format!("opened {}", e.code())),
            },
            // Notifies.
            "make-notify" => {
                let n = api::create_notify(vc::ACL_NOTIFY_DEFAULT as u64).unwrap();
                let flags = arg.parse::<u64>().unwrap();
                let key = api::notify_get_export_key(n, 65, flags).unwrap();
                shared = Shared::Notify(n);
                say(&format!("key {key}"));
            }
            "allow" => {
                let Shared::Notify(n) = shared else {
                    panic!("no notify")
                };
                api::notify_set_import_pid(n, &[arg.parse().unwrap()]).unwrap();
                say("allowed");
            }
            "import" => match api::notify_import_by_key(arg, 0) {
                Ok(n) => {
                    shared = Shared::Notify(n);
                    say("imported 0");
                }
                Err(e) => say(&format!("imported {}", e.code())),
            },
            // IPC memory: an allocation exported to anyone, or another process's import.
            "mem-export" => {
                let size: usize = arg.parse().unwrap();
                let ptr = api::malloc(size, 0).unwrap();
                let key = api::ipc_mem_get_export_key(ptr, size, 65, 1).unwrap();
                mem = Some((ptr, size, key.clone()));
                say(&format!("key {key}"));
            }
            "mem-import" => {
                let size: usize = words.next().unwrap().parse().unwrap();
                match api::ipc_mem_import_by_key(arg, 0) {
                    Ok(ptr) => {
                        mem = Some((ptr, size, arg.to_owned()));
                        say("imported 0");
                    }
                    Err(e) => say(&format!("imported {}", e.code())),
                }
            }
            // A kernel held at a gate writes the pattern of seed `arg` into the memory, then
            // the event is recorded.
            "produce-mem" => {
                let seed: u8 = arg.parse().unwrap();
                let (ptr, size, _) = mem.clone().unwrap();
                let (tx, rx) = mpsc::channel::<()>();
                gate = Some(tx);
                api::launch_kernel(
                    stream,
                    "produce-mem",
                    Default::default(),
                    Box::new(move || {
                        rx.recv().unwrap();
                        let bytes = pattern(seed, size);
                        // SAFETY: `ptr` is `size` bytes of device memory of this process (its
                        // allocation or its import), live while the agent runs.
                        unsafe {
                            std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr as *mut u8, size)
                        };
                        Ok(())
                    }),
                )
                .unwrap();
                let Shared::Event(ev) = shared else {
                    panic!("no event")
                };
                say(&format!("recorded {}", code(api::record_event(ev, stream))));
            }
            // A wait on the event, then a kernel that reads the memory (as hex).
            "consume-mem" => {
                let (ptr, size, _) = mem.clone().unwrap();
                let Shared::Event(ev) = shared else {
                    panic!("no event")
                };
                let r = api::stream_wait_event(stream, ev);
                let slot = read.clone();
                api::launch_kernel(
                    stream,
                    "consume-mem",
                    Default::default(),
                    Box::new(move || {
                        // SAFETY: as in produce-mem.
                        let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, size) };
                        *slot.lock().unwrap() = Some(hex(bytes));
                        Ok(())
                    }),
                )
                .unwrap();
                say(&format!("waiting {}", code(r)));
            }
            "pid" => say(&format!("pid {}", std::process::id())),
            "cpu" => {
                // utime + stime (fields 14 and 15 of /proc/self/stat), in clock ticks.
                let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
                let after = &stat[stat.rfind(')').unwrap() + 2..];
                let f: Vec<u64> = after
                    .split_whitespace()
                    .skip(11)
                    .take(2)
                    .map(|v| v.parse().unwrap())
                    .collect();
                say(&format!("cpu {}", f[0] + f[1]));
            }
            // Producing: a kernel held at a gate writes the file, then the record.
            "produce" => {
                let path = arg.to_owned();
                let (tx, rx) = mpsc::channel::<()>();
                gate = Some(tx);
                api::launch_kernel(
                    stream,
                    "produce",
                    Default::default(),
                    Box::new(move || {
                        rx.recv().unwrap();
                        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                        file.write_all_at(PAYLOAD.as_bytes(), 0).unwrap();
                        file.sync_all().unwrap();
                        Ok(())
                    }),
                )
                .unwrap();
                let r = match shared {
                    Shared::Event(ev) => api::record_event(ev, stream),
                    Shared::Notify(n) => api::record_notify(n, stream),
                    Shared::None => panic!("nothing shared"),
                };
                say(&format!("recorded {}", code(r)));
            }
            "go" => {
                gate.take().unwrap().send(()).unwrap();
                say("released");
            }
            // Consuming: a wait, then a kernel that reads the file.
            "consume" => {
                let path = arg.to_owned();
                let r = match shared {
                    Shared::Event(ev) => api::stream_wait_event(stream, ev),
                    Shared::Notify(n) => api::wait_and_reset_notify(n, stream, 0),
                    Shared::None => panic!("nothing shared"),
                };
                let slot = read.clone();
                api::launch_kernel(
                    stream,
                    "consume",
                    Default::default(),
                    Box::new(move || {
                        let text = std::fs::read_to_string(&path).unwrap();
                        *slot.lock().unwrap() = Some(text);
                        Ok(())
                    }),
                )
                .unwrap();
                say(&format!("waiting {}", code(r)));
            }
            "status" => {
                let Shared::Event(ev) = shared else {
                    panic!("no event")
                };
                say(&format!("status {}", api::query_event_status(ev).unwrap()));
            }
            "peek" => say(&format!("ran {}", read.lock().unwrap().is_some())),
            "finish" => {
                let r = api::synchronize_stream(stream);
                let text = read.lock().unwrap().take().unwrap_or_default();
                say(&format!("finished {} {text}", code(r)));
            }
            "host-sync" => {
                let Shared::Event(ev) = shared else {
                    panic!("no event")
                };
                say(&format!("synced {}", code(api::synchronize_event(ev))));
            }
            "exit-now" => std::process::exit(3),
            "exit" => {
                let r = match shared {
                    Shared::Event(ev) => api::destroy_event(ev),
                    Shared::Notify(n) => api::destroy_notify(n),
                    Shared::None => Ok(()),
                };
                let _ = api::destroy_stream(stream);
                say(&format!("bye {}", code(r)));
                std::process::exit(0);
            }
            other => panic!("unknown command {other:?}"),
        }
    }
}

// ---- the test's side

/// A partner process and the pipes to it.
struct Agent {
    child: Child,
    to: ChildStdin,
    from: mpsc::Receiver<String>,
}

impl Agent {
    fn spawn() -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "agent", "--nocapture", "--test-threads=1"])
            .env(AGENT, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let to = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, from) = mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if let Some((_, rest)) = line.split_once('@') {
                    if tx.send(rest.to_owned()).is_err() {
                        break;
                    }
                }
            }
        });
        Self { child, to, from }
    }

    /// Sends a command and returns the answer's words after its first.
    fn ask(&mut self, command: &str) -> String {
        writeln!(self.to, "{command}").unwrap();
        self.to.flush().unwrap();
        let answer = self
            .from
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no answer to {command:?}"));
        answer
            .split_once(' ')
            .map(|(_, r)| r.to_owned())
            .unwrap_or_default()
    }

    fn exit(mut self) {
        assert_eq!(self.ask("exit"), "0");
        assert!(self.child.wait().unwrap().success());
    }
}

/// A fresh, empty file for one test's payload.
fn payload_file(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("aclrt-ipc-{name}-{}", std::process::id()));
    std::fs::write(&path, b"").unwrap();
    path
}

/// The finish answer: code and what the consumer read.
fn finished(answer: &str) -> (i32, String) {
    let (c, text) = answer.split_once(' ').unwrap_or((answer, ""));
    (c.parse().unwrap(), text.to_owned())
}

/// Runs one producer → consumers round on a shared object: the producer's record releases
/// each consumer's wait only after the producer's stream wrote the file.
fn round(producer: &mut Agent, consumers: &mut [&mut Agent], name: &str, is_event: bool) {
    let path = payload_file(name);
    let p = path.display().to_string();
    assert_eq!(producer.ask(&format!("produce {p}")), "0");
    for c in consumers.iter_mut() {
        assert_eq!(c.ask(&format!("consume {p}")), "0");
        if is_event {
            assert_eq!(
                c.ask("status"),
                ACL_EVENT_RECORDED_STATUS_NOT_READY.to_string()
            );
        }
        // Held behind the wait: the read has not run.
        assert_eq!(c.ask("peek"), "false");
    }
    assert_eq!(producer.ask("go"), "");
    for c in consumers.iter_mut() {
        assert_eq!(finished(&c.ask("finish")), (0, PAYLOAD.to_owned()));
        if is_event {
            assert_eq!(
                c.ask("status"),
                ACL_EVENT_RECORDED_STATUS_COMPLETE.to_string()
            );
        }
    }
    assert_eq!(finished(&producer.ask("finish")).0, 0);
    std::fs::remove_file(&path).ok();
}

#[test]
fn an_ipc_event_recorded_by_its_owner_orders_another_process_and_back() {
    let mut owner = Agent::spawn();
    let mut other = Agent::spawn();
    let handle = owner.ask("make-event");
    assert_eq!(other.ask(&format!("open-event {handle}")), "0");
    // The owner records, the opener waits.
    round(&mut owner, &mut [&mut other], "owner-to-opener", true);
    // The opener records, the owner waits.
    round(&mut other, &mut [&mut owner], "opener-to-owner", true);
    other.exit();
    owner.exit();
}

/// A process whose stream waits for another process's record sleeps: over half a second of
/// waiting (a measuring window, not an ordering) it uses next to no processor time.
#[test]
fn a_process_waiting_on_an_ipc_event_sleeps() {
    let mut owner = Agent::spawn();
    let mut waiter = Agent::spawn();
    let handle = owner.ask("make-event");
    assert_eq!(waiter.ask(&format!("open-event {handle}")), "0");
    let path = payload_file("sleeps");
    let p = path.display().to_string();
    assert_eq!(owner.ask(&format!("produce {p}")), "0");
    assert_eq!(waiter.ask(&format!("consume {p}")), "0");
    let before: u64 = waiter.ask("cpu").parse().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let after: u64 = waiter.ask("cpu").parse().unwrap();
    assert_eq!(waiter.ask("peek"), "false");
    // A spinning waiter would use about 50 ticks (of 10 ms) here.
    assert!(
        after - before <= 10,
        "the waiter used {} ticks",
        after - before
    );
    assert_eq!(owner.ask("go"), "");
    assert_eq!(finished(&waiter.ask("finish")), (0, PAYLOAD.to_owned()));
    waiter.exit();
    owner.exit();
    std::fs::remove_file(&path).ok();
}

#[test]
fn three_processes_share_an_ipc_event_in_turn() {
    let mut a = Agent::spawn();
    let mut b = Agent::spawn();
    let mut c = Agent::spawn();
    let handle = a.ask("make-event");
    assert_eq!(b.ask(&format!("open-event {handle}")), "0");
    assert_eq!(c.ask(&format!("open-event {handle}")), "0");
    round(&mut a, &mut [&mut b, &mut c], "three-a", true);
    round(&mut b, &mut [&mut a, &mut c], "three-b", true);
    round(&mut c, &mut [&mut a, &mut b], "three-c", true);
    // The owner leaves first: the others go on with the event.
    a.exit();
    round(&mut b, &mut [&mut c], "three-after-owner", true);
    c.exit();
    b.exit();
}

#[test]
fn a_notify_shared_by_key_orders_both_ways() {
    let mut owner = Agent::spawn();
    let mut other = Agent::spawn();
    let key = owner.ask(&format!(
        "make-notify {}",
        vc::ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION
    ));
    assert!(key.len() < 65, "{key}");
    assert_eq!(other.ask(&format!("import {key}")), "0");
    round(&mut other, &mut [&mut owner], "notify-to-owner", false);
    round(&mut owner, &mut [&mut other], "notify-to-importer", false);
    other.exit();
    owner.exit();
}

#[test]
fn a_notify_exported_with_pid_validation_admits_only_listed_processes() {
    let mut owner = Agent::spawn();
    let mut listed = Agent::spawn();
    let mut stranger = Agent::spawn();
    let key = owner.ask(&format!(
        "make-notify {}",
        vc::ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT
    ));
    assert_eq!(
        listed.ask(&format!("import {key}")),
        ACL_ERROR_RT_IPC_ERROR.to_string(),
        "nobody is listed yet"
    );
    let pid = listed.ask("pid");
    assert_eq!(owner.ask(&format!("allow {pid}")), "");
    assert_eq!(listed.ask(&format!("import {key}")), "0");
    assert_eq!(
        stranger.ask(&format!("import {key}")),
        ACL_ERROR_RT_IPC_ERROR.to_string()
    );
    round(&mut listed, &mut [&mut owner], "notify-listed", false);
    stranger.exit();
    listed.exit();
    owner.exit();
}

/// The process that recorded is killed, or exits, while another waits for its record: the
/// waiter's stream fails with `ACL_ERROR_RT_IPC_ERROR` (and so does a host synchronise), it
/// does not hang.
fn owner_leaves_mid_wait(kill: bool, is_event: bool) {
    let mut owner = Agent::spawn();
    let mut waiter = Agent::spawn();
    if is_event {
        let handle = owner.ask("make-event");
        assert_eq!(waiter.ask(&format!("open-event {handle}")), "0");
    } else {
        let key = owner.ask(&format!(
            "make-notify {}",
            vc::ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION
        ));
        assert_eq!(waiter.ask(&format!("import {key}")), "0");
    }
    let path = payload_file(&format!("leave-{kill}-{is_event}"));
    let p = path.display().to_string();
    if is_event {
        // A record pending behind the gate, which never opens.
        assert_eq!(owner.ask(&format!("produce {p}")), "0");
    }
    assert_eq!(waiter.ask(&format!("consume {p}")), "0");
    assert_eq!(waiter.ask("peek"), "false");
    if kill {
        owner.child.kill().unwrap();
    } else {
        writeln!(owner.to, "exit-now").unwrap();
        owner.to.flush().unwrap();
    }
    owner.child.wait().unwrap();
    if is_event {
        assert_eq!(waiter.ask("host-sync"), ACL_ERROR_RT_IPC_ERROR.to_string());
    }
    let (c, text) = finished(&waiter.ask("finish"));
    assert_eq!(c, ACL_ERROR_RT_IPC_ERROR);
    assert_ne!(text, PAYLOAD, "nothing was produced");
    waiter.exit();
    std::fs::remove_file(&path).ok();
}

#[test]
fn an_ipc_event_owner_killed_mid_wait_fails_the_waiter() {
    owner_leaves_mid_wait(true, true);
}

#[test]
fn an_ipc_event_owner_exiting_mid_wait_fails_the_waiter() {
    owner_leaves_mid_wait(false, true);
}

#[test]
fn an_ipc_notify_owner_killed_mid_wait_fails_the_waiter() {
    owner_leaves_mid_wait(true, false);
}

#[test]
fn an_ipc_event_of_a_gone_process_cannot_be_opened() {
    let mut owner = Agent::spawn();
    let handle = owner.ask("make-event");
    owner.exit();
    let _serial = exclusive();
    setup();
    assert_eq!(
        code(api::ipc_open_event_handle(&unhex(&handle))),
        ACL_ERROR_RT_IPC_ERROR
    );
}

// ---- in one process: the vendor's restrictions, argument checks and clean-up

/// Shared objects of this process that are open now.
fn ipc_files() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|target| target.to_string_lossy().contains("memfd:aclrt-ipc"))
        .count()
}

#[test]
fn ipc_events_refuse_reset_timing_ids_and_the_old_queries() {
    let _serial = exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let ev = api::create_event_ex_with_flag(ACL_EVENT_IPC).unwrap();
    let plain = api::create_event().unwrap();
    let ns = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    // An IPC event is an aclrtCreateEventExWithFlag event, refused in these calls as such too;
    // the message names the IPC restriction.
    let ipc_refusal = |call: &str| {
        let msg = api::get_recent_err_msg().unwrap();
        assert!(
            msg.contains(&format!("{call} is not supported for IPC events")),
            "{msg}"
        );
    };
    assert_eq!(code(api::reset_event(ev, s)), ns);
    ipc_refusal("aclrtResetEvent");
    assert_eq!(code(api::query_event(ev)), ns);
    ipc_refusal("aclrtQueryEvent");
    assert_eq!(code(api::query_event_wait_status(ev)), ns);
    ipc_refusal("aclrtQueryEventWaitStatus");
    assert_eq!(code(api::get_event_id(ev)), ns);
    assert_eq!(code(api::event_get_timestamp(ev)), ns);
    api::record_event(plain, s).unwrap();
    api::synchronize_event(plain).unwrap();
    assert_eq!(code(api::event_elapsed_time(ev, plain)), ns);
    assert_eq!(code(api::event_elapsed_time(plain, ev)), ns);
    let msg = api::get_recent_err_msg().unwrap();
    assert!(msg.contains("IPC"), "{msg}");
    // A handle only for an IPC event.
    assert_eq!(
        code(api::ipc_get_event_handle(plain)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::ipc_get_event_handle(EventHandle::NULL)),
        ACL_ERROR_INVALID_PARAM
    );
    // ACL_EVENT_IPC goes alone.
    assert_eq!(
        code(api::create_event_ex_with_flag(
            ACL_EVENT_IPC | ACL_EVENT_SYNC
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::destroy_event(plain).unwrap();
    api::destroy_event(ev).unwrap();
    api::destroy_stream(s).unwrap();
}

#[test]
fn an_ipc_event_works_in_its_own_process_and_opens_there_too() {
    let _serial = exclusive();
    setup();
    let before = ipc_files();
    let s = api::create_stream().unwrap();
    let t = api::create_stream().unwrap();
    let ev = api::create_event_ex_with_flag(ACL_EVENT_IPC).unwrap();
    assert_eq!(ipc_files(), before + 1);
    // Never recorded: complete, and a wait queues nothing.
    assert_eq!(
        api::query_event_status(ev).unwrap(),
        ACL_EVENT_RECORDED_STATUS_COMPLETE
    );
    api::stream_wait_event(t, ev).unwrap();
    api::synchronize_event(ev).unwrap();
    let handle = api::ipc_get_event_handle(ev).unwrap();
    let opened = api::ipc_open_event_handle(&handle).unwrap();
    assert_eq!(ipc_files(), before + 2);
    assert_eq!(api::ipc_get_event_handle(opened).unwrap(), handle);
    // A record through one handle is seen through the other, in order.
    let (tx, rx) = mpsc::channel::<()>();
    let done = Arc::new(AtomicBool::new(false));
    let (d1, d2) = (done.clone(), done.clone());
    launch(s, kernel(move || rx.recv().unwrap()));
    launch(s, kernel(move || d1.store(true, Ordering::SeqCst)));
    api::record_event(ev, s).unwrap();
    assert_eq!(
        api::query_event_status(opened).unwrap(),
        ACL_EVENT_RECORDED_STATUS_NOT_READY
    );
    api::stream_wait_event(t, opened).unwrap();
    let seen = Arc::new(AtomicBool::new(false));
    let seen2 = seen.clone();
    launch(
        t,
        kernel(move || seen2.store(d2.load(Ordering::SeqCst), Ordering::SeqCst)),
    );
    assert_eq!(
        code(api::synchronize_event_with_timeout(opened, 20)),
        ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
    );
    tx.send(()).unwrap();
    api::synchronize_event(opened).unwrap();
    api::synchronize_stream(t).unwrap();
    assert!(
        seen.load(Ordering::SeqCst),
        "the wait let the read run first"
    );
    // A stream wait with a timeout on a record that does not come fails the waiting stream.
    let (tx2, rx2) = mpsc::channel::<()>();
    launch(s, kernel(move || rx2.recv().unwrap()));
    api::record_event(ev, s).unwrap();
    api::stream_wait_event_with_timeout(t, opened, 30).unwrap();
    assert_eq!(code(api::synchronize_stream(t)), ACL_ERROR_RT_TASK_TIMEOUT);
    tx2.send(()).unwrap();
    api::synchronize_stream(s).unwrap();
    // The last user of the shared object closes it.
    api::destroy_event(ev).unwrap();
    assert_eq!(ipc_files(), before + 1);
    api::destroy_event(opened).unwrap();
    assert_eq!(ipc_files(), before);
    api::destroy_stream(s).unwrap();
    api::destroy_stream(t).unwrap();
}

#[test]
fn ipc_event_handles_that_name_nothing_are_refused() {
    let _serial = exclusive();
    setup();
    assert_eq!(
        code(api::ipc_open_event_handle(&[0u8; 64])),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let ev = api::create_event_ex_with_flag(ACL_EVENT_IPC).unwrap();
    let mut handle = api::ipc_get_event_handle(ev).unwrap();
    handle[24] ^= 1; // the token
    assert_eq!(
        code(api::ipc_open_event_handle(&handle)),
        ACL_ERROR_RT_IPC_ERROR
    );
    handle[24] ^= 1;
    api::destroy_event(ev).unwrap();
    // Destroyed: its handle names nothing now.
    assert_eq!(
        code(api::ipc_open_event_handle(&handle)),
        ACL_ERROR_RT_IPC_ERROR
    );
}

#[test]
fn notify_export_and_import_check_their_arguments() {
    let _serial = exclusive();
    setup();
    let before = ipc_files();
    let n = api::create_notify(vc::ACL_NOTIFY_DEFAULT as u64).unwrap();
    let pi = ACL_ERROR_RT_PARAM_INVALID;
    assert_eq!(code(api::notify_get_export_key(n, 64, 0)), pi);
    assert_eq!(code(api::notify_get_export_key(n, 0, 0)), pi);
    assert_eq!(code(api::notify_get_export_key(n, 65, 1)), pi);
    assert_eq!(
        code(api::notify_get_export_key(NotifyHandle::NULL, 65, 0)),
        ACL_ERROR_INVALID_PARAM
    );
    // Not exported yet: no allow list.
    assert_eq!(code(api::notify_set_import_pid(n, &[1])), pi);
    let key = api::notify_get_export_key(n, 65, 0).unwrap();
    assert_eq!(ipc_files(), before + 1);
    assert_eq!(code(api::notify_get_export_key(n, 65, 0)), pi);
    assert_eq!(code(api::notify_set_import_pid(n, &[])), pi);
    api::notify_set_import_pid(n, &[std::process::id() as i32]).unwrap();
    assert_eq!(code(api::notify_import_by_key("name", 0)), pi);
    assert_eq!(code(api::notify_import_by_key(&key, 4)), pi);
    let imported = api::notify_import_by_key(
        &key,
        vc::ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS as u64,
    )
    .unwrap();
    assert_ne!(
        api::get_notify_id(imported).unwrap(),
        api::get_notify_id(n).unwrap()
    );
    // An imported notify cannot be exported again, nor given an allow list.
    assert_eq!(code(api::notify_get_export_key(imported, 65, 0)), pi);
    assert_eq!(code(api::notify_set_import_pid(imported, &[1])), pi);
    // One signal, seen through both; a wait queued before the record waits for it (an import
    // by the exporting process itself is no partner that could leave).
    let s = api::create_stream().unwrap();
    let t = api::create_stream().unwrap();
    api::wait_and_reset_notify(imported, t, 0).unwrap();
    let waited = Arc::new(AtomicBool::new(false));
    let w = waited.clone();
    launch(t, kernel(move || w.store(true, Ordering::SeqCst)));
    assert_eq!(
        code(api::synchronize_stream_with_timeout(t, 50)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    assert!(!waited.load(Ordering::SeqCst));
    api::record_notify(n, s).unwrap();
    api::synchronize_stream(t).unwrap();
    assert!(waited.load(Ordering::SeqCst));
    api::destroy_stream(t).unwrap();
    api::record_notify(imported, s).unwrap();
    api::synchronize_stream(s).unwrap();
    assert!(api::notify_is_set(n).unwrap());
    api::wait_and_reset_notify(n, s, 0).unwrap();
    api::synchronize_stream(s).unwrap();
    assert!(!api::notify_is_set(imported).unwrap());
    api::destroy_notify(n).unwrap();
    api::destroy_notify(imported).unwrap();
    assert_eq!(ipc_files(), before);
    // Destroyed by its exporter (and closed by all): the key names nothing.
    assert_eq!(
        code(api::notify_import_by_key(&key, 0)),
        ACL_ERROR_RT_IPC_ERROR
    );
    api::destroy_stream(s).unwrap();
}

/// Stream waits on IPC events and IPC notifies hold a worker of the pooled scheduler while
/// they sleep on the shared word; the pool's monitor makes up for each with another worker.
/// Many more waiting streams than workers, and other work on other streams still runs to the
/// end while every wait waits; the records then release all the waits. A hang here is a starved pool: a
/// watchdog turns it into a failure.
#[test]
fn ipc_waits_on_the_pooled_scheduler_do_not_starve_other_streams() {
    use aclrt::config::Scheduler;
    let (done_tx, done_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if done_rx.recv_timeout(Duration::from_secs(120)).is_err() {
            eprintln!("the pooled scheduler starved: other streams did not finish");
            std::process::abort();
        }
    });
    let rt = aclrt::Runtime::new(&aclrt::Config {
        scheduler: Scheduler::Pool,
        ..aclrt::Config::default()
    });
    rt.set_device(0).unwrap();
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let waiters = 2 * cores + 8;
    let ev = rt.create_event_ex_with_flag(ACL_EVENT_IPC).unwrap();
    // The record, held behind a gate on its own stream.
    let recorder = rt.create_stream().unwrap();
    let (gate_tx, gate_rx) = mpsc::channel::<()>();
    rt.launch_kernel(
        recorder,
        "gate",
        Default::default(),
        Box::new(move || {
            gate_rx.recv().unwrap();
            Ok(())
        }),
    )
    .unwrap();
    rt.record_event(ev, recorder).unwrap();
    // As many IPC notifies (exported, and imported back by this process), each recorded
    // behind the same gate.
    let notifies: Vec<(NotifyHandle, NotifyHandle)> = (0..waiters)
        .map(|_| {
            let n = rt.create_notify(vc::ACL_NOTIFY_DEFAULT as u64).unwrap();
            let flags = vc::ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION as u64;
            let key = rt.notify_get_export_key(n, 65, flags).unwrap();
            let imported = rt.notify_import_by_key(&key, 0).unwrap();
            rt.record_notify(n, recorder).unwrap();
            (n, imported)
        })
        .collect();
    let released = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let waiting: Vec<_> = (0..2 * waiters)
        .map(|_| rt.create_stream().unwrap())
        .collect();
    for (i, &s) in waiting.iter().enumerate() {
        if i < waiters {
            rt.stream_wait_event(s, ev).unwrap();
        } else {
            rt.wait_and_reset_notify(notifies[i - waiters].1, s, 0)
                .unwrap();
        }
        let released = released.clone();
        rt.launch_kernel(
            s,
            "after-wait",
            Default::default(),
            Box::new(move || {
                released.fetch_add(1, Ordering::SeqCst);
                Ok(())
            }),
        )
        .unwrap();
    }
    // Other work, on as many other streams: it all completes while every wait still waits.
    let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let others: Vec<_> = (0..waiters).map(|_| rt.create_stream().unwrap()).collect();
    for &s in &others {
        for _ in 0..4 {
            let ran = ran.clone();
            rt.launch_kernel(
                s,
                "other",
                Default::default(),
                Box::new(move || {
                    ran.fetch_add(1, Ordering::SeqCst);
                    Ok(())
                }),
            )
            .unwrap();
        }
    }
    for &s in &others {
        rt.synchronize_stream(s).unwrap();
    }
    assert_eq!(ran.load(Ordering::SeqCst), 4 * waiters);
    assert_eq!(
        released.load(Ordering::SeqCst),
        0,
        "no wait was released early"
    );
    assert_eq!(
        rt.query_event_status(ev).unwrap(),
        ACL_EVENT_RECORDED_STATUS_NOT_READY
    );
    gate_tx.send(()).unwrap();
    for &s in &waiting {
        rt.synchronize_stream(s).unwrap();
    }
    assert_eq!(released.load(Ordering::SeqCst), 2 * waiters);
    rt.synchronize_stream(recorder).unwrap();
    for s in waiting.into_iter().chain(others).chain([recorder]) {
        rt.destroy_stream(s).unwrap();
    }
    for (n, imported) in notifies {
        rt.destroy_notify(imported).unwrap();
        rt.destroy_notify(n).unwrap();
    }
    rt.destroy_event(ev).unwrap();
    done_tx.send(()).unwrap();
}

/// One producer → consumer round on IPC memory: the producer's kernel writes the pattern of
/// `seed`, held at a gate, then records the IPC event; the consumer's stream waits on the
/// event and reads the memory from a kernel. Checked byte for byte.
fn mem_round(producer: &mut Agent, consumer: &mut Agent, seed: u8, size: usize) {
    assert_eq!(producer.ask(&format!("produce-mem {seed}")), "0");
    assert_eq!(consumer.ask("consume-mem"), "0");
    assert_eq!(
        consumer.ask("status"),
        ACL_EVENT_RECORDED_STATUS_NOT_READY.to_string()
    );
    // Held behind the wait: the read has not run.
    assert_eq!(consumer.ask("peek"), "false");
    assert_eq!(producer.ask("go"), "");
    let (code, bytes) = finished(&consumer.ask("finish"));
    assert_eq!(code, 0);
    assert!(
        bytes == hex(&pattern(seed, size)),
        "round with seed {seed}: wrong bytes"
    );
    assert_eq!(finished(&producer.ask("finish")).0, 0);
}

#[test]
fn an_ipc_event_orders_kernel_writes_to_ipc_memory_both_ways() {
    // Three pages and a bit: the read crosses page boundaries of the shared file.
    let size = 3 * 4096 + 123;
    let mut a = Agent::spawn();
    let mut b = Agent::spawn();
    let handle = a.ask("make-event");
    assert_eq!(b.ask(&format!("open-event {handle}")), "0");
    let key = a.ask(&format!("mem-export {size}"));
    assert_eq!(b.ask(&format!("mem-import {key} {size}")), "0");
    // A (the exporter, and the event's owner) produces, B consumes ...
    mem_round(&mut a, &mut b, 7, size);
    // ... then B writes through its import and A reads its own allocation.
    mem_round(&mut b, &mut a, 9, size);
    // And once more each way, over the previous round's bytes.
    mem_round(&mut a, &mut b, 11, size);
    mem_round(&mut b, &mut a, 13, size);
    b.exit();
    a.exit();
}
