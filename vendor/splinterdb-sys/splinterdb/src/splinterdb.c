// Copyright 2021-2026 VMware, Inc.
// SPDX-License-Identifier: Apache-2.0

/*
 *-----------------------------------------------------------------------------
 * splinterdb.c --
 *
 *     Implementation of SplinterDB's public API
 *
 *     The user must provide a data_config that encodes values into messages.
 *     A simple default data_config is available in default_data_config.h
 *
 *-----------------------------------------------------------------------------
 */

#include "splinterdb/splinterdb.h"
#include "clockcache.h"
#include "data_internal.h"
#include "rc_allocator.h"
#include "core.h"
#include "lookup_result.h"
#include "notification.h"
#include "shard_log.h"
#include "splinterdb_tests_private.h"
#include "task.h"
#include "platform_typed_alloc.h"
#include "platform_assert.h"
#include "platform_sleep.h"
#include "platform_units.h"
#include "platform_threads.h"
#include "poison.h"

const char *BUILD_VERSION = "splinterdb_build_version " GIT_VERSION;

// Function prototypes

static void
splinterdb_close_print_stats(splinterdb *kvs);

const char *
splinterdb_get_version()
{
   return BUILD_VERSION;
}

typedef struct splinterdb {
   task_system        task_sys;
   io_config          io_cfg;
   io_handle         *io_handle;
   allocator_config   allocator_cfg;
   rc_allocator       allocator_handle;
   clockcache_config  cache_cfg;
   clockcache         cache_handle;
   shard_log_config   log_cfg;
   task_system_config task_cfg;
   allocator_root_id  trunk_id;
   routing_config     filter_cfg;
   btree_config       btree_cfg;
   trunk_config       trunk_node_cfg;
   core_config        trunk_cfg;
   core_handle        spl;
   platform_heap_id   heap_id;
   data_config       *data_cfg;
   bool               we_created_heap;
} splinterdb;


/*
 * Extract errno.h -style status int from a platform_status
 *
 * Note this currently relies on the implementation of the splinterdb
 * platform_linux. But at least it doesn't leak the dependency to callers.
 */
static inline int
platform_status_to_int(const platform_status status) // IN
{
   return status.r;
}

static inline int
splinterdb_ensure_thread_registered(void)
{
   return platform_status_to_int(platform_ensure_thread_registered());
}

static inline void
splinterdb_assert_thread_registered(void)
{
   platform_status rc = platform_ensure_thread_registered();
   platform_assert_status_ok(rc);
}

int
splinterdb_notification_wait(splinterdb              *kvs,
                             splinterdb_notification *notification)
{
   int rc = splinterdb_ensure_thread_registered();
   if (rc != 0) {
      return rc;
   }

   platform_assert(kvs != NULL);
   platform_assert(notification != NULL);

   int    status  = 0;
   uint64 backoff = 1;

   while (!splinterdb_notification_poll(notification, &status)) {
      platform_status task_rc = task_perform_one(&kvs->task_sys);
      if (SUCCESS(task_rc)) {
         backoff = 1;
      } else if (STATUS_IS_EQ(task_rc, STATUS_TIMEDOUT)) {
         platform_sleep_ns(backoff);
         backoff = MIN(2 * backoff, 1 << 16);
      } else {
         return platform_status_to_int(task_rc);
      }
   }

   return status;
}

static void
splinterdb_config_set_defaults(splinterdb_config *cfg)
{
   if (!cfg->page_size) {
      cfg->page_size = IO_DEFAULT_PAGE_SIZE;
   }
   if (!cfg->extent_size) {
      cfg->extent_size = IO_DEFAULT_EXTENT_SIZE;
   }
   if (!cfg->io_flags) {
      cfg->io_flags = IO_DEFAULT_FLAGS;
   }
   if (!cfg->io_perms) {
      cfg->io_perms = IO_DEFAULT_PERMS;
   }

   if (!cfg->io_async_queue_depth) {
      cfg->io_async_queue_depth = IO_DEFAULT_ASYNC_QUEUE_DEPTH;
   }

   if (!cfg->btree_rough_count_height) {
      cfg->btree_rough_count_height = 1;
   }

   if (!cfg->filter_log_index_size) {
      cfg->filter_log_index_size = 9;
   }
   if (!cfg->filter_hash_size) {
      cfg->filter_hash_size = 26;
   }

   if (!cfg->memtable_capacity) {
      cfg->memtable_capacity = MiB_TO_B(24);
   }
   if (!cfg->fanout) {
      cfg->fanout = 8;
   }
   if (!cfg->reclaim_threshold) {
      cfg->reclaim_threshold = UINT64_MAX;
   }
   if (!cfg->prefetch_budget) {
      cfg->prefetch_budget = CORE_DEFAULT_PREFETCH_BUDGET;
   }
}

