//! `aclrt-bench`: measures the runtime's costs next to physical baselines taken in the same run,
//! prints a table and writes a JSON report.
//!
//! ```text
//! aclrt-bench [--quick] [--json PATH] [--only ID[,ID...]]   (--help lists the case ids)
//! ```

mod alloc;
mod baseline;
mod cases;
mod report;

use std::process::ExitCode;

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

/// The usage text, with the case ids taken from the case table.
fn usage() -> String {
    let mut text = String::from(
        "usage: aclrt-bench [--quick] [--json PATH] [--only ID[,ID...]]\n\
         \x20 --quick        fewer samples and smaller scale cases (under a minute on 2 cores)\n\
         \x20 --json PATH    also write the results as JSON\n\
         \x20 --only IDS     run only these cases, comma separated\n\
         cases:\n",
    );
    for c in cases::CASES {
        text.push_str(&format!("  {:>2}  {}\n", c.id, c.name));
    }
    text
}

struct Args {
    quick: bool,
    json: Option<String>,
    only: Option<Vec<u32>>,
}

/// What the command line asks for.
enum Parsed {
    Run(Args),
    Help,
}

fn valid_ids() -> String {
    cases::CASES
        .iter()
        .map(|c| c.id.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One case id of `--only`: a number that names a case.
fn case_id(text: &str) -> Result<u32, String> {
    let text = text.trim();
    match text.parse::<u32>() {
        Ok(id) if cases::CASES.iter().any(|c| c.id == id) => Ok(id),
        _ => Err(format!(
            "--only: {text:?} is not a case id (valid ids: {})",
            valid_ids()
        )),
    }
}

fn parse_args(argv: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut args = Args {
        quick: false,
        json: None,
        only: None,
    };
    let mut it = argv.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => args.quick = true,
            "--json" => args.json = Some(it.next().ok_or("--json needs a path")?),
            "--only" => {
                let list = it.next().ok_or("--only needs case ids")?;
                let ids = list.split(',').map(case_id).collect::<Result<_, _>>()?;
                args.only = Some(ids);
            }
            "-h" | "--help" => return Ok(Parsed::Help),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Parsed::Run(args))
}

fn machine() -> Vec<(&'static str, String)> {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    vec![
        ("cpu", cpu),
        ("nproc", nproc.to_string()),
        ("kernel", kernel),
        ("os", std::env::consts::OS.to_owned()),
        ("arch", std::env::consts::ARCH.to_owned()),
    ]
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Parsed::Run(a)) => a,
        Ok(Parsed::Help) => {
            print!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("aclrt-bench: {e}");
            eprint!("{}", usage());
            return ExitCode::from(2);
        }
    };
    let machine = machine();
    let mode = if args.quick { "quick" } else { "full" };
    eprintln!(
        "aclrt-bench ({mode}) on {} x {}",
        machine[1].1, machine[0].1
    );
    let started = std::time::Instant::now();
    let rows = match cases::run_all(args.quick, args.only.as_deref()) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("aclrt-bench: runtime call failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!();
    report::print_table(&rows);
    eprintln!("\ntotal {:.1} s", started.elapsed().as_secs_f64());
    if let Some(path) = args.json {
        let text = report::to_json(&rows, mode, &machine);
        if let Some(dir) = std::path::Path::new(&path).parent() {
            if !dir.as_os_str().is_empty() {
                let _ = std::fs::create_dir_all(dir);
            }
        }
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("aclrt-bench: cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {path}");
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Parsed, String> {
        parse_args(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn only_takes_the_ids_of_the_case_table() {
        let last = cases::CASES.last().unwrap().id;
        match parse(&["--only", &format!("1,{last}")]) {
            Ok(Parsed::Run(a)) => assert_eq!(a.only, Some(vec![1, last])),
            _ => panic!("valid ids are accepted"),
        }
        let e = parse(&["--only", "99"]).err().unwrap();
        assert!(e.contains("\"99\""), "{e}");
        assert!(e.contains(&valid_ids()), "{e}");
        assert!(parse(&["--only", "1,x"]).is_err());
        assert!(parse(&["--only", ""]).is_err());
    }

    #[test]
    fn usage_lists_every_case() {
        let text = usage();
        for c in cases::CASES {
            assert!(text.contains(&format!("{:>2}  {}", c.id, c.name)), "{text}");
        }
    }
}
