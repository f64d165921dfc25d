//! CPU profiles of the steps' timed windows (`--profile`): perf samples
//! (cpu-clock) of the config process and everything it starts, cut by each
//! step's window into folded stacks, kept gzipped in the run directory and
//! referenced from result.json by a small `StepProfile`. Each sample is
//! 1/hz s of a thread's CPU, so a frame's samples over the step's
//! operations are its CPU per operation.

pub mod fold;
pub mod perf;

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

pub use fold::{Role, Window};

/// The sampling rate when none is given: a prime (no lockstep with
/// periodic work), low enough to stay within 2% of what a step measures
/// (at 499, PostgreSQL's l.i1 lost 4% of its rows per second:
/// docs/profiles.md, "What looking costs").
pub const DEFAULT_HZ: u32 = 99;

/// Fewer samples than this in a step, and its profile says too little to
/// name where the CPU went (a 1% function would hold about one sample).
pub const MIN_SAMPLES: u64 = 100;

/// A step's profile, as result.json references it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepProfile {
    /// The folded stacks (gzip), relative to the run directory.
    pub file: String,
    /// Samples per second of a thread's CPU.
    pub hz: u32,
    pub samples: u64,
    /// The step's operations (clients' and background writers'): the per-op divisor.
    pub ops: u64,
    /// How stacks were unwound (perf's --call-graph).
    pub unwinding: String,
    /// What perf's events were attached to: `per-cpu` or `per-thread`
    /// (`perf::Scope`; absent in results from before it was kept: per-thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<perf::Scope>,
    /// Samples by role (client, engine-foreground, engine-background, server).
    pub by_role: BTreeMap<fold::Role, u64>,
}

impl StepProfile {
    /// The CPU of one sample in µs per operation.
    pub fn us_per_sample_op(&self) -> Option<f64> {
        (self.ops > 0 && self.hz > 0).then(|| 1e6 / self.hz as f64 / self.ops as f64)
    }

    /// The whole step's sampled CPU per operation (µs).
    pub fn cpu_us_per_op(&self) -> Option<f64> {
        self.us_per_sample_op().map(|u| u * self.samples as f64)
    }

    /// Why this profile cannot say where the CPU went, if it cannot.
    pub fn too_few_samples(&self) -> Option<String> {
        (self.samples < MIN_SAMPLES).then(|| {
            format!(
                "the profile has {} samples (at least {MIN_SAMPLES} are needed to say where the CPU went): run the step longer or raise --profile-hz",
                self.samples
            )
        })
    }
}

/// Folded stacks: `role;root;...;leaf` and their samples, most first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Folded {
    pub stacks: Vec<(String, u64)>,
}

impl Folded {
    pub fn from_map(map: HashMap<String, u64>) -> Folded {
        let mut stacks: Vec<(String, u64)> = map.into_iter().collect();
        stacks.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Folded { stacks }
    }

    pub fn samples(&self) -> u64 {
        self.stacks.iter().map(|(_, n)| n).sum()
    }

    /// Samples by the role of each stack's root frame (a root that names
    /// no role, in a folded file edited by hand, counts for none).
    pub fn by_role(&self) -> BTreeMap<fold::Role, u64> {
        let mut m = BTreeMap::new();
        for (stack, n) in &self.stacks {
            if let Some(role) = fold::Role::from_name(stack.split(';').next().unwrap_or("")) {
                *m.entry(role).or_insert(0) += n;
            }
        }
        m
    }

    /// Write as gzipped folded text (`stack count` lines, as flame graph tools read).
    pub fn write_gz(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
        let mut gz = flate2::write::GzEncoder::new(std::io::BufWriter::new(file), flate2::Compression::default());
        for (stack, n) in &self.stacks {
            writeln!(gz, "{stack} {n}")?;
        }
        gz.finish()?.flush()?;
        Ok(())
    }

    pub fn read_gz(path: &Path) -> Result<Folded> {
        let file = std::fs::File::open(path).with_context(|| format!("cannot read the profile {}", path.display()))?;
        let mut map = HashMap::new();
        for line in std::io::BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
            let line = line.with_context(|| format!("reading {}", path.display()))?;
            if let Some((stack, n)) = line.rsplit_once(' ') {
                *map.entry(stack.to_string()).or_insert(0) +=
                    n.parse::<u64>().with_context(|| format!("a bad line in {}: {line}", path.display()))?;
            }
        }
        Ok(Folded::from_map(map))
    }
}

