/* Where a store is, as given and as shown: a PostgreSQL URL or a file, its password hidden. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/quote.h"
#include "slap/store/store.h"

bool store_is_postgres(const char *location)
{
    return strncmp(location, "postgresql://", 13) == 0 || strncmp(location, "postgres://", 11) == 0;
}

const char *store_location_problem(const char *location)
{
    if (location[0] == '\0') {
        return "an empty location: a file, or a postgresql:// URL";
    }
    if (strcmp(location, "-") == 0) {
        return "'-': a store is a file or a postgresql:// URL, not standard output";
    }
    return NULL;
}

void store_location_shown(char *buf, size_t len, const char *location)
{
    char hidden[2048], quoted[QUOTE_PATH_BUF];
    store_location_redacted(hidden, sizeof(hidden), location);
    snprintf(buf, len, "%s", quote_name(quoted, hidden));
}

void store_location_redacted(char *buf, size_t len, const char *location)
{
    const char *scheme = strstr(location, "://");
    if (!store_is_postgres(location) || scheme == NULL) {
        snprintf(buf, len, "%s", location);
        return;
    }
    /* postgresql://user:password@host/db?password=...: each password as *** */
    const char *auth = scheme + 3, *end = auth + strcspn(auth, "/?");
    const char *at = memchr(auth, '@', (size_t)(end - auth));
    const char *colon = at != NULL ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    size_t used = 0;
    const char *from = location;
    if (colon != NULL) {
        used = (size_t)snprintf(buf, len, "%.*s:***", (int)(colon - location), location);
        from = at;
    }
    for (const char *pw; used < len && (pw = strstr(from, "password=")) != NULL;) {
        used += (size_t)snprintf(buf + used, len - used, "%.*s***", (int)(pw + 9 - from), from);
        from = pw + 9 + strcspn(pw + 9, "&");
    }
    if (used < len) {
        snprintf(buf + used, len - used, "%s", from);
    }
}

const char *store_location(const char *option)
{
    const char *env = getenv(STORE_ENV);
    return option != NULL ? option : env != NULL && env[0] != '\0' ? env : NULL;
}
