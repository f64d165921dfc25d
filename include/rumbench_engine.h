/*
 * rumbench_engine.h: the C ABI through which rumbench runs a storage engine
 * it was not built with (`rumbench run -e plugin:/path/libfoo.so`).
 *
 * A plugin is a shared library that exports one function,
 *
 *     const rb_engine_api *rumbench_engine_api(void);
 *
 * which returns a table of the engine's functions (static storage: it must
 * stay valid while the library is loaded). rumbench refuses a plugin whose
 * abi_version is not RB_ENGINE_ABI_VERSION or whose struct_size is smaller
 * than version 1's first table (up to txn_rollback), naming both, before
 * anything runs; the calls appended since are read when struct_size covers
 * them.
 *
 * Threads: rumbench opens one engine per process and one session per client
 * thread. A session is used only by the thread that opened it, from
 * session_open to session_close (so a scan or a transaction never moves
 * between threads: LMDB's locks and reader slots need that). Engine-level
 * calls (session_open, flush, sync, stats, ...) may come from any thread
 * while sessions run, and must be safe then.
 *
 * Optional parts: the function pointers of a capability the plugin does not
 * announce may be NULL; every other one must be set (rumbench refuses the
 * plugin at load, naming what is missing).
 *
 * Errors: every call that can fail returns an rb_status and takes an
 * rb_error, a buffer rumbench owns. On RB_ERROR (and on RB_CONFLICT) the
 * plugin writes a one-line, NUL-terminated text there (rb_error_set below
 * does it safely). rumbench shows it to the user as the plugin's words.
 *
 * Memory: keys and values passed in are only valid during the call. Values
 * and keys a call hands back (get, scan_next, txn_get_for_update) stay valid
 * until the next call on the same session. Nothing is freed across the
 * boundary, so the plugin and rumbench may use different allocators.
 *
 * docs/plugins.md says how to write, check (`rumbench conform`) and
 * benchmark one; plugins/lmdb (C) and plugins/rust-example (Rust) are two.
 *
 * Licensed under the Apache License 2.0, like rumbench; a plugin that only
 * includes this header may use any license.
 */
#ifndef RUMBENCH_ENGINE_H
#define RUMBENCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any change that is not an append at the end of rb_engine_api. */
#define RB_ENGINE_ABI_VERSION 1u
/* Counts the appends to version 1 (the calls after txn_rollback): a plugin
   built against an older header has a smaller struct_size, and rumbench
   reads only the fields it covers. */
#define RB_ENGINE_ABI_APPENDS 1u

/* The symbol rumbench looks up. */
#define RB_ENGINE_ENTRY "rumbench_engine_api"

typedef enum rb_status {
    RB_OK = 0,
    /* get, txn_get_for_update: the key is absent; scan_next: no more entries. */
    RB_NOT_FOUND = 1,
    /* A transaction (or an operation in one) lost to another: rolled back,
       rumbench retries it. Only with RB_CAP_TRANSACTIONS. */
    RB_CONFLICT = 2,
    /* Anything else: the text is in the rb_error. */
    RB_ERROR = 3,
    /* Appended: errors rumbench tells apart (each with its text too). The
       engine cannot take the call now (a write stall it gives up on, a lock
       held elsewhere); the call did nothing. */
    RB_BUSY = 4,
    /* The engine's storage is full: the call did nothing. */
    RB_NO_SPACE = 5,
    /* The engine found its data damaged. */
    RB_CORRUPTION = 6
} rb_status;

#define RB_ERROR_TEXT 512
typedef struct rb_error {
    char text[RB_ERROR_TEXT];
} rb_error;

/* Write a printf-formatted text into err (truncated to fit); returns RB_ERROR. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline rb_status rb_error_set(rb_error *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
    }
    return RB_ERROR;
}

/* Capabilities: the optional parts of the table the plugin implements.
   rumbench refuses, before anything runs, a step that needs one it lacks. */
#define RB_CAP_WRITE_BATCH   (1ull << 0) /* write_batch applies all or nothing */
#define RB_CAP_MULTI_GET     (1ull << 1) /* multi_get */
#define RB_CAP_REVERSE_SCAN  (1ull << 2) /* scan_seek with reverse = 1 */
#define RB_CAP_TRANSACTIONS  (1ull << 3) /* txn_* */
#define RB_CAP_FLUSH         (1ull << 4) /* flush: buffers written to files */
#define RB_CAP_WAIT_IDLE     (1ull << 5) /* wait_idle: background work done */
#define RB_CAP_READ_ONLY     (1ull << 6) /* opens read-only when asked */

/* One name=value pair (options in, statistics and effective options out). */
typedef struct rb_pair {
    const char *name;
    const char *value;
} rb_pair;

/* A callback that receives name=value pairs; ctx is rumbench's. The strings
   need only live for the call: rumbench copies them. */
