//! Call sites: the stack is captured (return addresses only) when a task is submitted, memory is
//! touched or freed, or a host thread blocks; it is symbolised only when a finding names it.
//! The site is the first frame outside the runtime, with file and line when the program has
//! debug information.

use super::FastMap;
use std::ffi::CStr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Frames captured at most (deep enough to leave the runtime from any entry point).
const MAX_FRAMES: usize = 40;

/// A captured stack: return addresses, innermost first, and where an interpreted program
/// (Python) called, when a [`SiteSource`] says so.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Stack(Box<[usize]>, Option<Arc<Site>>);

/// Tells where an interpreted program made the call under way on the calling thread (the
/// interpreter's own frames say nothing of the program's lines), or `None` when it does not
/// know. Called on the thread making the call, with no lock of the checker's held but
/// possibly with runtime locks held: it must not call into the runtime nor block.
pub type SiteSource = fn() -> Option<Site>;

static SITE_SOURCE: std::sync::atomic::AtomicPtr<()> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// Installs the face's [`SiteSource`] (the Python face does, at import).
pub fn set_site_source(source: SiteSource) {
    SITE_SOURCE.store(source as *mut (), std::sync::atomic::Ordering::Release);
}

fn program_site() -> Option<Arc<Site>> {
    let source = SITE_SOURCE.load(std::sync::atomic::Ordering::Acquire);
    if source.is_null() {
        return None;
    }
    // SAFETY: the only non-null value ever stored is a `SiteSource` cast to a pointer.
    let source: SiteSource = unsafe { std::mem::transmute::<*mut (), SiteSource>(source) };
    source().map(Arc::new)
}

/// Captures the calling thread's stack, up to and including the first frame outside the
/// runtime (each return address is classified once per thread).
pub(crate) fn capture() -> Stack {
    thread_local! {
        static RUNTIME_IP: std::cell::RefCell<FastMap<usize, bool>> =
            std::cell::RefCell::new(FastMap::default());
    }
    let mut ips = [0usize; MAX_FRAMES];
    let mut n = 0;
    let _ = RUNTIME_IP.try_with(|known| {
        let mut known = known.borrow_mut();
        let mut runtime = |ip: usize| *known.entry(ip).or_insert_with(|| is_runtime_frame(ip));
        if frame_pointers::walk(&mut ips, &mut n, &mut runtime) {
            return;
        }
        n = 0;
        unwinding(|| {
            backtrace::trace(|frame| {
                let ip = frame.ip() as usize;
                ips[n] = ip;
                n += 1;
                runtime(ip) && n < MAX_FRAMES
            })
        });
    });
    Stack(ips[..n].into(), program_site())
}

