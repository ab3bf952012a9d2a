/* Host callbacks through the C ABI: a pthread report thread, subscription rules, BLOCK and
 * NO_BLOCK ordering, thread identity and user data, timeouts, host functions, and the rule
 * that callbacks must not block on the runtime. */
#include "check.h"

#include <stdatomic.h>

/* Shared with the report thread: atomics, not volatile. */
static atomic_int g_stop;
static atomic_int g_subscribed;
static atomic_int g_report_errors;
static pthread_t g_report_thread;

static void *report_loop(void *arg)
{
    (void)arg;
    /* Polling before the main thread subscribed us would be refused (not subscribed). */
    while (!atomic_load(&g_subscribed)) {
        sleep_ms(1);
    }
    while (!atomic_load(&g_stop)) {
        aclError r = aclrtProcessReport(20);
        if (r != ACL_SUCCESS && r != ACL_ERROR_RT_REPORT_TIMEOUT) {
            fprintf(stderr, "aclrtProcessReport returned %d\n", r);
            atomic_fetch_add(&g_report_errors, 1);
        }
    }
    return NULL;
}

struct record {
    pthread_mutex_t lock;
    int seq[64];
    pthread_t thread[64];
    void *data[64];
    int n;
};

static struct record g_rec = {PTHREAD_MUTEX_INITIALIZER, {0}, {0}, {0}, 0};

static void note(void *user_data)
{
    pthread_mutex_lock(&g_rec.lock);
    if (g_rec.n < 64) {
        g_rec.seq[g_rec.n] = *(int *)user_data;
        g_rec.thread[g_rec.n] = pthread_self();
        g_rec.data[g_rec.n] = user_data;
        g_rec.n++;
    }
    pthread_mutex_unlock(&g_rec.lock);
}

static aclError note_kernel(void *args)
{
    note(args);
    return ACL_SUCCESS;
}

static void slow_note(void *user_data)
{
    sleep_ms(40);
    note(user_data);
}

static aclError g_inner;
static aclrtContext g_ctx;
/* Binds the context first, as a real report thread would, so the refusal is about the rule and
 * not about a missing context. */
static void forbidden_inside(void *user_data)
{
    aclError bind = aclrtSetCurrentContext(g_ctx);
    (void)user_data;
    g_inner = bind != ACL_SUCCESS ? bind : aclrtSynchronizeStream(NULL);
}

static void reset_record(void)
{
    pthread_mutex_lock(&g_rec.lock);
    g_rec.n = 0;
    pthread_mutex_unlock(&g_rec.lock);
}

