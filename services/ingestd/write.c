/*
 * write.c — the write path of a session or document, in the order the design names its
 * stages: the receipt (receipt.c: identical content already written is skipped), enrich
 * in a sliding window, resolve the entities, build the edges and chunk mentions, commit
 * them to graphd, record chat outcomes, then build the chunks and send them to vectord,
 * the receipt last. Facts before chunks: a visible receipt means the whole ingest is done.
 */
#include <stdio.h>
#include <string.h>

#include "common/edge.h"
#include "common/graph_client.h"
#include "common/log.h"
#include "common/map.h"
#include "common/scope.h"
#include "common/text.h"
#include "common/time.h"
#include "common/vector_client.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "services/ingestd/chat_outcomes.h"
#include "services/ingestd/ingest_int.h"

/* One call to vectord whose answer only matters by its status. */
static eg_code vectord_call(eg_rpc_request call, eg_err *err) {
  eg_code rc = eg_rpc_run(&call, 0, err);
  if (rc) eg_err_prefix(err, "vectord: ");
  protobuf_c_message_free_unpacked(call.resp, NULL);
  return rc;
}

eg_code eg_ig_delete_segments(eg_ingest *g, const writer_in *in, size_t from, size_t to,
                              eg_arena *a, eg_err *err) {
  if (to <= from) return EG_OK;
  Engram__V1__DeleteRequest dreq = ENGRAM__V1__DELETE_REQUEST__INIT;
  dreq.scope = (Engram__V1__Scope *)in->scope;
  dreq.n_ids = to - from;
  dreq.ids = eg_arena_alloc(a, dreq.n_ids * sizeof *dreq.ids);
  if (!dreq.ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < dreq.n_ids; i++)
    dreq.ids[i] = eg_ig_chunk_id(in->scope, in->kind, in->source_id, from + i);
  return vectord_call(eg_vectord_delete_call(eg_ig_vectord(g, in->scope), &dreq, NULL), err);
}

/* s cut to at most max bytes at a character boundary ("" for NULL). */
static char *bounded(eg_arena *a, const char *s, size_t max) {
  size_t len = s ? strlen(s) : 0, cut = len ? eg_utf8_cut(s, len, max) : 0;
  return cut == len ? (char *)(s ? s : "") : eg_arena_strndup(a, s, cut);
}

/* ---- enrichment ------------------------------------------------------------------------ */

/* The values the user said they were after, into ctx (arena): of each doubt on a state in the
 * State answer r said after the relation's held value began (or with none held), the one
 * value its statement names as sought (eg_statefacts_prospect), not the one held. */
static void prospects(eg_ingest *g, const Engram__V1__StateResponse *r, eg_arena *a,
                      eg_enrich_ctx *ctx) {
  size_t n = 0;
  for (size_t i = 0; i < r->n_results; i++)
    if (!strcmp(r->results[i]->relation, EG_STATE_UNCERTAIN)) n += r->results[i]->n_values;
  eg_prospect *p = n ? eg_arena_alloc(a, n * sizeof *p) : NULL;
  ctx->prospects = p, ctx->n_prospects = 0;
  for (size_t i = 0; p && i < r->n_results; i++) {
    if (strcmp(r->results[i]->relation, EG_STATE_UNCERTAIN) != 0) continue;
    for (size_t k = 0; k < r->results[i]->n_values; k++) {
      const Engram__V1__Edge *d = r->results[i]->values[k];
      const char *rel = eg_edge_object(d), *said = d->meta ? d->meta->utterance : NULL;
      if (!said || !eg_statefacts_relation_types(g->states, rel)) continue;
      const Engram__V1__Edge *held = NULL; /* the relation's held value, the latest begun */
      for (size_t j = 0; j < r->n_results; j++)
        for (size_t m = 0; !strcmp(r->results[j]->relation, rel) && m < r->results[j]->n_values;
             m++)
          if (!held || r->results[j]->values[m]->valid_from > held->valid_from)
            held = r->results[j]->values[m];
      char value[128];
      bool named = false;
      if ((held && held->valid_from >= d->valid_from) ||
          !eg_statefacts_prospect(g->states, said, 0, strlen(said), d->valid_from, rel, value,
                                  sizeof value, &named) ||
          (held && eg_statefacts_same_value(value, strlen(value), eg_edge_object(held))))
        continue;
      eg_prospect v = {eg_arena_strdup(a, rel), eg_arena_strdup(a, value), !named};
      if (v.relation && v.value) p[ctx->n_prospects++] = v;
    }
  }
}

