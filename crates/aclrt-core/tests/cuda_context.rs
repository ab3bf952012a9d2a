//! CUDA initialisation, devices, contexts, memory and the `CUresult` table.

mod cuda_common;

use aclrt::cuda::codes::{self, *};
use aclrt::cuda::{self, *};
use aclrt::{api, ContextHandle, StreamHandle};
use cuda_common::*;

#[test]
fn calls_before_cu_init_are_not_initialized() {
    let _serial = cuda_common::exclusive();
    assert_eq!(code(cuda::device_get_count()), CUDA_ERROR_NOT_INITIALIZED);
    assert_eq!(code(cuda::event_create(0)), CUDA_ERROR_NOT_INITIALIZED);
    assert_eq!(code(cuda::ctx_create(0, 0)), CUDA_ERROR_NOT_INITIALIZED);
    assert_eq!(
        code(cuda::stream_synchronize(StreamHandle::NULL)),
        CUDA_ERROR_NOT_INITIALIZED
    );
    assert_eq!(code(cuda::init(1)), CUDA_ERROR_INVALID_VALUE);
    cuda::init(0).unwrap();
    cuda::init(0).unwrap();
    assert_eq!(cuda::device_get_count().unwrap(), 1);
}

#[test]
fn calls_after_finalize_are_deinitialized() {
    let _serial = cuda_common::exclusive();
    setup();
    api::finalize().unwrap();
    assert_eq!(code(cuda::device_get(0)), CUDA_ERROR_DEINITIALIZED);
    assert_eq!(code(cuda::event_create(0)), CUDA_ERROR_DEINITIALIZED);
    cuda::init(0).unwrap();
    assert_eq!(cuda::device_get(0).unwrap(), 0);
}

#[test]
fn devices() {
    let _serial = cuda_common::exclusive();
    cuda::init(0).unwrap();
    assert_eq!(cuda::device_get(0).unwrap(), 0);
    for bad in [-1, 1, 64] {
        assert_eq!(code(cuda::device_get(bad)), CUDA_ERROR_INVALID_DEVICE);
        assert_eq!(code(cuda::ctx_create(0, bad)), CUDA_ERROR_INVALID_DEVICE);
    }
    assert_eq!(code(cuda::ctx_create(0x100, 0)), CUDA_ERROR_INVALID_VALUE);
}

#[test]
fn contexts() {
    let _serial = cuda_common::exclusive();
    cuda::init(0).unwrap();
    assert_eq!(cuda::ctx_get_current().unwrap(), ContextHandle::NULL);
    assert_eq!(code(cuda::stream_create(0)), CUDA_ERROR_INVALID_CONTEXT);
    assert_eq!(code(cuda::event_create(0)), CUDA_ERROR_INVALID_CONTEXT);
    assert_eq!(code(cuda::mem_alloc(8)), CUDA_ERROR_INVALID_CONTEXT);
    let a = cuda::ctx_create(0, 0).unwrap();
    assert_eq!(cuda::ctx_get_current().unwrap(), a);
    let b = cuda::ctx_create(0, 0).unwrap();
    assert_ne!(a, b);
    assert_eq!(cuda::ctx_get_current().unwrap(), b);
    cuda::ctx_set_current(a).unwrap();
    assert_eq!(cuda::ctx_get_current().unwrap(), a);
    // NULL pops the top of the thread's context stack: `a` replaced `b` there, and the `a`
    // that `b` was created over is next.
    cuda::ctx_set_current(ContextHandle::NULL).unwrap();
    assert_eq!(cuda::ctx_get_current().unwrap(), a);
    cuda::ctx_set_current(ContextHandle::NULL).unwrap();
    assert_eq!(cuda::ctx_get_current().unwrap(), ContextHandle::NULL);
    cuda::ctx_set_current(ContextHandle::NULL).unwrap();
    assert_eq!(cuda::ctx_get_current().unwrap(), ContextHandle::NULL);
    let garbage = ContextHandle::from_raw(0x4242);
    assert_eq!(
        code(cuda::ctx_set_current(garbage)),
        CUDA_ERROR_INVALID_CONTEXT
    );
    assert_eq!(code(cuda::ctx_destroy(garbage)), CUDA_ERROR_INVALID_CONTEXT);
    // Destroying a context kills its events and streams; a current one is unset.
    cuda::ctx_set_current(b).unwrap();
    let ev = cuda::event_create(0).unwrap();
    let s = cuda::stream_create(0).unwrap();
    cuda::ctx_destroy(b).unwrap();
    assert_eq!(cuda::ctx_get_current().unwrap(), ContextHandle::NULL);
    assert_eq!(code(cuda::ctx_destroy(b)), CUDA_ERROR_INVALID_CONTEXT);
    assert_eq!(code(cuda::ctx_set_current(b)), CUDA_ERROR_INVALID_CONTEXT);
    assert_eq!(code(cuda::event_query(ev)), CUDA_ERROR_INVALID_HANDLE);
    assert_eq!(code(cuda::stream_query(s)), CUDA_ERROR_INVALID_HANDLE);
    cuda::ctx_set_current(a).unwrap();
    cuda::ctx_destroy(a).unwrap();
    assert_eq!(api::live_objects().contexts, 0);
    assert_eq!(api::live_objects().events, 0);
}

