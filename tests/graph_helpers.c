/*
 * graph_helpers.c — see graph_helpers.h.
 */
#include "tests/graph_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/time.h"

int64_t T(const char *iso) {
  int64_t v;
  eg_err e;
  if (eg_time_parse(iso, &v, &e) != EG_OK) {
    fprintf(stderr, "bad time literal %s\n", iso);
    abort();
  }
  return v;
}

Engram__V1__Scope gc_scope(const char *tenant, const char *user) {
  Engram__V1__Scope s = ENGRAM__V1__SCOPE__INIT;
  s.tenant = (char *)tenant;
  s.user = (char *)(user ? user : "");
  return s;
}

eg_code gc_commit_resp(eg_rpc_client *c, const char *tenant, const char *user,
                       const eg_edge_spec *s, Engram__V1__CommitResponse **out, eg_err *err) {
  Engram__V1__Scope scope = gc_scope(tenant, user);
  Engram__V1__EntityRef subj = ENGRAM__V1__ENTITY_REF__INIT, obj = ENGRAM__V1__ENTITY_REF__INIT;
  subj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  subj.name = (char *)s->subject;
  Engram__V1__EdgeMeta meta = ENGRAM__V1__EDGE_META__INIT;
  meta.reason = (char *)(s->reason ? s->reason : "");
  meta.source_session_id = (char *)(s->session ? s->session : "");
  meta.confidence = s->confidence;
  meta.salience = s->salience;
  Engram__V1__EdgeInput in = ENGRAM__V1__EDGE_INPUT__INIT;
  in.subject = &subj;
  in.relation = (char *)s->relation;
  if (s->object) {
    obj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
    obj.name = (char *)s->object;
    in.object_entity = &obj;
  }
  in.object_literal = (char *)(s->literal ? s->literal : "");
  in.op = s->retract ? ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT : ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT;
  in.valid_from = s->valid_from;
  in.valid_to = s->valid_to;
  in.t_commit = s->t_commit;
  in.derived_from = (uint64_t *)s->premises;
  in.n_derived_from = s->n_premises;
  in.meta = &meta;
  Engram__V1__EdgeInput *edges[1] = {&in};
  Engram__V1__CommitRequest req = ENGRAM__V1__COMMIT_REQUEST__INIT;
  req.scope = &scope;
  req.edges = edges;
  req.n_edges = 1;
  req.import_mode = s->t_commit > 0;
  return eg_graphd_commit(c, &req, out, err);
}

uint64_t gc_commit(eg_rpc_client *c, const char *tenant, const char *user, const eg_edge_spec *s,
                   eg_err *err) {
  Engram__V1__CommitResponse *resp;
  if (gc_commit_resp(c, tenant, user, s, &resp, err)) return 0;
  uint64_t id = resp->edge_ids[0];
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  return id;
}

uint64_t gc_commit_said(eg_rpc_client *c, const char *tenant, const char *user,
                        const eg_edge_spec *s) {
  eg_err e;
  uint64_t id = gc_commit(c, tenant, user, s, &e);
  if (!id) fprintf(stderr, "commit failed: %s\n", e.msg);
  return id;
}

eg_code gc_state(eg_rpc_client *c, const char *tenant, const char *subject, const char *relation,
                 int64_t valid_at, int64_t known_at, Engram__V1__StateResponse **resp,
                 eg_err *err) {
  return gc_state_as(c, tenant, NULL, subject, relation, valid_at, known_at, resp, err);
}

eg_code gc_state_as(eg_rpc_client *c, const char *tenant, const char *user, const char *subject,
                    const char *relation, int64_t valid_at, int64_t known_at,
                    Engram__V1__StateResponse **resp, eg_err *err) {
  Engram__V1__Scope scope = gc_scope(tenant, user);
  Engram__V1__EntityRef subj = ENGRAM__V1__ENTITY_REF__INIT;
  subj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  subj.name = (char *)subject;
  Engram__V1__StateQuery q = ENGRAM__V1__STATE_QUERY__INIT;
  q.subject = &subj;
  q.relation = (char *)(relation ? relation : "");
  Engram__V1__StateQuery *qs[1] = {&q};
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qs;
  req.n_queries = 1;
  req.valid_at = valid_at;
  req.known_at = known_at;
  return eg_graphd_state(c, &req, resp, err);
}

