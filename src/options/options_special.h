/*
 * slap's special option rows (options_special.c): the handler that reads each value and the
 * show that says it back, named by the rows of slap's table (options.c). Internal to those two.
 */
#ifndef SLAP_OPTIONS_SPECIAL_H
#define SLAP_OPTIONS_SPECIAL_H

#include <stddef.h>
#include <stdint.h>

#include "options_table.h"

/* Seconds with up to nine decimals, trailing zeros dropped: "2", "0.2", "0.000001"; none for 0. */
enum option_value options_seconds_value(uint64_t ns, char *buf, size_t len);
/* The text as it is; none for NULL. */
enum option_value options_text_value(const char *text, char *buf, size_t len);

enum options_outcome options_apply_servers(struct parse_state *st, const char *arg);
enum options_outcome options_apply_binary(struct parse_state *st, const char *arg);
enum options_outcome options_apply_key_size(struct parse_state *st, const char *arg);
enum options_outcome options_apply_value_size(struct parse_state *st, const char *arg);
/* SET:GET, two shares not both 0, normalised into the mix. */
enum options_outcome options_apply_ratio(struct parse_state *st, const char *arg);
/* OP=SHARE,...: any operations, shares normalised into the mix. */
enum options_outcome options_apply_mix(struct parse_state *st, const char *arg);
/* A duration, in whole seconds as memcached's expiry times are. */
enum options_outcome options_apply_exp_time(struct parse_state *st, const char *arg);
/* keydist.c reads the popularity's syntax. */
enum options_outcome options_apply_key_dist(struct parse_state *st, const char *arg);
/* keydist.c reads OP:LAW,...; the checks across options are in options_check.c. */
enum options_outcome options_apply_key_pattern(struct parse_state *st, const char *arg);
enum options_outcome options_apply_tls_version(struct parse_state *st, const char *arg);
enum options_outcome options_apply_arrival(struct parse_state *st, const char *arg);
enum options_outcome options_apply_ycsb(struct parse_state *st, const char *arg);
/* An increasing list of at most SLAP_MAX_PERCENTILES percentiles. */
enum options_outcome options_apply_percentiles(struct parse_state *st, const char *arg);
/* START:END:STEP, three rates of k=1000, at most 1000 steps. */
enum options_outcome options_apply_sweep(struct parse_state *st, const char *arg);
enum options_outcome options_apply_ramp(struct parse_state *st, const char *arg);
/* An instant: epoch seconds or RFC 3339, not more than a second past. */
enum options_outcome options_apply_start_at(struct parse_state *st, const char *arg);
enum options_outcome options_apply_share(struct parse_state *st, const char *arg);
/* N (k=1000) errors, or P% of the requests. */
enum options_outcome options_apply_max_errors(struct parse_state *st, const char *arg);
/* A positive number, or max (0: as fast as the answers come). */
enum options_outcome options_apply_trace_speed(struct parse_state *st, const char *arg);

/* How the special rows say their value back (option_show), each beside its handler's row. */
enum option_value options_show_servers(const struct slap_options *o, char *buf, size_t len);
/* --store as results files show it: a URL's password as "***" (never written anywhere). */
enum option_value options_show_store(const struct slap_options *o, char *buf, size_t len);
/* true when the protocol is binary, whether -B or --protocol set it. */
enum option_value options_show_binary(const struct slap_options *o, char *buf, size_t len);
/* -X: the one value length used, or none when --value_size or -F gave several. */
enum option_value options_show_fixed_size(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_key_size(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_value_size(const struct slap_options *o, char *buf, size_t len);
/* A mix of gets and sets alone; --mix says any other. */
enum option_value options_show_ratio(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_mix(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_exp_time(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_key_dist(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_key_pattern(const struct slap_options *o, char *buf, size_t len);
/* --key_min, --key_max: the number when either was given, else none. */
enum option_value options_show_key_min(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_key_max(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_tls_version(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_arrival(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_ycsb(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_percentiles(const struct slap_options *o, char *buf, size_t len);
/* P=W%: run until percentile P's 95% interval is within W% of it. */
enum options_outcome options_apply_precision(struct parse_state *st, const char *arg);
enum option_value options_show_precision(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_sweep(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_ramp(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_start_at(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_share(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_max_errors(const struct slap_options *o, char *buf, size_t len);
enum option_value options_show_trace_speed(const struct slap_options *o, char *buf, size_t len);

#endif
