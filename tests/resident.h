/* For unit tests that hold memory to the pages it uses: how many pages of a mapping are in. */
#ifndef SLAP_TEST_RESIDENT_H
#define SLAP_TEST_RESIDENT_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Pages of the mapping [p, p + len) in memory (mincore; p page-aligned). Reading a page never
 * written maps the zero page, which mincore counts too: only writes come before it. Include
 * after cmocka.h. */
static size_t resident_pages(const void *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, in = 0;
    unsigned char *vec = malloc(n);
    assert_non_null(vec);
    assert_int_equal(mincore((void *)(uintptr_t)p, len, vec), 0);
    for (size_t i = 0; i < n; i++) {
        in += vec[i] & 1u;
    }
    free(vec);
    return in;
}

#endif
