/* A finished run kept in the store: its document as --json writes it, then its row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/quote.h"
#include "slap/base/version.h"
#include "slap/output/results_json.h"
#include "slap/store/store.h"

static enum slap_status json_period(void *arg, struct results_period *p)
{
    results_json_period(arg, p);
    return SLAP_OK;
}

/* The document's JSON into *text (malloc'd), *len bytes. */
static enum slap_status document_text(const struct results_sink_input *in, char **text, size_t *len,
                                      char *err, size_t err_len)
{
    struct results_json_stream js;
    FILE *f = open_memstream(text, len);
    enum slap_status st = SLAP_OK;
    if (f == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    results_json_begin(&js, f, in->doc);
    if (in->walk != NULL) {
        st = in->walk(in->walk_src, json_period, &js, err, err_len);
    } else {
        const struct results_period *p = in->doc->periods.items;
        for (size_t i = 0; i < in->doc->periods.n; i++) {
            results_json_period(&js, &p[i]);
        }
    }
    results_json_end(&js);
    if (fclose(f) != 0 || st != SLAP_OK) {
        free(*text);
        *text = NULL;
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status store_save(const char *location, const struct results_sink_input *in,
                            const char *kind, FILE *msg, const char *program)
{
    char err[1024] = "", shown[STORE_LOCATION_SHOWN];
    char *text = NULL;
    size_t len = 0;
    struct store *s = NULL;
    int64_t id;
    bool already;
    struct store_put_info info = {kind, NULL, 0, RESULTS_SCHEMA, "slap " SLAP_VERSION};
    enum slap_status st = document_text(in, &text, &len, err, sizeof(err));
    if (st == SLAP_OK) {
        info.text = text;
        info.len = len;
        st = store_open(&s, location, true, err, sizeof(err));
    }
    if (st == SLAP_OK) {
        st = store_put(s, in->doc, &info, &id, &already, err, sizeof(err));
    }
    store_close(s);
    free(text);
    if (st != SLAP_OK) {
        char line[2048], prefix[STORE_LOCATION_SHOWN + 64];
        store_location_shown(shown, sizeof(shown), location);
        snprintf(prefix, sizeof(prefix), "%s: --store %s: ", program, shown);
        snprintf(line, sizeof(line),
                 "%s; the run is not stored (the report and the other "
                 "outputs are written)",
                 err);
        quote_line(msg, prefix, line);
    }
    return st;
}
