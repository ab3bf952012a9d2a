/* aclrtRandomNumAsync: every function and data type the vendor allows, parameters by value
 * and by address, the counter that continues a sequence, the parameter area the launch
 * fills, and the documented error codes in the vendor's order. */
#include "check.h"

static aclrtRandomParaInfo value_of(const void *bytes, uint8_t size)
{
    aclrtRandomParaInfo p;
    memset(&p, 0, sizeof p);
    memcpy(p.valueOrAddr, bytes, size);
    p.size = size;
    return p;
}

static aclrtRandomParaInfo address_of(void *dev)
{
    aclrtRandomParaInfo p;
    memset(&p, 0, sizeof p);
    uint64_t addr = (uint64_t)(uintptr_t)dev;
    memcpy(p.valueOrAddr, &addr, 8);
    p.isAddr = 1;
    p.size = 8;
    return p;
}

static aclrtRandomNumTaskInfo task(aclDataType type, aclrtRandomNumFuncType func, void *out, void *counter,
                                   uint64_t seed, uint64_t num)
{
    aclrtRandomNumTaskInfo t;
    memset(&t, 0, sizeof t);
    t.dataType = type;
    t.randomNumFuncParaInfo.funcType = func;
    t.randomResultAddr = out;
    t.randomCounterAddr = counter;
    t.randomSeed = value_of(&seed, 8);
    t.randomNum = value_of(&num, 8);
    return t;
}

