/* libFuzzer target: the ASCII parser stays in bounds and chunked input agrees with one read. */
#include <stdint.h>
#include <stdlib.h>

#include "proto_stream.h"
#include "slap/base/common.h"
#include "slap/proto/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    size_t chunk = 1 + (size_t)data[0];
    size_t len = size - 1;
    /* every complete response takes at least 3 bytes (an incr's "0\r\n"): room for what can
     * come */
    size_t room = len / 3 + 1;
    struct stream_result *results = calloc(2 * room, sizeof(*results));
    struct proto_stream chunked = {.kind = PROTO_ASCII, .responses = results, .room = room};
    struct proto_stream whole = {.kind = PROTO_ASCII, .responses = results + room, .room = room};
    check(results != NULL);
    /* the helper says on stderr what went wrong */
    check(proto_stream_agree(&chunked, &whole, (const char *)data + 1, len, chunk) == NULL);
    free(results);
    return 0;
}