const char *gc_value(eg_rpc_client *c, const char *tenant, const char *subject,
                     const char *relation, int64_t valid_at, int64_t known_at) {
  static char buf[256];
  Engram__V1__StateResponse *r = NULL;
  eg_err e;
  if (gc_state(c, tenant, subject, relation, valid_at, known_at, &r, &e) != EG_OK) {
    snprintf(buf, sizeof buf, "ERROR:%.200s", e.msg);
    return buf;
  }
  buf[0] = '\0';
  size_t n = r->n_results ? r->results[0]->n_values : 0;
  if (n == 1) {
    Engram__V1__Edge *v = r->results[0]->values[0];
    const char *s = v->object->kind_case == ENGRAM__V1__VALUE__KIND_LITERAL ? v->object->literal
                                                                            : v->object_name;
    snprintf(buf, sizeof buf, "%s", s ? s : "");
  } else if (n > 1) {
    snprintf(buf, sizeof buf, "?");
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return buf;
}

int gc_walk(eg_rpc_client *c, const char *tenant, uint64_t claim, int64_t valid_at,
            int64_t known_at, uint32_t max_depth, uint64_t *superseding_id, uint32_t *skipped,
            size_t *chain_len) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  Engram__V1__WalkRequest req = ENGRAM__V1__WALK_REQUEST__INIT;
  req.scope = &scope;
  req.claims = &claim;
  req.n_claims = 1;
  req.valid_at = valid_at;
  req.known_at = known_at;
  req.max_depth = max_depth;
  Engram__V1__WalkResponse *resp = NULL;
  eg_err e;
  eg_code rc = eg_graphd_walk(c, &req, &resp, &e);
  if (rc) return -(int)rc;
  Engram__V1__ClaimStatus *cs = resp->statuses[0];
  int st = cs->status;
  if (superseding_id) *superseding_id = cs->superseding ? cs->superseding->id : 0;
  if (skipped) *skipped = cs->skipped_links;
  if (chain_len) *chain_len = cs->n_chain;
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  return st;
}

eg_code gc_history(eg_rpc_client *c, const char *tenant, const char *user, const char *subject,
                   const char *relation, int64_t known_at, Engram__V1__HistoryResponse **resp,
                   eg_err *err) {
  Engram__V1__Scope scope = gc_scope(tenant, user);
  Engram__V1__EntityRef ref = ENGRAM__V1__ENTITY_REF__INIT;
  ref.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  ref.name = (char *)subject;
  Engram__V1__HistoryRequest h = ENGRAM__V1__HISTORY_REQUEST__INIT;
  h.scope = &scope;
  h.subject = &ref;
  h.relation = (char *)(relation ? relation : "");
  h.known_at = known_at;
  return eg_graphd_history(c, &h, resp, err);
}

size_t gc_history_len(eg_rpc_client *c, const char *tenant, const char *subject,
                      const char *relation) {
  Engram__V1__HistoryResponse *resp = NULL;
  eg_err e;
  if (gc_history(c, tenant, NULL, subject, relation, 0, &resp, &e) != EG_OK) return 0;
  size_t n = resp->n_entries;
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  return n;
}

eg_code gc_outcome(eg_rpc_client *c, const char *tenant, const char *user, uint64_t edge_id,
                   Engram__V1__OutcomeKind kind, const char *note,
                   Engram__V1__RecordOutcomeResponse **resp, eg_err *err) {
  Engram__V1__Scope scope = gc_scope(tenant, user);
  Engram__V1__RecordOutcomeRequest req = ENGRAM__V1__RECORD_OUTCOME_REQUEST__INIT;
  req.scope = &scope;
  req.edge_id = edge_id;
  req.kind = kind;
  req.note = (char *)(note ? note : "");
  return eg_graphd_record_outcome(c, &req, resp, err);
}