static uint64_t counter_low(void *counter)
{
    uint64_t c[2];
    REQUIRE_OK(aclrtMemcpy(c, 16, counter, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    return c[0];
}

int main(void)
{
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    aclrtStream s;
    REQUIRE_OK(aclrtCreateStream(&s));
    enum { N = 1000 };
    void *out, *counter, *params, *scalars;
    REQUIRE_OK(aclrtMalloc(&out, N * 8, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc(&counter, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc(&params, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc(&scalars, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMemset(counter, 16, 0, 16));
    static int32_t ints[N];
    static float floats[N];

    /* Uniform INT32 in [1, 100), by value; the counter moves past the 250 blocks used. */
    int32_t lo = 1, hi = 100;
    aclrtRandomNumTaskInfo t = task(ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, out, counter, 42, N);
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = value_of(&lo, 4);
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = value_of(&hi, 4);
    EXPECT_OK(aclrtRandomNumAsync(&t, s, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    REQUIRE_OK(aclrtMemcpy(ints, sizeof ints, out, sizeof ints, ACL_MEMCPY_DEVICE_TO_HOST));
    int in_range = 1, distinct_first = 0;
    for (int i = 0; i < N; i++) {
        in_range &= ints[i] >= 1 && ints[i] < 100;
        distinct_first += ints[i] != ints[0];
    }
    CHECK(in_range);
    CHECK(distinct_first > N / 2);
    EXPECT_CODE(counter_low(counter), N / 4);
    /* The same seed from the same counter repeats the sequence; the advanced counter does not. */
    static int32_t again[N];
    REQUIRE_OK(aclrtMemset(counter, 16, 0, 16));
    EXPECT_OK(aclrtRandomNumAsync(&t, s, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    REQUIRE_OK(aclrtMemcpy(again, sizeof again, out, sizeof again, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(ints, again, sizeof ints) == 0);
    EXPECT_OK(aclrtRandomNumAsync(&t, s, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    REQUIRE_OK(aclrtMemcpy(again, sizeof again, out, sizeof again, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(ints, again, sizeof ints) != 0);
    EXPECT_CODE(counter_low(counter), 2 * (N / 4));

    /* Normal FLOAT with mean and stddev read from device memory, the count too; the launch
     * writes the two parameters (8 bytes each) to randomParaAddr. */
    float mean = 3.0f, stddev = 2.0f;
    uint64_t count = N;
    REQUIRE_OK(aclrtMemcpy(scalars, 4, &mean, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    REQUIRE_OK(aclrtMemcpy((char *)scalars + 8, 4, &stddev, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    REQUIRE_OK(aclrtMemcpy((char *)scalars + 16, 8, &count, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, out, counter, 7, 0);
    t.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean = address_of(scalars);
    t.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = address_of((char *)scalars + 8);
    t.randomNum = address_of((char *)scalars + 16);
    t.randomParaAddr = params;
    EXPECT_OK(aclrtRandomNumAsync(&t, s, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    REQUIRE_OK(aclrtMemcpy(floats, sizeof floats, out, sizeof floats, ACL_MEMCPY_DEVICE_TO_HOST));
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += floats[i];
    CHECK(sum / N > 2.7 && sum / N < 3.3);
    uint64_t area[2];
    REQUIRE_OK(aclrtMemcpy(area, 16, params, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(area[0] == (uint64_t)(uintptr_t)scalars && area[1] == (uint64_t)(uintptr_t)scalars + 8);

    /* Truncated normal FLOAT16: every value within two standard deviations. */
    uint16_t mean16 = 0x3C00 /* 1.0 */, stddev16 = 0x4000 /* 2.0 */;
    t = task(ACL_FLOAT16, ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS, out, counter, 7, N);
    t.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean = value_of(&mean16, 2);
    t.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = value_of(&stddev16, 2);
    EXPECT_OK(aclrtRandomNumAsync(&t, s, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    static uint16_t halves[N];
    REQUIRE_OK(aclrtMemcpy(halves, sizeof halves, out, sizeof halves, ACL_MEMCPY_DEVICE_TO_HOST));
    int within = 1;
    for (int i = 0; i < N; i++) {
        float v = aclFloat16ToFloat(halves[i]);
        within &= v >= -3.01f && v <= 5.01f;
    }
    CHECK(within);

    /* Dropout bitmask: ratio 0 keeps every element, one bit each, ceil(num / 8) bytes. */
    float zero = 0.0f;
    REQUIRE_OK(aclrtMemset(out, 8, 0xAB, 8));
    t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, out, counter, 1, 12);
    t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation = value_of(&zero, 4);
    EXPECT_OK(aclrtRandomNumAsync(&t, s, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    uint8_t mask[3];
    REQUIRE_OK(aclrtMemcpy(mask, 3, out, 3, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(mask[0] == 0xFF && mask[1] == 0x0F && mask[2] == 0xAB);
    /* The bitmask has one parameter: the rest of the union is never read, whatever it holds. */
    memset(&t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, 0x11, sizeof(aclrtRandomParaInfo));
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.isAddr = 1;
    EXPECT_OK(aclrtRandomNumAsync(&t, s, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    REQUIRE_OK(aclrtMemcpy(mask, 2, out, 2, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(mask[0] == 0xFF && mask[1] == 0x0F);

    /* Errors, in the vendor's order. */
    EXPECT_CODE(aclrtRandomNumAsync(NULL, s, NULL), ACL_ERROR_INVALID_PARAM);
    aclrtRandomNumTaskInfo bad = task(ACL_INT8, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, out, counter, 1, 4);
    bad.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = value_of(&lo, 1);
    bad.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = value_of(&hi, 1);
    EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_INVALID_PARAM);
    t = task(ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, out, counter, 42, 4);
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = value_of(&lo, 4);
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = value_of(&hi, 4);
    EXPECT_CODE(aclrtRandomNumAsync(&t, s, out), ACL_ERROR_RT_PARAM_INVALID);
    bad = t;
    bad.randomNumFuncParaInfo.funcType = (aclrtRandomNumFuncType)4;
    EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    bad = t;
    bad.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS;
    EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    bad = t;
    bad.randomCounterAddr = NULL;
    EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    bad = t;
    bad.randomResultAddr = NULL;
    EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    bad = t;
    bad.randomSeed.size = 0;
    EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    bad = t;
    bad.randomNum.isAddr = 2;
    EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    bad = t;
    bad.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 8; /* wider than INT32 */
    EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    /* More results than the output allocation holds: refused at launch, nothing queued. */
    bad = task(ACL_INT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, out, counter, 1, N + 1);
    int64_t lo64 = 0, hi64 = 10;
    bad.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = value_of(&lo64, 8);
    bad.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = value_of(&hi64, 8);
    EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_INVALID_PARAM);
    /* Memory the runtime does not own is refused, nothing queued or written: host memory or
     * a garbage address as counter, result, parameter or parameter area. */
    static uint8_t host_bytes[64];
    void *garbage = (void *)(uintptr_t)0x10;
    void *not_runtime[2] = {host_bytes, garbage};
    for (int i = 0; i < 2; i++) {
        bad = t;
        bad.randomCounterAddr = not_runtime[i];
        EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_INVALID_PARAM);
        bad = t;
        bad.randomResultAddr = not_runtime[i];
        EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_INVALID_PARAM);
        bad = t;
        bad.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = address_of(not_runtime[i]);
        EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_INVALID_PARAM);
        bad = t;
        bad.randomParaAddr = not_runtime[i];
        EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_INVALID_PARAM);
        bad = t;
        bad.randomNum = address_of(not_runtime[i]);
        EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_INVALID_PARAM);
    }
    for (size_t i = 0; i < sizeof host_bytes; i++)
        CHECK(host_bytes[i] == 0);
    /* A refused launch leaves the parameter area as it was. */
    REQUIRE_OK(aclrtMemset(params, 16, 0x5A, 16));
    bad = t;
    bad.randomParaAddr = params;
    bad.randomCounterAddr = NULL;
    EXPECT_CODE(aclrtRandomNumAsync(&bad, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    uint8_t area_bytes[16];
    REQUIRE_OK(aclrtMemcpy(area_bytes, 16, params, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(area_bytes[0] == 0x5A && area_bytes[15] == 0x5A);
    /* A count read from memory that overruns the output fails the task instead. */
    count = N + 1;
    REQUIRE_OK(aclrtMemcpy((char *)scalars + 16, 8, &count, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    bad = task(ACL_INT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, out, counter, 1, 0);
    bad.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = value_of(&lo64, 8);
    bad.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = value_of(&hi64, 8);
    bad.randomNum = address_of((char *)scalars + 16);
    EXPECT_OK(aclrtRandomNumAsync(&bad, s, NULL));
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_OK(aclrtSynchronizeStream(s));

    REQUIRE_OK(aclrtFree(out));
    REQUIRE_OK(aclrtFree(counter));
    REQUIRE_OK(aclrtFree(params));
    REQUIRE_OK(aclrtFree(scalars));
    REQUIRE_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtResetDeviceForce(0));
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_random");
}
