//! The pooled scheduler: streams are queues, and a small pool of workers runs the ones that
//! have work (`Scheduler::Pool`).
//!
//! - **Ready queue** (`sync::ReadyQueue`): what is runnable, first in first out. A job is
//!   queued by whoever moved it into `QUEUED` (`sync::RunState`): a submitter that found it
//!   idle, a completion that woke it, or its own worker at the end of its turn.
//! - **Workers**: up to about as many as the process may use cores are started as work
//!   arrives, spin briefly and then park when the queue is empty, and live as long as the
//!   pool. Each runs one job at a time; a job runs a turn of one stream's tasks.
//! - **Hand-off**: a job woken from inside a task of this pool (a record that releases
//!   another stream's wait) is kept by that worker and run next, without a trip through the
//!   queue, unless an idle worker could take it now or the current stream goes on to a task
//!   that may block (user code, a wait with a timeout; a wait whose target is done does not).
//! - **Monitor**: a kernel or host function that blocks holds its worker. Each worker counts
//!   the tasks it enters and leaves (one relaxed add each: odd while inside one). While jobs
//!   wait and no worker is idle, a monitor thread looks every millisecond; a worker whose
//!   count is odd and unchanged since the last look has been inside one task that long; if it
//!   ran on a CPU meanwhile or sleeps (not merely waited for a core), the monitor starts an
//!   extra worker for it (at most one per queued job). Extra
//!   workers leave after [`EXTRA_IDLE`] without work. When nothing has waited for
//!   [`DOZE_TICKS`] ticks the monitor parks: an idle pool uses no CPU.
//!
//! # Invariants
//! - A job is run by at most one worker at a time (its `RunState`, see `sync/runstate.rs`).
//! - A pushed job is run: it is queued or in a worker's hand-off slot, and a pool with no
//!   worker starts one before queuing (a push that cannot start one fails, queuing nothing).
//! - Workers run jobs with no runtime lock held; the pool's own locks are leaves, internal to
//!   `sync` or this module.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::thread::Thread;
use std::time::Duration;

use crate::sync::{Pop, ReadyQueue};
use crate::threads::ThreadSpawner;

/// Something the pool runs: one turn of a stream.
pub(crate) trait Job: Send + Sync {
    fn run(self: Arc<Self>);
}

/// Spins an idle worker makes before it parks.
const IDLE_SPINS: u32 = 1_024;
/// How long an extra worker stays without work before it leaves.
const EXTRA_IDLE: Duration = Duration::from_millis(50);
/// How often the monitor looks while jobs wait and no worker is idle.
const MONITOR_TICK: Duration = Duration::from_millis(1);
/// Ticks the monitor stays awake with nothing to look at before it parks.
const DOZE_TICKS: u32 = 20;
/// The most workers a pool has at once, extra ones included.
const MAX_WORKERS: usize = 4_096;

const MONITOR_NONE: u8 = 0;
const MONITOR_AWAKE: u8 = 1;
const MONITOR_ASLEEP: u8 = 2;

/// A worker's task counter: odd while it is inside a task. Only the monitor writes `seen` and
/// `cpu_seen`.
#[derive(Default)]
struct Stamp {
    entered: AtomicU64,
    seen: AtomicU64,
    /// The worker's thread, once it runs.
    thread: OnceLock<Thread>,
    /// Its OS thread id and `pthread_t`, once it runs (0 before).
    tid: AtomicU64,
    pthread: AtomicU64,
    /// Its CPU time (ns) when the monitor first saw it inside its current task.
    cpu_seen: AtomicU64,
}

impl Stamp {
    /// Notes the calling thread as the worker's (its handle, OS id and `pthread_t`).
    fn note_calling_thread(&self) {
        let _ = self.thread.set(std::thread::current());
        let tid = crate::thread_state::os_thread_id();
        self.tid.store(u64::from(tid), Ordering::Release);
        self.pthread
            .store(crate::thread_state::pthread_id(), Ordering::Release);
    }

