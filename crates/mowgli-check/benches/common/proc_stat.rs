//! CPU times from `/proc/self/stat` (Linux), shared by the benchmarks: the machine
//! is shared, so a benchmark reports CPU time beside wall time. 0 where the file
//! cannot be read.

/// The clock-tick fields of `/proc/self/stat` after the process name (field 3, the
/// state, is index 0) summed, in seconds (100 ticks a second).
fn ticks_seconds(indices: [usize; 2]) -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    indices.iter().map(|&i| ticks(i)).sum::<f64>() / 100.0
}

/// CPU time (user + system) of this process so far (fields 14 and 15, utime and stime).
#[allow(dead_code)]
pub fn cpu_seconds() -> f64 {
    ticks_seconds([11, 12])
}

/// CPU time (user + system) of this process's waited-for children so far (fields
/// 16 and 17, cutime and cstime).
#[allow(dead_code)]
pub fn children_cpu_seconds() -> f64 {
    ticks_seconds([13, 14])
}
