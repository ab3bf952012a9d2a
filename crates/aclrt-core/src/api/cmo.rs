//! Cache maintenance tasks (`aclrtCmoAsync`).
//!
//! The emulated device's memory is the host's, kept coherent by the host's caches, so a
//! prefetch, write-back, invalidate or flush has nothing to do. The call still checks its
//! arguments as the vendor's runtime does and queues a task that takes its place in the
//! stream's order (later work runs after it; a synchronise waits for it) and has no other
//! effect.

use std::sync::Arc;

use super::os_thread_id;
use crate::codes::*;
use crate::error::{bail, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::runtime::Runtime;
use crate::task_info::{MemRange, TaskKind, TaskMeta};
use crate::vendor_consts as vc;

impl Runtime {
    /// `aclrtCmoAsync`: NULL `src` and a size of 0 are `100000`; a type that is not an
    /// `aclrtCmoType` is `207000`, as the vendor's runtime answers it; a range overrunning its
    /// runtime allocation, or in freed runtime memory, fails as a copy's would. Host memory the
    /// runtime did not allocate is not checked further, as the vendor's runtime does not.
    pub fn cmo_async(
        &self,
        src: usize,
        size: usize,
        cmo_type: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        const CALL: &str = "aclrtCmoAsync";
        if src == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: src is NULL");
        }
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: size is 0");
        }
        if !(vc::ACL_RT_CMO_TYPE_PREFETCH..=vc::ACL_RT_CMO_TYPE_FLUSH)
            .contains(&i64::from(cmo_type))
        {
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "{CALL}: cmoType {cmo_type} is not supported: prefetch, write-back, invalidate \
                 and flush are"
            );
        }
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        self.memory
            .check_access(src, size, "the cache operation's range")?;
        let meta = TaskMeta {
            name: Some(Arc::from(CALL)),
            reads: vec![MemRange {
                start: src,
                len: size,
            }],
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        self.submit(
            &s,
            TaskKind::Kernel,
            Work::Kernel(Box::new(|| Ok(()))),
            meta,
        )
        .map(|_| ())
    }
}
