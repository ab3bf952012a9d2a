//! User objects (`cuUserObjectCreate` …): a reference-counted host object whose destructor
//! runs once the last reference is released, and the references graphs own on them.
//!
//! Invariants: an object's count is the sum of the references its creator and users hold and
//! of those every graph, executable graph and in-flight launch owns. A graph's references are
//! a [`Refs`] value: copying one (cloning a graph, instantiating it, a child graph node's copy)
//! retains them, dropping one (destroying the graph or the executable graph) releases them, so
//! they can neither leak nor be released twice. An executable graph that owns references keeps
//! them until its launches have run: each launch queues, after its work, a task holding the
//! executable graph. The destructor runs exactly once, on a thread of its own with no runtime
//! lock held (it may be called while a graph is destroyed under the CUDA table's lock), as
//! CUDA runs it on an internal thread; it must not call the driver
//! (`CU_USER_OBJECT_NO_DESTRUCTOR_SYNC` is the only flag, and required). Once released to 0
//! the handle is dead: calls naming it are `CUDA_ERROR_INVALID_VALUE`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::Arc;

use super::api::{cu, fail};
use super::capture::with_graph_refs;
use super::codes::*;
use super::state::with_state;
use super::CuResultOf;

/// `CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`: the destructor is not synchronised with any CUDA
/// work; required by `cuUserObjectCreate`.
pub const CU_USER_OBJECT_NO_DESTRUCTOR_SYNC: u32 = 1;
/// `CU_GRAPH_USER_OBJECT_MOVE`: `cuGraphRetainUserObject` takes over the caller's references
/// instead of adding new ones.
pub const CU_GRAPH_USER_OBJECT_MOVE: u32 = 1;

/// Tag of user object handles (top byte).
const USER_OBJECT_TAG: u8 = b'U';
/// The most references one call adds or releases (`INT_MAX`).
const MAX_COUNT: u32 = i32::MAX as u32;

type Destructor = Box<dyn FnOnce() + Send>;

/// A user object: its counts and its destructor, taken once.
///
/// `count` is every reference (the destructor runs when it reaches 0); `caller` is the part
/// held outside graphs, the only references `cuUserObjectRelease` and
/// `CU_GRAPH_USER_OBJECT_MOVE` may give up. `caller <= count` at every moment: the caller's
/// references are added to `count` before `caller` and taken from `caller` before `count`.
pub(crate) struct UserObject {
    count: AtomicU64,
    caller: AtomicU64,
    /// A `Box<Destructor>` until it is taken to run; NULL after.
    destroy: AtomicPtr<Destructor>,
}

/// Takes `n` from `v` unless it holds less: the value before, or `None` (nothing taken).
fn take(v: &AtomicU64, n: u64) -> Option<u64> {
    v.fetch_update(Ordering::AcqRel, Ordering::Acquire, |cur| {
        cur.checked_sub(n)
    })
    .ok()
}

impl UserObject {
    fn new(count: u32, destroy: Destructor) -> Self {
        UserObject {
            count: AtomicU64::new(u64::from(count)),
            caller: AtomicU64::new(u64::from(count)),
            destroy: AtomicPtr::new(Box::into_raw(Box::new(destroy))),
        }
    }

    fn live(&self) -> bool {
        self.count.load(Ordering::Acquire) > 0
    }

    /// `n` more references held by a graph (or a copy of one).
    fn retain(&self, n: u32) {
        self.count.fetch_add(u64::from(n), Ordering::AcqRel);
    }

    /// `n` more references held by the caller.
    fn retain_caller(&self, n: u32) {
        self.retain(n);
        self.caller.fetch_add(u64::from(n), Ordering::AcqRel);
    }

    /// Hands `n` of the caller's references over to a graph: `false` (nothing moved) if the
    /// caller holds fewer.
    fn move_to_graph(&self, n: u32) -> bool {
        take(&self.caller, u64::from(n)).is_some()
    }

    /// Releases `n` references a graph held; the last runs the destructor. The count never
    /// goes below 0: a release of more than is counted (which the graphs' bookkeeping rules
    /// out) releases nothing.
    fn release_held(&self, n: u32) {
        if take(&self.count, u64::from(n)) == Some(u64::from(n)) {
            self.run_destructor();
        }
    }

    /// Releases `n` references the caller says it holds: `false` (nothing released) if the
    /// caller holds fewer (references graphs own are not the caller's to give up).
    fn release_checked(&self, n: u32) -> bool {
        if take(&self.caller, u64::from(n)).is_none() {
            return false;
        }
        self.release_held(n);
        true
    }

    fn run_destructor(&self) {
        let p = self.destroy.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if p.is_null() {
            return;
        }
        // SAFETY: made by `Box::into_raw` in `new`, and taken out exactly once (the swap).
        let destroy = unsafe { Box::from_raw(p) };
        // A thread of its own: the caller may hold runtime locks, and user code runs with none.
        // If no thread can be started the destructor is dropped without running.
        let _ = std::thread::Builder::new()
            .name("aclrt-user-object".into())
            .spawn(move || (*destroy)());
    }
}

