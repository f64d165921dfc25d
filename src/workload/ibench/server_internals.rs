//! A server's own counters, read once a second while a step runs
//! (`--internals`) over a connection of the probe's own: PostgreSQL's
//! checkpointer, background writer, WAL, dead tuples and autovacuum;
//! MariaDB's InnoDB history list, dirty pages, checkpoint age and row lock
//! waits, or MyRocks' stalls, memtables and background writes. One query a
//! sample; running totals end in `_per_s` and become rates (runner/internals.rs).

use std::time::Duration;

use mysql::prelude::Queryable;

use crate::engine::{internals_by_source, Counter, Internal, InternalsProbe};
use crate::server::pgwire::Columns;
use crate::server::{Endpoint, ServerKind};

/// The longest a sample waits on the server's answer: the sampler's end
/// waits for its last sample, and a stopped server must not hold it.
const PROBE_WAIT: Duration = Duration::from_secs(5);

/// PostgreSQL's counters for server version `version_num` (150004 for 15.4):
/// 17 moved the checkpointer's figures out of pg_stat_bgwriter into
/// pg_stat_checkpointer, and the backends' own writes to pg_stat_io (16+).
fn postgres_counters(version_num: i32) -> Vec<Counter> {
    let mut c: Vec<Counter> = vec![
        // The WAL position: bytes of WAL written, whoever wrote them.
        ("wal_bytes_per_s", true, "pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8"),
        // In the benchmark's database (pg_stat_user_tables is per database).
        ("dead_tuples", false, "(SELECT coalesce(sum(n_dead_tup), 0)::float8 FROM pg_stat_user_tables)"),
        ("autovacuums_per_s", true, "(SELECT coalesce(sum(autovacuum_count), 0)::float8 FROM pg_stat_user_tables)"),
        (
            "autovacuum_workers",
            false,
            "(SELECT count(*)::float8 FROM pg_stat_activity WHERE backend_type = 'autovacuum worker')",
        ),
        (
            "lock_waiting_backends",
            false,
            "(SELECT count(*)::float8 FROM pg_stat_activity WHERE wait_event_type = 'Lock')",
        ),
        ("bgwriter_buffers_per_s", true, "(SELECT buffers_clean::float8 FROM pg_stat_bgwriter)"),
    ];
    if version_num >= 170000 {
        c.extend([
            ("checkpoints_per_s", true, "(SELECT (num_timed + num_requested)::float8 FROM pg_stat_checkpointer)"),
            ("checkpoint_buffers_per_s", true, "(SELECT buffers_written::float8 FROM pg_stat_checkpointer)"),
            (
                "backend_buffers_per_s",
                true,
                "(SELECT coalesce(sum(writes), 0)::float8 FROM pg_stat_io WHERE backend_type = 'client backend')",
            ),
        ]);
    } else {
        c.extend([
            ("checkpoints_per_s", true, "(SELECT (checkpoints_timed + checkpoints_req)::float8 FROM pg_stat_bgwriter)"),
            ("checkpoint_buffers_per_s", true, "(SELECT buffers_checkpoint::float8 FROM pg_stat_bgwriter)"),
            ("backend_buffers_per_s", true, "(SELECT buffers_backend::float8 FROM pg_stat_bgwriter)"),
        ]);
    }
    c
}

/// The one SELECT that reads `counters`, in their order.
fn postgres_query(counters: &[Counter]) -> String {
    let columns: Vec<&str> = counters.iter().map(|(_, _, sql)| *sql).collect();
    format!("SELECT {}", columns.join(", "))
}

/// A probe that reads over a connection of its own and, after a failed
/// read (a time-out leaves a reply on its way), drops that connection and
/// makes a new one at the next sample.
fn reconnecting<C: Send + 'static>(
    mut connect: impl FnMut() -> Result<C, String> + Send + 'static,
    mut read: impl FnMut(&mut C) -> Result<Vec<Internal>, String> + Send + 'static,
) -> Result<InternalsProbe<'static>, String> {
    let mut conn = Some(connect()?);
    Ok(Box::new(move || {
        let c = match &mut conn {
            Some(c) => c,
            None => conn.insert(connect()?),
        };
        let r = read(c);
        if r.is_err() {
            conn = None;
        }
        r
    }))
}

fn failed(what: &str, e: anyhow::Error) -> String {
    format!("the server's counters: {what}: {e:#}")
}

/// PostgreSQL's counters over a connection of the probe's own: the lean
/// client's, which a verdict that the server is gone cuts, and whose reads
/// wait at most PROBE_WAIT (a server that stopped answering must not hold
/// the step's end).
pub fn postgres(endpoint: &Endpoint) -> Result<InternalsProbe<'static>, String> {
    let endpoint = endpoint.clone();
    let connect = move || {
        let mut c = endpoint.connect_pgwire().map_err(|e| failed("connecting", e))?;
        c.set_wait(Some(PROBE_WAIT)).map_err(|e| failed("setting its time-out", e))?;
        c.prepare("version", "SELECT current_setting('server_version_num')::int", &[])
            .map_err(|e| failed("asking the version", e))?;
        let mut version_num = 0;
        c.execute("version", |_| {}, &mut |row| {
            version_num = Columns::new(row).i32()?;
            Ok(())
        })
        .map_err(|e| failed("asking the version", e))?;
        let counters = postgres_counters(version_num);
        c.prepare("counters", &postgres_query(&counters), &[]).map_err(|e| failed("preparing the query", e))?;
        Ok((c, counters))
    };
    reconnecting(connect, |(c, counters)| {
        let mut out = Vec::with_capacity(counters.len());
        c.execute("counters", |_| {}, &mut |row| {
            let mut columns = Columns::new(row);
            for &(name, cumulative, _) in counters.iter() {
                if let Some(value) = columns.f64_or_null()? {
                    out.push(Internal { name, value, cumulative });
                }
            }
            Ok(())
        })
        .map_err(|e| failed("reading", e))?;
        Ok(out)
    })
}

