/* Kernels of tests/c/test_kernels.c: a host library loaded through aclrtBinaryLoad*. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_host_kernel.h"

/* The last launch's view, read back by the test through record_view. */
static uint32_t g_blocks;
static size_t g_size;
static unsigned char g_bytes[256];
static atomic_int g_runs;

/* Records numBlocks and the argument bytes. */
ACL_HOST_KERNEL(record)(uint32_t numBlocks, void *args, size_t argsSize)
{
    g_blocks = numBlocks;
    g_size = argsSize;
    memset(g_bytes, 0, sizeof g_bytes);
    if (args != NULL && argsSize <= sizeof g_bytes) memcpy(g_bytes, args, argsSize);
    atomic_fetch_add(&g_runs, 1);
    return ACL_SUCCESS;
}

/* Not a kernel: how the test reads what record saw. */
__attribute__((visibility("default"))) size_t record_view(uint32_t *blocks, unsigned char *bytes)
{
    *blocks = g_blocks;
    memcpy(bytes, g_bytes, sizeof g_bytes);
    return g_size;
}

__attribute__((visibility("default"))) int record_runs(void) { return atomic_load(&g_runs); }

/* args: int32_t *out, int32_t value, placeholder pointer to int32_t[2].
 * Writes value + p[0] + p[1] to *out. */
ACL_HOST_KERNEL(sum_placeholder)(uint32_t numBlocks, void *args, size_t argsSize)
{
    int32_t *out, value, *p;
    (void)numBlocks;
    if (argsSize != sizeof out + sizeof value + sizeof p) return 507001;
    memcpy(&out, args, sizeof out);
    memcpy(&value, (char *)args + sizeof out, sizeof value);
    memcpy(&p, (char *)args + sizeof out + sizeof value, sizeof p);
    *out = value + p[0] + p[1];
    return ACL_SUCCESS;
}

/* args: int32_t *data, uint32_t n. data[i] = i * numBlocks, after a pause. */
ACL_HOST_KERNEL(fill)(uint32_t numBlocks, void *args, size_t argsSize)
{
    int32_t *data;
    uint32_t n;
    if (argsSize != sizeof data + sizeof n) return 507001;
    memcpy(&data, args, sizeof data);
    memcpy(&n, (char *)args + sizeof data, sizeof n);
    usleep(50000);
    for (uint32_t i = 0; i < n; i++) data[i] = (int32_t)(i * numBlocks);
    return ACL_SUCCESS;
}

/* Fails with the code it is given (args: int32_t). */
ACL_HOST_KERNEL(fail_with)(uint32_t numBlocks, void *args, size_t argsSize)
{
    int32_t code;
    (void)numBlocks;
    if (argsSize != sizeof code) return 1;
    memcpy(&code, args, sizeof code);
    return code;
}

/* args: int32_t *p, uint32_t n. Writes n to p[0..n); declares exactly that range. */
ACL_HOST_KERNEL(write_range)(uint32_t numBlocks, void *args, size_t argsSize)
{
    int32_t *p;
    uint32_t n;
    (void)numBlocks;
    if (argsSize != sizeof p + sizeof n) return 507001;
    memcpy(&p, args, sizeof p);
    memcpy(&n, (char *)args + sizeof p, sizeof n);
    usleep(20000);
    for (uint32_t i = 0; i < n; i++) p[i] = (int32_t)n;
    return ACL_SUCCESS;
}

ACL_HOST_KERNEL_ACCESSES(write_range)(const void *args, size_t argsSize, aclxMemAccess *accesses,
                                      size_t capacity)
{
    int32_t *p;
    uint32_t n;
    if (argsSize != sizeof p + sizeof n) return 0;
    memcpy(&p, args, sizeof p);
    memcpy(&n, (const char *)args + sizeof p, sizeof n);
    if (capacity >= 1) {
        accesses[0].ptr = p;
        accesses[0].size = n * sizeof(int32_t);
        accesses[0].mode = ACLX_ACCESS_WRITE;
    }
    return 1;
}

/* A kernel whose access declaration is malformed (a mode bit that means nothing). */
ACL_HOST_KERNEL(bad_declaration)(uint32_t numBlocks, void *args, size_t argsSize)
{
    (void)numBlocks;
    (void)args;
    (void)argsSize;
    atomic_fetch_add(&g_runs, 1);
    return ACL_SUCCESS;
}

