//! Who waits for whom: the wait-for picture of blocked host threads and stream tasks, the
//! deadlocks it proves (a cycle, or an event nothing can record any more) and the picture a
//! hang reports.
//!
//! A host thread blocked in a synchronise waits for tasks; a task waits for the task at the head
//! of its stream; a head that is a stream wait waits for its record (a snapshot) or for any
//! record of its legacy SYNC event; a blocking callback waits for the thread subscribed to its
//! stream to call `aclrtProcessReport`. A wait is *dead* when every way out leads back into the
//! walk (a cycle) or to a legacy event that is destroyed with no record queued; *stuck* when it
//! needs something nobody has queued yet (another thread could still do it).

use super::report::{Finding, Kind, Wait};
use super::site::SiteId;
use super::state::State;
use crate::observe::{Point, TaskRef};
use crate::task_info::TaskKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    Free,
    Stuck,
    Dead,
}

struct Link {
    /// The waiter, as a task or host thread.
    point: Point,
    waiter: String,
    waits_for: String,
    site: SiteId,
    fix: Option<String>,
}

struct Walk<'a> {
    st: &'a State,
    /// Build the picture (a first walk only decides; a second, for a finding, explains).
    explain: bool,
    tasks: Vec<(u64, u64)>,
    threads: Vec<u32>,
    links: Vec<Link>,
}

impl<'a> Walk<'a> {
    fn new(st: &'a State, explain: bool) -> Self {
        Walk {
            st,
            explain,
            tasks: Vec::new(),
            threads: Vec::new(),
            links: Vec::new(),
        }
    }

    fn task_name(&self, t: TaskRef) -> String {
        let op = self.st.streams.get(&t.stream).and_then(|s| {
            s.queue
                .iter()
                .chain(s.running.as_ref())
                .find(|p| p.id == t.task_id)
                .map(|p| p.op.clone())
        });
        match op {
            Some(op) => format!("stream {} task {} ({op})", t.stream_id, t.task_id),
            None => format!("stream {} task {}", t.stream_id, t.task_id),
        }
    }

    fn event_name(&self, event: Option<u64>) -> String {
        match event.and_then(|e| self.st.events.get(&e)) {
            Some(e) => format!("event {}", e.id),
            None => "an event".into(),
        }
    }

    fn thread(&mut self, tid: u32) -> Status {
        let Some(b) = self.st.blocked.get(&tid) else {
            return Status::Free;
        };
        if b.call == "aclrtProcessReport" {
            return Status::Free;
        }
        if self.threads.contains(&tid) {
            return Status::Dead;
        }
        self.threads.push(tid);
        let mut worst = Status::Free;
        let start = self.links.len();
        for t in &b.waits_for {
            let mark = self.links.len();
            if self.explain {
                let link = Link {
                    point: Point::Host(tid),
                    waiter: format!("thread {tid} in {}", b.call),
                    waits_for: self.task_name(*t),
                    site: b.site,
                    fix: None,
                };
                self.links.push(link);
            }
            let s = self.task(*t);
            if s == Status::Free {
                self.links.truncate(mark);
            }
            if s == Status::Dead {
                // One way the wait can never end is the picture.
                self.links.drain(start..mark);
                worst = s;
                break;
            }
            worst = worst.max(s);
        }
        self.threads.pop();
        worst
    }

