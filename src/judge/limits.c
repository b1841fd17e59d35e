/*
 * What limited a run, judged from its figures: a pure function of struct limits, which the
 * engine fills (engine/limits_measure.c and run_result.c) and output words and prints
 * (output/limits_words.c).
 * The rules, in order (README "What limited the run" has them as a table):
 *
 *   slap's threads waited for a CPU ≥ LIMITS_STARVED of the run ─────> client (both if a
 *                                               server was saturated too): the host's CPU
 *   -P: the P99 tail mostly slap late to send (≥ LIMITS_SLAP_TAIL) ─> client (both if a
 *                                               server was saturated or starved too)
 *   -P: requests fell due while their socket was free, never sent ───> client (the schedule)
 *   the -P target met (or a trace's times), neither side saturated ─> rate
 *   slap saturated and a server too ─────────────────────────────────> both
 *   a server's threads ≥ LIMITS_SATURATED ───────────────────────────> server
 *   slap saturated (a thread's busy + wait, or its CPUs) ────────────> client
 *   neither, but a server's load unknown ────────────────────────────> unknown
 *   neither, requests in flight ≥ LIMITS_OCCUPIED of possible ───────> latency (raise -c)
 *   neither, fewer in flight ────────────────────────────────────────> client (its turnaround)
 *
 * Requests in flight come from Little's law: requests per second × mean latency, against
 * what slap may have in flight (-c × -n × --pipeline). "Busy" is always a share of time on a
 * CPU; the time a thread waited for one is named as such.
 *
 * Borderline: each rule compares a figure with a line. A figure within its band of its line
 * (LIMITS_BAND_*: about two standard deviations of its spread over identical runs) is moved
 * to the line's other side and the rules applied again; if the verdict changes, it stays the
 * same word, and its words begin with the other verdict and the figure ("borderline with
 * both: slap's threads waited for a CPU 9.6% of the run, near the 10% line; ...").
 */
#include "slap/judge/limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum slap_status limits_init(struct limits *l, uint32_t nservers)
{
    memset(l, 0, sizeof(*l));
    l->verdict = LIMITS_UNKNOWN;
    if (nservers == 0) {
        return SLAP_OK;
    }
    l->servers = calloc(nservers, sizeof(*l->servers));
    l->nservers = l->servers != NULL ? nservers : 0;
    return l->servers != NULL ? SLAP_OK : SLAP_ERROR;
}

void limits_free(struct limits *l)
{
    free(l->servers);
    l->servers = NULL;
    l->nservers = 0;
}

#define VERDICT_FITS(id, word)                                                                     \
    _Static_assert(sizeof(word) <= LIMITS_VERDICT_WORD_MAX, "verdict " word " is too long");
LIMITS_VERDICT_ROWS(VERDICT_FITS)
#undef VERDICT_FITS

bool limits_slap_short(const struct limits *l)
{
    return l->client.demand_max >= LIMITS_SATURATED ||
           (l->client.wait_known && l->client.wait_max >= LIMITS_STARVED);
}

const char *limits_verdict_name(enum limits_verdict v)
{
#define VERDICT_WORD(id, word) [id] = word,
    static const char *const names[] = {LIMITS_VERDICT_ROWS(VERDICT_WORD)};
#undef VERDICT_WORD
    return (size_t)v < SLAP_ARRAY_SIZE(names) ? names[v] : "unknown";
}

/* The known server whose threads were the busiest, or NULL; how many are unknown. */
const struct limits_server *limits_busiest_server(const struct limits *l, uint32_t *unknown)
{
    const struct limits_server *best = NULL;
    *unknown = 0;
    for (uint32_t i = 0; i < l->nservers; i++) {
        const struct limits_server *s = &l->servers[i];
        if (!s->known) {
            (*unknown)++;
        } else if (best == NULL || s->busy > best->busy) {
            best = s;
        }
    }
    return best;
}

bool limits_starved(const struct limits *l)
{
    return l->client.wait_known && l->client.wait_max >= LIMITS_STARVED;
}

/* The server on slap's host whose threads waited longest for a CPU, at LIMITS_STARVED or more:
 * the host's CPU limited it. NULL when none did. */
const struct limits_server *limits_starved_server(const struct limits *l)
{
    const struct limits_server *worst = NULL;
    for (uint32_t i = 0; i < l->nservers; i++) {
        const struct limits_server *s = &l->servers[i];
        if (s->wait_known && s->wait_max >= LIMITS_STARVED &&
            (worst == NULL || s->wait_max > worst->wait_max)) {
            worst = s;
        }
    }
    return worst;
}