ACL_HOST_KERNEL_ACCESSES(bad_declaration)(const void *args, size_t argsSize,
                                          aclxMemAccess *accesses, size_t capacity)
{
    (void)args;
    (void)argsSize;
    if (capacity >= 1) {
        accesses[0].ptr = &g_runs;
        accesses[0].size = sizeof g_runs;
        accesses[0].mode = 4;
    }
    return 1;
}

/* A kernel whose access declaration always asks for one range more than it was given room for:
 * the runtime asks twice at most and refuses the launch. */
ACL_HOST_KERNEL(greedy_declaration)(uint32_t numBlocks, void *args, size_t argsSize)
{
    (void)numBlocks;
    (void)args;
    (void)argsSize;
    atomic_fetch_add(&g_runs, 1);
    return ACL_SUCCESS;
}

ACL_HOST_KERNEL_ACCESSES(greedy_declaration)(const void *args, size_t argsSize,
                                             aclxMemAccess *accesses, size_t capacity)
{
    (void)args;
    (void)argsSize;
    (void)accesses;
    return capacity + 1;
}

/* A kernel whose access declaration claims SIZE_MAX ranges. */
ACL_HOST_KERNEL(huge_declaration)(uint32_t numBlocks, void *args, size_t argsSize)
{
    (void)numBlocks;
    (void)args;
    (void)argsSize;
    atomic_fetch_add(&g_runs, 1);
    return ACL_SUCCESS;
}

ACL_HOST_KERNEL_ACCESSES(huge_declaration)(const void *args, size_t argsSize,
                                           aclxMemAccess *accesses, size_t capacity)
{
    (void)args;
    (void)argsSize;
    (void)accesses;
    (void)capacity;
    return SIZE_MAX;
}

/* record with declared parameters: int64_t, char[3], a pointer, int16_t (packed: 8 + 3 + 8 + 2
 * bytes). */
ACL_HOST_KERNEL(record_params)(uint32_t numBlocks, void *args, size_t argsSize)
{
    return record(numBlocks, args, argsSize);
}
ACL_HOST_KERNEL_PARAMS(record_params, sizeof(int64_t), 3, sizeof(void *), sizeof(int16_t));

/* A kernel declaring no parameters. */
ACL_HOST_KERNEL(no_params)(uint32_t numBlocks, void *args, size_t argsSize)
{
    return record(numBlocks, args, argsSize);
}
ACL_HOST_KERNEL_PARAMS(no_params, 0);

/* args: int32_t *out at offset 0, a pointer at offset 8 to int32_t[2] inside the arguments.
 * Writes p[0] * p[1] to *out and records the arguments. */
ACL_HOST_KERNEL(multiply_placeholder)(uint32_t numBlocks, void *args, size_t argsSize)
{
    int32_t *out, *p;
    if (argsSize < 16) return 507001;
    memcpy(&out, args, sizeof out);
    memcpy(&p, (char *)args + 8, sizeof p);
    *out = p[0] * p[1];
    return record(numBlocks, args, argsSize);
}

/* A device variable: an exported data object of the binary. */
__attribute__((visibility("default"))) int32_t table[4] = {1, 2, 3, 4};

/* Read-only data objects: a constant, and a pointer the loader relocates and then makes
 * read-only (RELRO). */
__attribute__((visibility("default"))) const int32_t constant_table[4] = {5, 6, 7, 8};
__attribute__((visibility("default"))) int32_t *const table_pointer = table;

/* A kernel whose parameter declaration is a 4-byte object, less than one entry: malformed. */
ACL_HOST_KERNEL(short_params)(uint32_t numBlocks, void *args, size_t argsSize)
{
    return record(numBlocks, args, argsSize);
}
__attribute__((visibility("default"))) const uint32_t aclHostKernelParams_short_params = 4;

/* args: int32_t *out. Writes the sum of table to *out. */
ACL_HOST_KERNEL(sum_table)(uint32_t numBlocks, void *args, size_t argsSize)
{
    int32_t *out;
    (void)numBlocks;
    if (argsSize != sizeof out) return 507001;
    memcpy(&out, args, sizeof out);
    *out = table[0] + table[1] + table[2] + table[3];
    return ACL_SUCCESS;
}
