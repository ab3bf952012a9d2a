/* Custom allocators bound to streams: descriptors, registration (a copy of the descriptor, the
 * last one wins), lookup by stream, unregistration, with and without aclInit, and every error
 * code. The runtime never calls the functions: no operator or model executor allocates here. */
#include "check.h"

static int g_calls;

static void *my_alloc(aclrtAllocator allocator, size_t size)
{
    (void)allocator;
    (void)size;
    g_calls++;
    return NULL;
}

static void *my_alloc2(aclrtAllocator allocator, size_t size)
{
    (void)allocator;
    (void)size;
    g_calls++;
    return NULL;
}

static void my_free(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    (void)allocator;
    (void)block;
    g_calls++;
}

static void *my_advise(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
    (void)allocator;
    (void)size;
    (void)addr;
    g_calls++;
    return NULL;
}

static void *my_addr(aclrtAllocatorBlock block)
{
    g_calls++;
    return block;
}

static void allocators(aclrtStream stream)
{
    static int object, other;
    aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
    CHECK(desc != NULL);

    /* Setters: NULL descriptor or value. */
    EXPECT_CODE(aclrtAllocatorSetObjToDesc(NULL, &object), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorSetObjToDesc(desc, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorSetAllocFuncToDesc(desc, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorSetFreeFuncToDesc(desc, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorSetAllocAdviseFuncToDesc(desc, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, NULL), ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "aclrtAllocatorSetGetAddrFromBlockFuncToDesc") != NULL);

    /* Registration needs the object and the allocate, free and block-address functions. */
    EXPECT_CODE(aclrtAllocatorRegister(NULL, desc), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorRegister(stream, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorRegister(stream, desc), ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "allocatorDesc->obj") != NULL);
    EXPECT_OK(aclrtAllocatorSetObjToDesc(desc, &object));
    EXPECT_CODE(aclrtAllocatorRegister(stream, desc), ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "allocatorDesc->allocFunc") != NULL);
    EXPECT_OK(aclrtAllocatorSetAllocFuncToDesc(desc, my_alloc));
    EXPECT_CODE(aclrtAllocatorRegister(stream, desc), ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "allocatorDesc->freeFunc") != NULL);
    EXPECT_OK(aclrtAllocatorSetFreeFuncToDesc(desc, my_free));
    EXPECT_CODE(aclrtAllocatorRegister(stream, desc), ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "allocatorDesc->getAddrFromBlockFunc") != NULL);
    EXPECT_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, my_addr));
    EXPECT_OK(aclrtAllocatorRegister(stream, desc)); /* the advise function is optional */

    /* Lookup: the descriptor and the functions as they were at registration. */
    EXPECT_OK(aclrtAllocatorSetAllocFuncToDesc(desc, my_alloc2));
    EXPECT_OK(aclrtAllocatorSetAllocAdviseFuncToDesc(desc, my_advise));
    aclrtAllocatorDesc got = NULL;
    aclrtAllocator obj = NULL;
    aclrtAllocatorAllocFunc alloc_fn = NULL;
    aclrtAllocatorFreeFunc free_fn = NULL;
    aclrtAllocatorAllocAdviseFunc advise_fn = my_advise;
    aclrtAllocatorGetAddrFromBlockFunc addr_fn = NULL;
    EXPECT_OK(aclrtAllocatorGetByStream(stream, &got, &obj, &alloc_fn, &free_fn, &advise_fn,
                                        &addr_fn));
    CHECK(got == desc && obj == &object);
    CHECK(alloc_fn == my_alloc && free_fn == my_free && advise_fn == NULL && addr_fn == my_addr);
    /* Only the descriptor is required. */
    got = NULL;
    EXPECT_OK(aclrtAllocatorGetByStream(stream, &got, NULL, NULL, NULL, NULL, NULL));
    CHECK(got == desc);
    EXPECT_CODE(aclrtAllocatorGetByStream(stream, NULL, &obj, NULL, NULL, NULL, NULL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorGetByStream(NULL, &got, NULL, NULL, NULL, NULL, NULL),
                ACL_ERROR_INVALID_PARAM);

    /* Registering again replaces; the copy now has the later functions. */
    EXPECT_OK(aclrtAllocatorSetObjToDesc(desc, &other));
    EXPECT_OK(aclrtAllocatorRegister(stream, desc));
    EXPECT_OK(aclrtAllocatorGetByStream(stream, &got, &obj, &alloc_fn, NULL, &advise_fn, NULL));
    CHECK(obj == &other && alloc_fn == my_alloc2 && advise_fn == my_advise);

    /* Destroying the descriptor leaves the registration's copy. */
    EXPECT_OK(aclrtAllocatorDestroyDesc(desc));
    EXPECT_OK(aclrtAllocatorGetByStream(stream, &got, &obj, NULL, NULL, NULL, NULL));
    CHECK(got == desc && obj == &other);
    EXPECT_CODE(aclrtAllocatorDestroyDesc(desc), ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "not a live aclrtAllocatorDesc") != NULL);
    EXPECT_CODE(aclrtAllocatorDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorSetFreeFuncToDesc(desc, my_free), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorRegister(stream, desc), ACL_ERROR_INVALID_PARAM);

    /* Unregister: twice, or a stream never registered, succeeds; then lookup fails. */
    EXPECT_OK(aclrtAllocatorUnregister(stream));
    EXPECT_OK(aclrtAllocatorUnregister(stream));
    EXPECT_CODE(aclrtAllocatorUnregister(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtAllocatorGetByStream(stream, &got, NULL, NULL, NULL, NULL, NULL),
                ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "not registered") != NULL);

    /* The runtime called none of them. */
    CHECK(g_calls == 0);
}

int main(void)
{
    /* Descriptors and registrations need no aclInit, as the vendor's. */
    allocators((aclrtStream)(uintptr_t)0x5100000000000042ull);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    REQUIRE_OK(aclrtCreateStream(&s));
    allocators(s);
    /* Work on a stream with a registered allocator runs as before, without calling it. */
    aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
    static int object;
    EXPECT_OK(aclrtAllocatorSetObjToDesc(desc, &object));
    EXPECT_OK(aclrtAllocatorSetAllocFuncToDesc(desc, my_alloc));
    EXPECT_OK(aclrtAllocatorSetFreeFuncToDesc(desc, my_free));
    EXPECT_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, my_addr));
    EXPECT_OK(aclrtAllocatorRegister(s, desc));
    void *dev = NULL;
    char in[16] = "allocator bytes", out[16] = {0};
    REQUIRE_OK(aclrtMalloc(&dev, sizeof in, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMemcpyAsync(dev, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_OK(aclrtMemcpyAsync(out, sizeof out, dev, sizeof in, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(memcmp(in, out, sizeof in) == 0);
    CHECK(g_calls == 0);
    EXPECT_OK(aclrtAllocatorUnregister(s));
    EXPECT_OK(aclrtAllocatorDestroyDesc(desc));
    EXPECT_OK(aclrtFree(dev));
    EXPECT_OK(aclrtDestroyStream(s));
    REQUIRE_OK(aclrtResetDevice(0));
    REQUIRE_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_allocator");
}
