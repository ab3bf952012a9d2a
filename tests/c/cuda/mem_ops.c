/* Stream memory operations: cuStreamWaitValue32/64, cuStreamWriteValue32/64 and
 * cuStreamBatchMemOp. A wait that does not hold keeps its stream NOT_READY whatever has run
 * elsewhere, so every "still waiting" below is exact: the writes that do not satisfy it have
 * completed (their stream was synchronised) before the query. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static CUstream waiter, writer;

static uint32_t load32(volatile uint32_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static uint64_t load64(volatile uint64_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

/* Writes `value` from the writer stream and waits for it. */
static void write32(CUdeviceptr word, uint32_t value) {
    OK(cuStreamWriteValue32(writer, word, value, CU_STREAM_WRITE_VALUE_DEFAULT));
    OK(cuStreamSynchronize(writer));
}

static void write64(CUdeviceptr word, uint64_t value) {
    OK(cuStreamWriteValue64(writer, word, value, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER));
    OK(cuStreamSynchronize(writer));
}

/* A 32-bit wait on `word` (starting at `start`) with `flags` and `value`: `miss` leaves it
 * waiting, `hit` releases it. */
static void wait32_case(CUdeviceptr word, uint32_t start, unsigned flags, uint32_t value,
                        uint32_t miss, uint32_t hit) {
    write32(word, start);
    OK(cuStreamWaitValue32(waiter, word, value, flags));
    EXPECT(cuStreamQuery(waiter), CUDA_ERROR_NOT_READY);
    write32(word, miss);
    EXPECT(cuStreamQuery(waiter), CUDA_ERROR_NOT_READY);
    write32(word, hit);
    OK(cuStreamSynchronize(waiter));
}

static void wait64_case(CUdeviceptr word, uint64_t start, unsigned flags, uint64_t value,
                        uint64_t miss, uint64_t hit) {
    write64(word, start);
    OK(cuStreamWaitValue64(waiter, word, value, flags));
    EXPECT(cuStreamQuery(waiter), CUDA_ERROR_NOT_READY);
    write64(word, miss);
    EXPECT(cuStreamQuery(waiter), CUDA_ERROR_NOT_READY);
    write64(word, hit);
    OK(cuStreamSynchronize(waiter));
}

static int after_wait;
static void mark(void *arg) { __atomic_store_n((int *)arg, 1, __ATOMIC_SEQ_CST); }

static CUstreamBatchMemOpParams op_value(CUstreamBatchMemOpType op, CUdeviceptr addr,
                                         uint64_t value, unsigned flags) {
    CUstreamBatchMemOpParams p;
    memset(&p, 0, sizeof p);
    p.waitValue.operation = op;
    p.waitValue.address = addr;
    if (op == CU_STREAM_MEM_OP_WAIT_VALUE_32 || op == CU_STREAM_MEM_OP_WRITE_VALUE_32) {
        p.waitValue.value = (cuuint32_t)value;
    } else {
        p.waitValue.value64 = value;
    }
    p.waitValue.flags = flags;
    return p;
}

static CUstreamBatchMemOpParams op_flags(CUstreamBatchMemOpType op, unsigned flags) {
    CUstreamBatchMemOpParams p;
    memset(&p, 0, sizeof p);
    p.memoryBarrier.operation = op;
    p.memoryBarrier.flags = flags;
    return p;
}

