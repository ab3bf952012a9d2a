//! Emulated-device configuration: how many devices, how much memory, which are visible.

use std::env;

/// Environment variable: number of emulated devices (default 1).
pub const ENV_DEVICE_COUNT: &str = "ACLRT_DEVICE_COUNT";
/// Environment variable: memory capacity of each emulated device, in bytes; `K`, `M`, `G`
/// suffixes (powers of 1024) are accepted. Default 32 GiB.
pub const ENV_DEVICE_MEMORY: &str = "ACLRT_DEVICE_MEMORY";
/// Environment variable the vendor runtime honours: comma list of physical ids made visible,
/// in logical order.
pub const ENV_VISIBLE_DEVICES: &str = "ASCEND_RT_VISIBLE_DEVICES";

/// Default emulated memory capacity per device.
pub const DEFAULT_DEVICE_MEMORY: u64 = 32 << 30;

/// How the emulated device looks. Read at `aclInit` unless set with [`crate::api::configure`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Physical devices present.
    pub device_count: u32,
    /// Capacity of each device's memory, in bytes.
    pub device_memory: u64,
    /// Physical ids visible to the process, in logical order; `None` shows all.
    pub visible_devices: Option<Vec<u32>>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            device_count: 1,
            device_memory: DEFAULT_DEVICE_MEMORY,
            visible_devices: None,
        }
    }
}

impl Config {
    /// The configuration described by the environment, defaults elsewhere.
    pub fn from_env() -> Self {
        let mut config = Self::default();
        if let Some(n) = env::var(ENV_DEVICE_COUNT)
            .ok()
            .and_then(|v| v.trim().parse().ok())
        {
            config.device_count = n;
        }
        if let Some(bytes) = env::var(ENV_DEVICE_MEMORY)
            .ok()
            .and_then(|v| parse_size(&v))
        {
            config.device_memory = bytes;
        }
        if let Ok(list) = env::var(ENV_VISIBLE_DEVICES) {
            config.visible_devices = Some(parse_visible(&list, config.device_count));
        }
        config
    }

    /// Physical ids in logical order.
    pub(crate) fn logical_to_physical(&self) -> Vec<u32> {
        match &self.visible_devices {
            Some(list) => list
                .iter()
                .copied()
                .take_while(|&id| id < self.device_count)
                .collect(),
            None => (0..self.device_count).collect(),
        }
    }
}

/// Parses `ASCEND_RT_VISIBLE_DEVICES` as the vendor does: ids are read up to the first entry
/// that is not a valid, new, in-range id; the rest of the list is ignored.
fn parse_visible(list: &str, device_count: u32) -> Vec<u32> {
    let mut ids = Vec::new();
    for part in list.split(',') {
        match part.trim().parse::<u32>() {
            Ok(id) if id < device_count && !ids.contains(&id) => ids.push(id),
            _ => break,
        }
    }
    ids
}

fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, shift) = match text.chars().last()? {
        'k' | 'K' => (&text[..text.len() - 1], 10),
        'm' | 'M' => (&text[..text.len() - 1], 20),
        'g' | 'G' => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_devices_stop_at_first_invalid_entry() {
        assert_eq!(parse_visible("1,0", 2), vec![1, 0]);
        assert_eq!(parse_visible("1,x,0", 2), vec![1]);
        assert_eq!(parse_visible("3,0", 2), Vec::<u32>::new());
        assert_eq!(parse_visible("0,0,1", 2), vec![0]);
        assert_eq!(parse_visible("", 2), Vec::<u32>::new());
    }

    #[test]
    fn sizes_accept_binary_suffixes() {
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("2K"), Some(2048));
        assert_eq!(parse_size("3m"), Some(3 << 20));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("lots"), None);
    }
}
