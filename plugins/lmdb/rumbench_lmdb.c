/*
 * rumbench_lmdb.c: LMDB as a rumbench engine plugin ("lmdb-c"), the example
 * of a plugin written in C (include/rumbench_engine.h is the ABI).
 *
 * It does, call for call, the work of rumbench's native LMDB engine
 * (src/engine/lmdb.rs, LMDB through heed), so that the two can be benchmarked
 * against each other: the difference is the plugin boundary, not the engine.
 *
 *   - One unnamed (default) database of raw bytes in args->dir.
 *   - Every put, delete and write batch is its own write transaction,
 *     committed at once; writers queue on LMDB's single writer lock.
 *   - Every get and multi_get runs in a read transaction begun for the call
 *     and aborted at its end; the value is copied out of the map first,
 *     into a buffer of the session that is reused from call to call.
 *   - A scan holds one read transaction and one cursor from scan_seek to
 *     scan_end, and hands out keys and values where they lie in the map.
 *   - The environment keeps LMDB's thread-local reader slots (no MDB_NOTLS),
 *     as the native engine does: beginning a read transaction then reuses the
 *     calling thread's slot without taking the reader-table lock.
 *
 * Build with the Makefile next to this file (README.md).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lmdb.h>

#include "rumbench_engine.h"

/* ---------------------------------------------------------------- options */

enum sync_mode { SYNC_SYNC, SYNC_NOMETASYNC, SYNC_NOSYNC, SYNC_MAPASYNC };
static const char *const SYNC_MODES[] = {"sync", "nometasync", "nosync", "mapasync"};

#define VALID_OPTIONS "map_size, sync_mode, write_map, max_readers, no_readahead"
#define MAX_READERS_MAX 100000

typedef struct lmdb_options {
    uint64_t map_size;    /* bytes, as given (open rounds it up to the OS page size) */
    int sync_mode;        /* enum sync_mode */
    int write_map;        /* MDB_WRITEMAP */
    unsigned max_readers; /* reader table slots */
    int no_readahead;     /* MDB_NORDAHEAD */
} lmdb_options;

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* A byte size as rumbench parses one (crates/core/src/plan parse_size):
   "4096", "64M", "1G", "1.5GiB", "512KB"; units are powers of 1024. */
static int parse_size(const char *text, uint64_t *out) {
    char buf[64];
    size_t len;
    while (*text == ' ' || (*text >= '\t' && *text <= '\r')) text++;
    len = strlen(text);
    while (len > 0 && (text[len - 1] == ' ' || (text[len - 1] >= '\t' && text[len - 1] <= '\r'))) len--;
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, text, len);
    buf[len] = '\0';

    if (len >= 2 && strcasecmp(buf + len - 2, "ib") == 0) len -= 2;
    else if (buf[len - 1] == 'b' || buf[len - 1] == 'B') len -= 1;
    buf[len] = '\0';
    if (len == 0) return 0;

    uint64_t mult = 1;
    switch (buf[len - 1]) {
    case 'k': case 'K': mult = 1ull << 10; break;
    case 'm': case 'M': mult = 1ull << 20; break;
    case 'g': case 'G': mult = 1ull << 30; break;
    case 't': case 'T': mult = 1ull << 40; break;
    default: break;
    }
    if (mult != 1) buf[--len] = '\0';
    if (len == 0) return 0;

    /* A whole number: exact, refused when it overflows. */
    const char *p = buf + (buf[0] == '+');
    if (*p && strspn(p, "0123456789") == strlen(p)) {
        uint64_t n = 0;
        for (; *p; p++) {
            unsigned d = (unsigned)(*p - '0');
            if (n > (UINT64_MAX - d) / 10) return 0;
            n = n * 10 + d;
        }
        if (n > UINT64_MAX / mult) return 0;
        *out = n * mult;
        return 1;
    }
    /* A fraction ("1.5G"): decimal only (strtod would also take hex). */
    if (strpbrk(buf, "xX") || !(is_digit(buf[0]) || buf[0] == '.' || buf[0] == '+')) return 0;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end != '\0' || errno == ERANGE) return 0;
    v *= (double)mult;
    if (!(v >= 0.0 && v < 18446744073709551616.0)) return 0; /* also refuses NaN */
    *out = (uint64_t)v;
    return 1;
}

