/* ctest labels: threads (scripts/tsan.sh runs it: the Pushgateway pusher runs a thread)
 * Unit tests of --push and --metrics' addresses: URLs taken and refused, the group's path, and
 * the PUT against a fake gateway (accepted, refused, a 500 with unprintable bytes, silence). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "slap/export/live.h"
#include "slap/export/push.h"

static void urls_taken_and_refused(void **state)
{
    (void)state;
    assert_null(push_url_problem("http://127.0.0.1:9091"));
    assert_null(push_url_problem("http://gateway.example:9091/"));
    assert_null(push_url_problem("http://[::1]:9091/prefix"));
    assert_null(push_url_problem("http://localhost"));
    assert_non_null(push_url_problem("https://127.0.0.1:9091"));
    assert_non_null(push_url_problem("127.0.0.1:9091"));
    assert_non_null(push_url_problem("http://"));
    assert_non_null(push_url_problem("http://:9091"));
    assert_non_null(push_url_problem("http://host:0"));
    assert_non_null(push_url_problem("http://host:65536"));
    assert_non_null(push_url_problem("http://host:9x"));
    assert_non_null(push_url_problem("http://ho st:9091"));
    assert_non_null(push_url_problem("http://[::1:9091"));
    assert_non_null(push_url_problem("http://host:9091/a b"));
    assert_non_null(push_url_problem("http://host:9091/a?b=1"));
}

static void group_paths(void **state)
{
    struct push_target t;
    (void)state;
    assert_int_equal(push_target_init(&t, "http://127.0.0.1:9091", "nightly-1"), SLAP_OK);
    assert_string_equal(t.path, "/metrics/job/slap/instance/nightly-1");
    assert_string_equal(t.host, "127.0.0.1");
    assert_string_equal(t.port, "9091");
    assert_string_equal(t.authority, "127.0.0.1:9091");
    assert_int_equal(push_target_init(&t, "http://gw/pg/", "a"), SLAP_OK);
    assert_string_equal(t.path, "/pg/metrics/job/slap/instance/a");
    assert_string_equal(t.port, "80");
    /* a group the URL names is used as it is */
    assert_int_equal(push_target_init(&t, "http://gw:1/metrics/job/nightly/host/h1", "a"), SLAP_OK);
    assert_string_equal(t.path, "/metrics/job/nightly/host/h1");
    /* a label that is not plain path text goes base64url-encoded, without padding */
    assert_int_equal(push_target_init(&t, "http://[::1]:9091", "/var/tmp"), SLAP_OK);
    assert_string_equal(t.path, "/metrics/job/slap/instance@base64/L3Zhci90bXA");
    assert_string_equal(t.host, "::1");
    assert_int_equal(push_target_init(&t, "http://h:2", "a b?"), SLAP_OK);
    assert_string_equal(t.path, "/metrics/job/slap/instance@base64/YSBiPw");
    assert_int_equal(push_target_init(&t, "ftp://h", "a"), SLAP_ERROR);
}

static void metrics_addresses(void **state)
{
    char addr[64];
    uint16_t port = 1;
    (void)state;
    assert_null(live_metrics_problem("0", addr, sizeof(addr), &port));
    assert_string_equal(addr, "127.0.0.1");
    assert_int_equal(port, 0);
    assert_null(live_metrics_problem(":9100", addr, sizeof(addr), &port));
    assert_string_equal(addr, "127.0.0.1");
    assert_int_equal(port, 9100);
    assert_null(live_metrics_problem("localhost:9100", addr, sizeof(addr), &port));
    assert_string_equal(addr, "127.0.0.1");
    assert_null(live_metrics_problem("0.0.0.0:9100", addr, sizeof(addr), &port));
    assert_string_equal(addr, "0.0.0.0"); /* written out: bound as written */
    assert_null(live_metrics_problem("[::1]:65535", addr, sizeof(addr), &port));
    assert_string_equal(addr, "::1");
    assert_int_equal(port, 65535);
    assert_non_null(live_metrics_problem("", NULL, 0, NULL));
    assert_non_null(live_metrics_problem("host.example:9100", NULL, 0, NULL));
    assert_non_null(live_metrics_problem("127.0.0.1:65536", NULL, 0, NULL));
    assert_non_null(live_metrics_problem("127.0.0.1:", NULL, 0, NULL));
    assert_non_null(live_metrics_problem("[::1]9100", NULL, 0, NULL));
    assert_non_null(live_metrics_problem("[nope]:9100", NULL, 0, NULL));
    assert_non_null(live_metrics_problem("9100x", NULL, 0, NULL));
}

/* A fake gateway: accepts one connection, reads the request, answers reply (NULL: says
 * nothing and holds the connection until the test ends). */
struct fake {
    int listener;
    uint16_t port;
    const char *reply;
    char request[8192];
    size_t request_len;
    pthread_t thread;
};

