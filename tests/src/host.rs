//! What the benchmarks say about the machine they ran on: its load, a file system's type, a
//! process's CPU time, and where a journal is kept so that a sync means a disk write.

use std::path::Path;

/// Clock ticks per second of /proc/*/stat (`getconf CLK_TCK`).
pub const CLK_TCK: f64 = 100.0;

/// The load average (1, 5, 15 minutes): other work on the machine.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The file system type of the mount holding `path` (/proc/self/mounts).
pub fn fs_type(path: &Path) -> String {
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (f.len() > 2 && path.starts_with(f[1])).then(|| (f[1].len(), f[2].to_owned()))
        })
        .max()
        .map_or_else(|| "?".to_owned(), |(_, t)| t)
}

/// User + system seconds of a process or a thread from its stat file.
pub fn cpu_seconds(stat_path: &Path) -> f64 {
    let stat = std::fs::read_to_string(stat_path).unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the command: state is field 3, utime 14, stime 15.
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / CLK_TCK
}

/// The value at quantile `q` of sorted samples (NaN for none).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// A scratch folder for a bench's journal: `KRIEGSPIEL_BENCH_SCRATCH` (e.g. /dev/shm, to
/// tell the disk's share from the rest), else under `target_tmp` (the bench's
/// `CARGO_TARGET_TMPDIR`), on the workspace's disk and never a tmpfs, so that a sync means a
/// disk write.
pub fn scratch_dir(target_tmp: &Path) -> Result<tempfile::TempDir, String> {
    if let Some(dir) = std::env::var_os("KRIEGSPIEL_BENCH_SCRATCH") {
        let dir = tempfile::tempdir_in(dir).map_err(|e| e.to_string())?;
        println!(
            "  scratch: {} ({})",
            dir.path().display(),
            fs_type(dir.path())
        );
        return Ok(dir);
    }
    let dir = tempfile::tempdir_in(target_tmp).map_err(|e| e.to_string())?;
    match fs_type(dir.path()).as_str() {
        "tmpfs" => Err(format!("{} is on a tmpfs", dir.path().display())),
        _ => Ok(dir),
    }
}
