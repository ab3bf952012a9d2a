/* The per-thread default stream variants: built with CUDA_API_PER_THREAD_DEFAULT_STREAM, the
 * calls name their _ptsz / _ptds variants, where NULL is the thread's per-thread stream; the
 * plain functions, looked up by name, keep NULL as the legacy stream. */
#define _GNU_SOURCE
#define CUDA_API_PER_THREAD_DEFAULT_STREAM
#include <dlfcn.h>
#include <string.h>

#include "check.h"

typedef CUresult (*record_t)(CUevent, CUstream);
typedef CUresult (*memset_async_t)(CUdeviceptr, unsigned char, size_t, CUstream);
typedef CUresult (*stream_id_t)(CUstream, unsigned long long *);

static void *plain(const char *name) {
    void *f = dlsym(RTLD_DEFAULT, name);
    ASSERT(f != NULL);
    return f;
}

/* Polls an event for up to ten seconds. */
static int event_done(CUevent e) {
    for (int i = 0; i < 5000; i++) {
        CUresult r = cuEventQuery(e);
        if (r != CUDA_ERROR_NOT_READY) return r == CUDA_SUCCESS;
        sleep_ms(2);
    }
    return 0;
}

/* The names resolve to the variants. */
static void names(void) {
    ASSERT((void *)cuEventRecord == plain("cuEventRecord_ptsz"));
    ASSERT((void *)cuMemcpyHtoD == plain("cuMemcpyHtoD_v2_ptds"));
    ASSERT((void *)cuMemsetD8Async == plain("cuMemsetD8Async_ptsz"));
    ASSERT((void *)cuStreamBeginCapture == plain("cuStreamBeginCapture_v2_ptsz"));
    ASSERT((void *)cuStreamGetCaptureInfo == plain("cuStreamGetCaptureInfo_v2_ptsz"));
}

/* NULL is the thread's per-thread stream, CU_STREAM_LEGACY the legacy stream. */
static void null_is_the_per_thread_stream(void) {
    unsigned long long null_id = 0, pt_id = 0, legacy_id = 0, plain_null_id = 0;
    stream_id_t plain_id = (stream_id_t)plain("cuStreamGetId");
    OK(cuStreamGetId(NULL, &null_id));
    OK(cuStreamGetId(CU_STREAM_PER_THREAD, &pt_id));
    OK(cuStreamGetId(CU_STREAM_LEGACY, &legacy_id));
    OK(plain_id(NULL, &plain_null_id));
    ASSERT(null_id == pt_id);
    ASSERT(plain_null_id == legacy_id);
    ASSERT(null_id != legacy_id);
    unsigned int flags = 99;
    OK(cuStreamGetFlags(NULL, &flags));
    ASSERT(flags == CU_STREAM_DEFAULT);
}

/* Work on a blocking stream is held by a gate: the per-thread stream does not wait for it, the
 * legacy stream (the plain functions' NULL, and CU_STREAM_LEGACY here) does. */
static void does_not_wait_for_blocking_streams(void) {
    CUstream s;
    CUevent pt, legacy, plain_null;
    CUdeviceptr d;
    unsigned char out[64];
    gate_t g;
    int ran = 0, legacy_ran = 0;
    gate_init(&g, CUDA_SUCCESS);
    OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    OK(cuEventCreate(&pt, 0));
    OK(cuEventCreate(&legacy, 0));
    OK(cuEventCreate(&plain_null, 0));
    OK(cuMemAlloc(&d, sizeof out));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g));

    /* _ptsz: a set, a record and a host function on NULL run while the gate is shut. */
    OK(cuMemsetD8Async(d, 0x5A, sizeof out, NULL));
    OK(cuEventRecord(pt, NULL));
    OK(cuLaunchHostFunc(NULL, set_flag, &ran));
    ASSERT(event_done(pt));
    ASSERT(eventually(&ran));
    EXPECT(cuStreamQuery(NULL), CUDA_SUCCESS);
    OK(cuStreamSynchronize(NULL));
    /* _ptds: a synchronous copy ordered on the per-thread stream returns with the set's data. */
    memset(out, 0, sizeof out);
    OK(cuMemcpyDtoH(out, d, sizeof out));
    for (size_t i = 0; i < sizeof out; i++) ASSERT(out[i] == 0x5A);
    OK(cuMemsetD8(d, 0x11, 8));
    OK(cuMemcpyDtoH(out, d, 8));
    for (size_t i = 0; i < 8; i++) ASSERT(out[i] == 0x11);
    EXPECT(cuStreamQuery(s), CUDA_ERROR_NOT_READY);

    /* The plain functions' NULL and CU_STREAM_LEGACY wait for the gated stream. */
    record_t plain_record = (record_t)plain("cuEventRecord");
    memset_async_t plain_memset = (memset_async_t)plain("cuMemsetD8Async");
    OK(plain_memset(d, 0x77, sizeof out, NULL));
    OK(plain_record(plain_null, NULL));
    OK(cuEventRecord(legacy, CU_STREAM_LEGACY));
    OK(cuLaunchHostFunc(CU_STREAM_LEGACY, set_flag, &legacy_ran));
    EXPECT(cuEventQuery(plain_null), CUDA_ERROR_NOT_READY);
    EXPECT(cuEventQuery(legacy), CUDA_ERROR_NOT_READY);
    EXPECT(cuStreamQuery(CU_STREAM_LEGACY), CUDA_ERROR_NOT_READY);
    ASSERT(!get_flag(&legacy_ran));
    gate_open(&g);
    OK(cuEventSynchronize(plain_null));
    OK(cuStreamSynchronize(CU_STREAM_LEGACY));
    ASSERT(get_flag(&legacy_ran));
    OK(cuMemcpyDtoH(out, d, sizeof out));
    for (size_t i = 0; i < sizeof out; i++) ASSERT(out[i] == 0x77);

    OK(cuMemFree(d));
    OK(cuEventDestroy(pt));
    OK(cuEventDestroy(legacy));
    OK(cuEventDestroy(plain_null));
    OK(cuStreamDestroy(s));
}

