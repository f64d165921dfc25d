//! What every client of a server on the network shares: how long a connect
//! and a handshake may take, and how what a peer sent is quoted when it is
//! not the server expected (a port that speaks another protocol).

use std::time::Duration;

/// How long a TCP (or Unix socket) connect may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a connected server may take to answer the handshake (greeting,
/// authentication): a port that accepts and then says nothing, or speaks
/// another protocol, must not hang the run.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The first line of what a server sent, quoted, at most 60 characters,
/// control characters escaped (for "not a PostgreSQL server: it sent ...").
pub fn sent_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let first = text.split(['\r', '\n']).find(|l| !l.is_empty()).unwrap_or("");
    let mut shown: String = first.chars().take(60).flat_map(char::escape_default).collect();
    if first.chars().count() > 60 {
        shown.push_str("...");
    }
    format!("'{shown}'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_peer_sent_is_quoted_on_one_short_line() {
        assert_eq!(sent_text(b"SSH-2.0-OpenSSH_9.2\r\n"), "'SSH-2.0-OpenSSH_9.2'");
        assert_eq!(sent_text(b"\r\nHTTP/1.1 400 Bad Request\r\nServer: x"), "'HTTP/1.1 400 Bad Request'");
        assert_eq!(sent_text(&[b'E', 0, 0, 1]), "'E\\u{0}\\u{0}\\u{1}'");
        assert_eq!(sent_text("x".repeat(70).as_bytes()), format!("'{}...'", "x".repeat(60)));
    }
}
