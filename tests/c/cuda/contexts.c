/* Contexts: creation versions, the context stack, settings, primary contexts. */
#include "check.h"

static CUcontext other_thread_ctx;
static CUresult other_thread_result;

static void *use_destroyed(void *arg) {
    (void)arg;
    CUstream s;
    OK(cuCtxSetCurrent(other_thread_ctx));
    /* Wait until the main thread destroyed it. */
    sleep_ms(200);
    other_thread_result = cuStreamCreate(&s, 0);
    return NULL;
}

int main(void) {
    CUcontext a, b, c, top;
    unsigned flags = 99, version = 0;
    OK(cuInit(0));
    EXPECT(cuCtxGetDevice((CUdevice *)&flags), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxPopCurrent(&top), CUDA_ERROR_INVALID_CONTEXT);

    /* Flags: known bits, at most one scheduling policy. */
    OK(cuCtxCreate(&a, CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST, 0));
    OK(cuCtxGetFlags(&flags));
    ASSERT(flags == (CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST));
    EXPECT(cuCtxCreate(&b, CU_CTX_SCHED_SPIN | CU_CTX_SCHED_YIELD, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuCtxCreate(&b, 0x100, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuCtxCreate(&b, 0, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuCtxCreate(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSetFlags(CU_CTX_SCHED_YIELD));
    OK(cuCtxGetFlags(&flags));
    ASSERT(flags == CU_CTX_SCHED_YIELD);
    EXPECT(cuCtxSetFlags(7), CUDA_ERROR_INVALID_VALUE);

    /* _v3 and _v4: affinity and CIG parameters are refused, NULL parameters are fine. */
    CUexecAffinityParam affinity = {0};
    EXPECT(cuCtxCreate_v3(&b, &affinity, 1, 0, 0), CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
    /* Without an array the count is not read, as the driver does. */
    OK(cuCtxCreate_v3(&b, NULL, -1, 0, 0));
    OK(cuCtxDestroy(b));
    EXPECT(cuCtxCreate_v3(&b, &affinity, -1, 0, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxCreate_v3(&b, NULL, 0, 0, 0));
    int shared = 0;
    CUctxCigParam cig = {0, NULL};
    CUctxCreateParams params = {NULL, 0, &cig};
    EXPECT(cuCtxCreate_v4(&c, &params, 0, 0), CUDA_ERROR_INVALID_VALUE);
    cig.sharedData = &shared;
    EXPECT(cuCtxCreate_v4(&c, &params, 0, 0), CUDA_ERROR_NOT_SUPPORTED);
    params.cigParams = NULL;
    OK(cuCtxCreate_v4(&c, &params, 0, 0));
    OK(cuCtxDestroy(c));
    OK(cuCtxCreate_v4(&c, NULL, 0, 0));

    /* The stack: c over b over a. */
    OK(cuCtxGetCurrent(&top));
    ASSERT(top == c);
    OK(cuCtxPopCurrent(&top));
    ASSERT(top == c);
    OK(cuCtxGetCurrent(&top));
    ASSERT(top == b);
    OK(cuCtxPushCurrent(c));
    OK(cuCtxGetCurrent(&top));
    ASSERT(top == c);
    OK(cuCtxDestroy(c)); /* current: popped */
    OK(cuCtxGetCurrent(&top));
    ASSERT(top == b);
    EXPECT(cuCtxPushCurrent(c), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxPopCurrent(NULL));
    OK(cuCtxGetCurrent(&top));
    ASSERT(top == a);

    CUdevice dev = -1;
    OK(cuCtxGetDevice(&dev));
    ASSERT(dev == 0);
    OK(cuCtxGetApiVersion(a, &version));
    ASSERT(version == 3020);
    OK(cuCtxGetApiVersion(NULL, &version));
    EXPECT(cuCtxGetApiVersion(c, &version), CUDA_ERROR_INVALID_CONTEXT);
    unsigned long long id_a = 0, id_b = 0;
    OK(cuCtxGetId(a, &id_a));
    OK(cuCtxGetId(b, &id_b));
    ASSERT(id_a != 0 && id_a != id_b);
    int least = 1, greatest = 1;
    OK(cuCtxGetStreamPriorityRange(&least, &greatest));
    ASSERT(least == 0 && greatest == -5);
    OK(cuCtxGetStreamPriorityRange(NULL, NULL));

    size_t value = 0;
    OK(cuCtxGetLimit(&value, CU_LIMIT_STACK_SIZE));
    ASSERT(value == 1024);
    OK(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 1 << 24));
    OK(cuCtxGetLimit(&value, CU_LIMIT_MALLOC_HEAP_SIZE));
    ASSERT(value == 1 << 24);
    EXPECT(cuCtxGetLimit(&value, (CUlimit)42), CUDA_ERROR_UNSUPPORTED_LIMIT);
    EXPECT(cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 256), CUDA_ERROR_INVALID_VALUE);
    CUfunc_cache cache = CU_FUNC_CACHE_PREFER_L1;
    OK(cuCtxGetCacheConfig(&cache));
    ASSERT(cache == CU_FUNC_CACHE_PREFER_NONE);
    OK(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED));
    OK(cuCtxGetCacheConfig(&cache));
    ASSERT(cache == CU_FUNC_CACHE_PREFER_SHARED);
    EXPECT(cuCtxSetCacheConfig((CUfunc_cache)4), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSynchronize());

    /* A context another thread destroyed: CUDA_ERROR_CONTEXT_IS_DESTROYED there. */
    other_thread_ctx = b;
    pthread_t t;
    pthread_create(&t, NULL, use_destroyed, NULL);
    sleep_ms(50);
    OK(cuCtxDestroy(b));
    pthread_join(t, NULL);
    EXPECT(other_thread_result, CUDA_ERROR_CONTEXT_IS_DESTROYED);
    OK(cuCtxDestroy(a));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);

    /* Primary contexts: retained, never made current by retaining, destroyed by the last release. */
    unsigned pflags = 99;
    int active = 1;
    OK(cuDevicePrimaryCtxGetState(0, &pflags, &active));
    ASSERT(pflags == 0 && active == 0);
    OK(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC));
    CUcontext p1, p2;
    OK(cuDevicePrimaryCtxRetain(&p1, 0));
    OK(cuDevicePrimaryCtxRetain(&p2, 0));
    ASSERT(p1 == p2);
    OK(cuCtxGetCurrent(&top));
    ASSERT(top == NULL);
    OK(cuDevicePrimaryCtxGetState(0, &pflags, &active));
    ASSERT(pflags == CU_CTX_SCHED_BLOCKING_SYNC && active == 1);
    OK(cuCtxSetCurrent(p1));
    OK(cuCtxGetFlags(&flags));
    ASSERT(flags == CU_CTX_SCHED_BLOCKING_SYNC);
    /* The first SetFlags refuses an active primary context; _v2 (the macro) does not. */
    CUresult (*set_flags_v1)(CUdevice, unsigned) = NULL;
    CUdriverProcAddressQueryResult status;
    OK(cuGetProcAddress("cuDevicePrimaryCtxSetFlags", (void **)&set_flags_v1, 7000, 0, &status));
    EXPECT(set_flags_v1(0, 0), CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE);
    OK(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_SPIN));
    OK(cuCtxGetFlags(&flags));
    ASSERT(flags == CU_CTX_SCHED_SPIN);
    EXPECT(cuDevicePrimaryCtxSetFlags(0, 3), CUDA_ERROR_INVALID_VALUE);
    OK(cuDevicePrimaryCtxRelease(0));
    OK(cuDevicePrimaryCtxGetState(0, &pflags, &active));
    ASSERT(active == 1);
    OK(cuDevicePrimaryCtxRelease(0));
    OK(cuDevicePrimaryCtxGetState(0, &pflags, &active));
    ASSERT(active == 0 && pflags == CU_CTX_SCHED_SPIN);
    EXPECT(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuDevicePrimaryCtxRetain(&p1, 2), CUDA_ERROR_INVALID_DEVICE);
    /* Reset destroys an active primary context; the next retain makes a new one. */
    OK(cuDevicePrimaryCtxRetain(&p1, 0));
    OK(cuDevicePrimaryCtxReset(0));
    OK(cuDevicePrimaryCtxGetState(0, &pflags, &active));
    ASSERT(active == 0);
    EXPECT(cuCtxSetCurrent(p1), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuDevicePrimaryCtxRetain(&p2, 0));
    ASSERT(p2 != p1);
    OK(cuDevicePrimaryCtxRelease(0));
    OK(cuDevicePrimaryCtxRelease(0));
    puts("contexts: ok");
    return 0;
}
