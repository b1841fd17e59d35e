/* Unit tests of the server list: parsing, resolution, failures and the key-to-server mapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <arpa/inet.h>
#include <libmemcached-1.0/memcached.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "slap/base/common.h"
#include "slap/net/server_stats.h"
#include "slap/net/servers.h"

#define THREE_SERVERS "127.0.0.1:11211,127.0.0.1:11212,localhost"
#define PICK_KEYS 3000

/* The IPv4 address and port of srv, checked to be AF_INET. */
static void assert_inet(const struct server *srv, const char *ip, uint16_t port)
{
    assert_int_equal(srv->addr.ss_family, AF_INET);
    assert_int_equal(srv->addr_len, sizeof(struct sockaddr_in));
    const struct sockaddr_in *sin = (const struct sockaddr_in *)&srv->addr;
    char text[INET_ADDRSTRLEN];
    assert_non_null(inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text)));
    assert_string_equal(text, ip);
    assert_int_equal(ntohs(sin->sin_port), port);
}

static void test_open_three(void **state)
{
    (void)state;
    struct server_list list;
    char err[256] = "";
    assert_int_equal(servers_open(&list, THREE_SERVERS, err, sizeof(err)), SLAP_OK);
    assert_int_equal(list.count, 3);
    assert_non_null(list.items);
    assert_non_null(list.memc);
    assert_string_equal(list.items[0].name, "127.0.0.1:11211");
    assert_string_equal(list.items[1].name, "127.0.0.1:11212");
    assert_string_equal(list.items[2].name, "localhost:11211");
    assert_inet(&list.items[0], "127.0.0.1", 11211);
    assert_inet(&list.items[1], "127.0.0.1", 11212);
    /* localhost may resolve to ::1 first where /etc/hosts lists it so. */
    if (list.items[2].addr.ss_family == AF_INET6) {
        const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&list.items[2].addr;
        assert_true(IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr));
        assert_int_equal(ntohs(sin6->sin6_port), 11211);
    } else {
        assert_inet(&list.items[2], "127.0.0.1", 11211);
    }
    servers_close(&list);
    assert_int_equal(list.count, 0);
    assert_null(list.items);
    assert_null(list.memc);
}

static void test_open_failures(void **state)
{
    (void)state;
    static const char *const bad[] = {"", "host.invalid:1"};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(bad); i++) {
        struct server_list list;
        char err[256] = "";
        if (servers_open(&list, bad[i], err, sizeof(err)) != SLAP_ERROR) {
            fail_msg("servers_open(\"%s\") succeeded", bad[i]);
        }
        if (err[0] == '\0' || strchr(err, '\n') != NULL) {
            fail_msg("servers_open(\"%s\") gave no one-line reason: \"%s\"", bad[i], err);
        }
        assert_int_equal(list.count, 0);
        assert_null(list.items);
        assert_null(list.memc);
    }
    struct server_list list;
    char err[256] = "";
    assert_int_equal(servers_open(&list, "host.invalid:1", err, sizeof(err)), SLAP_ERROR);
    assert_non_null(strstr(err, "host.invalid:1"));
}

/* key i of the mapping tests: distinct and of varying length. */
static size_t pick_key(char *key, size_t cap, int i)
{
    int len = snprintf(key, cap, "key-%d-%x", i, (unsigned)(i * 2654435761u));
    assert_true(len > 0 && (size_t)len < cap);
    return (size_t)len;
}

static void test_pick_one_server(void **state)
{
    (void)state;
    struct server_list list;
    char err[256] = "";
    assert_int_equal(servers_open(&list, "127.0.0.1:11300", err, sizeof(err)), SLAP_OK);
    assert_int_equal(list.count, 1);
    assert_inet(&list.items[0], "127.0.0.1", 11300);
    char key[64];
    for (int i = 0; i < 100; i++) {
        size_t len = pick_key(key, sizeof(key), i);
        assert_int_equal(servers_pick(&list, key, len), 0);
    }
    servers_close(&list);
}

/* Three servers: every key goes where libmemcached sends it, and the keys spread. */
static void test_pick_three_servers(void **state)
{
    (void)state;
    struct server_list list;
    char err[256] = "";
    assert_int_equal(servers_open(&list, THREE_SERVERS, err, sizeof(err)), SLAP_OK);

    memcached_st *reference = memcached_create(NULL);
    assert_non_null(reference);
    memcached_server_list_st parsed = memcached_servers_parse(THREE_SERVERS);
    assert_non_null(parsed);
    assert_int_equal(memcached_server_push(reference, parsed), MEMCACHED_SUCCESS);
    memcached_server_list_free(parsed);
    assert_int_equal(memcached_server_count(reference), 3);

    unsigned per_server[3] = {0};
    char key[64];
    for (int i = 0; i < PICK_KEYS; i++) {
        size_t len = pick_key(key, sizeof(key), i);
        uint32_t got = servers_pick(&list, key, len);
        uint32_t want = memcached_generate_hash(reference, key, len);
        if (got != want) {
            fail_msg("key %s: servers_pick %u, libmemcached %u", key, got, want);
        }
        assert_true(got < 3);
        per_server[got]++;
    }
    for (int s = 0; s < 3; s++) {
        if (per_server[s] < 500) {
            fail_msg("server %d got %u of %d keys", s, per_server[s], PICK_KEYS);
        }
    }
    memcached_free(reference);
    servers_close(&list);
}