static int parse_bool(const char *text, int *out) {
    static const char *const yes[] = {"true", "on", "1", "yes"};
    static const char *const no[] = {"false", "off", "0", "no"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(text, yes[i]) == 0) return *out = 1, 1;
        if (strcasecmp(text, no[i]) == 0) return *out = 0, 1;
    }
    return 0;
}

/* A decimal integer in min..max: an optional sign, digits, nothing else. */
static int parse_int(const char *text, long long min, long long max, long long *out) {
    const char *p = text + (text[0] == '+' || text[0] == '-');
    if (!is_digit(*p)) return 0;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < min || v > max) return 0;
    *out = v;
    return 1;
}

static rb_status invalid(rb_error *err, const char *value, const char *name, const char *expected) {
    return rb_error_set(err, "invalid value '%s' for %s (expected %s)", value, name, expected);
}

/* Defaults, then every option given, validated. */
static rb_status parse_options(const rb_pair *options, size_t count, lmdb_options *o, rb_error *err) {
    o->map_size = 64ull << 30;
    o->sync_mode = SYNC_NOSYNC; /* a commit survives a process crash, not an OS crash */
    o->write_map = 0;
    o->max_readers = 126;
    o->no_readahead = 0;

    for (size_t i = 0; i < count; i++) {
        const char *name = options[i].name ? options[i].name : "";
        const char *value = options[i].value ? options[i].value : "";
        if (strcmp(name, "map_size") == 0) {
            if (!parse_size(value, &o->map_size))
                return invalid(err, value, name, "a size: bytes, or with a K/M/G/T suffix, e.g. 64G");
        } else if (strcmp(name, "sync_mode") == 0) {
            size_t m = 0;
            while (m < 4 && strcasecmp(value, SYNC_MODES[m]) != 0) m++;
            if (m == 4) return invalid(err, value, name, "sync|nometasync|nosync|mapasync");
            o->sync_mode = (int)m;
        } else if (strcmp(name, "write_map") == 0) {
            if (!parse_bool(value, &o->write_map)) return invalid(err, value, name, "true|false");
        } else if (strcmp(name, "no_readahead") == 0) {
            if (!parse_bool(value, &o->no_readahead)) return invalid(err, value, name, "true|false");
        } else if (strcmp(name, "max_readers") == 0) {
            long long n;
            if (!parse_int(value, 1, MAX_READERS_MAX, &n))
                return invalid(err, value, name, "an integer from 1 to 100000");
            o->max_readers = (unsigned)n;
        } else {
            return rb_error_set(err, "unknown option '%s' (valid options: " VALID_OPTIONS ")", name);
        }
    }
    return RB_OK;
}

static rb_status lm_check_options(const rb_pair *options, size_t count, rb_error *err) {
    lmdb_options o;
    return parse_options(options, count, &o, err);
}

/* ------------------------------------------------------- engine, session */

struct rb_engine {
    MDB_env *env;
    MDB_dbi dbi;
    lmdb_options opt; /* map_size as set: rounded up to the OS page size */
    size_t value_hint; /* args->value_size: first size of a session's value buffer */
    int read_only;
    char path[];
};

enum scan_state {
    SCAN_NONE,  /* no scan */
    SCAN_FIRST, /* positioned: scan_next returns the entry at the cursor */
    SCAN_MORE,  /* scan_next moves the cursor on, then returns its entry */
    SCAN_DONE   /* ran off the end (or nothing matched): RB_NOT_FOUND */
};

struct rb_session {
    MDB_env *env;
    MDB_dbi dbi;
    /* The last value read, copied out of the map: valid until the next call. */
    uint8_t *buf;
    size_t cap;
    /* The scan: a read transaction and a cursor from scan_seek to scan_end. */
    MDB_txn *scan_txn;
    MDB_cursor *cursor;
    int scan_state;
    int reverse;
    MDB_val first_key, first_val;
    /* The open write transaction (txn_begin .. txn_commit/txn_rollback). */
    MDB_txn *txn;
};

static rb_status lm_fail(rb_error *err, const char *what, int rc) {
    return rb_error_set(err, "lmdb-c: %s failed: %s", what, mdb_strerror(rc));
}

/* Copy a value out of the map into the session's buffer (it must outlive the
   read transaction, which ends with the call). */
/* A session is one client thread's: its struct and its value buffer each
   take whole cache lines, so that two threads' sessions never share one (a
   line written by one thread and read by another moves between cores on
   every operation). */
