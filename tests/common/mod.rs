//! Synthetic results with known figures, for the report tests: every number
//! is chosen, so renderings are deterministic and differences are known.
#![allow(dead_code, reason = "each test module uses a part of the helpers")]

pub mod cli;
pub mod fetched;
pub mod fs;
pub mod procs;

use std::path::Path;

use rumbench::measure::step_metrics::{IoMetrics, MemoryPoint, StepMetrics, SyncMetrics};
use rumbench::measure::{IntervalStats, LatencySummary};
use rumbench::plan::Settings;
use rumbench::planner::SettingsArgs;
use rumbench::report::Exporter;
use rumbench::result::{ConfigResult, OpResult, ReadCounts, RunResult, Status, StepResult, WriterResult};

pub fn settings() -> Settings {
    rumbench::planner::resolve_settings(&SettingsArgs::default()).unwrap()
}

/// A latency summary scaled from a p50.
pub fn latency(count: u64, p50: f64, p99: f64, max: f64) -> LatencySummary {
    LatencySummary {
        count,
        mean_us: p50 * 1.2,
        min_us: p50 / 4.0,
        p50_us: p50,
        p90_us: p50 * 2.0,
        p99_us: p99,
        p999_us: p99 * 3.0,
        p9999_us: p99 * 10.0,
        max_us: max,
    }
}

/// One step: per-second op counts `rates` (one interval per entry, all full
/// seconds), per-second p99 and max from the given closures.
pub struct StepSpec {
    pub name: &'static str,
    pub op: &'static str,
    pub rates: Vec<u64>,
    pub p99: Vec<f64>,
    pub max: Vec<f64>,
    pub p50_us: f64,
    pub write_amp: Option<f64>,
    pub cpu_us_op: f64,
    pub rss_mb: u64,
    pub durable: Option<bool>,
    pub writer: Option<(f64, f64)>, // (target, achieved)
    pub not_found_pct: Option<u64>,
}

impl StepSpec {
    pub fn new(name: &'static str, op: &'static str, rates: Vec<u64>) -> StepSpec {
        let n = rates.len();
        StepSpec {
            name,
            op,
            rates,
            p99: vec![20.0; n],
            max: vec![500.0; n],
            p50_us: 5.0,
            write_amp: None,
            cpu_us_op: 4.0,
            rss_mb: 64,
            durable: None,
            writer: None,
            not_found_pct: None,
        }
    }
    pub fn steady(name: &'static str, op: &'static str, rate: u64, seconds: usize) -> StepSpec {
        StepSpec::new(name, op, vec![rate; seconds])
    }
    pub fn p99(mut self, v: Vec<f64>) -> Self {
        self.p99 = v;
        self
    }
    pub fn max(mut self, v: Vec<f64>) -> Self {
        self.max = v;
        self
    }
    pub fn p50(mut self, v: f64) -> Self {
        self.p50_us = v;
        self
    }
    pub fn write_amp(mut self, v: f64) -> Self {
        self.write_amp = Some(v);
        self
    }
    pub fn cpu(mut self, v: f64) -> Self {
        self.cpu_us_op = v;
        self
    }
    pub fn rss(mut self, mb: u64) -> Self {
        self.rss_mb = mb;
        self
    }
    pub fn durable(mut self, d: bool) -> Self {
        self.durable = Some(d);
        self
    }
    pub fn writer(mut self, target: f64, achieved: f64) -> Self {
        self.writer = Some((target, achieved));
        self
    }
    pub fn not_found(mut self, pct: u64) -> Self {
        self.not_found_pct = Some(pct);
        self
    }

