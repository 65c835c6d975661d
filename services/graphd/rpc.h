/*
 * rpc.h — graphd's engram.v1.Graph service table.
 */
#ifndef EG_GRAPHD_RPC_H
#define EG_GRAPHD_RPC_H

#include "common/rpc.h"
#include "services/graphd/graph.h"

/* The service with every handler bound to g (borrowed). */
eg_rpc_service eg_graphd_service(eg_graph *g);

#endif
