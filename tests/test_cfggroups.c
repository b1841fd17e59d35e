/* Unit tests of a -F file's groups: the words of each group and their lines, the errors, and
 * the memaslap reader stopping at the first group. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/model/cfgfile.h"
#include "slap/model/cfggroups.h"

#define ERR_LEN 256

static void parse_ok(const char *text, struct cfg_groups *g)
{
    char err[ERR_LEN] = "";
    enum slap_status st = cfggroups_parse(text, strlen(text), "f.cfg", g, err, sizeof(err));
    if (st != SLAP_OK) {
        fail_msg("refused: %s", err);
    }
}

/* The error of text, which must be refused. */
static const char *parse_bad(const char *text, char err[ERR_LEN])
{
    struct cfg_groups g;
    assert_int_equal(cfggroups_parse(text, strlen(text), "f.cfg", &g, err, ERR_LEN), SLAP_ERROR);
    assert_int_equal(g.n, 0);
    return err;
}

static void test_groups_words_and_lines(void **state)
{
    (void)state;
    struct cfg_groups g;
    parse_ok("# two groups\n"
             "group writer   # the sets\n"
             "  --servers=127.0.0.1:1 -T 1\n"
             "\n"
             "  --ratio=1:0 -P 2000 # a fixed rate\n"
             "GROUP reader\n"
             "\t-s 127.0.0.1:2\t-c 8\r\n",
             &g);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.items[0].name, "writer");
    assert_int_equal(g.items[0].line, 2);
    assert_int_equal(g.items[0].nwords, 6);
    assert_string_equal(g.items[0].words[0].text, "--servers=127.0.0.1:1");
    assert_int_equal(g.items[0].words[0].line, 3);
    assert_string_equal(g.items[0].words[5].text, "2000");
    assert_int_equal(g.items[0].words[5].line, 5);
    assert_string_equal(g.items[1].name, "reader");
    assert_int_equal(g.items[1].nwords, 4);
    assert_string_equal(g.items[1].words[3].text, "8");
    assert_int_equal(g.items[1].words[3].line, 7);
    cfggroups_free(&g);
}

static void test_no_groups(void **state)
{
    (void)state;
    struct cfg_groups g;
    parse_ok("key\n16 16 1\ncmd\n0 1\n", &g);
    assert_int_equal(g.n, 0);
}

static void test_groups_errors(void **state)
{
    (void)state;
    char err[ERR_LEN];
    assert_string_equal(parse_bad("group a\n  -c 2\ngroup b\n# none\ngroup c\n -c 1\n", err),
                        "'f.cfg':3: group b holds no options");
    assert_string_equal(parse_bad("group a\n  -c 2\ngroup b\n", err),
                        "'f.cfg':3: group b holds no options");
    assert_string_equal(parse_bad("group a\n -c 1\ngroup a\n -c 2\n", err),
                        "'f.cfg':3: group a is named twice (first at line 1)");
    assert_non_null(
        strstr(parse_bad("-c 1\ngroup a\n -c 2\n", err), "'f.cfg':1: a file of groups"));
    assert_non_null(strstr(parse_bad("group a\n -c 2\nkey\n16 16 1\n", err),
                           "'f.cfg':3: a file of groups (line 1) holds only groups"));
    assert_non_null(strstr(parse_bad("group a/b\n -c 2\n", err), "'f.cfg':1: group 'a/b': a name"));
    assert_non_null(strstr(parse_bad("group\n -c 2\n", err), "'f.cfg':1: a group's line is"));
    assert_non_null(strstr(parse_bad("group a b\n -c 2\n", err), "'f.cfg':1: a group's line is"));
}

/* memaslap's reader: a file of groups is said (has_groups), a section before a group refused. */
static void test_cfgfile_meets_groups(void **state)
{
    (void)state;
    struct cfg_file cfg;
    char err[ERR_LEN] = "";
    const char *groups = "# groups\ngroup a\n  -c 2\n";
    assert_int_equal(cfgfile_parse(groups, strlen(groups), "f.cfg", &cfg, err, sizeof(err)),
                     SLAP_OK);
    assert_true(cfg.has_groups);
    assert_false(cfg.has_key || cfg.has_value || cfg.has_cmd);
    const char *mixed = "cmd\n0 1\ngroup a\n  -c 2\n";
    assert_int_equal(cfgfile_parse(mixed, strlen(mixed), "f.cfg", &cfg, err, sizeof(err)),
                     SLAP_ERROR);
    assert_non_null(strstr(err, "'f.cfg':3: a file of groups holds only groups: the cmd section"));
    const char *plain = "cmd\n0 1\n";
    assert_int_equal(cfgfile_parse(plain, strlen(plain), "f.cfg", &cfg, err, sizeof(err)), SLAP_OK);
    assert_false(cfg.has_groups);
}