/* A reference libmemcached in weighted ketama mode (libketama's continuum) with a key hash. */
static memcached_st *weighted_ketama(const char *servers, memcached_hash_t hash)
{
    memcached_st *memc = memcached_create(NULL);
    assert_non_null(memc);
    memcached_server_list_st parsed = memcached_servers_parse(servers);
    assert_non_null(parsed);
    assert_int_equal(memcached_server_push(memc, parsed), MEMCACHED_SUCCESS);
    memcached_server_list_free(parsed);
    assert_int_equal(memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1),
                     MEMCACHED_SUCCESS);
    assert_int_equal(memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_HASH, hash),
                     MEMCACHED_SUCCESS);
    return memc;
}

/* --distribution=ketama: every key where libmemcached's weighted ketama puts it (the same
 * continuum as libketama and twemproxy), servers on 11211 among them; ketama-libmemcached: where
 * libmemcached's plain ketama does. The two differ for about two keys in three. */
static void test_pick_ketama(void **state)
{
    (void)state;
    static const char *servers = "127.0.0.2:11211,127.0.0.3,127.0.0.1:22122";
    static const struct {
        enum server_hash slap;
        memcached_hash_t lmc;
    } hashes[] = {{HASH_DEFAULT, MEMCACHED_HASH_MD5},
                  {HASH_MD5, MEMCACHED_HASH_MD5},
                  {HASH_FNV1A_64, MEMCACHED_HASH_FNV1A_64},
                  {HASH_CRC, MEMCACHED_HASH_CRC}};
    for (size_t h = 0; h < sizeof(hashes) / sizeof(hashes[0]); h++) {
        struct server_list list, plain;
        char err[256] = "", key[64];
        unsigned differ = 0;
        assert_int_equal(servers_open(&list, servers, err, sizeof(err)), SLAP_OK);
        assert_int_equal(servers_open(&plain, servers, err, sizeof(err)), SLAP_OK);
        assert_int_equal(
            servers_configure(&list, DISTRIBUTION_KETAMA, hashes[h].slap, err, sizeof(err)),
            SLAP_OK);
        assert_int_equal(servers_configure(&plain, DISTRIBUTION_KETAMA_LIBMEMCACHED, hashes[h].slap,
                                           err, sizeof(err)),
                         SLAP_OK);
        memcached_st *reference = weighted_ketama(servers, hashes[h].lmc);
        for (int i = 0; i < PICK_KEYS; i++) {
            size_t len = pick_key(key, sizeof(key), i);
            uint32_t got = servers_pick(&list, key, len);
            uint32_t want = memcached_generate_hash(reference, key, len);
            if (got != want) {
                fail_msg("hash %zu, key %s: servers_pick %u, weighted ketama %u", h, key, got,
                         want);
            }
            uint32_t lmc = servers_pick(&plain, key, len);
            assert_int_equal(lmc, memcached_generate_hash(plain.memc, key, len));
            differ += lmc != got;
        }
        if (hashes[h].lmc != MEMCACHED_HASH_CRC) { /* crc's 15 bits all fall before any point */
            assert_true(differ > PICK_KEYS / 2);
        }
        memcached_free(reference);
        servers_close(&list);
        servers_close(&plain);
    }
}

/* A binary answer packet (opcode, status, key, value) appended at *at. */
static void put_packet(char *buf, size_t *at, unsigned op, unsigned status, const char *key,
                       const char *value)
{
    size_t k = strlen(key), v = strlen(value);
    unsigned char *h = (unsigned char *)buf + *at;
    memset(h, 0, 24);
    h[0] = 0x81;
    h[1] = (unsigned char)op;
    h[2] = (unsigned char)(k >> 8);
    h[3] = (unsigned char)k;
    h[6] = (unsigned char)(status >> 8);
    h[7] = (unsigned char)status;
    h[11] = (unsigned char)(k + v); /* bodies here are short */
    memcpy(buf + *at + 24, key, k);
    memcpy(buf + *at + 24 + k, value, v);
    *at += 24 + k + v;
}

/* The binary protocol's stats answer: each field read, after a SASL answer; cut anywhere it is
 * not whole yet; a missing field, a foreign packet and a refusal are errors that say so. */