static platform_status
splinterdb_validate_app_data_config(const data_config *cfg)
{
   platform_assert(cfg->key_compare != NULL);
   platform_assert(cfg->key_hash != NULL);
   platform_assert(cfg->key_to_string != NULL);
   platform_assert(cfg->message_to_string != NULL);

   return STATUS_OK;
}

/*
 *-----------------------------------------------------------------------------
 * splinterdb_init_config --
 *
 *      Translate splinterdb_config to configs for individual subsystems.
 *
 *      The resulting splinterdb object will retain a reference to data_config
 *      So kvs_cfg->data_config must live at least that long.
 *
 * Results:
 *      STATUS_OK on success, appropriate error on failure.
 *
 * Side effects:
 *      None.
 *-----------------------------------------------------------------------------
 */
static platform_status
splinterdb_init_config(const splinterdb_config *kvs_cfg, // IN
                       const disk_geometry     *geometry,
                       splinterdb              *kvs // OUT
)
{
   platform_status rc = STATUS_OK;

   rc = splinterdb_validate_app_data_config(kvs_cfg->data_cfg);
   if (!SUCCESS(rc)) {
      return rc;
   }
   kvs->data_cfg = kvs_cfg->data_cfg;

   if (kvs_cfg->filename == NULL || kvs_cfg->cache_size == 0
       || (geometry == NULL && kvs_cfg->disk_size == 0))
   {
      platform_error_log("Expect filename and cache_size to be set; disk_size "
                         "is required when creating.\n");
      return STATUS_BAD_PARAM;
   }

   // mutable local config block, where we can set defaults
   splinterdb_config cfg = {0};
   memcpy(&cfg, kvs_cfg, sizeof(cfg));
   splinterdb_config_set_defaults(&cfg);
   if (geometry != NULL) {
      cfg.disk_size =
         kvs_cfg->disk_size != 0 ? kvs_cfg->disk_size : geometry->disk_size;
      cfg.page_size =
         kvs_cfg->page_size != 0 ? kvs_cfg->page_size : geometry->page_size;
      cfg.extent_size = kvs_cfg->extent_size != 0 ? kvs_cfg->extent_size
                                                  : geometry->extent_size;
   }

   io_config_init(&kvs->io_cfg,
                  cfg.page_size,
                  cfg.extent_size,
                  cfg.io_flags,
                  cfg.io_perms,
                  cfg.io_async_queue_depth,
                  cfg.filename);

   // Validate IO-configuration parameters
   rc = io_config_valid(&kvs->io_cfg);
   if (!SUCCESS(rc)) {
      return rc;
   }

   allocator_config_init(&kvs->allocator_cfg, &kvs->io_cfg, cfg.disk_size);
   if (geometry != NULL) {
      rc = rc_allocator_disk_geometry_matches_config(geometry,
                                                     &kvs->allocator_cfg);
      if (!SUCCESS(rc)) {
         return rc;
      }
   }

   clockcache_config_init(&kvs->cache_cfg,
                          &kvs->io_cfg,
                          cfg.cache_size,
                          cfg.cache_logfile,
                          cfg.use_stats);

   shard_log_config_init(&kvs->log_cfg, &kvs->cache_cfg.super, kvs->data_cfg);

   uint64 num_bg_threads[NUM_TASK_TYPES] = {0};
   num_bg_threads[TASK_TYPE_MEMTABLE]    = kvs_cfg->num_memtable_bg_threads;
   num_bg_threads[TASK_TYPE_NORMAL]      = kvs_cfg->num_normal_bg_threads;

   rc = task_system_config_init(&kvs->task_cfg, cfg.use_stats, num_bg_threads);
   if (!SUCCESS(rc)) {
      return rc;
   }

   rc = routing_config_init(&kvs->filter_cfg,
                            &kvs->cache_cfg.super,
                            kvs->data_cfg,
                            cfg.filter_hash_size,
                            cfg.filter_log_index_size,
                            kvs->data_cfg->key_hash,
                            42);

   btree_config_init(&kvs->btree_cfg, &kvs->cache_cfg.super, kvs->data_cfg);

   trunk_config_init(&kvs->trunk_node_cfg,
                     kvs->data_cfg,
                     &kvs->btree_cfg,
                     &kvs->filter_cfg,
                     cfg.memtable_capacity,
                     cfg.fanout,
                     cfg.btree_rough_count_height,
                     cfg.prefetch_budget,
                     cfg.use_stats);

   rc = core_config_init(&kvs->trunk_cfg,
                         &kvs->cache_cfg.super,
                         kvs->data_cfg,
                         &kvs->btree_cfg,
                         (log_config *)&kvs->log_cfg,
                         &kvs->trunk_node_cfg,
                         cfg.queue_scale_percent,
                         cfg.prefetch_budget,
                         cfg.use_log,
                         cfg.use_stats,
                         FALSE,
                         Platform_default_log_handle);
   if (!SUCCESS(rc)) {
      return rc;
   }

   return STATUS_OK;
}

