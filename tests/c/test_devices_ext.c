/* Devices through the C ABI: aclrtResetDeviceForce and its mixing rules with aclrtResetDevice,
 * the SoC name, attributes and capabilities, status, utilisation, priority range, UUID, and peer
 * access between two emulated devices with device-to-device copies checked byte for byte, and
 * the device state callbacks. */
#include "check.h"

#define RELEASED ACL_ERROR_RT_CONTEXT_RELEASE_ERROR

static void reset_rules(void)
{
    aclxLiveObjects live;
    int32_t dev = -1;

    EXPECT_CODE(aclrtResetDeviceForce(0), RELEASED);
    EXPECT_CODE(aclrtResetDeviceForce(2), ACL_ERROR_RT_INVALID_DEVICEID);
    /* Unpaired: set three times, force once. */
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtResetDeviceForce(0));
    EXPECT_OK(aclxGetLiveObjects(&live));
    CHECK(live.contexts == 0 && live.streams == 0);
    EXPECT_CODE(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtResetDevice(0), RELEASED);
    EXPECT_CODE(aclrtResetDeviceForce(0), RELEASED);
    /* Paired. */
    REQUIRE_OK(aclrtSetDevice(1));
    EXPECT_OK(aclrtResetDeviceForce(1));
    REQUIRE_OK(aclrtSetDevice(1));
    EXPECT_OK(aclrtResetDeviceForce(1));
    /* Mixed, the right ways. */
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtResetDevice(0));
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtResetDeviceForce(0));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclrtResetDeviceForce(0));
    /* Mixed, the wrong ways. */
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_CODE(aclrtResetDeviceForce(0), RELEASED);
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclrtResetDeviceForce(0));
    EXPECT_CODE(aclrtResetDeviceForce(0), RELEASED);
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtResetDeviceForce(0));
    EXPECT_CODE(aclrtResetDevice(0), RELEASED);
}

