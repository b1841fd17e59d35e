/*
 * Output files (--json, --csv, --svg, --hlog, --samples, --hdr-out; slap merge's and slap
 * plot's): one way to save them all.
 *
 * - A regular file, or a name that does not exist yet, is written whole: into a temporary
 *   file PATH.tmp.XXXXXX made anew in the same directory (O_EXCL, a random name nobody else
 *   can have chosen, mode 0600 until finished; nothing of that name is ever removed first),
 *   synced, then renamed over PATH, so a reader sees the old file or the new one, never half
 *   of it. The new file is slap's user's: results are never handed to another user. It keeps
 *   the old file's permission bits when the old file was slap's user's; otherwise (another
 *   user's file, or a new name) it gets 0666 less the umask. Through a symbolic link, the
 *   file the link names is replaced; the link stays.
 * - Anything else is written in place, opened without O_TRUNC and never renamed over: a
 *   character device (/dev/null, a terminal), a FIFO (its reader must come within
 *   OUTFILE_FIFO_WAIT_MS), a block device, a unix stream socket (connected to), and a
 *   dangling symbolic link (the file it names is created).
 * - Writes to a FIFO, a pipe or a socket (opened here, or given as /dev/fd/N) never block for
 *   good: a reader that takes nothing for OUTFILE_STALL_MS fails the output (ETIMEDOUT), and
 *   so does a stop asked meanwhile (EINTR, see outfile_set_stop_check), within a tenth of a
 *   second. The waits for a FIFO's reader or a socket's listener end on a stop too.
 * - "-", /dev/stdout and /proc/self/fd/1 write to slap's standard output; /dev/stderr,
 *   /dev/fd/N and /proc/self/fd/N to that descriptor of slap's, as it is (whoever owns what
 *   it leads to, and without truncating it).
 * - In a sticky directory anyone can write (/tmp), a symbolic link, FIFO or socket owned by
 *   neither slap's user nor the directory's owner is refused (not followed, not written to),
 *   on the way to the name and at it: the kernel's rule for protected links and FIFOs,
 *   applied whatever fs.protected_symlinks and fs.protected_fifos say.
 * - A failure names the path quoted (bytes other than printable ASCII as \xNN) and the
 *   error of the write that failed (ENOSPC on a full disk, not EIO).
 */
#ifndef SLAP_OUTFILE_H
#define SLAP_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "slap/base/common.h"

#define OUTFILE_FIFO_WAIT_MS 10000 /* how long a FIFO's reader may take to come */
#define OUTFILE_STALL_MS 5000      /* how long a FIFO, pipe or socket may take no bytes */

struct outfile_sink;

/* One output being written. */
struct outfile {
    FILE *f;          /* write here, between outfile_open and outfile_close */
    const char *path; /* the name given (not copied: it must outlive the outfile) */
    char *target;     /* what the temporary file is renamed over; NULL when written in place */
    char *tmp;        /* the temporary file beside target */
    bool borrowed;    /* f is standard output or error: flushed, never closed */
    struct outfile_sink *sink; /* the descriptor under f, and the first error writing it */
    unsigned mode;             /* the permission bits a whole file gets when finished */
};

/*
 * Tell the waits of every output how to know that a stop was asked (a signal pending): they
 * give up with EINTR within a tenth of a second. NULL (the default): never asked.
 */
typedef bool (*outfile_stop_check)(void);
void outfile_set_stop_check(outfile_stop_check check);

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

/*
 * Would a and b write the same file, one output replacing the other? The same name, or two
 * names for one regular file or one new name in one directory (./x and x, a link and its
 * file). A descriptor by name, a device or a FIFO takes each output in turn: never the same.
 */
bool outfile_same(const char *a, const char *b);

/* Does path name a descriptor ("-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) or
 * lie among /proc's files (a link into /proc/PID/fd included), not a file of its own? */
bool outfile_is_stream_name(const char *path);

/* Open, write(out, arg), close: one whole output. SLAP_ERROR with err. */
typedef void (*outfile_writer)(FILE *out, const void *arg);
enum slap_status outfile_save(const char *path, outfile_writer write, const void *arg, char *err,
                              size_t err_len);

#endif
