//! The checker: finds races, uses of freed memory, hangs, deadlocks and leaks in a running
//! program, from what the runtime tells its observers.
//!
//! Switch it on with `ACLRT_CHECK` (read at `aclInit`, whatever the face: C, Python or Rust) or
//! from Rust with [`enable`]:
//!
//! | `ACLRT_CHECK` | parts |
//! |---|---|
//! | `1` or `all` | `race,free,hang` |
//! | a comma list of `race`, `free`, `hang`, `leak` | those (`leak` only when named) |
//!
//! - **race**: two accesses to overlapping bytes, at least one a write, that happens-before does
//!   not order. Accesses are asynchronous copies and sets, synchronous `aclrtMemcpy` /
//!   `aclrtMemset`, and the ranges host kernels declare (`aclxLaunchHostKernelWithAccess`,
//!   [`crate::api::KernelAccess`]). Happens-before is stream order, record → wait (per event
//!   family, as the runtime resolves it), a host thread's submissions after what it did before,
//!   a synchronise (or a query that said complete) after the work it covered, a callback after
//!   its stream's earlier tasks and, when it blocks, before its stream's later ones. ACL's default
//!   stream orders nothing with other streams.
//! - **free**: a task or host call touching freed memory (`use_after_free`); `aclrtFree` of
//!   memory that a task not known to have finished touches (`free_while_in_use`).
//! - **hang**: a host wait with no progress for `ACLRT_CHECK_HANG_MS` (default 10000) is
//!   reported as `hang` with the wait-for picture; a wait that can never end (a cycle, a legacy
//!   SYNC event destroyed with nothing to record it, a blocking callback whose subscribed thread
//!   is the one waiting for it) at once as `deadlock`. The process then exits with the checker's
//!   code instead of hanging.
//! - **leak**: streams, events and allocations still alive at `aclFinalize` or exit.
//!
//! Each finding goes to stderr as a block whose first line starts with `aclrt-check: ` and its
//! kind, then the accesses or waits with their call sites (the first frame outside the runtime,
//! with file and line when the program has debug information), then a `fix:` line.
//! `ACLRT_CHECK_REPORT=path.json` also writes `{"findings": [...]}`, rewritten as each finding
//! is made. A process that made findings exits with `ACLRT_CHECK_EXITCODE` (default 66): an
//! `atexit` hook, registered when the checker starts, ends the process with that code when it
//! has findings (later `atexit` handlers registered before it do not run then).
//!
//! Cost: off, nothing beyond the observer hooks' one branch. On, every submission captures its
//! call stack (return addresses only, symbolised when a finding names them) and the checker's
//! state is one lock; memory follows live allocations, streams and events.

mod hb;
mod report;
mod shadow;
mod site;
mod state;
mod waits;

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

pub use report::{report_json, Access, AccessKind, Finding, Kind, Object, Site, Wait};
pub use site::{set_site_source, SiteSource};

use crate::observe::{self, Observed, Observer, ObserverId};
/// The checker's own locks are leaves below every runtime lock: observer events arrive with
/// runtime locks held (a submit's event comes under the stream's submit lock), and the checker
/// takes no other lock while it holds one. So they are plain locks, outside the runtime's
/// lock-order table, and the watchdog can wait on them with a condition variable.
fn lock<T: ?Sized>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
use crate::task_info::TaskKind;
use state::{Caller, State};

/// A hasher for the checker's maps: keys are ids and addresses, not attacker-chosen, and the
/// maps sit on every submission's path.
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FastMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;
pub(crate) type FastSet<K> =
    std::collections::HashSet<K, std::hash::BuildHasherDefault<FastHasher>>;

/// Switches the checker on at `aclInit`: `1`, `all`, or a comma list of parts.
pub const ENV_CHECK: &str = "ACLRT_CHECK";
/// Where the JSON report goes.
pub const ENV_REPORT: &str = "ACLRT_CHECK_REPORT";
/// Set (to `1`) by a launcher that removed any earlier report before starting the program
/// (`aclrt check`): see [`Options::report_is_the_runs`].
pub const ENV_REPORT_IS_THE_RUNS: &str = "ACLRT_CHECK_REPORT_IS_THE_RUNS";
/// The exit status of a process that made findings (default 66).
pub const ENV_EXITCODE: &str = "ACLRT_CHECK_EXITCODE";
/// How long a wait may make no progress before it is a hang, in milliseconds (default 10000).
pub const ENV_HANG_MS: &str = "ACLRT_CHECK_HANG_MS";
/// The default exit status of a process that made findings.
pub const DEFAULT_EXIT_CODE: i32 = 66;

