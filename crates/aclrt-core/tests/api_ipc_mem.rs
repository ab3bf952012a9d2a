//! Memory shared between processes: a physical allocation exported to a shareable handle and
//! an `aclrtMalloc` allocation exported by key, each imported by a child process (this test
//! binary run again in a role named by `ACLRT_TEST_ROLE`) and checked byte for byte both ways;
//! the whitelist, closed exports and an exporter that has ended.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use common::*;

const G: usize = 2 << 20;
const ROLE: &str = "ACLRT_TEST_ROLE";

fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// A child process in `role`, talking over its standard input and output.
struct Peer {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

impl Peer {
    fn spawn(role: &str) -> Peer {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_role",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ROLE, role)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let to = child.stdin.take().unwrap();
        let from = BufReader::new(child.stdout.take().unwrap());
        Peer { child, to, from }
    }

    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    fn send(&mut self, line: &str) {
        writeln!(self.to, "{line}").unwrap();
        self.to.flush().unwrap();
    }

    /// The next line the child prints that starts with `>` (the test harness prints others).
    fn recv(&mut self) -> String {
        loop {
            let mut line = String::new();
            assert!(
                self.from.read_line(&mut line).unwrap() > 0,
                "the child ended early"
            );
            // The harness may print "test child_role ... " just before, on the same line.
            if let Some((_, rest)) = line.split_once('>') {
                return rest.trim().to_owned();
            }
        }
    }

