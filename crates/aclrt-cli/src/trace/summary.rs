//! `aclrt trace summary`: the checker's findings (when it ran), per-stream busy time, the
//! longest waits and the critical path.

use std::fmt::Write;

use super::model::{Model, Task, Track};

/// Length of the union of the intervals (which may overlap when slices nest).
fn covered(mut spans: Vec<(f64, f64)>) -> f64 {
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut total = 0.0;
    let mut current: Option<(f64, f64)> = None;
    for (s, e) in spans {
        match &mut current {
            Some((_, ce)) if s <= *ce => *ce = ce.max(e),
            _ => {
                if let Some((cs, ce)) = current {
                    total += ce - cs;
                }
                current = Some((s, e));
            }
        }
    }
    if let Some((cs, ce)) = current {
        total += ce - cs;
    }
    total
}

/// Per-stream figures.
#[derive(Debug, Clone)]
pub struct StreamStats {
    pub row: usize,
    pub tasks: usize,
    /// Time running non-wait tasks (µs).
    pub busy: f64,
    /// Time blocked in waits (µs).
    pub waiting: f64,
}

/// What ends a critical path walk going backwards.
#[derive(Debug, Clone, PartialEq)]
pub enum PathStart {
    /// The first task ran as soon as its stream started.
    StreamStart,
    /// The host queued the task only after its stream was free: the host was the bottleneck.
    HostLaunch { at: f64 },
}

/// The chain of tasks that decided when the last task finished: walking back from it, each
/// step goes to whichever dependency finished last (the previous task on its stream, or the
/// record that released a wait).
#[derive(Debug, Clone)]
pub struct CriticalPath {
    /// Task indices, first to last.
    pub tasks: Vec<usize>,
    pub start: PathStart,
}

pub fn stream_stats(model: &Model) -> Vec<StreamStats> {
    (0..model.streams.len())
        .map(|row| {
            let tasks: Vec<&Task> = model.tasks.iter().filter(|t| t.row == row).collect();
            let busy = covered(
                tasks
                    .iter()
                    .filter(|t| !t.is_wait())
                    .map(|t| (t.start, t.end))
                    .collect(),
            );
            let waiting = covered(
                tasks
                    .iter()
                    .filter(|t| t.is_wait())
                    .map(|t| (t.start, t.end))
                    .collect(),
            );
            StreamStats {
                row,
                tasks: tasks.len(),
                busy,
                waiting,
            }
        })
        .collect()
}

pub fn critical_path(model: &Model) -> Option<CriticalPath> {
    let by_uid = model.by_uid();
    // The previous task on the same row, by start order.
    let mut previous = vec![None; model.tasks.len()];
    let mut last_on_row: Vec<Option<usize>> = vec![None; model.streams.len()];
    for (i, t) in model.tasks.iter().enumerate() {
        previous[i] = last_on_row[t.row];
        last_on_row[t.row] = Some(i);
    }
    let last = (0..model.tasks.len())
        .max_by(|&a, &b| model.tasks[a].end.total_cmp(&model.tasks[b].end))?;
    let mut path = vec![last];
    let mut seen = vec![false; model.tasks.len()];
    seen[last] = true;
    let mut cur = last;
    let start = loop {
        let t = &model.tasks[cur];
        let mut best: Option<usize> = previous[cur];
        if let Some(r) = t.released_by.and_then(|uid| by_uid.get(&uid).copied()) {
            let record_end = model.tasks[r].end;
            if best.is_none_or(|p| record_end >= model.tasks[p].end) {
                best = Some(r);
            }
        }
        let gate = best.map(|p| model.tasks[p].end);
        if let (Some(submitted), Some(gate)) = (t.submitted, gate) {
            if submitted > gate {
                break PathStart::HostLaunch { at: submitted };
            }
        }
        match best {
            Some(p) if !seen[p] => {
                seen[p] = true;
                path.push(p);
                cur = p;
            }
            _ => break PathStart::StreamStart,
        }
    };
    path.reverse();
    Some(CriticalPath { tasks: path, start })
}

fn ms(us: f64) -> String {
    format!("{:.3}", us / 1000.0)
}

/// The checker's findings, when the trace holds any: a count by kind, then each finding's
/// description and the tracks it marks.
fn findings(model: &Model, out: &mut String) {
    let distinct = model.distinct_findings();
    if distinct.is_empty() {
        return;
    }
    let mut by_kind: Vec<(&str, usize)> = Vec::new();
    for f in &distinct {
        match by_kind.iter_mut().find(|(k, _)| *k == f.kind) {
            Some((_, n)) => *n += 1,
            None => by_kind.push((&f.kind, 1)),
        }
    }
    let counts: Vec<String> = by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "checker findings: {} ({})",
        distinct.len(),
        counts.join(", ")
    );
    for f in distinct {
        let _ = writeln!(out, "  #{} {}: {}", f.finding, f.kind, f.message);
        let mut tracks: Vec<Track> = model
            .findings
            .iter()
            .filter(|m| m.finding == f.finding)
            .map(|m| m.track)
            .collect();
        tracks.sort();
        tracks.dedup();
        let labels: Vec<String> = tracks.into_iter().map(|t| model.track_label(t)).collect();
        let _ = writeln!(out, "     marked on {}", labels.join("; "));
    }
}

