/* Core resource limits through the C ABI: device limits (defaults, set, reset, released with the
 * device), stream limits (falling back to the device's), the thread's choice of a stream's
 * limits, and the documented error paths with their exact codes. */
#include "check.h"

#define CUBE ACL_RT_DEV_RES_CUBE_CORE
#define VECTOR ACL_RT_DEV_RES_VECTOR_CORE
#define BAD_TYPE ((aclrtDevResLimitType)2)
/* The emulated chip's counts: as aclrtGetDeviceInfo reports them. */
#define CUBE_TOTAL 20u
#define VECTOR_TOTAL 40u

static uint32_t device_limit(int32_t dev, aclrtDevResLimitType type)
{
    uint32_t v = 0xdead;
    EXPECT_OK(aclrtGetDeviceResLimit(dev, type, &v));
    return v;
}

static uint32_t stream_limit(aclrtStream s, aclrtDevResLimitType type)
{
    uint32_t v = 0xdead;
    EXPECT_OK(aclrtGetStreamResLimit(s, type, &v));
    return v;
}

static uint32_t thread_limit(aclrtDevResLimitType type)
{
    uint32_t v = 0xdead;
    EXPECT_OK(aclrtGetResInCurrentThread(type, &v));
    return v;
}

static void totals_match_device_info(void)
{
    int64_t cube = 0, vector = 0;
    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &cube));
    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &vector));
    EXPECT_CODE(cube, CUBE_TOTAL);
    EXPECT_CODE(vector, VECTOR_TOTAL);
}

