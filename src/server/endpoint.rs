//! Where and how clients reach a server: one rumbench started (loopback or
//! its Unix socket, trust authentication, database `rumbench`), or one the
//! user already runs (`--target postgres://user:pass@host:port/db`,
//! `mysql://...`, `mongodb://...?options`), reached with a password.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};

use super::liveness::{self, Beat, Heart, Liveness, Place, Registration};
use super::pgwire;
use super::ServerKind;

/// Environment variable through which the parent process hands a target's
/// password to the config process (never written to the task file).
pub const PASSWORD_ENV: &str = "RUMBENCH_TARGET_PASSWORD";

use super::wire::{sent_text, CONNECT_TIMEOUT, HANDSHAKE_TIMEOUT};

#[derive(Clone)]
pub struct Endpoint {
    pub kind: ServerKind,
    pub host: String,
    pub port: u16,
    /// The Unix socket (a server rumbench started, `connect=unix`).
    pub socket: Option<PathBuf>,
    pub user: String,
    pub password: Option<String>,
    pub database: String,
    /// A server the user runs: rumbench changes nothing there but its own
    /// tables, and cannot see its processes or storage.
    pub remote: bool,
    /// The URL's query (`tls=true&authSource=admin`), for MongoDB only
    /// (its driver reads them); never holds a password (refused when parsed).
    pub url_options: Option<String>,
    /// Whether the server is still there, once `watch` started its monitor:
    /// connects and calls fail at once with its verdict, and a verdict cuts
    /// the connections made here.
    pub liveness: Option<Arc<Liveness>>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the password.
        write!(f, "{}", self.url())
    }
}

/// A target URL taken apart: scheme, user, password, host, port, database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetUrl {
    /// "postgres", "mysql" or "mongodb".
    pub scheme: &'static str,
    pub user: Option<String>,
    pub password: Option<String>,
    pub host: String,
    pub port: Option<u16>,
    pub database: Option<String>,
    /// The query after '?' (mongodb:// only: the driver's options).
    pub query: Option<String>,
}

/// `%XX` escapes in a URL part (a password may hold '@' or ':').
fn percent_decode(s: &str) -> Result<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .filter(|h| h.chars().all(|c| c.is_ascii_hexdigit()))
                .context("a '%' not followed by two hex digits")?;
            out.push(u8::from_str_radix(hex, 16)?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).context("not UTF-8 after %-decoding")
}

