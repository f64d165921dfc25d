//! db_bench's mixgraph: the model of a production RocksDB workload from
//! "Characterizing, Modeling, and Benchmarking RocksDB Key-Value Workloads
//! at Facebook" (Cao et al., FAST'20). Every parameter has db_bench's name,
//! default and meaning (tools/db_bench_tool.cc, `MixGraph`), and one random
//! number per operation is turned into its type, key, value size and scan
//! length by db_bench's own arithmetic:
//!
//! - the type: db_bench's QueryDecider over the get/put/seek ratios;
//! - the key: uniform, or the power model (key_dist_a/b), or, with both
//!   key_dist and the key-range parameters, a key range drawn by its
//!   two-term exponential hotness (keyrange_dist_a..d over keyrange_num
//!   ranges, shuffled by a Mersenne Twister seeded as db_bench seeds it, so
//!   the same ranges are hot) and a key in it by the power model;
//! - value sizes and scan lengths: generalized Pareto inversions, clamped
//!   and wrapped as db_bench does (mix_max_value_size, mix_max_scan_len);
//! - the arrival rate: sine_a * sin(sine_b * t + sine_c) + sine_d ops/s,
//!   set every sine_mix_rate_interval_milliseconds (`SineSchedule`).
//!
//! Where rumbench differs, on purpose: db_bench maps a key's power-model seed
//! to a key by seeding a Mersenne Twister per operation (about 1 us); rumbench
//! hashes the seed (mix64), so the distribution of accesses over keys and
//! ranges is the same but which keys of a range are hot differs. db_bench's
//! power model without key ranges casts that number to a signed integer, so
//! about half its keys fall outside the key space (reads miss); rumbench's
//! stay inside. db_bench runs its first sine interval unthrottled (its rate
//! limiter starts at 1M ops/s); rumbench paces from the first operation.

use serde::{Deserialize, Serialize};

use super::rng::mix64;

/// The mixgraph parameters, by db_bench's flag names, with its defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MixgraphParams {
    /// The named parameter set these started from, if any (`PRESETS`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    pub mix_get_ratio: f64,
    pub mix_put_ratio: f64,
    pub mix_seek_ratio: f64,
    /// The power model of key accesses, f(x) = a * x^b (0: uniform keys).
    pub key_dist_a: f64,
    pub key_dist_b: f64,
    /// Key-range hotness, f(x) = a*exp(b*x) + c*exp(d*x) over keyrange_num ranges.
    pub keyrange_dist_a: f64,
    pub keyrange_dist_b: f64,
    pub keyrange_dist_c: f64,
    pub keyrange_dist_d: f64,
    pub keyrange_num: u64,
    /// Value sizes: generalized Pareto (theta, k, sigma).
    pub value_theta: f64,
    pub value_k: f64,
    pub value_sigma: f64,
    /// Scan lengths: generalized Pareto (theta, k, sigma).
    pub iter_theta: f64,
    pub iter_k: f64,
    pub iter_sigma: f64,
    pub mix_max_value_size: u64,
    pub mix_max_scan_len: u64,
    /// Pace the operations at the sine rate (otherwise a closed loop).
    pub sine_mix_rate: bool,
    pub sine_a: f64,
    pub sine_b: f64,
    pub sine_c: f64,
    pub sine_d: f64,
    pub sine_mix_rate_interval_milliseconds: u64,
    pub sine_mix_rate_noise: f64,
}

impl Default for MixgraphParams {
    fn default() -> Self {
        MixgraphParams {
            preset: None,
            mix_get_ratio: 1.0,
            mix_put_ratio: 0.0,
            mix_seek_ratio: 0.0,
            key_dist_a: 0.0,
            key_dist_b: 0.0,
            keyrange_dist_a: 0.0,
            keyrange_dist_b: 0.0,
            keyrange_dist_c: 0.0,
            keyrange_dist_d: 0.0,
            keyrange_num: 1,
            value_theta: 0.0,
            value_k: 0.2615,
            value_sigma: 25.45,
            iter_theta: 0.0,
            iter_k: 2.517,
            iter_sigma: 14.236,
            mix_max_value_size: 1024,
            mix_max_scan_len: 10000,
            sine_mix_rate: false,
            sine_a: 1.0,
            sine_b: 1.0,
            sine_c: 0.0,
            sine_d: 1.0,
            sine_mix_rate_interval_milliseconds: 10000,
            sine_mix_rate_noise: 0.0,
        }
    }
}

