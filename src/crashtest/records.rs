//! What the crash test writes and how it is checked: keys unique per crash,
//! thread and sequence number, values that encode their key (so a torn or
//! misplaced value shows), the clients' ack logs, and the runs of keys a
//! recovery found.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::datagen::rng::mix64;

/// "c00003t001s0000000042": crash, thread, sequence; zero-padded so that key
/// order is (crash, thread, sequence) order in every engine.
pub const KEY_LEN: usize = 21;
/// The smallest value: the key, a separator and some filler.
pub const MIN_VALUE_SIZE: usize = KEY_LEN + 9;

/// (crash, thread) of one writer thread.
pub type Writer = (u32, u32);

pub fn key(crash: u32, thread: u32, seq: u64, out: &mut Vec<u8>) {
    out.clear();
    write!(out, "c{crash:05}t{thread:03}s{seq:010}").expect("writing to a Vec");
    debug_assert_eq!(out.len(), KEY_LEN);
}

pub fn parse_key(k: &[u8]) -> Option<(u32, u32, u64)> {
    if k.len() != KEY_LEN || k[0] != b'c' || k[6] != b't' || k[10] != b's' {
        return None;
    }
    let num =
        |b: &[u8]| std::str::from_utf8(b).ok().filter(|s| s.bytes().all(|c| c.is_ascii_digit()))?.parse::<u64>().ok();
    Some((num(&k[1..6])? as u32, num(&k[7..10])? as u32, num(&k[11..])?))
}

/// The value written under `key`: the key, '=', then letters drawn from the
/// key, `size` bytes in all. Any byte out of place is seen.
pub fn value(key: &[u8], size: usize, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(key);
    out.push(b'=');
    let mut h = key.iter().fold(0x243F_6A88_85A3_08D3u64, |acc, &b| mix64(acc ^ b as u64));
    while out.len() < size {
        h = mix64(h);
        for i in 0..8 {
            if out.len() == size {
                break;
            }
            out.push(b'a' + ((h >> (i * 8)) as u8 % 26));
        }
    }
}

/// A writer thread's ack log: the sequence number of each commit the engine
/// acknowledged, 8 bytes each, appended with one write(2) after the commit
/// returned. It lives outside the lazy filesystem; the writer is killed, not
/// the machine, so every completed write is in the page cache for the check.
pub struct AckLog {
    file: File,
}

impl AckLog {
    pub fn create(path: &Path) -> Result<AckLog> {
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)
            .with_context(|| format!("creating ack log {}", path.display()))?;
        Ok(AckLog { file })
    }

    pub fn ack(&mut self, seq: u64) -> Result<()> {
        // One write of 8 bytes: a kill lands before or after it.
        self.file.write_all(&seq.to_le_bytes()).context("writing the ack log")
    }
}

pub fn ack_path(dir: &Path, (crash, thread): Writer) -> PathBuf {
    dir.join(format!("c{crash:05}t{thread:03}.ack"))
}

/// How many commits a writer thread had acknowledged: its log holds 0, 1,
/// ... n-1 in order (anything else is a broken harness, said as such).
pub fn read_acks(path: &Path) -> Result<u64> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let n = (bytes.len() / 8) as u64;
    for (i, rec) in bytes.chunks_exact(8).enumerate() {
        let seq = u64::from_le_bytes(rec.try_into().expect("8 bytes"));
        if seq != i as u64 {
            bail!("ack log {} is out of order at record {i} ({seq})", path.display());
        }
    }
    Ok(n)
}

/// What a recovery found: per writer thread, the runs [start, end) of
/// sequence numbers present with the right value, plus what should not be there.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Found {
    pub present: BTreeMap<String, Vec<(u64, u64)>>,
    pub wrong_values: u64,
    /// Keys rumbench never writes (not of its form).
    pub foreign_keys: u64,
    pub entries: u64,
    /// At most a few wrong or foreign keys, for the report.
    pub examples: Vec<String>,
}

pub fn writer_label((crash, thread): Writer) -> String {
    format!("{crash}:{thread}")
}

const MAX_EXAMPLES: usize = 5;

impl Found {
    /// Take one entry, in key order.
    pub fn add(&mut self, key: &[u8], value: &[u8], expected: &mut Vec<u8>, value_size: usize) {
        self.entries += 1;
        let Some((crash, thread, seq)) = parse_key(key) else {
            self.foreign_keys += 1;
            self.example(format!("foreign key {}", String::from_utf8_lossy(key)));
            return;
        };
        self::value(key, value_size, expected);
        if value != expected.as_slice() {
            self.wrong_values += 1;
            self.example(format!("wrong value under {} ({} bytes)", String::from_utf8_lossy(key), value.len()));
            return;
        }
        let runs = self.present.entry(writer_label((crash, thread))).or_default();
        match runs.last_mut() {
            Some(last) if last.1 == seq => last.1 = seq + 1,
            _ => runs.push((seq, seq + 1)),
        }
    }

