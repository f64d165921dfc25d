//! MongoDB by URL (`--target mongodb://user[:password]@host[:port]/database?options`):
//! a server the user runs (or one that speaks its wire protocol, as
//! FerretDB), reached through the official driver. rumbench never starts one.
//! Setup and figures use a driver of their own (`Mongo`), and each client
//! thread runs its operations on one of its own (`ThreadDriver`): the async
//! API, each on a current-thread runtime of its own, whose calls a verdict
//! that the server is gone (`super::liveness`) cuts.
//!
//! Here: the URL's options and the write concern (a setting of the config),
//! connecting with a connect and handshake time-out (the driver retries until
//! its server selection time-out; what the port answered is then looked at
//! once, so a web server or sshd is named), the server's identity (buildInfo,
//! serverStatus) and its own figures (serverStatus, dbStats, collStats), and
//! rumbench's collections: found, dropped.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use mongodb::bson::{doc, Bson, Document};
use mongodb::error::ErrorKind;
use mongodb::options::{
    Acknowledgment, ClientOptions, DatabaseOptions, ReadPreference, SelectionCriteria, Tls, WriteConcern,
};

use super::liveness::{Beat, Heart, Liveness, Registration};
use super::wire::{sent_text, CONNECT_TIMEOUT};

pub const DEFAULT_PORT: u16 = 27017;

/// Why a mongodb config without a target cannot run.
pub const BY_URL_ONLY: &str =
    "rumbench does not start MongoDB: run it yourself and give its URL, --target mongodb://user@host:port/database (see docs/mongodb.md)";

/// URL options the config sets instead, so that results record them.
const WRITE_CONCERN_OPTIONS: [&str; 3] = ["w", "journal", "wtimeoutms"];

/// The URL's query, checked: no password in it (it would be recorded with
/// the URL) and no write concern (a setting of the config: `-o w=...`).
pub fn check_url_options(query: &str) -> Result<()> {
    for kv in query.split('&').filter(|kv| !kv.is_empty()) {
        let key = kv.split_once('=').map_or(kv, |(k, _)| k);
        let lower = key.to_ascii_lowercase();
        if lower.contains("password") {
            bail!("option {key} holds a password, which would be recorded with the URL: use a key file without one");
        }
        if WRITE_CONCERN_OPTIONS.contains(&lower.as_str()) {
            bail!("option {key}: the write concern is a setting of the config, recorded with the results: -o w=..., -o j=..., -o wtimeout_ms=...");
        }
    }
    Ok(())
}

/// Where a MongoDB server is and who rumbench is there (the parts of its
/// URL; `Endpoint::mongodb_address` makes it).
#[derive(Clone)]
pub struct Address {
    /// One host, or a replica set's seed list as written ("h1:27017,h2").
    pub host: String,
    /// The port of a single host.
    pub port: u16,
    /// Empty: no credentials.
    pub user: String,
    pub password: Option<String>,
    pub database: String,
    /// The URL's query: the driver's options.
    pub url_options: Option<String>,
    /// Whether the server is still there (`Endpoint::watch`).
    pub liveness: Option<Arc<Liveness>>,
}

/// The URL as results record it: no password.
pub fn url_without_password(e: &Address) -> String {
    let user = if e.user.is_empty() { String::new() } else { format!("{}@", e.user) };
    let host = if e.host.contains(',') || e.host.starts_with('[') {
        e.host.clone()
    } else if e.host.contains(':') {
        format!("[{}]:{}", e.host, e.port)
    } else {
        format!("{}:{}", e.host, e.port)
    };
    let query = e.url_options.as_deref().map(|q| format!("?{q}")).unwrap_or_default();
    format!("mongodb://{user}{host}/{}{query}", e.database)
}

/// `%XX` for everything but unreserved characters (a password's '@', ':', '/').
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The write concern of a config's writes (options `w`, `j`, `wtimeout_ms`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteConcernSetting {
    /// "majority", a node count (1..), or a tag set's name.
    pub w: String,
    /// Acknowledged only once in the journal on disk.
    pub j: bool,
    /// How long a w above 1 may wait (0: no limit).
    pub wtimeout_ms: u64,
}

impl WriteConcernSetting {
    pub fn from_options(options: &BTreeMap<String, String>) -> Result<WriteConcernSetting> {
        let w = options.get("w").map(String::as_str).unwrap_or("1").to_string();
        if w.is_empty() || w == "0" {
            bail!("mongodb w={w:?}: unacknowledged writes measure nothing the server did; give w=1, a node count, majority or a tag set");
        }
        let j = match options.get("j").map(String::as_str).unwrap_or("false") {
            "true" => true,
            "false" => false,
            other => bail!("mongodb j={other:?}: true or false"),
        };
        let wtimeout_ms = options
            .get("wtimeout_ms")
            .map(|v| v.parse::<u64>().map_err(|_| anyhow!("mongodb wtimeout_ms={v:?}: milliseconds, 0 for no limit")))
            .transpose()?
            .unwrap_or(0);
        Ok(WriteConcernSetting { w, j, wtimeout_ms })
    }

