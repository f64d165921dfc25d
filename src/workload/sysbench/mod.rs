//! sysbench's microbenchmarks (workloads.md, "sysbench"), written once on
//! the SQL capability (`crate::workload::sql`): every SQL server runs them.
//!
//! Each step is one microbenchmark as mdcallag/mytools'
//! bench/sysbench.lua/run.sh runs it: its Lua script (sysbench 1.0's
//! oltp_*.lua and the scripts run.sh adds) with its options and
//! --rand-type=uniform. A client does what the script's thread_init does
//! (prepares the same statements, with the same text and parameter types,
//! for every table) and then, per event, what its event() does: the same
//! statements in the same order, prepared where it prepares them, sent as
//! text where it sends text, in the same transactions, with the same random
//! choices (table, ids, c and pad from sysbench's templates). One event is
//! one operation of the step, timed from its first statement to its last.
//! tests/sysbench.rs checks the statements against what sysbench 1.0.20
//! sends (tests/fixtures/sysbench). What rumbench does not send: the
//! EXPLAINs mdcallag's oltp_common.lua prints at each connection's start.
//!
//! The tables are sysbench's (`schema`): made, when they are missing, as
//! its prepare makes them, and kept for the steps after.
//!
//! Errors sysbench ignores (deadlocks, lock wait time-outs, serialization
//! failures, PostgreSQL's unique violations) roll the event back; it runs
//! again, as sysbench restarts it, and the step counts them.

pub mod rand;
pub mod schema;

use anyhow::{bail, Result};

use self::rand::{Ids, Zipf, C_TEMPLATE, PAD_TEMPLATE};
use crate::datagen::rng::stream_seed;
use crate::datagen::Rng;
use crate::driver::{self, Progress, Thread};
use crate::plan::steps::StepKind;
use crate::plan::sysbench::Micro;
use crate::plan::StepPlan;
use crate::result::{Status, StepResult};
use crate::workload::sql::{Dialect, Param, ParamType, SqlSession, SqlStore, Stmt};

/// sysbench's table `t` (1-based).
pub fn table_name(t: u32) -> String {
    format!("sbtest{t}")
}

/// What the sysbench steps of one config share: the tables prepared.
#[derive(Default)]
pub struct SysbenchState {
    /// Tables 1..=N there (made or found), and the rows each was made with.
    pub tables: u32,
    pub table_size: u64,
    /// The tables this run made (the rest were there before it).
    pub created: Vec<u32>,
}

/// What a step did, for its metrics.
#[derive(Debug, Default, Clone)]
pub struct Work {
    /// Statements sent: reads, writes and the rest (BEGIN, COMMIT), as sysbench counts its queries.
    pub queries: u64,
    pub reads: u64,
    pub writes: u64,
    /// Rows the reads returned.
    pub rows_read: u64,
    /// Events rolled back and run again on an error sysbench ignores.
    pub ignored_errors: u64,
    pub logical_bytes_written: u64,
    /// Rows the writes affected.
    pub rows_written: u64,
    /// Events whose writes affected a row: the commits a durable server
    /// must sync. An UPDATE or DELETE that finds no row (its id deleted by
    /// an earlier event) writes no log, and its commit has nothing to flush.
    pub writing_events: u64,
}

impl Work {
    fn add(&mut self, o: &Work) {
        self.queries += o.queries;
        self.reads += o.reads;
        self.writes += o.writes;
        self.rows_read += o.rows_read;
        self.ignored_errors += o.ignored_errors;
        self.logical_bytes_written += o.logical_bytes_written;
        self.rows_written += o.rows_written;
        self.writing_events += o.writing_events;
    }
}

/// The bytes a row's columns take as sysbench writes them (id, k, c, pad).
const ROW_BYTES: u64 = 4 + 4 + 120 + 60;

/// oltp_common.lua's statements (stmt_defs), by what they do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Common {
    PointSelect,
    SimpleRange,
    SumRange,
    OrderRange,
    DistinctRange,
    CountRange,
    IndexUpdate,
    NonIndexUpdate,
    DeleteRow,
    InsertRow,
}