static void *fake_main(void *arg)
{
    struct fake *f = arg;
    int fd = accept(f->listener, NULL, NULL);
    if (fd < 0) {
        return NULL;
    }
    for (;;) { /* until the body (Content-Length) is in */
        ssize_t n =
            recv(fd, f->request + f->request_len, sizeof(f->request) - 1 - f->request_len, 0);
        if (n <= 0) {
            break;
        }
        f->request_len += (size_t)n;
        f->request[f->request_len] = '\0';
        const char *end = strstr(f->request, "\r\n\r\n");
        const char *cl = strstr(f->request, "Content-Length: ");
        if (end != NULL && cl != NULL &&
            f->request_len >= (size_t)(end + 4 - f->request) + strtoul(cl + 16, NULL, 10)) {
            break;
        }
    }
    if (f->reply != NULL) {
        send(fd, f->reply, strlen(f->reply), MSG_NOSIGNAL);
        close(fd);
    } else {
        sleep(2);
        close(fd);
    }
    return NULL;
}

static void fake_start(struct fake *f, const char *reply)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof(sin);
    memset(f, 0, sizeof(*f));
    f->reply = reply;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f->listener = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(f->listener >= 0);
    assert_int_equal(bind(f->listener, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(listen(f->listener, 4), 0);
    assert_int_equal(getsockname(f->listener, (struct sockaddr *)&sin, &len), 0);
    f->port = ntohs(sin.sin_port);
    assert_int_equal(pthread_create(&f->thread, NULL, fake_main, f), 0);
}

static void fake_stop(struct fake *f)
{
    pthread_join(f->thread, NULL);
    close(f->listener);
}

static void target_of(struct push_target *t, uint16_t port)
{
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", port);
    assert_int_equal(push_target_init(t, url, "run1"), SLAP_OK);
}

static void put_accepted(void **state)
{
    struct fake f;
    struct push_target t;
    char err[256] = "";
    (void)state;
    fake_start(&f, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    target_of(&t, f.port);
    assert_int_equal(push_put(&t, "slap_x 1\n", 9, SLAP_NS_PER_SEC, err, sizeof(err)), SLAP_OK);
    fake_stop(&f);
    assert_memory_equal(f.request, "PUT /metrics/job/slap/instance/run1 HTTP/1.1\r\n", 46);
    assert_non_null(strstr(f.request, "\r\nContent-Length: 9\r\n"));
    assert_non_null(strstr(f.request, "\r\nContent-Type: text/plain; version=0.0.4"));
    assert_string_equal(f.request + f.request_len - 9, "slap_x 1\n");
}

static void put_refused_and_failed(void **state)
{
    struct fake f;
    struct push_target t;
    char err[512] = "";
    (void)state;
    /* a 500 whose body holds an escape sequence: said, made printable */
    fake_start(&f, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 9\r\n\r\nbad\033[2J!\n");
    target_of(&t, f.port);
    assert_int_equal(push_put(&t, "x\n", 2, SLAP_NS_PER_SEC, err, sizeof(err)), SLAP_ERROR);
    fake_stop(&f);
    assert_string_equal(err, "the server answered HTTP 500 Internal Server Error: bad?[2J!");
    assert_null(strchr(err, '\033'));
    /* not HTTP at all */
    fake_start(&f, "\001\002garbage\r\n\r\n");
    target_of(&t, f.port);
    assert_int_equal(push_put(&t, "x\n", 2, SLAP_NS_PER_SEC, err, sizeof(err)), SLAP_ERROR);
    fake_stop(&f);
    assert_non_null(strstr(err, "not an HTTP answer"));
    assert_null(strchr(err, '\001'));
    /* nothing listens: the port closed */
    uint16_t closed = f.port;
    target_of(&t, closed);
    assert_int_equal(push_put(&t, "x\n", 2, SLAP_NS_PER_SEC, err, sizeof(err)), SLAP_ERROR);
    assert_non_null(strstr(err, "cannot connect to 127.0.0.1:"));
    assert_non_null(strstr(err, "refused"));
}

static void put_silent_times_out(void **state)
{
    struct fake f;
    struct push_target t;
    char err[256] = "";
    (void)state;
    fake_start(&f, NULL);
    target_of(&t, f.port);
    uint64_t start = slap_now_ns();
    assert_int_equal(push_put(&t, "x\n", 2, SLAP_NS_PER_SEC / 4, err, sizeof(err)), SLAP_ERROR);
    uint64_t took = slap_now_ns() - start;
    fake_stop(&f);
    assert_non_null(strstr(err, "did not answer within the timeout"));
    assert_true(took >= SLAP_NS_PER_SEC / 4 && took < SLAP_NS_PER_SEC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(urls_taken_and_refused), cmocka_unit_test(group_paths),
        cmocka_unit_test(metrics_addresses),      cmocka_unit_test(put_accepted),
        cmocka_unit_test(put_refused_and_failed), cmocka_unit_test(put_silent_times_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
