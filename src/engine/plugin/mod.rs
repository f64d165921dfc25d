//! Engines rumbench was not built with: a shared library that implements
//! the C ABI of include/rumbench_engine.h, loaded with libloading
//! (`-e plugin:/path/libfoo.so`, or `engine = "plugin"` with `library =`
//! in a suite). Its options are its own: it validates them before anything
//! runs. Its optional parts are capabilities that the plan is checked
//! against, as native engines' are. This module (loading, the engine's
//! calls) and session.rs (the per-client calls) are the only places that
//! call into a plugin; every call is marked for the crash note (`crash`).

pub mod abi;
pub mod crash;
pub mod probe;
mod session;

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{bail, Context, Result};

use self::abi::*;
use self::crash::{call, InCall};
use self::session::PluginSession;
use super::{Engine, EngineOptions, EngineSpec, OpenArgs, OptKind, OptionSpec, Session};
use crate::plan::steps::StepKind;

pub const NAME: &str = "plugin";

/// The option that names the library; every other option is the plugin's.
pub const LIBRARY: &str = "library";

pub const SPEC: EngineSpec = EngineSpec {
    name: NAME,
    profile_symbols: &[],
    sizes_not_claimed: &[],
    check_plan,
    plan_claims: super::no_plan_claims,
    space_needed: super::no_space_needed,
    versions: None,
    description: "an engine from a shared library, through rumbench's C ABI (include/rumbench_engine.h): -e plugin:/path/libfoo.so",
    options: &[
        OptionSpec {
            name: LIBRARY,
            default: "",
            kind: OptKind::Text,
            help: "the plugin's shared library (-e plugin:PATH sets it; a relative path is from the current directory)",
        },
        OptionSpec {
            name: super::ANY_OPTION,
            default: "",
            kind: OptKind::Text,
            help: "any option of the plugin's own, as it documents them: it validates them before the run starts",
        },
    ],
    io_bound_options: &[],
    presets: &[],
    open,
    stores_data: true,
    // Whose database a directory holds only the plugin could tell.
    existing_database: None,
    check,
    build_info: super::no_build_info,
    transactions: |o| {
        Plugin::of(o).ok().filter(|p| p.caps & CAP_TRANSACTIONS != 0).map(|_| "the plugin's own (RB_CAP_TRANSACTIONS)")
    },
    max_sessions: super::any_sessions,
    claims: super::no_claims,
    crash_cause: crash::cause,
    size_limits: super::no_size_limits,
};

/// A loaded plugin: its library (kept loaded for the process's life) and
/// its table of functions.
pub struct Plugin {
    pub path: PathBuf,
    pub sha256: String,
    api: &'static RbEngineApi,
    pub caps: u64,
    pub name: String,
    pub version: String,
    pub build: String,
    _library: libloading::Library,
}

// SAFETY: the table is immutable static data of a library that stays
// loaded; the header requires its engine-level calls to be thread-safe.
unsafe impl Send for Plugin {}
// SAFETY: as for Send, above.
unsafe impl Sync for Plugin {}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: the plugin hands out NUL-terminated static strings (header).
        printable(&unsafe { CStr::from_ptr(p) }.to_string_lossy())
    }
}

/// A plugin's words as rumbench shows them: its control characters (an
/// escape sequence, a carriage return) written out, never sent raw to a
/// terminal or a summary.
pub fn printable(t: &str) -> String {
    t.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// The most of a plugin's statistics sampled each second.
const MAX_SAMPLED_STATS: usize = 64;

/// A statistic's name for the sampler, which keeps names for the process's
/// life: each distinct name is kept once (a plugin has a fixed few).
fn interned(name: String) -> &'static str {
    let name = printable(&name);
    static NAMES: OnceLock<Mutex<std::collections::HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(name.as_str()) {
        return n;
    }
    let n: &'static str = Box::leak(name.into_boxed_str());
    names.insert(n);
    n
}

/// The plugin's words in an rb_error.
fn error_text(e: &RbError) -> String {
    let bytes: Vec<u8> = e.text.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    let t = printable(String::from_utf8_lossy(&bytes).trim());
    if t.is_empty() {
        "(the plugin gave no error text)".into()
    } else {
        t
    }
}

fn new_error() -> Box<RbError> {
    Box::new(RbError { text: [0; ERROR_TEXT] })
}

