/* The store's tables: made, checked and migrated forward. */
#ifndef SLAP_STORE_SCHEMA_H
#define SLAP_STORE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "db.h"

/* The version of the store's tables this slap makes and reads (see version_N in
 * store_schema.c: each one's statements, a migration from the one before). */
#define STORE_SCHEMA 2

/* Make the tables in an empty database (when create), check a store's, or refuse a database
 * that is not one; migrate an older store forward to STORE_SCHEMA. In one write
 * transaction, so writers starting at once make the tables once. */
enum slap_status schema_ensure(struct db *db, bool postgres, bool create, char *err,
                               size_t err_len);
/* Run sql with its ?s, ending the transaction (rolled back) when it fails. */
enum slap_status schema_begin(struct db *db, bool postgres, char *err, size_t err_len);
void schema_rollback(struct db *db);

#endif
