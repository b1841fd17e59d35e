/* Unit tests of output files: regular files replaced whole, everything else written in place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slap/base/outfile.h"

/* A fresh directory for one test, and paths in it. */
struct scratch {
    char dir[64];
    char path[128];
};

static void scratch_make(struct scratch *s)
{
    snprintf(s->dir, sizeof(s->dir), "/tmp/slap-test-outfile-XXXXXX");
    assert_non_null(mkdtemp(s->dir));
}

static const char *scratch_path(struct scratch *s, const char *name)
{
    snprintf(s->path, sizeof(s->path), "%s/%s", s->dir, name);
    return s->path;
}

/* Remove the directory, failing the test if a temporary file was left in it. */
static void scratch_remove(struct scratch *s)
{
    DIR *d = opendir(s->dir);
    assert_non_null(d);
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            assert_null(strstr(e->d_name, ".tmp."));
            unlinkat(dirfd(d), e->d_name, 0);
        }
    }
    closedir(d);
    assert_int_equal(rmdir(s->dir), 0);
}

static void write_text(FILE *out, const void *text)
{
    fputs(text, out);
}

static void assert_content(const char *path, const char *want)
{
    char got[256] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(got, 1, sizeof(got) - 1, f);
    got[n] = '\0';
    fclose(f);
    assert_string_equal(got, want);
}

static void new_name_is_created(void **state)
{
    (void)state;
    struct scratch s;
    char err[256];
    scratch_make(&s);
    const char *path = scratch_path(&s, "new.json");
    assert_int_equal(outfile_save(path, write_text, "{}\n", err, sizeof(err)), SLAP_OK);
    assert_content(path, "{}\n");
    scratch_remove(&s);
}

static void regular_file_replaced_whole_with_its_mode(void **state)
{
    (void)state;
    struct scratch s;
    struct stat before, after;
    struct outfile of;
    char err[256];
    scratch_make(&s);
    const char *path = scratch_path(&s, "old.csv");
    assert_int_equal(outfile_save(path, write_text, "old\n", err, sizeof(err)), SLAP_OK);
    assert_int_equal(chmod(path, 0604), 0);
    assert_int_equal(stat(path, &before), 0);
    assert_int_equal(outfile_open(&of, path, err, sizeof(err)), SLAP_OK);
    assert_true(outfile_whole(&of));
    fputs("new\n", of.f);
    fflush(of.f);
    assert_content(path, "old\n"); /* untouched until closed */
    assert_int_equal(outfile_close(&of, err, sizeof(err)), SLAP_OK);
    assert_int_equal(stat(path, &after), 0);
    assert_true(after.st_ino != before.st_ino);
    assert_int_equal(after.st_mode & 07777, 0604);
    assert_content(path, "new\n");
    scratch_remove(&s);
}

static void discard_leaves_the_old_file(void **state)
{
    (void)state;
    struct scratch s;
    struct outfile of;
    char err[256];
    scratch_make(&s);
    const char *path = scratch_path(&s, "kept");
    assert_int_equal(outfile_save(path, write_text, "kept\n", err, sizeof(err)), SLAP_OK);
    assert_int_equal(outfile_open(&of, path, err, sizeof(err)), SLAP_OK);
    fputs("half", of.f);
    outfile_discard(&of);
    assert_content(path, "kept\n");
    scratch_remove(&s);
}