impl Plugin {
    /// Load the library at `path` (once per process) and check its ABI. In
    /// the main process the library is first loaded by a probe process
    /// (`probe`), so that one whose constructors or entry crash is named,
    /// not rumbench's end.
    pub fn load(path: &Path) -> Result<Arc<Plugin>> {
        static LOADED: OnceLock<Mutex<HashMap<PathBuf, Arc<Plugin>>>> = OnceLock::new();
        let path = std::fs::canonicalize(path).with_context(|| format!("plugin {}", path.display()))?;
        let mut loaded = LOADED.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = loaded.get(&path) {
            return Ok(p.clone());
        }
        if !probe::code_runs_here() {
            probe::run(&path, None)?;
        }
        let p = Arc::new(Self::load_uncached(&path, &|_| {})?);
        loaded.insert(path, p.clone());
        Ok(p)
    }

    /// Load it, telling `mark` what runs of the plugin's code before each part.
    fn load_uncached(path: &Path, mark: &dyn Fn(&str)) -> Result<Plugin> {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read plugin {}", path.display()))?;
        let sha256 = {
            use sha2::Digest;
            format!("{:x}", sha2::Sha256::digest(&bytes))
        };
        mark("loading its library (its constructors)");
        // SAFETY: loading a library runs its initialisers: the user named it
        // as the engine to run, which is trusting it with this process.
        let library = unsafe { libloading::Library::new(path) }
            .map_err(|e| anyhow::anyhow!("cannot load plugin {}: {e}", path.display()))?;
        // SAFETY: the entry's type is the header's rb_engine_entry_fn.
        let entry: libloading::Symbol<unsafe extern "C" fn() -> *const RbEngineApi> = unsafe { library.get(ENTRY) }
            .map_err(|_| {
                anyhow::anyhow!(
                    "{} is not a rumbench engine plugin: it exports no rumbench_engine_api (include/rumbench_engine.h)",
                    path.display()
                )
            })?;
        mark("its entry, rumbench_engine_api");
        // SAFETY: the entry returns a pointer to static data (header), or null.
        let api = unsafe { entry() };
        if api.is_null() {
            bail!("plugin {}: rumbench_engine_api returned no table", path.display());
        }
        // Only the first two fields are read before the version is known.
        // SAFETY: every version of the table starts with abi_version and struct_size.
        let (abi_version, struct_size) = unsafe { ((*api).abi_version, (*api).struct_size) };
        if abi_version != ABI_VERSION {
            bail!(
                "plugin {} is built for rumbench engine ABI version {abi_version}, and this rumbench speaks version {ABI_VERSION}: rebuild it against this rumbench's include/rumbench_engine.h",
                path.display()
            );
        }
        if (struct_size as usize) < RbEngineApi::FIRST_SIZE {
            bail!(
                "plugin {}: its function table is {struct_size} bytes, smaller than ABI version {ABI_VERSION}'s {} bytes: it was built against another include/rumbench_engine.h",
                path.display(),
                RbEngineApi::FIRST_SIZE
            );
        }
        // The table as far as the plugin's struct_size goes: a plugin built
        // against an older header lacks the calls appended since, which stay
        // NULL here (a table read past its end would read the plugin's other data).
        let table = {
            // SAFETY: all zeroes is a valid table: null pointers, None functions, 0 numbers.
            let mut table: RbEngineApi = unsafe { std::mem::zeroed() };
            let size = (struct_size as usize).min(std::mem::size_of::<RbEngineApi>());
            // SAFETY: the plugin's table holds struct_size bytes (at least
            // FIRST_SIZE, checked above); at most our table's size is copied.
            unsafe {
                std::ptr::copy_nonoverlapping(api.cast::<u8>(), (&mut table as *mut RbEngineApi).cast::<u8>(), size)
            };
            table
        };
        // One table per library, kept for the process's life as the library is.
        let api: &'static RbEngineApi = Box::leak(Box::new(table));
        let plugin = Plugin {
            path: path.to_path_buf(),
            sha256,
            api,
            caps: api.capabilities,
            name: text(api.name),
            version: text(api.version),
            build: text(api.build),
            _library: library,
        };
        plugin.check_table()?;
        Ok(plugin)
    }

