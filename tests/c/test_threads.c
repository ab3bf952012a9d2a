/* Several host threads using the C ABI at once: the shared default context, per-thread error
 * state, events recorded on one thread's stream and waited on by another's. */
#include "check.h"

#define THREADS 8
#define ROUNDS 40

static aclrtEvent g_ready[THREADS];
static int g_counter[THREADS];
static pthread_barrier_t g_barrier;
static int g_thread_failures;

static aclError bump(void *args)
{
    __atomic_add_fetch((int *)args, 1, __ATOMIC_SEQ_CST);
    return ACL_SUCCESS;
}

struct seen_value {
    int *counter;
    int expected_min;
    int bad;
};

/* Runs after this thread's stream waited on the neighbour's event: the neighbour's kernel for
 * this round must have run. */
static aclError check_neighbour(void *args)
{
    struct seen_value *s = (struct seen_value *)args;
    if (__atomic_load_n(s->counter, __ATOMIC_SEQ_CST) < s->expected_min) {
        s->bad++;
    }
    return ACL_SUCCESS;
}

#define T_EXPECT(cond)                                                                   \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "thread %d: %s:%d: %s\n", me, __FILE__, __LINE__, #cond);    \
            __atomic_add_fetch(&g_thread_failures, 1, __ATOMIC_SEQ_CST);                 \
        }                                                                                \
    } while (0)

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    int next = (me + 1) % THREADS;
    aclrtStream s = NULL;
    struct seen_value seen = {0};
    const char *msg;
    int r;

    T_EXPECT(aclrtSetDevice(0) == ACL_SUCCESS);
    T_EXPECT(aclrtCreateStream(&s) == ACL_SUCCESS);
    T_EXPECT(aclrtCreateEventExWithFlag(&g_ready[me], ACL_EVENT_SYNC) == ACL_SUCCESS);

    /* Per-thread error state: only odd threads fail; even threads see no message. */
    (void)aclGetRecentErrMsg();
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    pthread_barrier_wait(&g_barrier);
    if (me % 2) {
        T_EXPECT(aclrtSetDevice(1000 + me) == ACL_ERROR_RT_INVALID_DEVICEID);
    }
    pthread_barrier_wait(&g_barrier);
    msg = aclGetRecentErrMsg();
    if (me % 2) {
        char want[16];
        snprintf(want, sizeof(want), "%d", 1000 + me);
        T_EXPECT(msg != NULL && strstr(msg, want) != NULL);
        T_EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL) == ACL_ERROR_RT_INVALID_DEVICEID);
    } else {
        T_EXPECT(msg == NULL);
        T_EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL) == ACL_SUCCESS);
    }

    for (r = 0; r < ROUNDS; r++) {
        /* Publish this round's work, then wait on the neighbour's published work. */
        T_EXPECT(aclxLaunchHostKernel(s, bump, &g_counter[me], "bump") == ACL_SUCCESS);
        T_EXPECT(aclrtRecordEvent(g_ready[me], s) == ACL_SUCCESS);
        pthread_barrier_wait(&g_barrier);
        seen.counter = &g_counter[next];
        seen.expected_min = r + 1;
        T_EXPECT(aclrtStreamWaitEvent(s, g_ready[next]) == ACL_SUCCESS);
        T_EXPECT(aclxLaunchHostKernel(s, check_neighbour, &seen, "check") == ACL_SUCCESS);
        T_EXPECT(aclrtSynchronizeStream(s) == ACL_SUCCESS);
        /* Nobody re-records before everyone has queued this round's wait. */
        pthread_barrier_wait(&g_barrier);
    }
    T_EXPECT(seen.bad == 0);
    T_EXPECT(__atomic_load_n(&g_counter[me], __ATOMIC_SEQ_CST) == ROUNDS);

    pthread_barrier_wait(&g_barrier);
    T_EXPECT(aclrtDestroyEvent(g_ready[me]) == ACL_SUCCESS);
    T_EXPECT(aclrtDestroyStream(s) == ACL_SUCCESS);
    T_EXPECT(aclrtResetDevice(0) == ACL_SUCCESS);
    return NULL;
}

int main(void)
{
    pthread_t threads[THREADS];
    aclxLiveObjects live;
    int i;

    REQUIRE_OK(aclInit(NULL));
    CHECK(pthread_barrier_init(&g_barrier, NULL, THREADS) == 0);
    for (i = 0; i < THREADS; i++) {
        CHECK(pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i) == 0);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
    }
    CHECK(g_thread_failures == 0);
    /* Every thread reset the device it set: the default context is gone. */
    EXPECT_OK(aclxGetLiveObjects(&live));
    CHECK(live.contexts == 0 && live.streams == 0 && live.events == 0);
    pthread_barrier_destroy(&g_barrier);
    EXPECT_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_threads");
}
