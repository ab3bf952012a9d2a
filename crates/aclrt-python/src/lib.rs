//! The `acl` Python module.
