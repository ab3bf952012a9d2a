/* Stream and thread names in traces: aclxSetStreamName names a stream's track, and a host
 * thread's track carries the OS name pthread_setname_np gave it. The trace is written by
 * aclFinalize to the file ACLRT_TRACE names, and read back here. */
#include "check.h"

static int g_stop;

static void *report_loop(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "reporter");
    while (!__atomic_load_n(&g_stop, __ATOMIC_SEQ_CST)) {
        (void)aclrtProcessReport(20);
    }
    return NULL;
}

static void note(void *arg)
{
    __atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long n;
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text) {
        text[n] = '\0';
    }
    fclose(f);
    return text;
}

/* The trace has a track-name record with exactly this name. */
static int has_track_name(const char *json, const char *name)
{
    char needle[256];
    snprintf(needle, sizeof(needle), "\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}", name);
    return strstr(json, needle) != NULL;
}

int main(void)
{
    char path[128];
    char want[128];
    aclrtStream load = NULL, store = NULL, gone = NULL;
    int32_t load_id = -1, store_id = -1, default_id = -1;
    pthread_t reporter;
    int kernel_ms = 1, callbacks = 0;
    char *json;

    snprintf(path, sizeof(path), "/tmp/aclrt-trace-names-%d.json", (int)getpid());
    remove(path);
    setenv("ACLRT_TRACE", path, 1);
    pthread_setname_np(pthread_self(), "submitter");

    EXPECT_CODE(aclxSetStreamName(NULL, "early"), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&load));
    REQUIRE_OK(aclrtCreateStream(&store));
    REQUIRE_OK(aclrtCreateStream(&gone));
    REQUIRE_OK(aclrtStreamGetId(load, &load_id));
    REQUIRE_OK(aclrtStreamGetId(store, &store_id));
    REQUIRE_OK(aclrtStreamGetId(NULL, &default_id));

    /* Validation: a NULL name, a destroyed stream. */
    EXPECT_CODE(aclxSetStreamName(load, NULL), ACL_ERROR_INVALID_PARAM);
    REQUIRE_OK(aclrtDestroyStream(gone));
    EXPECT_CODE(aclxSetStreamName(gone, "gone"), ACL_ERROR_RT_INVALID_HANDLE);

    EXPECT_OK(aclxSetStreamName(load, "first name"));
    EXPECT_OK(aclxSetStreamName(load, "load"));   /* the last name holds */
    EXPECT_OK(aclxSetStreamName(store, "store"));
    EXPECT_OK(aclxSetStreamName(NULL, "main \"queue\""));

    CHECK(pthread_create(&reporter, NULL, report_loop, NULL) == 0);
    EXPECT_OK(aclrtSubscribeReport((uint64_t)reporter, store));
    EXPECT_OK(aclxLaunchHostKernel(load, sleep_kernel, &kernel_ms, "fill"));
    EXPECT_OK(aclxLaunchHostKernel(NULL, sleep_kernel, &kernel_ms, "tick"));
    EXPECT_OK(aclrtLaunchCallback(note, &callbacks, ACL_CALLBACK_BLOCK, store));
    EXPECT_OK(aclrtSynchronizeDevice());
    CHECK(callbacks == 1);
    EXPECT_OK(aclrtUnSubscribeReport((uint64_t)reporter, store));
    __atomic_store_n(&g_stop, 1, __ATOMIC_SEQ_CST);
    CHECK(pthread_join(reporter, NULL) == 0);

    EXPECT_OK(aclrtDestroyStream(load));
    EXPECT_OK(aclrtDestroyStream(store));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());

    json = read_file(path);
    CHECK(json != NULL);
    if (json) {
        snprintf(want, sizeof(want), "load (stream %d)", load_id);
        CHECK(has_track_name(json, want));
        snprintf(want, sizeof(want), "store (stream %d)", store_id);
        CHECK(has_track_name(json, want));
        snprintf(want, sizeof(want), "main \\\"queue\\\" (stream %d)", default_id);
        CHECK(has_track_name(json, want));
        CHECK(strstr(json, "first name") == NULL);
        /* Host threads by their OS names, with the thread id beside. */
        snprintf(want, sizeof(want), "submitter (%u)", os_tid());
        CHECK(has_track_name(json, want));
        CHECK(strstr(json, "\"args\":{\"name\":\"reporter (") != NULL);
        if (g_failures) {
            fprintf(stderr, "trace %s:\n%.2000s\n", path, json);
        }
        free(json);
    }
    remove(path);
    return finish("test_trace_names");
}
