/* Unit tests of proxy_stats: twemproxy's document read, its counts weighed against slap's, and
 * the turn of its event loop against a listener that closes on quit and one that never does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "slap/net/proxy_stats.h"
#include "slap/net/servers.h"

/* nutcracker 0.5.0's answer, one pool and one backend, as it writes it. */
static const char doc[] =
    "{\"service\":\"nutcracker\", \"source\":\"vm\", \"version\":\"0.5.0\", \"uptime\":7, "
    "\"timestamp\":1796437286, \"total_connections\":3, \"curr_connections\":1, \"p1\": "
    "{\"client_eof\":0, \"client_err\":1, \"client_connections\":0, \"server_ejects\":0, "
    "\"forward_error\":2, \"fragments\":0, \"127.0.0.1:23211\": {\"server_eof\":0, "
    "\"server_err\":3, \"server_timedout\":4, \"server_connections\":1, "
    "\"server_ejected_at\":0, \"requests\":100, \"request_bytes\":5, \"responses\":90, "
    "\"response_bytes\":5, \"in_queue\":1, \"in_queue_bytes\":0, \"out_queue\":0, "
    "\"out_queue_bytes\":0}}}";

static void test_parse(void **state)
{
    (void)state;
    struct proxy_stats p;
    char why[128] = "";
    assert_int_equal(proxy_stats_parse(doc, strlen(doc), &p, why, sizeof(why)), SLAP_OK);
    assert_true(p.requests == 100 && p.responses == 90 && p.client_err == 1);
    assert_int_equal(p.nbackends, 1);
    assert_string_equal(p.backends[0], "127.0.0.1:23211");
    /* responses and the errors the proxy sent in their place */
    assert_true(proxy_stats_answers(&p) == 90 + 3 + 4 + 2);
    static const char memcached[] = "{\"pid\": 1}";
    assert_int_equal(proxy_stats_parse(memcached, strlen(memcached), &p, why, sizeof(why)),
                     SLAP_ERROR);
    assert_non_null(strstr(why, "no pool"));
}

/* The share of slap's answered requests the proxy's counts over the run account for. */
static void test_coverage(void **state)
{
    (void)state;
    struct proxy_stats d = {0};
    assert_true(proxy_stats_coverage(&d, 0) == 1.0); /* nothing to cover */
    assert_true(proxy_stats_coverage(&d, 10000) == 0.0);
    d.requests = 1; /* the "requests 1, responses 0": none of the run */
    assert_true(proxy_stats_coverage(&d, 10000) == 0.0);
    d.responses = 64442;
    assert_true(proxy_stats_coverage(&d, 115671) == 64442.0 / 115671.0);
    d.server_timedout = 115671 - 64442; /* answered by the proxy itself: counted */
    assert_true(proxy_stats_coverage(&d, 115671) == 1.0);
    d.responses = 200000; /* others' load beside slap's: no more than all of it */
    assert_true(proxy_stats_coverage(&d, 115671) == 1.0);
}

struct listener {
    int fd;
    bool close_on_quit; /* accept, read the quit, close; else leave it in the backlog */
    char got[16];
};

static void *serve(void *arg)
{
    struct listener *l = arg;
    int c = accept(l->fd, NULL, NULL);
    size_t used = 0;
    ssize_t n = 1;
    while (c >= 0 && n > 0 && used < sizeof(l->got) - 1 && strchr(l->got, '\n') == NULL) {
        n = recv(c, l->got + used, sizeof(l->got) - 1 - used, 0);
        used += n > 0 ? (size_t)n : 0;
    }
    if (c >= 0) {
        close(c);
    }
    return NULL;
}

static void listen_on(struct listener *l, struct server_list *list)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    char name[64], why[128];
    l->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(l->fd >= 0);
    assert_int_equal(bind(l->fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(l->fd, 4), 0);
    assert_int_equal(getsockname(l->fd, (struct sockaddr *)&a, &len), 0);
    snprintf(name, sizeof(name), "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    if (servers_open(list, name, why, sizeof(why)) != SLAP_OK) {
        fail_msg("%s", why);
    }
}

/* A server that takes the quit and closes: turned. One that never closes: an error once the
 * deadline passes, not a wait beyond it. */
static void test_turn(void **state)
{
    (void)state;
    for (int closes = 1; closes >= 0; closes--) {
        struct listener l = {.close_on_quit = closes == 1};
        struct server_list list;
        pthread_t t;
        char why[128] = "";
        listen_on(&l, &list);
        if (l.close_on_quit) {
            assert_int_equal(pthread_create(&t, NULL, serve, &l), 0);
        }
        uint64_t start = slap_now_ns();
        enum slap_status st =
            proxy_stats_turn(&list.items[0], start + 200 * SLAP_NS_PER_MS, why, sizeof(why));
        uint64_t took = slap_now_ns() - start;
        if (l.close_on_quit) {
            assert_int_equal(pthread_join(t, NULL), 0);
            assert_int_equal(st, SLAP_OK);
            assert_string_equal(l.got, "quit\r\n");
        } else {
            assert_int_equal(st, SLAP_ERROR);
            assert_non_null(strstr(why, "did not close the connection after quit in time"));
            assert_true(took >= 200 * SLAP_NS_PER_MS && took < 2 * SLAP_NS_PER_SEC);
        }
        servers_close(&list);
        close(l.fd);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_coverage),
        cmocka_unit_test(test_turn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
