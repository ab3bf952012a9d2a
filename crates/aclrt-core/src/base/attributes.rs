//! CANN attributes: `aclGetCannAttributeList`, `aclGetCannAttribute`.
//!
//! The emulated device computes on the host, so its answers describe the host: IEEE 754
//! arithmetic with infinities and NaNs (`ACL_CANN_ATTR_INF_NAN` available), host kernels that
//! may use any element type, bf16 included (`ACL_CANN_ATTR_BF16` available), and no operator
//! compiler (`ACL_CANN_ATTR_JIT_COMPILE` not available).

use super::fail;
use crate::codes::ACL_ERROR_INVALID_PARAM;
use crate::vendor_consts::{ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_JIT_COMPILE};
use crate::Result;

/// The available attributes, in enum order (the C face hands out a pointer to it).
static AVAILABLE: [i32; 2] = [ACL_CANN_ATTR_INF_NAN as i32, ACL_CANN_ATTR_BF16 as i32];

/// `aclGetCannAttributeList`: the attributes the emulated installation has, in enum order.
/// The slice lives as long as the process, as the vendor's list does.
///
/// ```
/// use aclrt::base::cann_attribute_list;
/// assert_eq!(cann_attribute_list(), &[0, 1]);
/// ```
#[must_use]
pub fn cann_attribute_list() -> &'static [i32] {
    &AVAILABLE
}

/// `aclGetCannAttribute`: whether `attr` (an `aclCannAttr`) is available, as 1 or 0.
/// A value that is not one of the three attributes (`ACL_CANN_ATTR_UNDEFINED` included) is
/// `ACL_ERROR_INVALID_PARAM`, as with the vendor.
pub fn cann_attribute(attr: i32) -> Result<i32> {
    match i64::from(attr) {
        ACL_CANN_ATTR_INF_NAN | ACL_CANN_ATTR_BF16 | ACL_CANN_ATTR_JIT_COMPILE => {
            Ok(i32::from(AVAILABLE.contains(&attr)))
        }
        _ => Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("aclGetCannAttribute: {attr} is not an aclCannAttr"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes() {
        assert_eq!(cann_attribute(0), Ok(1));
        assert_eq!(cann_attribute(1), Ok(1));
        assert_eq!(cann_attribute(2), Ok(0));
        for bad in [-1, 3, i32::MAX] {
            assert_eq!(
                cann_attribute(bad).unwrap_err().code(),
                ACL_ERROR_INVALID_PARAM
            );
        }
        for &attr in cann_attribute_list() {
            assert_eq!(cann_attribute(attr), Ok(1));
        }
    }
}
