//! Tells the checker's call-site capture whether the crates are built with frame pointers
//! (`-C force-frame-pointers=yes`, which the workspace's `.cargo/config.toml` sets and a
//! `RUSTFLAGS` of one's own replaces): with them it walks the runtime's frames directly,
//! without them it unwinds by the unwind tables.

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    println!("cargo:rustc-check-cfg=cfg(aclrt_frame_pointers)");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let args: Vec<&str> = flags.split('\x1f').collect();
    let forced = args.iter().enumerate().any(|(i, a)| {
        let value = a
            .strip_prefix("-Cforce-frame-pointers=")
            .or_else(|| a.strip_prefix("force-frame-pointers="))
            .filter(|_| a.starts_with("-C") || (i > 0 && args[i - 1] == "-C"));
        matches!(value, Some("yes" | "on" | "true" | "y"))
    });
    if forced {
        println!("cargo:rustc-cfg=aclrt_frame_pointers");
    }
}