#define CACHE_LINE 64
static void *line_alloc(size_t size) {
    return aligned_alloc(CACHE_LINE, (size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE);
}

static rb_status copy_value(rb_session *s, const MDB_val *v, const uint8_t **value, size_t *value_len,
                            rb_error *err) {
    if (v->mv_size > s->cap) {
        size_t cap = s->cap * 2 > v->mv_size ? s->cap * 2 : v->mv_size;
        uint8_t *buf = line_alloc(cap);
        if (!buf) return rb_error_set(err, "lmdb-c: out of memory for a value of %zu bytes", v->mv_size);
        free(s->buf);
        s->buf = buf;
        s->cap = cap;
    }
    memcpy(s->buf, v->mv_data, v->mv_size);
    if (value) *value = s->buf;
    if (value_len) *value_len = v->mv_size;
    return RB_OK;
}

static void lm_close(rb_engine *e) {
    if (!e) return;
    mdb_env_close(e->env);
    free(e);
}

static rb_status lm_open(const rb_open_args *args, const rb_pair *options, size_t count, rb_engine **out,
                         rb_error *err) {
    *out = NULL;
    if (!args || args->struct_size < sizeof(rb_open_args))
        return rb_error_set(err, "lmdb-c: rb_open_args of %u bytes, expected at least %zu",
                            args ? args->struct_size : 0, sizeof(rb_open_args));
    lmdb_options o;
    if (parse_options(options, count, &o, err) != RB_OK) return RB_ERROR;

    long sc = sysconf(_SC_PAGESIZE);
    uint64_t page = sc > 0 ? (uint64_t)sc : 4096;
    if (o.map_size > SIZE_MAX - page)
        return rb_error_set(err, "lmdb-c: map_size %llu is too large for this platform",
                            (unsigned long long)o.map_size);
    o.map_size = o.map_size < page ? page : (o.map_size + page - 1) / page * page;

    /* Every reading thread holds a reader slot (thread-local) as long as it
       lives, plus one for the thread that reads stats: beyond that, reads
       fail with MDB_READERS_FULL mid-run. Said now instead. */
    if ((uint64_t)args->threads > o.max_readers - 1u)
        return rb_error_set(err,
                            "lmdb-c: max_readers %u serves at most %u client threads at once, and this run "
                            "opens %u (set max_readers=%u or more, or run fewer threads)",
                            o.max_readers, o.max_readers - 1u, args->threads, args->threads + 1u);

    unsigned flags = 0;
    switch (o.sync_mode) {
    case SYNC_NOMETASYNC: flags = MDB_NOMETASYNC; break;
    case SYNC_NOSYNC: flags = MDB_NOSYNC; break;
    case SYNC_MAPASYNC: flags = MDB_NOSYNC | MDB_MAPASYNC; break;
    default: break;
    }
    if (o.write_map) flags |= MDB_WRITEMAP;
    if (o.no_readahead) flags |= MDB_NORDAHEAD;
    if (args->read_only) flags |= MDB_RDONLY; /* the user's database: never written */

    size_t dir_len = strlen(args->dir);
    rb_engine *e = calloc(1, sizeof *e + dir_len + sizeof "/data.mdb");
    if (!e) return rb_error_set(err, "lmdb-c: out of memory");
    memcpy(e->path, args->dir, dir_len + 1);
    e->opt = o;
    e->value_hint = args->value_size;
    e->read_only = args->read_only != 0;

    if (!args->create) {
        struct stat st;
        memcpy(e->path + dir_len, "/data.mdb", sizeof "/data.mdb");
        int missing = stat(e->path, &st) != 0;
        e->path[dir_len] = '\0';
        if (missing) {
            free(e);
            return rb_error_set(err, "lmdb-c: no database (data.mdb) in %s", args->dir);
        }
    }

    char what[64 + PATH_MAX];
    int rc = mdb_env_create(&e->env);
    if (rc) {
        free(e);
        return lm_fail(err, "mdb_env_create", rc);
    }
    if ((rc = mdb_env_set_mapsize(e->env, (size_t)o.map_size)) != 0) {
        snprintf(what, sizeof what, "mdb_env_set_mapsize(%llu)", (unsigned long long)o.map_size);
        goto fail;
    }
    if ((rc = mdb_env_set_maxreaders(e->env, o.max_readers)) != 0) {
        snprintf(what, sizeof what, "mdb_env_set_maxreaders(%u)", o.max_readers);
        goto fail;
    }
    if ((rc = mdb_env_set_maxdbs(e->env, 0)) != 0) {
        snprintf(what, sizeof what, "mdb_env_set_maxdbs(0)");
        goto fail;
    }
    /* 0600, as heed opens it. */
    if ((rc = mdb_env_open(e->env, args->dir, flags, 0600)) != 0) {
        snprintf(what, sizeof what, "opening the environment in %s", args->dir);
        goto fail;
    }

    /* The unnamed database always exists (MDB_CREATE changes nothing for
       it); a read-only environment opens it in a read transaction. */
    MDB_txn *txn;
    if ((rc = mdb_txn_begin(e->env, NULL, args->read_only ? MDB_RDONLY : 0, &txn)) != 0) {
        snprintf(what, sizeof what, "beginning a transaction in %s", args->dir);
        goto fail;
    }
    if ((rc = mdb_dbi_open(txn, NULL, args->create && !args->read_only ? MDB_CREATE : 0, &e->dbi)) != 0) {
        mdb_txn_abort(txn);
        snprintf(what, sizeof what, "opening the default database in %s", args->dir);
        goto fail;
    }
    if ((rc = mdb_txn_commit(txn)) != 0) {
        snprintf(what, sizeof what, "committing the database open in %s", args->dir);
        goto fail;
    }

    int max_key = mdb_env_get_maxkeysize(e->env);
    if ((long long)args->key_size > max_key) {
        rb_error_set(err, "lmdb-c: key_size %u exceeds LMDB's maximum key size %d (%s)", args->key_size, max_key,
                     args->dir);
        lm_close(e);
        return RB_ERROR;
    }
    *out = e;
    return RB_OK;

fail:
    lm_fail(err, what, rc);
    lm_close(e);
    return RB_ERROR;
}

static int32_t lm_syncs_writes(rb_engine *e) { return e->opt.sync_mode == SYNC_SYNC; }

/* sync and flush alike: LMDB has no memtable, and a commit's pages are in
   the file (nosync: in the page cache); this forces them to disk. A
   read-only environment wrote nothing (and LMDB refuses it with EACCES). */
static rb_status lm_sync(rb_engine *e, rb_error *err) {
    if (e->read_only) return RB_OK;
    int rc = mdb_env_sync(e->env, 1);
    return rc ? lm_fail(err, "mdb_env_sync", rc) : RB_OK;
}

static rb_status lm_session_open(rb_engine *e, rb_session **out, rb_error *err) {
    rb_session *s = line_alloc(sizeof *s);
    if (!s) return rb_error_set(err, "lmdb-c: out of memory");
    memset(s, 0, sizeof *s);
    s->env = e->env;
    s->dbi = e->dbi;
    /* Never NULL, so that a zero-length value still has an address. */
    s->cap = e->value_hint > 64 ? e->value_hint : 64;
    s->buf = line_alloc(s->cap);
    if (!s->buf) {
        free(s);
        return rb_error_set(err, "lmdb-c: out of memory");
    }
    *out = s;
    return RB_OK;
}

static void lm_scan_end(rb_session *s);
static void lm_txn_rollback(rb_session *s);

static void lm_session_close(rb_session *s) {
    if (!s) return;
    lm_scan_end(s);
    lm_txn_rollback(s);
    free(s->buf);
    free(s);
}

/* ------------------------------------------------------ reads and writes */

#define MDB_VAL(ptr, len) ((MDB_val){.mv_size = (len), .mv_data = (void *)(ptr)})

static rb_status lm_put(rb_session *s, const uint8_t *key, size_t key_len, const uint8_t *value,
                        size_t value_len, rb_error *err) {
    MDB_txn *txn;
    MDB_val k = MDB_VAL(key, key_len), v = MDB_VAL(value, value_len);
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc) return lm_fail(err, "begin write txn", rc);
    if ((rc = mdb_put(txn, s->dbi, &k, &v, 0)) != 0) {
        mdb_txn_abort(txn);
        return lm_fail(err, "put", rc);
    }
    rc = mdb_txn_commit(txn);
    return rc ? lm_fail(err, "commit", rc) : RB_OK;
}

