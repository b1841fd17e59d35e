/* Bytes from outside (a server's, a file name, a URL) made safe to print in a message. */
#ifndef SLAP_QUOTE_H
#define SLAP_QUOTE_H

#include <stddef.h>
#include <stdio.h>

#define QUOTE_PATH_MAX 200 /* bytes of a name shown; more is cut, with "..." after the mark */
#define QUOTE_PATH_BUF (QUOTE_PATH_MAX * 4 + 8) /* room for a name quoted whole */

/*
 * bytes (len of them, at most max shown) between two marks ('"' or '\''), appended at *at
 * and cut before end - 1 (*at stays before end; the caller puts the NUL): printable ASCII as
 * it is, the mark, '\\' and every other byte (control bytes, escape sequences, newlines,
 * non-ASCII) as \xNN, so that nothing printed can move the cursor, paint the terminal or
 * start a line of its own. "..." follows the closing mark when bytes were cut.
 */
void quote_put(char **at, char *end, const char *bytes, size_t len, size_t max, char mark);

/* text written to out with every control byte (below 0x20, and 0x7f) as \xNN and the rest as
 * it is: a message that may hold a user's or a file's words (an option's value, a rule) can
 * then neither move the cursor nor paint the terminal. */
void quote_controls(FILE *out, const char *text);

/* A name (a path, a URL) quoted in single quotes into buf (QUOTE_PATH_BUF bytes): buf. */
const char *quote_name(char buf[QUOTE_PATH_BUF], const char *name);

#endif