/* The user's state values, as graphd holds them when the batch's last unit was said, into ctx
 * (arena): the prototype extractor types a later bare mention of one named by an entity by
 * them, and weighs a literal one against the foods said (eg_held). A hint only: without graphd's
 * answer the units are read without it. Not asked for a batch with no user's words (a document):
 * the extractor reads only those. */
static void held_values(eg_ingest *g, const writer_in *in, eg_arena *a, eg_enrich_ctx *ctx) {
  int64_t at = 0;
  bool user = false;
  for (size_t i = 0; i < in->n; i++) {
    if (in->units[i].seg.time > at) at = in->units[i].seg.time;
    user |= in->units[i].seg.role && !strcmp(in->units[i].seg.role, "user");
  }
  if (!user) return;
  Engram__V1__EntityRef who = ENGRAM__V1__ENTITY_REF__INIT;
  who.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  who.name = (char *)ctx->user_entity;
  Engram__V1__StateQuery q = ENGRAM__V1__STATE_QUERY__INIT, *qp = &q;
  q.subject = &who;
  q.relation = "";
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)in->scope;
  req.queries = &qp;
  req.n_queries = 1;
  req.valid_at = at;
  Engram__V1__StateResponse *r = NULL;
  eg_err e = {0};
  if (eg_graphd_state(eg_ig_graphd(g, in->scope), &req, &r, &e)) {
    EG_WARN("ingest", "no state read for the extractor", "reason=\"%s\"", e.msg);
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i < r->n_results; i++) n += r->results[i]->n_values;
  eg_held *h = n ? eg_arena_alloc(a, n * sizeof *h) : NULL;
  ctx->held = h, ctx->n_held = 0;
  for (size_t i = 0; h && i < r->n_results; i++)
    for (size_t k = 0; k < r->results[i]->n_values; k++) {
      const Engram__V1__Edge *ed = r->results[i]->values[k];
      const char *value = eg_edge_object(ed);
      if (!eg_statefacts_relation_types(g->states, ed->relation) || !*value) continue;
      eg_held v = {eg_arena_strdup(a, ed->relation), eg_arena_strdup(a, value),
                   eg_edge_literal(ed)};
      if (v.relation && v.value) h[ctx->n_held++] = v;
    }
  prospects(g, r, a, ctx);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* The units enriched within the window, by the LLM when asked for and configured, else by
 * the rules and the prototype extractor. *segs and *enriched (arena) are per unit. */
static eg_code enrich_units(eg_ingest *g, const writer_in *in, eg_arena *a,
                            Engram__V1__IngestReport *rep, eg_enrich_ctx *ctx, eg_segment **segs,
                            eg_enriched **enriched, eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  size_t n = in->n;
  eg_enriched *en = eg_arena_calloc(a, n, sizeof *en);
  eg_segment *sg = eg_arena_alloc(a, n * sizeof *sg);
  char user[EG_SCOPE_USER_ENTITY_MAX];
  eg_scope_user_entity(in->scope->user, user, sizeof user);
  ctx->user_entity = eg_arena_strdup(a, user);
  if (!en || !sg) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) sg[i] = in->units[i].seg;
  ctx->prev = in->window && in->window->prev ? in->window->prev : g->o.window_prev;
  ctx->next = in->window && in->window->next ? in->window->next : g->o.window_next;
  eg_code rc;
  if (in->enricher == ENGRAM__V1__ENRICHER__ENRICHER_LLM && g->llm) {
    uint32_t fallbacks = 0;
    rc = eg_enrich_llm(g->llm, ctx, sg, n, a, en, &fallbacks, err);
    rep->llm_fallbacks = fallbacks;
    eg_series_add(g->m_llm_fallbacks, fallbacks);
  } else {
    rc = eg_enrich_rules(ctx, sg, n, a, en, err);
    /* the prototypes read the states the rules have no pattern for */
    eg_statefacts_stats ss = {0};
    if (!rc && g->states) held_values(g, in, a, ctx);
    if (!rc && g->states) rc = eg_statefacts_extract(g->states, ctx, sg, n, a, en, &ss, err);
    eg_series_add(g->m_state_clauses, (double)ss.clauses);
    eg_series_add(g->m_state_embedded, (double)ss.embedded);
    eg_series_add(g->m_state_doubts, (double)ss.doubts);
  }
  if (rc) return rc;
  *segs = sg;
  *enriched = en;
  eg_ig_stage(g, rep, a, "enrich", t0);
  return EG_OK;
}

