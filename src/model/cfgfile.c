/* Size distributions and memaslap's -F config file: parsing, checking, normalising, sampling. */
#include "slap/model/cfgfile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/base/quote.h"
#include "slap/base/units.h"
#include "slap/model/keys.h"

#if defined(__GNUC__)
#define CFG_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define CFG_PRINTF(fmt, first)
#endif

#define VALUE_SIZE_MIN 1u
#define VALUE_SIZE_MAX (1024u * 1024u)
#define CFG_FILE_MAX (1024 * 1024)    /* bytes cfgfile_load accepts */
#define NUMBER_MAX 64                 /* longest number text we read, NUL included */
#define QUOTE_MAX 40                  /* bytes of a bad token shown in a message */
#define QUOTE_BUF (QUOTE_MAX * 4 + 6) /* a token quoted, each byte \xNN at worst, "..." */
#define LINE_FIELDS_MAX 8             /* fields kept of one line; the rest are only counted */
#define SIZE_KUNIT 1024               /* k = 1024 bytes, m = 1048576 */
#define RULE_MIN 3                    /* "---" and longer: a rule line of the manual's sample */
#define CMD_SET 0                     /* memaslap's cmd types */
#define CMD_GET 1

/* The sections of a -F file, in the order cfg_section_names lists them. */
enum cfg_section {
    SECTION_NONE = -1,
    SECTION_KEY,
    SECTION_VALUE,
    SECTION_CMD,
    SECTION_COUNT,
};

static const char *const cfg_section_names[SECTION_COUNT] = {"key", "value", "cmd"};

/* One line cut into whitespace-separated fields, the comment left out. */
struct line_fields {
    const char *text[LINE_FIELDS_MAX];
    size_t len[LINE_FIELDS_MAX];
    size_t count;     /* every field, even those past LINE_FIELDS_MAX */
    bool has_comment; /* a '#' on the line */
    bool has_digit;   /* a digit before the '#' */
};

/* What cfgfile_parse carries from one line to the next. */
struct cfg_parser {
    const char *name;                  /* file name for messages */
    size_t line_no;                    /* 1-based number of the current line */
    enum cfg_section section;          /* the section lines go to */
    size_t header_line[SECTION_COUNT]; /* line of each section's header; 0: not seen */
    size_t rows;                       /* data lines in the current section */
    bool after_comment;                /* the previous line held only a comment */
    bool groups;                       /* a "group NAME" line was met: the rest is cfggroups' */
    size_t cmd_line[OP_COUNT];         /* line of each cmd TYPE; 0: not given */
    double cmd_share[OP_COUNT];        /* shares of each op as given */
    struct cfg_file cfg;               /* built here, copied out on success */
    char *err;
    size_t err_len;
};

