/*
 * faulty.c: a test-only rumbench engine plugin that crashes when told to.
 *
 * An in-memory sorted array behind one mutex (put, get, del and forward
 * scans; enough for a few thousand keys). Its options:
 *
 *   segfault_at_put=N  the Nth put (counted across all sessions) writes
 *                      through a NULL pointer: SIGSEGV
 *   abort_at_put=N     the Nth put calls abort(): SIGABRT
 *   hang_at_get=N      the Nth get never returns (it sleeps for ever)
 *   crash_in_check=1   check_options writes through a NULL pointer: a
 *                      plugin that dies while rumbench plans the run
 *   no_space_at_put=N  the Nth put returns RB_NO_SPACE (its storage is full)
 *
 * (0, the default: never). Compiled with -DRB_FAULTY_WRONG_ABI it reports
 * abi_version 99, which rumbench must refuse before anything runs; with
 * -DRB_FAULTY_CRASH_IN_CONSTRUCTOR its library's constructor crashes as it
 * is loaded, and with -DRB_FAULTY_CRASH_IN_ENTRY its entry does. With
 * -DRB_FAULTY_FIRST_TABLE its struct_size ends at txn_rollback, as a plugin
 * built before the appends to ABI version 1 has it.
 *
 *   cc -std=c11 -O2 -fPIC -shared -fvisibility=hidden -I include tests/plugins/faulty.c -o faulty.so
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rumbench_engine.h"

#define VALID_OPTIONS "segfault_at_put, abort_at_put, hang_at_get, crash_in_check, no_space_at_put"

typedef struct faulty_options {
    unsigned long long segfault_at_put;
    unsigned long long abort_at_put;
    unsigned long long hang_at_get;
    unsigned long long crash_in_check;
    unsigned long long no_space_at_put;
} faulty_options;

/* A decimal integer >= 0: digits only. */
static int parse_count(const char *text, unsigned long long *out) {
    if (!text || *text < '0' || *text > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0' || errno == ERANGE) return 0;
    *out = v;
    return 1;
}

static rb_status parse_options(const rb_pair *options, size_t count, faulty_options *o, rb_error *err) {
    o->segfault_at_put = 0;
    o->abort_at_put = 0;
    o->hang_at_get = 0;
    o->crash_in_check = 0;
    o->no_space_at_put = 0;
    for (size_t i = 0; i < count; i++) {
        const char *name = options[i].name ? options[i].name : "";
        const char *value = options[i].value ? options[i].value : "";
        unsigned long long *slot;
        if (strcmp(name, "segfault_at_put") == 0) slot = &o->segfault_at_put;
        else if (strcmp(name, "abort_at_put") == 0) slot = &o->abort_at_put;
        else if (strcmp(name, "hang_at_get") == 0) slot = &o->hang_at_get;
        else if (strcmp(name, "crash_in_check") == 0) slot = &o->crash_in_check;
        else if (strcmp(name, "no_space_at_put") == 0) slot = &o->no_space_at_put;
        else return rb_error_set(err, "unknown option '%s' (valid options: " VALID_OPTIONS ")", name);
        if (!parse_count(value, slot))
            return rb_error_set(err, "invalid value '%s' for %s (expected an integer >= 0; 0: never)", value, name);
    }
    return RB_OK;
}

/* Where a crash is asked for: through a pointer the compiler cannot prove null. */
static volatile int *volatile nowhere = NULL;

static rb_status fa_check_options(const rb_pair *options, size_t count, rb_error *err) {
    faulty_options o;
    rb_status rc = parse_options(options, count, &o, err);
    if (rc == RB_OK && o.crash_in_check) *nowhere = 1;
    return rc;
}

#ifdef RB_FAULTY_CRASH_IN_CONSTRUCTOR
__attribute__((constructor)) static void crash_as_loaded(void) { *nowhere = 1; }
#endif

/* ------------------------------------------------------------- the store */

typedef struct entry {
    uint8_t *key; /* one allocation: the key, then the value */
    size_t key_len;
    size_t value_len;
} entry;

struct rb_engine {
    faulty_options opt;
    pthread_mutex_t mu; /* guards entries, n, cap */
    entry *entries;     /* sorted by key, bytewise */
    size_t n, cap;
    atomic_ullong puts; /* puts so far, across all sessions */
    atomic_ullong gets; /* gets so far, across all sessions */
};

struct rb_session {
    rb_engine *e;
    uint8_t *out; /* what the last call handed back (key and value) */
    size_t out_cap;
    /* The scan: the last key returned (or the start), and whether the next
       entry is the first key >= it (0) or > it (1). */
    int scanning;
    int past;
    uint8_t *pos;
    size_t pos_len, pos_cap;
};

static int compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

/* The index of the first entry >= key (called with mu held). */
static size_t lower_bound(const rb_engine *e, const uint8_t *key, size_t len) {
    size_t lo = 0, hi = e->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (compare(e->entries[mid].key, e->entries[mid].key_len, key, len) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int grow(uint8_t **buf, size_t *cap, size_t need) {
    if (need <= *cap && *buf) return 1;
    size_t c = need > 2 * *cap ? need : 2 * *cap;
    uint8_t *b = realloc(*buf, c ? c : 1);
    if (!b) return 0;
    *buf = b;
    *cap = c;
    return 1;
}

static rb_status fa_open(const rb_open_args *args, const rb_pair *options, size_t count, rb_engine **out,
                         rb_error *err) {
    (void)args; /* in memory: nothing in args->dir */
    faulty_options o;
    if (parse_options(options, count, &o, err) != RB_OK) return RB_ERROR;
    rb_engine *e = calloc(1, sizeof *e);
    if (!e) return rb_error_set(err, "faulty: out of memory");
    e->opt = o;
    pthread_mutex_init(&e->mu, NULL);
    atomic_init(&e->puts, 0);
    atomic_init(&e->gets, 0);
    *out = e;
    return RB_OK;
}

static void fa_close(rb_engine *e) {
    if (!e) return;
    for (size_t i = 0; i < e->n; i++) free(e->entries[i].key);
    free(e->entries);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

static void emit_u64(rb_emit_fn emit, void *ctx, const char *name, unsigned long long v) {
    char text[24];
    snprintf(text, sizeof text, "%llu", v);
    emit(ctx, name, text);
}

static void fa_effective_options(rb_engine *e, rb_emit_fn emit, void *ctx) {
    emit_u64(emit, ctx, "segfault_at_put", e->opt.segfault_at_put);
    emit_u64(emit, ctx, "abort_at_put", e->opt.abort_at_put);
    emit_u64(emit, ctx, "hang_at_get", e->opt.hang_at_get);
}

static void fa_stats(rb_engine *e, rb_emit_fn emit, void *ctx) {
    pthread_mutex_lock(&e->mu);
    size_t n = e->n;
    pthread_mutex_unlock(&e->mu);
    emit_u64(emit, ctx, "entries", n);
    emit_u64(emit, ctx, "puts", atomic_load(&e->puts));
}

static int32_t fa_syncs_writes(rb_engine *e) {
    (void)e;
    return 0;
}

static rb_status fa_sync(rb_engine *e, rb_error *err) {
    (void)e;
    (void)err;
    return RB_OK;
}

static rb_status fa_session_open(rb_engine *e, rb_session **out, rb_error *err) {
    rb_session *s = calloc(1, sizeof *s);
    if (!s) return rb_error_set(err, "faulty: out of memory");
    s->e = e;
    *out = s;
    return RB_OK;
}

static void fa_session_close(rb_session *s) {
    if (!s) return;
    free(s->out);
    free(s->pos);
    free(s);
}

static rb_status fa_put(rb_session *s, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len,
                        rb_error *err) {
    rb_engine *e = s->e;
    unsigned long long nth = atomic_fetch_add(&e->puts, 1) + 1;
    if (e->opt.segfault_at_put && nth == e->opt.segfault_at_put) {
        /* A volatile pointer: the compiler cannot see that it is NULL, so it
           emits the store (not a trap of its own) and the store faults. */
        volatile int *volatile nowhere = NULL;
        *nowhere = 1;
    }
    if (e->opt.abort_at_put && nth == e->opt.abort_at_put) abort();
    if (e->opt.no_space_at_put && nth >= e->opt.no_space_at_put) {
        rb_error_set(err, "faulty: no room for put %llu (no_space_at_put=%llu)", nth, e->opt.no_space_at_put);
        return RB_NO_SPACE;
    }

    uint8_t *kv = malloc(key_len + value_len + 1);
    if (!kv) return rb_error_set(err, "faulty: out of memory");
    if (key_len) memcpy(kv, key, key_len);
    if (value_len) memcpy(kv + key_len, value, value_len);

    pthread_mutex_lock(&e->mu);
    size_t i = lower_bound(e, key, key_len);
    if (i < e->n && compare(e->entries[i].key, e->entries[i].key_len, key, key_len) == 0) {
        free(e->entries[i].key);
    } else {
        if (e->n == e->cap) {
            size_t cap = e->cap ? 2 * e->cap : 1024;
            entry *v = realloc(e->entries, cap * sizeof *v);
            if (!v) {
                pthread_mutex_unlock(&e->mu);
                free(kv);
                return rb_error_set(err, "faulty: out of memory");
            }
            e->entries = v;
            e->cap = cap;
        }
        memmove(&e->entries[i + 1], &e->entries[i], (e->n - i) * sizeof *e->entries);
        e->n++;
    }
    e->entries[i] = (entry){.key = kv, .key_len = key_len, .value_len = value_len};
    pthread_mutex_unlock(&e->mu);
    return RB_OK;
}

static rb_status fa_del(rb_session *s, const uint8_t *key, size_t key_len, rb_error *err) {
    (void)err;
    rb_engine *e = s->e;
    pthread_mutex_lock(&e->mu);
    size_t i = lower_bound(e, key, key_len);
    if (i < e->n && compare(e->entries[i].key, e->entries[i].key_len, key, key_len) == 0) {
        free(e->entries[i].key);
        memmove(&e->entries[i], &e->entries[i + 1], (e->n - i - 1) * sizeof *e->entries);
        e->n--;
    }
    pthread_mutex_unlock(&e->mu);
    return RB_OK;
}

static rb_status fa_get(rb_session *s, const uint8_t *key, size_t key_len, const uint8_t **value, size_t *value_len,
                        rb_error *err) {
    rb_engine *e = s->e;
    rb_status st = RB_NOT_FOUND;
    if (e->opt.hang_at_get && atomic_fetch_add(&e->gets, 1) + 1 == e->opt.hang_at_get) {
        for (;;) {
            struct timespec t = {3600, 0};
            nanosleep(&t, NULL);
        }
    }
    pthread_mutex_lock(&e->mu);
    size_t i = lower_bound(e, key, key_len);
    if (i < e->n && compare(e->entries[i].key, e->entries[i].key_len, key, key_len) == 0) {
        const entry *en = &e->entries[i];
        if (!grow(&s->out, &s->out_cap, en->value_len)) {
            st = rb_error_set(err, "faulty: out of memory");
        } else {
            memcpy(s->out, en->key + en->key_len, en->value_len);
            *value = s->out;
            *value_len = en->value_len;
            st = RB_OK;
        }
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

/* Scans see the store as it is at each scan_next (no snapshot). */
static rb_status fa_scan_seek(rb_session *s, const uint8_t *start, size_t start_len, int32_t reverse,
                              rb_error *err) {
    if (reverse) return rb_error_set(err, "faulty: reverse scans are not supported");
    if (!grow(&s->pos, &s->pos_cap, start_len)) return rb_error_set(err, "faulty: out of memory");
    if (start_len) memcpy(s->pos, start, start_len);
    s->pos_len = start_len;
    s->past = 0;
    s->scanning = 1;
    return RB_OK;
}

static rb_status fa_scan_next(rb_session *s, const uint8_t **key, size_t *key_len, const uint8_t **value,
                              size_t *value_len, rb_error *err) {
    if (!s->scanning) return RB_NOT_FOUND;
    rb_engine *e = s->e;
    pthread_mutex_lock(&e->mu);
    size_t i = lower_bound(e, s->pos, s->pos_len);
    if (s->past && i < e->n && compare(e->entries[i].key, e->entries[i].key_len, s->pos, s->pos_len) == 0) i++;
    if (i == e->n) {
        pthread_mutex_unlock(&e->mu);
        s->scanning = 0;
        return RB_NOT_FOUND;
    }
    const entry *en = &e->entries[i];
    size_t len = en->key_len + en->value_len;
    if (!grow(&s->out, &s->out_cap, len) || !grow(&s->pos, &s->pos_cap, en->key_len)) {
        pthread_mutex_unlock(&e->mu);
        return rb_error_set(err, "faulty: out of memory");
    }
    memcpy(s->out, en->key, len);
    memcpy(s->pos, en->key, en->key_len);
    s->pos_len = en->key_len;
    s->past = 1;
    *key = s->out;
    *key_len = en->key_len;
    *value = s->out + en->key_len;
    *value_len = en->value_len;
    pthread_mutex_unlock(&e->mu);
    return RB_OK;
}

static void fa_scan_end(rb_session *s) { s->scanning = 0; }

/* ------------------------------------------------------------- the table */

static const rb_engine_api API = {
#ifdef RB_FAULTY_WRONG_ABI
    .abi_version = 99,
#else
    .abi_version = RB_ENGINE_ABI_VERSION,
#endif
#ifdef RB_FAULTY_FIRST_TABLE
    .struct_size = offsetof(rb_engine_api, option_docs),
#else
    .struct_size = sizeof(rb_engine_api),
#endif
    .capabilities = 0,
    .name = "faulty",
    .version = "1",
    .build = "a test plugin of rumbench (tests/plugins/faulty.c)",
    .check_options = fa_check_options,
    .open = fa_open,
    .close = fa_close,
    .effective_options = fa_effective_options,
    .stats = fa_stats,
    .syncs_writes = fa_syncs_writes,
    .sync = fa_sync,
    .session_open = fa_session_open,
    .session_close = fa_session_close,
    .put = fa_put,
    .del = fa_del,
    .get = fa_get,
    .scan_seek = fa_scan_seek,
    .scan_next = fa_scan_next,
    .scan_end = fa_scan_end,
    /* No capabilities: flush, wait_idle, write_batch, multi_get and txn_*
       stay NULL, and rumbench never calls them. */
};

RB_ENGINE_EXPORT const rb_engine_api *rumbench_engine_api(void) {
#ifdef RB_FAULTY_CRASH_IN_ENTRY
    *nowhere = 1;
#endif
    return &API;
}