/// The published parameter sets, by name: (name, what it is, its settings).
/// From the paper's models as RocksDB's documentation gives them (PR 5953's
/// example command and the db_bench defaults fitted to the paper): the
/// operation mix 85% get, 14% put, 1% seek; value sizes and scan lengths of
/// the paper's fits (db_bench's defaults); keys uniform (all_random), by the
/// power model (all_dist), or by key-range hotness over 30 ranges and the
/// power model within each (prefix_dist); the sine rate of that command
/// (sine_a 350, sine_b 0.0105, sine_d 50000 ops/s) given, but used only with
/// sine_mix_rate=true, as in db_bench.
pub const PRESETS: &[(&str, &str, &str)] = &[
    (
        "all_random",
        "uniform keys; the paper's op mix, value sizes and scan lengths",
        "mix_get_ratio=0.85,mix_put_ratio=0.14,mix_seek_ratio=0.01,value_k=0.2615,value_sigma=25.45,iter_k=2.517,iter_sigma=14.236,sine_a=350,sine_b=0.0105,sine_d=50000,sine_mix_rate_interval_milliseconds=5000",
    ),
    (
        "all_dist",
        "keys by the paper's power model (key_dist_a=0.002312, key_dist_b=0.3467)",
        "mix_get_ratio=0.85,mix_put_ratio=0.14,mix_seek_ratio=0.01,key_dist_a=0.002312,key_dist_b=0.3467,value_k=0.2615,value_sigma=25.45,iter_k=2.517,iter_sigma=14.236,sine_a=350,sine_b=0.0105,sine_d=50000,sine_mix_rate_interval_milliseconds=5000",
    ),
    (
        "prefix_dist",
        "30 key ranges of the paper's two-term exponential hotness, the power model within each",
        "mix_get_ratio=0.85,mix_put_ratio=0.14,mix_seek_ratio=0.01,key_dist_a=0.002312,key_dist_b=0.3467,keyrange_dist_a=14.18,keyrange_dist_b=-2.917,keyrange_dist_c=0.0164,keyrange_dist_d=-0.08082,keyrange_num=30,value_k=0.2615,value_sigma=25.45,iter_k=2.517,iter_sigma=14.236,sine_a=350,sine_b=0.0105,sine_d=50000,sine_mix_rate_interval_milliseconds=5000",
    ),
];