static platform_status
splinterdb_config_read_disk_geometry(const char    *filename,
                                     disk_geometry *geometry)
{
   if (filename == NULL) {
      platform_error_log("Expect filename to be set.\n");
      return STATUS_BAD_PARAM;
   }

   platform_status status = rc_allocator_read_disk_geometry(filename, geometry);
   if (!SUCCESS(status)) {
      return status;
   }

   if (geometry->disk_size == 0 || geometry->page_size == 0
       || geometry->extent_size == 0)
   {
      platform_error_log("Invalid SplinterDB disk geometry: "
                         "disk_size=%lu, page_size=%lu, extent_size=%lu\n",
                         geometry->disk_size,
                         geometry->page_size,
                         geometry->extent_size);
      return STATUS_BAD_PARAM;
   }

   return STATUS_OK;
}


/*
 * Internal function for create or open
 */
int
splinterdb_create_or_open(const splinterdb_config *kvs_cfg,      // IN
                          splinterdb             **kvs_out,      // OUT
                          bool                     open_existing // IN
)
{
   splinterdb     *kvs = NULL;
   platform_status status;

   bool                 we_created_heap  = FALSE;
   platform_heap_id     use_this_heap_id = kvs_cfg->heap_id;
   disk_geometry        geometry;
   const disk_geometry *config_geometry = NULL;

   status = platform_ensure_thread_registered();
   if (!SUCCESS(status)) {
      return platform_status_to_int(status);
   }

   // Allocate a shared segment if so requested. For now, we hard-code
   // the required size big enough to run most tests. Eventually this
   // has to be calculated here based on other run-time params.
   // (Some tests externally create the platform_heap, so we should
   // only create one if it does not already exist.)
   if (kvs_cfg->use_shmem && (use_this_heap_id == NULL)) {
      size_t shmem_size =
         (kvs_cfg->shmem_size ? kvs_cfg->shmem_size : 512 * MiB);
      status = platform_heap_create(
         platform_get_module_id(), shmem_size, TRUE, &use_this_heap_id);
      if (!SUCCESS(status)) {
         platform_error_log(
            "Shared memory creation failed. "
            "Failed to %s SplinterDB device '%s' with specified "
            "configuration: %s\n",
            (open_existing ? "open existing" : "initialize"),
            kvs_cfg->filename,
            platform_status_to_string(status));
         goto deinit_kvhandle;
      }
      we_created_heap = TRUE;
   }

   if (open_existing) {
      status =
         splinterdb_config_read_disk_geometry(kvs_cfg->filename, &geometry);
      if (!SUCCESS(status)) {
         platform_error_log("Failed to read SplinterDB disk geometry from "
                            "'%s': %s\n",
                            kvs_cfg->filename,
                            platform_status_to_string(status));
         goto deinit_kvhandle;
      }
      config_geometry = &geometry;
   }

   platform_assert(kvs_out != NULL);

   kvs = TYPED_ZALLOC(use_this_heap_id, kvs);
   if (kvs == NULL) {
      status = STATUS_NO_MEMORY;
      goto deinit_kvhandle;
   }
   // Remember, so at close() we only destroy heap if we created it here.
   kvs->we_created_heap = we_created_heap;

   // All memory allocation after this call should -ONLY- use heap handles
   // from the handle to the running Splinter instance; i.e. 'kvs'.
   status = splinterdb_init_config(kvs_cfg, config_geometry, kvs);
   if (!SUCCESS(status)) {
      platform_error_log("Failed to %s SplinterDB device '%s' with specified "
                         "configuration: %s\n",
                         (open_existing ? "open existing" : "initialize"),
                         kvs_cfg->filename,
                         platform_status_to_string(status));
      goto deinit_kvhandle;
   }

   // All future memory allocation should come from shared memory, if so
   // configured.
   kvs->heap_id = use_this_heap_id;

   kvs->io_handle = io_handle_create(&kvs->io_cfg, kvs->heap_id);
   if (kvs->io_handle == NULL) {
      platform_error_log("Failed to create IO handle\n");
      status = STATUS_NO_MEMORY;
      goto io_handle_create_failed;
   }

   status = task_system_init(&kvs->task_sys, kvs->heap_id, &kvs->task_cfg);
   if (!SUCCESS(status)) {
      platform_error_log(
         "Failed to initialize SplinterDB task system state: %s\n",
         platform_status_to_string(status));
      goto deinit_iohandle;
   }

   if (open_existing) {
      status = rc_allocator_mount(&kvs->allocator_handle,
                                  &kvs->allocator_cfg,
                                  kvs->io_handle,
                                  kvs->heap_id,
                                  platform_get_module_id());
   } else {
      status = rc_allocator_init(&kvs->allocator_handle,
                                 &kvs->allocator_cfg,
                                 kvs->io_handle,
                                 kvs->heap_id,
                                 platform_get_module_id());
   }
   if (!SUCCESS(status)) {
      platform_error_log("Failed to %s SplinterDB allocator: %s\n",
                         (open_existing ? "mount existing" : "initialize"),
                         platform_status_to_string(status));
      goto deinit_system;
   }

   status = clockcache_init(&kvs->cache_handle,
                            &kvs->cache_cfg,
                            kvs->io_handle,
                            (allocator *)&kvs->allocator_handle,
                            "splinterdb",
                            kvs->heap_id,
                            platform_get_module_id());
   if (!SUCCESS(status)) {
      platform_error_log("Failed to initialize SplinterDB cache: %s\n",
                         platform_status_to_string(status));
      goto deinit_allocator;
   }

   kvs->trunk_id = 1;
   if (open_existing) {
      status = core_mount(&kvs->spl,
                          &kvs->trunk_cfg,
                          (allocator *)&kvs->allocator_handle,
                          (cache *)&kvs->cache_handle,
                          &kvs->task_sys,
                          kvs->trunk_id,
                          kvs->heap_id);
   } else {
      status = core_mkfs(&kvs->spl,
                         &kvs->trunk_cfg,
                         (allocator *)&kvs->allocator_handle,
                         (cache *)&kvs->cache_handle,
                         &kvs->task_sys,
                         kvs->trunk_id,
                         kvs->heap_id);
   }
   if (!SUCCESS(status)) {
      platform_error_log("Failed to %s SplinterDB instance: %s\n",
                         (open_existing ? "mount existing" : "initialize"),
                         platform_status_to_string(status));
      goto deinit_cache;
   }

   *kvs_out = kvs;
   return platform_status_to_int(status);

deinit_cache:
   clockcache_deinit(&kvs->cache_handle);
deinit_allocator:
   rc_allocator_unmount(&kvs->allocator_handle);
deinit_system:
   task_system_deinit(&kvs->task_sys);
deinit_iohandle:
   io_handle_destroy(kvs->io_handle);
io_handle_create_failed:
deinit_kvhandle:
   // Depending on the place where a configuration / setup error lead
   // us to here via a 'goto', heap_id handle, if in use, may be in a
   // different place. Use one carefully, to avoid ASAN-errors.
   if (we_created_heap) {
      // => Caller did not setup a platform-heap on entry.
      debug_assert(kvs_cfg->heap_id == NULL);

      if (kvs) {
         platform_free(use_this_heap_id, kvs);
      }
      platform_heap_destroy(&use_this_heap_id);
   } else {
      if (kvs) {
         platform_free(use_this_heap_id, kvs);
      }
   }

   return platform_status_to_int(status);
}