impl TargetUrl {
    /// `postgres://[user[:password]@]host[:port][/database]` (also
    /// `postgresql://`), `mysql://...` (also `mariadb://`), or
    /// `mongodb://[user[:password]@]host[:port][,host[:port]...]/database[?options]`.
    /// Query parameters are refused rather than ignored, but for MongoDB's
    /// (its driver's options: TLS, authentication, replica set).
    pub fn parse(url: &str) -> Result<TargetUrl> {
        let bad = |why: &str| {
            anyhow::anyhow!("invalid target {:?}: {why} (expected postgres://user:password@host:port/database, mysql://... or mongodb://...)", redact(url))
        };
        let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("no scheme"))?;
        let scheme = match scheme.to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" => "postgres",
            "mysql" | "mariadb" => "mysql",
            "mongodb" => "mongodb",
            "mongodb+srv" => return Err(bad("mongodb+srv:// needs DNS SRV lookups, which this build's driver leaves out: list the hosts (mongodb://h1:27017,h2:27017/db?replicaSet=rs0)")),
            _ => return Err(bad("the scheme must be postgres, mysql or mongodb")),
        };
        if rest.contains('#') {
            return Err(bad("a '#' fragment is not supported"));
        }
        let (rest, query) = match rest.split_once('?') {
            Some(_) if scheme != "mongodb" => return Err(bad("query parameters are not supported")),
            Some((r, q)) => (r, Some(q.to_string()).filter(|q| !q.is_empty())),
            None => (rest, None),
        };
        if let Some(q) = &query {
            super::mongodb::check_url_options(q).map_err(|e| bad(&e.to_string()))?;
        }
        let (authority, database) = match rest.split_once('/') {
            Some((a, d)) => {
                (a, (!d.is_empty()).then(|| percent_decode(d)).transpose().map_err(|e| bad(&e.to_string()))?)
            }
            None => (rest, None),
        };
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        let (user, password) = match userinfo {
            Some(u) => {
                let (user, pass) = match u.split_once(':') {
                    Some((user, pass)) => (user, Some(pass)),
                    None => (u, None),
                };
                let user =
                    (!user.is_empty()).then(|| percent_decode(user)).transpose().map_err(|e| bad(&e.to_string()))?;
                let pass = pass.map(percent_decode).transpose().map_err(|e| bad(&e.to_string()))?;
                (user, pass)
            }
            None => (None, None),
        };
        let (host, port) = if scheme == "mongodb" && hostport.contains(',') {
            // A replica set's seed list: each host checked, kept as written for the driver.
            for one in hostport.split(',') {
                let p = one.rsplit_once(':').filter(|(h, _)| !h.ends_with(']') || h.starts_with('[')).map(|(_, p)| p);
                if one.is_empty() || one.starts_with(':') {
                    return Err(bad("an empty host in the host list"));
                }
                if let Some(p) = p.filter(|_| !one.starts_with('[') || one.contains("]:")) {
                    if !matches!(p.parse::<u16>(), Ok(1..)) {
                        return Err(bad("the port must be a number from 1 to 65535"));
                    }
                }
            }
            (hostport.to_string(), None)
        } else if let Some(h) = hostport.strip_prefix('[') {
            // [ipv6]:port
            let (h, p) = h.split_once(']').ok_or_else(|| bad("an unclosed '['"))?;
            (h.to_string(), p.strip_prefix(':'))
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (h.to_string(), Some(p)),
                None => (hostport.to_string(), None),
            }
        };
        // A host that is a path (`%2Frun%2Fpostgresql`, as libpq writes it)
        // is a Unix socket: PostgreSQL's socket directory, MySQL's socket file.
        let host = percent_decode(&host).map_err(|e| bad(&e.to_string()))?;
        if host.is_empty() {
            return Err(bad("no host"));
        }
        let port =
            port.map(|p| p.parse::<u16>().map_err(|_| bad("the port must be a number from 1 to 65535"))).transpose()?;
        if port == Some(0) {
            return Err(bad("the port must be a number from 1 to 65535"));
        }
        Ok(TargetUrl { scheme, user, password, host, port, database, query })
    }

    /// A list of hosts (a MongoDB replica set's seeds), not one.
    pub fn is_host_list(&self) -> bool {
        self.host.contains(',')
    }

    /// A Unix socket's path (its directory for PostgreSQL) given as the host.
    pub fn socket_host(&self) -> Option<&Path> {
        self.host.starts_with('/').then(|| Path::new(&self.host))
    }

    /// The URL without its password, as results record it.
    pub fn without_password(&self) -> String {
        let user = self.user.as_deref().map(|u| format!("{u}@")).unwrap_or_default();
        let host = if self.is_host_list() {
            self.host.clone()
        } else if self.socket_host().is_some() {
            self.host.replace('%', "%25").replace('/', "%2F").replace(':', "%3A").replace('@', "%40")
        } else if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        let port = self.port.map(|p| format!(":{p}")).unwrap_or_default();
        let db = self.database.as_deref().map(|d| format!("/{d}")).unwrap_or_default();
        let query = self.query.as_deref().map(|q| format!("?{q}")).unwrap_or_default();
        format!("{}://{user}{host}{port}{db}{query}", self.scheme)
    }
}

/// `url` with any password replaced by `***` (for messages and the recorded
/// command line); text that is not a URL comes back unchanged.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    // A query option named like a password (MongoDB's tlsCertificateKeyFilePassword).
    let rest = match rest.split_once('?') {
        Some((before, query)) => {
            let opts: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k, _)) if k.to_ascii_lowercase().contains("password") => format!("{k}=***"),
                    _ => kv.to_string(),
                })
                .collect();
            format!("{before}?{}", opts.join("&"))
        }
        None => rest.to_string(),
    };
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let Some(at) = rest[..end].rfind('@') else { return format!("{scheme}://{rest}") };
    match rest[..at].split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***{}", &rest[at..]),
        None => format!("{scheme}://{rest}"),
    }
}

