/* Runtime functions of the device, memory and exception chapters that an emulated device can
 * honour: the topology between devices, ... Every value and every documented error code. */
#include "check.h"

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

int main(void)
{
    uint64_t value = 0;

    EXPECT_CODE(aclrtGetDevicesTopo(0, 1, &value), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclxConfigureDevices(2, 64 << 20));
    REQUIRE_OK(aclInit(NULL));
    devices_topo();
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_runtime_gaps");
}