int
splinterdb_create(const splinterdb_config *cfg, // IN
                  splinterdb             **kvs  // OUT
)
{
   return splinterdb_create_or_open(cfg, kvs, FALSE);
}

int
splinterdb_open(const splinterdb_config *cfg, // IN
                splinterdb             **kvs  // OUT
)
{
   return splinterdb_create_or_open(cfg, kvs, TRUE);
}

/*
 *-----------------------------------------------------------------------------
 * splinterdb_close --
 *
 *      Close a splinterdb, flushing to disk and releasing resources.
 *      Platform heap memory is also destroyed when closing SplinterDB.
 *
 * Results:
 *      None.
 *
 * Side effects:
 *      None.
 *-----------------------------------------------------------------------------
 */
void
splinterdb_close(splinterdb **kvs_in) // IN
{
   splinterdb *kvs = *kvs_in;
   platform_assert(kvs != NULL);
   splinterdb_assert_thread_registered();

   // Print stats if shared memory is enabled.
   if (kvs->heap_id) {
      splinterdb_close_print_stats(kvs);
   }
   /*
    * NOTE: These dismantling routines must appear in exactly the reverse
    * order when these sub-systems were init'ed when a Splinter device was
    * created or re-opened. Otherwise, asserts will trip.
    */
   platform_status status = core_unmount(&kvs->spl);
   if (!SUCCESS(status)) {
      platform_error_log("Failed to close SplinterDB instance cleanly: %s\n",
                         platform_status_to_string(status));
   }
   io_wait_all(kvs->io_handle);
   clockcache_deinit(&kvs->cache_handle);
   rc_allocator_unmount(&kvs->allocator_handle);
   task_system_deinit(&kvs->task_sys);
   io_handle_destroy(kvs->io_handle);

   // Free resources carefully to avoid ASAN-test failures
   platform_heap_id heap_id         = kvs->heap_id;
   bool             we_created_heap = kvs->we_created_heap;
   platform_free(kvs->heap_id, kvs);
   if (we_created_heap) {
      platform_heap_destroy(&heap_id);
   }
   *kvs_in = (splinterdb *)NULL;
}

