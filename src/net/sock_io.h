/* read(2), writev(2), recvmsg(2), sendmmsg(2), recvmmsg(2) on the request path, for the transports.
 */
#ifndef SLAP_SOCK_IO_H
#define SLAP_SOCK_IO_H

#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * glibc's wrappers are cancellation points: in a program with threads each call also switches
 * asynchronous cancellation on and off, about half again the wrapper's instructions. slap
 * never cancels a thread, so on Linux it makes the same system calls through syscall(2) (the
 * sanitizers keep the wrappers, which they check).
 */
#if defined(__linux__) && defined(SYS_read) && defined(SYS_writev) && defined(SYS_sendmmsg) &&     \
    defined(SYS_recvmsg) && defined(SYS_recvmmsg) && !defined(__SANITIZE_ADDRESS__) &&             \
    !defined(__SANITIZE_THREAD__)
static inline ssize_t sock_read(int fd, void *buf, size_t len)
{
    return (ssize_t)syscall(SYS_read, fd, buf, len);
}

static inline ssize_t sock_writev(int fd, const struct iovec *iov, int n)
{
    return (ssize_t)syscall(SYS_writev, fd, iov, n);
}

static inline int sock_sendmmsg(int fd, struct mmsghdr *msgs, unsigned n)
{
    return (int)syscall(SYS_sendmmsg, fd, msgs, n, 0);
}

static inline ssize_t sock_recvmsg(int fd, struct msghdr *m)
{
    return (ssize_t)syscall(SYS_recvmsg, fd, m, 0);
}

static inline int sock_recvmmsg(int fd, struct mmsghdr *msgs, unsigned n)
{
    return (int)syscall(SYS_recvmmsg, fd, msgs, n, MSG_DONTWAIT, NULL);
}
#else
static inline ssize_t sock_read(int fd, void *buf, size_t len)
{
    return read(fd, buf, len);
}

static inline ssize_t sock_writev(int fd, const struct iovec *iov, int n)
{
    return writev(fd, iov, n);
}

static inline int sock_sendmmsg(int fd, struct mmsghdr *msgs, unsigned n)
{
    return sendmmsg(fd, msgs, n, 0);
}

static inline ssize_t sock_recvmsg(int fd, struct msghdr *m)
{
    return recvmsg(fd, m, 0);
}

static inline int sock_recvmmsg(int fd, struct mmsghdr *msgs, unsigned n)
{
    return recvmmsg(fd, msgs, n, MSG_DONTWAIT, NULL);
}
#endif

#endif
