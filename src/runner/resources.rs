//! No option can make a run take memory or disk the machine does not have:
//! every config's claims (its engine's caches and buffers, a started
//! server's buffer settings, a file sized at creation) checked before
//! anything starts against the memory the machine can still give and the
//! free space of the config's data filesystem. A refusal names the option,
//! the limit, and where the limit comes from.

use std::path::Path;

use anyhow::{bail, Context, Result};

use super::RunOptions;
use crate::engine::{human_size, Claim, EngineOptions, Resource};
use crate::measure::os::capacity;
use crate::plan::{EngineConfig, RunPlan};

/// Refuse a plan whose configs claim more memory or disk than the machine has.
pub fn check(plan: &RunPlan, opts: &RunOptions) -> Result<()> {
    let memory = capacity::memory_available();
    for c in plan.configs.iter().filter(|c| !c.is_target()) {
        let dir = opts.data_dir(c);
        let mut claims = config_claims(c, plan);
        // What the plan adds (a file sized for the run), or why its data dir cannot hold the run.
        let added = crate::backend::find(&c.engine).map_or(Ok(Vec::new()), |spec| (spec.plan_claims)(c, plan, &dir));
        claims.extend(added.as_ref().map_or(&[][..], |a| a.as_slice()).iter().cloned());
        if let Some((available, source)) = &memory {
            check_memory(c, &claims, *available, source)?;
        }
        if let Some(free) = capacity::free_space(&dir) {
            // Files already there (--use-existing-db) hold part of what they claim.
            let held = if dir.exists() { crate::measure::os::space::allocated_bytes(&dir).unwrap_or(0) } else { 0 };
            check_disk(c, &claims, free.saturating_add(held), &dir)?;
        }
        added?;
    }
    // A duet's two configs hold their memory at the same time.
    if let (true, Some((available, source))) = (plan.duet.is_some(), &memory) {
        for pair in plan.configs.chunks(2).filter(|p| p.len() == 2) {
            let (a, b) = (&pair[0], &pair[1]);
            let both: Vec<Claim> = [a, b]
                .iter()
                .flat_map(|c| {
                    config_claims(c, plan).into_iter().map(|mut claim| {
                        claim.what = format!("{}'s {}", c.name, claim.what);
                        claim
                    })
                })
                .collect();
            check_memory(a, &both, *available, source)
                .with_context(|| format!("--duet runs {} beside {}", a.name, b.name))?;
        }
    }
    Ok(())
}

/// Refuse keys and values larger than a config's engine takes (its
/// `size_limits`), before anything starts, naming the limit.
pub fn check_sizes(plan: &RunPlan) -> Result<()> {
    for c in &plan.configs {
        let Ok(spec) = crate::backend::find(&c.engine) else { continue };
        let limits = (spec.size_limits)(&EngineOptions(c.options.clone()));
        for p in &plan.steps {
            let s = &p.settings;
            // What the step stores per key: a db_bench entry, or a YCSB record under its key.
            let (key, value, key_flag, value_flag) = match p.kind {
                k if k.is_ycsb() => (
                    23,
                    s.ycsb.field_count * s.ycsb.field_length,
                    "YCSB's keys (\"user\" and up to 19 digits)",
                    "--field-count x --field-length",
                ),
                k if k.is_contention() || k.is_ibench() => continue,
                _ => (s.key_size, s.value_size, "--key-size", "--value-size"),
            };
            if let Some((max, why)) = limits.max_key.filter(|&(max, _)| key > max) {
                bail!(
                    "config {}: {key_flag} {key} is more than {} takes: keys of at most {max} bytes ({why})",
                    c.name,
                    c.engine
                );
            }
            if let Some((max, why)) = limits.max_value.filter(|&(max, _)| value > max) {
                bail!(
                    "config {}: {value_flag} {value} is more than {} takes: values of at most {max} bytes ({why})",
                    c.name,
                    c.engine
                );
            }
        }
    }
    Ok(())
}

/// What config `c` takes: its engine's options, and a started server's config lines.
fn config_claims(c: &EngineConfig, plan: &RunPlan) -> Vec<Claim> {
    let mut claims = match crate::backend::find(&c.engine) {
        Ok(spec) => (spec.claims)(&EngineOptions(c.options.clone()), super::sessions_opened(plan)),
        Err(_) => Vec::new(),
    };
    if let Some(kind) = crate::server::kind_of(&c.engine) {
        claims.extend(crate::server::memory_claims(kind, &c.applied_server_config()));
    }
    claims
}

