//! What the CUDA face remembers beside the core's objects: context flags and limits, primary
//! contexts, the thread's context stack, host allocation flags, registered host ranges,
//! managed allocations and loaded modules.
//!
//! One table per runtime, kept in the runtime's slot for the CUDA face (opaque there, so the
//! runtime knows nothing of CUDA): a new runtime (finalize, then init) starts with an empty one.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use crate::handle::ContextHandle;
use crate::runtime::Runtime;
use crate::sync::lock;

/// Limits a context holds (`CUlimit` values 0 to 6).
pub(crate) const LIMIT_DEFAULTS: [usize; 7] = [
    1024,    // CU_LIMIT_STACK_SIZE
    1 << 20, // CU_LIMIT_PRINTF_FIFO_SIZE
    8 << 20, // CU_LIMIT_MALLOC_HEAP_SIZE
    2,       // CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH
    2048,    // CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT
    64,      // CU_LIMIT_MAX_L2_FETCH_GRANULARITY
    0,       // CU_LIMIT_PERSISTING_L2_CACHE_SIZE
];

/// A context's CUDA settings.
#[derive(Debug, Clone)]
pub(crate) struct CtxInfo {
    pub(crate) flags: u32,
    pub(crate) limits: [usize; 7],
    pub(crate) cache_config: u32,
    /// The device whose primary context this is.
    pub(crate) primary_of: Option<i32>,
}

impl CtxInfo {
    pub(crate) fn new(flags: u32, primary_of: Option<i32>) -> Self {
        Self {
            flags,
            limits: LIMIT_DEFAULTS,
            cache_config: 0,
            primary_of,
        }
    }
}

/// A device's primary context.
#[derive(Debug, Default, Clone)]
pub(crate) struct Primary {
    pub(crate) context: Option<ContextHandle>,
    pub(crate) retained: u32,
    pub(crate) flags: u32,
}

/// A module loaded from a host shared library.
#[derive(Debug)]
pub(crate) struct Module {
    /// The `dlopen` handle.
    pub(crate) library: usize,
    /// Globals handed out by `cuModuleGetGlobal`: address → size.
    pub(crate) globals: BTreeMap<usize, usize>,
}

/// A kernel of a module.
#[derive(Debug, Clone)]
pub(crate) struct Function {
    pub(crate) module: u64,
    pub(crate) name: String,
    pub(crate) address: usize,
    /// Argument sizes from the kernel's `aclrtxCuArgs_` descriptor, if it has one.
    pub(crate) arg_sizes: Option<Vec<usize>>,
    pub(crate) max_dynamic_shared: usize,
    pub(crate) carveout: i32,
    pub(crate) cache_config: u32,
}

/// Everything the CUDA face remembers for one runtime.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) contexts: HashMap<u64, CtxInfo>,
    pub(crate) primary: HashMap<i32, Primary>,
    /// `cuMemHostAlloc` flags by base address.
    pub(crate) host_flags: HashMap<usize, u32>,
    /// `cuMemHostRegister` ranges: start → (length, flags).
    pub(crate) registered: BTreeMap<usize, (usize, u32)>,
    /// `cuMemAllocManaged` allocations: base → attach flags.
    pub(crate) managed: HashMap<usize, u32>,
    /// User objects by handle (`user_object.rs`); one released to 0 is dropped on the next
    /// lookup or creation.
    pub(crate) user_objects: HashMap<u64, std::sync::Arc<super::user_object::UserObject>>,
    pub(crate) modules: HashMap<u64, Module>,
    pub(crate) functions: HashMap<u64, Function>,
    /// The context each driver allocation was made in (device, managed and host allocations),
    /// by base address.
    pub(crate) owners: HashMap<usize, u64>,
    /// Stream captures, graphs and executable graphs.
    pub(crate) captures: super::capture::Captures,
    next_id: u64,
}

impl State {
    /// A fresh opaque handle value for a module or function (never 0, tagged in the top byte).
    pub(crate) fn new_id(&mut self, tag: u8) -> u64 {
        self.next_id += 1;
        (u64::from(tag) << 56) | (self.next_id << 4)
    }

    /// The registered host range containing `[ptr, ptr + len)`, if any.
    pub(crate) fn registered_range(&self, ptr: usize, len: usize) -> Option<(usize, usize, u32)> {
        let (&start, &(size, flags)) = self.registered.range(..=ptr).next_back()?;
        (ptr.saturating_add(len.max(1)) <= start + size).then_some((start, size, flags))
    }

    /// The module global containing `[ptr, ptr + len)`, if any.
    pub(crate) fn global_range(&self, ptr: usize, len: usize) -> Option<(usize, usize)> {
        self.modules.values().find_map(|m| {
            let (&start, &size) = m.globals.range(..=ptr).next_back()?;
            (ptr.saturating_add(len.max(1)) <= start + size).then_some((start, size))
        })
    }
}

/// Runs `body` on the table of `rt` (made empty at the first use).
pub(crate) fn with_state<T>(rt: &Runtime, body: impl FnOnce(&mut State) -> T) -> T {
    let mut slot = lock(&rt.cuda_state);
    let state = slot
        .get_or_insert_with(|| Box::new(State::default()))
        .downcast_mut::<State>()
        .expect("only the CUDA face fills its slot");
    body(state)
}

thread_local! {
    /// The contexts under the current one on this thread's context stack, bottom first, with
    /// the serial of the runtime they belong to.
    static STACK: RefCell<Vec<(u64, ContextHandle)>> = const { RefCell::new(Vec::new()) };
}

/// Pushes `ctx` under the current context (which stays on top).
pub(crate) fn stack_push(serial: u64, ctx: ContextHandle) {
    STACK.with(|s| s.borrow_mut().push((serial, ctx)));
}

/// Pops the context under the current one, skipping entries of other runtimes.
pub(crate) fn stack_pop(serial: u64) -> Option<ContextHandle> {
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        while let Some((owner, ctx)) = s.pop() {
            if owner == serial {
                return Some(ctx);
            }
        }
        None
    })
}
