/* Size distributions and memaslap's -F config file: key sizes, value sizes, the set/get mix. */
#ifndef SLAP_CFGFILE_H
#define SLAP_CFGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/model/ops.h"
#include "slap/model/sizelaw.h"

#include "slap/base/common.h"

/*
 * Parse "SIZE", "MIN-MAX" or a weighted list "MIN-MAX:SHARE,MIN-MAX:SHARE,..."
 * (a bare SIZE or MIN-MAX inside the list is allowed too: "64:0.5,128:0.5"); or a law by name,
 * "NAME:P1,P2,..." of a row of size_law_rows (sizelaw.h), each draw floored and clamped to
 * [lo, hi]; or the preset SIZE_DIST_ETC (Facebook's ETC pool: its key sizes when lo is a key's
 * least size, else its values').
 * Sizes are whole bytes, optionally with k (1024) or m (units.h); every size must lie in
 * [lo, hi]; shares must be > 0 and are normalised by their sum. On error:
 * SLAP_ERROR and one line in err naming the bad part.
 */
enum slap_status size_dist_parse(const char *text, uint32_t lo, uint32_t hi, struct size_dist *d,
                                 char *err, size_t err_len);

/* What a -F file says; a section it lacks leaves has_* false. */
struct cfg_file {
    bool has_key, has_value, has_cmd;
    bool has_groups; /* a "group NAME" line: a file of groups (cfggroups.h), no section here */
    struct size_dist key;
    struct size_dist value;
    double mix[OP_COUNT]; /* share of each op, normalised: they add up to 1 */
};

/*
 * memaslap's format: sections "key" and "value" with lines "MIN MAX SHARE",
 * section "cmd" with lines "TYPE SHARE" (0 set, 1 get, or a command name: get, set, delete,
 * ...); '#' starts a comment, blank lines are skipped, sections may come in any order. Keys 16..250
 * bytes, values 1..1 MiB. Every line is read for what it says (memaslap goes by order). A line
 * "group NAME" makes it a file of groups: has_groups, reading stops there (cfggroups.h reads them),
 * and a section before it is refused. On error: SLAP_ERROR, err = "NAME:LINE: what is wrong".
 */
enum slap_status cfgfile_parse(const char *text, size_t len, const char *name, struct cfg_file *cfg,
                               char *err, size_t err_len);
/* A -F file's bytes (at most 1 MiB) into *text, a NUL-less buffer of *len bytes that the
 * caller frees. Never waits for a writer: a FIFO no one writes to, or a pipe read already, is
 * refused as one with nothing in it; a longer file is refused. On error: SLAP_ERROR, err =
 * "cannot read PATH: why". */
enum slap_status cfgfile_read(const char *path, char **text, size_t *len, char *err,
                              size_t err_len);
/* Read (cfgfile_read) and parse a file; an unreadable file is an error naming it and the
 * reason. */
enum slap_status cfgfile_load(const char *path, struct cfg_file *cfg, char *err, size_t err_len);

#endif
