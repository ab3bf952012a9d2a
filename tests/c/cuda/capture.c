/* Stream capture and graphs: work on a capturing stream becomes graph nodes; cuGraphLaunch
 * submits it again; forks and joins through events; the calls capture refuses and the
 * invalidation they cause; capture modes; instantiate flags. */
#include <string.h>

#include "check.h"

static int counter;

static void count_fn(void *arg) {
    (void)arg;
    __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST);
}

static CUresult count_kernel(void *arg) {
    __atomic_add_fetch((int *)arg, 10, __ATOMIC_SEQ_CST);
    return CUDA_SUCCESS;
}

static int count(void) { return __atomic_load_n(&counter, __ATOMIC_SEQ_CST); }

static CUstreamCaptureStatus status_of(CUstream s) {
    CUstreamCaptureStatus cs = (CUstreamCaptureStatus)99;
    OK(cuStreamIsCapturing(s, &cs));
    return cs;
}

static size_t node_count(CUgraph g) {
    size_t n = 999;
    OK(cuGraphGetNodes(g, NULL, &n));
    return n;
}

/* What another thread gets from an unsafe call, and from ending a capture. */
typedef struct {
    CUcontext ctx;
    CUstream stream;
    CUstreamCaptureMode mode;
    CUresult alloc;
    CUresult end;
    CUgraph graph;
} probe_t;

static void *alloc_probe(void *arg) {
    probe_t *p = arg;
    CUdeviceptr d = 0;
    OK(cuCtxSetCurrent(p->ctx));
    CUstreamCaptureMode m = p->mode;
    OK(cuThreadExchangeStreamCaptureMode(&m));
    ASSERT(m == CU_STREAM_CAPTURE_MODE_GLOBAL);
    p->alloc = cuMemAlloc(&d, 64);
    if (p->alloc == CUDA_SUCCESS) OK(cuMemFree(d));
    OK(cuThreadExchangeStreamCaptureMode(&m));
    ASSERT(m == p->mode);
    return NULL;
}

static void *end_probe(void *arg) {
    probe_t *p = arg;
    OK(cuCtxSetCurrent(p->ctx));
    p->graph = (CUgraph)0x1;
    p->end = cuStreamEndCapture(p->stream, &p->graph);
    return NULL;
}

static void run_thread(void *(*fn)(void *), probe_t *p) {
    pthread_t t;
    ASSERT(pthread_create(&t, NULL, fn, p) == 0);
    ASSERT(pthread_join(t, NULL) == 0);
}

