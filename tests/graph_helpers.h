/*
 * graph_helpers.h — requests to graphd that tests and benchmarks make often, built from a
 * few values (an edge spec, a subject and relation), over the typed client
 * (common/graph_client.h, included here for the calls they write out themselves).
 */
#ifndef EG_TESTS_GRAPH_HELPERS_H
#define EG_TESTS_GRAPH_HELPERS_H

#include "common/graph_client.h"

/* ISO-8601 → µs (aborts the test program on a typo: these are literals). */
int64_t T(const char *iso);

typedef struct eg_edge_spec {
  const char *subject; /* entity name */
  const char *relation;
  const char *object;  /* entity name, or NULL */
  const char *literal; /* literal, or NULL */
  bool retract;
  int64_t valid_from; /* 0 = commit time */
  int64_t valid_to;
  int64_t t_commit;         /* > 0: import mode */
  const uint64_t *premises; /* derived_from ids */
  size_t n_premises;
  const char *reason;
  const char *session; /* meta.source_session_id */
  float confidence;    /* meta.confidence (0 = unset) */
  float salience;      /* meta.salience (0 = unset: the lexicon reads it) */
} eg_edge_spec;

/* The scope of tenant as user (NULL: none); the strings are borrowed. */
Engram__V1__Scope gc_scope(const char *tenant, const char *user);

/* Commit one edge for tenant; returns its id, 0 on failure (err filled). */
uint64_t gc_commit(eg_rpc_client *c, const char *tenant, const char *user, const eg_edge_spec *s,
                   eg_err *err);
/* The same, the whole response in *resp (caller frees). */
eg_code gc_commit_resp(eg_rpc_client *c, const char *tenant, const char *user,
                       const eg_edge_spec *s, Engram__V1__CommitResponse **resp, eg_err *err);
/* The same, the error said on stderr when it fails (for tests that expect it to succeed). */
uint64_t gc_commit_said(eg_rpc_client *c, const char *tenant, const char *user,
                        const eg_edge_spec *s);

/* State of (subject name, relation) under bounds: caller frees *resp. */
eg_code gc_state(eg_rpc_client *c, const char *tenant, const char *subject, const char *relation,
                 int64_t valid_at, int64_t known_at, Engram__V1__StateResponse **resp, eg_err *err);

/* The same in the view of user (NULL = the whole tenant). */
eg_code gc_state_as(eg_rpc_client *c, const char *tenant, const char *user, const char *subject,
                    const char *relation, int64_t valid_at, int64_t known_at,
                    Engram__V1__StateResponse **resp, eg_err *err);

/* The literal (or object name) of the single current value, "" when none, "?" when
 * more than one. Static buffer. */
const char *gc_value(eg_rpc_client *c, const char *tenant, const char *subject,
                     const char *relation, int64_t valid_at, int64_t known_at);

/* Walk one claim; returns the status and fills *superseding_id / *skipped when non-NULL;
 * -code when graphd refused (-EG_ENOTFOUND: no such claim in the reader's view). */
int gc_walk(eg_rpc_client *c, const char *tenant, uint64_t claim, int64_t valid_at,
            int64_t known_at, uint32_t max_depth, uint64_t *superseding_id, uint32_t *skipped,
            size_t *chain_len);

/* History of (subject name, relation) in user's view (NULL = the whole tenant), known
 * by known_at (0 = now): caller frees *resp. */
eg_code gc_history(eg_rpc_client *c, const char *tenant, const char *user, const char *subject,
                   const char *relation, int64_t known_at, Engram__V1__HistoryResponse **resp,
                   eg_err *err);

/* RecordOutcome on edge_id as user; *resp (may be NULL) is freed by the caller. */
eg_code gc_outcome(eg_rpc_client *c, const char *tenant, const char *user, uint64_t edge_id,
                   Engram__V1__OutcomeKind kind, const char *note,
                   Engram__V1__RecordOutcomeResponse **resp, eg_err *err);

/* How many commits History lists for (subject name, relation) in tenant's whole view. */
size_t gc_history_len(eg_rpc_client *c, const char *tenant, const char *subject,
                      const char *relation);

#endif