typedef void (*rb_emit_fn)(void *ctx, const char *name, const char *value);

/* One option of the plugin, described for `rumbench engines plugin:PATH`. */
typedef struct rb_option_doc {
    const char *name;          /* NULL ends the list */
    const char *default_value; /* as the user would write it; "" when none */
    const char *help;          /* one line */
} rb_option_doc;

/* A callback that receives the value of key number index of a multi-get;
   the value need only live for the call. */
typedef void (*rb_value_fn)(void *ctx, size_t index, const uint8_t *value, size_t value_len);

/* What rumbench knows when it opens the engine. */
typedef struct rb_open_args {
    uint32_t struct_size;   /* sizeof(rb_open_args) as rumbench built it */
    const char *dir;        /* a private directory for the engine's files; exists */
    uint32_t key_size;      /* every key is this long */
    uint32_t value_size;    /* values are about this long */
    uint64_t num_keys;      /* keys in the key space */
    uint32_t threads;       /* client threads that will open sessions */
    int32_t create;         /* 1: create the database when missing; 0: it must exist */
    int32_t read_only;      /* 1: open without writing (only with RB_CAP_READ_ONLY) */
} rb_open_args;

typedef enum rb_batch_kind { RB_PUT = 0, RB_DELETE = 1 } rb_batch_kind;

typedef struct rb_batch_op {
    uint32_t kind; /* rb_batch_kind */
    const uint8_t *key;
    size_t key_len;
    const uint8_t *value; /* RB_PUT only */
    size_t value_len;
} rb_batch_op;

/* Opaque to rumbench. */
typedef struct rb_engine rb_engine;
typedef struct rb_session rb_session;

