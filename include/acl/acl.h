/*
 * aclrt: umbrella header of the ACL C interface. Programs include "acl/acl.h" as they would
 * with the vendor toolkit. The vendor's acl.h also includes acl_op.h and acl_mdl.h (operator
 * and model interfaces); those are not part of this runtime, so only the runtime part is here.
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
