/* Virtual memory through the C ABI: reserve, physical memory, map, a kernel writing through the
 * mapping, copies checked byte for byte, access flags, unmap and the documented refusals. */
#include "check.h"

#define G ((size_t)2 << 20)

typedef struct {
    unsigned int *at;
    unsigned int value;
} fill_args;

/* Host kernel: writes value into the first 1024 words at `at`. */
static aclError fill_kernel(void *args)
{
    fill_args *a = (fill_args *)args;
    for (int i = 0; i < 1024; i++) {
        a->at[i] = a->value + (unsigned int)i;
    }
    return ACL_SUCCESS;
}

static aclrtPhysicalMemProp device_prop(void)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.memAttr = ACL_HBM_MEM_NORMAL;
    return prop;
}

static void map_and_use(void)
{
    aclrtPhysicalMemProp prop = device_prop(), got;
    aclrtDrvMemHandle handle = NULL, retained = NULL;
    aclrtStream s = NULL;
    void *va = NULL;
    size_t granularity = 0, free0 = 0, free1 = 0, total = 0;
    unsigned int back[1024];
    aclrtMemAccessDesc desc;
    aclrtMemLocation loc;
    uint64_t flag = 99;

    REQUIRE_OK(aclrtCreateStream(&s));
    EXPECT_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
                                                &granularity));
    CHECK(granularity == G);
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    REQUIRE_OK(aclrtMallocPhysical(&handle, 4096, &prop, 0));
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free0 - free1 == G);
    REQUIRE_OK(aclrtReserveMemAddress(&va, G, 0, NULL, 0));
    CHECK((uintptr_t)va % G == 0);
    /* Not mapped yet: no copy there. */
    EXPECT_CODE(aclrtMemcpy(back, 4, va, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
    REQUIRE_OK(aclrtMapMem(va, G, 0, handle, 0));

    /* Access flags: read-write for the owning device until set otherwise. */
    loc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    loc.id = 0;
    EXPECT_OK(aclrtMemGetAccess(va, &loc, &flag));
    CHECK(flag == ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
    memset(&desc, 0, sizeof desc);
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
    desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = 0;
    EXPECT_OK(aclrtMemSetAccess(va, G, &desc, 1));
    EXPECT_OK(aclrtMemGetAccess(va, &loc, &flag));
    CHECK(flag == ACL_RT_MEM_ACCESS_FLAGS_READ);
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    EXPECT_OK(aclrtMemSetAccess(va, G, &desc, 1));
    EXPECT_CODE(aclrtMemSetAccess(va, G, NULL, 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemSetAccess(va, G / 2, &desc, 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemGetAccess(va, NULL, &flag), ACL_ERROR_INVALID_PARAM);

    /* A kernel writes through the mapping; a copy reads the words back. */
    fill_args fa = {(unsigned int *)((char *)va + 4096), 1000};
    EXPECT_OK(aclxLaunchHostKernel(s, fill_kernel, &fa, "fill"));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(back, sizeof back, (char *)va + 4096, sizeof back,
                          ACL_MEMCPY_DEVICE_TO_HOST));
    int same = 1;
    for (int i = 0; i < 1024; i++) {
        same &= back[i] == 1000u + (unsigned int)i;
    }
    CHECK(same);
    EXPECT_OK(aclrtMemsetAsync(va, G, 0x5A, 16, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(((unsigned char *)va)[15] == 0x5A && ((unsigned char *)va)[16] == 0);

    /* Retain and properties. */
    EXPECT_OK(aclrtMemRetainAllocationHandle(va, &retained));
    CHECK(retained == handle);
    memset(&got, 0xFF, sizeof got);
    EXPECT_OK(aclrtMemGetAllocationPropertiesFromHandle(handle, &got));
    CHECK(got.memAttr == ACL_HBM_MEM_NORMAL && got.location.type == ACL_MEM_LOCATION_TYPE_DEVICE &&
          got.location.id == 0 && got.handleType == ACL_MEM_HANDLE_TYPE_NONE);
    EXPECT_OK(aclrtFreePhysical(retained));

    /* Refusals. */
    EXPECT_CODE(aclrtReleaseMemAddress(va), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtFree(va), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_CODE(aclrtMapMem(va, G, 0, handle, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMapMem(va, G, 0, handle, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMapMem(NULL, G, 0, handle, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMallocPhysical(NULL, G, &prop, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMallocPhysical(&retained, G, NULL, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtReserveMemAddress(NULL, G, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtUnmapMem((char *)va + 64), ACL_ERROR_RT_PARAM_INVALID);

    /* Free while mapped: the memory stays until the unmap. */
    EXPECT_OK(aclrtFreePhysical(handle));
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free0 - free1 == G);
    EXPECT_OK(aclrtMemcpy(back, 4, (char *)va + 4096, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(back[0] == 1000u);
    EXPECT_OK(aclrtUnmapMem(va));
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free1 == free0);
    EXPECT_CODE(aclrtMemcpy(back, 4, va, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtFreePhysical(handle), ACL_ERROR_RT_INVALID_HANDLE);
    /* Mapped without access: none for every location until set. */
    REQUIRE_OK(aclrtMallocPhysical(&handle, G, &prop, 0));
    EXPECT_OK(aclrtMemMapNoAccess(va, G, 0, handle, 0));
    EXPECT_OK(aclrtMemGetAccess(va, &loc, &flag));
    CHECK(flag == ACL_RT_MEM_ACCESS_FLAGS_NONE);
    EXPECT_OK(aclrtMemSetAccess(va, G, &desc, 1));
    EXPECT_OK(aclrtMemGetAccess(va, &loc, &flag));
    CHECK(flag == ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
    EXPECT_CODE(aclrtMemMapNoAccess(va, G, 0, handle, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtUnmapMem(va));
    EXPECT_OK(aclrtFreePhysical(handle));
    EXPECT_OK(aclrtReleaseMemAddress(va));
    EXPECT_OK(aclrtDestroyStream(s));
}

int main(void)
{
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    map_and_use();
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return finish("test_vmm");
}
