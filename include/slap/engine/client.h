/* A simulated client: its key window, its lanes and what they send next. */
#ifndef SLAP_CLIENT_H
#define SLAP_CLIENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/base/rng.h"
#include "slap/engine/replay.h"
#include "slap/engine/run_event.h"
#include "slap/model/keydist.h"
#include "slap/model/samples.h"
#include "slap/model/schedule.h"
#include "slap/model/stats.h"
#include "slap/model/workload.h"
#include "slap/net/conn.h"
#include "slap/net/servers.h"

struct client;

/* Where the thread of the lanes is in its run: its worker moves it, the lanes read it; the
 * transitions are drawn atop worker.c. */
enum worker_phase {
    WORKER_CONNECTING, /* opening every socket */
    WORKER_PRELOADING, /* --preload: setting every window key once, unmeasured */
    WORKER_READY,      /* set up: waiting for the main thread's go */
    WORKER_WARMING,    /* --warmup: load that is not counted */
    WORKER_MEASURING,  /* the run proper: statistics count */
    WORKER_STOPPING,   /* no new requests; waiting for the answers */
    WORKER_DONE,       /* the loop is over */
    WORKER_FAILED,     /* set-up failed: error says why */
};

/* What a lane reads of the run: settled once when the run is planned, read-only after; a lane
 * never reads the command line (memcached's proxy_tunables copied into each backend). */
struct lane_params {
    const struct workload *wl;
    const struct server_list *servers;
    struct replay_ring *rings;      /* --trace: one per lane of the run, else NULL */
    const atomic_bool *replay_done; /* --trace: the reader brings no more requests */
    uint64_t execute_number;        /* -x: requests of the whole run; 0: timed */
    double tps;                     /* -P: open loop at this rate, all lanes; 0: closed loop */
    double trace_speed;             /* --trace-speed; 0: as fast as the lanes go */
    uint32_t concurrency;           /* -c: clients of the run, all threads */
    uint32_t conns_per_client;      /* -n: lanes of each client */
    uint32_t pipeline;              /* requests a socket has in flight at most */
    uint32_t rep_write;             /* -p: sets go to the first N servers; 0: to their own */
    bool trace;                     /* --trace: requests come from the replay's rings */
    bool udp;                       /* -U: every socket is UDP */
    bool facebook;                  /* -a: gets over UDP, the rest over TCP */
    bool reconnect;                 /* -R: a lost socket connects again */
    uint64_t reconnect_every;       /* --reconnect_every: answers a socket gets before it is
                                       closed and opened again (between requests); 0: never */
    double reconnect_rate;          /* --reconnect_rate: sockets closed and opened again per
                                       second, all of the run's in turn (between requests) */
    bool verify;                    /* -v: some gets check their value */
    bool verbose;                   /* -b: say what a failed check found */
    bool multiget_window;           /* memslap's mget: every key of the window, in order */
    bool shared_keys;               /* memslap: every client uses client 0's keys */
    uint32_t key_id_base;           /* --share I/N,keys: (I - 1) x -c, added to the clients' ids
                                       in their keys, so that no two hosts share a key */
    bool windows_stored;            /* a sweep's later step: the windows are full already */
    bool preload;                   /* --preload */
    bool meta;                      /* the meta protocol (its server counts some misses apart) */
    struct run_event_sink events;   /* where the run's events go (run_want sets it) */
};

/* What a lane tells its worker (memtier's connections_manager): owner is lane_env.owner. */
struct lane_ops {
    /* The lane has nothing more to send nor to wait for. */
    void (*idle)(void *owner);
    /* During set-up: one socket's connect ended (why is NULL when it succeeded). */
    void (*connected)(void *owner, const struct conn *c, const char *why);
    /* A problem, to be said once per kind and server (never per request). */
    void (*warn)(void *owner, const char *what, uint32_t server, const char *detail,
                 size_t detail_len);
};

/* One multi-get being put together: its keys, their slots and servers (one per thread). */
struct multiget_scratch {
    uint64_t *slots;      /* the slot of each key, */
    uint32_t *servers;    /* its server (UINT32_MAX once taken into a request), */
    uint32_t *lens;       /* its length, */
    char *keys;           /* and the keys themselves (division x key_size) */
    char *group_keys;     /* the keys of one server's part of it, */
    uint32_t *group_lens; /* and their lengths */
};

