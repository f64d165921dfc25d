//! `--slo`: the highest open-loop rate at which a step's latency
//! percentiles stay under their limits, found by probes of the step.
//!
//! The search: a closed-loop probe gives the clients' capacity; a probe at
//! a tenth of it checks that the targets can be met at all (unloaded); a
//! probe at the capacity may meet them (then they do not bind); otherwise
//! the rate is bisected between the highest rate that met them and the
//! lowest that missed, until that interval is narrower than `--slo-width`
//! of the rate. A probe meets the targets when it kept up with its rate
//! (within 5%) and each percentile, measured from the operations' intended
//! starts, is at most its limit. Each probe runs `--seconds` (10 s when not
//! given), longer when needed for 100 operations above its strictest
//! percentile.

use crate::driver::pacer;
use crate::driver::stop::stop_requested;
use crate::measure::LatencySummary;
use crate::plan::slo::{SloTarget, DEFAULT_PROBE_SECONDS};
use crate::plan::StepPlan;
use crate::result::slo::{percentile_of, SloProbe, SloSearch};
use crate::result::{Status, StepResult};
use crate::workload::dbbench::ClientWork;

/// The most probes one search runs (the bisection halves the interval each
/// time: from 90% of the capacity to 5% wide takes 5).
const MAX_PROBES: usize = 16;
/// The unloaded probe's share of the capacity.
const UNLOADED: f64 = 0.1;

/// The probe of `plan` at `rate` (None: closed loop): a plain step, for a duration.
fn probe_plan(plan: &StepPlan, rate: Option<f64>) -> StepPlan {
    let s = &plan.settings;
    let base = s.seconds.unwrap_or(DEFAULT_PROBE_SECONDS);
    let need = s.slo.iter().map(SloTarget::min_ops).max().unwrap_or(0) as f64;
    let seconds = match rate {
        Some(r) => base.max(need / r),
        None => base,
    };
    let mut p = plan.clone();
    p.settings.slo.clear();
    p.settings.rate = rate;
    p.settings.ops = None;
    p.settings.seconds = Some(seconds.min(crate::planner::limits::MAX_SECONDS));
    p
}

/// How a probe did against the targets.
fn judge(r: &StepResult, targets: &[SloTarget], offered: Option<f64>) -> SloProbe {
    let achieved = r.ops_s.unwrap_or(0.0);
    // A step of several operation types meets a target when each type does.
    let latencies: Vec<&LatencySummary> = match r.step_latency() {
        Some(l) => vec![l],
        None => r.ops_by_type.iter().filter(|o| o.ops > 0).map(|o| &o.latency).collect(),
    };
    let percentiles_us: Vec<f64> = targets
        .iter()
        .map(|t| latencies.iter().filter_map(|l| percentile_of(l, t.percentile)).fold(f64::NAN, f64::max))
        .collect();
    let kept_up = offered.is_none_or(|o| !pacer::missed_rate(o, achieved));
    let met = r.status == Status::Completed
        && r.ops > 0
        && kept_up
        && percentiles_us.iter().zip(targets).all(|(v, t)| *v <= t.limit_us);
    SloProbe {
        offered_ops_s: offered,
        achieved_ops_s: achieved,
        ops: r.ops,
        seconds: r.wall_s.unwrap_or(0.0),
        percentiles_us,
        met,
    }
}

fn add_work(total: &mut ClientWork, w: ClientWork) {
    total.queries += w.queries;
    total.writes += w.writes;
    total.commits += w.commits;
    total.logical_bytes_written += w.logical_bytes_written;
    total.writer_threads = total.writer_threads.max(w.writer_threads);
    total.written.union_with(&w.written);
    total.deleted.union_with(&w.deleted);
}

