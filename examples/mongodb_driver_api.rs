//! The mongodb driver's client CPU per findOne by `_id`, through its sync API
//! (what rumbench's setup uses) against its async API on a current-thread
//! runtime the calling thread owns (what rumbench's client threads use,
//! `ThreadDriver` in src/server/mongodb.rs). docs/mongodb.md has the numbers.
//!
//!   cargo run --release --example mongodb_driver_api -- mongodb://127.0.0.1:PORT/ sync|async [OPS]
//!
//! It writes one document to collection `t` of database `rumbench_driver_api`
//! (dropped first and at the end): point it at a test server.

use mongodb::bson::{doc, Document};
use std::time::Instant;

const DATABASE: &str = "rumbench_driver_api";

/// (this thread's CPU seconds, the process's CPU seconds, this thread's
/// voluntary and involuntary context switches)
fn cpu() -> (f64, f64, i64, i64) {
    let usage = |who| {
        // SAFETY: rusage is plain data; zeroed is a valid value.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage fills the struct it is given.
        unsafe { libc::getrusage(who, &mut ru) };
        ru
    };
    let secs = |ru: &libc::rusage| {
        ru.ru_utime.tv_sec as f64
            + ru.ru_utime.tv_usec as f64 / 1e6
            + ru.ru_stime.tv_sec as f64
            + ru.ru_stime.tv_usec as f64 / 1e6
    };
    let (thread, process) = (usage(libc::RUSAGE_THREAD), usage(libc::RUSAGE_SELF));
    (secs(&thread), secs(&process), thread.ru_nvcsw, thread.ru_nivcsw)
}

fn report(api: &str, ops: u64, started: Instant, before: (f64, f64, i64, i64)) {
    let after = cpu();
    let per_op = |a: f64, b: f64| (b - a) / ops as f64;
    println!(
        "{api}: {:.0} ops/s; CPU per op: calling thread {:.1} us, process {:.1} us; context switches per op of the calling thread: {:.2} voluntary, {:.2} involuntary",
        ops as f64 / started.elapsed().as_secs_f64(),
        per_op(before.0, after.0) * 1e6,
        per_op(before.1, after.1) * 1e6,
        per_op(before.2 as f64, after.2 as f64),
        per_op(before.3 as f64, after.3 as f64),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(url), Some(api)) = (args.first(), args.get(1)) else {
        eprintln!("usage: mongodb_driver_api URL sync|async [OPS]");
        std::process::exit(2);
    };
    let ops: u64 = args.get(2).map_or(3000, |n| n.parse().expect("OPS is a number"));
    match api.as_str() {
        "sync" => {
            let client = mongodb::sync::Client::with_uri_str(url).unwrap();
            let t = client.database(DATABASE).collection::<Document>("t");
            let _ = t.drop().run();
            t.insert_one(doc! {"_id": "k", "v": "x"}).run().unwrap();
            for _ in 0..100 {
                t.find_one(doc! {"_id": "k"}).run().unwrap();
            }
            let (started, before) = (Instant::now(), cpu());
            for _ in 0..ops {
                t.find_one(doc! {"_id": "k"}).run().unwrap().unwrap();
            }
            report("sync API", ops, started, before);
            t.drop().run().unwrap();
        }
        "async" => {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async {
                let client = mongodb::Client::with_uri_str(url).await.unwrap();
                let t = client.database(DATABASE).collection::<Document>("t");
                let _ = t.drop().await;
                t.insert_one(doc! {"_id": "k", "v": "x"}).await.unwrap();
                for _ in 0..100 {
                    t.find_one(doc! {"_id": "k"}).await.unwrap();
                }
                let (started, before) = (Instant::now(), cpu());
                for _ in 0..ops {
                    t.find_one(doc! {"_id": "k"}).await.unwrap().unwrap();
                }
                report("async API, current-thread runtime", ops, started, before);
                t.drop().await.unwrap();
            });
        }
        other => {
            eprintln!("mongodb_driver_api: {other} is neither sync nor async");
            std::process::exit(2);
        }
    }
}
