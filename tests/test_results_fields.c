/* Unit tests of the results fields' tables: every member the writer emits is a row of its
 * object's table; a file of each version reads by its rows' since; the schema file describes
 * every row (the round trip of a document of every object is test_results'). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/json.h"
#include "slap/output/results.h"
#include "slap/output/results_read.h"

#include "results_doc.h"
#include "results_fields.h"

/* ---- a JSON tree edited and written back ------------------------------------------------ */

static void put_string(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
        } else {
            fputc(c, out);
        }
    }
    fputc('"', out);
}

static void put_value(FILE *out, const struct json_value *v)
{
    static const char *const words[] = {
        [JSON_NULL] = "null", [JSON_FALSE] = "false", [JSON_TRUE] = "true"};
    switch (v->type) {
    case JSON_NULL:
    case JSON_FALSE:
    case JSON_TRUE:
        fputs(words[v->type], out);
        break;
    case JSON_NUMBER:
        fputs(v->text, out);
        break;
    case JSON_STRING:
        put_string(out, v->text, v->len);
        break;
    case JSON_ARRAY:
    case JSON_OBJECT:
        fputc(v->type == JSON_ARRAY ? '[' : '{', out);
        for (size_t i = 0; i < v->n; i++) {
            fputs(i > 0 ? ",\n" : "\n", out);
            if (v->type == JSON_OBJECT) {
                put_string(out, v->keys[i], strlen(v->keys[i]));
                fputc(':', out);
            }
            put_value(out, v->items[i]);
        }
        fputc(v->type == JSON_ARRAY ? ']' : '}', out);
        break;
    }
}

static char *tree_text(const struct json_value *root)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    put_value(out, root);
    fclose(out);
    return text;
}

static struct json_value *tree_of(const char *text)
{
    struct json_value *root = NULL;
    char err[256];
    if (json_parse(text, strlen(text), &root, err, sizeof(err)) != SLAP_OK) {
        fail_msg("%s", err);
    }
    return root;
}

/* The index of obj's member name. */
static size_t member_index(const struct json_value *obj, const char *name)
{
    for (size_t i = 0; i < obj->n; i++) {
        if (strcmp(obj->keys[i], name) == 0) {
            return i;
        }
    }
    fail_msg("no member %s", name);
    return 0;
}

/* ---- walking a document by its tables --------------------------------------------------- */

/* What a walk does at each member of each object: obj is the instance, f its row. */
typedef void (*member_visit)(void *arg, struct json_value *root, struct json_value *obj,
                             const struct results_object *o, const struct results_field *f);

static void walk_object(struct json_value *root, struct json_value *obj,
                        const struct results_object *o, member_visit visit, void *arg);

/* The instances of f's object under value v (an object, each element, or each member). */
static void walk_into(struct json_value *root, struct json_value *v, const struct results_field *f,
                      member_visit visit, void *arg)
{
    const struct results_object *of = f->of != NULL ? results_object_find(f->of) : NULL;
    if (f->of != NULL && of == NULL) {
        fail_msg("%s names no table %s", f->name, f->of);
    }
    if (of == NULL || v->type == JSON_NULL) {
        return;
    }
    if (v->type == JSON_OBJECT && (f->flags & RF_MAP) == 0) {
        walk_object(root, v, of, visit, arg);
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        walk_object(root, v->items[i], of, visit, arg);
    }
}

static void walk_object(struct json_value *root, struct json_value *obj,
                        const struct results_object *o, member_visit visit, void *arg)
{
    for (size_t i = 0; i < obj->n; i++) {
        const struct results_field *f = results_field_find(o, obj->keys[i]);
        if (f == NULL) {
            fail_msg("%s: member %s written, no row in its table", o->name, obj->keys[i]);
        }
        visit(arg, root, obj, o, f);
        walk_into(root, obj->items[i], f, visit, arg);
    }
}

/* Each table and row met, for the tests that want each once. */
struct met {
    const struct results_object *o;
    const struct results_field *f;
};
struct met_list {
    struct met seen[512];
    size_t n;
};

static bool met_before(struct met_list *m, const struct results_object *o,
                       const struct results_field *f)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->seen[i].o == o && m->seen[i].f == f) {
            return true;
        }
    }
    assert_true(m->n < SLAP_ARRAY_SIZE(m->seen));
    m->seen[m->n++] = (struct met){o, f};
    return false;
}

static void note_met(void *arg, struct json_value *root, struct json_value *obj,
                     const struct results_object *o, const struct results_field *f)
{
    (void)root;
    (void)obj;
    met_before(arg, o, f);
}

/* Every field is of a version slap writes: since from 1 to RESULTS_SCHEMA (a field added for
 * the next version raises RESULTS_SCHEMA with it; old_results_generation_of_today then asks
 * for that version's fixtures). */
