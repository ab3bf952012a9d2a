//! The C headers carry exactly the Rust values: every error code and every constant of the
//! core (`codes`, `consts`, `vendor_consts`) is compiled into a C program (so the C compiler
//! evaluates the header's own spelling of it), printed, and compared; and every value-like name
//! the headers define (`#define`d values, `static const` codes, enumerators) exists in Rust.

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
    for (name, value) in aclrt::vendor_consts::ALL {
        if let Some(other) = all.insert(name, *value) {
            assert_eq!(other, *value, "{name} has two values in Rust");
        }
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
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            // Some enumerators are deprecated in the vendor header, and so here.
            "-Wno-deprecated-declarations",
            "-I",
        ])
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
        "#include <stdio.h>\n#include \"acl/acl.h\"\n#include \"acl/acl_ext.h\"\n\
         #include \"acl/acl_rt_memory_soma.h\"\nint main(void)\n{\n",
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
    let mut src = String::from(
        "#include <stdio.h>\n#include \"acl/acl.h\"\n#include \"acl/acl_rt_memory_soma.h\"\n\
         int main(void)\n{\n",
    );
    let mut enums = 0;
    let consts = aclrt::consts::GROUPS
        .iter()
        .filter(|g| g.kind == aclrt::consts::CKind::Enum)
        .map(|g| g.c_name);
    let vendor = aclrt::vendor_consts::GROUPS
        .iter()
        .filter(|g| g.kind == aclrt::vendor_consts::Kind::Enum)
        .map(|g| g.c_name);
    for c_name in consts.chain(vendor) {
        src.push_str(&format!(
            "    printf(\"%s %zu\\n\", \"{c_name}\", sizeof({c_name}));\n"
        ));
        enums += 1;
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

/// Names the headers define that are not values (attribute macros).
fn is_value_name(name: &str) -> bool {
    !matches!(
        name,
        "ACL_FUNC_VISIBILITY" | "ACL_DEPRECATED" | "ACL_DEPRECATED_MESSAGE" | "GE_FUNC_VISIBILITY"
    )
}

/// The value-like names a header defines: object-like `#define`s with a value (include guards
/// have none), `static const` constants, and the enumerators of every enum body.
fn header_value_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_enum = false;
    for line in text.lines() {
        let line = line.trim();
        let name = if let Some(rest) = line.strip_prefix("#define ") {
            let (name, value) = rest.split_once(' ').unwrap_or((rest, ""));
            (!name.contains('(') && !value.trim().is_empty()).then_some(name)
        } else if let Some(rest) = line.strip_prefix("static const ") {
            rest.split_whitespace().nth(1)
        } else if line.starts_with("typedef enum") || line.starts_with("enum ") {
            in_enum = !line.contains('}');
            None
        } else if in_enum && line.starts_with('}') {
            in_enum = false;
            None
        } else if in_enum {
            // An enumerator line starts with its name; continuation lines (a deprecation
            // message) do not start with an identifier.
            line.split([' ', ',', '='])
                .next()
                .filter(|n| n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        } else {
            None
        };
        if let Some(name) = name.filter(|n| is_value_name(n)) {
            names.push(name.to_string());
        }
    }
    names
}

#[test]
fn header_parsing_sees_every_spelling() {
    let text = "#define A 1\n#define B\n#define C(x) x\nstatic const int D = 2;\n\
                typedef enum {\n    E = 1,\n    F ACL_DEPRECATED_MESSAGE(\n        \"m\") = 2,\n    \
                G\n} T;\nenum U { H, I };\n";
    assert_eq!(header_value_names(text), ["A", "D", "E", "F", "G"]);
}

#[test]
fn every_header_value_exists_in_rust() {
    let values = rust_values();
    let mut names = Vec::new();
    let dir = include_dir().join("acl");
    for file in [
        "acl.h",
        "acl_base.h",
        "acl_base_rt.h",
        "acl_base_mdl.h",
        "acl_rt.h",
        "acl_rt_allocator.h",
        "acl_rt_memory_soma.h",
        "acl_ext.h",
        "error_codes/rt_error_codes.h",
        "error_codes/ge_error_codes.h",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        names.extend(header_value_names(&text));
    }
    assert!(
        names.len() >= values.len(),
        "parsed only {} names for {} Rust values",
        names.len(),
        values.len()
    );
    for name in &names {
        assert!(
            values.contains_key(name.as_str()),
            "{name} is in the headers but not in aclrt::codes / consts / vendor_consts"
        );
    }
}

#[test]
fn runtime_codes_are_macros() {
    // `#ifdef` sees every runtime code, and each one can label a `case` in C.
    let mut src = String::from(
        "#include <stdio.h>\n#include \"acl/acl.h\"\nstatic long long echo(long long c)\n{\n    switch (c) {\n",
    );
    let runtime: Vec<_> = aclrt::codes::ALL
        .iter()
        .filter(|c| (100_000..600_000).contains(&(c.code % 1_000_000)) && c.code / 1000 % 100 == 7)
        .collect();
    for c in &runtime {
        src.push_str(&format!(
            "#ifndef {0}\n#error {0} is not a macro\n#endif\n    case {0}: return {1};\n",
            c.name, c.code
        ));
    }
    src.push_str("    default: return -1;\n    }\n}\nint main(void)\n{\n");
    for c in &runtime {
        src.push_str(&format!("    printf(\"%lld\\n\", echo({}));\n", c.code));
    }
    src.push_str("    return 0;\n}\n");
    let out = run_c("switch", &src);
    let got: Vec<i64> = out.lines().map(|l| l.parse().unwrap()).collect();
    let want: Vec<i64> = runtime.iter().map(|c| i64::from(c.code)).collect();
    assert_eq!(got, want);
    assert_eq!(runtime.len(), 46 + 22 + 76);
}
