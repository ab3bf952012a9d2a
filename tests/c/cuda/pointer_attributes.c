/* cuPointerGetAttribute(s): device, managed and pinned allocations, registered ranges, and
 * addresses the driver does not know. */
#include <stdint.h>
#include <string.h>

#include "check.h"

int main(void) {
    CUcontext ctx;
    CUdeviceptr dev, managed;
    void *pinned;
    static char pageable[256];
    OK(cuInit(0));
    OK(cuCtxCreate(&ctx, 0, 0));
    OK(cuMemAlloc(&dev, 1000));
    OK(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL));
    OK(cuMemAllocHost(&pinned, 128));

    CUcontext owner = NULL;
    unsigned type = 99;
    CUdeviceptr dptr = 0;
    void *hptr = NULL;
    unsigned char flag = 7;
    int ordinal = -1;
    void *start = NULL;
    size_t size = 0;

    /* Device memory. */
    OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, dev + 10));
    ASSERT(owner == ctx);
    OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dev + 10));
    ASSERT(type == CU_MEMORYTYPE_DEVICE);
    OK(cuPointerGetAttribute(&dptr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, dev + 10));
    ASSERT(dptr == dev + 10);
    EXPECT(cuPointerGetAttribute(&hptr, CU_POINTER_ATTRIBUTE_HOST_POINTER, dev), CUDA_ERROR_INVALID_VALUE);
    OK(cuPointerGetAttribute(&flag, CU_POINTER_ATTRIBUTE_IS_MANAGED, dev));
    ASSERT(flag == 0);
    OK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dev));
    ASSERT(ordinal == 0);
    OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, dev + 999));
    OK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, dev + 999));
    ASSERT(start == (void *)(uintptr_t)dev && size == 1000);
    OK(cuPointerGetAttribute(&flag, CU_POINTER_ATTRIBUTE_MAPPED, dev));
    ASSERT(flag == 1);

    /* Managed memory: device memory with a host address. */
    OK(cuPointerGetAttribute(&flag, CU_POINTER_ATTRIBUTE_IS_MANAGED, managed));
    ASSERT(flag == 1);
    OK(cuPointerGetAttribute(&hptr, CU_POINTER_ATTRIBUTE_HOST_POINTER, managed));
    ASSERT(hptr == (void *)(uintptr_t)managed);
    OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, managed));
    ASSERT(owner == ctx);

    /* Pinned host memory. */
    OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)pinned));
    ASSERT(type == CU_MEMORYTYPE_HOST);
    OK(cuPointerGetAttribute(&hptr, CU_POINTER_ATTRIBUTE_HOST_POINTER, (CUdeviceptr)(uintptr_t)pinned + 4));
    ASSERT(hptr == (char *)pinned + 4);
    OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)(uintptr_t)pinned));
    ASSERT(owner == ctx);
    OK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, (CUdeviceptr)(uintptr_t)pinned));
    ASSERT(size == 128);

    /* A registered range: host memory, its own range, no recorded context. */
    CUdeviceptr reg = (CUdeviceptr)(uintptr_t)pageable;
    OK(cuMemHostRegister(pageable, sizeof pageable, 0));
    OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reg + 16));
    ASSERT(type == CU_MEMORYTYPE_HOST);
    OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, reg + 16));
    OK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, reg + 16));
    ASSERT(start == pageable && size == sizeof pageable);
    OK(cuMemHostUnregister(pageable));

    /* Unknown addresses, attributes and NULLs. */
    EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reg), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerGetAttribute(&type, (CUpointer_attribute)7, dev), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuPointerGetAttribute(&type, (CUpointer_attribute)0, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerGetAttribute(&type, (CUpointer_attribute)99, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dev), CUDA_ERROR_INVALID_VALUE);

    /* Several at once; an unknown address gives NULL values and succeeds. */
    CUpointer_attribute attrs[4] = {CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void *data[4] = {&owner, &type, &flag, &size};
    OK(cuPointerGetAttributes(4, attrs, data, managed + 8));
    ASSERT(owner == ctx && type == CU_MEMORYTYPE_DEVICE && flag == 1 && size == 64);
    OK(cuPointerGetAttributes(4, attrs, data, reg));
    ASSERT(owner == NULL && type == 0 && flag == 0 && size == 0);
    data[1] = NULL;
    EXPECT(cuPointerGetAttributes(4, attrs, data, dev), CUDA_ERROR_INVALID_VALUE);

    OK(cuMemFree(dev));
    EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dev), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(managed));
    OK(cuMemFreeHost(pinned));
    OK(cuCtxDestroy(ctx));
    puts("pointer attributes: ok");
    return 0;
}
