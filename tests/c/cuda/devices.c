/* Devices and the driver version: values of the emulated device and the documented errors. */
#include <string.h>

#include "check.h"

int main(void) {
    int v = 0, n = 0;
    CUdevice d;
    /* No initialisation needed for the version. */
    OK(cuDriverGetVersion(&v));
    ASSERT(v == 12090);
    EXPECT(cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGet(&d, 0), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuDeviceGetAttribute(&n, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_NOT_INITIALIZED);
    OK(cuInit(0));

    OK(cuDeviceGetCount(&n));
    ASSERT(n == 1);
    OK(cuDeviceGet(&d, 0));
    ASSERT(d == 0);
    EXPECT(cuDeviceGet(&d, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGet(&d, -1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);

    char name[64];
    OK(cuDeviceGetName(name, sizeof name, 0));
    ASSERT(strcmp(name, "aclrt emulated device") == 0);
    OK(cuDeviceGetName(name, 6, 0)); /* truncated, NUL-terminated */
    ASSERT(strcmp(name, "aclrt") == 0);
    EXPECT(cuDeviceGetName(name, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetName(NULL, 8, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetName(name, sizeof name, 5), CUDA_ERROR_INVALID_DEVICE);

    size_t total = 0;
    OK(cuDeviceTotalMem(&total, 0)); /* ACLRT_DEVICE_MEMORY=256M in the test script */
    ASSERT(total == 256u << 20);
    EXPECT(cuDeviceTotalMem(&total, 3), CUDA_ERROR_INVALID_DEVICE);

    int a;
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
    ASSERT(a == 8);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0));
    ASSERT(a == 0);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    ASSERT(a == 108);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
    ASSERT(a == 32);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0));
    ASSERT(a == 1024);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0));
    ASSERT(a == 1);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0));
    ASSERT(a == 1);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0));
    ASSERT(a == 1);
    for (int attr = 1; attr < CU_DEVICE_ATTRIBUTE_MAX; attr++)
        OK(cuDeviceGetAttribute(&a, (CUdevice_attribute)attr, 0));
    EXPECT(cuDeviceGetAttribute(&a, (CUdevice_attribute)0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MAX, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1), CUDA_ERROR_INVALID_DEVICE);

    int major = 0, minor = -1;
    OK(cuDeviceComputeCapability(&major, &minor, 0));
    ASSERT(major == 8 && minor == 0);
    CUdevprop prop;
    OK(cuDeviceGetProperties(&prop, 0));
    ASSERT(prop.maxThreadsPerBlock == 1024 && prop.SIMDWidth == 32 && prop.maxThreadsDim[2] == 64);

    CUuuid u1, u2;
    OK(cuDeviceGetUuid(&u1, 0));
    OK(cuDeviceGetUuid_v2(&u2, 0));
    ASSERT(memcmp(u1.bytes, u2.bytes, 16) == 0 && memcmp(u1.bytes, "aclrt-emu", 9) == 0);
    EXPECT(cuDeviceGetUuid(NULL, 0), CUDA_ERROR_INVALID_VALUE);

    char bus[32];
    OK(cuDeviceGetPCIBusId(bus, sizeof bus, 0));
    ASSERT(strcmp(bus, "0000:01:00.0") == 0);
    OK(cuDeviceGetByPCIBusId(&d, bus));
    ASSERT(d == 0);
    OK(cuDeviceGetByPCIBusId(&d, "01:00.0"));
    ASSERT(d == 0);
    EXPECT(cuDeviceGetByPCIBusId(&d, "0000:07:00.0"), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGetByPCIBusId(&d, "bus"), CUDA_ERROR_INVALID_VALUE);
    int peer = -1;
    OK(cuDeviceCanAccessPeer(&peer, 0, 0));
    ASSERT(peer == 0);

    /* LUIDs are not there. */
    EXPECT(cuDeviceGetLuid(name, (unsigned *)&a, 0), CUDA_ERROR_NOT_SUPPORTED);
    puts("devices: ok");
    return 0;
}