impl MixgraphParams {
    /// Parse `preset=NAME,KEY=VALUE,...` (db_bench's flag names) over the
    /// defaults: the preset first wherever it is written, then each setting
    /// in order (a later one wins).
    pub fn parse(text: &str) -> Result<MixgraphParams, String> {
        let mut p = MixgraphParams::default();
        let pairs: Vec<(&str, &str)> = text
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| {
                t.split_once('=')
                    .map(|(k, v)| (k.trim(), v.trim()))
                    .ok_or_else(|| format!("mixgraph setting '{t}' is not KEY=VALUE"))
            })
            .collect::<Result<_, _>>()?;
        for (k, v) in pairs.iter().filter(|(k, _)| *k == "preset") {
            let (_, _, settings) = PRESETS.iter().find(|(name, _, _)| name == v).ok_or_else(|| {
                let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
                format!("unknown mixgraph {k} '{v}' (valid: {})", names.join(", "))
            })?;
            for pair in settings.split(',') {
                let (k, v) = pair.split_once('=').expect("presets are KEY=VALUE");
                p.set(k, v)?;
            }
            p.preset = Some(v.to_string());
        }
        for (k, v) in pairs.iter().filter(|(k, _)| *k != "preset") {
            p.set(k, v)?;
        }
        Ok(p)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let float = |v: &str| -> Result<f64, String> {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("mixgraph {key} must be a number, got '{v}'"))
        };
        let int = |v: &str| -> Result<u64, String> {
            v.parse::<u64>().map_err(|_| format!("mixgraph {key} must be a whole number, got '{v}'"))
        };
        match key {
            "mix_get_ratio" => self.mix_get_ratio = float(value)?,
            "mix_put_ratio" => self.mix_put_ratio = float(value)?,
            "mix_seek_ratio" => self.mix_seek_ratio = float(value)?,
            "key_dist_a" => self.key_dist_a = float(value)?,
            "key_dist_b" => self.key_dist_b = float(value)?,
            "keyrange_dist_a" => self.keyrange_dist_a = float(value)?,
            "keyrange_dist_b" => self.keyrange_dist_b = float(value)?,
            "keyrange_dist_c" => self.keyrange_dist_c = float(value)?,
            "keyrange_dist_d" => self.keyrange_dist_d = float(value)?,
            "keyrange_num" => self.keyrange_num = int(value)?,
            "value_theta" => self.value_theta = float(value)?,
            "value_k" => self.value_k = float(value)?,
            "value_sigma" => self.value_sigma = float(value)?,
            "iter_theta" => self.iter_theta = float(value)?,
            "iter_k" => self.iter_k = float(value)?,
            "iter_sigma" => self.iter_sigma = float(value)?,
            "mix_max_value_size" => self.mix_max_value_size = int(value)?,
            "mix_max_scan_len" => self.mix_max_scan_len = int(value)?,
            "sine_mix_rate" => {
                self.sine_mix_rate = match value {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    _ => return Err(format!("mixgraph sine_mix_rate must be true or false, got '{value}'")),
                }
            }
            "sine_a" => self.sine_a = float(value)?,
            "sine_b" => self.sine_b = float(value)?,
            "sine_c" => self.sine_c = float(value)?,
            "sine_d" => self.sine_d = float(value)?,
            "sine_mix_rate_interval_milliseconds" => self.sine_mix_rate_interval_milliseconds = int(value)?,
            "sine_mix_rate_noise" => self.sine_mix_rate_noise = float(value)?,
            _ => {
                return Err(format!(
                    "unknown mixgraph setting '{key}' (db_bench's names: mix_get_ratio, mix_put_ratio, mix_seek_ratio, key_dist_a/b, keyrange_dist_a..d, keyrange_num, value_theta/k/sigma, iter_theta/k/sigma, mix_max_value_size, mix_max_scan_len, sine_mix_rate, sine_a..d, sine_mix_rate_interval_milliseconds, sine_mix_rate_noise; or preset)"
                ))
            }
        }
        Ok(())
    }

    /// The settings as name=value, in parse's syntax (a result records them so).
    pub fn to_text(&self) -> String {
        let d = MixgraphParams::default();
        let mut out: Vec<String> = Vec::new();
        if let Some(p) = &self.preset {
            out.push(format!("preset={p}"));
        }
        let mut base = d.clone();
        if let Some(p) = &self.preset {
            base = MixgraphParams::parse(&format!("preset={p}")).unwrap_or(d);
        }
        macro_rules! diff {
            ($($f:ident),*) => {$(
                if self.$f != base.$f { out.push(format!("{}={}", stringify!($f), self.$f)); }
            )*};
        }
        diff!(
            mix_get_ratio,
            mix_put_ratio,
            mix_seek_ratio,
            key_dist_a,
            key_dist_b,
            keyrange_dist_a,
            keyrange_dist_b,
            keyrange_dist_c,
            keyrange_dist_d,
            keyrange_num,
            value_theta,
            value_k,
            value_sigma,
            iter_theta,
            iter_k,
            iter_sigma,
            mix_max_value_size,
            mix_max_scan_len,
            sine_mix_rate,
            sine_a,
            sine_b,
            sine_c,
            sine_d,
            sine_mix_rate_interval_milliseconds,
            sine_mix_rate_noise
        );
        if out.is_empty() {
            "defaults".into()
        } else {
            out.join(",")
        }
    }

    /// Whether keys follow the key-range model: as in db_bench, only when the
    /// power model is given too (with key_dist_a or _b at 0 it draws keys
    /// uniformly and ignores the key ranges).
    pub fn uses_key_ranges(&self) -> bool {
        self.uses_power_model()
            && [self.keyrange_dist_a, self.keyrange_dist_b, self.keyrange_dist_c, self.keyrange_dist_d]
                .iter()
                .any(|&x| x != 0.0)
    }

    pub fn uses_power_model(&self) -> bool {
        self.key_dist_a != 0.0 && self.key_dist_b != 0.0
    }

    /// The sine rate at `t` seconds (ops/s over all clients), before noise.
    pub fn sine_rate(&self, t: f64) -> f64 {
        self.sine_a * (self.sine_b * t + self.sine_c).sin() + self.sine_d
    }

    /// What would make the model fail or divide by zero, for `num` keys.
    pub fn check(&self, num: u64) -> Result<(), String> {
        let ratios = [self.mix_get_ratio, self.mix_put_ratio, self.mix_seek_ratio];
        // A sum that overflows (1e308 each) makes every share 0: no query could be drawn.
        let sum: f64 = ratios.iter().sum();
        if ratios.iter().any(|&r| r < 0.0 || !r.is_finite()) || sum <= 0.0 || !sum.is_finite() {
            return Err(format!(
                "mixgraph ratios must be at least 0 with a positive sum, got get {} put {} seek {}",
                self.mix_get_ratio, self.mix_put_ratio, self.mix_seek_ratio
            ));
        }
        if self.keyrange_num == 0 || self.keyrange_num > num {
            return Err(format!(
                "mixgraph keyrange_num must be between 1 and --num ({num}), got {}",
                self.keyrange_num
            ));
        }
        if self.uses_power_model() && self.key_dist_a < 0.0 {
            return Err(format!("mixgraph key_dist_a must be positive, got {}", self.key_dist_a));
        }
        if self.uses_key_ranges() {
            KeyRanges::new(self, num)?;
        }
        // The generalized Pareto draws of value sizes and scan lengths need a positive scale.
        for (name, sigma, k, theta) in [
            ("value", self.value_sigma, self.value_k, self.value_theta),
            ("iter", self.iter_sigma, self.iter_k, self.iter_theta),
        ] {
            if !(sigma > 0.0 && sigma.is_finite()) {
                return Err(format!("mixgraph {name}_sigma must be a positive number, got {sigma}"));
            }
            if !k.is_finite() || !theta.is_finite() {
                return Err(format!("mixgraph {name}_k and {name}_theta must be numbers, got {k} and {theta}"));
            }
        }
        if self.mix_max_value_size == 0 || self.mix_max_value_size > MAX_VALUE {
            return Err(format!(
                "mixgraph mix_max_value_size must be between 1 and {MAX_VALUE} (db_bench's limit), got {}",
                self.mix_max_value_size
            ));
        }
        if self.mix_max_scan_len == 0 || self.mix_max_scan_len > MAX_SCAN {
            return Err(format!(
                "mixgraph mix_max_scan_len must be between 1 and {MAX_SCAN}, got {}",
                self.mix_max_scan_len
            ));
        }
        if self.sine_mix_rate {
            if self.sine_mix_rate_interval_milliseconds == 0 {
                return Err("mixgraph sine_mix_rate_interval_milliseconds must be at least 1".into());
            }
            if !(0.0..=1.0).contains(&self.sine_mix_rate_noise) {
                return Err(format!(
                    "mixgraph sine_mix_rate_noise must be between 0 and 1, got {}",
                    self.sine_mix_rate_noise
                ));
            }
            let r0 = self.sine_rate(0.0);
            if r0 < 1.0 {
                return Err(format!(
                    "mixgraph's sine rate at the start is {r0:.3} ops/s (sine_a*sin(sine_c)+sine_d): at least 1 op/s is needed to pace by it"
                ));
            }
            // The sine's trough, where it has one: a negative rate is no rate to pace by.
            let low = if self.sine_b != 0.0 { self.sine_d - self.sine_a.abs() } else { r0 };
            if !low.is_finite() || low < 1.0 {
                return Err(format!(
                    "mixgraph's sine rate falls to {low:.3} ops/s (sine_d - |sine_a|): it must stay at least 1 op/s to pace by it"
                ));
            }
        }
        Ok(())
    }
}

