/* CUDA event semantics through the C ABI: snapshots, flags, elapsed time, exact codes. */
#include <string.h>

#include "check.h"

static CUresult sleep_kernel(void *arg) {
    sleep_ms(*(long *)arg);
    return CUDA_SUCCESS;
}

static void codes_and_names(void) {
    const char *s = NULL;
    OK(cuGetErrorName(CUDA_ERROR_NOT_READY, &s));
    ASSERT(strcmp(s, "CUDA_ERROR_NOT_READY") == 0);
    OK(cuGetErrorName(CUDA_ERROR_LAUNCH_FAILED, &s));
    ASSERT(strcmp(s, "CUDA_ERROR_LAUNCH_FAILED") == 0);
    OK(cuGetErrorString(CUDA_ERROR_INVALID_HANDLE, &s));
    ASSERT(s != NULL && s[0] != 0);
    EXPECT(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    ASSERT(s == NULL);
    EXPECT(cuGetErrorString(CUDA_SUCCESS, NULL), CUDA_ERROR_INVALID_VALUE);
    ASSERT(CUDA_ERROR_ILLEGAL_ADDRESS == 700 && CUDA_ERROR_NOT_SUPPORTED == 801);
    ASSERT(CU_EVENT_INTERPROCESS == 4 && CU_EVENT_RECORD_EXTERNAL == 1);
    ASSERT(CU_STREAM_NON_BLOCKING == 1 && sizeof(CUdeviceptr) == 8);
}

static void before_init(void) {
    CUevent e;
    int n;
    EXPECT(cuEventCreate(&e, 0), CUDA_ERROR_NOT_INITIALIZED);
    /* Not initialised comes before the NULL check. */
    EXPECT(cuDeviceGetCount(NULL), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    OK(cuInit(0));
    OK(cuDeviceGetCount(&n));
    ASSERT(n == 1);
    EXPECT(cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);
    CUdevice d;
    EXPECT(cuDeviceGet(&d, 3), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuEventCreate(&e, 0), CUDA_ERROR_INVALID_CONTEXT);
}

static void flags(void) {
    CUevent e;
    unsigned ok[] = {0, 1, 2, 3, 6, 7};
    for (unsigned i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        OK(cuEventCreate(&e, ok[i]));
        OK(cuEventDestroy(e));
    }
    EXPECT(cuEventCreate(&e, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuEventCreate(&e, 0x8), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuEventCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuEventCreate(&e, 0));
    EXPECT(cuEventRecordWithFlags(e, NULL, CU_EVENT_RECORD_EXTERNAL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuEventRecordWithFlags(e, NULL, 2), CUDA_ERROR_INVALID_VALUE);
    OK(cuEventRecordWithFlags(e, NULL, CU_EVENT_RECORD_DEFAULT));
    EXPECT(cuStreamWaitEvent(NULL, e, CU_EVENT_WAIT_EXTERNAL), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamWaitEvent(NULL, e, CU_EVENT_WAIT_DEFAULT));
    OK(cuEventSynchronize(e));
    OK(cuEventDestroy(e));
}

static void snapshots(void) {
    CUstream s;
    CUevent e, never;
    gate_t g1, g2;
    gate_init(&g1, CUDA_SUCCESS);
    gate_init(&g2, CUDA_SUCCESS);
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&never, 0));
    /* Before the first record: an empty set of work. */
    OK(cuEventQuery(never));
    OK(cuEventSynchronize(never));

    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g1));
    OK(cuEventRecord(e, s));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g2));
    EXPECT(cuEventQuery(e), CUDA_ERROR_NOT_READY);
    EXPECT(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    gate_open(&g1);
    /* Work queued after the record is not part of it. */
    OK(cuEventSynchronize(e));
    OK(cuEventQuery(e));
    EXPECT(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    gate_open(&g2);
    OK(cuStreamSynchronize(s));
    OK(cuStreamQuery(s));
    OK(cuEventDestroy(e));
    OK(cuEventDestroy(never));
    OK(cuStreamDestroy(s));
}

static void elapsed(void) {
    CUstream s;
    CUevent start, end, untimed, never;
    float ms = -1;
    long sleep_for = 5;
    gate_t g;
    gate_init(&g, CUDA_SUCCESS);
    OK(cuStreamCreate(&s, 0));
    OK(cuEventCreate(&start, 0));
    OK(cuEventCreate(&end, CU_EVENT_BLOCKING_SYNC));
    OK(cuEventCreate(&untimed, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&never, 0));
    OK(cuEventRecord(start, s));
    OK(cuEventRecord(untimed, s));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g));
    OK(aclrtxCuLaunchHostKernel(s, sleep_kernel, &sleep_for));
    OK(cuEventRecord(end, s));
    EXPECT(cuEventElapsedTime(&ms, start, end), CUDA_ERROR_NOT_READY);
    EXPECT(cuEventElapsedTime_v2(&ms, start, end), CUDA_ERROR_NOT_READY);
    EXPECT(cuEventElapsedTime(&ms, start, never), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventElapsedTime(&ms, never, end), CUDA_ERROR_INVALID_HANDLE);
    gate_open(&g);
    OK(cuEventSynchronize(end));
    EXPECT(cuEventElapsedTime(&ms, untimed, end), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventElapsedTime(&ms, start, untimed), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventElapsedTime(NULL, start, end), CUDA_ERROR_INVALID_VALUE);
    OK(cuEventElapsedTime(&ms, start, end));
    ASSERT(ms >= 5.0f && ms < 10000.0f);
    float v2 = -1;
    OK(cuEventElapsedTime_v2(&v2, start, end));
    ASSERT(v2 == ms);
    printf("elapsed over a 5 ms kernel: %.4f ms\n", ms);
    OK(cuEventDestroy(start));
    OK(cuEventDestroy(end));
    OK(cuEventDestroy(untimed));
    OK(cuEventDestroy(never));
    OK(cuStreamDestroy(s));
}

