//! Samples into folded stacks: each sample's role (who spent the CPU),
//! its frames named `library!function`, cut by the steps' windows.

use std::collections::HashMap;

use super::perf::Sample;

/// Who spent a sample's CPU (in result.json and folded stacks: its [`Role::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// rumbench's client threads outside the engine, and its main thread.
    Client,
    /// The engine's code called from a client thread.
    EngineForeground,
    /// The engine's own threads (flushes, compactions, ...).
    EngineBackground,
    /// Any other process of the config's tree: a server rumbench started.
    Server,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Client, Role::EngineForeground, Role::EngineBackground, Role::Server];

    /// The root frame of a folded stack.
    pub fn name(self) -> &'static str {
        match self {
            Role::Client => "client",
            Role::EngineForeground => "engine-foreground",
            Role::EngineBackground => "engine-background",
            Role::Server => "server",
        }
    }

    pub fn from_name(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == s)
    }
}

/// The prefix of the driver's thread names (clients "rb-client-N",
/// background roles "rb-bg-N"): the threads that are rumbench's clients.
pub const CLIENT_THREAD_PREFIX: &str = "rb-";

/// Symbol prefixes of an engine's code linked into rumbench's own
/// executable and the library a profile shows them as (each engine's
/// `profile_symbols`, gathered by the caller from the engine registry).
pub type EngineSymbols = [(&'static str, &'static str)];

/// The libraries engines link in statically, by their symbols' prefixes:
/// compression, which runs on an engine's behalf whichever engine it is.
const LINKED_LIBRARIES: &[(&str, &str)] = &[
    ("snappy::", "libsnappy"),
    ("LZ4", "liblz4"),
    ("ZSTD", "libzstd"),
    // zstd's entropy coders and histograms (HUF_buildCTable_wksp, ...).
    ("HUF_", "libzstd"),
    ("FSE_", "libzstd"),
    ("HIST_", "libzstd"),
    ("ZDICT_", "libzstd"),
    ("BZ2_", "libbz2"),
];

/// The library a frame belongs to. Engines linked into rumbench's own
/// executable are told apart by their symbols' names (`engines`);
/// everything else by its object file.
pub fn library(sym: &str, dso: &str, engines: &EngineSymbols) -> String {
    if dso == "[kernel.kallsyms]" || dso.starts_with("[kernel") || dso == "[vdso]" {
        return "kernel".into();
    }
    let file = dso.rsplit('/').next().unwrap_or(dso);
    let in_rumbench = file.starts_with("rumbench");
    if in_rumbench || file == "[unknown]" {
        if let Some(engine) = engine_of_symbol(sym, engines) {
            return engine.into();
        }
        return if in_rumbench { "rumbench".into() } else { "unknown".into() };
    }
    // libc.so.6 -> libc, libstdc++.so.6.0.30 -> libstdc++, postgres -> postgres.
    file.split(".so").next().unwrap_or(file).to_string()
}

/// The engine (or linked library) a symbol of rumbench's executable belongs to, if any.
fn engine_of_symbol(sym: &str, engines: &EngineSymbols) -> Option<&'static str> {
    // C++'s adjustor thunks carry the name of the method they lead to; a
    // Rust method of a trait impl is shown as `<path::Type as Trait>::f`.
    let sym = sym.trim_start_matches("non-virtual thunk to ").trim_start_matches("virtual thunk to ");
    let sym = sym.trim_start_matches('<');
    engines.iter().chain(LINKED_LIBRARIES).find(|(p, _)| sym.starts_with(p)).map(|(_, lib)| *lib)
}

/// Whether a frame is the engine's code: an engine's symbol or library
/// (one loaded as its own object, as SplinterDB's), or rumbench's adapter
/// of an engine (`rumbench::engine::...`, e.g. the null engine).
fn is_engine_frame(sym: &str, lib: &str, engines: &EngineSymbols) -> bool {
    engine_of_symbol(sym, engines).is_some()
        || engines.iter().any(|(_, l)| *l == lib)
        || sym.contains("rumbench::engine::")
}

/// A sample's role in the config process `pid`.
pub fn role(s: &Sample, pid: u32, frames: &[(String, String)], engines: &EngineSymbols) -> Role {
    if s.pid != pid {
        return Role::Server;
    }
    let client_thread = s.comm.starts_with(CLIENT_THREAD_PREFIX) || s.tid == s.pid;
    if !client_thread {
        return Role::EngineBackground;
    }
    if frames.iter().any(|(sym, lib)| is_engine_frame(sym, lib, engines)) {
        Role::EngineForeground
    } else {
        Role::Client
    }
}

/// A frame's text in a folded stack: `library!function` (';' and the
/// count's separator kept out).
fn frame_text(lib: &str, sym: &str) -> String {
    let sym = if sym.is_empty() { "[unknown]" } else { sym };
    format!("{lib}!{}", sym.replace(';', ":").replace('\n', " "))
}

/// A step's timed window on the monotonic clock, and where its folded
/// stacks go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub start_ns: u64,
    pub end_ns: u64,
}

/// Folded stacks (`role;root;...;leaf` -> samples) of each window.
pub struct Folder {
    pid: u32,
    windows: Vec<Window>,
    engines: Vec<(&'static str, &'static str)>,
    pub stacks: Vec<HashMap<String, u64>>,
}