/// db_bench caps value sizes at 1 MiB (its value buffer).
pub const MAX_VALUE: u64 = 1 << 20;
/// Scans of at most a million entries, as every scan rumbench makes.
pub const MAX_SCAN: u64 = 1_000_000;

/// std::mt19937_64: what db_bench's Random64 is. Used once per step to
/// shuffle the key ranges as db_bench does.
pub struct Mt19937_64 {
    mt: [u64; 312],
    index: usize,
}

impl Mt19937_64 {
    pub fn new(seed: u64) -> Self {
        let mut mt = [0u64; 312];
        mt[0] = seed;
        for i in 1..312 {
            mt[i] = 6_364_136_223_846_793_005u64.wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 62)).wrapping_add(i as u64);
        }
        Mt19937_64 { mt, index: 312 }
    }

    #[allow(clippy::should_implement_trait, reason = "an endless generator, named as the C++ it mirrors")]
    pub fn next(&mut self) -> u64 {
        const UPPER: u64 = 0xFFFF_FFFF_8000_0000;
        const LOWER: u64 = 0x7FFF_FFFF;
        if self.index >= 312 {
            for i in 0..312 {
                let x = (self.mt[i] & UPPER) | (self.mt[(i + 1) % 312] & LOWER);
                let mut xa = x >> 1;
                if x & 1 != 0 {
                    xa ^= 0xB502_6F5A_A966_19E9;
                }
                self.mt[i] = self.mt[(i + 156) % 312] ^ xa;
            }
            self.index = 0;
        }
        let mut x = self.mt[self.index];
        self.index += 1;
        x ^= (x >> 29) & 0x5555_5555_5555_5555;
        x ^= (x << 17) & 0x71D6_7FFF_EDA6_0000;
        x ^= (x << 37) & 0xFFF7_EEE0_0000_0000;
        x ^ (x >> 43)
    }
}

/// db_bench's ParetoCdfInversion: the generalized Pareto quantile at `u`, rounded up.
pub fn pareto_inverse(u: f64, theta: f64, k: f64, sigma: f64) -> i64 {
    let x = if k == 0.0 { theta - sigma * u.ln() } else { theta + sigma * (u.powf(-k) - 1.0) / k };
    // `as` saturates (+inf at u = 0 becomes i64::MAX, which db_bench leaves undefined).
    x.ceil() as i64
}

