//! Whether a server rumbench reaches by URL is still there, told apart from
//! one that is only slow, and what a dead one's callers are told.
//!
//! A monitor thread ([`watch`]) keeps one connection of its own to the
//! server and pings it every [`BEAT_EVERY`] (PostgreSQL: an empty query;
//! MariaDB: COM_PING; MongoDB: `ping`), each ping given [`BEAT_WAIT`]. A
//! live server answers a ping at once however busy it is (none of them
//! takes a lock or touches the disk), so a long statement or a slow step is
//! never cut. The verdicts:
//!
//! * **closed the connection**: a ping failed and a plain connect to the
//!   server's address is refused (nothing listens there any more: killed,
//!   crashed, shut down). Reached within a ping of the death.
//! * **stopped answering**: no ping answered for [`SILENCE_LIMIT`] (a
//!   stopped or hung process, whose kernel still accepts connections, or an
//!   unreachable machine); [`SILENCE_LIMIT_STOPPING`] once a stop was asked
//!   for (Ctrl-C), so that a wait on such a server ends within a second.
//!
//! A verdict is final for the config. When it is reached, every call waiting
//! on the server is cut: client sockets registered here are shut down (their
//! blocked reads return at once) and MongoDB's client threads are woken
//! (their operation is dropped); later connects and calls fail at once with
//! the verdict, which is what the step and the cleanup report.

use std::os::fd::RawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

/// How often the monitor pings the server.
pub const BEAT_EVERY: Duration = Duration::from_millis(500);
/// How long a ping (or the connect before it) may take to be answered.
pub const BEAT_WAIT: Duration = Duration::from_secs(1);
/// A server that answered no ping for this long has stopped answering.
pub const SILENCE_LIMIT: Duration = Duration::from_secs(3);
/// The same once a stop was asked for: the user is waiting.
pub const SILENCE_LIMIT_STOPPING: Duration = Duration::from_secs(1);
/// The shortest wait given a ping (the last before the limit), and the
/// pause after a ping that failed at once.
const MIN_WAIT: Duration = Duration::from_millis(200);

/// What one ping found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beat {
    /// The server answered (with a reply or an error of its own).
    Answered,
    /// The connection was closed, reset or refused.
    Closed,
    /// No answer within the wait, or a failure that tells nothing more.
    Silent,
}

impl Beat {
    /// A failed socket call's beat, by its kind.
    pub fn from_io(kind: std::io::ErrorKind) -> Beat {
        use std::io::ErrorKind::*;
        match kind {
            ConnectionRefused | ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof | NotConnected => {
                Beat::Closed
            }
            _ => Beat::Silent,
        }
    }

    /// The beat of an error from rumbench's own socket calls: the kind of
    /// the first I/O error in its chain; an error without one is the
    /// server's own answer.
    pub fn from_error(e: &anyhow::Error) -> Beat {
        match e.chain().find_map(|c| c.downcast_ref::<std::io::Error>()) {
            Some(io) => Beat::from_io(io.kind()),
            None => Beat::Answered,
        }
    }
}

/// A server's own ping, on a connection the monitor keeps (the server
/// kind's client: `endpoint.rs`, `mongodb.rs`).
pub trait Heart: Send {
    /// Ping, connecting first when there is no connection; give up after `within`.
    fn beat(&mut self, within: Duration) -> Beat;
}

/// Where a server listens: what a plain connect is tried on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Tcp {
        host: String,
        port: u16,
    },
    Unix(PathBuf),
    /// A list of hosts (a MongoDB replica set): no one address to try.
    Hosts(String),
}

impl Place {
    /// "127.0.0.1:5432", "[::1]:5432", "/run/postgresql/.s.PGSQL.5432", "h1:27017,h2".
    pub fn describe(&self) -> String {
        match self {
            Place::Tcp { host, port } if host.contains(':') => format!("[{host}]:{port}"),
            Place::Tcp { host, port } => format!("{host}:{port}"),
            Place::Unix(path) => path.display().to_string(),
            Place::Hosts(list) => list.clone(),
        }
    }

    /// Why a plain connect is refused (nothing listens), or None: it was
    /// accepted, or it did not end in time, or there is no one address.
    fn refusal(&self, within: Duration) -> Option<String> {
        let refused = |e: std::io::Error| {
            matches!(e.kind(), std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::NotFound)
                .then(|| e.to_string())
        };
        match self {
            Place::Tcp { host, port } => {
                use std::net::ToSocketAddrs;
                let addr = (host.as_str(), *port).to_socket_addrs().ok()?.next()?;
                std::net::TcpStream::connect_timeout(&addr, within).err().and_then(refused)
            }
            Place::Unix(path) => std::os::unix::net::UnixStream::connect(path).err().and_then(refused),
            Place::Hosts(_) => None,
        }
    }
}