static void attributes(void)
{
    int64_t value = -1;
    int32_t feature = -1, least = -1, greatest = -1;
    aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_END;
    aclrtUtilizationInfo util;
    aclrtUuid u0, u1;
    const char *soc = aclrtGetSocName();

    CHECK(soc != NULL && strcmp(soc, "Ascend910B3") == 0);
    CHECK(aclrtGetSocName() == soc);
    setenv("ACLRT_SOC_NAME", "Ascend910_9392", 1);
    soc = aclrtGetSocName();
    CHECK(soc != NULL && strcmp(soc, "Ascend910_9392") == 0);
    unsetenv("ACLRT_SOC_NAME");

    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &value));
    CHECK(value == 40);
    EXPECT_OK(aclrtGetDeviceInfo(1, ACL_DEV_ATTR_AICORE_CORE_NUM, &value));
    CHECK(value == 20);
    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &value));
    CHECK(value == 20);
    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICPU_CORE_NUM, &value));
    CHECK(value == 6);
    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &value));
    CHECK(value == (64 << 20));
    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_L2_CACHE_SIZE, &value));
    CHECK(value == (192 << 20));
    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_WARP_SIZE, &value));
    CHECK(value == 0);
    EXPECT_OK(aclrtGetDeviceInfo(1, ACL_DEV_ATTR_PHY_CHIP_ID, &value));
    CHECK(value == 1);
    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_IS_VIRTUAL, &value));
    CHECK(value == 0);
    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_NPU_ARCH, &value));
    CHECK(value == 2201);
    value = 7;
    EXPECT_CODE(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_HD_CONNECT_TYPE, &value),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_DEVICE_FORM_FACTOR, &value),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtGetDeviceInfo(0, (aclrtDevAttr)0, &value), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetDeviceInfo(2, ACL_DEV_ATTR_NPU_ARCH, &value), ACL_ERROR_RT_INVALID_DEVICEID);
    CHECK(value == 7);
    EXPECT_CODE(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_NPU_ARCH, NULL), ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &value));
    CHECK(value == 20);
    EXPECT_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &value));
    CHECK(value == 40);
    EXPECT_OK(aclGetDeviceCapability(1, ACL_DEVICE_INFO_L2_SIZE, &value));
    CHECK(value == (192 << 20));
    EXPECT_CODE(aclGetDeviceCapability(0, ACL_DEVICE_INFO_UNDEFINED, &value), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclGetDeviceCapability(9, ACL_DEVICE_INFO_L2_SIZE, &value),
                ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, NULL), ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &feature));
    CHECK(feature == ACL_DEV_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)2, &feature),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, NULL),
                ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclrtQueryDeviceStatus(1, &status));
    CHECK(status == ACL_RT_DEVICE_STATUS_NORMAL);
    EXPECT_CODE(aclrtQueryDeviceStatus(-1, &status), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtQueryDeviceStatus(0, NULL), ACL_ERROR_INVALID_PARAM);

    memset(&util, 0x55, sizeof util);
    util.utilizationExtend = NULL;
    EXPECT_OK(aclrtGetDeviceUtilizationRate(0, &util));
    CHECK(util.cubeUtilization == 0 && util.vectorUtilization == 0);
    CHECK(util.aicpuUtilization == 0 && util.memoryUtilization == -1);
    util.utilizationExtend = (aclrtUtilizationExtendInfo *)&util;
    EXPECT_CODE(aclrtGetDeviceUtilizationRate(0, &util), ACL_ERROR_INVALID_PARAM);
    util.utilizationExtend = NULL;
    EXPECT_CODE(aclrtGetDeviceUtilizationRate(5, &util), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetDeviceUtilizationRate(0, NULL), ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclrtDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(least == 7 && greatest == 0);
    EXPECT_CODE(aclrtDeviceGetStreamPriorityRange(NULL, &greatest), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtDeviceGetStreamPriorityRange(&least, NULL), ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclrtDeviceGetUuid(0, &u0));
    EXPECT_OK(aclrtDeviceGetUuid(1, &u1));
    CHECK(memcmp(u0.bytes, u1.bytes, sizeof u0.bytes) != 0);
    EXPECT_CODE(aclrtDeviceGetUuid(2, &u0), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtDeviceGetUuid(0, NULL), ACL_ERROR_INVALID_PARAM);
}

/* Two emulated devices with peer access copy device to device, synchronously and on a
 * stream, byte for byte. */
