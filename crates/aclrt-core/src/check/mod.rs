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
//! state is one lock, which no stream worker or submitting thread waits for (`inbox.rs`: their
//! events are queued for whoever holds it, and a worker hands a plain task's start in with its
//! end); memory follows live allocations, streams and events.

mod hb;
mod inbox;
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
use inbox::{Deferred, Inbox, Submission};
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
    /// Events queued while another thread held the state, and workers' held starts.
    inbox: Inbox,
    /// Wake-ups of the hang watchdog (a new wait began, the checker stops), counted.
    wake: Mutex<u64>,
    watchdog: Condvar,
    stopped: std::sync::atomic::AtomicBool,
}

impl Observer for Checker {
    fn observe(&self, event: &Observed<'_>) {
        match *event {
            // Nothing the checker uses.
            Observed::WaitReleased { .. }
            | Observed::ApiFailed { .. }
            | Observed::StreamNamed { .. }
            | Observed::Finding { .. }
            | Observed::ProcessEnding { .. } => return,
            // A start nothing can see while its task runs waits for the task's end.
            Observed::Started { kind, .. } if Inbox::may_hold(kind) => {
                if let Some(earlier) = self.inbox.take_held() {
                    self.offer(Deferred::Event(earlier));
                }
                if let Some(unheld) = self.inbox.hold(copy_static(event)) {
                    self.offer(Deferred::Event(unheld));
                }
                return;
            }
            _ => {}
        }
        let held = self.inbox.take_held();
        // Stream workers' events borrow nothing: they are offered, never waited with.
        let worker_event: Option<Observed<'static>> = match *event {
            Observed::TaskShared { .. } => {
                if let Some(started) = held {
                    self.offer(Deferred::Event(started));
                }
                return;
            }
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
            _ => None,
        };
        if let Some(ev) = worker_event {
            match held {
                Some(started) if task_of(&started) == task_of(&ev) => {
                    self.offer(Deferred::Pair(started, ev));
                }
                Some(started) => {
                    self.offer(Deferred::Event(started));
                    self.offer(Deferred::Event(ev));
                }
                None => self.offer(Deferred::Event(ev)),
            }
            return;
        }
        if let Some(started) = held {
            self.offer(Deferred::Event(started));
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
        let mut caller = Caller {
            stack: wants_site.then(site::capture),
            // SAFETY: pthread_self has no preconditions.
            pthread: unsafe { libc::pthread_self() } as u64,
        };
        // A submission is copied and queued, never processed here: the submitting thread (the
        // busiest one) neither waits for the state nor does the workers' share of the work.
        // Its task's start or discard, which always follows, is offered by a stream worker,
        // which processes the queue first.
        if let Some(submission) = Submission::of(event, &mut caller) {
            self.inbox.push(Deferred::Submitted(submission));
            return;
        }
        let st = lock(&self.state);
        self.with_state(st, |st| st.observe(event, caller));
        if matches!(event, Observed::HostWaitBegin { .. }) {
            self.wake_watchdog();
        }
    }
}