    fn acknowledgment(&self) -> Acknowledgment {
        match self.w.parse::<u32>() {
            Ok(n) => Acknowledgment::Nodes(n),
            Err(_) if self.w == "majority" => Acknowledgment::Majority,
            Err(_) => Acknowledgment::Custom(self.w.clone()),
        }
    }

    pub fn driver(&self) -> WriteConcern {
        let mut wc = WriteConcern::builder().w(self.acknowledgment()).journal(self.j).build();
        if self.wtimeout_ms > 0 {
            wc.w_timeout = Some(Duration::from_millis(self.wtimeout_ms));
        }
        wc
    }

    /// `{w: 1, j: false, wtimeout: 0}`, as results record it.
    pub fn describe(&self) -> String {
        let w = if self.w.parse::<u32>().is_ok() { self.w.clone() } else { format!("\"{}\"", self.w) };
        format!("{{w: {w}, j: {}, wtimeout: {}}}", self.j, self.wtimeout_ms)
    }

    /// Why an acknowledged write may not be on disk yet (None: journaled).
    pub fn not_durable_reason(&self) -> Option<String> {
        (!self.j).then(|| {
            format!(
                "write concern {} acknowledges writes before they are in the journal on disk (the server flushes its journal on its own schedule): set -o j=true for journaled acknowledgements",
                self.describe()
            )
        })
    }
}

/// The setup's and the figures' driver: its pool, the benchmark's database
/// with the config's write concern; the async API on a runtime of its own
/// (as a client thread's), so that a verdict that the server is gone cuts
/// its calls too.
pub struct Mongo {
    /// The target's URL without the password, for messages.
    pub url: String,
    driver: ThreadDriver,
    /// What a client thread's own driver is made with.
    options: ClientOptions,
    db_options: DatabaseOptions,
    database: String,
    liveness: Option<Arc<Liveness>>,
}

impl Mongo {
    /// A driver for `endpoint`'s database (the setup's and the figures'; the
    /// client threads make their own, `thread_driver`); two connections at
    /// most, or the URL's maxPoolSize; writes with `wc`. It connects at its
    /// first call.
    pub fn connect(endpoint: &Address, wc: Option<&WriteConcernSetting>) -> Result<Mongo> {
        if let Some(l) = &endpoint.liveness {
            l.check()?;
        }
        let url = url_without_password(endpoint);
        let options = client_options(endpoint, 2)?;
        let mut db_options = DatabaseOptions::default();
        db_options.write_concern = wc.map(WriteConcernSetting::driver);
        let driver =
            ThreadDriver::new(options.clone(), &endpoint.database, &db_options, endpoint.liveness.as_ref(), &url)?;
        Ok(Mongo {
            url,
            driver,
            options,
            db_options,
            database: endpoint.database.clone(),
            liveness: endpoint.liveness.clone(),
        })
    }

    /// The benchmark's database, for actions given to `run`.
    pub fn db(&self) -> &mongodb::Database {
        &self.driver.db
    }

    /// Run one of the driver's actions on `db()` to its end (see `ThreadDriver::run`).
    pub fn run<T, F>(&self, what: &str, action: F) -> Result<T>
    where
        F: std::future::IntoFuture<Output = mongodb::error::Result<T>>,
    {
        self.driver.run(what, action)
    }

    /// A driver for one client thread: the driver's async API on a runtime
    /// of the thread's own, so that an operation's socket waits happen on the
    /// thread that runs it. The sync API hands each wait to its runtime's
    /// worker threads and back: 1.8 times the CPU per operation
    /// (docs/mongodb.md, "rumbench's client cost per operation").
    pub fn thread_driver(&self) -> Result<ThreadDriver> {
        let mut options = self.options.clone();
        // A thread runs one operation at a time; a second connection only
        // if one is being replaced.
        options.max_pool_size = Some(2);
        let driver = ThreadDriver::new(options, &self.database, &self.db_options, self.liveness.as_ref(), &self.url)?;
        // Connect (and authenticate) now, before the step's clock starts.
        driver.run(&self.url, driver.db.run_command(doc! {"ping": 1}))?;
        Ok(driver)
    }

    /// A command on the benchmark's database.
    pub fn command(&self, command: Document) -> Result<Document> {
        self.run("", self.db().run_command(command))
    }

