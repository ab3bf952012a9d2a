/*
 * aclrt: stream-ordered memory allocation. A memory pool reserves device address space; an
 * allocation from it returns its address at once and becomes usable in the order of the stream
 * it was made on, and a free returns the block to the pool in that stream's order. A freed
 * block is handed out again to the same stream, and to other streams as the pool's reuse
 * attributes allow. Not included by acl.h: include this header where it is used.
 */
#ifndef ACLRT_INCLUDE_ACL_RT_MEMORY_SOMA_H
#define ACLRT_INCLUDE_ACL_RT_MEMORY_SOMA_H

#include <stddef.h>
#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A memory pool. */
typedef void *aclrtMemPool;

/* Pool attributes. The three reuse switches are uint32_t values (0 off, anything else on);
 * the others are uint64_t byte counts. The two *_CURRENT attributes are read-only; the two
 * *_HIGH marks accept only 0, which resets them. */
typedef enum aclrtMemPoolAttr {
    ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES = 0x1,
    ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC = 0x2,
    ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 0x3,
    ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD = 0x4,
    ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT = 0x5,
    ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH = 0x6,
    ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT = 0x7,
    ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH = 0x8
} aclrtMemPoolAttr;

/* What a pool is made of: pinned device memory of location.id; maxSize 0 means the device's
 * whole memory. reserved must be all zero. */
typedef struct {
    aclrtMemAllocationType allocType;
    aclrtMemHandleType handleType;
    aclrtMemLocation location;
    size_t maxSize;
    unsigned char reserved[32];
} aclrtMemPoolProps;

ACL_FUNC_VISIBILITY aclError aclrtMemPoolCreate(aclrtMemPool *memPool,
                                                const aclrtMemPoolProps *poolProps);
ACL_FUNC_VISIBILITY aclError aclrtMemPoolDestroy(const aclrtMemPool memPool);
ACL_FUNC_VISIBILITY aclError aclrtMemPoolSetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr,
                                                 void *value);
ACL_FUNC_VISIBILITY aclError aclrtMemPoolGetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr,
                                                 void *value);
ACL_FUNC_VISIBILITY aclError aclrtMemPoolMallocAsync(void **ptr, size_t size,
                                                     aclrtMemPool memPool, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemPoolFreeAsync(void *ptr, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemPoolTrimTo(aclrtMemPool memPool, size_t minBytesToKeep);

#ifdef __cplusplus
}
#endif

#endif /* ACLRT_INCLUDE_ACL_RT_MEMORY_SOMA_H */