/// Which checks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Parts {
    /// Data races.
    pub race: bool,
    /// Uses of freed memory, frees of memory in use.
    pub free: bool,
    /// Hangs and deadlocks.
    pub hang: bool,
    /// Objects alive at the end.
    pub leak: bool,
}

impl Parts {
    /// `race,free,hang` (what `ACLRT_CHECK=1` means).
    pub const DEFAULT: Parts = Parts {
        race: true,
        free: true,
        hang: true,
        leak: false,
    };
    /// Every part.
    pub const ALL: Parts = Parts {
        race: true,
        free: true,
        hang: true,
        leak: true,
    };

    /// Parses an `ACLRT_CHECK` value: `1`, `all`, or a comma list of `race`, `free`, `hang`,
    /// `leak`; `0`, `off` or empty is `None`.
    pub fn parse(value: &str) -> Result<Option<Parts>, String> {
        let value = value.trim();
        match value {
            "" | "0" | "off" | "no" => return Ok(None),
            "1" | "all" | "on" | "yes" => return Ok(Some(Parts::DEFAULT)),
            _ => {}
        }
        let mut parts = Parts::default();
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "race" => parts.race = true,
                "free" => parts.free = true,
                "hang" => parts.hang = true,
                "leak" => parts.leak = true,
                "all" | "1" => {
                    parts.race = true;
                    parts.free = true;
                    parts.hang = true;
                }
                other => {
                    return Err(format!(
                        "{ENV_CHECK}: unknown part {other:?} (use 1, all, or a comma list of race, free, hang, leak)"
                    ))
                }
            }
        }
        Ok(Some(parts))
    }
}

/// How the checker reports.
#[derive(Debug, Clone)]
pub struct Options {
    /// Which checks run.
    pub parts: Parts,
    /// Print each finding to stderr.
    pub print: bool,
    /// Rewrite this JSON file with every finding so far.
    pub report: Option<PathBuf>,
    /// The report belongs to a run that removed any earlier one before it started the
    /// program (`aclrt check`): a process creates it when absent and never replaces it, so
    /// programs run one after another keep what those before them found.
    pub report_is_the_runs: bool,
    /// End the process with this status when it made findings (at exit, and at once after a
    /// hang or deadlock); `None` leaves the process alone.
    pub exit_code: Option<i32>,
    /// A wait with no progress for this long is a hang.
    pub hang_ms: u64,
}

impl Options {
    /// `parts`, printed, the report and exit code from the environment (`ACLRT_CHECK_REPORT`,
    /// `ACLRT_CHECK_EXITCODE`, `ACLRT_CHECK_HANG_MS`).
    pub fn from_env(parts: Parts) -> Options {
        let report = std::env::var_os(ENV_REPORT)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
        let exit_code = std::env::var(ENV_EXITCODE)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(DEFAULT_EXIT_CODE);
        let hang_ms = std::env::var(ENV_HANG_MS)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|ms| *ms > 0)
            .unwrap_or(10_000);
        let report_is_the_runs =
            std::env::var_os(ENV_REPORT_IS_THE_RUNS).is_some_and(|v| !v.is_empty() && v != "0");
        Options {
            parts,
            print: true,
            report,
            report_is_the_runs,
            exit_code: Some(exit_code),
            hang_ms,
        }
    }

    /// For programs that look at the findings themselves: nothing printed or written, the
    /// process never ended by the checker.
    pub fn quiet(parts: Parts) -> Options {
        Options {
            parts,
            print: false,
            report: None,
            report_is_the_runs: false,
            exit_code: None,
            hang_ms: 10_000,
        }
    }
}

/// The installed checker.
struct Checker {
    options: Options,
    state: Mutex<State>,
    /// Stream workers' events queued while another thread held the state.
    deferred: crossbeam_queue::SegQueue<Observed<'static>>,
    /// Wakes the hang watchdog early (a new wait began, the checker stops).
    watchdog: Condvar,
    stopped: std::sync::atomic::AtomicBool,
}

