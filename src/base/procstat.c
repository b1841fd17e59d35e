/* A local server process's CPU from /proc, for servers that do not answer `stats` (proxies). */
#include "slap/base/procstat.h"

#include <dirent.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#define LINE_MAX_BYTES 512

/* The inode of a listening TCP socket on addr's port and address (or a wildcard) in path. */
static bool tcp_listener(const char *path, const struct sockaddr *addr, unsigned long *inode)
{
    char line[LINE_MAX_BYTES];
    bool v6 = addr->sa_family == AF_INET6;
    unsigned port = ntohs(v6 ? ((const struct sockaddr_in6 *)(const void *)addr)->sin6_port
                             : ((const struct sockaddr_in *)(const void *)addr)->sin_port);
    FILE *f = fopen(path, "re");
    bool found = false;
    if (f == NULL) {
        return false;
    }
    while (!found && fgets(line, sizeof(line), f) != NULL) {
        char local[64];
        unsigned lport, state;
        unsigned long ino;
        /* sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout
         * inode */
        if (sscanf(line, " %*u: %63[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %*u %*u %lu", local, &lport,
                   &state, &ino) != 4 ||
            state != 0x0A || lport != port) {
            continue;
        }
        bool any = strspn(local, "0") == strlen(local);
        bool same = false;
        if (!v6 && strlen(local) == 8) {
            unsigned long a = strtoul(local, NULL, 16); /* the kernel's byte order: this host's */
            same = (uint32_t)a == ((const struct sockaddr_in *)(const void *)addr)->sin_addr.s_addr;
        } else if (v6 && strlen(local) == 32) {
            const uint8_t *b = ((const struct sockaddr_in6 *)(const void *)addr)->sin6_addr.s6_addr;
            char want[33];
            for (int w = 0; w < 4; w++) { /* four host-order 32-bit words */
                uint32_t word;
                memcpy(&word, b + 4 * w, 4);
                snprintf(want + 8 * w, 9, "%08X", word);
            }
            same = strcasecmp(local, want) == 0;
        }
        if (any || same) {
            *inode = ino;
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* The inode of a listening unix socket bound to path. */
static bool unix_listener(const char *sock_path, unsigned long *inode)
{
    char line[LINE_MAX_BYTES + PATH_MAX];
    FILE *f = fopen("/proc/net/unix", "re");
    bool found = false;
    if (f == NULL) {
        return false;
    }
    while (!found && fgets(line, sizeof(line), f) != NULL) {
        unsigned long ino;
        unsigned flags;
        int off = 0;
        /* Num RefCount Protocol Flags Type St Inode Path */
        if (sscanf(line, "%*s %*s %*s %x %*s %*s %lu %n", &flags, &ino, &off) != 2 || off == 0 ||
            (flags & 0x10000) == 0) { /* __SO_ACCEPTCON: listening */
            continue;
        }
        line[strcspn(line, "\n")] = '\0';
        if (strcmp(line + off, sock_path) == 0) {
            *inode = ino;
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* Whether process pid holds socket inode among its descriptors. */
static bool holds_socket(const char *pid, unsigned long inode)
{
    char dir[64], link[PATH_MAX], want[64];
    snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
    snprintf(want, sizeof(want), "socket:[%lu]", inode);
    DIR *d = opendir(dir);
    bool found = false;
    if (d == NULL) {
        return false;
    }
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;) {
        char path[PATH_MAX];
        if (e->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        ssize_t n = readlink(path, link, sizeof(link) - 1);
        found = n > 0 && (size_t)n == strlen(want) && memcmp(link, want, (size_t)n) == 0;
    }
    closedir(d);
    return found;
}

bool procstat_find_listener(const struct sockaddr *addr, pid_t *pid)
{
    unsigned long inode = 0;
    bool found;
    if (addr->sa_family == AF_UNIX) {
        found = unix_listener(((const struct sockaddr_un *)(const void *)addr)->sun_path, &inode);
    } else if (addr->sa_family == AF_INET || addr->sa_family == AF_INET6) {
        found = tcp_listener(addr->sa_family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6", addr,
                             &inode);
    } else {
        return false;
    }
    DIR *proc = found ? opendir("/proc") : NULL;
    bool held = false;
    if (proc == NULL) {
        return false;
    }
    for (struct dirent *e; !held && (e = readdir(proc)) != NULL;) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || (pid_t)atoi(e->d_name) == getpid()) {
            continue;
        }
        held = holds_socket(e->d_name, inode);
        *pid = held ? (pid_t)atoi(e->d_name) : *pid;
    }
    closedir(proc);
    return held;
}

/* utime + stime of /proc/PID/task/TID/stat (fields 14 and 15, after the command in parens). */
static bool thread_ticks(pid_t pid, const char *tid, uint64_t *ticks)
{
    char path[384], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid, tid);
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        return false;
    }
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *after = strrchr(buf, ')');
    unsigned long long utime, stime;
    if (after == NULL || sscanf(after + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                                &utime, &stime) != 2) {
        return false;
    }
    *ticks = utime + stime;
    return true;
}

/* The second figure of /proc/PID/task/TID/schedstat: ns runnable but waiting for a CPU. */
static bool thread_wait(pid_t pid, const char *tid, uint64_t *wait_ns)
{
    char path[384];
    unsigned long long run, wait;
    snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", (int)pid, tid);
    FILE *f = fopen(path, "re");
    bool ok = f != NULL && fscanf(f, "%llu %llu", &run, &wait) == 2;
    if (f != NULL) {
        fclose(f);
    }
    *wait_ns = ok ? wait : 0;
    return ok;
}

struct procstat_sample procstat_read(pid_t pid)
{
    struct procstat_sample s;
    char dir[64];
    memset(&s, 0, sizeof(s));
    snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (d == NULL) {
        return s;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        uint64_t ticks;
        if (e->d_name[0] == '.' || !thread_ticks(pid, e->d_name, &ticks)) {
            continue;
        }
        s.total += ticks;
        if (s.nthreads < PROCSTAT_MAX_THREADS) {
            s.tid[s.nthreads] = (pid_t)atoi(e->d_name);
            s.wait_known = thread_wait(pid, e->d_name, &s.wait_ns[s.nthreads]) &&
                           (s.nthreads == 0 || s.wait_known);
            s.ticks[s.nthreads++] = ticks;
        }
    }
    closedir(d);
    s.ok = s.nthreads > 0;
    return s;
}

bool procstat_busy(const struct procstat_sample *before, const struct procstat_sample *after,
                   double seconds, struct procstat_delta *d)
{
    double hz = (double)sysconf(_SC_CLK_TCK);
    memset(d, 0, sizeof(*d));
    if (!before->ok || !after->ok || seconds <= 0 || hz <= 0 || after->total < before->total) {
        return false;
    }
    d->cpu_s = (double)(after->total - before->total) / hz;
    d->wait_known = before->wait_known && after->wait_known;
    for (uint32_t i = 0; i < after->nthreads; i++) {
        for (uint32_t j = 0; j < before->nthreads; j++) {
            if (before->tid[j] != after->tid[i] || after->ticks[i] < before->ticks[j]) {
                continue;
            }
            double share = (double)(after->ticks[i] - before->ticks[j]) / hz / seconds;
            double wait = after->wait_ns[i] >= before->wait_ns[j]
                              ? (double)(after->wait_ns[i] - before->wait_ns[j]) / 1e9 / seconds
                              : 0;
            d->busiest = share > d->busiest ? share : d->busiest;
            d->wait_max = wait > d->wait_max ? wait : d->wait_max;
        }
    }
    d->wait_max = d->wait_known ? d->wait_max : 0;
    return true;
}