    /// A command on the admin database.
    pub fn admin_command(&self, command: Document) -> Result<Document> {
        self.run("", self.driver.client().database("admin").run_command(command))
    }

    /// What the server is, from buildInfo (and serverStatus for its storage engine).
    pub fn identity(&self) -> Result<ServerIdentity> {
        let info = self.admin_command(doc! {"buildInfo": 1}).context("buildInfo")?;
        let status = self.admin_command(doc! {"serverStatus": 1}).ok();
        Ok(ServerIdentity::from_documents(&info, status.as_ref()))
    }
}

/// One client thread's driver (`Mongo::thread_driver`): its own connection
/// and monitors, on a current-thread runtime that runs only while the thread
/// waits for an operation.
pub struct ThreadDriver {
    pub db: mongodb::Database,
    client: Option<mongodb::Client>,
    /// Woken when the server is found gone: the operation under way is dropped.
    cut: Option<(Registration, Arc<tokio::sync::Notify>)>,
    liveness: Option<Arc<Liveness>>,
    runtime: tokio::runtime::Runtime,
}

impl ThreadDriver {
    /// A driver on a current-thread runtime of its own, cut by `liveness`'s verdict.
    fn new(
        options: ClientOptions,
        database: &str,
        db_options: &DatabaseOptions,
        liveness: Option<&Arc<Liveness>>,
        url: &str,
    ) -> Result<ThreadDriver> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start a driver's runtime")?;
        // The driver starts its monitors on the runtime it is made in.
        let client = {
            let _in_runtime = runtime.enter();
            mongodb::Client::with_options(options).map_err(|e| anyhow!("{url}: {}", one_line(&e.to_string())))?
        };
        let db = client.database_with_options(database, db_options.clone());
        let cut = liveness.map(|l| l.waker());
        Ok(ThreadDriver { db, client: Some(client), cut, liveness: liveness.cloned(), runtime })
    }

    fn client(&self) -> &mongodb::Client {
        self.client.as_ref().expect("a driver's client until it is dropped")
    }

    /// Run one of the driver's actions (or any future giving a driver
    /// result) to its end on this thread; an error says `what` failed. When
    /// the server is found gone (the liveness monitor's verdict), the
    /// operation is dropped where it waits (the driver would retry a closed
    /// connection until its server selection time-out) and the verdict is
    /// the error.
    #[inline]
    pub fn run<T, F>(&self, what: &str, action: F) -> Result<T>
    where
        F: std::future::IntoFuture<Output = mongodb::error::Result<T>>,
    {
        use std::future::Future;
        let done = match &self.cut {
            None => Some(self.runtime.block_on(action.into_future())),
            Some((_, notify)) => {
                self.gone()?;
                let mut op = std::pin::pin!(action.into_future());
                let mut cut = std::pin::pin!(notify.notified());
                // The operation first: one that ends as the verdict comes keeps its result.
                self.runtime.block_on(std::future::poll_fn(|cx| match op.as_mut().poll(cx) {
                    Poll::Ready(r) => Poll::Ready(Some(r)),
                    Poll::Pending => cut.as_mut().poll(cx).map(|()| None),
                }))
            }
        };
        match done {
            Some(Ok(v)) => Ok(v),
            Some(Err(e)) => {
                self.gone()?;
                match what {
                    "" => Err(anyhow!("{}", one_line(&e.to_string()))),
                    _ => Err(anyhow!("{what}: {}", one_line(&e.to_string()))),
                }
            }
            None => self.gone().and_then(|()| Err(anyhow!("{what}: cut short"))),
        }
    }

    /// Ok unless the server is known to be gone.
    fn gone(&self) -> Result<()> {
        self.liveness.as_ref().map_or(Ok(()), |l| l.check())
    }
}

impl Drop for ThreadDriver {
    /// End the driver's sessions on the server and close its connections
    /// while its runtime still runs (a dropped runtime would just cut them);
    /// not on a server known to be gone, where that would only wait.
    fn drop(&mut self) {
        if self.gone().is_err() {
            return;
        }
        if let Some(client) = self.client.take() {
            // The time-out's timer is made inside the runtime (it needs its clock).
            let _ =
                self.runtime.block_on(async { tokio::time::timeout(Duration::from_secs(2), client.shutdown()).await });
        }
    }
}

