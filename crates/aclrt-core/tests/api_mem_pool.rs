//! Stream-ordered pools and managed memory through the Rust API, and what the checker makes of
//! pool blocks: the allocation and free tasks are writes of the block, so work ordered between
//! them is silent and work that is not is a race with them.

mod common;

use aclrt::api::{self, ManagedLocation, MemPoolProps};
use aclrt::check::{self, Kind, Options, Parts};
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::MemPoolHandle;
use common::*;

const MB: usize = 1 << 20;

fn props() -> MemPoolProps {
    MemPoolProps {
        location_type: 1,
        max_size: 16 * MB,
        reserved_zero: true,
        ..MemPoolProps::default()
    }
}

fn get(pool: MemPoolHandle, attr: u32) -> u64 {
    let mut v = 0u64;
    // SAFETY: `v` is a writable u64, the type of the size attributes.
    unsafe { api::mem_pool_get_attr(pool, attr, &mut v as *mut u64 as usize) }.unwrap();
    v
}

#[test]
fn allocate_copy_free_and_reuse() {
    let _g = exclusive();
    setup();
    let pool = api::mem_pool_create(&props()).unwrap();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let p = api::mem_pool_malloc_async(100, pool, a).unwrap().unwrap();
    assert_eq!(p % (2 * MB), 0);
    assert_eq!(get(pool, 7), 2 * MB as u64);
    let src: Vec<u8> = (0..100u8).collect();
    let mut out = vec![0u8; 100];
    // SAFETY: `p` is a live 100-byte block; `src` and `out` outlive the synchronise below.
    unsafe {
        api::memcpy_async(
            p,
            100,
            src.as_ptr() as usize,
            100,
            ACL_MEMCPY_HOST_TO_DEVICE,
            a,
        )
        .unwrap();
        api::memcpy_async(
            out.as_mut_ptr() as usize,
            100,
            p,
            100,
            ACL_MEMCPY_DEVICE_TO_HOST,
            a,
        )
        .unwrap();
    }
    api::mem_pool_free_async(p, a).unwrap();
    api::synchronize_stream(a).unwrap();
    assert_eq!(out, src);
    assert_eq!(get(pool, 7), 0);
    // Size 0: nothing.
    assert_eq!(api::mem_pool_malloc_async(0, pool, a).unwrap(), None);
    // Another stream: not reused (attributes off); the freeing one: reused.
    let q = api::mem_pool_malloc_async(1, pool, b).unwrap().unwrap();
    assert_ne!(q, p);
    assert_eq!(api::mem_pool_malloc_async(1, pool, a).unwrap(), Some(p));
    assert_eq!(code(api::free(p)), ACL_ERROR_RT_MEMORY_FREE);
    api::mem_pool_free_async(p, a).unwrap();
    api::mem_pool_free_async(q, b).unwrap();
    assert_eq!(
        code(api::mem_pool_free_async(q, b)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    api::synchronize_device().unwrap();
    api::mem_pool_trim_to(pool, 0).unwrap();
    assert_eq!(get(pool, 5), 0);
    api::mem_pool_destroy(pool).unwrap();
    assert_eq!(
        code(api::mem_pool_destroy(pool)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    api::destroy_stream(a).unwrap();
    api::destroy_stream(b).unwrap();
}

#[test]
fn the_checker_sees_pool_blocks_live_between_their_tasks() {
    let _g = exclusive();
    setup();
    let pool = api::mem_pool_create(&props()).unwrap();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let ev = api::create_event().unwrap();
    let mut out = vec![0u8; 64];
    let o = out.as_mut_ptr() as usize;

    // Ordered: allocated on a, read on b after an event, freed on a after b's read.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    let p = api::mem_pool_malloc_async(64, pool, a).unwrap().unwrap();
    api::record_event(ev, a).unwrap();
    api::stream_wait_event(b, ev).unwrap();
    // SAFETY: `p` is a live 64-byte block; `out` outlives the synchronise.
    unsafe { api::memcpy_async(o, 64, p, 64, ACL_MEMCPY_DEVICE_TO_HOST, b) }.unwrap();
    api::record_event(ev, b).unwrap();
    api::stream_wait_event(a, ev).unwrap();
    api::mem_pool_free_async(p, a).unwrap();
    api::synchronize_device().unwrap();
    let findings = check::disable();
    assert!(findings.is_empty(), "{findings:#?}");

    // Not ordered: read on b with nothing after the allocation task on a.
    check::enable_with(Options::quiet(Parts::DEFAULT));
    let p = api::mem_pool_malloc_async(64, pool, a).unwrap().unwrap();
    // SAFETY: as above.
    unsafe { api::memcpy_async(o, 64, p, 64, ACL_MEMCPY_DEVICE_TO_HOST, b) }.unwrap();
    api::synchronize_device().unwrap();
    let findings = check::disable();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0].kind, Kind::Race);
    let ops: Vec<&str> = findings[0].accesses.iter().map(|x| x.op.as_str()).collect();
    assert_eq!(ops, ["aclrtMemPoolMallocAsync", "aclrtMemcpyAsync"]);
    api::mem_pool_free_async(p, a).unwrap();
    api::synchronize_device().unwrap();

    // Reuse with an internal dependency: the wait it inserts orders the new holder after the
    // free, so the checker is silent.
    let mut on = 1u32;
    // SAFETY: a u32 for a reuse switch.
    unsafe { api::mem_pool_set_attr(pool, 3, &mut on as *mut u32 as usize) }.unwrap();
    check::enable_with(Options::quiet(Parts::DEFAULT));
    let p = api::mem_pool_malloc_async(64, pool, a).unwrap().unwrap();
    // SAFETY: `p` is a live 64-byte block.
    unsafe { api::memset_async(p, 64, 1, 64, a) }.unwrap();
    api::mem_pool_free_async(p, a).unwrap();
    let q = api::mem_pool_malloc_async(64, pool, b).unwrap().unwrap();
    assert_eq!(q, p);
    // SAFETY: as above.
    unsafe { api::memset_async(q, 64, 2, 64, b) }.unwrap();
    api::mem_pool_free_async(q, b).unwrap();
    api::synchronize_device().unwrap();
    let findings = check::disable();
    assert!(findings.is_empty(), "{findings:#?}");

    drop(out);
    api::mem_pool_destroy(pool).unwrap();
    api::destroy_event(ev).unwrap();
    api::destroy_stream(a).unwrap();
    api::destroy_stream(b).unwrap();
}

#[test]
fn managed_memory_through_the_rust_api() {
    let _g = exclusive();
    setup();
    let m = api::mem_alloc_managed(10, 1).unwrap();
    assert_eq!(m % (2 * MB), 0);
    let dev0 = ManagedLocation { kind: 1, id: 0 };
    api::mem_managed_advise(m, 2 * MB as u64, 0, dev0).unwrap();
    let s = api::create_stream().unwrap();
    api::mem_managed_prefetch_async(m, 2 * MB, dev0, 0, s).unwrap();
    api::synchronize_stream(s).unwrap();
    let mut v = [7i32; 2];
    let data = [v.as_mut_ptr() as usize, v.as_mut_ptr() as usize + 4];
    // SAFETY: each entry of `data` is a writable i32.
    unsafe { api::mem_managed_get_attrs(Some(&[1, 6]), m, 1, Some(&data), Some(&[4, 4])) }.unwrap();
    assert_eq!(v, [1, 0]);
    assert_eq!(
        code(api::mem_managed_prefetch_batch_async(
            Some(&[m]),
            Some(&[2 * MB]),
            Some(&[dev0]),
            Some(&[1]),
            0,
            s
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::free(m).unwrap();
    assert_eq!(
        code(api::mem_managed_advise(m, 2 * MB as u64, 0, dev0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::destroy_stream(s).unwrap();
}