bool limits_client_saturated(const struct limits *l)
{
    return l->client.demand_max >= LIMITS_SATURATED ||
           (l->client.cpus > 0 && l->client.cpu_share >= LIMITS_SATURATED);
}

bool limits_slap_tail(const struct limits *l)
{
    return l->target_tps > 0 && l->slap_tail_share >= LIMITS_SLAP_TAIL;
}

/* Little's law: whether more requests in flight would have raised the rate. */
bool limits_occupied(const struct limits *l)
{
    return l->in_flight_max == 0 || l->in_flight_mean >= LIMITS_OCCUPIED * l->in_flight_max;
}

/* The comparisons decide() takes the other way: one (line LIMITS_LINES: none), or every one
 * of the lines in the mask lines (a server's: of the servers in the mask servers, the first
 * 64), for figures that decide only together (slap's demand and its CPU share). */
struct crossing {
    enum limits_line line;
    uint32_t server;
    unsigned lines;
    uint64_t servers;
};

static const struct crossing no_crossing = {LIMITS_LINES, 0, 0, 0};

static bool per_server(enum limits_line line)
{
    return line == LIMITS_LINE_SERVER_WAIT || line == LIMITS_LINE_SERVER_BUSY;
}

/* at (a figure at or past its line), or not at for a comparison x moves across. */
static bool crossed(const struct crossing *x, enum limits_line line, uint32_t server, bool at)
{
    bool one = x->line == line && x->server == server;
    bool joint = (x->lines & (1u << line)) != 0 &&
                 (!per_server(line) || (server < 64 && ((x->servers >> server) & 1u) != 0));
    return one || joint ? !at : at;
}

/* Some known server's busy share at LIMITS_SATURATED or more (the busiest's, unmoved). */
static bool any_server_saturated(const struct limits *l, const struct crossing *x)
{
    bool any = false;
    for (uint32_t i = 0; i < l->nservers; i++) {
        const struct limits_server *s = &l->servers[i];
        any = any ||
              (s->known && crossed(x, LIMITS_LINE_SERVER_BUSY, i, s->busy >= LIMITS_SATURATED));
    }
    return any;
}

/* Some server on slap's host waited for a CPU LIMITS_STARVED of the run or more. */
static bool any_server_starved(const struct limits *l, const struct crossing *x)
{
    bool any = false;
    for (uint32_t i = 0; i < l->nservers; i++) {
        const struct limits_server *s = &l->servers[i];
        any = any || (s->wait_known &&
                      crossed(x, LIMITS_LINE_SERVER_WAIT, i, s->wait_max >= LIMITS_STARVED));
    }
    return any;
}

/* The verdict, with x's comparison taken the other way (no_crossing: as the figures are). */
static enum limits_verdict decide(const struct limits *l, uint32_t unknown,
                                  const struct crossing *x)
{
    const struct limits_client *c = &l->client;
    bool client =
        crossed(x, LIMITS_LINE_CLIENT_DEMAND, 0, c->demand_max >= LIMITS_SATURATED) ||
        (c->cpus > 0 && crossed(x, LIMITS_LINE_CLIENT_SHARE, 0, c->cpu_share >= LIMITS_SATURATED));
    bool server = any_server_saturated(l, x);
    bool rate_met =
        l->target_tps > 0 &&
        crossed(x, LIMITS_LINE_RATE_MET, 0, l->achieved_tps >= LIMITS_RATE_MET * l->target_tps);
    bool lag = crossed(x, LIMITS_LINE_CLIENT_LAG, 0, l->client_lag > 0);
    bool late = crossed(x, LIMITS_LINE_LATE, 0, l->send_lag_p99_s * 1e9 >= LIMITS_LATE_NS);
    bool starved_client =
        c->wait_known && crossed(x, LIMITS_LINE_CLIENT_WAIT, 0, c->wait_max >= LIMITS_STARVED);
    bool starved_servers = any_server_starved(l, x);
    bool slap_tail = l->target_tps > 0 &&
                     crossed(x, LIMITS_LINE_SLAP_TAIL, 0, l->slap_tail_share >= LIMITS_SLAP_TAIL);
    bool occupied_enough =
        l->in_flight_max == 0 || crossed(x, LIMITS_LINE_OCCUPIED, 0,
                                         l->in_flight_mean >= LIMITS_OCCUPIED * l->in_flight_max);
    if (starved_client && !(rate_met && !lag && !late)) {
        return server || starved_servers ? LIMITS_BOTH : LIMITS_CLIENT;
    }
    if (slap_tail) { /* what the tail measured was slap's lateness, whatever else was busy */
        return server || starved_servers ? LIMITS_BOTH : LIMITS_CLIENT;
    }
    if (starved_servers) {
        return client ? LIMITS_BOTH : LIMITS_SERVER;
    }
    if (lag && !server) {
        return LIMITS_CLIENT;
    }
    if ((rate_met && !client) || (l->paced_by_trace && !client && !server)) {
        return LIMITS_RATE;
    }
    if (client && server) {
        return LIMITS_BOTH;
    }
    if (server || client) {
        return server ? LIMITS_SERVER : LIMITS_CLIENT;
    }
    if (unknown > 0) {
        return LIMITS_UNKNOWN;
    }
    return occupied_enough ? LIMITS_LATENCY : LIMITS_CLIENT;
}