    pub fn build(&self) -> StepResult {
        let n = self.rates.len();
        let ops: u64 = self.rates.iter().sum();
        let wall_s = n as f64;
        let ops_s = ops as f64 / wall_s;
        let intervals: Vec<IntervalStats> = (0..n)
            .map(|i| IntervalStats {
                index: i as u32,
                ops: self.rates[i],
                p99_us: self.p99[i],
                max_us: self.max[i],
                histogram: None,
            })
            .collect();
        let p99 = self.p99.iter().cloned().fold(0.0, f64::max);
        let max = self.max.iter().cloned().fold(0.0, f64::max);
        let mut settings = settings();
        settings.seconds = Some(wall_s);
        let writes = self.op == "put";
        let memory: Vec<MemoryPoint> = (0..=n)
            .map(|i| MemoryPoint {
                t_s: i as f64,
                rss_bytes: (self.rss_mb * 1048576) * (i as u64 + 4) / (n as u64 + 4),
                vsz_bytes: self.rss_mb * 4 * 1048576,
            })
            .collect();
        let metrics = StepMetrics {
            io: Some(IoMetrics {
                devices: vec!["vda".into()],
                rpq: (!writes).then_some(0.25),
                wkbpi: writes.then(|| self.write_amp.unwrap_or(1.0) * 0.113),
                ..Default::default()
            }),
            write_amp: if writes { self.write_amp } else { None },
            dirty_pages_synced: writes,
            logical_bytes_written: if writes { ops * 116 } else { 0 },
            db_size_bytes: Some(100 * 1048576),
            live_keys: Some(400_000),
            logical_live_bytes: Some(400_000 * 116),
            space_amp: Some(100.0 * 1048576.0 / (400_000.0 * 116.0)),
            client_cpu_us_op: Some(self.cpu_us_op),
            host_cpu_us_op: Some(self.cpu_us_op * 2.0),
            rss_peak_bytes: Some(self.rss_mb * 1048576),
            vsz_peak_bytes: Some(self.rss_mb * 4 * 1048576),
            rss_end_bytes: Some(self.rss_mb * 1048576),
            memory,
            syncs: self.durable.map(|d| SyncMetrics {
                fsync: if d { ops } else { 0 },
                commits: ops,
                syncs_per_commit: Some(if d { 1.0 } else { 0.0 }),
                durable_as_run: Some(d),
                ..Default::default()
            }),
            ..Default::default()
        };
        let writer = self.writer.map(|(target, achieved)| {
            let w_ops = (achieved * wall_s) as u64;
            WriterResult {
                target_ops_s: Some(target),
                achieved_ops_s: achieved,
                ops: w_ops,
                missed_target: achieved < target * 0.95,
                latency: OpResult {
                    op: "put".into(),
                    ops: w_ops,
                    latency: latency(w_ops, 30.0, 900.0, 20_000.0),
                    intervals: (0..n)
                        .map(|i| IntervalStats {
                            index: i as u32,
                            ops: achieved as u64,
                            p99_us: 900.0,
                            max_us: 5000.0 + 1000.0 * i as f64,
                            histogram: None,
                        })
                        .collect(),
                    outcomes: None,
                    histogram: None,
                },
                service_time: latency(w_ops, 25.0, 300.0, 9_000.0),
                deletes: None,
            }
        });
        let mut warnings = Vec::new();
        if self.durable == Some(false) {
            warnings.push(format!("not durable as run: 0 sync calls for {ops} commits (0.0000 per commit)"));
        }
        if let Some((t, a)) = self.writer {
            if a < t * 0.95 {
                warnings.push(format!("background writer missed its rate: {a:.0} of {t:.0} ops/s"));
            }
        }
        StepResult {
            name: self.name.into(),
            status: Status::Completed,
            error: None,
            settings,
            parameters: Default::default(),
            started_at: "2025-03-01T10:00:00+00:00".into(),
            wall_s: Some(wall_s),
            ops,
            ops_s: Some(ops_s),
            mb_s: Some(ops_s * 116.0 / 1048576.0),
            ops_by_type: vec![OpResult {
                op: self.op.into(),
                ops,
                latency: latency(ops, self.p50_us, p99, max),
                intervals,
                outcomes: None,
                histogram: None,
            }],
            reads: self.not_found_pct.map(|p| ReadCounts { found: ops * (100 - p) / 100, not_found: ops * p / 100 }),
            writer,
            engine_write_amp: None,
            engine_write_amp_cumulative: None,
            metrics,
            engine_stats: Vec::new(),
            timed_out: false,
            notes: Vec::new(),
            warnings,
            ibench: None,
            rates: None,
            ceilings: None,
            start: None,
            profile: None,
            write_debt: None,
            mixgraph: None,
            slo: None,
            internals: None,
            trace: None,
            replay: None,
            kind: None,
            sweep_of: None,
            duet: None,
            window: None,
        }
    }
}

pub fn config(name: &str, engine: &str, version: &str, steps: &[StepSpec]) -> ConfigResult {
    ConfigResult {
        name: name.into(),
        engine: engine.into(),
        engine_version: Some(version.into()),
        allocator: Default::default(),
        allocator_in_use: Some("glibc malloc 2.36".into()),
        options: Default::default(),
        effective_options: Vec::new(),
        provenance: Vec::new(),
        db_dir: "/tmp/db".into(),
        status: Status::Completed,
        error: None,
        steps: steps.iter().map(StepSpec::build).collect(),
        engine_stats: Vec::new(),
        server_config: Vec::new(),
        notes: Vec::new(),
        scaling: Vec::new(),
        sweep: Vec::new(),
        repeat: None,
        duet: None,
    }
}

