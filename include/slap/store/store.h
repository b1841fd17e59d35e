/* The results store: every run kept, with the columns a query needs (an SQLite file, or a
 * PostgreSQL database a fleet writes into), read back by slap history. */
#ifndef SLAP_STORE_H
#define SLAP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/output/history.h"
#include "slap/output/results.h"
#include "slap/output/sinks.h"

/* The store's own format (its tables) has a version, store_schema.c's STORE_SCHEMA: an older
 * store is migrated forward when it is first opened, a younger one refused, naming both. */
#define STORE_TIMEOUT_MS 30000 /* how long a writer waits for another's lock, or a server */
#define STORE_LOCATION_SHOWN 512
#define STORE_ENV "SLAP_STORE"
#define STORE_TIMEOUT_ENV "SLAP_STORE_TIMEOUT" /* seconds, to override STORE_TIMEOUT_MS */

struct store;

/* Where a store is, and what it is: a postgresql:// or postgres:// URL, else an SQLite file. */
bool store_is_postgres(const char *location);
/* location with a URL's password as "***" (in the URL's user part and in a password=
 * parameter), into buf: what may be written anywhere. */
void store_location_redacted(char *buf, size_t len, const char *location);
/* The same as messages show it, quoted (quote.h). */
void store_location_shown(char *buf, size_t len, const char *location);
/* What is wrong with a location given to --store (NULL: nothing): empty, "-". */
const char *store_location_problem(const char *location);

/* Open the store at location, creating an SQLite file (and the tables) when create. A file that
 * is not a store (another program's database, a corrupt one, not a database) is refused, never
 * written. SLAP_ERROR with err saying why. */
enum slap_status store_open(struct store **out, const char *location, bool create, char *err,
                            size_t err_len);
void store_close(struct store *s);

/* What a stored run is, beside its document. */
struct store_put_info {
    const char *kind; /* "run", "sweep", "rounds", "merge", "search", "compare" */
    const char *text; /* the document as --json writes it (or as it was read, for an import) */
    size_t len;
    uint64_t schema;  /* the document's "schema" */
    const char *tool; /* its "tool", "slap 0.1.0" */
};
/* Keep d (the document whose JSON text info holds), its series made or found. *id: its run's
 * id; *already: it was stored before (the same runs, by host, pid and start), nothing done. */
enum slap_status store_put(struct store *s, const struct results_doc *d,
                           const struct store_put_info *info, int64_t *id, bool *already, char *err,
                           size_t err_len);

/* Which runs a query takes. */
struct store_filter {
    const char *label;   /* the series' label, exactly; NULL: any */
    const char *servers; /* a part of the servers' text; NULL: any */
    const char *host;    /* the runs' host, exactly; NULL: any */
    const char *kind;    /* run, sweep, ...; NULL: any */
    uint64_t since_ms;   /* 0: from the first */
    uint64_t until_ms;   /* 0: to the last */
};

/* Every series with a run the filter takes, its runs and the judged figures. */
enum slap_status store_list_series(struct store *s, const struct store_filter *f,
                                   struct history_series **out, size_t *n, char *err,
                                   size_t err_len);
/* One series by its id (or the start of one, or its label when only one series has it), its
 * runs the filter takes, figures those named (NULL: the judged ones; "all": every one).
 * SLAP_AGAIN with err when no series, or more than one, answers to name. */
enum slap_status store_read_series(struct store *s, const char *name, const struct store_filter *f,
                                   const char *const *figures, size_t nfigures,
                                   struct history_series *out, char *err, size_t err_len);
/* Remove the runs started before before_ms (and the series left empty): *removed of them. */
enum slap_status store_prune(struct store *s, uint64_t before_ms, uint64_t *removed, char *err,
                             size_t err_len);
/* A stored run's document as it was kept (owned by the caller: free). */
enum slap_status store_document(struct store *s, int64_t id, char **text, char *err,
                                size_t err_len);

/*
 * Keep a finished run in the store at location (--store, or SLAP_STORE), as kind: its document
 * written as --json writes it (its periods from in's walk, or the document's), then stored.
 * A failure costs the store's copy only: it is said on msg ("PROGRAM: --store LOCATION: why;
 * the report and the other outputs are written"), and SLAP_ERROR tells the caller to exit 1.
 */
enum slap_status store_save(const char *location, const struct results_sink_input *in,
                            const char *kind, FILE *msg, const char *program);
/* The store a command writes to: --store's location, else SLAP_STORE's when set and not
 * empty, else NULL. */
const char *store_location(const char *option);

/* The figures a series is judged by when none are named: tps, p50, p90, p99, p99.9, errors. */
extern const char *const store_judged_figures[];
extern const size_t store_judged_count;

#endif
