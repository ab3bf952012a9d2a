"""cuda-python's driver bindings (cuda.bindings.driver) against libaclrt_cuda as libcuda.so.1.

Run by scripts/test.d/26-cuda-python.sh, which installs cuda-bindings and puts a directory
with libcuda.so.1 -> libaclrt_cuda.so first on LD_LIBRARY_PATH.
"""

import ctypes

import pytest

driver = pytest.importorskip("cuda.bindings.driver", reason="cuda-bindings is not installed")
CUresult = driver.CUresult


def ok(result):
    """Asserts CUDA_SUCCESS and returns the outputs."""
    err, *values = result if isinstance(result, tuple) else (result,)
    assert err == CUresult.CUDA_SUCCESS, err
    return values[0] if len(values) == 1 else tuple(values)


@pytest.fixture(scope="module")
def ctx():
    ok(driver.cuInit(0))
    dev = ok(driver.cuDeviceGet(0))
    context = ok(driver.cuDevicePrimaryCtxRetain(dev))
    ok(driver.cuCtxSetCurrent(context))
    yield context
    ok(driver.cuDevicePrimaryCtxRelease(dev))


def test_init_and_device(ctx):
    assert ok(driver.cuDriverGetVersion()) == 12090
    assert ok(driver.cuDeviceGetCount()) == 1
    dev = ok(driver.cuDeviceGet(0))
    assert ok(driver.cuDeviceGetName(64, dev)).split(b"\0")[0] == b"aclrt emulated device"
    major = driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    assert ok(driver.cuDeviceGetAttribute(major, dev)) == 8
    assert ok(driver.cuDeviceTotalMem(dev)) == 256 << 20
    err, _ = driver.cuDeviceGet(5)
    assert err == CUresult.CUDA_ERROR_INVALID_DEVICE
    assert ok(driver.cuGetErrorName(CUresult.CUDA_ERROR_NOT_READY)) == b"CUDA_ERROR_NOT_READY"


def test_contexts(ctx):
    assert int(ok(driver.cuCtxGetCurrent())) == int(ctx)
    own = ok(driver.cuCtxCreate(0, ok(driver.cuDeviceGet(0))))
    assert int(ok(driver.cuCtxGetCurrent())) == int(own)
    ok(driver.cuCtxDestroy(own))
    assert int(ok(driver.cuCtxGetCurrent())) == int(ctx)
    flags, active = ok(driver.cuDevicePrimaryCtxGetState(ok(driver.cuDeviceGet(0))))
    assert active == 1


