//! Objects shared between processes: the completion state of IPC events and IPC notifies.
//!
//! An exported event or notify owns a [`Segment`]: an anonymous shared-memory file
//! (`memfd_create`) mapped by every process that uses the object. Its name is an [`Origin`]:
//! the creating process's pid, the file's descriptor number there, and a random token written
//! into the segment. Another process opens it through `/proc/<pid>/fd/<fd>` and checks the
//! token, so a descriptor number reused for another file is refused; it can do so only while
//! the creating process holds the file (until it destroys the object or exits). Each process
//! closes its mapping when its last user of the object goes; the kernel frees the file when
//! the last mapping is closed, killed processes included, so nothing is left behind to unlink.
//!
//! Invariants:
//! - Every shared word is an atomic in the mapping; no lock is held across processes.
//! - One futex word (`wake`) is bumped after every change a waiter may wait for (a record
//!   completed, a notify set); waiters read it before their last look at the condition and
//!   sleep only while it still holds that value (`FUTEX_WAIT` without the private flag, so
//!   wakes cross processes). No wake-up is lost, and no waiter spins: it sleeps in slices of
//!   [`TICK`], between which it looks whether the processes it depends on are still alive and
//!   whether its stream is dropping its work.
//! - Event records are numbered (`next_seq`, from 1); record `n` completes slot `n % SLOTS`,
//!   which names the recording process. A wait on record `n` fails when the process that
//!   recorded it is gone before completing it.
//! - A slot belongs to one record at a time. A recorder claims slot `n % SLOTS` for record `n`
//!   with one compare-and-swap of its `issued` word, from the value `p` it read, and only when
//!   `done == p` (record `p` completed) and `p` is older than `n`. So of two recorders (of any
//!   processes) that read the same free slot, exactly one claims it; the other sees a newer
//!   `issued` or finds the slot's record pending, and takes a fresh number (`207007` after
//!   [`SLOTS`] busy slots in a row). Numbers so skipped are never published. Hence `done` of a
//!   slot only moves forward, and "`done` holds `n` or later" means "record `n` completed",
//!   whatever the reader. The recorder's pid is written after the claim and before the record
//!   is published as `latest`; a reader waits only on records it saw published, and looks at
//!   the pid only while the record is pending, when no one else may claim the slot.
//! - `latest` only moves forward (a compare-and-swap loop keeps the newer of two records
//!   published concurrently).
//! - A notify wait fails when it waits on a notify that another process had attached to and
//!   every other process has gone (no one is left to record it).
//! - Processes are named by pid and start time (`/proc/<pid>/stat`), so a reused pid is not
//!   mistaken for the process that left; a zombie counts as gone.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::os::fd::{AsRawFd, IntoRawFd};
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::codes::*;
use crate::error::{bail, Error, Result};
use crate::observe::TaskRef;
use crate::sync::lock;

/// Event records that may be pending at once on one IPC event.
pub const SLOTS: usize = 128;
/// Processes that may hold one IPC object at once.
pub const PEERS: usize = 32;
/// Pids an exported notify's allow list holds.
pub const ALLOWED: usize = 64;
/// The longest a waiter sleeps before it looks again whether its partners are alive.
pub const TICK: Duration = Duration::from_millis(20);
/// Bytes of an event's IPC handle (`ACL_IPC_EVENT_HANDLE_SIZE`).
pub const HANDLE_SIZE: usize = 64;

const MAGIC: u64 = u64::from_le_bytes(*b"ACLRTIPC");

/// What a segment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Event = 1,
    Notify = 2,
}

/// One process attached to a segment: pid (0 = free, -1 = being claimed) and start time.
#[repr(C)]
struct Peer {
    pid: AtomicI32,
    start: AtomicU64,
}

/// One record slot of an event.
#[repr(C)]
struct Slot {
    /// The latest record placed in the slot.
    issued: AtomicU32,
    /// The latest record of the slot that completed.
    done: AtomicU32,
    /// The process that recorded `issued`.
    pid: AtomicI32,
    start: AtomicU64,
}

