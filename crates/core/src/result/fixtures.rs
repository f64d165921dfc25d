//! Results with chosen figures for the report modules' unit tests (the
//! integration tests have their own, richer ones in tests/common).

use crate::measure::step_metrics::SyncMetrics;
use crate::measure::LatencySummary;
use crate::plan::steps::StepKind;
use crate::plan::{Settings, StepPlan};

use super::{ConfigResult, OpResult, Outcomes, ReadCounts, RunResult, Status, StepResult, WriterResult, SCHEMA};

/// A latency summary scaled from its median.
pub fn latency(count: u64, p50_us: f64) -> LatencySummary {
    LatencySummary {
        count,
        mean_us: p50_us * 1.2,
        min_us: p50_us / 4.0,
        p50_us,
        p90_us: p50_us * 2.0,
        p99_us: p50_us * 4.0,
        p999_us: p50_us * 12.0,
        p9999_us: p50_us * 40.0,
        max_us: p50_us * 300.0,
    }
}

/// One operation type: `ops` operations, of which `not_found` found nothing
/// and `error` failed; `conflict` retried attempts.
pub fn op(name: &str, ops: u64, p50_us: f64, not_found: u64, conflict: u64, error: u64) -> OpResult {
    OpResult {
        op: name.into(),
        ops,
        latency: latency(ops, p50_us),
        intervals: Vec::new(),
        outcomes: Some(Outcomes { ok: ops - not_found - error, not_found, conflict, error }),
        histogram: None,
    }
}

/// A completed step of `kind` over `wall_s` seconds with these operation
/// types (the first is the main one) and some efficiency figures.
pub fn step(kind: StepKind, wall_s: f64, ops: Vec<OpResult>) -> StepResult {
    let mut s = StepResult::new(&StepPlan { kind, settings: Settings::default(), sweep: false });
    s.status = Status::Completed;
    s.started_at = "2025-03-01T10:00:00+00:00".into();
    s.wall_s = Some(wall_s);
    s.ops = ops.iter().map(|o| o.ops).sum();
    s.ops_s = Some(s.ops as f64 / wall_s);
    s.ops_by_type = ops;
    s.metrics.write_amp = Some(2.5);
    s.metrics.client_cpu_us_op = Some(7.25);
    s.metrics.rss_peak_bytes = Some(123 << 20);
    s
}

/// `step`, not durable as run (and warned about, as the runner does).
pub fn not_durable(mut s: StepResult) -> StepResult {
    s.metrics.syncs = Some(SyncMetrics {
        commits: s.ops,
        syncs_per_commit: Some(0.0),
        durable_as_run: Some(false),
        ..Default::default()
    });
    s.warnings.push(format!("not durable as run: 0 sync calls for {} commits (0.0000 per commit)", s.ops));
    s
}

/// `step` with its main operation's found / not found counts as reads.
pub fn with_reads(mut s: StepResult) -> StepResult {
    let not_found = s.main_op().and_then(|o| o.outcomes).map(|o| o.not_found).unwrap_or(0);
    s.reads = Some(ReadCounts { found: s.ops - not_found, not_found });
    s
}

/// `step` with a background writer that missed its target.
pub fn with_missed_writer(mut s: StepResult, target: f64, achieved: f64) -> StepResult {
    let ops = (achieved * s.wall_s.unwrap_or(0.0)) as u64;
    s.writer = Some(WriterResult {
        target_ops_s: Some(target),
        achieved_ops_s: achieved,
        ops,
        missed_target: true,
        latency: op("put", ops, 30.0, 0, 0, 0),
        service_time: latency(ops, 25.0),
        deletes: None,
    });
    s.warnings.push(format!("background writer missed its rate: {achieved:.0} of {target:.0} ops/s"));
    s
}

pub fn config(name: &str, engine: &str, steps: Vec<StepResult>) -> ConfigResult {
    ConfigResult {
        name: name.into(),
        engine: engine.into(),
        engine_version: Some("1.2.3".into()),
        allocator: Default::default(),
        allocator_in_use: None,
        options: Default::default(),
        effective_options: Vec::new(),
        provenance: Vec::new(),
        db_dir: "/tmp/db".into(),
        server_config: Vec::new(),
        status: Status::Completed,
        error: None,
        steps,
        engine_stats: Vec::new(),
        notes: Vec::new(),
        scaling: Vec::new(),
        sweep: Vec::new(),
        repeat: None,
        duet: None,
    }
}

