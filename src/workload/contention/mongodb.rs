//! hotrow on MongoDB: collections hot1.. of documents `{_id: 1..=rows,
//! counter: 0, pad: <92 bytes>}` (the tables' rows as documents), each
//! update `updateOne({_id: 1}, {$inc: {counter: 1}})` with the config's write
//! concern. A single document's update is atomic in MongoDB, so no
//! transaction is needed; a server that loses increments under concurrency
//! (FerretDB 1.x does) is caught by the counters' check after the step.
//! randomtransaction is refused at plan time (multi-document transactions
//! need a replica set, and are not what this binding measures).

use anyhow::{bail, Context, Result};
use mongodb::bson::{doc, Document};

use super::{hot_table, Session, Store};
use crate::engine::TxnEnd;
use crate::server::mongodb::{Mongo, ThreadDriver};

/// Documents per insertMany of the load (about 120 KB).
const LOAD_BATCH: u64 = 1000;

pub struct MongoStore<'a> {
    mongo: &'a Mongo,
    tables: u32,
}

impl<'a> MongoStore<'a> {
    pub fn new(mongo: &'a Mongo, tables: u32) -> MongoStore<'a> {
        MongoStore { mongo, tables }
    }
}

impl Store for MongoStore<'_> {
    fn create_hot(&self, tables: u32, rows: u64) -> Result<()> {
        let pad = "x".repeat(92);
        for t in 0..tables {
            let name = hot_table(t);
            // The plan's check made sure no such collection exists.
            self.mongo.run(&format!("creating {name}"), self.mongo.db().create_collection(&name))?;
            let c: mongodb::Collection<Document> = self.mongo.db().collection(&name);
            let mut id = 1;
            while id <= rows {
                let end = (id + LOAD_BATCH).min(rows + 1);
                let docs: Vec<Document> =
                    (id..end).map(|i| doc! {"_id": i as i64, "counter": 0i64, "pad": &pad}).collect();
                self.mongo.run(&format!("loading {name}"), c.insert_many(docs))?;
                id = end;
            }
        }
        Ok(())
    }

    fn create_sets(&self, _sets: u32, _keys: u64) -> Result<()> {
        bail!("randomtransaction is not run on MongoDB (refused when the plan is checked)")
    }

    fn shared(&self) -> bool {
        true
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        let driver = self.mongo.thread_driver()?;
        Ok(Box::new(MongoSession {
            hot: (0..self.tables).map(|t| driver.db.collection(&hot_table(t))).collect(),
            driver,
        }))
    }
}

struct MongoSession {
    hot: Vec<mongodb::Collection<Document>>,
    /// Last: the collections are dropped before their driver.
    driver: ThreadDriver,
}

impl MongoSession {
    fn collection(&self, table: u32) -> Result<&mongodb::Collection<Document>> {
        self.hot.get(table as usize).with_context(|| format!("no hot collection {}", hot_table(table)))
    }
}

impl Session for MongoSession {
    fn hot_update(&mut self, table: u32) -> Result<TxnEnd> {
        let r = self
            .driver
            .run("update", self.collection(table)?.update_one(doc! {"_id": 1i64}, doc! {"$inc": {"counter": 1i64}}))?;
        if r.matched_count != 1 {
            bail!("{} has no document 1 (the update matched {})", hot_table(table), r.matched_count);
        }
        Ok(TxnEnd::Committed)
    }

    fn hot_counter(&mut self, table: u32) -> Result<i64> {
        let d = self.driver.run("read", self.collection(table)?.find_one(doc! {"_id": 1i64}))?;
        let d = d.with_context(|| format!("{} has no document 1", hot_table(table)))?;
        match d.get("counter") {
            Some(mongodb::bson::Bson::Int64(v)) => Ok(*v),
            Some(mongodb::bson::Bson::Int32(v)) => Ok(*v as i64),
            other => bail!("{} document 1's counter is {other:?}, not an integer", hot_table(table)),
        }
    }

    fn transfer(&mut self, _keys: &[u64], _increment: i64) -> Result<TxnEnd> {
        bail!("randomtransaction is not run on MongoDB")
    }

    fn set_sum(&mut self, _set: u32, _keys: u64) -> Result<i64> {
        bail!("randomtransaction is not run on MongoDB")
    }
}
