/* The load host's CPUs: how many slap may use, and how busy all of them were (from /proc). */
#include "slap/base/hostcpu.h"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct hostcpu_sample hostcpu_read(void)
{
    struct hostcpu_sample s = {.ok = false};
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "re");
    if (f == NULL) {
        return s;
    }
    /* cpu  user nice system idle iowait irq softirq steal (guest time is inside user) */
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n >= 4) {
        s.ok = true;
        s.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        s.total = s.busy + v[3] + v[4];
        s.steal = v[7];
    }
    return s;
}

double hostcpu_busy(const struct hostcpu_sample *before, const struct hostcpu_sample *after)
{
    if (!before->ok || !after->ok || after->total <= before->total || after->busy < before->busy) {
        return -1.0;
    }
    return (double)(after->busy - before->busy) / (double)(after->total - before->total);
}

double hostcpu_steal(const struct hostcpu_sample *before, const struct hostcpu_sample *after)
{
    if (hostcpu_busy(before, after) < 0 || after->steal < before->steal) {
        return -1.0;
    }
    return (double)(after->steal - before->steal) / (double)(after->total - before->total);
}

uint32_t hostcpu_online(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1;
}

/* A CPU quota as CPUs (quota / period) from the first number pair in path; 0 when none. */
static double quota_from(const char *path, bool v2)
{
    char buf[64];
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        return 0;
    }
    double cpus = 0;
    if (fgets(buf, sizeof(buf), f) != NULL) {
        long long quota = -1, period = 0;
        if (v2 && sscanf(buf, "%lld %lld", &quota, &period) == 2 && quota > 0 && period > 0) {
            cpus = (double)quota / (double)period;
        } else if (!v2 && sscanf(buf, "%lld", &quota) == 1 && quota > 0) {
            cpus = (double)quota;
        }
    }
    fclose(f);
    if (!v2 && cpus > 0) { /* v1: the period is in a file of its own */
        char ppath[512];
        long long period = 0;
        snprintf(ppath, sizeof(ppath), "%.*s/cpu.cfs_period_us", (int)(strrchr(path, '/') - path),
                 path);
        f = fopen(ppath, "re");
        if (f == NULL || fscanf(f, "%lld", &period) != 1 || period <= 0) {
            cpus = 0;
        } else {
            cpus /= (double)period;
        }
        if (f != NULL) {
            fclose(f);
        }
    }
    return cpus;
}

/* The quota of this process's own cgroup (not its ancestors'), as CPUs; 0 when none. */
static double cgroup_quota(void)
{
    char line[512], path[1024];
    double cpus = 0;
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (f == NULL) {
        return 0;
    }
    while (cpus == 0 && fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *rel = strchr(line, ':') != NULL ? strchr(strchr(line, ':') + 1, ':') : NULL;
        if (rel == NULL) {
            continue;
        }
        if (strncmp(line, "0::", 3) == 0) {
            snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", rel + 1);
            cpus = quota_from(path, true);
        } else if (strstr(line, ":cpu,") != NULL || strstr(line, ",cpu:") != NULL ||
                   strstr(line, ":cpu:") != NULL) {
            snprintf(path, sizeof(path), "/sys/fs/cgroup/cpu%s/cpu.cfs_quota_us", rel + 1);
            cpus = quota_from(path, false);
        }
    }
    fclose(f);
    return cpus;
}

double hostcpu_allowed(void)
{
    cpu_set_t set;
    double cpus = (double)hostcpu_online();
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
        cpus = (double)CPU_COUNT(&set);
    }
    double quota = cgroup_quota();
    return quota > 0 && quota < cpus ? quota : cpus;
}

static bool same_address(const struct sockaddr *a, const struct sockaddr *b)
{
    if (a->sa_family != b->sa_family) {
        return false;
    }
    if (a->sa_family == AF_INET) {
        return ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)(const void *)b)->sin_addr.s_addr;
    }
    return memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
                  &((const struct sockaddr_in6 *)(const void *)b)->sin6_addr,
                  sizeof(struct in6_addr)) == 0;
}

bool hostcpu_address_local(const struct sockaddr *addr)
{
    if (addr->sa_family == AF_UNIX) {
        return true;
    }
    if (addr->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)addr;
        if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) {
            return true;
        }
    } else if (addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)addr;
        if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) {
            return true;
        }
    } else {
        return false;
    }
    struct ifaddrs *ifs = NULL;
    bool local = false;
    if (getifaddrs(&ifs) != 0) {
        return false;
    }
    for (struct ifaddrs *i = ifs; i != NULL && !local; i = i->ifa_next) {
        local = i->ifa_addr != NULL && same_address(i->ifa_addr, addr);
    }
    freeifaddrs(ifs);
    return local;
}