impl Common {
    fn sql(self) -> &'static str {
        use Common::*;
        match self {
            PointSelect => "SELECT c FROM sbtest%u WHERE id=?",
            SimpleRange => "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?",
            SumRange => "SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?",
            OrderRange => "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c",
            DistinctRange => "SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c",
            CountRange => "SELECT count(c) FROM sbtest%u WHERE id BETWEEN ? AND ?",
            IndexUpdate => "UPDATE sbtest%u SET k=k+1 WHERE id=?",
            NonIndexUpdate => "UPDATE sbtest%u SET c=? WHERE id=?",
            DeleteRow => "DELETE FROM sbtest%u WHERE id=?",
            InsertRow => "INSERT INTO sbtest%u (id, k, c, pad) VALUES (?, ?, ?, ?)",
        }
    }

    fn types(self) -> &'static [ParamType] {
        use Common::*;
        const INT: ParamType = ParamType::Int;
        match self {
            PointSelect | IndexUpdate | DeleteRow => &[INT],
            SimpleRange | SumRange | OrderRange | DistinctRange | CountRange => &[INT, INT],
            NonIndexUpdate => &[ParamType::Char(120), INT],
            InsertRow => &[INT, INT, ParamType::Char(120), ParamType::Char(60)],
        }
    }
}

/// The statements of the scripts run.sh adds (oltp_inlist_select.lua, ...),
/// with `%d` the table and `%s` the IN list's placeholders, as their Lua
/// long strings are (the whitespace included).
fn custom_sql(micro: Micro) -> Option<&'static str> {
    use Micro::*;
    Some(match micro {
        RandomPoints | HotPoints => {
            "           SELECT c\n             FROM sbtest%d\n             WHERE id IN (%s)\n           "
        }
        PointsCoveredPk => "               SELECT id FROM sbtest%d WHERE id IN (%s) ",
        PointsNotcoveredPk => "               SELECT id, c FROM sbtest%d WHERE id IN (%s) ",
        PointsCoveredSi => "               SELECT k FROM sbtest%d WHERE k IN (%s) ",
        PointsNotcoveredSi => "               SELECT k, c FROM sbtest%d WHERE k IN (%s) ",
        RangeCoveredPk => "               SELECT id FROM sbtest%d WHERE id BETWEEN ? AND ? ",
        RangeNotcoveredPk => "               SELECT id, c FROM sbtest%d WHERE id BETWEEN ? AND ? ",
        RangeCoveredSi => "               SELECT k FROM sbtest%d WHERE k BETWEEN ? AND ? ",
        RangeNotcoveredSi => "               SELECT k, c FROM sbtest%d WHERE k BETWEEN ? AND ? ",
        UpdateInlist => "           UPDATE sbtest%d set c=?\n           WHERE id IN (%s)\n           ",
        _ => return None,
    })
}

/// The IN lists' length: --random-points (run.sh gives it the range;
/// oltp_inlist_update.lua's default, 10, for update-inlist, to which it gives none).
fn points(micro: Micro, range: u64) -> usize {
    match micro {
        Micro::UpdateInlist => 10,
        _ => range as usize,
    }
}

/// What each script's event() sends, as counts of oltp_common's statements
/// (oltp_read_only.lua's options as run.sh sets them).
struct Shape {
    trx: bool,
    point_selects: u32,
    ranges: [(Common, u32); 5],
    index_updates: u32,
    non_index_updates: u32,
    delete_inserts: u32,
}

