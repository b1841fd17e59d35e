/* What a replay sent of a trace: how many requests, which lines, over what span of its time. */
#include "slap/model/trace.h"

void trace_progress_add(struct trace_progress *p, const struct trace_request *r)
{
    if (p->sent == 0 || r->line < p->min_line) {
        p->min_line = r->line;
    }
    if (p->sent == 0 || r->offset_ns < p->min_ns) {
        p->min_ns = r->offset_ns;
    }
    p->max_line = r->line > p->max_line ? r->line : p->max_line;
    p->max_ns = r->offset_ns > p->max_ns ? r->offset_ns : p->max_ns;
    p->sent++;
}

void trace_progress_merge(struct trace_progress *into, const struct trace_progress *from)
{
    if (from->sent == 0) {
        return;
    }
    if (into->sent == 0) {
        *into = *from;
        return;
    }
    into->min_line = from->min_line < into->min_line ? from->min_line : into->min_line;
    into->max_line = from->max_line > into->max_line ? from->max_line : into->max_line;
    into->min_ns = from->min_ns < into->min_ns ? from->min_ns : into->min_ns;
    into->max_ns = from->max_ns > into->max_ns ? from->max_ns : into->max_ns;
    into->sent += from->sent;
}

double trace_progress_rate(const struct trace_progress *p)
{
    if (p->sent < 2 || p->max_ns == p->min_ns) {
        return 0.0;
    }
    return (double)(p->sent - 1) / ((double)(p->max_ns - p->min_ns) / 1e9); /* n - 1 gaps */
}
