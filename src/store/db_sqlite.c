/* The store's SQLite backend: one file, written in WAL, waiting on another writer's lock. */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"

struct db_sqlite {
    struct db db;
    sqlite3 *h;
};

static enum db_failure failure_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return DB_BUSY;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return DB_FOREIGN;
    default:
        return DB_FAILED;
    }
}

static enum slap_status failed(struct db_sqlite *s, int rc, char *err, size_t err_len)
{
    int sys = s->h != NULL ? sqlite3_system_errno(s->h) : 0;
    s->db.failure = failure_of(rc);
    snprintf(err, err_len, "%s", s->h != NULL ? sqlite3_errmsg(s->h) : sqlite3_errstr(rc));
    if (sys != 0 && ((rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_FULL ||
                     (rc & 0xff) == SQLITE_CANTOPEN)) { /* what the system said: ENOSPC ... */
        size_t used = strlen(err);
        snprintf(err + used, err_len - used, " (%s)", strerror(sys));
    }
    if (s->db.failure == DB_FOREIGN) {
        size_t used = strlen(err);
        snprintf(err + used, err_len - used, " (not a SQLite database, or a corrupt one)");
    }
    return SLAP_ERROR;
}

static int bind_all(sqlite3_stmt *st, const struct db_value *params, size_t n)
{
    int rc = SQLITE_OK;
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
        const struct db_value *v = &params[i];
        int at = (int)i + 1;
        if (v->kind == DB_INT) {
            rc = sqlite3_bind_int64(st, at, v->i);
        } else if (v->kind == DB_REAL && v->r == v->r && v->r - v->r == 0) {
            rc = sqlite3_bind_double(st, at, v->r);
        } else if (v->kind == DB_TEXT && v->t != NULL) {
            rc = sqlite3_bind_text(st, at, v->t, -1, SQLITE_STATIC);
        } else if (v->kind == DB_BLOB && v->t != NULL) {
            rc = sqlite3_bind_blob64(st, at, v->t, v->len, SQLITE_STATIC);
        } else {
            rc = sqlite3_bind_null(st, at);
        }
    }
    return rc;
}

/* Each row of st to each, its columns as text. */
static int step_rows(sqlite3_stmt *st, db_row each, void *arg, int *stopped)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *cols[32];
        size_t lens[32];
        size_t n = (size_t)sqlite3_column_count(st);
        if (each == NULL) {
            continue;
        }
        n = n > 32 ? 32 : n;
        for (size_t i = 0; i < n; i++) {
            bool blob = sqlite3_column_type(st, (int)i) == SQLITE_BLOB;
            cols[i] = blob ? sqlite3_column_blob(st, (int)i)
                           : (const char *)sqlite3_column_text(st, (int)i);
            lens[i] = (size_t)sqlite3_column_bytes(st, (int)i);
        }
        if (each(arg, cols, lens, n) != SLAP_OK) {
            *stopped = 1;
            return SQLITE_DONE;
        }
    }
    return rc;
}

static enum slap_status sqlite_exec(struct db *db, const char *sql, const struct db_value *params,
                                    size_t n, db_row each, void *arg, char *err, size_t err_len)
{
    struct db_sqlite *s = (struct db_sqlite *)db;
    sqlite3_stmt *st = NULL;
    int stopped = 0;
    int rc = sqlite3_prepare_v2(s->h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = bind_all(st, params, n);
    }
    if (rc == SQLITE_OK) {
        rc = step_rows(st, each, arg, &stopped);
    }
    enum slap_status out = SLAP_OK;
    if (rc != SQLITE_DONE && rc != SQLITE_OK) {
        out = failed(s, rc, err, err_len);
    } else if (stopped) {
        snprintf(err, err_len, "stopped reading rows");
        s->db.failure = DB_FAILED;
        out = SLAP_ERROR;
    }
    sqlite3_finalize(st);
    return out;
}

static void sqlite_close(struct db *db)
{
    struct db_sqlite *s = (struct db_sqlite *)db;
    sqlite3_close(s->h);
    free(s);
}

static const struct db_ops sqlite_ops = {
    .name = "SQLite",
    .begin = "BEGIN IMMEDIATE",
    .exec = sqlite_exec,
    .close = sqlite_close,
};

enum slap_status db_sqlite_open(struct db **out, const char *path, int create, int timeout_ms,
                                char *err, size_t err_len)
{
    struct db_sqlite *s = calloc(1, sizeof(*s));
    *out = NULL;
    if (s == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    s->db.ops = &sqlite_ops;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX;
    int rc = sqlite3_open_v2(path, &s->h, flags | (create ? SQLITE_OPEN_CREATE : 0), NULL);
    if (rc != SQLITE_OK) {
        failed(s, rc, err, err_len);
        goto fail;
    }
    sqlite3_extended_result_codes(s->h, 1);
    sqlite3_busy_timeout(s->h, timeout_ms);
    /* nothing is written before the file is known for a store (store_schema.c sets WAL) */
    if (sqlite_exec(&s->db, "PRAGMA foreign_keys=ON", NULL, 0, NULL, NULL, err, err_len) !=
        SLAP_OK) {
        goto fail;
    }
    *out = &s->db;
    return SLAP_OK;
fail:
    sqlite3_close(s->h);
    free(s);
    return SLAP_ERROR;
}
