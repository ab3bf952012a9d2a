//! Shadow memory: for every byte range touched, the last write and the reads since it, each
//! with its epoch. A new access conflicts with a recorded one when either writes and the new
//! access's view does not know the recorded one's epoch.
//!
//! Ranges are kept as non-overlapping segments split where accesses begin and end; freeing an
//! allocation drops its segments, so memory follows the live allocations (and the foreign host
//! buffers the program hands to copies).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::hb::{Epoch, View};
use super::report::AccessKind;
use super::site::SiteId;

/// Reads kept per segment: reads known to a newer read are dropped first; past this, the oldest.
const READS_KEPT: usize = 32;

/// Who made an access (shared by every segment it covers).
#[derive(Debug)]
pub(crate) struct AccInfo {
    pub(crate) kind: AccessKind,
    pub(crate) op: Arc<str>,
    pub(crate) device: i32,
    /// (stream id, raw handle, task id) for a task.
    pub(crate) task: Option<(u32, u64, u64)>,
    pub(crate) thread: u32,
    pub(crate) start: usize,
    pub(crate) len: usize,
    pub(crate) site: SiteId,
    /// Submission (tasks) or call (host) order, for reporting the earlier access first.
    pub(crate) seq: u64,
}

/// One recorded access.
#[derive(Debug, Clone)]
pub(crate) struct Acc {
    pub(crate) epoch: Epoch,
    pub(crate) info: Arc<AccInfo>,
}

#[derive(Debug, Clone, Default)]
struct Seg {
    end: usize,
    write: Option<Acc>,
    reads: Vec<Acc>,
}

/// The shadow of every range touched.
#[derive(Debug, Default)]
pub(crate) struct Shadow {
    segs: BTreeMap<usize, Seg>,
}

impl Shadow {
    /// Splits the segment that strictly contains `at`.
    fn split_at(&mut self, at: usize) {
        let Some((_, seg)) = self.segs.range_mut(..at).next_back() else {
            return;
        };
        if seg.end <= at {
            return;
        }
        let tail = Seg {
            end: seg.end,
            write: seg.write.clone(),
            reads: seg.reads.clone(),
        };
        seg.end = at;
        self.segs.insert(at, tail);
    }

    /// The segments covering `[start, end)`, created where missing.
    fn cover(&mut self, start: usize, end: usize) -> Vec<usize> {
        self.split_at(start);
        self.split_at(end);
        let existing: Vec<(usize, usize)> = self
            .segs
            .range(start..end)
            .map(|(s, seg)| (*s, seg.end))
            .collect();
        let mut keys = Vec::with_capacity(existing.len() + 1);
        let mut cursor = start;
        for (s, e) in existing {
            if cursor < s {
                self.segs.insert(
                    cursor,
                    Seg {
                        end: s,
                        ..Seg::default()
                    },
                );
                keys.push(cursor);
            }
            keys.push(s);
            cursor = e;
        }
        if cursor < end {
            self.segs.insert(
                cursor,
                Seg {
                    end,
                    ..Seg::default()
                },
            );
            keys.push(cursor);
        }
        keys.sort_unstable();
        keys
    }

    /// Records an access; returns the recorded accesses it conflicts with (each once).
    pub(crate) fn access(&mut self, acc: &Acc, view: &View) -> Vec<Acc> {
        let (start, len) = (acc.info.start, acc.info.len);
        if len == 0 {
            return Vec::new();
        }
        let write = acc.info.kind == AccessKind::Write;
        let mut conflicts: Vec<Acc> = Vec::new();
        let mut note = |a: &Acc| {
            if !conflicts.iter().any(|c| Arc::ptr_eq(&c.info, &a.info)) {
                conflicts.push(a.clone());
            }
        };
        for key in self.cover(start, start.saturating_add(len)) {
            let seg = self.segs.get_mut(&key).expect("covered");
            if let Some(w) = &seg.write {
                if !view.knows(w.epoch) {
                    note(w);
                }
            }
            if write {
                for r in &seg.reads {
                    if !view.knows(r.epoch) {
                        note(r);
                    }
                }
                seg.write = Some(acc.clone());
                seg.reads.clear();
            } else {
                seg.reads.retain(|r| !view.knows(r.epoch));
                if seg.reads.len() >= READS_KEPT {
                    seg.reads.remove(0);
                }
                seg.reads.push(acc.clone());
            }
        }
        conflicts
    }

