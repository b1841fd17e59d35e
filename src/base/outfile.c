/* Output files: regular files replaced whole (temporary file and rename), the rest in place;
 * nothing another user planted in a shared directory is followed or written to. */
#include "slap/base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "slap/base/quote.h"

#define FIFO_POLL_MS 20
#define LINKS_MAX 40 /* symbolic links followed on the way to one name, as the kernel's limit */
#define STALL_SLICE_MS 50 /* a guarded write looks for a stop this often */

/* The descriptor under an outfile's stream, and the first error in writing to it (a guarded
 * one's: ETIMEDOUT for a reader that took nothing, EINTR for a stop). */
struct outfile_sink {
    int fd;
    int error;
    bool guarded; /* a FIFO, a pipe or a socket: no write blocks for good */
    bool own_fd;  /* guarded: fd is slap's own (non-blocking); else a borrowed copy */
};

static outfile_stop_check stop_check;

void outfile_set_stop_check(outfile_stop_check check)
{
    stop_check = check;
}

static bool stop_asked(void)
{
    return stop_check != NULL && stop_check();
}

static enum slap_status fail(const char *path, int why, char *err, size_t err_len)
{
    char shown[QUOTE_PATH_BUF];
    if (strcmp(path, "-") == 0) {
        snprintf(err, err_len, "cannot write to standard output: %s", strerror(why));
    } else if (why == ETIMEDOUT) {
        snprintf(err, err_len, "cannot write %s: its reader took nothing for %d s",
                 quote_name(shown, path), OUTFILE_STALL_MS / 1000);
    } else if (why == EINTR) {
        snprintf(err, err_len, "cannot write %s: interrupted by a stop signal",
                 quote_name(shown, path));
    } else {
        snprintf(err, err_len, "cannot write %s: %s", quote_name(shown, path),
                 strerror(why != 0 ? why : EIO));
    }
    return SLAP_ERROR;
}

/* The descriptor a name stands for ("-", /dev/stdout, /dev/fd/N, /proc/self/fd/N), or -1. */
static int named_descriptor(const char *path)
{
    static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
    if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) {
        return STDOUT_FILENO;
    }
    if (strcmp(path, "/dev/stderr") == 0) {
        return STDERR_FILENO;
    }
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(prefixes); i++) {
        size_t n = strlen(prefixes[i]);
        char *end;
        if (strncmp(path, prefixes[i], n) != 0 || path[n] < '0' || path[n] > '9') {
            continue;
        }
        long fd = strtol(path + n, &end, 10);
        if (*end == '\0' && fd <= INT_MAX) {
            return (int)fd;
        }
    }
    return -1;
}

/* ---- the stream: every write's error kept, so that the report names the real one ---- */

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Some of buf written without blocking: slap's own descriptors are non-blocking; a borrowed
 * one (/dev/fd/N, shared with others) is sent to with MSG_DONTWAIT when a socket, else written
 * at most PIPE_BUF bytes once poll says the pipe has room. -1 with EAGAIN when it had none. */
static ssize_t write_some(const struct outfile_sink *sink, const char *buf, size_t len)
{
    if (sink->own_fd) {
        return write(sink->fd, buf, len);
    }
    ssize_t n = send(sink->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0 || errno != ENOTSOCK) {
        return n;
    }
    struct pollfd pfd = {.fd = sink->fd, .events = POLLOUT};
    if (poll(&pfd, 1, 0) != 1) {
        errno = EAGAIN;
        return -1;
    }
    return write(sink->fd, buf, len < PIPE_BUF ? len : PIPE_BUF);
}

/* A FIFO's, pipe's or socket's writes: bounded by OUTFILE_STALL_MS without progress and by a
 * stop; once given up, every later write fails at once. */