static void test_since_within_schema(void **state)
{
    (void)state;
    for (size_t i = 0; i < results_nobjects; i++) {
        const struct results_object *o = results_objects[i];
        for (size_t j = 0; j < o->n; j++) {
            unsigned since = o->fields[j].since;
            if (since < 1 || since > RESULTS_SCHEMA) {
                fail_msg("%s.%s: since %u, outside 1 to RESULTS_SCHEMA (%d)", o->name,
                         o->fields[j].name, since, RESULTS_SCHEMA);
            }
        }
    }
}

/* Every member the writer emits is a row of its object's table, and the documents of every
 * object hold every row (what the tests below rely on to cover them all). */
static void test_every_member_in_its_table(void **state)
{
    (void)state;
    char *texts[2];
    struct met_list *met = calloc(1, sizeof(*met));
    assert_non_null(met);
    every_object_texts(&texts[0], &texts[1], true);
    for (int i = 0; i < 2; i++) {
        struct json_value *root = tree_of(texts[i]);
        walk_object(root, root, &results_obj_top, note_met, met);
        json_free(root);
        free(texts[i]);
    }
    for (size_t i = 0; i < results_nobjects; i++) {
        const struct results_object *o = results_objects[i];
        for (size_t j = 0; j < o->n; j++) {
            if (!met_before(met, o, &o->fields[j])) {
                fail_msg("%s.%s: in no test document", o->name, o->fields[j].name);
            }
        }
    }
    free(met);
}

/* results_parse of text: its status, and err. */
static enum slap_status parse(const char *text, char *err, size_t err_len)
{
    struct results_doc back;
    enum slap_status st = results_parse(text, strlen(text), read_test_config, &back, err, err_len);
    results_doc_free(&back);
    return st;
}

/* The root's "schema" set to version (one digit). */
static void set_schema(struct json_value *root, char version)
{
    struct json_value *v = root->items[member_index(root, "schema")];
    assert_int_equal(v->len, 1);
    v->text[0] = version;
}

/* f dropped from obj (its first instance met): a file of schema 1 without a field since 2
 * reads; one of schema 2 without a field due in it is refused naming it, and so is one of
 * schema 1 without a field since 1. */
static void drop_and_read(void *arg, struct json_value *root, struct json_value *obj,
                          const struct results_object *o, const struct results_field *f)
{
    char err[512] = "";
    if (met_before(arg, o, f)) {
        return;
    }
    if (f == results_field_find(&results_obj_top, "schema")) {
        struct json_value *schema = root->items[0];
        root->items[0] = NULL; /* dropped: n - 1 members from the second */
        root->items++, root->keys++, root->n--;
        char *text = tree_text(root);
        root->items--, root->keys--, root->n++;
        root->items[0] = schema;
        if (parse(text, err, sizeof(err)) != SLAP_ERROR || strstr(err, "schema") == NULL) {
            fail_msg("without its schema: '%s'", err);
        }
        free(text);
        return;
    }
    size_t k = member_index(obj, f->name);
    struct json_value *value = obj->items[k];
    char *key = obj->keys[k];
    memmove(&obj->items[k], &obj->items[k + 1], (obj->n - k - 1) * sizeof(*obj->items));
    memmove(&obj->keys[k], &obj->keys[k + 1], (obj->n - k - 1) * sizeof(*obj->keys));
    obj->n--;
    bool due = (f->flags & RF_SOMETIMES) == 0;
    for (char version = '1'; version <= '2'; version++) {
        set_schema(root, version);
        char *text = tree_text(root);
        enum slap_status st = parse(text, err, sizeof(err));
        free(text);
        bool younger = (unsigned)(version - '0') < f->since;
        /* schema 1 without a type's net_bytes takes 1d77c31's counters (the fixtures') */
        if (younger && strcmp(f->name, "net_bytes") == 0) {
            continue;
        }
        if (younger && st != SLAP_OK) {
            fail_msg("schema %c without %s.%s (since %u) refused: %s", version, o->name, f->name,
                     f->since, err);
        }
        if (!younger && due && (st != SLAP_ERROR || strstr(err, f->name) == NULL)) {
            fail_msg("schema %c without %s.%s (since %u): '%s'", version, o->name, f->name,
                     f->since, st == SLAP_OK ? "read" : err);
        }
    }
    set_schema(root, '2');
    obj->n++;
    memmove(&obj->items[k + 1], &obj->items[k], (obj->n - k - 1) * sizeof(*obj->items));
    memmove(&obj->keys[k + 1], &obj->keys[k], (obj->n - k - 1) * sizeof(*obj->keys));
    obj->items[k] = value;
    obj->keys[k] = key;
}

