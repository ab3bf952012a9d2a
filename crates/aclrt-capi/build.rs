//! Gives the shared library the SONAME programs record (`libascendcl.so`), so that a program
//! linked through an alias such as `libruntime.so` still loads this one library at run time.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libascendcl.so");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