/// db_bench's PowerCdfInversion: the inverse of y = a * x^b at `u`, rounded up.
pub fn power_inverse(u: f64, a: f64, b: f64) -> i64 {
    (u / a).powf(1.0 / b).ceil() as i64
}

/// The operation types, in db_bench's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    Get = 0,
    Put = 1,
    Seek = 2,
}

impl Query {
    pub const ALL: [Query; 3] = [Query::Get, Query::Put, Query::Seek];
    pub fn name(self) -> &'static str {
        match self {
            Query::Get => "get",
            Query::Put => "put",
            Query::Seek => "seek",
        }
    }
}

/// db_bench's QueryDecider: each ratio becomes ceil(1000 * share) slots.
#[derive(Debug, Clone)]
struct QueryDecider {
    bounds: [u64; 3],
    range: u64,
}

impl QueryDecider {
    fn new(ratios: [f64; 3]) -> Self {
        let sum: f64 = ratios.iter().sum();
        let mut bounds = [0u64; 3];
        let mut range = 0u64;
        for (b, r) in bounds.iter_mut().zip(ratios) {
            range += (1000.0 * (r / sum)).ceil() as u64;
            *b = range;
        }
        QueryDecider { bounds, range }
    }

    #[inline]
    fn query(&self, rand: u64) -> Query {
        let pos = rand % self.range;
        Query::ALL[self.bounds.iter().position(|&b| pos < b).unwrap_or(0)]
    }
}

/// One key range of the key-range model: where its share of the random
/// numbers starts and how many it has.
#[derive(Debug, Clone, Copy, PartialEq)]
struct KeyRangeUnit {
    start: i64,
    access: i64,
}

/// db_bench's GenerateTwoTermExpKeys.
#[derive(Debug, Clone)]
pub struct KeyRanges {
    units: Vec<KeyRangeUnit>,
    rand_max: i64,
    size: u64,
}

impl KeyRanges {
    pub fn new(p: &MixgraphParams, num: u64) -> Result<KeyRanges, String> {
        let count = p.keyrange_num.max(1);
        let size = num / count;
        let mut amplify: i64 = 0;
        let mut start: i64 = 0;
        let mut units = Vec::with_capacity(count as usize);
        for pfx in (1..=count).rev() {
            let x = pfx as f64;
            let mut prob =
                p.keyrange_dist_a * (p.keyrange_dist_b * x).exp() + p.keyrange_dist_c * (p.keyrange_dist_d * x).exp();
            if prob < 1e-16 {
                prob = 0.0;
            }
            if amplify == 0 && prob > 0.0 {
                amplify = (1.0 / prob).floor() as i64 + 1;
            }
            let access = if prob <= 0.0 { 0 } else { (amplify as f64 * prob).floor() as i64 };
            units.push(KeyRangeUnit { start, access });
            start = start.checked_add(access).ok_or("mixgraph keyrange_dist_*: the ranges' hotness overflows")?;
        }
        if start <= 0 {
            return Err(format!(
                "mixgraph keyrange_dist_a..d give every one of the {count} key ranges a hotness of 0 (db_bench would divide by zero)"
            ));
        }
        // Shuffled as db_bench does, so that the same ranges are hot.
        let mut rng = Mt19937_64::new(start as u64);
        for i in 0..count as usize {
            let pos = (rng.next() % count) as usize;
            units.swap(i, pos);
        }
        let mut offset = 0;
        for u in &mut units {
            u.start = offset;
            offset += u.access;
        }
        Ok(KeyRanges { units, rand_max: start, size })
    }

    /// The range a random number selects (db_bench's binary search).
    #[inline]
    fn range_of(&self, ini_rand: u64) -> usize {
        let r = (ini_rand % self.rand_max as u64) as i64;
        let (mut lo, mut hi) = (0usize, self.units.len());
        while lo + 1 < hi {
            let mid = lo + (hi - lo) / 2;
            if r < self.units[mid].start {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        lo
    }

    /// Each range's share of accesses, as the model gives it.
    pub fn shares(&self) -> Vec<f64> {
        self.units.iter().map(|u| u.access as f64 / self.rand_max as f64).collect()
    }

    pub fn keys_per_range(&self) -> u64 {
        self.size
    }
}

/// One operation of the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Draw {
    pub query: Query,
    /// The key's index in 0..num.
    pub key: u64,
    /// Put: the value's size; seek: the scan's length (entries after the seek).
    pub size: u64,
}

/// The model of one step: turns a random number into an operation.
#[derive(Debug, Clone)]
pub struct Mixgraph {
    p: MixgraphParams,
    num: u64,
    decider: QueryDecider,
    ranges: Option<KeyRanges>,
    power: bool,
    value_max: u64,
}

impl Mixgraph {
    pub fn new(p: &MixgraphParams, num: u64) -> Result<Mixgraph, String> {
        p.check(num)?;
        Ok(Mixgraph {
            p: p.clone(),
            num,
            decider: QueryDecider::new([p.mix_get_ratio, p.mix_put_ratio, p.mix_seek_ratio]),
            ranges: if p.uses_key_ranges() { Some(KeyRanges::new(p, num)?) } else { None },
            power: p.uses_power_model(),
            value_max: p.mix_max_value_size.min(MAX_VALUE),
        })
    }