/* Each field of each object dropped in turn from documents the writer wrote, labelled each
 * version: read or refused by its row's since. */
static void test_fields_by_version(void **state)
{
    (void)state;
    char *texts[2];
    struct met_list *met = calloc(1, sizeof(*met));
    assert_non_null(met);
    every_object_texts(&texts[0], &texts[1], false);
    for (int i = 0; i < 2; i++) {
        char err[512] = "";
        if (parse(texts[i], err, sizeof(err)) != SLAP_OK) {
            fail_msg("document %d as written: %s", i, err);
        }
        struct json_value *root = tree_of(texts[i]);
        walk_object(root, root, &results_obj_top, drop_and_read, met);
        json_free(root);
        free(texts[i]);
    }
    free(met);
}

/* ---- the schema file against the tables -------------------------------------------------- */

enum { T_NULL = 1, T_BOOL = 2, T_INT = 4, T_NUM = 8, T_TEXT = 16, T_OBJECT = 32, T_ARRAY = 64 };

static const struct json_value *schema_at(const struct json_value *root, const char *path);

/* node with its "$ref"s followed (the schema's own, "#/..."). */
static const struct json_value *deref(const struct json_value *root, const struct json_value *node)
{
    const char *ref = json_to_string(json_get(node, "$ref"));
    for (int hops = 0; ref != NULL && hops < 8; hops++) {
        assert_true(ref[0] == '#');
        node = schema_at(root, ref + 1);
        ref = json_to_string(json_get(node, "$ref"));
    }
    return node;
}

/* The schema's node at path ("/properties/limits/..."), each step's "$ref" followed. */
static const struct json_value *schema_at(const struct json_value *root, const char *path)
{
    const struct json_value *node = root;
    char step[64];
    while (*path == '/') {
        size_t len = strcspn(path + 1, "/");
        assert_true(len < sizeof(step));
        memcpy(step, path + 1, len);
        step[len] = '\0';
        node = deref(root, json_get(node, step));
        if (node == NULL) {
            fail_msg("the schema has no %s", path);
        }
        path += len + 1;
    }
    return node;
}

static unsigned value_types(const struct json_value *v)
{
    uint64_t n;
    switch (v->type) {
    case JSON_NULL:
        return T_NULL;
    case JSON_FALSE:
    case JSON_TRUE:
        return T_BOOL;
    case JSON_NUMBER:
        return json_to_u64(v, &n) ? T_INT : T_NUM;
    case JSON_STRING:
        return T_TEXT;
    case JSON_ARRAY:
        return T_ARRAY;
    case JSON_OBJECT:
        return T_OBJECT;
    }
    return 0;
}

static unsigned type_word(const char *word)
{
    static const struct {
        const char *word;
        unsigned types;
    } words[] = {{"null", T_NULL},          {"boolean", T_BOOL}, {"integer", T_INT},
                 {"number", T_NUM | T_INT}, {"string", T_TEXT},  {"object", T_OBJECT},
                 {"array", T_ARRAY}};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(words); i++) {
        if (strcmp(words[i].word, word) == 0) {
            return words[i].types;
        }
    }
    fail_msg("schema type %s", word);
    return 0;
}

/* The JSON types a schema node allows ("type", "const", "enum", "anyOf"; none said: all). */
static unsigned schema_types(const struct json_value *root, const struct json_value *node)
{
    unsigned types = 0;
    node = deref(root, node);
    const struct json_value *type = json_get(node, "type");
    const struct json_value *any = json_get(node, "anyOf");
    const struct json_value *choices = json_get(node, "enum");
    if (type != NULL && type->type == JSON_STRING) {
        types |= type_word(type->text);
    }
    for (size_t i = 0; type != NULL && type->type == JSON_ARRAY && i < type->n; i++) {
        types |= type_word(type->items[i]->text);
    }
    for (size_t i = 0; any != NULL && i < any->n; i++) {
        types |= schema_types(root, any->items[i]);
    }
    for (size_t i = 0; choices != NULL && i < choices->n; i++) {
        types |= value_types(choices->items[i]);
    }
    if (json_get(node, "const") != NULL) {
        types |= value_types(json_get(node, "const"));
    }
    return types != 0 ? types : ~0u;
}

/* Is name in node's "required"? */
static bool schema_requires(const struct json_value *node, const char *name)
{
    const struct json_value *required = json_get(node, "required");
    for (size_t i = 0; required != NULL && i < required->n; i++) {
        if (strcmp(required->items[i]->text, name) == 0) {
            return true;
        }
    }
    return false;
}

/* One row against its place in the schema: there, of its type, null as the row; in "required"
 * when every document of RESULTS_SCHEMA holds it (neither RF_SOMETIMES nor RF_WHEN), in
 * "then"'s "required" (the object's "if" says the variant) when RF_WHEN. */