/// MariaDB's counters for a server of `kind`: rumbench's name, whether it is
/// a running total, and the global status variable.
fn mariadb_counters(kind: ServerKind) -> &'static [Counter] {
    match kind {
        ServerKind::MariadbMyrocks => &[
            ("stall_us_per_s", true, "Rocksdb_stall_micros"),
            ("memtable_bytes", false, "Rocksdb_memtable_unflushed"),
            ("wal_bytes_per_s", true, "Rocksdb_wal_bytes"),
            ("flush_bytes_per_s", true, "Rocksdb_flush_write_bytes"),
            ("compaction_bytes_per_s", true, "Rocksdb_compact_write_bytes"),
            ("row_lock_wait_timeouts_per_s", true, "Rocksdb_row_lock_wait_timeouts"),
        ],
        _ => &[
            // Undo records not yet purged: what long or many writes leave behind.
            ("history_list_length", false, "Innodb_history_list_length"),
            ("dirty_pages", false, "Innodb_buffer_pool_pages_dirty"),
            // Redo bytes since the last checkpoint; writes stall near its maximum.
            ("checkpoint_age_bytes", false, "Innodb_checkpoint_age"),
            ("row_lock_current_waits", false, "Innodb_row_lock_current_waits"),
            ("row_lock_waits_per_s", true, "Innodb_row_lock_waits"),
            ("redo_bytes_per_s", true, "Innodb_os_log_written"),
            ("pages_flushed_per_s", true, "Innodb_buffer_pool_pages_flushed"),
            // A client waited for a free page: the flushing fell behind.
            ("free_page_waits_per_s", true, "Innodb_buffer_pool_wait_free"),
            ("log_waits_per_s", true, "Innodb_log_waits"),
        ],
    }
}

/// MariaDB's counters over a connection of the probe's own (cut by a
/// verdict that the server is gone; its reads wait at most PROBE_WAIT).
pub fn mariadb(endpoint: &Endpoint, kind: ServerKind) -> Result<InternalsProbe<'static>, String> {
    let counters = mariadb_counters(kind);
    let variables: Vec<String> = counters.iter().map(|(_, _, v)| format!("'{v}'")).collect();
    let query = format!("SHOW GLOBAL STATUS WHERE Variable_name IN ({})", variables.join(", "));
    let endpoint = endpoint.clone();
    let connect = move || {
        let mut c = endpoint.connect_mysql().map_err(|e| failed("connecting", e))?;
        c.set_wait(Some(PROBE_WAIT)).map_err(|e| failed("setting its time-out", e))?;
        Ok(c)
    };
    reconnecting(connect, move |c| {
        let rows: Vec<(String, String)> = c.query(&query).map_err(|e| failed("reading", e.into()))?;
        Ok(internals_by_source(counters, &rows))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_reads_the_checkpointer_where_its_version_keeps_it() {
        let q15 = postgres_query(&postgres_counters(150_004));
        assert!(q15.contains("checkpoints_timed") && !q15.contains("pg_stat_checkpointer"), "{q15}");
        let q17 = postgres_query(&postgres_counters(170_002));
        assert!(q17.contains("pg_stat_checkpointer") && q17.contains("pg_stat_io"), "{q17}");
        assert!(!q17.contains("buffers_backend"), "{q17}");
        for v in [120_000, 150_004, 170_002] {
            let c = postgres_counters(v);
            let names: Vec<_> = c.iter().map(|x| x.0).collect();
            for want in ["wal_bytes_per_s", "dead_tuples", "autovacuums_per_s", "checkpoints_per_s"] {
                assert!(names.contains(&want), "{v}: {names:?}");
            }
            // A running total's name says it is shown per second, and only its.
            assert!(c.iter().all(|&(n, cumulative, _)| n.ends_with("_per_s") == cumulative), "{names:?}");
        }
    }

    #[test]
    fn mariadb_values_are_matched_by_name_and_parsed() {
        let rows = vec![
            ("INNODB_HISTORY_LIST_LENGTH".to_string(), "42".to_string()),
            ("Innodb_row_lock_waits".to_string(), "7".to_string()),
            ("Innodb_checkpoint_age".to_string(), "not a number".to_string()),
        ];
        let got = internals_by_source(mariadb_counters(ServerKind::MariadbInnodb), &rows);
        assert_eq!(
            got,
            vec![
                Internal { name: "history_list_length", value: 42.0, cumulative: false },
                Internal { name: "row_lock_waits_per_s", value: 7.0, cumulative: true },
            ]
        );
        for kind in [ServerKind::MariadbInnodb, ServerKind::MariadbMyrocks] {
            assert!(mariadb_counters(kind).iter().all(|&(n, cumulative, _)| n.ends_with("_per_s") == cumulative));
        }
    }
}
