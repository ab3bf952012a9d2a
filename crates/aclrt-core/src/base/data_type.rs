//! `aclDataTypeSize`: bytes per element of each `aclDataType`.

pub use crate::vendor_consts::{
    ACL_BF16, ACL_BOOL, ACL_COMPLEX128, ACL_COMPLEX32, ACL_COMPLEX64, ACL_DOUBLE, ACL_DT_UNDEFINED,
    ACL_FLOAT, ACL_FLOAT16, ACL_FLOAT4_E1M2, ACL_FLOAT4_E2M1, ACL_FLOAT6_E2M3, ACL_FLOAT6_E3M2,
    ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2, ACL_FLOAT8_E8M0, ACL_HIFLOAT8, ACL_INT16, ACL_INT32,
    ACL_INT4, ACL_INT64, ACL_INT8, ACL_STRING, ACL_UINT1, ACL_UINT16, ACL_UINT32, ACL_UINT64,
    ACL_UINT8,
};

/// `aclDataTypeSize`: the size in bytes of one element of `data_type` (an `aclDataType`).
///
/// As the vendor's table: 0 for `ACL_STRING` and `ACL_DT_UNDEFINED` (no fixed size); 1 for
/// the sub-byte `ACL_INT4` and `ACL_UINT1` (a byte is the smallest unit); 1, 2, 4 or 8 for the
/// one-, two-, four- and eight-byte types, `ACL_COMPLEX32` being 4 and `ACL_COMPLEX64` 8;
/// 16 for `ACL_COMPLEX128`. Every other value, the float6 and float4 types included, falls to
/// the vendor's default of 8.
///
/// ```
/// use aclrt::base::{data_type_size, ACL_BF16, ACL_COMPLEX128, ACL_STRING};
/// assert_eq!(data_type_size(ACL_BF16 as i32), 2);
/// assert_eq!(data_type_size(ACL_COMPLEX128 as i32), 16);
/// assert_eq!(data_type_size(ACL_STRING as i32), 0);
/// assert_eq!(data_type_size(1000), 8);
/// ```
#[must_use]
pub fn data_type_size(data_type: i32) -> usize {
    match i64::from(data_type) {
        ACL_STRING | ACL_DT_UNDEFINED => 0,
        ACL_UINT1 | ACL_INT4 => 1,
        ACL_BOOL | ACL_INT8 | ACL_UINT8 | ACL_HIFLOAT8 | ACL_FLOAT8_E5M2 | ACL_FLOAT8_E4M3FN
        | ACL_FLOAT8_E8M0 => 1,
        ACL_FLOAT16 | ACL_INT16 | ACL_UINT16 | ACL_BF16 => 2,
        ACL_FLOAT | ACL_INT32 | ACL_UINT32 | ACL_COMPLEX32 => 4,
        ACL_COMPLEX128 => 16,
        _ => 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_data_type() {
        let expected: &[(i64, usize)] = &[
            (ACL_DT_UNDEFINED, 0),
            (ACL_FLOAT, 4),
            (ACL_FLOAT16, 2),
            (ACL_INT8, 1),
            (ACL_INT32, 4),
            (ACL_UINT8, 1),
            (ACL_INT16, 2),
            (ACL_UINT16, 2),
            (ACL_UINT32, 4),
            (ACL_INT64, 8),
            (ACL_UINT64, 8),
            (ACL_DOUBLE, 8),
            (ACL_BOOL, 1),
            (ACL_STRING, 0),
            (ACL_COMPLEX64, 8),
            (ACL_COMPLEX128, 16),
            (ACL_BF16, 2),
            (ACL_INT4, 1),
            (ACL_UINT1, 1),
            (ACL_COMPLEX32, 4),
            (ACL_HIFLOAT8, 1),
            (ACL_FLOAT8_E5M2, 1),
            (ACL_FLOAT8_E4M3FN, 1),
            (ACL_FLOAT8_E8M0, 1),
            (ACL_FLOAT6_E3M2, 8),
            (ACL_FLOAT6_E2M3, 8),
            (ACL_FLOAT4_E2M1, 8),
            (ACL_FLOAT4_E1M2, 8),
        ];
        let group = crate::vendor_consts::GROUPS
            .iter()
            .find(|g| g.c_name == "aclDataType")
            .unwrap();
        assert_eq!(group.members.len(), expected.len());
        for &(dt, size) in expected {
            assert_eq!(data_type_size(dt as i32), size, "data type {dt}");
        }
        for unknown in [5, 14, 15, 18, 26, 28, 31, 32, 42, -2, i32::MAX, i32::MIN] {
            assert_eq!(data_type_size(unknown), 8, "data type {unknown}");
        }
    }
}