/// A command-line argument with the password of any URL in it replaced by
/// `***` ("--target=postgres://u:pw@h", "-otarget=mysql://u:pw@h/d").
pub fn redact_in(arg: &str) -> String {
    let Some(sep) = arg.find("://") else { return arg.to_string() };
    let start =
        arg[..sep].rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))).map_or(0, |i| i + 1);
    format!("{}{}", &arg[..start], redact(&arg[start..]))
}

impl Endpoint {
    /// A server the user runs, from its URL; a password missing from the
    /// URL comes from RUMBENCH_TARGET_PASSWORD, then PGPASSWORD (postgres)
    /// or MYSQL_PWD (mysql). Defaults: user postgres / root, port 5432 /
    /// 3306, database the user's name for postgres as psql does (a mysql
    /// target must name its database: `check_target` refuses it otherwise).
    pub fn remote(url: &TargetUrl, kind: ServerKind) -> Endpoint {
        if url.scheme == "mongodb" {
            return Endpoint {
                kind,
                host: url.host.clone(),
                port: url.port.unwrap_or(super::mongodb::DEFAULT_PORT),
                socket: None,
                user: url.user.clone().unwrap_or_default(),
                password: url.password.clone().or_else(|| std::env::var(PASSWORD_ENV).ok()),
                database: url.database.clone().unwrap_or_default(),
                remote: true,
                url_options: url.query.clone(),
                liveness: None,
            };
        }
        let pg = url.scheme == "postgres";
        let user = url.user.clone().unwrap_or_else(|| if pg { "postgres".into() } else { "root".into() });
        let env_password = || {
            std::env::var(PASSWORD_ENV).ok().or_else(|| std::env::var(if pg { "PGPASSWORD" } else { "MYSQL_PWD" }).ok())
        };
        let port = url.port.unwrap_or(if pg { 5432 } else { 3306 });
        // PostgreSQL names its socket after the port, in the directory given.
        let socket = url.socket_host().map(|p| if pg { p.join(format!(".s.PGSQL.{port}")) } else { p.to_path_buf() });
        Endpoint {
            kind,
            host: if socket.is_some() { "localhost".into() } else { url.host.clone() },
            port,
            socket,
            password: url.password.clone().or_else(env_password),
            database: url.database.clone().unwrap_or_else(|| if pg { user.clone() } else { String::new() }),
            user,
            remote: true,
            url_options: None,
            liveness: None,
        }
    }

    /// The URL without the password.
    pub fn url(&self) -> String {
        if self.kind == ServerKind::Mongodb {
            return super::mongodb::url_without_password(&self.mongodb_address());
        }
        let scheme = if self.kind == ServerKind::Postgres { "postgres" } else { "mysql" };
        match &self.socket {
            Some(s) => format!("{scheme}://{}@{}/{} (socket {})", self.user, self.host, self.database, s.display()),
            None => {
                let host = if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
                format!("{scheme}://{}@{host}:{}/{}", self.user, self.port, self.database)
            }
        }
    }

    /// Where a MongoDB target is, for its driver.
    pub fn mongodb_address(&self) -> super::mongodb::Address {
        super::mongodb::Address {
            host: self.host.clone(),
            port: self.port,
            user: self.user.clone(),
            password: self.password.clone(),
            database: self.database.clone(),
            url_options: self.url_options.clone(),
            liveness: self.liveness.clone(),
        }
    }

    /// Where rumbench's lean PostgreSQL client connects.
    pub fn pgwire_address(&self) -> pgwire::Address {
        match &self.socket {
            Some(path) => pgwire::Address::Unix(path.clone()),
            None => pgwire::Address::Tcp { host: self.host.clone(), port: self.port },
        }
    }

    /// Ok unless the server is known to be gone (its verdict, as the error).
    pub fn alive(&self) -> Result<()> {
        self.liveness.as_ref().map_or(Ok(()), |l| l.check())
    }

    /// Where the server listens, for a plain connect.
    fn place(&self) -> Place {
        match &self.socket {
            Some(path) => Place::Unix(path.clone()),
            None if self.kind == ServerKind::Mongodb && self.host.contains(',') => Place::Hosts(self.host.clone()),
            None => Place::Tcp {
                host: self.host.trim_start_matches('[').trim_end_matches(']').to_string(),
                port: self.port,
            },
        }
    }