    pub fn key_ranges(&self) -> Option<&KeyRanges> {
        self.ranges.as_ref()
    }

    /// The operation random number `r` makes (db_bench draws one per operation).
    #[inline]
    pub fn draw(&self, r: u64) -> Draw {
        let ini_rand = r % self.num;
        let u = ini_rand as f64 / self.num as f64;
        let key = match (&self.ranges, self.power) {
            (_, false) => ini_rand,
            (Some(kr), true) => {
                let range = kr.range_of(ini_rand) as u64;
                let size = kr.size;
                let uu = (ini_rand % size) as f64 / size as f64;
                let seed = power_inverse(uu, self.p.key_dist_a, self.p.key_dist_b);
                size * range + mix64(seed as u64) % size
            }
            (None, true) => {
                let seed = power_inverse(u, self.p.key_dist_a, self.p.key_dist_b);
                mix64(seed as u64) % self.num
            }
        };
        let query = self.decider.query(ini_rand);
        let size = match query {
            Query::Get => 0,
            Query::Put => {
                let v = pareto_inverse(u, self.p.value_theta, self.p.value_k, self.p.value_sigma);
                if v < 10 {
                    10
                } else if v as u64 > self.value_max {
                    v as u64 % self.value_max
                } else {
                    v as u64
                }
            }
            Query::Seek => {
                pareto_inverse(u, self.p.iter_theta, self.p.iter_k, self.p.iter_sigma).max(0) as u64
                    % self.p.mix_max_scan_len
            }
        };
        Draw { query, key, size }
    }

    /// The largest value a put can write: db_bench's smallest, 10 bytes,
    /// even under a smaller mix_max_value_size.
    pub fn value_max(&self) -> u64 {
        self.value_max.max(10)
    }
}

/// The sine arrival rate as a schedule of intended starts for one of
/// `threads` clients: the rate is set at the start of every interval of
/// sine_mix_rate_interval_milliseconds from the sine at that moment (plus
/// db_bench's noise), each client taking an equal share; a rate at or below
/// zero keeps the one before, as db_bench's rate limiter does.
#[derive(Debug, Clone)]
pub struct SineSchedule {
    p: MixgraphParams,
    threads: f64,
    interval_ns: f64,
    next_ns: f64,
    current: Option<u64>,
    gap_ns: f64,
    noise: super::rng::Rng,
}

impl SineSchedule {
    pub fn new(p: &MixgraphParams, threads: u64, noise_seed: u64) -> SineSchedule {
        SineSchedule {
            p: p.clone(),
            threads: threads.max(1) as f64,
            interval_ns: p.sine_mix_rate_interval_milliseconds as f64 * 1e6,
            next_ns: 0.0,
            current: None,
            gap_ns: f64::INFINITY,
            noise: super::rng::Rng::new(noise_seed),
        }
    }

    /// The rate (ops/s over all clients) set at the start of `interval`.
    pub fn interval_rate(&mut self, interval: u64) -> f64 {
        let t = interval as f64 * self.interval_ns / 1e9;
        let rate = self.p.sine_rate(t);
        let noise = self.p.sine_mix_rate_noise;
        let band = self.p.sine_a as i64;
        if noise > 0.0 && band > 0 {
            let delta = (self.noise.below(band as u64) as i64 - band / 2) as f64 * noise;
            if rate + delta >= 0.0 {
                return rate + delta;
            }
        }
        rate
    }