/// The driver's options from the endpoint: its URL with the password put
/// back, the time-outs rumbench gives every server unless the URL sets its own.
fn client_options(endpoint: &Address, pool: u32) -> Result<ClientOptions> {
    let userinfo = match (endpoint.user.is_empty(), &endpoint.password) {
        (true, _) => String::new(),
        (false, Some(p)) => format!("{}:{}@", percent_encode(&endpoint.user), percent_encode(p)),
        (false, None) => format!("{}@", percent_encode(&endpoint.user)),
    };
    let host = url_without_password(endpoint);
    let after_scheme = host.strip_prefix("mongodb://").unwrap_or(&host);
    let after_user = if endpoint.user.is_empty() {
        after_scheme
    } else {
        after_scheme.split_once('@').map_or(after_scheme, |(_, h)| h)
    };
    let full = format!("mongodb://{userinfo}{after_user}");
    let mut options = ClientOptions::parse(&full).run().map_err(|e| {
        // The driver's message quotes no URL, but make sure no password gets through.
        let text = e.to_string();
        let text =
            endpoint.password.as_deref().filter(|p| !p.is_empty()).map_or(text.clone(), |p| text.replace(p, "***"));
        anyhow!("{}: {}", url_without_password(endpoint), one_line(&text))
    })?;
    options.connect_timeout.get_or_insert(CONNECT_TIMEOUT);
    // The driver retries a server that does not answer until this runs out:
    // it is the connect and handshake time-out of every operation.
    options.server_selection_timeout.get_or_insert(CONNECT_TIMEOUT);
    options.max_pool_size = Some(pool.max(options.max_pool_size.unwrap_or(0)).max(2));
    options.app_name.get_or_insert_with(|| "rumbench".to_string());
    Ok(options)
}

/// Whether a URL asks for TLS (then what the port sends cannot be read plainly).
fn uses_tls(options: &ClientOptions) -> bool {
    matches!(options.tls, Some(Tls::Enabled(_)))
}

/// A driver message on one line, without the topology's braces when it is a
/// server selection time-out: the cause the driver saw last.
fn one_line(text: &str) -> String {
    let text = text.replace('\n', " ");
    match text.find("Error: ") {
        Some(i) if text.contains("Server selection timeout") => {
            let cause = &text[i + "Error: ".len()..];
            let end =
                cause.find(" }, ").or_else(|| cause.find(", ] }")).or_else(|| cause.rfind(" }")).unwrap_or(cause.len());
            cause[..end].trim_end_matches([' ', ',', '}']).to_string()
        }
        _ => text,
    }
}

/// Before anything runs: the server answers MongoDB's protocol within the
/// time-outs, lets rumbench in, and lists the database's collections.
pub fn check_answers(endpoint: &Address) -> Result<()> {
    existing_collections(endpoint, &[]).map(drop)
}

/// The liveness monitor's ping of a MongoDB server (or a replica set's
/// nearest member): `ping` on a driver of its own, on a runtime of its own
/// that runs while it waits for the answer; selection and connect time-outs
/// of one beat.
pub fn heart(endpoint: &Address) -> Result<Box<dyn Heart>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the liveness monitor's runtime")?;
    let mut options = client_options(endpoint, 2)?;
    options.server_selection_timeout = Some(super::liveness::BEAT_WAIT);
    options.connect_timeout = Some(super::liveness::BEAT_WAIT);
    let client = {
        let _in_runtime = runtime.enter();
        mongodb::Client::with_options(options)
            .map_err(|e| anyhow!("{}: {}", url_without_password(endpoint), one_line(&e.to_string())))?
    };
    Ok(Box::new(MongoHeart { db: client.database("admin"), _client: client, runtime }))
}

struct MongoHeart {
    db: mongodb::Database,
    _client: mongodb::Client,
    /// Last: the driver's tasks end with it.
    runtime: tokio::runtime::Runtime,
}

impl Heart for MongoHeart {
    fn beat(&mut self, within: Duration) -> Beat {
        let nearest = SelectionCriteria::ReadPreference(ReadPreference::nearest(None));
        let ping = self.db.run_command(doc! {"ping": 1}).selection_criteria(nearest);
        let answer = self
            .runtime
            .block_on(async { tokio::time::timeout(within, std::future::IntoFuture::into_future(ping)).await });
        match answer {
            Ok(Ok(_)) => Beat::Answered,
            Ok(Err(e)) => match e.kind.as_ref() {
                ErrorKind::Io(io) => Beat::from_io(io.kind()),
                ErrorKind::Command(_) | ErrorKind::Authentication { .. } => Beat::Answered,
                _ => Beat::Silent,
            },
            // No answer within the wait.
            Err(_) => Beat::Silent,
        }
    }
}

/// Which of `names` are collections of the target database already.
pub fn existing_collections(endpoint: &Address, names: &[String]) -> Result<Vec<String>> {
    let m = Mongo::connect(endpoint, None)?;
    // The driver's own error, for connect_error to look into.
    let listed = m
        .driver
        .runtime
        .block_on(std::future::IntoFuture::into_future(m.db().list_collection_names()))
        .map_err(|e| connect_error(endpoint, e))?;
    Ok(names.iter().filter(|n| listed.contains(n)).cloned().collect())
}

