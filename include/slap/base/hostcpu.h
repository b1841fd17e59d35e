/* The load host's CPUs: how many slap may use, and how busy all of them were. */
#ifndef SLAP_HOSTCPU_H
#define SLAP_HOSTCPU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* A reading of /proc/stat's first line: clock ticks of all CPUs, busy and in all. */
struct hostcpu_sample {
    bool ok;
    uint64_t busy;  /* user + nice + system + irq + softirq + steal */
    uint64_t total; /* busy + idle + iowait */
    uint64_t steal; /* of busy: time a hypervisor gave this host's virtual CPUs to others */
};

/* The reading now; ok false when /proc/stat cannot be read. */
struct hostcpu_sample hostcpu_read(void);
/* The share of all CPUs' time that was busy between two readings; negative when unknown. */
double hostcpu_busy(const struct hostcpu_sample *before, const struct hostcpu_sample *after);
/* The share of all CPUs' time a hypervisor took (steal) between two readings; negative when
 * unknown. */
double hostcpu_steal(const struct hostcpu_sample *before, const struct hostcpu_sample *after);
/* The host's online CPUs (at least 1). */
uint32_t hostcpu_online(void);
/*
 * The CPUs this process may use: those of its affinity mask, fewer when its cgroup has a CPU
 * quota (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us): 2.0 for two CPUs, 0.2 for a 20% quota.
 */
double hostcpu_allowed(void);
/* Whether a server address is on this host (loopback, a unix socket, a local interface). */
bool hostcpu_address_local(const struct sockaddr *addr);

#endif