static rb_status lm_del(rb_session *s, const uint8_t *key, size_t key_len, rb_error *err) {
    MDB_txn *txn;
    MDB_val k = MDB_VAL(key, key_len);
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc) return lm_fail(err, "begin write txn", rc);
    rc = mdb_del(txn, s->dbi, &k, NULL);
    if (rc && rc != MDB_NOTFOUND) {
        mdb_txn_abort(txn);
        return lm_fail(err, "delete", rc);
    }
    /* Committed even when the key was missing, as the native engine does. */
    rc = mdb_txn_commit(txn);
    return rc ? lm_fail(err, "commit", rc) : RB_OK;
}

static rb_status lm_get(rb_session *s, const uint8_t *key, size_t key_len, const uint8_t **value,
                        size_t *value_len, rb_error *err) {
    MDB_txn *txn;
    MDB_val k = MDB_VAL(key, key_len), v;
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc) return lm_fail(err, "begin read txn", rc);
    rb_status st;
    rc = mdb_get(txn, s->dbi, &k, &v);
    if (rc == 0) st = copy_value(s, &v, value, value_len, err);
    else if (rc == MDB_NOTFOUND) st = RB_NOT_FOUND;
    else st = lm_fail(err, "get", rc);
    mdb_txn_abort(txn);
    return st;
}

