//! `aclrtRandomNumAsync`: the C layout of `aclrtRandomNumTaskInfo`, translated to the core's
//! [`aclrt::api::RandomNumTask`] (see `aclrt::api`'s random number task for what it computes).

use std::ffi::c_void;

use aclrt::api::{RandomNumTask, RandomParam};

use crate::{aclError, aclrtStream, entry, not_null, stream_handle};

/// `aclrtRandomParaInfo`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct aclrtRandomParaInfo {
    pub isAddr: u8,
    pub valueOrAddr: [u8; 8],
    pub size: u8,
    pub rsv: [u8; 6],
}

/// `aclrtRandomNumFuncParaInfo`: the function type, then a union of at most two parameters
/// (`aclrtDropoutBitmaskInfo`, `aclrtUniformDisInfo`, `aclrtNormalDisInfo`), all laid out as
/// consecutive `aclrtRandomParaInfo`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct aclrtRandomNumFuncParaInfo {
    pub funcType: i32,
    pub paramInfo: [aclrtRandomParaInfo; 2],
}

/// `aclrtRandomNumTaskInfo`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct aclrtRandomNumTaskInfo {
    pub dataType: i32,
    pub randomNumFuncParaInfo: aclrtRandomNumFuncParaInfo,
    pub randomParaAddr: *mut c_void,
    pub randomResultAddr: *mut c_void,
    pub randomCounterAddr: *mut c_void,
    pub randomSeed: aclrtRandomParaInfo,
    pub randomNum: aclrtRandomParaInfo,
    pub rsv: [u8; 8],
}

fn param(p: &aclrtRandomParaInfo) -> RandomParam {
    RandomParam {
        is_addr: p.isAddr,
        value_or_addr: p.valueOrAddr,
        size: p.size,
    }
}

/// `aclrtRandomNumAsync`.
#[no_mangle]
pub unsafe extern "C" fn aclrtRandomNumAsync(
    taskInfo: *const aclrtRandomNumTaskInfo,
    stream: aclrtStream,
    reserve: *mut c_void,
) -> aclError {
    entry("aclrtRandomNumAsync", |rt| {
        not_null(taskInfo, "aclrtRandomNumAsync", "taskInfo")?;
        // SAFETY: non-NULL (checked above) and readable, the C caller's contract.
        let info = unsafe { taskInfo.read_unaligned() };
        let func = &info.randomNumFuncParaInfo;
        let task = RandomNumTask {
            data_type: info.dataType,
            func_type: func.funcType,
            params: [param(&func.paramInfo[0]), param(&func.paramInfo[1])],
            para_addr: info.randomParaAddr as usize,
            result_addr: info.randomResultAddr as usize,
            counter_addr: info.randomCounterAddr as usize,
            seed: param(&info.randomSeed),
            num: param(&info.randomNum),
        };
        // SAFETY: the core checks every address against runtime memory; that they stay valid
        // until the task runs is the C caller's contract.
        unsafe { rt.random_num_async(&task, stream_handle(stream), reserve as usize) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_have_the_c_layout() {
        assert_eq!(std::mem::size_of::<aclrtRandomParaInfo>(), 16);
        assert_eq!(std::mem::size_of::<aclrtRandomNumFuncParaInfo>(), 36);
        assert_eq!(std::mem::size_of::<aclrtRandomNumTaskInfo>(), 104);
        assert_eq!(
            std::mem::offset_of!(aclrtRandomNumTaskInfo, randomParaAddr),
            40
        );
        assert_eq!(std::mem::offset_of!(aclrtRandomNumTaskInfo, randomSeed), 64);
    }
}