fn check_memory(c: &EngineConfig, claims: &[Claim], available: u64, source: &str) -> Result<()> {
    let memory: Vec<&Claim> = claims.iter().filter(|c| c.resource == Resource::Memory && c.bytes > 0).collect();
    if let Some(big) = memory.iter().find(|m| m.bytes > available) {
        bail!(
            "config {}: {} takes {} of memory, more than this machine has: {} available ({source}); lower it",
            c.name,
            big.what,
            human_size(big.bytes),
            human_size(available)
        );
    }
    let total = memory.iter().fold(0u64, |t, m| t.saturating_add(m.bytes));
    if memory.len() > 1 && total > available {
        let parts: Vec<String> = memory.iter().map(|m| format!("{} ({})", m.what, human_size(m.bytes))).collect();
        bail!(
            "config {}: its caches and buffers take {} of memory together, more than this machine has: {} available ({source}); lower one of {}",
            c.name,
            human_size(total),
            human_size(available),
            parts.join(", ")
        );
    }
    Ok(())
}

fn check_disk(c: &EngineConfig, claims: &[Claim], free: u64, dir: &Path) -> Result<()> {
    if let Some(big) = claims.iter().find(|d| d.resource == Resource::Disk && d.bytes > free) {
        bail!(
            "config {}: {} takes {} of disk, more than the data filesystem has: {} free (statvfs of {}); lower it or choose another --db-dir",
            c.name,
            big.what,
            human_size(big.bytes),
            human_size(free),
            crate::measure::os::capacity::existing_ancestor(dir).unwrap_or_else(|| dir.to_path_buf()).display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(engine: &str) -> EngineConfig {
        crate::plan::test_config(engine, engine)
    }

    #[test]
    fn a_claim_beyond_the_machine_is_refused_with_the_limit_and_its_source() {
        let c = config("rocksdb");
        let one = [Claim::memory(30 << 30, "rocksdb.block_cache_size=30G".into())];
        let e = check_memory(&c, &one, 20 << 30, "MemAvailable in /proc/meminfo").unwrap_err().to_string();
        assert!(
            e.contains("rocksdb.block_cache_size=30G takes 30G of memory")
                && e.contains("20G available (MemAvailable in /proc/meminfo)"),
            "{e}"
        );
        // Each fits, together they do not.
        let two = [Claim::memory(12 << 30, "a".into()), Claim::memory(12 << 30, "b".into())];
        let e = check_memory(&c, &two, 20 << 30, "x").unwrap_err().to_string();
        assert!(e.contains("24G of memory together") && e.contains("a (12G), b (12G)"), "{e}");
        assert!(check_memory(&c, &two, 30 << 30, "x").is_ok());
        let disk = [Claim::disk(100 << 40, "splinterdb.disk_size=100T".into())];
        let e = check_disk(&c, &disk, 80 << 30, Path::new("/nonexistent/db")).unwrap_err().to_string();
        assert!(
            e.contains("splinterdb.disk_size=100T takes 100T of disk") && e.contains("80G free (statvfs of /)"),
            "{e}"
        );
    }

    /// Every engine's size options make claims (a size option nobody claims
    /// would be an option that can take the machine down unchecked), but
    /// those its spec says take nothing of their own (a block size).
    #[test]
    fn every_memory_or_disk_size_option_is_claimed() {
        for spec in crate::engine::registry() {
            for o in spec.options.iter().filter(|o| matches!(o.kind, crate::engine::OptKind::Size)) {
                let name = format!("{}.{}", spec.name, o.name);
                if spec.sizes_not_claimed.contains(&o.name) {
                    continue;
                }
                // Set it huge, alone and with every switch of the engine on
                // (LMDB's map is a disk claim only with write_map): some claim must name it.
                let huge = vec![(o.name.to_string(), "100T".to_string())];
                let mut switched = huge.clone();
                switched.extend(
                    spec.options
                        .iter()
                        .filter(|b| matches!(b.kind, crate::engine::OptKind::Bool))
                        .map(|b| (b.name.to_string(), "true".to_string())),
                );
                let claimed = [huge, switched].iter().any(|user| {
                    let options = crate::engine::resolve_options(spec, user).unwrap();
                    (spec.claims)(&options, 3).iter().any(|c| c.what.contains(o.name) && c.bytes >= 100 << 40)
                });
                assert!(claimed, "{name} is not claimed");
            }
            for n in spec.sizes_not_claimed {
                assert!(spec.options.iter().any(|o| o.name == *n), "{}: {n} is not one of its options", spec.name);
            }
        }
    }
}
