//! The C headers carry exactly the Rust values: every error code and every constant of the
//! core is compiled into a C program (so the C compiler evaluates the header's own spelling of
//! it), printed, and compared; and every value-like name the headers define exists in Rust.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include")
}

fn rust_values() -> BTreeMap<&'static str, i64> {
    let mut all = BTreeMap::new();
    for info in aclrt::codes::ALL {
        all.insert(info.name, i64::from(info.code));
    }
    for (name, value) in aclrt::consts::ALL {
        assert!(
            all.insert(name, *value).is_none(),
            "{name} is both a code and a constant"
        );
    }
    all
}

/// Compiles and runs a C program against the headers, returning its stdout.
fn run_c(name: &str, source: &str) -> String {
    let dir = std::env::temp_dir().join(format!("aclrt-header-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&src, source).unwrap();
    let status = Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(include_dir())
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("gcc runs");
    assert!(
        status.success(),
        "{name}.c does not compile against the headers"
    );
    let out = Command::new(&exe).output().expect("the program runs");
    assert!(out.status.success());
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_rust_value_is_in_the_headers_with_the_same_number() {
    let values = rust_values();
    let mut src = String::from(
        "#include <stdio.h>\n#include \"acl/acl.h\"\n#include \"acl/acl_ext.h\"\nint main(void)\n{\n",
    );
    for name in values.keys() {
        src.push_str(&format!(
            "    printf(\"%s %lld\\n\", \"{name}\", (long long){name});\n"
        ));
    }
    src.push_str("    return 0;\n}\n");
    let out = run_c("values", &src);
    let mut seen = 0;
    for line in out.lines() {
        let (name, value) = line.split_once(' ').unwrap();
        let value: i64 = value.parse().unwrap();
        assert_eq!(Some(&value), values.get(name), "{name}: header {value}");
        seen += 1;
    }
    assert_eq!(seen, values.len());
}

#[test]
fn enum_types_exist_and_are_int_sized() {
    let mut src = String::from("#include <stdio.h>\n#include \"acl/acl.h\"\nint main(void)\n{\n");
    let mut enums = 0;
    for group in aclrt::consts::GROUPS {
        if group.kind == aclrt::consts::CKind::Enum {
            src.push_str(&format!(
                "    printf(\"%s %zu\\n\", \"{0}\", sizeof({0}));\n",
                group.c_name
            ));
            enums += 1;
        }
    }
    src.push_str("    return 0;\n}\n");
    let out = run_c("enums", &src);
    assert_eq!(out.lines().count(), enums);
    for line in out.lines() {
        assert!(
            line.ends_with(" 4"),
            "{line}: the C faces pass enums as 32-bit values"
        );
    }
}

/// Names the headers define that are not values (include guards, attribute macros).
fn is_value_name(name: &str) -> bool {
    name.starts_with("ACL_")
        && !name.ends_with("_H_")
        && !matches!(
            name,
            "ACL_FUNC_VISIBILITY" | "ACL_DEPRECATED" | "ACL_DEPRECATED_MESSAGE"
        )
}

#[test]
fn every_header_value_exists_in_rust() {
    let values = rust_values();
    let mut names = Vec::new();
    let dir = include_dir().join("acl");
    for file in [
        "acl_base.h",
        "acl_rt.h",
        "acl.h",
        "acl_ext.h",
        "error_codes/rt_error_codes.h",
        "error_codes/ge_error_codes.h",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for line in text.lines() {
            let line = line.trim();
            let name = if let Some(rest) = line.strip_prefix("#define ") {
                rest.split([' ', '(']).next()
            } else if let Some(rest) = line.strip_prefix("static const ") {
                rest.split_whitespace().nth(1)
            } else if line.starts_with("ACL_") && line.ends_with(',') {
                line.split([' ', ',']).next()
            } else {
                None
            };
            if let Some(name) = name.filter(|n| is_value_name(n)) {
                names.push(name.to_string());
            }
        }
    }
    assert!(
        names.len() >= values.len(),
        "parsed only {} names",
        names.len()
    );
    for name in &names {
        assert!(
            values.contains_key(name.as_str()),
            "{name} is in the headers but not in aclrt::codes / aclrt::consts"
        );
    }
}
