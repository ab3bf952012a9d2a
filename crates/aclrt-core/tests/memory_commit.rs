//! Runtime memory is reserved, not committed: allocations cost resident memory only for the
//! pages that are written, large allocations are fast, and freeing gives the pages back.
//!
//! Resident sizes come from `/proc/self/statm`. Each test runs in its own process under
//! nextest; the bounds leave room for the allocator and the test harness.

mod common;

use aclrt::api;
use aclrt::consts::*;
use aclrt::Config;
use common::*;

const MIB: usize = 1 << 20;
const GIB: usize = 1 << 30;

/// Resident set size of this process, in bytes.
fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|f| f.parse().ok())
        .expect("resident field");
    // SAFETY: sysconf only reads a system setting.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    pages * page
}

/// A device big enough for the test whatever the machine's RAM (nothing is committed).
fn setup_with(device_memory: u64) {
    api::configure(Config {
        device_memory,
        ..Config::default()
    })
    .unwrap();
    setup();
}

#[test]
fn a_2_gib_allocation_costs_only_the_pages_written() {
    let _serial = common::exclusive();
    setup_with(8 << 30);
    let before = rss();
    // Reserving commits nothing: what the allocation costs is what is written (the speed of
    // it is the bench's to measure, not a test's).
    for _ in 0..3 {
        let p = api::malloc(2 * GIB, ACL_MEM_MALLOC_HUGE_FIRST).unwrap();
        api::free(p).unwrap();
    }
    let p = api::malloc(2 * GIB, ACL_MEM_MALLOC_HUGE_FIRST).unwrap();
    let after_alloc = rss();
    assert!(
        after_alloc < before + 16 * MIB,
        "a 2 GiB allocation nothing wrote to costs {} MiB",
        after_alloc.saturating_sub(before) / MIB
    );
    assert!(
        after_alloc < before + 16 * MIB,
        "allocating 2 GiB grew RSS by {} MiB",
        (after_alloc - before) / MIB
    );
    // Writing 64 MiB in the middle commits about that much, no more.
    let touched = 64 * MIB;
    let mid = p + GIB;
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe { api::memset(mid, touched, 0x5A, touched).unwrap() };
    let after_touch = rss();
    assert!(
        after_touch >= after_alloc + touched - 4 * MIB,
        "RSS grew only {} MiB after writing 64 MiB",
        (after_touch.saturating_sub(after_alloc)) / MIB
    );
    assert!(
        after_touch < after_alloc + touched + 16 * MIB,
        "RSS grew {} MiB after writing 64 MiB",
        (after_touch - after_alloc) / MIB
    );
    // Untouched pages read as zero (and reading them commits nothing much).
    let mut probe = vec![0xFFu8; 4096];
    for offset in [0, GIB - 4096, 2 * GIB - 4096] {
        // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
        unsafe {
            api::memcpy(
                probe.as_mut_ptr() as usize,
                4096,
                p + offset,
                4096,
                ACL_MEMCPY_DEVICE_TO_HOST,
            )
            .unwrap();
        }
        assert!(probe.iter().all(|&b| b == 0), "offset {offset}");
    }
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        api::memcpy(
            probe.as_mut_ptr() as usize,
            4096,
            mid,
            4096,
            ACL_MEMCPY_DEVICE_TO_HOST,
        )
        .unwrap();
    }
    assert!(probe.iter().all(|&b| b == 0x5A));
    // Freeing gives the written pages back.
    api::free(p).unwrap();
    let after_free = rss();
    assert!(
        after_free < after_alloc + 8 * MIB,
        "RSS still {} MiB above the start after free",
        (after_free.saturating_sub(before)) / MIB
    );
}

#[test]
fn host_allocations_are_lazy_too() {
    let _serial = common::exclusive();
    setup();
    let before = rss();
    let h = api::malloc_host(GIB).unwrap();
    assert!(rss() < before + 16 * MIB);
    // SAFETY: the first byte of a live 1 GiB host allocation.
    assert_eq!(unsafe { *(h as *const u8) }, 0);
    api::free_host(h).unwrap();
}