static rb_status lm_write_batch(rb_session *s, const rb_batch_op *ops, size_t count, rb_error *err) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc) return lm_fail(err, "begin write txn", rc);
    for (size_t i = 0; i < count; i++) {
        MDB_val k = MDB_VAL(ops[i].key, ops[i].key_len);
        if (ops[i].kind == RB_PUT) {
            MDB_val v = MDB_VAL(ops[i].value, ops[i].value_len);
            rc = mdb_put(txn, s->dbi, &k, &v, 0);
            if (rc) {
                mdb_txn_abort(txn); /* nothing of the batch is applied */
                return lm_fail(err, "batch put", rc);
            }
        } else if (ops[i].kind == RB_DELETE) {
            rc = mdb_del(txn, s->dbi, &k, NULL);
            if (rc && rc != MDB_NOTFOUND) {
                mdb_txn_abort(txn);
                return lm_fail(err, "batch delete", rc);
            }
        } else {
            mdb_txn_abort(txn);
            return rb_error_set(err, "lmdb-c: batch operation %zu has unknown kind %u", i, ops[i].kind);
        }
    }
    rc = mdb_txn_commit(txn);
    return rc ? lm_fail(err, "batch commit", rc) : RB_OK;
}

static rb_status lm_multi_get(rb_session *s, const uint8_t *keys, size_t key_size, size_t count, size_t *found,
                              rb_error *err) {
    *found = 0;
    if (key_size == 0) return RB_OK;
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc) return lm_fail(err, "begin read txn", rc);
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        MDB_val k = MDB_VAL(keys + i * key_size, key_size), v;
        rc = mdb_get(txn, s->dbi, &k, &v);
        if (rc == 0) {
            /* Copied like a get's value (the native engine does too). */
            if (copy_value(s, &v, NULL, NULL, err) != RB_OK) {
                mdb_txn_abort(txn);
                return RB_ERROR;
            }
            n++;
        } else if (rc != MDB_NOTFOUND) {
            mdb_txn_abort(txn);
            return lm_fail(err, "multi_get", rc);
        }
    }
    mdb_txn_abort(txn);
    *found = n;
    return RB_OK;
}

/* ------------------------------------------------------------------ scans */

static void lm_scan_end(rb_session *s) {
    if (s->cursor) mdb_cursor_close(s->cursor);
    if (s->scan_txn) mdb_txn_abort(s->scan_txn);
    s->cursor = NULL;
    s->scan_txn = NULL;
    s->scan_state = SCAN_NONE;
}

static rb_status lm_scan_seek(rb_session *s, const uint8_t *start, size_t start_len, int32_t reverse,
                              rb_error *err) {
    lm_scan_end(s); /* the ABI ends every scan first; this only guards */
    s->reverse = reverse != 0;
    s->scan_state = SCAN_DONE;
    /* LMDB rejects zero-length keys: an empty start means "from the first
       key" forward and, in reverse, that no key is <= it (native: the same). */
    if (s->reverse && start_len == 0) return RB_OK;

    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->scan_txn);
    if (rc) {
        s->scan_txn = NULL;
        return lm_fail(err, "begin read txn", rc);
    }
    if ((rc = mdb_cursor_open(s->scan_txn, s->dbi, &s->cursor)) != 0) {
        s->cursor = NULL;
        lm_scan_end(s);
        return lm_fail(err, "cursor open", rc);
    }
    MDB_val k = MDB_VAL(start, start_len), v;
    if (start_len == 0) {
        rc = mdb_cursor_get(s->cursor, &k, &v, MDB_FIRST);
    } else {
        rc = mdb_cursor_get(s->cursor, &k, &v, MDB_SET_RANGE); /* the first key >= start */
        if (s->reverse) {
            if (rc == 0 && !(k.mv_size == start_len && memcmp(k.mv_data, start, start_len) == 0))
                rc = mdb_cursor_get(s->cursor, &k, &v, MDB_PREV); /* found > start: step back */
            else if (rc == MDB_NOTFOUND)
                rc = mdb_cursor_get(s->cursor, &k, &v, MDB_LAST); /* every key < start */
        }
    }
    if (rc == MDB_NOTFOUND) return RB_OK; /* SCAN_DONE: nothing there */
    if (rc) {
        lm_scan_end(s);
        return lm_fail(err, "scan seek", rc);
    }
    s->first_key = k;
    s->first_val = v;
    s->scan_state = SCAN_FIRST;
    return RB_OK;
}