#[test]
fn memory() {
    let _serial = cuda_common::exclusive();
    setup();
    assert_eq!(code(cuda::mem_alloc(0)), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(
        code(cuda::mem_alloc(usize::MAX / 2)),
        CUDA_ERROR_OUT_OF_MEMORY
    );
    let p = cuda::mem_alloc(100).unwrap();
    assert_eq!(p % 64, 0);
    let src = [5u8; 100];
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    unsafe { cuda::memcpy_htod(p, src.as_ptr(), 100).unwrap() };
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    unsafe { cuda::memset_d8(p, 9, 10).unwrap() };
    let mut out = [0u8; 100];
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    unsafe { cuda::memcpy_dtoh(out.as_mut_ptr(), p, 100).unwrap() };
    assert_eq!(&out[..10], &[9; 10]);
    assert_eq!(&out[10..], &[5; 90]);
    // Past the end of the allocation: refused, never performed.
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    assert_eq!(
        code(unsafe { cuda::memset_d8(p, 1, 101) }),
        CUDA_ERROR_INVALID_VALUE
    );
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    assert_eq!(
        code(unsafe { cuda::memcpy_htod(0, src.as_ptr(), 1) }),
        CUDA_ERROR_INVALID_VALUE
    );
    cuda::mem_free(p).unwrap();
    assert_eq!(code(cuda::mem_free(p)), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(code(cuda::mem_free(0)), CUDA_ERROR_INVALID_VALUE);
}

#[test]
fn result_table_matches_the_driver_values() {
    let _serial = cuda_common::exclusive();
    let expected = [
        ("CUDA_SUCCESS", 0),
        ("CUDA_ERROR_INVALID_VALUE", 1),
        ("CUDA_ERROR_OUT_OF_MEMORY", 2),
        ("CUDA_ERROR_NOT_INITIALIZED", 3),
        ("CUDA_ERROR_DEINITIALIZED", 4),
        ("CUDA_ERROR_NO_DEVICE", 100),
        ("CUDA_ERROR_INVALID_DEVICE", 101),
        ("CUDA_ERROR_INVALID_CONTEXT", 201),
        ("CUDA_ERROR_INVALID_HANDLE", 400),
        ("CUDA_ERROR_NOT_READY", 600),
        ("CUDA_ERROR_ILLEGAL_ADDRESS", 700),
        ("CUDA_ERROR_LAUNCH_FAILED", 719),
        ("CUDA_ERROR_NOT_PERMITTED", 800),
        ("CUDA_ERROR_NOT_SUPPORTED", 801),
        ("CUDA_ERROR_PROFILER_DISABLED", 5),
        ("CUDA_ERROR_INVALID_IMAGE", 200),
        ("CUDA_ERROR_UNSUPPORTED_LIMIT", 215),
        ("CUDA_ERROR_FILE_NOT_FOUND", 301),
        ("CUDA_ERROR_NOT_FOUND", 500),
        ("CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", 708),
        ("CUDA_ERROR_CONTEXT_IS_DESTROYED", 709),
        ("CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", 712),
        ("CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", 713),
        ("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", 900),
        ("CUDA_ERROR_CAPTURED_EVENT", 907),
        ("CUDA_ERROR_GRAPH_RECAPTURE_FAILURE", 918),
        ("CUDA_ERROR_UNKNOWN", 999),
    ];
    // Every CUresult of the CUDA 13.3 headers (those of 12.9 and three more).
    assert_eq!(codes::ALL.len(), 103);
    for (name, value) in expected {
        assert_eq!(codes::name_of(value), Some(name));
        assert!(!codes::description_of(value).unwrap().is_empty());
    }
    assert_eq!(codes::name_of(3000), None);
    assert_eq!(codes::description_of(12345), None);
    assert_eq!(
        (
            CU_EVENT_DEFAULT,
            CU_EVENT_BLOCKING_SYNC,
            CU_EVENT_DISABLE_TIMING,
            CU_EVENT_INTERPROCESS
        ),
        (0, 1, 2, 4)
    );
    assert_eq!((CU_EVENT_RECORD_DEFAULT, CU_EVENT_RECORD_EXTERNAL), (0, 1));
    assert_eq!((CU_STREAM_DEFAULT, CU_STREAM_NON_BLOCKING), (0, 1));
    assert_eq!(
        (CU_STREAM_LEGACY.as_raw(), CU_STREAM_PER_THREAD.as_raw()),
        (1, 2)
    );
}

#[test]
fn acl_codes_map_to_cuda_codes_in_one_place() {
    let _serial = cuda_common::exclusive();
    use aclrt::codes::*;
    let cases = [
        (ACL_SUCCESS, CUDA_SUCCESS),
        (ACL_ERROR_INVALID_PARAM, CUDA_ERROR_INVALID_VALUE),
        (ACL_ERROR_RT_PARAM_INVALID, CUDA_ERROR_INVALID_VALUE),
        (ACL_ERROR_RT_MEMORY_FREE, CUDA_ERROR_INVALID_VALUE),
        (ACL_ERROR_RT_INVALID_DEVICEID, CUDA_ERROR_INVALID_DEVICE),
        (ACL_ERROR_RT_CONTEXT_NULL, CUDA_ERROR_INVALID_CONTEXT),
        (ACL_ERROR_RT_STREAM_CONTEXT, CUDA_ERROR_INVALID_CONTEXT),
        (ACL_ERROR_RT_INVALID_HANDLE, CUDA_ERROR_INVALID_HANDLE),
        (ACL_ERROR_RT_MEMORY_ALLOCATION, CUDA_ERROR_OUT_OF_MEMORY),
        (ACL_ERROR_RT_NO_STREAM_RESOURCE, CUDA_ERROR_OUT_OF_MEMORY),
        (ACL_ERROR_RT_NO_DEVICE, CUDA_ERROR_NO_DEVICE),
        (ACL_ERROR_RT_FEATURE_NOT_SUPPORT, CUDA_ERROR_NOT_SUPPORTED),
        (ACL_ERROR_RT_EVENT_NOT_COMPLETE, CUDA_ERROR_NOT_READY),
        (ACL_ERROR_RT_AICORE_EXCEPTION, CUDA_ERROR_LAUNCH_FAILED),
        (ACL_ERROR_RT_STREAM_ABORT, CUDA_ERROR_LAUNCH_FAILED),
        (
            ACL_ERROR_RT_AICORE_TRAP_EXCEPTION,
            CUDA_ERROR_ILLEGAL_ADDRESS,
        ),
        (ACL_ERROR_RT_INTERNAL_ERROR, CUDA_ERROR_UNKNOWN),
        (ACL_ERROR_UNINITIALIZE, CUDA_ERROR_NOT_INITIALIZED),
    ];
    for (acl, cu) in cases {
        assert_eq!(codes::from_acl(acl), cu, "aclError {acl}");
    }
    for cu in [
        CUDA_ERROR_ILLEGAL_ADDRESS,
        CUDA_ERROR_LAUNCH_FAILED,
        CUDA_ERROR_UNKNOWN,
    ] {
        let back = codes::from_acl(codes::to_acl_task_code(cu));
        let want = if cu == CUDA_ERROR_ILLEGAL_ADDRESS {
            cu
        } else {
            CUDA_ERROR_LAUNCH_FAILED
        };
        assert_eq!(back, want);
    }
}

/// CUDA calls keep their errors to themselves: a failing `cu*` call leaves ACL's last error
/// and recent message as they were.
#[test]
fn cuda_failures_do_not_touch_acl_error_state() {
    let _serial = cuda_common::exclusive();
    setup();
    assert_eq!(aclrt::api::peek_at_last_error(), 0);
    assert_eq!(code(cuda::mem_alloc(0)), CUDA_ERROR_INVALID_VALUE);
    let garbage = aclrt::EventHandle::from_raw(0x1234);
    assert_eq!(
        code(cuda::event_record(garbage, aclrt::StreamHandle::NULL)),
        CUDA_ERROR_INVALID_HANDLE
    );
    assert_eq!(
        code(cuda::stream_synchronize(aclrt::StreamHandle::from_raw(
            0x99
        ))),
        CUDA_ERROR_INVALID_HANDLE
    );
    assert_eq!(
        aclrt::api::peek_at_last_error(),
        0,
        "ACL's last error untouched"
    );
    assert_eq!(
        aclrt::api::get_recent_err_msg(),
        None,
        "ACL's message untouched"
    );
}