impl Observer for Checker {
    fn observe(&self, event: &Observed<'_>) {
        // Stream workers' events carry no borrowed data: when another thread holds the state,
        // they are queued for it instead of waiting (it drains them before it lets go, and so
        // does whoever takes the state next, before its own event).
        let worker_event: Option<Observed<'static>> = match *event {
            Observed::Started { .. } | Observed::Discarded { .. } => Some(copy_static(event)),
            Observed::Finished {
                task, kind, at_ns, ..
            } => Some(Observed::Finished {
                task,
                kind,
                failure: None,
                at_ns,
            }),
            Observed::Edge {
                before: crate::observe::Point::Task(_),
                after: crate::observe::Point::Task(_),
                ..
            } => Some(copy_static(event)),
            Observed::WaitReleased { .. }
            | Observed::ApiFailed { .. }
            | Observed::StreamNamed { .. }
            | Observed::Finding { .. }
            | Observed::ProcessEnding { .. } => return,
            _ => None,
        };
        if let Some(ev) = worker_event {
            let mut st = match self.state.try_lock() {
                Ok(st) => st,
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {
                    self.deferred.push(ev);
                    return;
                }
            };
            let before = st.findings.len();
            let mut fatal = self.drain(&mut st);
            fatal |= st.observe(&ev, Caller::none());
            fatal |= self.drain(&mut st);
            let new = self.publish(&st, before);
            drop(st);
            announce(&new);
            if fatal {
                self.end_process();
            }
            return;
        }
        // Stacks are captured before the state is taken: unwinding is the costly part.
        let wants_site = match event {
            Observed::Submitted { kind, meta, .. } => match kind {
                TaskKind::Memcpy | TaskKind::Memset | TaskKind::Callback => true,
                TaskKind::Kernel | TaskKind::HostFunc => {
                    !meta.reads.is_empty() || !meta.writes.is_empty()
                }
                _ => false,
            },
            _ => false,
        } || matches!(
            event,
            Observed::HostAccess { .. }
                | Observed::Allocated { .. }
                | Observed::Freeing { .. }
                | Observed::StreamCreated { .. }
                | Observed::EventCreated { .. }
        ) || (self.options.parts.hang
            && matches!(event, Observed::HostWaitBegin { .. }));
        let caller = Caller {
            stack: wants_site.then(site::capture),
            // SAFETY: pthread_self has no preconditions.
            pthread: unsafe { libc::pthread_self() } as u64,
        };
        let mut st = lock(&self.state);
        let before = st.findings.len();
        let mut fatal = self.drain(&mut st);
        fatal |= st.observe(event, caller);
        fatal |= self.drain(&mut st);
        let new = self.publish(&st, before);
        if matches!(event, Observed::HostWaitBegin { .. }) {
            self.watchdog.notify_all();
        }
        drop(st);
        announce(&new);
        if fatal {
            self.end_process();
        }
    }
}