    /// CPU time the worker has used, in ns; `None` when it cannot be read.
    ///
    /// Only with the pool's list of stamps locked: a worker takes its stamp off that list
    /// before its thread ends, so the thread is alive here.
    fn cpu_ns(&self) -> Option<u64> {
        let pthread = self.pthread.load(Ordering::Acquire);
        if pthread == 0 {
            return None;
        }
        let mut clock: libc::clockid_t = 0;
        // SAFETY: `pthread` names a live thread of this process (see above); `clock` is a
        // valid out-pointer.
        if unsafe { libc::pthread_getcpuclockid(pthread as libc::pthread_t, &mut clock) } != 0 {
            return None;
        }
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `clock` was just obtained for a live thread; `ts` is a valid out-pointer.
        if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
            return None;
        }
        Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
    }

    /// Whether the worker, inside one task since the monitor's last look, holds its streams
    /// up: it ran on a CPU meanwhile (a long computation) or it sleeps (a blocking kernel).
    /// One that neither ran nor sleeps was ready to run with no core to run on (the machine is
    /// oversubscribed): another worker would only take a core from it. What cannot be read
    /// counts as holding up.
    fn holds_up(&self) -> bool {
        let (Some(now), before) = (self.cpu_ns(), self.cpu_seen.load(Ordering::Relaxed)) else {
            return true;
        };
        self.cpu_seen.store(now, Ordering::Relaxed);
        if now.saturating_sub(before) >= RAN_MEANWHILE.as_nanos() as u64 {
            return true;
        }
        !matches!(thread_state(self.tid.load(Ordering::Acquire)), Some(b'R'))
    }
}

/// CPU time that counts as having run between two looks of the monitor: far more than a
/// trivial task takes (a worker preempted in one ran a microsecond or two), far less than a
/// tick, so even workers sharing a core a hundred ways count while they compute.
const RAN_MEANWHILE: Duration = Duration::from_micros(10);

/// The scheduler state of thread `tid` of this process (`R` running or ready, `S` sleeping,
/// `D` waiting on I/O, ...), from `/proc`.
fn thread_state(tid: u64) -> Option<u8> {
    let stat = std::fs::read(format!("/proc/self/task/{tid}/stat")).ok()?;
    // The state follows the command name, which is in parentheses and may hold any byte.
    let close = stat.iter().rposition(|&b| b == b')')?;
    stat.get(close + 2).copied()
}

/// The pool of one runtime.
pub(crate) struct Pool {
    ready: ReadyQueue<Arc<dyn Job>>,
    spawner: Arc<dyn ThreadSpawner>,
    /// Workers kept while idle: the cores the process may use.
    core: usize,
    /// Workers alive (or being started).
    workers: AtomicUsize,
    /// Workers started but not yet looking for jobs.
    starting: AtomicUsize,
    next_worker: AtomicUsize,
    /// Every live worker's counter, for the monitor (a leaf lock, held only to copy or edit
    /// the list).
    stamps: Mutex<Vec<Arc<Stamp>>>,
    monitor_state: AtomicU8,
    monitor: OnceLock<Thread>,
    shut: AtomicBool,
}

/// What a worker thread of a pool keeps for itself.
struct Local {
    pool: *const Pool,
    stamp: Arc<Stamp>,
    /// The hand-off slot.
    next: Option<Arc<dyn Job>>,
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

impl Pool {
    /// A pool whose threads come from `spawner`; no thread starts before the first push.
    pub(crate) fn new(spawner: Arc<dyn ThreadSpawner>) -> Arc<Self> {
        let core = std::thread::available_parallelism().map_or(2, |n| n.get());
        Arc::new(Self {
            ready: ReadyQueue::new(),
            spawner,
            core,
            workers: AtomicUsize::new(0),
            starting: AtomicUsize::new(0),
            next_worker: AtomicUsize::new(0),
            stamps: Mutex::new(Vec::new()),
            monitor_state: AtomicU8::new(MONITOR_NONE),
            monitor: OnceLock::new(),
            shut: AtomicBool::new(false),
        })
    }