/* One line: the figure it judges (false when not known), its line, its band. */
struct line_row {
    const char *figure; /* as --json names it; per server: "servers[%u]." and this */
    bool per_server;
    double line;
    double band;
    bool (*read)(const struct limits *l, uint32_t server, double *figure);
};

static bool read_client_wait(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->client.wait_max;
    return l->client.wait_known;
}

static bool read_server_wait(const struct limits *l, uint32_t server, double *figure)
{
    *figure = l->servers[server].wait_max;
    return l->servers[server].wait_known;
}

static bool read_client_demand(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->client.demand_max;
    return true;
}

static bool read_client_share(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->client.cpu_share;
    return l->client.cpus > 0;
}

static bool read_server_busy(const struct limits *l, uint32_t server, double *figure)
{
    *figure = l->servers[server].busy;
    return l->servers[server].known;
}

static bool read_rate_met(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->target_tps > 0 ? l->achieved_tps / l->target_tps : 0;
    return l->target_tps > 0;
}

static bool read_late(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->send_lag_p99_s;
    return l->target_tps > 0;
}

/* The share of the requests due that slap held: near only when some were (none is where a
 * run that kept up sits, and one request more is no measure of nearness). */
static bool read_client_lag(const struct limits *l, uint32_t server, double *figure)
{
    double due = l->achieved_tps * l->seconds + (double)l->client_lag;
    (void)server;
    *figure = due > 0 ? (double)l->client_lag / due : 0;
    return l->client_lag > 0;
}

static bool read_slap_tail(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->slap_tail_share;
    return l->target_tps > 0;
}

static bool read_occupied(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->in_flight_max > 0 ? l->in_flight_mean / l->in_flight_max : 0;
    return l->in_flight_max > 0;
}

static const struct line_row line_rows[] = {
    [LIMITS_LINE_CLIENT_WAIT] = {"client.cpu_wait_max", false, LIMITS_STARVED, LIMITS_BAND_WAIT,
                                 read_client_wait},
    [LIMITS_LINE_SERVER_WAIT] = {"cpu_wait_max", true, LIMITS_STARVED, LIMITS_BAND_WAIT,
                                 read_server_wait},
    [LIMITS_LINE_CLIENT_DEMAND] = {"client.demand_max", false, LIMITS_SATURATED, LIMITS_BAND_BUSY,
                                   read_client_demand},
    [LIMITS_LINE_CLIENT_SHARE] = {"client.cpu_share", false, LIMITS_SATURATED, LIMITS_BAND_BUSY,
                                  read_client_share},
    [LIMITS_LINE_SERVER_BUSY] = {"busy", true, LIMITS_SATURATED, LIMITS_BAND_BUSY,
                                 read_server_busy},
    [LIMITS_LINE_RATE_MET] = {"achieved_share", false, LIMITS_RATE_MET, LIMITS_BAND_RATE,
                              read_rate_met},
    [LIMITS_LINE_LATE] = {"send_lag_p99_s", false, LIMITS_LATE_NS / 1e9, LIMITS_BAND_LATE,
                          read_late},
    [LIMITS_LINE_CLIENT_LAG] = {"client_lag_share", false, 0, LIMITS_BAND_LAG, read_client_lag},
    [LIMITS_LINE_SLAP_TAIL] = {"slap_tail_share", false, LIMITS_SLAP_TAIL, LIMITS_BAND_SLAP_TAIL,
                               read_slap_tail},
    [LIMITS_LINE_OCCUPIED] = {"in_flight_share", false, LIMITS_OCCUPIED, LIMITS_BAND_OCCUPIED,
                              read_occupied},
};
_Static_assert(SLAP_ARRAY_SIZE(line_rows) == LIMITS_LINES, "a row for every line");

