//! The ACL C ABI (`libascendcl`).
