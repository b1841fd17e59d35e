/* One SQL database, SQLite or PostgreSQL, behind one small table of calls: statements with
 * parameters, rows handed back as text. */
#ifndef SLAP_STORE_DB_H
#define SLAP_STORE_DB_H

#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"

/* A parameter: every value reaches SQL as one, never inside the statement's text. */
enum db_kind { DB_NULL, DB_INT, DB_REAL, DB_TEXT, DB_BLOB };
struct db_value {
    enum db_kind kind;
    int64_t i;
    double r;      /* DB_REAL; a value that is not finite goes as NULL */
    const char *t; /* DB_TEXT; DB_BLOB: len bytes */
    size_t len;
};
#define DB_I(v) ((struct db_value){.kind = DB_INT, .i = (v)})
#define DB_R(v) ((struct db_value){.kind = DB_REAL, .r = (v)})
#define DB_T(v) ((struct db_value){.kind = DB_TEXT, .t = (v)})
#define DB_B(v, n) ((struct db_value){.kind = DB_BLOB, .t = (v), .len = (n)})

/* A row of a statement's result: its columns as text (NULL: SQL's null), lens[i] bytes each (a
 * blob: SQLite's bytes, PostgreSQL's text form "\\x" and hex digits). Anything but SLAP_OK
 * stops the statement. */
typedef enum slap_status (*db_row)(void *arg, const char *const *cols, const size_t *lens,
                                   size_t n);

/* Why a call failed, beyond its words. */
enum db_failure {
    DB_FAILED,  /* anything else */
    DB_BUSY,    /* locked by another writer past the time-out */
    DB_FOREIGN, /* not a database, or a corrupt one */
};

struct db;
struct db_ops {
    const char *name;  /* "SQLite", "PostgreSQL" */
    const char *begin; /* the statement that opens a write transaction */
    /* sql with ? for each parameter; each row to each (NULL: rows ignored). */
    enum slap_status (*exec)(struct db *db, const char *sql, const struct db_value *params,
                             size_t n, db_row each, void *arg, char *err, size_t err_len);
    void (*close)(struct db *db);
};
struct db {
    const struct db_ops *ops;
    enum db_failure failure; /* the last failure's kind */
};

/* A SQLite file: created (mode 0666 less the umask, no symbolic link followed) when create,
 * waiting up to timeout_ms for another writer's lock. */
enum slap_status db_sqlite_open(struct db **out, const char *path, int create, int timeout_ms,
                                char *err, size_t err_len);
/* A PostgreSQL server by its URL (or libpq's key=value words), connecting for at most
 * timeout_ms. Messages never hold the password. */
enum slap_status db_pg_open(struct db **out, const char *url, int timeout_ms, char *err,
                            size_t err_len);

static inline enum slap_status db_exec(struct db *db, const char *sql,
                                       const struct db_value *params, size_t n, db_row each,
                                       void *arg, char *err, size_t err_len)
{
    return db->ops->exec(db, sql, params, n, each, arg, err, err_len);
}

#endif