    /// Every required function is there, and every announced optional one.
    fn check_table(&self) -> Result<()> {
        let a = self.api;
        let required = [
            ("check_options", a.check_options.is_some()),
            ("open", a.open.is_some()),
            ("close", a.close.is_some()),
            ("effective_options", a.effective_options.is_some()),
            ("stats", a.stats.is_some()),
            ("syncs_writes", a.syncs_writes.is_some()),
            ("sync", a.sync.is_some()),
            ("session_open", a.session_open.is_some()),
            ("session_close", a.session_close.is_some()),
            ("put", a.put.is_some()),
            ("del", a.del.is_some()),
            ("get", a.get.is_some()),
            ("scan_seek", a.scan_seek.is_some()),
            ("scan_next", a.scan_next.is_some()),
            ("scan_end", a.scan_end.is_some()),
        ];
        let optional = [
            (CAP_WRITE_BATCH, "write_batch", a.write_batch.is_some()),
            (CAP_MULTI_GET, "multi_get", a.multi_get.is_some()),
            (CAP_FLUSH, "flush", a.flush.is_some()),
            (CAP_WAIT_IDLE, "wait_idle", a.wait_idle.is_some()),
            (
                CAP_TRANSACTIONS,
                "txn_begin, txn_get_for_update, txn_put, txn_commit and txn_rollback",
                a.txn_begin.is_some()
                    && a.txn_get_for_update.is_some()
                    && a.txn_put.is_some()
                    && a.txn_commit.is_some()
                    && a.txn_rollback.is_some(),
            ),
        ];
        let mut missing: Vec<&str> = required.iter().filter(|(_, there)| !there).map(|(n, _)| *n).collect();
        missing.extend(optional.iter().filter(|(cap, _, there)| self.caps & cap != 0 && !there).map(|(_, n, _)| *n));
        if !missing.is_empty() {
            bail!(
                "plugin {} ({}) lacks {} in its function table{}",
                self.path.display(),
                self.name,
                missing.join(", "),
                if self.caps != 0 { format!(" (it announces {})", capability_names(self.caps)) } else { String::new() }
            );
        }
        Ok(())
    }

    /// The plugin a config's options name.
    pub fn of(o: &EngineOptions) -> Result<Arc<Plugin>> {
        match o.0.get(LIBRARY).map(String::as_str) {
            Some(path) if !path.is_empty() => Plugin::load(Path::new(path)),
            _ => bail!("engine plugin needs its library: -e plugin:/path/libfoo.so (or library = \"...\" in a suite's [[config]])"),
        }
    }

    /// The options that are the plugin's own, as C strings (every option but `library`).
    fn own_options(o: &EngineOptions) -> Result<Vec<(CString, CString)>> {
        o.0.iter()
            .filter(|(k, _)| k.as_str() != LIBRARY)
            .map(|(k, v)| Ok((CString::new(k.as_str())?, CString::new(v.as_str())?)))
            .collect::<std::result::Result<_, std::ffi::NulError>>()
            .context("a plugin option holds a NUL byte")
    }

    /// Its own validation of these options (in the main process, by a
    /// probe process: a plugin that crashes in it is named).
    pub fn check_options(&self, o: &EngineOptions) -> Result<()> {
        if !probe::code_runs_here() {
            return probe::run(&self.path, Some(o));
        }
        let owned = Self::own_options(o)?;
        let pairs: Vec<RbPair> = owned.iter().map(|(k, v)| RbPair { name: k.as_ptr(), value: v.as_ptr() }).collect();
        let mut err = new_error();
        let _in = InCall::enter(const { call("check_options") });
        // SAFETY: pairs point into `owned`, alive for the call; err is ours.
        let rc = unsafe { (self.api.check_options.expect("checked at load"))(pairs.as_ptr(), pairs.len(), &mut *err) };
        match rc {
            RB_OK => Ok(()),
            _ => bail!("{}: {}", self.name, error_text(&err)),
        }
    }

    fn has(&self, cap: u64) -> bool {
        self.caps & cap != 0
    }

    /// Its options as it describes them (an append to the ABI): name,
    /// default, help; None when it describes none.
    pub fn option_docs(&self) -> Option<Vec<(String, String, String)>> {
        let mut d = self.api.option_docs;
        if d.is_null() {
            return None;
        }
        let mut out = Vec::new();
        // SAFETY: the header's contract: a static array ending with a NULL
        // name; at most a thousand are read, whatever the plugin did.
        unsafe {
            while !(*d).name.is_null() && out.len() < 1000 {
                out.push((text((*d).name), text((*d).default_value), text((*d).help)));
                d = d.add(1);
            }
        }
        Some(out)
    }
}

