/* The request types: their names, and what each one reads, writes and needs. */
#include "slap/ops.h"

#include <stddef.h>
#include <string.h>

static const struct {
    const char *name;
    const char *title;
    enum op_class class;
    bool needs_stored;
} ops[OP_COUNT] = {
    [OP_GET] = {"get", "Get", OP_CLASS_RETRIEVAL, true},
    [OP_SET] = {"set", "Set", OP_CLASS_STORAGE, false},
    [OP_GETS] = {"gets", "Gets", OP_CLASS_RETRIEVAL, true},
    [OP_GAT] = {"gat", "Gat", OP_CLASS_RETRIEVAL, true},
    [OP_TOUCH] = {"touch", "Touch", OP_CLASS_OTHER, true},
    [OP_ADD] = {"add", "Add", OP_CLASS_STORAGE, false},
    [OP_REPLACE] = {"replace", "Replace", OP_CLASS_STORAGE, true},
    [OP_APPEND] = {"append", "Append", OP_CLASS_STORAGE, true},
    [OP_PREPEND] = {"prepend", "Prepend", OP_CLASS_STORAGE, true},
    [OP_CAS] = {"cas", "Cas", OP_CLASS_STORAGE, true},
    [OP_DELETE] = {"delete", "Delete", OP_CLASS_OTHER, true},
    [OP_INCR] = {"incr", "Incr", OP_CLASS_OTHER, false},
    [OP_DECR] = {"decr", "Decr", OP_CLASS_OTHER, false},
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

enum op_class op_class(enum op_type op)
{
    return ops[op].class;
}

bool op_needs_stored_key(enum op_type op)
{
    return ops[op].needs_stored;
}

bool op_is_arithmetic(enum op_type op)
{
    return op == OP_INCR || op == OP_DECR;
}
