//! cudarc's driver API (safe layer, dynamic loading) against libaclrt_cuda loaded as libcuda.so.
//!
//! Each test runs its body in a child process whose loader finds the library as the driver
//! (see `aclrt_cuda_clients::in_child`).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use aclrt_cuda_clients::{in_child, kernel_library};
use cudarc::driver::{result, sys, CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

#[test]
fn devices_and_contexts() {
    if !in_child("devices_and_contexts") {
        return;
    }
    assert_eq!(CudaContext::device_count().unwrap(), 1);
    let ctx = CudaContext::new(0).unwrap();
    assert!(ctx.is_primary());
    assert_eq!(ctx.name().unwrap(), "aclrt emulated device");
    assert_eq!(ctx.compute_capability().unwrap(), (8, 0));
    assert_eq!(ctx.total_mem().unwrap(), 256 << 20);
    assert_eq!(ctx.mem_get_info().unwrap(), (256 << 20, 256 << 20));
    assert_eq!(
        &ctx.uuid().unwrap().bytes[..9],
        b"aclrt-emu".map(|b| b as _).as_slice()
    );
    let sms = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .unwrap();
    assert_eq!(sms, 108);
    // Memory pools: cudarc allocates with cuMemAllocAsync in stream order.
    assert!(ctx.has_async_alloc());
    assert_eq!(result::ctx::get_current().unwrap(), Some(ctx.cu_ctx()));
    // A second handle on the primary context is the same context.
    let again = CudaContext::new(0).unwrap();
    assert_eq!(again.cu_ctx(), ctx.cu_ctx());
    drop(again);
    ctx.synchronize().unwrap();
    ctx.set_blocking_synchronize().unwrap();

    // A non-primary context (cuCtxCreate_v4) on another thread.
    let own = CudaContext::new_non_primary(0, 0).unwrap();
    assert!(!own.is_primary());
    assert_ne!(own.cu_ctx(), ctx.cu_ctx());
    let other = own.clone();
    std::thread::spawn(move || {
        other.bind_to_thread().unwrap();
        let stream = other.default_stream();
        let data = stream.clone_htod(&[4.0f32, 5.0, 6.0]).unwrap();
        assert_eq!(stream.clone_dtoh(&data).unwrap(), vec![4.0f32, 5.0, 6.0]);
    })
    .join()
    .unwrap();
    drop(own);
    assert_eq!(
        CudaContext::new(1).unwrap_err(),
        DriverError(sys::CUresult::CUDA_ERROR_INVALID_DEVICE)
    );
}

#[test]
fn streams_events_and_copies() {
    if !in_child("streams_events_and_copies") {
        return;
    }
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let data: Vec<u32> = (0..1000).collect();
    let dev = stream.clone_htod(&data).unwrap();
    let mut copy = stream.alloc_zeros::<u32>(1000).unwrap();
    stream.memcpy_dtod(&dev, &mut copy).unwrap();
    assert_eq!(stream.clone_dtoh(&copy).unwrap(), data);
    stream.memset_zeros(&mut copy).unwrap();
    assert_eq!(stream.clone_dtoh(&copy).unwrap(), vec![0u32; 1000]);

    // A second stream ordered after the first through an event.
    let other = stream.fork().unwrap();
    let mut moved = other.alloc_zeros::<u32>(1000).unwrap();
    other.memcpy_dtod(&dev, &mut moved).unwrap();
    stream.join(&other).unwrap();
    assert_eq!(stream.clone_dtoh(&moved).unwrap(), data);

    // Timing events.
    let start = stream
        .record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
        .unwrap();
    for _ in 0..10 {
        stream.memcpy_htod(&data, &mut moved).unwrap();
    }
    let end = stream
        .record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
        .unwrap();
    let ms = start.elapsed_ms(&end).unwrap();
    assert!(ms >= 0.0, "{ms}");
    assert!(end.is_complete());

    // Priorities.
    let (least, greatest) = result::stream::get_priority_range().unwrap();
    assert_eq!((least, greatest), (0, -5));
    let urgent = ctx.new_stream_with_priority(-5).unwrap();
    let v = urgent.clone_htod(&[1u8, 2, 3]).unwrap();
    assert_eq!(urgent.clone_dtoh(&v).unwrap(), vec![1, 2, 3]);
}

#[test]
fn temporary_host_sources_are_consumed_before_the_call_returns() {
    if !in_child("temporary_host_sources_are_consumed_before_the_call_returns") {
        return;
    }
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    // Each source is a temporary dropped (and its memory reused) right after the call; the
    // copies are asynchronous, so only staging keeps the data intact.
    let slices: Vec<_> = (0..50u32)
        .map(|i| stream.clone_htod(&vec![i; 4096]).unwrap())
        .collect();
    for (i, s) in slices.iter().enumerate() {
        assert_eq!(stream.clone_dtoh(s).unwrap(), vec![i as u32; 4096]);
    }
}

#[test]
fn pinned_memory() {
    if !in_child("pinned_memory") {
        return;
    }
    let truth = [1.0f32, 2.0, 3.0, 4.0, 5.0];
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    for flags in [0, sys::CU_MEMHOSTALLOC_WRITECOMBINED] {
        // SAFETY: the slice is written before it is read.
        let mut pinned = unsafe { ctx.alloc_pinned_with_flags::<f32>(5, flags) }.unwrap();
        pinned.as_mut_slice().unwrap().clone_from_slice(&truth);
        let dev = stream.clone_htod(&pinned).unwrap();
        assert_eq!(stream.clone_dtoh(&dev).unwrap(), truth);
    }
}

unsafe extern "C" fn count(data: *mut std::ffi::c_void) {
    // SAFETY: the AtomicU32 the test keeps alive until the stream is synchronized.
    unsafe { &*(data as *const AtomicU32) }.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn host_functions() {
    if !in_child("host_functions") {
        return;
    }
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let counter = Arc::new(AtomicU32::new(0));
    for _ in 0..5 {
        // SAFETY: `count` takes the counter, alive until after the synchronize below.
        unsafe {
            sys::cuLaunchHostFunc(
                stream.cu_stream(),
                Some(count),
                Arc::as_ptr(&counter) as *mut _,
            )
            .result()
            .unwrap()
        };
    }
    stream.synchronize().unwrap();
    assert_eq!(counter.load(Ordering::SeqCst), 5);
}

#[test]
fn host_kernels_through_modules() {
    if !in_child("host_kernels_through_modules") {
        return;
    }
    let lib = kernel_library("cudarc-kernels");
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let module = ctx.load_module(Ptx::from_file(&lib)).unwrap();
    let scale = module.load_function("scale").unwrap();
    let mut data = stream.clone_htod(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let factor = 3.0f32;
    let n = 4u32;
    let mut launch = stream.launch_builder(&scale);
    launch.arg(&mut data).arg(&factor).arg(&n);
    // SAFETY: the arguments match the kernel's declared ones.
    unsafe { launch.launch(LaunchConfig::for_num_elems(4)) }.unwrap();
    assert_eq!(stream.clone_dtoh(&data).unwrap(), vec![3.0, 6.0, 9.0, 12.0]);
    assert!(module.load_function("missing").is_err());
    // A faulting kernel is a sticky launch failure.
    let faulty = module.load_function("faulty").unwrap();
    // SAFETY: a kernel without arguments.
    unsafe {
        stream
            .launch_builder(&faulty)
            .launch(LaunchConfig::for_num_elems(1))
    }
    .unwrap();
    assert_eq!(
        stream.synchronize().unwrap_err(),
        DriverError(sys::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS)
    );
}

#[test]
fn graphs_from_stream_capture() {
    if !in_child("graphs_from_stream_capture") {
        return;
    }
    let ctx = CudaContext::new(0).unwrap();
    // One stream does everything; no waits on events recorded outside the capture.
    // SAFETY: every access below is on `stream`.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().unwrap();
    let mut data = stream.clone_htod(&[3u32; 8]).unwrap();
    let counter = Arc::new(AtomicU32::new(0));
    stream
        .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    assert_eq!(
        stream.capture_status().unwrap(),
        sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE
    );
    stream.memset_zeros(&mut data).unwrap();
    // SAFETY: `count` takes the counter, alive until after the last synchronize below.
    unsafe {
        sys::cuLaunchHostFunc(
            stream.cu_stream(),
            Some(count),
            Arc::as_ptr(&counter) as *mut _,
        )
        .result()
        .unwrap()
    };
    let graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))
        .unwrap()
        .unwrap();
    // Captured, not run.
    assert_eq!(counter.load(Ordering::SeqCst), 0);
    assert_eq!(stream.clone_dtoh(&data).unwrap(), vec![3u32; 8]);
    for round in 1..=3 {
        stream.memcpy_htod(&[round; 8], &mut data).unwrap();
        graph.launch().unwrap();
        assert_eq!(stream.clone_dtoh(&data).unwrap(), vec![0u32; 8]);
        assert_eq!(counter.load(Ordering::SeqCst), round);
    }
    // Synchronising a capturing stream is refused and invalidates the capture.
    stream
        .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)
        .unwrap();
    assert_eq!(
        stream.synchronize().unwrap_err(),
        DriverError(sys::CUresult::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    );
    assert_eq!(
        stream.capture_status().unwrap(),
        sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_INVALIDATED
    );
    assert!(matches!(
        stream.end_capture(sys::CUgraphInstantiate_flags(0)),
        Err(DriverError(
            sys::CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        ))
    ));
}

#[test]
fn graphs_built_node_by_node() {
    if !in_child("graphs_built_node_by_node") {
        return;
    }
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let counter = Arc::new(AtomicU32::new(0));
    let params = sys::CUDA_HOST_NODE_PARAMS {
        fn_: Some(count),
        userData: Arc::as_ptr(&counter) as *mut _,
    };
    let mut graph = std::ptr::null_mut();
    let (mut first, mut second) = (std::ptr::null_mut(), std::ptr::null_mut());
    let mut exec = std::ptr::null_mut();
    // SAFETY: out-pointers are live locals; `count` takes the counter, alive until after the
    // last synchronize below; the node arrays hold one live handle each.
    unsafe {
        sys::cuGraphCreate(&mut graph, 0).result().unwrap();
        sys::cuGraphAddHostNode(&mut first, graph, std::ptr::null(), 0, &params)
            .result()
            .unwrap();
        sys::cuGraphAddHostNode(&mut second, graph, &first, 1, &params)
            .result()
            .unwrap();
        let mut edges = 0usize;
        sys::cuGraphGetEdges(
            graph,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut edges,
        )
        .result()
        .unwrap();
        assert_eq!(edges, 1);
        let mut kind = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
        sys::cuGraphNodeGetType(second, &mut kind).result().unwrap();
        assert_eq!(kind, sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_HOST);
        assert_eq!(
            sys::cuGraphAddDependencies(graph, &first, &second, 1),
            sys::CUresult::CUDA_ERROR_INVALID_VALUE
        );
        sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0)
            .result()
            .unwrap();
        for round in 1..=3 {
            sys::cuGraphLaunch(exec, stream.cu_stream())
                .result()
                .unwrap();
            stream.synchronize().unwrap();
            assert_eq!(counter.load(Ordering::SeqCst), 2 * round);
        }
        sys::cuGraphExecDestroy(exec).result().unwrap();
        sys::cuGraphDestroy(graph).result().unwrap();
    }
}
