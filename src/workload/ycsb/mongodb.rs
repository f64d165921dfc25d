//! YCSB on MongoDB, as YCSB's mongodb binding runs it: collection usertable,
//! a record is a document `{_id: key, field0: <bytes>, ...}` (its fields as
//! BSON binary, as the binding stores Java byte arrays), reads `find({_id})`,
//! updates `updateOne({_id}, {$set: {fieldN: ...}})` (not found when nothing
//! matched), scans `find({_id: {$gte: start}}).sort({_id: 1}).limit(n)`,
//! inserts `insertOne`, or with `--batch-size` N in ycsb-load an unordered
//! `insertMany` of N (the binding's `batchsize`). Each client thread runs
//! its operations on a driver of its own (`ThreadDriver`), on one connection.

use anyhow::{anyhow, Result};
use mongodb::bson::spec::BinarySubtype;
use mongodb::bson::{doc, Binary, Bson, Document, RawDocumentBuf};
use mongodb::Collection;

use super::{Store, StoreSession, TABLE};
use crate::server::mongodb::{Mongo, ThreadDriver};

pub struct MongoStore<'a> {
    mongo: &'a Mongo,
    field_count: usize,
}

impl<'a> MongoStore<'a> {
    pub fn new(mongo: &'a Mongo, field_count: usize) -> MongoStore<'a> {
        MongoStore { mongo, field_count }
    }
}

fn text(b: &[u8]) -> Result<&str> {
    std::str::from_utf8(b).map_err(|_| anyhow!("YCSB keys are text"))
}

fn binary(b: &[u8]) -> Bson {
    Bson::Binary(Binary { subtype: BinarySubtype::Generic, bytes: b.to_vec() })
}

impl Store for MongoStore<'_> {
    fn create(&self) -> Result<()> {
        // The plan's check made sure the database holds no usertable: a name
        // clash fails here rather than touch someone else's collection.
        self.mongo.run("creating collection usertable", self.mongo.db().create_collection(TABLE))
    }

    /// The fields of a document of usertable (`_id` as YCSB_KEY, so that the
    /// shape check reads as for tables); empty when there is no such collection.
    fn columns(&self) -> Result<Option<Vec<String>>> {
        let names = self.mongo.run("listing collections", self.mongo.db().list_collection_names())?;
        if !names.iter().any(|n| n == TABLE) {
            return Ok(Some(Vec::new()));
        }
        let one =
            self.mongo.run("reading usertable", self.mongo.db().collection::<Document>(TABLE).find_one(doc! {}))?;
        Ok(Some(match one {
            Some(d) => d.keys().map(|k| if k == "_id" { "YCSB_KEY".to_string() } else { k.clone() }).collect(),
            None => vec!["YCSB_KEY".to_string()],
        }))
    }

    fn place(&self) -> String {
        self.mongo.url.clone()
    }

    fn shared(&self) -> bool {
        true
    }

    fn batches_inserts(&self) -> bool {
        true
    }

    fn session(&self) -> Result<Box<dyn StoreSession + '_>> {
        let driver = self.mongo.thread_driver()?;
        Ok(Box::new(MongoSession {
            docs: driver.db.collection(TABLE),
            raw: driver.db.collection(TABLE),
            field_names: (0..self.field_count).map(|i| format!("field{i}")).collect(),
            driver,
        }))
    }
}

struct MongoSession {
    docs: Collection<Document>,
    /// Reads and scans as raw BSON: not decoded into a map, as YCSB's binding
    /// does not look into its values either.
    raw: Collection<RawDocumentBuf>,
    field_names: Vec<String>,
    /// Last: the collections are dropped before their driver.
    driver: ThreadDriver,
}

impl MongoSession {
    /// A record as YCSB's binding writes it: `{_id: key, field0: <bytes>, ...}`.
    fn document(&self, key: &[u8], record: &[u8]) -> Result<Document> {
        let n = self.field_names.len();
        let len = record.len() / n.max(1);
        let mut d = Document::new();
        d.insert("_id", text(key)?);
        for (i, name) in self.field_names.iter().enumerate() {
            d.insert(name.clone(), binary(&record[i * len..(i + 1) * len]));
        }
        Ok(d)
    }
}

impl StoreSession for MongoSession {
    fn insert(&mut self, key: &[u8], record: &[u8]) -> Result<()> {
        let d = self.document(key, record)?;
        self.driver.run("insert", self.docs.insert_one(d)).map(drop)
    }

    fn insert_batch(&mut self, records: &[(&[u8], &[u8])]) -> Result<()> {
        let docs: Vec<Document> = records.iter().map(|(k, r)| self.document(k, r)).collect::<Result<_>>()?;
        let options = mongodb::options::InsertManyOptions::builder().ordered(false).build();
        self.driver.run("insertMany", self.docs.insert_many(docs).with_options(options)).map(drop)
    }

    fn read(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        let Some(d) = self.driver.run("read", self.raw.find_one(doc! {"_id": text(key)?}))? else { return Ok(false) };
        // The record's fields in order (the shape check compares their length).
        for name in &self.field_names {
            if let Ok(b) = d.get_binary(name) {
                out.extend_from_slice(b.bytes);
            }
        }
        Ok(true)
    }

    fn update(&mut self, key: &[u8], fields: &[(usize, &[u8])]) -> Result<bool> {
        let mut set = Document::new();
        for (i, v) in fields {
            set.insert(self.field_names[*i].clone(), binary(v));
        }
        let r = self.driver.run("update", self.docs.update_one(doc! {"_id": text(key)?}, doc! {"$set": set}))?;
        Ok(r.matched_count > 0)
    }

    fn scan(&mut self, start: &[u8], count: usize) -> Result<usize> {
        let find = self
            .raw
            .find(doc! {"_id": {"$gte": text(start)?}})
            .sort(doc! {"_id": 1})
            .limit(count as i64)
            // All of them in the first reply: one round trip, as a LIMIT query.
            .batch_size(count.clamp(1, u32::MAX as usize) as u32);
        self.driver.run("scan", async {
            let mut cursor = find.await?;
            let mut n = 0;
            while cursor.advance().await? {
                std::hint::black_box(cursor.current());
                n += 1;
            }
            Ok(n)
        })
    }
}