void
splinterdb_lookup_result_init(const splinterdb         *kvs,        // IN
                              splinterdb_lookup_result *result,     // IN/OUT
                              splinterdb_lookup_flags   flags,      // IN
                              uint64                    buffer_len, // IN
                              char                     *buffer      // IN
)
{
   lookup_result *_result = lookup_result_from_splinterdb(result);
   lookup_result_init(
      _result, kvs->spl.cfg.data_cfg, flags, buffer_len, buffer);
}

void
splinterdb_lookup_result_deinit(splinterdb_lookup_result *result) // IN
{
   lookup_result *_result = lookup_result_from_splinterdb(result);
   lookup_result_deinit(_result);
}

_Bool
splinterdb_lookup_found(const splinterdb_lookup_result *result) // IN
{
   const lookup_result *_result = lookup_result_from_const_splinterdb(result);
   return lookup_result_found(_result);
}

int
splinterdb_lookup_result_value(const splinterdb_lookup_result *result, // IN
                               slice                          *value)
{
   const lookup_result *_result = lookup_result_from_const_splinterdb(result);

   if (lookup_result_is_existence(_result)) {
      return EINVAL;
   }

   if (!splinterdb_lookup_found(result)) {
      return EINVAL;
   }

   lookup_result *mutable_result =
      lookup_result_from_splinterdb((splinterdb_lookup_result *)result);
   platform_status status = lookup_result_ensure_materialized(mutable_result);
   if (!SUCCESS(status)) {
      return platform_status_to_int(status);
   }

   *value =
      merge_accumulator_to_value(lookup_result_accumulator(mutable_result));
   return 0;
}

