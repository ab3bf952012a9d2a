//! `aclrt`: the demo program and the trace tools.
//!
//! Exit status: 0 on success, 1 when the work fails (a file that cannot be read or written, a
//! runtime error), 2 for a usage error (an unknown option, a value out of range).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check;
mod demo;
mod output;
mod trace;

#[derive(Parser)]
#[command(
    name = "aclrt",
    version,
    about = "AscendCL runtime on an emulated device"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a multi-stream pipeline on the emulated device, print what happened, and write its
    /// trace (trace.json) and timeline picture (timeline.svg).
    Demo {
        /// Folder for trace.json and timeline.svg; created if missing (its parent must exist).
        #[arg(long, value_name = "DIR", default_value = "out", value_parser = output::parse_folder)]
        out: PathBuf,
    },
    /// Run a program with the checker on (races, freed memory, hangs, deadlocks; leaks with
    /// --parts), print a summary, and exit with the program's status (non-zero when there were
    /// findings).
    Check(check::CheckArgs),
    /// Summarise or draw a trace written with ACLRT_TRACE=path.
    Trace {
        #[command(subcommand)]
        command: trace::TraceCommand,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { out } => demo::run(&out),
        Command::Trace { command } => trace::run(command),
        Command::Check(args) => return check::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aclrt: {e}");
            ExitCode::FAILURE
        }
    }
}
