//! Full latency histograms as text: HdrHistogram's compressed V2 encoding
//! (V2 + DEFLATE, the "HISTF..." form Java's HistogramLogWriter writes),
//! base64 with padding. result.json keeps each operation type's histogram
//! and each second's in this form, so that runs on several machines (shards)
//! and repeats merge exactly: histograms are added, percentiles are never
//! averaged. Values are nanoseconds, bounds those of `new_histogram`.

use anyhow::{Context, Result};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;

use super::latency::new_histogram;

/// The histogram in V2 + DEFLATE, base64.
pub fn encode(h: &Histogram<u64>) -> String {
    let mut buf = Vec::new();
    V2DeflateSerializer::new().serialize(h, &mut buf).expect("serializing into memory does not fail");
    STANDARD.encode(&buf)
}

/// A histogram `encode` wrote (or Java's compressed form), with
/// `new_histogram`'s bounds so that it adds to any other of rumbench's.
pub fn decode(text: &str) -> Result<Histogram<u64>> {
    let bytes = STANDARD.decode(text.trim()).context("corrupt histogram: not base64")?;
    let h: Histogram<u64> = Deserializer::new().deserialize(&mut bytes.as_slice()).map_err(|e| match e {
        // The DEFLATE stream ends early or does not inflate: the text was cut or changed.
        hdrhistogram::serialization::DeserializeError::IoError(io) => {
            anyhow::anyhow!("corrupt histogram: its compressed data does not inflate ({io})")
        }
        other => anyhow::anyhow!("corrupt histogram: {other}"),
    })?;
    let mut out = new_histogram();
    out.add(&h).map_err(|_| anyhow::anyhow!("histogram outside rumbench's bounds (1 ns .. 1 h)"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::LatencySummary;

    #[test]
    fn a_histogram_survives_the_round_trip_and_adds_exactly() {
        let mut a = new_histogram();
        let mut b = new_histogram();
        for i in 1..=10_000u64 {
            a.record(i * 1_000).unwrap();
            b.record(i * 37 + 500).unwrap();
        }
        b.record(3_000_000_000).unwrap();
        let (ta, tb) = (encode(&a), encode(&b));
        assert!(ta.starts_with("HISTF"), "{}", &ta[..10]);
        let (da, db) = (decode(&ta).unwrap(), decode(&tb).unwrap());
        assert_eq!(LatencySummary::from_histogram(&da), LatencySummary::from_histogram(&a));
        let mut sum = a.clone();
        sum.add(&b).unwrap();
        let mut decoded_sum = da;
        decoded_sum.add(&db).unwrap();
        assert_eq!(LatencySummary::from_histogram(&decoded_sum), LatencySummary::from_histogram(&sum));
        assert_eq!(decoded_sum.len(), 20_001);
        assert!(decode("not base64!").is_err());
        assert!(decode("aGVsbG8=").is_err());
        // A histogram cut short: a sentence, not Rust's debug text.
        let cut = &ta[..ta.len() / 2];
        let e = format!("{:#}", decode(cut).unwrap_err());
        assert!(e.starts_with("corrupt histogram") && !e.contains("Custom {") && !e.contains("IoError("), "{e}");
    }
}