/*
 * What every lane of a thread shares, owned by that thread (no lock): the run's parameters,
 * the way to its worker, and the state the request path writes. Its worker embeds it and
 * moves the phase.
 */
struct lane_env {
    const struct lane_params *params;
    const struct lane_ops *ops;
    void *owner;             /* given back to ops: the worker */
    struct event_base *base; /* the thread's loop, for the lanes' timers */
    enum worker_phase phase;
    struct slap_stats cur;          /* statistics since the last publish */
    struct slap_counters uncounted; /* answers to unmeasured requests (warm-up, preload) */
    struct sample_ring samples;     /* --samples: drained by the main thread */
    struct rng rng;
    struct multiget_scratch multiget; /* the multi-get being put together */
    const struct codec *codec;        /* the protocol spoken */
    uint32_t hdr_cap;                 /* bytes of each request header buffer */
    uint32_t verbose_left;            /* -b: failure details still to print */
    uint64_t verify_slot;             /* the slot of the value being checked */
    uint64_t run_start_ns;            /* for slot times in ms */
    uint64_t start_ns;                /* the go: time 0 of the trace */
    uint64_t end_ns;                  /* end of the measured part, once it is known */
    uint64_t last_answer_ns;          /* of a measured request */
    bool cpu_starved;                 /* the thread was on a CPU or waiting for one
                                         LIMITS_HELD_BY_CLIENT of the measured part or more:
                                         a lane awaiting an answer may have awaited slap's
                                         own read (set at the end) */
    bool stalled;                     /* the loop ran the end WORKER_STALL_NS late or more
                                         (stopped, or starved): an answer left unread in a
                                         lane's socket was slap's to read (set at the end) */
    bool paused;                      /* --control, closed loop: no new requests */
    uint64_t preload_sets;            /* sets answered during the preload */
    struct trace_progress trace_sent; /* --trace: the measured requests sent */
};

/*
 * --reconnect_rate: when one socket is next closed and opened again. The run's sockets take
 * the run's reopens in turn: its n-th (from 1) is due (n - 1/2) / rate after the go, to
 * socket (n - 1) mod sockets (numbered across threads as the lanes are), so each socket's are
 * evenly spaced and all of them together come at the rate: a run of T seconds holds rate x T
 * of them, none at its very start or end. Times are worked out from n, never by adding gaps:
 * they do not drift.
 */
struct lane_reopen {
    uint64_t due_ns;      /* the next one: the first answer read at or after it reopens the
                             socket; UINT64_MAX before the go */
    uint64_t n;           /* which of the run's reopens that is */
    uint64_t answered_ns; /* when the socket's latest answer was read */
};

/* The thread's slabs a client's lanes are carved from, in the worker's order. */
struct lane_slabs {
    struct lane *lanes;          /* all lanes of all clients */
    struct conn *conns;          /* all sockets */
    struct request *requests;    /* the rings of all sockets */
    struct lane_reopen *reopens; /* --reconnect_rate: one per socket, else NULL */
    char *hdrs;                  /* request headers of all rings */
    char *keys;                  /* keys of all clients */
    struct conn_env *conn_env;   /* what every socket of the thread is given */
};

/*
 * A lane is one stream of requests with up to --pipeline of them in flight,
 * each sent on the lane's socket to the server its key belongs to. Closed
 * loop: a new request as soon as one is answered. Open loop: a new request at
 * each time of the lane's schedule; when the lane is full, due requests wait
 * and their latency still counts from their intended time. A client has -n lanes.
 */
struct lane {
    struct client *client;
    struct conn *conns; /* one per server; with -a, then one UDP socket per server */
    uint32_t nconns;
    uint32_t in_flight; /* requests queued or waiting for answers, over all sockets */
    bool done;          /* nothing left to send or to wait for */
    bool timer_armed;
    bool churn;                  /* --reconnect_every or --reconnect_rate: lane_drained looks */
    uint64_t held_since_ns;      /* open loop, --trace: since when the lane has been full, every
                                    answer followed at once by the next due request; 0 with room */
    uint64_t freed_ns;           /* then when the first answer that gave the full lane room would
                                    have come had slap kept its schedule (client_answer.c); 0 until
                                    one comes */
    uint64_t next_held_ns;       /* what the server held the request being queued (lane_pump) */
    struct schedule sched;       /* open loop */
    struct event *timer;         /* open loop, --trace: wakes the lane at its next intended time;
                                    made with the lane, NULL in a closed loop (which never waits) */
    struct replay_ring *ring;    /* --trace: the requests of the trace for this lane, else NULL */
    struct lane_reopen *reopens; /* --reconnect_rate: one per socket (as conns), else NULL */
};