/// What a status other than RB_OK and RB_NOT_FOUND says, before the
/// plugin's own words: the appended kinds of error are told apart.
pub(super) fn status_words(rc: RbStatus) -> String {
    match rc {
        RB_BUSY => "the engine was busy: ".into(),
        RB_NO_SPACE => "out of space: ".into(),
        RB_CORRUPTION => "corruption: ".into(),
        RB_CONFLICT | RB_ERROR => String::new(),
        other => format!("status {} (not one of the header's): ", other.0),
    }
}

/// `EngineSpec::check`: the plugin loaded, and its own validation of the options.
pub(super) fn check(o: &EngineOptions) -> Result<()> {
    let plugin = Plugin::of(o)?;
    plugin.check_options(o)
}

/// The config's name when the user gives none: the plugin's own name.
pub fn config_name(o: &EngineOptions) -> Option<String> {
    let p = Plugin::of(o).ok()?;
    let name: String =
        p.name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '-' }).collect();
    (!name.is_empty()).then(|| format!("plugin-{name}"))
}

/// Refuse, before anything runs, a step that needs a capability the
/// plugin does not announce.
pub fn check_plan(c: &crate::plan::EngineConfig, plan: &crate::plan::RunPlan) -> Result<()> {
    let p = Plugin::of(&EngineOptions(c.options.clone()))?;
    let lacks = |cap: u64, what: &str, kind: StepKind| -> Result<()> {
        match p.has(cap) {
            true => Ok(()),
            false => bail!(
                "config {}: step {kind} needs {what}, which plugin {} does not announce (its capabilities: {})",
                c.name,
                p.name,
                capability_names(p.caps)
            ),
        }
    };
    for s in &plan.steps {
        let k = s.kind;
        if k.is_ibench() {
            lacks(CAP_WRITE_BATCH, "write batches (RB_CAP_WRITE_BATCH: a row and its index entries in one commit)", k)?;
        }
        if k == StepKind::RevRange {
            lacks(CAP_REVERSE_SCAN, "reverse scans (RB_CAP_REVERSE_SCAN)", k)?;
        }
        if s.settings.batch_size > 1 && k.loads() {
            lacks(CAP_WRITE_BATCH, "write batches (RB_CAP_WRITE_BATCH) with --batch-size above 1", k)?;
        }
        if let Some(r) = s.settings.replay.as_ref().filter(|_| k == StepKind::Replay) {
            use crate::datagen::trace::CallKind;
            let trace = crate::datagen::trace::Trace::load(&r.path).map_err(|e| anyhow::anyhow!("--replay: {e}"))?;
            if trace.calls.iter().any(|c| c.kind == CallKind::SeekBack) {
                lacks(CAP_REVERSE_SCAN, "reverse scans (RB_CAP_REVERSE_SCAN) for the trace's backward seeks", k)?;
            }
            if trace.calls.iter().any(|c| c.kind == CallKind::Batch) {
                lacks(CAP_WRITE_BATCH, "write batches (RB_CAP_WRITE_BATCH) for the trace's batches", k)?;
            }
        }
    }
    Ok(())
}

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    let plugin = Plugin::of(&args.options)?;
    if args.read_only && !plugin.has(CAP_READ_ONLY) {
        bail!("plugin {} cannot open a database read-only (no RB_CAP_READ_ONLY)", plugin.name);
    }
    let owned = Plugin::own_options(&args.options)?;
    let pairs: Vec<RbPair> = owned.iter().map(|(k, v)| RbPair { name: k.as_ptr(), value: v.as_ptr() }).collect();
    let dir = CString::new(args.dir.as_os_str().as_encoded_bytes()).context("the data dir's path holds a NUL byte")?;
    let open_args = RbOpenArgs {
        struct_size: std::mem::size_of::<RbOpenArgs>() as u32,
        dir: dir.as_ptr(),
        key_size: args.key_size as u32,
        value_size: args.value_size as u32,
        num_keys: args.num_keys,
        threads: args.threads as u32,
        create: args.create as i32,
        read_only: args.read_only as i32,
    };
    crash::watch(&args.dir);
    let mut raw: *mut RbEngine = std::ptr::null_mut();
    let mut err = new_error();
    let rc = {
        let _in = InCall::enter(const { call("open") });
        // SAFETY: every pointer is alive for the call; raw receives the engine.
        unsafe {
            (plugin.api.open.expect("checked at load"))(&open_args, pairs.as_ptr(), pairs.len(), &mut raw, &mut *err)
        }
    };
    if rc != RB_OK || raw.is_null() {
        bail!("{}: {}", plugin.name, error_text(&err));
    }
    let mut engine = PluginEngine { plugin, raw, syncs: false, read_only: args.read_only, dir: args.dir.clone() };
    engine.syncs = {
        let _in = InCall::enter(const { call("syncs_writes") });
        // SAFETY: raw is the open engine.
        unsafe { (engine.plugin.api.syncs_writes.expect("checked at load"))(engine.raw) != 0 }
    };
    Ok(Box::new(engine))
}