/// A function's CPU per operation in one role.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionCost {
    pub role: Role,
    /// `library!function`.
    pub frame: String,
    /// In the function itself (it was the sample's leaf).
    pub self_us_op: f64,
    /// In it and what it called (it was anywhere on the stack, counted once).
    pub total_us_op: f64,
}

impl FunctionCost {
    pub fn library(&self) -> &str {
        self.frame.split_once('!').map(|(l, _)| l).unwrap_or("")
    }
}

/// The frames of a folded stack after its role (and a thread name in brackets).
fn frames_of(stack: &str) -> (Option<Role>, Vec<&str>) {
    let mut parts = stack.split(';');
    let role = parts.next().and_then(Role::from_name);
    (role, parts.filter(|f| !(f.starts_with('[') && f.ends_with(']'))).collect())
}

/// Every function's CPU per operation by role, most inclusive first.
/// `us_per_sample`: the µs per op of one sample (see `StepProfile`).
pub fn function_costs(folded: &Folded, us_per_sample: f64) -> Vec<FunctionCost> {
    let mut by: HashMap<(Role, &str), (u64, u64)> = HashMap::new();
    for (stack, n) in &folded.stacks {
        let (Some(role), frames) = frames_of(stack) else { continue };
        let mut seen: Vec<&str> = Vec::with_capacity(frames.len());
        for f in &frames {
            if !seen.contains(f) {
                seen.push(f);
                by.entry((role, f)).or_default().1 += n;
            }
        }
        if let Some(leaf) = frames.last() {
            by.entry((role, leaf)).or_default().0 += n;
        }
    }
    let mut v: Vec<FunctionCost> = by
        .into_iter()
        .map(|((role, frame), (own, total))| FunctionCost {
            role,
            frame: frame.to_string(),
            self_us_op: own as f64 * us_per_sample,
            total_us_op: total as f64 * us_per_sample,
        })
        .collect();
    v.sort_by(|a, b| {
        b.self_us_op
            .total_cmp(&a.self_us_op)
            .then_with(|| b.total_us_op.total_cmp(&a.total_us_op))
            .then_with(|| a.frame.cmp(&b.frame))
    });
    v
}

/// CPU per operation by role and library (of the leaf frame: where the
/// CPU was spent), most first.
pub fn library_costs(folded: &Folded, us_per_sample: f64) -> Vec<(Role, String, f64)> {
    let mut by: HashMap<(Role, String), u64> = HashMap::new();
    for (stack, n) in &folded.stacks {
        let (Some(role), frames) = frames_of(stack) else { continue };
        let lib = frames.last().and_then(|f| f.split_once('!')).map(|(l, _)| l).unwrap_or("unknown");
        *by.entry((role, lib.to_string())).or_default() += n;
    }
    let mut v: Vec<(Role, String, f64)> = by.into_iter().map(|((r, l), n)| (r, l, n as f64 * us_per_sample)).collect();
    v.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
    v
}

/// Load a step's folded stacks from its run directory.
pub fn load(run_dir: &Path, p: &StepProfile) -> Result<Folded> {
    Folded::read_gz(&run_dir.join(&p.file))
}

/// Functions' self CPU per op (keyed `role;library!function`) of one profile.
pub fn self_costs(folded: &Folded, us_per_sample: f64) -> HashMap<String, f64> {
    function_costs(folded, us_per_sample)
        .into_iter()
        .filter(|f| f.self_us_op > 0.0)
        .map(|f| (format!("{};{}", f.role.name(), f.frame), f.self_us_op))
        .collect()
}

/// Each folded stack's CPU per op (µs), keyed by the stack as folded
/// (`role;frame;...`): what a differential flame graph draws.
pub fn stack_costs(folded: &Folded, us_per_sample: f64) -> HashMap<String, f64> {
    folded.stacks.iter().map(|(stack, n)| (stack.clone(), *n as f64 * us_per_sample)).collect()
}

/// One function's change between two sides of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionChange {
    /// `role;library!function`.
    pub key: String,
    pub base_us_op: f64,
    pub new_us_op: f64,
    /// As a share of the step's whole difference (None when that is zero).
    pub share: Option<f64>,
    /// Whether the difference is beyond what either side's repeats vary by
    /// (None with one run a side: not tested).
    pub beyond_repeats: Option<bool>,
}

impl FunctionChange {
    pub fn diff(&self) -> f64 {
        self.new_us_op - self.base_us_op
    }
}

