/*
 * former.c — when a former value began. The state extractor reads "since leaving Norwich in
 * October" or "Sold the piano" as a value the user held until then, with no start said
 * (eg_fact.since_first_mention). The user spoke of it before, in their own words, as theirs
 * ("what's a good sunday walk in Norwich", "learning piano for a year now"): the first such
 * mention among their earlier chunks is when the graph takes it to have begun. The fact is
 * valid from there to its end — the graph learns the past later, in transaction time, as a
 * bitemporal graph does. One Search to vectord for all of a batch's former values; a value
 * the user never spoke of as theirs before its end is left out (the doubt beside it stays).
 */
#include <string.h>
#include <strings.h>

#include "common/graph_client.h"
#include "common/log.h"
#include "common/vector_client.h"
#include "lang/statefacts.h"
#include "services/ingestd/ingest_int.h"

enum { MENTIONS_K = 20 }; /* earlier chunks read per former value */

/* The earliest of the user's chunks among the hits that names `f`'s object as theirs
 * (0 when none). */
static int64_t first_mention(const eg_statefacts *sf, const Engram__V1__QueryHits *res,
                             const eg_fact *f) {
  int64_t first = 0;
  for (size_t h = 0; res && h < res->n_hits; h++) {
    const Engram__V1__Chunk *ch = res->hits[h]->chunk;
    if (!ch || !ch->content || ch->time >= f->valid_to || (first && ch->time >= first)) continue;
    size_t from, to;
    eg_statefacts_said_span(ch->content, ch->turn_end <= ch->turn_index, &from, &to);
    if (eg_statefacts_holds_value(sf, ch->content, from, to, ch->time, f->relation, f->object))
      first = ch->time;
  }
  return first;
}

/* Does the graph hold f's object as the user's value of its relation just before it ended?
 * Then it knows the value already (read when it was said, or a literal the extractor's hint
 * of held values does not carry): nothing to learn. Unknown when graphd does not answer: no. */
static bool graph_holds(eg_ingest *g, const writer_in *in, const char *user, const eg_fact *f) {
  Engram__V1__EntityRef who = ENGRAM__V1__ENTITY_REF__INIT;
  who.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  who.name = (char *)user;
  Engram__V1__StateQuery q = ENGRAM__V1__STATE_QUERY__INIT, *qp = &q;
  q.subject = &who;
  q.relation = f->relation;
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)in->scope;
  req.queries = &qp;
  req.n_queries = 1;
  req.valid_at = f->valid_to - 1;
  Engram__V1__StateResponse *r = NULL;
  eg_err e = {0};
  if (eg_graphd_state(eg_ig_graphd(g, in->scope), &req, &r, &e)) return false;
  bool holds = false;
  for (size_t i = 0; i < r->n_results; i++)
    for (size_t k = 0; k < r->results[i]->n_values; k++) {
      const Engram__V1__Edge *ed = r->results[i]->values[k];
      const char *v = ed->object && ed->object->kind_case == ENGRAM__V1__VALUE__KIND_LITERAL
                          ? ed->object->literal
                          : ed->object_name;
      holds |= v && !strcasecmp(v, f->object);
    }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return holds;
}

eg_code eg_ig_former_starts(eg_ingest *g, const writer_in *in, eg_enriched *en, eg_arena *a,
                            eg_err *err) {
  size_t n = 0;
  for (size_t i = 0; i < in->n; i++)
    for (size_t k = 0; k < en[i].n_facts; k++) n += en[i].facts[k].since_first_mention;
  if (!n) return EG_OK;
  Engram__V1__SearchQuery *q = eg_arena_calloc(a, n, sizeof *q),
                          **qp = eg_arena_alloc(a, n * sizeof *qp);
  Engram__V1__SearchFilter *fl = eg_arena_calloc(a, n, sizeof *fl);
  Engram__V1__TimeRange *tr = eg_arena_calloc(a, n, sizeof *tr);
  eg_fact **of = eg_arena_alloc(a, n * sizeof *of);
  if (!q || !qp || !fl || !tr || !of) return eg_err_set(err, EG_ENOMEM, "out of memory");
  static char *user_role[] = {"user"};
  size_t m = 0;
  for (size_t i = 0; i < in->n; i++)
    for (size_t k = 0; k < en[i].n_facts; k++) {
      eg_fact *f = &en[i].facts[k];
      if (!f->since_first_mention) continue;
      engram__v1__search_query__init(&q[m]);
      engram__v1__search_filter__init(&fl[m]);
      engram__v1__time_range__init(&tr[m]);
      tr[m].to = f->valid_to; /* said before it ended */
      fl[m].time = &tr[m];
      fl[m].roles = user_role;
      fl[m].n_roles = 1;
      q[m].text = f->object;
      q[m].filter = &fl[m];
      qp[m] = &q[m];
      of[m++] = f;
    }
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)in->scope;
  req.queries = qp;
  req.n_queries = m;
  req.k = MENTIONS_K;
  req.include_content = true;
  Engram__V1__SearchResponse *r = NULL;
  eg_err e = {0};
  eg_code rc = eg_vectord_search(eg_ig_vectord(g, in->scope), &req, &r, &e);
  if (rc == EG_ENOMEM) return eg_err_set(err, rc, "%s", e.msg);
  if (rc) /* a hint only: without it the former values are left out, the rest is written */
    EG_WARN("ingest", "no earlier mentions read for former values", "reason=\"%s\"", e.msg);
  for (size_t j = 0; j < m; j++) {
    const Engram__V1__QueryHits *res = !rc && j < r->n_results ? r->results[j] : NULL;
    of[j]->valid_from = first_mention(g->states, res, of[j]); /* 0: none, left out below */
    if (of[j]->valid_from && graph_holds(g, in, of[j]->subject, of[j])) of[j]->valid_from = 0;
  }
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  /* keep the facts that found a start: a former value with none is not written */
  for (size_t i = 0; i < in->n; i++) {
    size_t kept = 0;
    for (size_t k = 0; k < en[i].n_facts; k++) {
      eg_fact *f = &en[i].facts[k];
      if (f->since_first_mention && !f->valid_from) continue;
      en[i].facts[kept++] = *f;
    }
    en[i].n_facts = kept;
  }
  return EG_OK;
}
