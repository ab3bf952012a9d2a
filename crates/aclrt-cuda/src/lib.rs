//! The CUDA driver event API as a C library.