/* Returns the entry at the cursor and moves on. The move is made lazily, at
   the next call, so that a scan of n entries makes the n cursor steps the
   native engine's iterator makes, not n + 1. Keys and values are the map's
   own bytes: valid while the scan's read transaction lives. */
static rb_status lm_scan_next(rb_session *s, const uint8_t **key, size_t *key_len, const uint8_t **value,
                              size_t *value_len, rb_error *err) {
    MDB_val k, v;
    switch (s->scan_state) {
    case SCAN_FIRST:
        k = s->first_key;
        v = s->first_val;
        s->scan_state = SCAN_MORE;
        break;
    case SCAN_MORE: {
        int rc = mdb_cursor_get(s->cursor, &k, &v, s->reverse ? MDB_PREV : MDB_NEXT);
        if (rc) {
            s->scan_state = SCAN_DONE;
            return rc == MDB_NOTFOUND ? RB_NOT_FOUND : lm_fail(err, "scan next", rc);
        }
        break;
    }
    default:
        return RB_NOT_FOUND;
    }
    *key = k.mv_data;
    *key_len = k.mv_size;
    *value = v.mv_data;
    *value_len = v.mv_size;
    return RB_OK;
}

/* ----------------------------------------------------------- transactions */

/* A write transaction: LMDB has one writer, so a transaction holds the write
   lock from begin to commit; others queue, and none ever conflicts. */
static rb_status lm_txn_begin(rb_session *s, rb_error *err) {
    if (s->txn) return rb_error_set(err, "lmdb-c: a transaction is already open in this session");
    int rc = mdb_txn_begin(s->env, NULL, 0, &s->txn);
    if (rc) {
        s->txn = NULL;
        return lm_fail(err, "begin write txn", rc);
    }
    return RB_OK;
}

static rb_status lm_txn_get_for_update(rb_session *s, const uint8_t *key, size_t key_len, const uint8_t **value,
                                       size_t *value_len, rb_error *err) {
    if (!s->txn) return rb_error_set(err, "lmdb-c: txn_get_for_update without txn_begin");
    MDB_val k = MDB_VAL(key, key_len), v;
    int rc = mdb_get(s->txn, s->dbi, &k, &v);
    if (rc == MDB_NOTFOUND) return RB_NOT_FOUND;
    if (rc) return lm_fail(err, "get in a write txn", rc);
    return copy_value(s, &v, value, value_len, err);
}

static rb_status lm_txn_put(rb_session *s, const uint8_t *key, size_t key_len, const uint8_t *value,
                            size_t value_len, rb_error *err) {
    if (!s->txn) return rb_error_set(err, "lmdb-c: txn_put without txn_begin");
    MDB_val k = MDB_VAL(key, key_len), v = MDB_VAL(value, value_len);
    int rc = mdb_put(s->txn, s->dbi, &k, &v, 0);
    return rc ? lm_fail(err, "put in a write txn", rc) : RB_OK;
}

static rb_status lm_txn_commit(rb_session *s, rb_error *err) {
    if (!s->txn) return rb_error_set(err, "lmdb-c: txn_commit without txn_begin");
    MDB_txn *txn = s->txn;
    s->txn = NULL; /* mdb_txn_commit frees it, committed or not */
    int rc = mdb_txn_commit(txn);
    return rc ? lm_fail(err, "commit", rc) : RB_OK;
}

static void lm_txn_rollback(rb_session *s) {
    if (s->txn) mdb_txn_abort(s->txn);
    s->txn = NULL;
}

/* --------------------------------------------------- options and counters */