/* ---- entities -------------------------------------------------------------------------- */

/* An entity named by the enrichment and the id graphd resolved it to. */
typedef struct name_id {
  const char *name, *type;
  uint64_t id;
} name_id;

typedef struct names {
  name_id *v; /* arena */
  size_t n, cap;
  eg_map *seen; /* name → index + 1 */
} names;

static void add_name(names *ns, eg_arena *a, const char *name, const char *type) {
  if (!ns->v || !name || !*name || eg_map_get(ns->seen, name, strlen(name))) return;
  if (ns->n == ns->cap) {
    name_id *nv = eg_arena_alloc(a, ns->cap * 2 * sizeof *nv);
    if (nv) memcpy(nv, ns->v, ns->n * sizeof *nv);
    ns->v = nv;
    ns->cap *= 2;
    if (!nv) return;
  }
  ns->v[ns->n] = (name_id){name, type ? type : "", 0};
  eg_map_put(ns->seen, name, strlen(name), (void *)(uintptr_t)(ns->n + 1));
  ns->n++;
}

/* Resolve every entity named by the enrichment (created when new); *out (arena) maps
 * name → id. */
static eg_code resolve_all(eg_ingest *g, const Engram__V1__Scope *scope, const eg_enriched *en,
                           size_t n, eg_arena *a, name_id **out, size_t *n_out, eg_err *err) {
  names ns = {eg_arena_alloc(a, 64 * sizeof(name_id)), 0, 64, eg_map_new()};
  for (size_t i = 0; ns.v && i < n; i++) {
    for (size_t m = 0; m < en[i].n_mentions; m++)
      add_name(&ns, a, en[i].mentions[m].name, en[i].mentions[m].type);
    for (size_t f = 0; f < en[i].n_facts; f++) {
      add_name(&ns, a, en[i].facts[f].subject, en[i].facts[f].subject_type);
      if (en[i].facts[f].object_entity)
        add_name(&ns, a, en[i].facts[f].object, en[i].facts[f].object_type);
    }
  }
  eg_map_free(ns.seen);
  if (!ns.v) return eg_err_set(err, EG_ENOMEM, "out of memory");
  name_id *v = ns.v;
  size_t cnt = ns.n;
  *out = v;
  *n_out = cnt;
  if (!cnt) return EG_OK;
  Engram__V1__EntityMention *ms = eg_arena_calloc(a, cnt, sizeof *ms),
                            **mp = eg_arena_alloc(a, cnt * sizeof *mp);
  if (!ms || !mp) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < cnt; i++) {
    engram__v1__entity_mention__init(&ms[i]);
    ms[i].name = (char *)v[i].name;
    ms[i].type = (char *)v[i].type;
    ms[i].create = true;
    mp[i] = &ms[i];
  }
  Engram__V1__ResolveEntitiesRequest req = ENGRAM__V1__RESOLVE_ENTITIES_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)scope;
  req.mentions = mp;
  req.n_mentions = cnt;
  Engram__V1__ResolveEntitiesResponse *r = NULL;
  eg_code rc = eg_graphd_resolve_entities(eg_ig_graphd(g, scope), &req, &r, err);
  if (rc) {
    eg_err_prefix(err, "graphd: ");
    return rc;
  }
  for (size_t i = 0; i < cnt && i < r->n_entities; i++)
    v[i].id = r->entities[i]->entity ? r->entities[i]->entity->id : 0;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return EG_OK;
}

static uint64_t id_of(const name_id *v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(v[i].name, name)) return v[i].id;
  return 0;
}

/* A reference to entity id (NULL when out of memory). */
static Engram__V1__EntityRef *entity_ref(eg_arena *a, uint64_t id) {
  Engram__V1__EntityRef *r = eg_arena_calloc(a, 1, sizeof *r);
  if (!r) return NULL;
  engram__v1__entity_ref__init(r);
  r->ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
  r->id = id;
  return r;
}

