/*
 * aclrt: umbrella header of the ACL C interface. Programs include "acl/acl.h" as they would
 * with the vendor toolkit; the runtime part is all this library provides.
 */
#ifndef ACLRT_ACL_ACL_H_
#define ACLRT_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"

#endif /* ACLRT_ACL_ACL_H_ */
