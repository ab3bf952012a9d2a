/* The vendor kernel API over host libraries: load (file, data, created binary), functions and
 * names, argument bytes as packed (raw, appended values, placeholders, updates, handles in the
 * caller's memory), block counts, failure codes, unknown names, what the exception callback
 * learns of a failed kernel, unloading with launches queued.
 * The kernel library is tests/c/kernels/binary_kernels.c, built by the test script and named by
 * ACLRT_TEST_BINARY_KERNELS. */
#include "check.h"

#include <dlfcn.h>
#include <link.h>

#include "acl/acl_host_kernel.h"

#define REQUIRE(cond)                                                                  \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: required: %s\n", __FILE__, __LINE__, #cond);         \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static const char *g_path;
static size_t (*g_view)(uint32_t *, unsigned char *);
static int (*g_runs_of)(void);

static size_t view(uint32_t *blocks, unsigned char *bytes)
{
    return g_view(blocks, bytes);
}

static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    void *data;
    long n;
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc((size_t)n);
    if (data == NULL || fread(data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(data);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return data;
}

static void loading(void)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL, g = NULL;
    aclrtArgsHandle args = NULL;
    char name[16];
    char text_path[] = "/tmp/aclrt_kernels_XXXXXX";
    int fd;

    REQUIRE_OK(aclrtBinaryLoadFromFile(g_path, NULL, &bin));
    CHECK(bin != NULL);
    EXPECT_OK(aclrtBinaryGetFunction(bin, "record", &f));
    CHECK(f != NULL);
    /* The same name gives the same handle. */
    EXPECT_OK(aclrtBinaryGetFunction(bin, "record", &g));
    CHECK(f == g);
    EXPECT_OK(aclrtGetFunctionName(f, sizeof name, name));
    CHECK(strcmp(name, "record") == 0);
    EXPECT_OK(aclrtGetFunctionName(f, 7, name));
    EXPECT_CODE(aclrtGetFunctionName(f, 6, name), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetFunctionName(f, 16, NULL), ACL_ERROR_INVALID_PARAM);

    /* Unknown names. */
    g = NULL;
    EXPECT_CODE(aclrtBinaryGetFunction(bin, "no_such_kernel", &g), ACL_ERROR_RT_SYMBOL_NOT_FOUND);
    CHECK(g == NULL);
    CHECK(strstr(aclGetRecentErrMsg(), "no_such_kernel") != NULL);
    EXPECT_CODE(aclrtBinaryGetFunction(bin, NULL, &g), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtBinaryGetFunction(bin, "record", NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtBinaryGetFunction(NULL, "record", &g), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtKernelArgsInit(f, &args));
    EXPECT_OK(aclrtBinaryUnLoad(bin));
    EXPECT_CODE(aclrtBinaryUnLoad(NULL), ACL_ERROR_INVALID_PARAM);

    /* Stale, garbage and foreign handles are refused, never followed. */
    EXPECT_CODE(aclrtBinaryUnLoad(bin), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtBinaryGetFunction(bin, "record", &g), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtGetFunctionName(f, sizeof name, name), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtKernelArgsFinalize(args), ACL_ERROR_RT_INVALID_HANDLE);
    {
        size_t size = 0;
        EXPECT_CODE(aclrtKernelArgsGetHandleMemSize(f, &size), ACL_ERROR_RT_INVALID_HANDLE);
        EXPECT_CODE(aclrtKernelArgsGetMemSize(f, 4, &size), ACL_ERROR_RT_INVALID_HANDLE);
        EXPECT_CODE(aclrtKernelArgsGetHandleMemSize((aclrtFuncHandle)name, &size),
                    ACL_ERROR_RT_INVALID_HANDLE);
        CHECK(size == 0);
    }
    EXPECT_CODE(aclrtBinaryGetFunction((aclrtBinHandle)name, "record", &g),
                ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtGetFunctionName((aclrtFuncHandle)0x1000, sizeof name, name),
                ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtKernelArgsFinalize((aclrtArgsHandle)name), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtDestroyBinary((aclrtBinary)name), ACL_ERROR_RT_INVALID_HANDLE);

    /* Files that are not host libraries. */
    bin = NULL;
    EXPECT_CODE(aclrtBinaryLoadFromFile("/nonexistent/kernels.so", NULL, &bin),
                ACL_ERROR_INVALID_FILE);
    CHECK(bin == NULL);
    fd = mkstemp(text_path);
    REQUIRE(fd >= 0);
    CHECK(write(fd, ".version 8.0\n", 13) == 13);
    close(fd);
    EXPECT_CODE(aclrtBinaryLoadFromFile(text_path, NULL, &bin), ACL_ERROR_INVALID_FILE);
    unlink(text_path);
    /* Only a regular file is read (a device never ends). */
    EXPECT_CODE(aclrtBinaryLoadFromFile("/dev/zero", NULL, &bin), ACL_ERROR_INVALID_FILE);
    CHECK(strstr(aclGetRecentErrMsg(), "not a regular file") != NULL);
    EXPECT_CODE(aclrtBinaryLoadFromFile(NULL, NULL, &bin), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtBinaryLoadFromFile(g_path, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtBinaryLoadFromData("not a library", 13, NULL, &bin), ACL_ERROR_INVALID_FILE);
    EXPECT_CODE(aclrtBinaryLoadFromData(NULL, 13, NULL, &bin), ACL_ERROR_INVALID_PARAM);
    CHECK(bin == NULL);
    CHECK(aclrtCreateBinary(NULL, 4) == NULL);
}

static void raw_arguments(aclrtStream s)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL, fill = NULL;
    unsigned char args[40], later[40], seen[256];
    unsigned char *dev_args = NULL;
    int32_t *slow = NULL;
    struct {
        int32_t *data;
        uint32_t n;
    } __attribute__((packed)) fill_args;
    uint32_t blocks = 0;

    REQUIRE_OK(aclrtBinaryLoadFromFile(g_path, NULL, &bin));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "record", &f));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "fill", &fill));
    REQUIRE_OK(aclrtMalloc((void **)&dev_args, sizeof args, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&slow, 64 * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < 40; i++) {
        args[i] = (unsigned char)(i + 1);
        later[i] = (unsigned char)(200 - i);
    }
    /* The arguments in device memory, as the vendor's launch takes them. */
    REQUIRE_OK(aclrtMemcpy(dev_args, sizeof args, args, sizeof args, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtLaunchKernel(f, 7, dev_args, sizeof args, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(view(&blocks, seen) == 40);
    CHECK(blocks == 7);
    for (int i = 0; i < 40; i++) CHECK(seen[i] == (unsigned char)(i + 1));

    /* The kernel reads them when it runs: a copy queued before it on the stream is seen. */
    fill_args.data = slow;
    fill_args.n = 64;
    EXPECT_OK(aclrtLaunchKernel(fill, 1, &fill_args, sizeof fill_args, s));
    EXPECT_OK(aclrtMemcpyAsync(dev_args, sizeof later, later, sizeof later,
                               ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_OK(aclrtLaunchKernelV2(f, 2, dev_args, sizeof later, NULL, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(view(&blocks, seen) == 40);
    CHECK(blocks == 2);
    for (int i = 0; i < 40; i++) CHECK(seen[i] == (unsigned char)(200 - i));

    /* No arguments, through V2 with no configuration. */
    EXPECT_OK(aclrtLaunchKernelV2(f, 3, NULL, 0, NULL, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(view(&blocks, seen) == 0);
    CHECK(blocks == 3);

    EXPECT_CODE(aclrtLaunchKernel(NULL, 1, args, 4, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtLaunchKernel(f, 1, NULL, 4, s), ACL_ERROR_INVALID_PARAM);
    /* A range overrunning its allocation. */
    EXPECT_CODE(aclrtLaunchKernel(f, 1, dev_args + 8, sizeof args, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtFree(dev_args));
    EXPECT_OK(aclrtFree(slow));
    EXPECT_OK(aclrtBinaryUnLoad(bin));
}

static void args_handles(aclrtStream s)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle rec = NULL, sum = NULL, fill = NULL;
    aclrtArgsHandle a = NULL, b = NULL;
    aclrtParamHandle p64 = NULL, p3 = NULL, ph = NULL, p16 = NULL, out_p = NULL, v_p = NULL;
    aclrtParamHandle sum_ph = NULL, fp = NULL, np = NULL;
    uint64_t x = 0x1122334455667788ULL, y = 0x0102030405060708ULL;
    unsigned char three[3] = {0xA1, 0xA2, 0xA3}, seen[256];
    uint16_t h = 0xBEEF;
    int32_t *buffer = NULL, *dev = NULL, *slow = NULL, result = 0, value = 100;
    uint32_t blocks = 0, n = 256;
    size_t size = 0;
    void *slot = NULL;

    REQUIRE_OK(aclrtBinaryLoadFromFile(g_path, NULL, &bin));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "record", &rec));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "sum_placeholder", &sum));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "fill", &fill));

    /* Every kind of parameter, packed back to back. */
    REQUIRE_OK(aclrtKernelArgsInit(rec, &a));
    EXPECT_OK(aclrtKernelArgsAppend(a, &x, sizeof x, &p64));
    EXPECT_OK(aclrtKernelArgsAppend(a, three, sizeof three, &p3));
    EXPECT_OK(aclrtKernelArgsAppendPlaceHolder(a, &ph));
    EXPECT_OK(aclrtKernelArgsAppend(a, &h, sizeof h, &p16));
    EXPECT_OK(aclrtKernelArgsGetPlaceHolderBuffer(a, ph, 8, (void **)&buffer));
    CHECK(buffer != NULL && buffer[0] == 0 && buffer[1] == 0);
    EXPECT_OK(aclrtKernelArgsParaUpdate(a, p64, &y, sizeof y));
    EXPECT_CODE(aclrtKernelArgsParaUpdate(a, p64, &y, 4), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtKernelArgsParaUpdate(a, ph, &y, sizeof y), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtKernelArgsParaUpdate(a, (aclrtParamHandle)99, &y, sizeof y),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtKernelArgsGetPlaceHolderBuffer(a, p3, 8, (void **)&buffer),
                ACL_ERROR_INVALID_PARAM);
    /* A placeholder buffer is at most the 64 KiB an args handle holds. */
    EXPECT_CODE(aclrtKernelArgsGetPlaceHolderBuffer(a, ph, 65537, (void **)&slot),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtKernelArgsGetPlaceHolderBuffer(a, ph, (size_t)1 << 45, (void **)&slot),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtKernelArgsGetPlaceHolderBuffer(a, ph, SIZE_MAX, (void **)&slot),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "65536") != NULL);
    EXPECT_CODE(aclrtKernelArgsAppend(a, &x, 0, &p64), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtLaunchKernelWithConfig(rec, 5, s, NULL, a, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(view(&blocks, seen) == 8 + 3 + sizeof(void *) + 2);
    CHECK(blocks == 5);
    CHECK(memcmp(seen, &y, 8) == 0);
    CHECK(memcmp(seen + 8, three, 3) == 0);
    memcpy(&slot, seen + 11, sizeof slot);
    /* The slot points to the launch's copy of the buffer, not the buffer. */
    CHECK(slot != NULL && slot != (void *)buffer);
    CHECK(memcmp(seen + 11 + sizeof slot, &h, 2) == 0);
    /* An args handle belongs to its function. */
    EXPECT_CODE(aclrtLaunchKernelWithConfig(sum, 1, s, NULL, a, NULL), ACL_ERROR_INVALID_PARAM);
    /* Finalized: nothing more is appended, but it launches and updates as before. */
    EXPECT_OK(aclrtKernelArgsFinalize(a));
    EXPECT_CODE(aclrtKernelArgsAppend(a, &x, sizeof x, &p64), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtKernelArgsAppendPlaceHolder(a, &ph), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtKernelArgsParaUpdate(a, p64, &x, sizeof x));
    EXPECT_OK(aclrtLaunchKernelWithConfig(rec, 6, s, NULL, a, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(view(&blocks, seen) == 8 + 3 + sizeof(void *) + 2);
    CHECK(blocks == 6);
    CHECK(memcmp(seen, &x, 8) == 0);

    /* Placeholder data is what the buffer held at launch. */
    REQUIRE_OK(aclrtMalloc((void **)&dev, sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&slow, n * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtKernelArgsInit(fill, &b));
    EXPECT_OK(aclrtKernelArgsAppend(b, &slow, sizeof slow, &fp));
    EXPECT_OK(aclrtKernelArgsAppend(b, &n, sizeof n, &np));
    REQUIRE_OK(aclrtKernelArgsInit(sum, &a));
    EXPECT_OK(aclrtKernelArgsAppend(a, &dev, sizeof dev, &out_p));
    EXPECT_OK(aclrtKernelArgsAppend(a, &value, sizeof value, &v_p));
    EXPECT_OK(aclrtKernelArgsAppendPlaceHolder(a, &sum_ph));
    EXPECT_OK(aclrtKernelArgsGetPlaceHolderBuffer(a, sum_ph, 2 * sizeof(int32_t), (void **)&buffer));
    buffer[0] = 20;
    buffer[1] = 3;
    EXPECT_OK(aclrtKernelArgsFinalize(a));
    EXPECT_OK(aclrtKernelArgsFinalize(b));
    /* fill pauses first, so the sum runs after the buffer and value changed below. */
    EXPECT_OK(aclrtLaunchKernelWithConfig(fill, 2, s, NULL, b, NULL));
    EXPECT_OK(aclrtLaunchKernelWithConfig(sum, 1, s, NULL, a, NULL));
    buffer[0] = 1000;
    value = 5000;
    EXPECT_OK(aclrtKernelArgsParaUpdate(a, v_p, &value, sizeof value));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(&result, sizeof result, dev, sizeof result, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT_CODE(result, 123);
    EXPECT_OK(aclrtMemcpy(&result, sizeof result, slow + 255, sizeof result,
                          ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT_CODE(result, 510);

    /* A handle in the caller's memory. */
    EXPECT_OK(aclrtKernelArgsGetHandleMemSize(rec, &size));
    CHECK(size > 0);
    {
        uint64_t *mem = calloc(1, size + 8);
        size_t actual = 0;
        int32_t v = -7;
        EXPECT_OK(aclrtKernelArgsGetMemSize(rec, 4, &actual));
        CHECK(actual == 4);
        EXPECT_CODE(aclrtKernelArgsInitByUserMem(rec, (char *)mem + 1, NULL, 0),
                    ACL_ERROR_INVALID_PARAM);
        EXPECT_OK(aclrtKernelArgsInitByUserMem(rec, mem, NULL, 0));
        EXPECT_OK(aclrtKernelArgsAppend(mem, &v, sizeof v, &p64));
        EXPECT_OK(aclrtKernelArgsFinalize(mem));
        EXPECT_OK(aclrtLaunchKernelWithConfig(rec, 1, s, NULL, mem, NULL));
        EXPECT_OK(aclrtSynchronizeStream(s));
        CHECK(view(&blocks, seen) == 4);
        CHECK(memcmp(seen, &v, 4) == 0);
        free(mem);
    }
    EXPECT_CODE(aclrtKernelArgsInit(rec, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtKernelArgsFinalize(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtFree(dev));
    EXPECT_OK(aclrtFree(slow));
    EXPECT_OK(aclrtBinaryUnLoad(bin));
}

static void failures(aclrtStream s)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL, rec = NULL;
    int32_t code = 507018;
    unsigned char seen[256];
    uint32_t blocks = 0;
    int one = 1, runs;

    REQUIRE_OK(aclrtBinaryLoadFromFile(g_path, NULL, &bin));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "fail_with", &f));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "record", &rec));
    EXPECT_OK(aclrtLaunchKernel(f, 1, &code, sizeof code, s));
    /* Later work still runs (continue on failure); the synchronise reports the code once. */
    EXPECT_OK(aclrtLaunchKernel(rec, 9, &one, sizeof one, s));
    EXPECT_CODE(aclrtSynchronizeStream(s), 507018);
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(view(&blocks, seen) == sizeof one);
    CHECK(blocks == 9);

    /* A malformed access declaration refuses the launch; nothing runs. */
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "bad_declaration", &f));
    runs = g_runs_of();
    EXPECT_CODE(aclrtLaunchKernel(f, 1, NULL, 0, s), ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "0x4") != NULL);
    /* A declaration that keeps asking for more room, or for an absurd amount, is refused too. */
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "greedy_declaration", &f));
    EXPECT_CODE(aclrtLaunchKernel(f, 1, NULL, 0, s), ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "after being given room") != NULL);
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "huge_declaration", &f));
    EXPECT_CODE(aclrtLaunchKernel(f, 1, NULL, 0, s), ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "4096") != NULL);
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(g_runs_of() == runs);
    EXPECT_OK(aclrtBinaryUnLoad(bin));
}