static ssize_t guarded_write(struct outfile_sink *sink, const char *buf, size_t len)
{
    size_t done = 0;
    long idle_since = now_ms();
    while (done < len && sink->error == 0) {
        ssize_t n = write_some(sink, buf + done, len - done);
        if (n > 0) {
            done += (size_t)n;
            idle_since = now_ms();
            continue;
        }
        long idle = now_ms() - idle_since;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            sink->error = errno;
        } else if (stop_asked()) { /* only a write that would wait gives up on a stop */
            sink->error = EINTR;
        } else if (idle >= OUTFILE_STALL_MS) {
            sink->error = ETIMEDOUT;
        } else {
            struct pollfd pfd = {.fd = sink->fd, .events = POLLOUT};
            long left = OUTFILE_STALL_MS - idle;
            (void)poll(&pfd, 1, (int)(left < STALL_SLICE_MS ? left : STALL_SLICE_MS));
        }
    }
    if (done == 0 && sink->error != 0) {
        errno = sink->error;
        return -1;
    }
    return (ssize_t)done;
}

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
    struct outfile_sink *sink = cookie;
    if (sink->guarded) {
        return guarded_write(sink, buf, len);
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(sink->fd, buf + done, len - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            sink->error = sink->error != 0 ? sink->error : (n < 0 ? errno : ENOSPC);
            return done > 0 ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static int sink_close(void *cookie)
{
    struct outfile_sink *sink = cookie;
    int rc = close(sink->fd);
    if (rc != 0 && sink->error == 0) {
        sink->error = errno;
    }
    sink->fd = -1;
    return rc;
}

/* A stream on fd (taken: closed with the stream, or here when there is none), guarded when a
 * FIFO, a pipe or a socket (own_fd: slap's own, non-blocking). -1 with errno. */
static int attach(struct outfile *of, int fd, bool own_fd)
{
    static const cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
    struct stat st;
    bool guarded = fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
    of->sink = malloc(sizeof(*of->sink));
    if (of->sink != NULL) {
        *of->sink = (struct outfile_sink){fd, 0, guarded, own_fd};
        of->f = fopencookie(of->sink, "w", io);
    }
    if (of->f == NULL) {
        int why = errno;
        close(fd);
        free(of->sink);
        of->sink = NULL;
        errno = why;
        return -1;
    }
    return 0;
}

/* Write to one of slap's descriptors as it is: standard output and error through their
 * streams (so what slap printed there comes first), any other through a copy of it. */
static enum slap_status open_descriptor(struct outfile *of, int fd, char *err, size_t err_len)
{
    if (fd == STDOUT_FILENO || fd == STDERR_FILENO) {
        of->f = fd == STDOUT_FILENO ? stdout : stderr;
        of->borrowed = true;
        return SLAP_OK;
    }
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (copy < 0 || attach(of, copy, false) != 0) {
        return fail(of->path, errno, err, err_len);
    }
    return SLAP_OK;
}

/* ---- what another user may have planted ---- */

/* The kernel's rule for protected links and FIFOs (fs.protected_symlinks, fs.protected_fifos),
 * kept whatever the sysctls say: in a sticky directory anyone can write (/tmp), something
 * owned by neither slap's user nor the directory's owner is not followed, nor written to. */
static bool planted(const struct stat *dir, uid_t owner)
{
    return (dir->st_mode & S_ISVTX) != 0 && (dir->st_mode & S_IWOTH) != 0 && owner != geteuid() &&
           owner != dir->st_uid;
}

/* The directory part of name[0..len) (".", "/" or a copy), into dir (PATH_MAX bytes). */
static void dir_part(const char *name, size_t len, char *dir)
{
    while (len > 0 && name[len - 1] != '/') {
        len--;
    }
    while (len > 1 && name[len - 1] == '/') {
        len--;
    }
    if (len == 0) {
        strcpy(dir, ".");
    } else {
        memcpy(dir, name, len);
        dir[len] = '\0';
    }
}

struct walk {
    int links;          /* followed so far */
    char bad[PATH_MAX]; /* the planted link, when refused */
    uid_t owner;        /* its owner */
};

static int links_planted(struct walk *w, const char *path);

/* One link met on the way (its name is prefix): planted, or what it names walked in turn. */
static int link_planted(struct walk *w, const char *prefix, const struct stat *link)
{
    char dir[PATH_MAX], target[PATH_MAX], next[PATH_MAX * 2 + 2];
    struct stat dst;
    dir_part(prefix, strlen(prefix), dir);
    if (stat(dir, &dst) == 0 && planted(&dst, link->st_uid)) {
        snprintf(w->bad, sizeof(w->bad), "%s", prefix);
        w->owner = link->st_uid;
        return EACCES;
    }
    ssize_t n = readlink(prefix, target, sizeof(target) - 1);
    if (n < 0) {
        return 0; /* gone meanwhile: open says what is there */
    }
    target[n] = '\0';
    snprintf(next, sizeof(next), "%s%s%s", target[0] == '/' ? "" : dir, target[0] == '/' ? "" : "/",
             target);
    return ++w->links > LINKS_MAX ? ELOOP : links_planted(w, next);
}

/* Every symbolic link on the way to path, and on the way to what each names: 0, EACCES for a
 * planted one (w->bad), ELOOP past LINKS_MAX. Where a part does not exist the walk stops. */
static int links_planted(struct walk *w, const char *path)
{
    char prefix[PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof(prefix)) {
        return 0; /* open says ENAMETOOLONG */
    }
    for (size_t end = 1; end <= len; end++) {
        struct stat st;
        if (end < len && (path[end] != '/' || path[end - 1] == '/')) {
            continue;
        }
        memcpy(prefix, path, end);
        prefix[end] = '\0';
        if (lstat(prefix, &st) != 0) {
            return 0;
        }
        int why = S_ISLNK(st.st_mode) ? link_planted(w, prefix, &st) : 0;
        if (why != 0) {
            return why;
        }
    }
    return 0;
}

/* A FIFO or a socket of another user in a sticky directory anyone can write? */
static bool planted_node(const char *path, const struct stat *st)
{
    char *real = realpath(path, NULL);
    char dir[PATH_MAX];
    struct stat dst;
    bool refused = false;
    if (real != NULL) {
        dir_part(real, strlen(real), dir);
        refused = stat(dir, &dst) == 0 && planted(&dst, st->st_uid);
    }
    free(real);
    return refused;
}

/* ---- written in place ---- */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
    nanosleep(&ts, NULL);
}

/* A unix stream socket's listener, connected to without blocking (the descriptor stays
 * non-blocking); a full backlog awaited as a FIFO's reader is. -1 with errno. */
static int connect_socket(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(sa.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int rc = fd >= 0 ? connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) : -1;
    for (long waited = 0; rc != 0 && fd >= 0 && errno == EAGAIN && waited < OUTFILE_FIFO_WAIT_MS;
         waited += FIFO_POLL_MS) {
        if (stop_asked()) {
            errno = EINTR;
            break;
        }
        sleep_ms(FIFO_POLL_MS);
        rc = connect(fd, (const struct sockaddr *)&sa, sizeof(sa));
    }
    if (fd >= 0 && rc != 0) {
        int why = errno == EAGAIN ? ENXIO : errno; /* nobody took it: as a FIFO without reader */
        close(fd);
        errno = why;
        return -1;
    }
    return fd;
}

/* Opened for writing where it is, never truncated; a FIFO's reader awaited a bounded time
 * (and left non-blocking, for the guarded writes). -1 with errno. */
static int open_where_it_is(const char *path, mode_t mode)
{
    if (S_ISSOCK(mode)) {
        return connect_socket(path);
    }
    int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (mode == 0 ? O_CREAT : 0);
    int fd = open(path, flags, 0666);
    for (long waited = 0;
         fd < 0 && errno == ENXIO && S_ISFIFO(mode) && waited < OUTFILE_FIFO_WAIT_MS;
         waited += FIFO_POLL_MS) {
        if (stop_asked()) {
            errno = EINTR;
            return -1;
        }
        sleep_ms(FIFO_POLL_MS);
        fd = open(path, flags, 0666);
    }
    if (fd >= 0 && !S_ISFIFO(mode) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        int why = errno;
        close(fd);
        errno = why;
        return -1;
    }
    return fd;
}

/* Not a regular file (mode 0: a dangling symbolic link): written in place. */
static enum slap_status open_in_place(struct outfile *of, const struct stat *st, char *err,
                                      size_t err_len)
{
    mode_t mode = st != NULL ? st->st_mode : 0;
    char shown[QUOTE_PATH_BUF];
    if ((S_ISFIFO(mode) || S_ISSOCK(mode)) && planted_node(of->path, st)) {
        snprintf(err, err_len,
                 "cannot write %s: a %s of another user (uid %ld) in a sticky directory "
                 "anyone can write: not written to",
                 quote_name(shown, of->path), S_ISFIFO(mode) ? "FIFO" : "socket", (long)st->st_uid);
        return SLAP_ERROR;
    }
    int fd = open_where_it_is(of->path, mode);
    if (fd < 0 && errno == ENXIO && (S_ISFIFO(mode) || S_ISSOCK(mode))) {
        snprintf(err, err_len, "cannot write %s: no %s within %d s", quote_name(shown, of->path),
                 S_ISFIFO(mode) ? "reader opened the FIFO" : "listener took the connection",
                 OUTFILE_FIFO_WAIT_MS / 1000);
        return SLAP_ERROR;
    }
    if (fd < 0 || attach(of, fd, true) != 0) {
        return fail(of->path, errno, err, err_len);
    }
    return SLAP_OK;
}

/* ---- written whole ---- */

/* The mode a new file gets: what the umask leaves of 0666. */
static mode_t creation_mode(void)
{
    mode_t mask = umask(077);
    umask(mask);
    return 0666 & ~mask;
}

/* The temporary file's name into of->tmp: TARGET.tmp.XXXXXX, or, when that would pass a
 * name's NAME_MAX bytes (an output named with 245 to 255 bytes), .slap.tmp.XXXXXX in the
 * target's directory. asprintf's result. */
static int temporary_name(struct outfile *of)
{
    static const char suffix[] = ".tmp.XXXXXX";
    const char *slash = strrchr(of->target, '/');
    size_t dir = slash != NULL ? (size_t)(slash - of->target) + 1 : 0;
    if (strlen(of->target) - dir + sizeof(suffix) - 1 <= NAME_MAX) {
        return asprintf(&of->tmp, "%s%s", of->target, suffix);
    }
    return asprintf(&of->tmp, "%.*s.slap%s", (int)dir, of->target, suffix);
}

/* A regular file or a new name: a temporary file of a name nobody could have chosen, made
 * anew (mode 0600) beside the target (a link's file). It gets the old file's permission bits
 * when the old file was slap's user's, the umask's mode otherwise; its owner is slap's user. */
static enum slap_status open_whole(struct outfile *of, const struct stat *old, char *err,
                                   size_t err_len)
{
    struct stat link;
    bool through_link = old != NULL && lstat(of->path, &link) == 0 && S_ISLNK(link.st_mode);
    of->mode = old != NULL && old->st_uid == geteuid() ? old->st_mode & 0777 : creation_mode();
    of->target = through_link ? realpath(of->path, NULL) : strdup(of->path);
    if (of->target == NULL || temporary_name(of) < 0) {
        of->tmp = NULL;
        int why = errno;
        outfile_discard(of);
        return fail(of->path, why, err, err_len);
    }
    int fd = mkostemp(of->tmp, O_CLOEXEC); /* O_EXCL, 0600 */
    if (fd < 0) {
        int why = errno;
        free(of->tmp); /* nothing was made */
        of->tmp = NULL;
        outfile_discard(of);
        return fail(of->path, why, err, err_len);
    }
    if (attach(of, fd, true) != 0) {
        int why = errno;
        outfile_discard(of);
        return fail(of->path, why, err, err_len);
    }
    return SLAP_OK;
}

enum slap_status outfile_open(struct outfile *of, const char *path, char *err, size_t err_len)
{
    memset(of, 0, sizeof(*of));
    of->path = path;
    int fd = named_descriptor(path);
    if (fd >= 0) {
        return open_descriptor(of, fd, err, err_len);
    }
    struct walk w = {0};
    int why = links_planted(&w, path);
    if (why == EACCES) {
        char shown[QUOTE_PATH_BUF], link[QUOTE_PATH_BUF];
        snprintf(err, err_len,
                 "cannot write %s: %s is a symbolic link of another user (uid %ld) in a sticky "
                 "directory anyone can write: not followed",
                 quote_name(shown, path), strcmp(w.bad, path) == 0 ? "it" : quote_name(link, w.bad),
                 (long)w.owner);
        return SLAP_ERROR;
    }
    struct stat st;
    if (why != 0 || stat(path, &st) != 0) {
        why = why != 0 ? why : errno;
    } else {
        return S_ISREG(st.st_mode) ? open_whole(of, &st, err, err_len)
                                   : open_in_place(of, &st, err, err_len);
    }
    if (why != ENOENT) {
        return fail(path, why, err, err_len);
    }
    struct stat link;
    if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode)) {
        return open_in_place(of, NULL, err, err_len);
    }
    return open_whole(of, NULL, err, err_len);
}

