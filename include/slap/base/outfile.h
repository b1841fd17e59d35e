/*
 * Output files (--json, --csv, --svg, --samples, --hdr-out; slap merge's and slap plot's):
 * one way to save them all.
 *
 * - A regular file, or a name that does not exist yet, is written whole: into PATH.tmp.PID in
 *   the same directory, synced, then renamed over PATH, so a reader sees the old file or the
 *   new one, never half of it. The old file's permission bits (and, where slap may, its owner)
 *   are kept. Through a symbolic link, the file the link names is replaced; the link stays.
 * - Anything else is written in place, opened without O_TRUNC and never renamed over: a
 *   character device (/dev/null, a terminal), a FIFO (its reader must come within
 *   OUTFILE_FIFO_WAIT_MS), a block device, a unix stream socket (connected to), and a
 *   dangling symbolic link (the file it names is created).
 * - "-", /dev/stdout and /proc/self/fd/1 write to slap's standard output; /dev/stderr,
 *   /dev/fd/N and /proc/self/fd/N to that descriptor of slap's, as it is (whoever owns what
 *   it leads to, and without truncating it).
 */
#ifndef SLAP_OUTFILE_H
#define SLAP_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "slap/base/common.h"

#define OUTFILE_FIFO_WAIT_MS 10000 /* how long a FIFO's reader may take to come */

/* One output being written. */
struct outfile {
    FILE *f;          /* write here, between outfile_open and outfile_close */
    const char *path; /* the name given (not copied: it must outlive the outfile) */
    char *target;     /* what the temporary file is renamed over; NULL when written in place */
    char *tmp;        /* the temporary file beside target */
    bool borrowed;    /* f is standard output or error: flushed, never closed */
};

/*
 * Open path for writing as above. SLAP_ERROR with err ("cannot write 'PATH': why"), and
 * nothing left to release; otherwise outfile_close or outfile_discard must follow.
 */
enum slap_status outfile_open(struct outfile *of, const char *path, char *err, size_t err_len);

/*
 * Finish: flush, sync and rename the temporary file over its target, or flush what was
 * written in place. Releases everything, whatever the outcome. SLAP_ERROR with err.
 */
enum slap_status outfile_close(struct outfile *of, char *err, size_t err_len);

/* Give up: close, remove the temporary file, release everything. The target is untouched. */
void outfile_discard(struct outfile *of);

/* Was it a file written whole (and so one that can be read back by its name)? */
bool outfile_whole(const struct outfile *of);

/* Open, write(out, arg), close: one whole output. SLAP_ERROR with err. */
typedef void (*outfile_writer)(FILE *out, const void *arg);
enum slap_status outfile_save(const char *path, outfile_writer write, const void *arg, char *err,
                              size_t err_len);

#endif
