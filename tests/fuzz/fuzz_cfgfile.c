/* libFuzzer target: the -F parsers (memaslap sections, groups) and size_dist_parse stay in
 * bounds and keep their promises. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/model/cfgfile.h"
#include "slap/model/cfggroups.h"

#define ERR_LEN 256
#define KEY_LO 16u
#define KEY_HI 250u
#define VALUE_LO 1u
#define VALUE_HI (1024u * 1024u)
#define TOKEN_LEN_MAX 8     /* longest entry of fuzz_tokens */
#define GROUP_WORDS_MAX 256 /* words of one group (cfggroups.c) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Pieces of -F files and size lists around their limits: a byte picks one (see render). */
static const char *const fuzz_tokens[] = {
    "key",     "value",   "cmd",    "\n",
    "\r\n",    " ",       "\t",     "#",
    ":",       ",",       "-",      "k",
    "m",       "0",       "1",      "1.0",
    "0.5",     "2",       "15",     "16",
    "250",     "251",     "1024",   "2048",
    "1048576", "1048577", "1e308",  "nan",
    "-1",      "0.1",     "0.9",    "4096",
    "---",     "group",   "group ", "-c",
    "-t",      "--",      "_",      ".",
    "#x",      "\v",      "GROUP",  "\xef\xbb\xbf", /* a byte order mark */
};

static void check(int ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

/* A message was written, NUL-terminated inside err, and is one line. */
static void check_message(const char *err)
{
    size_t len = strnlen(err, ERR_LEN);
    check(len > 0 && len < ERR_LEN);
    check(strchr(err, '\n') == NULL);
}

/* Ranges within [lo, hi] and ordered; cumul non-decreasing, ending at exactly 1; samples inside. */
static void check_dist(const struct size_dist *d, uint32_t lo, uint32_t hi, uint64_t u)
{
    double below = 0.0;
    check(d->n >= 1 && d->n <= SIZE_DIST_MAX);
    for (uint32_t i = 0; i < d->n; i++) {
        const struct size_range *r = &d->r[i];
        check(r->min >= lo && r->min <= r->max && r->max <= hi);
        check(r->prop > 0.0 && isfinite(r->prop));
        check(r->cumul >= below && r->cumul <= 1.0);
        below = r->cumul;
    }
    check(d->r[d->n - 1].cumul == 1.0);
    uint64_t probes[] = {0, UINT64_MAX, u, u * 0x9e3779b97f4a7c15ull, ~u};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(probes); i++) {
        uint32_t s = size_dist_sample(d, probes[i]);
        check(s >= lo && s <= size_dist_max(d));
    }
    double mean = size_dist_mean(d); /* a sum of rounded products: allow for the rounding */
    check(mean >= lo * (1.0 - 1e-9) && mean <= size_dist_max(d) * (1.0 + 1e-9));
}

/* What a parser made of a file: refused, or a file of groups or of sections. */
enum fuzz_outcome { FUZZ_REFUSED, FUZZ_GROUPS, FUZZ_SECTIONS };

static enum fuzz_outcome fuzz_cfgfile(const uint8_t *data, size_t size, uint64_t u)
{
    struct cfg_file cfg;
    char err[ERR_LEN] = "";
    /* an exact-size copy, so reading past len is caught */
    char *text = malloc(size > 0 ? size : 1);
    check(text != NULL);
    memcpy(text, data, size);
    if (cfgfile_parse(text, size, "fuzz.cnf", &cfg, err, sizeof(err)) != SLAP_OK) {
        check_message(err);
        check(strncmp(err, "'fuzz.cnf':", 11) == 0); /* the file named, quoted */
        free(text);
        return FUZZ_REFUSED;
    }
    free(text);
    if (cfg.has_groups) { /* the rest is cfggroups': no section before */
        check(!cfg.has_key && !cfg.has_value && !cfg.has_cmd);
        return FUZZ_GROUPS;
    }
    check(cfg.has_key || cfg.has_value || cfg.has_cmd);
    if (cfg.has_key) {
        check_dist(&cfg.key, KEY_LO, KEY_HI, u);
    }
    if (cfg.has_value) {
        check_dist(&cfg.value, VALUE_LO, VALUE_HI, u);
    }
    if (cfg.has_cmd) {
        double sum = 0.0; /* the shares of every command, normalised */
        for (int op = 0; op < OP_COUNT; op++) {
            check(cfg.mix[op] >= 0.0 && cfg.mix[op] <= 1.0);
            sum += cfg.mix[op];
        }
        check(fabs(sum - 1.0) < 1e-9);
    }
    return FUZZ_SECTIONS;
}

static bool group_name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '_' || ch == '-';
}

