/* The outputs' description of a run: its texts and configuration entries, owned and copied. */
#include "slap/output/run_desc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/units.h"

enum slap_status run_desc_set_text(char **field, const char *text)
{
    char *copy = text != NULL ? strdup(text) : NULL;
    if (text != NULL && copy == NULL) {
        return SLAP_ERROR;
    }
    free(*field);
    *field = copy;
    return SLAP_OK;
}

void run_config_free(struct run_config *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->entries[i].value);
    }
    free(c->entries);
    memset(c, 0, sizeof(*c));
}

enum slap_status run_config_add(struct run_config *c, const char *name, enum run_config_kind kind,
                                unsigned flags, const char *value)
{
    if (c->n == c->cap) {
        size_t cap = c->cap > 0 ? 2 * c->cap : 64;
        struct run_config_entry *grown = realloc(c->entries, cap * sizeof(*grown));
        if (grown == NULL) {
            return SLAP_ERROR;
        }
        c->entries = grown;
        c->cap = cap;
    }
    char *copy = strdup(kind == RUN_CONFIG_NULL || value == NULL ? "" : value);
    if (copy == NULL) {
        return SLAP_ERROR;
    }
    c->entries[c->n++] = (struct run_config_entry){name, kind, flags, copy};
    return SLAP_OK;
}

const struct run_config_entry *run_config_find(const struct run_config *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++) {
        if (strcmp(c->entries[i].name, name) == 0) {
            return &c->entries[i];
        }
    }
    return NULL;
}

enum slap_status run_config_set(struct run_config *c, const char *name, enum run_config_kind kind,
                                const char *value)
{
    struct run_config_entry *e = (struct run_config_entry *)run_config_find(c, name);
    if (e == NULL) {
        return SLAP_OK;
    }
    if (run_desc_set_text(&e->value, kind == RUN_CONFIG_NULL || value == NULL ? "" : value) !=
        SLAP_OK) {
        return SLAP_ERROR;
    }
    e->kind = kind;
    return SLAP_OK;
}

void run_desc_free(struct run_desc *d)
{
#define RUN_DESC_FREE(field) free(d->field);
    RUN_DESC_TEXTS(RUN_DESC_FREE)
#undef RUN_DESC_FREE
    run_config_free(&d->config);
    memset(d, 0, sizeof(*d));
}

enum slap_status run_desc_copy(struct run_desc *dst, const struct run_desc *src)
{
    *dst = *src;
#define RUN_DESC_NONE(field) dst->field = NULL;
    RUN_DESC_TEXTS(RUN_DESC_NONE)
#undef RUN_DESC_NONE
    dst->config = (struct run_config){0};
    enum slap_status st = SLAP_OK;
#define RUN_DESC_COPY(field) st = st == SLAP_OK ? run_desc_set_text(&dst->field, src->field) : st;
    RUN_DESC_TEXTS(RUN_DESC_COPY)
#undef RUN_DESC_COPY
    for (size_t i = 0; st == SLAP_OK && i < src->config.n; i++) {
        const struct run_config_entry *e = &src->config.entries[i];
        st = run_config_add(&dst->config, e->name, e->kind, e->flags, e->value);
    }
    if (st != SLAP_OK) {
        run_desc_free(dst);
    }
    return st;
}

enum slap_status run_desc_set_mix(struct run_desc *d, const double mix[OP_COUNT])
{
    char text[OP_COUNT * 40] = "";
    for (int op = 0; op < OP_COUNT; op++) {
        d->mix[op] = mix[op];
        if (mix[op] > 0) {
            char share[32];
            size_t used = strlen(text);
            units_shortest(share, sizeof(share), mix[op]);
            snprintf(text + used, sizeof(text) - used, "%s%s=%s", used > 0 ? "," : "",
                     op_name((enum op_type)op), share);
        }
    }
    if (text[0] == '\0') {
        return SLAP_OK;
    }
    if (run_config_set(&d->config, "ratio", RUN_CONFIG_NULL, NULL) != SLAP_OK) {
        return SLAP_ERROR;
    }
    return run_config_set(&d->config, "mix", RUN_CONFIG_TEXT, text);
}
