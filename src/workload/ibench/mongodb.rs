//! The insert benchmark on MongoDB, as its MongoDB clients run it: a
//! collection per table (pi1, ...) of documents `{_id: id, dateandtime,
//! cashregisterid, productid, customerid, price, data}`, inserts with
//! `insertMany` (ordered) and the tail's deletes with `deleteMany` on an
//! `_id` range (two round trips: MongoDB commits each document on its own
//! outside a transaction), the three secondary indexes created by name, and
//! the queries through them with the index named as a hint.
//!
//! A server rumbench did not start is never settled: no fsync, no compact.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use mongodb::bson::{doc, Document};
use mongodb::options::Hint;
use mongodb::IndexModel;

use super::table::{ServerSyncs, Table, TableSession};
use super::{table_name, Index, Row};
use crate::server::mongodb::{collection_figures, Mongo, ServerIdentity, ThreadDriver, WriteConcernSetting};

/// The collections of one MongoDB database.
pub struct MongoTable {
    mongo: Arc<Mongo>,
    identity: ServerIdentity,
    write_concern: WriteConcernSetting,
}

impl MongoTable {
    pub fn new(mongo: Arc<Mongo>, write_concern: WriteConcernSetting) -> Result<MongoTable> {
        let identity = mongo.identity().with_context(|| format!("cannot read what {} is", mongo.url))?;
        Ok(MongoTable { mongo, identity, write_concern })
    }

    /// What the server is (for the hot and YCSB collections' owners too).
    pub fn identity(&self) -> &ServerIdentity {
        &self.identity
    }
}

fn row_document(r: &Row) -> Document {
    doc! {
        "_id": r.id as i64,
        "dateandtime": r.dateandtime,
        "cashregisterid": r.cashregisterid,
        "productid": r.productid,
        "customerid": r.customerid,
        "price": r.price,
        "data": &r.data,
    }
}

fn document_row(d: &Document) -> Result<Row> {
    let int = |k: &str| -> Result<i64> {
        match d.get(k) {
            Some(mongodb::bson::Bson::Int32(v)) => Ok(*v as i64),
            Some(mongodb::bson::Bson::Int64(v)) => Ok(*v),
            other => Err(anyhow!("a row's {k} is {other:?}, not an integer")),
        }
    };
    Ok(Row {
        id: int("_id")? as u64,
        dateandtime: int("dateandtime")?,
        cashregisterid: int("cashregisterid")? as i32,
        productid: int("productid")? as i32,
        customerid: int("customerid")? as i32,
        price: int("price")? as i32,
        data: d.get_str("data").map_err(|_| anyhow!("a row's data is not a string"))?.to_string(),
    })
}

fn index_keys(index: Index) -> Document {
    let mut keys = Document::new();
    for c in index.columns() {
        keys.insert(c, 1i32);
    }
    keys
}

impl Table for MongoTable {
    fn version(&self) -> String {
        self.identity.describe()
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        vec![("target".into(), self.mongo.url.clone()), ("write_concern".into(), self.write_concern.describe())]
    }

    fn provenance(&self) -> Vec<(String, String)> {
        self.identity.provenance()
    }

    fn create_tables(&self, tables: u32) -> Result<()> {
        for t in 0..tables {
            let name = table_name(t);
            // The plan's check made sure no such collection exists.
            self.mongo.run(&format!("creating collection {name}"), self.mongo.db().create_collection(&name))?;
        }
        Ok(())
    }

    fn session(&self) -> Result<Box<dyn TableSession + '_>> {
        Ok(Box::new(MongoSession { collections: HashMap::new(), driver: self.mongo.thread_driver()? }))
    }

    fn settle(&self, _tables: u32, _timeout: Duration, _stop: &dyn Fn() -> bool) -> Result<Vec<String>> {
        Ok(vec!["nothing: no fsync or compact on a server rumbench did not start".into()])
    }

    fn stats(&self, tables: u32) -> Vec<(String, String)> {
        let own = super::own_table_names(tables);
        match self.mongo.run("listing collections", self.mongo.db().list_collection_names()) {
            Ok(names) => {
                own.iter().filter(|n| names.contains(n)).flat_map(|n| collection_figures(&self.mongo, n)).collect()
            }
            Err(e) => vec![("collStats".into(), format!("missing: {e}"))],
        }
    }

    /// collStats' storageSize + totalIndexSize of rumbench's collections.
    fn server_storage_bytes(&self, tables: u32) -> Option<Result<(u64, String)>> {
        Some((|| {
            let listed = self.mongo.run("listing collections", self.mongo.db().list_collection_names())?;
            let own: Vec<String> = super::own_table_names(tables).into_iter().filter(|n| listed.contains(n)).collect();
            let mut total = 0u64;
            for name in &own {
                let stats = self.mongo.command(doc! {"collStats": name})?;
                for field in ["storageSize", "totalIndexSize"] {
                    total += match stats.get(field) {
                        Some(mongodb::bson::Bson::Int32(v)) => *v as u64,
                        Some(mongodb::bson::Bson::Int64(v)) => *v as u64,
                        Some(mongodb::bson::Bson::Double(v)) => *v as u64,
                        _ => anyhow::bail!("{}'s collStats of {name} has no {field}", self.identity.product),
                    };
                }
            }
            Ok((total, format!("collStats storageSize + totalIndexSize of {}", own.join(", "))))
        })())
    }

    /// WiredTiger's count of its log's syncs, where serverStatus has it.
    fn server_syncs(&self) -> Option<Result<ServerSyncs>> {
        Some((|| {
            let status = self.mongo.admin_command(doc! {"serverStatus": 1})?;
            let log = status.get_document("wiredTiger").and_then(|w| w.get_document("log")).map_err(|_| {
                anyhow!(
                    "{}'s serverStatus has no wiredTiger.log section to count journal syncs from",
                    self.identity.product
                )
            })?;
            let count = match log.get("log sync operations") {
                Some(mongodb::bson::Bson::Int64(v)) => *v as u64,
                Some(mongodb::bson::Bson::Int32(v)) => *v as u64,
                Some(mongodb::bson::Bson::Double(v)) => *v as u64,
                _ => anyhow::bail!("serverStatus.wiredTiger.log has no \"log sync operations\""),
            };
            Ok(ServerSyncs {
                count,
                counter: "serverStatus.wiredTiger.log.log sync operations".into(),
                includes_data_files: false,
            })
        })())
    }

    fn not_durable_reason(&self) -> Option<String> {
        self.write_concern.not_durable_reason()
    }
}

