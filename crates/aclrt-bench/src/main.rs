//! `aclrt-bench`: measures the runtime's costs next to physical baselines taken in the same run,
//! prints a table and writes a JSON report.
//!
//! ```text
//! aclrt-bench [--quick] [--json PATH] [--only ID[,ID...]]
//! ```

mod alloc;
mod baseline;
mod cases;
mod report;

use std::process::ExitCode;

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

const USAGE: &str = "usage: aclrt-bench [--quick] [--json PATH] [--only ID[,ID...]]\n\
  --quick        fewer samples and smaller scale cases (under a minute on 2 cores)\n\
  --json PATH    also write the results as JSON\n\
  --only IDS     run only these case numbers (1-13), comma separated";

struct Args {
    quick: bool,
    json: Option<String>,
    only: Option<Vec<u32>>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        quick: false,
        json: None,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => args.quick = true,
            "--json" => args.json = Some(it.next().ok_or("--json needs a path")?),
            "--only" => {
                let list = it.next().ok_or("--only needs case numbers")?;
                let ids = list
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .parse::<u32>()
                            .map_err(|_| format!("bad case number {s:?}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                args.only = Some(ids);
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
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
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("aclrt-bench: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(if e.is_empty() { 0 } else { 2 });
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