/// Drop `names` (only ever rumbench's own collections).
pub fn drop_collections(endpoint: &Address, names: &[String]) -> Result<()> {
    let m = Mongo::connect(endpoint, None)?;
    for n in names {
        m.run(&format!("dropping {n}"), m.db().collection::<Document>(n).drop())?;
    }
    Ok(())
}

/// A failed first operation said plainly: a server error as the server put
/// it; a time-out after a look at what the port answers to a `hello`.
fn connect_error(endpoint: &Address, e: mongodb::error::Error) -> anyhow::Error {
    let cannot = format!("cannot connect to {}", url_without_password(endpoint));
    let ErrorKind::ServerSelection { message, .. } = e.kind.as_ref() else {
        return anyhow!("{cannot}: {}", one_line(&e.to_string()));
    };
    let cause = one_line(message);
    let options = client_options(endpoint, 2).ok();
    let within = options.as_ref().and_then(|o| o.server_selection_timeout).unwrap_or(CONNECT_TIMEOUT);
    let plain = options.as_ref().is_some_and(|o| !uses_tls(o));
    if plain && !endpoint.host.contains(',') {
        match probe(&endpoint.host, endpoint.port) {
            Answer::Other(sent) => return anyhow!("{cannot}: not a MongoDB server: it sent {}", sent_text(&sent)),
            Answer::Nothing => {
                return anyhow!("{cannot}: no MongoDB answer within {} s ({cause})", PROBE_WAIT.as_secs())
            }
            Answer::Mongodb | Answer::Unreachable => {}
        }
    }
    anyhow!("{cannot}: {cause} (no usable server within {} s)", within.as_secs_f64())
}

/// How long the look at a port waits for its answer.
const PROBE_WAIT: Duration = Duration::from_secs(3);

/// What a port answered to a `hello`.
#[derive(Debug, PartialEq)]
enum Answer {
    /// A MongoDB reply (OP_MSG or OP_REPLY to our request).
    Mongodb,
    Other(Vec<u8>),
    Nothing,
    Unreachable,
}

/// Send one OP_MSG `hello` and read what comes back for a moment.
fn probe(host: &str, port: u16) -> Answer {
    use std::io::{Read, Write};
    use std::net::{TcpStream, ToSocketAddrs};
    let Some(addr) = (host, port).to_socket_addrs().ok().and_then(|mut a| a.next()) else { return Answer::Unreachable };
    let Ok(mut s) = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) else { return Answer::Unreachable };
    if s.set_read_timeout(Some(PROBE_WAIT)).is_err() || s.write_all(&hello_message()).is_err() {
        return Answer::Unreachable;
    }
    let mut buf = [0u8; 128];
    let mut n = 0;
    while n < buf.len() {
        match s.read(&mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
        if n >= 16 && classify_answer(&buf[..n]) == Answer::Mongodb {
            break;
        }
    }
    classify_answer(&buf[..n])
}

const PROBE_REQUEST_ID: i32 = 0x7275_6d62;
const OP_MSG: i32 = 2013;
const OP_REPLY: i32 = 1;

/// An OP_MSG: header (length, request id, response to, opcode), flags, one
/// body section `{hello: 1, $db: "admin"}`.
fn hello_message() -> Vec<u8> {
    let body = mongodb::bson::to_vec(&doc! {"hello": 1, "$db": "admin"}).unwrap_or_default();
    let len = 16 + 4 + 1 + body.len();
    let mut m = Vec::with_capacity(len);
    for v in [len as i32, PROBE_REQUEST_ID, 0, OP_MSG, 0] {
        m.extend_from_slice(&v.to_le_bytes());
    }
    m.push(0);
    m.extend_from_slice(&body);
    m
}

/// A reply's header answers our request with a MongoDB opcode.
fn classify_answer(bytes: &[u8]) -> Answer {
    if bytes.is_empty() {
        return Answer::Nothing;
    }
    let word = |i: usize| bytes.get(i..i + 4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    match (word(8), word(12)) {
        (Some(PROBE_REQUEST_ID), Some(OP_MSG | OP_REPLY)) => Answer::Mongodb,
        _ => Answer::Other(bytes.to_vec()),
    }
}

/// What the server says it is.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerIdentity {
    /// "MongoDB" or "FerretDB" (a wire-compatible server says so in buildInfo).
    pub product: String,
    /// The product's own version ("7.0.14", "v1.24.2").
    pub version: String,
    /// The MongoDB version a compatible server claims to be ("7.0.42"), when not MongoDB.
    pub claims_mongodb: Option<String>,
    pub git_version: Option<String>,
    /// serverStatus.storageEngine.name, or why it is not known.
    pub storage_engine: std::result::Result<String, String>,
}