/* Keep line's figure as b's when it is nearer its line (in bands) than nearest so far. */
static void keep_nearest(struct limits_borderline *b, double *nearest, const struct line_row *row,
                         uint32_t server, double figure, enum limits_verdict with)
{
    double off = fabs(figure - row->line) / row->band;
    if (off >= *nearest) {
        return;
    }
    *nearest = off;
    b->near = true;
    b->with = with;
    b->value = figure;
    b->line = row->line;
    b->band = row->band;
    if (row->per_server) {
        snprintf(b->figure, sizeof(b->figure), "servers[%u].%s", server, row->figure);
    } else {
        snprintf(b->figure, sizeof(b->figure), "%s", row->figure);
    }
}

/*
 * No figure alone within its band changes the verdict: all of them moved across their lines at
 * once may (slap's demand and CPU share both near 0.85 decide "slap saturated" together). If
 * so, the nearest of them is named.
 */
static void find_joint(struct limits *l, uint32_t unknown, enum limits_line *line, uint32_t *server)
{
    struct crossing x = {LIMITS_LINES, 0, 0, 0};
    int near = 0;
    for (int id = 0; id < LIMITS_LINES; id++) {
        const struct line_row *row = &line_rows[id];
        uint32_t n = row->per_server ? l->nservers : 1;
        for (uint32_t i = 0; i < n && (!row->per_server || i < 64); i++) {
            double figure;
            if (row->read(l, i, &figure) && fabs(figure - row->line) < row->band) {
                x.lines |= 1u << id;
                x.servers |= row->per_server ? (uint64_t)1 << i : 0;
                near++;
            }
        }
    }
    enum limits_verdict other = near > 1 ? decide(l, unknown, &x) : l->verdict;
    /* only the figures the change needs: each left out in turn when the rest still change it
     * (a send lag near its line beside a saturated slap changes nothing by itself) */
    for (int id = 0; other != l->verdict && id < LIMITS_LINES; id++) {
        struct crossing without = x;
        without.lines &= ~(1u << id);
        if ((x.lines & (1u << id)) != 0 && decide(l, unknown, &without) == other) {
            x = without;
        }
    }
    double nearest = 1.0;
    for (int id = 0; other != l->verdict && id < LIMITS_LINES; id++) {
        const struct line_row *row = &line_rows[id];
        uint32_t n = row->per_server ? l->nservers : 1;
        for (uint32_t i = 0; (x.lines & (1u << id)) != 0 && i < n; i++) {
            double figure;
            double before = nearest;
            if (row->read(l, i, &figure)) {
                keep_nearest(&l->borderline, &nearest, row, i, figure, other);
            }
            if (nearest < before) {
                *line = (enum limits_line)id;
                *server = i;
            }
        }
    }
}

/*
 * Every figure within its band of its line, moved across it: the nearest (in bands) whose move
 * changes the verdict makes it borderline; else all of them moved together (find_joint).
 * Which row and server it was: *line, *server.
 */
static void find_borderline(struct limits *l, uint32_t unknown, enum limits_line *line,
                            uint32_t *server)
{
    struct limits_borderline *b = &l->borderline;
    double nearest = 1.0; /* within the band: less than one band away */
    memset(b, 0, sizeof(*b));
    *line = LIMITS_LINES;
    for (int id = 0; id < LIMITS_LINES; id++) {
        const struct line_row *row = &line_rows[id];
        uint32_t n = row->per_server ? l->nservers : 1;
        for (uint32_t i = 0; i < n; i++) {
            double figure;
            if (!row->read(l, i, &figure) || fabs(figure - row->line) >= row->band * nearest) {
                continue;
            }
            struct crossing x = {(enum limits_line)id, i, 0, 0};
            enum limits_verdict other = decide(l, unknown, &x);
            if (other != l->verdict) {
                keep_nearest(b, &nearest, row, i, figure, other);
                *line = (enum limits_line)id;
                *server = i;
            }
        }
    }
    if (!b->near) {
        find_joint(l, unknown, line, server);
    }
}

