/* Host kernels for the module tests: built as a shared library and loaded with cuModuleLoad. */
#include <string.h>

#include "aclrt/cuda.h"

/* data[i] *= factor for i < n, over the whole grid. */
ACLRTX_CU_KERNEL(scale, sizeof(CUdeviceptr), sizeof(float), sizeof(unsigned))
{
    float *data = *(float **)kernelParams[0];
    float factor = *(float *)kernelParams[1];
    unsigned n = *(unsigned *)kernelParams[2];
    unsigned threads = launch->gridDim[0] * launch->blockDim[0];
    for (unsigned t = 0; t < threads; t++)
        for (unsigned i = t; i < n; i += threads) data[i] *= factor;
    return CUDA_SUCCESS;
}

/* Writes the launch shape and the shared memory size to out[0..8). */
ACLRTX_CU_KERNEL(shape, sizeof(CUdeviceptr))
{
    unsigned *out = *(unsigned **)kernelParams[0];
    for (int i = 0; i < 3; i++) {
        out[i] = launch->gridDim[i];
        out[3 + i] = launch->blockDim[i];
    }
    out[6] = launch->sharedMemBytes;
    out[7] = launch->sharedMem != NULL && ((unsigned char *)launch->sharedMem)[0] == 0;
    return CUDA_SUCCESS;
}

/* A kernel without arguments that faults. */
CUresult ACLRTX_CU_EXPORT faulty(void **kernelParams, const aclrtxCuLaunch *launch)
{
    (void)kernelParams;
    (void)launch;
    return CUDA_ERROR_ILLEGAL_ADDRESS;
}

/* A module global: 16 ints. */
ACLRTX_CU_EXPORT int table[16];

/* out[i] = table[i]. */
ACLRTX_CU_KERNEL(read_table, sizeof(CUdeviceptr))
{
    int *out = *(int **)kernelParams[0];
    memcpy(out, table, sizeof table);
    return CUDA_SUCCESS;
}
