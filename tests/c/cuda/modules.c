/* Modules and kernels: host shared libraries loaded as modules, launched with cuLaunchKernel.
 * ACLRT_TEST_KERNELS names the library built from kernels/kernels.c. */
#define _GNU_SOURCE /* RTLD_NEXT, open64 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

/* Counts the opens of one path: this definition takes the place of the C library's for the
 * whole process (the library's file opens go through it), then calls the C library's. */
static const char *watched;
static int watched_opens;

int open64(const char *file, int flags, ...) {
    static int (*next)(const char *, int, ...);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    if (watched != NULL && strcmp(file, watched) == 0)
        __atomic_add_fetch(&watched_opens, 1, __ATOMIC_SEQ_CST);
    if (next == NULL) next = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
    return next(file, flags, mode);
}

/* How many times `file` is opened while `cuModuleLoad` loads it, and what that returns. */
static CUresult load_counting_opens(CUmodule *m, const char *file, int *opens) {
    watched_opens = 0;
    watched = file;
    CUresult r = cuModuleLoad(m, file);
    watched = NULL;
    *opens = __atomic_load_n(&watched_opens, __ATOMIC_SEQ_CST);
    return r;
}

int main(void) {
    const char *path = getenv("ACLRT_TEST_KERNELS");
    ASSERT(path != NULL);
    CUcontext ctx;
    CUmodule mod, mod2;
    CUfunction scale, shape, faulty, missing;
    CUmodule m;
    EXPECT(cuModuleLoad(&m, path), CUDA_ERROR_NOT_INITIALIZED);
    OK(cuInit(0));
    EXPECT(cuModuleLoad(&m, path), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxCreate(&ctx, 0, 0));
    EXPECT(cuModuleLoad(&m, "/nonexistent/kernels.so"), CUDA_ERROR_FILE_NOT_FOUND);
    /* Only a regular file's head is read: a device that never ends, a FIFO with no writer and
     * a directory are refused at once. */
    EXPECT(cuModuleLoad(&m, "/dev/zero"), CUDA_ERROR_FILE_NOT_FOUND);
    EXPECT(cuModuleLoad(&m, "/"), CUDA_ERROR_FILE_NOT_FOUND);
    char fifo[64], ptx[64];
    snprintf(fifo, sizeof fifo, "/tmp/aclrt-cuda-modules-%d.fifo", (int)getpid());
    ASSERT(mkfifo(fifo, 0600) == 0);
    EXPECT(cuModuleLoad(&m, fifo), CUDA_ERROR_FILE_NOT_FOUND);
    /* ... and not even opened (opening a device or a FIFO can act on it); a regular file is. */
    int opens = -1;
    EXPECT(load_counting_opens(&m, fifo, &opens), CUDA_ERROR_FILE_NOT_FOUND);
    ASSERT(opens == 0);
    EXPECT(load_counting_opens(&m, "/dev/zero", &opens), CUDA_ERROR_FILE_NOT_FOUND);
    ASSERT(opens == 0);
    unlink(fifo);
    OK(load_counting_opens(&m, path, &opens));
    ASSERT(opens >= 1);
    OK(cuModuleUnload(m));
    /* A file is told apart by its head: PTX, then text that is no image. */
    snprintf(ptx, sizeof ptx, "/tmp/aclrt-cuda-modules-%d.ptx", (int)getpid());
    FILE *text = fopen(ptx, "w");
    ASSERT(text != NULL);
    fputs("//\n.version 8.0\n.target sm_80\n", text);
    for (int i = 0; i < 100000; i++) fputs("// padding beyond the head\n", text);
    fclose(text);
    EXPECT(cuModuleLoad(&m, ptx), CUDA_ERROR_NOT_SUPPORTED);
    text = fopen(ptx, "w");
    ASSERT(text != NULL);
    for (int i = 0; i < 1000; i++) fputs("plain text\n", text);
    fputs(".version 8.0\n", text); /* past the head: not looked at */
    fclose(text);
    EXPECT(cuModuleLoad(&m, ptx), CUDA_ERROR_INVALID_IMAGE);
    unlink(ptx);
    EXPECT(cuModuleLoad(NULL, path), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuModuleLoadData(&m, "//\n.version 8.0\n.target sm_80\n"), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuModuleLoadData(&m, "not an image"), CUDA_ERROR_INVALID_IMAGE);
    OK(cuModuleLoad(&mod, path));
    OK(cuModuleGetFunction(&scale, mod, "scale"));
    OK(cuModuleGetFunction(&shape, mod, "shape"));
    OK(cuModuleGetFunction(&faulty, mod, "faulty"));
    EXPECT(cuModuleGetFunction(&missing, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    EXPECT(cuModuleGetFunction(&missing, (CUmodule)0x1234, "scale"), CUDA_ERROR_INVALID_HANDLE);
    const char *fname = NULL;
    OK(cuFuncGetName(&fname, scale));
    ASSERT(strcmp(fname, "scale") == 0);

    /* scale: arguments are copied at launch, so changing them afterwards changes nothing. */
    CUstream s;
    gate_t g;
    gate_init(&g, CUDA_SUCCESS);
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    float host[100];
    for (int i = 0; i < 100; i++) host[i] = (float)i;
    CUdeviceptr d;
    OK(cuMemAlloc(&d, sizeof host));
    OK(cuMemcpyHtoD(d, host, sizeof host));
    OK(aclrtxCuLaunchHostKernel(s, gate_kernel, &g));
    float factor = 2.0f;
    unsigned n = 100;
    void *args[] = {&d, &factor, &n};
    OK(cuLaunchKernel(scale, 4, 1, 1, 8, 1, 1, 0, s, args, NULL));
    factor = 1000.0f;
    n = 1;
    gate_open(&g);
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(host, d, sizeof host));
    ASSERT(host[0] == 0.0f && host[1] == 2.0f && host[99] == 198.0f);

    /* shape: dimensions and a zeroed shared memory buffer. */
    CUdeviceptr out;
    unsigned dims[8];
    OK(cuMemAlloc(&out, sizeof dims));
    void *shape_args[] = {&out};
    OK(cuLaunchKernel(shape, 2, 3, 4, 32, 2, 1, 256, NULL, shape_args, NULL));
    OK(cuMemcpyDtoH(dims, out, sizeof dims));
    ASSERT(dims[0] == 2 && dims[1] == 3 && dims[2] == 4 && dims[3] == 32 && dims[4] == 2 &&
           dims[5] == 1 && dims[6] == 256 && dims[7] == 1);

    /* Launch checks. */
    EXPECT(cuLaunchKernel(shape, 0, 1, 1, 1, 1, 1, 0, NULL, shape_args, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(shape, 1, 1, 1, 1024, 2, 1, 0, NULL, shape_args, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(shape, 1, 1, 1, 1, 1, 128, 0, NULL, shape_args, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(shape, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(shape, 1, 1, 1, 1, 1, 1, 64 << 10, NULL, shape_args, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuFuncSetAttribute(shape, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 << 10));
    OK(cuLaunchKernel(shape, 1, 1, 1, 1, 1, 1, 64 << 10, NULL, shape_args, NULL));
    EXPECT(cuFuncSetAttribute(shape, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 20), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuFuncSetAttribute(shape, CU_FUNC_ATTRIBUTE_NUM_REGS, 1), CUDA_ERROR_INVALID_VALUE);
    void *extra[] = {NULL};
    EXPECT(cuLaunchKernel(shape, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuLaunchKernel(shape, 1, 1, 1, 1, 1, 1, 0, NULL, shape_args, extra), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel((CUfunction)0x99, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
    OK(cuLaunchCooperativeKernel(shape, 1, 1, 1, 1, 1, 1, 0, NULL, shape_args));
    OK(cuCtxSynchronize());

    int attr = 0;
    OK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, scale));
    ASSERT(attr == 1024);
    OK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_BINARY_VERSION, scale));
    ASSERT(attr == 80);
    OK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shape));
    ASSERT(attr == 64 << 10);
    EXPECT(cuFuncGetAttribute(&attr, (CUfunction_attribute)99, scale), CUDA_ERROR_INVALID_VALUE);
    OK(cuFuncSetCacheConfig(scale, CU_FUNC_CACHE_PREFER_L1));
    int blocks = 0, min_grid = 0, block = 0;
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, 256, 0));
    ASSERT(blocks == 8);
    OK(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, scale, NULL, 0, 0));
    ASSERT(block == 1024 && min_grid == 2 * 108);
    size_t avail = 0;
    OK(cuOccupancyAvailableDynamicSMemPerBlock(&avail, scale, 2, 256));
    ASSERT(avail == 167936 / 2);

    /* A module global is device memory: copy into it, read it back through a kernel. */
    CUfunction read_table;
    CUdeviceptr table;
    size_t bytes = 0;
    OK(cuModuleGetGlobal(&table, &bytes, mod, "table"));
    ASSERT(bytes == 16 * sizeof(int));
    int values[16], back[16];
    for (int i = 0; i < 16; i++) values[i] = i * i;
    OK(cuMemcpyHtoD(table, values, sizeof values));
    OK(cuModuleGetFunction(&read_table, mod, "read_table"));
    CUdeviceptr tout;
    OK(cuMemAlloc(&tout, sizeof back));
    void *targs[] = {&tout};
    OK(cuLaunchKernel(read_table, 1, 1, 1, 1, 1, 1, 0, NULL, targs, NULL));
    OK(cuMemcpyDtoH(back, tout, sizeof back));
    ASSERT(back[15] == 225);
    EXPECT(cuModuleGetGlobal(&table, &bytes, mod, "no_such_global"), CUDA_ERROR_NOT_FOUND);

    /* The same library from memory. */
    FILE *fp = fopen(path, "rb");
    ASSERT(fp != NULL);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *image = malloc((size_t)len);
    ASSERT(fread(image, 1, (size_t)len, fp) == (size_t)len);
    fclose(fp);
    OK(cuModuleLoadData(&mod2, image));
    free(image);
    CUfunction scale2;
    OK(cuModuleGetFunction(&scale2, mod2, "scale"));
    factor = 0.5f;
    n = 100;
    OK(cuLaunchKernel(scale2, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    OK(cuMemcpyDtoH(host, d, sizeof host));
    ASSERT(host[99] == 99.0f);
    OK(cuModuleUnload(mod2));
    EXPECT(cuLaunchKernel(scale2, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleUnload(mod2), CUDA_ERROR_INVALID_HANDLE);

    /* A faulting kernel: reported by the next synchronise, sticky on the context. */
    OK(cuLaunchKernel(faulty, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    EXPECT(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(cuLaunchKernel(scale, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
    OK(cuModuleUnload(mod));
    OK(cuCtxDestroy(ctx));
    puts("modules: ok");
    return 0;
}
