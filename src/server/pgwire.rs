//! A small blocking PostgreSQL client for the insert benchmark's client
//! threads: the extended query protocol over one Unix or TCP socket.
//!
//! Why not the `postgres` crate here: its synchronous client drives a tokio
//! event loop for every call and encodes each parameter through dynamic
//! dispatch (a type check and clones per value). At 700 parameters per
//! 100-row INSERT that cost was 10 to 13% of the server's CPU on l.i0, and
//! the client must not be the bottleneck. Here a call writes its Bind,
//! Execute and Sync messages (parameters encoded straight into one reused
//! buffer) with one write(), then reads the reply with blocking reads. The
//! SQL, the prepared statements and the binary parameter formats the server
//! sees are what the `postgres` crate would send. Message framing and
//! parsing come from `postgres-protocol`, the crate under `postgres`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use bytes::BytesMut;
use fallible_iterator::FallibleIterator;
use postgres_protocol::authentication::{
    self,
    sasl::{self, ScramSha256},
};
use postgres_protocol::message::backend::{DataRowBody, Message};
use postgres_protocol::message::frontend;
use postgres_protocol::Oid;

use super::liveness::{Liveness, Registration};
use super::wire::{sent_text, CONNECT_TIMEOUT, HANDSHAKE_TIMEOUT};

pub const INT8: Oid = 20;
pub const INT4: Oid = 23;
pub const VARCHAR: Oid = 1043;
pub const TEXT: Oid = 25;
pub const INT8_ARRAY: Oid = 1016;

/// Where a server listens.
#[derive(Clone, Debug)]
pub enum Address {
    /// The Unix socket file (`<dir>/.s.PGSQL.<port>`).
    Unix(PathBuf),
    /// A host name or address and a port.
    Tcp { host: String, port: u16 },
}

enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    fn connect(addr: &Address, within: Duration) -> std::io::Result<Stream> {
        Ok(match addr {
            Address::Unix(path) => Stream::Unix(UnixStream::connect(path)?),
            Address::Tcp { host, port } => {
                let s = connect_tcp(host, *port, within)?;
                // Each call is one request and one reply: never wait for Nagle.
                s.set_nodelay(true)?;
                Stream::Tcp(s)
            }
        })
    }

    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.write_all(buf),
            Stream::Tcp(s) => s.write_all(buf),
        }
    }

    fn fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        match self {
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tcp(s) => s.as_raw_fd(),
        }
    }

    /// Read and write time-outs (None: wait as long as it takes).
    fn set_timeouts(&self, timeout: Option<Duration>) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.set_read_timeout(timeout).and_then(|_| s.set_write_timeout(timeout)),
            Stream::Tcp(s) => s.set_read_timeout(timeout).and_then(|_| s.set_write_timeout(timeout)),
        }
    }
}

/// The first address of `host` that accepts a connection within `within`.
fn connect_tcp(host: &str, port: u16, within: Duration) -> std::io::Result<TcpStream> {
    use std::net::ToSocketAddrs;
    let mut last = None;
    for addr in (host, port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, within) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, format!("{host} has no address"))))
}

/// Writes a statement's parameters into its Bind message, each as its
/// length then its value in PostgreSQL's binary format. A plain append per
/// value: this is the hot path (700 parameters per 100-row INSERT).
pub struct Params<'a> {
    out: &'a mut Vec<u8>,
    count: usize,
}