pub fn run(started_at: &str, configs: Vec<ConfigResult>) -> RunResult {
    let mut warnings = vec!["turbo/boost is on: results vary with temperature and load".to_string()];
    for c in &configs {
        for s in &c.steps {
            warnings.extend(s.warnings.iter().map(|w| format!("{} {}: {w}", c.name, s.name)));
        }
    }
    RunResult {
        schema: rumbench::result::SCHEMA.into(),
        rumbench_version: "0.1.0".into(),
        git_commit: Some("0123456789abcdef".into()),
        build: Vec::new(),
        command_line: vec!["rumbench".into(), "run".into(), "-e".into(), "synthetic".into()],
        started_at: started_at.into(),
        finished_at: Some(started_at.into()),
        status: Status::Completed,
        error: None,
        suite: None,
        mode: Default::default(),
        settings: settings(),
        system: Some(serde_json::json!({
            "cpu_model": {"value": "Synthetic CPU @ 2.0GHz"},
            "logical_cpus": {"value": 2},
            "kernel_release": {"value": "6.1.0"},
            "governor": {"unavailable": "no cpufreq"},
            "hostname": {"value": "testhost"}
        })),
        warnings,
        rounds: Vec::new(),
        configs,
        crashtest: None,
        device: None,
        sharding: None,
        merged: None,
        adaptive: None,
        duet: None,
    }
}

/// Write a run's result.json into `dir` (created).
pub fn save(run: &RunResult, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let text = rumbench::report::json::Json.render(run).unwrap();
    std::fs::write(dir.join("result.json"), text).unwrap();
}

/// The sample used by the snapshot and browser tests: three engines, a load
/// with a write stall, reads, and a paced writer one engine cannot hold.
pub fn sample_run(started_at: &str, scale: f64) -> RunResult {
    let s = |v: u64| (v as f64 * scale) as u64;
    // A sawtooth with a stall in second 6 (rocksdb-like), a flat line (lmdb), a slow one (sqlite).
    let saw: Vec<u64> = vec![
        s(150_000),
        s(140_000),
        s(120_000),
        s(150_000),
        s(135_000),
        s(2_000),
        s(150_000),
        s(138_000),
        s(121_000),
        s(149_000),
    ];
    let saw_max = vec![800.0, 1200.0, 3000.0, 900.0, 1500.0, 950_000.0, 700.0, 1100.0, 2800.0, 850.0];
    run(
        started_at,
        vec![
            config(
                "rocksdb",
                "rocksdb",
                "7.8.3",
                &[
                    StepSpec::new("fillrandom", "put", saw.clone())
                        .max(saw_max.clone())
                        .write_amp(3.2)
                        .cpu(6.0)
                        .rss(80)
                        .durable(false),
                    StepSpec::steady("readrandom", "get", s(200_000), 10).p50(3.5).cpu(4.5).rss(90).not_found(37),
                    StepSpec::steady("readwhilewriting", "get", s(110_000), 10)
                        .p50(4.0)
                        .cpu(7.0)
                        .rss(95)
                        .writer(18_000.0, 18_000.0)
                        .durable(false),
                ],
            ),
            config(
                "lmdb",
                "lmdb",
                "0.9.70",
                &[
                    StepSpec::steady("fillrandom", "put", s(200_000), 10)
                        .write_amp(0.4)
                        .cpu(3.9)
                        .rss(52)
                        .durable(false),
                    StepSpec::steady("readrandom", "get", s(1_300_000), 10)
                        .p50(0.6)
                        .p99(vec![1.0; 10])
                        .cpu(0.6)
                        .rss(53)
                        .not_found(37),
                    StepSpec::steady("readwhilewriting", "get", s(850_000), 10)
                        .p50(0.65)
                        .cpu(1.2)
                        .rss(68)
                        .writer(18_000.0, 18_000.0)
                        .durable(false),
                ],
            ),
            config(
                "sqlite",
                "sqlite",
                "3.50.2",
                &[
                    StepSpec::steady("fillrandom", "put", s(25_000), 10)
                        .p50(7.0)
                        .write_amp(10.2)
                        .cpu(16.0)
                        .rss(31)
                        .durable(true),
                    StepSpec::steady("readrandom", "get", s(316_000), 10).p50(2.3).cpu(2.5).rss(33).not_found(37),
                    StepSpec::steady("readwhilewriting", "get", s(122_000), 10)
                        .p50(3.1)
                        .cpu(5.3)
                        .rss(49)
                        .writer(18_000.0, 13_200.0)
                        .durable(true),
                ],
            ),
        ],
    )
}

/// Compare text with a stored snapshot under tests/snapshots/. Set
/// UPDATE_SNAPSHOTS=1 to rewrite them after an intended change.
pub fn assert_snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() || !path.exists() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        eprintln!("wrote snapshot {}", path.display());
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "snapshot {name} differs at line {}:\n expected: {:?}\n   actual: {:?}\n(rerun with UPDATE_SNAPSHOTS=1 to accept; full output:\n{actual})",
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}
