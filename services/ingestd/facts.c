/*
 * facts.c — facts the client asserts (AssertFacts): checked here, committed to graphd as
 * given (graphd checks relations, objects and premises, all or nothing).
 */
#include <string.h>

#include "common/graph_client.h"
#include "common/time.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "services/ingestd/ingest_int.h"

eg_code eg_ig_do_facts(eg_ingest *g, const Engram__V1__AssertFactsRequest *r, eg_arena *a,
                       Engram__V1__IngestReport *rep, uint64_t **edge_ids, size_t *n_edge_ids,
                       eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  size_t n = r->n_facts;
  Engram__V1__EdgeInput *e = eg_arena_calloc(a, n, sizeof *e),
                        **ep = eg_arena_alloc(a, n * sizeof *ep);
  if (!e || !ep) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    const Engram__V1__FactInput *f = r->facts[i];
    Engram__V1__EdgeMeta *m = eg_arena_calloc(a, 1, sizeof *m);
    if (!m) return eg_err_set(err, EG_ENOMEM, "out of memory");
    engram__v1__edge_input__init(&e[i]);
    engram__v1__edge_meta__init(m);
    e[i].subject = f->subject;
    e[i].relation = f->relation;
    e[i].object_entity = f->object_entity;
    e[i].object_literal = f->object_literal;
    e[i].op = f->op;
    e[i].valid_from = f->valid_from;
    e[i].valid_to = f->valid_to;
    e[i].derived_from = f->derived_from;
    e[i].n_derived_from = f->n_derived_from;
    e[i].derived_from_index = f->derived_from_index;
    e[i].n_derived_from_index = f->n_derived_from_index;
    m->reason = f->reason;
    m->confidence = f->confidence;
    m->sentiment = f->sentiment;
    m->intensity = f->intensity;
    m->source_session_id = f->session_id;
    m->extractor = "client";
    e[i].meta = m;
    ep[i] = &e[i];
  }
  Engram__V1__CommitRequest creq = ENGRAM__V1__COMMIT_REQUEST__INIT;
  creq.scope = r->scope;
  creq.edges = ep;
  creq.n_edges = n;
  Engram__V1__CommitResponse *cr = NULL;
  eg_code rc = eg_graphd_commit(eg_ig_graphd(g, r->scope), &creq, &cr, err);
  if (rc) {
    eg_err_prefix(err, "graphd: ");
    return rc;
  }
  *n_edge_ids = cr->n_edge_ids;
  *edge_ids = eg_arena_alloc(a, (cr->n_edge_ids ? cr->n_edge_ids : 1) * sizeof **edge_ids);
  if (*edge_ids && cr->n_edge_ids)
    memcpy(*edge_ids, cr->edge_ids, cr->n_edge_ids * sizeof **edge_ids);
  rep->warnings = eg_arena_alloc(a, (cr->n_warnings ? cr->n_warnings : 1) * sizeof *rep->warnings);
  for (size_t i = 0; rep->warnings && i < cr->n_warnings; i++) {
    rep->warnings[i] = eg_arena_strdup(a, cr->warnings[i]);
    if (rep->warnings[i]) rep->n_warnings++;
  }
  protobuf_c_message_free_unpacked(&cr->base, NULL);
  rep->facts = (uint32_t)n;
  eg_series_add(g->m_facts, (double)n);
  eg_ig_stage(g, rep, a, "commit", t0);
  return EG_OK;
}

eg_code eg_ig_validate_facts(const eg_ingest *g, const Engram__V1__AssertFactsRequest *r,
                             eg_err *err) {
  if (!r->n_facts) return eg_err_set(err, EG_EINVAL, "no facts");
  if (r->n_facts > g->o.max_facts)
    return eg_err_set(err, EG_EINVAL, "more than %u facts", g->o.max_facts);
  for (size_t i = 0; i < r->n_facts; i++) {
    const Engram__V1__FactInput *f = r->facts[i];
    if (!f->subject) return eg_err_set(err, EG_EINVAL, "facts[%zu].subject is required", i);
    if (!eg_ig_time_ok(f->valid_from) || !eg_ig_time_ok(f->valid_to))
      return eg_err_set(err, EG_EINVAL, "facts[%zu]: time out of range", i);
    if (f->confidence < 0 || f->confidence > 1)
      return eg_err_set(err, EG_EINVAL, "facts[%zu].confidence must be in [0, 1]", i);
  }
  return EG_OK; /* graphd checks relations, objects and premises, all or nothing */
}
