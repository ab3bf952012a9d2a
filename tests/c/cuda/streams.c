/* Streams: priorities, flags, contexts, ids, callbacks; not capturing (capture: capture.c). */
#include "check.h"

static CUresult seen_status = (CUresult)-1;
static CUstream seen_stream;

static void callback(CUstream s, CUresult status, void *arg) {
    seen_stream = s;
    seen_status = status;
    set_flag(arg);
}

int main(void) {
    CUcontext ctx, got;
    CUstream hi, lo, clamped;
    int prio = 99;
    unsigned flags = 99;
    OK(cuInit(0));
    OK(cuCtxCreate(&ctx, 0, 0));
    OK(cuStreamCreateWithPriority(&hi, CU_STREAM_NON_BLOCKING, -5));
    OK(cuStreamCreateWithPriority(&lo, 0, 0));
    OK(cuStreamCreateWithPriority(&clamped, 0, -100));
    OK(cuStreamGetPriority(hi, &prio));
    ASSERT(prio == -5);
    OK(cuStreamGetPriority(lo, &prio));
    ASSERT(prio == 0);
    OK(cuStreamGetPriority(clamped, &prio));
    ASSERT(prio == -5);
    OK(cuStreamGetPriority(NULL, &prio));
    ASSERT(prio == 0);
    EXPECT(cuStreamCreateWithPriority(&lo, 4, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamGetFlags(hi, &flags));
    ASSERT(flags == CU_STREAM_NON_BLOCKING);
    OK(cuStreamGetFlags(lo, &flags));
    ASSERT(flags == CU_STREAM_DEFAULT);
    OK(cuStreamGetFlags(CU_STREAM_LEGACY, &flags));
    ASSERT(flags == 0);
    OK(cuStreamGetCtx(hi, &got));
    ASSERT(got == ctx);
    OK(cuStreamGetCtx(NULL, &got));
    ASSERT(got == ctx);
    void *green = (void *)1;
    OK(cuStreamGetCtx_v2(hi, &got, &green));
    ASSERT(got == ctx && green == NULL);
    unsigned long long id1 = 0, id2 = 0;
    OK(cuStreamGetId(hi, &id1));
    OK(cuStreamGetId(lo, &id2));
    ASSERT(id1 != 0 && id1 != id2);
    EXPECT(cuStreamGetPriority((CUstream)0x4242, &prio), CUDA_ERROR_INVALID_HANDLE);

    int flag = 0;
    OK(cuStreamAddCallback(hi, callback, &flag, 0));
    OK(cuStreamSynchronize(hi));
    ASSERT(eventually(&flag) && seen_status == CUDA_SUCCESS && seen_stream == hi);
    EXPECT(cuStreamAddCallback(hi, callback, &flag, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamAddCallback(hi, NULL, &flag, 0), CUDA_ERROR_INVALID_VALUE);

    /* Not capturing (capture itself: capture.c). */
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    CUgraph graph;
    OK(cuStreamIsCapturing(hi, &cs));
    ASSERT(cs == CU_STREAM_CAPTURE_STATUS_NONE);
    EXPECT(cuStreamEndCapture(hi, &graph), CUDA_ERROR_ILLEGAL_STATE);
    cs = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    OK(cuStreamGetCaptureInfo(hi, &cs, NULL, NULL, NULL, NULL));
    ASSERT(cs == CU_STREAM_CAPTURE_STATUS_NONE);
    OK(cuProfilerStart());
    OK(cuProfilerStop());

    OK(cuStreamDestroy(hi));
    OK(cuStreamDestroy(lo));
    OK(cuStreamDestroy(clamped));
    EXPECT(cuStreamDestroy(hi), CUDA_ERROR_INVALID_HANDLE);
    OK(cuCtxDestroy(ctx));
    puts("streams: ok");
    return 0;
}