/// Search the rate of `plan` under its targets, each probe run by `run`
/// (the step's own runner) on a copy of `template`. Returns the probe at
/// the rate found (or the last probe when none met the targets) with the
/// search recorded in it, and the work of all probes.
pub(crate) fn search(
    plan: &StepPlan,
    template: &StepResult,
    mut run: impl FnMut(&StepPlan, StepResult) -> (StepResult, ClientWork),
) -> (StepResult, ClientWork) {
    let targets = plan.settings.slo.clone();
    let mut search = SloSearch { targets: targets.clone(), width: plan.settings.slo_width, ..Default::default() };
    let mut work = ClientWork::default();
    let mut probe = |rate: Option<f64>, search: &mut SloSearch| -> (StepResult, bool) {
        let (r, w) = run(&probe_plan(plan, rate), template.clone());
        add_work(&mut work, w);
        let p = judge(&r, &targets, rate);
        let met = p.met;
        search.total_ops += r.ops + r.writer.as_ref().map_or(0, |w| w.ops);
        search.total_seconds += p.seconds;
        search.probes.push(p);
        // Kept on disk: a config process that dies in a later probe keeps these.
        super::checkpoint::note_slo(search);
        (r, met)
    };
    let names = || targets.iter().map(|t| format!("{} <= {} us", t.name(), t.limit_us)).collect::<Vec<_>>().join(", ");

    let (closed, _) = probe(None, &mut search);
    let capacity = closed.ops_s.filter(|&c| closed.status == Status::Completed && c > 0.0);
    let Some(capacity) = capacity else {
        search.no_rate = Some("the closed-loop probe did not complete".into());
        return finish(closed, search, work);
    };
    search.capacity_ops_s = Some(capacity);
    let low = (capacity * UNLOADED).max(1.0);
    let (unloaded, met) = probe(Some(low), &mut search);
    if !met {
        let p = search.probes.last().expect("a probe");
        let got = targets
            .iter()
            .zip(&p.percentiles_us)
            .map(|(t, v)| format!("{} {v:.0} us", t.name()))
            .collect::<Vec<_>>()
            .join(", ");
        search.no_rate = Some(format!(
            "the targets ({}) are missed even unloaded: {got} at {low:.0} ops/s, a tenth of the closed loop's {capacity:.0}",
            names()
        ));
        return finish(unloaded, search, work);
    }
    let (mut best, mut lo) = (unloaded, low);
    let mut hi: Option<f64> = None;
    let (at_capacity, met) = probe(Some(capacity), &mut search);
    if met {
        best = at_capacity;
        lo = capacity;
    } else {
        hi = Some(capacity);
        while let Some(h) = hi {
            if (h - lo) / h <= search.width || search.probes.len() >= MAX_PROBES || stop_requested() {
                break;
            }
            let mid = (lo + h) / 2.0;
            let (r, met) = probe(Some(mid), &mut search);
            if r.status == Status::Interrupted {
                best = r;
                break;
            }
            if met {
                best = r;
                lo = mid;
            } else {
                hi = Some(mid);
            }
        }
    }
    search.rate_ops_s = Some(lo);
    search.met_ops_s = Some(lo);
    search.missed_ops_s = hi;
    match hi {
        None => best.notes.push(format!(
            "every target ({}) was met at the closed loop's rate, {capacity:.0} ops/s: the targets do not bind",
            names()
        )),
        Some(h) if (h - lo) / h > search.width => best.warnings.push(format!(
            "the SLO search stopped before its interval was {:.1}% wide: [{lo:.0}, {h:.0}] ops/s",
            100.0 * search.width
        )),
        Some(_) => {}
    }
    finish(best, search, work)
}