    fn task(&mut self, t: TaskRef) -> Status {
        let Some(s) = self.st.streams.get(&t.stream) else {
            return Status::Free;
        };
        if t.task_id < s.finished_upto {
            return Status::Free;
        }
        let Some(head) = s.running.as_ref() else {
            return Status::Free;
        };
        if head.id > t.task_id {
            return Status::Free;
        }
        let me = (t.stream, head.id);
        if self.tasks.contains(&me) {
            return Status::Dead;
        }
        let head_ref = TaskRef {
            task_id: head.id,
            ..t
        };
        let waiter = self.task_name(head_ref);
        self.tasks.push(me);
        let status = match head.kind {
            TaskKind::Wait => match head.record {
                Some(rec) => {
                    if self.explain {
                        let link = Link {
                            point: Point::Task(head_ref),
                            waiter,
                            waits_for: format!("record {}", self.task_name(rec)),
                            site: head.site,
                            fix: Some(format!(
                                "record {} on a stream that does not wait for stream {}",
                                self.event_name(head.event),
                                t.stream_id
                            )),
                        };
                        self.links.push(link);
                    }
                    self.task(rec)
                }
                None => self.flag_wait(head.event, head.site, (head_ref, waiter), t.stream_id),
            },
            TaskKind::Callback if head.blocking => {
                let subscriber = self.st.subscriptions.get(&t.stream).copied();
                let tid = subscriber.and_then(|p| {
                    let mut tids: Vec<u32> = self
                        .st
                        .blocked
                        .iter()
                        .filter(|(_, b)| b.pthread == p)
                        .map(|(tid, _)| *tid)
                        .collect();
                    tids.sort_unstable();
                    tids.first().copied()
                });
                match tid {
                    Some(tid) => {
                        let call = self.st.blocked[&tid].call;
                        if self.explain {
                            let link = Link {
                            point: Point::Task(head_ref),
                            waiter,
                            waits_for: format!(
                                "thread {tid}, subscribed to stream {} with aclrtSubscribeReport, to call aclrtProcessReport (it is blocked in {call})",
                                t.stream_id
                            ),
                            site: head.site,
                            fix: Some(format!(
                                "thread {tid} must call aclrtProcessReport while stream {} runs: serve the stream's callbacks from a thread that does not wait for it, or launch the callback with ACL_CALLBACK_NO_BLOCK",
                                t.stream_id
                            )),
                        };
                            self.links.push(link);
                        }
                        self.thread(tid)
                    }
                    None => Status::Free,
                }
            }
            _ => Status::Free,
        };
        self.tasks.pop();
        status
    }

    fn flag_wait(
        &mut self,
        event: Option<u64>,
        site: SiteId,
        (head, waiter): (TaskRef, String),
        stream: u32,
    ) -> Status {
        let name = self.event_name(event);
        // An event made before the checker started: its family is unknown, so nothing is proved.
        let Some(ev) = event.and_then(|e| self.st.events.get(&e)) else {
            return Status::Free;
        };
        if ev.flag_set || !ev.legacy_flag {
            return Status::Free;
        }
        let mut candidates: Vec<TaskRef> = Vec::new();
        for s in self.st.streams.values() {
            for p in s.queue.iter().chain(s.running.as_ref()) {
                if p.kind == TaskKind::Record && p.event.is_some() && p.event == event {
                    candidates.push(TaskRef {
                        task_id: p.id,
                        ..s.task
                    });
                }
            }
        }
        candidates.sort();
        let destroyed = ev.destroyed;
        if candidates.is_empty() {
            let (why, fix) = if destroyed {
                (
                    format!("{name} (legacy SYNC) to be recorded; it was destroyed and no record of it is queued, so it never will be"),
                    format!("record {name} before destroying it, or do not make stream {stream} wait for it"),
                )
            } else {
                (
                    format!("{name} (legacy SYNC) to be recorded; no record of it is queued"),
                    format!("record {name} (aclrtRecordEvent) on a stream that does not wait for stream {stream}"),
                )
            };
            if self.explain {
                let link = Link {
                    point: Point::Task(head),
                    waiter,
                    waits_for: why,
                    site,
                    fix: Some(fix),
                };
                self.links.push(link);
            }
            return if destroyed {
                Status::Dead
            } else {
                Status::Stuck
            };
        }
        let mark = self.links.len();
        let mut best = Status::Dead;
        for c in candidates {
            let inner = self.links.len();
            if self.explain {
                let link = Link {
                    point: Point::Task(head),
                    waiter: waiter.clone(),
                    waits_for: format!("record {}", self.task_name(c)),
                    site,
                    fix: Some(format!(
                        "record {name} on a stream that does not wait for stream {stream}"
                    )),
                };
                self.links.push(link);
            }
            let s = self.task(c);
            if s == Status::Free {
                self.links.truncate(mark);
                return Status::Free;
            }
            if s < best {
                self.links.truncate(inner);
                best = s;
            }
        }
        // Another thread may still record the event.
        if !destroyed {
            best = best.min(Status::Stuck);
        }
        best
    }
}

/// Where to look for a deadlock after something changed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Look {
    /// A host thread began to wait.
    Thread(u32),
    /// A stream's running head may block for good (a legacy SYNC wait began).
    Head(u64),
    /// An event was destroyed: the streams waiting on it.
    Event(u64),
    /// A blocking callback of this stream is due: the thread serving it, if it waits.
    Subscriber(u64),
}