    /// Start watching whether the server is still there (docs/mongodb.md,
    /// "A server that dies"): a monitor on a connection of its own, whose
    /// verdict cuts the connections made through this endpoint (and its
    /// clones made after this call). `stopping`: a stop was asked for.
    pub fn watch(&mut self, stopping: fn() -> bool) -> Result<liveness::Watch> {
        let shared = Liveness::new(self.place());
        let heart: Box<dyn Heart> = match self.kind {
            ServerKind::Mongodb => super::mongodb::heart(&self.mongodb_address())?,
            ServerKind::Postgres => Box::new(PgHeart { endpoint: self.clone(), conn: None }),
            _ => Box::new(MyHeart { endpoint: self.clone(), conn: None }),
        };
        let watch = liveness::watch(shared.clone(), heart, stopping)?;
        self.liveness = Some(shared);
        Ok(watch)
    }

    /// A lean-client connection (the client threads' hot path).
    pub fn connect_pgwire(&self) -> Result<pgwire::PgConn> {
        self.alive()?;
        let within = (CONNECT_TIMEOUT, HANDSHAKE_TIMEOUT);
        pgwire::PgConn::connect_with(
            &self.pgwire_address(),
            &self.user,
            &self.database,
            self.password.as_deref(),
            within,
            self.liveness.as_ref(),
        )
        .with_context(|| format!("cannot connect to {}", self.url()))
    }

    /// A `postgres` crate connection (setup and statistics). Not cut by a
    /// verdict (the crate keeps its socket), but not made after one.
    pub fn connect_postgres(&self) -> Result<::postgres::Client> {
        self.alive()?;
        let mut cfg = ::postgres::Config::new();
        match &self.socket {
            Some(path) => cfg.host_path(path.parent().context("socket path without a directory")?),
            None => cfg.host(&self.host),
        };
        cfg.port(self.port).user(&self.user).dbname(&self.database).connect_timeout(CONNECT_TIMEOUT);
        if let Some(p) = &self.password {
            cfg.password(p);
        }
        // The crate's connect_timeout covers the TCP connect only, not the
        // startup exchange, and its blocking connect cannot be cancelled:
        // it runs on a thread of its own, waited for at most both time-outs
        // (a server that never answers leaves that thread blocked until the
        // process ends, which then comes soon).
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("postgres-connect".into())
            .spawn(move || {
                let _ = tx.send(cfg.connect(::postgres::NoTls));
            })
            .context("cannot start a thread")?;
        let within = CONNECT_TIMEOUT + HANDSHAKE_TIMEOUT;
        match rx.recv_timeout(within) {
            Ok(r) => r.with_context(|| format!("cannot connect to {}", self.url())),
            Err(_) => bail!("cannot connect to {}: no PostgreSQL answer within {} s", self.url(), within.as_secs()),
        }
    }

    /// Whether the server answers as the engine's server and lets rumbench
    /// in (before anything is written), within the time-outs.
    pub fn check_answers(&self) -> Result<()> {
        match self.kind {
            ServerKind::Postgres => self.connect_pgwire().map(drop),
            ServerKind::Mongodb => super::mongodb::check_answers(&self.mongodb_address()),
            _ => self.connect_mysql().map(drop),
        }
    }

    /// How a MySQL/MariaDB client connects (the `mysql` crate speaks
    /// mysql_native_password and caching_sha2_password, RSA-encrypting the
    /// password over plain TCP as the server asks).
    pub fn mysql_opts(&self) -> ::mysql::Opts {
        ::mysql::OptsBuilder::new()
            .ip_or_hostname(Some(self.host.clone()))
            .tcp_port(self.port)
            .socket(self.socket.as_ref().map(|p| p.to_string_lossy().into_owned()))
            .user(Some(self.user.clone()))
            .pass(self.password.clone())
            .db_name(Some(self.database.clone()))
            .prefer_socket(false)
            .tcp_connect_timeout(Some(CONNECT_TIMEOUT))
            // For the handshake: connect_mysql lifts them once it is done.
            .read_timeout(Some(HANDSHAKE_TIMEOUT))
            .write_timeout(Some(HANDSHAKE_TIMEOUT))
            .into()
    }