/* What each reader makes of len bytes of text: refused (-1), no groups (0) or groups (1). */
static int groups_said(const char *text, size_t len, int *by_cfgfile)
{
    struct cfg_file cfg;
    struct cfg_groups g;
    char err[ERR_LEN];
    *by_cfgfile =
        cfgfile_parse(text, len, "f.cfg", &cfg, err, sizeof(err)) != SLAP_OK ? -1 : cfg.has_groups;
    if (cfggroups_parse(text, len, "f.cfg", &g, err, sizeof(err)) != SLAP_OK) {
        return -1;
    }
    int said = g.n > 0;
    cfggroups_free(&g);
    return said;
}

/* The two readers of a -F file agree on whether it holds groups (else slap ran a file of
 * groups as one plain run): a byte order mark first, "group#x", a first line of too many
 * words. */
static void test_readers_agree(void **state)
{
    (void)state;
    int by_cfgfile;
    static const char bom[] = "\xef\xbb\xbfgroup a\n -c 2\n";
    assert_int_equal(groups_said(bom, sizeof(bom) - 1, &by_cfgfile), 1);
    assert_int_equal(by_cfgfile, 1);
    static const char hash[] = "group#x a\n -c 2\n";
    assert_int_equal(groups_said(hash, sizeof(hash) - 1, &by_cfgfile), 0);
    assert_int_equal(by_cfgfile, -1);
    char *wide = malloc(8 + 300 * 3 + 1);
    assert_non_null(wide);
    strcpy(wide, "group a");
    for (int i = 0; i < 300; i++) {
        strcat(wide, " -c");
    }
    assert_int_equal(groups_said(wide, strlen(wide), &by_cfgfile), -1); /* too many words */
    assert_int_equal(by_cfgfile, 1);
    free(wide);
}

/* Bytes no text holds: a NUL refused (a word would end there unseen), a control byte in a name
 * shown as \xNN. */
static void test_groups_hostile_bytes(void **state)
{
    (void)state;
    struct cfg_groups g;
    char err[ERR_LEN];
    static const char nul[] = "group a\n -c 1\0garbage\n";
    assert_int_equal(cfggroups_parse(nul, sizeof(nul) - 1, "f.cfg", &g, err, sizeof(err)),
                     SLAP_ERROR);
    assert_string_equal(err, "'f.cfg':2: a NUL byte: a file of groups is text");
    assert_int_equal(g.n, 0);
    assert_string_equal(parse_bad("group \x1b[31mred\n -c 1\n", err),
                        "'f.cfg':1: group '\\x1b[31mred': a name holds letters, digits, '.', '_' "
                        "and '-'");
}

/* A FIFO no one writes to is refused at once, never waited on; so is a file past 1 MiB. */
static void test_load_never_waits(void **state)
{
    (void)state;
    char dir[] = "/tmp/slap-test-cfggroups-XXXXXX", fifo[64], err[ERR_LEN];
    struct cfg_groups g;
    struct cfg_file cfg;
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(10); /* a hang fails the test */
    assert_int_equal(cfggroups_load(fifo, &g, err, sizeof(err)), SLAP_ERROR);
    assert_non_null(strstr(err, "a pipe with nothing written to it"));
    assert_int_equal(cfgfile_load(fifo, &cfg, err, sizeof(err)), SLAP_ERROR);
    assert_non_null(strstr(err, "a pipe with nothing written to it"));
    assert_int_equal(cfggroups_load("/dev/zero", &g, err, sizeof(err)), SLAP_ERROR);
    assert_string_equal(err, "cannot read '/dev/zero': larger than 1048576 bytes");
    alarm(0);
    unlink(fifo);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_words_and_lines), cmocka_unit_test(test_no_groups),
        cmocka_unit_test(test_groups_errors),          cmocka_unit_test(test_cfgfile_meets_groups),
        cmocka_unit_test(test_readers_agree),          cmocka_unit_test(test_groups_hostile_bytes),
        cmocka_unit_test(test_load_never_waits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