/// How a server went away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gone {
    Closed,
    Stopped,
}

/// The monitor's finding: the server is gone.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub gone: Gone,
    /// "the server at 127.0.0.1:27017 closed the connection ...".
    pub text: String,
    /// Reached with the shorter limit after a stop was asked for.
    pub while_stopping: bool,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// What a verdict cuts: client sockets (shut down) and MongoDB client threads (woken).
#[derive(Default)]
struct Cuts {
    next: u64,
    sockets: Vec<(u64, RawFd)>,
    wakers: Vec<(u64, Arc<tokio::sync::Notify>)>,
}

/// One server's liveness, shared by its monitor and its clients.
pub struct Liveness {
    place: Place,
    verdict: OnceLock<Verdict>,
    cuts: Mutex<Cuts>,
    /// Pings done (each followed by a wait), and a wake-up for the monitor.
    rounds: Mutex<u64>,
    round_done: Condvar,
    urgent: Mutex<bool>,
    wake: Condvar,
    quit: AtomicBool,
}

/// A socket or a waker that a verdict cuts, until this is dropped (before
/// the socket is closed: the registry never holds a closed descriptor).
pub struct Registration {
    liveness: Arc<Liveness>,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut cuts = self.liveness.cuts.lock().unwrap_or_else(|e| e.into_inner());
        cuts.sockets.retain(|(id, _)| *id != self.id);
        cuts.wakers.retain(|(id, _)| *id != self.id);
    }
}

impl Liveness {
    /// A server with no monitor (yet): no verdict until one is declared.
    pub fn new(place: Place) -> Arc<Liveness> {
        Arc::new(Liveness {
            place,
            verdict: OnceLock::new(),
            cuts: Mutex::new(Cuts::default()),
            rounds: Mutex::new(0),
            round_done: Condvar::new(),
            urgent: Mutex::new(false),
            wake: Condvar::new(),
            quit: AtomicBool::new(false),
        })
    }

    pub fn place(&self) -> &Place {
        &self.place
    }

    /// The verdict, once the server is known to be gone.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.verdict.get()
    }

    /// Ok while the server is not known to be gone; the verdict as the error after.
    pub fn check(&self) -> Result<()> {
        match self.verdict() {
            Some(v) => Err(anyhow!("{v}")),
            None => Ok(()),
        }
    }

    /// Shut `fd` (a client's socket) down when the server is found gone,
    /// until the registration is dropped; at once when it is already.
    pub fn guard_socket(self: &Arc<Self>, fd: RawFd) -> Registration {
        let mut cuts = self.cuts.lock().unwrap_or_else(|e| e.into_inner());
        if self.verdict().is_some() {
            // SAFETY: shutdown on a descriptor the caller owns and keeps open.
            unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
        }
        cuts.next += 1;
        let id = cuts.next;
        cuts.sockets.push((id, fd));
        Registration { liveness: self.clone(), id }
    }

    /// A waker notified when the server is found gone (at once when it is already).
    pub fn waker(self: &Arc<Self>) -> (Registration, Arc<tokio::sync::Notify>) {
        let notify = Arc::new(tokio::sync::Notify::new());
        let mut cuts = self.cuts.lock().unwrap_or_else(|e| e.into_inner());
        if self.verdict().is_some() {
            notify.notify_one();
        }
        cuts.next += 1;
        let id = cuts.next;
        cuts.wakers.push((id, notify.clone()));
        (Registration { liveness: self.clone(), id }, notify)
    }

    /// Record `v` (the first verdict stays) and cut every call waiting on the server.
    pub fn declare(&self, v: Verdict) {
        let cuts = self.cuts.lock().unwrap_or_else(|e| e.into_inner());
        if self.verdict.set(v).is_err() {
            return;
        }
        for &(_, fd) in &cuts.sockets {
            // SAFETY: registered descriptors are open until deregistered
            // (under this lock): a blocked read or write on it returns.
            unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
        }
        for (_, n) in &cuts.wakers {
            // Every waiter now (a driver shared by threads may have several),
            // and a permit for the next wait.
            n.notify_waiters();
            n.notify_one();
        }
        drop(cuts);
        self.round_done.notify_all();
    }

    /// After a call failed: the verdict of the monitor's next ping (it is
    /// asked to ping at once), waiting at most `within`. None: the server
    /// still answers, or no verdict came in time.
    pub fn judge_now(&self, within: Duration) -> Option<&Verdict> {
        let began = Instant::now();
        let mut rounds = self.rounds.lock().unwrap_or_else(|e| e.into_inner());
        // A ping that started after this call: the one under way may predate the failure.
        let wanted = *rounds + 2;
        *self.urgent.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.wake.notify_all();
        while self.verdict().is_none() && *rounds < wanted && !self.quit.load(Ordering::Relaxed) {
            let Some(left) = within.checked_sub(began.elapsed()) else { break };
            rounds = self.round_done.wait_timeout(rounds, left).unwrap_or_else(|e| e.into_inner()).0;
        }
        self.verdict()
    }

    fn round_ended(&self) {
        *self.rounds.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.round_done.notify_all();
    }

    /// Wait `d`, or less when asked to ping at once or to quit.
    fn pause(&self, d: Duration) {
        let mut urgent = self.urgent.lock().unwrap_or_else(|e| e.into_inner());
        if !*urgent && !self.quit.load(Ordering::Relaxed) {
            urgent = self.wake.wait_timeout(urgent, d).unwrap_or_else(|e| e.into_inner()).0;
        }
        *urgent = false;
    }
}

