//! The runtime-free calls of `acl_base_rt.h` and the package version queries: element sizes,
//! float16 conversion, data buffers, CANN attributes, `aclsysGet*Version*`. The logic is in
//! `aclrt::base`; this module only translates C types. None of them needs `aclInit`.

use std::ffi::{c_char, c_int, c_void, CStr};

use aclrt::base::{self, DataBuffer};
use aclrt::vendor_consts::{ACL_PKG_VERSION_MAX_SIZE, ACL_PKG_VERSION_PARTS_MAX_SIZE};

use crate::{aclError, guard, guard_value, not_null, put};

/// `aclDataBuffer`: opaque; the pointers handed out are validated tokens, never dereferenced.
#[repr(C)]
pub struct aclDataBuffer {
    _opaque: [u8; 0],
}

const VERSION_SIZE: usize = ACL_PKG_VERSION_MAX_SIZE as usize;
const PART_SIZE: usize = ACL_PKG_VERSION_PARTS_MAX_SIZE as usize;

/// `aclCANNPackageVersion`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclCANNPackageVersion {
    /// The whole version, NUL-terminated.
    pub version: [c_char; VERSION_SIZE],
    /// The first part.
    pub majorVersion: [c_char; PART_SIZE],
    /// The second part.
    pub minorVersion: [c_char; PART_SIZE],
    /// The third part.
    pub releaseVersion: [c_char; PART_SIZE],
    /// The fourth part.
    pub patchVersion: [c_char; PART_SIZE],
    /// Zeroed.
    pub reserved: [c_char; VERSION_SIZE],
}

/// `aclFloat16ToFloat`.
#[no_mangle]
pub extern "C" fn aclFloat16ToFloat(value: u16) -> f32 {
    base::float16_to_float(value)
}

/// `aclFloatToFloat16`.
#[no_mangle]
pub extern "C" fn aclFloatToFloat16(value: f32) -> u16 {
    base::float_to_float16(value)
}

/// `aclDataTypeSize`.
#[no_mangle]
pub extern "C" fn aclDataTypeSize(dataType: i32) -> usize {
    base::data_type_size(dataType)
}

fn buffer(ptr: *const aclDataBuffer) -> DataBuffer {
    DataBuffer::from_raw(ptr as u64)
}

/// `aclCreateDataBuffer`: never NULL (the emulation does not run out of tokens).
#[no_mangle]
pub extern "C" fn aclCreateDataBuffer(data: *mut c_void, size: usize) -> *mut aclDataBuffer {
    guard_value("aclCreateDataBuffer", std::ptr::null_mut(), || {
        base::create_data_buffer(data as usize, size).as_raw() as *mut aclDataBuffer
    })
}

/// `aclDestroyDataBuffer`.
#[no_mangle]
pub extern "C" fn aclDestroyDataBuffer(dataBuffer: *const aclDataBuffer) -> aclError {
    guard("aclDestroyDataBuffer", || {
        base::destroy_data_buffer(buffer(dataBuffer))
    })
}

/// `aclUpdateDataBuffer`.
#[no_mangle]
pub extern "C" fn aclUpdateDataBuffer(
    dataBuffer: *mut aclDataBuffer,
    data: *mut c_void,
    size: usize,
) -> aclError {
    guard("aclUpdateDataBuffer", || {
        base::update_data_buffer(buffer(dataBuffer), data as usize, size)
    })
}

/// `aclGetDataBufferAddr`: NULL for NULL (silently, as the vendor) or for a dead buffer.
#[no_mangle]
pub extern "C" fn aclGetDataBufferAddr(dataBuffer: *const aclDataBuffer) -> *mut c_void {
    if dataBuffer.is_null() {
        return std::ptr::null_mut();
    }
    guard_value("aclGetDataBufferAddr", std::ptr::null_mut(), || {
        base::data_buffer_addr(buffer(dataBuffer))
            .map_or(std::ptr::null_mut(), |a| a as *mut c_void)
    })
}

/// `aclGetDataBufferSize`: the size truncated to 32 bits; 0 for NULL or a dead buffer.
#[no_mangle]
pub extern "C" fn aclGetDataBufferSize(dataBuffer: *const aclDataBuffer) -> u32 {
    aclGetDataBufferSizeV2(dataBuffer) as u32
}

