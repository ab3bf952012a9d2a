//! Free extents of the runtime's address space: a best-fit allocator over address ranges.
//!
//! Pure bookkeeping (no memory is touched here). Every extent is a half-open range
//! `[start, start + len)`; free extents never overlap and never touch (neighbours are merged).

use std::collections::{BTreeMap, BTreeSet};

/// The free ranges, indexed by address and by length.
#[derive(Debug, Default)]
pub(super) struct Extents {
    /// start → length.
    by_addr: BTreeMap<usize, usize>,
    /// (length, start), for best fit.
    by_len: BTreeSet<(usize, usize)>,
}

impl Extents {
    /// Takes `len` bytes from the smallest free extent that holds them (the lowest address among
    /// equals) and returns the start of the taken range, or `None` if no extent is big enough.
    pub(super) fn take(&mut self, len: usize) -> Option<usize> {
        debug_assert!(len > 0);
        let &(found_len, start) = self.by_len.range((len, 0)..).next()?;
        self.remove(start, found_len);
        if found_len > len {
            self.insert(start + len, found_len - len);
        }
        Some(start)
    }

    /// Gives `[start, start + len)` back, merging it with free neighbours; returns the merged
    /// free extent that now contains it.
    pub(super) fn give_back(&mut self, start: usize, len: usize) -> (usize, usize) {
        debug_assert!(len > 0);
        let (mut lo, mut hi) = (start, start + len);
        if let Some((&prev, &prev_len)) = self.by_addr.range(..start).next_back() {
            debug_assert!(
                prev + prev_len <= start,
                "give_back of a range that is free"
            );
            if prev + prev_len == start {
                self.remove(prev, prev_len);
                lo = prev;
            }
        }
        if let Some(&next_len) = self.by_addr.get(&hi) {
            self.remove(hi, next_len);
            hi += next_len;
        }
        debug_assert!(
            self.by_addr.range(lo..hi).next().is_none(),
            "give_back of a range that overlaps a free extent"
        );
        self.insert(lo, hi - lo);
        (lo, hi - lo)
    }

    /// The free extents that overlap `[lo, hi)`, as (start, length), in address order.
    pub(super) fn overlapping(&self, lo: usize, hi: usize) -> Vec<(usize, usize)> {
        let first = self
            .by_addr
            .range(..=lo)
            .next_back()
            .map_or(lo, |(&start, _)| start);
        self.by_addr
            .range(first..hi)
            .map(|(&start, &len)| (start, len))
            .filter(|&(start, len)| start + len > lo)
            .collect()
    }

    /// Takes exactly `[start, start + len)` if one free extent holds all of it; `false` (nothing
    /// taken) otherwise.
    pub(super) fn take_range(&mut self, start: usize, len: usize) -> bool {
        debug_assert!(len > 0);
        let Some((&at, &at_len)) = self.by_addr.range(..=start).next_back() else {
            return false;
        };
        if start + len > at + at_len {
            return false;
        }
        self.remove(at, at_len);
        if start > at {
            self.insert(at, start - at);
        }
        if at + at_len > start + len {
            self.insert(start + len, at + at_len - (start + len));
        }
        true
    }

    /// Forgets every extent.
    pub(super) fn clear(&mut self) {
        self.by_addr.clear();
        self.by_len.clear();
    }

    /// Number of free extents.
    #[cfg(test)]
    pub(super) fn count(&self) -> usize {
        self.by_addr.len()
    }

    fn insert(&mut self, start: usize, len: usize) {
        self.by_addr.insert(start, len);
        self.by_len.insert((len, start));
    }

    fn remove(&mut self, start: usize, len: usize) {
        self.by_addr.remove(&start);
        self.by_len.remove(&(len, start));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_fit_splits_and_merges() {
        let mut e = Extents::default();
        assert_eq!(e.take(64), None);
        e.give_back(1000, 640);
        e.give_back(5000, 128);
        // The smaller extent that fits is used first.
        assert_eq!(e.take(128), Some(5000));
        assert_eq!(e.take(64), Some(1000));
        assert_eq!(e.take(128), Some(1064));
        assert_eq!(e.take(1000), None);
        // Giving back in the middle merges with both sides.
        assert_eq!(e.give_back(1000, 64), (1000, 64));
        assert_eq!(e.give_back(1064, 128), (1000, 640));
        assert_eq!(e.count(), 1);
        assert_eq!(e.give_back(5000, 128), (5000, 128));
        assert_eq!(e.count(), 2);
        e.clear();
        assert_eq!(e.take(64), None);
    }

    #[test]
    fn take_range_takes_exactly_a_free_part() {
        let mut e = Extents::default();
        e.give_back(100, 100);
        assert!(!e.take_range(90, 20), "starts before the extent");
        assert!(!e.take_range(190, 20), "runs past its end");
        assert!(e.take_range(120, 30));
        assert_eq!(e.count(), 2);
        assert!(!e.take_range(125, 1), "already taken");
        assert!(e.take_range(100, 20));
        assert!(e.take_range(150, 50));
        assert_eq!(e.count(), 0);
        e.give_back(100, 100);
        assert_eq!(e.count(), 1);
    }

    #[test]
    fn take_prefers_lowest_address_among_equal_sizes() {
        let mut e = Extents::default();
        e.give_back(9000, 64);
        e.give_back(3000, 64);
        assert_eq!(e.take(64), Some(3000));
        assert_eq!(e.take(64), Some(9000));
    }

    proptest::proptest! {
        /// Random take/give-back sequences never hand out overlapping ranges, and once
        /// everything is back the space is one extent again.
        #[test]
        fn never_overlaps(ops in proptest::collection::vec((0u8..3, 1usize..40), 1..200)) {
            const SPACE: usize = 64 * 1024;
            let mut e = Extents::default();
            e.give_back(4096, SPACE);
            let mut taken: Vec<(usize, usize)> = Vec::new();
            for (op, units) in ops {
                if op < 2 {
                    let len = units * 64;
                    if let Some(start) = e.take(len) {
                        proptest::prop_assert!(start >= 4096 && start + len <= 4096 + SPACE);
                        for &(s, l) in &taken {
                            proptest::prop_assert!(start + len <= s || s + l <= start);
                        }
                        taken.push((start, len));
                    }
                } else if !taken.is_empty() {
                    let (s, l) = taken.swap_remove(units % taken.len());
                    e.give_back(s, l);
                }
            }
            for (s, l) in taken {
                e.give_back(s, l);
            }
            proptest::prop_assert_eq!(e.count(), 1);
            proptest::prop_assert_eq!(e.take(SPACE), Some(4096));
        }
    }
}