/// The monitor of one server, ended when this is dropped.
pub struct Watch {
    liveness: Arc<Liveness>,
}

impl Watch {
    pub fn liveness(&self) -> &Arc<Liveness> {
        &self.liveness
    }
}

impl Drop for Watch {
    /// The monitor ends after its ping under way (at most [`BEAT_WAIT`]),
    /// on its own: nothing waits for it.
    fn drop(&mut self) {
        self.liveness.quit.store(true, Ordering::Relaxed);
        self.liveness.wake.notify_all();
        self.liveness.round_done.notify_all();
    }
}

/// Start the monitor of the server at `liveness`'s place, pinging with
/// `heart`; `stopping` says whether a stop was asked for.
pub fn watch(liveness: Arc<Liveness>, mut heart: Box<dyn Heart>, stopping: fn() -> bool) -> Result<Watch> {
    let shared = liveness.clone();
    std::thread::Builder::new()
        .name("liveness".into())
        .spawn(move || {
            let mut last_answer = Instant::now();
            while !shared.quit.load(Ordering::Relaxed) && shared.verdict().is_none() {
                // While the server is silent, a ping ends when the limit is
                // reached, so that the verdict comes at the limit, not up to
                // a ping's wait after it.
                let limit = if stopping() { SILENCE_LIMIT_STOPPING } else { SILENCE_LIMIT };
                let within = limit.saturating_sub(last_answer.elapsed()).clamp(MIN_WAIT, BEAT_WAIT);
                let beat = heart.beat(within);
                let answered = beat == Beat::Answered;
                if let Some(v) = judge(&shared.place, &beat, &mut last_answer, stopping()) {
                    shared.declare(v);
                }
                shared.round_ended();
                // Pinged again at once while it does not answer (after a
                // moment, for a failure that came at once).
                shared.pause(if answered { BEAT_EVERY } else { MIN_WAIT });
            }
        })
        .map_err(|e| anyhow!("cannot start the server's liveness monitor: {e}"))?;
    Ok(Watch { liveness })
}

