//! Emulated-device configuration: how many devices, how much memory, which are visible.

use std::env;

/// Environment variable: number of emulated devices (default 1).
pub const ENV_DEVICE_COUNT: &str = "ACLRT_DEVICE_COUNT";
/// Environment variable: memory capacity of each emulated device, in bytes; `K`, `M`, `G`
/// suffixes (powers of 1024) are accepted. Default: [`default_device_memory`].
pub const ENV_DEVICE_MEMORY: &str = "ACLRT_DEVICE_MEMORY";
/// Environment variable the vendor runtime honours: comma list of physical ids made visible,
/// in logical order.
pub const ENV_VISIBLE_DEVICES: &str = "ASCEND_RT_VISIBLE_DEVICES";
/// Environment variable: the CUDA compute capability the devices report, as `major.minor`
/// (default [`DEFAULT_COMPUTE_CAPABILITY`]).
pub const ENV_CUDA_COMPUTE_CAPABILITY: &str = "ACLRT_CUDA_COMPUTE_CAPABILITY";
/// Environment variable: the multiprocessor count the devices report to CUDA (default
/// [`DEFAULT_MULTIPROCESSOR_COUNT`]).
pub const ENV_CUDA_SM_COUNT: &str = "ACLRT_CUDA_SM_COUNT";

/// Environment variable: how streams are run, `pool` (default: a pool of workers runs the
/// streams that are ready) or `threads` (one worker thread per stream); see [`Scheduler`].
pub const ENV_SCHEDULER: &str = "ACLRT_SCHEDULER";

/// How a runtime runs its streams' tasks. Either way each stream runs its tasks strictly in
/// order, one at a time, and a wait on one stream never holds up another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scheduler {
    /// Every stream has its own worker thread, started with its first task.
    Threads,
    /// Streams are queues: a pool of about as many workers as the process may use cores runs
    /// the streams that have work; a stream whose head waits for something not yet done
    /// gives its worker up until it is; workers stuck in long tasks are made up for.
    #[default]
    Pool,
}

impl Scheduler {
    /// The scheduler [`ENV_SCHEDULER`] names; [`Scheduler::Pool`] when it is unset or
    /// names neither.
    pub fn from_env() -> Self {
        Self::parse(&env::var(ENV_SCHEDULER).unwrap_or_default()).unwrap_or_default()
    }

    /// `threads` or `pool` (case and surrounding blanks ignored).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "threads" => Some(Self::Threads),
            "pool" => Some(Self::Pool),
            _ => None,
        }
    }
}

/// The compute capability the devices report to CUDA by default: 8.0.
pub const DEFAULT_COMPUTE_CAPABILITY: (u32, u32) = (8, 0);
/// The multiprocessor count the devices report to CUDA by default.
pub const DEFAULT_MULTIPROCESSOR_COUNT: u32 = 108;

/// The most memory a device gets by default: 32 GiB, the HBM of a common vendor device.
pub const DEFAULT_DEVICE_MEMORY: u64 = 32 << 30;

/// The default memory capacity of each device: the smaller of [`DEFAULT_DEVICE_MEMORY`] and
/// [`host_memory_limit`], so that by default the runtime does not accept allocations the
/// host could not back once they are written.
///
/// Device memory is committed only as it is written, so a program that allocates within this
/// capacity but writes little uses little. Each device gets this capacity; the devices share
/// the host's memory, so with several devices their sum may exceed it. Set
/// [`ENV_DEVICE_MEMORY`] (or [`Config::device_memory`]) for any other size.
pub fn default_device_memory() -> u64 {
    host_memory_limit().map_or(DEFAULT_DEVICE_MEMORY, |limit| {
        limit.min(DEFAULT_DEVICE_MEMORY)
    })
}

/// The memory this process can use: the host's physical memory, lowered to the memory limit
/// of the process's control group (cgroup v2 `memory.max`, or v1 `memory.limit_in_bytes`, of
/// its own group and each ancestor) where one is set. `None` if the host does not say.
pub fn host_memory_limit() -> Option<u64> {
    let physical = physical_memory();
    let cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|groups| cgroup_memory_limit(&groups, |path| std::fs::read_to_string(path).ok()));
    match (physical, cgroup) {
        (Some(p), Some(c)) => Some(p.min(c)),
        (p, c) => p.or(c),
    }
}

/// Physical memory from `sysconf`.
fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf only reads system settings.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    let bytes = u64::try_from(pages)
        .ok()?
        .checked_mul(u64::try_from(page).ok()?)?;
    (bytes > 0).then_some(bytes)
}

