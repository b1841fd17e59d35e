/* The request types: their names, and what each one reads, writes and needs. */
#include "slap/model/ops.h"

#include <stddef.h>
#include <string.h>

/* Names here; classes and needs (on the request path) as bit sets in ops.h. */
static const struct {
    const char *name;
    const char *title;
} ops[OP_COUNT] = {
    [OP_GET] = {"get", "Get"},
    [OP_SET] = {"set", "Set"},
    [OP_GETS] = {"gets", "Gets"},
    [OP_GAT] = {"gat", "Gat"},
    [OP_TOUCH] = {"touch", "Touch"},
    [OP_ADD] = {"add", "Add"},
    [OP_REPLACE] = {"replace", "Replace"},
    [OP_APPEND] = {"append", "Append"},
    [OP_PREPEND] = {"prepend", "Prepend"},
    [OP_CAS] = {"cas", "Cas"},
    [OP_DELETE] = {"delete", "Delete"},
    [OP_INCR] = {"incr", "Incr"},
    [OP_DECR] = {"decr", "Decr"},
};

const char *op_name(enum op_type op)
{
    return op < OP_COUNT ? ops[op].name : "?";
}

const char *op_title(enum op_type op)
{
    return op < OP_COUNT ? ops[op].title : "?";
}

enum op_type op_by_name(const char *name, size_t len)
{
    for (int op = 0; op < OP_COUNT; op++) {
        if (strlen(ops[op].name) == len && memcmp(ops[op].name, name, len) == 0) {
            return (enum op_type)op;
        }
    }
    return OP_COUNT;
}

bool op_is_arithmetic(enum op_type op)
{
    return op == OP_INCR || op == OP_DECR;
}
