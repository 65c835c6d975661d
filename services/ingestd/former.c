/*
 * former.c — when a former value began. The state extractor reads "since leaving Norwich in
 * October" or "Sold the piano" as a value the user held until then, with no start said
 * (eg_fact.since_first_mention). The user spoke of it before, in their own words, as theirs
 * ("what's a good sunday walk in Norwich", "learning piano for a year now"): the first such
 * mention among their earlier chunks is when the graph takes it to have begun. The fact is
 * valid from there to its end — the graph learns the past later, in transaction time, as a
 * bitemporal graph does. One Search to vectord for all of a batch's former values; a value
 * the user never spoke of as theirs before its end is left out (the doubt beside it stays).
 *
 * The same holds before the first value a user states of a state: "Toronto in January doesn't
 * help" and then, a year on, "signed a lease in Montreal". Where the graph holds no value of
 * the relation just before the stated one, the value of its type the user's earlier chunks
 * name most often as theirs was theirs from its first mention until then — an inference, so
 * its confidence is 0.5 and its extractor "earlier-mentions". A being known by name (a pet, a
 * partner: the prototypes' @individual types) stated as the user's for the first time was
 * theirs already when their earlier words named it plainly as theirs ("Clementine rolled in
 * fox poo"): its fact is valid from the first of those. Not so for a place or a firm, which
 * anyone may name long before it is theirs.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "common/edge.h"
#include "common/graph_client.h"
#include "common/log.h"
#include "common/vector_client.h"
#include "lang/statefacts.h"
#include "services/ingestd/ingest_int.h"

enum { MENTIONS_K = 20 }; /* earlier chunks read per former value */

/* The earliest of the user's chunks among the hits, said before `before`, that names `f`'s
 * object as theirs (0 when none). */
static int64_t first_mention(const eg_statefacts *sf, const Engram__V1__QueryHits *res,
                             const eg_fact *f, int64_t before) {
  int64_t first = 0;
  for (size_t h = 0; res && h < res->n_hits; h++) {
    const Engram__V1__Chunk *ch = res->hits[h]->chunk;
    if (!ch || !ch->content || ch->time >= before || (first && ch->time >= first)) continue;
    size_t from, to;
    eg_statefacts_said_span(ch->content, ch->turn_end <= ch->turn_index, &from, &to);
    if (eg_statefacts_holds_value(sf, ch->content, from, to, ch->time, f->relation, f->object))
      first = ch->time;
  }
  return first;
}

/* Does the graph hold a value of `relation` as the user's just before `at`: `object` (NULL:
 * any value), or with `other` one other than `object`? *since (may be NULL): when the latest
 * such value began. Unknown when graphd does not answer: no. */
static bool graph_value(eg_ingest *g, const writer_in *in, const char *user, const char *relation,
                        int64_t at, const char *object, bool other, int64_t *since) {
  Engram__V1__EntityRef who = ENGRAM__V1__ENTITY_REF__INIT;
  who.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  who.name = (char *)user;
  Engram__V1__StateQuery q = ENGRAM__V1__STATE_QUERY__INIT, *qp = &q;
  q.subject = &who;
  q.relation = (char *)relation;
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)in->scope;
  req.queries = &qp;
  req.n_queries = 1;
  req.valid_at = at - 1;
  Engram__V1__StateResponse *r = NULL;
  eg_err e = {0};
  if (eg_graphd_state(eg_ig_graphd(g, in->scope), &req, &r, &e)) return false;
  bool holds = false;
  int64_t began = 0;
  for (size_t i = 0; i < r->n_results; i++)
    for (size_t k = 0; k < r->results[i]->n_values; k++) {
      const Engram__V1__Edge *ed = r->results[i]->values[k];
      const char *v = eg_edge_object(ed);
      if (object && (strcasecmp(v, object) != 0) != other) continue;
      holds = true;
      if (ed->valid_from > began) began = ed->valid_from;
    }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  if (since) *since = began;
  return holds;
}

static bool graph_holds(eg_ingest *g, const writer_in *in, const char *user, const char *relation,
                        int64_t at, const char *object) {
  return graph_value(g, in, user, relation, at, object, false, NULL);
}

/* One search of the user's own earlier chunks per text, each before its time: *out (NULL when
 * vectord did not answer: a hint only, warned about). Fails only out of memory. */
