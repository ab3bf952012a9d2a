/* The runtime-free calls: aclDataTypeSize, float16 conversion (every half), data buffers,
 * package versions and CANN attributes. None of them needs aclInit; the checks run before and
 * after it. */
#include "check.h"

#include <math.h>

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The recent message names the function. */
static void expect_message_names(const char *function)
{
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, function) != NULL);
}

static void data_type_sizes(void)
{
    static const struct {
        aclDataType type;
        size_t size;
    } sizes[] = {
        {ACL_DT_UNDEFINED, 0}, {ACL_FLOAT, 4},          {ACL_FLOAT16, 2},        {ACL_INT8, 1},
        {ACL_INT32, 4},        {ACL_UINT8, 1},          {ACL_INT16, 2},          {ACL_UINT16, 2},
        {ACL_UINT32, 4},       {ACL_INT64, 8},          {ACL_UINT64, 8},         {ACL_DOUBLE, 8},
        {ACL_BOOL, 1},         {ACL_STRING, 0},         {ACL_COMPLEX64, 8},      {ACL_COMPLEX128, 16},
        {ACL_BF16, 2},         {ACL_INT4, 1},           {ACL_UINT1, 1},          {ACL_COMPLEX32, 4},
        {ACL_HIFLOAT8, 1},     {ACL_FLOAT8_E5M2, 1},    {ACL_FLOAT8_E4M3FN, 1},  {ACL_FLOAT8_E8M0, 1},
        {ACL_FLOAT6_E3M2, 8},  {ACL_FLOAT6_E2M3, 8},    {ACL_FLOAT4_E2M1, 8},    {ACL_FLOAT4_E1M2, 8},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        EXPECT_CODE(aclDataTypeSize(sizes[i].type), sizes[i].size);
    }
    /* Values outside the enum fall to the vendor's default of 8. */
    EXPECT_CODE(aclDataTypeSize((aclDataType)5), 8);
    EXPECT_CODE(aclDataTypeSize((aclDataType)42), 8);
    EXPECT_CODE(aclDataTypeSize((aclDataType)-2), 8);
}

static void float16_every_half(void)
{
    int mismatches = 0;
    for (uint32_t h = 0; h <= 0xFFFF; h++) {
        const float f = aclFloat16ToFloat((aclFloat16)h);
        const uint32_t sign = h & 0x8000;
        const uint32_t exponent = (h >> 10) & 0x1F;
        const uint32_t mantissa = h & 0x3FF;
        double expected;
        if (exponent == 0) {
            expected = ldexp((double)mantissa, -24);
        } else {
            /* Exponent 31 reads as an ordinary exponent (the vendor's saturating mode). */
            expected = ldexp((double)(1024 + mantissa), (int)exponent - 25);
        }
        if (sign) {
            expected = -expected;
        }
        const aclFloat16 back = aclFloatToFloat16(f);
        const uint32_t want_back = exponent == 0x1F ? (sign | 0x7BFF) : h;
        if ((double)f != expected || (float_bits(f) >> 31) != (sign >> 15) || back != want_back) {
            if (mismatches++ < 10) {
                fprintf(stderr, "half %#06x: float %a (want %a), back %#06x (want %#06x)\n",
                        (unsigned)h, (double)f, expected, (unsigned)back, (unsigned)want_back);
            }
        }
    }
    EXPECT_CODE(mismatches, 0);
}

static void float16_special_values(void)
{
    /* As documented by the vendor for every product. */
    CHECK(aclFloat16ToFloat(0x7C00) == 65536.0f);
    CHECK(aclFloat16ToFloat(0xFC00) == -65536.0f);
    CHECK(aclFloat16ToFloat(0x7E00) == 98304.0f);
    EXPECT_CODE(aclFloatToFloat16(INFINITY), 0x7BFF);
    EXPECT_CODE(aclFloatToFloat16(-INFINITY), 0xFBFF);
    EXPECT_CODE(aclFloatToFloat16(NAN), 0x7BFF);
    EXPECT_CODE(aclFloatToFloat16(65504.0f), 0x7BFF);
    EXPECT_CODE(aclFloatToFloat16(65519.99f), 0x7BFF);
    EXPECT_CODE(aclFloatToFloat16(65520.0f), 0x7BFF);
    EXPECT_CODE(aclFloatToFloat16(-1e30f), 0xFBFF);
    EXPECT_CODE(aclFloatToFloat16(0.0f), 0x0000);
    EXPECT_CODE(aclFloatToFloat16(-0.0f), 0x8000);
    EXPECT_CODE(aclFloatToFloat16(1.0f), 0x3C00);
    EXPECT_CODE(aclFloatToFloat16(-2.0f), 0xC000);
    EXPECT_CODE(aclFloatToFloat16(0.1f), 0x2E66);
    EXPECT_CODE(aclFloatToFloat16(1e-8f), 0x0000);
    /* Round to nearest, ties to even: 1 + 2^-11 is half way between 0x3C00 and 0x3C01. */
    EXPECT_CODE(aclFloatToFloat16(1.0f + ldexpf(1.0f, -11)), 0x3C00);
    EXPECT_CODE(aclFloatToFloat16(1.0f + 3.0f * ldexpf(1.0f, -11)), 0x3C02);
    EXPECT_CODE(aclFloatToFloat16(bits_float(float_bits(1.0f + ldexpf(1.0f, -11)) + 1)), 0x3C01);
    /* Subnormals: 2^-25 ties to zero, just above it rounds to the smallest subnormal. */
    EXPECT_CODE(aclFloatToFloat16(ldexpf(1.0f, -25)), 0x0000);
    EXPECT_CODE(aclFloatToFloat16(bits_float(float_bits(ldexpf(1.0f, -25)) + 1)), 0x0001);
    EXPECT_CODE(aclFloatToFloat16(ldexpf(3.0f, -25)), 0x0002);
    EXPECT_CODE(aclFloatToFloat16(ldexpf(1023.0f, -24)), 0x03FF);
    EXPECT_CODE(aclFloatToFloat16(ldexpf(1023.75f, -24)), 0x0400);
}