    /// The recorded accesses in `[start, start + len)` that `view` does not know.
    pub(crate) fn unordered_in(&self, start: usize, len: usize, view: &View) -> Vec<Acc> {
        let end = start.saturating_add(len);
        let mut out: Vec<Acc> = Vec::new();
        let first = self
            .segs
            .range(..start)
            .next_back()
            .filter(|(_, s)| s.end > start)
            .map(|(k, _)| *k)
            .unwrap_or(start);
        for (_, seg) in self.segs.range(first..end) {
            for a in seg.write.iter().chain(&seg.reads) {
                if !view.knows(a.epoch) && !out.iter().any(|o| Arc::ptr_eq(&o.info, &a.info)) {
                    out.push(a.clone());
                }
            }
        }
        out
    }

    /// Forgets `[start, start + len)` (freed or newly allocated memory).
    pub(crate) fn clear(&mut self, start: usize, len: usize) {
        let end = start.saturating_add(len);
        self.split_at(start);
        self.split_at(end);
        let keys: Vec<usize> = self.segs.range(start..end).map(|(k, _)| *k).collect();
        for k in keys {
            self.segs.remove(&k);
        }
    }

    /// Segments kept (for tests and memory bounds).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.segs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::hb::Vc;

    fn acc(kind: AccessKind, comp: u32, val: u64, start: usize, len: usize) -> (Acc, View) {
        let epoch = Epoch { comp, val };
        let info = AccInfo {
            kind,
            op: Arc::from("op"),
            device: 0,
            task: None,
            thread: 1,
            start,
            len,
            site: crate::check::site::Sites::default().intern(crate::check::site::capture()),
            seq: 0,
        };
        let view = View {
            vc: Arc::new(Vc::default()),
            own: epoch,
        };
        (
            Acc {
                epoch,
                info: Arc::new(info),
            },
            view,
        )
    }

    #[test]
    fn reads_never_race_with_reads_and_disjoint_ranges_never_race() {
        let mut s = Shadow::default();
        let (a, va) = acc(AccessKind::Read, 0, 1, 100, 50);
        let (b, vb) = acc(AccessKind::Read, 1, 1, 120, 50);
        assert!(s.access(&a, &va).is_empty());
        assert!(s.access(&b, &vb).is_empty());
        let (c, vc) = acc(AccessKind::Write, 2, 1, 170, 10);
        assert!(s.access(&c, &vc).is_empty(), "170.. touches neither read");
        let (d, vd) = acc(AccessKind::Write, 2, 2, 149, 2);
        let conflicts = s.access(&d, &vd);
        assert_eq!(conflicts.len(), 2, "byte 149 was read by both");
    }

    #[test]
    fn an_ordered_write_does_not_conflict_and_clearing_forgets() {
        let mut s = Shadow::default();
        let (a, va) = acc(AccessKind::Write, 0, 1, 0, 64);
        assert!(s.access(&a, &va).is_empty());
        let (b, mut vb) = acc(AccessKind::Write, 1, 1, 32, 64);
        let mut vc = Vc::default();
        vc.raise(Epoch { comp: 0, val: 1 });
        vb.vc = Arc::new(vc);
        assert!(s.access(&b, &vb).is_empty());
        let (c, vc) = acc(AccessKind::Read, 2, 1, 0, 96);
        assert_eq!(s.access(&c, &vc).len(), 2);
        s.clear(0, 96);
        assert_eq!(s.len(), 0);
    }
}