int main(void) {
    CUcontext ctx;
    int attr = -1;
    OK(cuInit(0));
    OK(cuCtxCreate(&ctx, 0, 0));
    OK(cuStreamCreate(&waiter, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&writer, CU_STREAM_NON_BLOCKING));
    ASSERT(sizeof(CUstreamBatchMemOpParams) == 48);

    /* The device says it has them, 64-bit and NOR included, and can flush remote writes. */
    const CUdevice_attribute attrs[] = {
        CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1,
        CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES,
        CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        OK(cuDeviceGetAttribute(&attr, attrs[i], 0));
        ASSERT(attr == 1);
    }

    /* Pinned host words (the host reads them directly) and device words. */
    void *host = NULL;
    OK(cuMemAllocHost(&host, 64));
    memset(host, 0, 64);
    CUdeviceptr h = (CUdeviceptr)(uintptr_t)host;
    volatile uint32_t *h32 = host;
    volatile uint64_t *h64 = host;
    CUdeviceptr dev;
    OK(cuMemAlloc(&dev, 64));

    /* A wait released by a write from another stream; work after the wait runs after it. */
    OK(cuStreamWaitValue32(waiter, h, 1, CU_STREAM_WAIT_VALUE_EQ));
    OK(cuLaunchHostFunc(waiter, mark, &after_wait));
    EXPECT(cuStreamQuery(waiter), CUDA_ERROR_NOT_READY);
    ASSERT(__atomic_load_n(&after_wait, __ATOMIC_SEQ_CST) == 0);
    OK(cuStreamWriteValue32(writer, h, 1, CU_STREAM_WRITE_VALUE_DEFAULT));
    OK(cuStreamSynchronize(waiter));
    ASSERT(after_wait == 1 && load32(h32) == 1);

    /* Each comparison, 32 bits: GEQ is cyclic (2 comes after 0xFFFFFFF8 modulo 2^32). */
    wait32_case(h, 0, CU_STREAM_WAIT_VALUE_GEQ, 5, 4, 5);
    wait32_case(h, 0xFFFFFFF0u, CU_STREAM_WAIT_VALUE_GEQ, 0xFFFFFFF8u, 0xFFFFFFF7u, 2);
    wait32_case(h, 0, CU_STREAM_WAIT_VALUE_EQ, 7, 8, 7);
    wait32_case(h, 0, CU_STREAM_WAIT_VALUE_AND, 0x10, 0x0F, 0x30);
    wait32_case(h, 0xFFFFFFFFu, CU_STREAM_WAIT_VALUE_NOR, 0xFFFF0000u, 0x0000FFFFu, 0x0000FF00u);
    wait32_case(h, 0, CU_STREAM_WAIT_VALUE_EQ | CU_STREAM_WAIT_VALUE_FLUSH, 3, 2, 3);
    /* In device memory too. */
    wait32_case(dev + 4, 0, CU_STREAM_WAIT_VALUE_GEQ, 9, 8, 10);

    /* 64 bits: the high half counts. */
    wait64_case(h + 8, 0, CU_STREAM_WAIT_VALUE_GEQ, 0x100000000ull, 0xFFFFFFFFull, 0x100000000ull);
    wait64_case(h + 8, 0, CU_STREAM_WAIT_VALUE_EQ, 0x500000007ull, 7, 0x500000007ull);
    wait64_case(h + 8, 0, CU_STREAM_WAIT_VALUE_AND, 0x100000000ull, 0xFFFFFFFFull, 0x300000000ull);
    wait64_case(h + 8, UINT64_MAX, CU_STREAM_WAIT_VALUE_NOR, 0xFFFFFFFF00000000ull, 0xFFFFFFFFull,
                0xFFFFFFFEull);
    wait64_case(dev + 8, 0, CU_STREAM_WAIT_VALUE_EQ, 42, 41, 42);

    /* A 32-bit write changes 4 bytes only. */
    write64(h + 16, 0x1111111122222222ull);
    write32(h + 16, 0x33333333u);
    ASSERT(load64(h64 + 2) == 0x1111111133333333ull);
    uint64_t back = 0;
    write64(dev + 16, 0xAAAAAAAABBBBBBBBull);
    write32(dev + 20, 0xCCCCCCCCu);
    OK(cuMemcpyDtoHAsync(&back, dev + 16, 8, writer));
    OK(cuStreamSynchronize(writer));
    ASSERT(back == 0xCCCCCCCCBBBBBBBBull);

    /* A batch runs in its order: the write before the wait is done while the wait holds the
     * rest back; the second stream sees it and releases the wait. */
    memset(host, 0, 64);
    CUstreamBatchMemOpParams ops[5] = {
        op_value(CU_STREAM_MEM_OP_WRITE_VALUE_32, h, 1, 0),
        op_value(CU_STREAM_MEM_OP_WAIT_VALUE_32, h + 4, 2, CU_STREAM_WAIT_VALUE_EQ),
        op_value(CU_STREAM_MEM_OP_WRITE_VALUE_64, h + 8, 0x700000003ull, 0),
        op_flags(CU_STREAM_MEM_OP_BARRIER, CU_STREAM_MEMORY_BARRIER_TYPE_SYS),
        op_flags(CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES, 0),
    };
    OK(cuStreamBatchMemOp(waiter, 5, ops, 0));
    OK(cuStreamWaitValue32(writer, h, 1, CU_STREAM_WAIT_VALUE_EQ));
    OK(cuStreamSynchronize(writer));
    ASSERT(load32(h32) == 1);
    EXPECT(cuStreamQuery(waiter), CUDA_ERROR_NOT_READY);
    ASSERT(load64(h64 + 1) == 0);
    write32(h + 4, 2);
    OK(cuStreamSynchronize(waiter));
    ASSERT(load64(h64 + 1) == 0x700000003ull);
    /* No operations: nothing to do. */
    OK(cuStreamBatchMemOp(waiter, 0, NULL, 0));

    /* Bad input: CUDA_ERROR_INVALID_VALUE, and nothing of a refused batch is queued. */
    memset(host, 0, 64);
    EXPECT(cuStreamWaitValue32(waiter, h, 0, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamWaitValue32(waiter, h, 0, 1u << 29), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamWaitValue64(waiter, h, 0, CU_STREAM_WAIT_VALUE_FLUSH | 5), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamWriteValue32(waiter, h, 0, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamWriteValue64(waiter, h, 0, 0x80000000u), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamWaitValue32(waiter, h + 2, 0, 0), CUDA_ERROR_INVALID_VALUE);    /* unaligned */
    EXPECT(cuStreamWriteValue64(waiter, h + 4, 0, 0), CUDA_ERROR_INVALID_VALUE);   /* unaligned */
    EXPECT(cuStreamWriteValue32(waiter, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);       /* NULL */
    CUdeviceptr freed;
    OK(cuMemAlloc(&freed, 64));
    OK(cuMemFree(freed));
    EXPECT(cuStreamWriteValue64(waiter, freed, 0, 0), CUDA_ERROR_INVALID_VALUE);
    uint64_t pageable = 0;
    EXPECT(cuStreamWriteValue64(waiter, (CUdeviceptr)(uintptr_t)&pageable, 1, 0), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr managed;
    OK(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL));
    EXPECT(cuStreamWriteValue32(waiter, managed, 1, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamWaitValue64(waiter, managed, 0, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(managed));
    CUstreamBatchMemOpParams bad[3] = {
        op_value(CU_STREAM_MEM_OP_WRITE_VALUE_32, h, 9, 0),
        op_value(CU_STREAM_MEM_OP_WRITE_VALUE_64, h + 8, 9, 0),
    };
    EXPECT(cuStreamBatchMemOp(waiter, 2, bad, 1), CUDA_ERROR_INVALID_VALUE); /* reserved flags */
    EXPECT(cuStreamBatchMemOp(waiter, 1, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    bad[2] = op_flags((CUstreamBatchMemOpType)7, 0);
    EXPECT(cuStreamBatchMemOp(waiter, 3, bad, 0), CUDA_ERROR_INVALID_VALUE); /* unknown op */
    bad[2] = op_flags(CU_STREAM_MEM_OP_BARRIER, CU_STREAM_MEMORY_BARRIER_TYPE_GPU);
    /* The barrier is only in the second ABI (cuStreamBatchMemOp is it through the header). */
#undef cuStreamBatchMemOp
    CUresult cuStreamBatchMemOp(CUstream, unsigned int, CUstreamBatchMemOpParams *, unsigned int);
    EXPECT(cuStreamBatchMemOp(waiter, 3, bad, 0), CUDA_ERROR_INVALID_VALUE);
    bad[2] = op_flags(CU_STREAM_MEM_OP_BARRIER, 2);
    EXPECT(cuStreamBatchMemOp_v2(waiter, 3, bad, 0), CUDA_ERROR_INVALID_VALUE);
    bad[2] = op_flags(CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES, 1);
    EXPECT(cuStreamBatchMemOp_v2(waiter, 3, bad, 0), CUDA_ERROR_INVALID_VALUE);
    bad[2] = op_value(CU_STREAM_MEM_OP_WAIT_VALUE_32, h + 1, 0, 0);
    EXPECT(cuStreamBatchMemOp_v2(waiter, 3, bad, 0), CUDA_ERROR_INVALID_VALUE);
    static CUstreamBatchMemOpParams many[256];
    for (int i = 0; i < 256; i++) many[i] = op_value(CU_STREAM_MEM_OP_WRITE_VALUE_32, h, 9, 0);
    EXPECT(cuStreamBatchMemOp_v2(waiter, 256, many, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamSynchronize(waiter));
    ASSERT(load64(h64) == 0 && load64(h64 + 1) == 0); /* none of the refused writes ran */
    OK(cuStreamBatchMemOp_v2(waiter, 255, many, 0));
    bad[2] = op_flags(CU_STREAM_MEM_OP_BARRIER, CU_STREAM_MEMORY_BARRIER_TYPE_GPU);
    OK(cuStreamBatchMemOp_v2(waiter, 3, bad, 0));
    OK(cuStreamSynchronize(waiter));
    ASSERT(load32(h32) == 9 && load64(h64 + 1) == 9);

    /* A destroyed stream is CUDA_ERROR_INVALID_HANDLE; the first ABI names work alike. */
    CUstream gone;
    OK(cuStreamCreate(&gone, CU_STREAM_NON_BLOCKING));
    OK(cuStreamDestroy(gone));
    EXPECT(cuStreamWriteValue32(gone, h, 1, 0), CUDA_ERROR_INVALID_HANDLE);
#undef cuStreamWriteValue32
#undef cuStreamWaitValue32
    CUresult cuStreamWriteValue32(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
    CUresult cuStreamWaitValue32(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
    OK(cuStreamWriteValue32(writer, h, 77, 0));
    OK(cuStreamWaitValue32(waiter, h, 77, CU_STREAM_WAIT_VALUE_EQ));
    OK(cuStreamSynchronize(waiter));
    EXPECT(cuStreamWaitValue32(waiter, h, 0, 7), CUDA_ERROR_INVALID_VALUE);

    /* The per-thread default stream variant: NULL is this thread's stream. */
    OK(cuStreamWriteValue64_v2_ptsz(NULL, h + 8, 0x55, 0));
    OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    ASSERT(load64(h64 + 1) == 0x55);

    /* Captured: one batch memory operation node, run at each launch and not before. */
    memset(host, 0, 64);
    CUgraph graph;
    CUgraphExec exec;
    CUgraphNode node;
    size_t n = 1;
    int type = -1;
    OK(cuStreamBeginCapture(waiter, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuStreamWriteValue32_v2(waiter, h, 5, 0));
    OK(cuStreamEndCapture(waiter, &graph));
    OK(cuGraphGetNodes(graph, &node, &n));
    ASSERT(n == 1);
    OK(cuGraphNodeGetType(node, (CUgraphNodeType *)&type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
    ASSERT(load32(h32) == 0);
    CUDA_BATCH_MEM_OP_NODE_PARAMS got;
    EXPECT(cuGraphBatchMemOpNodeGetParams(node, &got), CUDA_ERROR_NOT_SUPPORTED); /* not kept */
    OK(cuGraphInstantiate(&exec, graph, 0));
    OK(cuGraphLaunch(exec, waiter));
    OK(cuStreamSynchronize(waiter));
    ASSERT(load32(h32) == 5);
    write32(h, 0);
    OK(cuGraphLaunch(exec, waiter));
    OK(cuStreamSynchronize(waiter));
    ASSERT(load32(h32) == 5);
    /* A captured node's operations may change within an executable graph's limits. */
    CUstreamBatchMemOpParams six = op_value(CU_STREAM_MEM_OP_WRITE_VALUE_32, h + 4, 6, 0);
    CUDA_BATCH_MEM_OP_NODE_PARAMS p6 = {ctx, 1, &six, 0};
    OK(cuGraphExecBatchMemOpNodeSetParams(exec, node, &p6));
    six = op_value(CU_STREAM_MEM_OP_WRITE_VALUE_64, h + 8, 6, 0);
    EXPECT(cuGraphExecBatchMemOpNodeSetParams(exec, node, &p6), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphLaunch(exec, waiter));
    OK(cuStreamSynchronize(waiter));
    ASSERT(load32(h32 + 1) == 6 && load64(h64 + 1) == 0);
    OK(cuGraphExecDestroy(exec));
    OK(cuGraphDestroy(graph));

    /* Batch memory operation nodes added to a graph: the node keeps its own copy. */
    memset(host, 0, 64);
    CUstreamBatchMemOpParams nops[2] = {
        op_value(CU_STREAM_MEM_OP_WRITE_VALUE_32, h, 11, 0),
        op_value(CU_STREAM_MEM_OP_WAIT_VALUE_32, h + 4, 1, CU_STREAM_WAIT_VALUE_EQ),
    };
    CUDA_BATCH_MEM_OP_NODE_PARAMS np = {ctx, 2, nops, 0};
    CUgraph g2;
    CUgraphNode bn, empty;
    CUgraphExec x2;
    OK(cuGraphCreate(&g2, 0));
    OK(cuGraphAddBatchMemOpNode(&bn, g2, NULL, 0, &np));
    nops[0].writeValue.value = 99;
    OK(cuGraphNodeGetType(bn, (CUgraphNodeType *)&type));
    ASSERT(type == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
    OK(cuGraphBatchMemOpNodeGetParams(bn, &got));
    ASSERT(got.ctx == ctx && got.count == 2 && got.flags == 0 && got.paramArray != nops);
    ASSERT(got.paramArray[0].writeValue.operation == CU_STREAM_MEM_OP_WRITE_VALUE_32);
    ASSERT(got.paramArray[0].writeValue.address == h && got.paramArray[0].writeValue.value == 11);
    ASSERT(got.paramArray[1].waitValue.operation == CU_STREAM_MEM_OP_WAIT_VALUE_32);
    ASSERT(got.paramArray[1].waitValue.address == h + 4);
    ASSERT(got.paramArray[1].waitValue.flags == CU_STREAM_WAIT_VALUE_EQ);
    OK(cuGraphInstantiate(&x2, g2, 0));
    OK(cuGraphLaunch(x2, waiter));
    /* The write ran (the writer sees it); the wait holds the launch stream. */
    OK(cuStreamWaitValue32(writer, h, 11, CU_STREAM_WAIT_VALUE_EQ));
    OK(cuStreamSynchronize(writer));
    EXPECT(cuStreamQuery(waiter), CUDA_ERROR_NOT_READY);
    write32(h + 4, 1);
    OK(cuStreamSynchronize(waiter));
    /* Bad parameters. */
    EXPECT(cuGraphAddBatchMemOpNode(&bn, g2, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    CUDA_BATCH_MEM_OP_NODE_PARAMS no_array = {ctx, 1, NULL, 0};
    EXPECT(cuGraphAddBatchMemOpNode(&bn, g2, NULL, 0, &no_array), CUDA_ERROR_INVALID_VALUE);
    CUDA_BATCH_MEM_OP_NODE_PARAMS bad_flags = {ctx, 2, nops, 1};
    EXPECT(cuGraphAddBatchMemOpNode(&bn, g2, NULL, 0, &bad_flags), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphAddEmptyNode(&empty, g2, NULL, 0));
    EXPECT(cuGraphBatchMemOpNodeGetParams(empty, &got), CUDA_ERROR_INVALID_VALUE);
    /* An executable graph's node may change addresses, operands and conditions... */
    nops[0] = op_value(CU_STREAM_MEM_OP_WRITE_VALUE_32, h + 8, 22, 0);
    nops[1] = op_value(CU_STREAM_MEM_OP_WAIT_VALUE_32, h + 4, 0, CU_STREAM_WAIT_VALUE_GEQ);
    OK(cuGraphExecBatchMemOpNodeSetParams(x2, bn, &np));
    OK(cuGraphLaunch(x2, waiter));
    OK(cuStreamSynchronize(waiter));
    ASSERT(load32(h32 + 2) == 22);
    /* ...but not the count, a type, a write's flags or a wait's FLUSH bit. */
    np.count = 1;
    EXPECT(cuGraphExecBatchMemOpNodeSetParams(x2, bn, &np), CUDA_ERROR_INVALID_VALUE);
    np.count = 2;
    nops[0] = op_value(CU_STREAM_MEM_OP_WRITE_VALUE_64, h + 8, 1, 0);
    EXPECT(cuGraphExecBatchMemOpNodeSetParams(x2, bn, &np), CUDA_ERROR_INVALID_VALUE);
    nops[0] = op_value(CU_STREAM_MEM_OP_WRITE_VALUE_32, h + 8, 1, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER);
    EXPECT(cuGraphExecBatchMemOpNodeSetParams(x2, bn, &np), CUDA_ERROR_INVALID_VALUE);
    nops[0] = op_value(CU_STREAM_MEM_OP_WRITE_VALUE_32, h + 8, 1, 0);
    nops[1] = op_value(CU_STREAM_MEM_OP_WAIT_VALUE_32, h + 4, 0, CU_STREAM_WAIT_VALUE_GEQ | CU_STREAM_WAIT_VALUE_FLUSH);
    EXPECT(cuGraphExecBatchMemOpNodeSetParams(x2, bn, &np), CUDA_ERROR_INVALID_VALUE);
    nops[1] = op_value(CU_STREAM_MEM_OP_WAIT_VALUE_32, h + 4, 0, 7);
    EXPECT(cuGraphExecBatchMemOpNodeSetParams(x2, bn, &np), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphExecBatchMemOpNodeSetParams(x2, empty, &np), CUDA_ERROR_INVALID_VALUE);
    /* The graph's node may become any valid batch; the executable graph keeps what it has. */
    CUstreamBatchMemOpParams one = op_value(CU_STREAM_MEM_OP_WRITE_VALUE_64, h + 16, 33, 0);
    CUDA_BATCH_MEM_OP_NODE_PARAMS np1 = {ctx, 1, &one, 0};
    OK(cuGraphBatchMemOpNodeSetParams(bn, &np1));
    OK(cuGraphBatchMemOpNodeGetParams(bn, &got));
    ASSERT(got.count == 1 && got.paramArray[0].writeValue.value64 == 33);
    write32(h + 8, 0);
    OK(cuGraphLaunch(x2, waiter));
    OK(cuStreamSynchronize(waiter));
    ASSERT(load32(h32 + 2) == 22 && load64(h64 + 2) == 0);
    OK(cuGraphExecDestroy(x2));
    OK(cuGraphInstantiate(&x2, g2, 0));
    OK(cuGraphLaunch(x2, waiter));
    OK(cuStreamSynchronize(waiter));
    ASSERT(load64(h64 + 2) == 33);
    /* cuGraphExecUpdate keeps the same limits: a changed operand is taken, a changed type
     * is PARAMETERS_CHANGED. */
    CUgraph g3;
    CUgraphNode bn3;
    CUgraphExecUpdateResultInfo info;
    CUstreamBatchMemOpParams w3 = op_value(CU_STREAM_MEM_OP_WRITE_VALUE_64, h + 16, 44, 0);
    CUDA_BATCH_MEM_OP_NODE_PARAMS np3 = {ctx, 1, &w3, 0};
    OK(cuGraphClone(&g3, g2));
    OK(cuGraphNodeFindInClone(&bn3, bn, g3));
    OK(cuGraphBatchMemOpNodeSetParams(bn3, &np3));
    OK(cuGraphExecUpdate(x2, g3, &info));
    ASSERT(info.result == CU_GRAPH_EXEC_UPDATE_SUCCESS);
    OK(cuGraphLaunch(x2, waiter));
    OK(cuStreamSynchronize(waiter));
    ASSERT(load64(h64 + 2) == 44);
    w3 = op_value(CU_STREAM_MEM_OP_WRITE_VALUE_32, h + 16, 55, 0);
    OK(cuGraphBatchMemOpNodeSetParams(bn3, &np3));
    EXPECT(cuGraphExecUpdate(x2, g3, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    ASSERT(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED && info.errorNode == bn3);
    OK(cuGraphLaunch(x2, waiter));
    OK(cuStreamSynchronize(waiter));
    ASSERT(load64(h64 + 2) == 44); /* unchanged */
    OK(cuGraphDestroy(g3));
    OK(cuGraphExecDestroy(x2));
    OK(cuGraphDestroy(g2));

    /* A graph node's word is checked again at each launch: host memory unregistered since
     * capture is never written; the node's work faults instead (CUDA_ERROR_ILLEGAL_ADDRESS,
     * sticky on the context, as a device access to it would). In a context of its own. */
    {
        CUcontext fctx;
        CUstream fs;
        CUgraph fg;
        CUgraphExec fx;
        uint32_t *reg = aligned_alloc(4096, 4096);
        ASSERT(reg != NULL);
        memset(reg, 0, 4096);
        CUdeviceptr r = (CUdeviceptr)(uintptr_t)reg;
        OK(cuCtxCreate(&fctx, 0, 0));
        OK(cuStreamCreate(&fs, CU_STREAM_NON_BLOCKING));
        OK(cuMemHostRegister(reg, 4096, 0));
        OK(cuStreamBeginCapture(fs, CU_STREAM_CAPTURE_MODE_GLOBAL));
        OK(cuStreamWriteValue32(fs, r, 9, 0));
        OK(cuStreamEndCapture(fs, &fg));
        OK(cuGraphInstantiate(&fx, fg, 0));
        OK(cuGraphLaunch(fx, fs));
        OK(cuStreamSynchronize(fs));
        ASSERT(load32(reg) == 9);
        reg[0] = 0;
        OK(cuMemHostUnregister(reg));
        EXPECT(cuStreamWriteValue32(fs, r, 1, 0), CUDA_ERROR_INVALID_VALUE); /* as a call */
        OK(cuGraphLaunch(fx, fs));
        EXPECT(cuStreamSynchronize(fs), CUDA_ERROR_ILLEGAL_ADDRESS);
        ASSERT(load32(reg) == 0);
        EXPECT(cuGraphLaunch(fx, fs), CUDA_ERROR_ILLEGAL_ADDRESS); /* sticky */
        ASSERT(load32(reg) == 0);
        OK(cuGraphExecDestroy(fx));
        OK(cuGraphDestroy(fg));
        OK(cuCtxDestroy(fctx));
        OK(cuCtxSetCurrent(ctx));
        free(reg);
    }

    /* cuGetProcAddress: the second ABI from CUDA 11.7, the first before. */
    void *f = NULL;
    OK(cuGetProcAddress("cuStreamWaitValue32", &f, 12090, CU_GET_PROC_ADDRESS_DEFAULT, NULL));
    ASSERT(f == (void *)cuStreamWaitValue32_v2);
    OK(cuGetProcAddress("cuStreamWaitValue32", &f, 11000, CU_GET_PROC_ADDRESS_DEFAULT, NULL));
    ASSERT(f == (void *)cuStreamWaitValue32);
    OK(cuGetProcAddress("cuStreamBatchMemOp", &f, 12090, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                        NULL));
    ASSERT(f == (void *)cuStreamBatchMemOp_v2_ptsz);

    OK(cuMemFree(dev));
    OK(cuMemFreeHost(host));
    OK(cuStreamDestroy(waiter));
    OK(cuStreamDestroy(writer));
    OK(cuCtxDestroy(ctx));
    printf("mem_ops: ok\n");
    return 0;
}
