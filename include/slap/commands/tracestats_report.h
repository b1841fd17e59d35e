/* slap trace-stats' report: model/tracestats' figures as text. */
#ifndef SLAP_CLI_TRACESTATS_REPORT_H
#define SLAP_CLI_TRACESTATS_REPORT_H

#include <stdio.h>

#include "slap/model/trace.h"
#include "slap/model/tracestats.h"

/* The report of what was read (c: the reader's counts; name: the file as shown). */
void tracestats_report(FILE *f, const struct tracestats *s, const struct trace_counts *c,
                       const char *name);

#endif