/// `aclGetDataBufferSizeV2`: 0 for NULL (silently, as the vendor) or for a dead buffer.
#[no_mangle]
pub extern "C" fn aclGetDataBufferSizeV2(dataBuffer: *const aclDataBuffer) -> usize {
    if dataBuffer.is_null() {
        return 0;
    }
    guard_value("aclGetDataBufferSizeV2", 0, || {
        base::data_buffer_size(buffer(dataBuffer)).unwrap_or(0)
    })
}

/// `aclGetCannAttributeList`: a list that lives as long as the process.
#[no_mangle]
pub unsafe extern "C" fn aclGetCannAttributeList(
    cannAttrList: *mut *const i32,
    num: *mut usize,
) -> aclError {
    guard("aclGetCannAttributeList", || {
        not_null(cannAttrList, "aclGetCannAttributeList", "cannAttrList")?;
        not_null(num, "aclGetCannAttributeList", "num")?;
        let list = base::cann_attribute_list();
        // SAFETY: the out-pointers were checked non-NULL above; that they are writable is the C caller's contract.
        unsafe {
            put(cannAttrList, list.as_ptr());
            put(num, list.len());
        }
        Ok(())
    })
}

/// `aclGetCannAttribute`.
#[no_mangle]
pub unsafe extern "C" fn aclGetCannAttribute(cannAttr: i32, value: *mut i32) -> aclError {
    guard("aclGetCannAttribute", || {
        not_null(value, "aclGetCannAttribute", "value")?;
        let available = base::cann_attribute(cannAttr)?;
        // SAFETY: the out-pointers were checked non-NULL above; that they are writable is the C caller's contract.
        unsafe { put(value, available) };
        Ok(())
    })
}

/// Reads a caller's package name (checked non-NULL).
unsafe fn package_name(pkgName: *const c_char) -> String {
    // SAFETY: non-NULL and NUL-terminated by the C contract.
    unsafe { CStr::from_ptr(pkgName) }
        .to_string_lossy()
        .into_owned()
}

/// Copies `text` and a terminating NUL into a C array, truncating `text` to fit.
fn fill(dst: &mut [c_char], text: &str) {
    let n = text.len().min(dst.len() - 1);
    for (d, &b) in dst.iter_mut().zip(&text.as_bytes()[..n]) {
        *d = b as c_char;
    }
    dst[n] = 0;
}

/// `aclsysGetVersionStr`: writes the version and a NUL (at most `ACL_PKG_VERSION_MAX_SIZE`
/// bytes) to `versionStr`.
#[no_mangle]
pub unsafe extern "C" fn aclsysGetVersionStr(
    pkgName: *mut c_char,
    versionStr: *mut c_char,
) -> aclError {
    guard("aclsysGetVersionStr", || {
        not_null(versionStr, "aclsysGetVersionStr", "versionStr")?;
        not_null(pkgName, "aclsysGetVersionStr", "pkgName")?;
        // SAFETY: `pkgName` is NULL or a C string, the C caller's contract.
        let version = base::version_str(&unsafe { package_name(pkgName) })?;
        let mut out = [0 as c_char; VERSION_SIZE];
        fill(&mut out, version);
        let len = version.len().min(VERSION_SIZE - 1) + 1;
        // SAFETY: the caller provides ACL_PKG_VERSION_MAX_SIZE bytes, as documented.
        unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), versionStr, len) };
        Ok(())
    })
}

/// `aclsysGetVersionNum`.
#[no_mangle]
pub unsafe extern "C" fn aclsysGetVersionNum(
    pkgName: *mut c_char,
    versionNum: *mut i32,
) -> aclError {
    guard("aclsysGetVersionNum", || {
        not_null(versionNum, "aclsysGetVersionNum", "versionNum")?;
        not_null(pkgName, "aclsysGetVersionNum", "pkgName")?;
        // SAFETY: `pkgName` is NULL or a C string, the C caller's contract.
        let number = base::version_num(&unsafe { package_name(pkgName) })?;
        // SAFETY: the out-pointers were checked non-NULL above; that they are writable is the C caller's contract.
        unsafe { put(versionNum, number) };
        Ok(())
    })
}

