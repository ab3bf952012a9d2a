//! Findings: what the checker reports, as text (stderr) and JSON (`ACLRT_CHECK_REPORT`).

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::observe::Point;

pub use super::site::Site;

/// What kind of problem a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Two accesses to overlapping bytes, at least one a write, not ordered.
    Race,
    /// A task or host call touched freed memory.
    UseAfterFree,
    /// Memory was freed while a task not ordered before the free touches it.
    FreeWhileInUse,
    /// A wait made no progress for the hang timeout.
    Hang,
    /// A wait that can never end.
    Deadlock,
    /// A stream, event or allocation still alive at `aclFinalize` or exit.
    Leak,
}

impl Kind {
    /// The name reports use (`"race"`, `"use_after_free"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Race => "race",
            Kind::UseAfterFree => "use_after_free",
            Kind::FreeWhileInUse => "free_while_in_use",
            Kind::Hang => "hang",
            Kind::Deadlock => "deadlock",
            Kind::Leak => "leak",
        }
    }
}

/// How memory was touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// Read.
    Read,
    /// Written.
    Write,
    /// Freed.
    Free,
}

impl AccessKind {
    /// `"read"`, `"write"` or `"free"`.
    pub fn as_str(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Free => "free",
        }
    }
}

/// One access a memory finding involves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// Read, write or free.
    pub access: AccessKind,
    /// The API function or kernel name.
    pub op: String,
    /// The device (of the stream; the current one's for host calls, 0 if none).
    pub device: i32,
    /// The stream id (`aclrtStreamGetId`); `None` for a host call.
    pub stream: Option<u32>,
    /// The task id on that stream; `None` for a host call.
    pub task: Option<u64>,
    /// The OS thread id that called (submitted the task, or made the host call).
    pub thread: u32,
    /// First byte touched.
    pub address: usize,
    /// Bytes touched.
    pub size: usize,
    /// Where the program called.
    pub site: Site,
}

impl Access {
    /// One line: `write by aclrtMemcpyAsync on stream 1 (task 3) at 0x…+256, main (a.c:12)`.
    pub fn describe(&self) -> String {
        let by = match (self.stream, self.task) {
            (Some(s), Some(t)) => format!("on stream {s} (task {t}, device {})", self.device),
            _ => format!("on host thread {}", self.thread),
        };
        format!(
            "{} by {} {by}, {:#x}+{}, at {}",
            self.access.as_str(),
            self.op,
            self.address,
            self.size,
            self.site.describe()
        )
    }

    fn to_json(&self) -> Value {
        json!({
            "access": self.access.as_str(),
            "op": self.op,
            "device": self.device,
            "stream": self.stream,
            "task": self.task,
            "thread": self.thread,
            "address": self.address,
            "size": self.size,
            "site": site_json(&self.site),
        })
    }
}

/// One link of a wait-for picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wait {
    /// Who waits (a host thread in a call, a stream's task).
    pub waiter: String,
    /// What it waits for.
    pub waits_for: String,
    /// Where the waiter was made (the call, or the task's submission).
    pub site: Site,
}

/// A leaked object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    /// `"stream"`, `"event"` or `"allocation"`.
    pub object: &'static str,
    /// Stream id, event id, or address.
    pub id: u64,
    /// Bytes (allocations).
    pub size: Option<usize>,
    /// Where it was created.
    pub site: Site,
}

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What kind.
    pub kind: Kind,
    /// One sentence.
    pub message: String,
    /// Memory findings: the accesses involved, earlier first.
    pub accesses: Vec<Access>,
    /// Hangs and deadlocks: the wait-for picture.
    pub waits: Vec<Wait>,
    /// Leaks: the object.
    pub objects: Vec<Object>,
    /// What would fix it.
    pub fix: String,
    /// The tasks and host threads involved (the accesses' in their order; the waiters of a
    /// wait-for picture; none for a leak).
    pub involved: Vec<Point>,
}

fn site_json(site: &Site) -> Value {
    json!({"function": site.function, "file": site.file, "line": site.line})
}

impl Finding {
    /// The block printed to stderr: a first line `aclrt-check: KIND: message`, the accesses or
    /// waits with their sites, and a `fix:` line.
    pub fn to_text(&self) -> String {
        let mut s = format!("aclrt-check: {}: {}\n", self.kind.as_str(), self.message);
        for line in self.site_lines() {
            let _ = writeln!(s, "  {line}");
        }
        let _ = writeln!(s, "  fix: {}", self.fix);
        s
    }

    /// One line per access, wait or object involved, each with its call site.
    pub fn site_lines(&self) -> Vec<String> {
        let accesses = self.accesses.iter().map(Access::describe);
        let waits = self.waits.iter().map(|w| {
            format!(
                "{} waits for {} (at {})",
                w.waiter,
                w.waits_for,
                w.site.describe()
            )
        });
        let objects = self
            .objects
            .iter()
            .map(|o| format!("{} created at {}", o.object, o.site.describe()));
        accesses.chain(waits).chain(objects).collect()
    }

    /// The finding as a JSON object.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "kind": self.kind.as_str(),
            "message": self.message,
            "fix": self.fix,
        });
        let map = v.as_object_mut().expect("an object");
        if matches!(
            self.kind,
            Kind::Race | Kind::UseAfterFree | Kind::FreeWhileInUse
        ) {
            map.insert(
                "accesses".into(),
                self.accesses.iter().map(Access::to_json).collect(),
            );
        }
        if matches!(self.kind, Kind::Hang | Kind::Deadlock) {
            let waits = self
                .waits
                .iter()
                .map(|w| json!({"waiter": w.waiter, "waits_for": w.waits_for, "site": site_json(&w.site)}))
                .collect();
            map.insert("waits".into(), waits);
        }
        if self.kind == Kind::Leak {
            let objects = self
                .objects
                .iter()
                .map(|o| json!({"object": o.object, "id": o.id, "size": o.size, "site": site_json(&o.site)}))
                .collect();
            map.insert("objects".into(), objects);
        }
        v
    }
}

/// The report file's content: `{"findings": [...]}`.
pub fn report_json(findings: &[Finding]) -> String {
    let v = json!({"findings": findings.iter().map(Finding::to_json).collect::<Vec<_>>()});
    serde_json::to_string_pretty(&v).expect("JSON values serialise")
}