static void check_row(const struct json_value *root, const struct json_value *node,
                      const struct results_object *o, const struct results_field *f)
{
    static const unsigned wants[] = {
        [RF_COUNT] = T_INT, [RF_NUMBER] = T_NUM,    [RF_TEXT] = T_TEXT,
        [RF_BOOL] = T_BOOL, [RF_OBJECT] = T_OBJECT, [RF_ARRAY] = T_ARRAY};
    const struct json_value *prop = json_get(json_get(node, "properties"), f->name);
    const struct json_value *other = json_get(node, "additionalProperties");
    if (prop == NULL && other != NULL && other->type == JSON_OBJECT) {
        prop = other;
    }
    if (prop == NULL) {
        fail_msg("%s.%s: not in the schema (%s)", o->name, f->name, o->schema);
    }
    unsigned types = schema_types(root, prop);
    if ((types & wants[f->type]) == 0) {
        fail_msg("%s.%s: the schema's type is not the table's", o->name, f->name);
    }
    if (((types & T_NULL) != 0) != ((f->flags & RF_NULL) != 0) && types != ~0u) {
        fail_msg("%s.%s: null %s by the schema, %s by the table", o->name, f->name,
                 types & T_NULL ? "allowed" : "refused", f->flags & RF_NULL ? "allowed" : "not");
    }
    bool always = (f->flags & (RF_SOMETIMES | RF_WHEN)) == 0;
    if (schema_requires(node, f->name) != always) {
        fail_msg("%s.%s: %s by the schema, %s by the table", o->name, f->name,
                 always ? "not required" : "required", always ? "in every document" : "not");
    }
    /* a variant's rows: the schema's "if" (its note null) "then" requires them */
    bool variant = (f->flags & RF_WHEN) != 0;
    if (schema_requires(json_get(node, "then"), f->name) != variant) {
        fail_msg("%s.%s: %s by the schema's \"then\", %s by the table", o->name, f->name,
                 variant ? "not required" : "required", variant ? "in its variant" : "not");
    }
}

/* The schema file describes each table (at its object's place) and nothing more. */
/* The schema file's tree (json_free it). */
static struct json_value *schema_tree(void)
{
    FILE *in = fopen(SLAP_SCHEMA_FILE, "r");
    assert_non_null(in);
    char *text = NULL;
    size_t cap = 0;
    ssize_t len = getdelim(&text, &cap, '\0', in);
    fclose(in);
    assert_true(len > 0);
    struct json_value *root = tree_of(text);
    free(text);
    return root;
}

static void test_schema_matches_tables(void **state)
{
    (void)state;
    struct json_value *root = schema_tree();
    for (size_t i = 0; i < results_nobjects; i++) {
        const struct results_object *o = results_objects[i];
        const struct json_value *node = schema_at(root, o->schema);
        for (size_t j = 0; j < o->n; j++) {
            check_row(root, node, o, &o->fields[j]);
        }
        const struct json_value *props = json_get(node, "properties");
        for (size_t j = 0; props != NULL && j < props->n; j++) {
            if (results_field_find(o, props->keys[j]) == NULL) {
                fail_msg("%s: the schema's %s is no row of its table", o->name, props->keys[j]);
            }
        }
        const struct json_value *required = json_get(node, "required");
        for (size_t j = 0; required != NULL && j < required->n; j++) {
            if (results_field_find(o, required->items[j]->text) == NULL) {
                fail_msg("%s: the schema requires %s, no row of its table", o->name,
                         required->items[j]->text);
            }
        }
    }
    json_free(root);
}

/* The schema's verdicts are limits.h's rows, in their order, and a word's room is theirs. */
static void test_schema_verdicts(void **state)
{
    (void)state;
    struct json_value *root = schema_tree();
    const struct json_value *words = json_get(schema_at(root, "/$defs/verdict"), "enum");
    assert_non_null(words);
    assert_int_equal(words->n, LIMITS_VERDICTS);
    for (int v = 0; v < LIMITS_VERDICTS; v++) {
        const char *word = json_to_string(words->items[v]);
        assert_non_null(word);
        assert_string_equal(word, limits_verdict_name((enum limits_verdict)v));
    }
    const struct json_value *room =
        schema_at(root, "/properties/runs/items/properties/limited_by/maxLength");
    assert_non_null(room);
    assert_int_equal((int)strtol(room->text, NULL, 10), LIMITS_VERDICT_WORD_MAX - 1);
    json_free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_since_within_schema),
        cmocka_unit_test(test_every_member_in_its_table),
        cmocka_unit_test(test_fields_by_version),
        cmocka_unit_test(test_schema_matches_tables),
        cmocka_unit_test(test_schema_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