/// `aclsysGetCANNVersion`: fills the whole struct (unused bytes zero).
#[no_mangle]
pub unsafe extern "C" fn aclsysGetCANNVersion(
    name: i32,
    version: *mut aclCANNPackageVersion,
) -> aclError {
    guard("aclsysGetCANNVersion", || {
        not_null(version, "aclsysGetCANNVersion", "version")?;
        let v = base::cann_version(name)?;
        let mut out = aclCANNPackageVersion {
            version: [0; VERSION_SIZE],
            majorVersion: [0; PART_SIZE],
            minorVersion: [0; PART_SIZE],
            releaseVersion: [0; PART_SIZE],
            patchVersion: [0; PART_SIZE],
            reserved: [0; VERSION_SIZE],
        };
        fill(&mut out.version, &v.version);
        fill(&mut out.majorVersion, &v.major);
        fill(&mut out.minorVersion, &v.minor);
        fill(&mut out.releaseVersion, &v.release);
        fill(&mut out.patchVersion, &v.patch);
        // SAFETY: the out-pointers were checked non-NULL above; that they are writable is the C caller's contract.
        unsafe { put(version, out) };
        Ok(())
    })
}

/// The Rust side of `aclAppLog` (src/app_log.c formats the caller's message): the vendor's
/// text, `tid func:file:line: "message"`, written as the core's application log line at
/// `logLevel`. `message` holds the formatted message cut to the vendor's buffer, `messageLen`
/// its full length; `formatOk` 0 means the format was refused, which the vendor's logs as an
/// error of its own.
///
/// # Safety
/// `func` and `file` are C strings; `message` holds at least
/// `min(messageLen, MAX_LOG_STRING - 1)` bytes (src/app_log.c's buffer).
#[no_mangle]
pub unsafe extern "C" fn ascendcl_app_log_formatted(
    logLevel: u32,
    func: *const c_char,
    file: *const c_char,
    line: u32,
    message: *const c_char,
    messageLen: usize,
    formatOk: c_int,
) {
    let _ = std::panic::catch_unwind(|| {
        if formatOk == 0 {
            base::app_log(
                aclrt::vendor_consts::ACL_ERROR,
                "aclAppLog format string is invalid",
            );
            return;
        }
        // SAFETY: C strings (the C side checked them non-NULL).
        let (func, file) = unsafe {
            (
                CStr::from_ptr(func).to_string_lossy(),
                CStr::from_ptr(file).to_string_lossy(),
            )
        };
        let held = messageLen.min(base::MAX_LOG_STRING - 1);
        // SAFETY: the C side's buffer holds `held` formatted bytes.
        let bytes = unsafe { std::slice::from_raw_parts(message.cast::<u8>(), held) };
        let text = base::app_log_text(&func, &file, line, bytes, messageLen);
        base::app_log(i64::from(logLevel as i32), &text);
    });
}

extern "C" {
    /// The C part of `aclAppLog` (src/app_log.c: `void aclrt_app_log_va(uint32_t logLevel,
    /// const char *func, const char *file, uint32_t line, const char *fmt, ...)`); only its
    /// address is used here.
    fn aclrt_app_log_va();
}

/// `aclAppLog(logLevel, func, file, line, fmt, ...)`: a jump to the C part, which stable Rust
/// cannot be (a C variadic function). The jump leaves every argument register, the vector
/// register count and the stack as the caller set them, so the C function reads the variadic
/// arguments as if called directly; being defined here, the symbol is exported with the
/// library's other functions.
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn aclAppLog() {
    #[cfg(target_arch = "x86_64")]
    core::arch::naked_asm!("jmp {}", sym aclrt_app_log_va);
    #[cfg(target_arch = "aarch64")]
    core::arch::naked_asm!("b {}", sym aclrt_app_log_va);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_version_struct_has_the_c_layout() {
        assert_eq!(
            std::mem::size_of::<aclCANNPackageVersion>(),
            128 + 4 * 64 + 128
        );
        assert_eq!(
            std::mem::offset_of!(aclCANNPackageVersion, patchVersion),
            128 + 3 * 64
        );
    }

    #[test]
    fn fill_truncates_and_terminates() {
        let mut small = [1 as c_char; 4];
        fill(&mut small, "abcdef");
        assert_eq!(small, [b'a' as c_char, b'b' as c_char, b'c' as c_char, 0]);
        let mut big = [1 as c_char; 8];
        fill(&mut big, "ab");
        assert_eq!(&big[..4], &[b'a' as c_char, b'b' as c_char, 0, 1]);
    }
}
