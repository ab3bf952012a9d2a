//! Managed memory calls (`aclrtMemAllocManaged`, `aclrtMemManaged*`). The state they set and
//! report is [`crate::memory::managed`]; prefetches are named host tasks
//! ("aclrtMemManagedPrefetchAsync", "aclrtMemManagedPrefetchBatchAsync") that record where
//! each page was last sent when the stream reaches them.

use std::sync::Arc;

use super::os_thread_id;
use crate::codes::*;
use crate::error::{bail, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::memory::managed::{common, Location, PageState, PAGE};
use crate::memory::Place;
use crate::runtime::Runtime;
use crate::stream::Stream;
use crate::task_info::{TaskKind, TaskMeta};
use crate::vendor_consts as vc;

/// The most a process may hold of managed memory (the vendor's 3 TB).
pub const MANAGED_LIMIT: u64 = 3 << 40;

/// `aclrtMemManagedRangeAttribute` values written for "no location" and "the host".
pub const MANAGED_NO_LOCATION: i32 = -2;
/// See [`MANAGED_NO_LOCATION`].
pub const MANAGED_HOST_LOCATION: i32 = -1;

const DEVICE: u32 = vc::ACL_MEM_LOCATIONTYPE_DEVICE as u32;
const HOST_NUMA: u32 = vc::ACL_MEM_LOCATIONTYPE_HOST_NUMA as u32;
const LAST_TYPE: u32 = vc::ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT as u32;

/// A location as a single id: the device's id, [`MANAGED_HOST_LOCATION`] for the host kinds.
fn location_id(l: Location) -> i32 {
    if l.kind == DEVICE {
        l.id
    } else {
        MANAGED_HOST_LOCATION
    }
}

impl Runtime {
    /// A location a call may name: a known kind, and for a device, one that exists.
    fn check_location(&self, l: Location, call: &str) -> Result<()> {
        if l.kind == 0 || l.kind > LAST_TYPE {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: location type {} is not a valid aclrtMemManagedLocationType",
                l.kind
            );
        }
        if l.kind == DEVICE && self.device(l.id).is_none() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: location id {} is not a device (0..{})",
                l.id,
                self.device_count()
            );
        }
        Ok(())
    }

    /// `whole_pages`: advice and prefetches take whole 2 MB pages; queries any range.
    fn check_managed_range(
        &self,
        ptr: usize,
        size: usize,
        whole_pages: bool,
        call: &str,
    ) -> Result<()> {
        if let Some(why) = self.managed.range(ptr, size, whole_pages) {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{call}: {why}");
        }
        Ok(())
    }

    /// `aclrtMemAllocManaged`: `size` rounded up to 2 MB, starting on a 2 MB page, zeroed;
    /// usable by the host and every device. Freed by `aclrtFree`.
    pub fn mem_alloc_managed(&self, size: u64, flag: u32) -> Result<usize> {
        const CALL: &str = "aclrtMemAllocManaged";
        if flag != vc::ACL_RT_MEM_ATTACH_GLOBAL as u32 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: flag {flag:#x} is not ACL_RT_MEM_ATTACH_GLOBAL"
            );
        }
        let creating = self.creating()?;
        let ctx = self.current_context()?;
        super::not_in_callback(CALL)?;
        if size == 0 || size > MANAGED_LIMIT {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: size {size} is not in (0, 3 TB]"
            );
        }
        let len = (size as usize).next_multiple_of(PAGE);
        let device = &ctx.device;
        if !device.reserve_memory(len as u64) {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "{CALL}: device {} is out of memory for {len} bytes",
                device.id
            );
        }
        let ptr = self
            .memory
            .allocate_aligned(len, PAGE, Place::Device(device.id))
            .inspect_err(|_| device.unreserve_memory(len as u64))?;
        self.managed.add(ptr, len);
        drop(creating);
        if crate::observe::enabled() {
            crate::observe::allocated(ptr, len, Some(device.id));
        }
        Ok(ptr)
    }

    /// `aclrtMemManagedAdvise`: sets or clears advice on whole pages of one allocation.
    pub fn mem_managed_advise(
        &self,
        ptr: usize,
        size: u64,
        advise: u32,
        location: Location,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemManagedAdvise";
        if ptr == 0 || size == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: {} is {}",
                if ptr == 0 { "ptr" } else { "size" },
                if ptr == 0 { "NULL" } else { "0" }
            );
        }
        if advise > vc::ACL_MEM_ADVISE_UNSET_ACCESSED_BY as u32 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: advise {advise} is not an aclrtMemManagedAdviseType (0..5)"
            );
        }
        if location.kind == DEVICE && self.device(location.id).is_none() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: location id {} is not a device",
                location.id
            );
        }
        self.current_context()?;
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        self.check_managed_range(ptr, size, true, CALL)?;
        // Setting a location needs a real one; clearing read-mostly or the preferred location
        // ignores it.
        let needs_location = matches!(advise, 2 | 4 | 5);
        if needs_location {
            self.check_location(location, CALL)?;
        }
        self.managed.update(ptr, size, |p| match advise {
            0 => p.read_mostly = true,
            1 => p.read_mostly = false,
            2 => p.preferred = Some(location),
            3 => p.preferred = None,
            4 => {
                p.accessed_by.insert(location);
            }
            _ => {
                p.accessed_by.remove(&location);
            }
        });
        Ok(())
    }

    /// One attribute of a range, as the `int32_t` values it is made of.
    fn managed_attr(&self, attr: u32, pages: &[PageState], words: usize) -> Vec<i32> {
        let loc_id = |l: Option<Option<Location>>| match l {
            Some(Some(l)) => location_id(l),
            _ => MANAGED_NO_LOCATION,
        };
        let loc_kind = |l: Option<Option<Location>>| match l {
            Some(Some(l)) => l.kind as i32,
            _ => vc::ACL_MEM_LOCATIONTYPE_INVALID as i32,
        };
        let loc_raw_id = |l: Option<Option<Location>>| match l {
            Some(Some(l)) if l.kind == DEVICE || l.kind == HOST_NUMA => l.id,
            _ => MANAGED_NO_LOCATION,
        };
        let preferred = common(pages, |p| p.preferred);
        let prefetched = common(pages, |p| p.last_prefetch);
        match attr {
            1 => vec![i32::from(common(pages, |p| p.read_mostly) == Some(true))],
            2 => vec![loc_id(preferred)],
            3 => {
                let mut ids: Vec<i32> = pages
                    .first()
                    .map(|first| {
                        first
                            .accessed_by
                            .iter()
                            .filter(|l| pages.iter().all(|p| p.accessed_by.contains(l)))
                            .map(|&l| location_id(l))
                            .collect()
                    })
                    .unwrap_or_default();
                ids.sort_unstable();
                ids.dedup();
                ids.resize(words.max(ids.len()), MANAGED_NO_LOCATION);
                ids.truncate(words);
                ids
            }
            4 => vec![loc_kind(preferred)],
            5 => vec![loc_raw_id(preferred)],
            6 => vec![loc_id(prefetched)],
            7 => vec![loc_kind(prefetched)],
            _ => vec![loc_raw_id(prefetched)],
        }
    }

    /// Checks an attribute and its buffer size; the number of `int32_t` it takes.
    fn managed_attr_words(attr: u32, data_size: usize, call: &str) -> Result<usize> {
        if !(1..=8).contains(&attr) {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: attribute {attr} is not an aclrtMemManagedRangeAttribute (1..8)"
            );
        }
        let ok = if attr == 3 {
            data_size > 0 && data_size.is_multiple_of(4)
        } else {
            data_size == 4
        };
        if !ok {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: attribute {attr} needs {} bytes of data, not {data_size}",
                if attr == 3 {
                    "a non-zero multiple of 4"
                } else {
                    "4"
                }
            );
        }
        Ok(data_size / 4)
    }

    /// `aclrtMemManagedGetAttr`: writes `int32_t` values to `data`. A value the pages of the
    /// range do not share reads as "none" (0, or [`MANAGED_NO_LOCATION`]).
    ///
    /// # Safety
    /// `data` is NULL or writable for `data_size` bytes.
    pub unsafe fn mem_managed_get_attr(
        &self,
        attr: u32,
        ptr: usize,
        size: usize,
        data: usize,
        data_size: usize,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemManagedGetAttr";
        if ptr == 0 || data == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: {} is NULL",
                if ptr == 0 { "ptr" } else { "data" }
            );
        }
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: size is 0");
        }
        let words = Self::managed_attr_words(attr, data_size, CALL)?;
        self.check_managed_range(ptr, size, false, CALL)?;
        let values = self.managed_attr(attr, &self.managed.pages(ptr, size), words);
        // SAFETY: writable for `data_size` = 4 × `values.len()` bytes, the caller's contract.
        unsafe { write_words(data, &values) };
        Ok(())
    }

    /// `aclrtMemManagedGetAttrs`: [`Runtime::mem_managed_get_attr`] for each attribute, into
    /// `data[i]` of `data_sizes[i]` bytes. Every attribute and size is checked before anything
    /// is written.
    ///
    /// # Safety
    /// Each `data[i]` is NULL or writable for `data_sizes[i]` bytes.
    pub unsafe fn mem_managed_get_attrs(
        &self,
        attrs: Option<&[u32]>,
        ptr: usize,
        size: usize,
        data: Option<&[usize]>,
        data_sizes: Option<&[usize]>,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemManagedGetAttrs";
        let (Some(attrs), Some(data), Some(sizes)) = (attrs, data, data_sizes) else {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: attributes, data and dataSizes must not be NULL"
            );
        };
        if ptr == 0 || size == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: {}",
                if ptr == 0 { "ptr is NULL" } else { "size is 0" }
            );
        }
        let mut words = Vec::with_capacity(attrs.len());
        for (i, &attr) in attrs.iter().enumerate() {
            if data[i] == 0 {
                bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: data[{i}] is NULL");
            }
            words.push(Self::managed_attr_words(attr, sizes[i], CALL)?);
        }
        self.check_managed_range(ptr, size, false, CALL)?;
        let pages = self.managed.pages(ptr, size);
        for (i, &attr) in attrs.iter().enumerate() {
            let values = self.managed_attr(attr, &pages, words[i]);
            // SAFETY: writable for `sizes[i]` bytes, the caller's contract.
            unsafe { write_words(data[i], &values) };
        }
        Ok(())
    }

    /// Queues a task that records `location` as where each range was last prefetched.
    fn queue_prefetch(
        &self,
        stream: &Arc<Stream>,
        ranges: Vec<(usize, usize, Location)>,
        call: &str,
    ) -> Result<()> {
        let meta = TaskMeta {
            name: Some(Arc::from(call)),
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        let managed = self.managed.clone();
        let work = Work::Kernel(Box::new(move || {
            for (ptr, len, loc) in ranges {
                managed.update(ptr, len, |p| p.last_prefetch = Some(loc));
            }
            Ok(())
        }));
        self.submit(stream, TaskKind::Kernel, work, meta)
            .map(|_| ())
    }

    /// `aclrtMemManagedPrefetchAsync`: a task in stream order; the data is already where
    /// every side can use it, so it only records the location.
    pub fn mem_managed_prefetch_async(
        &self,
        ptr: usize,
        size: usize,
        location: Location,
        flags: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemManagedPrefetchAsync";
        if ptr == 0 || size == 0 || flags != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: {}",
                if ptr == 0 {
                    "ptr is NULL".to_owned()
                } else if size == 0 {
                    "size is 0".to_owned()
                } else {
                    format!("flags must be 0, not {flags:#x}")
                }
            );
        }
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        self.check_location(location, CALL)?;
        self.check_managed_range(ptr, size, true, CALL)?;
        self.queue_prefetch(&s, vec![(ptr, size, location)], CALL)
    }

    /// `aclrtMemManagedPrefetchBatchAsync`: `locations[k]` applies to the ranges from
    /// `location_indexes[k]` to the next index (the last to the end). One task.
    #[allow(clippy::too_many_arguments)]
    pub fn mem_managed_prefetch_batch_async(
        &self,
        ptrs: Option<&[usize]>,
        sizes: Option<&[usize]>,
        locations: Option<&[Location]>,
        location_indexes: Option<&[usize]>,
        flags: u64,
        stream: StreamHandle,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemManagedPrefetchBatchAsync";
        let (Some(ptrs), Some(sizes), Some(locs), Some(idxs)) =
            (ptrs, sizes, locations, location_indexes)
        else {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: ptrs, sizes, prefetchLocs and prefetchLocIdxs must not be NULL"
            );
        };
        let (count, n) = (ptrs.len(), locs.len());
        if count == 0 || n == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: count and numPrefetchLocs must not be 0"
            );
        }
        if flags != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: flags must be 0, not {flags:#x}"
            );
        }
        if count < n {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: count {count} must be at least numPrefetchLocs {n}"
            );
        }
        if idxs[0] != 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: prefetchLocIdxs[0] must be 0, not {}",
                idxs[0]
            );
        }
        if let Some(i) = ptrs.iter().position(|&p| p == 0) {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: ptrs[{i}] is NULL");
        }
        for k in 0..n {
            if idxs[k] >= count {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{CALL}: prefetchLocIdxs[{k}] is {}, not below count {count}",
                    idxs[k]
                );
            }
            if k > 0 && idxs[k] <= idxs[k - 1] {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{CALL}: prefetchLocIdxs[{k}] ({}) must be above prefetchLocIdxs[{}] ({})",
                    idxs[k],
                    k - 1,
                    idxs[k - 1]
                );
            }
        }
        for &l in locs {
            self.check_location(l, CALL)?;
        }
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        let mut ranges = Vec::with_capacity(count);
        for k in 0..n {
            let end = idxs.get(k + 1).copied().unwrap_or(count);
            for i in idxs[k]..end {
                if sizes[i] == 0 {
                    bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: sizes[{i}] is 0");
                }
                self.check_managed_range(ptrs[i], sizes[i], true, CALL)?;
                ranges.push((ptrs[i], sizes[i], locs[k]));
            }
        }
        self.queue_prefetch(&s, ranges, CALL)
    }
}

/// Writes `values` as native `int32_t`s at `data`.
///
/// # Safety
/// `data` is writable for 4 × `values.len()` bytes.
unsafe fn write_words(data: usize, values: &[i32]) {
    for (i, v) in values.iter().enumerate() {
        // SAFETY: inside the caller's buffer; unaligned writes allowed.
        unsafe { (data as *mut i32).add(i).write_unaligned(*v) };
    }
}