static void test_stats_binary(void **state)
{
    (void)state;
    static const char *const fields[][2] = {{"pid", "7"},
                                            {"cmd_get", "1800"},
                                            {"cmd_set", "200"},
                                            {"get_hits", "1790"},
                                            {"get_misses", "10"},
                                            {"evictions", "0"},
                                            {"bytes_read", "347038"},
                                            {"version", "1.6.21"},
                                            {"bytes_written", "2001818"},
                                            {"curr_connections", "3"},
                                            {"rusage_user", "0.003871"},
                                            {"rusage_system", "0.022117"}};
    char buf[4096], why[160];
    size_t len = 0;
    struct server_stats st;
    put_packet(buf, &len, 0x21, 0, "", "Authenticated");
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        put_packet(buf, &len, 0x10, 0, fields[i][0], fields[i][1]);
    }
    put_packet(buf, &len, 0x10, 0, "", "");
    assert_int_equal(server_stats_parse_binary(buf, len, &st, why, sizeof(why)), SLAP_OK);
    assert_true(st.cmd_get == 1800 && st.cmd_set == 200 && st.get_hits == 1790 &&
                st.get_misses == 10 && st.bytes_read == 347038 && st.bytes_written == 2001818 &&
                st.curr_connections == 3 && st.rusage_system == 0.022117);
    for (size_t cut = 0; cut < len; cut++) {
        assert_int_equal(server_stats_parse_binary(buf, cut, &st, why, sizeof(why)), SLAP_AGAIN);
    }
    /* without bytes_written */
    char part[4096];
    size_t n = 0;
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (strcmp(fields[i][0], "bytes_written") != 0) {
            put_packet(part, &n, 0x10, 0, fields[i][0], fields[i][1]);
        }
    }
    put_packet(part, &n, 0x10, 0, "", "");
    assert_int_equal(server_stats_parse_binary(part, n, &st, why, sizeof(why)), SLAP_ERROR);
    assert_non_null(strstr(why, "lack"));
    /* a refusal: its status and words */
    n = 0;
    put_packet(part, &n, 0x21, 0x20, "", "Auth failure.");
    assert_int_equal(server_stats_parse_binary(part, n, &st, why, sizeof(why)), SLAP_ERROR);
    assert_non_null(strstr(why, "SASL authentication was refused (status 0x20: 'Auth failure.')"));
    /* text where binary was asked: named, printable */
    static const char text[] = "ERROR\r\nERROR\r\nERROR\r\nERROR\r\nERROR\r\n";
    assert_int_equal(server_stats_parse_binary(text, sizeof(text) - 1, &st, why, sizeof(why)),
                     SLAP_ERROR);
    assert_non_null(strstr(why, "did not answer stats in binary (it said 'ERROR')"));
}

/* A figure that is no number a server holds (garbage, nan, inf, negative, past 2^64, a NUL in
 * it) is a refusal naming it, in text and in binary: never a figure. */
static void test_stats_not_numbers(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "nan", "inf", "-1", "1e308", "12x", "", "99999999999999999999999"};
    static const char *const names[] = {
        "cmd_get",    "cmd_set",       "get_hits",         "get_misses",  "evictions",
        "bytes_read", "bytes_written", "curr_connections", "rusage_user", "rusage_system"};
    char text[2048], bin[4096], why[160], want[160];
    struct server_stats st;
    for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
        size_t len = 0, n = 0;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            const char *value = i == 8 ? bad[b] : "1"; /* rusage_user */
            len +=
                (size_t)snprintf(text + len, sizeof(text) - len, "STAT %s %s\r\n", names[i], value);
            put_packet(bin, &n, 0x10, 0, names[i], value);
        }
        len += (size_t)snprintf(text + len, sizeof(text) - len, "END\r\n");
        put_packet(bin, &n, 0x10, 0, "", "");
        snprintf(want, sizeof(want),
                 "its stats' rusage_user is not a number from 0 to 2^64 (it said '%s')", bad[b]);
        assert_int_equal(server_stats_parse(text, len, &st, why, sizeof(why)), SLAP_ERROR);
        assert_string_equal(why, want);
        assert_int_equal(server_stats_parse_binary(bin, n, &st, why, sizeof(why)), SLAP_ERROR);
        assert_string_equal(why, want);
    }
    static const char nul[] = "STAT threads 4\0x\r\n";
    assert_int_equal(server_stats_parse(nul, sizeof(nul) - 1, &st, why, sizeof(why)), SLAP_ERROR);
    assert_non_null(strstr(why, "its stats' threads is not a number"));
    static const char fine[] = "STAT threads 4\r\nSTAT rusage_user -0\r\n";
    assert_int_equal(server_stats_parse(fine, sizeof(fine) - 1, &st, why, sizeof(why)), SLAP_AGAIN);
    assert_true(st.threads == 4 && st.rusage_user == 0 && !signbit(st.rusage_user));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_three),        cmocka_unit_test(test_open_failures),
        cmocka_unit_test(test_pick_one_server),   cmocka_unit_test(test_pick_three_servers),
        cmocka_unit_test(test_pick_ketama),       cmocka_unit_test(test_stats_binary),
        cmocka_unit_test(test_stats_not_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
