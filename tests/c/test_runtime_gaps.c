/* Runtime functions of the device, memory and exception chapters that an emulated device can
 * honour: the topology between devices, a device-wide task abort memory for the task scheduler,
 * the choice of task scheduler, the deprecated conditional asynchronous copy, copies through
 * descriptors and through base addresses in device memory, cache maintenance tasks, the user / physical device id mappings, the device task
 * abort callbacks and the host memory mapping capabilities. Every value and every
 * documented error code. */
#include "check.h"

/* A kernel that works for a while (its sleep is the work, not an ordering). */
struct slow {
    int started;
    int ms;
};
static aclError slow_kernel(void *args)
{
    struct slow *s = args;
    __atomic_store_n(&s->started, 1, __ATOMIC_SEQ_CST);
    sleep_ms(s->ms);
    return ACL_SUCCESS;
}

static void wait_started(struct slow *s)
{
    while (!__atomic_load_n(&s->started, __ATOMIC_SEQ_CST)) {
        sleep_ms(1);
    }
}

static aclError count_kernel(void *args)
{
    __atomic_add_fetch((int *)args, 1, __ATOMIC_SEQ_CST);
    return ACL_SUCCESS;
}

static void devices_topo(void)
{
    uint64_t value = 0;

    EXPECT_OK(aclrtGetDevicesTopo(0, 1, &value));
    CHECK(value == ACL_RT_DEVS_TOPOLOGY_HCCS);
    value = 0;
    EXPECT_OK(aclrtGetDevicesTopo(1, 0, &value));
    CHECK(value == ACL_RT_DEVS_TOPOLOGY_HCCS);
    value = 0;
    EXPECT_OK(aclrtGetDevicesTopo(1, 1, &value));
    CHECK(value == ACL_RT_DEVS_TOPOLOGY_HCCS);
    value = 7;
    EXPECT_CODE(aclrtGetDevicesTopo(0, 2, &value), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetDevicesTopo(2, 0, &value), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetDevicesTopo(UINT32_MAX, 0, &value), ACL_ERROR_RT_INVALID_DEVICEID);
    CHECK(value == 7);
    EXPECT_CODE(aclrtGetDevicesTopo(0, 1, NULL), ACL_ERROR_INVALID_PARAM);
}

/* Every stream of device 0 drops its queued work (a stream waiting on another's event too);
 * device 1's streams are untouched; the streams take work again afterwards. */
static void device_task_abort(void)
{
    aclrtStream s1 = NULL, s2 = NULL, other = NULL;
    aclrtEvent ev = NULL;
    aclrtContext ctx0 = NULL, ctx1 = NULL;
    struct slow a = {0, 50}, c = {0, 50};
    gate_t gate = GATE_INIT;
    int on0 = 0, on1 = 0;
    double t0;

    REQUIRE_OK(aclrtSetDevice(1));
    REQUIRE_OK(aclrtGetCurrentContext(&ctx1));
    REQUIRE_OK(aclrtCreateStream(&other));
    REQUIRE_OK(aclxLaunchHostKernel(other, gate_kernel, &gate, "gate"));
    REQUIRE_OK(aclxLaunchHostKernel(other, count_kernel, &on1, "kept"));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtGetCurrentContext(&ctx0));
    REQUIRE_OK(aclrtCreateStream(&s1));
    REQUIRE_OK(aclrtCreateStream(&s2));
    REQUIRE_OK(aclrtCreateEvent(&ev));

    REQUIRE_OK(aclxLaunchHostKernel(s1, slow_kernel, &a, "slow"));
    REQUIRE_OK(aclxLaunchHostKernel(s1, count_kernel, &on0, "discarded"));
    REQUIRE_OK(aclrtRecordEvent(ev, s1));
    REQUIRE_OK(aclrtStreamWaitEvent(s2, ev));
    REQUIRE_OK(aclxLaunchHostKernel(s2, count_kernel, &on0, "discarded too"));
    REQUIRE_OK(aclrtStreamWaitEvent(NULL, ev));
    REQUIRE_OK(aclxLaunchHostKernel(NULL, count_kernel, &on0, "default discarded"));
    wait_started(&a);
    EXPECT_OK(aclrtDeviceTaskAbort(0, 0));
    CHECK(__atomic_load_n(&on0, __ATOMIC_SEQ_CST) == 0);
    EXPECT_CODE(aclrtSynchronizeEvent(ev), ACL_ERROR_RT_STREAM_ABORT);
    EXPECT_CODE(aclrtSynchronizeStream(s1), ACL_ERROR_RT_STREAM_ABORT);
    EXPECT_OK(aclrtSynchronizeStream(s1));
    EXPECT_CODE(aclrtSynchronizeStream(s2), ACL_ERROR_RT_STREAM_ABORT);
    EXPECT_OK(aclrtSynchronizeStream(s2));
    EXPECT_CODE(aclrtSynchronizeStream(NULL), ACL_ERROR_RT_STREAM_ABORT);
    EXPECT_OK(aclrtSynchronizeStream(NULL));
    CHECK(on0 == 0);
    /* The streams take work again. */
    EXPECT_OK(aclxLaunchHostKernel(s1, count_kernel, &on0, "after"));
    EXPECT_OK(aclxLaunchHostKernel(s2, count_kernel, &on0, "after"));
    EXPECT_OK(aclrtSynchronizeStream(s1));
    EXPECT_OK(aclrtSynchronizeStream(s2));
    CHECK(on0 == 2);
    /* Device 1 was not touched: its queued kernel runs once the gate opens. */
    gate_open(&gate);
    REQUIRE_OK(aclrtSetCurrentContext(ctx1));
    EXPECT_OK(aclrtSynchronizeStream(other));
    CHECK(on1 == 1);
    EXPECT_OK(aclrtDestroyStream(other));
    REQUIRE_OK(aclrtSetCurrentContext(ctx0));

    /* A timeout shorter than the running task: the abort happens, then 107019. */
    REQUIRE_OK(aclxLaunchHostKernel(s1, slow_kernel, &c, "slow"));
    REQUIRE_OK(aclxLaunchHostKernel(s1, count_kernel, &on0, "discarded"));
    wait_started(&c);
    t0 = now_ms();
    EXPECT_CODE(aclrtDeviceTaskAbort(0, 1), ACL_ERROR_RT_WAIT_TIMEOUT);
    CHECK(now_ms() - t0 >= 20);
    EXPECT_CODE(aclrtSynchronizeStream(s1), ACL_ERROR_RT_STREAM_ABORT);
    CHECK(on0 == 2);

    /* Nothing queued: the longest timeout is fine, and the next synchronise still reports the
     * abort once, as after aclrtStreamAbort; beyond it is 107000; ids are checked. */
    EXPECT_OK(aclrtDeviceTaskAbort(0, 36u * 60u * 1000u));
    EXPECT_CODE(aclrtSynchronizeStream(s1), ACL_ERROR_RT_STREAM_ABORT);
    EXPECT_OK(aclrtSynchronizeStream(s1));
    EXPECT_CODE(aclrtDeviceTaskAbort(0, 36u * 60u * 1000u + 1u), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceTaskAbort(2, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtDeviceTaskAbort(-1, 0), ACL_ERROR_RT_INVALID_DEVICEID);

    EXPECT_OK(aclrtDestroyEvent(ev));
    EXPECT_OK(aclrtDestroyStream(s1));
    EXPECT_OK(aclrtDestroyStream(s2));
    EXPECT_OK(aclrtResetDeviceForce(0));
    EXPECT_OK(aclrtResetDeviceForce(1));
}