    fn finish(mut self) {
        drop(self.to);
        assert!(self.child.wait().unwrap().success(), "the child failed");
    }
}

/// Runs in the child process; does nothing in a normal test run.
#[test]
#[ignore = "a role of the child processes of the other tests"]
fn child_role() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    setup();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines().map(|l| l.unwrap());
    let say = |s: String| {
        println!(">{s}");
        std::io::stdout().flush().unwrap();
    };
    match role.as_str() {
        // Import a shareable handle, check the parent's bytes, write ours, report a second
        // handle's import code (not whitelisted).
        "import-physical" => {
            let handle: u64 = lines.next().unwrap().parse().unwrap();
            let other: u64 = lines.next().unwrap().parse().unwrap();
            let h = api::mem_import_from_shareable_handle(handle, 0).unwrap();
            let prop = api::mem_get_allocation_properties(h).unwrap();
            assert_eq!(prop.location_id, 0);
            let va = api::reserve_mem_address(G, 0, 0, 0).unwrap();
            api::map_mem(va, G, 0, h, 0).unwrap();
            assert_eq!(read_device(va, G), {
                let mut want = vec![0u8; G];
                want[4096..8192].copy_from_slice(&pattern(1, 4096));
                want
            });
            write_device(va + 8192, &pattern(2, 4096));
            let again = api::mem_import_from_shareable_handle(handle, 0);
            say(format!("again {}", code(again)));
            let e = api::mem_import_from_shareable_handle(other, 0).unwrap_err();
            say(format!(
                "other {} {}",
                e.code(),
                e.message().contains("whitelist")
            ));
            api::unmap_mem(va).unwrap();
            api::free_physical(h).unwrap();
            api::release_mem_address(va).unwrap();
            say("done".into());
        }
        // Export a physical allocation to anyone, say its handle, and end without freeing.
        "export-and-end" => {
            let h = api::malloc_physical(G, &device_prop(0), 0).unwrap();
            let s = api::mem_export_to_shareable_handle(h, 0, 1).unwrap();
            say(format!("{s}"));
            std::process::exit(0);
        }
        // Export mapped physical memory to anyone, say its handle, and end when told.
        "export-until-told" => {
            let h = api::malloc_physical(G, &device_prop(0), 0).unwrap();
            let va = api::reserve_mem_address(G, 0, 0, 0).unwrap();
            api::map_mem(va, G, 0, h, 0).unwrap();
            write_device(va, &pattern(5, 4096));
            let s = api::mem_export_to_shareable_handle(h, 0, 1).unwrap();
            say(format!("{s}"));
            let _ = lines.next();
            std::process::exit(0);
        }
        // Import by key, check the parent's bytes, write ours, close.
        "import-key" => {
            let key = lines.next().unwrap();
            let size: usize = lines.next().unwrap().parse().unwrap();
            let p = api::ipc_mem_import_by_key(&key, 0).unwrap();
            assert_eq!(read_device(p, size), pattern(3, size));
            assert_eq!(api::mem_get_address_range(p + 5).unwrap(), (p, size));
            write_device(p + 100, &pattern(4, 1000));
            // The range ends where the exporter's allocation ends.
            let mut byte = [0u8];
            // SAFETY: `byte` is writable; the device range is checked by the runtime.
            let past = unsafe {
                api::memcpy(
                    byte.as_mut_ptr() as usize,
                    1,
                    p + size,
                    1,
                    ACL_MEMCPY_DEVICE_TO_HOST,
                )
            };
            say(format!("past {}", code(past)));
            // A kernel queued before the close still reads the shared bytes when it runs; calls
            // after the close are refused the range.
            let stream = api::create_stream().unwrap();
            let gate = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            launch(stream, gated(&gate));
            let (s2, addr) = (seen.clone(), p + 100);
            launch(
                stream,
                kernel(move || {
                    // SAFETY: the imported range stays mapped for work queued before the close.
                    let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, 1000) };
                    s2.lock().unwrap().extend_from_slice(bytes);
                }),
            );
            api::ipc_mem_close(&key).unwrap();
            // SAFETY: `byte` is writable; the device range is checked by the runtime.
            let after = unsafe {
                api::memcpy(
                    byte.as_mut_ptr() as usize,
                    1,
                    p,
                    1,
                    ACL_MEMCPY_DEVICE_TO_HOST,
                )
            };
            say(format!("after {}", code(after)));
            gate.store(true, std::sync::atomic::Ordering::SeqCst);
            api::synchronize_stream(stream).unwrap();
            assert_eq!(*seen.lock().unwrap(), pattern(4, 1000));
            api::destroy_stream(stream).unwrap();
            say("done".into());
        }
        // Import and close a key again and again while a stream of this process stays busy;
        // report how many mappings of the exporter's memory file this process has, then again
        // once the stream is idle.
        "cycle-key" => {
            let key = lines.next().unwrap();
            let maps = || {
                std::fs::read_to_string("/proc/self/maps")
                    .unwrap()
                    .lines()
                    .filter(|l| l.contains("memfd:aclrt-physical"))
                    .count()
            };
            assert_eq!(maps(), 0);
            let stream = api::create_stream().unwrap();
            let gate = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            launch(stream, gated(&gate));
            let mut places = std::collections::HashSet::new();
            for i in 0..200u32 {
                let p = api::ipc_mem_import_by_key(&key, 0).unwrap();
                // Never where the work queued before an earlier close may still write.
                assert!(places.insert(p), "import {i} placed at {p:#x} again");
                assert_eq!(maps(), 1 + (i as usize).min(16), "import {i}");
                // Each import shows the exporter's bytes.
                assert_eq!(read_device(p, 64), pattern(3, 64), "import {i}");
                api::ipc_mem_close(&key).unwrap();
            }
            say(format!("busy {}", maps()));
            gate.store(true, std::sync::atomic::Ordering::SeqCst);
            api::synchronize_stream(stream).unwrap();
            // The work queued before every close has run: the next close releases them all.
            api::ipc_mem_import_by_key(&key, 0).unwrap();
            api::ipc_mem_close(&key).unwrap();
            say(format!("idle {}", maps()));
            api::destroy_stream(stream).unwrap();
        }
        // Import a key and say whether it shows the pattern of a seed.
        "check-key" => {
            let key = lines.next().unwrap();
            let size: usize = lines.next().unwrap().parse().unwrap();
            let seed: u8 = lines.next().unwrap().parse().unwrap();
            let p = api::ipc_mem_import_by_key(&key, 0).unwrap();
            say(format!(
                "same {}",
                read_device(p, size) == pattern(seed, size)
            ));
            api::ipc_mem_close(&key).unwrap();
        }
        // Import a key, say so, and when told say whether it still shows a seed's pattern.
        "hold-key" => {
            let key = lines.next().unwrap();
            let size: usize = lines.next().unwrap().parse().unwrap();
            let seed: u8 = lines.next().unwrap().parse().unwrap();
            let p = api::ipc_mem_import_by_key(&key, 0).unwrap();
            say("imported".into());
            let _ = lines.next();
            say(format!(
                "same {}",
                read_device(p, size) == pattern(seed, size)
            ));
            api::ipc_mem_close(&key).unwrap();
        }
        // Try importing a key; report the code.
        "try-key" => {
            let key = lines.next().unwrap();
            say(format!("{}", code(api::ipc_mem_import_by_key(&key, 0))));
        }
        _ => panic!("unknown role {role}"),
    }
    api::finalize().unwrap();
}