/// Walking the runtime's frames by their frame pointers: a few loads per frame where unwinding
/// by the unwind tables costs about half a microsecond per frame (most of the checker's cost
/// on tasks that name their site).
///
/// Sound only where every runtime frame keeps a frame pointer: the build says so
/// (`aclrt_frame_pointers`, set by the build script when the crates are compiled with
/// `-C force-frame-pointers=yes`, as the workspace's `.cargo/config.toml` asks; the standard
/// library keeps them too). The walk stops at the first frame outside the runtime, so the
/// program's own code needs none. Every frame address is checked to lie in this thread's
/// stack, above the walker's own frame and above the previous one; anything else (a build
/// without frame pointers, a signal stack) gives up, and the caller unwinds instead.
#[cfg(all(
    aclrt_frame_pointers,
    not(miri),
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod frame_pointers {
    use super::MAX_FRAMES;

    #[inline(never)]
    pub(super) fn walk(
        ips: &mut [usize; MAX_FRAMES],
        n: &mut usize,
        runtime: &mut impl FnMut(usize) -> bool,
    ) -> bool {
        let Some((low, top)) = stack_bounds() else {
            return false;
        };
        let marker = 0u8;
        let bottom = std::ptr::addr_of!(marker) as usize;
        // Not on this thread's own stack (a fiber's, a signal stack): nothing is known mapped.
        if bottom < low || bottom >= top {
            return false;
        }
        let mut fp: usize;
        // SAFETY: reads the frame pointer register; no memory is touched.
        unsafe {
            #[cfg(target_arch = "x86_64")]
            std::arch::asm!("mov {}, rbp", out(reg) fp, options(nomem, nostack, preserves_flags));
            #[cfg(target_arch = "aarch64")]
            std::arch::asm!("mov {}, x29", out(reg) fp, options(nomem, nostack, preserves_flags));
        }
        loop {
            if fp < bottom || !fp.is_multiple_of(std::mem::align_of::<usize>()) || fp + 16 > top {
                return false;
            }
            // SAFETY: `fp` lies between this frame and the top of this thread's stack, all of
            // it mapped; a frame record is the caller's frame pointer, then the return address
            // (x86-64 and AArch64 alike).
            let (next, ip) = unsafe { (*(fp as *const usize), *((fp + 8) as *const usize)) };
            if ip == 0 {
                return false;
            }
            ips[*n] = ip;
            *n += 1;
            if !runtime(ip) || *n == MAX_FRAMES {
                return true;
            }
            if next <= fp {
                return false;
            }
            fp = next;
        }
    }

    /// The lowest and highest addresses of the calling thread's stack, looked up once per
    /// thread.
    fn stack_bounds() -> Option<(usize, usize)> {
        thread_local! {
            static BOUNDS: std::cell::Cell<Option<(usize, usize)>> =
                const { std::cell::Cell::new(None) };
        }
        BOUNDS
            .try_with(|bounds| {
                if bounds.get().is_none() {
                    bounds.set(look_up_stack_bounds());
                }
                bounds.get()
            })
            .ok()
            .flatten()
    }

    fn look_up_stack_bounds() -> Option<(usize, usize)> {
        // SAFETY: the attribute object is initialised by pthread_getattr_np before it is read
        // and destroyed after; the out-pointers point at locals.
        unsafe {
            let mut attr: libc::pthread_attr_t = std::mem::zeroed();
            if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
                return None;
            }
            let mut addr: *mut libc::c_void = std::ptr::null_mut();
            let mut size: libc::size_t = 0;
            let got = libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
            libc::pthread_attr_destroy(&mut attr);
            (got == 0 && !addr.is_null()).then(|| (addr as usize, addr as usize + size))
        }
    }
}

/// Without frame pointers (or under Miri, or elsewhere): the walk never applies.
#[cfg(not(all(
    aclrt_frame_pointers,
    not(miri),
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
mod frame_pointers {
    use super::MAX_FRAMES;

    pub(super) fn walk(
        _ips: &mut [usize; MAX_FRAMES],
        _n: &mut usize,
        _runtime: &mut impl FnMut(usize) -> bool,
    ) -> bool {
        false
    }
}

/// Whether every symbol at `ip` is the runtime's.
fn is_runtime_frame(ip: usize) -> bool {
    if let Some(library) = runtime_library() {
        if object_of(ip).as_ref() == Some(library) {
            return true;
        }
    }
    let syms = symbols(ip);
    if syms.is_empty() {
        // Unknown code: keep walking only inside the runtime's own library.
        return false;
    }
    syms.iter()
        .all(|s| s.name.as_deref().is_none_or(is_runtime_name))
}

/// An interned stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct SiteId(u32);

/// Where a program called the runtime.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Site {
    /// The function (demangled, without its hash).
    pub function: String,
    /// The source file, when the program has debug information.
    pub file: Option<String>,
    /// The line, when the program has debug information.
    pub line: Option<u32>,
}

impl Site {
    /// `function (file:line)`, or what of it is known.
    pub fn describe(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{} ({f}:{l})", self.function),
            (Some(f), None) => format!("{} ({f})", self.function),
            _ => self.function.clone(),
        }
    }

    /// `file:line` (the file's name only), or the function when there is no line.
    pub fn short(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => {
                let name = std::path::Path::new(f)
                    .file_name()
                    .map_or_else(|| f.clone(), |n| n.to_string_lossy().into_owned());
                format!("{name}:{l}")
            }
            _ => self.function.clone(),
        }
    }

    pub(crate) fn unknown() -> Site {
        Site {
            function: "<unknown>".into(),
            file: None,
            line: None,
        }
    }
}

/// Interned stacks and their resolved sites.
#[derive(Default)]
pub(crate) struct Sites {
    ids: FastMap<Stack, SiteId>,
    stacks: Vec<Stack>,
    resolved: FastMap<SiteId, (Site, Option<String>)>,
    /// The id of the empty stack, once interned.
    empty: Option<SiteId>,
}

