//! Tables sized by the user (the hash tables, `USI_Hash`, `MateHash`,
//! `--hash`) are allocated without aborting: a size that cannot be had is
//! an error for the caller to report, and the caller keeps the table it
//! had. Rust's ordinary allocation aborts the process on failure, so a
//! GUI's typo or a memory limit would otherwise kill the engine.

/// A table of about `mib` MiB of `T::default()` (at least one element), or
/// an error naming `what` if the memory cannot be had.
pub fn try_table<T: Default>(mib: usize, what: &str) -> Result<Vec<T>, String> {
    let refuse = || format!("cannot allocate {mib} MiB for the {what}");
    let bytes = mib.checked_mul(1 << 20).ok_or_else(refuse)?;
    if !fits_in_memory(bytes) {
        return Err(format!("{}: more than the free memory", refuse()));
    }
    let count = (bytes / std::mem::size_of::<T>().max(1)).max(1);
    let mut table = Vec::new();
    table.try_reserve_exact(count).map_err(|_| refuse())?;
    // Before the first touch, so that filling the table maps huge pages.
    crate::hints::advise_huge_pages(table.as_ptr(), count * std::mem::size_of::<T>());
    // Filling gigabytes takes seconds: in steps, so that a `quit` read
    // meanwhile is obeyed at once. The first step is always made, so a
    // small table (the 1 MiB that stands in for a refused one) is had
    // even while quitting.
    let step = (FILL_STEP_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    while table.len() < count {
        if !table.is_empty() && fills_abandoned() {
            return Err(format!("{}: interrupted by quit", refuse()));
        }
        let n = step.min(count - table.len());
        table.extend(std::iter::repeat_with(T::default).take(n));
    }
    Ok(table)
}

/// Bytes a table fill or clear does between two looks at `fills_abandoned`.
pub const FILL_STEP_BYTES: usize = 64 << 20;

static ABANDONED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Tells every table fill and clear in progress or to come to stop early:
/// the engine is quitting (the USI reader calls it when it reads `quit`,
/// while the loop may be busy filling the table for `isready`).
pub fn abandon_fills() {
    ABANDONED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether `abandon_fills` was called.
pub fn fills_abandoned() -> bool {
    ABANDONED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether `bytes` fit in the memory still free (Linux; elsewhere assumed
/// to fit). The kernel may grant more address space than there is memory
/// and kill the process when the table is filled, so a size the allocator
/// would accept is refused here first.
pub fn fits_in_memory(bytes: usize) -> bool {
    let Ok(meminfo) = std::fs::read_to_string("/proc/meminfo") else {
        return true;
    };
    let available_kib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok());
    available_kib.is_none_or(|kib| (bytes as u64) / 1024 <= kib)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_that_cannot_be_had_are_errors() {
        let t: Vec<u64> = try_table(1, "test table").unwrap();
        assert_eq!(t.len(), (1 << 20) / 8);
        assert!(try_table::<u64>(usize::MAX / 2, "test table").is_err());
        assert!(try_table::<u64>(1 << 40, "test table").is_err());
    }
}
