/*
 * The kernel library of the kernel_launch example: the "binary" the program loads with
 * aclrtBinaryLoadFromFile. Each kernel is an exported host function of the signature
 * acl/acl_host_kernel.h declares.
 */
#include <string.h>

#include "acl/acl_host_kernel.h"

/* Arguments, packed as the program appends them: float *x, float *y, float *z, uint32_t n. */
ACL_HOST_KERNEL(add_custom)(uint32_t numBlocks, void *args, size_t argsSize)
{
    float *x, *y, *z;
    uint32_t n;
    const char *p = args;
    if (argsSize != 3 * sizeof(float *) + sizeof n || numBlocks == 0) return 507001;
    memcpy(&x, p, sizeof x);
    memcpy(&y, p + sizeof x, sizeof y);
    memcpy(&z, p + 2 * sizeof x, sizeof z);
    memcpy(&n, p + 3 * sizeof x, sizeof n);
    /* The blocks split the elements as a device would; here they run one after another. */
    uint32_t per_block = (n + numBlocks - 1) / numBlocks;
    for (uint32_t b = 0; b < numBlocks; b++) {
        for (uint32_t i = b * per_block; i < n && i < (b + 1) * per_block; i++) z[i] = x[i] + y[i];
    }
    return ACL_SUCCESS;
}