/* ---- graph facts ----------------------------------------------------------------------- */

/* What an ingest commits to graphd: its facts as edges, and per chunk the entities it
 * mentions. All in the arena. */
typedef struct graph_batch {
  Engram__V1__EdgeInput **edges;
  size_t n_edges;
  Engram__V1__ChunkMention *mentions; /* one per unit */
  Engram__V1__ChunkMention **mention_ptrs;
} graph_batch;

/* Per chunk, the resolved entities it mentions (unresolved names are left out). */
static eg_code build_mentions(const writer_in *in, const uint64_t *ids, const eg_enriched *en,
                              const name_id *names, size_t n_names, eg_arena *a, graph_batch *b,
                              eg_err *err) {
  size_t n = in->n;
  Engram__V1__ChunkMention *cm = eg_arena_calloc(a, n, sizeof *cm),
                           **cmp = eg_arena_alloc(a, n * sizeof *cmp);
  if (!cm || !cmp) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    engram__v1__chunk_mention__init(&cm[i]);
    cm[i].chunk_id = ids[i];
    cm[i].entities =
        eg_arena_alloc(a, (en[i].n_mentions ? en[i].n_mentions : 1) * sizeof *cm[i].entities);
    for (size_t m = 0; cm[i].entities && m < en[i].n_mentions; m++) {
      Engram__V1__EntityRef *r = entity_ref(a, id_of(names, n_names, en[i].mentions[m].name));
      if (!r) return eg_err_set(err, EG_ENOMEM, "out of memory");
      if (r->id) cm[i].entities[cm[i].n_entities++] = r;
    }
    cmp[i] = &cm[i];
  }
  b->mentions = cm;
  b->mention_ptrs = cmp;
  return EG_OK;
}

/* The provenance of fact x of unit i: its utterance, the source chunk, session or
 * document and turn, and the extractor. */
static Engram__V1__EdgeMeta *edge_meta(const eg_ingest *g, const writer_in *in, size_t i,
                                       uint64_t chunk_id, const eg_fact *x, eg_arena *a) {
  Engram__V1__EdgeMeta *meta = eg_arena_calloc(a, 1, sizeof *meta);
  if (!meta) return NULL;
  engram__v1__edge_meta__init(meta);
  meta->utterance = bounded(a, x->utterance, UTTERANCE_BYTES);
  meta->sentiment = x->sentiment;
  meta->intensity = x->intensity;
  meta->reason = bounded(a, x->reason, UTTERANCE_BYTES);
  meta->confidence = x->confidence;
  meta->source_chunk_id = chunk_id;
  if (!strcmp(in->kind, "session"))
    meta->source_session_id = (char *)in->source_id;
  else
    meta->source_document_id = (char *)in->source_id;
  meta->source_turn = in->units[i].turn_index;
  meta->extractor = x->extractor ? (char *)x->extractor
                    : in->enricher == ENGRAM__V1__ENRICHER__ENRICHER_LLM && g->llm
                        ? "llm"
                        : EG_EXTRACTOR_RULES;
  return meta;
}

/* The facts of every unit as edges (with their source chunk); a fact whose subject or
 * object entity did not resolve is left out. */
static eg_code build_edges(const eg_ingest *g, const writer_in *in, const uint64_t *ids,
                           const eg_segment *segs, const eg_enriched *en, const name_id *names,
                           size_t n_names, eg_arena *a, graph_batch *b, eg_err *err) {
  size_t n_facts = 0;
  for (size_t i = 0; i < in->n; i++) n_facts += en[i].n_facts;
  Engram__V1__EdgeInput *edges = eg_arena_calloc(a, n_facts ? n_facts : 1, sizeof *edges);
  Engram__V1__EdgeInput **ep = eg_arena_alloc(a, (n_facts ? n_facts : 1) * sizeof *ep);
  if (!edges || !ep) return eg_err_set(err, EG_ENOMEM, "out of memory");
  size_t k = 0;
  for (size_t i = 0; i < in->n; i++) {
    for (size_t f = 0; f < en[i].n_facts; f++) {
      const eg_fact *x = &en[i].facts[f];
      Engram__V1__EdgeInput *e = &edges[k];
      engram__v1__edge_input__init(e);
      Engram__V1__EntityRef *s = entity_ref(a, id_of(names, n_names, x->subject));
      Engram__V1__EdgeMeta *meta = edge_meta(g, in, i, ids[i], x, a);
      if (!s || !meta) return eg_err_set(err, EG_ENOMEM, "out of memory");
      if (!s->id) continue;
      e->subject = s;
      e->relation = x->relation;
      if (x->object_entity) {
        Engram__V1__EntityRef *o = entity_ref(a, id_of(names, n_names, x->object));
        if (!o) return eg_err_set(err, EG_ENOMEM, "out of memory");
        if (!o->id) continue;
        e->object_entity = o;
      } else {
        e->object_literal = x->object;
      }
      e->op =
          x->retract ? ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT : ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT;
      e->valid_from = x->valid_from ? x->valid_from : segs[i].time;
      e->valid_to = x->valid_to > e->valid_from ? x->valid_to : 0;
      e->meta = meta;
      ep[k++] = e;
    }
  }
  b->edges = ep;
  b->n_edges = k;
  return EG_OK;
}