fn head_of(st: &State, stream: u64) -> Option<TaskRef> {
    let s = st.streams.get(&stream)?;
    let head = s.running.as_ref()?;
    Some(TaskRef {
        task_id: head.id,
        ..s.task
    })
}

/// A wait that can never end, if `look` shows one.
pub(crate) fn find_deadlock(st: &mut State, look: Look) -> Option<Finding> {
    let mut threads: Vec<u32> = Vec::new();
    let mut heads: Vec<TaskRef> = Vec::new();
    match look {
        Look::Thread(tid) => threads.push(tid),
        Look::Head(stream) => heads.extend(head_of(st, stream)),
        Look::Event(event) => {
            heads = st
                .streams
                .values()
                .filter_map(|s| {
                    let p = s.running.as_ref()?;
                    (p.kind == TaskKind::Wait && p.event == Some(event)).then_some(TaskRef {
                        task_id: p.id,
                        ..s.task
                    })
                })
                .collect();
            heads.sort();
        }
        Look::Subscriber(stream) => {
            if let Some(p) = st.subscriptions.get(&stream) {
                threads = st
                    .blocked
                    .iter()
                    .filter(|(_, b)| b.pthread == *p)
                    .map(|(t, _)| *t)
                    .collect();
                threads.sort_unstable();
            }
        }
    }
    for tid in threads {
        if Walk::new(st, false).thread(tid) != Status::Dead {
            continue;
        }
        let mut w = Walk::new(st, true);
        w.thread(tid);
        let links = std::mem::take(&mut w.links);
        let call = st.blocked[&tid].call;
        let message = format!("thread {tid} is blocked in {call} and can never return");
        return Some(finish(st, links, message));
    }
    for head in heads {
        if Walk::new(st, false).task(head) != Status::Dead {
            continue;
        }
        let mut w = Walk::new(st, true);
        w.task(head);
        let links = std::mem::take(&mut w.links);
        let message = format!(
            "stream {} is blocked at task {} and can never go on",
            head.stream_id, head.task_id
        );
        return Some(finish(st, links, message));
    }
    None
}

fn finish(st: &mut State, links: Vec<Link>, message: String) -> Finding {
    let fix = links.iter().rev().find_map(|l| l.fix.clone());
    let mut involved: Vec<Point> = Vec::new();
    for l in &links {
        if !involved.contains(&l.point) {
            involved.push(l.point);
        }
    }
    let waits = links
        .into_iter()
        .map(|l| Wait {
            waiter: l.waiter,
            waits_for: l.waits_for,
            site: st.sites.resolve(l.site).0,
        })
        .collect();
    Finding {
        kind: Kind::Deadlock,
        message,
        accesses: Vec::new(),
        waits,
        objects: Vec::new(),
        fix: fix.unwrap_or_else(|| "break the cycle of waits shown".into()),
        involved,
    }
}

/// The picture of every blocked thread, for a hang.
pub(crate) fn hang_finding(st: &mut State, now_ns: u64) -> Finding {
    let mut tids: Vec<u32> = st.blocked.keys().copied().collect();
    tids.sort_unstable();
    let mut links = Vec::new();
    let mut longest = 0u64;
    for tid in tids {
        let b = &st.blocked[&tid];
        longest = longest.max(now_ns.saturating_sub(b.since_ns));
        let mut w = Walk::new(st, true);
        w.thread(tid);
        if w.links.is_empty() {
            let since = now_ns.saturating_sub(b.since_ns) / 1_000_000;
            let what = if b.waits_for.is_empty() {
                "callbacks".to_string()
            } else {
                b.waits_for
                    .iter()
                    .map(|t| w.task_name(*t))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            w.links.push(Link {
                point: Point::Host(tid),
                waiter: format!("thread {tid} in {} for {since} ms", b.call),
                waits_for: what,
                site: b.site,
                fix: None,
            });
        }
        links.extend(w.links);
    }
    let ms = longest / 1_000_000;
    let mut f = finish(
        st,
        links,
        format!("no progress for {ms} ms while host threads wait"),
    );
    f.kind = Kind::Hang;
    if f.fix == "break the cycle of waits shown" {
        f.fix =
            "make sure something records, processes or completes what the waits shown need".into();
    }
    f
}