fn shape(micro: Micro) -> Option<Shape> {
    use Common::*;
    use Micro::*;
    let ranges = |simple, sum, order, distinct, count| {
        [(SimpleRange, simple), (SumRange, sum), (OrderRange, order), (DistinctRange, distinct), (CountRange, count)]
    };
    let none = ranges(0, 0, 0, 0, 0);
    let s = |trx, point_selects, ranges, index_updates, non_index_updates, delete_inserts| Shape {
        trx,
        point_selects,
        ranges,
        index_updates,
        non_index_updates,
        delete_inserts,
    };
    Some(match micro {
        PointQuery => s(false, 1, none, 0, 0, 0),
        ReadOnly => s(true, 10, ranges(1, 1, 1, 1, 0), 0, 0, 0),
        ReadOnlySimple => s(true, 10, ranges(1, 0, 0, 0, 0), 0, 0, 0),
        ReadOnlySum => s(true, 10, ranges(0, 1, 0, 0, 0), 0, 0, 0),
        ReadOnlyOrder => s(true, 10, ranges(0, 0, 1, 0, 0), 0, 0, 0),
        ReadOnlyDistinct => s(true, 10, ranges(0, 0, 0, 1, 0), 0, 0, 0),
        ReadOnlyCount => s(false, 0, ranges(0, 0, 0, 0, 1), 0, 0, 0),
        ReadWrite => s(true, 10, ranges(1, 1, 1, 1, 0), 1, 1, 1),
        WriteOnly => s(true, 0, none, 1, 1, 1),
        UpdateIndex => s(false, 0, none, 1, 0, 0),
        UpdateNonindex | UpdateOne | UpdateZipf => s(false, 0, none, 0, 1, 0),
        Micro::Delete => s(false, 0, none, 0, 0, 0),
        _ => return None,
    })
}

/// The oltp_common statements a script prepares (its prepare_statements),
/// in its order: all four range kinds whenever range_selects is on, even
/// those its options run 0 times.
fn prepared_commons(micro: Micro) -> &'static [Common] {
    use Common::*;
    use Micro::*;
    match micro {
        PointQuery => &[PointSelect],
        ReadOnly | ReadOnlySimple | ReadOnlySum | ReadOnlyOrder | ReadOnlyDistinct => {
            &[PointSelect, SimpleRange, SumRange, OrderRange, DistinctRange]
        }
        ReadOnlyCount => &[CountRange],
        ReadWrite => &[
            PointSelect,
            SimpleRange,
            SumRange,
            OrderRange,
            DistinctRange,
            IndexUpdate,
            NonIndexUpdate,
            DeleteRow,
            InsertRow,
        ],
        WriteOnly => &[IndexUpdate, NonIndexUpdate, DeleteRow, InsertRow],
        UpdateIndex => &[IndexUpdate],
        UpdateNonindex | UpdateOne | UpdateZipf => &[NonIndexUpdate],
        Micro::Delete => &[DeleteRow],
        _ => &[],
    }
}

/// One client: its connection and the statements its script prepared.
struct Client<'s> {
    session: Box<dyn SqlSession + 's>,
    dialect: Dialect,
    micro: Micro,
    tables: u32,
    /// The ids' range: --table-size (1 for update-one, as run.sh gives it).
    size: u64,
    range: u64,
    ids: Ids,
    /// prepared[common as usize][table - 1]
    prepared: Vec<Vec<Stmt>>,
    /// The script's own statement per table.
    custom: Vec<Stmt>,
    begin: Option<Stmt>,
    commit: Option<Stmt>,
    /// The global thread number (oltp_scan.lua's table is tid % tables + 1).
    tid: u64,
    c: String,
    pad: String,
    sql: String,
    ints: Vec<i32>,
}

fn table_sql(template: &str, t: u32, points: usize) -> String {
    let list = vec!["?"; points].join(", ");
    template.replace("%u", &t.to_string()).replace("%d", &t.to_string()).replace("%s", &list)
}