/* The edges to graphd in batches of COMMIT_BATCH, the mentions with the first. */
/* The batch to graphd; gwm (len bytes) gets the last commit's watermark ("g1:<hex>"). */
static eg_code commit_batch(eg_ingest *g, const writer_in *in, const graph_batch *b, char *gwm,
                            size_t len, eg_err *err) {
  size_t k = b->n_edges;
  for (size_t off = 0; off < (k ? k : 1); off += COMMIT_BATCH) {
    Engram__V1__CommitRequest creq = ENGRAM__V1__COMMIT_REQUEST__INIT;
    creq.scope = (Engram__V1__Scope *)in->scope;
    creq.edges = b->edges + off;
    creq.n_edges = k - off < COMMIT_BATCH ? k - off : COMMIT_BATCH;
    if (off == 0) { /* the mentions travel with the first batch */
      creq.mentions = b->mention_ptrs;
      creq.n_mentions = in->n;
    }
    if (!creq.n_edges && !creq.n_mentions) break;
    Engram__V1__CommitResponse *cr = NULL;
    eg_code rc = eg_graphd_commit(eg_ig_graphd(g, in->scope), &creq, &cr, err);
    if (rc) {
      eg_err_prefix(err, "graphd: ");
      return rc;
    }
    if (cr->watermark && *cr->watermark) snprintf(gwm, len, "%s", cr->watermark);
    protobuf_c_message_free_unpacked(&cr->base, NULL);
  }
  return EG_OK;
}

/* The outcomes the enrichment read from a session, recorded on the edges they refer to
 * (chat_outcomes.h); after the commit, so an acceptance earlier in the session is there. */
static eg_code record_outcomes(eg_ingest *g, const writer_in *in, const eg_segment *segs,
                               const eg_enriched *en, const char *user_entity,
                               Engram__V1__IngestReport *rep, eg_arena *a, eg_err *err) {
  size_t n = 0;
  for (size_t i = 0; i < in->n; i++) n += en[i].n_outcomes;
  if (!n) return EG_OK;
  int64_t t0 = eg_time_mono_us();
  eg_chat_outcome *v = eg_arena_alloc(a, n * sizeof *v);
  if (!v) return eg_err_set(err, EG_ENOMEM, "out of memory");
  n = 0;
  for (size_t i = 0; i < in->n; i++)
    for (size_t k = 0; k < en[i].n_outcomes; k++)
      v[n++] = (eg_chat_outcome){&en[i].outcomes[k], segs[i].time, in->units[i].turn_index};
  uint32_t recorded = 0;
  eg_code rc = eg_chat_outcomes_record(eg_ig_graphd(g, in->scope), in->scope, in->source_id,
                                       user_entity, v, n, UTTERANCE_BYTES, a, &recorded, err);
  if (rc) {
    eg_err_prefix(err, "graphd: ");
    return rc;
  }
  eg_series_add(g->m_outcomes, recorded);
  eg_ig_stage(g, rep, a, "outcomes", t0);
  return EG_OK;
}

/* ---- chunks ---------------------------------------------------------------------------- */