static void device_limits(void)
{
    uint32_t v = 7;

    /* Not in use yet: the device has to be set first. */
    EXPECT_CODE(aclrtGetDeviceResLimit(0, CUBE, &v), ACL_ERROR_RT_DEV_SETUP_ERROR);
    EXPECT_CODE(aclrtSetDeviceResLimit(0, CUBE, 1), ACL_ERROR_RT_DEV_SETUP_ERROR);
    EXPECT_CODE(aclrtResetDeviceResLimit(0), ACL_ERROR_RT_DEV_SETUP_ERROR);
    CHECK(v == 7);

    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_CODE(device_limit(0, CUBE), CUBE_TOTAL);
    EXPECT_CODE(device_limit(0, VECTOR), VECTOR_TOTAL);
    EXPECT_OK(aclrtSetDeviceResLimit(0, VECTOR, 1));
    EXPECT_OK(aclrtSetDeviceResLimit(0, CUBE, 8));
    EXPECT_OK(aclrtSetDeviceResLimit(0, CUBE, 4)); /* the last setting wins */
    EXPECT_CODE(device_limit(0, CUBE), 4);
    EXPECT_CODE(device_limit(0, VECTOR), 1);
    EXPECT_OK(aclrtSetDeviceResLimit(0, CUBE, 0));
    EXPECT_CODE(device_limit(0, CUBE), 0);
    EXPECT_OK(aclrtSetDeviceResLimit(0, CUBE, CUBE_TOTAL));
    EXPECT_CODE(device_limit(0, CUBE), CUBE_TOTAL);
    EXPECT_OK(aclrtSetDeviceResLimit(0, CUBE, 4));

    /* Errors, in the order they are checked. */
    EXPECT_CODE(aclrtGetDeviceResLimit(0, CUBE, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetDeviceResLimit(-1, BAD_TYPE, &v), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetDeviceResLimit(0, BAD_TYPE, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetDeviceResLimit(2, BAD_TYPE, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetDeviceResLimit(2, CUBE, &v), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtSetDeviceResLimit(-1, BAD_TYPE, 1), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtSetDeviceResLimit(0, BAD_TYPE, 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSetDeviceResLimit(2, VECTOR, 1), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtSetDeviceResLimit(1, VECTOR, 99), ACL_ERROR_RT_DEV_SETUP_ERROR);
    EXPECT_CODE(aclrtSetDeviceResLimit(0, CUBE, CUBE_TOTAL + 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSetDeviceResLimit(0, VECTOR, VECTOR_TOTAL + 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtResetDeviceResLimit(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtResetDeviceResLimit(2), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(device_limit(0, CUBE), 4); /* failed calls changed nothing */

    /* Limits are per device. */
    REQUIRE_OK(aclrtSetDevice(1));
    EXPECT_CODE(device_limit(1, CUBE), CUBE_TOTAL);
    EXPECT_OK(aclrtResetDevice(1));
    REQUIRE_OK(aclrtSetDevice(0));

    EXPECT_OK(aclrtResetDeviceResLimit(0));
    EXPECT_CODE(device_limit(0, CUBE), CUBE_TOTAL);
    EXPECT_CODE(device_limit(0, VECTOR), VECTOR_TOTAL);

    /* A released device forgets its limits; one still used by a context keeps them. */
    EXPECT_OK(aclrtSetDeviceResLimit(0, VECTOR, 3));
    EXPECT_OK(aclrtResetDeviceForce(0));
    EXPECT_CODE(aclrtGetDeviceResLimit(0, VECTOR, &v), ACL_ERROR_RT_DEV_SETUP_ERROR);
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_CODE(device_limit(0, VECTOR), VECTOR_TOTAL);
    aclrtContext ctx = NULL;
    REQUIRE_OK(aclrtCreateContext(&ctx, 0));
    EXPECT_OK(aclrtSetDeviceResLimit(0, VECTOR, 5));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_CODE(device_limit(0, VECTOR), 5);
    EXPECT_OK(aclrtDestroyContext(ctx));
    EXPECT_CODE(aclrtGetDeviceResLimit(0, VECTOR, &v), ACL_ERROR_RT_DEV_SETUP_ERROR);
}

static void stream_limits(void)
{
    aclrtStream s = NULL, other = NULL, def = NULL;
    uint32_t v = 7;

    /* The default stream needs a current context. */
    EXPECT_CODE(aclrtGetStreamResLimit(NULL, CUBE, &v), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtSetStreamResLimit(NULL, CUBE, 1), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtResetStreamResLimit(NULL), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtUseStreamResInCurrentThread(NULL), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtUnuseStreamResInCurrentThread(NULL), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtGetResInCurrentThread(CUBE, &v), ACL_ERROR_RT_CONTEXT_NULL);
    CHECK(v == 7);

    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtCreateStream(&other));
    REQUIRE_OK(aclrtCtxGetCurrentDefaultStream(&def));

    /* Without their own limits streams follow the device. */
    EXPECT_CODE(stream_limit(s, CUBE), CUBE_TOTAL);
    EXPECT_OK(aclrtSetDeviceResLimit(0, CUBE, 6));
    EXPECT_CODE(stream_limit(s, CUBE), 6);
    EXPECT_CODE(stream_limit(NULL, CUBE), 6);
    EXPECT_CODE(thread_limit(CUBE), 6);
    EXPECT_CODE(thread_limit(VECTOR), VECTOR_TOTAL);

    /* A stream limit may exceed the device's, not the chip's. */
    EXPECT_OK(aclrtSetStreamResLimit(s, CUBE, 12));
    EXPECT_OK(aclrtSetStreamResLimit(s, VECTOR, 24));
    EXPECT_CODE(stream_limit(s, CUBE), 12);
    EXPECT_CODE(stream_limit(s, VECTOR), 24);
    EXPECT_CODE(stream_limit(other, CUBE), 6);
    EXPECT_CODE(aclrtSetStreamResLimit(s, CUBE, CUBE_TOTAL + 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSetStreamResLimit(s, BAD_TYPE, 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetStreamResLimit(s, BAD_TYPE, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetStreamResLimit(s, CUBE, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(stream_limit(s, CUBE), 12);

    /* The default stream: NULL and the handle of aclrtCtxGetCurrentDefaultStream are one. */
    EXPECT_OK(aclrtSetStreamResLimit(NULL, VECTOR, 2));
    EXPECT_CODE(stream_limit(def, VECTOR), 2);
    EXPECT_OK(aclrtResetStreamResLimit(def));
    EXPECT_CODE(stream_limit(NULL, VECTOR), VECTOR_TOTAL);

    /* The thread uses a stream's limits where it has them, the device's elsewhere. */
    EXPECT_OK(aclrtUseStreamResInCurrentThread(s));
    EXPECT_CODE(thread_limit(CUBE), 12);
    EXPECT_CODE(thread_limit(VECTOR), 24);
    EXPECT_OK(aclrtResetStreamResLimit(s));
    EXPECT_CODE(stream_limit(s, CUBE), 6);
    EXPECT_CODE(thread_limit(CUBE), 6);
    EXPECT_OK(aclrtSetStreamResLimit(s, VECTOR, 9));
    EXPECT_CODE(thread_limit(CUBE), 6);
    EXPECT_CODE(thread_limit(VECTOR), 9);
    EXPECT_CODE(aclrtGetResInCurrentThread(BAD_TYPE, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetResInCurrentThread(CUBE, NULL), ACL_ERROR_INVALID_PARAM);

    /* The last stream chosen wins; unusing another stream changes nothing. */
    EXPECT_OK(aclrtSetStreamResLimit(other, VECTOR, 11));
    EXPECT_OK(aclrtUseStreamResInCurrentThread(other));
    EXPECT_CODE(thread_limit(VECTOR), 11);
    EXPECT_OK(aclrtUnuseStreamResInCurrentThread(s));
    EXPECT_CODE(thread_limit(VECTOR), 11);
    EXPECT_OK(aclrtUnuseStreamResInCurrentThread(other));
    EXPECT_CODE(thread_limit(VECTOR), VECTOR_TOTAL);

    /* A destroyed stream: its handle is refused, and a thread using it falls back. */
    EXPECT_OK(aclrtUseStreamResInCurrentThread(s));
    EXPECT_CODE(thread_limit(VECTOR), 9);
    REQUIRE_OK(aclrtDestroyStream(s));
    EXPECT_CODE(thread_limit(VECTOR), VECTOR_TOTAL);
    EXPECT_CODE(aclrtGetStreamResLimit(s, CUBE, &v), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtSetStreamResLimit(s, CUBE, 1), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtResetStreamResLimit(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtUseStreamResInCurrentThread(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtUnuseStreamResInCurrentThread(s), ACL_ERROR_RT_INVALID_HANDLE);

    REQUIRE_OK(aclrtDestroyStream(other));
    EXPECT_OK(aclrtResetDeviceForce(0));
}

struct other_thread {
    aclrtStream stream;
    uint32_t cube, vector;
    aclError code;
};

static void *read_limits(void *arg)
{
    struct other_thread *t = arg;
    t->code = aclrtGetResInCurrentThread(CUBE, &t->cube);
    if (aclrtSetDevice(0) != ACL_SUCCESS) {
        return NULL;
    }
    aclrtGetResInCurrentThread(CUBE, &t->cube);
    aclrtGetResInCurrentThread(VECTOR, &t->vector);
    aclrtResetDevice(0);
    return NULL;
}

/* A stream's limits are chosen per thread; a device's hold for every thread of the process. */
static void per_thread(void)
{
    struct other_thread t = {NULL, 0, 0, 0};
    pthread_t th;

    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&t.stream));
    EXPECT_OK(aclrtSetDeviceResLimit(0, VECTOR, 1));
    EXPECT_OK(aclrtSetStreamResLimit(t.stream, CUBE, 3));
    EXPECT_OK(aclrtUseStreamResInCurrentThread(t.stream));
    EXPECT_CODE(thread_limit(CUBE), 3);
    CHECK(pthread_create(&th, NULL, read_limits, &t) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    EXPECT_CODE(t.code, ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(t.cube, CUBE_TOTAL);
    EXPECT_CODE(t.vector, 1);
    REQUIRE_OK(aclrtDestroyStream(t.stream));
    EXPECT_OK(aclrtResetDeviceForce(0));
}

int main(void)
{
    uint32_t v = 0;

    EXPECT_CODE(aclrtGetDeviceResLimit(0, CUBE, &v), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtSetDeviceResLimit(0, CUBE, 1), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtGetResInCurrentThread(CUBE, &v), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclxConfigureDevices(2, 64 << 20));
    REQUIRE_OK(aclInit(NULL));
    totals_match_device_info();
    device_limits();
    stream_limits();
    per_thread();
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_res_limits");
}