/// The shared memory of one IPC object.
#[repr(C)]
struct Shared {
    magic: AtomicU64,
    token: AtomicU64,
    kind: AtomicU32,
    /// The futex word: bumped after every completion and every notify record.
    wake: AtomicU32,
    /// Event: the last record number handed out.
    next_seq: AtomicU32,
    /// Event: the latest record queued (0 before the first).
    latest: AtomicU32,
    /// Notify: 1 while set.
    signal: AtomicU32,
    /// Notify: 1 when importers must be on the allow list.
    validate_pids: AtomicU32,
    /// Notify: how many imports by other processes than the exporter there have been.
    imports: AtomicU32,
    owner_pid: AtomicI32,
    peers: [Peer; PEERS],
    allowed: [AtomicI32; ALLOWED],
    slots: [Slot; SLOTS],
}

/// The name of a segment: enough for another process to open it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Origin {
    pub(crate) pid: i32,
    pub(crate) fd: i32,
    pub(crate) token: u64,
}

impl Origin {
    /// The 64 bytes of an `aclrtIpcEventHandle`.
    pub(crate) fn to_handle(self) -> [u8; HANDLE_SIZE] {
        let mut out = [0u8; HANDLE_SIZE];
        out[0..8].copy_from_slice(&MAGIC.to_le_bytes());
        out[8..12].copy_from_slice(&(Kind::Event as u32).to_le_bytes());
        out[12..16].copy_from_slice(&self.pid.to_le_bytes());
        out[16..20].copy_from_slice(&self.fd.to_le_bytes());
        out[24..32].copy_from_slice(&self.token.to_le_bytes());
        out
    }

    /// Reads an `aclrtIpcEventHandle`; `None` when the bytes are not one.
    pub(crate) fn from_handle(bytes: &[u8; HANDLE_SIZE]) -> Option<Self> {
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let magic = u64_at(0);
        let kind = u32_at(8);
        let origin = Self {
            pid: u32_at(12) as i32,
            fd: u32_at(16) as i32,
            token: u64_at(24),
        };
        (magic == MAGIC && kind == Kind::Event as u32 && origin.pid > 0 && origin.fd >= 0)
            .then_some(origin)
    }

    /// A notify's export key (a C string of at most 64 bytes with its NUL).
    pub(crate) fn to_key(self) -> String {
        format!("aclrt-notify-{}-{}-{:016x}", self.pid, self.fd, self.token)
    }

    /// Reads a notify's export key; `None` when the text is not one.
    pub(crate) fn from_key(key: &str) -> Option<Self> {
        let rest = key.strip_prefix("aclrt-notify-")?;
        let mut parts = rest.split('-');
        let pid = parts.next()?.parse().ok()?;
        let fd = parts.next()?.parse().ok()?;
        let token = parts.next().filter(|t| t.len() == 16)?;
        let token = u64::from_str_radix(token, 16).ok()?;
        (parts.next().is_none() && pid > 0 && fd >= 0).then_some(Self { pid, fd, token })
    }
}

/// A process, as a waiter checks it is still there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Process {
    pid: i32,
    start: u64,
}

impl Process {
    fn me() -> Self {
        let pid = std::process::id() as i32;
        Self {
            pid,
            start: start_time(pid).unwrap_or(0),
        }
    }

    /// Alive, not a zombie, and not a later process that reuses the pid.
    fn alive(self) -> bool {
        match stat_of(self.pid) {
            Some((state, start)) => !matches!(state, 'Z' | 'X') && start == self.start,
            None => false,
        }
    }
}