impl ServerIdentity {
    pub fn from_documents(info: &Document, status: Option<&Document>) -> ServerIdentity {
        let text = |d: &Document, k: &str| d.get_str(k).ok().map(str::to_string);
        let version = text(info, "version").unwrap_or_else(|| "unknown".into());
        let engine = status.and_then(|s| s.get_document("storageEngine").ok()).and_then(|e| text(e, "name"));
        let (product, own_version, claims) = match text(info, "ferretdbVersion") {
            Some(f) => ("FerretDB".to_string(), f, Some(version.clone())),
            None => ("MongoDB".to_string(), version.clone(), None),
        };
        let storage_engine = match (engine, status) {
            (Some(e), _) => Ok(e),
            (None, None) => Err("serverStatus could not be read".to_string()),
            (None, Some(_)) => Err(format!("{product}'s serverStatus names no storage engine")),
        };
        ServerIdentity {
            product,
            version: own_version,
            claims_mongodb: claims,
            git_version: text(info, "gitVersion"),
            storage_engine,
        }
    }

    /// "MongoDB 7.0.14 (wiredTiger)", "FerretDB v1.24.2 (MongoDB wire protocol; reports version 7.0.42)".
    pub fn describe(&self) -> String {
        match (&self.claims_mongodb, &self.storage_engine) {
            (Some(claims), _) => {
                format!("{} {} (MongoDB wire protocol; reports version {claims})", self.product, self.version)
            }
            (None, Ok(engine)) => format!("{} {} ({engine})", self.product, self.version),
            (None, Err(_)) => format!("{} {}", self.product, self.version),
        }
    }

    pub fn provenance(&self) -> Vec<(String, String)> {
        let mut out = vec![
            ("server.product".to_string(), self.product.clone()),
            ("server.version".to_string(), self.version.clone()),
        ];
        if let Some(c) = &self.claims_mongodb {
            out.push(("server.reports_mongodb_version".into(), c.clone()));
        }
        if let Some(g) = &self.git_version {
            out.push(("server.git_version".into(), g.clone()));
        }
        out.push(match &self.storage_engine {
            Ok(e) => ("server.storage_engine".into(), e.clone()),
            Err(why) => ("server.storage_engine".into(), format!("missing: {why}")),
        });
        out
    }
}

/// The figures taken from serverStatus: (name, path in the document).
/// Operation counters, the storage engine's cache (bytes read into it and
/// written from it, its size), journal and checkpoint activity, connections.
const SERVER_STATUS_FIGURES: &[(&str, &str)] = &[
    ("opcounters.insert", "opcounters.insert"),
    ("opcounters.query", "opcounters.query"),
    ("opcounters.update", "opcounters.update"),
    ("opcounters.delete", "opcounters.delete"),
    ("opcounters.getmore", "opcounters.getmore"),
    ("opcounters.command", "opcounters.command"),
    ("cache.bytes_read_into", "wiredTiger.cache.bytes read into cache"),
    ("cache.bytes_written_from", "wiredTiger.cache.bytes written from cache"),
    ("cache.bytes_in_cache", "wiredTiger.cache.bytes currently in the cache"),
    ("cache.max_bytes", "wiredTiger.cache.maximum bytes configured"),
    ("journal.log_sync_operations", "wiredTiger.log.log sync operations"),
    ("journal.log_bytes_written", "wiredTiger.log.log bytes written"),
    ("checkpoints", "wiredTiger.checkpoint.number of checkpoints"),
    ("checkpoints.legacy", "wiredTiger.transaction.transaction checkpoints"),
    ("connections.current", "connections.current"),
    ("connections.total_created", "connections.totalCreated"),
];

/// A value at a dotted path whose keys may hold spaces ("wiredTiger.cache.bytes read into cache").
fn lookup<'a>(doc: &'a Document, path: &str) -> Option<&'a Bson> {
    let (first, rest) = path.split_once('.').unwrap_or((path, ""));
    let v = doc.get(first)?;
    if rest.is_empty() {
        return Some(v);
    }
    lookup(v.as_document()?, rest)
}

