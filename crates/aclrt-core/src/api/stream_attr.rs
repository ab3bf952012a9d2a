//! `aclrtSetStreamAttribute` / `aclrtGetStreamAttribute`: one front for the stream settings
//! that also have calls of their own (failure mode, overflow switch, priority) and for two
//! values the runtime only keeps for the program (user tag, operator-info cache switch).
//!
//! A value travels as the first 8 bytes of the vendor's `aclrtStreamAttrValue` union: the
//! failure mode is its `uint64_t`, every other attribute a `uint32_t` in the low half.

use std::sync::atomic::Ordering;

use crate::codes::*;
use crate::error::{bail, Result};
use crate::handle::StreamHandle;
use crate::runtime::Runtime;

use super::stream::LOWEST_STREAM_PRIORITY;
use crate::vendor_consts as vc;

const FAILURE_MODE: i64 = vc::ACL_STREAM_ATTR_FAILURE_MODE;
const FLOAT_OVERFLOW_CHECK: i64 = vc::ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK;
const USER_CUSTOM_TAG: i64 = vc::ACL_STREAM_ATTR_USER_CUSTOM_TAG;
const CACHE_OP_INFO: i64 = vc::ACL_STREAM_ATTR_CACHE_OP_INFO;
const PRIORITY: i64 = vc::ACL_STREAM_ATTR_PRIORITY;

fn unknown(call: &str, attr: i32) -> crate::error::Error {
    crate::error::Error::new(
        ACL_ERROR_RT_PARAM_INVALID,
        format!("{call}: stmAttrType {attr} is not in [{FAILURE_MODE}, {PRIORITY}]"),
    )
}

impl Runtime {
    /// `aclrtSetStreamAttribute`: `ACL_STREAM_ATTR_FAILURE_MODE` as
    /// `aclrtSetStreamFailureMode` (once per stream), `_FLOAT_OVERFLOW_CHECK` as
    /// `aclrtSetStreamOverflowSwitch`, `_USER_CUSTOM_TAG` any value, `_CACHE_OP_INFO` 0 or 1
    /// (`107000` otherwise), `_PRIORITY` clamped to [0, 7] (the default stream, NULL, has none
    /// to set: `107000`). NULL names the current context's default stream; another attribute
    /// is `107000`.
    pub fn set_stream_attribute(&self, handle: StreamHandle, attr: i32, value: u64) -> Result<()> {
        const CALL: &str = "aclrtSetStreamAttribute";
        let low = value as u32;
        match i64::from(attr) {
            FAILURE_MODE => self.set_stream_failure_mode(handle, value),
            FLOAT_OVERFLOW_CHECK => self.set_stream_overflow_switch(handle, low),
            USER_CUSTOM_TAG => {
                let stream = self.stream_of_current_context(self.lookup_stream(handle)?, CALL)?;
                stream.user_tag.store(low, Ordering::Relaxed);
                Ok(())
            }
            CACHE_OP_INFO => {
                let stream = self.stream_of_current_context(self.lookup_stream(handle)?, CALL)?;
                if low > 1 {
                    bail!(
                        ACL_ERROR_RT_PARAM_INVALID,
                        "{CALL}: cacheOpInfoSwitch {low} is not 0 or 1"
                    );
                }
                stream.cache_op_info.store(low, Ordering::Relaxed);
                Ok(())
            }
            PRIORITY => {
                let stream = self.priority_stream(handle, CALL)?;
                stream
                    .priority
                    .store(low.min(LOWEST_STREAM_PRIORITY), Ordering::Relaxed);
                Ok(())
            }
            _ => Err(unknown(CALL, attr)),
        }
    }

    /// `aclrtGetStreamAttribute`: the value [`Runtime::set_stream_attribute`] sets (the failure
    /// mode `ACL_CONTINUE_ON_FAILURE`, the switches and the tag 0 until set; the priority the
    /// stream was created with until set). The same streams and codes as setting.
    pub fn get_stream_attribute(&self, handle: StreamHandle, attr: i32) -> Result<u64> {
        const CALL: &str = "aclrtGetStreamAttribute";
        Ok(match i64::from(attr) {
            FAILURE_MODE => {
                let stream = self.stream_of_current_context(self.lookup_stream(handle)?, CALL)?;
                u64::from(stream.failure_mode())
            }
            FLOAT_OVERFLOW_CHECK => u64::from(self.get_stream_overflow_switch(handle)?),
            USER_CUSTOM_TAG => {
                let stream = self.stream_of_current_context(self.lookup_stream(handle)?, CALL)?;
                u64::from(stream.user_tag.load(Ordering::Relaxed))
            }
            CACHE_OP_INFO => {
                let stream = self.stream_of_current_context(self.lookup_stream(handle)?, CALL)?;
                u64::from(stream.cache_op_info.load(Ordering::Relaxed))
            }
            PRIORITY => u64::from(
                self.priority_stream(handle, CALL)?
                    .priority
                    .load(Ordering::Relaxed),
            ),
            _ => return Err(unknown(CALL, attr)),
        })
    }

    /// The stream whose priority an attribute call names: not NULL (the vendor has no default
    /// stream there), of the current context.
    fn priority_stream(
        &self,
        handle: StreamHandle,
        call: &str,
    ) -> Result<std::sync::Arc<crate::stream::Stream>> {
        if handle.is_null() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: the priority attribute needs a stream; NULL (the default stream) has none"
            );
        }
        self.stream_of_current_context(self.lookup_stream(handle)?, call)
    }
}
