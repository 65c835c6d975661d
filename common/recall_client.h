/*
 * recall_client.h — typed calls to recalld: engram.v1.Recall.
 *
 * As common/graph_client.h: eg_recalld_recall calls and waits, eg_recalld_recall_call
 * prepares the call for a fan-out.
 */
#ifndef EG_RECALL_CLIENT_H
#define EG_RECALL_CLIENT_H

#include "common/rpc.h"
#include "proto/engram/v1/recall.pb-c.h"

/* ---- engram.v1.Recall ---- */

/* Recall.Recall */
EG_RPC_CLIENT_DECLARE(eg_recalld_recall, Engram__V1__RecallRequest, Engram__V1__RecallResponse);

#endif
