//! 2D copies (checked byte for byte), allocation variants, cache maintenance, pointer
//! attributes and allocation granularity.

mod common;

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::vendor_consts as vc;
use aclrt::StreamHandle;
use common::*;

const W: usize = 10;
const H: usize = 6;
const SPITCH: usize = 16;
const DPITCH: usize = 24;

fn host_plane() -> Vec<u8> {
    (0..SPITCH * H).map(|i| (i * 13 + 1) as u8).collect()
}

/// Checks a plane copied from `src` (rows `spitch` apart) into `dst` (rows `dpitch` apart):
/// each row's `W` bytes equal, every byte between rows left as `untouched`.
fn check_plane(dst: &[u8], dpitch: usize, src: &[u8], spitch: usize, untouched: u8) {
    for row in 0..H {
        for col in 0..dpitch {
            let at = row * dpitch + col;
            if at >= dst.len() {
                break;
            }
            let want = if col < W {
                src[row * spitch + col]
            } else {
                untouched
            };
            assert_eq!(dst[at], want, "row {row}, column {col}");
        }
    }
}

#[test]
fn memcpy_2d_host_to_device_and_back_byte_for_byte() {
    let _serial = common::exclusive();
    setup();
    let src = host_plane();
    let dev = api::malloc(DPITCH * H, 0).unwrap();
    // SAFETY: the host plane spans SPITCH * (H - 1) + W bytes; the device one is checked.
    unsafe {
        api::memcpy_2d(
            dev,
            DPITCH,
            src.as_ptr() as usize,
            SPITCH,
            W,
            H,
            ACL_MEMCPY_HOST_TO_DEVICE,
        )
    }
    .unwrap();
    // New device memory reads as zero: the gaps between rows stay zero.
    check_plane(&read_device(dev, DPITCH * H), DPITCH, &src, SPITCH, 0);

    // Back into a host plane with its own pitch; the gaps keep their sentinel.
    let mut back = vec![0xAAu8; SPITCH * H];
    // SAFETY: as above.
    unsafe {
        api::memcpy_2d(
            back.as_mut_ptr() as usize,
            SPITCH,
            dev,
            DPITCH,
            W,
            H,
            ACL_MEMCPY_DEVICE_TO_HOST,
        )
    }
    .unwrap();
    check_plane(&back, SPITCH, &src, SPITCH, 0xAA);

    // Nothing to copy is fine.
    // SAFETY: nothing is touched.
    unsafe {
        api::memcpy_2d(
            dev,
            DPITCH,
            src.as_ptr() as usize,
            SPITCH,
            0,
            H,
            ACL_MEMCPY_HOST_TO_DEVICE,
        )
    }
    .unwrap();
    api::finalize().unwrap();
}

#[test]
fn memcpy_2d_async_device_to_device_byte_for_byte() {
    let _serial = common::exclusive();
    setup();
    let src = host_plane();
    let a = api::malloc(SPITCH * H, 0).unwrap();
    let b = api::malloc(DPITCH * H, 0).unwrap();
    // SAFETY: both SPITCH * H bytes.
    unsafe {
        api::memcpy(
            a,
            SPITCH * H,
            src.as_ptr() as usize,
            SPITCH * H,
            ACL_MEMCPY_HOST_TO_DEVICE,
        )
    }
    .unwrap();
    // SAFETY: b holds 0xCC everywhere first.
    unsafe { api::memset(b, DPITCH * H, 0xCC, DPITCH * H) }.unwrap();
    let s = api::create_stream().unwrap();
    launch(s, sleeper(20));
    // SAFETY: runtime allocations, spans checked.
    unsafe { api::memcpy_2d_async(b, DPITCH, a, SPITCH, W, H, ACL_MEMCPY_DEVICE_TO_DEVICE, s) }
        .unwrap();
    // Queued behind the sleep: nothing copied yet.
    assert!(read_device(b, DPITCH * H).iter().all(|&x| x == 0xCC));
    api::synchronize_stream(s).unwrap();
    check_plane(&read_device(b, DPITCH * H), DPITCH, &src, SPITCH, 0xCC);

    // Host to device asynchronously too.
    let host_src = src.clone();
    // SAFETY: host_src outlives the synchronise below.
    unsafe {
        api::memcpy_2d_async(
            a,
            DPITCH / 2,
            host_src.as_ptr() as usize,
            SPITCH,
            W,
            H,
            ACL_MEMCPY_HOST_TO_DEVICE,
            StreamHandle::NULL,
        )
    }
    .unwrap();
    api::synchronize_stream(StreamHandle::NULL).unwrap();
    let got = read_device(a, SPITCH * H);
    for row in 0..H {
        assert_eq!(
            &got[row * 12..row * 12 + W],
            &src[row * SPITCH..row * SPITCH + W]
        );
    }
    api::finalize().unwrap();
}