impl Sites {
    pub(crate) fn intern(&mut self, stack: Stack) -> SiteId {
        // Most tasks carry no stack: no hashing for them.
        if stack.0.is_empty() && stack.1.is_none() {
            if let Some(id) = self.empty {
                return id;
            }
        }
        if let Some(id) = self.ids.get(&stack) {
            return *id;
        }
        let id = SiteId(self.stacks.len() as u32);
        if stack.0.is_empty() && stack.1.is_none() {
            self.empty = Some(id);
        }
        self.stacks.push(stack.clone());
        self.ids.insert(stack, id);
        id
    }

    /// The site, and the runtime entry point the program called there (a C function's name),
    /// resolved once.
    pub(crate) fn resolve(&mut self, id: SiteId) -> (Site, Option<String>) {
        if let Some(r) = self.resolved.get(&id) {
            return r.clone();
        }
        let r = match self.stacks.get(id.0 as usize) {
            Some(Stack(ips, Some(program))) => {
                let entry = if ips.is_empty() {
                    None
                } else {
                    first_outside(&self.stacks[id.0 as usize]).1
                };
                ((**program).clone(), entry)
            }
            Some(stack) if !stack.0.is_empty() => first_outside(stack),
            _ => (Site::unknown(), None),
        };
        self.resolved.insert(id, r.clone());
        r
    }

    /// Stacks interned.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.stacks.len()
    }
}

/// Symbol prefixes of the runtime's own frames, and of what it is built from.
const RUNTIME_PREFIXES: &[&str] = &[
    "aclrt::",
    "aclrt_capi::",
    "ascendcl::",
    "aclrt_cuda::",
    "aclrt_python::",
    "std::",
    "core::",
    "alloc::",
    "backtrace::",
    "__rust",
    "rust_begin_unwind",
    "_Unwind",
    "pyo3::",
];

fn is_runtime_name(name: &str) -> bool {
    let name = name.trim_start_matches('<');
    RUNTIME_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The object (shared library or executable) holding `addr`, as `dladdr` names it.
fn object_of(addr: usize) -> Option<PathBuf> {
    // SAFETY: dladdr only reads the loader's tables and fills the zeroed struct it is given.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    if unsafe { libc::dladdr(addr as *const libc::c_void, &mut info) } == 0
        || info.dli_fname.is_null()
    {
        return None;
    }
    // SAFETY: dladdr succeeded, so dli_fname is the loader's NUL-terminated object name.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    Some(PathBuf::from(name.to_string_lossy().into_owned()))
}

/// The runtime's own object, when it is a shared library apart from the program (C and Python
/// programs): every frame in it is the runtime's, symbol names or not.
fn runtime_library() -> Option<&'static PathBuf> {
    static LIB: OnceLock<Option<PathBuf>> = OnceLock::new();
    LIB.get_or_init(|| {
        let own = object_of(runtime_library as *const () as usize)?;
        let exe = std::env::current_exe().ok()?;
        let same = std::fs::canonicalize(&own).ok() == std::fs::canonicalize(&exe).ok();
        (!same).then_some(own)
    })
    .as_ref()
}

/// One symbol of a frame (inlined frames give several per address, innermost first).
struct Symbol {
    name: Option<String>,
    file: Option<String>,
    line: Option<u32>,
}

fn symbols(ip: usize) -> Vec<Symbol> {
    let mut out = Vec::new();
    // A return address points after the call: look up the call itself.
    let addr = ip.saturating_sub(1) as *mut std::ffi::c_void;
    unwinding(|| {
        backtrace::resolve(addr, |s| {
            out.push(Symbol {
                name: s.name().map(|n| format!("{n:#}")),
                file: s.filename().map(|f| f.display().to_string()),
                line: s.lineno(),
            });
        })
    });
    out
}

/// Held while this module walks or symbolises a stack (the outermost call on a thread takes
/// it; nested ones, a symbol looked up while walking, run under it). The `backtrace` crate
/// serialises itself with a global lock a forked child would inherit held if another thread
/// of the parent was walking at the fork; the fork handler takes this lock first, so no
/// thread is inside `backtrace` when the process forks.
static UNWINDING: std::sync::Mutex<()> = std::sync::Mutex::new(());