/*
 *-----------------------------------------------------------------------------
 * splinterdb_lookup --
 *
 *      Lookup a single tuple
 *
 *      result must have been initialized via splinterdb_lookup_result_init()
 *
 *      Use splinterdb_lookup_result_parse to interpret the result
 *
 *      A single result may be used for multiple lookups
 *
 * Results:
 *      0 on success (including key not found), otherwise an error number.
 *      Check for not-found via splinterdb_lookup_result_parse
 *
 * Side effects:
 *      None.
 *-----------------------------------------------------------------------------
 */
int
splinterdb_lookup(splinterdb               *kvs, // IN
                  slice                     user_key,
                  splinterdb_lookup_result *result) // IN/OUT
{
   platform_status status;
   lookup_result  *_result = lookup_result_from_splinterdb(result);
   key             target  = key_create_from_slice(TRUE, user_key);

   platform_assert(kvs != NULL);
   status = platform_ensure_thread_registered();
   if (!SUCCESS(status)) {
      return platform_status_to_int(status);
   }

   status = core_lookup(&kvs->spl, target, _result);
   return platform_status_to_int(status);
}


/*
 *-----------------------------------------------------------------------------
 * splinterdb_insert_raw_message --
 *
 *      Insert a key and a raw message into splinter
 *
 * Results:
 *      0 on success, otherwise an errno
 *
 * Side effects:
 *      None.
 *-----------------------------------------------------------------------------
 */
static int
splinterdb_insert_message(splinterdb    *kvs,       // IN
                          slice          user_key,  // IN
                          message        msg,       // IN
                          lookup_result *old_result // IN/OUT
)
{
   int rc = splinterdb_ensure_thread_registered();
   if (rc != 0) {
      return rc;
   }

   key tuple_key = key_create_from_slice(FALSE, user_key);
   platform_assert(kvs != NULL);
   platform_status status = core_insert(&kvs->spl, tuple_key, msg, old_result);
   return platform_status_to_int(status);
}

int
splinterdb_insert(splinterdb               *kvsb,
                  slice                     user_key,
                  slice                     value,
                  splinterdb_lookup_result *old_result)
{
   message        msg = message_create(MESSAGE_TYPE_INSERT, NULL, value);
   lookup_result *_old_result =
      old_result == NULL ? NULL : lookup_result_from_splinterdb(old_result);
   return splinterdb_insert_message(kvsb, user_key, msg, _old_result);
}

int
splinterdb_delete(splinterdb               *kvsb,
                  slice                     user_key,
                  splinterdb_lookup_result *old_result)
{
   lookup_result *_old_result =
      old_result == NULL ? NULL : lookup_result_from_splinterdb(old_result);
   return splinterdb_insert_message(
      kvsb, user_key, DELETE_MESSAGE, _old_result);
}

int
splinterdb_update(splinterdb               *kvsb,
                  slice                     user_key,
                  slice                     update,
                  splinterdb_lookup_result *old_result)
{
   message        msg = message_create(MESSAGE_TYPE_UPDATE, NULL, update);
   lookup_result *_old_result =
      old_result == NULL ? NULL : lookup_result_from_splinterdb(old_result);
   platform_assert(kvsb->data_cfg->merge_tuples);
   return splinterdb_insert_message(kvsb, user_key, msg, _old_result);
}

int
splinterdb_optimize(splinterdb              *kvs,
                    slice                    user_min_key,
                    slice                    user_max_key,
                    _Bool                    full_leaf_compactions,
                    splinterdb_notification *notification)
{
   int rc = splinterdb_ensure_thread_registered();
   if (rc != 0) {
      return rc;
   }

   platform_assert(kvs != NULL);

   key min_key = slice_is_null(user_min_key)
                    ? NEGATIVE_INFINITY_KEY
                    : key_create_from_slice(TRUE, user_min_key);
   key max_key = slice_is_null(user_max_key)
                    ? POSITIVE_INFINITY_KEY
                    : key_create_from_slice(TRUE, user_max_key);

   platform_status status = core_optimize(
      &kvs->spl, min_key, max_key, full_leaf_compactions, notification);
   if (!SUCCESS(status)) {
      return platform_status_to_int(status);
   }

   if (splinterdb_notification_is_blocking(notification)) {
      return splinterdb_notification_wait(kvs, notification);
   }

   return 0;
}