    /// Makes `job` runnable; from inside a task of this pool it may be handed off to the
    /// calling worker (`hand_off`). Fails only when the pool has no worker and the OS refuses
    /// one; then nothing was queued.
    pub(crate) fn push(self: &Arc<Self>, job: Arc<dyn Job>, hand_off: bool) -> std::io::Result<()> {
        let job = if hand_off {
            match self.keep_for_hand_off(job) {
                None => return Ok(()),
                Some(job) => job,
            }
        } else {
            job
        };
        // After a shut-down the workers are leaving: one started now runs the job, then
        // leaves too.
        if self.workers.load(Ordering::SeqCst) == 0 || self.shut.load(Ordering::SeqCst) {
            self.spawn_worker()?;
        }
        if !self.ready.push(job) {
            self.more_hands_if_needed();
        }
        Ok(())
    }

    /// Jobs wait and no worker is idle: the pool grows to its core count, and beyond that the
    /// monitor watches for workers stuck in a task. Checked after a push that found no idle
    /// worker and after a worker takes a job, so the monitor is awake whenever jobs wait for
    /// busy workers.
    fn more_hands_if_needed(self: &Arc<Self>) {
        if self.ready.is_empty() || self.ready.has_idle_worker() {
            return;
        }
        if self.workers.load(Ordering::SeqCst) < self.core {
            // Still growing to the core count: a refusal here is made up for later.
            let _ = self.spawn_worker();
        } else {
            self.wake_monitor();
        }
    }

    /// On a worker of this pool with an empty hand-off slot, keeps `job` there (`None`);
    /// otherwise gives it back.
    fn keep_for_hand_off(&self, job: Arc<dyn Job>) -> Option<Arc<dyn Job>> {
        let mut job = Some(job);
        // An error means this thread's slot is gone (a push from a thread-local's
        // destructor): no worker of this pool runs here any more, and the job goes back.
        let _ = LOCAL.try_with(|local| {
            let mut local = local.borrow_mut();
            if let Some(l) = local.as_mut() {
                if std::ptr::eq(l.pool, self) && l.next.is_none() {
                    l.next = job.take();
                }
            }
        });
        job
    }

    /// Unparks every worker, so one blocked inside a task (an event wait with a timeout, a
    /// blocking callback, a notify wait) re-checks its give-up condition; spurious for the
    /// others, which look again and sleep again. Rare: aborts, stops, forced destroys.
    pub(crate) fn unpark_workers(&self) {
        let stamps = lock_leaf(&self.stamps);
        for s in stamps.iter() {
            if let Some(t) = s.thread.get() {
                t.unpark();
            }
        }
    }

    /// Whether jobs wait for a worker.
    pub(crate) fn has_waiting_jobs(&self) -> bool {
        !self.ready.is_empty()
    }

    fn spawn_worker(self: &Arc<Self>) -> std::io::Result<()> {
        if self.workers.fetch_add(1, Ordering::SeqCst) >= MAX_WORKERS {
            self.workers.fetch_sub(1, Ordering::SeqCst);
            return Ok(());
        }
        let pool = Arc::clone(self);
        let n = self.next_worker.fetch_add(1, Ordering::Relaxed);
        let stamp = Arc::new(Stamp::default());
        lock_leaf(&self.stamps).push(stamp.clone());
        self.starting.fetch_add(1, Ordering::SeqCst);
        let mine = stamp.clone();
        let started = self.spawner.spawn(
            format!("aclrt-pool-{n}"),
            Box::new(move || pool.run_worker(stamp)),
        );
        match started {
            // Workers are never joined: they leave when the pool shuts down.
            Ok(_detached) => Ok(()),
            Err(e) => {
                self.workers.fetch_sub(1, Ordering::SeqCst);
                self.starting.fetch_sub(1, Ordering::SeqCst);
                let mut stamps = lock_leaf(&self.stamps);
                if let Some(i) = stamps.iter().position(|s| Arc::ptr_eq(s, &mine)) {
                    stamps.swap_remove(i);
                }
                Err(e)
            }
        }
    }