/* aclrtMallocForTaskScheduler: aclrtMallocWithCfg's memory and checks, under its own name. */
static void malloc_for_task_scheduler(void)
{
    void *p = NULL;
    unsigned char back[256];
    unsigned char pattern[256];
    aclrtMallocAttribute attrs[2];
    aclrtMallocConfig cfg;
    const char *msg;

    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtMallocForTaskScheduler(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
    CHECK(p != NULL && ((uintptr_t)p % 64) == 0);
    memset(back, 0xff, sizeof back);
    EXPECT_OK(aclrtMemcpy(back, sizeof back, p, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(back[0] == 0 && back[255] == 0);
    for (int i = 0; i < 256; i++) {
        pattern[i] = (unsigned char)(i * 7);
    }
    EXPECT_OK(aclrtMemcpy(p, 256, pattern, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtMemcpy(back, sizeof back, p, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, pattern, 256) == 0);
    EXPECT_OK(aclrtFree(p));

    memset(attrs, 0, sizeof attrs);
    attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
    attrs[0].value.moduleId = 7;
    attrs[1].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    attrs[1].value.deviceId = 0;
    cfg.attrs = attrs;
    cfg.numAttrs = 2;
    p = NULL;
    EXPECT_OK(aclrtMallocForTaskScheduler(&p, 100, ACL_MEM_MALLOC_NORMAL_ONLY, &cfg));
    CHECK(p != NULL);
    EXPECT_OK(aclrtFree(p));

    p = NULL;
    attrs[1].value.deviceId = 1;
    EXPECT_CODE(aclrtMallocForTaskScheduler(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                ACL_ERROR_RT_INVALID_DEVICEID);
    msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "aclrtMallocForTaskScheduler") != NULL);
    attrs[1].attr = ACL_RT_MEM_ATTR_VA_FLAG;
    attrs[1].value.vaFlag = 1;
    EXPECT_CODE(aclrtMallocForTaskScheduler(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                ACL_ERROR_INVALID_PARAM);
    cfg.attrs = NULL;
    EXPECT_CODE(aclrtMallocForTaskScheduler(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMallocForTaskScheduler(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMallocForTaskScheduler(NULL, 100, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                ACL_ERROR_INVALID_PARAM);
    CHECK(p == NULL);
    EXPECT_OK(aclrtResetDeviceForce(0));
}

/* aclrtSetTsDevice: the emulated chip has one task scheduler; both valid ids are accepted and
 * change nothing; any other is 100000. */
static void set_ts_device(void)
{
    void *p = NULL;

    EXPECT_OK(aclrtSetTsDevice(ACL_TS_ID_AICORE));
    EXPECT_OK(aclrtSetTsDevice(ACL_TS_ID_AIVECTOR));
    EXPECT_CODE(aclrtSetTsDevice(ACL_TS_ID_RESERVED), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetTsDevice((aclrtTsId)99), ACL_ERROR_INVALID_PARAM);
    /* Work goes on as before. */
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtSetTsDevice(ACL_TS_ID_AIVECTOR));
    EXPECT_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMemset(p, 64, 1, 64));
    EXPECT_OK(aclrtSynchronizeStream(NULL));
    EXPECT_OK(aclrtFree(p));
    EXPECT_OK(aclrtResetDeviceForce(0));
}

/* aclrtMemcpyAsyncWithCondition: queued with page-locked host memory (aclrtMallocHost or
 * registered), done before the call returns with pageable host memory. */
static void memcpy_async_with_condition(void)
{
    enum { N = 4096 };
    aclrtStream s = NULL;
    aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
    gate_t gate = GATE_INIT;
    struct slow w = {0, 30};
    unsigned char *pinned = NULL, *pageable = malloc(N), *registered = malloc(N);
    unsigned char back[N];
    void *dev = NULL, *mapped = NULL;

    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMallocHost((void **)&pinned, N));
    for (int i = 0; i < N; i++) {
        pinned[i] = (unsigned char)(i * 3 + 1);
        pageable[i] = (unsigned char)(i * 5 + 2);
        registered[i] = (unsigned char)(i * 11 + 3);
    }

    /* Page-locked: queued behind the gate, nothing copied until it opens. */
    REQUIRE_OK(aclxLaunchHostKernel(s, gate_kernel, &gate, "gate"));
    EXPECT_OK(aclrtMemcpyAsyncWithCondition(dev, N, pinned, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
    memset(back, 0xee, N);
    EXPECT_OK(aclrtMemcpy(back, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(back[0] == 0 && back[N - 1] == 0);
    EXPECT_OK(aclrtStreamQuery(s, &status));
    CHECK(status == ACL_STREAM_STATUS_NOT_READY);
    gate_open(&gate);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(back, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, pinned, N) == 0);

    /* Registered host memory is page-locked too. */
    REQUIRE_OK(aclrtHostRegister(registered, N, ACL_HOST_REGISTER_MAPPED, &mapped));
    {
        gate_t gate2 = GATE_INIT;
        REQUIRE_OK(aclxLaunchHostKernel(s, gate_kernel, &gate2, "gate"));
        EXPECT_OK(aclrtMemcpyAsyncWithCondition(dev, N, registered, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
        EXPECT_OK(aclrtStreamQuery(s, &status));
        CHECK(status == ACL_STREAM_STATUS_NOT_READY);
        gate_open(&gate2);
        EXPECT_OK(aclrtSynchronizeStream(s));
    }
    EXPECT_OK(aclrtMemcpy(back, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, registered, N) == 0);
    EXPECT_OK(aclrtHostUnregister(registered));

    /* Pageable: the call returns once the stream has run the copy (and the work before it). */
    REQUIRE_OK(aclxLaunchHostKernel(s, slow_kernel, &w, "slow"));
    EXPECT_OK(aclrtMemcpyAsyncWithCondition(dev, N, pageable, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_OK(aclrtStreamQuery(s, &status));
    CHECK(status == ACL_STREAM_STATUS_COMPLETE);
    EXPECT_OK(aclrtMemcpy(back, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, pageable, N) == 0);
    /* Device to pageable host as well. */
    memset(pageable, 0, N);
    EXPECT_OK(aclrtMemcpyAsyncWithCondition(pageable, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK(memcmp(back, pageable, N) == 0);

    /* A count of 0 succeeds before anything is checked, as in the vendor's runtime. */
    EXPECT_OK(aclrtMemcpyAsyncWithCondition(NULL, 0, NULL, 0, (aclrtMemcpyKind)99,
                                            (aclrtStream)(uintptr_t)0x99));
    /* Otherwise aclrtMemcpyAsync's checks. */
    EXPECT_CODE(aclrtMemcpyAsyncWithCondition(NULL, N, pinned, N, ACL_MEMCPY_HOST_TO_DEVICE, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyAsyncWithCondition(dev, N, NULL, N, ACL_MEMCPY_HOST_TO_DEVICE, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyAsyncWithCondition(dev, N, pinned, N, (aclrtMemcpyKind)99, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyAsyncWithCondition(dev, N - 1, pinned, N, ACL_MEMCPY_HOST_TO_DEVICE, s),
                ACL_ERROR_RT_PARAM_INVALID);
    {
        const char *msg = aclGetRecentErrMsg();
        CHECK(msg != NULL && strstr(msg, "aclrtMemcpyAsyncWithCondition") != NULL);
    }
    EXPECT_CODE(aclrtMemcpyAsyncWithCondition(dev, N, pinned, N, ACL_MEMCPY_HOST_TO_DEVICE,
                                              (aclrtStream)(uintptr_t)0x99),
                ACL_ERROR_RT_INVALID_HANDLE);

    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(dev));
    EXPECT_OK(aclrtFreeHost(pinned));
    free(pageable);
    free(registered);
    EXPECT_OK(aclrtResetDeviceForce(0));
}

/* Copies through a descriptor: its size, setting it, and the copy task, which reads the
 * descriptor when it runs. */
static void memcpy_desc(void)
{
    enum { N = 1024 };
    aclrtStream s = NULL;
    gate_t gate = GATE_INIT;
    size_t size = 0;
    unsigned char *src = NULL, *dst = NULL, *other = NULL, *desc = NULL, *dev1 = NULL;
    unsigned char pattern[N], pattern2[N], back[N], raw[32];
    unsigned char *host = NULL, pageable[64];
    aclrtContext ctx0 = NULL;
    uint32_t len;
    uint64_t a;

    EXPECT_OK(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &size));
    CHECK(size == 32);
    EXPECT_CODE(aclrtGetMemcpyDescSize(ACL_MEMCPY_DEVICE_TO_DEVICE, &size), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtGetMemcpyDescSize(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, &size),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtGetMemcpyDescSize((aclrtMemcpyKind)8, &size), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL), ACL_ERROR_INVALID_PARAM);

    REQUIRE_OK(aclrtSetDevice(1));
    REQUIRE_OK(aclrtMalloc((void **)&dev1, N, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtGetCurrentContext(&ctx0));
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtMalloc((void **)&src, N, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&dst, N, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&other, N, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&desc, size, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMallocHost((void **)&host, 64));
    for (int i = 0; i < N; i++) {
        pattern[i] = (unsigned char)(i * 13 + 5);
        pattern2[i] = (unsigned char)(i * 17 + 9);
    }
    REQUIRE_OK(aclrtMemcpy(src, N, pattern, N, ACL_MEMCPY_HOST_TO_DEVICE));
    REQUIRE_OK(aclrtMemcpy(other, N, pattern2, N, ACL_MEMCPY_HOST_TO_DEVICE));

    /* The descriptor holds the length at byte 12 and the addresses at 16 and 24. */
    EXPECT_OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, N, NULL));
    EXPECT_OK(aclrtMemcpy(raw, sizeof raw, desc, 32, ACL_MEMCPY_DEVICE_TO_HOST));
    memcpy(&len, raw + 12, 4);
    CHECK(len == N);
    memcpy(&a, raw + 16, 8);
    CHECK(a == (uint64_t)(uintptr_t)src);
    memcpy(&a, raw + 24, 8);
    CHECK(a == (uint64_t)(uintptr_t)dst);

    /* Queued behind a gate; the descriptor is rewritten before the task runs: the task
     * copies what the descriptor says when it runs (half of `other`). */
    REQUIRE_OK(aclxLaunchHostKernel(s, gate_kernel, &gate, "gate"));
    EXPECT_OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    EXPECT_OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, other, dst, N / 2, NULL));
    memset(back, 0xee, N);
    EXPECT_OK(aclrtMemcpy(back, N, dst, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(back[0] == 0 && back[N - 1] == 0);
    gate_open(&gate);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(back, N, dst, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, pattern2, N / 2) == 0);
    CHECK(back[N / 2] == 0 && back[N - 1] == 0);
    /* And again with the whole of `src`. */
    EXPECT_OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, N, NULL));
    EXPECT_OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(back, N, dst, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, pattern, N) == 0);

    /* aclrtSetMemcpyDesc's checks, in the vendor's order. */
    EXPECT_CODE(aclrtSetMemcpyDesc(NULL, (aclrtMemcpyKind)99, NULL, NULL, 0, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc, (aclrtMemcpyKind)8, src, dst, N, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL, dst, N, NULL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, NULL, N, NULL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, 0, NULL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, N, raw),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_DEVICE_TO_DEVICE, src, dst, N, NULL),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst,
                                   ((size_t)4 << 30) + 1, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc + 32, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, N, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSetMemcpyDesc(host, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, N, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, pageable, dst, 64, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, host, 64, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dev1, 64, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    {
        const char *msg = aclGetRecentErrMsg();
        CHECK(msg != NULL && strstr(msg, "aclrtSetMemcpyDesc") != NULL);
    }
    /* A failed set leaves the descriptor as it was. */
    EXPECT_OK(aclrtMemcpy(raw, sizeof raw, desc, 32, ACL_MEMCPY_DEVICE_TO_HOST));
    memcpy(&a, raw + 16, 8);
    CHECK(a == (uint64_t)(uintptr_t)src);

    /* aclrtMemcpyAsyncWithDesc's checks. */
    EXPECT_CODE(aclrtMemcpyAsyncWithDesc(NULL, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyAsyncWithDesc(desc, (aclrtMemcpyKind)8, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtMemcpyAsyncWithDesc(host, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, (aclrtStream)(uintptr_t)0x99),
                ACL_ERROR_RT_INVALID_HANDLE);
    /* A descriptor that no longer describes device memory when the task runs fails the task,
     * copying nothing. */
    {
        gate_t gate2 = GATE_INIT;
        REQUIRE_OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, other, dst, N, NULL));
        REQUIRE_OK(aclxLaunchHostKernel(s, gate_kernel, &gate2, "gate"));
        EXPECT_OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
        /* Rewrite the source address to host memory behind the runtime's back. */
        memcpy(raw, &(uint64_t){(uint64_t)(uintptr_t)host}, 8);
        REQUIRE_OK(aclrtMemcpy(desc + 16, 8, raw, 8, ACL_MEMCPY_HOST_TO_DEVICE));
        gate_open(&gate2);
        EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_PARAM_INVALID);
        EXPECT_OK(aclrtMemcpy(back, N, dst, N, ACL_MEMCPY_DEVICE_TO_HOST));
        CHECK(memcmp(back, pattern, N) == 0);
    }

    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(src));
    EXPECT_OK(aclrtFree(dst));
    EXPECT_OK(aclrtFree(other));
    EXPECT_OK(aclrtFree(desc));
    EXPECT_OK(aclrtFreeHost(host));
    EXPECT_OK(aclrtFree(dev1));
    EXPECT_OK(aclrtResetDeviceForce(0));
    EXPECT_OK(aclrtResetDeviceForce(1));
}

/* aclrtCmoAsync: a task in the stream's order with no other effect (the emulated device's
 * memory is coherent), after the vendor's argument checks. */
static void cmo_async(void)
{
    enum { N = 256 };
    aclrtStream s = NULL;
    aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
    gate_t gate = GATE_INIT;
    unsigned char *dev = NULL, back[N], pattern[N];
    int after = 0;

    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtMalloc((void **)&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < N; i++) {
        pattern[i] = (unsigned char)(i + 1);
    }
    REQUIRE_OK(aclrtMemcpy(dev, N, pattern, N, ACL_MEMCPY_HOST_TO_DEVICE));

    /* Ordered: behind the gate, and work after it waits for it. */
    REQUIRE_OK(aclxLaunchHostKernel(s, gate_kernel, &gate, "gate"));
    EXPECT_OK(aclrtCmoAsync(dev, N, ACL_RT_CMO_TYPE_PREFETCH, s));
    EXPECT_OK(aclrtCmoAsync(dev, N, ACL_RT_CMO_TYPE_WRITEBACK, s));
    EXPECT_OK(aclrtCmoAsync(dev + 64, 64, ACL_RT_CMO_TYPE_INVALID, s));
    EXPECT_OK(aclrtCmoAsync(dev, 1, ACL_RT_CMO_TYPE_FLUSH, s));
    REQUIRE_OK(aclxLaunchHostKernel(s, count_kernel, &after, "after"));
    EXPECT_OK(aclrtStreamQuery(s, &status));
    CHECK(status == ACL_STREAM_STATUS_NOT_READY);
    CHECK(__atomic_load_n(&after, __ATOMIC_SEQ_CST) == 0);
    gate_open(&gate);
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(after == 1);
    /* No other effect: the memory is unchanged. */
    EXPECT_OK(aclrtMemcpy(back, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, pattern, N) == 0);
    /* The default stream. */
    EXPECT_OK(aclrtCmoAsync(dev, N, ACL_RT_CMO_TYPE_PREFETCH, NULL));
    EXPECT_OK(aclrtSynchronizeStream(NULL));

    EXPECT_CODE(aclrtCmoAsync(NULL, N, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCmoAsync(dev, 0, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCmoAsync(dev, N, (aclrtCmoType)4, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtCmoAsync(dev, N + 1, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCmoAsync(dev, N, ACL_RT_CMO_TYPE_PREFETCH, (aclrtStream)(uintptr_t)0x99),
                ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_OK(aclrtFree(dev));
    EXPECT_CODE(aclrtCmoAsync(dev, N, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtResetDeviceForce(0));
}

/* User and physical ids coincide on the emulated machine, as the other mappings answer. */
static void user_phy_ids(void)
{
    int32_t id = -7;

    EXPECT_OK(aclrtGetUserDevIdByPhyDevId(1, &id));
    CHECK(id == 1);
    EXPECT_OK(aclrtGetPhyDevIdByUserDevId(0, &id));
    CHECK(id == 0);
    EXPECT_OK(aclrtGetPhyDevIdByUserDevId(1, &id));
    CHECK(id == 1);
    id = -7;
    EXPECT_CODE(aclrtGetUserDevIdByPhyDevId(2, &id), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetUserDevIdByPhyDevId(-1, &id), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetPhyDevIdByUserDevId(2, &id), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetPhyDevIdByUserDevId(-1, &id), ACL_ERROR_RT_INVALID_DEVICEID);
    CHECK(id == -7);
    EXPECT_CODE(aclrtGetUserDevIdByPhyDevId(0, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetPhyDevIdByUserDevId(0, NULL), ACL_ERROR_INVALID_PARAM);
}

/* What the device task abort callbacks saw, in order. */
enum { MAX_CALLS = 16 };
static struct {
    char who;
    int32_t device;
    aclrtDeviceTaskAbortStage stage;
    uint32_t timeout;
} g_calls[MAX_CALLS];
static int g_ncalls;
static int32_t g_fail_with;

static int32_t on_abort(int32_t deviceId, aclrtDeviceTaskAbortStage stage, uint32_t timeout, void *args)
{
    if (g_ncalls < MAX_CALLS) {
        g_calls[g_ncalls].who = *(const char *)args;
        g_calls[g_ncalls].device = deviceId;
        g_calls[g_ncalls].stage = stage;
        g_calls[g_ncalls].timeout = timeout;
        g_ncalls++;
    }
    return *(const char *)args == 'b' ? g_fail_with : 0;
}

static void device_task_abort_callbacks(void)
{
    static char a = 'a', b = 'b';
    aclrtStream s = NULL;
    struct slow w = {0, 20};
    int ran = 0;

    EXPECT_CODE(aclrtSetDeviceTaskAbortCallback(NULL, on_abort, &a), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetDeviceTaskAbortCallback("", on_abort, &a), ACL_ERROR_INVALID_PARAM);
    /* Registered in the other order: called in name order. */
    EXPECT_OK(aclrtSetDeviceTaskAbortCallback("second", on_abort, &b));
    EXPECT_OK(aclrtSetDeviceTaskAbortCallback("first", on_abort, &a));
    EXPECT_CODE(aclrtSetDeviceTaskAbortCallback("first", on_abort, &a), ACL_ERROR_RT_PARAM_INVALID);
    /* Removing a name that is not registered is fine, as in the vendor's runtime. */
    EXPECT_OK(aclrtSetDeviceTaskAbortCallback("absent", NULL, NULL));

    REQUIRE_OK(aclrtSetDevice(1));
    g_ncalls = 0;
    EXPECT_OK(aclrtDeviceTaskAbort(1, 0));
    CHECK(g_ncalls == 4);
    CHECK(g_calls[0].who == 'a' && g_calls[0].stage == ACL_RT_DEVICE_TASK_ABORT_PRE);
    CHECK(g_calls[1].who == 'b' && g_calls[1].stage == ACL_RT_DEVICE_TASK_ABORT_PRE);
    CHECK(g_calls[2].who == 'a' && g_calls[2].stage == ACL_RT_DEVICE_TASK_ABORT_POST);
    CHECK(g_calls[3].who == 'b' && g_calls[3].stage == ACL_RT_DEVICE_TASK_ABORT_POST);
    for (int i = 0; i < 4; i++) {
        CHECK(g_calls[i].device == 1 && g_calls[i].timeout == 0);
    }
    EXPECT_CODE(aclrtSynchronizeStream(NULL), ACL_ERROR_RT_STREAM_ABORT);

    /* With a timeout, each call is given what is left of it. */
    g_ncalls = 0;
    EXPECT_OK(aclrtDeviceTaskAbort(1, 600000));
    CHECK(g_ncalls == 4);
    for (int i = 0; i < g_ncalls; i++) {
        CHECK(g_calls[i].timeout > 0 && g_calls[i].timeout <= 600000);
    }
    CHECK(g_calls[2].timeout <= g_calls[0].timeout);
    EXPECT_CODE(aclrtSynchronizeStream(NULL), ACL_ERROR_RT_STREAM_ABORT);

    /* A failing pre-stage callback: 507000, the abort still done, nothing more called. */
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclxLaunchHostKernel(s, slow_kernel, &w, "slow"));
    REQUIRE_OK(aclxLaunchHostKernel(s, count_kernel, &ran, "discarded"));
    wait_started(&w);
    g_fail_with = 5;
    g_ncalls = 0;
    EXPECT_CODE(aclrtDeviceTaskAbort(1, 0), ACL_ERROR_RT_INTERNAL_ERROR);
    {
        const char *msg = aclGetRecentErrMsg();
        CHECK(msg != NULL && strstr(msg, "second") != NULL);
    }
    CHECK(g_ncalls == 2);
    CHECK(g_calls[1].who == 'b' && g_calls[1].stage == ACL_RT_DEVICE_TASK_ABORT_PRE);
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_ABORT);
    CHECK(ran == 0);
    g_fail_with = 0;

    /* Unregistered: no longer called. */
    EXPECT_OK(aclrtSetDeviceTaskAbortCallback("first", NULL, NULL));
    EXPECT_OK(aclrtSetDeviceTaskAbortCallback("second", NULL, NULL));
    g_ncalls = 0;
    EXPECT_OK(aclrtDeviceTaskAbort(1, 0));
    CHECK(g_ncalls == 0);
    EXPECT_OK(aclrtSetDeviceTaskAbortCallback("first", on_abort, &a));
    EXPECT_OK(aclrtSetDeviceTaskAbortCallback("first", NULL, NULL));

    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtResetDeviceForce(1));
}

/* Which accelerators reach registered host memory: the emulated ones. */
static void host_mem_map_capabilities(void)
{
    aclrtHostMemMapCapability cap = (aclrtHostMemMapCapability)7;
    const aclrtHacType yes[] = {ACL_RT_HAC_TYPE_STARS, ACL_RT_HAC_TYPE_AICPU, ACL_RT_HAC_TYPE_AIC,
                                ACL_RT_HAC_TYPE_AIV, ACL_RT_HAC_TYPE_PCIEDMA, ACL_RT_HAC_TYPE_SDMA};
    const aclrtHacType no[] = {ACL_RT_HAC_TYPE_RDMA, ACL_RT_HAC_TYPE_DVPP, ACL_RT_HAC_TYPE_UDMA,
                               ACL_RT_HAC_TYPE_CCU};

    /* A current context is needed, as in the vendor's runtime. */
    EXPECT_CODE(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_AIC, &cap), ACL_ERROR_RT_CONTEXT_NULL);
    REQUIRE_OK(aclrtSetDevice(0));
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        cap = (aclrtHostMemMapCapability)7;
        EXPECT_OK(aclrtHostMemMapCapabilities(1, yes[i], &cap));
        CHECK(cap == ACL_RT_HOST_MEM_MAP_SUPPORTED);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        cap = (aclrtHostMemMapCapability)7;
        EXPECT_OK(aclrtHostMemMapCapabilities(0, no[i], &cap));
        CHECK(cap == ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED);
    }
    cap = (aclrtHostMemMapCapability)7;
    EXPECT_CODE(aclrtHostMemMapCapabilities(0, (aclrtHacType)10, &cap), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtHostMemMapCapabilities(2, ACL_RT_HAC_TYPE_AIC, &cap), ACL_ERROR_RT_INVALID_DEVICEID);
    CHECK(cap == (aclrtHostMemMapCapability)7);
    EXPECT_CODE(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_AIC, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtResetDeviceForce(0));
}

/* aclrtMemcpyAsyncWithOffset: the base addresses are words in device memory, read by the task
 * when it runs. */
static void memcpy_with_offset(void)
{
    enum { N = 512 };
    aclrtStream s = NULL;
    gate_t gate = GATE_INIT;
    unsigned char *src = NULL, *dst = NULL, *other = NULL, *bases = NULL;
    unsigned char pattern[N], pattern2[N], back[N];
    void *words[2];
    void *host_word = NULL;

    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtMalloc((void **)&src, N, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&dst, N, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&other, N, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&bases, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < N; i++) {
        pattern[i] = (unsigned char)(i * 7 + 1);
        pattern2[i] = (unsigned char)(i * 11 + 3);
    }
    REQUIRE_OK(aclrtMemcpy(src, N, pattern, N, ACL_MEMCPY_HOST_TO_DEVICE));
    REQUIRE_OK(aclrtMemcpy(other, N, pattern2, N, ACL_MEMCPY_HOST_TO_DEVICE));
    REQUIRE_OK(aclrtMemset(dst, N, 0, N));
    words[0] = dst;
    words[1] = src;
    REQUIRE_OK(aclrtMemcpy(bases, 16, words, 16, ACL_MEMCPY_HOST_TO_DEVICE));

    /* Queued behind a gate; the source base is rewritten before the task runs: it copies from
     * the base it reads when it runs. */
    REQUIRE_OK(aclxLaunchHostKernel(s, gate_kernel, &gate, "gate"));
    EXPECT_OK(aclrtMemcpyAsyncWithOffset((void **)bases, N, 100, (const void **)(bases + 8), 200, 50,
                                         ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    words[1] = other;
    EXPECT_OK(aclrtMemcpy(bases + 8, 8, &words[1], 8, ACL_MEMCPY_HOST_TO_DEVICE));
    gate_open(&gate);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(back, N, dst, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back + 100, pattern2 + 50, 200) == 0);
    CHECK(back[99] == 0 && back[300] == 0);

    /* A count of 0 succeeds before anything is checked; then the vendor's checks, all 107000. */
    EXPECT_OK(aclrtMemcpyAsyncWithOffset(NULL, 0, 0, NULL, 0, 0, (aclrtMemcpyKind)99, s));
    EXPECT_CODE(aclrtMemcpyAsyncWithOffset((void **)bases, N, 0, (const void **)(bases + 8), 8, 0,
                                           ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyAsyncWithOffset(NULL, N, 0, (const void **)(bases + 8), 8, 0,
                                           ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyAsyncWithOffset((void **)bases, 8, 0, (const void **)(bases + 8), 9, 0,
                                           ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyAsyncWithOffset((void **)bases, N, N, (const void **)(bases + 8), 8, 0,
                                           ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyAsyncWithOffset((void **)bases, N, N - 4, (const void **)(bases + 8), 8, 0,
                                           ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyAsyncWithOffset((void **)bases, N, 0, (const void **)(bases + 8), 8,
                                           (size_t)1 << 48, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                ACL_ERROR_RT_PARAM_INVALID);
    /* The base addresses must be words of device memory. */
    host_word = dst;
    EXPECT_CODE(aclrtMemcpyAsyncWithOffset(&host_word, N, 0, (const void **)(bases + 8), 8, 0,
                                           ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "not device memory holding a base address") != NULL);
    /* A base that does not lead to device memory fails the task when it runs. */
    words[1] = pattern;
    EXPECT_OK(aclrtMemcpy(bases + 8, 8, &words[1], 8, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtMemcpyAsyncWithOffset((void **)bases, N, 0, (const void **)(bases + 8), 8, 0,
                                         ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(src));
    EXPECT_OK(aclrtFree(dst));
    EXPECT_OK(aclrtFree(other));
    EXPECT_OK(aclrtFree(bases));
    EXPECT_OK(aclrtResetDeviceForce(0));
}

/* Cache operations through a descriptor in device memory, read by the task when it runs. */
static void cmo_desc(void)
{
    enum { N = 256 };
    aclrtStream s = NULL;
    gate_t gate = GATE_INIT, gate2 = GATE_INIT;
    unsigned char *dev = NULL, *desc = NULL, *later = NULL, raw[32], host[32];
    size_t size = 0;
    uint32_t len = 0;
    uint64_t a = 0;
    int after = 0;

    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    EXPECT_OK(aclrtCmoGetDescSize(&size));
    CHECK(size == 32);
    EXPECT_CODE(aclrtCmoGetDescSize(NULL), ACL_ERROR_RT_PARAM_INVALID);
    REQUIRE_OK(aclrtMalloc((void **)&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&later, N, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&desc, size, ACL_MEM_MALLOC_HUGE_FIRST));

    /* The vendor's A2 layout: the length at byte 12, the address at 16, the rest 0. */
    REQUIRE_OK(aclrtMemset(desc, 32, 0xab, 32));
    EXPECT_OK(aclrtCmoSetDesc(desc, dev, N));
    EXPECT_OK(aclrtMemcpy(raw, sizeof raw, desc, 32, ACL_MEMCPY_DEVICE_TO_HOST));
    memcpy(&len, raw + 12, 4);
    memcpy(&a, raw + 16, 8);
    CHECK(len == N && a == (uint64_t)(uintptr_t)dev);
    CHECK(raw[0] == 0 && raw[8] == 0 && raw[24] == 0 && raw[31] == 0);

    /* Ordered behind a gate; work after it waits for it. */
    REQUIRE_OK(aclxLaunchHostKernel(s, gate_kernel, &gate, "gate"));
    EXPECT_OK(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_PREFETCH, s, NULL));
    EXPECT_OK(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_FLUSH, s, NULL));
    REQUIRE_OK(aclxLaunchHostKernel(s, count_kernel, &after, "after"));
    CHECK(__atomic_load_n(&after, __ATOMIC_SEQ_CST) == 0);
    gate_open(&gate);
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(after == 1);
    EXPECT_OK(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_WRITEBACK, NULL, NULL));
    EXPECT_OK(aclrtSynchronizeStream(NULL));

    /* The vendor's checks, all 107000. */
    EXPECT_CODE(aclrtCmoSetDesc(NULL, dev, N), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCmoSetDesc(desc, NULL, N), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCmoSetDesc(desc, dev, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCmoSetDesc(host, dev, N), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_PREFETCH, s, desc),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCmoAsyncWithDesc(NULL, ACL_RT_CMO_TYPE_PREFETCH, s, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCmoAsyncWithDesc(desc, (aclrtCmoType)4, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCmoAsyncWithDesc(host, ACL_RT_CMO_TYPE_PREFETCH, s, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "not device memory") != NULL);
    /* The task reads the descriptor when it runs: rewritten by then to a range overrunning
     * its allocation, it fails the task. */
    EXPECT_OK(aclrtCmoSetDesc(desc, later, N));
    REQUIRE_OK(aclxLaunchHostKernel(s, gate_kernel, &gate2, "gate"));
    EXPECT_OK(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_INVALID, s, NULL));
    EXPECT_OK(aclrtCmoSetDesc(desc, later + N - 8, 64));
    gate_open(&gate2);
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtFree(later));
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(dev));
    EXPECT_OK(aclrtFree(desc));
    EXPECT_OK(aclrtResetDeviceForce(0));
}

int main(void)
{
    uint64_t value = 0;
    void *ptr = NULL;

    EXPECT_CODE(aclrtGetDevicesTopo(0, 1, &value), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtDeviceTaskAbort(0, 0), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtMallocForTaskScheduler(&ptr, 64, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtSetTsDevice(ACL_TS_ID_AICORE), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtSetDeviceTaskAbortCallback("x", NULL, NULL), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclxConfigureDevices(2, 64 << 20));
    REQUIRE_OK(aclInit(NULL));
    devices_topo();
    device_task_abort();
    malloc_for_task_scheduler();
    set_ts_device();
    memcpy_async_with_condition();
    memcpy_desc();
    memcpy_with_offset();
    cmo_async();
    cmo_desc();
    user_phy_ids();
    device_task_abort_callbacks();
    host_mem_map_capabilities();
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_runtime_gaps");
}
