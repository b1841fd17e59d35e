/* --timestamps=kernel: the kernel's software arrival stamps on a socket, and their clock. */
#include "stamp.h"

#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <time.h>

int stamp_enable(int fd)
{
    int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags));
}

uint64_t stamp_of(const struct msghdr *m)
{
    for (const struct cmsghdr *h = CMSG_FIRSTHDR(m); h != NULL;
         h = CMSG_NXTHDR((struct msghdr *)m, (struct cmsghdr *)h)) {
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SO_TIMESTAMPING &&
            h->cmsg_len >= CMSG_LEN(sizeof(struct scm_timestamping))) {
            const struct scm_timestamping *t = (const void *)CMSG_DATA(h);
            return (uint64_t)t->ts[0].tv_sec * SLAP_NS_PER_SEC + (uint64_t)t->ts[0].tv_nsec;
        }
    }
    return 0;
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * SLAP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* The wall clock read between two readings of the monotonic one, against their middle. */
void stamp_clock_set(struct conn_clock *k, uint64_t now_ns)
{
    uint64_t before = clock_ns(CLOCK_MONOTONIC);
    uint64_t real = clock_ns(CLOCK_REALTIME);
    uint64_t after = clock_ns(CLOCK_MONOTONIC);
    k->real_minus_mono_ns = real - (before + (after - before) / 2);
    k->set_ns = now_ns;
}

_Static_assert(CMSG_SPACE(sizeof(struct scm_timestamping)) <= STAMP_CONTROL,
               "a stamp's cmsg fits STAMP_CONTROL");
