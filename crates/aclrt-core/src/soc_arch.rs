//! The NPU architecture of each SoC the vendor's platform configuration describes (its
//! `NpuArch` per SoC name): what `aclrtCheckArchCompatibility` compares, and what
//! `ACL_DEV_ATTR_NPU_ARCH` reports for the SoC the emulated device presents itself as.

/// `(SoC name, NpuArch)`, sorted by name.
pub(crate) const SOC_NPU_ARCH: &[(&str, i64)] = &[
    ("Ascend031", 3004),
    ("Ascend035", 3505),
    ("Ascend035A", 3505),
    ("Ascend035B", 3505),
    ("Ascend310B1", 3002),
    ("Ascend310B2", 3002),
    ("Ascend310B3", 3002),
    ("Ascend310B4", 3002),
    ("Ascend310P1", 2002),
    ("Ascend310P3", 2002),
    ("Ascend310P5", 2002),
    ("Ascend310P7", 2002),
    ("Ascend350_354f", 3510),
    ("Ascend350_355e", 3510),
    ("Ascend910A", 1001),
    ("Ascend910B", 1001),
    ("Ascend910B1", 2201),
    ("Ascend910B2", 2201),
    ("Ascend910B2C", 2201),
    ("Ascend910B3", 2201),
    ("Ascend910B4", 2201),
    ("Ascend910B4-1", 2201),
    ("Ascend910PremiumA", 1001),
    ("Ascend910ProA", 1001),
    ("Ascend910ProB", 1001),
    ("Ascend910_9362", 2201),
    ("Ascend910_9363", 2201),
    ("Ascend910_9372", 2201),
    ("Ascend910_9381", 2201),
    ("Ascend910_9382", 2201),
    ("Ascend910_9391", 2201),
    ("Ascend910_9392", 2201),
    ("Ascend950DT_950x", 3510),
    ("Ascend950DT_950y", 3510),
    ("Ascend950DT_9571", 3510),
    ("Ascend950DT_9572", 3510),
    ("Ascend950DT_9573", 3510),
    ("Ascend950DT_9574", 3510),
    ("Ascend950DT_9575", 3510),
    ("Ascend950DT_9576", 3510),
    ("Ascend950DT_9577", 3510),
    ("Ascend950DT_9578", 3510),
    ("Ascend950DT_9581", 3510),
    ("Ascend950DT_9581x", 3510),
    ("Ascend950DT_9582", 3510),
    ("Ascend950DT_9582x", 3510),
    ("Ascend950DT_9583", 3510),
    ("Ascend950DT_9584", 3510),
    ("Ascend950DT_9585", 3510),
    ("Ascend950DT_9586", 3510),
    ("Ascend950DT_9587", 3510),
    ("Ascend950DT_9588", 3510),
    ("Ascend950DT_9591", 3510),
    ("Ascend950DT_9592", 3510),
    ("Ascend950DT_9595", 3510),
    ("Ascend950DT_9596", 3510),
    ("Ascend950DT_95A1", 3510),
    ("Ascend950DT_95A2", 3510),
    ("Ascend950PR_950z", 3510),
    ("Ascend950PR_9579", 3510),
    ("Ascend950PR_957b", 3510),
    ("Ascend950PR_957bx", 3510),
    ("Ascend950PR_957c", 3510),
    ("Ascend950PR_957d", 3510),
    ("Ascend950PR_9589", 3510),
    ("Ascend950PR_958b", 3510),
    ("Ascend950PR_9599", 3510),
    ("Kirin9030", 3113),
    ("KirinDev0000", 5101),
    ("KirinDev0001", 5161),
    ("KirinDev0002", 5165),
    ("KirinDev0003", 5163),
    ("KirinX90", 3003),
];

/// The NPU architecture of SoC `name`, if the table knows it.
pub(crate) fn npu_arch(name: &str) -> Option<i64> {
    SOC_NPU_ARCH
        .binary_search_by(|(n, _)| n.cmp(&name))
        .ok()
        .map(|i| SOC_NPU_ARCH[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_knows_the_emulated_chip() {
        assert!(SOC_NPU_ARCH.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(npu_arch("Ascend910B3"), Some(2201));
        assert_eq!(npu_arch("Ascend910B4"), Some(2201));
        assert_eq!(npu_arch("Ascend310P3"), Some(2002));
        assert_eq!(npu_arch("Ascend9999"), None);
    }
}