    fn run_worker(self: Arc<Self>, stamp: Arc<Stamp>) {
        stamp.note_calling_thread();
        LOCAL.with(|l| {
            *l.borrow_mut() = Some(Local {
                pool: Arc::as_ptr(&self),
                stamp: stamp.clone(),
                next: None,
            })
        });
        self.starting.fetch_sub(1, Ordering::SeqCst);
        // Off the list however the loop ends (a panic of the runtime's own included): the
        // monitor reads a listed worker's thread, which must then be alive.
        let _listed = Unlist(&self, &stamp);
        loop {
            let handed = LOCAL.with(|l| l.borrow_mut().as_mut().and_then(|l| l.next.take()));
            let job = match handed {
                Some(job) => job,
                None => {
                    let extra = self.workers.load(Ordering::SeqCst) > self.core;
                    match self.ready.pop(IDLE_SPINS, extra.then_some(EXTRA_IDLE)) {
                        Pop::Item(job) => {
                            self.more_hands_if_needed();
                            job
                        }
                        Pop::TimedOut => {
                            if self.retire_extra() {
                                break;
                            }
                            continue;
                        }
                        Pop::ShutDown => {
                            self.workers.fetch_sub(1, Ordering::SeqCst);
                            break;
                        }
                    }
                }
            };
            job.run();
        }
    }

    /// An extra worker found no work for a while: it leaves if the pool still has more than
    /// its core workers.
    fn retire_extra(&self) -> bool {
        self.workers
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n > self.core).then(|| n - 1)
            })
            .is_ok()
    }

    fn wake_monitor(self: &Arc<Self>) {
        std::sync::atomic::fence(Ordering::SeqCst);
        let claim = |from| {
            self.monitor_state
                .compare_exchange(from, MONITOR_AWAKE, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        };
        match self.monitor_state.load(Ordering::SeqCst) {
            MONITOR_NONE if claim(MONITOR_NONE) => {
                let pool = Arc::downgrade(self);
                let started = self
                    .spawner
                    .spawn("aclrt-pool-monitor".into(), Box::new(move || monitor(pool)));
                if started.is_err() {
                    // Tried again by the next push that needs it.
                    self.monitor_state.store(MONITOR_NONE, Ordering::SeqCst);
                }
            }
            MONITOR_ASLEEP if claim(MONITOR_ASLEEP) => {
                if let Some(t) = self.monitor.get() {
                    t.unpark();
                }
            }
            _ => {}
        }
    }

    /// Whether the monitor has something to look at: jobs wait and no worker is idle.
    fn needs_monitor(&self) -> bool {
        !self.ready.is_empty() && !self.ready.has_idle_worker() && !self.shut.load(Ordering::SeqCst)
    }

    /// One look of the monitor: starts extra workers for the queued jobs if some worker has
    /// been inside one task since the last look and holds its streams up ([`Stamp::holds_up`]).
    fn look(self: &Arc<Self>) {
        if !self.needs_monitor() {
            return;
        }
        let queued = self.ready.len();
        let stuck = {
            let stamps = lock_leaf(&self.stamps);
            let mut stuck = 0;
            for s in stamps.iter() {
                let now = s.entered.load(Ordering::Relaxed);
                if now % 2 == 1 {
                    if s.seen.load(Ordering::Relaxed) != now {
                        // A task the monitor sees for the first time: its CPU time so far.
                        s.cpu_seen.store(s.cpu_ns().unwrap_or(0), Ordering::Relaxed);
                    } else if stuck < queued && s.holds_up() {
                        stuck += 1;
                    }
                }
                s.seen.store(now, Ordering::Relaxed);
            }
            stuck
        };
        if stuck == 0 || !self.needs_monitor() {
            return;
        }
        // One more worker per stuck one, at most one per queued job: streams all blocked in
        // long kernels double the workers every look or two until each has one. A worker the
        // host merely descheduled is not stuck: on an oversubscribed machine more workers
        // would only take cores from the submitting threads and from each other.
        let wanted = self
            .ready
            .len()
            .saturating_sub(self.starting.load(Ordering::SeqCst))
            .min(stuck);
        for _ in 0..wanted {
            if self.spawn_worker().is_err() {
                break;
            }
        }
    }

    /// The runtime is going away: workers finish what is queued and leave, the monitor too.
    pub(crate) fn shut_down(&self) {
        self.shut.store(true, Ordering::SeqCst);
        self.ready.shut_down();
        if let Some(t) = self.monitor.get() {
            t.unpark();
        }
    }
}

