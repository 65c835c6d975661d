/*
 * rpc.h — graphd's engram.v1.Graph service table.
 */
#ifndef EG_GRAPHD_RPC_H
#define EG_GRAPHD_RPC_H

#include "common/replica.h"
#include "common/rpc.h"
#include "common/shard.h"
#include "services/graphd/graph.h"

/* What the handlers serve: the graph, and the replica's role when there is a log. */
typedef struct eg_graphd_svc {
  eg_graph *graph;     /* borrowed */
  eg_replica *replica; /* borrowed; NULL = a single node (no log) */
  eg_shard shard;      /* the tenants it serves; others are refused */
} eg_graphd_svc;

/*
 * The service with every handler bound to svc (borrowed; must outlive the server).
 * Writes go through the replica's write gate (UNAVAILABLE on a follower, naming the
 * writer) and answer with their watermark; reads given a watermark wait until this
 * replica has applied the log up to it (DEADLINE_EXCEEDED at the call's deadline, or
 * after 10 s without one).
 */
eg_rpc_service eg_graphd_service(eg_graphd_svc *svc);

#endif
