//! Export: every step's per-second latency histograms as one HdrHistogram
//! interval log (.hlog, format 1.3, as Java's HistogramLogWriter writes it),
//! tagged CONFIG/STEP/OP, on the run's wall-clock timeline: HdrLogProcessing
//! (SummarizeHistogramLogs, UnionHistogramLogs), HistogramLogProcessor and
//! the hdrhistogram crates read it. Values are nanoseconds; the max column
//! is in milliseconds, as Java's default.

use std::time::{Duration, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;

use crate::measure::hdr_codec;
use crate::result::RunResult;

/// A tag of letters, digits and `._/-` (a tag may hold no comma, space or newline).
fn tag(config: &str, step: &str, op: &str) -> String {
    format!("{config}/{step}/{op}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "._/-:".contains(c) { c } else { '_' })
        .collect()
}

pub fn render(run: &RunResult) -> Result<String> {
    let steps: Vec<_> = run
        .configs
        .iter()
        .flat_map(|c| c.steps.iter().map(move |s| (c, s)))
        .filter(|(_, s)| s.start.is_some())
        .collect();
    let Some(base) = steps.iter().filter_map(|(_, s)| s.start.map(|st| st.unix_s)).reduce(f64::min) else {
        bail!("no step of this run records when its clients were released (results from before histograms were kept): nothing to put on a timeline");
    };
    // The crate writes the comment, StartTime, BaseTime and MaxValueDivisor
    // lines; Java's writer has the version line first and the column legend
    // after the header, which readers skip: both are added around them.
    let mut out: Vec<u8> = b"#[Histogram log format version 1.3]\n".to_vec();
    let mut serializer = V2DeflateSerializer::new();
    let mut lines = 0;
    {
        let at = UNIX_EPOCH + Duration::from_secs_f64(base);
        let mut log = IntervalLogWriterBuilder::new()
            .add_comment(&format!("Logged by rumbench {}: {}", run.rumbench_version, run.command_line.join(" ")))
            .with_start_time(at)
            .with_base_time(at)
            .with_max_value_divisor(1e6)
            .begin_log_with(&mut out, &mut serializer)?;
        for (c, s) in &steps {
            let offset = s.start.map(|st| st.unix_s - base).unwrap_or(0.0);
            for op in &s.ops_by_type {
                let t = tag(&c.name, &s.name, &op.op);
                for iv in &op.intervals {
                    let Some(h) = &iv.histogram else { continue };
                    let h = hdr_codec::decode(h).with_context(|| {
                        format!("config {}, step {}, {} (second {})", c.name, s.name, op.op, iv.index + 1)
                    })?;
                    let start = Duration::from_secs_f64(offset + iv.index as f64);
                    log.write_histogram(&h, start, Duration::from_secs(1), Tag::new(&t))
                        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
                    lines += 1;
                }
            }
        }
    }
    let text = String::from_utf8(out)?;
    let header_end: usize = text.lines().take_while(|l| l.starts_with('#')).map(|l| l.len() + 1).sum();
    let text = format!(
        "{}\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n{}",
        &text[..header_end],
        &text[header_end..]
    );
    if lines == 0 {
        bail!("this run's steps have no per-second histograms (results from before they were kept)");
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Recorder;
    use crate::plan::steps::StepKind;
    use crate::result::{fixtures, OpResult, StepStart};
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};

    #[test]
    fn the_log_reads_back_second_by_second_with_its_tags() {
        let mut rec = Recorder::new(None);
        for k in 0..3000u64 {
            rec.record(k * 1_000_000 + 1, 1000 + k);
        }
        let merged = crate::measure::merge(vec![rec.finish()], 3);
        let mut step = fixtures::step(StepKind::ReadRandom, 3.0, vec![OpResult::measured("get", &merged, None)]);
        step.start = Some(StepStart { unix_s: 1_800_000_000.25, scheduled_unix_s: None });
        let run = fixtures::run(vec![fixtures::config("rocks db", "rocksdb", vec![step])]);
        let text = render(&run).unwrap();
        assert!(text.starts_with("#[Histogram log format version 1.3]\n#Logged by rumbench"), "{text}");
        assert_eq!(text.matches("#[BaseTime: 1800000000.250").count(), 1, "{text}");
        assert!(text.lines().nth(5).unwrap().starts_with("\"StartTimestamp\""), "{text}");
        let mut seconds = Vec::new();
        let mut deser = hdrhistogram::serialization::Deserializer::new();
        for e in IntervalLogIterator::new(text.as_bytes()) {
            if let LogEntry::Interval(h) = e.unwrap() {
                assert_eq!(h.tag().map(|t| t.as_str().to_string()).as_deref(), Some("rocks_db/readrandom/get"));
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD.decode(h.encoded_histogram()).unwrap();
                let hist: hdrhistogram::Histogram<u64> = deser.deserialize(&mut bytes.as_slice()).unwrap();
                seconds.push((h.start_timestamp().as_secs_f64(), hist.len()));
            }
        }
        assert_eq!(seconds.iter().map(|s| s.1).collect::<Vec<_>>(), vec![1000, 1000, 1000]);
        assert!((seconds[1].0 - 1.0).abs() < 1e-3, "{seconds:?}");
        // Nothing to export from a result without release times.
        let old = fixtures::run(vec![fixtures::config(
            "a",
            "rocksdb",
            vec![fixtures::step(StepKind::ReadRandom, 1.0, vec![])],
        )]);
        assert!(render(&old).is_err());
    }
}
