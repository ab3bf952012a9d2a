/*
 * The checker on kernels launched through the vendor kernel API: "fill" (from
 * binary_kernels.c) writes an allocation on stream A, then again on stream B. Racy: nothing
 * orders the two launches; fixed: an event recorded after the first is waited on by B.
 * disjoint: "write_range", whose library declares its accesses, writes the two halves of the
 * allocation from A and B unordered, which is no race.
 * Usage: check_launch LIBRARY racy|fixed|disjoint
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#define OK(call)                                                                          \
    do {                                                                                  \
        aclError ret_ = (call);                                                           \
        if (ret_ != ACL_SUCCESS) {                                                        \
            const char *msg_ = aclGetRecentErrMsg();                                      \
            fprintf(stderr, "%s failed: %d (%s)\n", #call, ret_, msg_ ? msg_ : "-");     \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

int main(int argc, char **argv)
{
    aclrtStream a = NULL, b = NULL;
    aclrtEvent ev = NULL;
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle fill = NULL;
    int32_t *dev = NULL;
    struct {
        int32_t *data;
        uint32_t n;
    } __attribute__((packed)) args, other;
    int bad;

    if (argc != 3 || (strcmp(argv[2], "racy") != 0 && strcmp(argv[2], "fixed") != 0 &&
                      strcmp(argv[2], "disjoint") != 0)) {
        fprintf(stderr, "usage: %s LIBRARY racy|fixed|disjoint\n", argv[0]);
        return 2;
    }
    bad = strcmp(argv[2], "racy") == 0;
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    OK(aclrtCreateStream(&a));
    OK(aclrtCreateStream(&b));
    OK(aclrtCreateEvent(&ev));
    OK(aclrtBinaryLoadFromFile(argv[1], NULL, &bin));
    OK(aclrtBinaryGetFunction(bin, "fill", &fill));
    OK(aclrtMalloc((void **)&dev, 64 * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    if (strcmp(argv[2], "disjoint") == 0) {
        OK(aclrtBinaryGetFunction(bin, "write_range", &fill));
        /* Each launch reads its own arguments when it runs. */
        args.data = dev;
        args.n = 32;
        other.data = dev + 32;
        other.n = 32;
        OK(aclrtLaunchKernel(fill, 1, &args, sizeof args, a));
        OK(aclrtLaunchKernel(fill, 1, &other, sizeof other, b));
        bad = 0;
        goto done;
    }
    args.data = dev;
    args.n = 64;
    OK(aclrtLaunchKernel(fill, 1, &args, sizeof args, a));
    if (!bad) {
        OK(aclrtRecordEvent(ev, a));
        OK(aclrtStreamWaitEvent(b, ev));
    }
    OK(aclrtLaunchKernel(fill, 2, &args, sizeof args, b));
done:
    OK(aclrtSynchronizeDevice());
    OK(aclrtBinaryUnLoad(bin));
    OK(aclrtFree(dev));
    OK(aclrtDestroyEvent(ev));
    OK(aclrtDestroyStream(a));
    OK(aclrtDestroyStream(b));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    return 0;
}