struct splinterdb_iterator {
   core_range_iterator sri;
   platform_status     last_rc;
   const splinterdb   *parent;
   merge_accumulator   materialized_message;
};

static inline bool32
splinterdb_iterator_min_comparison_is_valid(comparison cmp)
{
   return cmp == greater_than || cmp == greater_than_or_equal;
}

static inline bool32
splinterdb_iterator_max_comparison_is_valid(comparison cmp)
{
   return cmp == less_than || cmp == less_than_or_equal;
}

int
splinterdb_iterator_init(splinterdb           *kvs,                  // IN
                         splinterdb_iterator **iter,                 // OUT
                         comparison            start_key_comparison, // IN
                         slice                 user_start_key        // IN
)
{
   return splinterdb_iterator_init_with_bounds(kvs,
                                               iter,
                                               greater_than_or_equal,
                                               NULL_SLICE,
                                               less_than,
                                               NULL_SLICE,
                                               start_key_comparison,
                                               user_start_key);
}

int
splinterdb_iterator_init_with_bounds(splinterdb           *kvs,       // IN
                                     splinterdb_iterator **iter,      // OUT
                                     comparison min_key_comparison,   // IN
                                     slice      user_min_key,         // IN
                                     comparison max_key_comparison,   // IN
                                     slice      user_max_key,         // IN
                                     comparison start_key_comparison, // IN
                                     slice      user_start_key        // IN
)
{
   if (!splinterdb_iterator_min_comparison_is_valid(min_key_comparison)
       || !splinterdb_iterator_max_comparison_is_valid(max_key_comparison))
   {
      return platform_status_to_int(STATUS_BAD_PARAM);
   }

   int auto_register_rc = splinterdb_ensure_thread_registered();
   if (auto_register_rc != 0) {
      return auto_register_rc;
   }

   splinterdb_iterator *it = TYPED_MALLOC(kvs->spl.heap_id, it);
   if (it == NULL) {
      platform_error_log("TYPED_MALLOC error\n");
      return platform_status_to_int(STATUS_NO_MEMORY);
   }
   it->last_rc = STATUS_OK;
   merge_accumulator_init(&it->materialized_message, kvs->spl.heap_id);

   core_range_iterator *range_itor = &(it->sri);
   key                  min_key;
   key                  max_key;
   key                  start_key;

   min_key = slice_is_null(user_min_key)
                ? NEGATIVE_INFINITY_KEY
                : key_create_from_slice(TRUE, user_min_key);
   max_key = slice_is_null(user_max_key)
                ? POSITIVE_INFINITY_KEY
                : key_create_from_slice(TRUE, user_max_key);

   if (slice_is_null(user_start_key)) {
      if (start_key_comparison <= less_than_or_equal) {
         start_key = POSITIVE_INFINITY_KEY;
      } else {
         start_key = NEGATIVE_INFINITY_KEY;
      }
   } else {
      start_key = key_create_from_slice(TRUE, user_start_key);
   }

   platform_status rc = core_range_iterator_init(&kvs->spl,
                                                 range_itor,
                                                 min_key_comparison,
                                                 min_key,
                                                 max_key_comparison,
                                                 max_key,
                                                 start_key_comparison,
                                                 start_key);
   if (!SUCCESS(rc)) {
      merge_accumulator_deinit(&it->materialized_message);
      platform_free(kvs->spl.heap_id, it);
      return platform_status_to_int(rc);
   }
   it->parent = kvs;

   *iter = it;
   return EXIT_SUCCESS;
}

void
splinterdb_iterator_deinit(splinterdb_iterator *iter)
{
   splinterdb_assert_thread_registered();

   core_range_iterator *range_itor = &(iter->sri);
   core_range_iterator_deinit(range_itor);
   merge_accumulator_deinit(&iter->materialized_message);

   core_handle *spl = range_itor->spl;
   platform_free(spl->heap_id, range_itor);
}