#if defined(__FLT16_MAX__)
/* Against the compiler's own IEEE binary16 wherever that is finite (it rounds the same way;
 * only the out-of-range values differ, where ACL saturates). */
static void float16_against_the_compiler(void)
{
    int mismatches = 0;
    for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += 251) {
        const float f = bits_float((uint32_t)u);
        if (isnan(f) || fabsf(f) >= 65520.0f) {
            continue;
        }
        const _Float16 reference = (_Float16)f;
        uint16_t want;
        memcpy(&want, &reference, sizeof want);
        if (aclFloatToFloat16(f) != want && mismatches++ < 10) {
            fprintf(stderr, "float %a: %#06x, compiler %#06x\n", (double)f,
                    (unsigned)aclFloatToFloat16(f), (unsigned)want);
        }
    }
    EXPECT_CODE(mismatches, 0);
}
#endif

static void data_buffers(void)
{
    char block[64];
    aclDataBuffer *buf = aclCreateDataBuffer(block, sizeof block);
    CHECK(buf != NULL);
    CHECK(aclGetDataBufferAddr(buf) == block);
    EXPECT_CODE(aclGetDataBufferSizeV2(buf), sizeof block);
    EXPECT_CODE(aclGetDataBufferSize(buf), sizeof block);

    /* Sizes beyond 32 bits: the deprecated getter truncates. */
    EXPECT_OK(aclUpdateDataBuffer(buf, block + 1, ((size_t)1 << 32) + 5));
    CHECK(aclGetDataBufferAddr(buf) == block + 1);
    EXPECT_CODE(aclGetDataBufferSizeV2(buf), ((size_t)1 << 32) + 5);
    EXPECT_CODE(aclGetDataBufferSize(buf), 5);

    /* An empty buffer; NULL data with a size is accepted too, as the vendor accepts it. */
    aclDataBuffer *empty = aclCreateDataBuffer(NULL, 0);
    aclDataBuffer *odd = aclCreateDataBuffer(NULL, 16);
    CHECK(empty != NULL && odd != NULL && empty != buf && odd != empty);
    CHECK(aclGetDataBufferAddr(empty) == NULL);
    EXPECT_CODE(aclGetDataBufferSizeV2(empty), 0);
    EXPECT_CODE(aclGetDataBufferSizeV2(odd), 16);
    EXPECT_OK(aclDestroyDataBuffer(empty));
    EXPECT_OK(aclDestroyDataBuffer(odd));

    /* NULL: the getters return NULL / 0, destroy and update refuse it. */
    CHECK(aclGetDataBufferAddr(NULL) == NULL);
    EXPECT_CODE(aclGetDataBufferSizeV2(NULL), 0);
    EXPECT_CODE(aclGetDataBufferSize(NULL), 0);
    EXPECT_CODE(aclDestroyDataBuffer(NULL), ACL_ERROR_INVALID_PARAM);
    expect_message_names("aclDestroyDataBuffer");
    EXPECT_CODE(aclUpdateDataBuffer(NULL, block, 1), ACL_ERROR_INVALID_PARAM);
    expect_message_names("aclUpdateDataBuffer");
    EXPECT_CODE(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);

    /* A destroyed buffer is refused, not dereferenced; so is one never created. */
    EXPECT_OK(aclDestroyDataBuffer(buf));
    EXPECT_CODE(aclDestroyDataBuffer(buf), ACL_ERROR_INVALID_PARAM);
    expect_message_names("aclDestroyDataBuffer");
    EXPECT_CODE(aclUpdateDataBuffer(buf, block, 1), ACL_ERROR_INVALID_PARAM);
    CHECK(aclGetDataBufferAddr(buf) == NULL);
    expect_message_names("aclGetDataBufferAddr");
    EXPECT_CODE(aclGetDataBufferSizeV2(buf), 0);
    aclDataBuffer *garbage = (aclDataBuffer *)(void *)block;
    EXPECT_CODE(aclDestroyDataBuffer(garbage), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclGetDataBufferSizeV2(garbage), 0);
}