fn finish(mut r: StepResult, search: SloSearch, work: ClientWork) -> (StepResult, ClientWork) {
    r.notes.push(format!(
        "SLO search: {} probes ({:.0} s in all); the step's figures are its probe at {}, its efficiency figures (IO, CPU) over every probe",
        search.probes.len(),
        search.total_seconds,
        search.rate_ops_s.map_or("the last probe".to_string(), |x| format!("{x:.0} ops/s"))
    ));
    if let Some(why) = &search.no_rate {
        r.warnings.push(format!("SLO search found no rate: {why}"));
    }
    r.slo = Some(search);
    (r, work)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::steps::StepKind;
    use crate::result::OpResult;

    /// A pretend engine: service time `service_us`, capacity 1e6 / service_us
    /// ops/s; an offered rate above capacity queues without bound, so its
    /// p99 grows with the overload; at or under it the p99 is the service time.
    fn model(plan: &StepPlan, mut r: StepResult, service_us: f64) -> (StepResult, ClientWork) {
        let capacity = 1e6 / service_us;
        let s = &plan.settings;
        let seconds = s.seconds.unwrap();
        let (achieved, p99) = match s.rate {
            None => (capacity, service_us),
            Some(rate) if rate <= capacity => (rate, service_us),
            Some(rate) => (capacity, service_us + (rate / capacity - 1.0) * seconds * 1e6),
        };
        r.status = Status::Completed;
        r.ops = (achieved * seconds) as u64;
        r.ops_s = Some(achieved);
        r.wall_s = Some(seconds);
        let latency = LatencySummary { count: r.ops, p50_us: service_us, p99_us: p99, ..LatencySummary::default() };
        r.ops_by_type = vec![OpResult {
            op: "get".into(),
            ops: r.ops,
            latency,
            intervals: Vec::new(),
            outcomes: None,
            histogram: None,
        }];
        let queries = r.ops;
        (r, ClientWork { queries, ..ClientWork::default() })
    }

    fn plan(slo: &str) -> StepPlan {
        let mut p = crate::plan::test_step(StepKind::ReadRandom, 1, false);
        p.settings.slo = SloTarget::parse_list(slo).unwrap();
        p.settings.seconds = Some(1.0);
        p
    }

    #[test]
    fn finds_the_capacity_within_the_width() {
        // 20 us of service: 50,000 ops/s; p99 under 1 ms holds up to it.
        let p = plan("p99=1ms");
        let template = StepResult::new(&p);
        let (r, work) = search(&p, &template, |pp, t| model(pp, t, 20.0));
        let s = r.slo.as_ref().unwrap();
        let rate = s.rate_ops_s.unwrap();
        assert!((rate / 50_000.0 - 1.0).abs() <= 0.05, "{rate} {s:?}");
        assert_eq!(s.capacity_ops_s, Some(50_000.0));
        // The capacity itself meets the targets here: they do not bind.
        assert_eq!(s.missed_ops_s, None);
        assert!(r.notes.iter().any(|n| n.contains("do not bind")));
        assert_eq!(work.queries, s.probes.iter().map(|p| p.ops).sum::<u64>());
    }

    #[test]
    fn bisects_to_the_width_when_the_limit_binds_below_capacity() {
        // A pretend engine whose p99 rises with load: p99 = 100 us / (1 - rho).
        let p = plan("p99=400us");
        let template = StepResult::new(&p);
        let (r, _) = search(&p, &template, |pp, mut t| {
            let capacity = 10_000.0;
            let rate = pp.settings.rate.unwrap_or(capacity);
            let rho = (rate / capacity).min(0.999);
            let (mut r, w) = model(pp, t.clone(), 100.0);
            r.ops_s = Some(rate.min(capacity));
            r.ops_by_type[0].latency.p99_us = 100.0 / (1.0 - rho);
            t = r;
            (t, w)
        });
        let s = r.slo.unwrap();
        // p99 <= 400 us  <=>  rho <= 0.75: 7,500 ops/s.
        let (lo, hi) = (s.met_ops_s.unwrap(), s.missed_ops_s.unwrap());
        assert!(lo <= 7_500.0 && hi > 7_500.0, "[{lo}, {hi}]");
        assert!((hi - lo) / hi <= s.width, "[{lo}, {hi}] wider than {}", s.width);
        assert!(s.probes.len() <= MAX_PROBES);
        for pr in s.probes.iter().filter(|p| p.offered_ops_s.is_some()) {
            assert_eq!(pr.met, pr.percentiles_us[0] <= 400.0, "{pr:?}");
        }
    }

    #[test]
    fn says_so_when_even_unloaded_misses() {
        let p = plan("p99=10us");
        let template = StepResult::new(&p);
        let (r, _) = search(&p, &template, |pp, t| model(pp, t, 20.0));
        let s = r.slo.unwrap();
        assert_eq!(s.rate_ops_s, None);
        assert!(s.no_rate.as_ref().unwrap().contains("missed even unloaded"), "{:?}", s.no_rate);
        assert_eq!(s.probes.len(), 2);
        assert!(r.warnings.iter().any(|w| w.contains("found no rate")));
    }

    #[test]
    fn a_probe_is_long_enough_for_its_percentile() {
        let p = plan("p99.9=1ms");
        // 100,000 ops for 100 above p99.9: at 1,000 ops/s, 100 s.
        assert_eq!(probe_plan(&p, Some(1000.0)).settings.seconds, Some(100.0));
        assert_eq!(probe_plan(&p, None).settings.seconds, Some(1.0));
        assert!(probe_plan(&p, Some(1000.0)).settings.slo.is_empty());
    }
}