/// A copy of an event that borrows nothing.
fn copy_static(event: &Observed<'_>) -> Observed<'static> {
    match *event {
        Observed::Started {
            task,
            kind,
            thread_id,
            at_ns,
        } => Observed::Started {
            task,
            kind,
            thread_id,
            at_ns,
        },
        Observed::Discarded {
            task,
            kind,
            error,
            at_ns,
        } => Observed::Discarded {
            task,
            kind,
            error,
            at_ns,
        },
        Observed::Edge {
            kind,
            before,
            after,
            at_ns,
        } => Observed::Edge {
            kind,
            before,
            after,
            at_ns,
        },
        _ => unreachable!("only events that borrow nothing are copied"),
    }
}

impl Checker {
    /// Processes the events stream workers queued, in their order; whether one was fatal.
    fn drain(&self, st: &mut State) -> bool {
        let mut fatal = false;
        while let Some(ev) = self.deferred.pop() {
            fatal |= st.observe(&ev, Caller::none());
        }
        fatal
    }

    /// Prints the findings from `from` on and rewrites the report; returns them, for
    /// [`announce`] once the state is released (nothing when there are none: the common case
    /// costs a comparison).
    fn publish(&self, st: &State, from: usize) -> Vec<Finding> {
        if st.findings.len() <= from {
            return Vec::new();
        }
        if self.options.print {
            let mut err = std::io::stderr().lock();
            for f in &st.findings[from..] {
                let _ = err.write_all(f.to_text().as_bytes());
            }
        }
        if let Some(path) = &self.options.report {
            if let Err(e) = std::fs::write(path, report::report_json(&st.findings)) {
                eprintln!(
                    "aclrt-check: cannot write the report to {}: {e}",
                    path.display()
                );
            }
        }
        st.findings[from..].to_vec()
    }

    /// After a hang or deadlock: end the process with the checker's code, if it is to.
    fn end_process(&self) {
        if let Some(code) = self.options.exit_code {
            observe::process_ending(code);
            let _ = std::io::stderr().flush();
            // SAFETY: _exit ends the process at once; nothing of this process runs after it.
            unsafe { libc::_exit(code) };
        }
    }

    /// The hang watchdog: sleeps until a wait could have become a hang.
    fn watch(self: Arc<Self>) {
        let hang_ns = self.options.hang_ms.saturating_mul(1_000_000);
        let mut st = lock(&self.state);
        loop {
            if self.stopped.load(std::sync::atomic::Ordering::Acquire) {
                return;
            }
            let before = st.findings.len();
            let fatal = self.drain(&mut st);
            let new = self.publish(&st, before);
            if fatal || !new.is_empty() {
                drop(st);
                announce(&new);
                if fatal {
                    self.end_process();
                    return;
                }
                st = lock(&self.state);
                continue;
            }
            let now = crate::clock::now_ns();
            if st.look_for_hang(now, hang_ns) {
                let from = st.findings.len() - 1;
                let new = self.publish(&st, from);
                drop(st);
                announce(&new);
                self.end_process();
                return;
            }
            let waiting = st.blocked.values().any(|b| b.call != "aclrtProcessReport");
            st = if waiting {
                let tick = Duration::from_millis((self.options.hang_ms / 4).clamp(1, 1000));
                self.watchdog
                    .wait_timeout(st, tick)
                    .map(|(g, _)| g)
                    .unwrap_or_else(|e| e.into_inner().0)
            } else {
                self.watchdog.wait(st).unwrap_or_else(|e| e.into_inner())
            };
        }
    }
}

struct Installed {
    id: ObserverId,
    checker: Arc<Checker>,
}

static INSTALLED: Mutex<Option<Installed>> = Mutex::new(None);
/// The exit code the `atexit` hook uses (`-1`: none).
static EXIT_CODE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// Switches the checker on for `parts`, reporting as `ACLRT_CHECK_REPORT` and
/// `ACLRT_CHECK_EXITCODE` say (see [`Options::from_env`]). Replaces a checker already on.
pub fn enable(parts: Parts) {
    enable_with(Options::from_env(parts));
}

/// Switches the checker on with `options`. Replaces a checker already on (its findings go).
pub fn enable_with(options: Options) {
    disable();
    let checker = Arc::new(Checker {
        state: Mutex::new(State::new(options.parts)),
        deferred: crossbeam_queue::SegQueue::new(),
        options,
        watchdog: Condvar::new(),
        stopped: std::sync::atomic::AtomicBool::new(false),
    });
    if checker.options.parts.hang {
        let watcher = checker.clone();
        let _ = std::thread::Builder::new()
            .name("aclrt-check".into())
            .spawn(move || watcher.watch());
    }
    if let Some(code) = checker.options.exit_code {
        EXIT_CODE.store(code, std::sync::atomic::Ordering::Release);
        static AT_EXIT: std::sync::Once = std::sync::Once::new();
        AT_EXIT.call_once(|| {
            // SAFETY: registers a plain function with no preconditions.
            unsafe { libc::atexit(at_exit) };
        });
    } else {
        EXIT_CODE.store(-1, std::sync::atomic::Ordering::Release);
    }
    if let Some(path) = &checker.options.report {
        claim_report(path, checker.options.report_is_the_runs);
    }
    watch_forks();
    let id = observe::install(checker.clone());
    *lock(&INSTALLED) = Some(Installed { id, checker });
}

/// The report exists from the start, empty, so whoever reads it knows the checker ran.
///
/// Under a launcher that removed the earlier report (`run_owned`), a process creates it when
/// absent and leaves it alone otherwise: programs run one after another, or children, keep
/// what the others found. Otherwise a report an earlier run left is replaced, but never one
/// a living process reports to: each process holds a shared `flock` on the report for its
/// life, and a report nobody holds is an earlier run's.
fn claim_report(path: &std::path::Path, run_owned: bool) {
    use std::os::fd::AsRawFd;
    /// This process's claims (one open file per report path, holding its lock).
    static HELD: Mutex<Vec<(PathBuf, std::fs::File)>> = Mutex::new(Vec::new());
    // A fork while another thread held the list leaves it locked in the child: the child then
    // keeps its claim by leaking the file instead of waiting for ever.
    let mut held = HELD.try_lock().ok();
    // This process's own earlier claim does not keep its report (a new checker starts afresh).
    if let Some(held) = held.as_mut() {
        held.retain(|(p, _)| p != path);
    }
    let Ok(mut file) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
    else {
        return;
    };
    let fd = file.as_raw_fd();
    let replace = if run_owned {
        file.metadata().is_ok_and(|m| m.len() == 0)
    } else {
        // SAFETY: `fd` is open (owned by `file`) for the duration of the call.
        unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) == 0 }
    };
    if replace {
        let _ = file.set_len(0);
        let _ = file.write_all(report::report_json(&[]).as_bytes());
    }
    // SAFETY: as above. Shared, so the program's other processes claim the report alongside
    // this one; blocking, as a process taking it exclusively holds it only for the write above.
    if unsafe { libc::flock(fd, libc::LOCK_SH) } == 0 {
        match held {
            Some(mut held) => held.push((path.to_path_buf(), file)),
            None => std::mem::forget(file),
        }
    }
}