int main(void)
{
    aclrtStream s = NULL, s2 = NULL;
    int values[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    uint64_t tid;
    int i;

    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtGetCurrentContext(&g_ctx));
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtCreateStream(&s2));

    /* Nothing subscribed yet. */
    EXPECT_CODE(aclrtLaunchCallback(note, &values[0], ACL_CALLBACK_BLOCK, s),
                ACL_ERROR_RT_STREAM_NO_CB_REG);
    EXPECT_CODE(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    EXPECT_CODE(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtUnSubscribeReport((uint64_t)pthread_self(), s), ACL_ERROR_RT_STREAM_SUBSCRIBE);

    CHECK(pthread_create(&g_report_thread, NULL, report_loop, NULL) == 0);
    tid = (uint64_t)g_report_thread;
    EXPECT_OK(aclrtSubscribeReport(tid, s));
    EXPECT_OK(aclrtSubscribeReport(tid, s2));
    atomic_store(&g_subscribed, 1);
    /* One thread per stream. */
    EXPECT_CODE(aclrtSubscribeReport((uint64_t)pthread_self(), s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    EXPECT_CODE(aclrtSubscribeReport(tid, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    EXPECT_CODE(aclrtUnSubscribeReport((uint64_t)pthread_self(), s), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    EXPECT_CODE(aclrtLaunchCallback(note, &values[0], (aclrtCallbackBlockType)2, s),
                ACL_ERROR_INVALID_PARAM);

    /* BLOCK callbacks interleave with kernels in stream order, on the report thread, with the
     * user data they were given. */
    reset_record();
    EXPECT_OK(aclxLaunchHostKernel(s, note_kernel, &values[1], "k1"));
    EXPECT_OK(aclrtLaunchCallback(slow_note, &values[2], ACL_CALLBACK_BLOCK, s));
    EXPECT_OK(aclxLaunchHostKernel(s, note_kernel, &values[3], "k3"));
    EXPECT_OK(aclrtLaunchCallback(note, &values[4], ACL_CALLBACK_BLOCK, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    pthread_mutex_lock(&g_rec.lock);
    CHECK(g_rec.n == 4);
    for (i = 0; i < g_rec.n && i < 4; i++) {
        CHECK(g_rec.seq[i] == i + 1);
        CHECK(g_rec.data[i] == &values[i + 1]);
    }
    CHECK(pthread_equal(g_rec.thread[1], g_report_thread));
    CHECK(pthread_equal(g_rec.thread[3], g_report_thread));
    /* Kernels run on a stream worker, neither here nor on the report thread. */
    CHECK(!pthread_equal(g_rec.thread[0], g_report_thread));
    CHECK(!pthread_equal(g_rec.thread[0], pthread_self()));
    pthread_mutex_unlock(&g_rec.lock);

    /* NO_BLOCK: the stream goes on at once, the callback still runs, later. */
    reset_record();
    EXPECT_OK(aclrtLaunchCallback(slow_note, &values[5], ACL_CALLBACK_NO_BLOCK, s2));
    EXPECT_OK(aclxLaunchHostKernel(s2, note_kernel, &values[6], "k6"));
    EXPECT_OK(aclrtSynchronizeStream(s2));
    {
        double t0 = now_ms();
        int n = 0;
        while (now_ms() - t0 < 5000) {
            pthread_mutex_lock(&g_rec.lock);
            n = g_rec.n;
            pthread_mutex_unlock(&g_rec.lock);
            if (n == 2) {
                break;
            }
            sleep_ms(5);
        }
        CHECK(n == 2);
        CHECK(g_rec.seq[0] == 6 && g_rec.seq[1] == 5);
        CHECK(pthread_equal(g_rec.thread[1], g_report_thread));
    }

    /* A callback that tries to synchronise gets an error instead of a deadlock. */
    g_inner = ACL_SUCCESS;
    EXPECT_OK(aclrtLaunchCallback(forbidden_inside, NULL, ACL_CALLBACK_BLOCK, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(g_inner == ACL_ERROR_RT_PARAM_INVALID);

    /* Stop the report thread first, so that it never polls unsubscribed. */
    atomic_store(&g_stop, 1);
    pthread_join(g_report_thread, NULL);
    EXPECT_OK(aclrtUnSubscribeReport(tid, s));
    EXPECT_CODE(aclrtUnSubscribeReport(tid, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    EXPECT_CODE(aclrtLaunchCallback(note, &values[0], ACL_CALLBACK_BLOCK, s),
                ACL_ERROR_RT_STREAM_NO_CB_REG);
    EXPECT_OK(aclrtUnSubscribeReport(tid, s2));

    /* Subscribed, but nothing due: the report wait times out. */
    CHECK(atomic_load(&g_report_errors) == 0);
    EXPECT_OK(aclrtSubscribeReport((uint64_t)pthread_self(), s));
    {
        double t0 = now_ms();
        EXPECT_CODE(aclrtProcessReport(30), ACL_ERROR_RT_REPORT_TIMEOUT);
        CHECK(now_ms() - t0 >= 25.0);
    }
    /* Served by the main thread itself: launch, then process. */
    reset_record();
    EXPECT_OK(aclrtLaunchCallback(note, &values[7], ACL_CALLBACK_NO_BLOCK, s));
    EXPECT_OK(aclrtProcessReport(2000));
    CHECK(g_rec.n == 1 && g_rec.seq[0] == 7 && pthread_equal(g_rec.thread[0], pthread_self()));
    /* Destroying the stream unsubscribes it. */
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_CODE(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);

    /* Host functions run on a runtime thread and hold up later work. */
    reset_record();
    EXPECT_OK(aclrtLaunchHostFunc(s2, slow_note, &values[1]));
    EXPECT_OK(aclxLaunchHostKernel(s2, note_kernel, &values[2], "k2"));
    EXPECT_OK(aclrtSynchronizeStream(s2));
    CHECK(g_rec.n == 2 && g_rec.seq[0] == 1 && g_rec.seq[1] == 2);
    CHECK(g_rec.data[0] == &values[1]);
    CHECK(!pthread_equal(g_rec.thread[0], pthread_self()));
    g_inner = ACL_SUCCESS;
    EXPECT_OK(aclrtLaunchHostFunc(s2, forbidden_inside, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s2));
    CHECK(g_inner == ACL_ERROR_RT_PARAM_INVALID);

    EXPECT_OK(aclrtDestroyStream(s2));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_callbacks");
}
