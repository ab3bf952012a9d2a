//! The checker's JSON report file: created empty when the checker starts, a report left by an
//! earlier run is replaced, one that a living process still reports to is kept, and under
//! `aclrt check` one that an earlier program of the run wrote is kept.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

use aclrt::check::{self, report_json, Options, Parts};

fn start_with_report(path: &Path) {
    start(path, false);
}

fn start(path: &Path, run_owned: bool) {
    let mut options = Options::quiet(Parts::DEFAULT);
    options.report = Some(path.to_path_buf());
    options.report_is_the_runs = run_owned;
    check::enable_with(options);
}

/// Holds a shared lock on `path` through its own open file, as another process reporting
/// there does.
fn hold(path: &Path) -> File {
    let file = File::open(path).unwrap();
    // SAFETY: the descriptor is open (owned by `file`) for the duration of the call.
    assert_eq!(
        unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) },
        0
    );
    file
}

#[test]
fn an_earlier_runs_report_is_replaced_a_living_ones_is_kept() {
    let dir = std::env::temp_dir().join(format!("aclrt-check-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("report.json");
    let empty = report_json(&[]);
    let earlier = "{\"findings\": [{\"kind\": \"race\", \"message\": \"an earlier run\"}]}";

    // Missing: created empty.
    start_with_report(&path);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), empty);
    check::disable();

    // Left by an earlier run (nobody holds it): replaced.
    std::fs::write(&path, earlier).unwrap();
    start_with_report(&path);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), empty);
    check::disable();

    // Held by a living process (here: another open file of the same report): kept.
    std::fs::write(&path, earlier).unwrap();
    let other = hold(&path);
    start_with_report(&path);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), earlier);
    check::disable();

    // That process is gone: the next start replaces it.
    drop(other);
    start_with_report(&path);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), empty);
    check::disable();

    // Under a launcher that removed the earlier report (`aclrt check`): an absent report is
    // created, and what an earlier program of the run wrote is kept.
    std::fs::remove_file(&path).unwrap();
    start(&path, true);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), empty);
    check::disable();
    std::fs::write(&path, earlier).unwrap();
    start(&path, true);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), earlier);
    check::disable();
    let _ = std::fs::remove_dir_all(&dir);
}