impl Drop for UserObject {
    fn drop(&mut self) {
        let p = *self.destroy.get_mut();
        if !p.is_null() {
            // SAFETY: made by `Box::into_raw` and not taken: freed here, not run (an object
            // still counted when the runtime goes away).
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

/// References a graph or an executable graph owns: retained when copied, released when
/// dropped.
#[derive(Default)]
pub(crate) struct Refs(HashMap<u64, (Arc<UserObject>, u32)>);

impl Refs {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Takes `n` references the caller already counted on the object.
    fn add(&mut self, handle: u64, object: Arc<UserObject>, n: u32) {
        self.0.entry(handle).or_insert((object, 0)).1 += n;
    }

    /// Gives back `n` of the references held on `handle`: `false` if fewer are held.
    fn remove(&mut self, handle: u64, n: u32) -> bool {
        let Some((object, held)) = self.0.get_mut(&handle) else {
            return false;
        };
        if *held < n {
            return false;
        }
        *held -= n;
        let object = object.clone();
        if *held == 0 {
            self.0.remove(&handle);
        }
        object.release_held(n);
        true
    }
}

impl Clone for Refs {
    fn clone(&self) -> Self {
        for (object, n) in self.0.values() {
            object.retain(*n);
        }
        Refs(self.0.clone())
    }
}

impl Drop for Refs {
    fn drop(&mut self) {
        for (object, n) in self.0.values() {
            object.release_held(*n);
        }
    }
}

fn count_arg(n: u32, what: &str, call: &str) -> CuResultOf<()> {
    if n == 0 || n > MAX_COUNT {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: {what} {n} is not between 1 and {MAX_COUNT}"),
        );
    }
    Ok(())
}

fn object(handle: u64, call: &str) -> CuResultOf<Arc<UserObject>> {
    cu(|rt| {
        with_state(rt, |s| match s.user_objects.get(&handle) {
            Some(o) if o.live() => Ok(o.clone()),
            found => {
                if found.is_some() {
                    s.user_objects.remove(&handle);
                }
                fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{call}: {handle:#x} is not a live user object"),
                )
            }
        })
    })
}

/// `cuUserObjectCreate`: an object with `initial` references whose last release runs
/// `destroy` (on a thread of its own). `flags` must be `CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`;
/// `initial` 0 or above `INT_MAX` is `CUDA_ERROR_INVALID_VALUE`.
pub fn user_object_create(
    destroy: Box<dyn FnOnce() + Send>,
    initial: u32,
    flags: u32,
) -> CuResultOf<u64> {
    const CALL: &str = "cuUserObjectCreate";
    cu(|rt| {
        if flags != CU_USER_OBJECT_NO_DESTRUCTOR_SYNC {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("{CALL}: flags {flags:#x} must be CU_USER_OBJECT_NO_DESTRUCTOR_SYNC"),
            );
        }
        count_arg(initial, "initialRefcount", CALL)?;
        Ok(with_state(rt, |s| {
            s.user_objects.retain(|_, o| o.live());
            let id = s.new_id(USER_OBJECT_TAG);
            s.user_objects
                .insert(id, Arc::new(UserObject::new(initial, destroy)));
            id
        }))
    })
}

/// `cuUserObjectRetain`: `count` more references (1 to `INT_MAX`).
pub fn user_object_retain(handle: u64, count: u32) -> CuResultOf<()> {
    const CALL: &str = "cuUserObjectRetain";
    super::api::ensure_initialized()?;
    count_arg(count, "count", CALL)?;
    object(handle, CALL)?.retain_caller(count);
    Ok(())
}

/// `cuUserObjectRelease`: gives back `count` references; the last runs the destructor.
/// Releasing more than the caller holds (the object's references less those graphs own) is
/// `CUDA_ERROR_INVALID_VALUE` (and releases nothing).
pub fn user_object_release(handle: u64, count: u32) -> CuResultOf<()> {
    const CALL: &str = "cuUserObjectRelease";
    super::api::ensure_initialized()?;
    count_arg(count, "count", CALL)?;
    if !object(handle, CALL)?.release_checked(count) {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{CALL}: {handle:#x} has fewer than {count} references"),
        );
    }
    Ok(())
}

/// `cuGraphRetainUserObject`: graph `graph` owns `count` references more: new ones, or with
/// `CU_GRAPH_USER_OBJECT_MOVE` the caller's (moving more than the caller holds is
/// `CUDA_ERROR_INVALID_VALUE`). Other flags are `CUDA_ERROR_INVALID_VALUE`.
pub fn graph_retain_user_object(graph: u64, handle: u64, count: u32, flags: u32) -> CuResultOf<()> {
    const CALL: &str = "cuGraphRetainUserObject";
    super::api::ensure_initialized()?;
    if flags & !CU_GRAPH_USER_OBJECT_MOVE != 0 {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{CALL}: flags {flags:#x} are neither 0 nor CU_GRAPH_USER_OBJECT_MOVE"),
        );
    }
    count_arg(count, "count", CALL)?;
    let o = object(handle, CALL)?;
    with_graph_refs(graph, CALL, |refs| {
        if flags & CU_GRAPH_USER_OBJECT_MOVE == 0 {
            o.retain(count);
        } else if !o.move_to_graph(count) {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("{CALL}: the caller holds fewer than {count} references to {handle:#x}"),
            );
        }
        refs.add(handle, o, count);
        Ok(())
    })
}

/// `cuGraphReleaseUserObject`: graph `graph` gives back `count` of its references; more than
/// it owns is `CUDA_ERROR_INVALID_VALUE`.
pub fn graph_release_user_object(graph: u64, handle: u64, count: u32) -> CuResultOf<()> {
    const CALL: &str = "cuGraphReleaseUserObject";
    super::api::ensure_initialized()?;
    count_arg(count, "count", CALL)?;
    object(handle, CALL)?;
    with_graph_refs(graph, CALL, |refs| {
        if !refs.remove(handle, count) {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{CALL}: graph {graph:#x} owns fewer than {count} references to {handle:#x}"
                ),
            );
        }
        Ok(())
    })
}