bool limits_unanswered(const struct limits *l)
{
    return l->stopped || l->stalled > 0 || l->down > 0 ||
           ((double)l->silent > LIMITS_UNANSWERED * (double)l->due && l->silent > 0);
}

void limits_judge(struct limits *l)
{
    uint32_t unknown, server = 0;
    enum limits_line line = LIMITS_LINES;
    limits_busiest_server(l, &unknown);
    l->read_why[0] = '\0'; /* the words are output's (limits_say), made from what is judged here */
    l->borderline = (struct limits_borderline){.which = LIMITS_LINES};
    if (limits_unanswered(l)) {
        l->verdict = LIMITS_UNKNOWN; /* nothing about the load, nor about slap, to judge */
        return;
    }
    l->verdict = decide(l, unknown, &no_crossing);
    find_borderline(l, unknown, &line, &server);
    l->borderline.which = l->borderline.near ? line : LIMITS_LINES;
    l->borderline.server = server;
}

bool limits_verdict_parse(const char *name, enum limits_verdict *v)
{
    for (int i = 0; name != NULL && i < LIMITS_VERDICTS; i++) {
        if (strcmp(name, limits_verdict_name((enum limits_verdict)i)) == 0) {
            *v = (enum limits_verdict)i;
            return true;
        }
    }
    return false;
}

/* Two hosts' threads as one slap's: CPU and threads added, shares averaged by threads. */
static void add_client(struct limits_client *into, const struct limits_client *from)
{
    uint32_t threads = into->threads + from->threads;
    double weight = threads > 0 ? 1.0 / threads : 0;
    into->cpu_user_s += from->cpu_user_s;
    into->cpu_sys_s += from->cpu_sys_s;
    into->busy_mean = (into->busy_mean * into->threads + from->busy_mean * from->threads) * weight;
    into->wait_mean = (into->wait_mean * into->threads + from->wait_mean * from->threads) * weight;
    into->busy_max = from->busy_max > into->busy_max ? from->busy_max : into->busy_max;
    into->wait_max = from->wait_max > into->wait_max ? from->wait_max : into->wait_max;
    into->demand_max = from->demand_max > into->demand_max ? from->demand_max : into->demand_max;
    into->wait_known = into->wait_known && from->wait_known;
    into->threads = threads;
    if (from->cpu_share > into->cpu_share) { /* the host nearest its CPUs' limit */
        into->cpu_share = from->cpu_share;
        into->cpus = from->cpus;
    }
}

enum slap_status limits_add(struct limits *into, const struct limits *from, bool first)
{
    struct limits_server *servers =
        realloc(into->servers, (into->nservers + from->nservers + 1) * sizeof(*servers));
    if (servers == NULL) {
        return SLAP_ERROR;
    }
    into->servers = servers;
    memcpy(servers + into->nservers, from->servers, from->nservers * sizeof(*servers));
    into->nservers += from->nservers;
    if (first) {
        into->client = from->client;
        into->host = from->host;
        into->proxy = from->proxy; /* the first host's reading: each read the same proxy */
    } else {
        add_client(&into->client, &from->client);
        into->host.known = into->host.known && from->host.known;
        if (from->host.busy > into->host.busy) { /* the busiest host */
            into->host.busy = from->host.busy;
            into->host.cpus = from->host.cpus;
        }
    }
    into->in_flight_max += from->in_flight_max;
    into->in_flight_mean += from->in_flight_mean;
    into->client_lag += from->client_lag;
    into->latency_p99_s = fmax(into->latency_p99_s, from->latency_p99_s);
    into->slap_late_p99_s = fmax(into->slap_late_p99_s, from->slap_late_p99_s);
    into->held_p99_s = fmax(into->held_p99_s, from->held_p99_s);
    into->net_p99_s = fmax(into->net_p99_s, from->net_p99_s);
    into->slap_tail_share = fmax(into->slap_tail_share, from->slap_tail_share);
    into->host.steal = fmax(into->host.steal, from->host.steal);
    if (from->send_lag_p99_s > into->send_lag_p99_s) {
        into->send_lag_p99_s = from->send_lag_p99_s;
    }
    into->own_known = (first || into->own_known) && from->own_known; /* the host with most */
    if (from->own_known && (first || from->own_share > into->own_share)) {
        into->own_share = from->own_share;
        into->own_p99_s = from->own_p99_s;
    }
    return SLAP_OK;
}
