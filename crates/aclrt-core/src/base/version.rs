//! Package versions: `aclsysGetVersionStr`, `aclsysGetVersionNum`, `aclsysGetCANNVersion`.
//!
//! The vendor reads `version.info` files of the installed CANN packages. The emulated
//! installation holds exactly one package, the runtime, at [`RUNTIME_VERSION`]: the release of
//! the vendor runtime whose interface the headers reproduce. Every other package is reported as
//! not installed, with the vendor's code for a missing `version.info` (`ACL_ERROR_INVALID_FILE`).

use super::fail;
use crate::codes::{ACL_ERROR_INTERNAL_ERROR, ACL_ERROR_INVALID_FILE, ACL_ERROR_INVALID_PARAM};
use crate::vendor_consts::{
    ACL_PKG_NAME_CANN, ACL_PKG_NAME_COMPILER, ACL_PKG_NAME_DRIVER, ACL_PKG_NAME_HCCL,
    ACL_PKG_NAME_OPP, ACL_PKG_NAME_OPP_KERNEL, ACL_PKG_NAME_RUNTIME, ACL_PKG_NAME_TOOLKIT,
};
use crate::Result;

/// The version the runtime package reports.
pub const RUNTIME_VERSION: &str = "9.1.0";

/// The package name under which the runtime is installed (as in `share/info/runtime`).
pub const RUNTIME_PACKAGE: &str = "runtime";

/// `aclsysGetVersionStr`: the version string of the installed package `package`.
///
/// `"runtime"` is installed; any other name returns `ACL_ERROR_INVALID_FILE`. As the vendor
/// does, a name with `-` is also tried with `_` and the other way round.
///
/// ```
/// use aclrt::base::{version_str, RUNTIME_VERSION};
/// assert_eq!(version_str("runtime").unwrap(), RUNTIME_VERSION);
/// assert_eq!(version_str("driver").unwrap_err().code(), aclrt::codes::ACL_ERROR_INVALID_FILE);
/// ```
pub fn version_str(package: &str) -> Result<&'static str> {
    let alternative: String = package
        .chars()
        .map(|c| match c {
            '-' => '_',
            '_' => '-',
            c => c,
        })
        .collect();
    if package == RUNTIME_PACKAGE || alternative == RUNTIME_PACKAGE {
        Ok(RUNTIME_VERSION)
    } else {
        Err(fail(
            ACL_ERROR_INVALID_FILE,
            format!(
                "package {package:?} is not installed: the emulated installation holds only \
                 {RUNTIME_PACKAGE:?} ({RUNTIME_VERSION})"
            ),
        ))
    }
}

/// `aclsysGetVersionNum`: the version of `package` as a number that orders releases.
pub fn version_num(package: &str) -> Result<i32> {
    let version = version_str(package)?;
    version_number(version).ok_or_else(|| {
        fail(
            ACL_ERROR_INTERNAL_ERROR,
            format!("the version {version:?} of {package:?} cannot be read as a number"),
        )
    })
}

/// The vendor's numbering of a version string: `major * 10000000 + minor * 100000 + patch *
/// 1000`; a pre-release suffix (`alpha`, `beta`, `rc`, in any case, after at most one character,
/// then an optional number after at most one `.` or `-`) subtracts 300, 200 or 100 and adds its
/// number,
/// so `9.0.0-alpha.1 < 9.0.0-beta.1 < 9.0.0-rc.1 < 9.0.0 < 9.0.1`. `None` for anything else.
///
/// ```
/// use aclrt::base::version_number;
/// assert_eq!(version_number("9.1.0"), Some(90_100_000));
/// assert_eq!(version_number("8.0.RC2"), None);
/// assert_eq!(version_number("9.0.0-rc.2"), Some(89_999_902));
/// ```
#[must_use]
pub fn version_number(version: &str) -> Option<i32> {
    let (major, rest) = version.split_once('.')?;
    let (minor, rest) = rest.split_once('.')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (patch, suffix) = rest.split_at(digits);
    let number = |s: &str| -> Option<i32> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let base = number(major)?
        .checked_mul(10_000_000)?
        .checked_add(number(minor)?.checked_mul(100_000)?)?
        .checked_add(number(patch)?.checked_mul(1000)?)?;
    if suffix.is_empty() {
        return Some(base);
    }
    let lower = suffix.to_ascii_lowercase();
    let (weight, keyword) = [(300, "alpha"), (200, "beta"), (100, "rc")]
        .into_iter()
        .find(|(_, k)| lower.contains(k))?;
    let at = lower.find(keyword)?;
    if at > 1 {
        return None;
    }
    let tail = &suffix[at + keyword.len()..];
    let pre = if tail.is_empty() {
        0
    } else {
        let separators = tail
            .bytes()
            .take_while(|b| matches!(b, b'.' | b'-'))
            .count();
        if separators > 1 {
            return None;
        }
        number(&tail[separators..])?
    };
    base.checked_sub(weight)?.checked_add(pre)
}