thread_local! {
    static UNWINDING_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn unwinding<T>(body: impl FnOnce() -> T) -> T {
    let outermost = UNWINDING_DEPTH.try_with(|d| d.get() == 0).unwrap_or(true);
    let _held = outermost.then(|| {
        watch_forks();
        UNWINDING.lock().unwrap_or_else(|e| e.into_inner())
    });
    let _ = UNWINDING_DEPTH.try_with(|d| d.set(d.get() + 1));
    let out = body();
    let _ = UNWINDING_DEPTH.try_with(|d| d.set(d.get() - 1));
    out
}

/// Holds [`UNWINDING`] across `fork()`; the child gets it free.
fn watch_forks() {
    crate::fork::watch(
        crate::fork::Rank::Unwinding,
        || UNWINDING.lock().unwrap_or_else(|e| e.into_inner()),
        drop,
    );
}

/// The first frame of `stack` outside the runtime, and the last runtime entry point before it
/// (a C export such as `aclrtMemcpyAsync`).
fn first_outside(stack: &Stack) -> (Site, Option<String>) {
    let library = runtime_library();
    let mut entry: Option<String> = None;
    for &ip in stack.0.iter() {
        let in_library = library.is_some() && object_of(ip).as_ref() == library;
        let syms = symbols(ip);
        if in_library {
            if let Some(name) = syms.last().and_then(|s| s.name.clone()) {
                if !name.contains("::") {
                    entry = Some(name);
                }
            }
            continue;
        }
        if syms.is_empty() {
            // No symbol at all: a frame of a stripped program (or the runtime's, if it is
            // stripped and linked in): name it by its address.
            if library.is_some() {
                return (
                    Site {
                        function: format!("{ip:#x}"),
                        file: None,
                        line: None,
                    },
                    entry,
                );
            }
            continue;
        }
        for s in syms {
            let Some(name) = s.name else { continue };
            if is_runtime_name(&name) {
                continue;
            }
            return (
                Site {
                    function: name,
                    file: s.file,
                    line: s.line,
                },
                entry,
            );
        }
    }
    (Site::unknown(), entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn here() -> Stack {
        capture()
    }

    #[test]
    fn runtime_frames_are_skipped_by_name() {
        assert!(is_runtime_name("aclrt::api::global::acl"));
        assert!(is_runtime_name(
            "<aclrt::check::Checker as aclrt::observe::Observer>::observe"
        ));
        assert!(is_runtime_name("core::ops::function::FnOnce::call_once"));
        assert!(!is_runtime_name("main"));
        assert!(!is_runtime_name("check_races::copy_then_read"));
    }

    #[test]
    fn a_captured_stack_resolves_to_a_frame() {
        let mut sites = Sites::default();
        let a = sites.intern(here());
        assert_eq!(sites.len(), 1);
        // Unit tests live inside the runtime crate, so every frame of the test itself is a
        // runtime frame by name: the first frame outside is the test harness's or unknown.
        let (site, _) = sites.resolve(a);
        assert!(!site.function.is_empty());
    }

    /// The frame-pointer walk finds the same return addresses as unwinding by the tables.
    #[test]
    #[cfg(all(
        aclrt_frame_pointers,
        not(miri),
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    fn frame_pointer_walk_agrees_with_unwinding() {
        #[inline(never)]
        fn both() -> (Vec<usize>, Vec<usize>) {
            let mut ips = [0usize; MAX_FRAMES];
            let mut n = 0;
            // Three frames past the walker's own, then "outside".
            let mut left = 4;
            let done = frame_pointers::walk(&mut ips, &mut n, &mut |_| {
                left -= 1;
                left > 0
            });
            assert!(done, "a build with frame pointers walks them");
            let mut unwound = Vec::new();
            backtrace::trace(|f| {
                unwound.push(f.ip() as usize);
                true
            });
            (ips[..n].to_vec(), unwound)
        }
        let (walked, unwound) = both();
        assert_eq!(walked.len(), 4);
        // The first is where `both` called the walker (the unwinder saw `both` elsewhere,
        // calling it); from `both`'s caller on they agree.
        let at = unwound
            .iter()
            .position(|ip| *ip == walked[1])
            .expect("the walk's return addresses are on the unwound stack");
        assert_eq!(walked[1..], unwound[at..at + 3]);
    }
}