/// A completed run of these configs with one environment warning.
pub fn run(configs: Vec<ConfigResult>) -> RunResult {
    RunResult {
        schema: SCHEMA.into(),
        rumbench_version: "0.1.0".into(),
        git_commit: None,
        build: Vec::new(),
        command_line: vec!["rumbench".into(), "run".into()],
        started_at: "2025-03-01T10:00:00+00:00".into(),
        finished_at: Some("2025-03-01T10:05:00+00:00".into()),
        status: Status::Completed,
        error: None,
        suite: None,
        mode: Default::default(),
        settings: Settings::default(),
        system: None,
        warnings: vec!["turbo/boost is on: results vary with temperature and load".into()],
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

/// A run of `--repeat` rounds: per round, each (name, engine, ops/s of
/// one readrandom step, client CPU us/op), in the order given.
pub fn repeated_run(rounds: &[Vec<(&str, &str, f64, f64)>]) -> RunResult {
    let mut configs = Vec::new();
    for (r, round) in rounds.iter().enumerate() {
        for &(name, engine, ops_s, cpu) in round {
            let mut s = step(StepKind::ReadRandom, 10.0, vec![op("get", (ops_s * 10.0) as u64, 1.0, 0, 0, 0)]);
            s.metrics.client_cpu_us_op = Some(cpu);
            s.metrics.write_amp = None;
            s.metrics.rss_peak_bytes = None;
            let mut c = config(name, engine, vec![s]);
            c.repeat = Some(r as u32 + 1);
            configs.push(c);
        }
    }
    let mut run = run(configs);
    run.rounds = rounds.iter().map(|r| r.iter().map(|c| c.0.to_string()).collect()).collect();
    run
}

/// `run` as if made with `--repeat n`: every config once per round, the
/// same figures each time (paired ratios without spread).
pub fn in_rounds(mut run: RunResult, n: u32) -> RunResult {
    let once = std::mem::take(&mut run.configs);
    for r in 1..=n {
        run.configs.extend(once.iter().cloned().map(|mut c| {
            c.repeat = Some(r);
            c
        }));
    }
    run.rounds = (0..n).map(|_| once.iter().map(|c| c.name.clone()).collect()).collect();
    run
}

/// A run as people make them: long config names that differ only at the
/// end, db_bench steps with notes, YCSB steps mixing operation types (with
/// not-found, conflict and error counts), a failed step, and insert-benchmark
/// steps on a server.
pub fn realistic_run() -> RunResult {
    use StepKind::*;
    let kv_steps = || {
        vec![
            not_durable(step(FillRandom, 10.0, vec![op("put", 1_234_567, 3.1, 0, 0, 0)])),
            with_reads(step(ReadRandom, 10.0, vec![op("get", 9_876_543, 0.9, 3_634_567, 0, 0)])),
            with_missed_writer(
                step(ReadWhileWriting, 10.0, vec![op("get", 5_000_000, 1.4, 0, 0, 0)]),
                18_000.0,
                13_200.0,
            ),
            not_durable(step(YcsbLoad, 4.0, vec![op("INSERT", 1_000_000, 4.6, 0, 0, 0)])),
            not_durable(step(
                YcsbA,
                30.0,
                vec![op("READ", 2_523_456, 2.6, 3, 0, 0), op("UPDATE", 2_522_107, 7.3, 0, 17, 2)],
            )),
            step(YcsbE, 30.0, vec![op("INSERT", 11_234, 28.6, 0, 0, 0), op("SCAN", 213_776, 134.3, 0, 0, 1)]),
            step(
                YcsbF,
                30.0,
                vec![op("READ", 1_500_000, 2.5, 0, 0, 0), op("READ-MODIFY-WRITE", 1_499_000, 11.2, 0, 5, 0)],
            ),
        ]
    };
    let mut failed = step(FwdRangeWhileWriting, 2.0, Vec::new());
    failed.status = Status::Failed;
    failed.ops_s = None;
    failed.error = Some("IO error: No space left on device".into());
    let mut with_failed = kv_steps();
    with_failed.push(failed);
    let mut not_opened = config("rocksdb-universal-compaction-zstd-block-cache-16G", "rocksdb", Vec::new());
    not_opened.status = Status::Failed;
    not_opened.error = Some(
        "cannot open rocksdb in /data/db/rocksdb-16G: IO error: No space left on device: While appending to file: /data/rocksdb/000123.log (the data filesystem is full)".into(),
    );
    let mut l_i1 =
        step(LoadI1, 20.0, vec![op("insert", 1_000_000, 349.4, 0, 0, 0), op("delete", 1_000_000, 349.4, 0, 12, 0)]);
    l_i1.metrics.srv_cpu_us_op = Some(51.5);
    let ibench = vec![step(LoadI0, 40.0, vec![op("insert", 20_000_000, 43.5, 0, 0, 0)]), l_i1];
    run(vec![
        config("rocksdb-universal-compaction-zstd-block-cache-4G", "rocksdb", kv_steps()),
        config("rocksdb-universal-compaction-zstd-block-cache-8G", "rocksdb", with_failed),
        not_opened,
        config("lmdb-nosync-writemap", "lmdb", kv_steps()),
        config("postgres-16-shared-buffers-8G-wal-compression-lz4", "postgres", ibench),
    ])
}
