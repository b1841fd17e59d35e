/* A server's figures for the verdict, from its stats or its process. */
#include "slap/engine/limits_measure.h"

#include <stdio.h>
#include <string.h>

void limits_server_from_stats(struct limits_server *s, const char *name, const char *label,
                              const struct server_stats_pair *p, uint32_t host_cpus)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->name, sizeof(s->name), "%s", name);
    snprintf(s->label, sizeof(s->label), "%s", label != NULL ? label : "");
    s->local = host_cpus > 0;
    if (!p->ok || p->after_ns <= p->before_ns) {
        snprintf(s->note, sizeof(s->note), "%s", p->ok ? "stats not read" : p->note);
        return;
    }
    s->known = true;
    s->cpu_s = (p->after.rusage_user - p->before.rusage_user) +
               (p->after.rusage_system - p->before.rusage_system);
    s->cpu_s = s->cpu_s > 0 ? s->cpu_s : 0;
    s->threads = p->after.threads;
    s->seconds = (double)(p->after_ns - p->before_ns) / (double)SLAP_NS_PER_SEC;
    double cpus = s->threads > 0 ? s->threads : 1;
    if (host_cpus > 0 && cpus > host_cpus) {
        cpus = host_cpus; /* four threads on two CPUs are saturated at two CPUs' worth */
    }
    s->busy = s->cpu_s / (s->seconds * cpus);
}

void limits_server_from_proc(struct limits_server *s, const char *name, const char *label, int pid,
                             double cpu_s, double busiest, uint32_t threads, double seconds)
{
    struct limits_server from = {0};
    memcpy(from.note, s->note, sizeof(from.note)); /* the line still says why */
    *s = from;
    snprintf(s->name, sizeof(s->name), "%s", name);
    snprintf(s->label, sizeof(s->label), "%s", label != NULL ? label : "");
    s->known = true;
    s->local = true;
    s->pid = pid;
    s->from_proc = true;
    s->cpu_s = cpu_s;
    s->threads = threads;
    s->seconds = seconds;
    s->busy = busiest; /* a proxy's event loop is one thread: the busiest one is the limit */
}
