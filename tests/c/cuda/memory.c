/* Memory: allocation kinds, copies and sets, and CUDA's synchronization rules for pageable and
 * pinned host memory. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static CUresult sleep_kernel(void *arg) {
    sleep_ms(*(long *)arg);
    return CUDA_SUCCESS;
}

static void allocation(void) {
    CUdeviceptr d, base;
    size_t free1, total, free2, size, pitch;
    OK(cuMemGetInfo(&free1, &total));
    ASSERT(total == 256u << 20 && free1 == total);
    OK(cuMemAlloc(&d, 1000));
    OK(cuMemGetInfo(&free2, &total));
    ASSERT(free2 == free1 - 1000);
    OK(cuMemGetAddressRange(&base, &size, d + 10));
    ASSERT(base == d && size == 1000);
    EXPECT(cuMemGetAddressRange(&base, &size, 16), CUDA_ERROR_NOT_FOUND);
    EXPECT(cuMemAlloc(&d, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(&d, (size_t)1 << 40), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT(cuMemAlloc(NULL, 8), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(base));
    EXPECT(cuMemFree(base), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemAllocPitch(&d, &pitch, 100, 4, 4));
    ASSERT(pitch == 512);
    EXPECT(cuMemAllocPitch(&d, &pitch, 100, 4, 3), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(d));

    void *h;
    unsigned flags = 99;
    OK(cuMemAllocHost(&h, 64));
    OK(cuMemHostGetFlags(&flags, h));
    ASSERT(flags == 0);
    OK(cuMemFreeHost(h));
    OK(cuMemHostAlloc(&h, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED));
    OK(cuMemHostGetFlags(&flags, h));
    ASSERT(flags == (CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED));
    OK(cuMemHostGetDevicePointer(&d, h, 0));
    ASSERT(d == (CUdeviceptr)(uintptr_t)h);
    EXPECT(cuMemHostGetDevicePointer(&d, h, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemHostAlloc(&h, 64, 0x10), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFreeHost(h));
    EXPECT(cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);

    /* Registered host memory: pinned until unregistered. */
    static char buf[4096];
    OK(cuMemHostRegister(buf, sizeof buf, CU_MEMHOSTREGISTER_PORTABLE));
    EXPECT(cuMemHostRegister(buf + 8, 8, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    OK(cuMemHostGetDevicePointer(&d, buf, 0));
    ASSERT(d == (CUdeviceptr)(uintptr_t)buf);
    OK(cuMemHostUnregister(buf));
    EXPECT(cuMemHostUnregister(buf), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT(cuMemHostGetDevicePointer(&d, buf, 0), CUDA_ERROR_INVALID_VALUE);

    /* Managed memory: the host reads and writes it directly. */
    CUdeviceptr m;
    OK(cuMemAllocManaged(&m, 256, CU_MEM_ATTACH_GLOBAL));
    memset((void *)(uintptr_t)m, 3, 256);
    OK(cuMemsetD8(m, 9, 128));
    ASSERT(((unsigned char *)(uintptr_t)m)[127] == 9 && ((unsigned char *)(uintptr_t)m)[128] == 3);
    CUmemLocation loc = {1, 0};
    OK(cuMemAdvise(m, 256, CU_MEM_ADVISE_SET_READ_MOSTLY, loc));
    OK(cuMemPrefetchAsync(m, 256, loc, 0, NULL));
    OK(cuStreamAttachMemAsync(NULL, m, 0, CU_MEM_ATTACH_HOST));
    EXPECT(cuMemAdvise(m, 256, (CUmem_advise)9, loc), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocManaged(&m, 8, 3), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(m));
}

static void copies_and_sets(void) {
    CUdeviceptr a, b;
    unsigned char in[256], out[256];
    for (int i = 0; i < 256; i++) in[i] = (unsigned char)i;
    OK(cuMemAlloc(&a, 256));
    OK(cuMemAlloc(&b, 256));
    OK(cuMemcpyHtoD(a, in, 256));
    OK(cuMemcpyDtoD(b, a, 256));
    memset(out, 0, sizeof out);
    OK(cuMemcpyDtoH(out, b, 256)); /* ordered after the device-to-device copy */
    ASSERT(memcmp(in, out, 256) == 0);
    OK(cuMemcpy((CUdeviceptr)(uintptr_t)out, a + 16, 16));
    ASSERT(out[0] == 16 && out[15] == 31);
    /* Device pointers must be device memory; ranges must stay inside their allocation. */
    EXPECT(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)out, in, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoH(out, (CUdeviceptr)(uintptr_t)in, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyHtoD(a + 200, in, 100), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyHtoD(0, in, 4), CUDA_ERROR_INVALID_VALUE);

    uint32_t words[8];
    OK(cuMemsetD32(a, 0xDEADBEEF, 8));
    OK(cuMemsetD16(a + 32, 0x1234, 4));
    OK(cuMemcpyDtoH(words, a, sizeof words));
    ASSERT(words[0] == 0xDEADBEEF && words[7] == 0xDEADBEEF);
    uint16_t halves[4];
    OK(cuMemcpyDtoH(halves, a + 32, sizeof halves));
    ASSERT(halves[0] == 0x1234 && halves[3] == 0x1234);
    EXPECT(cuMemsetD32(a + 2, 0, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD16(a + 1, 0, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD8(a, 0, 257), CUDA_ERROR_INVALID_VALUE);
    /* 2D: 4 rows of 3 words, 32 bytes apart. */
    OK(cuMemsetD8(a, 0, 256));
    OK(cuMemsetD2D32(a, 32, 7, 3, 4));
    uint32_t grid[64];
    OK(cuMemcpyDtoH(grid, a, 256));
    ASSERT(grid[0] == 7 && grid[2] == 7 && grid[3] == 0 && grid[8] == 7 && grid[26] == 7 &&
           grid[27] == 0 && grid[32] == 0);
    EXPECT(cuMemsetD2D32(a, 8, 7, 3, 4), CUDA_ERROR_INVALID_VALUE);

    /* cuMemcpy2D: a 3x4 block out of a 32-byte-pitch image into a packed host buffer. */
    uint32_t packed[12] = {0};
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = a;
    c.srcPitch = 32;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = packed;
    c.dstPitch = 12;
    c.WidthInBytes = 12;
    c.Height = 4;
    OK(cuMemcpy2D(&c));
    for (int i = 0; i < 12; i++) ASSERT(packed[i] == 7);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY; /* no array can exist: an invalid one */
    EXPECT(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcPitch = 4;
    EXPECT(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpy2D(NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(a));
    OK(cuMemFree(b));
}

/* An asynchronous copy from pageable memory stages the source: the caller may reuse it as
 * soon as the call returns, even while the stream is still busy. */
static void pageable_source_is_staged(void) {
    CUstream s;
    CUdeviceptr d;
    gate_t g;
    gate_init(&g, CUDA_SUCCESS);
    unsigned char src[64], out[64];
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuMemAlloc(&d, 64));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g));
    memset(src, 0xA1, sizeof src);
    OK(cuMemcpyHtoDAsync(d, src, 64, s));
    EXPECT(cuStreamQuery(s), CUDA_ERROR_NOT_READY); /* it did not wait for the stream */
    memset(src, 0xB2, sizeof src);                  /* reuse the buffer at once */
    gate_open(&g);
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(out, d, 64));
    ASSERT(out[0] == 0xA1 && out[63] == 0xA1);
    OK(cuMemFree(d));
    OK(cuStreamDestroy(s));
}

/* An asynchronous copy to pageable memory returns only once the data is there. */
static void pageable_destination_waits(void) {
    CUstream s;
    CUdeviceptr d;
    long ms = 100;
    unsigned char out[64];
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuMemAlloc(&d, 64));
    OK(cuMemsetD8Async(d, 0x5C, 64, s));
    OK(aclrtxCuLaunchHostKernel(s, sleep_kernel, &ms));
    memset(out, 0, sizeof out);
    OK(cuMemcpyDtoHAsync(out, d, 64, s));
    ASSERT(out[0] == 0x5C && out[63] == 0x5C);
    OK(cuStreamQuery(s));
    OK(cuMemFree(d));
    OK(cuStreamDestroy(s));
}

/* With pinned memory both directions stay asynchronous: the copy reads and writes the host
 * buffer when it runs. */
static void pinned_copies_are_asynchronous(void) {
    CUstream s;
    CUdeviceptr d;
    unsigned char *pin;
    gate_t g1, g2;
    gate_init(&g1, CUDA_SUCCESS);
    gate_init(&g2, CUDA_SUCCESS);
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuMemAlloc(&d, 64));
    OK(cuMemAllocHost((void **)&pin, 64));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g1));
    memset(pin, 0xA1, 64);
    OK(cuMemcpyHtoDAsync(d, pin, 64, s));
    memset(pin, 0xC3, 64); /* the copy has not run: it will read this */
    gate_open(&g1);
    OK(cuStreamSynchronize(s));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g2));
    memset(pin, 0, 64);
    OK(cuMemcpyDtoHAsync(pin, d, 64, s));
    EXPECT(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    ASSERT(pin[0] == 0); /* not yet */
    gate_open(&g2);
    OK(cuStreamSynchronize(s));
    ASSERT(pin[0] == 0xC3 && pin[63] == 0xC3);

    /* Registered memory counts as pinned. */
    static unsigned char reg[64];
    gate_t g3;
    gate_init(&g3, CUDA_SUCCESS);
    OK(cuMemHostRegister(reg, sizeof reg, 0));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g3));
    OK(cuMemcpyDtoHAsync(reg, d, 64, s));
    EXPECT(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    gate_open(&g3);
    OK(cuStreamSynchronize(s));
    ASSERT(reg[5] == 0xC3);
    OK(cuMemHostUnregister(reg));
    OK(cuMemFreeHost(pin));
    OK(cuMemFree(d));
    OK(cuStreamDestroy(s));
}

