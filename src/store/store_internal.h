/* What the store's files share: the store itself. */
#ifndef SLAP_STORE_INTERNAL_H
#define SLAP_STORE_INTERNAL_H

#include <stdbool.h>

#include "db.h"

struct store {
    struct db *db;
    bool postgres;
};

#endif