/* The per-thread stream still waits for the legacy stream. */
static void waits_for_the_legacy_stream(void) {
    gate_t g;
    int ran = 0;
    gate_init(&g, CUDA_SUCCESS);
    OK(aclrtxCuLaunchHostKernel(CU_STREAM_LEGACY, gate_kernel, &g));
    EXPECT(cuStreamQuery(NULL), CUDA_SUCCESS);
    OK(cuLaunchHostFunc(NULL, set_flag, &ran));
    EXPECT(cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
    ASSERT(!get_flag(&ran));
    gate_open(&g);
    OK(cuStreamSynchronize(NULL));
    ASSERT(get_flag(&ran));
}

/* cuGetProcAddress with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM gives the variants. */
static void proc_address(void) {
    void *f = NULL;
    CUdriverProcAddressQueryResult status = 99;
    const int pt = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    OK(cuGetProcAddress("cuMemcpyAsync", &f, 12090, pt, &status));
    ASSERT(status == CU_GET_PROC_ADDRESS_SUCCESS && f == plain("cuMemcpyAsync_ptsz"));
    OK(cuGetProcAddress("cuMemcpyHtoD", &f, 12090, pt, &status));
    ASSERT(f == plain("cuMemcpyHtoD_v2_ptds"));
    OK(cuGetProcAddress("cuStreamBeginCapture", &f, 10000, pt, &status));
    ASSERT(f == plain("cuStreamBeginCapture_ptsz"));
    OK(cuGetProcAddress("cuStreamBeginCapture", &f, 12090, pt, &status));
    ASSERT(f == plain("cuStreamBeginCapture_v2_ptsz"));
    OK(cuGetProcAddress("cuLaunchKernel", &f, 12090, pt, &status));
    ASSERT(f == plain("cuLaunchKernel_ptsz"));
    OK(cuGetProcAddress("cuGraphLaunch", &f, 12090, pt, &status));
    ASSERT(f == plain("cuGraphLaunch_ptsz"));
    /* No variant: the function itself. */
    OK(cuGetProcAddress("cuMemAlloc", &f, 12090, pt, &status));
    ASSERT(f == plain("cuMemAlloc_v2"));
    /* The legacy forms. */
    OK(cuGetProcAddress("cuMemcpyAsync", &f, 12090, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status));
    ASSERT(f == plain("cuMemcpyAsync"));
    OK(cuGetProcAddress("cuMemcpyHtoD", &f, 12090, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    ASSERT(f == plain("cuMemcpyHtoD_v2"));
    /* Unknown names stay unknown. */
    OK(cuGetProcAddress("cuNoSuchFunction", &f, 12090, pt, &status));
    ASSERT(f == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
}

int main(void) {
    CUcontext ctx;
    OK(cuInit(0));
    OK(cuCtxCreate(&ctx, 0, 0));
    names();
    null_is_the_per_thread_stream();
    does_not_wait_for_blocking_streams();
    waits_for_the_legacy_stream();
    proc_address();
    OK(cuCtxDestroy(ctx));
    printf("cuda per-thread default stream: ok\n");
    return 0;
}