    /// A connection whose handshake has the time-outs and whose statements
    /// then run as long as they take (an index build may take hours), cut
    /// by a verdict that the server is gone.
    pub fn connect_mysql(&self) -> Result<MysqlConn> {
        self.alive()?;
        let conn = ::mysql::Conn::new(self.mysql_opts()).map_err(|e| self.mysql_connect_error(e))?;
        // The mysql crate sets time-outs only when it connects: lifted here.
        set_socket_wait(&conn, None).context("clearing the handshake time-out")?;
        use std::os::fd::AsRawFd;
        Ok(MysqlConn { _cut: self.liveness.as_ref().map(|l| l.guard_socket(conn.as_raw_fd())), conn })
    }

    /// A failed MySQL connect, said plainly: a server error as the server
    /// put it; a time-out or a garbled greeting after a look at what the
    /// server sends on connecting (MySQL speaks first).
    fn mysql_connect_error(&self, e: ::mysql::Error) -> anyhow::Error {
        let cannot = format!("cannot connect to {}", self.url());
        if matches!(e, ::mysql::Error::MySqlError(_)) {
            return anyhow::Error::new(e).context(cannot);
        }
        match self.mysql_greeting() {
            Greeting::Other(sent) => anyhow!("{cannot}: not a MySQL server: it sent {}", sent_text(&sent)),
            Greeting::Nothing => anyhow!("{cannot}: no MySQL answer within {} s", HANDSHAKE_TIMEOUT.as_secs()),
            Greeting::Mysql | Greeting::Unreachable => anyhow::Error::new(e).context(cannot),
        }
    }

    /// What the server sends on connecting, read for a moment.
    fn mysql_greeting(&self) -> Greeting {
        use std::io::Read;
        let wait = Some(Duration::from_secs(2));
        let mut stream: Box<dyn Read> = match &self.socket {
            Some(path) => match std::os::unix::net::UnixStream::connect(path) {
                Ok(s) if s.set_read_timeout(wait).is_ok() => Box::new(s),
                _ => return Greeting::Unreachable,
            },
            None => {
                use std::net::ToSocketAddrs;
                let addr = (self.host.as_str(), self.port).to_socket_addrs().ok().and_then(|mut a| a.next());
                match addr.map(|a| std::net::TcpStream::connect_timeout(&a, CONNECT_TIMEOUT)) {
                    Some(Ok(s)) if s.set_read_timeout(wait).is_ok() => Box::new(s),
                    _ => return Greeting::Unreachable,
                }
            }
        };
        let mut buf = [0u8; 128];
        let mut n = 0;
        while n < buf.len() {
            match stream.read(&mut buf[n..]) {
                Ok(0) | Err(_) => break,
                Ok(k) => n += k,
            }
        }
        classify_greeting(&buf[..n])
    }

    /// Which of `tables` exist already in the target database.
    pub fn existing_tables(&self, tables: &[String]) -> Result<Vec<String>> {
        self.alive()?;
        let mut found = Vec::new();
        if self.kind == ServerKind::Mongodb {
            return super::mongodb::existing_collections(&self.mongodb_address(), tables);
        }
        if self.kind == ServerKind::Postgres {
            let mut c = self.connect_postgres()?;
            for t in tables {
                // to_regclass follows the search path, as an unqualified CREATE TABLE would.
                let r: Option<String> = c.query_one("SELECT to_regclass($1)::text", &[t])?.get(0);
                if r.is_some() {
                    found.push(t.clone());
                }
            }
        } else {
            use ::mysql::prelude::Queryable;
            let mut c = self.connect_mysql()?;
            for t in tables {
                let n: Option<u64> = c.exec_first(
                    "SELECT COUNT(*) FROM information_schema.TABLES WHERE table_schema = DATABASE() AND LOWER(table_name) = LOWER(?)",
                    (t,),
                )?;
                if n.unwrap_or(0) > 0 {
                    found.push(t.clone());
                }
            }
        }
        Ok(found)
    }

    /// Drop `tables` (only ever rumbench's own); a server known to be gone
    /// is not waited on: its verdict is the error.
    pub fn drop_tables(&self, tables: &[String]) -> Result<()> {
        self.alive()?;
        if self.kind == ServerKind::Mongodb {
            return super::mongodb::drop_collections(&self.mongodb_address(), tables);
        }
        if self.kind == ServerKind::Postgres {
            let mut c = self.connect_postgres()?;
            for t in tables {
                c.batch_execute(&format!("DROP TABLE IF EXISTS {t}"))?;
            }
        } else {
            use ::mysql::prelude::Queryable;
            let mut c = self.connect_mysql()?;
            for t in tables {
                c.query_drop(format!("DROP TABLE IF EXISTS {t}"))?;
            }
        }
        Ok(())
    }
}