/* What the exception callback learned about the last failed task. */
static aclrtFuncHandle g_info_func;
static void *g_info_args;
static uint32_t g_info_len;
static unsigned char g_info_bytes[16];
static aclError g_func_ret, g_args_ret, g_null_ret;
static aclrtExceptionInfo *g_info;

static void on_exception(aclrtExceptionInfo *info)
{
    g_info = info;
    g_info_func = NULL;
    g_info_args = NULL;
    g_info_len = 0;
    g_func_ret = aclrtGetFuncHandleFromExceptionInfo(info, &g_info_func);
    g_args_ret = aclrtGetArgsFromExceptionInfo(info, &g_info_args, &g_info_len);
    g_null_ret = aclrtGetArgsFromExceptionInfo(info, NULL, &g_info_len);
    /* The arguments stay readable while the callback runs. */
    if (g_args_ret == ACL_SUCCESS && g_info_len <= sizeof g_info_bytes) {
        memcpy(g_info_bytes, g_info_args, g_info_len);
    }
}

static aclError failing_host_kernel(void *arg)
{
    (void)arg;
    return 507011;
}

static void exception_infos(aclrtStream s)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL, got = NULL;
    aclrtArgsHandle a = NULL;
    aclrtParamHandle p = NULL;
    int32_t code = 507018, code2 = 507035;
    void *args = NULL;
    uint32_t len = 0;

    REQUIRE_OK(aclrtBinaryLoadFromFile(g_path, NULL, &bin));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "fail_with", &f));
    REQUIRE_OK(aclrtSetExceptionInfoCallback(on_exception));

    /* Raw arguments: the info names the function and the launch's argsData. */
    EXPECT_OK(aclrtLaunchKernel(f, 1, &code, sizeof code, s));
    EXPECT_CODE(aclrtSynchronizeStream(s), 507018);
    EXPECT_CODE(g_func_ret, ACL_SUCCESS);
    CHECK(g_info_func == f);
    EXPECT_CODE(g_args_ret, ACL_SUCCESS);
    CHECK(g_info_args == (void *)&code);
    CHECK(g_info_len == sizeof code);
    EXPECT_CODE(g_null_ret, ACL_ERROR_INVALID_PARAM);

    /* An args handle: the runtime's copy of its bytes, readable in the callback. */
    REQUIRE_OK(aclrtKernelArgsInit(f, &a));
    EXPECT_OK(aclrtKernelArgsAppend(a, &code2, sizeof code2, &p));
    EXPECT_OK(aclrtLaunchKernelWithConfig(f, 1, s, NULL, a, NULL));
    EXPECT_CODE(aclrtSynchronizeStream(s), 507035);
    CHECK(g_info_func == f);
    EXPECT_CODE(g_args_ret, ACL_SUCCESS);
    CHECK(g_info_len == sizeof code2);
    CHECK(memcmp(g_info_bytes, &code2, sizeof code2) == 0);

    /* Another task's info names no kernel. */
    EXPECT_OK(aclxLaunchHostKernel(s, failing_host_kernel, NULL, "host"));
    EXPECT_CODE(aclrtSynchronizeStream(s), 507011);
    EXPECT_CODE(g_func_ret, ACL_ERROR_RT_PARAM_INVALID);
    CHECK(g_info_func == NULL);
    EXPECT_CODE(g_args_ret, (aclError)0xFFFFFFFF);

    /* Outside the callback the info is stale; NULL outputs are refused. */
    EXPECT_CODE(aclrtGetFuncHandleFromExceptionInfo(g_info, &got), (aclError)0xFFFFFFFF);
    EXPECT_CODE(aclrtGetArgsFromExceptionInfo(NULL, &args, &len), (aclError)0xFFFFFFFF);
    EXPECT_CODE(aclrtGetFuncHandleFromExceptionInfo(g_info, NULL), ACL_ERROR_INVALID_PARAM);
    CHECK(got == NULL);

    EXPECT_OK(aclrtSetExceptionInfoCallback(NULL));
    EXPECT_OK(aclrtBinaryUnLoad(bin));
}