impl<'s> Client<'s> {
    fn open(store: &'s dyn SqlStore, plan: &StepPlan, micro: Micro, tid: u64) -> Result<Client<'s>> {
        let sb = &plan.settings.sysbench;
        let mut session = store.session()?;
        let range = sb.range(micro);
        let mut prepared = vec![Vec::new(); 10];
        let mut begin = None;
        let mut commit = None;
        let commons = prepared_commons(micro);
        let trx = shape(micro).is_some_and(|s| s.trx);
        // oltp_read_write.lua and oltp_write_only.lua prepare BEGIN and
        // COMMIT first; oltp_read_only.lua after its point selects.
        let trx_first = matches!(micro, Micro::ReadWrite | Micro::WriteOnly);
        let mut prepare_trx = |session: &mut Box<dyn SqlSession + 's>| -> Result<()> {
            if trx {
                begin = Some(session.prepare("BEGIN", &[])?);
                commit = Some(session.prepare("COMMIT", &[])?);
            }
            Ok(())
        };
        if trx_first {
            prepare_trx(&mut session)?;
        }
        for (i, &common) in commons.iter().enumerate() {
            for t in 1..=sb.tables {
                let stmt = session.prepare(&table_sql(common.sql(), t, 0), common.types())?;
                prepared[common as usize].push(stmt);
            }
            if i == 0 && !trx_first {
                prepare_trx(&mut session)?;
            }
        }
        let mut custom = Vec::new();
        if let Some(template) = custom_sql(micro) {
            let n = points(micro, range);
            let mut types = Vec::new();
            if micro == Micro::UpdateInlist {
                types.push(ParamType::Char(120));
            }
            let between = template.contains("BETWEEN");
            types.extend(std::iter::repeat_n(ParamType::Int, if between { 2 } else { n }));
            for t in 1..=sb.tables {
                custom.push(session.prepare(&table_sql(template, t, n), &types)?);
            }
        }
        let ids = match micro {
            Micro::UpdateZipf => Ids::Zipfian(Zipf::new(Zipf::SYSBENCH_EXPONENT)),
            _ => Ids::Uniform,
        };
        let size = if micro == Micro::UpdateOne { 1 } else { sb.table_size };
        Ok(Client {
            session,
            dialect: store.dialect(),
            micro,
            tables: sb.tables,
            size,
            range,
            ids,
            prepared,
            custom,
            begin,
            commit,
            tid,
            c: String::with_capacity(120),
            pad: String::with_capacity(60),
            sql: String::with_capacity(256),
            ints: Vec::with_capacity(points(micro, range).max(2)),
        })
    }

    #[inline]
    fn table(&self, rng: &mut Rng) -> u32 {
        rand::uniform(rng, 1, self.tables as u64) as u32
    }

    #[inline]
    fn id(&self, rng: &mut Rng) -> i32 {
        self.ids.next(rng, 1, self.size) as i32
    }

