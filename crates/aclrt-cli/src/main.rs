//! `aclrt`: the demo program and the trace tools.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod demo;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo => demo::run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aclrt: {e}");
            ExitCode::FAILURE
        }
    }
}