#[test]
fn physical_memory_mapped_in_two_processes() {
    let _serial = common::exclusive();
    setup();
    let h = api::malloc_physical(G, &device_prop(0), 0).unwrap();
    let va = api::reserve_mem_address(G, 0, 0, 0).unwrap();
    api::map_mem(va, G, 0, h, 0).unwrap();
    write_device(va + 4096, &pattern(1, 4096));
    // Export checks: handle type, flags, twice, an imported or unknown handle, same process.
    assert_eq!(
        code(api::mem_export_to_shareable_handle(h, 2, 0)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::mem_export_to_shareable_handle(h, 0, 2)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::mem_export_to_shareable_handle(0x77, 0, 0)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    let s = api::mem_export_to_shareable_handle(h, 0, 0).unwrap();
    assert_eq!(
        code(api::mem_export_to_shareable_handle(h, 0, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::mem_import_from_shareable_handle(s, 0)),
        ACL_ERROR_RT_PARAM_INVALID,
        "importing in the exporting process"
    );
    assert_eq!(
        code(api::mem_import_from_shareable_handle(s, 9)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(
        code(api::mem_set_pid_to_shareable_handle(s, &[])),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::mem_set_pid_to_shareable_handle(s ^ 1, &[1])),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    // A second allocation exported with validation and no pid set: the child may not import it.
    let h2 = api::malloc_physical(G, &device_prop(0), 0).unwrap();
    let s2 = api::mem_export_to_shareable_handle_v2(h2, 0, 1).unwrap();
    assert_eq!(
        code(api::mem_export_to_shareable_handle_v2(h2, 0, 2)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(
        code(api::mem_export_to_shareable_handle_v2(h2, 0, 7)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    // Only a default handle is a `uint64_t` a face reads; the call refuses every other type.
    assert!(api::share_handle_is_u64(1));
    assert!(!api::share_handle_is_u64(0));
    assert!(!api::share_handle_is_u64(2));
    assert!(!api::share_handle_is_u64(7));

    let mut child = Peer::spawn("import-physical");
    api::mem_set_pid_to_shareable_handle_v2(s, 1, &[child.pid()]).unwrap();
    child.send(&s.to_string());
    child.send(&s2.to_string());
    assert_eq!(child.recv(), format!("again {ACL_ERROR_RT_PARAM_INVALID}"));
    assert_eq!(
        child.recv(),
        format!("other {ACL_ERROR_RT_NO_PERMISSION} true")
    );
    assert_eq!(child.recv(), "done");
    child.finish();
    // The child's bytes, seen through this process's mapping.
    assert_eq!(read_device(va + 8192, 4096), pattern(2, 4096));
    assert_eq!(read_device(va + 4096, 4096), pattern(1, 4096));

    api::unmap_mem(va).unwrap();
    api::free_physical(h).unwrap();
    api::free_physical(h2).unwrap();
    api::release_mem_address(va).unwrap();
    api::finalize().unwrap();
}

#[test]
fn an_exporter_that_ended_is_reported() {
    let _serial = common::exclusive();
    setup();
    let mut child = Peer::spawn("export-and-end");
    let s: u64 = child.recv().parse().unwrap();
    child.finish();
    let e = api::mem_import_from_shareable_handle(s, 0).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_RT_INVALID_HANDLE);
    assert!(e.message().contains("has ended"), "{e}");
    api::finalize().unwrap();
}

#[test]
fn malloc_memory_imported_by_key_in_another_process() {
    let _serial = common::exclusive();
    setup();
    // A first allocation keeps the exported one off the segment's start.
    let small = api::malloc(100, 0).unwrap();
    let size = 1 << 20;
    let dev = api::malloc(size, 0).unwrap();
    write_device(dev, &pattern(3, size));
    // Refusals before any export.
    assert_eq!(
        code(api::ipc_mem_get_export_key(dev, size, 64, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::ipc_mem_get_export_key(dev, 0, 65, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::ipc_mem_get_export_key(dev, size, 65, 2)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::ipc_mem_get_export_key(dev, size + 1, 65, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::ipc_mem_get_export_key(dev + 64, 64, 65, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    // The small allocation shares its page with others' free space only; the neighbour of a
    // second small one is refused.
    let small2 = api::malloc(100, 0).unwrap();
    assert_eq!(
        code(api::ipc_mem_get_export_key(small, 100, 65, 0)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    let key = api::ipc_mem_get_export_key(dev, size, 65, 0).unwrap();
    assert!(key.len() < 65, "{key}");
    assert_eq!(
        code(api::ipc_mem_get_export_key(dev, size, 65, 0)),
        ACL_ERROR_RT_PARAM_INVALID,
        "exported twice"
    );
    // The exporter still uses its allocation as before.
    assert_eq!(read_device(dev, size), pattern(3, size));
    assert_eq!(
        code(api::ipc_mem_import_by_key(&key, 0)),
        ACL_ERROR_RT_PARAM_INVALID,
        "importing in the exporting process"
    );
    assert_eq!(
        code(api::ipc_mem_import_by_key("not a key", 0)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(
        code(api::ipc_mem_set_import_pid(&key, &[])),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::ipc_mem_set_import_pid("aclrt-ipc-1-2-3", &[1])),
        ACL_ERROR_RT_INVALID_HANDLE
    );

    // Not whitelisted yet: refused.
    let mut early = Peer::spawn("try-key");
    early.send(&key);
    assert_eq!(early.recv(), ACL_ERROR_RT_NO_PERMISSION.to_string());
    early.finish();

    let mut child = Peer::spawn("import-key");
    api::ipc_mem_set_import_pid(&key, &[child.pid()]).unwrap();
    child.send(&key);
    child.send(&size.to_string());
    assert_eq!(child.recv(), format!("past {ACL_ERROR_INVALID_PARAM}"));
    assert_eq!(child.recv(), format!("after {ACL_ERROR_INVALID_PARAM}"));
    assert_eq!(child.recv(), "done");
    child.finish();
    let mut want = pattern(3, size);
    want[100..1100].copy_from_slice(&pattern(4, 1000));
    assert_eq!(read_device(dev, size), want, "the child's bytes, seen here");

    // Closed by the exporter: no import any more.
    api::ipc_mem_close(&key).unwrap();
    assert_eq!(code(api::ipc_mem_close(&key)), ACL_ERROR_RT_INVALID_HANDLE);
    let mut late = Peer::spawn("try-key");
    late.send(&key);
    assert_eq!(late.recv(), ACL_ERROR_RT_INVALID_HANDLE.to_string());
    late.finish();
    // The allocation is still the exporter's, and frees as usual.
    assert_eq!(read_device(dev, 1100), want[..1100]);
    api::free(dev).unwrap();
    api::free(small).unwrap();
    api::free(small2).unwrap();
    // Freed: reused memory reads as zero.
    let again = api::malloc(size, 0).unwrap();
    assert_eq!(read_device(again, size), vec![0u8; size]);
    api::free(again).unwrap();
    api::finalize().unwrap();
}

#[test]
fn memory_mapped_from_a_process_that_ends_stays_usable() {
    let _serial = common::exclusive();
    setup();
    let mut child = Peer::spawn("export-until-told");
    let s: u64 = child.recv().parse().unwrap();
    let h = api::mem_import_from_shareable_handle(s, 0).unwrap();
    let va = api::reserve_mem_address(G, 0, 0, 0).unwrap();
    api::map_mem(va, G, 0, h, 0).unwrap();
    assert_eq!(read_device(va, 4096), pattern(5, 4096));
    child.send("end");
    child.finish();
    // The exporter has ended: the mapping still shows (and takes) the bytes; a new import of one of its
    // handles is refused with the documented code.
    assert_eq!(read_device(va, 4096), pattern(5, 4096));
    write_device(va + 4096, &pattern(6, 100));
    assert_eq!(read_device(va + 4096, 100), pattern(6, 100));
    let e = api::mem_import_from_shareable_handle(s ^ 1, 0).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_RT_INVALID_HANDLE);
    assert!(e.message().contains("has ended"), "{e}");
    api::unmap_mem(va).unwrap();
    api::free_physical(h).unwrap();
    api::release_mem_address(va).unwrap();
    api::finalize().unwrap();
}

/// Closed imports are kept for work queued before their close, but never more than the
/// runtime's bound (16) while a stream stays busy, and none once the streams are idle: 200
/// import/close cycles do not grow the importer's mappings.
#[test]
fn repeated_imports_and_closes_do_not_grow_the_importers_mappings() {
    let _serial = common::exclusive();
    setup();
    let size = 1 << 20;
    let dev = api::malloc(size, 0).unwrap();
    write_device(dev, &pattern(3, size));
    let key = api::ipc_mem_get_export_key(dev, size, 65, 1).unwrap();
    let mut child = Peer::spawn("cycle-key");
    child.send(&key);
    let busy: usize = child.recv().strip_prefix("busy ").unwrap().parse().unwrap();
    let idle: usize = child.recv().strip_prefix("idle ").unwrap().parse().unwrap();
    child.finish();
    // The work queued before every close is held behind a gate: the runtime keeps the latest
    // 16 closed imports mapped for it, no more.
    assert_eq!(busy, 16, "mappings kept after 200 closes on a busy stream");
    assert_eq!(idle, 0, "mappings kept once the streams were idle");
    api::ipc_mem_close(&key).unwrap();
    api::free(dev).unwrap();
    api::finalize().unwrap();
}

/// A kernel writing the allocation while it is exported: the export's move waits for the
/// kernel when it runs, and a kernel that starts during the move waits for its end, so the
/// write is never lost, whichever comes first. Two orders: the kernel queued (not yet run) at
/// the export, as the vendor's IPC samples do; the kernel running (held at a gate) while
/// another thread exports.
#[test]
fn kernel_writes_racing_an_export_are_not_lost() {
    let _serial = common::exclusive();
    setup();
    let size = 3 << 20;
    let stream = api::create_stream().unwrap();
    let check = |key: &str, seed: u8| {
        let mut child = Peer::spawn("check-key");
        child.send(key);
        child.send(&size.to_string());
        child.send(&seed.to_string());
        assert_eq!(child.recv(), "same true", "seed {seed}");
        child.finish();
    };
    let writer = move |dev: usize, seed: u8| {
        kernel(move || {
            let bytes = pattern(seed, size);
            // SAFETY: `dev` is a live allocation of `size` bytes until the test frees it,
            // after synchronising the stream.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dev as *mut u8, size) };
        })
    };
    // Queued, not synchronised, then exported at once.
    let dev = api::malloc(size, 0).unwrap();
    launch(stream, writer(dev, 21));
    let key = api::ipc_mem_get_export_key(dev, size, 65, 1).unwrap();
    api::synchronize_stream(stream).unwrap();
    check(&key, 21);
    api::free(dev).unwrap();
    // Running (held at a gate) while another thread exports.
    let dev = api::malloc(size, 0).unwrap();
    let gate = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    launch(stream, gated(&gate));
    launch(stream, writer(dev, 22));
    let exporter = std::thread::spawn(move || api::ipc_mem_get_export_key(dev, size, 65, 1));
    gate.store(true, std::sync::atomic::Ordering::SeqCst);
    let key = exporter.join().unwrap().unwrap();
    api::synchronize_stream(stream).unwrap();
    check(&key, 22);
    api::free(dev).unwrap();
    api::destroy_stream(stream).unwrap();
    api::finalize().unwrap();
}

/// The exporter frees its allocation (and the freed pages are allocated and written again)
/// while an importer still has it mapped: the importer keeps the exported bytes until it
/// closes, as memory is released on the device only once every process has let it go.
#[test]
fn an_import_keeps_its_bytes_after_the_exporter_frees() {
    let _serial = common::exclusive();
    setup();
    let size = 1 << 20;
    let dev = api::malloc(size, 0).unwrap();
    write_device(dev, &pattern(31, size));
    let key = api::ipc_mem_get_export_key(dev, size, 65, 1).unwrap();
    let mut child = Peer::spawn("hold-key");
    child.send(&key);
    child.send(&size.to_string());
    child.send("31");
    assert_eq!(child.recv(), "imported");
    api::free(dev).unwrap();
    let again = api::malloc(size, 0).unwrap();
    write_device(again, &pattern(32, size));
    assert_eq!(read_device(again, size), pattern(32, size));
    child.send("read");
    assert_eq!(child.recv(), "same true");
    child.finish();
    // Freed: the key names nothing any more.
    let mut late = Peer::spawn("try-key");
    late.send(&key);
    assert_eq!(late.recv(), ACL_ERROR_RT_INVALID_HANDLE.to_string());
    late.finish();
    api::free(again).unwrap();
    api::finalize().unwrap();
}

/// A host function queued for a subscribed thread waits at its stream's head for that thread,
/// which exports memory first: the export does not wait for the host function (it runs on the
/// subscribed thread and is not a writer of the stream's worker), so nothing hangs.
#[test]
fn an_export_by_the_thread_a_host_function_waits_for_does_not_hang() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let me = aclrt::pthread_id();
    api::subscribe_host_func(me, s).unwrap();
    let size = 1 << 20;
    let dev = api::malloc(size, 0).unwrap();
    // The worker reaches the host function right after this kernel.
    let reached = Arc::new(AtomicBool::new(false));
    let flag = reached.clone();
    api::launch_kernel(
        s,
        "",
        api::KernelAccess::default(),
        Box::new(move || {
            flag.store(true, Ordering::SeqCst);
            Ok(())
        }),
    )
    .unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let body = ran.clone();
    api::launch_host_func(s, Box::new(move || body.store(true, Ordering::SeqCst))).unwrap();
    while !reached.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    // A hang ends the test binary with a message instead of hanging it.
    let (done, watch) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            watch.recv_timeout(std::time::Duration::from_secs(60))
        {
            eprintln!("the export waited for the host function's thread: a deadlock");
            std::process::abort();
        }
    });
    let key = api::ipc_mem_get_export_key(dev, size, 65, 1).unwrap();
    api::process_host_func(10_000).unwrap();
    api::synchronize_stream(s).unwrap();
    drop(done);
    assert!(ran.load(Ordering::SeqCst));
    api::ipc_mem_close(&key).unwrap();
    api::unsubscribe_host_func(me, s).unwrap();
    api::free(dev).unwrap();
    api::destroy_stream(s).unwrap();
    api::finalize().unwrap();
}