static void handles(CUcontext first) {
    CUevent e, acl_garbage = (CUevent)(unsigned long)0x12345678;
    CUstream s_b;
    CUcontext second, cur;
    OK(cuEventCreate(&e, 0));
    EXPECT(cuEventQuery(acl_garbage), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventRecord(acl_garbage, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventRecord(e, (CUstream)(unsigned long)0x999), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    /* Event and stream from different contexts. */
    OK(cuCtxCreate(&second, 0, 0));
    OK(cuCtxGetCurrent(&cur));
    ASSERT(cur == second);
    OK(cuStreamCreate(&s_b, 0));
    EXPECT(cuEventRecord(e, s_b), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventRecord(e, CU_STREAM_LEGACY), CUDA_ERROR_INVALID_HANDLE);
    /* Waiting on another context's event is fine. */
    OK(cuStreamWaitEvent(s_b, e, 0));
    OK(cuCtxDestroy(second));
    EXPECT(cuCtxSetCurrent(second), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxDestroy((CUcontext)(unsigned long)0x4242), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuStreamQuery(s_b), CUDA_ERROR_INVALID_HANDLE);
    OK(cuCtxSetCurrent(first));
    OK(cuEventDestroy(e));
    EXPECT(cuEventQuery(e), CUDA_ERROR_INVALID_HANDLE);
}

static void destroy_incomplete(void) {
    CUstream s;
    CUevent e;
    gate_t g;
    gate_init(&g, CUDA_SUCCESS);
    OK(cuStreamCreate(&s, 0));
    OK(cuEventCreate(&e, 0));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g));
    OK(cuEventRecord(e, s));
    /* The gate is closed: a destroy that waited for the event would never return. */
    OK(cuEventDestroy(e));
    EXPECT(cuEventSynchronize(e), CUDA_ERROR_INVALID_HANDLE);
    gate_open(&g);
    OK(cuStreamSynchronize(s));
    OK(cuStreamDestroy(s));
}

int main(void) {
    CUcontext ctx;
    CUdevice dev;
    codes_and_names();
    before_init();
    OK(cuDeviceGet(&dev, 0));
    EXPECT(cuCtxCreate(NULL, 0, dev), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxCreate(&ctx, 0, dev));
    flags();
    snapshots();
    elapsed();
    handles(ctx);
    destroy_incomplete();
    OK(cuCtxDestroy(ctx));
    printf("cuda events: ok\n");
    return 0;
}
