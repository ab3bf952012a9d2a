//! Virtual memory in one process: reserve, allocate physical memory, map, copy and set through
//! the mapping (byte for byte), access flags, unmap, and every documented refusal with its code.

mod common;

use aclrt::api::{self, MemAccess, PhysicalMemProp};
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::vendor_consts as vc;
use common::*;

const G: usize = 2 << 20;

fn device_free() -> usize {
    api::get_mem_info(ACL_HBM_MEM).unwrap().0
}

#[test]
fn map_copy_set_and_unmap_byte_for_byte() {
    let _serial = common::exclusive();
    setup();
    let before = device_free();
    let va = api::reserve_mem_address(2 * G, 0, 0, 0).unwrap();
    assert_eq!(va % G, 0);
    // Reserved but unmapped: refused as unallocated runtime memory.
    let e = try_read_device(va, 16).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_INVALID_PARAM);
    assert!(
        e.message().contains("reserved by aclrtReserveMemAddress"),
        "{e}"
    );

    // 100 bytes round up to the 2 MiB granularity, counted against the device.
    let h = api::malloc_physical(100, &device_prop(0), 0).unwrap();
    assert_eq!(before - device_free(), G);
    assert_eq!(
        api::mem_get_allocation_properties(h).unwrap(),
        device_prop(0)
    );
    api::map_mem(va + G, G, 0, h, 0).unwrap();
    // aclrtCheckMemType: reserved ranges are ACL_RT_MEM_TYPE_RSVD (0x10), mapped or not.
    let kind = |addr: usize, t: u32| api::acl(|rt| rt.check_mem_type(&[addr], t, 0)).unwrap();
    assert!(kind(va, 0x10) && kind(va + G + 8, 0x10));
    assert!(!kind(va + G, 0x2), "not ACL_RT_MEM_TYPE_DEV");
    let plain = api::malloc(64, 0).unwrap();
    assert!(kind(plain, 0x2) && !kind(plain, 0x10));
    api::free(plain).unwrap();

    // The mapping is device memory of device 0, checked like an allocation.
    let pattern: Vec<u8> = (0..4096).map(|i| (i * 7 + 3) as u8).collect();
    write_device(va + G + 100, &pattern);
    assert_eq!(try_read_device(va + G + 100, 4096).unwrap(), pattern);
    assert_eq!(
        try_read_device(va + G, 100).unwrap(),
        vec![0u8; 100],
        "fresh memory reads as zero"
    );
    // SAFETY: inside the mapping (checked by the runtime anyway).
    unsafe { api::memset(va + G + 10, 20, 0xAB, 20) }.unwrap();
    let back = try_read_device(va + G, 40).unwrap();
    assert_eq!(&back[10..30], &[0xAB; 20]);
    assert_eq!(&back[..10], &[0; 10]);
    assert_eq!(api::mem_get_address_range(va + G + 5).unwrap(), (va + G, G));
    let attrs = api::pointer_get_attributes(va + G).unwrap();
    assert_eq!(attrs.location_type, vc::ACL_MEM_LOCATION_TYPE_DEVICE as u32);
    assert_eq!(attrs.location_id, 0);
    // Past the mapping's end, and the unmapped first half, are refused.
    assert_eq!(
        code(try_read_device(va + 2 * G - 8, 16)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(code(try_read_device(va, 1)), ACL_ERROR_INVALID_PARAM);
    // aclrtFree does not take a mapping.
    let e = api::free(va + G).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_RT_MEMORY_FREE);
    assert!(e.message().contains("aclrtUnmapMem"), "{e}");

    // The same physical memory mapped twice shows the same bytes.
    let va2 = api::reserve_mem_address(G, 0, 0, 0).unwrap();
    api::map_mem(va2, G, 0, h, 0).unwrap();
    assert_eq!(try_read_device(va2 + 100, 4096).unwrap(), pattern);

    // Unmapping: the range is refused again, naming the unmap.
    api::unmap_mem(va + G).unwrap();
    let e = try_read_device(va + G + 100, 4).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_INVALID_PARAM);
    assert!(
        e.message()
            .contains("which aclrtUnmapMem or aclrtIpcMemClose ended"),
        "{e}"
    );
    // Freeing while still mapped at va2 keeps the memory until that unmap.
    api::free_physical(h).unwrap();
    assert_eq!(before - device_free(), G);
    assert_eq!(try_read_device(va2 + 100, 4096).unwrap(), pattern);
    assert_eq!(
        code(api::map_mem(va, G, 0, h, 0)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(code(api::free_physical(h)), ACL_ERROR_RT_INVALID_HANDLE);
    api::unmap_mem(va2).unwrap();
    assert_eq!(device_free(), before, "the last unmap gave the memory back");
    api::release_mem_address(va2).unwrap();
    api::release_mem_address(va).unwrap();
    assert_eq!(
        code(api::release_mem_address(va)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::finalize().unwrap();
}

#[test]
fn refusals_carry_the_vendor_codes() {
    let _serial = common::exclusive();
    api::configure(aclrt::Config {
        device_count: 2,
        ..aclrt::Config::default()
    })
    .unwrap();
    setup();
    let p = device_prop(0);
    // Reserve: size 0, flags, alignment, an expected address.
    assert_eq!(
        code(api::reserve_mem_address(0, 0, 0, 0)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::reserve_mem_address(G, 0, 0, 2)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::reserve_mem_address(G, 0, 0, 1)),
        0,
        "flags 1 is accepted"
    );
    assert_eq!(
        code(api::reserve_mem_address(G, 4096, 0, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::reserve_mem_address(G, 0, 16 << 40, 0)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    // Physical: size 0, flags, handle type, allocation type, locations, attributes, device.
    assert_eq!(
        code(api::malloc_physical(0, &p, 0)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::malloc_physical(G, &p, 1)),
        ACL_ERROR_INVALID_PARAM
    );
    let bad = |f: fn(&mut PhysicalMemProp)| {
        let mut q = p;
        f(&mut q);
        code(api::malloc_physical(G, &q, 0))
    };
    assert_eq!(bad(|q| q.handle_type = 2), ACL_ERROR_INVALID_PARAM);
    assert_eq!(bad(|q| q.allocation_type = 1), ACL_ERROR_INVALID_PARAM);
    assert_eq!(bad(|q| q.location_type = 2), ACL_ERROR_INVALID_PARAM);
    assert_eq!(bad(|q| q.location_type = 3), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        bad(|q| q.mem_attr = ACL_DDR_MEM_HUGE),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(bad(|q| q.mem_attr = 18), ACL_ERROR_INVALID_PARAM);
    assert_eq!(bad(|q| q.location_id = 99), ACL_ERROR_RT_INVALID_DEVICEID);
    // More than the device holds.
    let mut huge = p;
    huge.mem_attr = ACL_HBM_MEM_HUGE1G;
    assert_eq!(
        code(api::malloc_physical(1 << 50, &huge, 0)),
        ACL_ERROR_RT_MEMORY_ALLOCATION
    );
    let msg = api::get_recent_err_msg().unwrap();
    assert!(
        msg.contains(
            "aclrtMallocPhysical: device 0 is out of memory: 1125899906842624 bytes requested"
        ),
        "{msg}"
    );

    let va = api::reserve_mem_address(4 * G, 0, 0, 0).unwrap();
    let h = api::malloc_physical(G, &p, 0).unwrap();
    // Map: NULLs, size 0, flags (100000); offset, size, alignment, range, overlap (107000).
    assert_eq!(code(api::map_mem(0, G, 0, h, 0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::map_mem(va, G, 0, 0, 0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::map_mem(va, 0, 0, h, 0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::map_mem(va, G, 0, h, 1)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        code(api::map_mem(va, G, G, h, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::map_mem(va, 2 * G, 0, h, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::map_mem(va + 4096, G, 0, h, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::map_mem(va + 4 * G, G, 0, h, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let local = [0u8; 8];
    assert_eq!(
        code(api::map_mem(local.as_ptr() as usize, G, 0, h, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::map_mem(va, G, 0, 0x1234, 0)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    api::map_mem(va, G, 0, h, 0).unwrap();
    let e = api::map_mem(va, G, 0, h, 0).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_RT_PARAM_INVALID);
    assert!(e.message().contains("overlap"), "{e}");
    // Another device's memory in the same range is refused; in a range of its own it maps.
    let h1 = api::malloc_physical(G, &device_prop(1), 0).unwrap();
    let e = api::map_mem(va + G, G, 0, h1, 0).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_RT_PARAM_INVALID);
    assert!(e.message().contains("one place only"), "{e}");
    let vb = api::reserve_mem_address(G, 0, 0, 0).unwrap();
    api::map_mem(vb, G, 0, h1, 0).unwrap();
    assert_eq!(api::pointer_get_attributes(vb).unwrap().location_id, 1);
    // Release with a mapping left, unmap of what is not a mapping start.
    assert_eq!(
        code(api::release_mem_address(va)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(code(api::release_mem_address(0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        code(api::release_mem_address(va + G)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(code(api::unmap_mem(va + 64)), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(code(api::unmap_mem(0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::free_physical(0)), ACL_ERROR_INVALID_PARAM);

    // Access: defaults, set, and refusals.
    let dev = vc::ACL_MEM_LOCATION_TYPE_DEVICE as u32;
    let host = vc::ACL_MEM_LOCATION_TYPE_HOST as u32;
    let rw = vc::ACL_RT_MEM_ACCESS_FLAGS_READWRITE as u64;
    let read_only = vc::ACL_RT_MEM_ACCESS_FLAGS_READ as u32;
    assert_eq!(api::mem_get_access(va, dev, 0).unwrap(), rw);
    assert_eq!(api::mem_get_access(va, dev, 1).unwrap(), 0);
    assert_eq!(api::mem_get_access(va, host, 7).unwrap(), 0);
    let desc = |flags, location_type, location_id| MemAccess {
        flags,
        location_type,
        location_id,
    };
    api::mem_set_access(
        va,
        G,
        Some(&[desc(read_only, dev, 1), desc(read_only, host, 5)]),
    )
    .unwrap();
    assert_eq!(api::mem_get_access(va, dev, 1).unwrap(), 1);
    assert_eq!(api::mem_get_access(va, host, 0).unwrap(), 1);
    let set = |ptr, size, d: &[MemAccess]| code(api::mem_set_access(ptr, size, Some(d)));
    assert_eq!(set(0, G, &[desc(3, dev, 0)]), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(set(va, G, &[]), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        code(api::mem_set_access(va, G, None)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(set(va, G, &[desc(2, dev, 0)]), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(set(va, G, &[desc(3, 3, 0)]), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        set(va, G, &[desc(3, dev, 64)]),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(
        set(va, G / 2, &[desc(3, dev, 0)]),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        set(va + G, G, &[desc(3, dev, 0)]),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::mem_get_access(0, dev, 0)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::mem_get_access(va + 8, dev, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::mem_get_access(va, 2, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );

    // A mapping made without access: none for any location until set.
    let hn = api::malloc_physical(G, &p, 0).unwrap();
    assert_eq!(
        code(api::mem_map_no_access(va + 2 * G, G, 0, hn, 1)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::mem_map_no_access(va + 2 * G + 4096, G, 0, hn, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::mem_map_no_access(va + 2 * G, G, 0, hn, 0).unwrap();
    assert_eq!(api::mem_get_access(va + 2 * G, dev, 0).unwrap(), 0);
    api::mem_set_access(va + 2 * G, G, Some(&[desc(3, dev, 0)])).unwrap();
    assert_eq!(api::mem_get_access(va + 2 * G, dev, 0).unwrap(), rw);
    api::unmap_mem(va + 2 * G).unwrap();
    api::free_physical(hn).unwrap();

    // Retain: one more reference, each freed on its own.
    assert_eq!(api::mem_retain_allocation_handle(va).unwrap(), h);
    assert_eq!(
        code(api::mem_retain_allocation_handle(va + G)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::unmap_mem(va).unwrap();
    api::free_physical(h).unwrap();
    assert_eq!(
        api::mem_get_allocation_properties(h).unwrap(),
        p,
        "still referenced"
    );
    api::free_physical(h).unwrap();
    assert_eq!(
        code(api::mem_get_allocation_properties(h)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    api::release_mem_address(va).unwrap();
    // Finalize ends what is left (the device-1 mapping).
    api::finalize().unwrap();
}

#[test]
fn host_physical_memory_maps_as_host_memory() {
    let _serial = common::exclusive();
    setup();
    let before = device_free();
    let prop = PhysicalMemProp {
        mem_attr: ACL_DDR_MEM_NORMAL,
        location_type: vc::ACL_MEM_LOCATION_TYPE_HOST as u32,
        ..Default::default()
    };
    let h = api::malloc_physical(G, &prop, 0).unwrap();
    assert_eq!(device_free(), before, "host memory is not the device's");
    let va = api::reserve_mem_address(G, 0, 0, 0).unwrap();
    api::map_mem(va, G, 0, h, 0).unwrap();
    assert_eq!(
        api::pointer_get_attributes(va).unwrap().location_type,
        vc::ACL_MEM_LOCATION_TYPE_HOST as u32
    );
    write_device(va + G - 3, &[1, 2, 3]);
    assert_eq!(try_read_device(va + G - 3, 3).unwrap(), vec![1, 2, 3]);
    api::unmap_mem(va).unwrap();
    api::free_physical(h).unwrap();
    api::release_mem_address(va).unwrap();
    api::finalize().unwrap();
}
