//! Gives the shared library the SONAME programs record (`libascendcl.so`), so that a program
//! linked through an alias such as `libruntime.so` still loads this one library at run time;
//! and compiles the library's one C part, the body of `aclAppLog` (a C variadic function,
//! which stable Rust cannot define; the exported symbol is a jump to it, in src/base.rs).
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libascendcl.so");
    }
    cc::Build::new()
        .file("src/app_log.c")
        .warnings(true)
        .extra_warnings(true)
        .compile("aclrt_app_log");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/app_log.c");
}