#[test]
fn memcpy_2d_codes() {
    let _serial = common::exclusive();
    let src = host_plane();
    let p = src.as_ptr() as usize;
    // SAFETY: every call below is refused before it copies.
    unsafe {
        assert_eq!(
            code(api::memcpy_2d(
                p,
                DPITCH,
                p,
                SPITCH,
                W,
                H,
                ACL_MEMCPY_HOST_TO_DEVICE
            )),
            ACL_ERROR_UNINITIALIZE
        );
        setup();
        let dev = api::malloc(DPITCH * H, 0).unwrap();
        let h2d = ACL_MEMCPY_HOST_TO_DEVICE;
        let bad = |r: aclrt::Result<()>| code(r);
        assert_eq!(
            bad(api::memcpy_2d(0, DPITCH, p, SPITCH, W, H, h2d)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            bad(api::memcpy_2d(dev, DPITCH, 0, SPITCH, W, H, h2d)),
            ACL_ERROR_INVALID_PARAM
        );
        // Only host-to-device and device-to-host synchronously.
        for kind in [
            ACL_MEMCPY_HOST_TO_HOST,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            ACL_MEMCPY_DEFAULT,
            99,
        ] {
            assert_eq!(
                bad(api::memcpy_2d(dev, DPITCH, p, SPITCH, W, H, kind)),
                ACL_ERROR_INVALID_PARAM,
                "kind {kind}"
            );
        }
        for kind in [ACL_MEMCPY_HOST_TO_HOST, ACL_MEMCPY_DEFAULT] {
            assert_eq!(
                bad(api::memcpy_2d_async(
                    dev,
                    DPITCH,
                    p,
                    SPITCH,
                    W,
                    H,
                    kind,
                    StreamHandle::NULL
                )),
                ACL_ERROR_INVALID_PARAM,
                "kind {kind}"
            );
        }
        // Width larger than a pitch, or beyond the limits.
        assert_eq!(
            bad(api::memcpy_2d(dev, 8, p, SPITCH, W, H, h2d)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            bad(api::memcpy_2d(dev, DPITCH, p, 8, W, H, h2d)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            bad(api::memcpy_2d(
                dev,
                usize::MAX,
                p,
                usize::MAX,
                api::MAX_2D_WIDTH + 1,
                1,
                h2d
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            bad(api::memcpy_2d(
                dev,
                DPITCH,
                p,
                SPITCH,
                W,
                api::MAX_2D_HEIGHT + 1,
                h2d
            )),
            ACL_ERROR_INVALID_PARAM
        );
        // Pitches whose span does not fit in an address: refused, nothing written.
        assert_eq!(
            bad(api::memcpy_2d(dev, 1 << 63, p, SPITCH, W, 3, h2d)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            bad(api::memcpy_2d(
                p,
                DPITCH,
                dev,
                usize::MAX / 2,
                W,
                3,
                ACL_MEMCPY_DEVICE_TO_HOST
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(api::span_2d(1 << 63, W, 3), None);
        assert_eq!(api::span_2d(DPITCH, W, H), Some(DPITCH * (H - 1) + W));
        assert_eq!(api::span_2d(DPITCH, W, 0), Some(0));
        // A span past the end of the device allocation: refused, nothing written.
        assert_eq!(
            bad(api::memcpy_2d(dev, DPITCH, p, SPITCH, W, H + 1, h2d)),
            ACL_ERROR_INVALID_PARAM
        );
        assert!(read_device(dev, DPITCH * H).iter().all(|&x| x == 0));
        assert_eq!(
            bad(api::memcpy_2d_async(
                dev,
                DPITCH,
                p,
                SPITCH,
                W,
                H,
                h2d,
                StreamHandle::from_raw(5)
            )),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        api::free(dev).unwrap();
        assert_eq!(
            bad(api::memcpy_2d(dev, DPITCH, p, SPITCH, W, H, h2d)),
            ACL_ERROR_INVALID_PARAM
        );
    }
    api::finalize().unwrap();
}

#[test]
fn allocation_variants() {
    let _serial = common::exclusive();
    assert_eq!(code(api::malloc_align32(64, 0)), ACL_ERROR_UNINITIALIZE);
    setup();
    let a = api::malloc_align32(33, ACL_MEM_MALLOC_NORMAL_ONLY).unwrap();
    assert_eq!(a % 64, 0);
    assert_eq!(code(api::malloc_align32(0, 0)), ACL_ERROR_INVALID_PARAM);
    api::free(a).unwrap();

    for policy in [
        ACL_MEM_MALLOC_HUGE_FIRST,
        ACL_MEM_MALLOC_HUGE_ONLY,
        ACL_MEM_MALLOC_NORMAL_ONLY,
        ACL_MEM_MALLOC_HUGE1G_ONLY,
    ] {
        let c = api::malloc_cached(100, policy).unwrap();
        api::free(c).unwrap();
    }
    for policy in [
        ACL_MEM_MALLOC_HUGE_FIRST_P2P,
        ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_HIGH_BAND_WIDTH,
    ] {
        assert_eq!(
            code(api::malloc_cached(100, policy)),
            ACL_ERROR_INVALID_PARAM
        );
    }
    assert_eq!(code(api::malloc_cached(0, 0)), ACL_ERROR_INVALID_PARAM);

    let attr = |attr: i64, word: u32| api::MallocAttribute {
        attr: attr as u32,
        value: (word as u64).to_ne_bytes(),
    };
    let m = api::malloc_with_cfg(
        256,
        ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_MALLOC_HUGE_FIRST,
        &[
            attr(vc::ACL_RT_MEM_ATTR_MODULE_ID, 33),
            attr(vc::ACL_RT_MEM_ATTR_DEVICE_ID, 0),
            attr(vc::ACL_RT_MEM_ATTR_VA_FLAG, 0),
        ],
    )
    .unwrap();
    assert_eq!(read_device(m, 256), vec![0u8; 256]);
    api::free(m).unwrap();
    api::free(api::malloc_with_cfg(8, 0, &[]).unwrap()).unwrap();
    assert_eq!(
        code(api::malloc_with_cfg(
            8,
            0,
            &[attr(vc::ACL_RT_MEM_ATTR_DEVICE_ID, 1)]
        )),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(
        code(api::malloc_with_cfg(
            8,
            0,
            &[attr(vc::ACL_RT_MEM_ATTR_VA_FLAG, 1)]
        )),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::malloc_with_cfg(
            8,
            0,
            &[attr(vc::ACL_RT_MEM_ATTR_RSV, 0)]
        )),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::malloc_with_cfg(8, 0, &[attr(9, 0)])),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::malloc_with_cfg(0, 0, &[])),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(api::live_objects().allocations, 0);
    api::finalize().unwrap();
}

#[test]
fn flush_invalidate_and_pointer_attributes() {
    let _serial = common::exclusive();
    setup();
    let dev = api::malloc(4096, 0).unwrap();
    let host = api::malloc_host(128).unwrap();
    api::mem_flush(dev, 4096).unwrap();
    api::mem_invalidate(dev + 100, 10).unwrap();
    api::mem_flush(host, 128).unwrap();
    assert_eq!(code(api::mem_flush(0, 8)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::mem_invalidate(dev, 0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::mem_flush(dev, 4097)), ACL_ERROR_INVALID_PARAM);

    let page = api::pointer_get_attributes(dev).unwrap().page_size;
    assert!(page >= 4096 && page.is_power_of_two());
    let d = api::pointer_get_attributes(dev + 17).unwrap();
    assert_eq!(
        (d.location_type as i64, d.location_id),
        (vc::ACL_MEM_LOCATION_TYPE_DEVICE, 0)
    );
    let h = api::pointer_get_attributes(host).unwrap();
    assert_eq!(h.location_type as i64, vc::ACL_MEM_LOCATION_TYPE_HOST);
    let local = 5u64;
    let u = api::pointer_get_attributes(&local as *const u64 as usize).unwrap();
    assert_eq!(
        u.location_type as i64,
        vc::ACL_MEM_LOCATION_TYPE_UNREGISTERED
    );
    assert_eq!(
        code(api::pointer_get_attributes(0)),
        ACL_ERROR_INVALID_PARAM
    );
    api::free(dev).unwrap();
    assert_eq!(
        code(api::pointer_get_attributes(dev)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(code(api::mem_flush(dev, 8)), ACL_ERROR_INVALID_PARAM);

    let min = vc::ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM as u32;
    let rec = vc::ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED as u32;
    assert_eq!(
        api::mem_get_allocation_granularity(ACL_HBM_MEM_HUGE, min).unwrap(),
        2 << 20
    );
    assert_eq!(
        api::mem_get_allocation_granularity(ACL_MEM_NORMAL, rec).unwrap(),
        2 << 20
    );
    assert_eq!(
        api::mem_get_allocation_granularity(ACL_MEM_HUGE1G, min).unwrap(),
        1 << 30
    );
    assert_eq!(
        code(api::mem_get_allocation_granularity(ACL_MEM_NORMAL, 2)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::mem_get_allocation_granularity(
            ACL_MEM_P2P_HUGE1G + 1,
            min
        )),
        ACL_ERROR_INVALID_PARAM
    );
    api::finalize().unwrap();
}