/// One ping's beat judged: a verdict, or None while the server may be there.
/// (What the ping's client said is left out: the driver's text, "unexpected
/// end of file", is what the verdict replaces.)
fn judge(place: &Place, beat: &Beat, last_answer: &mut Instant, stopping: bool) -> Option<Verdict> {
    if *beat == Beat::Answered {
        *last_answer = Instant::now();
        return None;
    }
    let at = place.describe();
    if let Some(refused) = place.refusal(BEAT_WAIT) {
        return Some(Verdict {
            gone: Gone::Closed,
            text: format!(
                "the server at {at} closed the connection and refuses new ones: it is not running (connect: {refused})"
            ),
            while_stopping: stopping,
        });
    }
    let limit = if stopping { SILENCE_LIMIT_STOPPING } else { SILENCE_LIMIT };
    let silent = last_answer.elapsed();
    (silent >= limit).then(|| Verdict {
        gone: Gone::Stopped,
        text: format!("the server at {at} stopped answering: no answer to a ping for {:.1} s", silent.as_secs_f64()),
        while_stopping: stopping,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::{TcpListener, TcpStream};

    /// A heart that answers while `alive` says so, and is silent after.
    struct Fake(Arc<AtomicBool>);

    impl Heart for Fake {
        fn beat(&mut self, within: Duration) -> Beat {
            if self.0.load(Ordering::Relaxed) {
                Beat::Answered
            } else {
                std::thread::sleep(within);
                Beat::Silent
            }
        }
    }

    fn no_stop() -> bool {
        false
    }

    #[test]
    fn a_closed_port_is_a_dead_server_and_a_silent_one_stopped_after_the_limit() {
        // Nothing listens: refused at once.
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let place = Place::Tcp { host: "127.0.0.1".into(), port };
        let mut last = Instant::now();
        let v = judge(&place, &Beat::Closed, &mut last, false).unwrap();
        assert_eq!(v.gone, Gone::Closed);
        assert!(
            v.text.starts_with(&format!("the server at 127.0.0.1:{port} closed the connection and refuses new ones")),
            "{}",
            v.text
        );
        // Something listens and says nothing: not dead before the limit.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let place = Place::Tcp { host: "127.0.0.1".into(), port: listener.local_addr().unwrap().port() };
        let mut last = Instant::now();
        assert!(judge(&place, &Beat::Silent, &mut last, false).is_none());
        let mut long_ago = Instant::now() - SILENCE_LIMIT;
        let v = judge(&place, &Beat::Silent, &mut long_ago, false).unwrap();
        assert_eq!(v.gone, Gone::Stopped);
        assert!(v.text.contains("stopped answering: no answer to a ping for 3."), "{}", v.text);
        // A stop shortens the limit.
        let mut second_ago = Instant::now() - SILENCE_LIMIT_STOPPING;
        assert!(judge(&place, &Beat::Silent, &mut second_ago, true).unwrap().while_stopping);
        // An answer resets the clock.
        judge(&place, &Beat::Answered, &mut long_ago, false);
        assert!(long_ago.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn a_verdict_cuts_a_blocked_read_and_wakes_the_waiters() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let alive = Arc::new(AtomicBool::new(true));
        let watch =
            watch(Liveness::new(Place::Tcp { host: "127.0.0.1".into(), port }), Box::new(Fake(alive.clone())), no_stop)
                .unwrap();
        let l = watch.liveness().clone();
        let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let _server_side = listener.accept().unwrap();
        let (_w, notify) = l.waker();
        let reader = {
            use std::os::fd::AsRawFd;
            let guard = l.guard_socket(client.as_raw_fd());
            std::thread::spawn(move || {
                let began = Instant::now();
                // Blocks: the peer never writes.
                let n = client.read(&mut [0u8; 16]).unwrap_or(0);
                drop(guard);
                (n, began.elapsed())
            })
        };
        // Alive: a call that judges now finds nothing.
        assert!(l.judge_now(Duration::from_secs(3)).is_none());
        alive.store(false, Ordering::Relaxed);
        let (n, waited) = reader.join().unwrap();
        assert_eq!(n, 0, "the read returns end of stream once the socket is shut down");
        assert!(
            waited >= SILENCE_LIMIT - Duration::from_secs(1) && waited < SILENCE_LIMIT + Duration::from_secs(2),
            "{waited:?}"
        );
        assert_eq!(l.verdict().unwrap().gone, Gone::Stopped);
        assert!(l
            .check()
            .unwrap_err()
            .to_string()
            .contains(&format!("the server at 127.0.0.1:{port} stopped answering")));
        // The waker holds its permit: a wait that starts now ends at once.
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async { tokio::time::timeout(Duration::from_secs(1), notify.notified()).await }).unwrap();
        // Registered after the verdict: cut at once.
        let (_w2, late) = l.waker();
        rt.block_on(async { tokio::time::timeout(Duration::from_secs(1), late.notified()).await }).unwrap();
    }

    #[test]
    fn io_errors_are_told_apart_by_kind() {
        use std::io::ErrorKind;
        assert_eq!(Beat::from_io(ErrorKind::UnexpectedEof), Beat::Closed);
        assert_eq!(Beat::from_io(ErrorKind::WouldBlock), Beat::Silent);
        let e = anyhow::Error::new(std::io::Error::from(ErrorKind::ConnectionReset)).context("reading from postgres");
        assert_eq!(Beat::from_error(&e), Beat::Closed);
        assert_eq!(Beat::from_error(&anyhow!("ERROR: syntax error")), Beat::Answered);
    }
}
