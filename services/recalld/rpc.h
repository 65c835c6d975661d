/*
 * rpc.h — recalld's engram.v1.Recall service table.
 */
#ifndef EG_RECALLD_RPC_H
#define EG_RECALLD_RPC_H

#include "common/rpc.h"
#include "services/recalld/recall.h"

/* The service with its handler bound to r (borrowed; must outlive the server). */
eg_rpc_service eg_recalld_service(eg_recall *r);

#endif