static void unload_while_queued(aclrtStream s)
{
    size_t len = 0;
    void *image = read_file(g_path, &len);
    aclrtBinary binary = NULL;
    aclrtBinHandle from_data = NULL, created = NULL;
    aclrtFuncHandle fill1 = NULL, fill2 = NULL;
    int32_t *d1 = NULL, *d2 = NULL, host[64];
    struct {
        int32_t *data;
        uint32_t n;
    } __attribute__((packed)) a1, a2;

    REQUIRE(image != NULL);
    REQUIRE_OK(aclrtBinaryLoadFromData(image, len, NULL, &from_data));
    binary = aclrtCreateBinary(image, len);
    REQUIRE(binary != NULL);
    free(image);
    REQUIRE_OK(aclrtBinaryLoad(binary, &created));
    EXPECT_OK(aclrtDestroyBinary(binary));
    REQUIRE_OK(aclrtBinaryGetFunction(from_data, "fill", &fill1));
    REQUIRE_OK(aclrtBinaryGetFunction(created, "fill", &fill2));
    REQUIRE_OK(aclrtMalloc((void **)&d1, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&d2, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST));
    a1.data = d1;
    a1.n = 64;
    a2.data = d2;
    a2.n = 64;
    EXPECT_OK(aclrtLaunchKernel(fill1, 3, &a1, sizeof a1, s));
    EXPECT_OK(aclrtLaunchKernel(fill2, 4, &a2, sizeof a2, s));
    /* Both libraries are unloaded while their kernels are still queued. */
    EXPECT_OK(aclrtBinaryUnLoad(from_data));
    EXPECT_OK(aclrtBinaryUnLoad(created));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(host, sizeof host, d1, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 64; i++) CHECK(host[i] == 3 * i);
    EXPECT_OK(aclrtMemcpy(host, sizeof host, d2, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 64; i++) CHECK(host[i] == 4 * i);
    EXPECT_OK(aclrtFree(d1));
    EXPECT_OK(aclrtFree(d2));
}

/* A binary unloaded while copies of one of its variables are queued: the copies still run on
 * its data (they hold the library open until they ran), and the unload closes it after. */
static void unload_while_copy_queued(aclrtStream s)
{
    size_t len = 0, size = 0;
    void *image = read_file(g_path, &len);
    aclrtBinHandle bin = NULL;
    int32_t *var = NULL, *pinned = NULL;
    gate_t gate = GATE_INIT;

    REQUIRE(image != NULL);
    /* From memory: nothing but the runtime opens this copy of the library. */
    REQUIRE_OK(aclrtBinaryLoadFromData(image, len, NULL, &bin));
    free(image);
    REQUIRE_OK(aclrtBinaryGetGlobal(bin, "table", (void **)&var, &size));
    REQUIRE(size == 4 * sizeof(int32_t));
    REQUIRE_OK(aclrtMallocHost((void **)&pinned, 8 * sizeof(int32_t)));
    memset(pinned, 0, 8 * sizeof(int32_t));
    pinned[0] = 42;
    REQUIRE_OK(aclxLaunchHostKernel(s, gate_kernel, &gate, "gate"));
    EXPECT_OK(aclrtMemcpyToSymbolAsync(var, pinned, sizeof(int32_t), 0, ACL_MEMCPY_DEFAULT, s));
    EXPECT_OK(aclrtMemcpyFromSymbolAsync(pinned + 4, 4 * sizeof(int32_t), var, 4 * sizeof(int32_t), 0,
                                         ACL_MEMCPY_DEFAULT, s));
    EXPECT_OK(aclrtBinaryUnLoad(bin));
    EXPECT_CODE(aclrtGetSymbolSize(var, &size), ACL_ERROR_RT_INVALID_SYMBOL);
    gate_open(&gate);
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(pinned[4] == 42 && pinned[5] == 2 && pinned[6] == 3 && pinned[7] == 4);
    EXPECT_OK(aclrtFreeHost(pinned));
}

/* aclrtLaunchKernelWithHostArgs: the host bytes as they were at the launch, placeholder slots
 * pointing into the runtime's copy; aclrtLaunchKernelWithArgsArray: each args[i] packed by the
 * kernel's parameter declaration. */
static void host_args_and_arrays(aclrtStream s)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL, rec = NULL, none = NULL, mul = NULL;
    unsigned char host[24], seen[256];
    int32_t *out = NULL, result = 0;
    uint32_t blocks = 0;
    aclrtPlaceHolderInfo ph[2];
    void *slot = NULL;
    int64_t a = 0x0102030405060708LL;
    char b[3] = {'x', 'y', 'z'};
    void *c = (void *)(uintptr_t)0xABCDEF;
    int16_t d = -2;
    void *array[4] = {&a, b, &c, &d};

    REQUIRE_OK(aclrtBinaryLoadFromFile(g_path, NULL, &bin));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "multiply_placeholder", &mul));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "record", &rec));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "record_params", &f));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "no_params", &none));
    REQUIRE_OK(aclrtMalloc((void **)&out, sizeof *out, ACL_MEM_MALLOC_HUGE_FIRST));

    /* out at 0, placeholder slot at 8 pointing to the two int32 at 16. */
    memset(host, 0, sizeof host);
    memcpy(host, &out, sizeof out);
    {
        int32_t v[2] = {6, 7};
        memcpy(host + 16, v, sizeof v);
    }
    ph[0].addrOffset = 8;
    ph[0].dataOffset = 16;
    EXPECT_OK(aclrtLaunchKernelWithHostArgs(mul, 4, s, NULL, host, sizeof host, ph, 1));
    /* Taken at the launch: later changes to the host bytes are not seen. */
    memset(host + 16, 0, 8);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(&result, sizeof result, out, sizeof result, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(result == 42);
    CHECK(view(&blocks, seen) == sizeof host);
    CHECK(blocks == 4);
    CHECK(memcmp(seen, &out, sizeof out) == 0);
    memcpy(&slot, seen + 8, sizeof slot);
    CHECK(slot != NULL && slot != (void *)(host + 16));
    /* No placeholders: the bytes exactly as given. */
    for (int i = 0; i < 24; i++) host[i] = (unsigned char)(3 * i + 1);
    EXPECT_OK(aclrtLaunchKernelWithHostArgs(rec, 2, s, NULL, host, sizeof host, NULL, 0));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(view(&blocks, seen) == sizeof host);
    CHECK(blocks == 2);
    CHECK(memcmp(seen, host, sizeof host) == 0);
    /* Errors, each before anything is queued. */
    EXPECT_CODE(aclrtLaunchKernelWithHostArgs(NULL, 1, s, NULL, host, 8, NULL, 0),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtLaunchKernelWithHostArgs(rec, 1, s, NULL, NULL, 8, NULL, 0),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtLaunchKernelWithHostArgs((aclrtFuncHandle)host, 1, s, NULL, host, 8, NULL, 0),
                ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtLaunchKernelWithHostArgs(rec, 1, s, NULL, host, 0, NULL, 0),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtLaunchKernelWithHostArgs(rec, 1, s, NULL, host, 24, NULL, 1),
                ACL_ERROR_RT_PARAM_INVALID);
    ph[1].addrOffset = 20; /* no room for a pointer before byte 24 */
    ph[1].dataOffset = 0;
    EXPECT_CODE(aclrtLaunchKernelWithHostArgs(rec, 1, s, NULL, host, 24, ph, 2),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "placeHolderArray[1].addrOffset 20") != NULL);
    ph[1].addrOffset = 0;
    ph[1].dataOffset = 24;
    EXPECT_CODE(aclrtLaunchKernelWithHostArgs(rec, 1, s, NULL, host, 24, ph, 2),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "dataOffset 24") != NULL);
    /* No blocks: refused after the arguments' checks, by the runtime's code. */
    EXPECT_CODE(aclrtLaunchKernelWithHostArgs(rec, 0, s, NULL, host, 24, NULL, 0),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "numBlocks is 0") != NULL);
    EXPECT_CODE(aclrtLaunchKernelWithHostArgs(rec, 0, s, NULL, host, 0, NULL, 0),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "argsSize is 0") != NULL);

    /* The args array, packed by the declaration: 8 + 3 + 8 + 2 bytes. */
    EXPECT_OK(aclrtLaunchKernelWithArgsArray(f, 5, s, NULL, array));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(view(&blocks, seen) == 8 + 3 + sizeof(void *) + 2);
    CHECK(blocks == 5);
    CHECK(memcmp(seen, &a, 8) == 0);
    CHECK(memcmp(seen + 8, b, 3) == 0);
    CHECK(memcmp(seen + 11, &c, sizeof c) == 0);
    CHECK(memcmp(seen + 11 + sizeof c, &d, 2) == 0);
    /* A kernel declaring no parameters takes a NULL array. */
    EXPECT_OK(aclrtLaunchKernelWithArgsArray(none, 1, s, NULL, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(view(&blocks, seen) == 0);
    CHECK(blocks == 1);
    EXPECT_CODE(aclrtLaunchKernelWithArgsArray(NULL, 1, s, NULL, array), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtLaunchKernelWithArgsArray(f, 0, s, NULL, array), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtLaunchKernelWithArgsArray((void *)host, 1, s, NULL, array),
                ACL_ERROR_RT_INVALID_HANDLE);
    /* No declaration: no parameter information. */
    EXPECT_CODE(aclrtLaunchKernelWithArgsArray(rec, 1, s, NULL, array), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "no parameter information") != NULL);
    EXPECT_CODE(aclrtLaunchKernelWithArgsArray(f, 1, s, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    array[2] = NULL;
    EXPECT_CODE(aclrtLaunchKernelWithArgsArray(f, 1, s, NULL, array), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "args[2] is NULL") != NULL);
    EXPECT_OK(aclrtFree(out));
    EXPECT_OK(aclrtBinaryUnLoad(bin));
}

/* What a function handle tells: its binary, entry address, attributes, declared parameters. */
static void function_queries(void)
{
    aclrtBinHandle bin = NULL, other = NULL, got = NULL;
    aclrtFuncHandle f = NULL, rec = NULL, none = NULL, short_decl = NULL;
    void *aic = NULL, *aiv = (void *)1, *lib;
    int64_t value = -1;
    size_t count = 99, offset = 99, size = 99;

    REQUIRE_OK(aclrtBinaryLoadFromFile(g_path, NULL, &bin));
    REQUIRE_OK(aclrtBinaryLoadFromFile(g_path, NULL, &other));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "record_params", &f));
    REQUIRE_OK(aclrtBinaryGetFunction(other, "record", &rec));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "no_params", &none));

    EXPECT_OK(aclrtFunctionGetBinary(f, &got));
    CHECK(got == bin);
    EXPECT_OK(aclrtFunctionGetBinary(rec, &got));
    CHECK(got == other);
    EXPECT_CODE(aclrtFunctionGetBinary(f, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtFunctionGetBinary(NULL, &got), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtFunctionGetBinary(bin, &got), ACL_ERROR_RT_INVALID_HANDLE);

    /* The entry address is the exported kernel's. */
    lib = dlopen(g_path, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(lib != NULL);
    EXPECT_OK(aclrtGetFunctionAddr(f, &aic, &aiv));
    CHECK(aic == dlsym(lib, "record_params"));
    CHECK(aiv == NULL);
    dlclose(lib);
    EXPECT_CODE(aclrtGetFunctionAddr(f, NULL, &aiv), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetFunctionAddr(f, &aic, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetFunctionAddr(NULL, &aic, &aiv), ACL_ERROR_INVALID_PARAM);
    /* The code size is the ELF size of the kernel's symbol. */
    {
        size_t aic_size = 0, aiv_size = 99;
        Dl_info info;
        const ElfW(Sym) *sym = NULL;
        EXPECT_OK(aclrtGetFunctionSize(f, &aic_size, &aiv_size));
        CHECK(dladdr1(aic, &info, (void **)&sym, RTLD_DL_SYMENT) != 0 && sym != NULL);
        CHECK(sym != NULL && aic_size == sym->st_size && aic_size > 0);
        CHECK(aiv_size == 0);
        EXPECT_CODE(aclrtGetFunctionSize(f, NULL, &aiv_size), ACL_ERROR_INVALID_PARAM);
        EXPECT_CODE(aclrtGetFunctionSize(f, &aic_size, NULL), ACL_ERROR_INVALID_PARAM);
        EXPECT_CODE(aclrtGetFunctionSize(NULL, &aic_size, &aiv_size), ACL_ERROR_INVALID_PARAM);
    }

    EXPECT_OK(aclrtGetFunctionAttribute(f, ACL_FUNC_ATTR_KERNEL_TYPE, &value));
    CHECK(value == ACL_KERNEL_TYPE_AICORE);
    value = -1;
    EXPECT_OK(aclrtGetFunctionAttribute(f, ACL_FUNC_ATTR_KERNEL_SCHED_MODE, &value));
    CHECK(value == 0);
    EXPECT_CODE(aclrtGetFunctionAttribute(f, ACL_FUNC_ATTR_KERNEL_RATIO, &value),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtGetFunctionAttribute(f, (aclrtFuncAttribute)0, &value),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetFunctionAttribute(f, (aclrtFuncAttribute)4, &value),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetFunctionAttribute(f, ACL_FUNC_ATTR_KERNEL_TYPE, NULL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetFunctionAttribute(NULL, ACL_FUNC_ATTR_KERNEL_TYPE, &value),
                ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclrtFunctionGetParamCount(f, &count));
    CHECK(count == 4);
    EXPECT_OK(aclrtFunctionGetParamCount(none, &count));
    CHECK(count == 0);
    EXPECT_CODE(aclrtFunctionGetParamCount(rec, &count), ACL_ERROR_RT_PARAM_INVALID);
    /* A declaration of 4 bytes, less than one entry: refused, nothing past it read. */
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "short_params", &short_decl));
    EXPECT_CODE(aclrtFunctionGetParamCount(short_decl, &count), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "is 4 bytes, not a whole number of 8-byte entries") != NULL);
    EXPECT_CODE(aclrtFunctionGetParamCount(f, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtFunctionGetParamCount(NULL, &count), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtFunctionGetParamInfo(f, 0, &offset, &size));
    CHECK(offset == 0 && size == 8);
    EXPECT_OK(aclrtFunctionGetParamInfo(f, 2, &offset, &size));
    CHECK(offset == 11 && size == sizeof(void *));
    size = 99;
    EXPECT_OK(aclrtFunctionGetParamInfo(f, 3, &offset, NULL));
    CHECK(offset == 11 + sizeof(void *) && size == 99);
    EXPECT_OK(aclrtFunctionGetParamInfo(f, 1, NULL, &size));
    CHECK(size == 3);
    EXPECT_CODE(aclrtFunctionGetParamInfo(f, 4, &offset, &size), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "[0, 4)") != NULL);
    EXPECT_CODE(aclrtFunctionGetParamInfo(none, 0, &offset, &size), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtFunctionGetParamInfo(rec, 0, &offset, &size), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtFunctionGetParamInfo(f, 0, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtFunctionGetParamInfo(NULL, 0, &offset, &size), ACL_ERROR_INVALID_PARAM);

    /* Stale after the unload. */
    EXPECT_OK(aclrtBinaryUnLoad(bin));
    EXPECT_CODE(aclrtFunctionGetBinary(f, &got), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtGetFunctionAddr(f, &aic, &aiv), ACL_ERROR_RT_INVALID_HANDLE);
    {
        size_t a = 0, b = 0;
        EXPECT_CODE(aclrtGetFunctionSize(f, &a, &b), ACL_ERROR_RT_INVALID_HANDLE);
    }
    EXPECT_CODE(aclrtGetFunctionAttribute(f, ACL_FUNC_ATTR_KERNEL_TYPE, &value),
                ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtFunctionGetParamCount(f, &count), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtFunctionGetParamInfo(f, 0, &offset, &size), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_OK(aclrtBinaryUnLoad(other));
}

/* Device variables: exported data objects of a loaded binary, addressed by their address. */
static void symbols(aclrtStream s)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle sum = NULL;
    void *lib, *dev = NULL;
    int32_t *table, *out = NULL, *pinned = NULL, got[4] = {0}, result = 0;
    int32_t *constant, **pointer, *in_table = NULL;
    const char *msg;
    int32_t values[2] = {10, 20};
    size_t size = 0;

    lib = dlopen(g_path, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(lib != NULL);
    table = (int32_t *)dlsym(lib, "table");
    REQUIRE(table != NULL);
    /* Not a binary yet: the library is loaded by the test only. */
    EXPECT_CODE(aclrtGetSymbolSize(table, &size), ACL_ERROR_RT_INVALID_SYMBOL);
    REQUIRE_OK(aclrtBinaryLoadFromFile(g_path, NULL, &bin));
    REQUIRE_OK(aclrtBinaryGetFunction(bin, "sum_table", &sum));
    EXPECT_OK(aclrtGetSymbolAddress(table, &dev));
    CHECK(dev == (void *)table);
    EXPECT_OK(aclrtGetSymbolSize(table, &size));
    CHECK(size == 4 * sizeof(int32_t));

    EXPECT_OK(aclrtMemcpyFromSymbol(got, sizeof got, table, sizeof got, 0, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(got[0] == 1 && got[1] == 2 && got[2] == 3 && got[3] == 4);
    EXPECT_OK(aclrtMemcpyToSymbol(table, values, sizeof values, 2 * sizeof(int32_t),
                                  ACL_MEMCPY_DEFAULT));
    CHECK(table[2] == 10 && table[3] == 20);
    /* A kernel reads the variable as written. */
    REQUIRE_OK(aclrtMalloc((void **)&out, sizeof *out, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtLaunchKernel(sum, 1, &out, sizeof out, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(&result, sizeof result, out, sizeof result, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(result == 1 + 2 + 10 + 20);
    /* Asynchronous, in stream order: from page-locked memory queued, from pageable memory
     * done when the call returns. */
    REQUIRE_OK(aclrtMallocHost((void **)&pinned, 4 * sizeof(int32_t)));
    pinned[0] = 7;
    EXPECT_OK(aclrtMemcpyToSymbolAsync(table, pinned, sizeof(int32_t), 0, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_OK(aclrtMemcpyFromSymbolAsync(pinned + 1, 3 * sizeof(int32_t), table, sizeof(int32_t), 0,
                                         ACL_MEMCPY_DEFAULT, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(pinned[1] == 7);
    values[0] = 99;
    EXPECT_OK(aclrtMemcpyToSymbolAsync(table, values, sizeof(int32_t), sizeof(int32_t),
                                       ACL_MEMCPY_DEFAULT, s));
    CHECK(table[1] == 99);
    memset(got, 0, sizeof got);
    EXPECT_OK(aclrtMemcpyFromSymbolAsync(got, sizeof got, table, sizeof got, 0,
                                         ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK(got[0] == 7 && got[1] == 99 && got[2] == 10 && got[3] == 20);

    /* Errors, in the vendor's order: a count of 0 succeeds before anything is checked. */
    EXPECT_OK(aclrtMemcpyFromSymbol(NULL, 0, NULL, 0, 0, 99));
    EXPECT_OK(aclrtMemcpyToSymbolAsync(NULL, NULL, 0, 0, 99, s));
    EXPECT_CODE(aclrtGetSymbolAddress(NULL, &dev), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetSymbolAddress(table, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetSymbolSize(table, NULL), ACL_ERROR_INVALID_PARAM);
    /* Inside the object, an object of the test program, a function of the binary. */
    EXPECT_CODE(aclrtGetSymbolSize(table + 1, &size), ACL_ERROR_RT_INVALID_SYMBOL);
    EXPECT_CODE(aclrtGetSymbolSize(&g_checks, &size), ACL_ERROR_RT_INVALID_SYMBOL);
    EXPECT_CODE(aclrtGetSymbolSize(dlsym(lib, "sum_table"), &size), ACL_ERROR_RT_INVALID_SYMBOL);
    CHECK(strstr(aclGetRecentErrMsg(), "not the address of an exported data object") != NULL);
    EXPECT_CODE(aclrtMemcpyFromSymbol(got, sizeof got, NULL, 4, 0, ACL_MEMCPY_DEFAULT),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyFromSymbol(NULL, sizeof got, table, 4, 0, ACL_MEMCPY_DEFAULT),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyFromSymbol(got, 4, table, 8, 0, ACL_MEMCPY_DEFAULT),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyFromSymbol(got, sizeof got, table, 4, 0, ACL_MEMCPY_HOST_TO_DEVICE),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyToSymbol(table, values, 4, 0, ACL_MEMCPY_DEVICE_TO_HOST),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyToSymbol(table, NULL, 4, 0, ACL_MEMCPY_DEFAULT), ACL_ERROR_INVALID_PARAM);
    /* offset + count past the variable's 16 bytes, or overflowing. */
    EXPECT_CODE(aclrtMemcpyToSymbol(table, values, 8, 12, ACL_MEMCPY_DEFAULT),
                ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "symbol's 16 bytes") != NULL);
    EXPECT_CODE(aclrtMemcpyFromSymbolAsync(got, sizeof got, table, 4, SIZE_MAX, ACL_MEMCPY_DEFAULT, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyToSymbol(&g_checks, values, 4, 0, ACL_MEMCPY_DEFAULT),
                ACL_ERROR_RT_INVALID_SYMBOL);
    CHECK(table[0] == 7);
    /* A check of the copy itself names the symbol call: 16 bytes into a 4-byte allocation. */
    EXPECT_CODE(aclrtMemcpyFromSymbol(out, sizeof got, table, sizeof got, 0, ACL_MEMCPY_DEFAULT),
                ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "aclrtMemcpyFromSymbol: copy destination") != NULL);
    EXPECT_CODE(aclrtMemcpyFromSymbolAsync(out, sizeof got, table, sizeof got, 0, ACL_MEMCPY_DEFAULT, s),
                ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "aclrtMemcpyFromSymbolAsync: copy destination") != NULL);

    /* Read-only objects (a constant, a pointer made read-only after relocation): variables
     * that are read, never written. */
    constant = (int32_t *)dlsym(lib, "constant_table");
    pointer = (int32_t **)dlsym(lib, "table_pointer");
    REQUIRE(constant != NULL && pointer != NULL);
    EXPECT_OK(aclrtGetSymbolSize(constant, &size));
    CHECK(size == 4 * sizeof(int32_t));
    EXPECT_OK(aclrtMemcpyFromSymbol(got, sizeof got, constant, sizeof got, 0, ACL_MEMCPY_DEFAULT));
    CHECK(got[0] == 5 && got[1] == 6 && got[2] == 7 && got[3] == 8);
    EXPECT_CODE(aclrtMemcpyToSymbol(constant, values, sizeof(int32_t), 0, ACL_MEMCPY_DEFAULT),
                ACL_ERROR_RT_INVALID_SYMBOL);
    msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strncmp(msg, "aclrtMemcpyToSymbol: ", 21) == 0);
    CHECK(msg != NULL && strstr(msg, "read-only data object") != NULL);
    EXPECT_CODE(aclrtMemcpyToSymbolAsync(constant, values, sizeof(int32_t), sizeof(int32_t),
                                         ACL_MEMCPY_DEFAULT, s),
                ACL_ERROR_RT_INVALID_SYMBOL);
    EXPECT_CODE(aclrtMemcpyToSymbol(pointer, &in_table, sizeof in_table, 0, ACL_MEMCPY_DEFAULT),
                ACL_ERROR_RT_INVALID_SYMBOL);
    EXPECT_OK(aclrtMemcpyFromSymbol(&in_table, sizeof in_table, pointer, sizeof in_table, 0,
                                    ACL_MEMCPY_DEFAULT));
    CHECK(in_table == table);
    CHECK(constant[0] == 5 && constant[1] == 6);

    /* aclrtBinaryGetGlobal: the same variable by name. */
    dev = NULL;
    size = 0;
    EXPECT_OK(aclrtBinaryGetGlobal(bin, "table", &dev, &size));
    CHECK(dev == (void *)table && size == 4 * sizeof(int32_t));
    size = 0;
    EXPECT_OK(aclrtBinaryGetGlobal(bin, "table", NULL, &size));
    CHECK(size == 16);
    dev = NULL;
    EXPECT_OK(aclrtBinaryGetGlobal(bin, "table", &dev, NULL));
    CHECK(dev == (void *)table);
    EXPECT_CODE(aclrtBinaryGetGlobal(bin, "no_such_global", &dev, &size), ACL_ERROR_RT_SYMBOL_NOT_FOUND);
    /* A function is no global variable. */
    EXPECT_CODE(aclrtBinaryGetGlobal(bin, "sum_table", &dev, &size), ACL_ERROR_RT_SYMBOL_NOT_FOUND);
    EXPECT_CODE(aclrtBinaryGetGlobal(NULL, NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtBinaryGetGlobal(bin, NULL, &dev, &size), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtBinaryGetGlobal(bin, "table", NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtBinaryGetGlobal((aclrtBinHandle)table, "table", &dev, &size),
                ACL_ERROR_RT_INVALID_HANDLE);

    /* Unloaded: no longer a device variable (the test's own handle keeps it mapped). */
    EXPECT_OK(aclrtBinaryUnLoad(bin));
    EXPECT_CODE(aclrtGetSymbolAddress(table, &dev), ACL_ERROR_RT_INVALID_SYMBOL);
    EXPECT_CODE(aclrtBinaryGetGlobal(bin, "table", &dev, &size), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtMemcpyFromSymbol(got, sizeof got, table, 4, 0, ACL_MEMCPY_DEFAULT),
                ACL_ERROR_RT_INVALID_SYMBOL);
    EXPECT_OK(aclrtFree(out));
    EXPECT_OK(aclrtFreeHost(pinned));
    dlclose(lib);
}

int main(void)
{
    aclrtStream s = NULL;
    void *lib;

    g_path = getenv("ACLRT_TEST_BINARY_KERNELS");
    if (g_path == NULL) {
        fprintf(stderr, "test_kernels: ACLRT_TEST_BINARY_KERNELS names no kernel library\n");
        return 1;
    }
    /* The same library the runtime loads by path: its handle is shared, so the test can read
     * what a kernel recorded. */
    lib = dlopen(g_path, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(lib != NULL);
    g_view = (size_t (*)(uint32_t *, unsigned char *))dlsym(lib, "record_view");
    REQUIRE(g_view != NULL);
    g_runs_of = (int (*)(void))dlsym(lib, "record_runs");
    REQUIRE(g_runs_of != NULL);

    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    loading();
    raw_arguments(s);
    args_handles(s);
    failures(s);
    exception_infos(s);
    unload_while_queued(s);
    unload_while_copy_queued(s);
    host_args_and_arrays(s);
    function_queries();
    symbols(s);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    expect_no_live_objects();
    dlclose(lib);
    return finish("test_kernels");
}
