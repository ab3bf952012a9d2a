//! Samples, summary statistics, the printed table and the JSON report.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Median and spread of a set of samples.
#[derive(Debug, Clone, Copy)]
pub struct Stats {
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
}

impl Stats {
    /// Nearest-rank percentiles; a single sample gives all three.
    pub fn of(mut samples: Vec<f64>) -> Stats {
        assert!(!samples.is_empty(), "a case produced no samples");
        samples.sort_by(f64::total_cmp);
        let at = |q: f64| {
            let i = ((samples.len() - 1) as f64 * q).round() as usize;
            samples[i]
        };
        Stats {
            median: at(0.5),
            p10: at(0.1),
            p90: at(0.9),
        }
    }
}

/// What a case's median has to reach.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    /// Median at most this many units.
    AtMost(f64),
    /// Median at least this many units.
    AtLeast(f64),
    /// Median / baseline at most this.
    RatioAtMost(f64),
    /// Median / baseline at least this.
    RatioAtLeast(f64),
}

impl Target {
    fn describe(self, unit: &str) -> String {
        match self {
            Target::AtMost(v) => format!("<= {} {unit}", fmt_num(v)),
            Target::AtLeast(v) => format!(">= {} {unit}", fmt_num(v)),
            Target::RatioAtMost(r) => format!("ratio <= {r}"),
            Target::RatioAtLeast(r) => format!("ratio >= {r}"),
        }
    }

    fn met(self, median: f64, ratio: Option<f64>) -> Option<bool> {
        match self {
            Target::AtMost(v) => Some(median <= v),
            Target::AtLeast(v) => Some(median >= v),
            Target::RatioAtMost(r) => ratio.map(|x| x <= r),
            Target::RatioAtLeast(r) => ratio.map(|x| x >= r),
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone)]
pub struct Row {
    pub id: String,
    pub case: String,
    pub unit: &'static str,
    pub stats: Stats,
    pub baseline_name: String,
    pub baseline: Option<f64>,
    pub target: Option<Target>,
    pub note: String,
}

impl Row {
    pub fn new(id: &str, case: &str, unit: &'static str, stats: Stats) -> Row {
        Row {
            id: id.to_owned(),
            case: case.to_owned(),
            unit,
            stats,
            baseline_name: String::new(),
            baseline: None,
            target: None,
            note: String::new(),
        }
    }

    pub fn baseline(mut self, name: &str, value: f64) -> Row {
        self.baseline_name = name.to_owned();
        self.baseline = Some(value);
        self
    }

