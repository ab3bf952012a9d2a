/* Host memory registration through the C ABI: register ordinary host memory, use its device
 * address in copies, look the address up, unregister, and the documented error paths with
 * their exact codes. */
#include "check.h"

static char g_buf[4096] __attribute__((aligned(64)));
static char g_other[256];

int main(void)
{
    void *dev = NULL;
    EXPECT_CODE(aclrtHostRegister(g_buf, 64, ACL_HOST_REGISTER_MAPPED, &dev),
                ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    REQUIRE_OK(aclrtCreateStream(&s));

    /* Registered: the device address is the host address, usable in copies. */
    EXPECT_OK(aclrtHostRegister(g_buf, sizeof g_buf, ACL_HOST_REGISTER_MAPPED, &dev));
    CHECK(dev == (void *)g_buf);
    void *got = NULL;
    EXPECT_OK(aclrtHostGetDevicePointer(g_buf + 100, &got, 0));
    CHECK(got == (void *)(g_buf + 100));
    aclrtPtrAttributes pa;
    EXPECT_OK(aclrtPointerGetAttributes(g_buf + 10, &pa));
    CHECK(pa.location.type == ACL_MEM_LOCATION_TYPE_HOST);
    EXPECT_OK(aclrtPointerGetAttributes(g_other, &pa));
    CHECK(pa.location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED);

    char *d = NULL;
    REQUIRE_OK(aclrtMalloc((void **)&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    memset(g_buf, 0x3C, 64);
    EXPECT_OK(aclrtMemcpyAsync(d, 64, dev, 64, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_OK(aclrtMemsetAsync(dev, 64, 0, 64, s));
    EXPECT_OK(aclrtMemcpyAsync(dev, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(g_buf[0] == 0x3C && g_buf[63] == 0x3C);

    /* aclrtMallocHost memory has a device address too. */
    void *pinned = NULL;
    REQUIRE_OK(aclrtMallocHost(&pinned, 32));
    EXPECT_OK(aclrtHostGetDevicePointer(pinned, &got, 0));
    CHECK(got == pinned);
    /* aclrtHostRegisterV2 takes it (the vendor's zero-copy sample registers it); the first
     * API refuses runtime memory, and device memory is refused by both. */
    EXPECT_OK(aclrtHostRegisterV2(pinned, 32, ACL_HOST_REG_MAPPED));
    EXPECT_CODE(aclrtHostRegisterV2(pinned, 8, ACL_HOST_REG_MAPPED), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtHostGetDevicePointer(pinned, &got, 0));
    CHECK(got == pinned);
    EXPECT_OK(aclrtHostUnregister(pinned));
    EXPECT_CODE(aclrtHostRegisterV2(pinned, 64, ACL_HOST_REG_MAPPED), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtHostRegister(pinned, 32, ACL_HOST_REGISTER_MAPPED, &dev),
                ACL_ERROR_RT_PARAM_INVALID);
    {
        void *on_device = NULL;
        REQUIRE_OK(aclrtMalloc(&on_device, 64, ACL_MEM_MALLOC_HUGE_FIRST));
        EXPECT_CODE(aclrtHostRegisterV2(on_device, 64, ACL_HOST_REG_MAPPED),
                    ACL_ERROR_RT_PARAM_INVALID);
        REQUIRE_OK(aclrtFree(on_device));
    }

    /* Errors. */
    EXPECT_CODE(aclrtHostRegister(NULL, 64, ACL_HOST_REGISTER_MAPPED, &dev),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtHostRegister(g_other, 64, ACL_HOST_REGISTER_MAPPED, NULL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtHostRegister(g_other, 0, ACL_HOST_REGISTER_MAPPED, &dev),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtHostRegister(g_other, 64, ACL_HOST_REGISTER_IOMEMORY, &dev),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtHostRegister(g_other, 64, ACL_HOST_REGISTER_READONLY, &dev),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtHostRegister(g_other, 64, (aclrtHostRegisterType)1, &dev),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtHostRegister(g_buf + 8, 8, ACL_HOST_REGISTER_MAPPED, &dev),
                ACL_ERROR_RT_PARAM_INVALID); /* overlaps */
    EXPECT_CODE(aclrtHostRegister(pinned, 32, ACL_HOST_REGISTER_MAPPED, &dev),
                ACL_ERROR_RT_PARAM_INVALID); /* runtime memory */
    EXPECT_CODE(aclrtHostRegister(d, 32, ACL_HOST_REGISTER_MAPPED, &dev),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtHostGetDevicePointer(NULL, &got, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtHostGetDevicePointer(g_buf, NULL, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtHostGetDevicePointer(g_buf, &got, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtHostGetDevicePointer(g_other, &got, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtHostGetDevicePointer(d, &got, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtHostUnregister(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtHostUnregister(g_buf + 1), ACL_ERROR_RT_PARAM_INVALID);

    /* Unregistered: its device address is gone. */
    EXPECT_OK(aclrtHostUnregister(g_buf));
    EXPECT_CODE(aclrtHostUnregister(g_buf), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtHostGetDevicePointer(g_buf, &got, 0), ACL_ERROR_RT_PARAM_INVALID);

    /* V2: flags. */
    EXPECT_OK(aclrtHostRegisterV2(g_other, sizeof g_other, ACL_HOST_REG_MAPPED));
    EXPECT_OK(aclrtHostGetDevicePointer(g_other + 255, &got, 0));
    EXPECT_OK(aclrtHostUnregister(g_other));
    EXPECT_OK(aclrtHostRegisterV2(g_other, 16, ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED));
    EXPECT_OK(aclrtHostUnregister(g_other));
    EXPECT_CODE(aclrtHostRegisterV2(NULL, 16, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtHostRegisterV2(g_other, 0, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtHostRegisterV2(g_other, 16, ACL_HOST_REG_READONLY),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtHostRegisterV2(g_other, 16, 0x1), ACL_ERROR_RT_PARAM_INVALID);

    /* aclFinalize ends every registration. */
    EXPECT_OK(aclrtHostRegister(g_buf, 64, ACL_HOST_REGISTER_MAPPED, &dev));
    EXPECT_OK(aclrtFreeHost(pinned));
    EXPECT_OK(aclrtFree(d));
    EXPECT_OK(aclrtDestroyStream(s));
    REQUIRE_OK(aclrtResetDevice(0));
    REQUIRE_OK(aclFinalize());
    REQUIRE_OK(aclInit(NULL));
    EXPECT_CODE(aclrtHostGetDevicePointer(g_buf, &got, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtHostRegister(g_buf, 64, ACL_HOST_REGISTER_MAPPED, &dev));
    REQUIRE_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_host_register");
}
