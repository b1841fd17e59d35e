/* libFuzzer target: a server's answer to slap's authentication, ASCII and SASL PLAIN, judged
 * as its bytes come (auth_answer_judge): in bounds whatever the bytes, a line that never ends
 * refused once the buffer is full, and "accepted" only for the exact acceptance. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/net/auth.h"

#define CAP 1024 /* conn_auth.c's buffer */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The answer's bytes come in pieces; each prefix is judged as the connection would judge it,
 * until it is judged. */
static void judge_all(enum auth_kind kind, const char *buf, size_t size)
{
    char why[512];
    size_t len = 0;
    while (len < size) {
        size_t piece = 1 + (size_t)(unsigned char)buf[len] % 97;
        len = len + piece < size ? len + piece : size;
        why[0] = '\0';
        enum auth_answer a = auth_answer_judge(kind, buf, len, CAP, why, sizeof(why));
        if (a == AUTH_ANSWER_MORE) {
            if (len >= CAP) {
                abort(); /* a full buffer is always judged */
            }
            continue;
        }
        if (a == AUTH_ANSWER_REFUSED && why[0] == '\0') {
            abort(); /* a refusal says why */
        }
        for (const char *p = why; *p != '\0'; p++) {
            if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                abort(); /* the server's bytes are quoted, never raw */
            }
        }
        if (a == AUTH_ANSWER_OK && kind == AUTH_ASCII &&
            !(len == 8 && memcmp(buf, "STORED\r\n", 8) == 0)) {
            abort();
        }
        return;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    /* the first byte's bit 1: the bytes repeated to fill the whole buffer, as a server that
     * never ends its answer fills it (a line past the buffer crashed slap once) */
    bool fill = (data[0] & 2) != 0 && size > 1;
    size_t n = fill ? CAP : size - 1 < CAP ? size - 1 : CAP;
    char *buf = malloc(n > 0 ? n : 1); /* exactly the bytes: ASan sees a read past them */
    if (buf == NULL) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        buf[i] = (char)data[1 + (fill ? i % (size - 1) : i)];
    }
    judge_all(data[0] & 1 ? AUTH_ASCII : AUTH_SASL_PLAIN, buf, n);
    free(buf);
    return 0;
}