/// `aclCANNPackageVersion` in Rust: the version string and its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageVersion {
    /// The whole version (`"9.1.0"`).
    pub version: String,
    /// The first part (`"9"`).
    pub major: String,
    /// The second part (`"1"`).
    pub minor: String,
    /// The third part (`"0"`; `"0"` when missing).
    pub release: String,
    /// The fourth part (`"0"` when missing).
    pub patch: String,
}

/// `aclsysGetCANNVersion`: the version of the package `name` (an `aclCANNPackageName`).
///
/// `ACL_PKG_NAME_CANN` and `ACL_PKG_NAME_RUNTIME` name the runtime package, as with the vendor;
/// the other packages are not installed (`ACL_ERROR_INVALID_FILE`); a value outside the enum is
/// `ACL_ERROR_INVALID_PARAM`.
pub fn cann_version(name: i32) -> Result<PackageVersion> {
    match i64::from(name) {
        ACL_PKG_NAME_CANN | ACL_PKG_NAME_RUNTIME => {
            let version = RUNTIME_VERSION;
            // The vendor turns "a.b.c-rc.1" into "a.b.c.rc1" before splitting at the dots.
            let flat = match version.split_once('-') {
                Some((head, tail)) => format!("{head}.{}", tail.replace('.', "")),
                None => version.to_string(),
            };
            let mut parts: Vec<String> = flat.split('.').map(str::to_string).collect();
            parts.resize(4.max(parts.len()), "0".to_string());
            Ok(PackageVersion {
                version: flat.clone(),
                major: parts[0].clone(),
                minor: parts[1].clone(),
                release: parts[2].clone(),
                patch: parts[3].clone(),
            })
        }
        ACL_PKG_NAME_COMPILER
        | ACL_PKG_NAME_HCCL
        | ACL_PKG_NAME_TOOLKIT
        | ACL_PKG_NAME_OPP
        | ACL_PKG_NAME_OPP_KERNEL
        | ACL_PKG_NAME_DRIVER => Err(fail(
            ACL_ERROR_INVALID_FILE,
            format!(
                "aclsysGetCANNVersion: package {name} is not installed: the emulated \
                 installation holds only the runtime ({RUNTIME_VERSION})"
            ),
        )),
        _ => Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("aclsysGetCANNVersion: {name} is not an aclCANNPackageName"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_is_the_only_package() {
        assert_eq!(version_str("runtime"), Ok("9.1.0"));
        assert_eq!(version_num("runtime"), Ok(90_100_000));
        for other in [
            "driver", "firmware", "cann", "hccl", "", "Runtime", "runtime ",
        ] {
            let e = version_str(other).unwrap_err();
            assert_eq!(e.code(), ACL_ERROR_INVALID_FILE, "{other:?}");
            assert!(e.message().contains("not installed"));
            assert_eq!(
                version_num(other).unwrap_err().code(),
                ACL_ERROR_INVALID_FILE
            );
        }
    }

    #[test]
    fn version_numbers_order_releases() {
        let ordered = [
            "9.0.0-alpha.1",
            "9.0.0-alpha.2",
            "9.0.0-beta.1",
            "9.0.0-beta.2",
            "9.0.0-rc.1",
            "9.0.0-rc.2",
            "9.0.0",
            "9.0.1",
            "9.1.0",
        ];
        let numbers: Vec<i32> = ordered.iter().map(|v| version_number(v).unwrap()).collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
        assert_eq!(version_number("9.0.0-alpha.1"), Some(89_999_701));
        assert_eq!(version_number("9.0.0-beta.2"), Some(89_999_802));
        assert_eq!(version_number("8.5.0RC1"), Some(80_500_000 - 100 + 1));
        assert_eq!(version_number("1.2.3"), Some(10_203_000));
        assert_eq!(version_number("9.0.0.rc"), Some(89_999_900));
        for bad in [
            "",
            "9",
            "9.1",
            "9..1",
            ".1.0",
            "9.1.x",
            "9.0.0-gamma",
            "9.0.0--rc1",
            "9.0.0-rc-x",
        ] {
            assert_eq!(version_number(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn cann_versions() {
        let v = cann_version(ACL_PKG_NAME_CANN as i32).unwrap();
        assert_eq!(
            v,
            PackageVersion {
                version: "9.1.0".into(),
                major: "9".into(),
                minor: "1".into(),
                release: "0".into(),
                patch: "0".into(),
            }
        );
        assert_eq!(cann_version(ACL_PKG_NAME_RUNTIME as i32).unwrap(), v);
        for name in [
            ACL_PKG_NAME_COMPILER,
            ACL_PKG_NAME_HCCL,
            ACL_PKG_NAME_TOOLKIT,
            ACL_PKG_NAME_OPP,
            ACL_PKG_NAME_OPP_KERNEL,
            ACL_PKG_NAME_DRIVER,
        ] {
            assert_eq!(
                cann_version(name as i32).unwrap_err().code(),
                ACL_ERROR_INVALID_FILE
            );
        }
        for name in [-1, 8, 100] {
            assert_eq!(
                cann_version(name).unwrap_err().code(),
                ACL_ERROR_INVALID_PARAM
            );
        }
    }
}