impl Folder {
    /// Folding for config process `pid`, whose engines' code is told by `engines`.
    pub fn new(pid: u32, windows: Vec<Window>, engines: Vec<(&'static str, &'static str)>) -> Folder {
        let stacks = windows.iter().map(|_| HashMap::new()).collect();
        Folder { pid, windows, engines, stacks }
    }

    /// Add a sample to the window it fell in (none: between steps).
    pub fn add(&mut self, s: Sample) {
        let Some(w) = self.windows.iter().position(|w| s.time_ns >= w.start_ns && s.time_ns <= w.end_ns) else {
            return;
        };
        let frames: Vec<(String, String)> =
            s.frames.iter().map(|(sym, dso)| (sym.clone(), library(sym, dso, &self.engines))).collect();
        let role = role(&s, self.pid, &frames, &self.engines);
        let mut line = String::from(role.name());
        if role == Role::Server || role == Role::EngineBackground {
            // Which process or thread: postgres backends, rocksdb:low, ...
            line.push(';');
            line.push_str(&format!("[{}]", s.comm.replace(';', ":")));
        }
        for (sym, lib) in frames.iter().rev() {
            line.push(';');
            line.push_str(&frame_text(lib, sym));
        }
        *self.stacks[w].entry(line).or_insert(0) += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(comm: &str, pid: u32, tid: u32, t: u64, frames: &[(&str, &str)]) -> Sample {
        Sample {
            comm: comm.into(),
            pid,
            tid,
            time_ns: t,
            frames: frames.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        }
    }

    /// The symbols of two made-up engines: one in C++, one in Rust.
    const ENGINES: &EngineSymbols = &[("kvdb::", "libkvdb"), ("kvdb_", "libkvdb"), ("rustkv::", "librustkv")];

    fn lib(sym: &str, dso: &str) -> String {
        library(sym, dso, ENGINES)
    }

    #[test]
    fn libraries_are_told_apart_inside_rumbench() {
        assert_eq!(lib("kvdb::DBImpl::Get", "/x/target/release/rumbench"), "libkvdb");
        assert_eq!(lib("rumbench::driver::run", "/x/target/release/rumbench"), "rumbench");
        assert_eq!(lib("non-virtual thunk to kvdb::BytewiseComparatorImpl::Compare", "/x/rumbench"), "libkvdb");
        // A Rust engine's trait method, as perf demangles it.
        assert_eq!(lib("<rustkv::tree::Tree as rustkv::Abstract>::get", "/x/rumbench"), "librustkv");
        assert_eq!(lib("HUF_buildCTable_wksp", "/x/rumbench"), "libzstd", "zstd's entropy coder, linked in statically");
        assert_eq!(lib("__GI___libc_write", "/usr/lib/x86_64-linux-gnu/libc.so.6"), "libc");
        assert_eq!(lib("vfs_write", "[kernel.kallsyms]"), "kernel");
        assert_eq!(lib("ExecInsert", "/usr/lib/postgresql/16/bin/postgres"), "postgres");
        // Without the engine's symbols, its code is rumbench's own.
        assert_eq!(library("kvdb::DBImpl::Get", "/x/rumbench", &[]), "rumbench");
    }

    #[test]
    fn samples_fold_by_window_and_role() {
        let pid = 10;
        let mut f = Folder::new(
            pid,
            vec![Window { start_ns: 100, end_ns: 200 }, Window { start_ns: 300, end_ns: 400 }],
            ENGINES.to_vec(),
        );
        let exe = "/x/rumbench";
        // A client in the null engine, a client in rumbench, a background thread, a server, one between steps.
        f.add(sample(
            "rb-client-0",
            pid,
            11,
            150,
            &[("rumbench::engine::null::burn", exe), ("rumbench::workload::dbbench::client_thread", exe)],
        ));
        f.add(sample("rb-client-0", pid, 11, 160, &[("rumbench::workload::dbbench::client_thread", exe)]));
        f.add(sample("kvdb:low", pid, 12, 170, &[("kvdb::CompactionJob::Run", exe)]));
        // A client in an engine loaded as its own library.
        f.add(sample("rb-client-1", pid, 13, 180, &[("lookup", "/x/libkvdb.so"), ("rumbench::driver::run", exe)]));
        f.add(sample("postgres", 99, 99, 350, &[("ExecInsert", "/usr/lib/postgresql/16/bin/postgres")]));
        f.add(sample("rb-client-0", pid, 11, 250, &[("x", exe)]));
        let w0 = &f.stacks[0];
        assert_eq!(w0["engine-foreground;rumbench!rumbench::workload::dbbench::client_thread;rumbench!rumbench::engine::null::burn"], 1);
        assert_eq!(w0["client;rumbench!rumbench::workload::dbbench::client_thread"], 1);
        assert_eq!(w0["engine-background;[kvdb:low];libkvdb!kvdb::CompactionJob::Run"], 1);
        assert_eq!(w0["engine-foreground;rumbench!rumbench::driver::run;libkvdb!lookup"], 1);
        assert_eq!(f.stacks[1]["server;[postgres];postgres!ExecInsert"], 1);
        assert_eq!(
            w0.values().sum::<u64>() + f.stacks[1].values().sum::<u64>(),
            5,
            "the sample between steps is in no window"
        );
    }
}
