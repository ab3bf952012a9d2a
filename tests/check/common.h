/*
 * Shared by the checker's C programs. Each program takes "racy" or "fixed": the racy variant
 * has the mistake its comments describe, the fixed one is its correctly synchronised twin.
 * Lines the checker must name end with a marker comment (@A, @B); the "expect:" comment at the
 * top of each program says what the racy variant is reported as (see
 * crates/aclrt-cli/tests/check_c.rs).
 */
#ifndef CHECK_COMMON_H_
#define CHECK_COMMON_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_ext.h"

#define OK(call)                                                                          \
    do {                                                                                  \
        aclError ret_ = (call);                                                           \
        if (ret_ != ACL_SUCCESS) {                                                        \
            const char *msg_ = aclGetRecentErrMsg();                                      \
            fprintf(stderr, "%s failed: %d (%s)\n", #call, ret_, msg_ ? msg_ : "-");     \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

#define N 4096

/* 1 for "racy", 0 for "fixed"; exits on anything else. */
static int racy(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "racy") == 0) {
        return 1;
    }
    if (argc == 2 && strcmp(argv[1], "fixed") == 0) {
        return 0;
    }
    fprintf(stderr, "usage: %s racy|fixed\n", argv[0]);
    exit(2);
}

static void start(void)
{
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
}

static void finish(void)
{
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
}

#endif
