//! A Chrome Trace Event file read back into tasks, stream rows, host rows and dependencies.
//!
//! Files written by aclrt carry `args.uid` on every task slice and `args.released_by` on waits;
//! other Chrome traces still load (each non-host slice becomes a task, without dependencies).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::output::Input;

/// One task execution on a stream. Times are microseconds on the trace clock.
#[derive(Debug, Clone)]
pub struct Task {
    /// Trace-wide task number.
    pub uid: u64,
    /// Index of its row in [`Model::streams`].
    pub row: usize,
    /// Per-stream task id.
    pub task: u64,
    /// `kernel`, `memcpy`, `record`, `wait`, ...
    pub kind: String,
    /// Kernel name, or the kind.
    pub label: String,
    pub start: f64,
    pub end: f64,
    /// The record that released this wait.
    pub released_by: Option<u64>,
    /// When the wait was released.
    pub released_at: Option<f64>,
    /// When the host finished queueing it.
    pub submitted: Option<f64>,
    /// The failure code, if it failed.
    pub error: Option<i64>,
}

impl Task {
    pub fn duration(&self) -> f64 {
        self.end - self.start
    }

    /// Time spent blocked on another stream rather than working.
    pub fn is_wait(&self) -> bool {
        matches!(self.kind.as_str(), "wait" | "stream_wait")
    }
}

/// A stream track.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct StreamRow {
    pub device: i64,
    pub stream: i64,
    pub name: String,
}

/// A slice on a host thread: a launch call, a callback body or a synchronise call.
#[derive(Debug, Clone)]
pub struct HostSlice {
    /// Index of its row in [`Model::threads`].
    pub row: usize,
    pub name: String,
    /// `launch`, `callback` or `sync`.
    pub cat: String,
    pub start: f64,
    pub end: f64,
    /// The task it belongs to (launches and callbacks).
    pub uid: Option<u64>,
}

/// A host thread track.
#[derive(Debug, Clone)]
pub struct ThreadRow {
    pub tid: i64,
    pub name: String,
}

/// The track a finding's mark lies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Track {
    /// A stream row ([`Model::streams`]).
    Stream(usize),
    /// A host thread row ([`Model::threads`]).
    Host(usize),
}

/// One mark of a checker finding (category `finding`): a slice over a task involved, or an
/// instant on a host thread involved. A finding has one mark per track it involves.
#[derive(Debug, Clone)]
pub struct FindingMark {
    /// The finding's number in the trace, shared by its marks.
    pub finding: u64,
    /// `race`, `use_after_free`, `free_while_in_use`, `deadlock`, `hang`, `leak`.
    pub kind: String,
    /// The finding's one-sentence description.
    pub message: String,
    /// Its accesses or waits, each with its call site.
    pub sites: Vec<String>,
    pub track: Track,
    pub start: f64,
    /// Equal to `start` for an instant.
    pub end: f64,
    /// The task marked, where the mark is on a stream.
    pub uid: Option<u64>,
}

/// A whole trace.
#[derive(Debug, Clone, Default)]
pub struct Model {
    pub streams: Vec<StreamRow>,
    pub threads: Vec<ThreadRow>,
    /// In start order.
    pub tasks: Vec<Task>,
    pub host: Vec<HostSlice>,
    /// Marks of checker findings, in the file's order.
    pub findings: Vec<FindingMark>,
}

impl Model {
    /// Reads and parses a trace file (or standard input).
    pub fn load(input: &Input) -> Result<Self, String> {
        Self::parse(&input.read()?).map_err(|e| format!("{input}: {e}"))
    }