    fn example(&mut self, text: String) {
        if self.examples.len() < MAX_EXAMPLES {
            self.examples.push(text);
        }
    }

    /// Whether `seq` of `writer` is present with its value.
    pub fn has(&self, writer: Writer, seq: u64) -> bool {
        self.present.get(&writer_label(writer)).is_some_and(|runs| runs.iter().any(|&(s, e)| s <= seq && seq < e))
    }

    /// The runs [start, end) of sequence numbers below `n` of `writer` that are not present.
    pub fn missing(&self, writer: Writer, n: u64) -> Vec<(u64, u64)> {
        let mut gaps = Vec::new();
        let mut next = 0;
        for &(s, e) in self.present.get(&writer_label(writer)).map(Vec::as_slice).unwrap_or(&[]) {
            if s >= n {
                break;
            }
            if s > next {
                gaps.push((next, s));
            }
            next = next.max(e);
        }
        if next < n {
            gaps.push((next, n));
        }
        gaps
    }

    /// Sequence numbers of `writer` present at or beyond `from`.
    pub fn count_from(&self, writer: Writer, from: u64) -> u64 {
        self.present
            .get(&writer_label(writer))
            .map(|runs| runs.iter().map(|&(s, e)| e.saturating_sub(s.max(from))).sum())
            .unwrap_or(0)
    }

    /// Writers with something present that the harness does not know of.
    pub fn writers(&self) -> Vec<Writer> {
        self.present
            .keys()
            .filter_map(|k| {
                let (c, t) = k.split_once(':')?;
                Some((c.parse().ok()?, t.parse().ok()?))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_as_crash_thread_sequence_and_parse_back() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        key(2, 1, 99, &mut a);
        key(2, 1, 100, &mut b);
        assert!(a < b);
        key(10, 0, 0, &mut b);
        assert!(a < b, "crash 10 after crash 2");
        assert_eq!(parse_key(&a), Some((2, 1, 99)));
        assert_eq!(parse_key(b"c00002t001s00000000x9"), None);
        assert_eq!(parse_key(b"hello"), None);
    }

    #[test]
    fn a_torn_or_misplaced_value_is_wrong() {
        let (mut k, mut v, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        key(1, 0, 7, &mut k);
        value(&k, 100, &mut v);
        assert_eq!(v.len(), 100);
        let mut f = Found::default();
        f.add(&k, &v, &mut scratch, 100);
        assert!(f.has((1, 0), 7) && !f.has((1, 0), 8));
        let mut torn = v.clone();
        torn[60..].fill(0);
        let mut k2 = Vec::new();
        key(1, 0, 8, &mut k2);
        f.add(&k2, &torn, &mut scratch, 100);
        // Another key's value under this key.
        let mut k3 = Vec::new();
        key(1, 0, 9, &mut k3);
        f.add(&k3, &v, &mut scratch, 100);
        f.add(b"zzz", b"x", &mut scratch, 100);
        assert_eq!((f.wrong_values, f.foreign_keys, f.entries), (2, 1, 4));
        assert_eq!(f.examples.len(), 3);
    }

    #[test]
    fn present_keys_are_kept_as_runs() {
        let (mut k, mut v, mut s) = (Vec::new(), Vec::new(), Vec::new());
        let mut f = Found::default();
        for seq in [0, 1, 2, 5, 6, 9] {
            key(0, 3, seq, &mut k);
            value(&k, 40, &mut v);
            f.add(&k, &v, &mut s, 40);
        }
        assert_eq!(f.present["0:3"], vec![(0, 3), (5, 7), (9, 10)]);
        assert_eq!(f.count_from((0, 3), 6), 2);
        assert_eq!(f.missing((0, 3), 12), vec![(3, 5), (7, 9), (10, 12)]);
        assert_eq!(f.missing((0, 3), 6), vec![(3, 5)]);
        assert_eq!(f.missing((1, 0), 2), vec![(0, 2)], "a writer with nothing present");
        assert_eq!(f.count_from((0, 3), 0), 6);
        assert_eq!(f.writers(), vec![(0, 3)]);
    }

    #[test]
    fn ack_logs_count_in_order_records() {
        let t = tempfile::tempdir().unwrap();
        let p = ack_path(t.path(), (1, 2));
        assert_eq!(read_acks(&p).unwrap(), 0, "a thread that never acked");
        let mut log = AckLog::create(&p).unwrap();
        for s in 0..5 {
            log.ack(s).unwrap();
        }
        // A torn last record (a kill mid-write) is not counted.
        std::fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(&[1, 2, 3]).unwrap();
        assert_eq!(read_acks(&p).unwrap(), 5);
        std::fs::write(&p, [1u64.to_le_bytes(), 0u64.to_le_bytes()].concat()).unwrap();
        assert!(read_acks(&p).unwrap_err().to_string().contains("out of order"));
    }
}
