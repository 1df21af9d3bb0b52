//! What the benchmark ran on, and how much memory it used, read from `/proc` (Linux).
//!
//! Elsewhere the machine is described as `unknown` and the peak memory is left out.

use std::fs;

/// One line naming the CPU model, the number of logical CPUs and the memory, such as
/// `AMD EPYC, 2 logical CPUs, 23.5 GiB RAM`.
pub fn describe() -> String {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = fs::read_to_string("/proc/meminfo").unwrap_or_default();
    describe_from(&cpuinfo, &meminfo, std::thread::available_parallelism().map_or(0, usize::from))
}

/// [`describe`] from the text of `/proc/cpuinfo` and `/proc/meminfo`; `fallback_cpus` counts
/// CPUs when cpuinfo lists no `processor` lines.
fn describe_from(cpuinfo: &str, meminfo: &str, fallback_cpus: usize) -> String {
    let model = field(cpuinfo, "model name").unwrap_or("unknown CPU");
    let listed = cpuinfo.lines().filter(|line| line.starts_with("processor")).count();
    let cpus = if listed > 0 { listed } else { fallback_cpus };
    let memory = field(meminfo, "MemTotal")
        .and_then(|value| value.trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or_else(|| "unknown RAM".to_owned(), |kib| format!("{:.1} GiB RAM", kib / 1024.0 / 1024.0));
    format!("{model}, {cpus} logical CPUs, {memory}")
}

/// The value of the first `key: value` line.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        (name.trim() == key).then(|| value.trim())
    })
}

/// Starts a new peak-memory window: the kernel forgets the process's earlier peak, so
/// [`peak_rss_mb`] afterwards covers only what ran since. Returns whether that worked.
pub fn reset_peak_rss() -> bool {
    // "5" resets the peak resident set size (Linux 4.0 and later).
    fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The process's peak resident set size in MiB (`VmHWM`), if the system reports it.
pub fn peak_rss_mb() -> Option<f64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let kib: f64 = field(&status, "VmHWM")?.trim_end_matches("kB").trim().parse().ok()?;
    Some(kib / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_model_cpus_and_memory() {
        let cpuinfo = "processor\t: 0\nmodel name\t: AMD EPYC\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\n";
        let meminfo = "MemTotal:       24684084 kB\nMemFree:  1 kB\n";
        assert_eq!(describe_from(cpuinfo, meminfo, 9), "AMD EPYC, 2 logical CPUs, 23.5 GiB RAM");
        assert_eq!(describe_from("", "", 4), "unknown CPU, 4 logical CPUs, unknown RAM");
    }

    #[test]
    fn this_machine_is_described() {
        let text = describe();
        assert!(text.contains("logical CPUs"), "{text}");
    }
}