bool outfile_whole(const struct outfile *of)
{
    return of->tmp != NULL;
}

void outfile_discard(struct outfile *of)
{
    if (of->f != NULL && !of->borrowed) {
        fclose(of->f);
    }
    if (of->tmp != NULL) {
        unlink(of->tmp);
    }
    free(of->sink);
    free(of->tmp);
    free(of->target);
    of->f = NULL;
    of->sink = NULL;
    of->tmp = of->target = NULL;
}

/* Everything written out (and a temporary file on disk, with its final mode): 0, or the
 * first error in writing. A borrowed stream (standard output) keeps no record of its own: the
 * error its last failed write left in errno, when flushing finds nothing more to write. */
static int flushed(struct outfile *of)
{
    int left = errno;
    errno = 0;
    bool ok = fflush(of->f) == 0 && !ferror(of->f);
    int why = of->sink != NULL && of->sink->error != 0 ? of->sink->error : errno;
    why = why != 0 ? why : (of->borrowed && left != 0 ? left : EIO);
    if (ok && of->tmp != NULL &&
        (fsync(of->sink->fd) != 0 || fchmod(of->sink->fd, of->mode) != 0)) {
        return errno;
    }
    errno = ok ? errno : why;
    return ok ? 0 : why;
}

enum slap_status outfile_close(struct outfile *of, char *err, size_t err_len)
{
    if (of->f == NULL) {
        return SLAP_OK;
    }
    int why = flushed(of);
    if (of->borrowed) {
        of->f = NULL;
        return why == 0 ? SLAP_OK : fail(of->path, why, err, err_len);
    }
    if (fclose(of->f) != 0 && why == 0) {
        why = of->sink->error != 0 ? of->sink->error : (errno != 0 ? errno : EIO);
    }
    of->f = NULL;
    if (why == 0 && of->tmp != NULL && rename(of->tmp, of->target) != 0) {
        why = errno;
    }
    if (why == 0) {
        free(of->tmp); /* renamed: nothing to remove */
        of->tmp = NULL;
    }
    outfile_discard(of);
    return why == 0 ? SLAP_OK : fail(of->path, why, err, err_len);
}