static eg_code search_earlier(eg_ingest *g, const writer_in *in, char *const *texts,
                              const int64_t *before, size_t m, eg_arena *a,
                              Engram__V1__SearchResponse **out, eg_err *err) {
  static char *user_role[] = {"user"};
  Engram__V1__SearchQuery *q = eg_arena_calloc(a, m, sizeof *q),
                          **qp = eg_arena_alloc(a, m * sizeof *qp);
  Engram__V1__SearchFilter *fl = eg_arena_calloc(a, m, sizeof *fl);
  Engram__V1__TimeRange *tr = eg_arena_calloc(a, m, sizeof *tr);
  if (!q || !qp || !fl || !tr) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t j = 0; j < m; j++) {
    engram__v1__search_query__init(&q[j]);
    engram__v1__search_filter__init(&fl[j]);
    engram__v1__time_range__init(&tr[j]);
    tr[j].to = before[j];
    fl[j].time = &tr[j];
    fl[j].roles = user_role;
    fl[j].n_roles = 1;
    q[j].text = texts[j];
    q[j].filter = &fl[j];
    qp[j] = &q[j];
  }
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)in->scope;
  req.queries = qp;
  req.n_queries = m;
  req.k = MENTIONS_K;
  req.include_content = true;
  eg_err e = {0};
  *out = NULL;
  eg_code rc = eg_vectord_search(eg_ig_vectord(g, in->scope), &req, out, &e);
  if (rc == EG_ENOMEM) return eg_err_set(err, rc, "%s", e.msg);
  if (rc) {
    EG_WARN("ingest", "no earlier mentions read", "reason=\"%s\"", e.msg);
    *out = NULL;
  }
  return EG_OK;
}

static const Engram__V1__QueryHits *hits_of(const Engram__V1__SearchResponse *r, size_t j) {
  return r && j < r->n_results ? r->results[j] : NULL;
}

