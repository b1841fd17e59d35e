/* The groups of a -F file: several workloads in one run, each a list of slap's options. */
#ifndef SLAP_CFGGROUPS_H
#define SLAP_CFGGROUPS_H

#include <stddef.h>

#include "slap/base/common.h"

#define CFG_GROUP_NAME 64 /* a group's name, its NUL included */
#define CFG_GROUPS_MAX 64 /* groups in one file */

/* One word of a group's lines, and the line it is on. */
struct cfg_word {
    char *text; /* owned */
    size_t line;
};

/* "group NAME" and the words of the lines after it, up to the next group. */
struct cfg_group {
    char name[CFG_GROUP_NAME];
    size_t line; /* its header's */
    size_t nwords;
    struct cfg_word *words; /* owned */
};

struct cfg_groups {
    size_t n; /* 0: the file holds no group (a memaslap file, read by cfgfile.c) */
    struct cfg_group items[CFG_GROUPS_MAX];
};

/*
 * A -F file's groups: a line "group NAME" opens one (NAME: letters, digits, '.', '_', '-',
 * at most 63 bytes, each once); the lines after it, up to the next, hold its options as on a
 * command line, words apart by blanks (no quoting), a word starting with '#' starting a
 * comment. A UTF-8 byte order mark before it all is skipped (as cfgfile_parse skips it: both
 * readers see the same first group). A file with a group holds only groups: a key, value or cmd
 * section, or any other line before the first group, is refused, as are a group with no word
 * and a NUL byte. No group at all: SLAP_OK with n 0. On error:
 * SLAP_ERROR, g empty, err = "NAME:LINE: what is wrong".
 */
enum slap_status cfggroups_parse(const char *text, size_t len, const char *name,
                                 struct cfg_groups *g, char *err, size_t err_len);
/* Read (cfgfile_read: 1 MiB at most, never waiting for a writer) and parse a file. */
enum slap_status cfggroups_load(const char *path, struct cfg_groups *g, char *err, size_t err_len);
void cfggroups_free(struct cfg_groups *g);

#endif
