//! The part of the ACL interface that needs no runtime: element sizes, float16 conversion,
//! data buffers (`acl_base_rt.h`), custom allocator descriptors and their registrations
//! (`acl_rt_allocator.h`), and the package version and CANN attribute queries.
//!
//! Nothing here needs `aclInit`, a device or a context. Failures are noted for the calling
//! thread like every other failure (`aclrtGetLastError`, `aclGetRecentErrMsg`).
//!
//! ```
//! use aclrt::base;
//! assert_eq!(base::data_type_size(base::ACL_FLOAT16 as i32), 2);
//! assert_eq!(base::float_to_float16(1.5), 0x3E00);
//! assert_eq!(base::float16_to_float(0x3E00), 1.5);
//! let buf = base::create_data_buffer(0x1000, 64);
//! assert_eq!(base::data_buffer_size(buf).unwrap(), 64);
//! base::destroy_data_buffer(buf).unwrap();
//! assert_eq!(base::version_str("runtime").unwrap(), base::RUNTIME_VERSION);
//! ```

mod allocator;
mod app_log;
mod attributes;
mod data_buffer;
mod data_type;
mod fp16;
mod version;

pub use allocator::*;
pub use app_log::*;
pub use attributes::*;
pub use data_buffer::*;
pub use data_type::*;
pub use fp16::*;
pub use version::*;

/// Notes a failure for the calling thread (`aclrtGetLastError`, `aclGetRecentErrMsg`) and
/// returns it: these calls need no runtime, so they do what the runtime's edge does for the
/// others.
pub(crate) fn fail(code: i32, message: impl Into<String>) -> crate::Error {
    let e = crate::Error::new(code, message);
    crate::thread_state::note_failure(&e);
    e
}
