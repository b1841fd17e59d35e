/* The results store: opened (an SQLite file or a PostgreSQL URL), a run kept, old runs
 * pruned. Every value reaches SQL as a parameter. */
#include "slap/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <zstd.h>

#include "db.h"
#include "store_internal.h"
#include "store_record.h"
#include "store_schema.h"

static int timeout_ms(void)
{
    const char *env = getenv(STORE_TIMEOUT_ENV);
    char *end;
    double s = env != NULL ? strtod(env, &end) : -1;
    if (env == NULL || end == env || *end != '\0' || !(s >= 0 && s <= 86400)) {
        return STORE_TIMEOUT_MS;
    }
    return (int)(s * 1000);
}

enum slap_status store_open(struct store **out, const char *location, bool create, char *err,
                            size_t err_len)
{
    struct store *s = calloc(1, sizeof(*s));
    *out = NULL;
    if (s == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    s->postgres = store_is_postgres(location);
    enum slap_status st =
        s->postgres ? db_pg_open(&s->db, location, timeout_ms(), err, err_len)
                    : db_sqlite_open(&s->db, location, create, timeout_ms(), err, err_len);
    if (st == SLAP_OK) {
        st = schema_ensure(s->db, s->postgres, create, err, err_len);
    }
    if (st != SLAP_OK) {
        store_close(s);
        return SLAP_ERROR;
    }
    *out = s;
    return SLAP_OK;
}

void store_close(struct store *s)
{
    if (s != NULL && s->db != NULL) {
        s->db->ops->close(s->db);
    }
    free(s);
}

static enum slap_status one_id(void *arg, const char *const *cols, const size_t *lens, size_t n)
{
    (void)lens;
    *(int64_t *)arg = n > 0 && cols[0] != NULL ? strtoll(cols[0], NULL, 10) : -1;
    return SLAP_OK;
}

static uint64_t now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000;
}

