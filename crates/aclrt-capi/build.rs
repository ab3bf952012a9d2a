//! Gives the shared library the SONAME programs record (`libascendcl.so`), so that a program
//! linked through an alias such as `libruntime.so` still loads this one library at run time;
//! and compiles the library's one C part, `aclAppLog` (a C variadic function, which stable
//! Rust cannot define).
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libascendcl.so");
        // The C function is not in the version script rustc writes (it lists the Rust-defined
        // functions only): a second one, merged with it, exports it.
        let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it");
        println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={manifest}/src/app_log.ver");
    }
    cc::Build::new()
        .file("src/app_log.c")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("aclrt_app_log");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/app_log.c");
    println!("cargo:rerun-if-changed=src/app_log.ver");
}
