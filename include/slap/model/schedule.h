/* Open-loop timing: when each request of a lane is meant to be sent (uniform or Poisson). */
#ifndef SLAP_SCHEDULE_H
#define SLAP_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/rng.h"
#include "slap/model/sizelaw.h"

enum arrival {
    ARRIVAL_UNIFORM = 0, /* evenly spaced */
    ARRIVAL_POISSON = 1, /* exponential gaps with the same mean */
    ARRIVAL_NORMAL,      /* normal gaps: the mean, and the shape times it as the deviation
                            (0 < shape <= ARRIVAL_NORMAL_CV_MAX), clamped at 0 */
    ARRIVAL_GEV,         /* generalized extreme value gaps of the shape, from 0 */
    ARRIVAL_GPARETO,     /* generalized Pareto gaps of the shape, from 0 */
};
#define ARRIVAL_KINDS (ARRIVAL_GPARETO + 1)

/* Normal gaps' largest deviation (as a share of the mean): the clamp at 0 then moves the mean
 * by 0.011% (0.12% of the gaps are clamped). */
#define ARRIVAL_NORMAL_CV_MAX 0.33
/* The heavy laws' shapes stop below this: from 0.5 the gaps' variance is infinite. */
#define ARRIVAL_SHAPE_MAX 0.5
/* The shape of the gaps of Facebook's ETC pool (mutilate's fb_ia: generalized Pareto with
 * shape 0.154971; its scale, 16.0292 us, is the rate's to set). */
#define ARRIVAL_ETC_SHAPE 0.154971

/*
 * --ramp FROM:TO/DURATION: a target rate going linearly from FROM to TO (requests per second,
 * all lanes together) over duration_ns, then staying at TO. duration_ns 0: no ramp. Its
 * cumulative target count from the start is
 *   L(t) = FROM t + (TO - FROM) t^2 / (2 D)   for t <= D,   L(D) + TO (t - D) after.
 */
struct ramp {
    double from;          /* >= 0 */
    double to;            /* > 0 */
    uint64_t duration_ns; /* D; 0: no ramp */
};

/* L(t): the requests the ramp means to have sent t seconds after its start (t >= 0). */
long double ramp_count(const struct ramp *r, long double t);
/* The inverse of ramp_count: the time in seconds by which count requests are due (count >= 0),
 * in closed form (no iteration), exact when FROM is 0 or FROM and TO nearly equal. */
long double ramp_time(const struct ramp *r, long double count);
/* The target rate over [t0, t1] seconds: (L(t1) - L(t0)) / (t1 - t0); the rate at t0 when the
 * span is empty. */
double ramp_rate_between(const struct ramp *r, double t0, double t1);
/* The ramp with both rates divided by parts (--share), for one of them. */
struct ramp ramp_share(const struct ramp *r, double parts);

/* --control: what a change of a running run's rate was. */
enum rate_action {
    RATE_SET,    /* a new target rate */
    RATE_PAUSE,  /* no new requests */
    RATE_RESUME, /* the rate before the pause again */
    RATE_STOP,   /* the run ends here */
};
#define RATE_ACTIONS (RATE_STOP + 1)
struct rate_change {
    double at_s; /* seconds into the measured part (< 0: during --warmup) */
    enum rate_action action;
    double tps; /* the target rate from then on, all lanes together (0: paused or closed loop) */
};
/* What a --control request made of the run. */
enum rate_outcome {
    RATE_DONE,     /* changed */
    RATE_CONFLICT, /* not in this state (a rate in a closed loop, a pause while paused, anything
                      once stopped or outside the run): the message says why */
    RATE_FULL,     /* the run has taken all the changes it keeps */
};
/* A running run as --control shows it. */
struct rate_state {
    bool open_loop; /* a rate can be set */
    bool running;   /* the go was given and the run has not ended */
    bool paused;
    bool stopped;     /* asked to stop (a signal, the control; not -t's end) */
    double tps;       /* the target rate now (a ramp's at this moment); 0: closed loop, paused */
    double elapsed_s; /* into the measured part */
    uint32_t changes; /* made so far */
};

/* The action's name, as the results and the control endpoint say it ("rate", "pause", ...). */
const char *rate_action_name(enum rate_action a);
/* The action of a name; false when none is called so. */
bool rate_action_parse(const char *name, enum rate_action *out);

/*
 * The target rate over [t0, t1] seconds of a run planned at tps (or along the ramp r, when its
 * duration_ns > 0) and changed n times (changes in time order; a stop changes nothing): the
 * requests it meant to send then over the span's length, or the rate at t0 when the span is
 * empty.
 */
double rate_plan_between(const struct ramp *r, double tps, const struct rate_change *changes,
                         size_t n, double t0, double t1);

/*
 * The laws --arrival takes, one row each: the parser reads them, and the tests walk every row
 * at the ends of its shapes. A shaped row takes NAME:SHAPE within [lo, hi] (each end in or out
 * of it, as lo_in and hi_in say), and why_lo and why_hi say why not past them (a results file
 * of an older slap may hold a shape up to hi_before, and is read); another stands
 * for one shape (etc's). Every shape accepted keeps the rate: the gaps' mean is 1 / rate.
 * The first row of an arrival is its name (arrival_text's); an unshaped row after an unshaped
 * one of the same arrival is another name for it (exponential).
 */