_Bool
splinterdb_iterator_valid(splinterdb_iterator *kvi)
{
   if (!SUCCESS(kvi->last_rc)) {
      return FALSE;
   }
   iterator *itor = &(kvi->sri.super);
   return iterator_can_curr(itor);
}

_Bool
splinterdb_iterator_can_prev(splinterdb_iterator *kvi)
{
   if (!SUCCESS(kvi->last_rc)) {
      return FALSE;
   }
   iterator *itor = &(kvi->sri.super);
   return iterator_can_prev(itor);
}

_Bool
splinterdb_iterator_can_next(splinterdb_iterator *kvi)
{
   if (!SUCCESS(kvi->last_rc)) {
      return FALSE;
   }
   iterator *itor = &(kvi->sri.super);
   return iterator_can_next(itor);
}

void
splinterdb_iterator_next(splinterdb_iterator *kvi)
{
   kvi->last_rc = platform_ensure_thread_registered();
   if (!SUCCESS(kvi->last_rc)) {
      return;
   }

   iterator *itor = &(kvi->sri.super);
   kvi->last_rc   = iterator_next(itor);
}

void
splinterdb_iterator_prev(splinterdb_iterator *kvi)
{
   kvi->last_rc = platform_ensure_thread_registered();
   if (!SUCCESS(kvi->last_rc)) {
      return;
   }

   iterator *itor = &(kvi->sri.super);
   kvi->last_rc   = iterator_prev(itor);
}

int
splinterdb_iterator_status(const splinterdb_iterator *iter)
{
   return platform_status_to_int(iter->last_rc);
}

void
splinterdb_iterator_get_current(splinterdb_iterator *iter,   // IN
                                slice               *outkey, // OUT
                                slice               *value   // OUT
)
{
   splinterdb_assert_thread_registered();

   key       result_key;
   message   msg;
   iterator *itor = &(iter->sri.super);

   iterator_curr(itor, &result_key, &msg);
   *outkey = key_slice(result_key);
   if (message_is_blob(msg)) {
      iter->last_rc = message_materialize(msg, &iter->materialized_message);
      if (SUCCESS(iter->last_rc)) {
         *value = merge_accumulator_to_value(&iter->materialized_message);
      }
   } else {
      *value = message_slice(msg);
   }
}

void
splinterdb_stats_print_insertion(const splinterdb *kvs)
{
   splinterdb_assert_thread_registered();
   core_print_insertion_stats(Platform_default_log_handle, &kvs->spl);
}

void
splinterdb_stats_print_lookup(splinterdb *kvs)
{
   splinterdb_assert_thread_registered();
   core_print_lookup_stats(Platform_default_log_handle, &kvs->spl);
}

void
splinterdb_stats_reset(splinterdb *kvs)
{
   splinterdb_assert_thread_registered();
   core_reset_stats(&kvs->spl);
}

static void
splinterdb_close_print_stats(splinterdb *kvs)
{
   task_print_stats(&kvs->task_sys);
   splinterdb_stats_print_insertion(kvs);
}

/*
 * -------------------------------------------------------------------------
 * External "APIs" provided mainly to invoke lower-level functions intended
 * for use -ONLY- as testing interfaces.
 * -------------------------------------------------------------------------
 */
void
splinterdb_cache_flush(splinterdb *kvs)
{
   splinterdb_assert_thread_registered();
   cache_flush(kvs->spl.cc);
}

platform_heap_id
splinterdb_get_heap_id(const splinterdb *kvs)
{
   return kvs->heap_id;
}

const task_system *
splinterdb_get_task_system_handle(const splinterdb *kvs)
{
   return &kvs->task_sys;
}

const io_handle *
splinterdb_get_io_handle(const splinterdb *kvs)
{
   return kvs->io_handle;
}

const allocator *
splinterdb_get_allocator_handle(const splinterdb *kvs)
{
   return (allocator *)&kvs->allocator_handle;
}

const cache *
splinterdb_get_cache_handle(const splinterdb *kvs)
{
   return (cache *)&kvs->cache_handle;
}

const core_handle *
splinterdb_get_trunk_handle(const splinterdb *kvs)
{
   return &kvs->spl;
}

const memtable_context *
splinterdb_get_memtable_context_handle(const splinterdb *kvs)
{
   return &kvs->spl.mt_ctxt;
}
