/* What every codec shares: the response it gathers, checks of value data, decimal digits. */
#include "slap/proto/proto_util.h"

#include <string.h>

#include "slap/base/common.h"

void proto_check_begin(struct proto_check *c, const struct proto_value_hook *hook, const char *key,
                       size_t key_len, uint64_t bytes)
{
    c->expect = NULL;
    if (hook == NULL) {
        return;
    }
    c->expect = hook->begin(hook->ctx, key, key_len, bytes, &c->expect_len);
    c->data_pos = 0;
    c->first_diff = c->expect != NULL && c->expect_len != bytes
                        ? (c->expect_len < bytes ? c->expect_len : bytes)
                        : UINT64_MAX;
}

void proto_check_data(struct proto_check *c, const char *data, size_t n)
{
    if (c->expect != NULL && c->first_diff == UINT64_MAX) {
        const char *want = c->expect + c->data_pos;
        if (memcmp(data, want, n) != 0) {
            size_t i = 0;
            while (data[i] == want[i]) {
                i++;
            }
            c->first_diff = c->data_pos + i;
        }
    }
    c->data_pos += n;
}

void proto_check_end(struct proto_check *c, const struct proto_value_hook *hook)
{
    if (c->expect != NULL) {
        hook->end(hook->ctx, c->first_diff == UINT64_MAX, c->first_diff);
        c->expect = NULL;
    }
}

enum slap_status proto_parse_decimal_long(const char **cur, const char *c, const char *end,
                                          uint64_t max, uint64_t value, uint64_t *out)
{
    for (; c < end; c++) {
        unsigned digit = (unsigned)(unsigned char)*c - (unsigned)'0';
        if (digit > 9) {
            break;
        }
        if (value > (max - digit) / 10) {
            return SLAP_ERROR;
        }
        value = value * 10 + digit;
    }
    if (value > max) {
        return SLAP_ERROR;
    }
    *cur = c;
    *out = value;
    return SLAP_OK;
}

enum slap_status proto_take_text_data(struct proto_check *c, const struct proto_value_hook *hook,
                                      uint64_t *data_left, const char *buf, size_t len, size_t *pos)
{
    size_t avail = len - *pos;
    if (*data_left > 2) { /* the data itself: never scanned for line ends */
        uint64_t data = *data_left - 2;
        size_t take = (uint64_t)avail < data ? avail : (size_t)data;
        if (c->expect != NULL) { /* data_pos counts only for a check */
            proto_check_data(c, buf + *pos, take);
        }
        *pos += take;
        *data_left -= take;
    }
    if (*data_left == 2 && len - *pos >= 2) { /* the usual case: the whole CRLF is there */
        if (buf[*pos] != '\r' || buf[*pos + 1] != '\n') {
            return SLAP_ERROR;
        }
        *pos += 2;
        *data_left = 0;
    }
    while (*data_left > 0 && *data_left <= 2 && *pos < len) {
        char want = *data_left == 2 ? '\r' : '\n';
        if (buf[*pos] != want) {
            return SLAP_ERROR;
        }
        (*pos)++;
        (*data_left)--;
    }
    if (*data_left > 0) {
        return SLAP_AGAIN;
    }
    proto_check_end(c, hook);
    return SLAP_OK;
}
