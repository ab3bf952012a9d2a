//! Where a command reads and writes, with the usual conventions: `-` is standard input or
//! output, and a file goes only into a folder that exists (nothing is created on the way).

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A file to write, or standard output (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    Stdout,
    File(PathBuf),
}

/// A file to read, or standard input (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

/// clap value parser for `-o`: `-` or a path.
pub fn parse_output(text: &str) -> Result<Output, String> {
    match text {
        "-" => Ok(Output::Stdout),
        _ if text.is_empty() => Err("an empty path (use - for standard output)".into()),
        _ => Ok(Output::File(PathBuf::from(text))),
    }
}

/// clap value parser for an input file: `-` or a path.
pub fn parse_input(text: &str) -> Result<Input, String> {
    match text {
        "-" => Ok(Input::Stdin),
        _ if text.is_empty() => Err("an empty path (use - for standard input)".into()),
        _ => Ok(Input::File(PathBuf::from(text))),
    }
}

/// clap value parser for a folder a command writes several files into: a path, not `-`.
pub fn parse_folder(text: &str) -> Result<PathBuf, String> {
    match text {
        "-" => Err("a folder is needed here; - (standard output) cannot hold files".into()),
        _ if text.is_empty() => Err("an empty path".into()),
        _ => Ok(PathBuf::from(text)),
    }
}

impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Output::Stdout => f.write_str("standard output"),
            Output::File(p) => write!(f, "{}", p.display()),
        }
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Stdin => f.write_str("standard input"),
            Input::File(p) => write!(f, "{}", p.display()),
        }
    }
}

impl Input {
    /// The whole input as text.
    pub fn read(&self) -> Result<String, String> {
        match self {
            Input::Stdin => {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|e| format!("cannot read standard input: {e}"))?;
                Ok(text)
            }
            Input::File(p) => {
                std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
            }
        }
    }

    /// The file name, for titles (`stdin` for standard input).
    pub fn file_name(&self) -> String {
        match self {
            Input::Stdin => "stdin".to_owned(),
            Input::File(p) => p
                .file_name()
                .unwrap_or(p.as_os_str())
                .to_string_lossy()
                .into_owned(),
        }
    }
}

/// The folder a file would be written into (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Checks that `path` can be created where it is: its folder exists and is a folder.
pub fn check_file_target(path: &Path) -> Result<(), String> {
    let dir = parent_of(path);
    if !dir.is_dir() {
        return Err(format!(
            "cannot write {}: the folder {} does not exist",
            path.display(),
            dir.display()
        ));
    }
    if path.is_dir() {
        return Err(format!("cannot write {}: it is a folder", path.display()));
    }
    Ok(())
}

impl Output {
    /// Checks, before any work, that the output can be written.
    pub fn check(&self) -> Result<(), String> {
        match self {
            Output::Stdout => Ok(()),
            Output::File(p) => check_file_target(p),
        }
    }

    /// Writes `bytes` to the file (replacing it) or to standard output.
    pub fn write(&self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Output::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes)
                    .and_then(|()| out.flush())
                    .map_err(|e| format!("cannot write to standard output: {e}"))
            }
            Output::File(p) => {
                self.check()?;
                std::fs::write(p, bytes).map_err(|e| format!("cannot write {}: {e}", p.display()))
            }
        }
    }
}

/// Makes `dir` ready to hold output files: an existing folder is used as it is, a missing one is
/// created, but only inside a folder that exists.
pub fn prepare_folder(dir: &Path) -> Result<(), String> {
    if dir.is_dir() {
        return Ok(());
    }
    if dir.exists() {
        return Err(format!("{} exists and is not a folder", dir.display()));
    }
    let parent = parent_of(dir);
    if !parent.is_dir() {
        return Err(format!(
            "cannot create the folder {}: {} does not exist",
            dir.display(),
            parent.display()
        ));
    }
    std::fs::create_dir(dir).map_err(|e| format!("cannot create the folder {}: {e}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dash_is_standard_output_or_input() {
        assert_eq!(parse_output("-"), Ok(Output::Stdout));
        assert_eq!(parse_input("-"), Ok(Input::Stdin));
        assert_eq!(parse_output("a.svg"), Ok(Output::File("a.svg".into())));
        assert!(parse_output("").is_err());
        assert!(parse_folder("-").is_err());
    }

    #[test]
    fn a_bare_name_goes_into_the_current_folder() {
        assert_eq!(parent_of(Path::new("a.svg")), Path::new("."));
        assert_eq!(parent_of(Path::new("d/a.svg")), Path::new("d"));
    }
}
