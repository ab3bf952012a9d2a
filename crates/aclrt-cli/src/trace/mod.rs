//! `aclrt trace`: read a Chrome trace written by aclrt and summarise or draw it.

pub mod model;
pub mod render;
pub mod summary;

use std::path::Path;

use clap::Subcommand;

use crate::output::{parse_input, parse_output, Input, Output};
use model::Model;

#[derive(Subcommand)]
pub enum TraceCommand {
    /// Per-stream busy time, the longest waits and the critical path.
    Summary {
        /// A trace written with ACLRT_TRACE or aclrt::trace::stop_and_write (- for standard input).
        #[arg(value_parser = parse_input)]
        file: Input,
        /// How many of the longest waits to list (1 to 1000).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
        top: u32,
    },
    /// Draw the timeline as an SVG picture.
    Render {
        /// A trace written with ACLRT_TRACE or aclrt::trace::stop_and_write (- for standard input).
        #[arg(value_parser = parse_input)]
        file: Input,
        /// Where to write the picture (- for standard output); its folder must exist.
        #[arg(short, long, default_value = "timeline.svg", value_parser = parse_output)]
        output: Output,
        /// Picture width in pixels (400 to 20000).
        #[arg(long, default_value_t = 1200, value_parser = clap::value_parser!(u32).range(400..=20_000))]
        width: u32,
    },
}

pub fn run(command: TraceCommand) -> Result<(), String> {
    match command {
        TraceCommand::Summary { file, top } => {
            let model = Model::load(&file)?;
            print!(
                "{}",
                summary::report(&model, &file.to_string(), top as usize)
            );
            Ok(())
        }
        TraceCommand::Render {
            file,
            output,
            width,
        } => {
            output.check()?;
            let model = Model::load(&file)?;
            write_svg(
                &model,
                &title_for(&model, &file.file_name()),
                width,
                &output,
            )?;
            if let Output::File(path) = &output {
                eprintln!(
                    "wrote {} ({} stream rows, {} tasks)",
                    path.display(),
                    model.streams.len(),
                    model.tasks.len()
                );
            }
            Ok(())
        }
    }
}

fn title_for(model: &Model, file_name: &str) -> String {
    let (t0, t1) = model.task_span();
    format!(
        "aclrt timeline · {file_name} · {} streams · {} tasks · {:.1} ms",
        model.streams.len(),
        model.tasks.len(),
        (t1 - t0) / 1000.0
    )
}

fn write_svg(model: &Model, title: &str, width: u32, output: &Output) -> Result<(), String> {
    let svg = render::render(
        model,
        &render::Options {
            width: f64::from(width),
            title: title.to_owned(),
        },
    );
    output.write(svg.as_bytes())
}

/// Renders a trace file to an SVG file (the demo's picture).
pub fn render_file(trace: &Path, output: &Path) -> Result<(), String> {
    let input = Input::File(trace.to_owned());
    let model = Model::load(&input)?;
    write_svg(
        &model,
        &title_for(&model, &input.file_name()),
        1200,
        &Output::File(output.to_owned()),
    )
}
