/* Memory shared between processes through the C ABI: a physical allocation exported to a
 * shareable handle and an aclrtMalloc allocation exported by key, each imported by a child
 * process (this program run again with a role argument) that checks the parent's bytes and
 * writes its own, which the parent then checks. */
#include "check.h"

#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

#define G ((size_t)2 << 20)
#define KEY_SIZE 1000000

static unsigned char pattern(size_t i, unsigned char seed)
{
    return (unsigned char)(i * 31u + seed);
}

/* Starts this program as `role`; its standard input reads from *to. */
static pid_t spawn_child(const char *self, const char *role, int *to)
{
    int fds[2];
    pid_t pid;
    posix_spawn_file_actions_t fa;
    char *argv[] = {(char *)self, (char *)role, NULL};

    if (pipe(fds) != 0) {
        perror("pipe");
        exit(1);
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    if (posix_spawn(&pid, self, &fa, NULL, argv, environ) != 0) {
        perror("posix_spawn");
        exit(1);
    }
    posix_spawn_file_actions_destroy(&fa);
    close(fds[0]);
    *to = fds[1];
    return pid;
}

static int child_status(pid_t pid)
{
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

/* Child: imports the shareable handle on stdin, checks bytes 4096.. of the parent, writes
 * bytes 8192.. of its own. */
static int child_physical(void)
{
    unsigned long long shareable = 0;
    aclrtDrvMemHandle handle = NULL;
    void *va = NULL;
    static unsigned char buf[4096];
    int same = 1;

    if (scanf("%llu", &shareable) != 1) {
        return 2;
    }
    REQUIRE_OK(aclrtMemImportFromShareableHandle(shareable, 0, &handle));
    REQUIRE_OK(aclrtReserveMemAddress(&va, G, 0, NULL, 0));
    REQUIRE_OK(aclrtMapMem(va, G, 0, handle, 0));
    EXPECT_OK(aclrtMemcpy(buf, sizeof buf, (char *)va + 4096, sizeof buf, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < sizeof buf; i++) {
        same &= buf[i] == pattern(i, 1);
    }
    CHECK(same);
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = pattern(i, 2);
    }
    EXPECT_OK(aclrtMemcpy((char *)va + 8192, sizeof buf, buf, sizeof buf, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtUnmapMem(va));
    EXPECT_OK(aclrtFreePhysical(handle));
    EXPECT_OK(aclrtReleaseMemAddress(va));
    return g_failures != 0;
}

/* Child: imports the key on stdin, checks the parent's KEY_SIZE bytes, writes 100 of its own. */
static int child_key(void)
{
    char key[128] = {0};
    void *dev = NULL;
    static unsigned char buf[KEY_SIZE];
    int same = 1;

    if (scanf("%127s", key) != 1) {
        return 2;
    }
    REQUIRE_OK(aclrtIpcMemImportByKey(&dev, key, 0));
    EXPECT_OK(aclrtMemcpy(buf, sizeof buf, dev, sizeof buf, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < sizeof buf; i++) {
        same &= buf[i] == pattern(i, 3);
    }
    CHECK(same);
    EXPECT_OK(aclrtMemset(dev, 100, 0xEE, 100));
    EXPECT_OK(aclrtIpcMemClose(key));
    EXPECT_CODE(aclrtMemset(dev, 100, 0xEE, 100), ACL_ERROR_INVALID_PARAM);
    return g_failures != 0;
}

static void physical_shared(const char *self)
{
    aclrtPhysicalMemProp prop;
    aclrtDrvMemHandle handle = NULL;
    uint64_t shareable = 0, v2 = 0;
    void *va = NULL;
    static unsigned char buf[4096];
    int to = -1, same = 1;
    pid_t child;
    int32_t pid;
    char line[32];

    memset(&prop, 0, sizeof prop);
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.memAttr = ACL_HBM_MEM_NORMAL;
    REQUIRE_OK(aclrtMallocPhysical(&handle, G, &prop, 0));
    REQUIRE_OK(aclrtReserveMemAddress(&va, G, 0, NULL, 0));
    REQUIRE_OK(aclrtMapMem(va, G, 0, handle, 0));
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = pattern(i, 1);
    }
    EXPECT_OK(aclrtMemcpy((char *)va + 4096, sizeof buf, buf, sizeof buf, ACL_MEMCPY_HOST_TO_DEVICE));

    EXPECT_CODE(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 0, NULL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemExportToShareableHandleV2(handle, 0, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &v2),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    REQUIRE_OK(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareable));
    EXPECT_CODE(aclrtMemSetPidToShareableHandle(shareable, NULL, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemImportFromShareableHandle(shareable, 0, NULL), ACL_ERROR_INVALID_PARAM);

    child = spawn_child(self, "physical", &to);
    pid = (int32_t)child;
    EXPECT_OK(aclrtMemSetPidToShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1));
    snprintf(line, sizeof line, "%llu\n", (unsigned long long)shareable);
    CHECK(write(to, line, strlen(line)) == (ssize_t)strlen(line));
    close(to);
    CHECK(child_status(child) == 0);
    EXPECT_OK(aclrtMemcpy(buf, sizeof buf, (char *)va + 8192, sizeof buf, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < sizeof buf; i++) {
        same &= buf[i] == pattern(i, 2);
    }
    CHECK(same);
    EXPECT_OK(aclrtUnmapMem(va));
    EXPECT_OK(aclrtFreePhysical(handle));
    EXPECT_OK(aclrtReleaseMemAddress(va));
}

static void key_shared(const char *self)
{
    static unsigned char buf[KEY_SIZE];
    void *dev = NULL;
    char key[65];
    int to = -1, same = 1;
    pid_t child;
    int32_t pid;

    REQUIRE_OK(aclrtMalloc(&dev, KEY_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = pattern(i, 3);
    }
    EXPECT_OK(aclrtMemcpy(dev, KEY_SIZE, buf, KEY_SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_CODE(aclrtIpcMemGetExportKey(NULL, KEY_SIZE, key, sizeof key, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtIpcMemGetExportKey(dev, KEY_SIZE, NULL, sizeof key, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtIpcMemGetExportKey(dev, KEY_SIZE, key, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
    REQUIRE_OK(aclrtIpcMemGetExportKey(dev, KEY_SIZE, key, sizeof key, 0));
    CHECK(strlen(key) > 0 && strlen(key) < sizeof key);
    EXPECT_CODE(aclrtIpcMemSetImportPid(NULL, &pid, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtIpcMemClose(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtIpcMemImportByKey(NULL, key, 0), ACL_ERROR_INVALID_PARAM);

    child = spawn_child(self, "key", &to);
    pid = (int32_t)child;
    EXPECT_OK(aclrtIpcMemSetImportPid(key, &pid, 1));
    CHECK(write(to, key, strlen(key)) == (ssize_t)strlen(key));
    CHECK(write(to, "\n", 1) == 1);
    close(to);
    CHECK(child_status(child) == 0);
    EXPECT_OK(aclrtMemcpy(buf, 200, dev, 200, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < 200; i++) {
        same &= buf[i] == (i < 100 ? 0xEE : pattern(i, 3));
    }
    CHECK(same);
    EXPECT_OK(aclrtIpcMemClose(key));
    EXPECT_CODE(aclrtIpcMemClose(key), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_OK(aclrtFree(dev));
}

int main(int argc, char **argv)
{
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    if (argc > 1) {
        int rc = strcmp(argv[1], "physical") == 0 ? child_physical() : child_key();
        aclFinalize();
        return rc;
    }
    physical_shared("/proc/self/exe");
    key_shared("/proc/self/exe");
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    return finish("test_ipc_mem");
}
