/* User objects: counts, the destructor (run once, on another thread, after the last release),
 * the references graphs, clones, child graphs and executable graphs own, and an executable
 * graph keeping its references until its launches have run. A destructor that has not run is
 * certain (its object still has references); one that has is waited for. */
#include <stdint.h>
#include <string.h>

#include "check.h"

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int runs;
    pthread_t thread;
} tracker_t;

static void tracker_init(tracker_t *t) {
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    t->runs = 0;
}

static void destroy(void *arg) {
    tracker_t *t = arg;
    pthread_mutex_lock(&t->mu);
    t->runs++;
    t->thread = pthread_self();
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

static int runs(tracker_t *t) {
    pthread_mutex_lock(&t->mu);
    int n = t->runs;
    pthread_mutex_unlock(&t->mu);
    return n;
}

/* Waits (at most 10 s, a failure guard) for the destructor to have run. */
static void wait_destroyed(tracker_t *t) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&t->mu);
    while (t->runs == 0) {
        if (pthread_cond_timedwait(&t->cv, &t->mu, &deadline) != 0) break;
    }
    int n = t->runs;
    pthread_mutex_unlock(&t->mu);
    ASSERT(n == 1);
    ASSERT(!pthread_equal(t->thread, pthread_self()));
}

int main(void) {
    CUuserObject obj;
    tracker_t a, b, c;
    tracker_init(&a);
    tracker_init(&b);
    tracker_init(&c);
    EXPECT(cuUserObjectCreate(&obj, &a, destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC),
           CUDA_ERROR_NOT_INITIALIZED);
    OK(cuInit(0));
    CUcontext ctx;
    OK(cuCtxCreate(&ctx, 0, 0));

    /* Bad arguments. */
    EXPECT(cuUserObjectCreate(&obj, &a, destroy, 1, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuUserObjectCreate(&obj, &a, destroy, 0, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuUserObjectCreate(&obj, &a, destroy, 0x80000000u, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuUserObjectCreate(&obj, &a, NULL, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuUserObjectCreate(NULL, &a, destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuUserObjectRetain((CUuserObject)(uintptr_t)0x1234, 1), CUDA_ERROR_INVALID_VALUE);

    /* Counts: the destructor runs once, after the last release, on another thread. */
    OK(cuUserObjectCreate(&obj, &a, destroy, 2, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    OK(cuUserObjectRetain(obj, 3));
    EXPECT(cuUserObjectRetain(obj, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuUserObjectRelease(obj, 6), CUDA_ERROR_INVALID_VALUE); /* only 5 */
    OK(cuUserObjectRelease(obj, 4));
    ASSERT(runs(&a) == 0);
    OK(cuUserObjectRelease(obj, 1));
    wait_destroyed(&a);
    EXPECT(cuUserObjectRetain(obj, 1), CUDA_ERROR_INVALID_VALUE); /* gone */
    EXPECT(cuUserObjectRelease(obj, 1), CUDA_ERROR_INVALID_VALUE);

    /* A graph's references: retained, moved, released; the graph's clone and its child graph
     * node's copy own theirs; destroying each gives them back. */
    CUgraph g, clone, parent;
    CUgraphNode child;
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphCreate(&parent, 0));
    OK(cuUserObjectCreate(&obj, &b, destroy, 2, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    EXPECT(cuGraphRetainUserObject(g, obj, 1, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphRetainUserObject((CUgraph)(uintptr_t)0x99, obj, 1, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphRetainUserObject(g, obj, 2, 0));                         /* count 4 */
    OK(cuGraphRetainUserObject(g, obj, 1, CU_GRAPH_USER_OBJECT_MOVE)); /* still 4: moved */
    EXPECT(cuGraphReleaseUserObject(g, obj, 4), CUDA_ERROR_INVALID_VALUE); /* the graph has 3 */
    OK(cuGraphReleaseUserObject(g, obj, 1));                           /* 3: the graph has 2 */
    OK(cuGraphClone(&clone, g));                                       /* 5 */
    OK(cuGraphAddChildGraphNode(&child, parent, NULL, 0, g));          /* 7 */
    OK(cuUserObjectRelease(obj, 1));                                   /* 6: ours are gone */
    OK(cuGraphDestroy(g));                                             /* 4 */
    OK(cuGraphDestroy(clone));                                         /* 2 */
    ASSERT(runs(&b) == 0);
    OK(cuGraphDestroy(parent));                                        /* 0 */
    wait_destroyed(&b);

    /* An executable graph owns a copy, and keeps it until its launches have run: a launch
     * held back by a value wait keeps the object alive after every handle is gone. */
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    void *host;
    OK(cuMemAllocHost(&host, 8));
    memset(host, 0, 8);
    CUdeviceptr word = (CUdeviceptr)(uintptr_t)host;
    CUgraphExec exec;
    CUgraphNode empty;
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphAddEmptyNode(&empty, g, NULL, 0));
    OK(cuUserObjectCreate(&obj, &c, destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    OK(cuGraphRetainUserObject(g, obj, 1, CU_GRAPH_USER_OBJECT_MOVE));
    OK(cuGraphInstantiate(&exec, g, 0));
    OK(cuGraphDestroy(g));
    OK(cuGraphLaunch(exec, s));
    OK(cuStreamSynchronize(s));
    ASSERT(runs(&c) == 0); /* the executable graph still owns it */
    OK(cuStreamWaitValue32(s, word, 1, CU_STREAM_WAIT_VALUE_EQ));
    OK(cuGraphLaunch(exec, s));
    OK(cuGraphExecDestroy(exec));
    EXPECT(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    ASSERT(runs(&c) == 0); /* the pending launch still owns it */
    CUstream other;
    OK(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    OK(cuStreamWriteValue32(other, word, 1, 0));
    OK(cuStreamSynchronize(s));
    wait_destroyed(&c);

    /* cuGraphExecUpdate: the source graph's references replace the executable graph's. */
    tracker_t d;
    tracker_init(&d);
    CUgraph g1, g2;
    CUgraphNode e1, e2;
    CUgraphExecUpdateResultInfo info;
    OK(cuGraphCreate(&g1, 0));
    OK(cuGraphAddEmptyNode(&e1, g1, NULL, 0));
    OK(cuGraphCreate(&g2, 0));
    OK(cuGraphAddEmptyNode(&e2, g2, NULL, 0));
    OK(cuUserObjectCreate(&obj, &d, destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    OK(cuGraphRetainUserObject(g1, obj, 1, CU_GRAPH_USER_OBJECT_MOVE));
    OK(cuGraphInstantiate(&exec, g1, 0));
    OK(cuGraphDestroy(g1));
    ASSERT(runs(&d) == 0);
    OK(cuGraphExecUpdate(exec, g2, &info));
    wait_destroyed(&d);
    OK(cuGraphExecDestroy(exec));
    OK(cuGraphDestroy(g2));

    /* Only the caller's references are the caller's to give up: a release or a move of more
     * than the caller holds (the count less the graphs' references) fails and changes
     * nothing. */
    tracker_t e;
    tracker_init(&e);
    CUgraph ga, gb;
    OK(cuGraphCreate(&ga, 0));
    OK(cuGraphCreate(&gb, 0));
    OK(cuUserObjectCreate(&obj, &e, destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    OK(cuGraphRetainUserObject(ga, obj, 1, 0));             /* count 2: ours 1, ga 1 */
    EXPECT(cuUserObjectRelease(obj, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphRetainUserObject(gb, obj, 2, CU_GRAPH_USER_OBJECT_MOVE),
           CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphRetainUserObject(gb, obj, 1, CU_GRAPH_USER_OBJECT_MOVE)); /* ours 0, gb 1 */
    EXPECT(cuGraphRetainUserObject(ga, obj, 1, CU_GRAPH_USER_OBJECT_MOVE),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuUserObjectRelease(obj, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuUserObjectRetain(obj, 1));                         /* ours 1 */
    OK(cuUserObjectRelease(obj, 1));                        /* ours 0 */
    OK(cuGraphDestroy(ga));                                 /* gb's 1 left */
    ASSERT(runs(&e) == 0);
    OK(cuGraphDestroy(gb));                                 /* 0 */
    wait_destroyed(&e);
    EXPECT(cuUserObjectRetain(obj, 1), CUDA_ERROR_INVALID_VALUE); /* gone for good */

    OK(cuMemFreeHost(host));
    OK(cuStreamDestroy(s));
    OK(cuStreamDestroy(other));
    OK(cuCtxDestroy(ctx));
    printf("user objects: ok\n");
    return 0;
}