static const struct {
    unsigned flag;
    const char *name;
} FLAG_NAMES[] = {
    /* The native engine's order (src/engine/lmdb.rs FLAG_NAMES), then MDB_NOTLS. */
    {MDB_FIXEDMAP, "MDB_FIXEDMAP"},     {MDB_NOSUBDIR, "MDB_NOSUBDIR"},   {MDB_NOSYNC, "MDB_NOSYNC"},
    {MDB_RDONLY, "MDB_RDONLY"},         {MDB_NOMETASYNC, "MDB_NOMETASYNC"}, {MDB_WRITEMAP, "MDB_WRITEMAP"},
    {MDB_MAPASYNC, "MDB_MAPASYNC"},     {MDB_NOLOCK, "MDB_NOLOCK"},       {MDB_NORDAHEAD, "MDB_NORDAHEAD"},
    {MDB_NOMEMINIT, "MDB_NOMEMINIT"},   {MDB_NOTLS, "MDB_NOTLS"},
};

static void emit_u64(rb_emit_fn emit, void *ctx, const char *name, unsigned long long v) {
    char text[24];
    snprintf(text, sizeof text, "%llu", v);
    emit(ctx, name, text);
}

static const char *bool_text(int b) { return b ? "true" : "false"; }

static void lm_effective_options(rb_engine *e, rb_emit_fn emit, void *ctx) {
    MDB_envinfo info;
    MDB_stat st;
    unsigned flags = 0, readers = 0;
    memset(&info, 0, sizeof info);
    memset(&st, 0, sizeof st);
    mdb_env_info(e->env, &info);
    mdb_env_get_flags(e->env, &flags);
    mdb_env_get_maxreaders(e->env, &readers);
    mdb_env_stat(e->env, &st);

    char names[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < sizeof FLAG_NAMES / sizeof FLAG_NAMES[0]; i++) {
        if (flags & FLAG_NAMES[i].flag)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? "|" : "", FLAG_NAMES[i].name);
    }
    char raw[24];
    snprintf(raw, sizeof raw, "%#x", flags);
    if (flags == 0) snprintf(raw, sizeof raw, "0x0"); /* %#x prints 0 as "0"; Rust's {:#x}: "0x0" */

    emit_u64(emit, ctx, "map_size", (unsigned long long)info.me_mapsize);
    emit(ctx, "sync_mode", SYNC_MODES[e->opt.sync_mode]);
    emit(ctx, "write_map", bool_text((flags & MDB_WRITEMAP) != 0));
    emit_u64(emit, ctx, "max_readers", readers);
    emit(ctx, "no_readahead", bool_text((flags & MDB_NORDAHEAD) != 0));
    emit(ctx, "env_flags", len ? names : "none");
    emit(ctx, "env_flags_raw", raw);
    emit_u64(emit, ctx, "page_size", st.ms_psize);
    emit_u64(emit, ctx, "max_key_size", (unsigned long long)mdb_env_get_maxkeysize(e->env));
    emit(ctx, "read_txn_tls", bool_text((flags & MDB_NOTLS) == 0));
    emit(ctx, "database", "unnamed (default), raw bytes, bytewise key order");
    emit(ctx, "path", e->path);
}

static void lm_stats(rb_engine *e, rb_emit_fn emit, void *ctx) {
    MDB_envinfo info;
    memset(&info, 0, sizeof info);
    mdb_env_info(e->env, &info);
    emit(ctx, "lmdb_version", mdb_version(NULL, NULL, NULL));
    emit_u64(emit, ctx, "map_size", (unsigned long long)info.me_mapsize);
    emit_u64(emit, ctx, "last_pgno", (unsigned long long)info.me_last_pgno);
    emit_u64(emit, ctx, "last_txnid", (unsigned long long)info.me_last_txnid);
    emit_u64(emit, ctx, "max_readers", info.me_maxreaders);
    emit_u64(emit, ctx, "num_readers", info.me_numreaders);

    /* A commit writes its pages in place (copy-on-write B+tree): nothing is
       left for later work, so the write debt (rumbench_engine.h) is 0. */
    emit(ctx, "debt.unwritten_bytes", "0");

    /* The data file's length, as heed's real_disk_size measures it. */
    mdb_filehandle_t fd;
    struct stat fst;
    if (mdb_env_get_fd(e->env, &fd) == 0 && fstat(fd, &fst) == 0)
        emit_u64(emit, ctx, "file_size", (unsigned long long)fst.st_size);

    MDB_txn *txn;
    MDB_stat st;
    int rc = mdb_txn_begin(e->env, NULL, MDB_RDONLY, &txn);
    if (rc == 0) {
        rc = mdb_stat(txn, e->dbi, &st);
        mdb_txn_abort(txn);
    }
    if (rc) {
        emit(ctx, "stat_error", mdb_strerror(rc));
        return;
    }
    emit_u64(emit, ctx, "page_size", st.ms_psize);
    emit_u64(emit, ctx, "depth", st.ms_depth);
    emit_u64(emit, ctx, "branch_pages", (unsigned long long)st.ms_branch_pages);
    emit_u64(emit, ctx, "leaf_pages", (unsigned long long)st.ms_leaf_pages);
    emit_u64(emit, ctx, "overflow_pages", (unsigned long long)st.ms_overflow_pages);
    emit_u64(emit, ctx, "entries", (unsigned long long)st.ms_entries);
    emit_u64(emit, ctx, "used_bytes",
             ((unsigned long long)st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages) * st.ms_psize);
}