/// The printed report.
pub fn report(model: &Model, source: &str, top: usize) -> String {
    let mut out = String::new();
    let (h0, h1) = model.span();
    let (t0, t1) = model.task_span();
    let span = t1 - t0;
    let _ = writeln!(
        out,
        "trace {source}: {} stream(s), {} task(s), {} host thread(s); tasks ran for {} ms of the trace's {} ms",
        model.streams.len(),
        model.tasks.len(),
        model.threads.len(),
        ms(span),
        ms(h1 - h0)
    );
    let _ = writeln!(
        out,
        "busy and waiting are shares of the {} ms from the first task start to the last task end",
        ms(span)
    );
    findings(model, &mut out);
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<28} {:>6} {:>11} {:>7} {:>11} {:>7} {:>7}",
        "stream", "tasks", "busy ms", "busy %", "waiting ms", "wait %", "failed"
    );
    for s in stream_stats(model) {
        let failed = model
            .tasks
            .iter()
            .filter(|t| t.row == s.row && t.error.is_some())
            .count();
        let pct = |v: f64| {
            if span > 0.0 {
                format!("{:.1}%", v / span * 100.0)
            } else {
                "-".to_owned()
            }
        };
        let _ = writeln!(
            out,
            "{:<28} {:>6} {:>11} {:>7} {:>11} {:>7} {:>7}",
            model.stream_label(s.row),
            s.tasks,
            ms(s.busy),
            pct(s.busy),
            ms(s.waiting),
            pct(s.waiting),
            failed
        );
    }

    let by_uid = model.by_uid();
    let mut waits: Vec<&Task> = model.tasks.iter().filter(|t| t.is_wait()).collect();
    waits.sort_by(|a, b| b.duration().total_cmp(&a.duration()));
    let _ = writeln!(out);
    let _ = writeln!(out, "longest stream waits");
    if waits.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for w in waits.iter().take(top) {
        let by = w
            .released_by
            .and_then(|u| by_uid.get(&u))
            .map(|&r| {
                let r = &model.tasks[r];
                format!(
                    ", released by {} task {} ({})",
                    model.stream_label(r.row),
                    r.task,
                    r.label
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:>10} ms  {} task {} ({}){by}",
            ms(w.duration()),
            model.stream_label(w.row),
            w.task,
            w.kind
        );
    }
    let mut syncs: Vec<_> = model.host.iter().filter(|h| h.cat == "sync").collect();
    syncs.sort_by(|a, b| (b.end - b.start).total_cmp(&(a.end - a.start)));
    let _ = writeln!(out);
    let _ = writeln!(out, "longest host synchronise calls");
    if syncs.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for h in syncs.iter().take(top) {
        let _ = writeln!(
            out,
            "  {:>10} ms  {} on {}",
            ms(h.end - h.start),
            h.name,
            model.threads[h.row].name
        );
    }

    let _ = writeln!(out);
    match critical_path(model) {
        None => {
            let _ = writeln!(out, "critical path: no tasks");
        }
        Some(path) => {
            let first = &model.tasks[path.tasks[0]];
            let last = &model.tasks[*path.tasks.last().expect("non-empty")];
            let working = covered(
                path.tasks
                    .iter()
                    .map(|&i| &model.tasks[i])
                    .filter(|t| !t.is_wait())
                    .map(|t| (t.start, t.end))
                    .collect(),
            );
            let _ = writeln!(
                out,
                "critical path: {} task(s), {} ms from the first start to the last end, {} ms of it working",
                path.tasks.len(),
                ms(last.end - first.start),
                ms(working)
            );
            if let PathStart::HostLaunch { at } = path.start {
                let _ = writeln!(
                    out,
                    "  starts with a host launch at {} ms: the stream was idle, waiting for the host to queue work",
                    ms(at)
                );
            }
            let _ = writeln!(
                out,
                "  {:>10} {:>10}  {:<28} {:>5}  {:<11} name   (start: ms on the trace's clock)",
                "start ms", "dur ms", "stream", "task", "kind"
            );
            for &i in &path.tasks {
                let t = &model.tasks[i];
                let _ = writeln!(
                    out,
                    "  {:>10} {:>10}  {:<28} {:>5}  {:<11} {}",
                    ms(t.start),
                    ms(t.duration()),
                    model.stream_label(t.row),
                    t.task,
                    t.kind,
                    t.label
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::model::{StreamRow, Task};

    fn task(uid: u64, row: usize, kind: &str, start: f64, end: f64) -> Task {
        Task {
            uid,
            row,
            task: uid,
            kind: kind.to_owned(),
            label: kind.to_owned(),
            start,
            end,
            released_by: None,
            released_at: None,
            submitted: None,
            error: None,
        }
    }

    fn two_streams(tasks: Vec<Task>) -> Model {
        Model {
            streams: vec![
                StreamRow {
                    device: 0,
                    stream: 1,
                    name: "stream 1".into(),
                },
                StreamRow {
                    device: 0,
                    stream: 2,
                    name: "stream 2".into(),
                },
            ],
            tasks,
            ..Model::default()
        }
    }

    #[test]
    fn findings_are_counted_by_kind_and_listed_with_their_tracks() {
        use crate::trace::model::{FindingMark, ThreadRow};
        let mark = |finding: u64, kind: &str, track: Track| FindingMark {
            finding,
            kind: kind.into(),
            message: format!("{kind} number {finding}"),
            sites: Vec::new(),
            track,
            start: 0.0,
            end: 0.0,
            uid: None,
        };
        let mut m = two_streams(vec![task(1, 0, "kernel", 0.0, 1.0)]);
        m.threads.push(ThreadRow {
            tid: 77,
            name: "main (77)".into(),
        });
        m.findings = vec![
            mark(1, "race", Track::Stream(1)),
            mark(1, "race", Track::Stream(0)),
            mark(2, "use_after_free", Track::Host(0)),
            mark(2, "use_after_free", Track::Stream(1)),
            mark(3, "race", Track::Host(0)),
        ];
        let mut out = String::new();
        findings(&m, &mut out);
        assert_eq!(
            out,
            "\nchecker findings: 3 (race 2, use_after_free 1)\n\
             \x20 #1 race: race number 1\n\
             \x20    marked on device 0 stream 1; device 0 stream 2\n\
             \x20 #2 use_after_free: use_after_free number 2\n\
             \x20    marked on device 0 stream 2; host main (77)\n\
             \x20 #3 race: race number 3\n\
             \x20    marked on host main (77)\n"
        );
        m.findings.clear();
        let mut out = String::new();
        findings(&m, &mut out);
        assert_eq!(out, "");
    }

    #[test]
    fn overlapping_slices_count_once() {
        assert_eq!(covered(vec![(0.0, 10.0), (5.0, 15.0), (20.0, 25.0)]), 20.0);
        assert_eq!(covered(vec![]), 0.0);
    }

    #[test]
    fn busy_time_excludes_waits() {
        let m = two_streams(vec![
            task(1, 0, "kernel", 0.0, 40.0),
            task(2, 1, "wait", 0.0, 40.0),
            task(3, 1, "kernel", 40.0, 50.0),
        ]);
        let s = stream_stats(&m);
        assert_eq!((s[0].busy, s[0].waiting), (40.0, 0.0));
        assert_eq!((s[1].busy, s[1].waiting), (10.0, 40.0));
    }

    #[test]
    fn critical_path_follows_the_record_that_released_the_wait() {
        // Stream 1: k1 [0,40] then record [40,41]. Stream 2: k2 [0,5], wait [5,41], k3 [41,50].
        let mut wait = task(4, 1, "wait", 5.0, 41.0);
        wait.released_by = Some(2);
        let m = two_streams(vec![
            task(1, 0, "kernel", 0.0, 40.0),
            task(3, 1, "kernel", 0.0, 5.0),
            wait,
            task(2, 0, "record", 40.0, 41.0),
            task(5, 1, "kernel", 41.0, 50.0),
        ]);
        let mut m = m;
        m.tasks
            .sort_by(|a, b| a.start.total_cmp(&b.start).then(a.uid.cmp(&b.uid)));
        let path = critical_path(&m).unwrap();
        let uids: Vec<u64> = path.tasks.iter().map(|&i| m.tasks[i].uid).collect();
        assert_eq!(uids, vec![1, 2, 4, 5]);
        assert_eq!(path.start, PathStart::StreamStart);
    }

    #[test]
    fn a_late_launch_ends_the_path_at_the_host() {
        let mut late = task(2, 0, "kernel", 30.0, 40.0);
        late.submitted = Some(29.0);
        let mut first = task(1, 0, "kernel", 0.0, 10.0);
        first.submitted = Some(0.0);
        let m = two_streams(vec![first, late]);
        let path = critical_path(&m).unwrap();
        assert_eq!(path.tasks.len(), 1);
        assert_eq!(path.start, PathStart::HostLaunch { at: 29.0 });
    }
}
