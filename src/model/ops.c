/* The request types: their names, and what each one reads, writes and needs. */
#include "slap/model/ops.h"

#include <stddef.h>
#include <string.h>

/* Names here; classes and needs (on the request path) as bit sets in ops.h. */
#define OP_NAMES(name, title)                                                                      \
    {                                                                                              \
        name, sizeof(name) - 1, title                                                              \
    }
static const struct {
    const char *name;
    size_t len; /* of name */
    const char *title;
} ops[OP_COUNT] = {
    [OP_GET] = OP_NAMES("get", "Get"),
    [OP_SET] = OP_NAMES("set", "Set"),
    [OP_GETS] = OP_NAMES("gets", "Gets"),
    [OP_GAT] = OP_NAMES("gat", "Gat"),
    [OP_TOUCH] = OP_NAMES("touch", "Touch"),
    [OP_ADD] = OP_NAMES("add", "Add"),
    [OP_REPLACE] = OP_NAMES("replace", "Replace"),
    [OP_APPEND] = OP_NAMES("append", "Append"),
    [OP_PREPEND] = OP_NAMES("prepend", "Prepend"),
    [OP_CAS] = OP_NAMES("cas", "Cas"),
    [OP_DELETE] = OP_NAMES("delete", "Delete"),
    [OP_INCR] = OP_NAMES("incr", "Incr"),
    [OP_DECR] = OP_NAMES("decr", "Decr"),
};
#undef OP_NAMES

const char *op_name(enum op_type op)
{
    return op < OP_COUNT ? ops[op].name : "?";
}

size_t op_name_len(enum op_type op)
{
    return op < OP_COUNT ? ops[op].len : 1;
}

const char *op_title(enum op_type op)
{
    return op < OP_COUNT ? ops[op].title : "?";
}

enum op_type op_by_name(const char *name, size_t len)
{
    for (int op = 0; op < OP_COUNT; op++) {
        if (ops[op].len == len && memcmp(ops[op].name, name, len) == 0) {
            return (enum op_type)op;
        }
    }
    return OP_COUNT;
}

bool op_is_arithmetic(enum op_type op)
{
    return op == OP_INCR || op == OP_DECR;
}
