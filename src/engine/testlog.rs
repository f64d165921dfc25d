//! A test-only engine (registered when RUMBENCH_TEST_ENGINES=1): an
//! append-only log in numbered segment files, replayed at open. Its `sync`
//! option makes it durable, or makes one of the mistakes the crash test
//! exists to catch:
//! - `full`: fdatasync the segment after every put, fsync the directory
//!   when a segment is created;
//! - `nodirsync`: fdatasync every put but never fsync the directory, so a
//!   new segment's name (and everything in it) may vanish in a power cut,
//!   although the engine syncs once per commit (not ND);
//! - `none`: never sync.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};

use super::{BatchOp, Engine, EngineSpec, OpenArgs, OptKind, OptionSpec, Session};

pub const SPEC: EngineSpec = EngineSpec {
    name: "testlog",
    profile_symbols: &[],
    sizes_not_claimed: &[],
    check_plan: super::no_plan_checks,
    plan_claims: super::no_plan_claims,
    space_needed: super::no_space_needed,
    versions: None,
    description: "TEST ONLY (RUMBENCH_TEST_ENGINES=1): an append-only log whose `sync` option is right or wrong on purpose, for the crash test's own tests",
    options: &[
        OptionSpec {
            name: "sync",
            default: "full",
            kind: OptKind::Choice(&["full", "nodirsync", "none"]),
            help: "full: fdatasync every put and fsync the directory for a new segment; nodirsync: never fsync the directory; none: never sync",
        },
        OptionSpec {
            name: "segment_records",
            default: "500",
            kind: OptKind::Int { min: 1, max: 1_000_000_000 },
            help: "records per segment file before a new one is started",
        },
    ],
    io_bound_options: &[],
    open,
    presets: &[],
    stores_data: true,
    existing_database: Some(|dir| match dir.join("seg-000000.log").is_file() {
        true => Ok(()),
        false => anyhow::bail!("no seg-000000.log in it"),
    }),
    check: super::no_contradictions,
    build_info: super::no_build_info,
    transactions: super::no_transactions,
    max_sessions: super::any_sessions,
    claims: super::no_claims,
    crash_cause: super::no_crash_cause,
    size_limits: super::no_size_limits,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sync {
    Full,
    DataOnly,
    None,
}

struct Log {
    file: File,
    segment: u64,
    records: u64,
}

pub struct TestLog {
    dir: PathBuf,
    sync: Sync,
    segment_records: u64,
    data: Mutex<(Records, Log)>,
}

/// Every record replayed or written, by key.
type Records = BTreeMap<Vec<u8>, Vec<u8>>;

fn segment_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("seg-{n:06}.log"))
}

/// Records: key length, value length (u32 LE each), key, value, then a
/// checksum of the lot; a torn tail ends the replay of its segment.
fn encode(key: &[u8], value: &[u8]) -> Vec<u8> {
    let mut r = Vec::with_capacity(16 + key.len() + value.len());
    r.extend_from_slice(&(key.len() as u32).to_le_bytes());
    r.extend_from_slice(&(value.len() as u32).to_le_bytes());
    r.extend_from_slice(key);
    r.extend_from_slice(value);
    let sum = r.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    r.extend_from_slice(&sum.to_le_bytes());
    r
}

fn replay(bytes: &[u8], into: &mut BTreeMap<Vec<u8>, Vec<u8>>) -> u64 {
    let (mut pos, mut n) = (0usize, 0u64);
    while pos + 8 <= bytes.len() {
        let kl = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        let vl = u32::from_le_bytes(bytes[pos + 4..pos + 8].try_into().unwrap()) as usize;
        let end = pos + 8 + kl + vl;
        if end + 8 > bytes.len() {
            break;
        }
        let rec = encode(&bytes[pos + 8..pos + 8 + kl], &bytes[pos + 8 + kl..end]);
        if rec[..] != bytes[pos..end + 8] {
            break;
        }
        into.insert(bytes[pos + 8..pos + 8 + kl].to_vec(), bytes[pos + 8 + kl..end].to_vec());
        pos = end + 8;
        n += 1;
    }
    n
}

fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)?.sync_all().with_context(|| format!("fsync of {}", dir.display()))
}

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    let sync = match args.options.str("sync") {
        "full" => Sync::Full,
        "nodirsync" => Sync::DataOnly,
        _ => Sync::None,
    };
    let mut data = BTreeMap::new();
    let mut last: Option<(u64, u64)> = None;
    for n in 0.. {
        match std::fs::read(segment_path(&args.dir, n)) {
            Ok(bytes) => last = Some((n, replay(&bytes, &mut data))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(e) => return Err(e).context("reading a segment"),
        }
    }
    if last.is_none() && !args.create {
        bail!("no testlog database in {}", args.dir.display());
    }
    let engine = TestLog {
        dir: args.dir.clone(),
        sync,
        segment_records: args.options.u64("segment_records"),
        data: Mutex::new((data, start_log(&args.dir, sync, last)?)),
    };
    Ok(Box::new(engine))
}

/// Append to the last segment, or start segment 0.
fn start_log(dir: &Path, sync: Sync, last: Option<(u64, u64)>) -> Result<Log> {
    let (segment, records) = last.unwrap_or((0, 0));
    let file = OpenOptions::new().create(true).append(true).open(segment_path(dir, segment))?;
    if last.is_none() && sync == Sync::Full {
        sync_dir(dir)?;
    }
    Ok(Log { file, segment, records })
}

impl TestLog {
    fn append(&self, key: &[u8], value: &[u8]) -> Result<()> {
        let mut guard = self.data.lock().unwrap_or_else(|e| e.into_inner());
        let (map, log) = &mut *guard;
        if log.records >= self.segment_records {
            let segment = log.segment + 1;
            let file = OpenOptions::new().create_new(true).append(true).open(segment_path(&self.dir, segment))?;
            if self.sync == Sync::Full {
                sync_dir(&self.dir)?;
            }
            *log = Log { file, segment, records: 0 };
        }
        log.file.write_all(&encode(key, value))?;
        if self.sync != Sync::None {
            log.file.sync_data()?;
        }
        log.records += 1;
        map.insert(key.to_vec(), value.to_vec());
        Ok(())
    }
}

impl Engine for TestLog {
    fn version(&self) -> String {
        "test".into()
    }
    fn effective_options(&self) -> Vec<(String, String)> {
        let sync = match self.sync {
            Sync::Full => "full",
            Sync::DataOnly => "nodirsync",
            Sync::None => "none",
        };
        vec![("sync".into(), sync.into()), ("segment_records".into(), self.segment_records.to_string())]
    }
    fn session(&self) -> Result<Box<dyn Session + '_>> {
        Ok(Box::new(TestLogSession { engine: self }))
    }
}

struct TestLogSession<'a> {
    engine: &'a TestLog,
}

impl Session for TestLogSession<'_> {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.engine.append(key, value)
    }
    fn delete(&mut self, _key: &[u8]) -> Result<()> {
        bail!("testlog has no deletes")
    }
    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        for op in ops {
            match op {
                BatchOp::Put(k, v) => self.put(k, v)?,
                BatchOp::Delete(k) => self.delete(k)?,
            }
        }
        Ok(())
    }
    fn get(&mut self, key: &[u8]) -> Result<bool> {
        Ok(self.engine.data.lock().unwrap_or_else(|e| e.into_inner()).0.contains_key(key))
    }
    fn scan(
        &mut self,
        start: &[u8],
        reverse: bool,
        max_entries: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        let guard = self.engine.data.lock().unwrap_or_else(|e| e.into_inner());
        let mut n = 0;
        let mut each = |(k, v): (&Vec<u8>, &Vec<u8>)| {
            n += 1;
            visit(k, v) && n < max_entries
        };
        if reverse {
            for kv in guard.0.range(..=start.to_vec()).rev() {
                if !each(kv) {
                    break;
                }
            }
        } else {
            for kv in guard.0.range(start.to_vec()..) {
                if !each(kv) {
                    break;
                }
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_tail_ends_the_replay() {
        let mut bytes = encode(b"a", b"1");
        bytes.extend(encode(b"b", b"2"));
        let whole = bytes.len();
        bytes.extend(&encode(b"c", b"3")[..5]);
        let mut m = BTreeMap::new();
        assert_eq!(replay(&bytes, &mut m), 2);
        bytes.truncate(whole);
        bytes[whole - 1] ^= 1;
        m.clear();
        assert_eq!(replay(&bytes, &mut m), 1, "a bad checksum ends it");
    }
}
