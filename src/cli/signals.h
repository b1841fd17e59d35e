/* The stop signals of a run, as the command line handles them: blocked in workers, fatal after
 * the report. */
#ifndef SLAP_CLI_SIGNALS_H
#define SLAP_CLI_SIGNALS_H

/* Workers inherit a mask without the stop signals; the main thread waits for them. */
void signals_block(void);
/* Die of the signal that interrupted the run, so a surrounding shell loop stops too. */
void signals_die_of(int sig);

#endif
