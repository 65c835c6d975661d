/*
 * rpc.h — vectord's engram.v1.Vector service table.
 */
#ifndef EG_VECTORD_RPC_H
#define EG_VECTORD_RPC_H

#include "common/replica.h"
#include "common/rpc.h"
#include "common/shard.h"
#include "services/vectord/vec.h"

/* What the handlers serve: the engine, and the replica's role when there is a log. */
typedef struct eg_vectord_svc {
  eg_vec *vec;         /* borrowed */
  eg_replica *replica; /* borrowed; NULL = a single node (no log) */
  eg_shard shard;      /* the tenants it serves; others are refused */
} eg_vectord_svc;

/*
 * The service with every handler bound to svc (borrowed; must outlive the server).
 * Writes go through the replica's write gate (UNAVAILABLE on a follower, naming the
 * writer) and answer with their watermark ("v1:<hex>"); reads given a watermark wait
 * until it is searchable on this replica (DEADLINE_EXCEEDED at the call's deadline, or
 * after 10 s without one).
 */
eg_rpc_service eg_vectord_service(eg_vectord_svc *svc);

#endif
