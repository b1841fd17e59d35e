/* Bytes from outside (a server's, a file name, a URL) made safe to print in a message. */
#ifndef SLAP_QUOTE_H
#define SLAP_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define QUOTE_PATH_MAX 200 /* bytes of a name shown; more is cut, with "..." after the mark */
#define QUOTE_PATH_BUF (QUOTE_PATH_MAX * 4 + 8) /* room for a name quoted whole */

/*
 * One rule for every message that shows bytes from outside: printable ASCII and well-formed
 * UTF-8 of a visible character as they are; every other byte as \xNN: control bytes (escape
 * sequences, BEL, CR, newlines), DEL, a byte of no well-formed UTF-8 sequence (a stray 0xff, a
 * lead byte alone), and the characters that act without showing (C1 controls, zero-width and
 * bidirectional marks, line separators). Nothing printed can then move the cursor, paint the
 * terminal, reorder the line or start a line of its own, and a name in UTF-8 stays readable.
 */

/*
 * bytes (len of them, at most max shown) between two marks ('"' or '\''), appended at *at
 * and cut before end - 1 (*at stays before end; the caller puts the NUL), by the rule above,
 * the mark and '\\' as \xNN too; a character that does not fit whole is left out. "..."
 * follows the closing mark when bytes were cut.
 */
void quote_put(char **at, char *end, const char *bytes, size_t len, size_t max, char mark);

/* text written to out by the rule above ('\\' as it is, so a name quote_name() quoted in it
 * is shown once): a message that may hold a user's or a file's words (an option's value, a
 * rule) can then neither move the cursor nor paint the terminal. */
void quote_controls(FILE *out, const char *text);

/* Whether the rule shows every one of the len bytes as it is (nothing would be \xNN): a name
 * that may then appear in reports and files unquoted. */
bool quote_as_is(const char *bytes, size_t len);

/* One line of a message: prefix (slap's own words, "slap merge: "), then text by the rule (a
 * lower layer's message, which may hold a name or a file's words), then a newline. */
void quote_line(FILE *out, const char *prefix, const char *text);

/* A name (a path, a URL) quoted in single quotes into buf (QUOTE_PATH_BUF bytes): buf. */
const char *quote_name(char buf[QUOTE_PATH_BUF], const char *name);

/* text by the rule into buf (QUOTE_PATH_BUF bytes), without marks ('\\' as it is), cut after
 * QUOTE_PATH_MAX bytes with "...": buf. For a name a table or a report shows as the user gave
 * it (a side of slap compare), where a plain name must stay as it was. */
const char *quote_text(char buf[QUOTE_PATH_BUF], const char *text);

#endif