pub struct PluginEngine {
    plugin: Arc<Plugin>,
    raw: *mut RbEngine,
    syncs: bool,
    /// Opened read-only (asked, and the plugin announces RB_CAP_READ_ONLY).
    read_only: bool,
    dir: PathBuf,
}

// SAFETY: the header requires engine-level calls to be safe from any thread
// while sessions run.
unsafe impl Send for PluginEngine {}
// SAFETY: as for Send, above.
unsafe impl Sync for PluginEngine {}

impl Drop for PluginEngine {
    fn drop(&mut self) {
        let _in = InCall::enter(const { call("close") });
        // SAFETY: raw is the open engine; every session borrowed self and is gone.
        unsafe { (self.plugin.api.close.expect("checked at load"))(self.raw) }
    }
}

/// Collects name=value pairs from an emit callback.
unsafe extern "C" fn collect(ctx: *mut c_void, name: *const c_char, value: *const c_char) {
    // SAFETY: ctx is the Vec passed by `pairs` below, alive for the call.
    let out = unsafe { &mut *(ctx as *mut Vec<(String, String)>) };
    out.push((text(name), text(value)));
}

impl PluginEngine {
    /// The plugin's sync: everything acknowledged made durable.
    pub fn sync(&self) -> Result<()> {
        let mut err = new_error();
        let _in = InCall::enter(const { call("sync") });
        // SAFETY: the engine is open; err is ours.
        let rc = unsafe { (self.plugin.api.sync.expect("checked at load"))(self.raw, &mut *err) };
        self.status(rc, &err, "sync")
    }

    fn pairs(
        &self,
        f: Option<unsafe extern "C" fn(*mut RbEngine, RbEmitFn, *mut c_void)>,
        which: u8,
    ) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        let _in = InCall::enter(which);
        // SAFETY: raw is the open engine; the callback's ctx is `out`, alive for the call.
        unsafe { (f.expect("checked at load"))(self.raw, Some(collect), &mut out as *mut _ as *mut c_void) };
        out
    }

    /// A session, told its client's thread when the plugin takes it
    /// (session_open_thread, an append to the ABI).
    fn open_session(&self, thread: Option<usize>) -> Result<Box<dyn Session + '_>> {
        let mut raw: *mut RbSession = std::ptr::null_mut();
        let mut err = new_error();
        let api = self.plugin.api;
        let rc = {
            let _in = InCall::enter(const { call("session_open") });
            match (api.session_open_thread, thread) {
                // SAFETY: raw receives the session; the engine is open.
                (Some(f), Some(t)) => unsafe { f(self.raw, t as u32, &mut raw, &mut *err) },
                // SAFETY: as above.
                _ => unsafe { (api.session_open.expect("checked at load"))(self.raw, &mut raw, &mut *err) },
            }
        };
        self.status(rc, &err, "session_open")?;
        if raw.is_null() {
            bail!("{}: session_open returned no session", self.plugin.name);
        }
        Ok(Box::new(PluginSession::new(self, raw)))
    }

    fn status(&self, rc: RbStatus, err: &RbError, what: &str) -> Result<()> {
        match rc {
            RB_OK => Ok(()),
            _ => bail!(
                "{}: {what} failed in {}: {}{}",
                self.plugin.name,
                self.dir.display(),
                status_words(rc),
                error_text(err)
            ),
        }
    }
}

impl Engine for PluginEngine {
    fn version(&self) -> String {
        self.plugin.version.clone()
    }

    fn read_only(&self) -> bool {
        self.read_only
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        let mut o = self.pairs(self.plugin.api.effective_options, const { call("effective_options") });
        o.push((LIBRARY.into(), self.plugin.path.display().to_string()));
        o
    }

    fn provenance(&self) -> Vec<(String, String)> {
        let p = &self.plugin;
        vec![
            ("plugin.name".into(), p.name.clone()),
            ("plugin.library".into(), p.path.display().to_string()),
            ("plugin.sha256".into(), p.sha256.clone()),
            ("plugin.abi_version".into(), ABI_VERSION.to_string()),
            ("plugin.capabilities".into(), capability_names(p.caps)),
            ("build".into(), p.build.clone()),
        ]
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        self.open_session(None)
    }

