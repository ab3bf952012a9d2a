//! Managed (unified) memory: the advice and prefetch state of `aclrtMemAllocManaged`
//! allocations, per 2 MB page.
//!
//! The emulated device's memory is the host's, so managed memory is ordinary runtime memory
//! that both sides use directly; nothing migrates. What a program can observe is the state it
//! set: the advice (`aclrtMemManagedAdvise`) and where a prefetch last sent each page, which
//! `aclrtMemManagedGetAttr(s)` report. This module keeps that state.
//!
//! # Invariants
//!
//! 1. Every managed allocation starts on a page ([`PAGE`]) and covers whole pages; its state
//!    has one entry per page.
//! 2. Ranges given to [`Managed::update`] lie inside one allocation and cover whole pages;
//!    those given to [`Managed::pages`] lie inside one allocation and stand for every page they
//!    touch (the calls check it first with [`Managed::range`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use crate::sync::lock;

/// The page of managed memory: sizes and advice ranges are multiples of it.
pub(crate) const PAGE: usize = 2 << 20;

/// A location (`aclrtMemManagedLocation`): its type and id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// `aclrtMemManagedLocationType`.
    pub kind: u32,
    /// Device id (or NUMA node).
    pub id: i32,
}

/// What is known of one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PageState {
    pub(crate) read_mostly: bool,
    pub(crate) preferred: Option<Location>,
    pub(crate) accessed_by: BTreeSet<Location>,
    pub(crate) last_prefetch: Option<Location>,
}

/// Managed allocations by base address: their pages' state.
#[derive(Default)]
pub(crate) struct Managed {
    allocations: Mutex<ManagedState>,
}

#[derive(Default)]
struct ManagedState(BTreeMap<usize, Vec<PageState>>);

impl Managed {
    pub(crate) fn add(&self, base: usize, len: usize) {
        debug_assert!(base.is_multiple_of(PAGE) && len.is_multiple_of(PAGE));
        lock(&self.allocations)
            .0
            .insert(base, vec![PageState::default(); len / PAGE]);
    }

    /// Forgets the allocation at `base`, if it is managed.
    pub(crate) fn remove(&self, base: usize) {
        lock(&self.allocations).0.remove(&base);
    }

    /// Why `[ptr, ptr + len)` is not inside one managed allocation, or (`whole_pages`) not a
    /// run of whole pages of one, if it is not.
    pub(crate) fn range(&self, ptr: usize, len: usize, whole_pages: bool) -> Option<String> {
        let st = lock(&self.allocations);
        let Some((&base, pages)) = st.0.range(..=ptr).next_back() else {
            return Some(format!(
                "{ptr:#x} is not in memory from aclrtMemAllocManaged"
            ));
        };
        let end = base + pages.len() * PAGE;
        if ptr >= end {
            return Some(format!(
                "{ptr:#x} is not in memory from aclrtMemAllocManaged"
            ));
        }
        if ptr.checked_add(len).is_none_or(|e| e > end) {
            return Some(format!(
                "{len} bytes at {ptr:#x} run past the end of the managed allocation at {base:#x} \
                 ({} bytes)",
                end - base
            ));
        }
        if whole_pages && (!(ptr - base).is_multiple_of(PAGE) || !len.is_multiple_of(PAGE)) {
            return Some(format!(
                "{len} bytes at {ptr:#x}: managed ranges start and end on 2 MB pages"
            ));
        }
        None
    }

    /// Applies `change` to every page of the range.
    pub(crate) fn update(&self, ptr: usize, len: usize, change: impl Fn(&mut PageState)) {
        let mut st = lock(&self.allocations);
        if let Some((&base, pages)) = st.0.range_mut(..=ptr).next_back() {
            let first = (ptr - base) / PAGE;
            for p in pages.iter_mut().skip(first).take(len / PAGE) {
                change(p);
            }
        }
    }

    /// The state of every page the range touches.
    pub(crate) fn pages(&self, ptr: usize, len: usize) -> Vec<PageState> {
        let st = lock(&self.allocations);
        match st.0.range(..=ptr).next_back() {
            Some((&base, pages)) => {
                let first = (ptr - base) / PAGE;
                let end = (ptr - base + len).div_ceil(PAGE);
                pages
                    .iter()
                    .skip(first)
                    .take(end - first)
                    .cloned()
                    .collect()
            }
            None => Vec::new(),
        }
    }
}

/// The one value every page has, or `None` when they differ (or there are none).
pub(crate) fn common<T: PartialEq + Clone>(
    pages: &[PageState],
    f: impl Fn(&PageState) -> T,
) -> Option<T> {
    let first = f(pages.first()?);
    pages.iter().all(|p| f(p) == first).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: usize = 1 << 41;
    const DEV0: Location = Location { kind: 1, id: 0 };

    #[test]
    fn ranges_are_whole_pages_of_one_allocation() {
        let m = Managed::default();
        m.add(BASE, 4 * PAGE);
        assert!(m.range(BASE, 4 * PAGE, true).is_none());
        assert!(m.range(BASE + PAGE, PAGE, true).is_none());
        assert!(m.range(BASE, 5 * PAGE, false).unwrap().contains("run past"));
        assert!(m
            .range(BASE + 64, PAGE, true)
            .unwrap()
            .contains("2 MB pages"));
        assert!(m.range(BASE + 64, PAGE, false).is_none());
        assert!(m
            .range(BASE, PAGE + 1, true)
            .unwrap()
            .contains("2 MB pages"));
        assert!(m
            .range(BASE - 1, 1, false)
            .unwrap()
            .contains("not in memory"));
        assert!(m
            .range(BASE + 4 * PAGE, PAGE, false)
            .unwrap()
            .contains("not in memory"));
        assert_eq!(m.pages(BASE + PAGE - 1, 2).len(), 2);
        m.remove(BASE);
        assert!(m.range(BASE, PAGE, false).is_some());
    }

    #[test]
    fn state_is_per_page_and_common_values_need_agreement() {
        let m = Managed::default();
        m.add(BASE, 3 * PAGE);
        m.update(BASE + PAGE, 2 * PAGE, |p| p.read_mostly = true);
        m.update(BASE, 3 * PAGE, |p| {
            p.accessed_by.insert(DEV0);
        });
        let all = m.pages(BASE, 3 * PAGE);
        assert_eq!(common(&all, |p| p.read_mostly), None);
        assert_eq!(
            common(&m.pages(BASE + PAGE, 2 * PAGE), |p| p.read_mostly),
            Some(true)
        );
        assert_eq!(common(&all, |p| p.accessed_by.contains(&DEV0)), Some(true));
        assert_eq!(common(&all, |p| p.preferred), Some(None));
        assert_eq!(common(&[], |p| p.read_mostly), None);
    }
}
