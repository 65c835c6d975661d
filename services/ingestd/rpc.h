/*
 * rpc.h — ingestd's engram.v1.Ingest and engram.v1.Admin service tables.
 */
#ifndef EG_INGESTD_RPC_H
#define EG_INGESTD_RPC_H

#include "common/rpc.h"
#include "services/ingestd/ingest.h"

/* The two services with every handler bound to g (borrowed; must outlive the server), into
 * out; returns 2. */
size_t eg_ingestd_services(eg_ingest *g, eg_rpc_service out[2]);

#endif