struct arrival_law {
    const char *name;
    enum arrival arrival;
    bool shaped;
    const char *shape_name; /* shaped: what messages call it, "SHAPE" */
    double shape;           /* not shaped: the shape it stands for */
    double lo, hi;
    bool lo_in, hi_in;
    const char *why_lo, *why_hi;
    double hi_before; /* above hi: the end, not in it, an older slap took (read back) */
};
extern const struct arrival_law arrival_laws[];
extern const size_t arrival_law_count;
/* The name of an arrival: its first row's. */
const char *arrival_name(enum arrival arrival);
/* The rows as messages list them, "uniform, poisson (or exponential), normal:CV, ... or etc",
 * into buf. */
void arrival_law_names(char *buf, size_t len);

/* The law of the gaps of mean 1 at q, in (0, 1): what a schedule of the law and shape draws,
 * times 1 / rate (gaps below 0 clamped to 0). */
double arrival_gap_quantile(enum arrival arrival, double shape, double q);

/* The arrival law as --arrival says it ("uniform", "poisson", "gpareto:0.154971") into buf. */
void arrival_text(char *buf, size_t len, enum arrival arrival, double shape);

/*
 * A schedule of intended send times for one lane at rate lane_rate (requests
 * per second). Uniform times are exact, with no drift: the k-th time is
 * first_ns + k * 1e9 / lane_rate rounded to the nearest ns, computed from k in
 * long double, not by adding rounded gaps. Poisson gaps are -ln(U) / lane_rate
 * with U uniform in (0, 1] from the lane's own generator (seeded: the same seed
 * gives the same times), summed in poisson_ns. Times are plain numbers: nothing
 * here reads a clock, and nothing allocates.
 */
struct schedule {
    enum arrival arrival;
    double rate;       /* requests per second for this lane: total_rate / lanes */
    uint64_t first_ns; /* uniform: time of request 0; Poisson: start_ns */
    uint64_t k;        /* requests scheduled so far (advanced past) */
    double poisson_ns; /* Poisson: offset of the next time from first_ns */
    uint64_t next_ns;  /* the next intended time, as schedule_peek returns it */
    struct rng rng;    /* Poisson: the lane's own generator */
    enum size_law law; /* normal, GEV, generalized Pareto: the law of gaps of mean 1 */
    double p[3];       /* and its parameters */
    /* A ramp (ramp.duration_ns > 0): times are ramp_time of an operational count, the law's
     * times at unit rate. Uniform: request k of lane i is due at count k * lanes + i, so the
     * lanes interleave; a random law adds gaps of mean lanes to op_count. */
    struct ramp ramp;
    uint32_t lanes;
    uint32_t lane_index;
    long double op_count; /* random laws: the operational count of the next time */
    double shape;         /* the law's shape, as schedule_init took it */
    /* --control: a new rate from switch_ns on (times before it keep the old one's); UINT64_MAX:
     * none pending. A rate of 0 (paused) intends no time until the next change. */
    uint64_t switch_ns;
    double switch_rate; /* all lanes together */
};

/*
 * total_rate > 0, lanes > 0, lane_index < lanes. For uniform arrivals,
 * lane_index / lanes staggers the lanes so that together they send evenly:
 * lane i starts i / total_rate after start (rounded to the ns once). Poisson
 * ignores lane_index: the first time is start_ns plus one random gap.
 */
void schedule_init(struct schedule *s, enum arrival arrival, double shape, double total_rate,
                   uint32_t lanes, uint32_t lane_index, uint64_t start_ns, uint64_t seed);
/* The same over a ramp (r->duration_ns > 0): the arrival law in operational time, each lane
 * 1 / lanes of the ramp's count, mapped through ramp_time. Uniform lanes stagger as above. */
void schedule_init_ramp(struct schedule *s, enum arrival arrival, double shape,
                        const struct ramp *r, uint32_t lanes, uint32_t lane_index,
                        uint64_t start_ns, uint64_t seed);
/* The next intended send time, without consuming it. */
uint64_t schedule_peek(const struct schedule *s);
/* Consume the next intended time (the request is sent or queued). */
void schedule_advance(struct schedule *s);
/*
 * Consume the times before end_ns, at most max of them, in a few steps whatever their number
 * (the requests a run's end leaves unsent, at -P 1g): how many. Uniform times are consumed
 * exactly; Poisson ones as many as the rate gives on average (rounded), the next time then
 * a random gap after end_ns.
 */
uint64_t schedule_skip(struct schedule *s, uint64_t end_ns, uint64_t max);

/*
 * --control: from at_ns on, the lane's times follow total_rate (all lanes together, spread as
 * schedule_init spreads them, from at_ns) in the same law, instead of the rate or ramp before;
 * times before at_ns stay as they were, so a lane behind its schedule still sends them, each
 * timed from its own intended time. total_rate 0: no time is intended from at_ns on (paused)
 * until the next change. A change before an earlier pending one replaces it.
 */
void schedule_retarget(struct schedule *s, uint64_t at_ns, double total_rate);

#endif