fn number(b: &Bson) -> Option<String> {
    match b {
        Bson::Int32(v) => Some(v.to_string()),
        Bson::Int64(v) => Some(v.to_string()),
        Bson::Double(v) => {
            Some(if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", *v as i64) } else { v.to_string() })
        }
        Bson::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// serverStatus figures as name/value pairs; one the server does not report
/// is "missing: <why>", never 0.
pub fn server_status_figures(status: &Document, product: &str) -> Vec<(String, String)> {
    SERVER_STATUS_FIGURES
        .iter()
        .filter(|(name, _)| *name != "checkpoints.legacy")
        .map(|(name, path)| {
            let found = lookup(status, path).or_else(|| {
                // Older WiredTiger counts its checkpoints under transaction.
                (*name == "checkpoints")
                    .then(|| lookup(status, "wiredTiger.transaction.transaction checkpoints"))
                    .flatten()
            });
            let value = match found.and_then(number) {
                Some(v) => v,
                None => {
                    let section = path.split('.').next().unwrap_or(path);
                    if status.contains_key(section) {
                        format!("missing: {product}'s serverStatus.{section} has no {}", &path[section.len() + 1..])
                    } else {
                        format!("missing: {product}'s serverStatus has no {section}")
                    }
                }
            };
            (format!("serverStatus.{name}"), value)
        })
        .collect()
}

/// The server's figures for a target: serverStatus's and dbStats' (data,
/// index and storage sizes of the database).
pub fn stats(endpoint: &Address) -> Result<Vec<(String, String)>> {
    let m = Mongo::connect(endpoint, None)?;
    let info = m.admin_command(doc! {"buildInfo": 1}).context("buildInfo")?;
    let status = m.admin_command(doc! {"serverStatus": 1});
    let identity = ServerIdentity::from_documents(&info, status.as_ref().ok());
    let mut out = Vec::new();
    match &status {
        Ok(s) => out.extend(server_status_figures(s, &identity.product)),
        Err(e) => out.push(("serverStatus".into(), format!("missing: {e}"))),
    }
    match m.command(doc! {"dbStats": 1}) {
        Ok(d) => {
            for k in ["collections", "objects", "dataSize", "storageSize", "indexes", "indexSize", "totalSize"] {
                let v = d
                    .get(k)
                    .and_then(number)
                    .unwrap_or_else(|| format!("missing: {}'s dbStats has no {k}", identity.product));
                out.push((format!("dbStats.{k}"), v));
            }
        }
        Err(e) => out.push(("dbStats".into(), format!("missing: {e}"))),
    }
    Ok(out)
}

/// collStats of one collection: its data, storage and index sizes.
pub fn collection_figures(m: &Mongo, collection: &str) -> Vec<(String, String)> {
    match m.command(doc! {"collStats": collection}) {
        Ok(d) => ["count", "size", "storageSize", "totalIndexSize", "totalSize"]
            .iter()
            .map(|k| {
                (
                    format!("collStats.{collection}.{k}"),
                    d.get(*k).and_then(number).unwrap_or_else(|| format!("missing: collStats has no {k}")),
                )
            })
            .collect(),
        Err(e) => vec![(format!("collStats.{collection}"), format!("missing: {e}"))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::endpoint::TargetUrl;
    use crate::server::ServerKind;

    fn endpoint(url: &str) -> Address {
        crate::server::Endpoint::remote(&TargetUrl::parse(url).unwrap(), ServerKind::Mongodb).mongodb_address()
    }

    #[test]
    fn urls_keep_their_options_and_lose_their_password() {
        let e = endpoint("mongodb://bench:p%40ss@db1:27018/bench?tls=true&authSource=admin");
        assert_eq!((e.user.as_str(), e.password.as_deref(), e.port), ("bench", Some("p@ss"), 27018));
        assert_eq!(url_without_password(&e), "mongodb://bench@db1:27018/bench?tls=true&authSource=admin");
        let set = endpoint("mongodb://h1:27017,h2/bench?replicaSet=rs0");
        assert_eq!(url_without_password(&set), "mongodb://h1:27017,h2/bench?replicaSet=rs0");
        assert_eq!(url_without_password(&endpoint("mongodb://h/d")), "mongodb://h:27017/d");
        // The driver gets the password back, %-encoded.
        let o =
            client_options(&endpoint("mongodb://u:a%40b%3Ac@127.0.0.1:1/d?authMechanism=SCRAM-SHA-256"), 8).unwrap();
        let cred = o.credential.unwrap();
        assert_eq!((cred.username.as_deref(), cred.password.as_deref()), (Some("u"), Some("a@b:c")));
        assert_eq!(
            (o.server_selection_timeout, o.connect_timeout, o.max_pool_size),
            (Some(CONNECT_TIMEOUT), Some(CONNECT_TIMEOUT), Some(8))
        );
        let o = client_options(&endpoint("mongodb://127.0.0.1:1/d?serverSelectionTimeoutMS=1500"), 8).unwrap();
        assert_eq!(o.server_selection_timeout, Some(Duration::from_millis(1500)));
    }

    #[test]
    fn options_that_would_hide_a_setting_or_leak_a_password_are_refused() {
        assert!(check_url_options("tls=true&replicaSet=rs0").is_ok());
        let e = check_url_options("w=majority").unwrap_err().to_string();
        assert!(e.contains("-o w="), "{e}");
        assert!(check_url_options("journal=true").is_err() && check_url_options("wtimeoutMS=5").is_err());
        assert!(check_url_options("tlsCertificateKeyFilePassword=x").unwrap_err().to_string().contains("password"));
    }

    #[test]
    fn the_write_concern_is_read_described_and_judged() {
        let opts =
            |kv: &[(&str, &str)]| kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>();
        let d = WriteConcernSetting::from_options(&opts(&[])).unwrap();
        assert_eq!(d.describe(), "{w: 1, j: false, wtimeout: 0}");
        assert!(d.not_durable_reason().unwrap().contains("j=true"));
        let j = WriteConcernSetting::from_options(&opts(&[("w", "majority"), ("j", "true"), ("wtimeout_ms", "500")]))
            .unwrap();
        assert_eq!(j.describe(), "{w: \"majority\", j: true, wtimeout: 500}");
        assert_eq!(j.not_durable_reason(), None);
        let wc = j.driver();
        assert_eq!(
            (wc.w, wc.journal, wc.w_timeout),
            (Some(Acknowledgment::Majority), Some(true), Some(Duration::from_millis(500)))
        );
        assert!(WriteConcernSetting::from_options(&opts(&[("w", "0")])).is_err());
        assert!(WriteConcernSetting::from_options(&opts(&[("j", "yes")])).is_err());
    }

    #[test]
    fn a_selection_timeout_is_cut_to_its_cause() {
        let m = "Server selection timeout: No available servers. Topology: { Type: Unknown, Servers: [ { Address: 127.0.0.1:1, Type: Unknown, Error: I/O error: Connection refused (os error 111) }, ] }";
        assert_eq!(one_line(m), "I/O error: Connection refused (os error 111)");
        assert_eq!(one_line("Command failed: x\ny"), "Command failed: x y");
    }

    #[test]
    fn what_a_port_answered_is_judged_by_its_header() {
        let mut reply = hello_message();
        reply[8..12].copy_from_slice(&PROBE_REQUEST_ID.to_le_bytes());
        assert_eq!(classify_answer(&reply), Answer::Mongodb);
        assert_eq!(
            classify_answer(b"HTTP/1.1 400 Bad Request\r\n"),
            Answer::Other(b"HTTP/1.1 400 Bad Request\r\n".to_vec())
        );
        assert_eq!(classify_answer(b""), Answer::Nothing);
        // The request itself is a well-formed OP_MSG: its length leads it.
        let m = hello_message();
        assert_eq!(i32::from_le_bytes(m[0..4].try_into().unwrap()) as usize, m.len());
    }

    #[test]
    fn the_server_is_named_as_what_it_is_and_missing_figures_say_why() {
        let ferret = doc! {"version": "7.0.42", "gitVersion": "unknown", "ferretdbVersion": "v1.24.2"};
        let status = doc! {"host": "x", "metrics": {"commands": {}}};
        let id = ServerIdentity::from_documents(&ferret, Some(&status));
        assert_eq!(id.describe(), "FerretDB v1.24.2 (MongoDB wire protocol; reports version 7.0.42)");
        assert_eq!(id.storage_engine, Err("FerretDB's serverStatus names no storage engine".to_string()));
        let figures = server_status_figures(&status, "FerretDB");
        assert!(figures.iter().all(|(_, v)| v.starts_with("missing: FerretDB's serverStatus has no")), "{figures:?}");
        let mongo = doc! {"version": "7.0.14", "gitVersion": "abc"};
        let status = doc! {
            "storageEngine": {"name": "wiredTiger"},
            "opcounters": {"insert": 5i64, "query": 1i32, "update": 0i32, "delete": 0i32, "getmore": 0i32, "command": 9i32},
            "wiredTiger": {"cache": {"bytes read into cache": 4096.0, "maximum bytes configured": 1e9}, "log": {}},
            "connections": {"current": 3i32, "totalCreated": 10i32},
        };
        let id = ServerIdentity::from_documents(&mongo, Some(&status));
        assert_eq!(id.describe(), "MongoDB 7.0.14 (wiredTiger)");
        let f: BTreeMap<String, String> = server_status_figures(&status, "MongoDB").into_iter().collect();
        assert_eq!(f["serverStatus.opcounters.insert"], "5");
        assert_eq!(f["serverStatus.cache.bytes_read_into"], "4096");
        assert_eq!(f["serverStatus.cache.max_bytes"], "1000000000");
        assert_eq!(
            f["serverStatus.journal.log_sync_operations"],
            "missing: MongoDB's serverStatus.wiredTiger has no log.log sync operations"
        );
        assert_eq!(f["serverStatus.connections.current"], "3");
    }
}