    /// Parses Chrome Trace Event JSON (the object form or a bare array).
    pub fn parse(text: &str) -> Result<Self, String> {
        let root: Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON trace data: {e}"))?;
        let events = match &root {
            Value::Array(a) => a,
            Value::Object(o) => o
                .get("traceEvents")
                .and_then(Value::as_array)
                .ok_or("no traceEvents array")?,
            _ => return Err("not a Chrome trace".into()),
        };
        let mut process_names: HashMap<i64, String> = HashMap::new();
        let mut thread_names: HashMap<(i64, i64), String> = HashMap::new();
        for e in events {
            if e["ph"] == "M" {
                let name = e["args"]["name"].as_str().unwrap_or_default().to_owned();
                let pid = e["pid"].as_i64().unwrap_or(0);
                match e["name"].as_str() {
                    Some("process_name") => {
                        process_names.insert(pid, name);
                    }
                    Some("thread_name") => {
                        thread_names.insert((pid, e["tid"].as_i64().unwrap_or(0)), name);
                    }
                    _ => {}
                }
            }
        }
        let host_pid = root["otherData"]["host_pid"].as_i64().or_else(|| {
            process_names
                .iter()
                .find(|(_, n)| n.as_str() == aclrt::trace::HOST_PROCESS_NAME)
                .map(|(p, _)| *p)
        });

        let mut model = Model::default();
        let mut stream_rows: BTreeMap<(i64, i64), usize> = BTreeMap::new();
        let mut thread_rows: BTreeMap<i64, usize> = BTreeMap::new();
        let mut next_uid = 1u64 << 40;
        for e in events {
            let ph = e["ph"].as_str().unwrap_or_default();
            let pid = e["pid"].as_i64().unwrap_or(0);
            let tid = e["tid"].as_i64().unwrap_or(0);
            let ts = e["ts"].as_f64().unwrap_or(0.0);
            let finding = e["cat"] == aclrt::trace::FINDING_CATEGORY;
            if ph != "X" && !(finding && ph == "i") {
                continue;
            }
            let end = ts + e["dur"].as_f64().unwrap_or(0.0);
            let args = &e["args"];
            let name = e["name"].as_str().unwrap_or_default().to_owned();
            let mut host_row = |model: &mut Model| {
                *thread_rows.entry(tid).or_insert_with(|| {
                    model.threads.push(ThreadRow {
                        tid,
                        name: thread_names
                            .get(&(pid, tid))
                            .cloned()
                            .unwrap_or_else(|| format!("thread {tid}")),
                    });
                    model.threads.len() - 1
                })
            };
            let mut stream_row = |model: &mut Model| {
                *stream_rows.entry((pid, tid)).or_insert_with(|| {
                    model.streams.push(StreamRow {
                        device: pid,
                        stream: tid,
                        name: thread_names
                            .get(&(pid, tid))
                            .cloned()
                            .unwrap_or_else(|| format!("track {tid}")),
                    });
                    model.streams.len() - 1
                })
            };
            if finding {
                let track = if Some(pid) == host_pid {
                    Track::Host(host_row(&mut model))
                } else {
                    Track::Stream(stream_row(&mut model))
                };
                model.findings.push(FindingMark {
                    finding: args["finding"].as_u64().unwrap_or(0),
                    kind: args["kind"].as_str().unwrap_or("finding").to_owned(),
                    message: args["message"].as_str().unwrap_or_default().to_owned(),
                    sites: args["sites"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default(),
                    track,
                    start: ts,
                    end,
                    uid: args["uid"].as_u64(),
                });
                continue;
            }
            if Some(pid) == host_pid {
                let row = host_row(&mut model);
                model.host.push(HostSlice {
                    row,
                    name,
                    cat: e["cat"].as_str().unwrap_or_default().to_owned(),
                    start: ts,
                    end,
                    uid: args["uid"].as_u64(),
                });
                continue;
            }
            let row = stream_row(&mut model);
            let uid = args["uid"].as_u64().unwrap_or_else(|| {
                next_uid += 1;
                next_uid
            });
            model.tasks.push(Task {
                uid,
                row,
                task: args["task"].as_u64().unwrap_or(0),
                kind: args["kind"]
                    .as_str()
                    .or(e["cat"].as_str())
                    .unwrap_or("task")
                    .to_owned(),
                label: name,
                start: ts,
                end,
                released_by: args["released_by"].as_u64(),
                released_at: num(&args["released_us"]),
                submitted: num(&args["submitted_us"]),
                error: args["error"].as_i64(),
            });
        }

        // Rows in (device, stream) order; host rows in thread id order.
        let mut order: Vec<usize> = (0..model.streams.len()).collect();
        order.sort_by(|&a, &b| model.streams[a].cmp(&model.streams[b]));
        let mut new_index = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        model.streams = order.iter().map(|&i| model.streams[i].clone()).collect();
        for t in &mut model.tasks {
            t.row = new_index[t.row];
        }
        for f in &mut model.findings {
            if let Track::Stream(row) = &mut f.track {
                *row = new_index[*row];
            }
        }
        let mut order: Vec<usize> = (0..model.threads.len()).collect();
        order.sort_by_key(|&i| model.threads[i].tid);
        let mut new_index = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        model.threads = order.iter().map(|&i| model.threads[i].clone()).collect();
        for h in &mut model.host {
            h.row = new_index[h.row];
        }
        for f in &mut model.findings {
            if let Track::Host(row) = &mut f.track {
                *row = new_index[*row];
            }
        }
        model
            .tasks
            .sort_by(|a, b| a.start.total_cmp(&b.start).then(a.uid.cmp(&b.uid)));
        Ok(model)
    }

    /// Earliest and latest time of any slice.
    pub fn span(&self) -> (f64, f64) {
        let times = self
            .tasks
            .iter()
            .map(|t| (t.start, t.end))
            .chain(self.host.iter().map(|h| (h.start, h.end)));
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (s, e) in times {
            lo = lo.min(s);
            hi = hi.max(e);
        }
        if lo > hi {
            (0.0, 0.0)
        } else {
            (lo, hi)
        }
    }

    /// First task start to last task end: the device's part of the trace, without the host's
    /// work before the first launch and after the last task (falls back to [`Model::span`]).
    pub fn task_span(&self) -> (f64, f64) {
        if self.tasks.is_empty() {
            return self.span();
        }
        let lo = self
            .tasks
            .iter()
            .map(|t| t.start)
            .fold(f64::INFINITY, f64::min);
        let hi = self
            .tasks
            .iter()
            .map(|t| t.end)
            .fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    }

    /// One mark per finding (its first), in finding order.
    pub fn distinct_findings(&self) -> Vec<&FindingMark> {
        let mut seen = std::collections::BTreeMap::new();
        for f in &self.findings {
            seen.entry(f.finding).or_insert(f);
        }
        seen.into_values().collect()
    }

    /// A track's label: [`Model::stream_label`], or `host` and the thread's name.
    pub fn track_label(&self, track: Track) -> String {
        match track {
            Track::Stream(row) => self.stream_label(row),
            Track::Host(row) => format!("host {}", self.threads[row].name),
        }
    }

    /// Tasks by uid.
    pub fn by_uid(&self) -> HashMap<u64, usize> {
        self.tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.uid, i))
            .collect()
    }

    /// A short name for a stream row: `device 0 stream 3`, or for a named stream
    /// `load (device 0, stream 3)`.
    pub fn stream_label(&self, row: usize) -> String {
        let s = &self.streams[row];
        let id = format!("stream {}", s.stream);
        if s.name == id {
            return format!("device {} {id}", s.device);
        }
        match s.name.strip_suffix(&format!(" ({id})")) {
            Some(name) => format!("{name} (device {}, {id})", s.device),
            None => format!("device {} {}", s.device, s.name),
        }
    }
}

/// JSON numbers written as strings or numbers.
fn num(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_labels_keep_the_ids_beside_the_name() {
        let row = |stream: i64, name: &str| StreamRow {
            device: 1,
            stream,
            name: name.into(),
        };
        let model = Model {
            streams: vec![
                row(3, "stream 3"),
                row(4, "load (stream 4)"),
                row(5, "a / b (stream 5)"),
                row(6, "track 6"),
            ],
            ..Model::default()
        };
        let labels: Vec<String> = (0..4).map(|r| model.stream_label(r)).collect();
        assert_eq!(
            labels,
            [
                "device 1 stream 3",
                "load (device 1, stream 4)",
                "a / b (device 1, stream 5)",
                "device 1 track 6"
            ]
        );
    }
}