static void peer_copies(void)
{
    enum { N = 1000 };
    unsigned char pattern[N], back[N];
    void *dev0 = NULL, *dev1 = NULL;
    int32_t can = -1, status = -1;
    aclrtStream s = NULL;
    int i;

    for (i = 0; i < N; i++) {
        pattern[i] = (unsigned char)(i * 31 + 7);
    }
    EXPECT_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    CHECK(can == 1);
    EXPECT_CODE(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceCanAccessPeer(&can, 0, 2), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtDeviceCanAccessPeer(NULL, 0, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtDeviceEnablePeerAccess(1, 0), ACL_ERROR_RT_CONTEXT_NULL);

    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtMalloc(&dev0, N, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    REQUIRE_OK(aclrtMemcpy(dev0, N, pattern, N, ACL_MEMCPY_HOST_TO_DEVICE));
    REQUIRE_OK(aclrtSetDevice(1));
    REQUIRE_OK(aclrtMalloc(&dev1, N, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    EXPECT_CODE(aclrtMemcpy(dev1, N, dev0, N, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_NO_PERMISSION);
    EXPECT_CODE(aclrtDeviceEnablePeerAccess(1, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceEnablePeerAccess(0, 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceEnablePeerAccess(3, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtDeviceDisablePeerAccess(0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtDevicePeerAccessStatus(1, 0, &status));
    CHECK(status == 0);
    EXPECT_OK(aclrtDeviceEnablePeerAccess(0, 0));
    EXPECT_OK(aclrtDevicePeerAccessStatus(1, 0, &status));
    CHECK(status == 1);
    EXPECT_OK(aclrtDevicePeerAccessStatus(0, 1, &status));
    CHECK(status == 0);
    EXPECT_CODE(aclrtDevicePeerAccessStatus(0, 5, &status), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDevicePeerAccessStatus(0, 1, NULL), ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclrtMemcpy(dev1, N, dev0, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    memset(back, 0, N);
    EXPECT_OK(aclrtMemcpy(back, N, dev1, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, pattern, N) == 0);

    /* On a stream of device 0, with access to device 1, the other way. */
    EXPECT_OK(aclrtMemset(dev0, N, 0, N));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    EXPECT_CODE(aclrtMemcpyAsync(dev0, N, dev1, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                ACL_ERROR_RT_NO_PERMISSION);
    EXPECT_OK(aclrtDeviceEnablePeerAccess(1, 0));
    EXPECT_OK(aclrtMemcpyAsync(dev0, N, dev1, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    memset(back, 0, N);
    EXPECT_OK(aclrtMemcpy(back, N, dev0, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, pattern, N) == 0);

    EXPECT_OK(aclrtDeviceDisablePeerAccess(1));
    EXPECT_CODE(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpy(dev0, N, dev1, N, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_NO_PERMISSION);

    /* aclrtMemP2PMap: device 1 still has access to device 0's memory, device 0 no longer to
     * device 1's. */
    EXPECT_OK(aclrtMemP2PMap(dev0, N, 1, 0));
    EXPECT_OK(aclrtMemP2PMap((char *)dev0 + 10, 20, 0, 0));
    EXPECT_CODE(aclrtMemP2PMap(dev1, N, 0, 0), ACL_ERROR_RT_NO_PERMISSION);
    CHECK(strstr(aclGetRecentErrMsg(), "aclrtDeviceEnablePeerAccess") != NULL);
    EXPECT_CODE(aclrtMemP2PMap(NULL, N, 1, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemP2PMap(dev0, 0, 1, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemP2PMap(dev0, N, 1, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemP2PMap(dev0, N, 5, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtMemP2PMap(pattern, N, 1, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemP2PMap(dev0, N + 1, 1, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(dev0));
    EXPECT_OK(aclrtFree(dev1));
    EXPECT_OK(aclrtResetDeviceForce(0));
    EXPECT_OK(aclrtResetDeviceForce(1));
}

/* aclrtRegDeviceStateCallback: SET_POST after every aclrtSetDevice; RESET_PRE and RESET_POST
 * around the reset that releases the device (aclrtResetDevice at count zero, or
 * aclrtResetDeviceForce), in registration order. */
static char g_states[256];

static void on_device_state(int32_t deviceId, aclrtDeviceState state, void *args)
{
    char one[32];
    snprintf(one, sizeof one, "%s%d:%d;", (const char *)args, deviceId, (int)state);
    strncat(g_states, one, sizeof g_states - strlen(g_states) - 1);
}

static void device_state_callbacks(void)
{
    EXPECT_CODE(aclrtRegDeviceStateCallback(NULL, on_device_state, "a"), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtRegDeviceStateCallback("", on_device_state, "a"), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtRegDeviceStateCallback("first", on_device_state, "a"));
    EXPECT_OK(aclrtRegDeviceStateCallback("second", on_device_state, "b"));
    EXPECT_CODE(aclrtRegDeviceStateCallback("first", on_device_state, "c"),
                ACL_ERROR_RT_PARAM_INVALID);
    g_states[0] = 0;
    EXPECT_OK(aclrtSetDevice(1));
    EXPECT_OK(aclrtSetDevice(1));
    CHECK(strcmp(g_states, "a1:1;b1:1;a1:1;b1:1;") == 0);
    g_states[0] = 0;
    EXPECT_OK(aclrtResetDevice(1));
    CHECK(strcmp(g_states, "") == 0);
    EXPECT_OK(aclrtResetDevice(1));
    CHECK(strcmp(g_states, "a1:2;b1:2;a1:3;b1:3;") == 0);
    /* A failed set or reset tells nothing. */
    g_states[0] = 0;
    EXPECT_CODE(aclrtSetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtResetDevice(1), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    CHECK(strcmp(g_states, "") == 0);
    /* Unregistering (an unknown name is fine); the forced reset is one release. */
    EXPECT_OK(aclrtRegDeviceStateCallback("first", NULL, NULL));
    EXPECT_OK(aclrtRegDeviceStateCallback("never", NULL, NULL));
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtResetDeviceForce(0));
    CHECK(strcmp(g_states, "b0:1;b0:1;b0:2;b0:3;") == 0);
    EXPECT_OK(aclrtRegDeviceStateCallback("second", NULL, NULL));
    g_states[0] = 0;
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtResetDevice(0));
    CHECK(strcmp(g_states, "") == 0);
}

/* Atomic capabilities: none between a device and the host (an A2's PCIe link); between two
 * devices the A2's DMA add/min/max on signed 8-, 16- and 32-bit scalars. */
static void atomic_capabilities(void)
{
    const uint32_t dma = ACL_RT_ATOMIC_CAPABILITY_SIGNED | ACL_RT_ATOMIC_CAPABILITY_SCALAR8 |
                         ACL_RT_ATOMIC_CAPABILITY_SCALAR16 | ACL_RT_ATOMIC_CAPABILITY_SCALAR32;
    aclrtAtomicOperation ops[6] = {ACL_RT_ATOMIC_OPERATION_INTEGER_ADD, ACL_RT_ATOMIC_OPERATION_DMA_ADD,
                                   ACL_RT_ATOMIC_OPERATION_DMA_MIN, ACL_RT_ATOMIC_OPERATION_DMA_MAX,
                                   ACL_RT_ATOMIC_OPERATION_FLOAT_ADD,
                                   ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH};
    uint32_t caps[6];

    memset(caps, 0xff, sizeof caps);
    EXPECT_OK(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 6, 0));
    for (int i = 0; i < 6; i++) CHECK(caps[i] == 0);
    memset(caps, 0xff, sizeof caps);
    EXPECT_OK(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 6, 0, 1));
    CHECK(dma == 57);
    CHECK(caps[0] == 0 && caps[1] == dma && caps[2] == dma && caps[3] == dma);
    CHECK(caps[4] == 0 && caps[5] == 0);
    /* Errors, nothing written. */
    memset(caps, 0xff, sizeof caps);
    EXPECT_CODE(aclrtDeviceGetHostAtomicCapabilities(NULL, ops, 6, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceGetHostAtomicCapabilities(caps, NULL, 6, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 6, 2), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 6, 1, 1), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 6, 0, 5), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 0, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
    ops[5] = (aclrtAtomicOperation)45;
    EXPECT_CODE(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 6, 0, 1), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "operations[5] is 45") != NULL);
    ops[5] = (aclrtAtomicOperation)-1;
    EXPECT_CODE(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 6, 0), ACL_ERROR_RT_PARAM_INVALID);
    for (int i = 0; i < 6; i++) CHECK(caps[i] == 0xffffffffu);
}

int main(void)
{
    int64_t value = 0;

    EXPECT_CODE(aclrtResetDeviceForce(0), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_UNINITIALIZE);
    /* The SoC name needs no aclInit: build scripts ask for it before any. */
    const char *soc = aclrtGetSocName();
    CHECK(soc != NULL && strcmp(soc, "Ascend910B3") == 0);
    EXPECT_CODE(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    EXPECT_CODE(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_NPU_ARCH, &value), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclxConfigureDevices(2, 64 << 20));
    REQUIRE_OK(aclInit(NULL));
    reset_rules();
    attributes();
    peer_copies();
    device_state_callbacks();
    atomic_capabilities();
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_devices_ext");
}