static void versions(void)
{
    char name[] = "runtime";
    char other[] = "driver";
    char version[ACL_PKG_VERSION_MAX_SIZE];
    int32_t number = 0;

    memset(version, 'x', sizeof version);
    EXPECT_OK(aclsysGetVersionStr(name, version));
    CHECK(strcmp(version, "9.1.0") == 0);
    EXPECT_OK(aclsysGetVersionNum(name, &number));
    EXPECT_CODE(number, 90100000);

    EXPECT_CODE(aclsysGetVersionStr(other, version), ACL_ERROR_INVALID_FILE);
    expect_message_names("driver");
    EXPECT_CODE(aclsysGetVersionNum(other, &number), ACL_ERROR_INVALID_FILE);
    EXPECT_CODE(aclsysGetVersionStr(name, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclsysGetVersionStr(NULL, version), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclsysGetVersionNum(name, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclsysGetVersionNum(NULL, &number), ACL_ERROR_INVALID_PARAM);

    aclCANNPackageVersion v;
    memset(&v, 'x', sizeof v);
    EXPECT_OK(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &v));
    CHECK(strcmp(v.version, "9.1.0") == 0);
    CHECK(strcmp(v.majorVersion, "9") == 0);
    CHECK(strcmp(v.minorVersion, "1") == 0);
    CHECK(strcmp(v.releaseVersion, "0") == 0);
    CHECK(strcmp(v.patchVersion, "0") == 0);
    CHECK(v.reserved[0] == 0 && v.reserved[ACL_PKG_VERSION_MAX_SIZE - 1] == 0);
    memset(&v, 'x', sizeof v);
    EXPECT_OK(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &v));
    CHECK(strcmp(v.version, "9.1.0") == 0);
    EXPECT_CODE(aclsysGetCANNVersion(ACL_PKG_NAME_DRIVER, &v), ACL_ERROR_INVALID_FILE);
    EXPECT_CODE(aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &v), ACL_ERROR_INVALID_FILE);
    EXPECT_CODE(aclsysGetCANNVersion((aclCANNPackageName)99, &v), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, NULL), ACL_ERROR_INVALID_PARAM);
    expect_message_names("aclsysGetCANNVersion");

    int32_t major = -1, minor = -1, patch = -1;
    EXPECT_OK(aclrtGetVersion(&major, &minor, &patch));
    CHECK(major == ACL_MAJOR_VERSION && minor == ACL_MINOR_VERSION && patch == ACL_PATCH_VERSION);
    CHECK(major == 1 && minor == 17 && patch == 0);
}

static void cann_attributes(void)
{
    const aclCannAttr *list = NULL;
    size_t num = 0;
    EXPECT_OK(aclGetCannAttributeList(&list, &num));
    EXPECT_CODE(num, 2);
    CHECK(list != NULL && list[0] == ACL_CANN_ATTR_INF_NAN && list[1] == ACL_CANN_ATTR_BF16);
    const aclCannAttr *again = NULL;
    EXPECT_OK(aclGetCannAttributeList(&again, &num));
    CHECK(again == list);

    int32_t value = -1;
    EXPECT_OK(aclGetCannAttribute(ACL_CANN_ATTR_INF_NAN, &value));
    EXPECT_CODE(value, 1);
    EXPECT_OK(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &value));
    EXPECT_CODE(value, 1);
    EXPECT_OK(aclGetCannAttribute(ACL_CANN_ATTR_JIT_COMPILE, &value));
    EXPECT_CODE(value, 0);
    value = 7;
    EXPECT_CODE(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &value), ACL_ERROR_INVALID_PARAM);
    CHECK(value == 7);
    EXPECT_CODE(aclGetCannAttribute((aclCannAttr)3, &value), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclGetCannAttributeList(NULL, &num), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclGetCannAttributeList(&list, NULL), ACL_ERROR_INVALID_PARAM);
}

static void everything(void)
{
    data_type_sizes();
    float16_special_values();
    data_buffers();
    versions();
    cann_attributes();
}

int main(void)
{
    /* Before aclInit, and again while initialised. */
    everything();
    float16_every_half();
#if defined(__FLT16_MAX__)
    float16_against_the_compiler();
#endif
    REQUIRE_OK(aclInit(NULL));
    everything();
    /* A buffer outlives aclFinalize, as the vendor's do. */
    aclDataBuffer *kept = aclCreateDataBuffer(NULL, 1);
    REQUIRE_OK(aclFinalize());
    EXPECT_CODE(aclGetDataBufferSizeV2(kept), 1);
    EXPECT_OK(aclDestroyDataBuffer(kept));
    return finish("test_base");
}