/// The lowest memory limit on the path of each group in `proc_cgroup` (the text of
/// `/proc/self/cgroup`), reading limit files through `read`. "max" and unreadable files
/// mean no limit.
fn cgroup_memory_limit(proc_cgroup: &str, read: impl Fn(&str) -> Option<String>) -> Option<u64> {
    let mut lowest: Option<u64> = None;
    for line in proc_cgroup.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_id), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let (root, file) = if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")
        } else {
            continue;
        };
        let mut dir = path.trim_end_matches('/');
        loop {
            let limit = read(&format!("{root}{dir}/{file}"))
                .and_then(|text| text.trim().parse::<u64>().ok());
            if let Some(limit) = limit.filter(|&l| l > 0) {
                lowest = Some(lowest.map_or(limit, |l| l.min(limit)));
            }
            match dir.rfind('/') {
                Some(i) => dir = &dir[..i],
                None => break,
            }
        }
    }
    lowest
}

/// How the emulated device looks. Read at `aclInit` unless set with [`crate::api::configure`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Physical devices present.
    pub device_count: u32,
    /// Capacity of each device's memory, in bytes.
    pub device_memory: u64,
    /// Physical ids visible to the process, in logical order; `None` shows all.
    pub visible_devices: Option<Vec<u32>>,
    /// CUDA compute capability (`major`, `minor`) each device reports.
    pub compute_capability: (u32, u32),
    /// Multiprocessors each device reports to CUDA.
    pub multiprocessor_count: u32,
    /// How streams are run. The default (also of [`Config::default`]) is what
    /// [`ENV_SCHEDULER`] says, so that a whole program or test suite can be switched.
    pub scheduler: Scheduler,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            device_count: 1,
            device_memory: default_device_memory(),
            visible_devices: None,
            compute_capability: DEFAULT_COMPUTE_CAPABILITY,
            multiprocessor_count: DEFAULT_MULTIPROCESSOR_COUNT,
            scheduler: Scheduler::from_env(),
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
        if let Some(cc) = env::var(ENV_CUDA_COMPUTE_CAPABILITY)
            .ok()
            .and_then(|v| parse_capability(&v))
        {
            config.compute_capability = cc;
        }
        if let Some(n) = env::var(ENV_CUDA_SM_COUNT)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|&n: &u32| n > 0)
        {
            config.multiprocessor_count = n;
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

/// `major.minor`, both numbers.
fn parse_capability(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
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
    fn cgroup_limits_take_the_lowest_on_the_path() {
        let files = |path: &str| -> Option<String> {
            match path {
                "/sys/fs/cgroup/memory.max" => Some("max\n".into()),
                "/sys/fs/cgroup/jobs/memory.max" => Some("8589934592\n".into()),
                "/sys/fs/cgroup/jobs/one/memory.max" => Some("max\n".into()),
                "/sys/fs/cgroup/memory/box/memory.limit_in_bytes" => Some("4294967296".into()),
                "/sys/fs/cgroup/memory/memory.limit_in_bytes" => Some("9223372036854771712".into()),
                _ => None,
            }
        };
        assert_eq!(cgroup_memory_limit("0::/jobs/one\n", files), Some(8 << 30));
        assert_eq!(cgroup_memory_limit("0::/\n", files), None);
        assert_eq!(
            cgroup_memory_limit("4:memory:/box\n1:cpu:/\n0::/jobs/one\n", files),
            Some(4 << 30)
        );
        assert_eq!(
            cgroup_memory_limit("4:memory:/\n", files),
            Some(9223372036854771712)
        );
        assert_eq!(
            cgroup_memory_limit("4:cpu,pids:/box\ngarbage\n", files),
            None
        );
    }

    #[test]
    fn default_capacity_fits_the_host() {
        let limit = host_memory_limit().expect("the host reports its memory");
        assert_eq!(default_device_memory(), limit.min(DEFAULT_DEVICE_MEMORY));
        assert_eq!(Config::default().device_memory, default_device_memory());
        // Never more than the physical memory /proc/meminfo reports.
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
        let total_kib: u64 = meminfo
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap();
        assert!(
            limit <= total_kib * 1024 + 4096,
            "{limit} > {total_kib} KiB"
        );
        assert!(default_device_memory() > 0);
    }

    #[test]
    fn capabilities_are_major_dot_minor() {
        assert_eq!(parse_capability("9.0"), Some((9, 0)));
        assert_eq!(parse_capability(" 8.6 "), Some((8, 6)));
        assert_eq!(parse_capability("8"), None);
        assert_eq!(parse_capability("a.b"), None);
    }

    #[test]
    fn schedulers_are_named_threads_or_pool() {
        assert_eq!(Scheduler::parse("threads"), Some(Scheduler::Threads));
        assert_eq!(Scheduler::parse(" Pool\n"), Some(Scheduler::Pool));
        assert_eq!(Scheduler::parse(""), None);
        assert_eq!(Scheduler::parse("fibers"), None);
        assert_eq!(Scheduler::default(), Scheduler::Pool);
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