/* Keys that incr and decr count on, per client, stored with CLIENT_COUNTER_START first. */
#define CLIENT_COUNTERS 16
#define CLIENT_COUNTER_START "1000000000"
/* A cas token memcached never hands out (its tokens count up from 1), for a cas without one. */
#define CLIENT_CAS_NONE UINT64_MAX

struct client {
    struct lane_env *env; /* its thread's */
    uint32_t id;          /* 0 .. concurrency-1, across all threads */
    uint32_t key_id;      /* whose keys it uses: id, or 0 with shared_keys (memslap) */
    struct key_window win;
    char *key;                /* this client's key, slot digits rewritten per request */
    uint16_t *slot_server;    /* server of each window slot with several servers, else NULL */
    uint64_t quota;           /* requests still to send in a counted run; UINT64_MAX if timed */
    bool stopped;             /* lost a connection without -R: sends nothing more */
    uint64_t preload_left;    /* keys still to set before the run: counters, then (--preload,
                                 or a mix that stores no new key) the whole window */
    uint32_t counters_left;   /* of them, counter keys (incr, decr) */
    bool cas_ready;           /* a gets left a token for the next cas: */
    uint64_t cas_slot;        /* the slot it read (--trace: its key's hash) */
    uint64_t cas_token;       /* and the token */
    struct slot_state *slots; /* per window slot, with -v, -e or -o; else NULL */
    uint32_t nlanes;
    struct lane *lanes;
};

/* Sockets of each lane: one per server, twice with -a (TCP for sets, then UDP for gets). */
uint32_t client_lane_sockets(const struct lane_params *p);
/* Room for the largest answer a UDP socket can get (a get of -d keys), by datagram. */
size_t client_udp_answer_cap(const struct workload *wl);

/* Scratch for multi-gets of wl->division keys. client_scratch_free is safe after a failure. */
enum slap_status client_scratch_init(struct multiget_scratch *s, const struct workload *wl);
void client_scratch_free(struct multiget_scratch *s);

/*
 * Client id, the k-th of its thread (env): its key, window and lanes, carved from the thread's
 * slabs (lanes, sockets, rings, headers, keys). client_free is safe after a failure.
 */
enum slap_status client_init(struct client *c, struct lane_env *env, const struct lane_slabs *s,
                             uint32_t id, uint32_t k);
/* Does a run with these parameters begin with every window stored (--preload, or a mix that
 * stores no new key), by a preload of its own or (windows_stored) an earlier sweep step's? */
bool client_windows_full(const struct lane_params *p, const struct workload *wl);
/* Bounds: where client id's walks begin in the range, the clients spread evenly; a --preload
 * sets keys [start(id), start(id + 1)) (id + 1 == concurrency: the range's end). */
uint64_t client_range_start(const struct lane_params *p, const struct workload *wl, uint32_t id);
void client_free(struct client *c);

/* The callbacks by which a lane hears from its sockets (the conn_env's ops). */
const struct conn_ops *client_conn_ops(void);

/* --reconnect_rate, at the go (env->start_ns set): each socket's first reopen time. */
void lane_reopens_begin(struct lane *l);
/* Send what the lane may send now (start, an answer, its timer, a reconnect). */
void lane_pump(struct lane *l);
/* --control: the lane's open-loop times follow total_rate from at_ns on (schedule_retarget); a
 * timer set for a later time is cancelled, so that the caller's lane_pump sets it again. */
void lane_retarget(struct lane *l, uint64_t at_ns, double total_rate);
/* The worker stops: requests that cannot be written (queued behind a reconnect) count as
 * unanswered (in no latency); timers and reconnects stop. */
void lane_stop(struct lane *l, uint64_t end_ns);
/* The end: every request still queued or awaited counts as unanswered (in no latency). */
void lane_give_up(struct lane *l, uint64_t end_ns);
/* Open loop: requests the schedule made due in [from_ns, end_ns) but that never left (the lane
 * was full: a stalled or lost connection) count as unanswered (in no latency). */
void lane_count_unsent(struct lane *l, uint64_t from_ns, uint64_t end_ns);

#endif