/// The monitor thread: holds only a weak reference, so a pool whose runtime is gone ends it.
fn monitor(pool: Weak<Pool>) {
    if let Some(p) = pool.upgrade() {
        let _ = p.monitor.set(std::thread::current());
    }
    // Ticks in a row with nothing to look at.
    let mut quiet = 0;
    loop {
        let Some(p) = pool.upgrade() else { return };
        if p.shut.load(Ordering::SeqCst) {
            return;
        }
        if !p.needs_monitor() && quiet < DOZE_TICKS {
            // Dozes a few ticks before parking, still counted as awake: under a steady stream
            // of launches jobs wait and stop waiting many times a millisecond, and each time
            // would otherwise cost a submitter an unpark (and the core, to the monitor).
            quiet += 1;
            drop(p);
            std::thread::sleep(MONITOR_TICK);
            continue;
        }
        if !p.needs_monitor() {
            quiet = 0;
            p.monitor_state.store(MONITOR_ASLEEP, Ordering::SeqCst);
            std::sync::atomic::fence(Ordering::SeqCst);
            if !p.needs_monitor() && !p.shut.load(Ordering::SeqCst) {
                drop(p);
                std::thread::park();
            } else {
                p.monitor_state.store(MONITOR_AWAKE, Ordering::SeqCst);
            }
            continue;
        }
        quiet = 0;
        drop(p);
        std::thread::sleep(MONITOR_TICK);
        if let Some(p) = pool.upgrade() {
            p.look();
        }
    }
}

/// A worker of a pool is about to run a task: counted for the monitor. Also gives up the
/// hand-off slot when the task may block (user code, a wait that runs in place) or an idle
/// worker could run the handed job now.
pub(crate) fn task_begins(pool: &Arc<Pool>, may_block: bool) {
    let handed = LOCAL.with(|l| {
        let mut l = l.borrow_mut();
        let l = l.as_mut()?;
        l.stamp.entered.fetch_add(1, Ordering::Relaxed);
        if l.next.is_some() && (may_block || pool.ready.has_idle_worker()) {
            l.next.take()
        } else {
            None
        }
    });
    if let Some(job) = handed {
        // A worker exists (this one), so the push cannot fail.
        let _ = pool.push(job, false);
    }
}

/// Whether the calling worker holds a job in its hand-off slot (which runs as soon as the
/// current job lets go).
pub(crate) fn holds_hand_off() -> bool {
    LOCAL
        .try_with(|l| l.borrow().as_ref().is_some_and(|l| l.next.is_some()))
        .unwrap_or(false)
}

/// The task [`task_begins`] announced has ended.
pub(crate) fn task_ends() {
    LOCAL.with(|l| {
        if let Some(l) = l.borrow().as_ref() {
            l.stamp.entered.fetch_add(1, Ordering::Relaxed);
        }
    });
}

/// Locks one of the pool's own leaf locks (never held across anything else).
fn lock_leaf<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Takes a worker's stamp off its pool's list, and its local state away, when the worker's
/// loop ends.
/// A worker that ends by a panic of the runtime's own (user code runs under `catch_unwind`)
/// is also counted off, and a job in its hand-off slot queued for another worker.
struct Unlist<'a>(&'a Arc<Pool>, &'a Arc<Stamp>);

impl Drop for Unlist<'_> {
    fn drop(&mut self) {
        let mut stamps = lock_leaf(&self.0.stamps);
        if let Some(i) = stamps.iter().position(|s| Arc::ptr_eq(s, self.1)) {
            stamps.swap_remove(i);
        }
        drop(stamps);
        // Taken out before anything of it is dropped or pushed: both may use `LOCAL` again.
        let local = LOCAL.try_with(|l| l.borrow_mut().take()).ok().flatten();
        if std::thread::panicking() {
            self.0.workers.fetch_sub(1, Ordering::SeqCst);
            if let Some(job) = local.and_then(|l| l.next) {
                let _ = self.0.push(job, false);
            }
        }
    }
}

/// Shuts its pool down when the runtime that owns it is dropped.
pub(crate) struct Owner(pub(crate) Arc<Pool>);