    fn session_for(&self, thread: usize) -> Result<Box<dyn Session + '_>> {
        self.open_session(Some(thread))
    }

    /// The plugin's flush (RB_CAP_FLUSH), else its sync: what a flush step
    /// asks is that nothing is left in buffers, as LMDB's native flush syncs.
    fn flush(&self) -> Result<()> {
        let mut err = new_error();
        if self.plugin.has(CAP_FLUSH) {
            let _in = InCall::enter(const { call("flush") });
            // SAFETY: the engine is open; err is ours.
            let rc = unsafe { (self.plugin.api.flush.expect("checked at load"))(self.raw, &mut *err) };
            return self.status(rc, &err, "flush");
        }
        self.sync()
    }

    fn wait_for_background_work(&self, timeout: std::time::Duration) -> Result<Option<bool>> {
        if !self.plugin.has(CAP_WAIT_IDLE) {
            return Ok(None);
        }
        let mut idle = 0i32;
        let mut err = new_error();
        let _in = InCall::enter(const { call("wait_idle") });
        // SAFETY: the engine is open; idle and err are ours.
        let rc = unsafe {
            (self.plugin.api.wait_idle.expect("checked at load"))(
                self.raw,
                timeout.as_millis() as u64,
                &mut idle,
                &mut *err,
            )
        };
        self.status(rc, &err, "wait_idle")?;
        Ok(Some(idle != 0))
    }

    fn background_work_pending(&self) -> Result<Option<bool>> {
        Ok(self.wait_for_background_work(std::time::Duration::ZERO)?.map(|idle| !idle))
    }

    fn stats(&self) -> Vec<(String, String)> {
        self.pairs(self.plugin.api.stats, const { call("stats") })
    }

    /// Its numeric statistics each second: cumulative since open (the
    /// header's word) as their rate, `NAME_per_s`; the `debt.*` ones, the
    /// work still owed now, as they are.
    fn internals(&self) -> std::result::Result<Vec<super::Internal>, String> {
        let out: Vec<super::Internal> = self
            .stats()
            .into_iter()
            .filter_map(|(k, v)| {
                let value = v.trim().parse::<f64>().ok().filter(|v| v.is_finite())?;
                let cumulative = !k.starts_with("debt.");
                let name = if cumulative { format!("{k}_per_s") } else { k };
                Some(super::Internal { name: interned(name), value, cumulative })
            })
            .take(MAX_SAMPLED_STATS)
            .collect();
        match out.is_empty() {
            true => Err(format!("plugin {} reports no numeric statistics", self.plugin.name)),
            false => Ok(out),
        }
    }

    /// From the statistics the header names: ingest_bytes and written_bytes.
    fn write_amp_counters(&self) -> Option<super::WriteAmpCounters> {
        let stats = self.stats();
        let get = |n: &str| stats.iter().find(|(k, _)| k == n).and_then(|(_, v)| v.parse::<u64>().ok());
        Some(super::WriteAmpCounters {
            ingest_bytes: get("ingest_bytes")?,
            written_bytes: get("written_bytes")?,
            resolution_bytes: 1,
        })
    }

    fn write_batches(&self) -> bool {
        self.plugin.has(CAP_WRITE_BATCH)
    }

    fn reverse_scans(&self) -> bool {
        self.plugin.has(CAP_REVERSE_SCAN)
    }

    /// The statistics named "debt.NAME" (header), when the plugin gives any.
    fn write_debt(&self) -> std::result::Result<Vec<(String, u64)>, String> {
        let debt: Vec<(String, u64)> = self
            .stats()
            .into_iter()
            .filter_map(|(k, v)| Some((k.strip_prefix("debt.")?.to_string(), v.parse().ok()?)))
            .collect();
        match debt.is_empty() {
            true => Err(format!("plugin {} reports no debt.* statistics", self.plugin.name)),
            false => Ok(debt),
        }
    }

    fn step_notes(&self, step: crate::plan::steps::StepKind) -> Vec<String> {
        let writes = step.changes_data();
        match writes && !self.syncs {
            true => vec![format!(
                "plugin {} says its acknowledged writes are not synced as configured (syncs_writes = 0): a machine crash may lose them",
                self.plugin.name
            )],
            false => Vec::new(),
        }
    }
}
