//! The memory limit of a run: sizes as a user writes them (`512M`, `2G`), and the default,
//! a share of what the machine, the control group and `ulimit -v` allow, so that a large
//! run stops with reason `memory` before the system refuses it an allocation.

use super::halt::physical_memory;

/// Reads a size: a number of bytes with an optional unit `K`, `M`, `G` or `T` (powers of
/// 1024, also written `KB`, `KiB`, ...), such as `200M`, `1.5G` or `65536`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "expected a size such as 512M or 2G, found `{text}` (units: K, M, G, T)"
            ))
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("expected a size such as 512M or 2G, found `{text}`"))?;
    let bytes = value * scale as f64;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!(
            "expected a size of at least one byte and below 16 EiB, found `{text}`"
        ));
    }
    Ok(bytes as u64)
}

/// The default memory limit: three quarters of the least of physical memory, the control
/// group's limit and the address-space limit (`ulimit -v`), where the system tells them
/// (`None` when it tells none). The quarter left covers what the resident set does not
/// count against those limits: address space reserved but not touched, the system's own.
pub fn default_max_memory() -> Option<u64> {
    default_max_memory_of().map(|(limit, _)| limit)
}

/// [`default_max_memory`] with what it is three quarters of: `physical memory`, `the
/// control group's limit` or `ulimit -v` (the least, the first named on a tie), so that a
/// run stopped by it can say where the limit came from.
pub fn default_max_memory_of() -> Option<(u64, &'static str)> {
    [
        (physical_memory(), "physical memory"),
        (cgroup_limit(), "the control group's limit"),
        (address_space_limit(), "ulimit -v"),
    ]
    .into_iter()
    .filter_map(|(bytes, what)| bytes.map(|b| (b, what)))
    .min_by_key(|&(bytes, _)| bytes)
    .map(|(bytes, what)| (bytes / 4 * 3, what))
}

/// The memory limit of this process's control group (cgroup v2 `memory.max`; `max` means
/// none).
fn cgroup_limit() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|c| {
            c.lines()
                .find_map(|l| l.strip_prefix("0::"))
                .map(|p| format!("/sys/fs/cgroup{}/memory.max", p.trim_end_matches('/')))
        });
    [own.as_deref(), Some("/sys/fs/cgroup/memory.max")]
        .into_iter()
        .flatten()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .filter_map(|text| text.trim().parse::<u64>().ok())
        .min()
}

/// The soft limit on this process's address space (`RLIMIT_AS`, `ulimit -v`), from
/// `/proc/self/limits`.
pub fn address_space_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max address space"))?;
    line.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_binary_units() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("200M"), Ok(200 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("4 KB"), Ok(4096));
        for bad in [
            "",
            "M",
            "-1G",
            "0",
            "2X",
            "1..5G",
            "nan",
            "inf",
            "99999999999T",
        ] {
            assert!(parse_size(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn the_default_is_below_physical_memory() {
        match (default_max_memory(), physical_memory()) {
            (Some(limit), Some(physical)) => {
                assert!(limit > 0 && limit < physical, "{limit} of {physical}")
            }
            _ => eprintln!("skipped: the system does not tell its memory"),
        }
    }
}