def test_stream_event_timing_and_copies(ctx):
    stream = ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    start = ok(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DEFAULT))
    end = ok(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DEFAULT))
    n = 1 << 16
    src = (ctypes.c_uint8 * n)(*([7] * n))
    dst = (ctypes.c_uint8 * n)()
    dptr = ok(driver.cuMemAlloc(n))
    ok(driver.cuEventRecord(start, stream))
    ok(driver.cuMemcpyHtoDAsync(dptr, src, n, stream))
    ok(driver.cuMemsetD8Async(int(dptr) + n // 2, 9, n // 2, stream))
    ok(driver.cuMemcpyDtoHAsync(dst, dptr, n, stream))
    ok(driver.cuEventRecord(end, stream))
    ok(driver.cuStreamSynchronize(stream))
    assert dst[0] == 7 and dst[n // 2 - 1] == 7 and dst[n // 2] == 9 and dst[n - 1] == 9
    assert ok(driver.cuEventElapsedTime(start, end)) >= 0.0
    ok(driver.cuEventQuery(end))
    ok(driver.cuStreamQuery(stream))
    # Pinned memory, and the synchronous copies.
    pinned = ok(driver.cuMemAllocHost(n))
    ok(driver.cuMemcpyDtoH(pinned, dptr, n))
    assert ctypes.cast(pinned, ctypes.POINTER(ctypes.c_uint8))[n - 1] == 9
    ok(driver.cuMemFreeHost(pinned))
    ok(driver.cuMemFree(dptr))
    for e in (start, end):
        ok(driver.cuEventDestroy(e))
    ok(driver.cuStreamDestroy(stream))


def test_unsupported_and_errors(ctx):
    # Stream-ordered allocation works; size 0 is refused.
    dptr = ok(driver.cuMemAllocAsync(16, driver.CUstream(0)))
    ok(driver.cuMemFreeAsync(dptr, driver.CUstream(0)))
    err, _ = driver.cuMemAllocAsync(0, driver.CUstream(0))
    assert err == CUresult.CUDA_ERROR_INVALID_VALUE
    err, _ = driver.cuMemAlloc(0)
    assert err == CUresult.CUDA_ERROR_INVALID_VALUE


def test_graph_built_node_by_node(ctx):
    """Memset -> memcpy to the host -> empty, built with cuda.bindings' parameter structs."""
    stream = ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    n = 256
    dev = ok(driver.cuMemAlloc(n * 4))
    host = (ctypes.c_uint32 * n)()
    graph = ok(driver.cuGraphCreate(0))

    memset = driver.CUDA_MEMSET_NODE_PARAMS()
    memset.dst = dev
    memset.value = 0xA5A5A5A5
    memset.elementSize = 4
    memset.width = n
    memset.height = 1
    set_node = ok(driver.cuGraphAddMemsetNode(graph, None, 0, memset, ctx))

    copy = driver.CUDA_MEMCPY3D()
    copy.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    copy.srcDevice = dev
    copy.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    copy.dstHost = ctypes.addressof(host)
    copy.WidthInBytes = n * 4
    copy.Height = 1
    copy.Depth = 1
    copy_node = ok(driver.cuGraphAddMemcpyNode(graph, [set_node], 1, copy, ctx))
    empty = ok(driver.cuGraphAddEmptyNode(graph, [copy_node], 1))

    assert ok(driver.cuGraphNodeGetType(set_node)) == driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMSET
    assert ok(driver.cuGraphNodeGetType(empty)) == driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_EMPTY
    deps, count = ok(driver.cuGraphNodeGetDependencies(empty, 1))
    assert count == 1 and int(deps[0]) == int(copy_node)
    _, _, count = ok(driver.cuGraphGetEdges(graph, 0))
    assert count == 2
    got = ok(driver.cuGraphMemsetNodeGetParams(set_node))
    assert got.value == 0xA5A5A5A5 and got.elementSize == 4 and got.width == n

    exe = ok(driver.cuGraphInstantiate(graph, 0))
    ok(driver.cuGraphLaunch(exe, stream))
    ok(driver.cuStreamSynchronize(stream))
    assert list(host) == [0xA5A5A5A5] * n

    memset.elementSize = 1
    memset.value = 0x11
    memset.width = n * 4
    ok(driver.cuGraphExecMemsetNodeSetParams(exe, set_node, memset, ctx))
    ok(driver.cuGraphLaunch(exe, stream))
    ok(driver.cuStreamSynchronize(stream))
    assert list(host) == [0x11111111] * n

    copy.Depth = 2  # two slices of 0 rows' height: below Height
    err, _ = driver.cuGraphAddMemcpyNode(graph, None, 0, copy, ctx)
    assert err == CUresult.CUDA_ERROR_INVALID_VALUE
    ok(driver.cuGraphExecDestroy(exe))
    ok(driver.cuGraphDestroy(graph))
    ok(driver.cuMemFree(dev))
    ok(driver.cuStreamDestroy(stream))


def test_stream_memory_operations(ctx):
    """Value waits and writes, a batch and a batch node, through cuda.bindings' structs."""
    waiter = ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    writer = ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    host = ok(driver.cuMemAllocHost(32))
    ctypes.memset(host, 0, 32)
    words32 = ctypes.cast(host, ctypes.POINTER(ctypes.c_uint32))
    words64 = ctypes.cast(host, ctypes.POINTER(ctypes.c_uint64))
    eq = driver.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_EQ

    # A wait on one stream, released by a write from another.
    ok(driver.cuStreamWaitValue32(waiter, host, 3, eq))
    err = driver.cuStreamQuery(waiter)[0]
    assert err == CUresult.CUDA_ERROR_NOT_READY
    ok(driver.cuStreamWriteValue32(writer, host, 3, 0))
    ok(driver.cuStreamSynchronize(waiter))
    assert words32[0] == 3

    # A batch: a 64-bit write, a 32-bit wait, a barrier.
    ops = [driver.CUstreamBatchMemOpParams() for _ in range(3)]
    ops[0].writeValue.operation = driver.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WRITE_VALUE_64
    ops[0].writeValue.address = int(host) + 8
    ops[0].writeValue.value64 = 0x500000007
    ops[1].waitValue.operation = driver.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WAIT_VALUE_32
    ops[1].waitValue.address = int(host) + 4
    ops[1].waitValue.value = 1
    ops[1].waitValue.flags = eq
    ops[2].memoryBarrier.operation = driver.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_BARRIER
    ok(driver.cuStreamBatchMemOp(waiter, 3, ops, 0))
    ok(driver.cuStreamWaitValue64(writer, int(host) + 8, 0x500000007, eq))
    ok(driver.cuStreamSynchronize(writer))
    assert words64[1] == 0x500000007
    assert driver.cuStreamQuery(waiter)[0] == CUresult.CUDA_ERROR_NOT_READY
    ok(driver.cuStreamWriteValue32(writer, int(host) + 4, 1, 0))
    ok(driver.cuStreamSynchronize(waiter))

    # Bad flags, and an unaligned word.
    err = driver.cuStreamWaitValue32(waiter, host, 0, 4)[0]
    assert err == CUresult.CUDA_ERROR_INVALID_VALUE
    err = driver.cuStreamWriteValue64(waiter, int(host) + 4, 0, 0)[0]
    assert err == CUresult.CUDA_ERROR_INVALID_VALUE
    err = driver.cuStreamBatchMemOp(waiter, 3, ops, 1)[0]
    assert err == CUresult.CUDA_ERROR_INVALID_VALUE

    # A graph's batch node: the parameters come back.
    graph = ok(driver.cuGraphCreate(0))
    params = driver.CUDA_BATCH_MEM_OP_NODE_PARAMS()
    params.ctx = ctx
    params.count = 1
    params.paramArray = [ops[0]]
    params.flags = 0
    node = ok(driver.cuGraphAddBatchMemOpNode(graph, None, 0, params))
    got = ok(driver.cuGraphBatchMemOpNodeGetParams(node))
    assert got.count == 1 and int(got.ctx) == int(ctx)
    # cuda.bindings does not rebuild paramArray from the count of a struct the driver filled:
    # read the node's array through the pointer (at offset 16; value64 is 16 bytes into an op).
    array = ctypes.cast(got.getPtr(), ctypes.POINTER(ctypes.c_uint64))[2]
    assert ctypes.cast(array, ctypes.POINTER(ctypes.c_uint64))[2] == 0x500000007
    kind = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_BATCH_MEM_OP
    assert ok(driver.cuGraphNodeGetType(node)) == kind
    words64[1] = 0
    exe = ok(driver.cuGraphInstantiate(graph, 0))
    ok(driver.cuGraphLaunch(exe, waiter))
    ok(driver.cuStreamSynchronize(waiter))
    assert words64[1] == 0x500000007
    ok(driver.cuGraphExecDestroy(exe))
    ok(driver.cuGraphDestroy(graph))
    ok(driver.cuMemFreeHost(host))
    for s in (waiter, writer):
        ok(driver.cuStreamDestroy(s))


def test_generic_graph_nodes(ctx):
    """cuGraphAddNode and cuGraphExecNodeSetParams with cuda.bindings' CUgraphNodeParams."""
    stream = ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    n = 64
    dev = ok(driver.cuMemAlloc(n * 4))
    host = (ctypes.c_uint32 * n)()
    graph = ok(driver.cuGraphCreate(0))

    params = driver.CUgraphNodeParams()
    params.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMSET
    params.memset.dst = dev
    params.memset.value = 0x01020304
    params.memset.elementSize = 4
    params.memset.width = n
    params.memset.height = 1
    params.memset.ctx = ctx
    set_node = ok(driver.cuGraphAddNode(graph, None, 0, params))

    copy = driver.CUgraphNodeParams()
    copy.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMCPY
    copy.memcpy.copyCtx = ctx
    copy.memcpy.copyParams.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    copy.memcpy.copyParams.srcDevice = dev
    copy.memcpy.copyParams.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    copy.memcpy.copyParams.dstHost = ctypes.addressof(host)
    copy.memcpy.copyParams.WidthInBytes = n * 4
    copy.memcpy.copyParams.Height = 1
    copy.memcpy.copyParams.Depth = 1
    copy_node = ok(driver.cuGraphAddNode(graph, [set_node], 1, copy))
    kind = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMCPY
    assert ok(driver.cuGraphNodeGetType(copy_node)) == kind
    got = ok(driver.cuGraphMemsetNodeGetParams(set_node))
    assert got.value == 0x01020304 and got.width == n

    exe = ok(driver.cuGraphInstantiate(graph, 0))
    ok(driver.cuGraphLaunch(exe, stream))
    ok(driver.cuStreamSynchronize(stream))
    assert list(host) == [0x01020304] * n
    params.memset.value = 0x0A0B0C0D
    ok(driver.cuGraphExecNodeSetParams(exe, set_node, params))
    ok(driver.cuGraphLaunch(exe, stream))
    ok(driver.cuStreamSynchronize(stream))
    assert list(host) == [0x0A0B0C0D] * n
    # The node must be of the type given.
    err = driver.cuGraphExecNodeSetParams(exe, copy_node, params)[0]
    assert err == CUresult.CUDA_ERROR_INVALID_VALUE
    alloc = driver.CUgraphNodeParams()
    alloc.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEM_ALLOC
    err = driver.cuGraphAddNode(graph, None, 0, alloc)[0]
    assert err == CUresult.CUDA_ERROR_NOT_SUPPORTED
    ok(driver.cuGraphExecDestroy(exe))
    ok(driver.cuGraphDestroy(graph))
    ok(driver.cuMemFree(dev))
    ok(driver.cuStreamDestroy(stream))