/* ---- numbers and messages ---- */

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* Cut blanks from both ends of [*s, *s + *len). */
static void trim(const char **s, size_t *len)
{
    while (*len > 0 && is_blank(**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len > 0 && is_blank((*s)[*len - 1])) {
        (*len)--;
    }
}

/* A token made safe for a message: quoted, at most QUOTE_MAX bytes, by quote.h's rule. */
static const char *quote(const char *s, size_t len, char buf[QUOTE_BUF])
{
    char *at = buf;
    quote_put(&at, buf + QUOTE_BUF, s, len, QUOTE_MAX, '\'');
    *at = '\0';
    return buf;
}

/* A finite decimal number ("0.3", "1e-2", "-1"): no hex, "nan", "inf" or trailing text. */
static bool parse_number(const char *s, size_t len, double *number)
{
    char text[NUMBER_MAX];
    if (len == 0 || len >= sizeof(text)) {
        return false;
    }
    memcpy(text, s, len);
    text[len] = '\0';
    if (strspn(text, "0123456789.eE+-") != len) {
        return false;
    }
    char *end;
    double value = strtod(text, &end);
    if (end != text + len || !isfinite(value)) {
        return false;
    }
    *number = value;
    return true;
}

/* ---- distributions ---- */

/* Cumulative shares from the given ones; SLAP_ERROR unless they add up to a finite sum > 0. */
static enum slap_status dist_normalise(struct size_dist *d)
{
    double sum = 0.0;
    for (uint32_t i = 0; i < d->n; i++) {
        sum += d->r[i].prop;
    }
    if (d->n == 0 || !(sum > 0.0) || !isfinite(sum)) {
        return SLAP_ERROR;
    }
    double running = 0.0; /* the same additions in the same order: ends exactly at sum */
    for (uint32_t i = 0; i < d->n; i++) {
        running += d->r[i].prop;
        d->r[i].cumul = running / sum;
    }
    d->r[d->n - 1].cumul = 1.0;
    return SLAP_OK;
}

/* ---- size_dist_parse ---- */

/* One size of a list, blanks around it cut: UNITS_OUT_OF_RANGE when it is not in [lo, hi]. */
static enum units_status list_size(const char *s, size_t len, uint32_t lo, uint32_t hi,
                                   uint64_t *size)
{
    trim(&s, &len);
    enum units_status status = units_parse_size(s, len, SIZE_KUNIT, size);
    if (status == UNITS_TOO_LARGE || (status == UNITS_OK && (*size < lo || *size > hi))) {
        return UNITS_OUT_OF_RANGE;
    }
    return status;
}

/* "SIZE" or "MIN-MAX" within [lo, hi]; on error a message naming the part. */
static enum slap_status parse_size_range(const char *s, size_t len, uint32_t lo, uint32_t hi,
                                         struct size_range *r, char *err, size_t err_len)
{
    char shown[QUOTE_BUF];
    const char *dash = memchr(s, '-', len);
    const char *min_text = s;
    size_t min_len = dash != NULL ? (size_t)(dash - s) : len;
    const char *max_text = dash != NULL ? dash + 1 : s;
    size_t max_len = dash != NULL ? len - min_len - 1 : len;
    uint64_t min, max;
    enum units_status min_status = list_size(min_text, min_len, lo, hi, &min);
    enum units_status max_status = list_size(max_text, max_len, lo, hi, &max);
    if ((min_status != UNITS_OK && min_status != UNITS_OUT_OF_RANGE) ||
        (max_status != UNITS_OK && max_status != UNITS_OUT_OF_RANGE)) {
        snprintf(err, err_len, "%s: sizes are whole bytes, with k or m", quote(s, len, shown));
        return SLAP_ERROR;
    }
    if (min_status != UNITS_OK || max_status != UNITS_OK) {
        snprintf(err, err_len, "%s: sizes must lie in %u..%u", quote(s, len, shown), lo, hi);
        return SLAP_ERROR;
    }
    if (min > max) {
        snprintf(err, err_len, "%s: %llu is more than %llu", quote(s, len, shown),
                 (unsigned long long)min, (unsigned long long)max);
        return SLAP_ERROR;
    }
    r->min = (uint32_t)min;
    r->max = (uint32_t)max;
    return SLAP_OK;
}

/* One part "RANGE[:SHARE]" of a list of parts parts, appended to d. */
static enum slap_status parse_dist_part(const char *s, size_t len, size_t parts, uint32_t lo,
                                        uint32_t hi, struct size_dist *d, char *err, size_t err_len)
{
    char shown[QUOTE_BUF];
    trim(&s, &len);
    if (len == 0) {
        snprintf(err, err_len, "part %u of the size list is empty", d->n + 1);
        return SLAP_ERROR;
    }
    const char *colon = memchr(s, ':', len);
    size_t range_len = colon != NULL ? (size_t)(colon - s) : len;
    struct size_range *r = &d->r[d->n];
    if (parse_size_range(s, range_len, lo, hi, r, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    r->prop = 1.0;
    if (colon == NULL && parts > 1) {
        snprintf(err, err_len, "%s: a list needs a share on every part (MIN-MAX:SHARE)",
                 quote(s, len, shown));
        return SLAP_ERROR;
    }
    if (colon != NULL) {
        const char *share = colon + 1;
        size_t share_len = len - range_len - 1;
        trim(&share, &share_len);
        if (!parse_number(share, share_len, &r->prop) || !(r->prop > 0.0)) {
            snprintf(err, err_len, "%s: the share must be a number above 0", quote(s, len, shown));
            return SLAP_ERROR;
        }
    }
    d->n++;
    return SLAP_OK;
}

/* ---- laws by name ---- */

/* Facebook's ETC pool (Atikoglu et al., "Workload Analysis of a Large-Scale Key-Value Store",
 * SIGMETRICS 2012), as mutilate's fb_key and fb_value give it: key sizes a generalized extreme
 * value law; values of 0 to 14 bytes by a table (0 is sent as 1: slap's least value), the rest
 * a generalized Pareto law from 15 bytes. */
static const double etc_key[3] = {30.7984, 8.20449, 0.078688};
static const double etc_value_tail[3] = {15, 214.476, 0.348238};
static const double etc_value_head[15] = {0.00536, 0.00047, 0.17820, 0.09239, 0.00018,
                                          0.02740, 0.00065, 0.00606, 0.00023, 0.00837,
                                          0.00837, 0.08989, 0.00092, 0.00326, 0.01980};

static void preset_etc(uint32_t lo, uint32_t hi, struct size_dist *d)
{
    if (lo == KEY_LAYOUT_SIZE_MIN) {
        d->n = 1;
        d->r[0] = (struct size_range){.min = lo, .max = hi, .prop = 1, .law = SIZE_LAW_GEV};
        memcpy(d->r[0].p, etc_key, sizeof(etc_key));
        return;
    }
    double tail = 1.0;
    for (uint32_t size = 0; size < SLAP_ARRAY_SIZE(etc_value_head); size++) {
        uint32_t at = size < lo ? lo : size;
        tail -= etc_value_head[size];
        if (d->n > 0 && d->r[d->n - 1].min == at) {
            d->r[d->n - 1].prop += etc_value_head[size];
            continue;
        }
        d->r[d->n++] = (struct size_range){.min = at, .max = at, .prop = etc_value_head[size]};
    }
    d->r[d->n] = (struct size_range){.min = 15, .max = hi, .prop = tail, .law = SIZE_LAW_GPARETO};
    memcpy(d->r[d->n].p, etc_value_tail, sizeof(etc_value_tail));
    d->n++;
}

/* The row of the law named by text's first name_len bytes, or NULL. */
static const struct size_law_row *law_row(const char *text, size_t name_len)
{
    for (size_t k = 0; k < size_law_row_count; k++) {
        const struct size_law_row *row = &size_law_rows[k];
        if (strlen(row->name) == name_len && strncmp(row->name, text, name_len) == 0) {
            return row;
        }
    }
    return NULL;
}

/* ":P1,P2,..." after a law's name: exactly want numbers into p. */
static bool law_numbers(const char *at, unsigned want, double p[3])
{
    unsigned n = 0;
    while ((n == 0 && *at == ':') || (n > 0 && *at == ',')) {
        const char *start = at + 1;
        size_t plen = strcspn(start, ",");
        if (n == 3 || !parse_number(start, plen, &p[n])) {
            return false;
        }
        n++;
        at = start + plen;
    }
    return *at == '\0' && n == want;
}

/* The range r of a law by its row's rules: sizes whole bytes in [lo, hi], the least first, or
 * the parameters that must be above 0 so; any other finite number is the law's own. */
static enum slap_status law_range(const struct size_law_row *row, const double p[3], uint32_t lo,
                                  uint32_t hi, struct size_range *r, char *err, size_t err_len,
                                  const char *shown)
{
    *r = (struct size_range){.min = lo, .max = hi, .prop = 1, .law = row->law};
    memcpy(r->p, p, sizeof(r->p));
    if (row->sizes) { /* uniform:MIN,MAX and fixed:SIZE */
        double min = p[0], max = row->params > 1 ? p[1] : p[0];
        if (min != floor(min) || max != floor(max) || min < lo || max > hi || min > max) {
            snprintf(err, err_len, "%s: sizes must be whole bytes in %u..%u, the least first",
                     shown, lo, hi);
            return SLAP_ERROR;
        }
        r->min = (uint32_t)min;
        r->max = (uint32_t)max;
        return SLAP_OK;
    }
    for (unsigned i = 0; i < row->params; i++) {
        if (row->positive[i] && !(p[i] > 0)) {
            snprintf(err, err_len, "%s: the %s must be above 0", shown, row->param_names[i]);
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* "NAME:P1,P2,...": a law of sizes by name, its draws clamped to [lo, hi]; or a preset. */
static enum slap_status parse_law(const char *text, uint32_t lo, uint32_t hi, struct size_dist *d,
                                  char *err, size_t err_len)
{
    char shown[QUOTE_BUF];
    size_t len = strlen(text);
    if (len >= SIZE_DIST_NAME) {
        snprintf(err, err_len, "%s: longer than %d bytes", quote(text, len, shown),
                 SIZE_DIST_NAME - 1);
        return SLAP_ERROR;
    }
    memcpy(d->name, text, len + 1);
    if (strcmp(text, SIZE_DIST_ETC) == 0) {
        preset_etc(lo, hi, d);
        return dist_normalise(d);
    }
    size_t name_len = strcspn(text, ":");
    const struct size_law_row *row = law_row(text, name_len);
    quote(text, len, shown);
    if (row == NULL) {
        char names[128];
        size_law_names(names, sizeof(names));
        snprintf(err, err_len, "%s is no law of sizes: %s, or the preset %s", shown, names,
                 SIZE_DIST_ETC);
        return SLAP_ERROR;
    }
    double p[3] = {0, 0, 0};
    if (!law_numbers(text + name_len, row->params, p)) {
        snprintf(err, err_len, "%s: %s takes %u number%s after the colon, with commas between",
                 shown, row->name, row->params, row->params > 1 ? "s" : "");
        return SLAP_ERROR;
    }
    d->n = 1;
    if (law_range(row, p, lo, hi, &d->r[0], err, err_len, shown) != SLAP_OK) {
        return SLAP_ERROR;
    }
    return dist_normalise(d);
}

enum slap_status size_dist_parse(const char *text, uint32_t lo, uint32_t hi, struct size_dist *d,
                                 char *err, size_t err_len)
{
    if ((text[0] >= 'a' && text[0] <= 'z') || (text[0] >= 'A' && text[0] <= 'Z')) {
        struct size_dist named;
        memset(&named, 0, sizeof(named));
        if (parse_law(text, lo, hi, &named, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
        *d = named;
        return SLAP_OK;
    }
    struct size_dist parsed;
    size_t parts = 1;
    memset(&parsed, 0, sizeof(parsed));
    for (const char *p = text; *p != '\0'; p++) {
        parts += *p == ',';
    }
    if (parts > SIZE_DIST_MAX) {
        snprintf(err, err_len, "more than %d ranges in the size list", SIZE_DIST_MAX);
        return SLAP_ERROR;
    }
    const char *part = text;
    for (;;) {
        const char *comma = strchr(part, ',');
        size_t len = comma != NULL ? (size_t)(comma - part) : strlen(part);
        if (parse_dist_part(part, len, parts, lo, hi, &parsed, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
        if (comma == NULL) {
            break;
        }
        part = comma + 1;
    }
    if (dist_normalise(&parsed) != SLAP_OK) {
        snprintf(err, err_len, "the shares of the size list add up to too much");
        return SLAP_ERROR;
    }
    *d = parsed;
    return SLAP_OK;
}

/* ---- the -F file: lines ---- */

/* Cut a line into fields up to the first '#'. */
static void split_line(const char *line, size_t len, struct line_fields *f)
{
    size_t i = 0;
    memset(f, 0, sizeof(*f));
    while (i < len && line[i] != '#') {
        if (is_blank(line[i])) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < len && !is_blank(line[i]) && line[i] != '#') {
            f->has_digit |= is_digit(line[i]);
            i++;
        }
        if (f->count < LINE_FIELDS_MAX) {
            f->text[f->count] = line + start;
            f->len[f->count] = i - start;
        }
        f->count++;
    }
    f->has_comment = i < len;
}

/* A lone "-----" like the one above the manual's sample: it says nothing. */
static bool is_rule(const struct line_fields *f)
{
    if (f->count != 1 || f->len[0] < RULE_MIN) {
        return false;
    }
    for (size_t i = 0; i < f->len[0]; i++) {
        if (f->text[0][i] != '-' && f->text[0][i] != '=') {
            return false;
        }
    }
    return true;
}

static bool starts_number(const struct line_fields *f)
{
    char ch = f->text[0][0];
    return is_digit(ch) || ch == '.' || ch == '+' || ch == '-';
}

/* The section a header word names ("key", "Value", "cmd:"), or SECTION_NONE. */
static enum cfg_section section_named(const char *word, size_t len)
{
    if (len > 0 && word[len - 1] == ':') {
        len--;
    }
    for (int s = 0; s < SECTION_COUNT; s++) {
        if (strlen(cfg_section_names[s]) == len &&
            strncasecmp(word, cfg_section_names[s], len) == 0) {
            return (enum cfg_section)s;
        }
    }
    return SECTION_NONE;
}

/* ---- the -F file: sections ---- */

CFG_PRINTF(3, 4)
static enum slap_status parse_fail(struct cfg_parser *p, size_t line, const char *fmt, ...)
{
    if (p->err == NULL || p->err_len == 0) {
        return SLAP_ERROR;
    }
    char shown[QUOTE_PATH_BUF];
    int used = snprintf(p->err, p->err_len, "%s:%zu: ", quote_name(shown, p->name), line);
    if (used >= 0 && (size_t)used < p->err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + used, p->err_len - (size_t)used, fmt, ap);
        va_end(ap);
    }
    return SLAP_ERROR;
}

/* Field i of a key or value line: a size within [lo, hi]. */
static enum slap_status read_line_size(struct cfg_parser *p, const struct line_fields *f, int i,
                                       uint32_t lo, uint32_t hi, uint64_t *size)
{
    const char *what = cfg_section_names[p->section];
    char shown[QUOTE_BUF];
    enum units_status status = units_parse_size(f->text[i], f->len[i], SIZE_KUNIT, size);
    if (status == UNITS_TOO_LARGE) {
        return parse_fail(p, p->line_no, "%s size %s is too large (outside %u..%u)", what,
                          quote(f->text[i], f->len[i], shown), lo, hi);
    }
    if (status != UNITS_OK) {
        return parse_fail(p, p->line_no, "%s size %s is not a whole number of bytes", what,
                          quote(f->text[i], f->len[i], shown));
    }
    if (*size < lo || *size > hi) {
        return parse_fail(p, p->line_no, "%s size %s is outside %u..%u", what,
                          quote(f->text[i], f->len[i], shown), lo, hi);
    }
    return SLAP_OK;
}

/* "MIN MAX SHARE" of a key or value section, sizes within [lo, hi]. */
static enum slap_status add_size_line(struct cfg_parser *p, struct size_dist *d, uint32_t lo,
                                      uint32_t hi, const struct line_fields *f)
{
    const char *what = cfg_section_names[p->section];
    char shown[QUOTE_BUF];
    uint64_t size[2];
    if (f->count != 3) {
        return parse_fail(p, p->line_no, "a %s line has 3 fields, MIN MAX SHARE, not %zu", what,
                          f->count);
    }
    if (read_line_size(p, f, 0, lo, hi, &size[0]) != SLAP_OK ||
        read_line_size(p, f, 1, lo, hi, &size[1]) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (size[0] > size[1]) {
        return parse_fail(p, p->line_no, "MIN %llu is larger than MAX %llu",
                          (unsigned long long)size[0], (unsigned long long)size[1]);
    }
    double share;
    if (!parse_number(f->text[2], f->len[2], &share) || !(share > 0.0)) {
        return parse_fail(p, p->line_no, "share %s is not a number above 0",
                          quote(f->text[2], f->len[2], shown));
    }
    if (d->n == SIZE_DIST_MAX) {
        return parse_fail(p, p->line_no, "more than %d %s ranges", SIZE_DIST_MAX, what);
    }
    d->r[d->n++] =
        (struct size_range){.min = (uint32_t)size[0], .max = (uint32_t)size[1], .prop = share};
    return SLAP_OK;
}

/* A cmd line's TYPE: memaslap's 0 (set) or 1 (get), or an operation's name. */
static enum op_type cmd_type(const char *text, size_t len)
{
    double type;
    if (parse_number(text, len, &type)) {
        return type == CMD_SET ? OP_SET : type == CMD_GET ? OP_GET : OP_COUNT;
    }
    return op_by_name(text, len);
}

/* "TYPE SHARE" of the cmd section: TYPE 0 (set), 1 (get) or a name, each at most once. */
static enum slap_status add_cmd_line(struct cfg_parser *p, const struct line_fields *f)
{
    char shown[QUOTE_BUF];
    double share;
    if (f->count != 2) {
        return parse_fail(p, p->line_no, "a cmd line has 2 fields, TYPE SHARE, not %zu", f->count);
    }
    enum op_type t = cmd_type(f->text[0], f->len[0]);
    if (t == OP_COUNT) {
        return parse_fail(p, p->line_no,
                          "cmd type %s is not 0 (set), 1 (get) or a command: get, gets, gat, "
                          "touch, set, add, replace, append, prepend, cas, delete, incr, decr",
                          quote(f->text[0], f->len[0], shown));
    }
    if (p->cmd_line[t] != 0) {
        return parse_fail(p, p->line_no, "cmd type %s is given twice (first at line %zu)",
                          op_name(t), p->cmd_line[t]);
    }
    if (!parse_number(f->text[1], f->len[1], &share) || share < 0.0) {
        return parse_fail(p, p->line_no, "share %s is not a number of 0 or more",
                          quote(f->text[1], f->len[1], shown));
    }
    p->cmd_line[t] = p->line_no;
    p->cmd_share[t] = share;
    return SLAP_OK;
}

/* A line of numbers: goes to the open section. */
static enum slap_status add_data_line(struct cfg_parser *p, const struct line_fields *f)
{
    switch (p->section) {
    case SECTION_KEY:
        return add_size_line(p, &p->cfg.key, KEY_LAYOUT_SIZE_MIN, KEY_LAYOUT_SIZE_MAX, f);
    case SECTION_VALUE:
        return add_size_line(p, &p->cfg.value, VALUE_SIZE_MIN, VALUE_SIZE_MAX, f);
    case SECTION_CMD:
        return add_cmd_line(p, f);
    default:
        return parse_fail(p, p->line_no,
                          "a line outside any section: put key, value or cmd "
                          "on a line before it");
    }
}

/* The ops' shares, normalised so that they add up to 1. */
static enum slap_status close_cmd(struct cfg_parser *p, size_t header)
{
    double sum = 0.0;
    for (int op = 0; op < OP_COUNT; op++) {
        sum += p->cmd_share[op];
    }
    if (!(sum > 0.0) || !isfinite(sum)) {
        return parse_fail(p, header, "the cmd shares must add up to a number above 0");
    }
    for (int op = 0; op < OP_COUNT; op++) {
        p->cfg.mix[op] = p->cmd_share[op] / sum;
    }
    p->cfg.has_cmd = true;
    return SLAP_OK;
}

/* The end of the open section: it must hold a line; its shares are normalised. */
static enum slap_status close_section(struct cfg_parser *p)
{
    if (p->section == SECTION_NONE) {
        return SLAP_OK;
    }
    size_t header = p->header_line[p->section];
    const char *what = cfg_section_names[p->section];
    if (p->rows == 0) {
        return parse_fail(p, header, "the %s section is empty", what);
    }
    if (p->section == SECTION_CMD) {
        return close_cmd(p, header);
    }
    struct size_dist *d = p->section == SECTION_KEY ? &p->cfg.key : &p->cfg.value;
    if (dist_normalise(d) != SLAP_OK) {
        return parse_fail(p, header, "the %s shares add up to too much", what);
    }
    *(p->section == SECTION_KEY ? &p->cfg.has_key : &p->cfg.has_value) = true;
    return SLAP_OK;
}

/* A header line: "key", "value" or "cmd", with words but no numbers after it. */
static enum slap_status open_section(struct cfg_parser *p, enum cfg_section s,
                                     const struct line_fields *f)
{
    const char *what = cfg_section_names[s];
    if (f->has_digit) {
        return parse_fail(p, p->line_no, "numbers after '%s': they go on the lines below it", what);
    }
    if (close_section(p) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (p->header_line[s] != 0) {
        return parse_fail(p, p->line_no, "the %s section is repeated (first at line %zu)", what,
                          p->header_line[s]);
    }
    p->header_line[s] = p->line_no;
    p->section = s;
    p->rows = 0;
    return SLAP_OK;
}

/* A line whose first word is "group" as cfggroups.c splits words: followed by a blank or the
 * line's end ("group#x" is no group there, so none here either). */
static bool group_header(const char *line, size_t len, const struct line_fields *f)
{
    size_t after = (size_t)(f->text[0] - line) + 5;
    return f->len[0] == 5 && strncasecmp(f->text[0], "group", 5) == 0 &&
           (after == len || is_blank(line[after]));
}

/* The first "group NAME": the file is one of groups (cfggroups.c reads them), which holds no
 * memaslap section. */
static enum slap_status open_groups(struct cfg_parser *p)
{
    for (int s = 0; s < SECTION_COUNT; s++) {
        if (p->header_line[s] != 0) {
            return parse_fail(p, p->line_no,
                              "a file of groups holds only groups: the %s section at line %zu "
                              "goes in a file of its own, given to a group with -F",
                              cfg_section_names[s], p->header_line[s]);
        }
    }
    p->groups = true;
    p->cfg.has_groups = true;
    return SLAP_OK;
}

/*
 * One line. Blank lines, comments and a "-----" rule say nothing; so does a line of
 * words without digits right after a comment: the manual's sample wraps two comments
 * that way ("#proportion: ... accounts for the total" / "generated keys").
 */
static enum slap_status parse_line(struct cfg_parser *p, const char *line, size_t len)
{
    struct line_fields f;
    split_line(line, len, &f);
    bool after_comment = p->after_comment;
    p->after_comment = f.count == 0 && f.has_comment;
    if (f.count == 0 || is_rule(&f)) {
        return SLAP_OK;
    }
    if (starts_number(&f)) {
        p->rows++;
        return add_data_line(p, &f);
    }
    if (group_header(line, len, &f)) {
        return open_groups(p);
    }
    enum cfg_section s = section_named(f.text[0], f.len[0]);
    if (s != SECTION_NONE) {
        return open_section(p, s, &f);
    }
    if (p->section == SECTION_CMD && f.has_digit) {
        p->rows++; /* "get 0.7": a command by name */
        return add_cmd_line(p, &f);
    }
    if (after_comment && f.count > 1 && !f.has_digit) {
        p->after_comment = true;
        return SLAP_OK;
    }
    char shown[QUOTE_BUF];
    return parse_fail(p, p->line_no, "unknown section %s: sections are key, value and cmd",
                      quote(f.text[0], f.len[0], shown));
}

enum slap_status cfgfile_parse(const char *text, size_t len, const char *name, struct cfg_file *cfg,
                               char *err, size_t err_len)
{
    struct cfg_parser p = {.name = name != NULL ? name : "config",
                           .section = SECTION_NONE,
                           .err = err,
                           .err_len = err_len};
    size_t start = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
        start = 3; /* a UTF-8 byte order mark from a Windows editor */
    }
    while (start < len && !p.groups) {
        const char *newline = memchr(text + start, '\n', len - start);
        size_t end = newline != NULL ? (size_t)(newline - text) : len;
        p.line_no++;
        if (parse_line(&p, text + start, end - start) != SLAP_OK) {
            return SLAP_ERROR;
        }
        start = end + 1;
    }
    if (close_section(&p) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (!p.cfg.has_key && !p.cfg.has_value && !p.cfg.has_cmd && !p.groups) {
        return parse_fail(&p, p.line_no > 0 ? p.line_no : 1, "no key, value or cmd section");
    }
    *cfg = p.cfg;
    return SLAP_OK;
}

/* ---- cfgfile_load ---- */

/* Up to cap bytes of fd into buf; SLAP_ERROR with errno set when it cannot be read. */
static enum slap_status read_whole(int fd, char *buf, size_t cap, size_t *len)
{
    *len = 0;
    while (*len < cap) {
        ssize_t got = read(fd, buf + *len, cap - *len);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return got == 0 ? SLAP_OK : SLAP_ERROR;
        }
        *len += (size_t)got;
    }
    return SLAP_OK;
}

enum slap_status cfgfile_read(const char *path, char **text, size_t *len, char *err, size_t err_len)
{
    struct stat st;
    char *buf = malloc(CFG_FILE_MAX + 1);
    /* not blocking in open: a FIFO no one writes to is opened at once, read empty */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    const char *why = NULL;
    char larger[48];
    *text = NULL;
    *len = 0;
    if (buf == NULL || fd < 0 || fstat(fd, &st) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
        read_whole(fd, buf, CFG_FILE_MAX + 1, len) != SLAP_OK) {
        why = strerror(buf == NULL ? ENOMEM : errno);
    } else if (*len > CFG_FILE_MAX) {
        snprintf(larger, sizeof(larger), "larger than %d bytes", CFG_FILE_MAX);
        why = larger;
    } else if (*len == 0 && S_ISFIFO(st.st_mode)) {
        why = "a pipe with nothing written to it (no writer, or it was read already)";
    }
    if (fd >= 0) {
        close(fd);
    }
    if (why != NULL) {
        char shown[QUOTE_PATH_BUF];
        snprintf(err, err_len, "cannot read %s: %s", quote_name(shown, path), why);
        free(buf);
        return SLAP_ERROR;
    }
    *text = buf;
    return SLAP_OK;
}

enum slap_status cfgfile_load(const char *path, struct cfg_file *cfg, char *err, size_t err_len)
{
    char *text;
    size_t len;
    if (cfgfile_read(path, &text, &len, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    enum slap_status rc = cfgfile_parse(text, len, path, cfg, err, err_len);
    free(text);
    return rc;
}
