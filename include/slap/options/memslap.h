/*
 * memslap's face: libmemcached's memslap (Debian's memcslap) command line and report over
 * slap's engine. N threads with one connection each, --execute-number operations a thread
 * on one shared key set, memslap's "Time to ..." lines with slap's figures.
 */
#ifndef SLAP_MEMSLAP_H
#define SLAP_MEMSLAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/model/stats.h"
#include "slap/net/servers.h"
#include "slap/options/options.h"

#define MEMSLAP_KEY_SIZES "20-59"                        /* memslap's keys: 20 to 59 random bytes */
#define MEMSLAP_VALUE_SIZES "50-4999"                    /* and its values */
#define MEMSLAP_DEFAULT_NUMBER 10000                     /* --execute-number, --initial-load */
#define MEMSLAP_MGET_BUFFERS_MAX (1024ULL * 1024 * 1024) /* bytes of mget buffers, all threads */

/* --test, in the order memslap's --help lists them. */
enum memslap_test {
    MEMSLAP_GET = 0,  /* random gets of the loaded keys */
    MEMSLAP_MGET = 1, /* one multi-get of every key */
    MEMSLAP_SET = 2,  /* sets of every key in order (memslap's default) */
};

/* memslap's options as given. */
struct memslap_args {
    const char *servers;     /* --servers, else $MEMCACHED_SERVERS, else slap's default */
    uint32_t concurrency;    /* --concurrency: threads, one connection each; default 1 */
    uint64_t execute_number; /* --execute-number: operations of each thread, and the keys */
    uint64_t initial_load;   /* --initial-load: accepted, no effect (as in memslap 1.1) */
    enum memslap_test test;  /* --test */
    enum server_hash hash;   /* --hash */
    bool flush;              /* --flush */
    bool binary;             /* --binary */
    bool udp;                /* --udp */
    bool noreply;            /* --noreply: refused with --test=set */
    bool non_blocking;       /* --non-blocking: no effect (slap's sockets always are) */
    bool tcp_nodelay;        /* --tcp-nodelay: no effect (always set) */
    bool buffer;             /* --buffer: no effect */
    bool verbose;            /* --verbose: memslap's progress lines */
    bool debug;              /* --debug: the same */
    bool quiet;              /* --quiet: no report, only the exit status (errors still said) */
};

/* Where a memslap run spent its time, for the report's lines (seconds). */
struct memslap_times {
    double flush;     /* --flush */
    double generate;  /* planning the key set, the clients and their buffers */
    double load;      /* the initial load of --test=get or mget */
    uint64_t loaded;  /* keys the initial load stored */
    double start;     /* starting the threads and connecting */
    double test;      /* the measured part */
    double total;     /* all of it */
    uint32_t servers; /* servers flushed */
};

/*
 * Is this command line memslap's? argv[0] named memslap, memcslap or slap-memslap, or a first
 * argument "memslap". *first gets the index of memslap's argv[0] (0 or 1).
 */
bool memslap_invoked(int argc, char **argv, int *first);

/*
 * Read memslap's options (argv[0] is its name) into a, and the run they ask for into o.
 * Errors go to err, with a hint to run `program --help`.
 */
enum options_outcome memslap_parse(struct memslap_args *a, struct slap_options *o,
                                   const char *program, int argc, char **argv, FILE *out,
                                   FILE *err);

/* memslap's lines, then slap's additions (misses, errors, latency) after "Time total:".
 * SLAP_ERROR, nothing written, when the latency's histogram (mapped for the call) cannot be had. */
enum slap_status memslap_report(FILE *out, const struct memslap_args *a,
                                const struct memslap_times *t, const struct slap_stats *s);

#endif