    pub fn target(mut self, target: Target) -> Row {
        self.target = Some(target);
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Row {
        self.note = note.into();
        self
    }

    /// Median over baseline (both in the row's unit).
    pub fn ratio(&self) -> Option<f64> {
        self.baseline
            .filter(|b| *b != 0.0 && b.is_finite())
            .map(|b| self.stats.median / b)
    }

    pub fn met(&self) -> Option<bool> {
        self.target
            .and_then(|t| t.met(self.stats.median, self.ratio()))
    }
}

/// Times `iters` runs of `op` (after `setup`, before `teardown`, both untimed) per sample and
/// returns the per-run time of each sample, in `scale` units per second (1e9 for ns).
pub fn per_op(
    samples: usize,
    iters: usize,
    scale: f64,
    mut setup: impl FnMut(),
    mut op: impl FnMut(usize),
    mut teardown: impl FnMut(),
) -> Stats {
    let mut out = Vec::with_capacity(samples);
    // One warm-up sample: first-touch allocations and thread start-up are not what is measured.
    for s in 0..=samples {
        setup();
        let start = Instant::now();
        for i in 0..iters {
            op(i);
        }
        let elapsed = start.elapsed();
        teardown();
        if s > 0 {
            out.push(elapsed.as_secs_f64() * scale / iters as f64);
        }
    }
    Stats::of(out)
}

/// Runs `sample` `n` times (plus `warmup` discarded runs) and summarises what it returns.
pub fn repeat(n: usize, warmup: usize, mut sample: impl FnMut() -> f64) -> Stats {
    for _ in 0..warmup {
        sample();
    }
    Stats::of((0..n).map(|_| sample()).collect())
}

pub fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        format!("{v}")
    } else if a == 0.0 {
        "0".to_owned()
    } else if a >= 1e7 {
        format!("{v:.3e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}

pub fn print_table(rows: &[Row]) {
    let header = [
        "id", "case", "unit", "median", "p10", "p90", "baseline", "ratio", "target", "met",
    ];
    let cells: Vec<[String; 10]> = rows
        .iter()
        .map(|r| {
            [
                r.id.clone(),
                r.case.clone(),
                r.unit.to_owned(),
                fmt_num(r.stats.median),
                fmt_num(r.stats.p10),
                fmt_num(r.stats.p90),
                match r.baseline {
                    Some(b) => format!("{} ({})", fmt_num(b), r.baseline_name),
                    None => "-".to_owned(),
                },
                r.ratio().map_or("-".to_owned(), |x| format!("{x:.2}")),
                r.target.map_or("-".to_owned(), |t| t.describe(r.unit)),
                match r.met() {
                    Some(true) => "yes".to_owned(),
                    Some(false) => "NO".to_owned(),
                    None => "-".to_owned(),
                },
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for c in &cells {
        for (w, s) in widths.iter_mut().zip(c.iter()) {
            *w = (*w).max(s.chars().count());
        }
    }
    let line = |c: &[String]| {
        let mut s = String::new();
        for (i, (cell, w)) in c.iter().zip(widths.iter()).enumerate() {
            let numeric = (3..=5).contains(&i) || i == 7;
            if numeric {
                let _ = write!(s, "{cell:>w$}  ");
            } else {
                let _ = write!(s, "{cell:<w$}  ");
            }
        }
        s.trim_end().to_owned()
    };
    println!("{}", line(&header.map(str::to_owned)));
    println!(
        "{}",
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("  ")
    );
    for c in &cells {
        println!("{}", line(c));
    }
    let notes: Vec<&Row> = rows.iter().filter(|r| !r.note.is_empty()).collect();
    if !notes.is_empty() {
        println!();
        for r in notes {
            println!("{}: {}", r.id, r.note);
        }
    }
}

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x}"),
        _ => "null".to_owned(),
    }
}

/// The report as JSON: machine description, mode and one object per row.
pub fn to_json(rows: &[Row], mode: &str, machine: &[(&str, String)]) -> String {
    let mut s = String::from("{\n");
    let _ = writeln!(s, "  \"mode\": {},", json_str(mode));
    s.push_str("  \"machine\": {");
    let fields: Vec<String> = machine
        .iter()
        .map(|(k, v)| format!("{}: {}", json_str(k), json_str(v)))
        .collect();
    s.push_str(&fields.join(", "));
    s.push_str("},\n  \"results\": [\n");
    let items: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "    {{\"id\": {}, \"case\": {}, \"unit\": {}, \"median\": {}, \"p10\": {}, \"p90\": {}, \
                 \"baseline\": {}, \"baseline_name\": {}, \"ratio\": {}, \"target\": {}, \"met\": {}, \"note\": {}}}",
                json_str(&r.id),
                json_str(&r.case),
                json_str(r.unit),
                json_num(Some(r.stats.median)),
                json_num(Some(r.stats.p10)),
                json_num(Some(r.stats.p90)),
                json_num(r.baseline),
                json_str(&r.baseline_name),
                json_num(r.ratio()),
                r.target
                    .map_or("null".to_owned(), |t| json_str(&t.describe(r.unit))),
                r.met().map_or("null".to_owned(), |m| m.to_string()),
                json_str(&r.note),
            )
        })
        .collect();
    s.push_str(&items.join(",\n"));
    s.push_str("\n  ]\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let s = Stats::of((1..=11).map(f64::from).rev().collect());
        assert_eq!(s.median, 6.0);
        assert_eq!(s.p10, 2.0);
        assert_eq!(s.p90, 10.0);
        let one = Stats::of(vec![3.5]);
        assert_eq!((one.median, one.p10, one.p90), (3.5, 3.5, 3.5));
    }

    #[test]
    fn targets_and_ratios() {
        let st = Stats::of(vec![120.0]);
        let r = Row::new("1", "x", "ns", st)
            .baseline("b", 60.0)
            .target(Target::AtMost(100.0));
        assert_eq!(r.ratio(), Some(2.0));
        assert_eq!(r.met(), Some(false));
        let r = r.target(Target::RatioAtMost(2.0));
        assert_eq!(r.met(), Some(true));
        let none = Row::new("2", "y", "ns", st).target(Target::RatioAtLeast(1.0));
        assert_eq!(
            none.met(),
            None,
            "a ratio target without a baseline is undecided"
        );
    }

    #[test]
    fn json_escapes_and_nulls() {
        let rows = vec![Row::new(
            "1",
            "a \"q\"\n",
            "ns",
            Stats::of(vec![1.0, 2.0, 3.0]),
        )];
        let j = to_json(&rows, "quick", &[("cpu", "x\\y".to_owned())]);
        assert!(j.contains("\"case\": \"a \\\"q\\\"\\n\""), "{j}");
        assert!(j.contains("\"cpu\": \"x\\\\y\""), "{j}");
        assert!(j.contains("\"median\": 2,"), "{j}");
        assert!(j.contains("\"baseline\": null"), "{j}");
        assert!(j.contains("\"met\": null"), "{j}");
    }
}