/* ------------------------------------------------------------- the table */

/* How this file was compiled, from the compiler's own predefined macros. */
#if defined(__clang__)
#define RB_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define RB_COMPILER "gcc " __VERSION__
#else
#define RB_COMPILER "an unknown C compiler"
#endif
#if defined(__OPTIMIZE_SIZE__)
#define RB_OPTIMIZED "optimised for size"
#elif defined(__OPTIMIZE__)
#define RB_OPTIMIZED "optimised"
#else
#define RB_OPTIMIZED "not optimised"
#endif
#ifdef NDEBUG
#define RB_NDEBUG "NDEBUG"
#else
#define RB_NDEBUG "NDEBUG not defined"
#endif
/* The Makefile says the flags and where LMDB comes from. */
#ifdef RB_BUILD_FLAGS
#define RB_FLAGS_TEXT " (" RB_BUILD_FLAGS ")"
#else
#define RB_FLAGS_TEXT ""
#endif
#ifndef RB_LMDB_ORIGIN
#define RB_LMDB_ORIGIN "linked with -llmdb"
#endif

/* Filled once, at the first rumbench_engine_api call: the version is the
   linked library's, known only at run time. */
static char version_text[32];
static char build_text[1024];
static pthread_once_t texts_once = PTHREAD_ONCE_INIT;

static void init_texts(void) {
    int major = 0, minor = 0, patch = 0;
    const char *full = mdb_version(&major, &minor, &patch);
    snprintf(version_text, sizeof version_text, "%d.%d.%d", major, minor, patch);
    snprintf(build_text, sizeof build_text, "plugin: %s, %s%s, %s; %s, %s", RB_COMPILER, RB_OPTIMIZED,
             RB_FLAGS_TEXT, RB_NDEBUG, full, RB_LMDB_ORIGIN);
}

static const rb_engine_api API = {
    .abi_version = RB_ENGINE_ABI_VERSION,
    .struct_size = sizeof(rb_engine_api),
    .capabilities = RB_CAP_WRITE_BATCH | RB_CAP_MULTI_GET | RB_CAP_REVERSE_SCAN | RB_CAP_TRANSACTIONS |
                    RB_CAP_FLUSH | RB_CAP_READ_ONLY,
    .name = "lmdb-c",
    .version = version_text,
    .build = build_text,
    .check_options = lm_check_options,
    .open = lm_open,
    .close = lm_close,
    .effective_options = lm_effective_options,
    .stats = lm_stats,
    .syncs_writes = lm_syncs_writes,
    .sync = lm_sync,
    .flush = lm_sync, /* the native flush: mdb_env_sync(env, 1) */
    .wait_idle = NULL,
    .session_open = lm_session_open,
    .session_close = lm_session_close,
    .put = lm_put,
    .del = lm_del,
    .get = lm_get,
    .write_batch = lm_write_batch,
    .multi_get = lm_multi_get,
    .scan_seek = lm_scan_seek,
    .scan_next = lm_scan_next,
    .scan_end = lm_scan_end,
    .txn_begin = lm_txn_begin,
    .txn_get_for_update = lm_txn_get_for_update,
    .txn_put = lm_txn_put,
    .txn_commit = lm_txn_commit,
    .txn_rollback = lm_txn_rollback,
};

RB_ENGINE_EXPORT const rb_engine_api *rumbench_engine_api(void) {
    pthread_once(&texts_once, init_texts);
    return &API;
}
