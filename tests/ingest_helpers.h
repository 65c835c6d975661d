/*
 * ingest_helpers.h — requests to ingestd and vectord that tests and benchmarks make often,
 * built from a few values, over the typed clients (common/ingest_client.h,
 * recall_client.h and vector_client.h, included here for the calls they write out).
 */
#ifndef EG_TESTS_INGEST_HELPERS_H
#define EG_TESTS_INGEST_HELPERS_H

#include <stdbool.h>

#include "common/ingest_client.h"
#include "common/recall_client.h"
#include "common/vector_client.h"
#include "tests/harness.h"

/* Ingest messages given as (role, text) pairs as one session of tenant/user said at
 * session_time, sync or async; a role "user:Maya" is a message of role user named Maya. *resp (when
 * resp is non-NULL) is freed by the caller with protobuf_c_message_free_unpacked. */
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
/* … with the fusion's weights w (NULL: vectord's own). */
eg_code ic_search_weighted(eg_rpc_client *vectord, const char *tenant, const char *user,
                           const char *text, uint32_t k, Engram__V1__SearchWeights *w,
                           Engram__V1__SearchResponse **resp, eg_err *e);

/* GetJob of the async job `id` of tenant/user (user may be NULL): the job (freed by the
 * caller), NULL when the call failed; *rc (when rc is not NULL) the call's code. */
Engram__V1__Job *ic_get_job(eg_rpc_client *c, const char *tenant, const char *user, const char *id,
                            eg_code *rc);

/* The async job `id` of tenant/user once it has ended (DONE or FAILED), polled for up to
 * timeout_us: its data may be readable (its watermark reached) a moment before the job says
 * DONE. The last answer (freed by the caller), NULL when GetJob failed. */
Engram__V1__Job *ic_job_ended(eg_rpc_client *c, const char *tenant, const char *user,
                              const char *id, int64_t timeout_us);

/* A second ingestd on the cluster's graphd and vectord, with flags (NULL-terminated, up to
 * 11) and a data dir of its own under sub (the first ingestd holds its queue's); a client
 * to it (NULL when it did not start), the caller closes it and stops *p. */
eg_rpc_client *ic_second_ingestd(const eg_cluster *cl, const char *sub, const char *const *flags,
                                 eg_proc *p);

#endif
