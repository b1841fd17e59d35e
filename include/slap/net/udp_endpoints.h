/* The UDP sockets of a thread: one per server, shared by all the thread's datagram conns. */
#ifndef SLAP_UDP_ENDPOINTS_H
#define SLAP_UDP_ENDPOINTS_H

#include <stdint.h>

#include "slap/base/common.h"

struct udp_endpoints;

/*
 * Room for conns_per_server datagram conns to each of nservers servers (UDP_ID_SLOTS_MAX to a
 * socket: more take more sockets). Give it to the thread's conn_env before its conns are made;
 * a socket opens when its first conn connects. udp_endpoints_free is safe after a failure,
 * and is called after the conns are freed and before their loop is.
 */
enum slap_status udp_endpoints_init(struct udp_endpoints **set, uint32_t nservers,
                                    uint32_t conns_per_server);
void udp_endpoints_free(struct udp_endpoints *set);

#endif