/// The functions whose self CPU per op changed most between two sides,
/// each side its repeats' profiles (self costs per function of each repeat).
/// A side's value is the mean over its repeats (a function missing from a
/// repeat costs 0 there). With two or more repeats on both sides, a
/// function's difference counts as beyond the noise when it exceeds the
/// wider of the two sides' ranges (max - min over the repeats) of that
/// function; with fewer, it is not tested.
pub fn changes(base: &[HashMap<String, f64>], new: &[HashMap<String, f64>], top: usize) -> Vec<FunctionChange> {
    let keys: std::collections::BTreeSet<&String> = base.iter().chain(new).flat_map(|m| m.keys()).collect();
    let values = |side: &[HashMap<String, f64>], k: &String| {
        side.iter().map(|m| m.get(k).copied().unwrap_or(0.0)).collect::<Vec<f64>>()
    };
    let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 };
    let range = |v: &[f64]| v.iter().copied().fold(f64::MIN, f64::max) - v.iter().copied().fold(f64::MAX, f64::min);
    let tested = base.len() >= 2 && new.len() >= 2;
    let total = |side: &[HashMap<String, f64>]| mean(&side.iter().map(|m| m.values().sum::<f64>()).collect::<Vec<_>>());
    let whole = total(new) - total(base);
    let mut v: Vec<FunctionChange> = keys
        .into_iter()
        .map(|k| {
            let (b, n) = (values(base, k), values(new, k));
            let d = mean(&n) - mean(&b);
            FunctionChange {
                key: k.clone(),
                base_us_op: mean(&b),
                new_us_op: mean(&n),
                share: (whole != 0.0).then(|| d / whole),
                beyond_repeats: tested.then(|| d.abs() > range(&b).max(range(&n))),
            }
        })
        .collect();
    v.sort_by(|a, b| b.diff().abs().total_cmp(&a.diff().abs()).then_with(|| a.key.cmp(&b.key)));
    v.truncate(top);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(lines: &[(&str, u64)]) -> Folded {
        Folded::from_map(lines.iter().map(|(s, n)| (s.to_string(), *n)).collect())
    }

    #[test]
    fn self_and_total_cost_per_op() {
        let f = folded(&[
            ("client;rumbench!main;rumbench!work", 30),
            ("engine-foreground;rumbench!main;librocksdb!rocksdb::Get", 70),
        ]);
        // 100 Hz, 1000 ops: a sample is 10 ms / 1000 ops = 10 µs per op.
        let p = StepProfile {
            file: String::new(),
            hz: 100,
            samples: 100,
            ops: 1000,
            unwinding: String::new(),
            scope: None,
            by_role: f.by_role(),
        };
        let u = p.us_per_sample_op().unwrap();
        assert_eq!(p.cpu_us_per_op(), Some(1000.0));
        let costs = function_costs(&f, u);
        let get = costs.iter().find(|c| c.frame == "librocksdb!rocksdb::Get").unwrap();
        assert_eq!((get.role, get.self_us_op, get.total_us_op), (Role::EngineForeground, 700.0, 700.0));
        let main_client = costs.iter().find(|c| c.frame == "rumbench!main" && c.role == Role::Client).unwrap();
        assert_eq!((main_client.self_us_op, main_client.total_us_op), (0.0, 300.0));
        let libs = library_costs(&f, u);
        assert_eq!(libs[0], (Role::EngineForeground, "librocksdb".to_string(), 700.0));
        assert!(p.too_few_samples().is_none());
    }

    #[test]
    fn folded_stacks_survive_the_gzip_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = folded(&[("client;a!x y;a!z", 3), ("server;[postgres];postgres!f", 1)]);
        f.write_gz(&dir.path().join("p/x.folded.gz")).unwrap();
        assert_eq!(Folded::read_gz(&dir.path().join("p/x.folded.gz")).unwrap(), f);
    }

    #[test]
    fn changes_name_the_function_that_moved_beyond_the_repeats() {
        let side = |burn: f64, other: f64| {
            HashMap::from([
                ("engine-foreground;rumbench!burn".to_string(), burn),
                ("client;rumbench!loop".to_string(), other),
            ])
        };
        let base = [side(0.0, 1.0), side(0.0, 1.1)];
        let new = [side(2.0, 1.05), side(2.1, 1.0)];
        let c = changes(&base, &new, 5);
        assert_eq!(c[0].key, "engine-foreground;rumbench!burn");
        assert!(c[0].diff() > 2.0 && c[0].share.unwrap() > 0.9);
        assert_eq!(c[0].beyond_repeats, Some(true));
        assert_eq!(c[1].beyond_repeats, Some(false), "a change within the repeats' range is not named");
        // One run a side: no test.
        assert_eq!(changes(&base[..1], &new[..1], 5)[0].beyond_repeats, None);
    }
}
