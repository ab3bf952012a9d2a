/* The legacy default stream through the C ABI: ordering with blocking streams, overlap with
 * non-blocking ones, per-thread streams, host functions and sticky errors. */
#include <string.h>

#include "check.h"

static order_log_t order_log = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};

static void reset_log(void) {
    order_log.n = 0;
    order_log.entries[0] = 0;
}

static const char *log_now(void) {
    static char copy[16];
    pthread_mutex_lock(&order_log.mu);
    memcpy(copy, order_log.entries, sizeof copy);
    pthread_mutex_unlock(&order_log.mu);
    return copy;
}

/* A kernel on a blocking stream, then work on the legacy stream: the legacy work waits. */
static void blocking_then_legacy(CUstream legacy) {
    CUstream s;
    gate_t g;
    log_entry_t kernel_done = {&order_log, 'k'}, legacy_work = {&order_log, 'L'};
    gate_init(&g, CUDA_SUCCESS);
    reset_log();
    OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g));
    OK(cuLaunchHostFunc(s, log_host_fn, &kernel_done));
    OK(cuLaunchHostFunc(legacy, log_host_fn, &legacy_work));
    sleep_ms(100);
    ASSERT(strcmp(log_now(), "") == 0);
    EXPECT(cuStreamQuery(legacy), CUDA_ERROR_NOT_READY);
    gate_open(&g);
    OK(cuStreamSynchronize(legacy));
    ASSERT(strcmp(log_now(), "kL") == 0);
    OK(cuStreamDestroy(s));
}

/* Work on the legacy stream, then a blocking stream: the blocking stream waits. */
static void legacy_then_blocking(void) {
    CUstream s;
    gate_t g;
    log_entry_t legacy_work = {&order_log, 'L'}, blocking_work = {&order_log, 'b'};
    gate_init(&g, CUDA_SUCCESS);
    reset_log();
    OK(cuStreamCreate(&s, 0));
    OK(aclrtxCuLaunchHostKernel(NULL, gate_kernel, &g));
    OK(cuLaunchHostFunc(NULL, log_host_fn, &legacy_work));
    OK(cuLaunchHostFunc(s, log_host_fn, &blocking_work));
    sleep_ms(100);
    ASSERT(strcmp(log_now(), "") == 0);
    gate_open(&g);
    OK(cuStreamSynchronize(s));
    ASSERT(strcmp(log_now(), "Lb") == 0);
    OK(cuStreamDestroy(s));
}

/* A kernel on a non-blocking stream and legacy work overlap. */
static void non_blocking_overlaps(void) {
    CUstream nb;
    gate_t g;
    int legacy_ran = 0, nb_ran = 0;
    gate_init(&g, CUDA_SUCCESS);
    OK(cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING));
    OK(aclrtxCuLaunchHostKernel(nb, gate_kernel, &g));
    OK(cuLaunchHostFunc(NULL, set_flag, &legacy_ran));
    ASSERT(eventually(&legacy_ran));
    OK(cuStreamSynchronize(NULL));
    EXPECT(cuStreamQuery(nb), CUDA_ERROR_NOT_READY);
    gate_open(&g);
    OK(cuLaunchHostFunc(nb, set_flag, &nb_ran));
    OK(cuStreamSynchronize(nb));
    ASSERT(get_flag(&nb_ran));
    OK(cuStreamDestroy(nb));
}

/* An event recorded on the legacy stream captures the blocking streams' work too. */
static void record_on_legacy(void) {
    CUstream s;
    CUevent e;
    gate_t g;
    gate_init(&g, CUDA_SUCCESS);
    OK(cuStreamCreate(&s, 0));
    OK(cuEventCreate(&e, 0));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g));
    OK(cuEventRecord(e, CU_STREAM_LEGACY));
    EXPECT(cuEventQuery(e), CUDA_ERROR_NOT_READY);
    gate_open(&g);
    OK(cuEventSynchronize(e));
    OK(cuStreamQuery(s));
    OK(cuEventDestroy(e));
    OK(cuStreamDestroy(s));
}

