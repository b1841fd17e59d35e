/* --timestamps=kernel: the kernel's arrival stamps asked for, read from recvmsg's cmsgs, and
 * turned into slap's clock. */
#ifndef SLAP_STAMP_H
#define SLAP_STAMP_H

#include <stdint.h>
#include <sys/socket.h>

#include "slap/base/common.h"
#include "slap/net/conn_clock.h"

/* Room for the one cmsg a stamped read brings (struct scm_timestamping: three timespecs). */
#define STAMP_CONTROL 64

/* Ask the kernel to stamp what arrives on fd in software (SO_TIMESTAMPING with
 * SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE). 0, or -1 with errno. A socket
 * the kernel does not stamp (unix) takes the option and brings no stamp. */
int stamp_enable(int fd);
/* The software arrival stamp recvmsg brought in m's control bytes, CLOCK_REALTIME in
 * nanoseconds; 0 if none came. */
uint64_t stamp_of(const struct msghdr *m);
/* Set k's offset between CLOCK_REALTIME and slap's clock (CLOCK_MONOTONIC) now. */
void stamp_clock_set(struct conn_clock *k, uint64_t now_ns);

/*
 * A stamp of CLOCK_REALTIME in slap's clock, read at now_ns (after the read that brought it).
 * The two clocks run at the same rate (NTP slews both alike); only a step of the wall clock
 * moves their offset, so it is read again once a second, and whenever a stamp lands after
 * now_ns (it cannot). A stamp still after now_ns is now_ns.
 */
static inline uint64_t stamp_in_clock(struct conn_clock *k, uint64_t real_ns, uint64_t now_ns)
{
    if (now_ns - k->set_ns > SLAP_NS_PER_SEC) {
        stamp_clock_set(k, now_ns);
    }
    uint64_t at = real_ns - k->real_minus_mono_ns;
    if (at > now_ns) {
        stamp_clock_set(k, now_ns);
        at = real_ns - k->real_minus_mono_ns;
    }
    return at > now_ns ? now_ns : at;
}

#endif