/* The chunks of an ingest, each with the client's metadata and its receipt (receipt.c). */
static Engram__V1__Chunk **build_chunks(const writer_in *in, const uint64_t *ids,
                                        const eg_segment *segs, const eg_enriched *en,
                                        const Engram__V1__ChunkMention *cm, size_t old_n,
                                        eg_arena *a, eg_err *err) {
  size_t n = in->n;
  Engram__V1__Chunk *chunks = eg_arena_calloc(a, n, sizeof *chunks);
  Engram__V1__Chunk **cp = eg_arena_alloc(a, n * sizeof *cp);
  if (!chunks || !cp) goto oom;
  for (size_t i = 0; i < n; i++) {
    Engram__V1__Chunk *c = &chunks[i];
    engram__v1__chunk__init(c);
    c->id = ids[i];
    if (!strcmp(in->kind, "session"))
      c->session_id = (char *)in->source_id;
    else
      c->document_id = (char *)in->source_id;
    c->role = (char *)in->units[i].seg.role;
    c->turn_index = in->units[i].turn_index;
    c->turn_end = in->units[i].turn_end;
    c->time = segs[i].time;
    c->content = (char *)in->units[i].content;
    c->latent = en[i].latent;
    c->salience = in->salience;
    c->entity_ids =
        cm[i].n_entities ? eg_arena_alloc(a, cm[i].n_entities * sizeof(uint64_t)) : NULL;
    for (size_t m = 0; c->entity_ids && m < cm[i].n_entities; m++)
      c->entity_ids[c->n_entity_ids++] = cm[i].entities[m]->id;
    c->metadata = in->metadata;
    c->n_metadata = in->n_metadata;
    if (eg_ig_receipt_stamp(c, in, i, old_n, a, err)) return NULL;
    cp[i] = c;
  }
  return cp;
oom:
  eg_err_set(err, EG_ENOMEM, "out of memory");
  return NULL;
}

/*
 * Chunks to vectord in batches of UPSERT_BATCH. One batch is atomic by itself. More are
 * staged (stored, invisible) and published together at the end, so readers see the whole
 * ingest or nothing of it. When a batch or the publish fails, the chunks are deleted —
 * with the previous version's, which staging began to overwrite (same ids) — so nothing
 * of the source stays searchable; a crash leaves only invisible chunks, which the next
 * attempt overwrites (same ids) or deletes (the receipt counts them).
 */
static eg_code upsert_chunks(eg_ingest *g, const writer_in *in, Engram__V1__Chunk **cp,
                             const uint64_t *ids, size_t old_n, eg_arena *a, eg_err *err) {
  size_t n = in->n;
  bool staged = n > UPSERT_BATCH;
  eg_code rc = EG_OK;
  eg_job_progress(in->job, 0, (uint32_t)n);
  for (size_t off = 0; off < n && !rc; off += UPSERT_BATCH) {
    Engram__V1__UpsertRequest ureq = ENGRAM__V1__UPSERT_REQUEST__INIT;
    ureq.scope = (Engram__V1__Scope *)in->scope;
    ureq.chunks = cp + off;
    ureq.n_chunks = n - off < UPSERT_BATCH ? n - off : UPSERT_BATCH;
    for (size_t i = 0; i < ureq.n_chunks; i++) ureq.chunks[i]->staged = staged;
    rc = vectord_call(eg_vectord_upsert_call(eg_ig_vectord(g, in->scope), &ureq, NULL), err);
    if (!rc) eg_job_progress(in->job, (uint32_t)(off + ureq.n_chunks), (uint32_t)n);
  }
  if (!rc && staged) {
    Engram__V1__PublishRequest preq = ENGRAM__V1__PUBLISH_REQUEST__INIT;
    preq.scope = (Engram__V1__Scope *)in->scope;
    preq.ids = (uint64_t *)ids;
    preq.n_ids = n;
    rc = vectord_call(eg_vectord_publish_call(eg_ig_vectord(g, in->scope), &preq, NULL), err);
  }
  if (rc && staged) {
    eg_err derr;
    if (eg_ig_delete_segments(g, in, 0, n > old_n ? n : old_n, a, &derr))
      EG_WARN("ingest", "staged chunks of a failed ingest left (invisible) for the next attempt",
              "error=\"%s\"", derr.msg);
  }
  return rc;
}

/* Build the chunks, send them (the receipt last), then delete what a previous, longer
 * version leaves past the new end. */