/* ---- two outputs naming one file ---- */

/* Where a name leads: the regular file it is, or the directory and last name a new file
 * would get (a dangling link's, for one). */
struct place {
    dev_t dev;
    ino_t ino;
    char name[NAME_MAX + 1]; /* empty for a file that is there */
};

/* false where no file would be replaced: a descriptor by name, a device, a FIFO, a socket,
 * a directory; also where it cannot be known (a directory that is not there). */
static bool place_of(const char *path, struct place *p, int links)
{
    struct stat st;
    char dir[PATH_MAX], target[PATH_MAX], next[PATH_MAX * 2 + 2];
    size_t len = strlen(path);
    if (named_descriptor(path) >= 0 || len >= PATH_MAX) {
        return false;
    }
    if (stat(path, &st) == 0) {
        *p = (struct place){.dev = st.st_dev, .ino = st.st_ino};
        return S_ISREG(st.st_mode);
    }
    dir_part(path, len, dir);
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    if (n > 0 && links < LINKS_MAX) {
        target[n] = '\0';
        snprintf(next, sizeof(next), "%s%s%s", target[0] == '/' ? "" : dir,
                 target[0] == '/' ? "" : "/", target);
        return place_of(next, p, links + 1);
    }
    const char *last = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
    if (strlen(last) > NAME_MAX || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        return false;
    }
    *p = (struct place){.dev = st.st_dev, .ino = st.st_ino};
    memcpy(p->name, last, strlen(last) + 1);
    return true;
}