/// A forked child runs unchecked until its own `aclInit` (with `ACLRT_CHECK`) or
/// [`enable`]: the parent's checker (its state may be locked by a thread the child does not
/// have, its watchdog thread is not there) is abandoned, never touched; the observer list is
/// emptied by its own fork handler.
fn watch_forks() {
    crate::fork::watch(
        crate::fork::Rank::Check,
        || lock(&INSTALLED),
        |mut held| std::mem::forget(held.take()),
    );
}

/// Switches the checker off; returns its findings.
pub fn disable() -> Vec<Finding> {
    let Some(installed) = lock(&INSTALLED).take() else {
        return Vec::new();
    };
    observe::remove(installed.id);
    installed
        .checker
        .stopped
        .store(true, std::sync::atomic::Ordering::Release);
    installed.checker.watchdog.notify_all();
    let mut st = lock(&installed.checker.state);
    installed.checker.drain(&mut st);
    st.findings.clone()
}

/// Whether the checker is on.
pub fn is_enabled() -> bool {
    lock(&INSTALLED).is_some()
}

/// The findings so far.
pub fn findings() -> Vec<Finding> {
    match lock(&INSTALLED).as_ref() {
        Some(i) => {
            let mut st = lock(&i.checker.state);
            i.checker.drain(&mut st);
            st.findings.clone()
        }
        None => Vec::new(),
    }
}

/// Reports objects still alive, if the leak part is on (`aclFinalize`, or exit without one).
pub fn check_leaks() {
    let checker = lock(&INSTALLED).as_ref().map(|i| i.checker.clone());
    let Some(checker) = checker else {
        return;
    };
    if !checker.options.parts.leak {
        return;
    }
    let mut st = lock(&checker.state);
    checker.drain(&mut st);
    let leaks = st.leaks();
    if leaks.is_empty() {
        return;
    }
    let from = st.findings.len();
    st.findings.extend(leaks);
    let new = checker.publish(&st, from);
    drop(st);
    announce(&new);
}

/// Tells the other observers (a trace collector) of new findings, on the calling thread, with
/// the checker's state released (observers take their own locks).
fn announce(new: &[Finding]) {
    for f in new {
        observe::finding(
            f.kind.as_str(),
            &f.message,
            &f.involved,
            &f.site_lines(),
            &f.fix,
        );
    }
}

/// `aclInit`: starts the checker when `ACLRT_CHECK` asks for it.
pub(crate) fn on_init() {
    let Ok(value) = std::env::var(ENV_CHECK) else {
        return;
    };
    match Parts::parse(&value) {
        Ok(Some(parts)) => {
            if !is_enabled() {
                enable(parts);
            }
        }
        Ok(None) => {}
        Err(e) => eprintln!("aclrt-check: {e}"),
    }
}

/// `aclFinalize`, before the runtime is torn down.
pub(crate) fn on_finalize() {
    check_leaks();
}

extern "C" fn at_exit() {
    // A panic must not unwind into the C runtime's exit path.
    let _ = std::panic::catch_unwind(|| {
        check_leaks();
        let code = EXIT_CODE.load(std::sync::atomic::Ordering::Acquire);
        if code >= 0 && !findings().is_empty() {
            observe::process_ending(code);
            let _ = std::io::stderr().flush();
            // SAFETY: _exit ends the process at once with the checker's status.
            unsafe { libc::_exit(code) };
        }
    });
}
