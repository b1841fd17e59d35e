/* Output files: regular files replaced whole (temporary file and rename), the rest in place. */
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

#define FIFO_POLL_MS 20
#define STALL_SLICE_MS 50 /* a guarded write looks for a stop this often */

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
    if (strcmp(path, "-") == 0) {
        snprintf(err, err_len, "cannot write to standard output: %s", strerror(why));
    } else if (why == ETIMEDOUT) {
        snprintf(err, err_len, "cannot write '%s': its reader took nothing for %d s", path,
                 OUTFILE_STALL_MS / 1000);
    } else if (why == EINTR) {
        snprintf(err, err_len, "cannot write '%s': interrupted by a stop signal", path);
    } else {
        snprintf(err, err_len, "cannot write '%s': %s", path, strerror(why != 0 ? why : EIO));
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

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Some of buf written without blocking: slap's own descriptors are non-blocking; a borrowed
 * one (/dev/fd/N, shared with others) is sent to with MSG_DONTWAIT when a socket, else written
 * at most PIPE_BUF bytes once poll says the pipe has room. -1 with EAGAIN when it had none. */
static ssize_t write_some(const struct outfile *of, const char *buf, size_t len)
{
    if (of->own_fd) {
        return write(of->fd, buf, len);
    }
    ssize_t n = send(of->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0 || errno != ENOTSOCK) {
        return n;
    }
    struct pollfd pfd = {.fd = of->fd, .events = POLLOUT};
    if (poll(&pfd, 1, 0) != 1) {
        errno = EAGAIN;
        return -1;
    }
    return write(of->fd, buf, len < PIPE_BUF ? len : PIPE_BUF);
}

/* The stream's writes to a FIFO, pipe or socket: bounded by OUTFILE_STALL_MS without progress
 * and by a stop; once given up, every later write fails at once (of->why). */
static ssize_t guarded_write(void *cookie, const char *buf, size_t len)
{
    struct outfile *of = cookie;
    size_t done = 0;
    long idle_since = now_ms();
    while (done < len && of->why == 0) {
        ssize_t n = write_some(of, buf + done, len - done);
        if (n > 0) {
            done += (size_t)n;
            idle_since = now_ms();
            continue;
        }
        long idle = now_ms() - idle_since;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            of->why = errno;
        } else if (stop_asked()) { /* only a write that would wait gives up on a stop */
            of->why = EINTR;
        } else if (idle >= OUTFILE_STALL_MS) {
            of->why = ETIMEDOUT;
        } else {
            struct pollfd pfd = {.fd = of->fd, .events = POLLOUT};
            long left = OUTFILE_STALL_MS - idle;
            (void)poll(&pfd, 1, (int)(left < STALL_SLICE_MS ? left : STALL_SLICE_MS));
        }
    }
    if (done == 0 && of->why != 0) {
        errno = of->why;
        return -1;
    }
    return (ssize_t)done;
}

static int guarded_close(void *cookie)
{
    return close(((struct outfile *)cookie)->fd);
}

/* of->f over fd (taken over, closed with the stream): guarded when a FIFO, pipe or socket.
 * -1 with errno (fd left open). */
static int stream_over(struct outfile *of, int fd, bool own_fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
        cookie_io_functions_t io = {.write = guarded_write, .close = guarded_close};
        of->guarded = true;
        of->own_fd = own_fd;
        of->fd = fd;
        of->f = fopencookie(of, "w", io);
    } else {
        of->f = fdopen(fd, "w");
    }
    return of->f != NULL ? 0 : -1;
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
    if (copy < 0 || stream_over(of, copy, false) != 0) {
        int why = errno;
        if (copy >= 0) {
            close(copy);
        }
        return fail(of->path, why, err, err_len);
    }
    return SLAP_OK;
}

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
static enum slap_status open_in_place(struct outfile *of, mode_t mode, char *err, size_t err_len)
{
    int fd = open_where_it_is(of->path, mode);
    if (fd < 0 && errno == ENXIO && (S_ISFIFO(mode) || S_ISSOCK(mode))) {
        snprintf(err, err_len, "cannot write '%s': no %s within %d s", of->path,
                 S_ISFIFO(mode) ? "reader opened the FIFO" : "listener took the connection",
                 OUTFILE_FIFO_WAIT_MS / 1000);
        return SLAP_ERROR;
    }
    if (fd < 0 || stream_over(of, fd, true) != 0) {
        int why = errno;
        if (fd >= 0) {
            close(fd);
        }
        return fail(of->path, why, err, err_len);
    }
    return SLAP_OK;
}

/* A regular file or a new name: a temporary file beside the target (a link's file), with the
 * old file's mode and, where allowed, owner. */
static enum slap_status open_whole(struct outfile *of, const struct stat *old, char *err,
                                   size_t err_len)
{
    struct stat link;
    bool through_link = old != NULL && lstat(of->path, &link) == 0 && S_ISLNK(link.st_mode);
    of->target = through_link ? realpath(of->path, NULL) : strdup(of->path);
    if (of->target == NULL || asprintf(&of->tmp, "%s.tmp.%ld", of->target, (long)getpid()) < 0) {
        of->tmp = NULL;
        int why = errno;
        outfile_discard(of);
        return fail(of->path, why, err, err_len);
    }
    unlink(of->tmp); /* a stale one of a process that had this pid */
    int fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 && old != NULL) {
        (void)!fchown(fd, old->st_uid, old->st_gid); /* only root or the owner may */
        (void)!fchmod(fd, old->st_mode & 07777);
    }
    if (fd < 0 || (of->f = fdopen(fd, "w")) == NULL) {
        int why = errno;
        if (fd >= 0) {
            close(fd);
        }
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
    struct stat st;
    if (stat(path, &st) == 0) {
        return S_ISREG(st.st_mode) ? open_whole(of, &st, err, err_len)
                                   : open_in_place(of, st.st_mode, err, err_len);
    }
    if (errno != ENOENT) {
        return fail(path, errno, err, err_len);
    }
    struct stat link;
    if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode)) {
        return open_in_place(of, 0, err, err_len);
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
    free(of->tmp);
    free(of->target);
    of->f = NULL;
    of->tmp = of->target = NULL;
}

/* Everything written out: flushed, and a temporary file on disk. errno when not. */
static bool flushed(FILE *f, bool sync)
{
    errno = 0;
    if (fflush(f) != 0 || ferror(f)) {
        return false;
    }
    return !sync || fsync(fileno(f)) == 0;
}

enum slap_status outfile_close(struct outfile *of, char *err, size_t err_len)
{
    if (of->f == NULL) {
        return SLAP_OK;
    }
    bool written = flushed(of->f, of->tmp != NULL);
    int why = of->guarded && of->why != 0 ? of->why : errno;
    if (of->borrowed) {
        of->f = NULL;
        return written ? SLAP_OK : fail(of->path, why, err, err_len);
    }
    if (fclose(of->f) != 0 && written) {
        written = false;
        why = errno;
    }
    of->f = NULL;
    if (written && of->tmp != NULL && rename(of->tmp, of->target) != 0) {
        written = false;
        why = errno;
    }
    if (written) {
        free(of->tmp); /* renamed: nothing to remove */
        of->tmp = NULL;
    }
    outfile_discard(of);
    return written ? SLAP_OK : fail(of->path, why, err, err_len);
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
