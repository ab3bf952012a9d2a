/* Assertions and a gate for the CUDA C tests. */
#ifndef CUDA_TEST_CHECK_H
#define CUDA_TEST_CHECK_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "aclrt/cuda.h"

#define EXPECT(call, want)                                                                     \
    do {                                                                                       \
        CUresult got_ = (call);                                                                \
        if (got_ != (CUresult)(want)) {                                                        \
            const char *name_ = NULL;                                                          \
            cuGetErrorName(got_, &name_);                                                      \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n", __FILE__, __LINE__,   \
                    #call, (int)got_, name_ ? name_ : "?", (int)(want));                       \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

#define OK(call) EXPECT(call, CUDA_SUCCESS)

#define ASSERT(cond)                                                                           \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);       \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* A kernel blocks on a gate until the test opens it, so "still pending" is exact. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
    CUresult result;
} gate_t;

static inline void gate_init(gate_t *g, CUresult result) {
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->open = 0;
    g->result = result;
}

static inline void gate_open(gate_t *g) {
    pthread_mutex_lock(&g->mu);
    g->open = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static inline CUresult gate_kernel(void *arg) {
    gate_t *g = arg;
    pthread_mutex_lock(&g->mu);
    while (!g->open) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    return g->result;
}

static inline void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Appends a tag to a log, in the order host functions run. */
typedef struct {
    pthread_mutex_t mu;
    char entries[16];
    int n;
} order_log_t;

typedef struct {
    order_log_t *log;
    char tag;
} log_entry_t;

static inline void log_host_fn(void *arg) {
    log_entry_t *e = arg;
    pthread_mutex_lock(&e->log->mu);
    e->log->entries[e->log->n++] = e->tag;
    e->log->entries[e->log->n] = 0;
    pthread_mutex_unlock(&e->log->mu);
}

static inline void set_flag(void *arg) { __atomic_store_n((int *)arg, 1, __ATOMIC_SEQ_CST); }

static inline int get_flag(int *flag) { return __atomic_load_n(flag, __ATOMIC_SEQ_CST); }

/* Polls a flag for up to ten seconds. */
static inline int eventually(int *flag) {
    for (int i = 0; i < 5000 && !get_flag(flag); i++) sleep_ms(2);
    return get_flag(flag);
}

#endif