    fn exec(&mut self, stmt: Stmt, params: &[Param<'_>], write: bool, w: &mut Work) -> Result<()> {
        let rows = self.session.execute(stmt, params)?;
        count(w, rows, write);
        Ok(())
    }

    /// One event of the script: its statements, the transaction around them.
    fn event(&mut self, rng: &mut Rng, w: &mut Work) -> Result<()> {
        let micro = self.micro;
        if let Some(sh) = shape(micro) {
            if sh.trx {
                let begin = self.begin.expect("BEGIN prepared");
                self.session.execute(begin, &[])?;
                w.queries += 1;
            }
            if sh.point_selects > 0 {
                // execute_point_selects: one table for all of them.
                let t = self.table(rng);
                for _ in 0..sh.point_selects {
                    let id = self.id(rng);
                    let stmt = self.prepared[Common::PointSelect as usize][t as usize - 1];
                    self.exec(stmt, &[Param::Int(id)], false, w)?;
                }
            }
            for (kind, n) in sh.ranges {
                for _ in 0..n {
                    // execute_range: a table per call; id .. id + range_size - 1.
                    let t = self.table(rng);
                    let id = self.id(rng);
                    let stmt = self.prepared[kind as usize][t as usize - 1];
                    self.exec(stmt, &[Param::Int(id), Param::Int(id + self.range as i32 - 1)], false, w)?;
                }
            }
            for _ in 0..sh.index_updates {
                let t = self.table(rng);
                let id = self.id(rng);
                let stmt = self.prepared[Common::IndexUpdate as usize][t as usize - 1];
                self.exec(stmt, &[Param::Int(id)], true, w)?;
                w.logical_bytes_written += 4;
            }
            for _ in 0..sh.non_index_updates {
                let t = self.table(rng);
                rand::string_into(rng, C_TEMPLATE, &mut self.c);
                let id = self.id(rng);
                let stmt = self.prepared[Common::NonIndexUpdate as usize][t as usize - 1];
                let rows = self.session.execute(stmt, &[Param::Str(&self.c), Param::Int(id)])?;
                count(w, rows, true);
                w.logical_bytes_written += 120;
            }
            for _ in 0..sh.delete_inserts {
                let t = self.table(rng);
                let id = self.id(rng);
                let k = self.id(rng);
                rand::string_into(rng, C_TEMPLATE, &mut self.c);
                rand::string_into(rng, PAD_TEMPLATE, &mut self.pad);
                let del = self.prepared[Common::DeleteRow as usize][t as usize - 1];
                self.exec(del, &[Param::Int(id)], true, w)?;
                let ins = self.prepared[Common::InsertRow as usize][t as usize - 1];
                let params = [Param::Int(id), Param::Int(k), Param::Str(&self.c), Param::Str(&self.pad)];
                let rows = self.session.execute(ins, &params)?;
                count(w, rows, true);
                w.logical_bytes_written += ROW_BYTES;
            }
            if micro == Micro::Delete {
                // oltp_delete.lua's event: a table, an id, the DELETE.
                let t = self.table(rng);
                let id = self.id(rng);
                let del = self.prepared[Common::DeleteRow as usize][t as usize - 1];
                self.exec(del, &[Param::Int(id)], true, w)?;
            }
            if sh.trx {
                let commit = self.commit.expect("COMMIT prepared");
                self.session.execute(commit, &[])?;
                w.queries += 1;
            }
            return Ok(());
        }
        match micro {
            Micro::RandomPoints
            | Micro::HotPoints
            | Micro::PointsCoveredPk
            | Micro::PointsCoveredSi
            | Micro::PointsNotcoveredPk
            | Micro::PointsNotcoveredSi => {
                let t = self.table(rng);
                let n = points(micro, self.range);
                self.ints.clear();
                if micro == Micro::HotPoints {
                    // hot_key = table_size / 2 (a Lua number: whole for an even size).
                    let hot = (self.size / 2) as i32;
                    self.ints.extend((1..=n as i32).map(|i| hot + i));
                } else {
                    for _ in 0..n {
                        let id = self.id(rng);
                        self.ints.push(id);
                    }
                }
                let params: Vec<Param<'_>> = self.ints.iter().map(|&i| Param::Int(i)).collect();
                let rows = self.session.execute(self.custom[t as usize - 1], &params)?;
                count(w, rows, false);
            }
            Micro::RangeCoveredPk | Micro::RangeCoveredSi | Micro::RangeNotcoveredPk | Micro::RangeNotcoveredSi => {
                // oltp_range_covered.lua: min_id .. min_id + random_points.
                let t = self.table(rng);
                let min = self.id(rng);
                let stmt = self.custom[t as usize - 1];
                self.exec(stmt, &[Param::Int(min), Param::Int(min + self.range as i32)], false, w)?;
            }
            Micro::UpdateInlist => {
                let t = self.table(rng);
                rand::string_into(rng, C_TEMPLATE, &mut self.c);
                self.ints.clear();
                for _ in 0..points(micro, self.range) {
                    let id = self.id(rng);
                    self.ints.push(id);
                }
                let mut params = vec![Param::Str(&self.c)];
                params.extend(self.ints.iter().map(|&i| Param::Int(i)));
                let rows = self.session.execute(self.custom[t as usize - 1], &params)?;
                count(w, rows, true);
                w.logical_bytes_written += 120 * rows;
            }
            Micro::Scan => {
                // oltp_scan.lua: the thread's table, sent as text.
                let t = (self.tid % self.tables as u64) as u32 + 1;
                self.sql.clear();
                self.sql.push_str("SELECT * from sbtest");
                self.sql.push_str(&t.to_string());
                self.sql.push_str(" WHERE LENGTH(c) < 0");
                let rows = self.session.query(&self.sql)?;
                count(w, rows, false);
            }
            Micro::Insert => {
                // oltp_insert.lua, auto_inc on: PostgreSQL lets SERIAL give
                // the id; MySQL sends id 0, which AUTO_INCREMENT replaces.
                let t = self.table(rng);
                let k = self.ids.next(rng, 1, self.size);
                rand::string_into(rng, C_TEMPLATE, &mut self.c);
                rand::string_into(rng, PAD_TEMPLATE, &mut self.pad);
                self.sql.clear();
                use std::fmt::Write;
                let _ = match self.dialect {
                    Dialect::Postgres => {
                        write!(self.sql, "INSERT INTO sbtest{t} (k, c, pad) VALUES ({k}, '{}', '{}')", self.c, self.pad)
                    }
                    Dialect::Mysql => write!(
                        self.sql,
                        "INSERT INTO sbtest{t} (id, k, c, pad) VALUES (0, {k}, '{}', '{}')",
                        self.c, self.pad
                    ),
                };
                let rows = self.session.query(&self.sql)?;
                count(w, rows, true);
                w.logical_bytes_written += ROW_BYTES;
            }
            _ => bail!("{} has no event here", micro.name()),
        }
        Ok(())
    }
}

#[inline]
fn count(w: &mut Work, rows: u64, write: bool) {
    w.queries += 1;
    if write {
        w.writes += 1;
        w.rows_written += rows;
    } else {
        w.reads += 1;
        w.rows_read += rows;
    }
}

/// An error sysbench ignores and restarts the event on: its mysql driver's
/// default --mysql-ignore-errors (1213 deadlock, 1020 record changed, 1205
/// lock wait time-out) and its pgsql driver's (40P01 deadlock, 23505 unique
/// violation, 40001 serialization failure).
fn ignorable(e: &anyhow::Error) -> bool {
    if let Some(mysql::Error::MySqlError(m)) = e.downcast_ref::<mysql::Error>() {
        return matches!(m.code, 1213 | 1020 | 1205);
    }
    let text = format!("{e:#}");
    ["SQLSTATE 40P01", "SQLSTATE 23505", "SQLSTATE 40001"].iter().any(|c| text.contains(c))
}

struct ClientOut {
    ops: Vec<driver::FinishedOp>,
    end_ns: u64,
    work: Work,
}

/// Make the tables a step needs when they are missing (not timed), as
/// sysbench's prepare makes them; tables found are used as they are.
fn ensure_tables(
    store: &dyn SqlStore,
    plan: &StepPlan,
    engine: &str,
    state: &mut SysbenchState,
    result: &mut StepResult,
) -> Result<()> {
    let sb = &plan.settings.sysbench;
    if state.tables >= sb.tables {
        if state.table_size != sb.table_size {
            result.notes.push(format!(
                "the tables were prepared with {} rows each; this step's --table-size is {} (its ids are drawn from 1..={})",
                state.table_size, sb.table_size, sb.table_size
            ));
        }
        return Ok(());
    }
    let mut missing = Vec::new();
    for t in state.tables + 1..=sb.tables {
        match schema::rows_in(store, t)? {
            Some(rows) => result.notes.push(format!("{} was there with {rows} rows: used as it is", table_name(t))),
            None => missing.push(t),
        }
    }
    if !missing.is_empty() {
        let t0 = std::time::Instant::now();
        errln!(
            "  preparing {} sysbench table(s) of {} rows, as sysbench's prepare (not timed)",
            missing.len(),
            sb.table_size
        );
        schema::prepare(store, &missing, sb.table_size, engine, plan.settings.seed, plan.settings.threads)?;
        state.created.extend(&missing);
        result.notes.push(format!(
            "prepared {} table(s) of {} rows as sysbench's prepare makes them, in {:.1} s before the step (not timed)",
            missing.len(),
            sb.table_size,
            t0.elapsed().as_secs_f64()
        ));
    }
    state.tables = sb.tables;
    state.table_size = sb.table_size;
    Ok(())
}

/// Run a sysbench step on `store`. `engine`: MySQL's storage engine for the
/// tables it makes (--mysql-storage-engine).
pub fn run_step(
    store: &dyn SqlStore,
    engine: &str,
    plan: &StepPlan,
    index: usize,
    state: &mut SysbenchState,
    mut result: StepResult,
) -> (StepResult, Work) {
    let StepKind::Sysbench(micro) = plan.kind else { unreachable!("a sysbench step") };
    if let Err(e) = ensure_tables(store, plan, engine, state, &mut result) {
        result.status = if crate::driver::stop::stop_requested() { Status::Interrupted } else { Status::Failed };
        result.error = Some(format!("cannot prepare the sysbench tables: {e:#}"));
        return (result, Work::default());
    }
    let s = &plan.settings;
    let label = plan.name();
    let joined = driver::run(
        s.threads,
        0,
        s.seconds,
        Progress { label: &label, total_ops: s.ops, seconds: s.seconds },
        |_, t| Client::open(store, plan, micro, s.global_thread(t)),
        |t, client| run_client(t, client, plan, index),
        || {},
    );
    joined.stamp(&mut result);
    let wall_ns = driver::wall_ns(joined.clients.iter().map(|o| o.end_ns));
    let mut work = Work::default();
    let mut ops = Vec::new();
    for o in joined.clients {
        work.add(&o.work);
        ops.push(o.ops);
    }
    result.ops_by_type = driver::merge_ops(ops, driver::intervals(wall_ns));
    let wall_s = wall_ns as f64 / 1e9;
    result.wall_s = Some(wall_s);
    result.ops = result.ops_by_type.iter().map(|o| o.ops).sum();
    result.ops_s = Some(result.ops as f64 / wall_s);
    result.mb_s = Some(work.logical_bytes_written as f64 / wall_s / (1 << 20) as f64);
    let events = result.ops.max(1) as f64;
    result.notes.push(format!(
        "sysbench {} ({}): {} table(s) of {} rows; {:.0} queries/s ({} reads, {} writes, {} other), {:.1} queries and {:.1} rows read per event",
        micro.name(),
        micro.lua().replace("RANGE", &s.sysbench.range(micro).to_string()),
        s.sysbench.tables,
        s.sysbench.table_size,
        work.queries as f64 / wall_s,
        work.reads,
        work.writes,
        work.queries - work.reads - work.writes,
        work.queries as f64 / events,
        work.rows_read as f64 / events,
    ));
    if work.writes > 0 && work.writing_events < result.ops {
        result.notes.push(format!(
            "{} of the {} events changed no row (the rows their writes name were gone): their commits have nothing to sync, and the durability check counts the other {}",
            result.ops - work.writing_events,
            result.ops,
            work.writing_events
        ));
    }
    if work.ignored_errors > 0 {
        result.notes.push(format!(
            "{} event(s) hit an error sysbench ignores (deadlock, lock wait time-out, serialization failure): rolled back and run again",
            work.ignored_errors
        ));
    }
    driver::settle_status(&mut result, &joined.errors);
    (result, work)
}

fn run_client(t: &Thread<'_>, mut client: Client<'_>, plan: &StepPlan, index: usize) -> Result<ClientOut> {
    let s = &plan.settings;
    let mut op = t.recorder("event");
    let mut rng = Rng::new(stream_seed(s.seed, &[index as u64, s.global_thread(t.index), 0x5b]));
    let mut work = Work::default();
    let end_ns = t.client_loop(
        &mut op.rec,
        s.ops,
        s.global_thread(t.index),
        s.global_threads(),
        s.client_calls_per_s(1),
        |_| {
            loop {
                let mut w = Work::default();
                match client.event(&mut rng, &mut w) {
                    Ok(()) => {
                        w.writing_events = u64::from(w.rows_written > 0);
                        work.add(&w);
                        return Ok((1, false));
                    }
                    Err(e) if ignorable(&e) && !t.should_stop() => {
                        work.ignored_errors += 1;
                        // The event's transaction, if any, is over: sysbench's drivers roll it back.
                        client.session.query("ROLLBACK")?;
                    }
                    Err(e) => return Err(e),
                }
            }
        },
    )?;
    Ok(ClientOut { ops: vec![op.finish()], end_ns, work })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::sysbench::MICROS;

    #[test]
    fn every_microbenchmark_has_an_event() {
        for (m, name, ..) in MICROS {
            let custom = custom_sql(*m).is_some();
            let common = shape(*m).is_some();
            let own = matches!(m, Micro::Scan | Micro::Insert);
            assert_eq!([custom, common, own].iter().filter(|&&x| x).count(), 1, "{name}");
        }
    }

    #[test]
    fn statements_are_the_scripts_text() {
        assert_eq!(table_sql(Common::PointSelect.sql(), 3, 0), "SELECT c FROM sbtest3 WHERE id=?");
        assert_eq!(
            table_sql(custom_sql(Micro::PointsCoveredSi).unwrap(), 1, 3),
            "               SELECT k FROM sbtest1 WHERE k IN (?, ?, ?) "
        );
        assert_eq!(points(Micro::UpdateInlist, 100), 10);
        assert_eq!(points(Micro::RandomPoints, 1000), 1000);
    }
}