/// A MySQL connection (the crate's, through Deref) whose socket a verdict
/// that the server is gone shuts down.
pub struct MysqlConn {
    /// First: deregistered before the connection closes its socket.
    _cut: Option<Registration>,
    conn: ::mysql::Conn,
}

impl std::ops::Deref for MysqlConn {
    type Target = ::mysql::Conn;
    fn deref(&self) -> &::mysql::Conn {
        &self.conn
    }
}

impl std::ops::DerefMut for MysqlConn {
    fn deref_mut(&mut self) -> &mut ::mysql::Conn {
        &mut self.conn
    }
}

impl MysqlConn {
    /// How long a read or write may wait (None: as long as its statement runs).
    pub fn set_wait(&mut self, wait: Option<Duration>) -> Result<()> {
        set_socket_wait(&self.conn, wait)
    }
}

/// The socket's own read and write time-outs (SO_RCVTIMEO and SO_SNDTIMEO,
/// the same for TCP and Unix sockets), which the mysql crate sets only when
/// it connects.
fn set_socket_wait(conn: &::mysql::Conn, wait: Option<Duration>) -> Result<()> {
    use std::os::fd::{AsRawFd, FromRawFd};
    // SAFETY: the descriptor is the connection's, open while `conn` lives;
    // the borrowed stream is never dropped, so it is not closed here.
    let socket = std::mem::ManuallyDrop::new(unsafe { std::net::TcpStream::from_raw_fd(conn.as_raw_fd()) });
    socket.set_read_timeout(wait).and_then(|_| socket.set_write_timeout(wait))?;
    Ok(())
}

/// The liveness monitor's ping of a PostgreSQL server: an empty query on
/// the lean client's connection, every wait `within`.
struct PgHeart {
    endpoint: Endpoint,
    conn: Option<pgwire::PgConn>,
}

impl Heart for PgHeart {
    fn beat(&mut self, within: Duration) -> Beat {
        let e = &self.endpoint;
        let pinged = (|| -> Result<()> {
            if self.conn.is_none() {
                let c = pgwire::PgConn::connect_with(
                    &e.pgwire_address(),
                    &e.user,
                    &e.database,
                    e.password.as_deref(),
                    (within, within),
                    None,
                )?;
                self.conn = Some(c);
            }
            let c = self.conn.as_mut().expect("connected");
            c.set_wait(Some(within))?;
            c.simple_query("")
        })();
        match pinged {
            Ok(()) => Beat::Answered,
            Err(err) => {
                // A connection that missed an answer is out of step: a new one next time.
                self.conn = None;
                Beat::from_error(&err)
            }
        }
    }
}

/// The liveness monitor's ping of a MySQL server: COM_PING, every wait `within`.
struct MyHeart {
    endpoint: Endpoint,
    conn: Option<::mysql::Conn>,
}

impl Heart for MyHeart {
    fn beat(&mut self, within: Duration) -> Beat {
        let pinged = (|| -> std::result::Result<(), ::mysql::Error> {
            if self.conn.is_none() {
                let opts = ::mysql::OptsBuilder::from_opts(self.endpoint.mysql_opts())
                    .tcp_connect_timeout(Some(within))
                    .read_timeout(Some(within))
                    .write_timeout(Some(within));
                self.conn = Some(::mysql::Conn::new(opts)?);
            }
            self.conn.as_mut().expect("connected").ping()
        })();
        match pinged {
            Ok(()) => Beat::Answered,
            Err(err) => {
                self.conn = None;
                match &err {
                    ::mysql::Error::IoError(io) => Beat::from_io(io.kind()),
                    ::mysql::Error::MySqlError(_) => Beat::Answered,
                    // The driver's own: a packet out of order, a connect time-out.
                    _ => Beat::Silent,
                }
            }
        }
    }
}