/* A word as split: not empty, no blank, no newline, not a comment. */
static void check_word(const struct cfg_word *w, size_t after_line, size_t before_line)
{
    size_t len = strlen(w->text);
    check(len > 0 && w->text[0] != '#');
    check(strpbrk(w->text, " \t\r\v\f\n") == NULL);
    check(w->line > after_line && w->line < before_line);
}

/* Groups in the order of their lines, each named once, each with at most 256 words. */
static void check_groups(const struct cfg_groups *g)
{
    check(g->n <= CFG_GROUPS_MAX);
    for (size_t i = 0; i < g->n; i++) {
        const struct cfg_group *grp = &g->items[i];
        size_t len = strnlen(grp->name, CFG_GROUP_NAME);
        size_t next_line = i + 1 < g->n ? g->items[i + 1].line : SIZE_MAX;
        check(len > 0 && len < CFG_GROUP_NAME);
        for (size_t k = 0; k < len; k++) {
            check(group_name_char(grp->name[k]));
        }
        for (size_t k = 0; k < i; k++) {
            check(strcmp(g->items[k].name, grp->name) != 0);
        }
        check(grp->line >= 1 && grp->line < next_line);
        check(grp->nwords >= 1 && grp->nwords <= GROUP_WORDS_MAX && grp->words != NULL);
        for (size_t k = 0; k < grp->nwords; k++) {
            check(k == 0 || grp->words[k].line >= grp->words[k - 1].line);
            check_word(&grp->words[k], grp->line, next_line);
        }
    }
}

static enum fuzz_outcome fuzz_cfggroups(const uint8_t *data, size_t size)
{
    enum fuzz_outcome outcome = FUZZ_REFUSED;
    struct cfg_groups *g = malloc(sizeof(*g));
    char err[ERR_LEN] = "";
    char *text = malloc(size > 0 ? size : 1); /* exact size: reads past len are caught */
    check(g != NULL && text != NULL);
    memcpy(text, data, size);
    if (cfggroups_parse(text, size, "fuzz.cnf", g, err, sizeof(err)) == SLAP_OK) {
        check_groups(g);
        outcome = g->n > 0 ? FUZZ_GROUPS : FUZZ_SECTIONS;
    } else {
        check_message(err);
        check(strncmp(err, "'fuzz.cnf':", 11) == 0); /* the file named, quoted */
        check(g->n == 0);                            /* a refusal leaves nothing to free */
    }
    cfggroups_free(g);
    check(g->n == 0);
    free(text);
    free(g);
    return outcome;
}

/* The two readers of a -F file agree on whether it is one of groups: one that finds groups
 * where the other finds none would run the file's groups as one run, or not at all. A refusal
 * by either is a message, which is enough. */
static void fuzz_file(const uint8_t *data, size_t size, uint64_t u)
{
    enum fuzz_outcome sections = fuzz_cfgfile(data, size, u);
    enum fuzz_outcome groups = fuzz_cfggroups(data, size);
    check(sections == FUZZ_REFUSED || groups == FUZZ_REFUSED || sections == groups);
}

static void fuzz_size_dist(const uint8_t *data, size_t size, uint64_t u)
{
    struct size_dist d;
    char err[ERR_LEN] = "";
    char *text = malloc(size + 1);
    check(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';
    uint32_t lo = size > 0 && (data[0] & 1) ? KEY_LO : VALUE_LO;
    uint32_t hi = lo == KEY_LO ? KEY_HI : VALUE_HI;
    if (size_dist_parse(text, lo, hi, &d, err, sizeof(err)) == SLAP_OK) {
        check_dist(&d, lo, hi, u);
    } else {
        check_message(err);
    }
    free(text);
}

/* The input read as tokens: a byte below the table's size picks a token, others stand as is. */
static size_t render(const uint8_t *data, size_t size, char *out)
{
    size_t len = 0;
    for (size_t i = 0; i < size; i++) {
        if (data[i] < SLAP_ARRAY_SIZE(fuzz_tokens)) {
            size_t n = strlen(fuzz_tokens[data[i]]);
            memcpy(out + len, fuzz_tokens[data[i]], n);
            len += n;
        } else {
            out[len++] = (char)data[i];
        }
    }
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t u = 0;
    memcpy(&u, data, size < sizeof(u) ? size : sizeof(u));
    fuzz_file(data, size, u);
    fuzz_size_dist(data, size, u);

    char *text = malloc(size * TOKEN_LEN_MAX + 1);
    check(text != NULL);
    size_t len = render(data, size, text);
    fuzz_file((const uint8_t *)text, len, u);
    fuzz_size_dist((const uint8_t *)text, len, u);
    free(text);
    return 0;
}