impl Params<'_> {
    #[inline]
    pub fn i64(&mut self, v: i64) {
        self.out.extend_from_slice(&8i32.to_be_bytes());
        self.out.extend_from_slice(&v.to_be_bytes());
        self.count += 1;
    }

    #[inline]
    pub fn i32(&mut self, v: i32) {
        self.out.extend_from_slice(&4i32.to_be_bytes());
        self.out.extend_from_slice(&v.to_be_bytes());
        self.count += 1;
    }

    /// Text (varchar, text): its UTF-8 bytes.
    #[inline]
    pub fn str(&mut self, s: &str) {
        // Over 2 GB cannot be sent: length -1 is a NULL, which the server
        // refuses for the NOT NULL columns here, instead of a torn stream.
        let len = i32::try_from(s.len()).unwrap_or(-1);
        self.out.extend_from_slice(&len.to_be_bytes());
        if len >= 0 {
            self.out.extend_from_slice(s.as_bytes());
        }
        self.count += 1;
    }

    /// An int8[]: the array header (dimensions, has-nulls flag, element
    /// type, then length and lower bound of the one dimension), then each
    /// element with its length.
    pub fn i64_array(&mut self, vs: &[i64]) {
        let n = vs.len() as i32;
        self.out.extend_from_slice(&(20 + 12 * n).to_be_bytes());
        for v in [1, 0, INT8 as i32, n, 1] {
            self.out.extend_from_slice(&v.to_be_bytes());
        }
        for v in vs {
            self.out.extend_from_slice(&8i32.to_be_bytes());
            self.out.extend_from_slice(&v.to_be_bytes());
        }
        self.count += 1;
    }
}

/// Append Bind (the unnamed portal, statement `name`, every parameter and
/// result column in binary, parameters written by `params`), Execute and
/// Sync. Written here rather than with `frontend::bind`, whose per-value
/// closure and error plumbing cost five times as much per parameter.
fn put_bind_execute_sync(out: &mut Vec<u8>, name: &str, params: impl FnOnce(&mut Params)) -> Result<()> {
    out.push(b'B');
    let start = out.len();
    out.extend_from_slice(&[0; 4]); // message length, patched below
    out.push(0); // the unnamed portal
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    out.extend_from_slice(&[0, 1, 0, 1]); // one parameter format code, for all: binary
    let count_at = out.len();
    out.extend_from_slice(&[0; 2]); // parameter count, patched below
    let mut p = Params { out, count: 0 };
    params(&mut p);
    let count = p.count;
    out.extend_from_slice(&[0, 1, 0, 1]); // one result format code, for all: binary
    let count = u16::try_from(count).map_err(|_| anyhow!("{count} parameters: the protocol allows 65535"))?;
    out[count_at..count_at + 2].copy_from_slice(&count.to_be_bytes());
    let len = i32::try_from(out.len() - start).context("Bind message over 2 GB")?;
    out[start..start + 4].copy_from_slice(&len.to_be_bytes());
    // Execute the unnamed portal, all rows; then Sync (commit, reply).
    out.extend_from_slice(&[b'E', 0, 0, 0, 9, 0, 0, 0, 0, 0, b'S', 0, 0, 0, 4]);
    Ok(())
}

/// What a backend needs to be told to cancel the statement it runs.
#[derive(Clone, Debug)]
pub struct CancelKey {
    addr: Address,
    process_id: i32,
    secret_key: i32,
}

impl CancelKey {
    /// Ask the server to cancel what this connection runs now (a no-op for
    /// the server when it runs nothing or the connection is gone).
    pub fn cancel(&self) -> Result<()> {
        let mut s = Stream::connect(&self.addr, CONNECT_TIMEOUT).context("connecting to send a cancel request")?;
        let mut buf = BytesMut::new();
        frontend::cancel_request(self.process_id, self.secret_key, &mut buf);
        s.write_all(&buf)?;
        Ok(())
    }
}

/// One connection.
pub struct PgConn {
    /// First: deregistered before the socket closes (fields drop in order).
    _cut: Option<Registration>,
    stream: Stream,
    /// The read time-out in force (None after the startup: none).
    wait: Option<Duration>,
    out: BytesMut,
    /// The hot path's messages (Bind, Execute, Sync), reused.
    call: Vec<u8>,
    inbuf: BytesMut,
    chunk: Box<[u8]>,
    cancel: CancelKey,
    /// Rows the last statement affected or returned (its CommandComplete tag).
    affected: u64,
}

/// Bytes read from the socket at a time (replies here are small).
const READ_CHUNK: usize = 16 * 1024;

