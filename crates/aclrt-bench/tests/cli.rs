//! The command line: usage errors exit 2 before any case runs, help lists the cases.

use std::process::{Command, Output};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aclrt-bench"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The case ids `--help` lists, in order.
fn listed_ids() -> Vec<u32> {
    let out = bench(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    text(&out.stdout)
        .lines()
        .skip_while(|l| *l != "cases:")
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn help_lists_every_case_id() {
    let ids = listed_ids();
    // Cases are numbered from 1 without gaps; 14 (tracing cost) is the newest.
    assert!(ids.len() >= 14, "{ids:?}");
    assert_eq!(ids, (1..=ids.len() as u32).collect::<Vec<_>>());
    let help = text(&bench(&["--help"]).stdout);
    assert!(help.contains("14  tracing cost"), "{help}");
}

#[test]
fn an_id_that_is_no_case_is_a_usage_error() {
    let out = bench(&["--only", "99"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    let first = err.lines().next().unwrap();
    assert!(first.contains("\"99\" is not a case id"), "{err}");
    let valid = listed_ids()
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    assert!(first.contains(&valid), "names the valid ids: {err}");
    assert!(
        !err.contains("case  1"),
        "nothing ran before the error: {err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        &["--frobnicate"][..],
        &["--only", "one"],
        &["--only", "1,,2"],
        &["--only"],
        &["--json"],
    ] {
        let out = bench(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).starts_with("aclrt-bench: "),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}