/* The series r belongs to, made when new: its id into *series. */
static enum slap_status put_series(struct store *s, const struct results_doc *d, const char *kind,
                                   const struct record *r, int64_t *series, char *err,
                                   size_t err_len)
{
    struct db_value p[] = {DB_T(r->key), DB_T(r->id),      DB_T(d->label),
                           DB_T(kind),   DB_T(r->servers), DB_T(r->workload)};
    *series = -1;
    if (db_exec(s->db,
                "INSERT INTO slap_series (key, short, label, kind, servers, workload) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
                p, 6, NULL, NULL, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    return db_exec(s->db, "SELECT id FROM slap_series WHERE key = ?", p, 1, one_id, series, err,
                   err_len);
}

/* The document as kept: zstd's frame of its JSON, into *packed (malloc'd). */
static enum slap_status pack(const struct store_put_info *info, void **packed, size_t *len,
                             char *err, size_t err_len)
{
    size_t cap = ZSTD_compressBound(info->len);
    *packed = malloc(cap ? cap : 1);
    *len = *packed != NULL ? ZSTD_compress(*packed, cap, info->text, info->len, 3) : 0;
    if (*packed == NULL || ZSTD_isError(*len)) {
        snprintf(err, err_len, "the document could not be compressed: %s",
                 *packed == NULL ? "out of memory" : ZSTD_getErrorName(*len));
        free(*packed);
        *packed = NULL;
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

static enum slap_status put_run(struct store *s, const struct results_doc *d,
                                const struct store_put_info *info, const struct record *r,
                                int64_t series, int64_t *id, char *err, size_t err_len)
{
    void *packed;
    size_t packed_len;
    *id = -1;
    if (pack(info, &packed, &packed_len, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    const char *version = strncmp(info->tool, "slap ", 5) == 0 ? info->tool + 5 : info->tool;
    struct db_value p[] = {
        DB_I(series),
        DB_T(r->ident),
        DB_I((int64_t)d->start_ms),
        DB_I((int64_t)now_ms()),
        DB_T(r->host),
        DB_T(d->label),
        DB_T(version),
        DB_T(info->kind),
        DB_I(d->exit_status),
        DB_T(r->limited_by),
        r->steady < 0 ? (struct db_value){.kind = DB_NULL} : DB_I(r->steady),
        DB_I((int64_t)info->schema),
        DB_I((int64_t)info->len),
        DB_B(packed, packed_len),
        DB_I(d->runs.n > 1 ? (int64_t)d->runs.n : 0),
    };
    enum slap_status st =
        db_exec(s->db,
                "INSERT INTO slap_runs (series, ident, started_ms, stored_ms, host, label, "
                "version, kind, exit_status, limited_by, steady, doc_schema, doc_bytes, doc, "
                "parts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                p, SLAP_ARRAY_SIZE(p), one_id, id, err, err_len);
    free(packed);
    return st;
}

static enum slap_status put_figures(struct store *s, int64_t id, const struct record *r, char *err,
                                    size_t err_len)
{
    for (size_t i = 0; i < r->nfigures; i++) {
        const struct record_figure *f = &r->figures[i];
        struct db_value p[] = {DB_I(id), DB_T(f->name), DB_R(f->value), DB_R(f->low),
                               DB_R(f->high)};
        if (db_exec(s->db,
                    "INSERT INTO slap_figures (run, name, value, low, high) "
                    "VALUES (?, ?, ?, ?, ?)",
                    p, 5, NULL, NULL, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

static enum slap_status put_parts(struct store *s, int64_t id, const struct results_doc *d,
                                  char *err, size_t err_len)
{
    const struct results_run_id *runs = d->runs.items;
    for (size_t i = 0; d->runs.n > 1 && i < d->runs.n; i++) {
        const struct results_run_id *u = &runs[i];
        struct db_value p[] = {
            DB_I(id),       DB_T(u->host), DB_I((int64_t)u->pid),    DB_I((int64_t)u->start_ms),
            DB_T(u->label), DB_R(u->tps),  DB_I((int64_t)u->errors), DB_T(u->limited_by)};
        if (db_exec(s->db,
                    "INSERT INTO slap_parts (run, host, pid, start_ms, label, tps, errors, "
                    "limited_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    p, 8, NULL, NULL, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* The run kept whole, in the transaction already begun. */
static enum slap_status put_all(struct store *s, const struct results_doc *d,
                                const struct store_put_info *info, const struct record *r,
                                int64_t *id, bool *already, char *err, size_t err_len)
{
    int64_t series, found = -1;
    struct db_value ident[] = {DB_T(r->ident), DB_T(info->kind)};
    if (put_series(s, d, info->kind, r, &series, err, err_len) != SLAP_OK ||
        db_exec(s->db, "SELECT id FROM slap_runs WHERE ident = ? AND kind = ?", ident, 2, one_id,
                &found, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (found >= 0) {
        *already = true;
        *id = found;
        return SLAP_OK;
    }
    if (put_run(s, d, info, r, series, id, err, err_len) != SLAP_OK ||
        put_figures(s, *id, r, err, err_len) != SLAP_OK ||
        put_parts(s, *id, d, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status store_put(struct store *s, const struct results_doc *d,
                           const struct store_put_info *info, int64_t *id, bool *already, char *err,
                           size_t err_len)
{
    struct record *r = malloc(sizeof(*r));
    *already = false;
    *id = -1;
    if (r == NULL || record_of(d, info->kind, r) != SLAP_OK) {
        free(r);
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    enum slap_status st = schema_begin(s->db, s->postgres, err, err_len);
    if (st == SLAP_OK) {
        st = put_all(s, d, info, r, id, already, err, err_len);
        if (st == SLAP_OK) {
            st = db_exec(s->db, "COMMIT", NULL, 0, NULL, NULL, err, err_len);
        }
        if (st != SLAP_OK) {
            schema_rollback(s->db);
        }
    }
    free(r);
    return st;
}

static enum slap_status count_of(void *arg, const char *const *cols, const size_t *lens, size_t n)
{
    (void)lens;
    *(uint64_t *)arg = n > 0 && cols[0] != NULL ? strtoull(cols[0], NULL, 10) : 0;
    return SLAP_OK;
}

enum slap_status store_prune(struct store *s, uint64_t before_ms, uint64_t *removed, char *err,
                             size_t err_len)
{
    static const char *const steps[] = {
        "DELETE FROM slap_figures WHERE run IN (SELECT id FROM slap_runs WHERE started_ms < ?)",
        "DELETE FROM slap_parts WHERE run IN (SELECT id FROM slap_runs WHERE started_ms < ?)",
        "DELETE FROM slap_runs WHERE started_ms < ?",
        "DELETE FROM slap_series WHERE id NOT IN (SELECT series FROM slap_runs) AND 0 <= ?",
    };
    struct db_value p[] = {DB_I((int64_t)before_ms)};
    *removed = 0;
    if (schema_begin(s->db, s->postgres, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (db_exec(s->db, "SELECT count(*) FROM slap_runs WHERE started_ms < ?", p, 1, count_of,
                removed, err, err_len) != SLAP_OK) {
        goto fail;
    }
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        if (db_exec(s->db, steps[i], p, 1, NULL, NULL, err, err_len) != SLAP_OK) {
            goto fail;
        }
    }
    return db_exec(s->db, "COMMIT", NULL, 0, NULL, NULL, err, err_len);
fail:
    schema_rollback(s->db);
    return SLAP_ERROR;
}

/* A hex digit's value, or -1. */
static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A document as kept (its size, and its frame: SQLite's bytes or PostgreSQL's "\x" hex) back
 * into its JSON text. */
static enum slap_status unpack(void *arg, const char *const *cols, const size_t *lens, size_t n)
{
    char **out = arg;
    if (n < 2 || cols[0] == NULL || cols[1] == NULL) {
        return SLAP_ERROR;
    }
    size_t bytes = strtoull(cols[0], NULL, 10), len = lens[1];
    unsigned char *frame = malloc(len ? len : 1);
    *out = frame != NULL && bytes < (1ULL << 31) ? malloc(bytes + 1) : NULL;
    if (len >= 2 && cols[1][0] == '\\' && cols[1][1] == 'x') { /* PostgreSQL's bytea as text */
        size_t k = 0;
        for (size_t i = 2; i + 1 < len && hex(cols[1][i]) >= 0 && hex(cols[1][i + 1]) >= 0;
             i += 2) {
            frame[k++] = (unsigned char)(hex(cols[1][i]) << 4 | hex(cols[1][i + 1]));
        }
        len = k;
    } else if (frame != NULL) {
        memcpy(frame, cols[1], len);
    }
    size_t got = *out != NULL ? ZSTD_decompress(*out, bytes, frame, len) : 0;
    free(frame);
    if (*out == NULL || ZSTD_isError(got) || got != bytes) {
        free(*out);
        *out = NULL;
        return SLAP_ERROR;
    }
    (*out)[bytes] = '\0';
    return SLAP_OK;
}

enum slap_status store_document(struct store *s, int64_t id, char **text, char *err, size_t err_len)
{
    struct db_value p[] = {DB_I(id)};
    *text = NULL;
    if (db_exec(s->db, "SELECT doc_bytes, doc FROM slap_runs WHERE id = ?", p, 1, unpack, text, err,
                err_len) != SLAP_OK) {
        snprintf(err, err_len, "run %lld's document does not read back", (long long)id);
        return SLAP_ERROR;
    }
    if (*text == NULL) {
        snprintf(err, err_len, "no run %lld in the store", (long long)id);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}