int main(void) {
    CUcontext ctx;
    CUstream s1, s2, blocking;
    CUevent e1, e2, outside;
    CUgraph g, g2;
    CUgraphExec x, x2;
    OK(cuInit(0));
    OK(cuCtxCreate(&ctx, 0, 0));
    OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
    OK(cuEventCreate(&e1, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&e2, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&outside, CU_EVENT_DISABLE_TIMING));
    ASSERT(CU_STREAM_CAPTURE_MODE_GLOBAL == 0 && CU_STREAM_CAPTURE_MODE_THREAD_LOCAL == 1 &&
           CU_STREAM_CAPTURE_MODE_RELAXED == 2);
    ASSERT(CU_STREAM_CAPTURE_STATUS_NONE == 0 && CU_STREAM_CAPTURE_STATUS_ACTIVE == 1 &&
           CU_STREAM_CAPTURE_STATUS_INVALIDATED == 2);

    /* The legacy stream cannot capture; modes are checked. */
    EXPECT(cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL),
           CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT(cuStreamBeginCapture(CU_STREAM_LEGACY, CU_STREAM_CAPTURE_MODE_GLOBAL),
           CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT(cuStreamBeginCapture(s1, (CUstreamCaptureMode)3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    EXPECT(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);
    ASSERT(status_of(s1) == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    ASSERT(status_of(s2) == CU_STREAM_CAPTURE_STATUS_NONE);

    /* Captured work does not run; each node depends on the one before. */
    CUdeviceptr dev;
    unsigned *pinned;
    unsigned host[4];
    OK(cuStreamEndCapture(s1, &g));
    OK(cuGraphDestroy(g));
    OK(cuMemAlloc(&dev, 16));
    OK(cuMemAllocHost((void **)&pinned, 16));
    for (int i = 0; i < 4; i++) pinned[i] = 7;
    int kernel_runs = 0;
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    cuuint64_t id = 0;
    CUgraph building = NULL;
    const CUgraphNode *deps = NULL;
    size_t ndeps = 99;
    CUstreamCaptureStatus cs;
    OK(cuStreamGetCaptureInfo(s1, &cs, &id, &building, &deps, &ndeps));
    ASSERT(cs == CU_STREAM_CAPTURE_STATUS_ACTIVE && id != 0 && building != NULL && ndeps == 0);
    OK(cuMemsetD32Async(dev, 5, 4, s1));
    OK(cuMemcpyHtoDAsync(dev + 8, pinned, 8, s1));
    OK(cuLaunchHostFunc(s1, count_fn, NULL));
    OK(aclrtxCuLaunchHostKernel(s1, count_kernel, &kernel_runs));
    OK(cuStreamGetCaptureInfo(s1, &cs, NULL, NULL, &deps, &ndeps));
    ASSERT(ndeps == 1 && deps != NULL && deps[0] != NULL);
    const void *edges = (const void *)0x1;
    OK(cuStreamGetCaptureInfo_v3(s1, &cs, NULL, NULL, NULL, &edges, &ndeps));
    ASSERT(ndeps == 1 && edges == NULL);
    OK(cuStreamEndCapture(s1, &g));
    ASSERT(g == building);
    ASSERT(status_of(s1) == CU_STREAM_CAPTURE_STATUS_NONE);
    OK(cuStreamSynchronize(s1));
    OK(cuMemcpyDtoH(host, dev, 16));
    ASSERT(count() == 0 && kernel_runs == 0 && host[0] == 0 && host[3] == 0);
    ASSERT(node_count(g) == 4);
    CUgraphNode nodes[6];
    size_t n = 6;
    OK(cuGraphGetNodes(g, nodes, &n));
    ASSERT(n == 4 && nodes[0] != NULL && nodes[3] == deps[0] && nodes[4] == NULL && nodes[5] == NULL);
    n = 2;
    OK(cuGraphGetNodes(g, nodes, &n));
    ASSERT(n == 2);

    /* Each launch submits the work again; the copy reads its source when it runs. */
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphUpload(x, s1));
    OK(cuGraphLaunch(x, s1));
    OK(cuStreamSynchronize(s1));
    OK(cuMemcpyDtoH(host, dev, 16));
    ASSERT(host[0] == 5 && host[1] == 5 && host[2] == 7 && host[3] == 7);
    ASSERT(count() == 1 && kernel_runs == 10);
    for (int i = 0; i < 4; i++) pinned[i] = 9;
    OK(cuGraphLaunch(x, s2));
    OK(cuGraphLaunch(x, s2));
    OK(cuStreamSynchronize(s2));
    OK(cuMemcpyDtoH(host, dev, 16));
    ASSERT(host[0] == 5 && host[2] == 9 && count() == 3 && kernel_runs == 30);
    /* The legacy and per-thread streams launch graphs too. */
    OK(cuGraphLaunch(x, NULL));
    OK(cuGraphLaunch(x, CU_STREAM_PER_THREAD));
    OK(cuCtxSynchronize());
    ASSERT(count() == 5 && kernel_runs == 50);
    /* An executable graph outlives its graph. */
    OK(cuGraphDestroy(g));
    EXPECT(cuGraphDestroy(g), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphLaunch(x, s1));
    OK(cuStreamSynchronize(s1));
    ASSERT(count() == 6);

    /* A launch on a capturing stream is captured. */
    OK(cuStreamBeginCapture(s2, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuGraphLaunch(x, s2));
    OK(cuLaunchHostFunc(s2, count_fn, NULL));
    OK(cuStreamEndCapture(s2, &g2));
    ASSERT(node_count(g2) == 2 && count() == 6);
    OK(cuGraphInstantiateWithFlags(&x2, g2, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
    OK(cuGraphLaunch(x2, s2));
    OK(cuStreamSynchronize(s2));
    ASSERT(count() == 8 && kernel_runs == 70);
    OK(cuGraphExecDestroy(x2));
    EXPECT(cuGraphExecDestroy(x2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphLaunch(x2, s2), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(g2));
    OK(cuGraphExecDestroy(x));

    /* Instantiate flags; the first-version instantiate. */
    CUgraph empty;
    CUgraphNode err_node = (CUgraphNode)0x1;
    char log[8] = "x";
    EXPECT(cuGraphCreate(&empty, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphCreate(&empty, 0));
    ASSERT(node_count(empty) == 0);
    EXPECT(cuGraphInstantiateWithFlags(&x, empty, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
                                                      CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphInstantiateWithFlags(&x, empty, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH),
           CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuGraphInstantiateWithFlags(&x, empty, 0x100), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphInstantiateWithFlags(NULL, empty, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphInstantiateWithFlags(&x, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphInstantiate_v2(&x, empty, &err_node, log, sizeof log));
    ASSERT(err_node == NULL && log[0] == 0);
    OK(cuGraphLaunch(x, s1));
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(empty));

    /* Fork and join through events: s2 joins the capture by waiting on an event recorded in
     * it, and the origin waits for s2's work before going on. */
    order_log_t olog = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
    log_entry_t ea = {&olog, 'A'}, eb = {&olog, 'B'}, ec = {&olog, 'C'};
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuLaunchHostFunc(s1, log_host_fn, &ea));
    OK(cuEventRecord(e1, s1));
    OK(cuStreamWaitEvent(s2, e1, 0));
    ASSERT(status_of(s2) == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    OK(cuLaunchHostFunc(s2, log_host_fn, &eb));
    EXPECT(cuStreamEndCapture(s2, &g), CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
    OK(cuEventRecord(e2, s2));
    OK(cuStreamWaitEvent(s1, e2, 0));
    OK(cuStreamGetCaptureInfo(s1, &cs, NULL, NULL, &deps, &ndeps));
    ASSERT(ndeps == 2);
    OK(cuLaunchHostFunc(s1, log_host_fn, &ec));
    OK(cuStreamEndCapture(s1, &g));
    ASSERT(status_of(s2) == CU_STREAM_CAPTURE_STATUS_NONE && olog.n == 0);
    ASSERT(node_count(g) == 3);
    OK(cuGraphInstantiateWithFlags(&x, g, 0));
    OK(cuGraphLaunch(x, s1));
    OK(cuStreamSynchronize(s1));
    ASSERT(strcmp(olog.entries, "ABC") == 0);
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));

    /* A fork not joined back: no graph, and every stream leaves the capture. */
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuEventRecord(e1, s1));
    OK(cuStreamWaitEvent(s2, e1, 0));
    OK(cuLaunchHostFunc(s2, count_fn, NULL));
    g = (CUgraph)0x1;
    EXPECT(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
    ASSERT(g == NULL && status_of(s2) == CU_STREAM_CAPTURE_STATUS_NONE);

    /* Synchronising a capturing stream invalidates the capture. */
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    EXPECT(cuStreamSynchronize(s1), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ASSERT(status_of(s1) == CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    OK(cuLaunchHostFunc(s1, count_fn, NULL)); /* accepted, not recorded */
    g = (CUgraph)0x1;
    EXPECT(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    ASSERT(g == NULL && status_of(s1) == CU_STREAM_CAPTURE_STATUS_NONE);
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    EXPECT(cuStreamQuery(s1), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    ASSERT(count() == 8);

    /* An event recorded in a capture cannot be queried or waited for from the host. */
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuEventRecord(e1, s1));
    EXPECT(cuEventQuery(e1), CUDA_ERROR_CAPTURED_EVENT);
    EXPECT(cuEventSynchronize(e1), CUDA_ERROR_CAPTURED_EVENT);
    EXPECT(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT(cuEventQuery(e1), CUDA_ERROR_CAPTURED_EVENT);
    OK(cuEventRecord(e1, s1)); /* recorded outside a capture again */
    OK(cuEventSynchronize(e1));

    /* Waiting in a capture on an event recorded outside it: isolation, unless EXTERNAL
     * (an event wait node); EXTERNAL records are event record nodes. */
    OK(cuEventRecord(outside, s2));
    OK(cuEventRecord(e2, s2));
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    EXPECT(cuStreamWaitEvent(s1, outside, 0), CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
    EXPECT(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuStreamWaitEvent(s1, outside, CU_EVENT_WAIT_EXTERNAL));
    OK(cuEventRecordWithFlags(e2, s1, CU_EVENT_RECORD_EXTERNAL));
    OK(cuStreamEndCapture(s1, &g));
    ASSERT(node_count(g) == 2);
    OK(cuEventSynchronize(e2)); /* an EXTERNAL record does not make a captured event */
    OK(cuGraphInstantiateWithFlags(&x, g, 0));
    OK(cuGraphLaunch(x, s1));
    OK(cuEventSynchronize(e2));
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));

    /* Two captures cannot merge. */
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuStreamBeginCapture(s2, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuEventRecord(e1, s1));
    EXPECT(cuStreamWaitEvent(s2, e1, 0), CUDA_ERROR_STREAM_CAPTURE_MERGE);
    EXPECT(cuStreamEndCapture(s2, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuEventRecord(e1, s1));

    /* The legacy stream while a blocking stream captures: an implicit dependency. */
    OK(cuStreamBeginCapture(blocking, CU_STREAM_CAPTURE_MODE_GLOBAL));
    EXPECT(cuLaunchHostFunc(NULL, count_fn, NULL), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    cs = CU_STREAM_CAPTURE_STATUS_NONE;
    EXPECT(cuStreamIsCapturing(NULL, &cs), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    ASSERT(status_of(blocking) == CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    EXPECT(cuStreamEndCapture(blocking, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* ... but not while only non-blocking streams capture. */
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
    OK(cuMemsetD8(dev, 1, 16));
    ASSERT(status_of(NULL) == CU_STREAM_CAPTURE_STATUS_NONE);
    OK(cuStreamEndCapture(s1, &g));
    ASSERT(node_count(g) == 0);
    OK(cuGraphDestroy(g));

    /* Capture modes: unsafe calls (allocations) on the capturing thread unless relaxed ... */
    CUdeviceptr tmp;
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    EXPECT(cuMemAlloc(&tmp, 64), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
    OK(cuMemAlloc(&tmp, 64));
    OK(cuMemFree(tmp));
    OK(cuStreamEndCapture(s1, &g));
    OK(cuGraphDestroy(g));
    /* ... this thread's interaction mode set to relaxed allows them ... */
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    OK(cuThreadExchangeStreamCaptureMode(&mode));
    ASSERT(mode == CU_STREAM_CAPTURE_MODE_GLOBAL);
    OK(cuMemAlloc(&tmp, 64));
    OK(cuMemFree(tmp));
    OK(cuThreadExchangeStreamCaptureMode(&mode));
    ASSERT(mode == CU_STREAM_CAPTURE_MODE_RELAXED);
    mode = (CUstreamCaptureMode)7;
    EXPECT(cuThreadExchangeStreamCaptureMode(&mode), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuThreadExchangeStreamCaptureMode(NULL), CUDA_ERROR_INVALID_VALUE);
    /* ... a global capture forbids them on other threads in global mode, ... */
    probe_t p = {ctx, s1, CU_STREAM_CAPTURE_MODE_GLOBAL, 0, 0, NULL};
    run_thread(alloc_probe, &p);
    EXPECT(p.alloc, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    p.mode = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
    run_thread(alloc_probe, &p);
    EXPECT(p.alloc, CUDA_SUCCESS);
    OK(cuStreamEndCapture(s1, &g));
    OK(cuGraphDestroy(g));
    /* ... a thread-local one does not. */
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    p.mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
    run_thread(alloc_probe, &p);
    EXPECT(p.alloc, CUDA_SUCCESS);

    /* Only the capturing thread ends a capture, unless it is relaxed. */
    run_thread(end_probe, &p);
    EXPECT(p.end, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
    ASSERT(status_of(s1) == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    OK(cuStreamEndCapture(s1, &g));
    OK(cuGraphDestroy(g));
    OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
    run_thread(end_probe, &p);
    EXPECT(p.end, CUDA_SUCCESS);
    ASSERT(p.graph != NULL && status_of(s1) == CU_STREAM_CAPTURE_STATUS_NONE);
    OK(cuGraphDestroy(p.graph));

    /* Destroying a capturing stream ends its capture. */
    CUstream doomed;
    OK(cuStreamCreate(&doomed, CU_STREAM_NON_BLOCKING));
    OK(cuStreamBeginCapture(doomed, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuStreamDestroy(doomed));
    OK(cuMemAlloc(&tmp, 64));
    OK(cuMemFree(tmp));

    ASSERT(count() == 8);
    OK(cuMemFree(dev));
    OK(cuMemFreeHost(pinned));
    OK(cuEventDestroy(e1));
    OK(cuEventDestroy(e2));
    OK(cuEventDestroy(outside));
    OK(cuStreamDestroy(s1));
    OK(cuStreamDestroy(s2));
    OK(cuStreamDestroy(blocking));
    OK(cuCtxDestroy(ctx));
    puts("capture: ok");
    return 0;
}
