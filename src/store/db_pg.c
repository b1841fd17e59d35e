/* The store's PostgreSQL backend: libpq, every value a parameter, one connection. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"

#define PG_MAX_PARAMS 32

struct db_pg {
    struct db db;
    PGconn *c;
};

/* libpq's message without its trailing newline (it never holds the password). */
static void pg_message(const char *msg, char *err, size_t err_len)
{
    snprintf(err, err_len, "%s", msg != NULL && msg[0] != '\0' ? msg : "failed");
    size_t n = strlen(err);
    while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' ')) {
        err[--n] = '\0';
    }
    for (char *p = err; *p != '\0'; p++) {
        if (*p == '\n') {
            *p = ' ';
        }
    }
}

/* sql's ? as $1, $2 ...: PostgreSQL's way of naming parameters. */
static enum slap_status numbered(const char *sql, char *out, size_t len)
{
    size_t used = 0;
    int k = 0;
    for (const char *p = sql; *p != '\0'; p++) {
        int n = *p == '?' ? snprintf(out + used, len - used, "$%d", ++k)
                          : snprintf(out + used, len - used, "%c", *p);
        if (n < 0 || (size_t)n >= len - used) {
            return SLAP_ERROR;
        }
        used += (size_t)n;
    }
    return SLAP_OK;
}

static void texts_of(const struct db_value *params, size_t n, char buf[][32], const char **values,
                     int *lengths, int *formats)
{
    for (size_t i = 0; i < n; i++) {
        const struct db_value *v = &params[i];
        values[i] = NULL;
        lengths[i] = 0;
        formats[i] = v->kind == DB_BLOB; /* a blob's bytes as they are: binary */
        if (v->kind == DB_BLOB) {
            values[i] = v->t;
            lengths[i] = (int)v->len;
        }
        if (v->kind == DB_INT) {
            snprintf(buf[i], 32, "%lld", (long long)v->i);
            values[i] = buf[i];
        } else if (v->kind == DB_REAL && v->r == v->r && v->r - v->r == 0) {
            snprintf(buf[i], 32, "%.17g", v->r);
            values[i] = buf[i];
        } else if (v->kind == DB_TEXT) {
            values[i] = v->t;
        }
    }
}

static enum slap_status rows_of(PGresult *r, db_row each, void *arg)
{
    int nrows = PQntuples(r), ncols = PQnfields(r);
    ncols = ncols > 32 ? 32 : ncols;
    for (int i = 0; each != NULL && i < nrows; i++) {
        const char *cols[32];
        size_t lens[32];
        for (int j = 0; j < ncols; j++) {
            cols[j] = PQgetisnull(r, i, j) ? NULL : PQgetvalue(r, i, j);
            lens[j] = (size_t)PQgetlength(r, i, j);
        }
        if (each(arg, cols, lens, (size_t)ncols) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

static enum slap_status pg_exec(struct db *db, const char *sql, const struct db_value *params,
                                size_t n, db_row each, void *arg, char *err, size_t err_len)
{
    struct db_pg *s = (struct db_pg *)db;
    char text[8192], buf[PG_MAX_PARAMS][32];
    const char *values[PG_MAX_PARAMS];
    int lengths[PG_MAX_PARAMS], formats[PG_MAX_PARAMS];
    s->db.failure = DB_FAILED;
    if (n > PG_MAX_PARAMS || numbered(sql, text, sizeof(text)) != SLAP_OK) {
        snprintf(err, err_len, "a statement too long for slap's PostgreSQL backend");
        return SLAP_ERROR;
    }
    texts_of(params, n, buf, values, lengths, formats);
    PGresult *r = PQexecParams(s->c, text, (int)n, NULL, values, lengths, formats, 0);
    ExecStatusType st = PQresultStatus(r);
    enum slap_status out = SLAP_OK;
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        /* 55P03: lock not available; 57014: cancelled by the statement time-out */
        if (code != NULL && (strcmp(code, "55P03") == 0 || strcmp(code, "57014") == 0)) {
            s->db.failure = DB_BUSY;
        }
        pg_message(r != NULL ? PQresultErrorMessage(r) : PQerrorMessage(s->c), err, err_len);
        out = SLAP_ERROR;
    } else if (rows_of(r, each, arg) != SLAP_OK) {
        snprintf(err, err_len, "stopped reading rows");
        out = SLAP_ERROR;
    }
    PQclear(r);
    return out;
}

static void pg_close(struct db *db)
{
    struct db_pg *s = (struct db_pg *)db;
    PQfinish(s->c);
    free(s);
}

static const struct db_ops pg_ops = {
    .name = "PostgreSQL",
    .begin = "BEGIN",
    .exec = pg_exec,
    .close = pg_close,
};

enum slap_status db_pg_open(struct db **out, const char *url, int timeout_ms, char *err,
                            size_t err_len)
{
    struct db_pg *s = calloc(1, sizeof(*s));
    *out = NULL;
    if (s == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    s->db.ops = &pg_ops;
    char seconds[16];
    snprintf(seconds, sizeof(seconds), "%d", timeout_ms < 1000 ? 1 : timeout_ms / 1000);
    /* the URL's own settings come after these, and win */
    const char *keys[] = {"connect_timeout", "application_name", "dbname", NULL};
    const char *values[] = {seconds, "slap", url, NULL};
    s->c = PQconnectdbParams(keys, values, 1);
    if (s->c == NULL || PQstatus(s->c) != CONNECTION_OK) {
        pg_message(s->c != NULL ? PQerrorMessage(s->c) : "out of memory", err, err_len);
        PQfinish(s->c);
        free(s);
        return SLAP_ERROR;
    }
    /* a writer waits for another's lock at most as long as SQLite's would */
    char wait[64];
    snprintf(wait, sizeof(wait), "SET lock_timeout = %d", timeout_ms);
    if (pg_exec(&s->db, wait, NULL, 0, NULL, NULL, err, err_len) != SLAP_OK) {
        pg_close(&s->db);
        return SLAP_ERROR;
    }
    *out = &s->db;
    return SLAP_OK;
}
