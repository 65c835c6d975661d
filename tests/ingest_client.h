/*
 * ingest_client.h — helpers for tests and benchmarks that talk to ingestd and recalld.
 */
#ifndef EG_TESTS_INGEST_CLIENT_H
#define EG_TESTS_INGEST_CLIENT_H

#include <stdbool.h>

#include "common/rpc.h"
#include "proto/engram/v1/ingest.pb-c.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"

/* Ingest messages given as (role, text) pairs as one session of tenant/user said at
 * session_time, sync or async. *resp (when resp is non-NULL) is freed by the caller with
 * protobuf_c_message_free_unpacked. */
eg_code ic_session(eg_rpc_client *c, const char *tenant, const char *user, const char *sid,
                   int64_t session_time, const char *const *msgs, size_t n, bool async,
                   Engram__V1__IngestResponse **resp, eg_err *e);

/* IngestSessionRequest.salience the session calls send (0: none, the lexicon rates). */
extern float ic_salience;

/* The same with the enricher chosen (ENRICHER_LLM: ingestd's LLM, started with --llm-url). */
eg_code ic_session_with(eg_rpc_client *c, const char *tenant, const char *user, const char *sid,
                        int64_t session_time, const char *const *msgs, size_t n,
                        Engram__V1__Enricher enricher, bool async,
                        Engram__V1__IngestResponse **resp, eg_err *e);

/* One text query to vectord's Search for tenant/user (user may be NULL), k hits, with the
 * chunks' texts. *resp is freed by the caller with protobuf_c_message_free_unpacked. */
eg_code ic_search(eg_rpc_client *vectord, const char *tenant, const char *user, const char *text,
                  uint32_t k, Engram__V1__SearchResponse **resp, eg_err *e);

#endif