/// What a server sent on connecting.
#[derive(Debug, PartialEq)]
enum Greeting {
    /// A MySQL packet: a handshake (protocol 10) or an error (0xff).
    Mysql,
    /// Something else, these bytes.
    Other(Vec<u8>),
    /// Nothing.
    Nothing,
    /// No connection to look at.
    Unreachable,
}

/// A MySQL greeting opens with a 3-byte length and sequence number 0, then
/// protocol version 10 or an error packet's 0xff.
fn classify_greeting(bytes: &[u8]) -> Greeting {
    match bytes {
        [] => Greeting::Nothing,
        [_, _, _, 0, 10 | 0xff, ..] => Greeting::Mysql,
        _ => Greeting::Other(bytes.to_vec()),
    }
}

/// Check that engine `kind` can be reached through `url`.
pub fn check_target(url: &TargetUrl, kind: ServerKind) -> Result<()> {
    if (kind == ServerKind::Mongodb) != (url.scheme == "mongodb") {
        bail!("engine {kind} cannot use a {}:// target", url.scheme);
    }
    if kind == ServerKind::Mongodb {
        if url.database.is_none() {
            bail!("target {}: name the database rumbench may create its collections in (mongodb://user@host:port/database)", url.without_password());
        }
        return Ok(());
    }
    let pg = kind == ServerKind::Postgres;
    if pg != (url.scheme == "postgres") {
        bail!("engine {kind} cannot use a {}:// target", url.scheme);
    }
    if !pg && url.database.is_none() {
        bail!(
            "target {}: name the database rumbench may create its tables in (mysql://user@host:port/database)",
            url.without_password()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_with_defaults_and_escapes() {
        let u = TargetUrl::parse("postgresql://bench:p%40ss:w@db1.example:6543/benchdb").unwrap();
        assert_eq!(
            u,
            TargetUrl {
                scheme: "postgres",
                user: Some("bench".into()),
                password: Some("p@ss:w".into()),
                host: "db1.example".into(),
                port: Some(6543),
                database: Some("benchdb".into()),
                query: None,
            }
        );
        assert_eq!(u.without_password(), "postgres://bench@db1.example:6543/benchdb");
        let m = TargetUrl::parse("mysql://root@[::1]:3307/x").unwrap();
        assert_eq!((m.scheme, m.host.as_str(), m.port, m.password.as_deref()), ("mysql", "::1", Some(3307), None));
        assert_eq!(m.without_password(), "mysql://root@[::1]:3307/x");
        let bare = TargetUrl::parse("postgres://localhost").unwrap();
        assert_eq!((bare.user, bare.port, bare.database), (None, None, None));
    }

    #[test]
    fn bad_urls_are_named_without_their_password() {
        for (url, why) in [
            ("db1:5432", "no scheme"),
            ("redis://h", "scheme must be postgres, mysql or mongodb"),
            ("mongodb+srv://u:secret@cluster.example/d", "list the hosts"),
            ("mongodb://u:secret@h:0/d", "port"),
            ("mongodb://u:secret@h1,h2:70000/d", "port"),
            ("mongodb://u:secret@h/d?tlsCertificateKeyFilePassword=secret2", "password"),
            ("postgres://u:secret@h:99999/d", "port"),
            ("postgres://u:secret@h/d?sslmode=require", "query parameters"),
            ("postgres://u:secret@/d", "no host"),
        ] {
            let e = TargetUrl::parse(url).unwrap_err().to_string();
            assert!(e.contains(why), "{url}: {e}");
            assert!(!e.contains("secret"), "{e}");
        }
    }

    #[test]
    fn mongodb_urls_keep_their_hosts_and_options() {
        let u = TargetUrl::parse("mongodb://bench:p%40ss@h1:27017,h2/benchdb?replicaSet=rs0&tls=true").unwrap();
        assert_eq!(
            (u.scheme, u.host.as_str(), u.port, u.password.as_deref()),
            ("mongodb", "h1:27017,h2", None, Some("p@ss"))
        );
        assert_eq!(u.query.as_deref(), Some("replicaSet=rs0&tls=true"));
        assert_eq!(u.without_password(), "mongodb://bench@h1:27017,h2/benchdb?replicaSet=rs0&tls=true");
        let e = Endpoint::remote(&u, ServerKind::Mongodb);
        assert_eq!(format!("{e:?}"), "mongodb://bench@h1:27017,h2/benchdb?replicaSet=rs0&tls=true");
        assert!(check_target(&u, ServerKind::Mongodb).is_ok());
        assert!(check_target(&u, ServerKind::Postgres).is_err());
        let no_db = TargetUrl::parse("mongodb://h").unwrap();
        assert!(check_target(&no_db, ServerKind::Mongodb).unwrap_err().to_string().contains("name the database"));
        assert_eq!(
            redact("mongodb://u:pw@h/d?tlsCertificateKeyFilePassword=pw2&tls=true"),
            "mongodb://u:***@h/d?tlsCertificateKeyFilePassword=***&tls=true"
        );
        assert_eq!(redact("mongodb://h?x=1"), "mongodb://h?x=1");
    }

    #[test]
    fn redaction_hides_only_the_password() {
        assert_eq!(redact("postgres://u:secret@h:1/d"), "postgres://u:***@h:1/d");
        assert_eq!(redact("mysql://u@h/d"), "mysql://u@h/d");
        assert_eq!(redact("--steps"), "--steps");
        assert_eq!(redact("postgres://h/d@x"), "postgres://h/d@x");
        assert_eq!(redact_in("--target=postgres://u:pw@h/d"), "--target=postgres://u:***@h/d");
        assert_eq!(redact_in("-otarget=mysql://u:pw@h/d"), "-otarget=mysql://u:***@h/d");
        assert_eq!(redact_in("postgres.target=postgres://u:pw@h"), "postgres.target=postgres://u:***@h");
        assert_eq!(redact_in("ycsb-a"), "ycsb-a");
    }

    #[test]
    fn remote_defaults_follow_the_clients() {
        let pg = Endpoint::remote(&TargetUrl::parse("postgres://alice:pw@h").unwrap(), ServerKind::Postgres);
        assert_eq!((pg.port, pg.database.as_str(), pg.password.as_deref()), (5432, "alice", Some("pw")));
        assert_eq!(format!("{pg:?}"), "postgres://alice@h:5432/alice");
        let my = Endpoint::remote(&TargetUrl::parse("mysql://h:3307/db").unwrap(), ServerKind::MariadbInnodb);
        assert_eq!((my.user.as_str(), my.port, my.database.as_str()), ("root", 3307, "db"));
    }

    #[test]
    fn what_a_server_sent_is_named_and_judged() {
        // MariaDB 10.11's greeting opens: length 0x5b, sequence 0, protocol 10, version.
        assert_eq!(classify_greeting(b"\x5b\0\0\0\x0a10.11.19-MariaDB"), Greeting::Mysql);
        assert_eq!(classify_greeting(b"\x17\0\0\0\xffj\x04Host is blocked"), Greeting::Mysql);
        assert_eq!(classify_greeting(b"SSH-2.0-x"), Greeting::Other(b"SSH-2.0-x".to_vec()));
        assert_eq!(classify_greeting(b""), Greeting::Nothing);
    }

    #[test]
    fn a_host_that_is_a_path_is_a_unix_socket() {
        // libpq's form: the socket directory, %-encoded; the port names the socket.
        let u = TargetUrl::parse("postgres://bench@%2Frun%2Fpostgresql:5433/benchdb").unwrap();
        assert_eq!(u.socket_host(), Some(Path::new("/run/postgresql")));
        assert_eq!(u.without_password(), "postgres://bench@%2Frun%2Fpostgresql:5433/benchdb");
        let pg = Endpoint::remote(&u, ServerKind::Postgres);
        assert_eq!(pg.socket.as_deref(), Some(Path::new("/run/postgresql/.s.PGSQL.5433")));
        assert!(pg.remote);
        assert!(
            matches!(pg.pgwire_address(), pgwire::Address::Unix(p) if p == Path::new("/run/postgresql/.s.PGSQL.5433"))
        );
        // MySQL's is the socket file itself.
        let my = Endpoint::remote(
            &TargetUrl::parse("mysql://root@%2Frun%2Fmysqld%2Fmysqld.sock/db").unwrap(),
            ServerKind::MariadbInnodb,
        );
        assert_eq!(my.socket.as_deref(), Some(Path::new("/run/mysqld/mysqld.sock")));
        // A host name is not a path.
        assert_eq!(TargetUrl::parse("postgres://h/d").unwrap().socket_host(), None);
    }
}
