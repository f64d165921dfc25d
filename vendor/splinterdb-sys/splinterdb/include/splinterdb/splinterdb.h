// Copyright 2018-2026 VMware, Inc.
// SPDX-License-Identifier: Apache-2.0

/*
 * splinterdb.h --
 *
 *     The public API for SplinterDB
 *
 *     A data_config must be provided at the time of create/open.
 *     See default_data_config.h for a basic reference implementation.
 *
 * Threads are registered with SplinterDB automatically on first use and are
 * deregistered automatically when they exit.
 */

#pragma once

#include "data.h"

#ifdef __cplusplus
extern "C" {
#endif

// Get a version string for this build of SplinterDB
// Currently a git tag
const char *
splinterdb_get_version();

/*
 * ****************************************************************************
 * Configuration options for SplinterDB:
 *
 * Physical configuration things such as file name, cache & disk-size,
 * extent- and page-size are specified here. Application-specific data
 * configuration is also provided through this struct. Additionally,
 * user can select whether to use malloc()/free()-based memory allocation
 * for all structures (default), or choose to setup a shared segment
 * which will be used for shared structures.
 *
 */
typedef struct splinterdb_config {
   // required configuration
   const char *filename;
   uint64      cache_size;

   // Required for splinterdb_create().  For splinterdb_open(), zero means read
   // the value from the on-disk superblock; nonzero values are checked against
   // the superblock.
   uint64 disk_size;

   // data_config is a required field that defines how your data should be
   // read and written in SplinterDB.  See data.h for details.
   // For a simple reference implementation, see default_data_config.h
   data_config *data_cfg;

   // optional advanced config below
   // if unset, defaults will be used
   void *heap_handle;
   void *heap_id;

   // Shared memory support
   uint64 shmem_size;
   _Bool  use_shmem; // Default is FALSE.

   // For splinterdb_open(), zero means read the value from the on-disk
   // superblock; nonzero values are checked against the superblock.
   uint64 page_size;
   uint64 extent_size;

   // io
   int    io_flags;
   uint32 io_perms;
   uint64 io_async_queue_depth;

   // cache
   _Bool       cache_use_stats;
   const char *cache_logfile;

   // task system
   // Background threads configuration:
   //
   // - Memtable bg-threads work on Memtables tasks which are short but latency
   //   sensitive. A rule of thumb is to allocate around 1 memtable bg-thread
   //   for every 10 threads performing insertions. Too few memtable threads
   //   can cause some insertions to have high latency.
   // - Normal bg-threads work on task such as compacting branches in the trunk
   //   and building filters. These tasks take longer and are less latency
   //   sensitive. A rule of thumb is to allocate 1-2 normal background
   //   threads for every thread performing insertions. Too few "normal"
   //   background threads can cause disk I/O bandwidth to go underutilized.
   uint64 num_memtable_bg_threads;
   uint64 num_normal_bg_threads;

   // btree
   uint64 btree_rough_count_height;

   // filter
   uint64 filter_hash_size;
   uint64 filter_log_index_size;

   // log
   _Bool use_log;

   // splinter
   uint64 memtable_capacity;
   uint64 fanout;
   uint64 use_stats;
   uint64 reclaim_threshold;

   // The following parameter governs when foreground threads
   // performing an update to the database will perform queued
   // background tasks.  When a foreground thread performs a
   // background task, the latency of that update can be very large,
   // because some background tasks can take many milliseconds to
   // execute.  However, if foreground threads never perform
   // background tasks, then queues of background tasks may grow
   // unboundedly if there are not enough background threads, and this
   // may cause some processes, such as memtable rotation, to stall
   // updates to the database.

   // When queue_scale_percent is 0, then foreground threads will
   // perform a background task whenever one is available.  This will
   // result in high tail latencies for database updates, but will
   // ensure that background task queues are always short.

   // When queue_scale_percent is UINT64_MAX, then foreground threads
   // will never perform background tasks unless there are no background
   // threads allocated to that task group.  This will ensure that
   // foreground tasks have low latency, but requires that you
   // configure enough background threads to keep up with arriving
   // background tasks.  Thus you should use this option only if you
   // know how many background threads you need for each task type.

   // The default value of 100 says that foreground threads will begin
   // performing background tasks if there are more queued tasks than
   // there are background threads to serve them. This heuristic
   // allows you to configure the number of background threads as you
   // see fit, and the system will do its best to execute tasks on the
   // provided background threads, but will perform tasks on
   // foreground threads if needed.

   // Increasing this value (e.g. to 200, 300, etc), will cause more
   // work to take place on background threads, but task queues may
   // grow longer, causing some other parts of the system to stall.
   // Decreasing this value (e.g. to 50, 25, 10, etc) will cause more
   // work to be performed on foreground threads, increasing tail
   // latencies.
   uint64 queue_scale_percent;

   // Soft byte budget for extent read-ahead in range scans and compactions,
   // divided across the branches being merged. Roughly the storage's
   // bandwidth-delay product (bandwidth x latency); raise it for higher-latency
   // devices such as networked/cloud volumes. Zero selects a default suited to
   // local SSDs.
   uint64 prefetch_budget;
} splinterdb_config;

///////////////////////////////////////
// Lifecycle
///////////////////////////////////////

// Opaque handle to an opened instance of SplinterDB
typedef struct splinterdb splinterdb;

// Create a new SplinterDB instance, erasing any existing file or block device.
//
// The library will allocate and own the memory for splinterdb
// and will free it on splinterdb_close().
//
// It is ok for the caller to stack-allocate cfg, since it is not retained.
// But cfg->data_cfg will be referenced by the returned splinterdb object
// So it must live at least as long as the splinterdb
int
splinterdb_create(const splinterdb_config *cfg, splinterdb **kvs);

// Open an existing splinterdb from a file/device on disk.
//
// disk_size, page_size, and extent_size are read from the on-disk superblock
// when left unset. If they are set, they must match the superblock.
//
// The library will allocate and own the memory for splinterdb
// and will free it on splinterdb_close().
//
// It is ok for the caller to stack-allocate cfg, since it is not retained.
// But cfg->data_cfg will be referenced by the returned splinterdb object
// So it must live at least as long as the splinterdb
int
splinterdb_open(const splinterdb_config *cfg, splinterdb **kvs);

// Close a splinterdb
//
// This will flush all data to disk and release all resources
void
splinterdb_close(splinterdb **kvs);


////////////////////////////////////
// Notifications
////////////////////////////////////

// Size of opaque data required to hold a notification.
#define SPLINTERDB_NOTIFICATION_BUFSIZE (32 * sizeof(void *))

typedef struct splinterdb_notification {
   char opaque[SPLINTERDB_NOTIFICATION_BUFSIZE];
} __attribute__((__aligned__(8))) splinterdb_notification;

// The caller owns notification storage and must keep it alive until completion.
// After completion, call splinterdb_notification_deinit before reusing or
// destroying the notification. If completion may happen in another process, the
// notification object must be allocated in shared memory.
void
splinterdb_notification_init_blocking(splinterdb_notification *notification);

void
splinterdb_notification_init_polling(splinterdb_notification *notification,
                                     void                    *user_data);

void
splinterdb_notification_deinit(splinterdb_notification *notification);

_Bool
splinterdb_notification_poll(const splinterdb_notification *notification,
                             int                           *status);

int
splinterdb_notification_wait(splinterdb              *kvs,
                             splinterdb_notification *notification);

void *
splinterdb_notification_user_data(const splinterdb_notification *notification);


////////////////////////////////////
// Lookups
////////////////////////////////////

typedef uint64 splinterdb_lookup_flags;

#define SPLINTERDB_LOOKUP_VALUE       ((splinterdb_lookup_flags)0)
#define SPLINTERDB_LOOKUP_MIGHT_EXIST ((splinterdb_lookup_flags)1 << 0)

// Size of opaque data required to hold a lookup result
#define SPLINTERDB_LOOKUP_BUFSIZE (20 * sizeof(void *))

// A lookup result is stored and parsed from here
//
// Once initialized, a splinterdb_lookup_result may be used for multiple
// lookups. It is not safe to use from multiple threads.
typedef struct splinterdb_lookup_result {
   char opaque[SPLINTERDB_LOOKUP_BUFSIZE];
} __attribute__((__aligned__(8))) splinterdb_lookup_result;

// Initialize a lookup result object.
//
// flags may be SPLINTERDB_LOOKUP_VALUE or SPLINTERDB_LOOKUP_MIGHT_EXIST.
//
// When SPLINTERDB_LOOKUP_MIGHT_EXIST is set, splinterdb_lookup_found() reports
// true if the key might exist, and false if the key definitely does not exist.
// splinterdb_lookup_result_value() will return EINVAL for such results.
//
// If buffer is NULL, then the library will allocate and manage memory.
//
// If the caller provides a buffer, that will be used, unless a lookup
// requires a larger buffer, at which time the library will allocate.
// Regardless, the library will never free a buffer supplied by the application.
//
// After this function returns, the caller must ensure that
// 1. *result is only used in conjunction with the kvs
//    Attempting to use one lookup_result with multiple instances of splinterdb
//    will cause problems
// 2. The lifetime of *result must not exceed the lifetime of kvs
//    The result should be deinit'ed before calling splinterdb_close on kvs
//
// While the current version of SplinterDB does not rely on Rule 2, future
// versions may store pointers to Splinter's own memory in the lookup_result.
void
splinterdb_lookup_result_init(const splinterdb         *kvs,        // IN
                              splinterdb_lookup_result *result,     // IN/OUT
                              splinterdb_lookup_flags   flags,      // IN
                              uint64                    buffer_len, // IN
                              char                     *buffer      // IN
);

// Release any resources used by result
//
// This will never free a buffer passed to splinterdb_lookup_result_init
void
splinterdb_lookup_result_deinit(splinterdb_lookup_result *result); // IN

// Returns true if the result was found.
//
// For existence-only lookups, this returns true when the key exists or might
// exist.
_Bool
splinterdb_lookup_found(const splinterdb_lookup_result *result); // IN

// Decode the value from a found result
//
// Do not modify the memory pointed at by *value
int
splinterdb_lookup_result_value(const splinterdb_lookup_result *result, // IN
                               slice                          *value   // OUT
);

// Lookup the message for a given key
//
// result must have first been initialized using splinterdb_lookup_result_init
int
splinterdb_lookup(splinterdb               *kvs,   // IN
                  slice                     key,   // IN
                  splinterdb_lookup_result *result // IN/OUT
);


/////////////////////////////////
// Updates
/////////////////////////////////


// Insert a key and value.  Overwrites any previous value associated with the
// key.
//
// If old_result is non-NULL, it must have been initialized using
// splinterdb_lookup_result_init() and will receive the value previously
// associated with key.
int
splinterdb_insert(splinterdb               *kvsb,
                  slice                     key,
                  slice                     value,
                  splinterdb_lookup_result *old_result);

// Delete a given key and any associated value / messages
int
splinterdb_delete(splinterdb               *kvsb,
                  slice                     key,
                  splinterdb_lookup_result *old_result);

// Update the value associated with key.
int
splinterdb_update(splinterdb               *kvsb,
                  slice                     key,
                  slice                     delta,
                  splinterdb_lookup_result *old_result);

// Optimize already-incorporated trunk data in [min_key, max_key). A null
// min_key or max_key means the range is unbounded on that side. If
// full_leaf_compactions is true, enqueue full compactions for leaves in the
// range after flushing. Passing a NULL notification makes this fire-and-forget.
// Blocking notifications wait before this function returns; polling
// notifications complete later.
int
splinterdb_optimize(splinterdb              *kvs,
                    slice                    min_key,
                    slice                    max_key,
                    _Bool                    full_leaf_compactions,
                    splinterdb_notification *notification);

/*
Iterator API (range query)

This API is modeled after the RocksDB Iterator and is intended to allow drop-in
replacement for most scenarios.

This documentation is heavily inspired by
  https://github.com/facebook/rocksdb/wiki/Iterator

The biggest difference is that RocksDB's Iterator exposes a Seek(key) method,
while SplinterDB expects the starting key to be provided at the time the
iterator is initialized.

Similar to RocksDB, if there is no error, then status()==0.  If status() != 0,
then valid() == false.  In other words, valid()==true implies status()== 0,
which means it is safe to proceed with other operations without checking
status().

On the other hand, if valid() == false, then there are two possibilities:
(1) We reached the end of the data without error. In this case, status() == 0;
(2) there is an error. In this case status() != 0;

Be sure to check status() whenever valid() is false.

Iterators must be cleaned up via deinit.  Live iterators will block
other operations from the same thread, including close.

Known issue: a live iterator may block inserts and deletes from the same thread.


Sample application code:

   splinterdb_iterator* it;
   int rc = splinterdb_iterator_init(kvs, &it, greater_than_or_equal,
                                     NULL_SLICE);
   if (rc != 0) { ... handle error ... }

   slice key, value;

   for(; splinterdb_iterator_valid(it); splinterdb_iterator_next(it)) {
      splinterdb_iterator_get_current(it, &key, &value);
      // do something with key and value...
   }

   // loop exit may mean error, or just that we've reached the end of the range
   rc = splinterdb_iterator_status(it);
   if (rc != 0) { ... handle error ... }

   // Release resources acquired by the iterator
   // If you skip this, other operations, including close(), may hang.
   splinterdb_iterator_deinit(it);
*/

typedef struct splinterdb_iterator splinterdb_iterator;

// should the iterator start at the first key that is <, <=, >, or >= than the
// start_key?
typedef enum comparison {
   less_than,
   less_than_or_equal,
   greater_than,
   greater_than_or_equal,
} comparison;


// Initialize a new iterator, starting at the given key
//
// If start_key is NULL_SLICE, the iterator will start at:
// - greater_than_or_equal: the minimum key
// - less_than_or_equal: the maximum key
int
splinterdb_iterator_init(splinterdb           *kvs,        // IN
                         splinterdb_iterator **iter,       // OUT
                         comparison            start_type, // IN
                         slice                 start_key   // IN
);

// Initialize a new iterator with lower and upper bounds.
//
// If min_key is NULL_SLICE, the iterator has no lower bound.
// min_key_comparison must be greater_than or greater_than_or_equal.
//
// If max_key is NULL_SLICE, the iterator has no upper bound.
// max_key_comparison must be less_than or less_than_or_equal.
//
// If start_key is NULL_SLICE, the iterator will start at:
// - greater_than_or_equal / greater_than: the first key in bounds
// - less_than_or_equal / less_than: the last key in bounds
int
splinterdb_iterator_init_with_bounds(splinterdb           *kvs,     // IN
                                     splinterdb_iterator **iter,    // OUT
                                     comparison min_key_comparison, // IN
                                     slice      min_key,            // IN
                                     comparison max_key_comparison, // IN
                                     slice      max_key,            // IN
                                     comparison start_type,         // IN
                                     slice      start_key           // IN
);

// Deinitialize an iterator
//
// Failing to do this may cause hangs.
void
splinterdb_iterator_deinit(splinterdb_iterator *iter);

// Checks that the iterator status is OK (no errors) and that get_current()
// will succeed. If false, there are two possibilities:
// 1. Iterator is out of bounds.  In this case, status() == 0
// 2. Iterator has encountered an error.  In this case, status() != 0
_Bool
splinterdb_iterator_valid(splinterdb_iterator *iter);

/*
 * splinterdb_iterator_can_next --
 * splinterdb_iterator_can_prev --
 *
 * Knowing the iterator is invalid does not provide enough information to
 * determine if next and prev are safe operations.
 *
 * These functions provide granular information on which operations are safe.
 * splinterdb_iterator_can_next == TRUE <-> splinterdb_iterator_next is safe
 * splinterdb_iterator_can_prev == TRUE <-> splinterdb_iterator_prev is safe
 */
_Bool
splinterdb_iterator_can_prev(splinterdb_iterator *iter);

_Bool
splinterdb_iterator_can_next(splinterdb_iterator *iter);

// Moves the iterator to the previous item.
// Precondition for calling: splinterdb_iterator_can_prev() returns TRUE
// Any error will cause valid() == false and be visible with status()
void
splinterdb_iterator_prev(splinterdb_iterator *iter);

// Moves the iterator to the next item.
// Precondition for calling: splinterdb_iterator_can_next() returns TRUE
// Any error will cause valid() == false and be visible with status()
void
splinterdb_iterator_next(splinterdb_iterator *iter);

// Sets *key and *value to the locations of the current item
// Callers must not modify that memory pointed to by the slice
//
// If valid() == false, then behavior is undefined.
// Always check valid() before calling this function.
void
splinterdb_iterator_get_current(splinterdb_iterator *iter, // IN
                                slice               *key,  // OUT
                                slice               *value // OUT
);

// Returns an error encountered from iteration, or 0 if successful.
//
// End-of-range is not an error
int
splinterdb_iterator_status(const splinterdb_iterator *iter);

/*
 * Statistics Printing
 *
 * Must set the use_stats config option.
 *
 * Prints insertion or lookup statistics. Both print cache statistics.
 *
 * Reset statistics clears all statistics, including cache statistics.
 */
void
splinterdb_stats_print_insertion(const splinterdb *kvs);

void
splinterdb_stats_print_lookup(splinterdb *kvs);

void
splinterdb_stats_reset(splinterdb *kvs);

#ifdef __cplusplus
}
#endif
