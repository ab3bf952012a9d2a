//! `aclrt trace`: read a Chrome trace written by aclrt and summarise or draw it.

pub mod model;
pub mod render;
pub mod summary;

use std::path::{Path, PathBuf};

use clap::Subcommand;

use model::Model;

#[derive(Subcommand)]
pub enum TraceCommand {
    /// Per-stream busy time, the longest waits and the critical path.
    Summary {
        /// A trace written with ACLRT_TRACE or aclrt::trace::stop_and_write.
        file: PathBuf,
        /// How many of the longest waits to list.
        #[arg(long, default_value_t = 5)]
        top: usize,
    },
    /// Draw the timeline as an SVG picture.
    Render {
        /// A trace written with ACLRT_TRACE or aclrt::trace::stop_and_write.
        file: PathBuf,
        /// Where to write the picture.
        #[arg(short, long, default_value = "timeline.svg")]
        output: PathBuf,
        /// Picture width in pixels.
        #[arg(long, default_value_t = 1200.0)]
        width: f64,
    },
}

pub fn run(command: TraceCommand) -> Result<(), String> {
    match command {
        TraceCommand::Summary { file, top } => {
            let model = Model::load(&file)?;
            print!(
                "{}",
                summary::report(&model, &file.display().to_string(), top)
            );
            Ok(())
        }
        TraceCommand::Render {
            file,
            output,
            width,
        } => {
            let model = Model::load(&file)?;
            write_svg(&model, &title_for(&model, &file), width, &output)?;
            println!(
                "wrote {} ({} stream rows, {} tasks)",
                output.display(),
                model.streams.len(),
                model.tasks.len()
            );
            Ok(())
        }
    }
}

fn title_for(model: &Model, file: &Path) -> String {
    let (t0, t1) = model.task_span();
    format!(
        "aclrt timeline · {} · {} streams · {} tasks · {:.1} ms",
        file.file_name().unwrap_or_default().to_string_lossy(),
        model.streams.len(),
        model.tasks.len(),
        (t1 - t0) / 1000.0
    )
}

fn write_svg(model: &Model, title: &str, width: f64, output: &Path) -> Result<(), String> {
    let svg = render::render(
        model,
        &render::Options {
            width,
            title: title.to_owned(),
        },
    );
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(output, svg).map_err(|e| format!("{}: {e}", output.display()))
}

/// Renders a trace file to an SVG file (the demo's picture).
pub fn render_file(trace: &Path, output: &Path) -> Result<(), String> {
    let model = Model::load(trace)?;
    write_svg(&model, &title_for(&model, trace), 1200.0, output)
}