static void symbolic_link_keeps_the_link(void **state)
{
    (void)state;
    struct scratch s;
    char err[256], link_path[128], target[128];
    scratch_make(&s);
    memcpy(target, scratch_path(&s, "target"), sizeof(target));
    memcpy(link_path, scratch_path(&s, "link"), sizeof(link_path));
    assert_int_equal(outfile_save(target, write_text, "old\n", err, sizeof(err)), SLAP_OK);
    assert_int_equal(symlink("target", link_path), 0);
    assert_int_equal(outfile_save(link_path, write_text, "new\n", err, sizeof(err)), SLAP_OK);
    struct stat st;
    assert_int_equal(lstat(link_path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_content(target, "new\n");
    /* a dangling link: the file it names is created, the link stays */
    unlink(target);
    assert_int_equal(outfile_save(link_path, write_text, "again\n", err, sizeof(err)), SLAP_OK);
    assert_int_equal(lstat(link_path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_content(target, "again\n");
    scratch_remove(&s);
}

static void device_written_in_place(void **state)
{
    (void)state;
    struct outfile of;
    struct stat before, after;
    char err[256];
    assert_int_equal(stat("/dev/null", &before), 0);
    assert_int_equal(outfile_open(&of, "/dev/null", err, sizeof(err)), SLAP_OK);
    assert_false(outfile_whole(&of));
    fputs("nothing\n", of.f);
    assert_int_equal(outfile_close(&of, err, sizeof(err)), SLAP_OK);
    assert_int_equal(stat("/dev/null", &after), 0);
    assert_true(S_ISCHR(after.st_mode) && after.st_ino == before.st_ino);
    /* a write that fails is told when it is closed */
    assert_int_equal(outfile_open(&of, "/dev/full", err, sizeof(err)), SLAP_OK);
    fputs("nothing\n", of.f);
    assert_int_equal(outfile_close(&of, err, sizeof(err)), SLAP_ERROR);
    assert_string_equal(err, "cannot write '/dev/full': No space left on device");
}

static void descriptor_by_name(void **state)
{
    (void)state;
    int fds[2];
    char err[256], name[64], got[16] = "";
    assert_int_equal(pipe(fds), 0);
    snprintf(name, sizeof(name), "/proc/self/fd/%d", fds[1]);
    assert_int_equal(outfile_save(name, write_text, "piped\n", err, sizeof(err)), SLAP_OK);
    snprintf(name, sizeof(name), "/dev/fd/%d", fds[1]);
    assert_int_equal(outfile_save(name, write_text, "again\n", err, sizeof(err)), SLAP_OK);
    close(fds[1]);
    assert_int_equal(read(fds[0], got, sizeof(got) - 1), 12);
    assert_string_equal(got, "piped\nagain\n");
    close(fds[0]);
    assert_int_equal(outfile_save("/dev/fd/999", write_text, "", err, sizeof(err)), SLAP_ERROR);
    assert_string_equal(err, "cannot write '/dev/fd/999': Bad file descriptor");
}

static void fifo_with_a_reader(void **state)
{
    (void)state;
    struct scratch s;
    char err[256], got[16] = "";
    scratch_make(&s);
    const char *path = scratch_path(&s, "fifo");
    assert_int_equal(mkfifo(path, 0600), 0);
    FILE *reader = fopen(path, "r+"); /* r+ opens at once: a reader before any writer */
    assert_non_null(reader);
    assert_int_equal(outfile_save(path, write_text, "through\n", err, sizeof(err)), SLAP_OK);
    assert_non_null(fgets(got, sizeof(got), reader));
    assert_string_equal(got, "through\n");
    fclose(reader);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    scratch_remove(&s);
}

static void unwritable_names_say_why(void **state)
{
    (void)state;
    struct scratch s;
    char err[512], want[256], under[160];
    scratch_make(&s);
    const char *file = scratch_path(&s, "file");
    assert_int_equal(outfile_save(file, write_text, "x\n", err, sizeof(err)), SLAP_OK);
    snprintf(under, sizeof(under), "%s/under.json", file);
    assert_int_equal(outfile_save(under, write_text, "", err, sizeof(err)), SLAP_ERROR);
    snprintf(want, sizeof(want), "cannot write '%s': Not a directory", under);
    assert_string_equal(err, want);
    assert_int_equal(outfile_save(s.dir, write_text, "", err, sizeof(err)), SLAP_ERROR);
    snprintf(want, sizeof(want), "cannot write '%s': Is a directory", s.dir);
    assert_string_equal(err, want);
    scratch_remove(&s);
}

static void two_names_for_one_file(void **state)
{
    (void)state;
    struct scratch s;
    char err[256], a[160], b[160], link[160];
    scratch_make(&s);
    snprintf(a, sizeof(a), "%s/x.json", s.dir);
    snprintf(b, sizeof(b), "%s/./x.json", s.dir);
    assert_true(outfile_same(a, a)); /* not there yet */
    assert_true(outfile_same(a, b)); /* ./x and x, not there yet */
    assert_true(outfile_same("/nonexistent/dir/x", "/nonexistent/dir/x"));
    assert_false(outfile_same(a, scratch_path(&s, "y.json")));
    assert_int_equal(outfile_save(a, write_text, "x\n", err, sizeof(err)), SLAP_OK);
    assert_true(outfile_same(a, b)); /* and there */
    snprintf(link, sizeof(link), "%s/link", s.dir);
    assert_int_equal(symlink("x.json", link), 0);
    assert_true(outfile_same(link, a));
    assert_int_equal(unlink(a), 0);
    assert_true(outfile_same(link, b)); /* a dangling link and the name it leads to */
    assert_int_equal(unlink(link), 0);
    assert_false(outfile_same("/dev/null", "/dev/null")); /* written in place, each in turn */
    assert_false(outfile_same("-", "-"));
    assert_false(outfile_same("/dev/stdout", "/proc/self/fd/1"));
    scratch_remove(&s);
}

static void temporary_name_of_nobody_else(void **state)
{
    (void)state;
    struct scratch s;
    struct outfile of;
    struct stat st;
    char err[256], theirs[160];
    scratch_make(&s);
    const char *path = scratch_path(&s, "r.json");
    snprintf(theirs, sizeof(theirs), "%s.tmp.%ld", path, (long)getpid());
    assert_int_equal(outfile_save(theirs, write_text, "theirs\n", err, sizeof(err)), SLAP_OK);
    assert_int_equal(outfile_open(&of, path, err, sizeof(err)), SLAP_OK);
    assert_string_not_equal(of.tmp, theirs);
    assert_int_equal(stat(of.tmp, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600); /* until finished */
    fputs("mine\n", of.f);
    assert_int_equal(outfile_close(&of, err, sizeof(err)), SLAP_OK);
    assert_content(theirs, "theirs\n");
    assert_content(path, "mine\n");
    assert_int_equal(unlink(theirs), 0);
    scratch_remove(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(new_name_is_created),
        cmocka_unit_test(regular_file_replaced_whole_with_its_mode),
        cmocka_unit_test(discard_leaves_the_old_file),
        cmocka_unit_test(symbolic_link_keeps_the_link),
        cmocka_unit_test(device_written_in_place),
        cmocka_unit_test(descriptor_by_name),
        cmocka_unit_test(fifo_with_a_reader),
        cmocka_unit_test(unwritable_names_say_why),
        cmocka_unit_test(two_names_for_one_file),
        cmocka_unit_test(temporary_name_of_nobody_else),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
