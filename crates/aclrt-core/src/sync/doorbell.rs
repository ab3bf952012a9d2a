use super::shim::{fence, AtomicU8, Ordering};

const NOT_STARTED: u8 = 0;
const RUNNING: u8 = 1;
const SLEEPING: u8 = 2;
const EXITED: u8 = 3;

/// What a producer must do after [`Doorbell::ring`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ring {
    /// Nothing: the worker is running and will see the new work.
    None,
    /// The worker was never started: start it (this caller alone was told so).
    Start,
    /// The worker is parked: unpark it (this caller alone was told so).
    Unpark,
}

/// The handshake between producers that publish work for one consumer thread and that
/// consumer, which parks when it finds none.
///
/// # Protocol
/// A producer publishes its work, fences, then reads the state; the consumer publishes
/// `SLEEPING`, fences, then looks for work once more. With both fences `SeqCst`, one of the two
/// sees the other: either the consumer finds the work and does not park, or the producer finds
/// `SLEEPING`. Only the producer whose compare-exchange moves the state out of `SLEEPING` (or
/// `NOT_STARTED`) wakes (or starts) the consumer, so a wake-up is never lost and never doubled.
/// Model-checked in `tests/loom_doorbell.rs`.
#[derive(Debug)]
pub struct Doorbell {
    state: AtomicU8,
}

impl Default for Doorbell {
    fn default() -> Self {
        Self::new()
    }
}

impl Doorbell {
    /// A doorbell whose consumer has not been started.
    pub fn new() -> Self {
        Self {
            state: AtomicU8::new(NOT_STARTED),
        }
    }

    /// Producer side, after the work is published.
    pub fn ring(&self) -> Ring {
        fence(Ordering::SeqCst);
        match self.state.load(Ordering::SeqCst) {
            NOT_STARTED if self.claim(NOT_STARTED) => Ring::Start,
            SLEEPING if self.claim(SLEEPING) => Ring::Unpark,
            _ => Ring::None,
        }
    }

    fn claim(&self, from: u8) -> bool {
        self.state
            .compare_exchange(from, RUNNING, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Consumer side, having found no work: announces sleep and looks once more. Returns
    /// `true` if the consumer should park now; after parking (or if this returns `false`) it
    /// must call [`Doorbell::awake`] before looking for work again.
    pub fn prepare_to_park(&self, has_work: impl Fn() -> bool) -> bool {
        self.state.store(SLEEPING, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        !has_work()
    }

    /// Consumer side: awake again (woken, spuriously or not, or did not park).
    pub fn awake(&self) {
        self.state.store(RUNNING, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// Producer side: the producer that was told [`Ring::Start`] could not start the consumer
    /// and hands the duty back; the next [`Doorbell::ring`] is told to start it again. The
    /// producer must have emptied the queue first and must look at it once more afterwards
    /// (work published while it held the duty rang no further).
    pub fn give_up_start(&self) {
        self.state.store(NOT_STARTED, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// Consumer side: gone for good.
    pub fn exit(&self) {
        self.state.store(EXITED, Ordering::SeqCst);
    }
}