impl PgConn {
    /// Connect as `user` to `database`: trust (the servers rumbench
    /// starts), or with `password` by SCRAM-SHA-256, MD5 or cleartext, as
    /// the server asks. The TCP connect and the startup exchange each have
    /// a time-out (something that accepts and never answers must not hang
    /// the run); later calls wait as long as their statement runs.
    pub fn connect(addr: &Address, user: &str, database: &str, password: Option<&str>) -> Result<PgConn> {
        PgConn::connect_with(addr, user, database, password, (CONNECT_TIMEOUT, HANDSHAKE_TIMEOUT), None)
    }

    /// `connect` with these (connect, startup) time-outs, its socket shut
    /// down by `liveness`'s verdict (also during the startup exchange).
    pub fn connect_with(
        addr: &Address,
        user: &str,
        database: &str,
        password: Option<&str>,
        (connect_within, startup_within): (Duration, Duration),
        liveness: Option<&std::sync::Arc<Liveness>>,
    ) -> Result<PgConn> {
        let stream =
            Stream::connect(addr, connect_within).with_context(|| format!("cannot connect to postgres at {addr:?}"))?;
        stream.set_timeouts(Some(startup_within))?;
        let mut c = PgConn {
            _cut: liveness.map(|l| l.guard_socket(stream.fd())),
            stream,
            wait: Some(startup_within),
            out: BytesMut::with_capacity(4096),
            call: Vec::with_capacity(64 * 1024),
            inbuf: BytesMut::with_capacity(READ_CHUNK),
            chunk: vec![0; READ_CHUNK].into_boxed_slice(),
            cancel: CancelKey { addr: addr.clone(), process_id: 0, secret_key: 0 },
            affected: 0,
        };
        frontend::startup_message([("user", user), ("database", database), ("client_encoding", "UTF8")], &mut c.out)?;
        c.flush()?;
        c.expect_postgres_reply()?;
        let need_password = || {
            password.with_context(|| format!("postgres at {addr:?} asks user {user} for a password and none was given"))
        };
        let mut scram: Option<ScramSha256> = None;
        let mut error = None;
        loop {
            match c.read_message()? {
                Message::AuthenticationOk | Message::ParameterStatus(_) | Message::NoticeResponse(_) => {}
                Message::BackendKeyData(k) => {
                    c.cancel.process_id = k.process_id();
                    c.cancel.secret_key = k.secret_key();
                }
                Message::ErrorResponse(e) => {
                    // The server closes the connection after a startup error.
                    error = Some(error_text(&e));
                    break;
                }
                Message::ReadyForQuery(_) => break,
                Message::AuthenticationCleartextPassword => {
                    frontend::password_message(need_password()?.as_bytes(), &mut c.out)?;
                    c.flush()?;
                }
                Message::AuthenticationMd5Password(body) => {
                    let hash = authentication::md5_hash(user.as_bytes(), need_password()?.as_bytes(), body.salt());
                    frontend::password_message(hash.as_bytes(), &mut c.out)?;
                    c.flush()?;
                }
                Message::AuthenticationSasl(body) => {
                    let mut offered = Vec::new();
                    let mut mechanisms = body.mechanisms();
                    while let Some(m) = mechanisms.next()? {
                        offered.push(m.to_string());
                    }
                    if !offered.iter().any(|m| m == sasl::SCRAM_SHA_256) {
                        bail!("postgres at {addr:?} offers SASL mechanisms {offered:?}; rumbench speaks SCRAM-SHA-256 (without channel binding)");
                    }
                    let s = ScramSha256::new(need_password()?.as_bytes(), sasl::ChannelBinding::unsupported());
                    frontend::sasl_initial_response(sasl::SCRAM_SHA_256, s.message(), &mut c.out)?;
                    c.flush()?;
                    scram = Some(s);
                }
                Message::AuthenticationSaslContinue(body) => {
                    let s = scram.as_mut().context("SASL continue before SASL start")?;
                    s.update(body.data()).context("SCRAM-SHA-256")?;
                    frontend::sasl_response(s.message(), &mut c.out)?;
                    c.flush()?;
                }
                Message::AuthenticationSaslFinal(body) => {
                    // Proves the server knew the password too.
                    scram.take().context("SASL final before SASL start")?.finish(body.data()).context("SCRAM-SHA-256: the server's proof")?;
                }
                _ => bail!("unexpected message from postgres during startup (an authentication method rumbench does not speak?)"),
            }
        }
        match error {
            Some(e) => Err(anyhow!("postgres refused the connection: {e}")),
            None => {
                c.set_wait(None)?;
                Ok(c)
            }
        }
    }