/// The task a start or an end names.
fn task_of(event: &Observed<'_>) -> Option<crate::observe::TaskRef> {
    match *event {
        Observed::Started { task, .. } | Observed::Finished { task, .. } => Some(task),
        _ => None,
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
    fn new(options: Options) -> Checker {
        Checker {
            state: Mutex::new(State::new(options.parts)),
            inbox: Inbox::new(),
            wake: Mutex::new(0),
            options,
            watchdog: Condvar::new(),
            stopped: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The state, unless another thread holds it.
    fn try_state(&self) -> Option<std::sync::MutexGuard<'_, State>> {
        match self.state.try_lock() {
            Ok(st) => Some(st),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// Processes `item` now if the state is free, else queues it for whoever holds it.
    fn offer(&self, item: Deferred) {
        if let Some(st) = self.try_state() {
            return self.with_state(st, |st| process(st, item));
        }
        self.inbox.push(item);
        // The holder may have drained for the last time before the push: look again, after a
        // fence that pairs with the holder's after its unlock (see `inbox.rs`).
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        if let Some(st) = self.try_state() {
            self.with_state(st, |_| false);
        }
    }

    /// Runs `work` on the state between two drains of the queue, then publishes what was found
    /// and lets go; takes the state again while something was queued meanwhile.
    fn with_state<'a>(
        &'a self,
        mut st: std::sync::MutexGuard<'a, State>,
        work: impl FnOnce(&mut State) -> bool,
    ) {
        let mut work = Some(work);
        loop {
            let before = st.findings.len();
            let mut fatal = self.drain(&mut st);
            if let Some(work) = work.take() {
                fatal |= work(&mut st);
                fatal |= self.drain(&mut st);
            }
            let new = self.publish(&st, before);
            drop(st);
            announce(&new);
            if fatal {
                self.end_process();
            }
            if !self.inbox.pending_after_unlock() {
                return;
            }
            // Whoever holds it now drains before letting go.
            let Some(next) = self.try_state() else { return };
            st = next;
        }
    }

    /// Processes the events queued meanwhile, in their order; whether one was fatal.
    fn drain(&self, st: &mut State) -> bool {
        let mut fatal = false;
        while let Some(item) = self.inbox.pop() {
            fatal |= process(st, item);
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

    /// The hang watchdog: sleeps until a wait could have become a hang. It sleeps on its own
    /// lock (`wake`, a count of wake-ups), never holding the state, so every holder of the state
    /// lets go through [`Checker::with_state`].
    fn watch(self: Arc<Self>) {
        let hang_ns = self.options.hang_ms.saturating_mul(1_000_000);
        loop {
            let seen = *lock(&self.wake);
            if self.stopped.load(std::sync::atomic::Ordering::Acquire) {
                return;
            }
            let (mut waiting, mut hung) = (false, false);
            // Tasks held back are running: they count as progress, not as a hang.
            self.inbox.queue_all_held();
            self.with_state(lock(&self.state), |st| {
                hung = st.look_for_hang(crate::clock::now_ns(), hang_ns);
                waiting = st.blocked.values().any(|b| b.call != "aclrtProcessReport");
                hung
            });
            if hung {
                return;
            }
            let wake = lock(&self.wake);
            if *wake != seen {
                continue;
            }
            if waiting {
                let tick = Duration::from_millis((self.options.hang_ms / 4).clamp(1, 1000));
                drop(self.watchdog.wait_timeout(wake, tick));
            } else {
                drop(self.watchdog.wait(wake));
            }
        }
    }

    /// Wakes the watchdog (a wait began, the checker stops).
    fn wake_watchdog(&self) {
        *lock(&self.wake) += 1;
        self.watchdog.notify_all();
    }

    /// `f` on the state, after what was queued and the starts workers hold (tasks running
    /// now); what it finds is published.
    fn read<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        self.inbox.queue_all_held();
        let mut out = None;
        self.with_state(lock(&self.state), |st| {
            out = Some(f(st));
            false
        });
        out.expect("with_state runs its work")
    }
}

/// One queued item; whether it was fatal.
fn process(st: &mut State, item: Deferred) -> bool {
    match item {
        Deferred::Event(ev) => st.observe(&ev, Caller::none()),
        Deferred::Pair(started, finished) => {
            let fatal = st.observe(&started, Caller::none());
            st.observe(&finished, Caller::none()) | fatal
        }
        Deferred::Submitted(mut submission) => {
            let (ev, caller) = submission.event();
            st.observe(&ev, caller)
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
    let checker = Arc::new(Checker::new(options));
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
    installed.checker.wake_watchdog();
    installed.checker.read(|st| st.findings.clone())
}

/// Whether the checker is on.
pub fn is_enabled() -> bool {
    lock(&INSTALLED).is_some()
}

/// The findings so far.
pub fn findings() -> Vec<Finding> {
    match lock(&INSTALLED).as_ref() {
        Some(i) => i.checker.read(|st| st.findings.clone()),
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
    checker.read(|st| {
        let leaks = st.leaks();
        st.findings.extend(leaks);
    });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::TaskRef;
    use crate::task_info::TaskMeta;

    const TASK: TaskRef = TaskRef {
        device_id: 0,
        stream_id: 1,
        stream: 0x51,
        task_id: 0,
    };

    /// The task the checker sees running on `TASK`'s stream.
    fn running(checker: &Checker) -> Option<u64> {
        checker.read(|st| {
            st.streams
                .get(&TASK.stream)
                .and_then(|s| s.running.as_ref())
                .map(|p| p.id)
        })
    }

    /// Task `id` of `TASK`'s stream, submitted by thread 1.
    fn submit(checker: &Checker, id: u64, kind: TaskKind) -> TaskRef {
        let task = TaskRef {
            task_id: id,
            ..TASK
        };
        checker.observe(&Observed::Submitted {
            task,
            kind,
            meta: &TaskMeta::default(),
            thread_id: 1,
            start_ns: 0,
            end_ns: 0,
        });
        task
    }

    /// Task `task` starts on thread 2.
    fn start(checker: &Checker, task: TaskRef, kind: TaskKind) {
        checker.observe(&Observed::Started {
            task,
            kind,
            thread_id: 2,
            at_ns: 0,
        });
    }

    fn finish(checker: &Checker, task: TaskRef, kind: TaskKind) {
        checker.observe(&Observed::Finished {
            task,
            kind,
            failure: None,
            at_ns: 0,
        });
    }

    fn submit_and_start(checker: &Checker, kind: TaskKind) {
        start(checker, submit(checker, 0, kind), kind);
    }

    #[test]
    fn a_plain_kernel_start_is_held_until_the_task_is_shared_or_ends() {
        let checker = Checker::new(Options::quiet(Parts::DEFAULT));
        submit_and_start(&checker, TaskKind::Kernel);
        let held = checker.inbox.take_held().expect("held back");
        assert!(matches!(held, Observed::Started { task: TASK, .. }));
        assert!(checker.inbox.hold(held).is_none(), "held again");
        // A notify record names its task as the releaser: its start must be known first.
        checker.observe(&Observed::TaskShared { task: TASK });
        assert_eq!(running(&checker), Some(0));
        finish(&checker, TASK, TaskKind::Kernel);
        assert_eq!(running(&checker), None, "ended");
    }

    #[test]
    fn a_record_start_is_never_held() {
        let checker = Checker::new(Options::quiet(Parts::DEFAULT));
        submit_and_start(&checker, TaskKind::Record);
        assert_eq!(running(&checker), Some(0));
    }

    #[test]
    fn held_starts_are_queued_after_what_their_threads_queued_before() {
        let checker = Checker::new(Options::quiet(Parts::DEFAULT));
        let (first, next) = (
            submit(&checker, 0, TaskKind::Kernel),
            submit(&checker, 1, TaskKind::Kernel),
        );
        // A worker ran task 0 while another thread held the state: its start and end wait in
        // the queue. Then it started task 1, held back.
        let busy = checker.state.lock().unwrap();
        start(&checker, first, TaskKind::Kernel);
        finish(&checker, first, TaskKind::Kernel);
        start(&checker, next, TaskKind::Kernel);
        drop(busy);
        // A reader (as the watchdog) queues the held start behind task 0's start and end:
        // task 1 runs, and nothing was dropped on the way.
        assert_eq!(running(&checker), Some(1));
        // Task 1's start was processed after task 0's end: task 1 counts as running user code
        // (processed first, task 0's start would have been dropped and its end counted task 1
        // off).
        checker.read(|st| assert_eq!(st.user_code_running, 1));
        assert!(checker.inbox.take_held().is_none(), "queued once");
        finish(&checker, next, TaskKind::Kernel);
        assert_eq!(running(&checker), None);
        checker.read(|st| assert_eq!(st.streams[&TASK.stream].finished_upto, 2));
    }

    #[test]
    fn a_discard_of_a_task_no_longer_queued_leaves_the_younger_tasks_queued() {
        let checker = Checker::new(Options::quiet(Parts::DEFAULT));
        for id in 0..3 {
            submit(&checker, id, TaskKind::Wait);
        }
        // Task 0 started (a suspended wait), then was discarded: its discard finds it running.
        start(&checker, TASK, TaskKind::Wait);
        checker.observe(&Observed::Discarded {
            task: TASK,
            kind: TaskKind::Wait,
            error: crate::error::AclError::from(0),
            at_ns: 1,
        });
        checker.read(|st| {
            let queued: Vec<u64> = st.streams[&TASK.stream]
                .queue
                .iter()
                .map(|p| p.id)
                .collect();
            assert_eq!(queued, [1, 2]);
        });
    }
}
