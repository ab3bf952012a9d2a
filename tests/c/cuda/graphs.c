/* Graphs built node by node: empty, host, kernel, memset, memcpy and event nodes; edges and
 * node queries; clones; parameters of nodes and of executable graphs; executable graph
 * update; launch order and values. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static order_log_t order_log = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};

static void reset_log(void) {
    order_log.n = 0;
    order_log.entries[0] = 0;
}

static int pos(char tag) {
    const char *at = strchr(order_log.entries, tag);
    ASSERT(at != NULL);
    return (int)(at - order_log.entries);
}

static CUgraphNode host_node(CUgraph g, const CUgraphNode *deps, size_t n, log_entry_t *e) {
    CUgraphNode node;
    CUDA_HOST_NODE_PARAMS p = {log_host_fn, e};
    OK(cuGraphAddHostNode(&node, g, deps, n, &p));
    return node;
}

static void launch_and_wait(CUgraph g, CUstream s) {
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    OK(cuGraphExecDestroy(x));
}

/* A diamond a -> (b, c) -> d, then e after d: each node runs after its dependencies, at every
 * launch; the queries describe the edges. */
static void diamond(CUstream s) {
    CUgraph g;
    log_entry_t a = {&order_log, 'a'}, b = {&order_log, 'b'}, c = {&order_log, 'c'},
                d = {&order_log, 'd'}, e = {&order_log, 'e'};
    OK(cuGraphCreate(&g, 0));
    /* Added out of order: e first, its dependency added later. */
    CUgraphNode ne = host_node(g, NULL, 0, &e);
    CUgraphNode na = host_node(g, NULL, 0, &a);
    CUgraphNode nb = host_node(g, &na, 1, &b);
    CUgraphNode nc = host_node(g, &na, 1, &c);
    CUgraphNode bc[2] = {nb, nc};
    CUgraphNode nd = host_node(g, bc, 2, &d);
    OK(cuGraphAddDependencies(g, &nd, &ne, 1));

    for (int launch = 0; launch < 2; launch++) {
        reset_log();
        launch_and_wait(g, s);
        ASSERT(strlen(order_log.entries) == 5);
        ASSERT(pos('a') < pos('b') && pos('a') < pos('c'));
        ASSERT(pos('b') < pos('d') && pos('c') < pos('d') && pos('d') < pos('e'));
    }

    size_t n = 99;
    OK(cuGraphGetNodes(g, NULL, &n));
    ASSERT(n == 5);
    OK(cuGraphGetRootNodes(g, NULL, &n));
    ASSERT(n == 1);
    CUgraphNode roots[3] = {0, 0, (CUgraphNode)1};
    n = 3;
    OK(cuGraphGetRootNodes(g, roots, &n));
    ASSERT(n == 1 && roots[0] == na && roots[1] == NULL && roots[2] == NULL);

    CUgraphNode from[6], to[6];
    OK(cuGraphGetEdges(g, NULL, NULL, &n));
    ASSERT(n == 5);
    n = 6;
    OK(cuGraphGetEdges(g, from, to, &n));
    ASSERT(n == 5 && from[5] == NULL && to[5] == NULL);
    int seen_de = 0, seen_ab = 0;
    for (int i = 0; i < 5; i++) {
        if (from[i] == nd && to[i] == ne) seen_de = 1;
        if (from[i] == na && to[i] == nb) seen_ab = 1;
    }
    ASSERT(seen_de && seen_ab);
    n = 2;
    OK(cuGraphGetEdges(g, from, to, &n));
    ASSERT(n == 2);
    EXPECT(cuGraphGetEdges(g, from, NULL, &n), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphGetEdges(g, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);

    CUgraphNode deps[3];
    n = 3;
    OK(cuGraphNodeGetDependencies(nd, deps, &n));
    ASSERT(n == 2 && deps[0] == nb && deps[1] == nc && deps[2] == NULL);
    n = 3;
    OK(cuGraphNodeGetDependentNodes(na, deps, &n));
    ASSERT(n == 2 && deps[0] == nb && deps[1] == nc);
    OK(cuGraphNodeGetDependentNodes(ne, NULL, &n));
    ASSERT(n == 0);
    n = 6;
    CUgraphEdgeData edges[6];
    memset(edges, 0xFF, sizeof edges);
    OK(cuGraphGetEdges_v2(g, from, to, edges, &n));
    ASSERT(n == 5 && edges[4].type == 0 && edges[4].to_port == 0);
    CUgraphEdgeData data[2];
    memset(data, 0xFF, sizeof data);
    n = 2;
    OK(cuGraphNodeGetDependencies_v2(nd, deps, data, &n));
    ASSERT(n == 2 && data[0].type == 0 && data[1].from_port == 0);

    CUgraphNodeType type = (CUgraphNodeType)99;
    OK(cuGraphNodeGetType(na, &type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_HOST);

    /* Edge edits: all or none, duplicates and loops refused. */
    EXPECT(cuGraphAddDependencies(g, &na, &nb, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphAddDependencies(g, &na, &na, 1), CUDA_ERROR_INVALID_VALUE);
    CUgraphNode f2[2] = {nb, na}, t2[2] = {nc, nb};
    EXPECT(cuGraphAddDependencies(g, f2, t2, 2), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphGetEdges(g, NULL, NULL, &n));
    ASSERT(n == 5);
    EXPECT(cuGraphRemoveDependencies(g, &nb, &nc, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphRemoveDependencies(g, &nd, &ne, 1));
    OK(cuGraphGetRootNodes(g, NULL, &n));
    ASSERT(n == 2);
    OK(cuGraphAddDependencies(g, &nd, &ne, 1));
    EXPECT(cuGraphAddDependencies(g, &na, &nb, 0), CUDA_SUCCESS);
    EXPECT(cuGraphAddDependencies(g, NULL, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    CUgraphEdgeData programmatic = {0, 0, 1, {0}};
    EXPECT(cuGraphAddDependencies_v2(g, &nb, &nc, &programmatic, 1), CUDA_ERROR_NOT_SUPPORTED);

    /* A cycle cannot be instantiated. */
    CUgraphExec x;
    OK(cuGraphAddDependencies(g, &ne, &na, 1));
    EXPECT(cuGraphInstantiate(&x, g, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphRemoveDependencies(g, &ne, &na, 1));

    /* Destroying a node takes its edges. */
    OK(cuGraphDestroyNode(nd));
    EXPECT(cuGraphNodeGetType(nd, &type), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphGetEdges(g, NULL, NULL, &n));
    ASSERT(n == 2);
    OK(cuGraphGetNodes(g, NULL, &n));
    ASSERT(n == 4);
    reset_log();
    launch_and_wait(g, s);
    ASSERT(strlen(order_log.entries) == 4 && strchr(order_log.entries, 'd') == NULL);
    ASSERT(pos('a') < pos('b') && pos('a') < pos('c'));

    /* DOT output: a vertex per node, an arrow per edge. */
    char path[] = "/tmp/aclrt-graph-XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    close(fd);
    OK(cuGraphDebugDotPrint(g, path, 0));
    FILE *dot = fopen(path, "r");
    ASSERT(dot != NULL);
    char text[4096];
    size_t len = fread(text, 1, sizeof text - 1, dot);
    fclose(dot);
    unlink(path);
    text[len] = 0;
    int arrows = 0, vertices = 0;
    for (const char *at = text; (at = strstr(at, " -> ")) != NULL; at++) arrows++;
    for (const char *at = text; (at = strstr(at, "[label=")) != NULL; at++) vertices++;
    ASSERT(strncmp(text, "digraph", 7) == 0 && arrows == 2 && vertices == 4);
    ASSERT(strstr(text, ": Host") != NULL);
    EXPECT(cuGraphDebugDotPrint(g, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphDebugDotPrint(g, "/nonexistent-dir/x.dot", 0), CUDA_ERROR_OPERATING_SYSTEM);

    /* Dependencies must be live nodes of the graph, given once. */
    CUgraph other;
    CUgraphNode foreign, dup[2] = {na, na};
    OK(cuGraphCreate(&other, 0));
    OK(cuGraphAddEmptyNode(&foreign, other, NULL, 0));
    EXPECT(cuGraphAddEmptyNode(&foreign, g, &foreign, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphAddEmptyNode(&foreign, g, &nd, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphAddEmptyNode(&foreign, g, dup, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphAddEmptyNode(&foreign, g, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphAddEmptyNode(NULL, g, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphAddEmptyNode(&foreign, (CUgraph)0x1234, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(other));
    OK(cuGraphDestroy(g));
    EXPECT(cuGraphNodeGetType(na, &type), CUDA_ERROR_INVALID_VALUE);
}

/* Memset -> kernel -> memcpy to the host: the values, and the parameters handed back. */
static void memory_and_kernels(CUstream s, CUfunction scale) {
    enum { N = 64 };
    CUgraph g;
    CUdeviceptr d;
    float host[N];
    OK(cuMemAlloc(&d, N * sizeof(float)));
    OK(cuGraphCreate(&g, 0));

    CUgraphNode set, kern, copy, empty;
    float two = 2.0f;
    union {
        float f;
        unsigned u;
    } one = {1.5f};
    CUDA_MEMSET_NODE_PARAMS mp = {d, 0, one.u, 4, N, 1};
    OK(cuGraphAddMemsetNode(&set, g, NULL, 0, &mp, NULL));
    unsigned n = N;
    void *args[] = {&d, &two, &n};
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = scale;
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = 8;
    kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = args;
    OK(cuGraphAddKernelNode(&kern, g, &set, 1, &kp));
    /* The arguments were copied: changing them now does not change the node. */
    two = 100.0f;
    CUDA_MEMCPY3D cp;
    memset(&cp, 0, sizeof cp);
    cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.srcDevice = d;
    cp.dstMemoryType = CU_MEMORYTYPE_HOST;
    cp.dstHost = host;
    cp.WidthInBytes = N * sizeof(float);
    cp.Height = 1;
    cp.Depth = 1;
    OK(cuGraphAddMemcpyNode(&copy, g, &kern, 1, &cp, NULL));
    OK(cuGraphAddEmptyNode(&empty, g, &copy, 1));

    memset(host, 0, sizeof host);
    launch_and_wait(g, s);
    for (int i = 0; i < N; i++) ASSERT(host[i] == 3.0f);

    CUgraphNodeType type;
    OK(cuGraphNodeGetType(set, &type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_MEMSET);
    OK(cuGraphNodeGetType(kern, &type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_KERNEL);
    OK(cuGraphNodeGetType(copy, &type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_MEMCPY);
    OK(cuGraphNodeGetType(empty, &type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_EMPTY);

    CUDA_MEMSET_NODE_PARAMS mp_out;
    OK(cuGraphMemsetNodeGetParams(set, &mp_out));
    ASSERT(mp_out.dst == d && mp_out.value == one.u && mp_out.elementSize == 4 && mp_out.width == N);
    CUDA_MEMCPY3D cp_out;
    OK(cuGraphMemcpyNodeGetParams(copy, &cp_out));
    ASSERT(cp_out.dstHost == host && cp_out.WidthInBytes == N * sizeof(float));
    CUDA_KERNEL_NODE_PARAMS kp_out;
    OK(cuGraphKernelNodeGetParams(kern, &kp_out));
    ASSERT(kp_out.func == scale && kp_out.blockDimX == 8 && kp_out.kern == NULL);
    ASSERT(kp_out.kernelParams != NULL && kp_out.kernelParams != args);
    ASSERT(*(float *)kp_out.kernelParams[1] == 2.0f);
    ASSERT(*(CUdeviceptr *)kp_out.kernelParams[0] == d);
    EXPECT(cuGraphHostNodeGetParams(kern, NULL), CUDA_ERROR_INVALID_VALUE);
    CUDA_HOST_NODE_PARAMS hp;
    EXPECT(cuGraphHostNodeGetParams(kern, &hp), CUDA_ERROR_INVALID_VALUE);

    /* New kernel parameters on the graph's node: the next instantiation uses them. */
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    float three = 3.0f;
    void *args3[] = {&d, &three, &n};
    kp.kernelParams = args3;
    OK(cuGraphKernelNodeSetParams(kern, &kp));
    OK(cuGraphKernelNodeGetParams(kern, &kp_out));
    ASSERT(*(float *)kp_out.kernelParams[1] == 3.0f);
    /* The executable graph made before keeps the old ones ... */
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    for (int i = 0; i < N; i++) ASSERT(host[i] == 3.0f);
    launch_and_wait(g, s);
    for (int i = 0; i < N; i++) ASSERT(host[i] == 4.5f);
    /* ... until its own node is set. */
    float four = 4.0f;
    void *args4[] = {&d, &four, &n};
    kp.kernelParams = args4;
    OK(cuGraphExecKernelNodeSetParams(x, kern, &kp));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    for (int i = 0; i < N; i++) ASSERT(host[i] == 6.0f);
    EXPECT(cuGraphExecKernelNodeSetParams(x, set, &kp), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphExecDestroy(x));

    /* Memset parameters: on the graph's node, and on an executable graph's own. */
    mp.value = 0;
    mp.elementSize = 1;
    mp.width = N * sizeof(float);
    OK(cuGraphMemsetNodeSetParams(set, &mp));
    OK(cuGraphMemsetNodeGetParams(set, &mp_out));
    ASSERT(mp_out.elementSize == 1 && mp_out.value == 0);
    launch_and_wait(g, s);
    for (int i = 0; i < N; i++) ASSERT(host[i] == 0.0f);
    OK(cuGraphInstantiate(&x, g, CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD));
    cuuint64_t xflags = 0;
    OK(cuGraphExecGetFlags(x, &xflags));
    ASSERT(xflags == CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD);
    CUDA_MEMSET_NODE_PARAMS mp2 = {d, 0, one.u, 4, N, 1};
    OK(cuGraphExecMemsetNodeSetParams(x, set, &mp2, NULL));
    mp2.elementSize = 8;
    EXPECT(cuGraphExecMemsetNodeSetParams(x, set, &mp2, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphMemsetNodeSetParams(kern, &mp), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    for (int i = 0; i < N; i++) ASSERT(host[i] == 4.5f);
    /* A disabled kernel node does nothing; its edges still order the rest. */
    unsigned enabled = 9;
    OK(cuGraphNodeGetEnabled(x, kern, &enabled));
    ASSERT(enabled == 1);
    OK(cuGraphNodeSetEnabled(x, kern, 0));
    OK(cuGraphNodeGetEnabled(x, kern, &enabled));
    ASSERT(enabled == 0);
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    for (int i = 0; i < N; i++) ASSERT(host[i] == 1.5f);
    OK(cuGraphNodeSetEnabled(x, kern, 1));
    EXPECT(cuGraphNodeSetEnabled(x, empty, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphNodeGetEnabled(x, kern, NULL), CUDA_ERROR_INVALID_VALUE);
    /* Memcpy parameters: half the data, to the second half of the buffer. */
    memset(host, 0, sizeof host);
    CUDA_MEMCPY3D half = cp;
    half.WidthInBytes = N / 2 * sizeof(float);
    half.dstHost = host + N / 2;
    OK(cuGraphExecMemcpyNodeSetParams(x, copy, &half, NULL));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    for (int i = 0; i < N / 2; i++) ASSERT(host[i] == 0.0f && host[N / 2 + i] == 4.5f);
    half.Depth = 3; /* slice heights 0: below Height */
    EXPECT(cuGraphMemcpyNodeSetParams(copy, &half), CUDA_ERROR_INVALID_VALUE);
    half.Depth = 1;
    OK(cuGraphMemcpyNodeSetParams(copy, &half));
    OK(cuGraphMemcpyNodeGetParams(copy, &cp_out));
    ASSERT(cp_out.dstHost == host + N / 2);
    OK(cuGraphExecDestroy(x));

    /* Instantiation with parameters. */
    CUDA_GRAPH_INSTANTIATE_PARAMS ip = {0, NULL, (CUgraphNode)1, (CUgraphInstantiateResult)9};
    OK(cuGraphInstantiateWithParams(&x, g, &ip));
    ASSERT(ip.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS && ip.hErrNode_out == NULL);
    OK(cuGraphExecDestroy(x));
    OK(cuGraphAddDependencies(g, &empty, &set, 1));
    EXPECT(cuGraphInstantiateWithParams(&x, g, &ip), CUDA_ERROR_INVALID_VALUE);
    ASSERT(ip.result_out == CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE);
    OK(cuGraphRemoveDependencies(g, &empty, &set, 1));
    ip.flags = 0x100;
    EXPECT(cuGraphInstantiateWithParams(&x, g, &ip), CUDA_ERROR_INVALID_VALUE);
    ASSERT(ip.result_out == CUDA_GRAPH_INSTANTIATE_ERROR);
    EXPECT(cuGraphInstantiateWithParams(&x, g, NULL), CUDA_ERROR_INVALID_VALUE);

    /* Refused parameters. */
    CUgraphNode bad;
    kp.kernelParams = NULL;
    EXPECT(cuGraphAddKernelNode(&bad, g, NULL, 0, &kp), CUDA_ERROR_INVALID_VALUE);
    kp.kernelParams = args;
    kp.blockDimX = 0;
    EXPECT(cuGraphAddKernelNode(&bad, g, NULL, 0, &kp), CUDA_ERROR_INVALID_VALUE);
    kp.blockDimX = 8;
    kp.extra = args;
    EXPECT(cuGraphAddKernelNode(&bad, g, NULL, 0, &kp), CUDA_ERROR_INVALID_VALUE);
    kp.kernelParams = NULL;
    EXPECT(cuGraphAddKernelNode(&bad, g, NULL, 0, &kp), CUDA_ERROR_NOT_SUPPORTED);
    kp.extra = NULL;
    kp.kernelParams = args;
    kp.func = NULL;
    kp.kern = (void *)0x99;
    EXPECT(cuGraphAddKernelNode(&bad, g, NULL, 0, &kp), CUDA_ERROR_NOT_SUPPORTED);
    kp.kern = NULL;
    kp.func = (CUfunction)0x4321;
    EXPECT(cuGraphAddKernelNode(&bad, g, NULL, 0, &kp), CUDA_ERROR_INVALID_HANDLE);
    mp.elementSize = 3;
    EXPECT(cuGraphAddMemsetNode(&bad, g, NULL, 0, &mp, NULL), CUDA_ERROR_INVALID_VALUE);
    mp.elementSize = 4;
    mp.dst = d + 1;
    EXPECT(cuGraphAddMemsetNode(&bad, g, NULL, 0, &mp, NULL), CUDA_ERROR_INVALID_VALUE);
    mp.dst = (CUdeviceptr)(size_t)host;
    EXPECT(cuGraphAddMemsetNode(&bad, g, NULL, 0, &mp, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphAddMemsetNode(&bad, g, NULL, 0, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    cp.Depth = 2;
    EXPECT(cuGraphAddMemcpyNode(&bad, g, NULL, 0, &cp, NULL), CUDA_ERROR_INVALID_VALUE);
    cp.Depth = 1;
    cp.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    EXPECT(cuGraphAddMemcpyNode(&bad, g, NULL, 0, &cp, NULL), CUDA_ERROR_INVALID_VALUE);
    cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.srcLOD = 1;
    EXPECT(cuGraphAddMemcpyNode(&bad, g, NULL, 0, &cp, NULL), CUDA_ERROR_INVALID_VALUE);
    cp.srcLOD = 0;
    cp.WidthInBytes = 2 * N * sizeof(float);
    EXPECT(cuGraphAddMemcpyNode(&bad, g, NULL, 0, &cp, NULL), CUDA_ERROR_INVALID_VALUE);
    size_t count = 0;
    OK(cuGraphGetNodes(g, NULL, &count));
    ASSERT(count == 4);

    /* A 2D copy through srcZ / srcHeight: row 1 of slice 1 of a 4-float-wide, 2-row layout. */
    CUgraph g2;
    float rows[16], out[4] = {0};
    for (int i = 0; i < 16; i++) rows[i] = (float)i;
    CUdeviceptr d2;
    OK(cuMemAlloc(&d2, sizeof rows));
    OK(cuMemcpyHtoD(d2, rows, sizeof rows));
    OK(cuGraphCreate(&g2, 0));
    memset(&cp, 0, sizeof cp);
    cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.srcDevice = d2;
    cp.srcPitch = 4 * sizeof(float);
    cp.srcHeight = 2;
    cp.srcY = 1;
    cp.srcZ = 1;
    cp.dstMemoryType = CU_MEMORYTYPE_HOST;
    cp.dstHost = out;
    cp.dstPitch = 4 * sizeof(float);
    cp.WidthInBytes = 4 * sizeof(float);
    cp.Height = 1;
    cp.Depth = 1;
    OK(cuGraphAddMemcpyNode(&copy, g2, NULL, 0, &cp, NULL));
    launch_and_wait(g2, s);
    for (int i = 0; i < 4; i++) ASSERT(out[i] == (float)(12 + i));
    /* Two slices of one row each: row 1 of slices 0 and 1, into a packed pair of rows. */
    float two_rows[8] = {0};
    cp.srcZ = 0;
    cp.dstHost = two_rows;
    cp.dstHeight = 1;
    cp.Depth = 2;
    CUgraphNode copy3;
    OK(cuGraphAddMemcpyNode(&copy3, g2, &copy, 1, &cp, NULL));
    launch_and_wait(g2, s);
    for (int i = 0; i < 4; i++) ASSERT(two_rows[i] == (float)(4 + i) && two_rows[4 + i] == (float)(12 + i));
    /* A slice outside the allocation refuses the whole node. */
    cp.srcZ = 1;
    EXPECT(cuGraphAddMemcpyNode(&copy3, g2, NULL, 0, &cp, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(g2));
    OK(cuMemFree(d2));

    OK(cuGraphDestroy(g));
    OK(cuMemFree(d));
}

static int flag_a, flag_b;

/* Host node parameters on graphs, clones and executable graphs; executable graph update. */
static void host_params_clone_update(CUstream s) {
    CUgraph g, c;
    CUgraphNode h, h2, hc;
    CUDA_HOST_NODE_PARAMS pa = {set_flag, &flag_a}, pb = {set_flag, &flag_b}, out;
    flag_a = flag_b = 0;
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphAddHostNode(&h, g, NULL, 0, &pa));
    OK(cuGraphHostNodeGetParams(h, &out));
    ASSERT(out.fn == set_flag && out.userData == &flag_a);
    CUDA_HOST_NODE_PARAMS null_fn = {NULL, NULL};
    EXPECT(cuGraphAddHostNode(&h2, g, NULL, 0, &null_fn), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphHostNodeSetParams(h, &null_fn), CUDA_ERROR_INVALID_VALUE);

    /* A clone has its own nodes. */
    OK(cuGraphClone(&c, g));
    OK(cuGraphNodeFindInClone(&hc, h, c));
    ASSERT(hc != h);
    EXPECT(cuGraphNodeFindInClone(&hc, h, g), CUDA_ERROR_INVALID_VALUE);
    CUgraph unrelated;
    CUgraphNode e0;
    OK(cuGraphCreate(&unrelated, 0));
    OK(cuGraphAddEmptyNode(&e0, unrelated, NULL, 0));
    EXPECT(cuGraphNodeFindInClone(&hc, h, unrelated), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(unrelated));
    OK(cuGraphNodeFindInClone(&hc, h, c));
    OK(cuGraphHostNodeSetParams(hc, &pb));
    OK(cuGraphHostNodeGetParams(h, &out));
    ASSERT(out.userData == &flag_a);
    OK(cuGraphHostNodeGetParams(hc, &out));
    ASSERT(out.userData == &flag_b);
    launch_and_wait(c, s);
    ASSERT(get_flag(&flag_b) && !get_flag(&flag_a));

    /* An executable graph's own node parameters. */
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    flag_a = flag_b = 0;
    OK(cuGraphExecHostNodeSetParams(x, h, &pb));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    ASSERT(get_flag(&flag_b) && !get_flag(&flag_a));
    EXPECT(cuGraphExecHostNodeSetParams(x, hc, &pb), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphHostNodeGetParams(h, &out));
    ASSERT(out.userData == &flag_a);

    /* Update from the graph: same shape, its parameters again. */
    CUgraphExecUpdateResultInfo info;
    flag_a = flag_b = 0;
    OK(cuGraphExecUpdate(x, g, &info));
    ASSERT(info.result == CU_GRAPH_EXEC_UPDATE_SUCCESS);
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    ASSERT(get_flag(&flag_a) && !get_flag(&flag_b));
    /* From the clone (same shape): the clone's parameters. */
    flag_a = flag_b = 0;
    OK(cuGraphExecUpdate(x, c, &info));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    ASSERT(get_flag(&flag_b) && !get_flag(&flag_a));
    /* A changed topology is refused and changes nothing. */
    OK(cuGraphAddEmptyNode(&h2, c, &hc, 1));
    EXPECT(cuGraphExecUpdate(x, c, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    ASSERT(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
    /* A changed node type too. */
    CUgraph g3;
    CUgraphNode e3;
    OK(cuGraphCreate(&g3, 0));
    OK(cuGraphAddEmptyNode(&e3, g3, NULL, 0));
    EXPECT(cuGraphExecUpdate(x, g3, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    ASSERT(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED && info.errorNode == e3);
    EXPECT(cuGraphExecUpdate(x, g3, NULL), CUDA_ERROR_INVALID_VALUE);
    flag_a = flag_b = 0;
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    ASSERT(get_flag(&flag_b) && !get_flag(&flag_a));

    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g3));
    OK(cuGraphDestroy(c));
    OK(cuGraphDestroy(g));
}

/* Event nodes: a wait node holds the graph's later nodes until the event completes; a record
 * node records on the launch stream. */
static void events(CUstream s) {
    CUstream other;
    CUevent gate_ev, done;
    CUgraph g;
    CUgraphNode w, h, r;
    gate_t gate;
    int ran = 0;
    gate_init(&gate, CUDA_SUCCESS);
    OK(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    OK(cuEventCreate(&gate_ev, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphAddEventWaitNode(&w, g, NULL, 0, gate_ev));
    CUDA_HOST_NODE_PARAMS hp = {set_flag, &ran};
    OK(cuGraphAddHostNode(&h, g, &w, 1, &hp));
    OK(cuGraphAddEventRecordNode(&r, g, &h, 1, done));
    CUgraphNodeType type;
    OK(cuGraphNodeGetType(w, &type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_WAIT_EVENT);
    OK(cuGraphNodeGetType(r, &type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_EVENT_RECORD);
    CUevent got = NULL;
    OK(cuGraphEventWaitNodeGetEvent(w, &got));
    ASSERT(got == gate_ev);
    OK(cuGraphEventRecordNodeGetEvent(r, &got));
    ASSERT(got == done);
    EXPECT(cuGraphEventRecordNodeGetEvent(w, &got), CUDA_ERROR_INVALID_VALUE);
    CUgraphNode bad;
    EXPECT(cuGraphAddEventRecordNode(&bad, g, NULL, 0, (CUevent)0x777), CUDA_ERROR_INVALID_HANDLE);

    OK(aclrtxCuLaunchHostKernel(other, gate_kernel, &gate));
    OK(cuEventRecord(gate_ev, other));
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, s));
    EXPECT(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    EXPECT(cuEventQuery(done), CUDA_ERROR_NOT_READY);
    ASSERT(!get_flag(&ran));
    gate_open(&gate);
    OK(cuEventSynchronize(done));
    ASSERT(get_flag(&ran));
    OK(cuStreamSynchronize(s));
    /* A new event for the record node: on the executable graph, then on the graph. */
    CUevent done2;
    OK(cuEventCreate(&done2, CU_EVENT_DISABLE_TIMING));
    OK(cuGraphExecEventRecordNodeSetEvent(x, r, done2));
    EXPECT(cuGraphExecEventWaitNodeSetEvent(x, r, done2), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphEventRecordNodeGetEvent(r, &got));
    ASSERT(got == done);
    OK(cuGraphLaunch(x, s));
    OK(cuEventSynchronize(done2));
    OK(cuStreamSynchronize(s));
    OK(cuGraphEventRecordNodeSetEvent(r, done2));
    OK(cuGraphEventRecordNodeGetEvent(r, &got));
    ASSERT(got == done2);
    OK(cuGraphEventWaitNodeSetEvent(w, done));
    OK(cuGraphEventWaitNodeGetEvent(w, &got));
    ASSERT(got == done);
    EXPECT(cuGraphEventWaitNodeSetEvent(w, (CUevent)0x777), CUDA_ERROR_INVALID_HANDLE);
    OK(cuEventDestroy(done2));
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuEventDestroy(gate_ev));
    OK(cuEventDestroy(done));
    OK(cuStreamDestroy(other));
}

/* Nodes made by capture answer the structural queries; their parameters are not kept. */
static void captured(CUstream s) {
    CUgraph g;
    int ran = 0;
    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuLaunchHostFunc(s, set_flag, &ran));
    OK(cuLaunchHostFunc(s, set_flag, &ran));
    OK(cuStreamEndCapture(s, &g));
    CUgraphNode nodes[2];
    size_t n = 2;
    OK(cuGraphGetNodes(g, nodes, &n));
    ASSERT(n == 2);
    CUgraphNodeType type;
    OK(cuGraphNodeGetType(nodes[1], &type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_HOST);
    CUgraphNode dep = NULL;
    n = 1;
    OK(cuGraphNodeGetDependencies(nodes[1], &dep, &n));
    ASSERT(n == 1 && dep == nodes[0]);
    CUDA_HOST_NODE_PARAMS hp;
    EXPECT(cuGraphHostNodeGetParams(nodes[0], &hp), CUDA_ERROR_NOT_SUPPORTED);
    /* Capture dependencies updated by hand: added, then set. */
    CUstreamCaptureStatus cs;
    const CUgraphNode *now = NULL;
    CUgraphNode first = NULL, foreign;
    size_t ndeps = 0;
    EXPECT(cuStreamUpdateCaptureDependencies(s, NULL, 0, CU_STREAM_ADD_CAPTURE_DEPENDENCIES),
           CUDA_ERROR_ILLEGAL_STATE);
    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuLaunchHostFunc(s, set_flag, &ran));
    OK(cuStreamGetCaptureInfo(s, &cs, NULL, NULL, &now, &ndeps));
    ASSERT(ndeps == 1);
    first = now[0];
    OK(cuLaunchHostFunc(s, set_flag, &ran));
    OK(cuStreamUpdateCaptureDependencies(s, &first, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES));
    OK(cuStreamGetCaptureInfo(s, &cs, NULL, NULL, &now, &ndeps));
    ASSERT(ndeps == 2 && now[1] == first);
    EXPECT(cuStreamUpdateCaptureDependencies(s, &first, 1, 7), CUDA_ERROR_INVALID_VALUE);
    foreign = nodes[0];
    EXPECT(cuStreamUpdateCaptureDependencies(s, &foreign, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamUpdateCaptureDependencies(s, NULL, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES),
           CUDA_ERROR_INVALID_VALUE);
    CUgraphEdgeData port = {1, 0, 0, {0}};
    EXPECT(cuStreamUpdateCaptureDependencies_v2(s, &first, &port, 1,
                                                CU_STREAM_ADD_CAPTURE_DEPENDENCIES),
           CUDA_ERROR_NOT_SUPPORTED);
    OK(cuStreamGetCaptureInfo(s, &cs, NULL, NULL, &now, &ndeps));
    ASSERT(ndeps == 2);
    OK(cuLaunchHostFunc(s, set_flag, &ran));
    CUgraph g2;
    OK(cuStreamEndCapture(s, &g2));
    CUgraphNode all[3], deps2[3];
    n = 3;
    OK(cuGraphGetNodes(g2, all, &n));
    ASSERT(n == 3);
    n = 3;
    OK(cuGraphNodeGetDependencies(all[2], deps2, &n));
    ASSERT(n == 2 && deps2[0] == all[1] && deps2[1] == all[0]);
    OK(cuGraphDestroy(g2));
    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuLaunchHostFunc(s, set_flag, &ran));
    OK(cuStreamGetCaptureInfo(s, &cs, NULL, NULL, &now, &ndeps));
    first = now[0];
    OK(cuLaunchHostFunc(s, set_flag, &ran));
    OK(cuStreamGetCaptureInfo(s, &cs, NULL, NULL, &now, &ndeps));
    CUgraphNode second = now[0];
    OK(cuStreamUpdateCaptureDependencies(s, &second, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
    OK(cuStreamGetCaptureInfo(s, &cs, NULL, NULL, &now, &ndeps));
    ASSERT(ndeps == 1 && now[0] == second && second != first);
    OK(cuStreamEndCapture(s, &g2));
    OK(cuGraphDestroy(g2));

    /* A node added to a captured graph runs after the captured ones it depends on. */
    log_entry_t tail = {&order_log, 't'};
    reset_log();
    host_node(g, &nodes[1], 1, &tail);
    OK(cuGraphGetNodes(g, NULL, &n));
    ASSERT(n == 3);
    launch_and_wait(g, s);
    ASSERT(get_flag(&ran) && strcmp(order_log.entries, "t") == 0);
    OK(cuGraphDestroy(g));
}

/* Child graph nodes: a copy of the child taken when added; the node's own graph; clones,
 * executable graphs and updates. */
static void child_graphs(CUstream s) {
    CUgraph child, parent, embedded, other, copy, embedded2;
    CUgraphNode node, node2, inner[2];
    CUgraphNodeType type;
    size_t n;
    log_entry_t cx = {&order_log, 'x'}, cy = {&order_log, 'y'}, pp = {&order_log, 'p'},
                pz = {&order_log, 'z'}, om = {&order_log, 'm'}, on = {&order_log, 'n'};
    OK(cuGraphCreate(&child, 0));
    CUgraphNode a = host_node(child, NULL, 0, &cx);
    CUgraphNode b = host_node(child, &a, 1, &cy);
    OK(cuGraphCreate(&parent, 0));
    CUgraphNode first = host_node(parent, NULL, 0, &pp);
    OK(cuGraphAddChildGraphNode(&node, parent, &first, 1, child));
    host_node(parent, &node, 1, &pz);
    OK(cuGraphNodeGetType(node, &type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_GRAPH);
    /* The child was copied: changing it now changes nothing. */
    OK(cuGraphDestroyNode(b));
    reset_log();
    launch_and_wait(parent, s);
    ASSERT(strcmp(order_log.entries, "pxyz") == 0);

    /* The node's own graph: edits show in executable graphs made afterwards. */
    OK(cuGraphChildGraphNodeGetGraph(node, &embedded));
    ASSERT(embedded != child);
    n = 2;
    OK(cuGraphGetNodes(embedded, inner, &n));
    ASSERT(n == 2);
    EXPECT(cuGraphDestroy(embedded), CUDA_ERROR_INVALID_VALUE);
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, parent, 0));
    OK(cuGraphDestroyNode(inner[1]));
    reset_log();
    launch_and_wait(parent, s);
    ASSERT(strcmp(order_log.entries, "pxz") == 0);
    reset_log();
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    ASSERT(strcmp(order_log.entries, "pxyz") == 0);

    /* An executable graph's child: another graph of the same shape. */
    OK(cuGraphCreate(&other, 0));
    CUgraphNode m = host_node(other, NULL, 0, &om);
    host_node(other, &m, 1, &on);
    OK(cuGraphExecChildGraphNodeSetParams(x, node, other));
    reset_log();
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    ASSERT(strcmp(order_log.entries, "pmnz") == 0);
    EXPECT(cuGraphExecChildGraphNodeSetParams(x, node, child), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphExecChildGraphNodeSetParams(x, first, other), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphChildGraphNodeGetGraph(first, &embedded2), CUDA_ERROR_INVALID_VALUE);

    /* A clone copies child graphs too. */
    OK(cuGraphClone(&copy, parent));
    OK(cuGraphNodeFindInClone(&node2, node, copy));
    OK(cuGraphChildGraphNodeGetGraph(node2, &embedded2));
    ASSERT(embedded2 != embedded);
    reset_log();
    launch_and_wait(copy, s);
    ASSERT(strcmp(order_log.entries, "pxz") == 0);
    /* An update whose child graph changed shape is refused. */
    CUgraphExecUpdateResultInfo info;
    EXPECT(cuGraphExecUpdate(x, copy, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    ASSERT(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED && info.errorNode == node2);
    /* Destroying a graph, or the node, takes its child graphs. */
    OK(cuGraphDestroy(copy));
    EXPECT(cuGraphGetNodes(embedded2, NULL, &n), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroyNode(node));
    EXPECT(cuGraphGetNodes(embedded, NULL, &n), CUDA_ERROR_INVALID_VALUE);

    /* A graph launch recorded by capture is a graph node without a graph of its own. */
    CUgraph captured_graph;
    CUgraphExec cx2;
    CUgraphNode launch_node;
    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamEndCapture(s, &captured_graph));
    n = 1;
    OK(cuGraphGetNodes(captured_graph, &launch_node, &n));
    OK(cuGraphNodeGetType(launch_node, &type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_GRAPH);
    EXPECT(cuGraphChildGraphNodeGetGraph(launch_node, &embedded2), CUDA_ERROR_NOT_SUPPORTED);
    OK(cuGraphInstantiate(&cx2, captured_graph, 0));
    EXPECT(cuGraphExecChildGraphNodeSetParams(cx2, launch_node, other), CUDA_ERROR_NOT_SUPPORTED);
    reset_log();
    OK(cuGraphLaunch(cx2, s));
    OK(cuStreamSynchronize(s));
    ASSERT(strcmp(order_log.entries, "pmnz") == 0);
    OK(cuGraphExecDestroy(cx2));
    OK(cuGraphDestroy(captured_graph));
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(other));
    OK(cuGraphDestroy(parent));
    OK(cuGraphDestroy(child));
}

/* The generic calls: a CUgraphNodeParams goes to its type's call. */
static void generic_nodes(CUstream s, CUcontext ctx, CUfunction scale) {
    enum { N = 64 };
    CUgraph g, sub;
    CUgraphExec x;
    CUgraphNode set, copy, host, rec, empty, child;
    CUgraphNodeParams p;
    CUdeviceptr d;
    unsigned int out[N];
    CUevent ev;
    int type = -1;
    OK(cuMemAlloc(&d, N * 4));
    OK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
    flag_a = flag_b = 0;
    OK(cuGraphCreate(&g, 0));

    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEMSET;
    p.memset = (CUDA_MEMSET_NODE_PARAMS_v2){d, 0, 0x01020304, 4, N, 1, ctx};
    OK(cuGraphAddNode(&set, g, NULL, 0, &p));
    CUDA_MEMSET_NODE_PARAMS ms;
    OK(cuGraphMemsetNodeGetParams(set, &ms));
    ASSERT(ms.dst == d && ms.value == 0x01020304 && ms.elementSize == 4 && ms.width == N);
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEMCPY;
    p.memcpy.copyCtx = ctx;
    p.memcpy.copyParams.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    p.memcpy.copyParams.srcDevice = d;
    p.memcpy.copyParams.dstMemoryType = CU_MEMORYTYPE_HOST;
    p.memcpy.copyParams.dstHost = out;
    p.memcpy.copyParams.WidthInBytes = N * 4;
    p.memcpy.copyParams.Height = 1;
    p.memcpy.copyParams.Depth = 1;
    p.memcpy.flags = 1; /* must be 0 */
    EXPECT(cuGraphAddNode(&copy, g, &set, 1, &p), CUDA_ERROR_INVALID_VALUE);
    p.memcpy.flags = 0;
    p.memcpy.reserved = 1; /* must be 0 */
    EXPECT(cuGraphAddNode(&copy, g, &set, 1, &p), CUDA_ERROR_INVALID_VALUE);
    p.memcpy.reserved = 0;
    OK(cuGraphAddNode(&copy, g, &set, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_HOST;
    p.host.fn = set_flag;
    p.host.userData = &flag_a;
    OK(cuGraphAddNode_v2(&host, g, &copy, NULL, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_EVENT_RECORD;
    p.eventRecord.event = ev;
    OK(cuGraphAddNode(&rec, g, &host, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_EMPTY;
    OK(cuGraphAddNode(&empty, g, &rec, 1, &p));
    const CUgraphNode nodes[] = {set, copy, host, rec, empty};
    const int types[] = {CU_GRAPH_NODE_TYPE_MEMSET, CU_GRAPH_NODE_TYPE_MEMCPY, CU_GRAPH_NODE_TYPE_HOST,
                         CU_GRAPH_NODE_TYPE_EVENT_RECORD, CU_GRAPH_NODE_TYPE_EMPTY};
    for (int i = 0; i < 5; i++) {
        OK(cuGraphNodeGetType(nodes[i], (CUgraphNodeType *)&type));
        ASSERT(type == types[i]);
    }
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    ASSERT(out[0] == 0x01020304 && out[N - 1] == 0x01020304 && get_flag(&flag_a));
    OK(cuEventQuery(ev));

    /* Setting: the node must be of the type given. */
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_HOST;
    p.host.fn = set_flag;
    p.host.userData = &flag_b;
    EXPECT(cuGraphExecNodeSetParams(x, set, &p), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphExecNodeSetParams(x, host, &p));
    OK(cuGraphNodeSetParams(host, &p));
    CUDA_HOST_NODE_PARAMS hp;
    OK(cuGraphHostNodeGetParams(host, &hp));
    ASSERT(hp.fn == set_flag && hp.userData == &flag_b);
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEMSET;
    p.memset = (CUDA_MEMSET_NODE_PARAMS_v2){d, 0, 0x0A0B0C0D, 4, N, 1, ctx};
    OK(cuGraphExecNodeSetParams(x, set, &p));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    ASSERT(out[0] == 0x0A0B0C0D && get_flag(&flag_b));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_EMPTY;
    OK(cuGraphNodeSetParams(empty, &p));
    EXPECT(cuGraphNodeSetParams(set, &p), CUDA_ERROR_INVALID_VALUE);
    /* An executable graph's empty node: the executable graph is looked up too. */
    OK(cuGraphExecNodeSetParams(x, empty, &p));
    EXPECT(cuGraphExecNodeSetParams(x, set, &p), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphExecNodeSetParams((CUgraphExec)(uintptr_t)0x1234, empty, &p),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphExecNodeSetParams(NULL, empty, &p), CUDA_ERROR_INVALID_VALUE);

    /* Child graphs: a copy only; a graph's child graph node cannot be set. */
    OK(cuGraphCreate(&sub, 0));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_GRAPH;
    p.graph.graph = sub;
    p.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE;
    EXPECT(cuGraphAddNode(&child, g, NULL, 0, &p), CUDA_ERROR_NOT_SUPPORTED);
    p.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE;
    OK(cuGraphAddNode(&child, g, NULL, 0, &p));
    OK(cuGraphNodeGetType(child, (CUgraphNodeType *)&type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_GRAPH);
    EXPECT(cuGraphNodeSetParams(child, &p), CUDA_ERROR_NOT_SUPPORTED);

    /* Refused: NULL, unknown types, types with no nodes here, edges that are not default. */
    EXPECT(cuGraphAddNode(&empty, g, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    memset(&p, 0, sizeof p);
    p.type = (CUgraphNodeType)99;
    EXPECT(cuGraphAddNode(&empty, g, NULL, 0, &p), CUDA_ERROR_INVALID_VALUE);
    p.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    EXPECT(cuGraphAddNode(&empty, g, NULL, 0, &p), CUDA_ERROR_NOT_SUPPORTED);
    p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    EXPECT(cuGraphExecNodeSetParams(x, set, &p), CUDA_ERROR_NOT_SUPPORTED);
    p.type = CU_GRAPH_NODE_TYPE_EMPTY;
    CUgraphEdgeData edge;
    memset(&edge, 0, sizeof edge);
    edge.type = 1;
    EXPECT(cuGraphAddNode_v2(&empty, g, &set, &edge, 1, &p), CUDA_ERROR_NOT_SUPPORTED);

    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(sub));

    /* Kernel, event wait and batch memory operation nodes: set 1.5, scale by 2, wait for the
     * event, write a word. */
    union {
        float f;
        unsigned u;
    } one = {1.5f};
    float two = 2.0f, four = 4.0f, result[N];
    unsigned count = N;
    void *args[] = {&d, &two, &count};
    unsigned *word;
    OK(cuMemAllocHost((void **)&word, 4));
    *word = 0;
    CUgraphNode kern, wait, op;
    OK(cuGraphCreate(&g, 0));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEMSET;
    p.memset = (CUDA_MEMSET_NODE_PARAMS_v2){d, 0, one.u, 4, N, 1, ctx};
    OK(cuGraphAddNode(&set, g, NULL, 0, &p));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_KERNEL;
    p.kernel.func = scale;
    p.kernel.gridDimX = p.kernel.gridDimY = p.kernel.gridDimZ = 1;
    p.kernel.blockDimX = p.kernel.blockDimY = p.kernel.blockDimZ = 1;
    p.kernel.kernelParams = args;
    OK(cuGraphAddNode(&kern, g, &set, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_WAIT_EVENT;
    p.eventWait.event = ev;
    OK(cuGraphAddNode(&wait, g, &kern, 1, &p));
    CUstreamBatchMemOpParams write;
    memset(&write, 0, sizeof write);
    write.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    write.writeValue.address = (CUdeviceptr)(uintptr_t)word;
    write.writeValue.value = 7;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
    p.memOp = (CUDA_BATCH_MEM_OP_NODE_PARAMS_v2){ctx, 1, &write, 0};
    OK(cuGraphAddNode(&op, g, &wait, 1, &p));
    OK(cuGraphNodeGetType(op, (CUgraphNodeType *)&type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
    OK(cuGraphNodeGetType(wait, (CUgraphNodeType *)&type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_WAIT_EVENT);
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(result, d, sizeof result));
    ASSERT(result[0] == 3.0f && result[N - 1] == 3.0f && *(volatile unsigned *)word == 7);
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_KERNEL;
    p.kernel.func = scale;
    p.kernel.gridDimX = p.kernel.gridDimY = p.kernel.gridDimZ = 1;
    p.kernel.blockDimX = p.kernel.blockDimY = p.kernel.blockDimZ = 1;
    args[1] = &four;
    p.kernel.kernelParams = args;
    OK(cuGraphExecNodeSetParams(x, kern, &p));
    write.writeValue.value = 9;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
    p.memOp = (CUDA_BATCH_MEM_OP_NODE_PARAMS_v2){ctx, 1, &write, 0};
    OK(cuGraphExecNodeSetParams(x, op, &p));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(result, d, sizeof result));
    ASSERT(result[0] == 6.0f && *(volatile unsigned *)word == 9);
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuMemFreeHost(word));
    OK(cuEventDestroy(ev));
    OK(cuMemFree(d));
}

int main(void) {
    CUcontext ctx;
    CUstream s;
    CUmodule mod;
    CUfunction scale;
    OK(cuInit(0));
    OK(cuCtxCreate(&ctx, 0, 0));
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    const char *kernels = getenv("ACLRT_TEST_KERNELS");
    ASSERT(kernels != NULL);
    OK(cuModuleLoad(&mod, kernels));
    OK(cuModuleGetFunction(&scale, mod, "scale"));
    diamond(s);
    memory_and_kernels(s, scale);
    host_params_clone_update(s);
    events(s);
    captured(s);
    child_graphs(s);
    generic_nodes(s, ctx, scale);
    /* What is not provided is exported and says so. */
    CUgraph g;
    CUgraphNode n;
    OK(cuGraphCreate(&g, 0));
    EXPECT(cuGraphAddMemFreeNode(&n, g, NULL, 0, 0), CUDA_ERROR_NOT_SUPPORTED);
    OK(cuGraphDestroy(g));
    OK(cuModuleUnload(mod));
    OK(cuStreamDestroy(s));
    OK(cuCtxDestroy(ctx));
    printf("graphs: ok\n");
    return 0;
}
