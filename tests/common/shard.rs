//! The part of a long test's programs a run takes, from an environment variable
//! `k/n` (shared by `tests/robust.rs` and `tests/rmw_model.rs`).

/// `var=k/n`: the programs whose index is k modulo n; all of them (0, 1) when the
/// variable is unset or malformed.
pub fn shard(var: &str) -> (usize, usize) {
    let v = std::env::var(var).unwrap_or_default();
    let parsed = v.split_once('/').and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
    match parsed {
        Some((k, n)) if n > 0 && k < n => (k, n),
        _ => (0, 1),
    }
}