    /// The next operation's intended start, ns since the step started.
    pub fn next_intended(&mut self) -> u64 {
        let t = self.next_ns;
        let interval = (t / self.interval_ns) as u64;
        if self.current != Some(interval) {
            self.current = Some(interval);
            let rate = self.interval_rate(interval);
            if rate > 0.0 {
                self.gap_ns = 1e9 * self.threads / rate;
            }
        }
        self.next_ns += self.gap_ns;
        t as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::Rng;

    #[test]
    fn mersenne_twister_is_the_standard_one() {
        // The C++ standard's check: the 10000th output of a default-seeded std::mt19937_64.
        let mut mt = Mt19937_64::new(5489);
        let mut x = 0;
        for _ in 0..10_000 {
            x = mt.next();
        }
        assert_eq!(x, 9_981_545_732_273_789_042);
    }

    #[test]
    fn presets_parse_and_settings_override_them() {
        for (name, _, _) in PRESETS {
            let p = MixgraphParams::parse(&format!("preset={name}")).unwrap();
            assert_eq!(p.preset.as_deref(), Some(*name));
            p.check(1_000_000).unwrap();
        }
        let p = MixgraphParams::parse("mix_get_ratio=0.5,preset=prefix_dist").unwrap();
        assert_eq!(p.mix_get_ratio, 0.5, "a setting wins over the preset wherever it is written");
        assert_eq!(p.keyrange_num, 30);
        assert!(p.uses_key_ranges());
        assert_eq!(MixgraphParams::parse(&p.to_text()).unwrap(), p, "to_text round-trips");
        assert_eq!(MixgraphParams::default().to_text(), "defaults");
        for bad in ["preset=nope", "mix_get_ratio", "foo=1", "keyrange_num=-1", "sine_mix_rate=yes", "value_k=nan"] {
            assert!(MixgraphParams::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn refuses_what_would_divide_by_zero() {
        let check = |t: &str| MixgraphParams::parse(t).unwrap().check(1000);
        assert!(check("mix_get_ratio=0").is_err());
        assert!(check("keyrange_num=2000").is_err());
        assert!(check("key_dist_a=0.1,key_dist_b=0.3,keyrange_dist_a=1e-30,keyrange_num=5").is_err());
        assert!(check("mix_max_scan_len=0").is_err());
        assert!(check("sine_mix_rate=true,sine_d=0,sine_a=0").is_err());
        assert!(check("sine_mix_rate=true,sine_d=100").is_ok());
        // Ratios whose sum overflows left no share to any query (a panic of a client once).
        let e = check("mix_get_ratio=1e308,mix_put_ratio=1e308,mix_seek_ratio=1e308").unwrap_err();
        assert!(e.contains("mixgraph ratios"), "{e}");
        assert!(check("value_sigma=-3").unwrap_err().contains("value_sigma must be a positive number"));
        assert!(check("iter_sigma=0").unwrap_err().contains("iter_sigma"));
        // A sine that dips below zero (a target of -534 ops/s once).
        let e = check("sine_mix_rate=true,sine_a=1000,sine_b=0.1,sine_d=466").unwrap_err();
        assert!(e.contains("falls to -534.000 ops/s"), "{e}");
        assert!(check("sine_mix_rate=true,sine_a=100,sine_b=0.1,sine_d=466").is_ok());
        // Key ranges without the power model are ignored, as db_bench ignores them.
        assert!(!MixgraphParams::parse("keyrange_dist_a=1,keyrange_num=5").unwrap().uses_key_ranges());
    }

    #[test]
    fn query_decider_is_db_benchs() {
        // 0.85/0.14/0.01 of 1000 slots: 850, 140, 10.
        let d = QueryDecider::new([0.85, 0.14, 0.01]);
        assert_eq!((d.bounds, d.range), ([850, 990, 1000], 1000));
        assert_eq!(d.query(849), Query::Get);
        assert_eq!(d.query(850), Query::Put);
        assert_eq!(d.query(1999), Query::Seek);
        // Shares that do not divide 1000 round up, each: 334 * 3 slots.
        let d = QueryDecider::new([1.0, 1.0, 1.0]);
        assert_eq!((d.bounds, d.range), ([334, 668, 1002], 1002));
    }

    #[test]
    fn inversions_match_db_benchs_formulas() {
        assert_eq!(pareto_inverse(1.0, 0.0, 0.2615, 25.45), 0);
        // theta + sigma * (u^-k - 1) / k at u = 0.5, rounded up.
        let expect = (25.45 * (0.5f64.powf(-0.2615) - 1.0) / 0.2615).ceil() as i64;
        assert_eq!(pareto_inverse(0.5, 0.0, 0.2615, 25.45), expect);
        assert_eq!(pareto_inverse(0.5, 0.0, 0.0, 10.0), (10.0 * 2f64.ln()).ceil() as i64);
        assert_eq!(pareto_inverse(0.0, 0.0, 0.2615, 25.45), i64::MAX);
        assert_eq!(power_inverse(0.5, 0.5, 1.0), 1);
        assert_eq!(power_inverse(0.002312, 0.002312, 0.3467), 1);
    }

    /// The model's value sizes against the generalized Pareto it samples
    /// (clamped below at 10 and wrapped at the maximum, as db_bench does).
    #[test]
    fn value_sizes_follow_the_pareto_model() {
        let p = MixgraphParams::parse("preset=all_random,mix_get_ratio=0,mix_seek_ratio=0").unwrap();
        let m = Mixgraph::new(&p, 10_000_000).unwrap();
        let mut rng = Rng::new(1);
        let n = 400_000;
        let sizes: Vec<u64> = (0..n).map(|_| m.draw(rng.next_u64())).map(|d| d.size).collect();
        let mean = sizes.iter().sum::<u64>() as f64 / n as f64;
        // The mean by integration of the same transform over u in (0, 1).
        let steps = 2_000_000;
        let exact: f64 = (0..steps)
            .map(|i| {
                let u = (i as f64 + 0.5) / steps as f64;
                let v = pareto_inverse(u, 0.0, 0.2615, 25.45);
                (if v < 10 {
                    10
                } else if v > 1024 {
                    v % 1024
                } else {
                    v
                }) as f64
            })
            .sum::<f64>()
            / steps as f64;
        assert!((mean / exact - 1.0).abs() < 0.01, "mean value size {mean:.2}, model {exact:.2}");
        assert!((30.0..40.0).contains(&mean), "about 35 bytes (db_bench's mixgraph with these parameters), got {mean}");
    }

    #[test]
    fn the_op_mix_is_the_ratios() {
        let p = MixgraphParams::parse("preset=all_dist").unwrap();
        let m = Mixgraph::new(&p, 5_000_000).unwrap();
        let mut rng = Rng::new(2);
        let mut counts = [0u64; 3];
        let n = 1_000_000;
        for _ in 0..n {
            counts[m.draw(rng.next_u64()).query as usize] += 1;
        }
        for (c, want) in counts.iter().zip([0.85, 0.14, 0.01]) {
            assert!((*c as f64 / n as f64 - want).abs() < 0.003, "{counts:?}");
        }
    }

    /// The key-range model's accesses per range match the hotness it was
    /// built from, and the hottest range is the one db_bench's shuffle puts
    /// there.
    #[test]
    fn key_ranges_get_their_share_of_accesses() {
        let p = MixgraphParams::parse("preset=prefix_dist").unwrap();
        let num = 3_000_000;
        let m = Mixgraph::new(&p, num).unwrap();
        let kr = m.key_ranges().unwrap();
        let shares = kr.shares();
        assert_eq!(shares.len(), 30);
        assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        let mut counts = vec![0u64; 30];
        let mut rng = Rng::new(3);
        let n = 1_000_000;
        for _ in 0..n {
            let d = m.draw(rng.next_u64());
            counts[(d.key / kr.keys_per_range()) as usize] += 1;
        }
        for (i, (c, s)) in counts.iter().zip(&shares).enumerate() {
            assert!((*c as f64 / n as f64 - s).abs() < 0.003, "range {i}: {} against {s}", *c as f64 / n as f64);
        }
        // The two-term exponential puts most accesses in one range (x = 1: 14.18 e^-2.917 = 0.77 of the sum's scale).
        let hottest = shares.iter().cloned().fold(0.0, f64::max);
        assert!(hottest > 0.5, "{shares:?}");
    }

    #[test]
    fn the_sine_schedule_paces_each_interval_at_its_rate() {
        // 1000 + 500 sin(t): 1000 ops/s at t=0 over 2 clients, 500 per client.
        let p = MixgraphParams::parse(
            "sine_mix_rate=true,sine_a=500,sine_b=1,sine_d=1000,sine_mix_rate_interval_milliseconds=1000",
        )
        .unwrap();
        let mut s = SineSchedule::new(&p, 2, 0);
        let first: Vec<u64> = (0..3).map(|_| s.next_intended()).collect();
        assert_eq!(first, vec![0, 2_000_000, 4_000_000]);
        // In the second interval (t = 1 s) the rate is 1000 + 500 sin(1) = 1420.7.
        let mut t = 0;
        while t < 1_000_000_000 {
            t = s.next_intended();
        }
        let gap = s.next_intended() - t;
        let want = 1e9 * 2.0 / p.sine_rate(1.0);
        assert!((gap as f64 - want).abs() < 2.0, "gap {gap} ns, want {want:.0}");
        // A rate at or below zero keeps the one before.
        let p = MixgraphParams::parse(
            "sine_mix_rate=true,sine_a=2000,sine_b=1.5707963,sine_d=1000,sine_mix_rate_interval_milliseconds=1000",
        )
        .unwrap();
        let mut s = SineSchedule::new(&p, 1, 0);
        assert_eq!(s.interval_rate(0), 1000.0 + 2000.0 * 0.0f64.sin());
        assert!(p.sine_rate(3.0) < 0.0);
        let mut t = 0;
        while t < 3_000_000_000 {
            t = s.next_intended();
        }
        let gap = s.next_intended() - t;
        let want = 1e9 / p.sine_rate(2.0);
        assert!((gap as f64 - want).abs() < 2.0, "interval 3 keeps interval 2's gap: {gap} ns, want {want:.0}");
    }
}