impl Drop for Owner {
    fn drop(&mut self) {
        self.0.shut_down();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    struct Counted(mpsc::Sender<()>);

    impl Job for Counted {
        fn run(self: Arc<Self>) {
            let _ = self.0.send(());
        }
    }

    /// Pushes a job from its destructor.
    struct PushOnExit(Arc<Pool>, mpsc::Sender<()>);

    impl Drop for PushOnExit {
        fn drop(&mut self) {
            let _ = self.0.push(Arc::new(Counted(self.1.clone())), true);
        }
    }

    thread_local! {
        static PUSHER: RefCell<Option<PushOnExit>> = const { RefCell::new(None) };
    }

    #[test]
    fn a_push_from_a_thread_local_destructor_after_the_slot_is_gone_still_runs() {
        let pool = Pool::new(Arc::new(crate::threads::OsThreads));
        let (tx, rx) = mpsc::channel();
        let (p, t) = (pool.clone(), tx.clone());
        std::thread::spawn(move || {
            // Registered first, so destroyed after the hand-off slot (destructors of a
            // thread's locals run in the reverse order of their first use).
            PUSHER.with(|s| *s.borrow_mut() = Some(PushOnExit(p.clone(), t.clone())));
            p.push(Arc::new(Counted(t)), true).unwrap();
        })
        .join()
        .unwrap();
        rx.recv().unwrap();
        rx.recv().unwrap();
        drop(tx);
        pool.shut_down();
    }

    /// A stamp for the calling thread, as a worker makes its own.
    fn stamp_of_this_thread() -> Stamp {
        let stamp = Stamp::default();
        stamp.note_calling_thread();
        stamp
    }

    /// Whether this process can read its threads' states (some sandboxes hide `/proc`; the
    /// monitor then counts every worker inside one task as stuck).
    fn proc_readable() -> bool {
        std::fs::read_dir("/proc/self/task").is_ok()
    }

    #[test]
    fn a_worker_asleep_in_its_task_holds_up_and_one_on_a_cpu_too() {
        if !proc_readable() {
            return;
        }
        // Asleep: a thread parked until told.
        let (tx, rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let sleeper = std::thread::spawn(move || {
            tx.send(stamp_of_this_thread()).unwrap();
            let _ = done_rx.recv();
        });
        let stamp = rx.recv().unwrap();
        stamp
            .cpu_seen
            .store(stamp.cpu_ns().unwrap(), Ordering::Relaxed);
        // Wait until it is in its receive (its state is no longer running).
        while thread_state(stamp.tid.load(Ordering::Relaxed)) == Some(b'R') {
            std::thread::yield_now();
        }
        assert!(stamp.holds_up(), "a sleeping worker holds its streams up");
        drop(done_tx);
        sleeper.join().unwrap();

        // On a CPU: the calling thread, which computes between the two readings.
        let me = stamp_of_this_thread();
        me.cpu_seen.store(me.cpu_ns().unwrap(), Ordering::Relaxed);
        let start = me.cpu_ns().unwrap();
        while me.cpu_ns().unwrap() - start < 2 * RAN_MEANWHILE.as_nanos() as u64 {
            std::hint::spin_loop();
        }
        assert!(me.holds_up(), "a computing worker holds its streams up");
    }

    #[test]
    fn a_worker_ready_but_without_a_core_does_not_hold_up() {
        if !proc_readable() {
            return;
        }
        // The calling thread is running (state R) and has used no CPU since `cpu_seen`, as a
        // worker waiting for a core would look.
        let me = stamp_of_this_thread();
        me.cpu_seen.store(u64::MAX, Ordering::Relaxed);
        assert_eq!(thread_state(me.tid.load(Ordering::Relaxed)), Some(b'R'));
        assert!(!me.holds_up());
    }

    #[test]
    fn a_thread_state_is_read_from_proc_and_an_unknown_thread_has_none() {
        if !proc_readable() {
            return;
        }
        let me = crate::thread_state::os_thread_id();
        assert_eq!(thread_state(u64::from(me)), Some(b'R'));
        assert_eq!(thread_state(u64::from(u32::MAX)), None);
    }
}
