//! Memory calls.

mod common;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::{Config, ALIGNMENT};
use common::*;

fn bytes(ptr: usize, len: usize) -> Vec<u8> {
    // SAFETY: only called on live runtime allocations of at least `len` bytes.
    unsafe { std::slice::from_raw_parts(ptr as *const u8, len).to_vec() }
}

#[test]
fn malloc_alignment_policies_and_sizes() {
    let _serial = common::exclusive();
    setup();
    assert_eq!(ALIGNMENT, 64);
    for size in [1, 3, 63, 64, 65, 1000, 4096 + 7] {
        let p = api::malloc(size, ACL_MEM_MALLOC_HUGE_FIRST).unwrap();
        assert_eq!(p % 64, 0, "size {size}");
        assert!(bytes(p, size).iter().all(|&b| b == 0));
        let h = api::malloc_host(size).unwrap();
        assert_eq!(h % 64, 0);
        api::free(p).unwrap();
        api::free_host(h).unwrap();
    }
    assert_eq!(code(api::malloc(0, 0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::malloc_host(0)), ACL_ERROR_INVALID_PARAM);
    for policy in [
        ACL_MEM_MALLOC_HUGE_FIRST,
        ACL_MEM_MALLOC_HUGE_ONLY,
        ACL_MEM_MALLOC_NORMAL_ONLY,
        ACL_MEM_MALLOC_HUGE_FIRST_P2P,
        ACL_MEM_MALLOC_HUGE_ONLY_P2P,
        ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
        ACL_MEM_MALLOC_HUGE1G_ONLY,
        ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
        ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_LOW_BAND_WIDTH,
        ACL_MEM_MALLOC_NORMAL_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH,
        ACL_MEM_MALLOC_HUGE_ONLY | ACL_MEM_ACCESS_USER_SPACE_READONLY,
    ] {
        let p = api::malloc(128, policy).unwrap_or_else(|e| panic!("{policy:#x}: {e}"));
        api::free(p).unwrap();
    }
    for bad in [8, 0xFF, 0x200, 0x8000_0000] {
        assert_eq!(
            code(api::malloc(128, bad)),
            ACL_ERROR_INVALID_PARAM,
            "{bad:#x}"
        );
    }
    assert_eq!(api::live_objects().allocations, 0);
}

#[test]
fn capacity_and_mem_info() {
    let _serial = common::exclusive();
    api::configure(Config {
        device_memory: 1 << 20,
        ..Config::default()
    })
    .unwrap();
    setup();
    assert_eq!(api::get_mem_info(ACL_HBM_MEM).unwrap(), (1 << 20, 1 << 20));
    let a = api::malloc(256 << 10, 0).unwrap();
    assert_eq!(
        api::get_mem_info(ACL_HBM_MEM).unwrap(),
        (768 << 10, 1 << 20)
    );
    let b = api::malloc(512 << 10, 0).unwrap();
    assert_eq!(api::get_mem_info(ACL_HBM_MEM).unwrap().0, 256 << 10);
    assert_eq!(
        code(api::malloc((256 << 10) + 1, 0)),
        ACL_ERROR_RT_MEMORY_ALLOCATION
    );
    assert_eq!(
        code(api::malloc(2 << 20, 0)),
        ACL_ERROR_RT_MEMORY_ALLOCATION
    );
    let c = api::malloc(256 << 10, 0).unwrap();
    assert_eq!(api::get_mem_info(ACL_HBM_MEM).unwrap().0, 0);
    assert_eq!(code(api::malloc(1, 0)), ACL_ERROR_RT_MEMORY_ALLOCATION);
    // Host memory does not count against the device.
    let h = api::malloc_host(4 << 20).unwrap();
    api::free(a).unwrap();
    assert_eq!(api::get_mem_info(ACL_HBM_MEM).unwrap().0, 256 << 10);
    api::malloc(1, 0).unwrap();
    let (ddr_free, ddr_total) = api::get_mem_info(ACL_DDR_MEM).unwrap();
    assert!(ddr_total > 1 << 20 && ddr_free <= ddr_total);
    assert_eq!(code(api::get_mem_info(1000)), ACL_ERROR_INVALID_PARAM);
    api::free(b).unwrap();
    api::free(c).unwrap();
    api::free_host(h).unwrap();
}

#[test]
fn free_rules() {
    let _serial = common::exclusive();
    setup();
    assert_eq!(code(api::free(0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::free_host(0)), ACL_ERROR_INVALID_PARAM);
    let local = [0u8; 128];
    assert_eq!(
        code(api::free(local.as_ptr() as usize)),
        ACL_ERROR_RT_MEMORY_FREE
    );
    let p = api::malloc(128, 0).unwrap();
    let h = api::malloc_host(128).unwrap();
    // Each allocator frees only its own memory, and only from the start.
    assert_eq!(code(api::free_host(p)), ACL_ERROR_RT_MEMORY_FREE);
    assert_eq!(code(api::free(h)), ACL_ERROR_RT_MEMORY_FREE);
    assert_eq!(code(api::free(p + 64)), ACL_ERROR_RT_MEMORY_FREE);
    api::free(p).unwrap();
    assert_eq!(code(api::free(p)), ACL_ERROR_RT_MEMORY_FREE);
    api::free_host(h).unwrap();
    assert_eq!(code(api::free_host(h)), ACL_ERROR_RT_MEMORY_FREE);
}

#[test]
fn memcpy_rules() {
    let _serial = common::exclusive();
    setup();
    let src: Vec<u8> = (0..64).collect();
    let mut dst = vec![0u8; 64];
    let (s, d) = (src.as_ptr() as usize, dst.as_mut_ptr() as usize);
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        for kind in 0..=5 {
            dst.fill(0);
            api::memcpy(d, 64, s, 64, kind).unwrap();
            assert_eq!(dst, src, "kind {kind}");
        }
        for kind in [6, 7, 100] {
            assert_eq!(
                code(api::memcpy(d, 64, s, 64, kind)),
                ACL_ERROR_INVALID_PARAM
            );
        }
        assert_eq!(
            code(api::memcpy(d, 32, s, 64, 0)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(code(api::memcpy(0, 64, s, 64, 0)), ACL_ERROR_INVALID_PARAM);
        assert_eq!(code(api::memcpy(d, 64, 0, 64, 0)), ACL_ERROR_INVALID_PARAM);
        dst.fill(9);
        api::memcpy(d, 64, s, 0, 0).unwrap();
        assert!(dst.iter().all(|&b| b == 9));
    }
}

#[test]
fn overruns_of_runtime_allocations_are_refused_unwritten() {
    let _serial = common::exclusive();
    setup();
    let dev = api::malloc(64, 0).unwrap();
    let other = api::malloc(64, 0).unwrap();
    let src = vec![0xAAu8; 256];
    let s = src.as_ptr() as usize;
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        // Destination overrun: starts inside, ends past the end.
        assert_eq!(
            code(api::memcpy(dev + 32, 256, s, 64, ACL_MEMCPY_HOST_TO_DEVICE)),
            ACL_ERROR_INVALID_PARAM
        );
        assert!(api::get_recent_err_msg().unwrap().contains("overrun"));
        // Source overrun.
        let mut host = vec![0u8; 256];
        assert_eq!(
            code(api::memcpy(
                host.as_mut_ptr() as usize,
                256,
                dev,
                65,
                ACL_MEMCPY_DEVICE_TO_HOST
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert!(host.iter().all(|&b| b == 0));
        assert_eq!(
            code(api::memset(dev + 1, 64, 0x55, 64)),
            ACL_ERROR_INVALID_PARAM
        );
        let st = api::create_stream().unwrap();
        assert_eq!(
            code(api::memcpy_async(
                dev,
                256,
                s,
                65,
                ACL_MEMCPY_HOST_TO_DEVICE,
                st
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            code(api::memset_async(dev, 128, 1, 65, st)),
            ACL_ERROR_INVALID_PARAM
        );
        api::synchronize_stream(st).unwrap();
        // Exactly to the end is fine.
        api::memcpy(dev + 32, 32, s, 32, ACL_MEMCPY_HOST_TO_DEVICE).unwrap();
    }
    let got = bytes(dev, 64);
    assert!(got[..32].iter().all(|&b| b == 0), "{got:?}");
    assert!(got[32..].iter().all(|&b| b == 0xAA), "{got:?}");
    assert!(
        bytes(other, 64).iter().all(|&b| b == 0),
        "neighbour written"
    );
}

#[test]
fn memset_rules() {
    let _serial = common::exclusive();
    setup();
    let p = api::malloc(64, 0).unwrap();
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        assert_eq!(code(api::memset(p, 16, 1, 32)), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(code(api::memset(0, 16, 1, 8)), ACL_ERROR_INVALID_PARAM);
        api::memset(p, 64, 0x7F, 0).unwrap();
        assert!(bytes(p, 64).iter().all(|&b| b == 0));
        api::memset(p, 64, 0x17F, 16).unwrap();
    }
    let got = bytes(p, 64);
    assert!(got[..16].iter().all(|&b| b == 0x7F));
    assert!(got[16..].iter().all(|&b| b == 0));
    let st = api::create_stream().unwrap();
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        assert_eq!(
            code(api::memset_async(p, 8, 1, 16, st)),
            ACL_ERROR_RT_PARAM_INVALID
        );
    }
}

#[test]
fn async_copies_are_ordered_on_their_stream() {
    let _serial = common::exclusive();
    setup();
    let st = api::create_stream().unwrap();
    let dev = api::malloc(256, 0).unwrap();
    let host = api::malloc_host(256).unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    launch(st, gated(&gate));
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        api::memset_async(dev, 256, 0x5A, 256, st).unwrap();
        api::memcpy_async(host, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_HOST, st).unwrap();
        api::memset_async(dev, 256, 0x11, 128, st).unwrap();
    }
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(
        bytes(dev, 256).iter().all(|&b| b == 0),
        "ran before the kernel"
    );
    assert!(bytes(host, 256).iter().all(|&b| b == 0));
    gate.store(true, std::sync::atomic::Ordering::SeqCst);
    api::synchronize_stream(st).unwrap();
    assert!(bytes(host, 256).iter().all(|&b| b == 0x5A));
    let d = bytes(dev, 256);
    assert!(d[..128].iter().all(|&b| b == 0x11) && d[128..].iter().all(|&b| b == 0x5A));
    // A kernel queued after a copy sees its data.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sn = seen.clone();
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        api::memcpy_async(dev, 256, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, st).unwrap();
    }
    launch(st, kernel(move || *sn.lock().unwrap() = bytes(dev, 4)));
    api::synchronize_stream(st).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![0x5A; 4]);
    // Count 0 is accepted asynchronously too.
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        api::memcpy_async(dev, 0, host, 0, ACL_MEMCPY_HOST_TO_DEVICE, st).unwrap();
        api::memset_async(dev, 0, 1, 0, st).unwrap();
        assert_eq!(
            code(api::memcpy_async(dev, 256, host, 16, 6, st)),
            ACL_ERROR_INVALID_PARAM
        );
    }
    api::synchronize_stream(st).unwrap();
}

#[test]
fn freed_pointers_are_refused_never_touched() {
    let _serial = common::exclusive();
    setup();
    let st = api::create_stream().unwrap();
    let big = api::malloc(64 << 20, 0).unwrap();
    let small = api::malloc(256, 0).unwrap();
    let host = api::malloc_host(4096).unwrap();
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe { api::memset(big, 64 << 20, 0x33, 64 << 20).unwrap() };
    api::free(big).unwrap();
    api::free(small).unwrap();
    api::free_host(host).unwrap();
    let mut local = vec![7u8; 4096];
    let l = local.as_mut_ptr() as usize;
    for (ptr, name) in [
        (big, "device start"),
        (big + (32 << 20), "device middle"),
        (small + 8, "small device"),
        (host, "host"),
    ] {
        // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
        unsafe {
            // Destination, source, memset; sync and async.
            assert_eq!(
                code(api::memcpy(ptr, 64, l, 64, ACL_MEMCPY_HOST_TO_DEVICE)),
                ACL_ERROR_INVALID_PARAM,
                "{name}"
            );
            let msg = api::get_recent_err_msg().unwrap();
            assert!(msg.contains("copy destination"), "{name}: {msg}");
            assert!(
                msg.contains("freed") || msg.contains("not allocated"),
                "{name}: {msg}"
            );
            assert_eq!(
                code(api::memcpy(l, 64, ptr, 64, ACL_MEMCPY_DEVICE_TO_HOST)),
                ACL_ERROR_INVALID_PARAM,
                "{name}"
            );
            assert!(api::get_recent_err_msg().unwrap().contains("copy source"));
            assert_eq!(
                code(api::memset(ptr, 64, 1, 64)),
                ACL_ERROR_INVALID_PARAM,
                "{name}"
            );
            assert_eq!(
                code(api::memcpy_async(
                    ptr,
                    64,
                    l,
                    64,
                    ACL_MEMCPY_HOST_TO_DEVICE,
                    st
                )),
                ACL_ERROR_INVALID_PARAM,
                "{name}"
            );
            assert_eq!(
                code(api::memcpy_async(
                    l,
                    64,
                    ptr,
                    64,
                    ACL_MEMCPY_DEVICE_TO_HOST,
                    st
                )),
                ACL_ERROR_INVALID_PARAM,
                "{name}"
            );
            assert_eq!(
                code(api::memset_async(ptr, 64, 1, 64, st)),
                ACL_ERROR_INVALID_PARAM,
                "{name}"
            );
        }
    }
    // The failures wrote nothing and queued nothing.
    assert!(local.iter().all(|&b| b == 7));
    api::synchronize_stream(st).unwrap();
    // A second free names the freed allocation.
    assert_eq!(code(api::free(big)), ACL_ERROR_RT_MEMORY_FREE);
    let msg = api::get_recent_err_msg().unwrap();
    assert!(msg.contains("was freed"), "{msg}");
    assert_eq!(code(api::free(big + 64)), ACL_ERROR_RT_MEMORY_FREE);
    assert_eq!(code(api::free_host(host)), ACL_ERROR_RT_MEMORY_FREE);
    assert!(api::get_recent_err_msg().unwrap().contains("was freed"));
    // The last error is set, as for every failing call.
    assert_eq!(api::get_last_error(), ACL_ERROR_RT_MEMORY_FREE);
}

#[test]
fn freeing_under_a_queued_copy_does_not_crash_the_worker() {
    let _serial = common::exclusive();
    setup();
    let st = api::create_stream().unwrap();
    let size = 16 << 20;
    let dev = api::malloc(size, 0).unwrap();
    let mut host = vec![0xABu8; size];
    let h = host.as_mut_ptr() as usize;
    let gate = Arc::new(AtomicBool::new(false));
    launch(st, gated(&gate));
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        api::memcpy_async(dev, size, h, size, ACL_MEMCPY_HOST_TO_DEVICE, st).unwrap();
        api::memset_async(dev, size, 1, size, st).unwrap();
        api::memcpy_async(h, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST, st).unwrap();
    }
    // Freed while the tasks wait: the range stays mapped, so they run without faulting.
    api::free(dev).unwrap();
    gate.store(true, std::sync::atomic::Ordering::SeqCst);
    api::synchronize_stream(st).unwrap();
    // A later allocation of the range reads as zero again.
    let again = api::malloc(size, 0).unwrap();
    assert_eq!(again, dev, "best fit reuses the range");
    assert!(bytes(again, size).iter().all(|&b| b == 0));
    api::free(again).unwrap();
    drop(host);
}

#[test]
fn foreign_host_memory_still_copies_both_ways() {
    let _serial = common::exclusive();
    setup();
    let dev = api::malloc(4096, 0).unwrap();
    let src: Vec<u8> = (0..4096u32).map(|i| (i % 251) as u8).collect();
    let mut back = vec![0u8; 4096];
    let st = api::create_stream().unwrap();
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        api::memcpy(
            dev,
            4096,
            src.as_ptr() as usize,
            4096,
            ACL_MEMCPY_HOST_TO_DEVICE,
        )
        .unwrap();
        api::memcpy_async(
            back.as_mut_ptr() as usize,
            4096,
            dev,
            4096,
            ACL_MEMCPY_DEVICE_TO_HOST,
            st,
        )
        .unwrap();
    }
    api::synchronize_stream(st).unwrap();
    assert_eq!(back, src);
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        api::memset(back.as_mut_ptr() as usize, 4096, 0x11, 100).unwrap();
    }
    assert!(back[..100].iter().all(|&b| b == 0x11));
    assert_eq!(back[100], src[100]);
    api::free(dev).unwrap();
}