static eg_code send_chunks(eg_ingest *g, const writer_in *in, const uint64_t *ids,
                           const eg_segment *segs, const eg_enriched *en,
                           const Engram__V1__ChunkMention *cm, size_t old_n, eg_arena *a,
                           Engram__V1__IngestReport *rep, eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  size_t n = in->n;
  Engram__V1__Chunk **cp = build_chunks(in, ids, segs, en, cm, old_n, a, err);
  if (!cp) return err->code;
  eg_code rc = upsert_chunks(g, in, cp, ids, old_n, a, err);
  if (rc) return rc;
  eg_err derr;
  if (old_n > n && eg_ig_delete_segments(g, in, n, old_n, a, &derr))
    EG_WARN("ingest", "chunks of a previous version left behind", "error=\"%s\"", derr.msg);
  rep->chunks = (uint32_t)n;
  eg_ig_stage(g, rep, a, "embed+upsert", t0);
  return EG_OK;
}

/* ---- the write path -------------------------------------------------------------------- */

eg_code eg_ig_write_units(eg_ingest *g, const writer_in *in, eg_arena *a,
                          Engram__V1__IngestReport *rep, char *watermark, size_t wm_len,
                          eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  size_t n = in->n;
  uint64_t *ids = eg_arena_alloc(a, (n ? n : 1) * sizeof *ids);
  if (!ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) ids[i] = eg_ig_chunk_id(in->scope, in->kind, in->source_id, i);
  for (size_t i = 0; i < n; i++) rep->tokens += eg_text_words(in->units[i].content);
  eg_ig_format_watermark(ids[n - 1], watermark, wm_len);
  /* The receipt. */
  bool dup;
  size_t old_n;
  eg_code rc = eg_ig_receipt_check(g, in, ids[n - 1], &dup, &old_n, err);
  if (rc) {
    eg_err_prefix(err, "vectord: ");
    return rc;
  }
  eg_ig_stage(g, rep, a, "receipt", t0);
  if (dup) {
    rep->duplicate = true;
    eg_series_add(g->m_duplicates, 1);
    return EG_OK;
  }
  eg_enrich_ctx ctx = {0};
  eg_segment *segs = NULL;
  eg_enriched *enriched = NULL;
  if ((rc = enrich_units(g, in, a, rep, &ctx, &segs, &enriched, err))) return rc;
  if (g->states && ((rc = eg_ig_former_starts(g, in, enriched, a, err)) ||
                    (rc = eg_ig_earlier_values(g, in, enriched, a, err))))
    return rc;
  /* Entities. */
  t0 = eg_time_mono_us();
  name_id *names = NULL;
  size_t n_names = 0;
  if ((rc = resolve_all(g, in->scope, enriched, n, a, &names, &n_names, err))) return rc;
  rep->entities = (uint32_t)n_names;
  eg_ig_stage(g, rep, a, "resolve", t0);
  /* Facts to graphd (with their source chunk), and chunk → entity mentions. */
  t0 = eg_time_mono_us();
  graph_batch batch = {0};
  char gwm[32] = "";
  if ((rc = build_mentions(in, ids, enriched, names, n_names, a, &batch, err)) ||
      (rc = build_edges(g, in, ids, segs, enriched, names, n_names, a, &batch, err)) ||
      (rc = commit_batch(g, in, &batch, gwm, sizeof gwm, err)))
    return rc;
  /* the facts' position too: a read on a graphd replica waits for them (read-your-writes) */
  if (*gwm) eg_ig_format_watermark2(ids[n - 1], gwm, watermark, wm_len);
  rep->facts = (uint32_t)batch.n_edges;
  eg_ig_stage(g, rep, a, "commit", t0);
  /* Outcomes of earlier suggestions the user speaks of, on the edges they are about. */
  if (!strcmp(in->kind, "session") &&
      (rc = record_outcomes(g, in, segs, enriched, ctx.user_entity, rep, a, err)))
    return rc;
  /* Chunks to vectord, the receipt last. */
  if ((rc = send_chunks(g, in, ids, segs, enriched, batch.mentions, old_n, a, rep, err))) return rc;
  eg_series_add(g->m_tokens, (double)rep->tokens);
  eg_series_add(g->m_chunks, (double)n);
  eg_series_add(g->m_facts, (double)batch.n_edges);
  eg_series_add(g->m_entities, (double)n_names);
  return EG_OK;
}
