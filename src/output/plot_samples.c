/* A --samples file read once for slap plot's scatter: every line checked, the points thinned
 * evenly as they come, so a pipe is read as a file is and no file is held whole. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "slap/base/quote.h"
#include "slap/model/samples.h"
#include "slap/model/stats.h"
#include "slap/output/plot.h"

#define LINE_MAX_BYTES 256 /* a sample line is far shorter */

enum line_status { LINE_OK, LINE_END, LINE_TOO_LONG, LINE_CONTROL };

/* The next line of in (without its '\n') into buf; a control byte or a line of LINE_MAX_BYTES
 * stops the read (a stream of NULs is no samples file). */
static enum line_status read_line(FILE *in, char *buf, int *control)
{
    size_t len = 0;
    int c;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (c < 0x20 && c != '\t' && c != '\r') {
            *control = c;
            return LINE_CONTROL;
        }
        if (len + 1 == LINE_MAX_BYTES) {
            return LINE_TOO_LONG;
        }
        buf[len++] = (char)c;
    }
    buf[len] = '\0';
    return c == EOF && len == 0 ? LINE_END : LINE_OK;
}

/* Is name one of the table's (count names, name_of(i))? */
static bool known_name(const char *name, int count, const char *(*name_of)(int))
{
    for (int i = 0; i < count; i++) {
        if (strcmp(name, name_of(i)) == 0) {
            return true;
        }
    }
    return false;
}

static const char *type_name(int t)
{
    return stats_type_name(t);
}

/* One line as samples_drain writes it into *p: false when it is not. */
static bool sample_line(const char *line, struct plot_sample *p)
{
    char type[32], outcome[32], sent[40];
    int end = 0;
    if ((sscanf(line, "%lf,%39[^,],%lf,%31[^,],%31[^,\r]%n", &p->t, sent, &p->latency_us, type,
                outcome, &end) != 5 &&
         sscanf(line, "%lf,,%lf,%31[^,],%31[^,\r]%n", &p->t, &p->latency_us, type, outcome, &end) !=
             4) ||
        strspn(line + end, "\r") != strlen(line + end)) {
        return false;
    }
    if (!isfinite(p->t) || !isfinite(p->latency_us) || p->latency_us < 0 ||
        !known_name(type, STATS_TYPES, type_name) ||
        !known_name(outcome, SAMPLE_OUTCOMES, samples_outcome_name)) {
        return false;
    }
    p->failed = strcmp(outcome, "error") == 0 || strcmp(outcome, "unanswered") == 0 ||
                strcmp(outcome, "unsent") == 0;
    return true;
}

/* Every other point dropped, the stride doubled: the points stay evenly spread. */
static void thin(struct plot_samples *s)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->n; i += 2) {
        s->points[kept++] = s->points[i];
    }
    s->n = kept;
    s->stride *= 2;
}

/* Data line number line (from 0), read into p, kept when the stride takes it. */
static void keep_point(struct plot_samples *s, size_t line, const struct plot_sample *p)
{
    if (line % s->stride != 0) {
        return;
    }
    if (s->n == PLOT_MAX_SAMPLES) {
        thin(s);
        if (line % s->stride != 0) {
            return;
        }
    }
    s->points[s->n++] = *p;
}

/* Every line of in after the header checked and thinned into s: SLAP_ERROR with why. */
static enum slap_status read_points(FILE *in, struct plot_samples *s, char *why, size_t why_len)
{
    char line[LINE_MAX_BYTES];
    int control = 0;
    enum line_status st = read_line(in, line, &control);
    if (st == LINE_OK && strcmp(line, SAMPLES_HEADER) != 0) {
        snprintf(why, why_len, "line 1 is not the header slap writes (%s)", SAMPLES_HEADER);
        return SLAP_ERROR;
    }
    for (size_t n = 0; st == LINE_OK; n++) {
        struct plot_sample p;
        if ((st = read_line(in, line, &control)) != LINE_OK) {
            break;
        }
        if (!sample_line(line, &p)) {
            snprintf(why, why_len, "line %zu is not a sample (%s)", n + 2, SAMPLES_HEADER);
            return SLAP_ERROR;
        }
        keep_point(s, n, &p);
    }
    if (st == LINE_CONTROL || st == LINE_TOO_LONG) {
        snprintf(why, why_len,
                 st == LINE_CONTROL ? "a control byte (0x%02x): not a samples file"
                                    : "a line of %d bytes or more: not a samples "
                                      "file",
                 st == LINE_CONTROL ? control : LINE_MAX_BYTES);
        return SLAP_ERROR;
    }
    if (ferror(in)) {
        snprintf(why, why_len, "cannot read it: %s", strerror(errno));
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status plot_samples_read(const char *path, struct plot_samples *s, char *err,
                                   size_t err_len)
{
    char why[160] = "out of memory";
    struct stat st;
    bool found = stat(path, &st) == 0;
    FILE *in = NULL;
    enum slap_status status = SLAP_ERROR;
    *s = (struct plot_samples){.stride = 1, .points = calloc(PLOT_MAX_SAMPLES, sizeof(*s->points))};
    if (found && (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))) {
        snprintf(why, sizeof(why), "%s, not a samples file",
                 S_ISDIR(st.st_mode) ? "a directory" : "a socket");
    } else if ((in = fopen(path, "r")) == NULL) {
        snprintf(why, sizeof(why), "cannot read it: %s", strerror(errno));
    } else if (s->points != NULL) {
        status = read_points(in, s, why, sizeof(why));
    }
    if (in != NULL) {
        fclose(in);
    }
    if (status != SLAP_OK) {
        char shown[QUOTE_PATH_BUF];
        snprintf(err, err_len, "--samples %s: %s", quote_name(shown, path), why);
        plot_samples_free(s);
    }
    return status;
}

void plot_samples_free(struct plot_samples *s)
{
    free(s->points);
    *s = (struct plot_samples){.stride = 1};
}
