/* A plugin that does nothing, as rumbench's native null engine does: every
 * get finds a fixed value, every put and delete is accepted, a scan finds
 * one entry. Run against
 * `-e null`, it measures what one call through include/rumbench_engine.h
 * costs (bench/plugin_call_cost.sh). Build:
 *   cc -std=c11 -O2 -g -fPIC -shared -fvisibility=hidden -Iinclude -o libnull_plugin.so bench/null_plugin.c
 */
#include <stdlib.h>
#include <string.h>

#include "rumbench_engine.h"

struct rb_engine { int unused; };
struct rb_session { uint8_t value[4096]; size_t value_len; uint8_t key[16]; int left; };

static rb_status check_options(const rb_pair *options, size_t count, rb_error *err) {
    if (count > 0) return rb_error_set(err, "null-plugin: unknown option '%s' (it takes none)", options[0].name);
    return RB_OK;
}

static rb_status open_engine(const rb_open_args *args, const rb_pair *options, size_t count, rb_engine **out,
                             rb_error *err) {
    (void)args;
    if (check_options(options, count, err) != RB_OK) return RB_ERROR;
    *out = calloc(1, sizeof **out);
    return *out ? RB_OK : rb_error_set(err, "null-plugin: out of memory");
}

static void close_engine(rb_engine *e) { free(e); }
static void no_pairs(rb_engine *e, rb_emit_fn emit, void *ctx) { (void)e; (void)emit; (void)ctx; }
static void effective(rb_engine *e, rb_emit_fn emit, void *ctx) { (void)e; emit(ctx, "does", "nothing"); }
static int32_t syncs(rb_engine *e) { (void)e; return 0; }
static rb_status nothing(rb_engine *e, rb_error *err) { (void)e; (void)err; return RB_OK; }

static rb_status session_open(rb_engine *e, rb_session **out, rb_error *err) {
    (void)e;
    rb_session *s = aligned_alloc(64, (sizeof *s + 63) / 64 * 64);
    if (!s) return rb_error_set(err, "null-plugin: out of memory");
    memset(s->value, 'x', sizeof s->value);
    s->value_len = 100;
    *out = s;
    return RB_OK;
}

static void session_close(rb_session *s) { free(s); }

static rb_status put(rb_session *s, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, rb_error *err) {
    (void)s; (void)k; (void)kl; (void)v; (void)vl; (void)err;
    return RB_OK;
}

static rb_status del(rb_session *s, const uint8_t *k, size_t kl, rb_error *err) {
    (void)s; (void)k; (void)kl; (void)err;
    return RB_OK;
}

static rb_status get(rb_session *s, const uint8_t *k, size_t kl, const uint8_t **v, size_t *vl, rb_error *err) {
    (void)k; (void)kl; (void)err;
    *v = s->value;
    *vl = s->value_len;
    return RB_OK;
}

/* A scan finds one entry, at its start: the database is never empty. */
static rb_status scan_seek(rb_session *s, const uint8_t *k, size_t kl, int32_t reverse, rb_error *err) {
    (void)reverse; (void)err;
    memset(s->key, 0, sizeof s->key);
    memcpy(s->key, k, kl < sizeof s->key ? kl : sizeof s->key);
    s->left = 1;
    return RB_OK;
}

static rb_status scan_next(rb_session *s, const uint8_t **k, size_t *kl, const uint8_t **v, size_t *vl,
                           rb_error *err) {
    (void)err;
    if (s->left-- <= 0) return RB_NOT_FOUND;
    *k = s->key;
    *kl = sizeof s->key;
    *v = s->value;
    *vl = s->value_len;
    return RB_OK;
}

static void scan_end(rb_session *s) { (void)s; }

static const rb_engine_api API = {
    .abi_version = RB_ENGINE_ABI_VERSION,
    .struct_size = sizeof(rb_engine_api),
    .capabilities = 0,
    .name = "null-plugin",
    .version = "1",
    .build = "bench/null_plugin.c",
    .check_options = check_options,
    .open = open_engine,
    .close = close_engine,
    .effective_options = effective,
    .stats = no_pairs,
    .syncs_writes = syncs,
    .sync = nothing,
    .session_open = session_open,
    .session_close = session_close,
    .put = put,
    .del = del,
    .get = get,
    .scan_seek = scan_seek,
    .scan_next = scan_next,
    .scan_end = scan_end,
};

RB_ENGINE_EXPORT const rb_engine_api *rumbench_engine_api(void) { return &API; }
