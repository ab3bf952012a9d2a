//! `aclrt check [--report out.json] [--parts LIST] -- PROGRAM ARGS…`: runs a program (C, Python or
//! Rust, anything that loads the runtime) with the checker on, prints a summary of what it found,
//! and exits with the program's status — the checker's exit code (66 unless
//! `ACLRT_CHECK_EXITCODE` says otherwise) when the program made findings but exited 0 anyway.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::Args;
use serde_json::Value;

#[derive(Args)]
pub struct CheckArgs {
    /// Write the findings here as JSON ({"findings": [...]}); kept after the run.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Checks to run: a comma list of race, free, hang, leak (default race,free,hang).
    #[arg(long, value_name = "LIST", default_value = "all", value_parser = parse_parts)]
    parts: String,
    /// The program and its arguments (after --).
    #[arg(
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "PROGRAM"
    )]
    program: Vec<OsString>,
}

fn parse_parts(value: &str) -> Result<String, String> {
    match aclrt::check::Parts::parse(value)? {
        Some(_) => Ok(value.to_owned()),
        None => Err(format!("{value:?} switches every check off")),
    }
}

/// Runs the program; the exit status is the program's (see the module docs).
pub fn run(args: CheckArgs) -> ExitCode {
    let keep = args.report.is_some();
    let report = args.report.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("aclrt-check-{}.json", std::process::id()))
    });
    let _ = std::fs::remove_file(&report);
    let exit_code = std::env::var(aclrt::check::ENV_EXITCODE)
        .ok()
        .and_then(|v| v.trim().parse::<u8>().ok())
        .unwrap_or(aclrt::check::DEFAULT_EXIT_CODE as u8);
    let (program, rest) = args.program.split_first().expect("clap requires one");
    let status = Command::new(program)
        .args(rest)
        .env(aclrt::check::ENV_CHECK, &args.parts)
        .env(aclrt::check::ENV_REPORT, &report)
        .env(aclrt::check::ENV_REPORT_IS_THE_RUNS, "1")
        .status();
    let status = match status {
        Ok(s) => s,
        Err(e) => {
            eprintln!("aclrt check: cannot run {}: {e}", program.to_string_lossy());
            return ExitCode::from(127);
        }
    };
    let ran = report.exists();
    let findings = read_findings(&report);
    if !keep {
        let _ = std::fs::remove_file(&report);
    }
    if ran {
        eprint!("{}", summary(&findings));
    } else {
        eprintln!(
            "aclrt check: the checker never started: {} did not initialise this runtime \
             (aclInit, acl.init() or the Rust API), or does not load it",
            program.to_string_lossy()
        );
    }
    if keep && !findings.is_empty() {
        eprintln!("aclrt check: report written to {}", report.display());
    }
    let code = match status.code() {
        Some(c) => c,
        None => {
            use std::os::unix::process::ExitStatusExt;
            128 + status.signal().unwrap_or(0)
        }
    };
    if code == 0 && !findings.is_empty() {
        return ExitCode::from(exit_code.max(1));
    }
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn read_findings(path: &PathBuf) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.get("findings").and_then(Value::as_array).cloned())
        .unwrap_or_default()
}

/// `aclrt check: no findings` or counts per kind and one line per finding.
fn summary(findings: &[Value]) -> String {
    if findings.is_empty() {
        return "aclrt check: no findings\n".into();
    }
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for f in findings {
        *kinds.entry(f["kind"].as_str().unwrap_or("?")).or_default() += 1;
    }
    let counts: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let mut s = format!(
        "aclrt check: {} finding{} ({})\n",
        findings.len(),
        if findings.len() == 1 { "" } else { "s" },
        counts.join(", ")
    );
    for f in findings {
        s.push_str(&format!(
            "  {}: {}\n",
            f["kind"].as_str().unwrap_or("?"),
            f["message"].as_str().unwrap_or("")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_findings_per_kind() {
        assert_eq!(summary(&[]), "aclrt check: no findings\n");
        let f: Vec<Value> = serde_json::from_str(
            r#"[{"kind":"race","message":"a"},{"kind":"leak","message":"b"},{"kind":"race","message":"c"}]"#,
        )
        .unwrap();
        assert_eq!(
            summary(&f),
            "aclrt check: 3 findings (1 leak, 2 race)\n  race: a\n  leak: b\n  race: c\n"
        );
    }
}