/// Every document of a cursor.
async fn all(mut cursor: mongodb::Cursor<Document>) -> mongodb::error::Result<Vec<Document>> {
    let mut docs = Vec::new();
    while cursor.advance().await? {
        docs.push(cursor.deserialize_current()?);
    }
    Ok(docs)
}

/// A client thread's driver and the collections it has used.
struct MongoSession {
    collections: HashMap<u32, mongodb::Collection<Document>>,
    /// Last: the collections are dropped before their driver.
    driver: ThreadDriver,
}

impl MongoSession {
    fn collection(&mut self, table: u32) -> mongodb::Collection<Document> {
        let db = &self.driver.db;
        self.collections.entry(table).or_insert_with(|| db.collection(&table_name(table))).clone()
    }
}

impl TableSession for MongoSession {
    fn insert_rows(&mut self, table: u32, rows: &[Row], delete: Option<Range<u64>>) -> Result<u64> {
        let c = self.collection(table);
        self.driver.run("insert", c.insert_many(rows.iter().map(row_document)))?;
        match delete {
            Some(d) => {
                let r = self
                    .driver
                    .run("delete", c.delete_many(doc! {"_id": {"$gte": d.start as i64, "$lt": d.end as i64}}))?;
                Ok(r.deleted_count)
            }
            None => Ok(0),
        }
    }

    fn create_secondary_indexes(&mut self, table: u32) -> Result<()> {
        let models: Vec<IndexModel> = Index::ALL
            .iter()
            .map(|&ix| {
                IndexModel::builder()
                    .keys(index_keys(ix))
                    .options(mongodb::options::IndexOptions::builder().name(ix.name().to_string()).build())
                    .build()
            })
            .collect();
        let c = self.collection(table);
        self.driver.run("createIndexes", c.create_indexes(models)).map(drop)
    }

    fn range_query(&mut self, table: u32, index: Index, start: i32, limit: usize, out: &mut Vec<Row>) -> Result<()> {
        out.clear();
        let lead = index.columns()[0];
        let c = self.collection(table);
        let find = c
            .find(doc! {lead: {"$gte": start}})
            .sort(index_keys(index))
            .hint(Hint::Name(index.name().to_string()))
            .limit(limit as i64)
            .batch_size(limit.clamp(1, u32::MAX as usize) as u32);
        let docs = self.driver.run("range query", async { all(find.await?).await })?;
        docs.iter().try_for_each(|d| {
            out.push(document_row(d)?);
            Ok(())
        })
    }

    fn point_query(&mut self, table: u32, ids: &[u64], out: &mut Vec<Row>) -> Result<()> {
        out.clear();
        let ids: Vec<i64> = ids.iter().map(|&i| i as i64).collect();
        let c = self.collection(table);
        let find = c.find(doc! {"_id": {"$in": ids}});
        let docs = self.driver.run("point query", async { all(find.await?).await })?;
        docs.iter().try_for_each(|d| {
            out.push(document_row(d)?);
            Ok(())
        })
    }

    fn row_count(&mut self, table: u32) -> Result<u64> {
        let c = self.collection(table);
        self.driver.run("count", c.count_documents(doc! {}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_the_same_row_after_a_round_trip_through_its_document() {
        let row = super::super::RowGen::new(7).row(0, 42);
        let d = row_document(&row);
        assert_eq!(d.get_i64("_id").unwrap(), 42);
        assert_eq!(document_row(&d).unwrap(), row);
        assert_eq!(index_keys(Index::Pdc).keys().cloned().collect::<Vec<_>>(), ["price", "dateandtime", "customerid"]);
    }
}
