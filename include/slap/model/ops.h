/* The request types: their names, and what each one reads, writes and needs. */
#ifndef SLAP_OPS_H
#define SLAP_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* memaslap's two first, in its order (the report's Get and Set tables), then the others. */
enum op_type {
    OP_GET = 0,
    OP_SET = 1,
    OP_GETS, /* get with the cas token */
    OP_GAT,  /* get and touch */
    OP_TOUCH,
    OP_ADD,     /* store if absent */
    OP_REPLACE, /* store if present */
    OP_APPEND,
    OP_PREPEND,
    OP_CAS, /* store if unchanged since the client's gets */
    OP_DELETE,
    OP_INCR,
    OP_DECR,
    OP_COUNT,
};

/* What an operation is, for the workload and the counters. */
enum op_class {
    OP_CLASS_RETRIEVAL, /* get, gets, gat: keys and values come back */
    OP_CLASS_STORAGE,   /* set, add, replace, append, prepend, cas: a value goes */
    OP_CLASS_OTHER,     /* touch, delete, incr, decr */
};

/* "get", "set", "gets", ...: the names in --mix and -F files. */
const char *op_name(enum op_type op);
/* strlen(op_name(op)), without counting (the codecs write the name per request). */
size_t op_name_len(enum op_type op);
/* "Get", "Set", "Gets", ...: the names of report tables. */
const char *op_title(enum op_type op);
/* The op named name (len bytes), or OP_COUNT when there is none. */
enum op_type op_by_name(const char *name, size_t len);
/* incr, decr: on the client's counter keys, which hold numbers. */
bool op_is_arithmetic(enum op_type op);

/* A bit per op, for sets of ops. */
static inline uint32_t op_bit(enum op_type op)
{
    return 1u << (unsigned)op;
}

/* The classes and needs as sets of ops: asked several times a request, so inline. */
#define OP_RETRIEVAL_OPS ((1u << OP_GET) | (1u << OP_GETS) | (1u << OP_GAT))
#define OP_STORAGE_OPS                                                                             \
    ((1u << OP_SET) | (1u << OP_ADD) | (1u << OP_REPLACE) | (1u << OP_APPEND) |                    \
     (1u << OP_PREPEND) | (1u << OP_CAS))
#define OP_NEEDS_STORED_OPS                                                                        \
    (OP_RETRIEVAL_OPS | (1u << OP_TOUCH) | (1u << OP_REPLACE) | (1u << OP_APPEND) |                \
     (1u << OP_PREPEND) | (1u << OP_CAS) | (1u << OP_DELETE))

static inline enum op_class op_class(enum op_type op)
{
    uint32_t bit = op_bit(op);
    return (bit & OP_RETRIEVAL_OPS) ? OP_CLASS_RETRIEVAL
           : (bit & OP_STORAGE_OPS) ? OP_CLASS_STORAGE
                                    : OP_CLASS_OTHER;
}

/* Does it act on a key the client has already stored (rather than one it writes afresh)? */
static inline bool op_needs_stored_key(enum op_type op)
{
    return (op_bit(op) & OP_NEEDS_STORED_OPS) != 0;
}

#endif