bool outfile_is_stream_name(const char *path)
{
    char dir[PATH_MAX], real[PATH_MAX], target[PATH_MAX];
    if (named_descriptor(path) >= 0) {
        return true;
    }
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    if (n > 0) {
        target[n] = '\0';
        if (strncmp(target, "/proc/", 6) == 0 || strncmp(target, "/dev/fd/", 8) == 0) {
            return true;
        }
    }
    if (strlen(path) >= sizeof(dir)) {
        return false;
    }
    dir_part(path, strlen(path), dir);
    return realpath(dir, real) != NULL &&
           (strcmp(real, "/proc") == 0 || strncmp(real, "/proc/", 6) == 0);
}

bool outfile_same(const char *a, const char *b)
{
    struct place pa, pb;
    struct stat st;
    if (strcmp(a, b) == 0) {
        return named_descriptor(a) < 0 && (stat(a, &st) != 0 || S_ISREG(st.st_mode));
    }
    return place_of(a, &pa, 0) && place_of(b, &pb, 0) && pa.dev == pb.dev && pa.ino == pb.ino &&
           strcmp(pa.name, pb.name) == 0;
}

enum slap_status outfile_save(const char *path, outfile_writer write, const void *arg, char *err,
                              size_t err_len)
{
    struct outfile of;
    if (outfile_open(&of, path, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    write(of.f, arg);
    return outfile_close(&of, err, err_len);
}
