//! Where rumbench keeps what it fetched, built or measured once and reuses:
//! `$XDG_CACHE_HOME/rumbench`, else `~/.cache/rumbench` (RocksDB builds in
//! `rocksdb/`, PostgreSQL versions in `postgres/`, the null engine's
//! calibration in `null-spin.json`).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

/// The cache directory, absolute (it is handed to processes that run elsewhere).
pub fn root() -> Result<PathBuf> {
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x),
        None => match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            Some(h) => PathBuf::from(h).join(".cache"),
            None => bail!("neither XDG_CACHE_HOME nor HOME is set: rumbench has no cache directory"),
        },
    };
    let base = std::path::absolute(&base).with_context(|| format!("the cache directory {}", base.display()))?;
    Ok(base.join("rumbench"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_cache_is_under_xdg_cache_home_and_absolute() {
        let root = super::root().unwrap();
        assert!(root.is_absolute() && root.ends_with("rumbench"), "{}", root.display());
    }
}
