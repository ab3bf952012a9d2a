/*
 * aclrt: base of the ACL C interface. Includes the base types and general codes
 * (acl_base_rt.h), the model base (acl_base_mdl.h, empty in the runtime) and both error code
 * headers, as the vendor's acl_base.h does.
 */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

#include "acl_base_rt.h"
#include "acl_base_mdl.h"
#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"

#endif /* INC_EXTERNAL_ACL_ACL_BASE_H_ */
