//! Application log lines (`aclAppLog`, pyACL's `acl.app_log`): the emulated runtime has no
//! log daemon, so a line goes to the process's standard error, in the vendor's log format.
//!
//! A line is written for the levels `ACL_DEBUG` (0) to `ACL_ERROR` (3) at or above the least
//! level [`ENV_LOG_LEVEL`] names (read at each call); other levels write nothing.

use crate::vendor_consts::{ACL_DEBUG, ACL_ERROR, ACL_INFO, ACL_WARNING};

/// Environment variable holding the least level written, as on the vendor's installation:
/// 0 debug, 1 info, 2 warning, 3 error (the default, also for an unset or invalid value),
/// 4 nothing.
pub const ENV_LOG_LEVEL: &str = "ASCEND_GLOBAL_LOG_LEVEL";

/// The most bytes of an `aclAppLog` line's text, as the vendor's log buffer holds them (its
/// terminating NUL included); longer text is cut and ends with [`TRUNCATED_MARK`].
pub const MAX_LOG_STRING: usize = 1024;

/// What ends text cut to [`MAX_LOG_STRING`], as the vendor marks it.
pub const TRUNCATED_MARK: &str = "...[truncated]";

fn level_name(level: i64) -> Option<&'static str> {
    match level {
        ACL_DEBUG => Some("DEBUG"),
        ACL_INFO => Some("INFO"),
        ACL_WARNING => Some("WARNING"),
        ACL_ERROR => Some("ERROR"),
        _ => None,
    }
}

/// The least level written: [`ENV_LOG_LEVEL`] when it holds 0–4, else error.
fn threshold() -> i64 {
    std::env::var(ENV_LOG_LEVEL)
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .filter(|l| (0..=4).contains(l))
        .unwrap_or(ACL_ERROR)
}

/// Local time as the vendor's logs print it: `2024-05-01-13:45:02.123.456`.
fn timestamp() -> String {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    // SAFETY: an all-zero `tm` is a valid value for localtime_r to overwrite.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals; localtime_r is the thread-safe variant.
    unsafe { libc::localtime_r(&ts.tv_sec, &mut tm) };
    let micros = ts.tv_nsec / 1000;
    format!(
        "{:04}-{:02}-{:02}-{:02}:{:02}:{:02}.{:03}.{:03}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        micros / 1000,
        micros % 1000
    )
}

fn process_name() -> String {
    std::fs::read_to_string("/proc/self/comm")
        .map(|s| s.trim_end().to_owned())
        .unwrap_or_default()
}

/// The line `message` at `level` makes, `[LEVEL] APP(pid,process):timestamp message\n`, or
/// `None` when the level is not written.
pub fn app_log_line(level: i64, message: &str) -> Option<String> {
    let name = level_name(level)?;
    if level < threshold() {
        return None;
    }
    Some(format!(
        "[{name}] APP({},{}):{} {message}\n",
        std::process::id(),
        process_name(),
        timestamp()
    ))
}

/// The text `aclAppLog` logs for a message formatted by the caller:
/// `tid func:file:line: "message"`, as the vendor's, cut to [`MAX_LOG_STRING`] - 1 bytes
/// with [`TRUNCATED_MARK`] at the end when the message or the whole text was longer.
/// `message_len` is the formatted message's full length (its bytes may have been cut to fit
/// a buffer already).
pub fn app_log_text(
    func: &str,
    file: &str,
    line: u32,
    message: &[u8],
    message_len: usize,
) -> String {
    let limit = MAX_LOG_STRING - 1;
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() };
    let body = String::from_utf8_lossy(&message[..message.len().min(limit)]);
    let mut text = format!("{tid} {func}:{file}:{line}: \"{body}\"");
    if message_len >= limit || text.len() >= limit {
        let mut cut = limit - TRUNCATED_MARK.len();
        while !text.is_char_boundary(cut.min(text.len())) {
            cut -= 1;
        }
        text.truncate(cut.min(text.len()));
        text.push_str(TRUNCATED_MARK);
    }
    text
}

/// Writes `aclAppLog`'s line for `text` at `level` to standard error (nothing when the level
/// is not written).
pub fn app_log(level: i64, text: &str) {
    if let Some(line) = app_log_line(level, text) {
        use std::io::Write;
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cut_with_the_mark() {
        let short = app_log_text("f", "a.c", 7, b"hello 1", 7);
        assert!(short.ends_with(" f:a.c:7: \"hello 1\""), "{short}");
        let long = vec![b'x'; 2000];
        let cut = app_log_text("f", "a.c", 7, &long[..1023], 2000);
        assert_eq!(cut.len(), MAX_LOG_STRING - 1);
        assert!(cut.ends_with(TRUNCATED_MARK));
        // A message that fits but makes the whole text too long is cut too.
        let fits = vec![b'y'; 1020];
        let cut = app_log_text("func", "file.c", 1, &fits, 1020);
        assert_eq!(cut.len(), MAX_LOG_STRING - 1);
        assert!(cut.ends_with(TRUNCATED_MARK));
    }
}