eg_code eg_ig_former_starts(eg_ingest *g, const writer_in *in, eg_enriched *en, eg_arena *a,
                            eg_err *err) {
  size_t n = 0;
  for (size_t i = 0; i < in->n; i++)
    for (size_t k = 0; k < en[i].n_facts; k++) n += en[i].facts[k].since_first_mention;
  if (!n) return EG_OK;
  char **texts = eg_arena_alloc(a, n * sizeof *texts);
  int64_t *before = eg_arena_alloc(a, n * sizeof *before);
  eg_fact **of = eg_arena_alloc(a, n * sizeof *of);
  if (!texts || !before || !of) return eg_err_set(err, EG_ENOMEM, "out of memory");
  size_t m = 0;
  for (size_t i = 0; i < in->n; i++)
    for (size_t k = 0; k < en[i].n_facts; k++) {
      eg_fact *f = &en[i].facts[k];
      if (!f->since_first_mention) continue;
      /* one with no end of its own ended when the value the graph holds began, the graph
       * holding none before that one (no value between them); else it is left out */
      if (f->until_held) {
        int64_t next = 0;
        if (!graph_value(g, in, f->subject, f->relation, f->valid_to, f->object, true, &next) ||
            !next || graph_holds(g, in, f->subject, f->relation, next, NULL))
          continue; /* valid_from stays 0: dropped below */
        f->valid_to = next;
      }
      texts[m] = f->object;
      before[m] = f->valid_to; /* said before it ended */
      of[m++] = f;
    }
  Engram__V1__SearchResponse *r;
  eg_code rc = search_earlier(g, in, texts, before, m, a, &r, err);
  if (rc) return rc;
  for (size_t j = 0; j < m; j++) {
    /* 0: none, left out */
    of[j]->valid_from = first_mention(g->states, hits_of(r, j), of[j], of[j]->valid_to);
    /* the graph knows the value already (read when it was said, or a literal the
     * extractor's hint of held values does not carry): nothing to learn */
    if (of[j]->valid_from &&
        graph_holds(g, in, of[j]->subject, of[j]->relation, of[j]->valid_to, of[j]->object))
      of[j]->valid_from = 0;
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

/* ---- a value held before the first one stated ---------------------------------------------- */

enum { EARLIER_FACTS = 8, EARLIER_VALUES = 32 };

typedef struct earlier_value {
  char value[64];
  int64_t first, last; /* its first and last mention */
  unsigned chunks;     /* how many chunks name it */
  size_t last_hit;     /* the last hit counted (+1) */
  char *said;          /* the first mention's text (arena) */
} earlier_value;

/* The value the hits name most often (the latest on a tie) as the user's own, of `types`, a
 * name where f's is one (a kind word where f's is one: "hamsters" is no pet's name), other
 * than f's: NULL for none. vals holds EARLIER_VALUES. */
static const earlier_value *most_named(const eg_statefacts *sf, const Engram__V1__QueryHits *res,
                                       const eg_fact *f, unsigned types, int64_t before,
                                       earlier_value *vals, eg_arena *a) {
  static __thread eg_stated_value v[256];
  size_t nv = 0;
  for (size_t h = 0; res && h < res->n_hits; h++) {
    const Engram__V1__Chunk *ch = res->hits[h]->chunk;
    if (!ch || !ch->content || ch->time >= before) continue;
    size_t from, to;
    eg_statefacts_said_span(ch->content, ch->turn_end <= ch->turn_index, &from, &to);
    size_t n = eg_statefacts_values(sf, ch->content, from, to, ch->time, types, NULL, v, 256);
    for (size_t i = 0; i < n; i++) {
      const char *w = ch->content + v[i].from;
      size_t len = v[i].to - v[i].from;
      if (!(v[i].plain || v[i].how == EG_STATED_CURRENT) || v[i].others || v[i].ended ||
          !v[i].typed || v[i].named != f->object_entity || len >= sizeof vals->value ||
          eg_statefacts_same_value(w, len, f->object))
        continue;
      size_t k = 0;
      while (k < nv && !(strlen(vals[k].value) == len && !strncasecmp(vals[k].value, w, len))) k++;
      if (k == nv) {
        if (nv == EARLIER_VALUES) continue;
        vals[nv++] = (earlier_value){.first = ch->time, .last = ch->time};
        memcpy(vals[k].value, w, len);
        vals[k].value[len] = '\0';
      }
      earlier_value *e = &vals[k];
      if (e->last_hit == h + 1) continue;
      e->last_hit = h + 1;
      e->chunks++;
      if (!e->said || ch->time < e->first) /* the first mention and its words */
        e->first = ch->time, e->said = eg_arena_strdup(a, ch->content);
      if (ch->time > e->last) e->last = ch->time;
    }
  }
  const earlier_value *best = NULL;
  for (size_t k = 0; k < nv; k++)
    if (!best || vals[k].chunks > best->chunks ||
        (vals[k].chunks == best->chunks && vals[k].last > best->last))
      best = &vals[k];
  return best;
}

eg_code eg_ig_earlier_values(eg_ingest *g, const writer_in *in, eg_enriched *en, eg_arena *a,
                             eg_err *err) {
  /* the first current value of each state relation the batch states, its unit and start */
  eg_fact *first[EARLIER_FACTS];
  const char *rel[EARLIER_FACTS];
  size_t unit[EARLIER_FACTS], m = 0;
  int64_t start[EARLIER_FACTS];
  unsigned types[EARLIER_FACTS];
  for (size_t i = 0; i < in->n; i++)
    for (size_t k = 0; k < en[i].n_facts; k++) {
      eg_fact *f = &en[i].facts[k];
      unsigned ty = eg_statefacts_relation_types(g->states, f->relation);
      if (!ty) continue;
      int64_t at = f->valid_from ? f->valid_from : in->units[i].seg.time;
      size_t j = 0;
      while (j < m && strcmp(rel[j], f->relation) != 0) j++;
      bool current = !f->retract && !f->since_first_mention && !f->valid_to;
      if (j < m) { /* a value of the batch before it: no gap before the first */
        if (!current || at < start[j]) first[j] = NULL;
        continue;
      }
      if (m == EARLIER_FACTS) continue;
      first[m] = current ? f : NULL, rel[m] = f->relation, types[m] = ty, unit[m] = i;
      start[m++] = at;
    }
  /* per relation, a search by the value's name (a being's) and one by how its values are
   * stated */
  char *texts[2 * EARLIER_FACTS];
  int64_t before[2 * EARLIER_FACTS];
  size_t ask[2 * EARLIER_FACTS], na = 0;
  bool by_name[2 * EARLIER_FACTS];
  for (size_t j = 0; j < m; j++) {
    if (!first[j] || graph_holds(g, in, first[j]->subject, first[j]->relation, start[j], NULL))
      continue; /* the graph knows what came before */
    if (first[j]->object_entity && eg_statefacts_individual(g->states, first[j]->relation))
      texts[na] = first[j]->object, before[na] = start[j], by_name[na] = true, ask[na++] = j;
    texts[na] = eg_statefacts_statement(g->states, types[j], a);
    if (!texts[na]) continue;
    before[na] = start[j], by_name[na] = false, ask[na++] = j;
  }
  if (!na) return EG_OK;
  Engram__V1__SearchResponse *r;
  eg_code rc = search_earlier(g, in, texts, before, na, a, &r, err);
  if (rc) return rc;
  /* a being the user knows by name (a pet, a partner) was theirs from the first of their
   * earlier words naming it as theirs: "Clementine rolled in fox poo" a year before "the vet
   * says Clementine's heart is failing" */
  for (size_t q = 0; q < na; q++) {
    size_t j = ask[q];
    int64_t t = by_name[q] ? first_mention(g->states, hits_of(r, q), first[j], start[j]) : 0;
    if (t) first[j]->valid_from = start[j] = t;
  }
  earlier_value *vals = eg_arena_calloc(a, EARLIER_VALUES, sizeof *vals);
  for (size_t q = 0; vals && !rc && q < na; q++) {
    if (by_name[q]) continue;
    size_t j = ask[q];
    const eg_fact *f = first[j];
    memset(vals, 0, EARLIER_VALUES * sizeof *vals);
    const earlier_value *e = most_named(g->states, hits_of(r, q), f, types[j], start[j], vals, a);
    if (!e) continue;
    eg_fact nf = *f;
    nf.object = eg_arena_strdup(a, e->value);
    if (!nf.object) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
    if (!nf.object_entity)
      for (char *c = nf.object; *c; c++) *c = (char)tolower((unsigned char)*c);
    nf.valid_from = e->first;
    nf.valid_to = start[j];
    nf.confidence = 0.5f; /* inferred, not said */
    nf.extractor = "earlier-mentions";
    nf.reason =
        "a value the user spoke of as theirs before the first one stated: theirs from "
        "its first mention until then";
    nf.utterance = e->said ? e->said : "";
    rc = eg_enriched_add_fact(a, &en[unit[j]], &nf, err);
  }
  if (!vals && !rc) rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  return rc;
}
