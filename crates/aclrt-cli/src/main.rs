//! `aclrt`: the demo program and the trace tools.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod demo;
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
    /// Run a multi-stream pipeline on the emulated device and print what happened.
    Demo,
    /// Summarise or draw a trace written with ACLRT_TRACE=path.
    Trace {
        #[command(subcommand)]
        command: trace::TraceCommand,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo => demo::run().map_err(|e| e.to_string()),
        Command::Trace { command } => trace::run(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aclrt: {e}");
            ExitCode::FAILURE
        }
    }
}