/// State and start time (field 22) of `/proc/<pid>/stat`.
fn stat_of(pid: i32) -> Option<(char, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: the fields follow the last ')'.
    let after = &text[text.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // Field 3 is the state; the start time is field 22, 19 further on.
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

fn start_time(pid: i32) -> Option<u64> {
    stat_of(pid).map(|(_, start)| start)
}

fn os_error(what: &str) -> Error {
    Error::new(
        ACL_ERROR_RT_IPC_ERROR,
        format!("{what}: {}", std::io::Error::last_os_error()),
    )
}

fn random_token() -> u64 {
    let mut token = 0u64;
    // SAFETY: writes at most 8 bytes into `token`.
    let n = unsafe { libc::getrandom((&raw mut token).cast(), 8, 0) };
    if n != 8 || token == 0 {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1);
        token = t ^ (u64::from(std::process::id()) << 32) | 1;
    }
    token
}

fn futex_wait(word: &AtomicU32, expected: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `word` is a live, aligned u32 in a shared mapping; the kernel only reads it.
    // Shared (not private) so that wakes from other processes reach it. EAGAIN (the word
    // changed), EINTR and ETIMEDOUT all send the caller back to look again.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            &raw const ts,
            std::ptr::null::<u32>(),
            0u32,
        );
    }
}

fn futex_wake_all(word: &AtomicU32) {
    // SAFETY: as in `futex_wait`; waking has no memory effect.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE,
            i32::MAX,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<u32>(),
            0u32,
        );
    }
}

/// The record task of each IPC event record (and the latest IPC notify record) this process
/// ran, while tasks are observed, so that a wait of this process that a record released names
/// it (the happens-before edge the checker and traces see; records of other processes have none
/// here). Keyed by the object's token and the record's slot (`seq % SLOTS`), each entry holding
/// the record's number and its task: a record's entry is replaced when its slot's next record
/// of this process is noted, so an object holds at most [`SLOTS`] entries and noting one costs
/// one insertion.
pub(crate) struct Recorders(BTreeMap<(u64, u32), (u32, TaskRef)>);

fn recorders() -> &'static Mutex<Recorders> {
    static RECORDERS: OnceLock<Mutex<Recorders>> = OnceLock::new();
    RECORDERS.get_or_init(|| Mutex::new(Recorders(BTreeMap::new())))
}

/// The number under which a notify's latest record in this process is noted.
pub(crate) const NOTIFY_SEQ: u32 = 0;

/// Notes that `task` ran record `seq` of the object `token` names.
pub(crate) fn note_recorder(token: u64, seq: u32, task: TaskRef) {
    let slot = seq % SLOTS as u32;
    lock(recorders()).0.insert((token, slot), (seq, task));
}

/// The task that ran record `seq` of the object `token` names, if this process ran it and the
/// record's slot has not been noted for a later record since.
pub(crate) fn recorder_of(token: u64, seq: u32) -> Option<TaskRef> {
    let slot = seq % SLOTS as u32;
    match lock(recorders()).0.get(&(token, slot)) {
        Some(&(noted, task)) if noted == seq => Some(task),
        _ => None,
    }
}

/// How a wait on shared state ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Waited {
    /// The condition holds (a notify wait has taken and cleared the signal).
    Done,
    /// The deadline passed first.
    TimedOut,
    /// The caller's `interrupt` held (its stream drops its work).
    Interrupted,
    /// The process the wait depends on is gone (`pid`).
    Gone(i32),
}

/// How a claim of a record slot ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Claim {
    Claimed,
    /// The slot's record is pending.
    Busy,
    /// A newer record holds the slot.
    Overtaken,
}

/// This process's mapping of one IPC object.
pub(crate) struct Segment {
    shared: *const Shared,
    fd: libc::c_int,
    origin: Origin,
    /// The peer slot this mapping holds.
    peer: usize,
    me: Process,
    /// Made by `create` (not opened).
    created: bool,
}

// SAFETY: `shared` points into a mapping that lives as long as the segment and is only reached
// through atomics; the fd is owned.
unsafe impl Send for Segment {}
// SAFETY: as above.
unsafe impl Sync for Segment {}

impl Segment {
    fn shared(&self) -> &Shared {
        // SAFETY: mapped for the segment's lifetime (unmapped only in Drop), sized and aligned
        // for `Shared`, whose fields are all atomics.
        unsafe { &*self.shared }
    }

    /// The object's name for other processes.
    pub(crate) fn origin(&self) -> Origin {
        self.origin
    }

    /// Whether this process created the object.
    pub(crate) fn is_owner(&self) -> bool {
        self.origin.pid == self.me.pid
    }