    /// The first bytes of the server's reply to the startup message must
    /// open a message PostgreSQL sends then (authentication, error, notice,
    /// protocol version), of a sane length: anything else (an HTTP reply,
    /// an SSH banner) is not PostgreSQL, and is named rather than read as
    /// a message gigabytes long.
    fn expect_postgres_reply(&mut self) -> Result<()> {
        while self.inbuf.len() < 5 {
            let n = self.read_chunk()?;
            if n == 0 {
                if self.inbuf.is_empty() {
                    let eof = std::io::ErrorKind::UnexpectedEof;
                    return Err(std::io::Error::new(
                        eof,
                        "the server closed the connection without a PostgreSQL answer",
                    )
                    .into());
                }
                bail!("not a PostgreSQL server: it sent {} and closed the connection", sent_text(&self.inbuf));
            }
        }
        let len = i32::from_be_bytes([self.inbuf[1], self.inbuf[2], self.inbuf[3], self.inbuf[4]]);
        if !b"REvN".contains(&self.inbuf[0]) || !(4..=1 << 20).contains(&len) {
            // What else it sends at once, for the message.
            if self.inbuf.len() < 64 {
                let _ = self.read_chunk();
            }
            bail!("not a PostgreSQL server: it sent {}", sent_text(&self.inbuf));
        }
        Ok(())
    }

