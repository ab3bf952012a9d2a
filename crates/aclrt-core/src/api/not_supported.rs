//! The one way a vendor function without an emulated implementation fails.

use crate::codes::ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
use crate::error::Error;

/// Builds `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` for `function`, notes it for the calling thread
/// (`aclrtGetLastError`, `aclGetRecentErrMsg`) like any other failure, and returns it.
///
/// Every exported vendor function that the emulated device cannot carry out yet ends here, so
/// they all fail the same way and name themselves in the message.
///
/// ```
/// use aclrt::{api, codes};
/// let e = api::not_supported("aclrtCreateLabel");
/// assert_eq!(e.code(), codes::ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
/// assert_eq!(api::peek_at_last_error(), codes::ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
/// assert!(api::get_recent_err_msg().unwrap().contains("aclrtCreateLabel"));
/// ```
pub fn not_supported(function: &str) -> Error {
    super::fail(
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
        format!("{function} is not supported: the emulated runtime has no implementation of it"),
    )
}
