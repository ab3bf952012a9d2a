/* Checking macros for the C ABI tests: count failures, print where, exit non-zero. */
#ifndef ACLRT_TESTS_CHECK_H_
#define ACLRT_TESTS_CHECK_H_

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <pthread.h>

#include "acl/acl.h"
#include "acl/acl_ext.h"

static int g_checks;
static int g_failures;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        g_checks++;                                                                     \
        if (!(cond)) {                                                                  \
            g_failures++;                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
        }                                                                               \
    } while (0)

/* Compares an aclError (or any integer) with the expected value, printing both and the
 * thread's recent message on mismatch. */
#define EXPECT_CODE(expr, want)                                                          \
    do {                                                                                 \
        long long got_ = (long long)(expr);                                              \
        long long want_ = (long long)(want);                                             \
        g_checks++;                                                                      \
        if (got_ != want_) {                                                             \
            const char *msg_ = aclGetRecentErrMsg();                                     \
            g_failures++;                                                                \
            fprintf(stderr, "%s:%d: %s returned %lld, expected %lld (%s)\n", __FILE__,   \
                    __LINE__, #expr, got_, want_, msg_ ? msg_ : "no message");           \
        }                                                                                \
    } while (0)

#define EXPECT_OK(expr) EXPECT_CODE(expr, ACL_SUCCESS)

/* Stops the test at once when a precondition for the rest fails. */
#define REQUIRE_OK(expr)                                                                 \
    do {                                                                                 \
        aclError r_ = (expr);                                                            \
        g_checks++;                                                                      \
        if (r_ != ACL_SUCCESS) {                                                         \
            const char *msg_ = aclGetRecentErrMsg();                                     \
            fprintf(stderr, "%s:%d: %s failed with %d (%s)\n", __FILE__, __LINE__, #expr, \
                    r_, msg_ ? msg_ : "no message");                                     \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

static inline double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static inline uint32_t os_tid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

/* Host kernel that sleeps for *(int *)args milliseconds. */
static inline aclError sleep_kernel(void *args)
{
    sleep_ms(*(int *)args);
    return ACL_SUCCESS;
}

/* A gate host kernels wait at until the test opens it: it holds a stream exactly as long as
 * the test needs, whatever the machine's speed (a sleeping kernel only guesses). */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int open;
} gate_t;

#define GATE_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0}

/* Host kernel that waits until the gate_t at args is open. */
static inline aclError gate_kernel(void *args)
{
    gate_t *g = (gate_t *)args;
    pthread_mutex_lock(&g->lock);
    while (!g->open) {
        pthread_cond_wait(&g->cond, &g->lock);
    }
    pthread_mutex_unlock(&g->lock);
    return ACL_SUCCESS;
}

static inline void gate_open(gate_t *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = 1;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

/* Host kernel that fails with *(aclError *)args. */
static inline aclError failing_kernel(void *args)
{
    return *(aclError *)args;
}

/* Every object the runtime holds must be gone (after aclFinalize, or after explicit cleanup). */
static inline void expect_no_live_objects(void)
{
    aclxLiveObjects live;
    memset(&live, 0xff, sizeof(live));
    EXPECT_OK(aclxGetLiveObjects(&live));
    CHECK(live.contexts == 0);
    CHECK(live.streams == 0);
    CHECK(live.events == 0);
    CHECK(live.allocations == 0);
    CHECK(live.callbackThreads == 0);
}

static inline int finish(const char *name)
{
    if (g_failures) {
        printf("%s: FAILED (%d of %d checks)\n", name, g_failures, g_checks);
        return 1;
    }
    printf("%s: ok (%d checks)\n", name, g_checks);
    return 0;
}

#endif /* ACLRT_TESTS_CHECK_H_ */
