/*
 * Loading a kernel binary and launching it through the vendor kernel API: the binary is the
 * host library built from add.c (see CMakeLists.txt), loaded with aclrtBinaryLoadFromFile; the
 * arguments are packed with aclrtKernelArgs* and the kernel runs on a stream with
 * aclrtLaunchKernelWithConfig; then once more with argument bytes copied to device memory,
 * through aclrtLaunchKernel.
 *
 * Build: cmake -S . -B build -DCMAKE_PREFIX_PATH=<install prefix> && cmake --build build
 * Run:   build/kernel_launch build/libadd_kernels.so
 */
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"

#define CHECK_ACL(call)                                                                   \
    do {                                                                                  \
        aclError ret_ = (call);                                                           \
        if (ret_ != ACL_SUCCESS) {                                                        \
            const char *msg_ = aclGetRecentErrMsg();                                      \
            fprintf(stderr, "%s failed: %d (%s)\n", #call, ret_, msg_ ? msg_ : "-");     \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

enum { N = 1024, BLOCKS = 8 };

int main(int argc, char **argv)
{
    const char *binary = argc > 1 ? argv[1] : "libadd_kernels.so";
    size_t bytes = N * sizeof(float);
    float *hx = malloc(bytes), *hy = malloc(bytes), *hz = malloc(bytes);
    float *x = NULL, *y = NULL, *z = NULL;
    uint32_t n = N;
    aclrtStream stream = NULL;
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle add = NULL;
    aclrtArgsHandle args = NULL;
    aclrtParamHandle param = NULL;

    for (int i = 0; i < N; i++) {
        hx[i] = (float)i;
        hy[i] = 2.0f * (float)i;
    }
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclrtMalloc((void **)&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void **)&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void **)&z, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMemcpy(x, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ACL(aclrtMemcpy(y, bytes, hy, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    CHECK_ACL(aclrtBinaryLoadFromFile(binary, NULL, &bin));
    CHECK_ACL(aclrtBinaryGetFunction(bin, "add_custom", &add));

    /* Arguments through an args handle. */
    CHECK_ACL(aclrtKernelArgsInit(add, &args));
    CHECK_ACL(aclrtKernelArgsAppend(args, &x, sizeof x, &param));
    CHECK_ACL(aclrtKernelArgsAppend(args, &y, sizeof y, &param));
    CHECK_ACL(aclrtKernelArgsAppend(args, &z, sizeof z, &param));
    CHECK_ACL(aclrtKernelArgsAppend(args, &n, sizeof n, &param));
    CHECK_ACL(aclrtKernelArgsFinalize(args));
    CHECK_ACL(aclrtLaunchKernelWithConfig(add, BLOCKS, stream, NULL, args, NULL));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    CHECK_ACL(aclrtMemcpy(hz, bytes, z, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++) {
        if (hz[i] != 3.0f * (float)i) {
            fprintf(stderr, "z[%d] = %f, expected %f\n", i, hz[i], 3.0f * (float)i);
            return 1;
        }
    }

    /* The same kernel from argument bytes in device memory, into y: y = x + y. */
    struct {
        float *x, *y, *z;
        uint32_t n;
    } __attribute__((packed)) raw = {x, y, y, N};
    void *dev_args = NULL;
    CHECK_ACL(aclrtMalloc(&dev_args, sizeof raw, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMemcpyAsync(dev_args, sizeof raw, &raw, sizeof raw, ACL_MEMCPY_HOST_TO_DEVICE,
                               stream));
    CHECK_ACL(aclrtLaunchKernel(add, BLOCKS, dev_args, sizeof raw, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    CHECK_ACL(aclrtFree(dev_args));
    /* Unloading after the work ran (it would also be safe with the launch still queued). */
    CHECK_ACL(aclrtBinaryUnLoad(bin));
    CHECK_ACL(aclrtMemcpy(hz, bytes, y, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++) {
        if (hz[i] != 3.0f * (float)i) {
            fprintf(stderr, "y[%d] = %f, expected %f\n", i, hz[i], 3.0f * (float)i);
            return 1;
        }
    }

    CHECK_ACL(aclrtFree(x));
    CHECK_ACL(aclrtFree(y));
    CHECK_ACL(aclrtFree(z));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    free(hx);
    free(hy);
    free(hz);
    printf("kernel_launch: %d elements added in %d blocks, twice\n", N, BLOCKS);
    return 0;
}