    /// Read what the socket has into `inbuf`; 0 at end of stream.
    fn read_chunk(&mut self) -> Result<usize> {
        // Into a buffer zeroed once, then only the bytes read are copied:
        // no 16 KB zero-fill per reply on the per-statement path.
        match self.stream.read(&mut self.chunk) {
            Ok(n) => {
                self.inbuf.extend_from_slice(&self.chunk[..n]);
                Ok(n)
            }
            // Only during startup (or a ping) is there a time-out to run into.
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                let within = self.wait.unwrap_or_default().as_secs_f64();
                Err(std::io::Error::new(e.kind(), format!("no PostgreSQL answer within {within} s")).into())
            }
            Err(e) => Err(e).context("reading from postgres"),
        }
    }

    /// How long a read or write may wait (None: as long as its statement runs).
    pub fn set_wait(&mut self, wait: Option<Duration>) -> Result<()> {
        self.stream.set_timeouts(wait)?;
        self.wait = wait;
        Ok(())
    }

    /// Rows the last statement affected (UPDATE, INSERT, DELETE) or returned (SELECT).
    pub fn affected_rows(&self) -> u64 {
        self.affected
    }

    pub fn cancel_key(&self) -> CancelKey {
        self.cancel.clone()
    }

    fn flush(&mut self) -> Result<()> {
        let r = self.stream.write_all(&self.out);
        self.out.clear();
        r.context("writing to postgres")
    }

    fn read_message(&mut self) -> Result<Message> {
        loop {
            if let Some(m) = Message::parse(&mut self.inbuf).context("reading from postgres")? {
                return Ok(m);
            }
            if self.read_chunk()? == 0 {
                // An I/O error of its kind, so that a dead server is told from a refusal.
                return Err(
                    std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "postgres closed the connection").into()
                );
            }
        }
    }

    /// Read replies until ReadyForQuery. DataRows go to `on_row`; the first
    /// error the server sent (it skips to the Sync after one) is returned.
    fn finish(&mut self, on_row: &mut dyn FnMut(&DataRowBody) -> Result<()>) -> Result<()> {
        let mut error: Option<anyhow::Error> = None;
        loop {
            match self.read_message()? {
                Message::ReadyForQuery(_) => break,
                Message::DataRow(row) if error.is_none() => {
                    if let Err(e) = on_row(&row) {
                        error = Some(e);
                    }
                }
                Message::ErrorResponse(e) => {
                    error.get_or_insert_with(|| anyhow!("{}", error_text(&e)));
                }
                Message::CommandComplete(c) => {
                    // "UPDATE 1", "INSERT 0 1", "SELECT 10": the count is last.
                    self.affected =
                        c.tag().ok().and_then(|t| t.rsplit(' ').next()).and_then(|n| n.parse().ok()).unwrap_or(0);
                }
                // ParseComplete, BindComplete, CommandComplete, RowDescription,
                // NoData, EmptyQueryResponse, notices: nothing to keep.
                _ => {}
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Prepare `sql` as statement `name` with these parameter types.
    pub fn prepare(&mut self, name: &str, sql: &str, param_types: &[Oid]) -> Result<()> {
        frontend::parse(name, sql, param_types.iter().copied(), &mut self.out)?;
        frontend::sync(&mut self.out);
        self.flush()?;
        self.finish(&mut |_| Ok(()))
    }

    /// Run SQL text with the simple query protocol (DDL, VACUUM, ...).
    pub fn simple_query(&mut self, sql: &str) -> Result<()> {
        self.simple_query_rows(sql, &mut |_| Ok(()))
    }

    /// Run SQL text with the simple query protocol; each result row (in
    /// text) goes to `on_row`.
    pub fn simple_query_rows(&mut self, sql: &str, on_row: &mut dyn FnMut(&DataRowBody) -> Result<()>) -> Result<()> {
        frontend::query(sql, &mut self.out)?;
        self.flush()?;
        self.finish(on_row)
    }

    /// Execute prepared statement `name` with `params` (binary), results in
    /// binary; each result row goes to `on_row`.
    pub fn execute(
        &mut self,
        name: &str,
        params: impl FnOnce(&mut Params),
        on_row: &mut dyn FnMut(&DataRowBody) -> Result<()>,
    ) -> Result<()> {
        self.call.clear();
        put_bind_execute_sync(&mut self.call, name, params)?;
        self.stream.write_all(&self.call).context("writing to postgres")?;
        self.finish(on_row)
    }
}

impl Drop for PgConn {
    fn drop(&mut self) {
        self.out.clear();
        frontend::terminate(&mut self.out);
        let _ = self.flush();
    }
}

fn error_text(e: &postgres_protocol::message::backend::ErrorResponseBody) -> String {
    let (mut severity, mut code, mut message) = (String::new(), String::new(), String::new());
    let mut fields = e.fields();
    while let Ok(Some(f)) = fields.next() {
        let v = String::from_utf8_lossy(f.value_bytes()).into_owned();
        match f.type_() {
            b'S' => severity = v,
            b'C' => code = v,
            b'M' => message = v,
            _ => {}
        }
    }
    format!("{severity}: {message} (SQLSTATE {code})")
}

/// The columns of a binary DataRow, in order. NULL is an error: the insert
/// benchmark's columns are all NOT NULL.
pub struct Columns<'a> {
    row: &'a DataRowBody,
    ranges: postgres_protocol::message::backend::DataRowRanges<'a>,
}

impl<'a> Columns<'a> {
    pub fn new(row: &'a DataRowBody) -> Columns<'a> {
        Columns { row, ranges: row.ranges() }
    }

    fn next_bytes(&mut self) -> Result<&'a [u8]> {
        match self.ranges.next().context("reading a result row")? {
            Some(Some(r)) => Ok(&self.row.buffer()[r]),
            Some(None) => bail!("unexpected NULL in a result row"),
            None => bail!("result row has fewer columns than expected"),
        }
    }

    pub fn i64(&mut self) -> Result<i64> {
        let b: [u8; 8] = self.next_bytes()?.try_into().map_err(|_| anyhow!("expected an 8-byte integer"))?;
        Ok(i64::from_be_bytes(b))
    }

    pub fn i32(&mut self) -> Result<i32> {
        let b: [u8; 4] = self.next_bytes()?.try_into().map_err(|_| anyhow!("expected a 4-byte integer"))?;
        Ok(i32::from_be_bytes(b))
    }

    /// A float8, or None for NULL.
    pub fn f64_or_null(&mut self) -> Result<Option<f64>> {
        match self.ranges.next().context("reading a result row")? {
            Some(Some(r)) => {
                let b: [u8; 8] = self.row.buffer()[r].try_into().map_err(|_| anyhow!("expected an 8-byte float"))?;
                Ok(Some(f64::from_be_bytes(b)))
            }
            Some(None) => Ok(None),
            None => bail!("result row has fewer columns than expected"),
        }
    }

    pub fn string(&mut self) -> Result<String> {
        Ok(std::str::from_utf8(self.next_bytes()?).context("text column is not UTF-8")?.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use bytes::BufMut;
    use postgres_protocol::types::{array_to_sql, ArrayDimension};
    use postgres_protocol::IsNull;

    fn encoded(f: impl FnOnce(&mut Params)) -> Vec<u8> {
        let mut out = Vec::new();
        let mut p = Params { out: &mut out, count: 0 };
        f(&mut p);
        assert_eq!(p.count, 1);
        out
    }

    fn be(vs: &[i32]) -> Vec<u8> {
        vs.iter().flat_map(|v| v.to_be_bytes()).collect()
    }

    #[test]
    fn scalars_are_length_prefixed_big_endian_and_text_is_raw_bytes() {
        assert_eq!(encoded(|p| p.i64(-2)), [be(&[8]), (-2i64).to_be_bytes().to_vec()].concat());
        assert_eq!(encoded(|p| p.i32(0x0102_0304)), [be(&[4]), vec![1, 2, 3, 4]].concat());
        assert_eq!(encoded(|p| p.str("ab")), [be(&[2]), b"ab".to_vec()].concat());
    }

    #[test]
    fn int8_array_is_what_the_protocol_crate_writes() {
        for ids in [&[][..], &[5, -1][..], &[i64::MAX; 10][..]] {
            let mut theirs = BytesMut::new();
            let dims = [ArrayDimension { len: ids.len() as i32, lower_bound: 1 }];
            let element = |v: &i64, buf: &mut BytesMut| {
                buf.put_i64(*v);
                Ok(IsNull::No)
            };
            array_to_sql(dims, INT8, ids.iter(), element, &mut theirs).unwrap();
            assert_eq!(encoded(|p| p.i64_array(ids)), [be(&[theirs.len() as i32]), theirs.to_vec()].concat());
        }
    }

    #[test]
    fn messages_are_what_the_protocol_crate_writes() {
        let mut ours = Vec::new();
        put_bind_execute_sync(&mut ours, "s3", |p| {
            p.i64(1);
            p.i32(-7);
            p.str("x y");
            p.i64_array(&[3]);
        })
        .unwrap();
        let values: [Vec<u8>; 4] =
            [encoded(|p| p.i64(1)), encoded(|p| p.i32(-7)), encoded(|p| p.str("x y")), encoded(|p| p.i64_array(&[3]))];
        let value = |v: &Vec<u8>, buf: &mut BytesMut| {
            // The crate writes each value's length itself: strip ours.
            buf.put_slice(&v[4..]);
            Ok(IsNull::No)
        };
        let mut theirs = BytesMut::new();
        if frontend::bind("", "s3", [1i16], values.iter(), value, [1i16], &mut theirs).is_err() {
            panic!("frontend::bind failed");
        }
        frontend::execute("", 0, &mut theirs).unwrap();
        frontend::sync(&mut theirs);
        assert_eq!(ours, theirs.to_vec());
    }
}