static void per_thread(void) {
    CUstream blocking;
    gate_t g;
    int other_ran = 0;
    log_entry_t pt = {&order_log, 'p'}, legacy_work = {&order_log, 'L'};
    gate_init(&g, CUDA_SUCCESS);
    reset_log();
    OK(aclrtxCuLaunchHostKernel(CU_STREAM_PER_THREAD, gate_kernel, &g));
    OK(cuLaunchHostFunc(CU_STREAM_PER_THREAD, log_host_fn, &pt));
    EXPECT(cuStreamQuery(CU_STREAM_PER_THREAD), CUDA_ERROR_NOT_READY);
    /* Other streams do not wait for it ... */
    OK(cuStreamCreate(&blocking, 0));
    OK(cuLaunchHostFunc(blocking, set_flag, &other_ran));
    ASSERT(eventually(&other_ran));
    /* ... the legacy stream does. */
    OK(cuLaunchHostFunc(CU_STREAM_LEGACY, log_host_fn, &legacy_work));
    sleep_ms(50);
    ASSERT(strcmp(log_now(), "") == 0);
    gate_open(&g);
    OK(cuStreamSynchronize(NULL));
    ASSERT(strcmp(log_now(), "pL") == 0);
    EXPECT(cuStreamDestroy(CU_STREAM_PER_THREAD), CUDA_ERROR_INVALID_HANDLE);
    OK(cuStreamDestroy(blocking));
}

static void memory(void) {
    CUdeviceptr d;
    CUstream s;
    unsigned char in[64], out[64];
    for (int i = 0; i < 64; i++) in[i] = (unsigned char)i;
    EXPECT(cuMemAlloc(NULL, 64), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(&d, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemAlloc(&d, 64));
    OK(cuStreamCreate(&s, 0));
    OK(cuMemcpyHtoD(d, in, 64));
    OK(cuMemsetD8Async(d, 0xEE, 8, s));
    /* Synchronous copies go through the legacy stream, after the blocking stream's set. */
    OK(cuMemcpyDtoH(out, d, 64));
    ASSERT(out[0] == 0xEE && out[7] == 0xEE && out[8] == 8 && out[63] == 63);
    OK(cuMemsetD8(d, 1, 64));
    OK(cuMemcpyHtoDAsync(d, in, 4, s));
    OK(cuMemcpyDtoHAsync(out, d, 64, s));
    OK(cuStreamSynchronize(s));
    ASSERT(out[3] == 3 && out[4] == 1);
    EXPECT(cuMemsetD8(d, 0, 65), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(d));
    EXPECT(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamDestroy(s));
}

static void sticky_error(void) {
    CUstream s;
    CUevent e;
    gate_t g;
    int behind = 0, later = 0;
    gate_init(&g, CUDA_ERROR_LAUNCH_FAILED);
    OK(cuStreamCreate(&s, 0));
    EXPECT(cuLaunchHostFunc(s, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g));
    OK(cuLaunchHostFunc(s, set_flag, &behind));
    gate_open(&g);
    /* The failure is asynchronous: it surfaces at the next synchronising call. */
    EXPECT(cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT(cuLaunchHostFunc(NULL, set_flag, &later), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT(cuEventCreate(&e, 0), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT(cuStreamQuery(NULL), CUDA_ERROR_LAUNCH_FAILED);
    sleep_ms(20);
    ASSERT(!get_flag(&behind) && !get_flag(&later));
}

int main(void) {
    CUcontext ctx;
    OK(cuInit(0));
    OK(cuCtxCreate(&ctx, 0, 0));
    blocking_then_legacy(NULL);
    blocking_then_legacy(CU_STREAM_LEGACY);
    legacy_then_blocking();
    non_blocking_overlaps();
    record_on_legacy();
    per_thread();
    memory();
    sticky_error();
    /* Recovery: a fresh context works. */
    OK(cuCtxDestroy(ctx));
    OK(cuCtxCreate(&ctx, 0, 0));
    int ran = 0;
    OK(cuLaunchHostFunc(NULL, set_flag, &ran));
    OK(cuCtxSynchronize());
    ASSERT(get_flag(&ran));
    OK(cuCtxDestroy(ctx));
    printf("cuda legacy stream: ok\n");
    return 0;
}