typedef struct rb_engine_api {
    uint32_t abi_version; /* RB_ENGINE_ABI_VERSION */
    uint32_t struct_size; /* sizeof(rb_engine_api) */
    uint64_t capabilities; /* RB_CAP_* */
    const char *name;      /* short, e.g. "lmdb-c": names the config by default */
    const char *version;   /* the engine library's version, e.g. "0.9.24" */
    const char *build;     /* how it was built: compiler, flags, NDEBUG or not */

    /* Validate options (every one the user gave; none are given twice)
       without opening anything: RB_ERROR names the bad option and what is
       valid. rumbench calls it before anything runs, and refuses the run
       with its text (exit 2). */
    rb_status (*check_options)(const rb_pair *options, size_t count, rb_error *err);

    /* Open (or create) the database in args->dir with these options. A
       limit only the open engine knows (more sessions than it can serve,
       keys longer than it takes: args says how many and how long) is an
       RB_ERROR here, naming the option that sets it. */
    rb_status (*open)(const rb_open_args *args, const rb_pair *options, size_t count,
                      rb_engine **out, rb_error *err);
    /* Close it: everything written is in its files. Every session is closed
       before it, and no call follows. It cannot fail: a plugin that cannot
       write what it holds says so in its own log. */
    void (*close)(rb_engine *engine);

    /* Every option in effect, defaults and derived ones included, as the
       engine sees them: rumbench records them with each result. */
    void (*effective_options)(rb_engine *engine, rb_emit_fn emit, void *ctx);
    /* The engine's counters now, as name=value (cumulative since open). Two
       names have a meaning rumbench uses when present: "ingest_bytes" (user
       bytes accepted) and "written_bytes" (bytes the engine wrote for them,
       flushes and compactions included): the engine's own write-amp. Names
       that begin "debt." (e.g. "debt.dirty_bytes") are the work the engine
       still owes for writes it accepted, in bytes: a step's write debt. */
    void (*stats)(rb_engine *engine, rb_emit_fn emit, void *ctx);
    /* 1 when an acknowledged write is on stable storage (fsync'd) as
       these options are set, 0 when a crash of the machine may lose it. */
    int32_t (*syncs_writes)(rb_engine *engine);

    /* Make everything acknowledged so far durable (fsync). On an engine
       opened read-only, sync and flush have nothing to do: RB_OK. */
    rb_status (*sync)(rb_engine *engine, rb_error *err);
    /* RB_CAP_FLUSH: write in-memory buffers (memtables) to files. */
    rb_status (*flush)(rb_engine *engine, rb_error *err);
    /* RB_CAP_WAIT_IDLE: wait at most timeout_ms for background work to end;
       *idle = 1 when none is left, 0 when the timeout came first. */
    rb_status (*wait_idle)(rb_engine *engine, uint64_t timeout_ms, int32_t *idle, rb_error *err);

    rb_status (*session_open)(rb_engine *engine, rb_session **out, rb_error *err);
    void (*session_close)(rb_session *session);

    /* A put replaces the key's value; deleting a missing key is RB_OK. */
    rb_status (*put)(rb_session *s, const uint8_t *key, size_t key_len,
                     const uint8_t *value, size_t value_len, rb_error *err);
    rb_status (*del)(rb_session *s, const uint8_t *key, size_t key_len, rb_error *err);
    /* RB_OK with the value in *value (valid until the next call on s) or RB_NOT_FOUND. */
    rb_status (*get)(rb_session *s, const uint8_t *key, size_t key_len,
                     const uint8_t **value, size_t *value_len, rb_error *err);
    /* RB_CAP_WRITE_BATCH: apply all count operations atomically (readers
       see all of them or none). */
    rb_status (*write_batch)(rb_session *s, const rb_batch_op *ops, size_t count, rb_error *err);
    /* RB_CAP_MULTI_GET: count keys of key_size bytes back to back;
       *found = how many exist. */
    rb_status (*multi_get)(rb_session *s, const uint8_t *keys, size_t key_size, size_t count,
                           size_t *found, rb_error *err);

    /* A scan: scan_seek positions the session's one cursor at the first key
       >= start (reverse = 1, with RB_CAP_REVERSE_SCAN: the last key <=
       start). An empty start is before every key: a forward scan from it
       begins at the first key, a reverse one finds nothing. Each scan_next returns the entry there and moves on,
       RB_NOT_FOUND past the end. scan_end releases the cursor (always called
       after a seek, before the session's next other call). A scan sees each
       write batch whole or not at all (RB_CAP_WRITE_BATCH's promise holds
       for scans too; `rumbench conform` checks it). */
    rb_status (*scan_seek)(rb_session *s, const uint8_t *start, size_t start_len, int32_t reverse,
                           rb_error *err);
    rb_status (*scan_next)(rb_session *s, const uint8_t **key, size_t *key_len,
                           const uint8_t **value, size_t *value_len, rb_error *err);
    void (*scan_end)(rb_session *s);

    /* RB_CAP_TRANSACTIONS: one transaction at a time per session, and only
       txn_* calls on the session while it is open. txn_get_for_update sees
       the transaction's own writes. Any call but txn_commit may return
       RB_CONFLICT, after which rumbench calls txn_rollback and retries.
       txn_commit ends the transaction whatever it returns: RB_CONFLICT means
       it rolled back, RB_ERROR that nothing of it was applied. */
    rb_status (*txn_begin)(rb_session *s, rb_error *err);
    rb_status (*txn_get_for_update)(rb_session *s, const uint8_t *key, size_t key_len,
                                    const uint8_t **value, size_t *value_len, rb_error *err);
    rb_status (*txn_put)(rb_session *s, const uint8_t *key, size_t key_len,
                         const uint8_t *value, size_t value_len, rb_error *err);
    rb_status (*txn_commit)(rb_session *s, rb_error *err);
    void (*txn_rollback)(rb_session *s);

    /* ---- Appends to version 1 (RB_ENGINE_ABI_APPENDS 1). Each may be NULL,
       and rumbench reads them only when struct_size covers them. ---- */

    /* The plugin's options, ending with an entry whose name is NULL:
       `rumbench engines plugin:PATH` lists them. */
    const rb_option_doc *option_docs;
    /* session_open, told which client opens the session: thread is 0 to
       threads - 1 of rb_open_args for the clients, threads for a background
       writer. When set, rumbench calls it instead of session_open. */
    rb_status (*session_open_thread)(rb_engine *engine, uint32_t thread, rb_session **out, rb_error *err);
    /* RB_CAP_MULTI_GET: multi_get that hands back each value it finds,
       emit(ctx, i, value, value_len) for key i, before it returns. When
       set, rumbench calls it instead of multi_get. */
    rb_status (*multi_get_values)(rb_session *s, const uint8_t *keys, size_t key_size, size_t count,
                                  rb_value_fn emit, void *ctx, size_t *found, rb_error *err);
    /* scan_seek with the scan's bounds, so the engine reads no further
       ahead than they allow: it stops before end (a forward scan at keys >=
       end, a reverse one at keys <= end; NULL: no end) and after count
       entries (0: no limit). scan_next returns RB_NOT_FOUND past either.
       When set, rumbench calls it instead of scan_seek. */
    rb_status (*scan_seek_bounded)(rb_session *s, const uint8_t *start, size_t start_len, int32_t reverse,
                                   const uint8_t *end, size_t end_len, uint64_t count, rb_error *err);
} rb_engine_api;

/* What the plugin exports (define it with RB_ENGINE_EXPORT). */
typedef const rb_engine_api *(*rb_engine_entry_fn)(void);

#if defined(__GNUC__)
#define RB_ENGINE_EXPORT __attribute__((visibility("default")))
#else
#define RB_ENGINE_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif /* RUMBENCH_ENGINE_H */
