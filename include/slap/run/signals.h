/* The stop signals of a run, as the command line handles them: blocked in workers, fatal after
 * the report. */
#ifndef SLAP_CLI_SIGNALS_H
#define SLAP_CLI_SIGNALS_H

#include <stdbool.h>

#define SIGNALS_GRACE_S 3 /* a stop signal no one took this long: slap is stuck, and dies of it */

/* Workers inherit a mask without the stop signals; the main thread waits for them. A watchdog
 * thread lets in a stop signal pending SIGNALS_GRACE_S, so that slap dies of it even when
 * stuck where nothing looks for one. */
void signals_block(void);
/* Is a stop signal waiting (blocked, not yet taken)? The outputs' waits ask this. */
bool signals_stop_pending(void);
/* The stop signal waiting, taken; 0 when none. */
int signals_take_pending(void);
/* Die of the signal that interrupted the run, so a surrounding shell loop stops too. */
void signals_die_of(int sig);

#endif