    /// Whether this mapping is the creating one (not one opened from the origin).
    pub(crate) fn is_creator(&self) -> bool {
        self.created
    }

    fn map(fd: libc::c_int) -> Result<*const Shared> {
        let len = std::mem::size_of::<Shared>();
        // SAFETY: a fresh shared mapping of an fd we own; checked against MAP_FAILED.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(os_error("mapping the IPC object"));
        }
        Ok(ptr as *const Shared)
    }

    /// A new object of `kind`, owned by this process.
    pub(crate) fn create(kind: Kind) -> Result<Self> {
        let len = std::mem::size_of::<Shared>() as libc::off_t;
        let file = crate::memory::pages::memory_file(c"aclrt-ipc", len).map_err(|e| {
            let what = if e.sizing {
                "sizing the IPC object"
            } else {
                "creating the IPC object"
            };
            Error::new(ACL_ERROR_RT_IPC_ERROR, format!("{what}: {}", e.os))
        })?;
        let shared = Self::map(file.as_raw_fd())?;
        // The segment owns the descriptor from here on and closes it when dropped.
        let fd = file.into_raw_fd();
        let me = Process::me();
        let origin = Origin {
            pid: me.pid,
            fd,
            token: random_token(),
        };
        let mut segment = Self {
            shared,
            fd,
            origin,
            peer: 0,
            me,
            created: true,
        };
        let s = segment.shared();
        s.token.store(origin.token, Ordering::Relaxed);
        s.kind.store(kind as u32, Ordering::Relaxed);
        s.owner_pid.store(me.pid, Ordering::Relaxed);
        s.magic.store(MAGIC, Ordering::Release);
        segment.peer = segment.attach().expect("a new object has free peer slots");
        Ok(segment)
    }

    /// Opens the object `origin` names, of `kind`. `ACL_ERROR_RT_IPC_ERROR` when it cannot be
    /// reached (its owner destroyed it or exited) or is not one.
    pub(crate) fn open(origin: Origin, kind: Kind) -> Result<Self> {
        let gone = || {
            Error::new(
                ACL_ERROR_RT_IPC_ERROR,
                format!(
                    "the IPC object of process {} (fd {}) cannot be opened: it was destroyed, \
                     or its process exited",
                    origin.pid, origin.fd
                ),
            )
        };
        let path = CString::new(format!("/proc/{}/fd/{}", origin.pid, origin.fd)).expect("no NUL");
        // SAFETY: a valid C string; the fd returned is owned below.
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(gone());
        }
        let close = |e: Error| {
            // SAFETY: ours, not used again.
            unsafe { libc::close(fd) };
            Err(e)
        };
        // SAFETY: a zeroed stat is a valid out-buffer for fstat.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `fd` is ours; `st` is writable.
        if unsafe { libc::fstat(fd, &raw mut st) } != 0
            || (st.st_size as usize) < std::mem::size_of::<Shared>()
        {
            return close(gone());
        }
        let shared = match Self::map(fd) {
            Ok(p) => p,
            Err(e) => return close(e),
        };
        let mut segment = Self {
            shared,
            fd,
            origin,
            peer: PEERS,
            me: Process::me(),
            created: false,
        };
        let s = segment.shared();
        if s.magic.load(Ordering::Acquire) != MAGIC
            || s.token.load(Ordering::Relaxed) != origin.token
            || s.kind.load(Ordering::Relaxed) != kind as u32
        {
            // Dropping the segment unmaps and closes; it holds no peer slot.
            return Err(gone());
        }
        match segment.attach() {
            Some(p) => segment.peer = p,
            None => bail!(
                ACL_ERROR_RT_IPC_ERROR,
                "the IPC object of process {} is open in {PEERS} processes already, the limit",
                origin.pid
            ),
        }
        Ok(segment)
    }

    /// Takes a peer slot for this process: a free one, or one a gone process left.
    fn attach(&self) -> Option<usize> {
        let s = self.shared();
        for (i, p) in s.peers.iter().enumerate() {
            let pid = p.pid.load(Ordering::Acquire);
            let free = pid == 0
                || (pid > 0
                    && !(Process {
                        pid,
                        start: p.start.load(Ordering::Acquire),
                    })
                    .alive());
            if free
                && p.pid
                    .compare_exchange(pid, -1, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
            {
                p.start.store(self.me.start, Ordering::Release);
                p.pid.store(self.me.pid, Ordering::Release);
                return Some(i);
            }
        }
        None
    }

    /// Whether a process other than this one holds the object now.
    fn others_alive(&self) -> bool {
        self.shared().peers.iter().any(|p| {
            let pid = p.pid.load(Ordering::Acquire);
            pid > 0
                && pid != self.me.pid
                && (Process {
                    pid,
                    start: p.start.load(Ordering::Acquire),
                })
                .alive()
        })
    }

    fn bump(&self) {
        let s = self.shared();
        s.wake.fetch_add(1, Ordering::SeqCst);
        futex_wake_all(&s.wake);
    }

    /// Sleeps until `ready` holds (`Done`), `interrupt` holds, the deadline passes, or
    /// `partner` says the process waited on is gone.
    fn wait(
        &self,
        mut ready: impl FnMut() -> bool,
        interrupt: &dyn Fn() -> bool,
        partner: impl Fn() -> Option<i32>,
        deadline: Option<Instant>,
    ) -> Waited {
        crate::sync::order::assert_none_held("waiting on an IPC object");
        let s = self.shared();
        loop {
            let seen = s.wake.load(Ordering::SeqCst);
            if ready() {
                return Waited::Done;
            }
            if interrupt() {
                return Waited::Interrupted;
            }
            if let Some(pid) = partner() {
                // It may have finished just before it went.
                return if ready() {
                    Waited::Done
                } else {
                    Waited::Gone(pid)
                };
            }
            let mut slice = TICK;
            if let Some(d) = deadline {
                let now = Instant::now();
                if now >= d {
                    return Waited::TimedOut;
                }
                slice = slice.min(d - now);
            }
            futex_wait(&s.wake, seen, slice);
        }
    }

    // ---- events

    fn slot(&self, seq: u32) -> &Slot {
        &self.shared().slots[seq as usize % SLOTS]
    }

    /// Whether record `seq` completed (0: nothing was recorded).
    pub(crate) fn record_done(&self, seq: u32) -> bool {
        seq == 0 || (self.slot(seq).done.load(Ordering::SeqCst).wrapping_sub(seq) as i32) >= 0
    }

    /// The latest record queued by any process (0 before the first).
    pub(crate) fn latest(&self) -> u32 {
        self.shared().latest.load(Ordering::SeqCst)
    }

    /// Numbers a new record by this process and makes it the latest. A number whose slot is
    /// busy (a record of another recorder is pending there) is skipped; `207007` when
    /// [`SLOTS`] numbers in a row find their slot busy (about that many records pending).
    pub(crate) fn begin_record(&self) -> Result<u32> {
        let mut busy = 0;
        while busy < SLOTS {
            let seq = self.next_number();
            let seen = self.slot(seq).issued.load(Ordering::SeqCst);
            match self.claim(seq, seen) {
                Claim::Claimed => {
                    self.publish(seq);
                    return Ok(seq);
                }
                Claim::Busy => busy += 1,
                // A later record took the slot between our number and our claim. Either way
                // the number is skipped: records need not be dense.
                Claim::Overtaken => {}
            }
        }
        bail!(
            ACL_ERROR_RT_NO_EVENT_RESOURCE,
            "{SLOTS} records of this IPC event are still pending, the limit"
        )
    }

    /// The next record number (never 0).
    fn next_number(&self) -> u32 {
        let s = self.shared();
        loop {
            let n = s.next_seq.fetch_add(1, Ordering::SeqCst).wrapping_add(1);
            if n != 0 {
                return n;
            }
        }
    }

    /// Claims the slot of record `seq`, whose `issued` word read `seen` (see the module
    /// invariants): the compare-and-swap makes the check and the claim one step.
    fn claim(&self, seq: u32, seen: u32) -> Claim {
        let slot = self.slot(seq);
        if (seen.wrapping_sub(seq) as i32) >= 0 {
            return Claim::Overtaken;
        }
        if slot.done.load(Ordering::SeqCst) != seen {
            return Claim::Busy;
        }
        match slot
            .issued
            .compare_exchange(seen, seq, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => {
                slot.pid.store(self.me.pid, Ordering::SeqCst);
                slot.start.store(self.me.start, Ordering::SeqCst);
                Claim::Claimed
            }
            // Another recorder claimed it first: its record is older (pending: busy) or newer.
            Err(now) if (now.wrapping_sub(seq) as i32) >= 0 => Claim::Overtaken,
            Err(_) => Claim::Busy,
        }
    }

    /// Makes claimed record `seq` the latest, unless a newer one is already.
    fn publish(&self, seq: u32) {
        let _ = self
            .shared()
            .latest
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |latest| {
                (latest == 0 || (seq.wrapping_sub(latest) as i32) > 0).then_some(seq)
            });
    }

    /// Record `seq` ran (or was discarded): it is complete; wakes every waiter.
    pub(crate) fn complete_record(&self, seq: u32) {
        self.slot(seq).done.store(seq, Ordering::SeqCst);
        self.bump();
    }

    /// Waits until record `seq` completes; `Gone` when the process that recorded it is.
    pub(crate) fn wait_record(
        &self,
        seq: u32,
        interrupt: &dyn Fn() -> bool,
        deadline: Option<Instant>,
    ) -> Waited {
        let partner = || {
            let slot = self.slot(seq);
            let recorder = Process {
                pid: slot.pid.load(Ordering::SeqCst),
                start: slot.start.load(Ordering::SeqCst),
            };
            (recorder != self.me && !recorder.alive()).then_some(recorder.pid)
        };
        self.wait(|| self.record_done(seq), interrupt, partner, deadline)
    }

    // ---- notifies

    /// Sets the notify and wakes every waiter.
    pub(crate) fn notify_record(&self) {
        self.shared().signal.store(1, Ordering::SeqCst);
        self.bump();
    }

    /// Clears the notify.
    pub(crate) fn notify_reset(&self) {
        self.shared().signal.store(0, Ordering::SeqCst);
    }

    pub(crate) fn notify_is_set(&self) -> bool {
        self.shared().signal.load(Ordering::SeqCst) != 0
    }

    /// Waits until the notify is set and clears it in the same step. `Gone` when another
    /// process had opened the notify and none is left.
    pub(crate) fn notify_wait_and_reset(
        &self,
        interrupt: &dyn Fn() -> bool,
        deadline: Option<Instant>,
    ) -> Waited {
        let s = self.shared();
        let take = || {
            s.signal
                .compare_exchange(1, 0, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        };
        let partner = || {
            let shared_once = s.imports.load(Ordering::SeqCst) > 0;
            (shared_once && !self.others_alive()).then(|| {
                if self.is_owner() {
                    0
                } else {
                    self.origin.pid
                }
            })
        };
        self.wait(take, interrupt, partner, deadline)
    }

    /// Export: whether importers must be on the allow list.
    pub(crate) fn set_validate_pids(&self, on: bool) {
        self.shared()
            .validate_pids
            .store(u32::from(on), Ordering::SeqCst);
    }

    /// Adds pids to the allow list. `107000` when it would hold more than [`ALLOWED`].
    pub(crate) fn allow(&self, pids: &[i32]) -> Result<()> {
        let s = self.shared();
        for &pid in pids {
            if s.allowed.iter().any(|a| a.load(Ordering::SeqCst) == pid) {
                continue;
            }
            let placed = s.allowed.iter().any(|a| {
                a.compare_exchange(0, pid, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
            });
            if !placed {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "the allow list of an IPC notify holds at most {ALLOWED} pids"
                );
            }
        }
        Ok(())
    }

    /// Import: refuses this process when the exporter asked for validation and did not list
    /// it (`507022`); counts an import by another process than the exporter.
    pub(crate) fn admit(&self) -> Result<()> {
        let s = self.shared();
        if !self.is_owner()
            && s.validate_pids.load(Ordering::SeqCst) != 0
            && !s
                .allowed
                .iter()
                .any(|a| a.load(Ordering::SeqCst) == self.me.pid)
        {
            bail!(
                ACL_ERROR_RT_IPC_ERROR,
                "process {} is not on the allow list of the notify exported by process {} \
                 (aclrtNotifySetImportPid), and the export asked for pid validation",
                self.me.pid,
                self.origin.pid
            );
        }
        // An import by the exporting process itself shares the notify with nobody new.
        if !self.is_owner() {
            s.imports.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        let s = self.shared();
        // A forked child holds its parent's mapping but not its parent's peer slot.
        let mine = std::process::id() as i32 == self.me.pid;
        if let Some(p) = s.peers.get(self.peer).filter(|_| mine) {
            // Leaving wakes waiters, who look whether anyone is left.
            p.pid.store(0, Ordering::SeqCst);
            self.bump();
        }
        // SAFETY: the mapping and fd are this segment's and used by nothing after this.
        unsafe {
            libc::munmap(
                self.shared as *mut libc::c_void,
                std::mem::size_of::<Shared>(),
            );
            libc::close(self.fd);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_noted_recorder_lasts_until_its_slot_is_noted_again() {
        let task = |task_id| TaskRef {
            device_id: 0,
            stream_id: 1,
            stream: 0x10,
            task_id,
        };
        // Tokens no other test notes: the table is the process's.
        let (a, b) = (0x5107_0000_0000_0001, 0x5107_0000_0000_0002);
        let later = 3 + SLOTS as u32;
        note_recorder(a, 3, task(1));
        note_recorder(a, 4, task(2));
        note_recorder(b, later, task(3));
        assert_eq!(recorder_of(a, 3), Some(task(1)));
        assert_eq!(recorder_of(a, later), None, "a number never noted");
        assert_eq!(recorder_of(b, 3), None, "another object's slot");
        note_recorder(a, later, task(4));
        assert_eq!(recorder_of(a, 3), None, "its slot was reused");
        assert_eq!(recorder_of(a, later), Some(task(4)));
        assert_eq!(recorder_of(a, 4), Some(task(2)), "other slots are kept");
        assert_eq!(recorder_of(b, later), Some(task(3)));
    }

    #[test]
    fn handles_and_keys_round_trip() {
        let o = Origin {
            pid: 4242,
            fd: 17,
            token: 0xdead_beef_0123_4567,
        };
        assert_eq!(Origin::from_handle(&o.to_handle()), Some(o));
        assert_eq!(Origin::from_key(&o.to_key()), Some(o));
        assert!(o.to_key().len() < 64);
        assert_eq!(Origin::from_handle(&[0; HANDLE_SIZE]), None);
        assert_eq!(Origin::from_key("aclrt-notify-1-2-3"), None);
        assert_eq!(Origin::from_key("name"), None);
    }

    #[test]
    fn records_complete_in_any_order_and_slots_are_reused_only_when_done() {
        let seg = Segment::create(Kind::Event).unwrap();
        assert!(seg.record_done(seg.latest()));
        let a = seg.begin_record().unwrap();
        let b = seg.begin_record().unwrap();
        assert_eq!((a, b, seg.latest()), (1, 2, 2));
        seg.complete_record(b);
        assert!(seg.record_done(b) && !seg.record_done(a));
        let never = &|| false;
        let soon = Some(Instant::now() + Duration::from_millis(30));
        assert_eq!(seg.wait_record(a, never, soon), Waited::TimedOut);
        seg.complete_record(a);
        assert_eq!(seg.wait_record(a, never, None), Waited::Done);
        // Fill every slot with a pending record: the next one finds every slot busy.
        let first = seg.begin_record().unwrap();
        for _ in 1..SLOTS {
            seg.begin_record().unwrap();
        }
        let e = seg.begin_record().unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_RT_NO_EVENT_RESOURCE);
        // One slot free again: a record takes it, skipping the numbers of busy slots.
        seg.complete_record(first);
        let again = seg.begin_record().unwrap();
        assert_eq!(again as usize % SLOTS, first as usize % SLOTS);
        assert_eq!(seg.latest(), again);
    }

    #[test]
    fn two_recorders_that_read_the_same_free_slot_cannot_both_claim_it() {
        let a = Segment::create(Kind::Event).unwrap();
        // The second recorder maps the object as another process would.
        let b = Segment::open(a.origin(), Kind::Event).unwrap();
        let first = a.next_number();
        let later = first + SLOTS as u32;
        let seen = a.slot(first).issued.load(Ordering::SeqCst);
        assert_eq!(b.slot(later).issued.load(Ordering::SeqCst), seen);
        // Both looked at the slot while it was free; the first claim wins, the stale one
        // finds the slot's record pending.
        assert_eq!(a.claim(first, seen), Claim::Claimed);
        assert_eq!(b.claim(later, seen), Claim::Busy);
        assert_eq!(a.slot(first).issued.load(Ordering::SeqCst), first);
        // The other way round: the newer record claims first, the older number is overtaken.
        a.complete_record(first);
        let seen = a.slot(first).issued.load(Ordering::SeqCst);
        let (old, new) = (first + SLOTS as u32, first + 2 * SLOTS as u32);
        assert_eq!(b.claim(new, seen), Claim::Claimed);
        assert_eq!(a.claim(old, seen), Claim::Overtaken);
        // `done` only moves forward: the older record was never placed, the newer completes.
        assert!(!a.record_done(new));
        b.complete_record(new);
        assert!(a.record_done(new) && a.record_done(first));
    }

    #[test]
    fn latest_never_moves_back() {
        let seg = Segment::create(Kind::Event).unwrap();
        seg.publish(5);
        seg.publish(3);
        assert_eq!(seg.latest(), 5);
        seg.publish(6);
        assert_eq!(seg.latest(), 6);
    }

    #[test]
    fn concurrent_recorders_of_two_mappings_complete_every_record_once() {
        let a = Arc::new(Segment::create(Kind::Event).unwrap());
        let b = Arc::new(Segment::open(a.origin(), Kind::Event).unwrap());
        let run = |seg: Arc<Segment>| {
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                for _ in 0..5_000 {
                    let n = seg.begin_record().unwrap();
                    // The claimed slot is ours until we complete it.
                    assert_eq!(seg.slot(n).issued.load(Ordering::SeqCst), n);
                    assert!(!seg.record_done(n));
                    seg.complete_record(n);
                    mine.push(n);
                }
                mine
            })
        };
        let (ta, tb) = (run(a.clone()), run(b.clone()));
        let mut all = ta.join().unwrap();
        all.extend(tb.join().unwrap());
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 10_000, "no record number was handed out twice");
        assert!(all.iter().all(|&n| a.record_done(n)));
    }

    #[test]
    fn a_segment_opens_by_its_origin_in_the_same_process_and_not_by_a_wrong_token() {
        let seg = Segment::create(Kind::Notify).unwrap();
        let other = Segment::open(seg.origin(), Kind::Notify).unwrap();
        other.notify_record();
        assert!(seg.notify_is_set());
        assert_eq!(seg.notify_wait_and_reset(&|| false, None), Waited::Done);
        assert!(!other.notify_is_set());
        let mut wrong = seg.origin();
        wrong.token ^= 1;
        assert_eq!(
            Segment::open(wrong, Kind::Notify).err().map(|e| e.code()),
            Some(ACL_ERROR_RT_IPC_ERROR)
        );
        assert_eq!(
            Segment::open(seg.origin(), Kind::Event)
                .err()
                .map(|e| e.code()),
            Some(ACL_ERROR_RT_IPC_ERROR)
        );
    }

    #[test]
    fn this_process_is_alive_and_a_wrong_start_time_is_not() {
        let me = Process::me();
        assert!(me.alive());
        assert!(!Process {
            start: me.start + 1,
            ..me
        }
        .alive());
    }
}
