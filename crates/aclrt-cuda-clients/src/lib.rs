//! Runs CUDA client libraries against `libaclrt_cuda` loaded as the CUDA driver.
//!
//! The tests (in `tests/`) re-run themselves in a child process whose `LD_LIBRARY_PATH` holds
//! a directory with `libcuda.so` and `libcuda.so.1` linked to this build's `libaclrt_cuda.so`,
//! since the dynamic loader reads that variable only when a process starts.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Set in the child process that runs a test against the library.
pub const CHILD_ENV: &str = "ACLRT_CUDA_CLIENT_CHILD";

/// This build's `libaclrt_cuda.so`: beside the test executable (`target/<profile>/deps`) or one
/// directory up.
pub fn library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let deps = exe.parent().expect("a directory");
    for dir in [deps, deps.parent().unwrap_or(deps)] {
        let candidate = dir.join("libaclrt_cuda.so");
        if candidate.exists() {
            return candidate;
        }
    }
    panic!(
        "libaclrt_cuda.so not found next to {}: build aclrt-cuda first",
        exe.display()
    );
}

/// A fresh directory under the target directory (so no system temp clean-up is needed).
pub fn scratch_dir(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let dir = exe
        .parent()
        .expect("a directory")
        .join("aclrt-cuda-clients")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}

/// A directory holding `libcuda.so` and `libcuda.so.1`, both links to `lib`.
pub fn driver_dir(lib: &Path, name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    for link in ["libcuda.so", "libcuda.so.1"] {
        std::os::unix::fs::symlink(lib, dir.join(link)).expect("link the library");
    }
    dir
}

/// In the parent: runs test `name` of this executable in a child that loads the library as
/// the CUDA driver, asserts it passed, and returns `false`. In the child: returns `true` (run
/// the test's body).
pub fn in_child(name: &str) -> bool {
    if std::env::var_os(CHILD_ENV).is_some() {
        return true;
    }
    let dir = driver_dir(&library(), name);
    let output = Command::new(std::env::current_exe().expect("the test executable"))
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, "1")
        .env("LD_LIBRARY_PATH", &dir)
        .env("ACLRT_DEVICE_MEMORY", "256M")
        .output()
        .expect("run the test in a child process");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{name} failed in the child:\n{stdout}\n{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    false
}

/// Builds `tests/c/cuda/kernels/kernels.c` into a host kernel library with the C compiler
/// (`CC`, else `cc`); returns its path.
pub fn kernel_library(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = scratch_dir(name).join("libkernels.so");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(cc)
        .args(["-shared", "-fPIC", "-O1", "-I"])
        .arg(root.join("include"))
        .arg(root.join("tests/c/cuda/kernels/kernels.c"))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "building the kernel library failed");
    out
}