#[test]
fn reused_memory_is_zero_again() {
    let _serial = common::exclusive();
    setup_with(1 << 30);
    let size = 8 * MIB + 100;
    let a = api::malloc(size, 0).unwrap();
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe { api::memset(a, size, 0xC3, size).unwrap() };
    api::free(a).unwrap();
    // Best fit hands the same range out again; it must read as zero.
    let b = api::malloc(size, 0).unwrap();
    assert_eq!(a, b, "the freed range is reused");
    // SAFETY: `b` is a live allocation of `size` bytes.
    let bytes = unsafe { std::slice::from_raw_parts(b as *const u8, size) };
    assert!(bytes.iter().all(|&x| x == 0));
    // Small neighbours: freeing one leaves the other's bytes alone.
    let x = api::malloc(100, 0).unwrap();
    let y = api::malloc(100, 0).unwrap();
    unsafe {
        api::memset(x, 100, 1, 100).unwrap();
        api::memset(y, 100, 2, 100).unwrap();
    }
    api::free(x).unwrap();
    // SAFETY: `y` is a live allocation of 100 bytes.
    let ys = unsafe { std::slice::from_raw_parts(y as *const u8, 100) };
    assert!(ys.iter().all(|&v| v == 2));
    let z = api::malloc(100, 0).unwrap();
    // SAFETY: `z` is a live allocation of 100 bytes.
    let zs = unsafe { std::slice::from_raw_parts(z as *const u8, 100) };
    assert!(zs.iter().all(|&v| v == 0));
    for p in [b, y, z] {
        api::free(p).unwrap();
    }
}

#[test]
fn many_allocations_fill_the_device_exactly() {
    let _serial = common::exclusive();
    // Capacity accounting is by requested bytes: odd sizes fill it exactly.
    setup_with(10 * 1000 + 3);
    let ptrs: Vec<usize> = (0..10).map(|_| api::malloc(1000, 0).unwrap()).collect();
    assert_eq!(api::get_mem_info(ACL_HBM_MEM).unwrap().0, 3);
    api::malloc(3, 0).unwrap();
    assert_eq!(
        code(api::malloc(1, 0)),
        aclrt::codes::ACL_ERROR_RT_MEMORY_ALLOCATION
    );
    let msg = api::get_recent_err_msg().unwrap();
    assert!(msg.contains("out of memory"), "{msg}");
    for (i, p) in ptrs.iter().enumerate() {
        assert_eq!(p % 64, 0, "allocation {i}");
    }
    let mut sorted = ptrs.clone();
    sorted.sort_unstable();
    assert!(sorted.windows(2).all(|w| w[1] - w[0] >= 1000), "overlap");
}

#[test]
fn default_capacity_fits_the_machine() {
    let _serial = common::exclusive();
    std::env::remove_var(aclrt::config::ENV_DEVICE_MEMORY);
    setup();
    let (free, total) = api::get_mem_info(ACL_HBM_MEM).unwrap();
    assert_eq!(free, total);
    assert_eq!(total as u64, aclrt::config::default_device_memory());
    assert!(total as u64 <= aclrt::config::DEFAULT_DEVICE_MEMORY);
    let (_, host_total) = api::get_mem_info(ACL_DDR_MEM).unwrap();
    assert!(total <= host_total, "{total} > host {host_total}");
    // One byte more than the whole device is refused with the out-of-memory code.
    assert_eq!(
        code(api::malloc(total + 1, 0)),
        aclrt::codes::ACL_ERROR_RT_MEMORY_ALLOCATION
    );
    let msg = api::get_recent_err_msg().unwrap();
    assert!(
        msg.contains("out of memory") && msg.contains("requested"),
        "{msg}"
    );
    // The whole device can be allocated at once, and costs nothing until written (unless the
    // kernel charges every writable mapping up front: overcommit mode 2).
    let strict = std::fs::read_to_string("/proc/sys/vm/overcommit_memory")
        .is_ok_and(|mode| mode.trim() == "2");
    if strict {
        return;
    }
    let before = rss();
    let all = api::malloc(total, 0).unwrap();
    assert!(rss() < before + 16 * MIB);
    assert_eq!(api::get_mem_info(ACL_HBM_MEM).unwrap().0, 0);
    api::free(all).unwrap();
}

#[test]
fn the_environment_overrides_the_default_capacity() {
    let _serial = common::exclusive();
    std::env::set_var(aclrt::config::ENV_DEVICE_MEMORY, "3G");
    setup();
    assert_eq!(api::get_mem_info(ACL_HBM_MEM).unwrap(), (3 * GIB, 3 * GIB));
}