/* A synchronous copy from pageable memory is done when it returns, even behind a busy blocking
 * stream (the legacy stream waits for it). */
static void synchronous_copies_wait(void) {
    CUstream s;
    CUdeviceptr d;
    long ms = 100;
    unsigned char src[16], out[16];
    OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    OK(cuMemAlloc(&d, 16));
    OK(aclrtxCuLaunchHostKernel(s, sleep_kernel, &ms));
    memset(src, 0x77, sizeof src);
    OK(cuMemcpyHtoD(d, src, 16));
    OK(cuStreamQuery(s)); /* the legacy stream waited for the blocking stream */
    memset(src, 0, sizeof src);
    OK(cuMemcpyDtoH(out, d, 16));
    ASSERT(out[0] == 0x77 && out[15] == 0x77);
    OK(cuMemFree(d));
    OK(cuStreamDestroy(s));
}

/* A 3D copy: a 3x2x2 box (bytes x rows x slices) out of a 4x3x3 volume on the device, into
 * a packed host buffer; then back, async, into another place of the volume. */
static void copies_3d(void) {
    enum { W = 4, H = 3, D = 3 };
    unsigned char volume[D][H][W], box[2][2][3], back[D][H][W];
    CUdeviceptr d;
    CUstream s;
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) volume[z][y][x] = (unsigned char)(100 * z + 10 * y + x);
    OK(cuMemAlloc(&d, sizeof volume));
    OK(cuMemcpyHtoD(d, volume, sizeof volume));
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = d;
    c.srcXInBytes = 1;
    c.srcY = 1;
    c.srcZ = 1;
    c.srcPitch = W;
    c.srcHeight = H;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = box;
    c.dstPitch = 3;
    c.dstHeight = 2;
    c.WidthInBytes = 3;
    c.Height = 2;
    c.Depth = 2;
    OK(cuMemcpy3D(&c));
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 3; x++) ASSERT(box[z][y][x] == volume[1 + z][1 + y][1 + x]);

    /* Back into slice 0, rows 0-1, bytes 0-2 of a zeroed volume, on a stream. */
    CUDA_MEMCPY3D r;
    memset(&r, 0, sizeof r);
    r.srcMemoryType = CU_MEMORYTYPE_HOST;
    r.srcHost = box;
    r.srcPitch = 3;
    r.srcHeight = 2;
    r.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    r.dstDevice = d;
    r.dstPitch = W;
    r.dstHeight = H;
    r.WidthInBytes = 3;
    r.Height = 2;
    r.Depth = 2;
    OK(cuMemsetD8(d, 0, sizeof volume));
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuMemcpy3DAsync(&r, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(back, d, sizeof back));
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                unsigned char want = (z < 2 && y < 2 && x < 3) ? box[z][y][x] : 0;
                ASSERT(back[z][y][x] == want);
            }

    /* Refused: slices shorter than the copy, mipmap levels, arrays, and a box outside the
     * allocation. */
    c.srcHeight = 1;
    EXPECT(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
    c.srcHeight = H;
    c.dstLOD = 1;
    EXPECT(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstLOD = 0;
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    EXPECT(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    /* Slice 2 is in the volume, slice 3 is not: nothing is copied. */
    memset(box, 0xEE, sizeof box);
    c.srcZ = 2;
    EXPECT(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
    ASSERT(box[0][0][0] == 0xEE && box[1][1][2] == 0xEE);
    EXPECT(cuMemcpy3D(NULL), CUDA_ERROR_INVALID_VALUE);
    /* The first version's 32-bit fields cannot describe device memory here. */
    CUresult (*v1)(const void *) = NULL;
    OK(cuGetProcAddress("cuMemcpy3D", (void **)&v1, 2000, 0, NULL));
    EXPECT(v1(&c), CUDA_ERROR_NOT_SUPPORTED);
    OK(cuStreamDestroy(s));
    OK(cuMemFree(d));
}

int main(void) {
    CUcontext ctx;
    OK(cuInit(0));
    OK(cuCtxCreate(&ctx, 0, 0));
    allocation();
    copies_and_sets();
    pageable_source_is_staged();
    pageable_destination_waits();
    pinned_copies_are_asynchronous();
    synchronous_copies_wait();
    copies_3d();
    OK(cuCtxDestroy(ctx));
    puts("memory: ok");
    return 0;
}
