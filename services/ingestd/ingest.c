/*
 * ingest.c — the write path: validation, segmentation, enrichment, fan-out, idempotency,
 * async jobs, watermarks, erasure cascade.
 */
#include "services/ingestd/ingest.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common/auth.h"
#include "common/log.h"
#include "common/map.h"
#include "common/pool.h"
#include "common/scope.h"
#include "common/stage.h"
#include "common/text.h"
#include "common/time.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "services/ingestd/enrich.h"
#include "services/ingestd/enrich_llm.h"
#include "services/ingestd/statefacts.h"

#define MAX_JOBS 10000
#define UPSERT_BATCH 500
#define COMMIT_BATCH 5000

typedef struct job {
  char id[48];
  char *tenant;     /* GetJob answers only the tenant that queued it */
  Engram__V1__JobState state;
  char watermark[40];
  uint8_t *report;  /* packed IngestReport when done */
  size_t report_len;
  char error[200];
  /* the request, packed (its arena is gone by the time the job runs) */
  int kind;         /* 0 session, 1 document, 2 facts */
  uint8_t *req;
  size_t req_len;
  eg_ingest *g;
} job;

struct eg_ingest {
  eg_ingest_opts o;
  eg_pool *pool;
  pthread_mutex_t mu;
  eg_map *jobs;      /* id → job* */
  char *job_order[MAX_JOBS];
  size_t job_head, job_count;
  uint64_t job_seq;
  eg_llm *llm;       /* NULL when not configured */
  eg_embedder *state_embedder; /* the prototype extractor's model; NULL when off */
  eg_statefacts *states;       /* NULL when off */
  eg_series *m_tokens, *m_chunks, *m_facts, *m_entities, *m_duplicates, *m_rejected, *m_llm_fallbacks;
  eg_series *m_state_clauses, *m_state_embedded, *m_state_doubts;
  eg_metric *m_stage;
};

/* ---- helpers ------------------------------------------------------------------------ */

static uint64_t chunk_id_of(const Engram__V1__Scope *s, const char *kind, const char *id, size_t index) {
  char buf[1200];
  int n = snprintf(buf, sizeof buf, "%s\x1f%s\x1f%s\x1f%s\x1f%zu", s->tenant, s->user ? s->user : "", kind, id, index);
  return eg_hash64(buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1), 0x494e47455354ULL) & ((UINT64_C(1) << 62) - 1);
}

static void stage(eg_ingest *g, Engram__V1__IngestReport *r, eg_arena *a, const char *name, int64_t t0) {
  eg_stage_done(a, &r->stages, &r->n_stages, name, t0, g->m_stage);
}

static char *user_entity(eg_arena *a, const Engram__V1__Scope *s) {
  return eg_arena_sprintf(a, "user:%s", s->user && *s->user ? s->user : "default");
}

static eg_code check_text(const char *s, size_t max, const char *what, eg_err *err) {
  size_t n = s ? strlen(s) : 0;
  if (n > max) return eg_err_set(err, EG_EINVAL, "%s longer than %zu bytes", what, max);
  if (n && !eg_utf8_valid(s, n)) return eg_err_set(err, EG_EINVAL, "%s is not valid UTF-8", what);
  return EG_OK;
}

static bool time_ok(int64_t t) {
  /* 1900-01-01 .. 2200-01-01 */
  return t == 0 || (t >= INT64_C(-2208988800000000) && t <= INT64_C(7258118400000000));
}

/* ---- the shared write path ----------------------------------------------------------- */

typedef struct unit {
  eg_segment seg;
  const char *content;
  int32_t turn_index, turn_end;
} unit;

typedef struct writer_in {
  const Engram__V1__Scope *scope;
  const char *kind;        /* "session" or "document" */
  const char *source_id;   /* session or document id */
  uint64_t content_hash;
  unit *units;
  size_t n;
  Engram__V1__Enricher enricher;
  const Engram__V1__WindowOptions *window;
  Engram__V1__KeyValue **metadata;  /* documents */
  size_t n_metadata;
} writer_in;

/* Look for the receipt; *dup when identical content was ingested already, *old_n the
 * number of chunks of a previous, different version (0 when none). */
static eg_code check_receipt(eg_ingest *g, const writer_in *in, uint64_t last_id, bool *dup, size_t *old_n,
                             eg_err *err) {
  *dup = false;
  *old_n = 0;
  Engram__V1__GetChunksRequest req = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)in->scope;
  /* The receipt sits on the last chunk: look at the last chunk of this version and, for a
   * previous version of another length, at the receipt index recorded on chunk 0. */
  uint64_t ids[2] = {last_id, chunk_id_of(in->scope, in->kind, in->source_id, 0)};
  req.ids = ids;
  req.n_ids = 2;
  ProtobufCMessage *resp = NULL;
  eg_code rc = eg_rpc_unary(eg_peers_vectord(g->o.peers, in->scope->tenant), "/engram.v1.Vector/GetChunks",
                            &req.base,
                            &engram__v1__get_chunks_response__descriptor, 0, &resp, err);
  if (rc) return rc;
  Engram__V1__GetChunksResponse *r = (void *)resp;
  char want[24];
  snprintf(want, sizeof want, "%016llx", (unsigned long long)in->content_hash);
  for (size_t i = 0; i < r->n_chunks; i++) {
    for (size_t m = 0; m < r->chunks[i]->n_metadata; m++) {
      Engram__V1__KeyValue *kv = r->chunks[i]->metadata[m];
      if (r->chunks[i]->id == last_id && !strcmp(kv->key, "content_hash") && !strcmp(kv->value, want)) *dup = true;
      if (!strcmp(kv->key, "segments")) *old_n = (size_t)strtoull(kv->value, NULL, 10);
    }
  }
  protobuf_c_message_free_unpacked(resp, NULL);
  return EG_OK;
}

/* Resolve every entity named by the enrichment; returns a name → id map in the arena. */
typedef struct name_id {
  const char *name, *type;
  uint64_t id;
} name_id;

static eg_code resolve_all(eg_ingest *g, const Engram__V1__Scope *scope, eg_enriched *en, size_t n, eg_arena *a,
                           name_id **out, size_t *n_out, eg_err *err) {
  size_t cap = 64, cnt = 0;
  name_id *v = eg_arena_alloc(a, cap * sizeof *v);
  eg_map *seen = eg_map_new();
#define ADD_NAME(nm, ty)                                                                       \
  do {                                                                                         \
    const char *n_ = (nm);                                                                     \
    if (n_ && *n_ && !eg_map_get(seen, n_, strlen(n_))) {                                      \
      if (cnt == cap) {                                                                        \
        name_id *nv = eg_arena_alloc(a, cap * 2 * sizeof *nv);                                 \
        if (nv) memcpy(nv, v, cnt * sizeof *nv);                                               \
        v = nv;                                                                                \
        cap *= 2;                                                                              \
      }                                                                                        \
      if (v) {                                                                                 \
        v[cnt] = (name_id){n_, (ty) ? (ty) : "", 0};                                           \
        eg_map_put(seen, n_, strlen(n_), (void *)(uintptr_t)(cnt + 1));                        \
        cnt++;                                                                                 \
      }                                                                                        \
    }                                                                                          \
  } while (0)
  for (size_t i = 0; v && i < n; i++) {
    for (size_t m = 0; m < en[i].n_mentions; m++) ADD_NAME(en[i].mentions[m].name, en[i].mentions[m].type);
    for (size_t f = 0; f < en[i].n_facts; f++) {
      ADD_NAME(en[i].facts[f].subject, en[i].facts[f].subject_type);
      if (en[i].facts[f].object_entity) ADD_NAME(en[i].facts[f].object, en[i].facts[f].object_type);
    }
  }
#undef ADD_NAME
  eg_map_free(seen);
  if (!v) return eg_err_set(err, EG_ENOMEM, "out of memory");
  *out = v;
  *n_out = cnt;
  if (!cnt) return EG_OK;
  Engram__V1__EntityMention *ms = eg_arena_calloc(a, cnt, sizeof *ms), **mp = eg_arena_alloc(a, cnt * sizeof *mp);
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
  ProtobufCMessage *resp = NULL;
  eg_code rc = eg_rpc_unary(eg_peers_graphd(g->o.peers, scope->tenant), "/engram.v1.Graph/ResolveEntities",
                            &req.base,
                            &engram__v1__resolve_entities_response__descriptor, 0, &resp, err);
  if (rc) {
    eg_err_prefix(err, "graphd: ");
    return rc;
  }
  Engram__V1__ResolveEntitiesResponse *r = (void *)resp;
  for (size_t i = 0; i < cnt && i < r->n_entities; i++) v[i].id = r->entities[i]->entity ? r->entities[i]->entity->id : 0;
  protobuf_c_message_free_unpacked(resp, NULL);
  return EG_OK;
}

static uint64_t id_of(const name_id *v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(v[i].name, name)) return v[i].id;
  return 0;
}

/* The watermark of an ingest: "v1:<hex id>" of the last chunk it stores (eg_watermark_wait). */
static void format_watermark(uint64_t last_chunk_id, char *buf, size_t len) {
  snprintf(buf, len, "v1:%016llx", (unsigned long long)last_chunk_id);
}

static eg_code write_units(eg_ingest *g, const writer_in *in, eg_arena *a, Engram__V1__IngestReport *rep,
                           char *watermark, size_t wm_len, eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  size_t n = in->n;
  uint64_t *ids = eg_arena_alloc(a, (n ? n : 1) * sizeof *ids);
  if (!ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) ids[i] = chunk_id_of(in->scope, in->kind, in->source_id, i);
  for (size_t i = 0; i < n; i++) rep->tokens += eg_text_words(in->units[i].content);
  format_watermark(ids[n - 1], watermark, wm_len);
  bool dup;
  size_t old_n;
  eg_code rc = check_receipt(g, in, ids[n - 1], &dup, &old_n, err);
  if (rc) {
    eg_err_prefix(err, "vectord: ");
    return rc;
  }
  stage(g, rep, a, "receipt", t0);
  if (dup) {
    rep->duplicate = true;
    eg_series_add(g->m_duplicates, 1);
    return EG_OK;
  }
  /* Enrich within the window. */
  t0 = eg_time_mono_us();
  eg_enriched *en = eg_arena_calloc(a, n, sizeof *en);
  eg_segment *segs = eg_arena_alloc(a, n * sizeof *segs);
  if (!en || !segs) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) segs[i] = in->units[i].seg;
  eg_enrich_ctx ctx = {user_entity(a, in->scope),
                       in->window && in->window->prev ? in->window->prev : g->o.window_prev,
                       in->window && in->window->next ? in->window->next : g->o.window_next};
  if (in->enricher == ENGRAM__V1__ENRICHER__ENRICHER_LLM && g->llm) {
    uint32_t fallbacks = 0;
    rc = eg_enrich_llm(g->llm, &ctx, segs, n, a, en, &fallbacks, err);
    rep->llm_fallbacks = fallbacks;
    eg_series_add(g->m_llm_fallbacks, fallbacks);
  } else {
    rc = eg_enrich_rules(&ctx, segs, n, a, en, err);
    /* the prototypes read the states the rules have no pattern for */
    eg_statefacts_stats ss = {0};
    if (!rc && g->states) rc = eg_statefacts_extract(g->states, &ctx, segs, n, a, en, &ss, err);
    eg_series_add(g->m_state_clauses, (double)ss.clauses);
    eg_series_add(g->m_state_embedded, (double)ss.embedded);
    eg_series_add(g->m_state_doubts, (double)ss.doubts);
  }
  if (rc) return rc;
  stage(g, rep, a, "enrich", t0);
  /* Entities. */
  t0 = eg_time_mono_us();
  name_id *names = NULL;
  size_t nn = 0;
  if ((rc = resolve_all(g, in->scope, en, n, a, &names, &nn, err))) return rc;
  rep->entities = (uint32_t)nn;
  stage(g, rep, a, "resolve", t0);
  /* Facts to graphd (with their source chunk), and chunk → entity mentions. */
  t0 = eg_time_mono_us();
  size_t nf = 0;
  for (size_t i = 0; i < n; i++) nf += en[i].n_facts;
  Engram__V1__EdgeInput *edges = eg_arena_calloc(a, nf ? nf : 1, sizeof *edges);
  Engram__V1__EdgeInput **ep = eg_arena_alloc(a, (nf ? nf : 1) * sizeof *ep);
  Engram__V1__ChunkMention *cm = eg_arena_calloc(a, n, sizeof *cm), **cmp = eg_arena_alloc(a, n * sizeof *cmp);
  if (!edges || !ep || !cm || !cmp) return eg_err_set(err, EG_ENOMEM, "out of memory");
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    engram__v1__chunk_mention__init(&cm[i]);
    cm[i].chunk_id = ids[i];
    cm[i].entities = eg_arena_alloc(a, (en[i].n_mentions ? en[i].n_mentions : 1) * sizeof *cm[i].entities);
    for (size_t m = 0; cm[i].entities && m < en[i].n_mentions; m++) {
      Engram__V1__EntityRef *r = eg_arena_calloc(a, 1, sizeof *r);
      if (!r) return eg_err_set(err, EG_ENOMEM, "out of memory");
      engram__v1__entity_ref__init(r);
      r->ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
      r->id = id_of(names, nn, en[i].mentions[m].name);
      if (r->id) cm[i].entities[cm[i].n_entities++] = r;
    }
    cmp[i] = &cm[i];
    for (size_t f = 0; f < en[i].n_facts; f++) {
      const eg_fact *x = &en[i].facts[f];
      Engram__V1__EdgeInput *e = &edges[k];
      engram__v1__edge_input__init(e);
      Engram__V1__EntityRef *s = eg_arena_calloc(a, 1, sizeof *s), *o = NULL;
      Engram__V1__EdgeMeta *meta = eg_arena_calloc(a, 1, sizeof *meta);
      if (!s || !meta) return eg_err_set(err, EG_ENOMEM, "out of memory");
      engram__v1__entity_ref__init(s);
      s->ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
      s->id = id_of(names, nn, x->subject);
      if (!s->id) continue;
      e->subject = s;
      e->relation = x->relation;
      if (x->object_entity) {
        o = eg_arena_calloc(a, 1, sizeof *o);
        if (!o) return eg_err_set(err, EG_ENOMEM, "out of memory");
        engram__v1__entity_ref__init(o);
        o->ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
        o->id = id_of(names, nn, x->object);
        if (!o->id) continue;
        e->object_entity = o;
      } else {
        e->object_literal = x->object;
      }
      e->op = x->retract ? ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT : ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT;
      e->valid_from = x->valid_from ? x->valid_from : segs[i].time;
      e->valid_to = x->valid_to > e->valid_from ? x->valid_to : 0;
      engram__v1__edge_meta__init(meta);
      meta->utterance = x->utterance ? x->utterance : "";
      meta->sentiment = x->sentiment;
      meta->intensity = x->intensity;
      meta->reason = x->reason ? x->reason : "";
      meta->confidence = x->confidence;
      meta->source_chunk_id = ids[i];
      if (!strcmp(in->kind, "session")) meta->source_session_id = (char *)in->source_id;
      else meta->source_document_id = (char *)in->source_id;
      meta->source_turn = in->units[i].turn_index;
      meta->extractor = x->extractor                                                   ? (char *)x->extractor
                        : in->enricher == ENGRAM__V1__ENRICHER__ENRICHER_LLM && g->llm ? "llm"
                                                                                       : "rules";
      e->meta = meta;
      ep[k++] = e;
    }
  }
  for (size_t off = 0; off < (k ? k : 1); off += COMMIT_BATCH) {
    Engram__V1__CommitRequest creq = ENGRAM__V1__COMMIT_REQUEST__INIT;
    creq.scope = (Engram__V1__Scope *)in->scope;
    creq.edges = ep + off;
    creq.n_edges = k - off < COMMIT_BATCH ? k - off : COMMIT_BATCH;
    if (off == 0) { /* the mentions travel with the first batch */
      creq.mentions = cmp;
      creq.n_mentions = n;
    }
    if (!creq.n_edges && !creq.n_mentions) break;
    ProtobufCMessage *cresp = NULL;
    if ((rc = eg_rpc_unary(eg_peers_graphd(g->o.peers, in->scope->tenant), "/engram.v1.Graph/Commit", &creq.base,
                           &engram__v1__commit_response__descriptor, 0, &cresp, err))) {
      eg_err_prefix(err, "graphd: ");
      return rc;
    }
    protobuf_c_message_free_unpacked(cresp, NULL);
  }
  rep->facts = (uint32_t)k;
  stage(g, rep, a, "commit", t0);
  /* Chunks to vectord, the receipt last. */
  t0 = eg_time_mono_us();
  Engram__V1__Chunk *chunks = eg_arena_calloc(a, n, sizeof *chunks);
  Engram__V1__Chunk **cp = eg_arena_alloc(a, n * sizeof *cp);
  if (!chunks || !cp) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    Engram__V1__Chunk *c = &chunks[i];
    engram__v1__chunk__init(c);
    c->id = ids[i];
    if (!strcmp(in->kind, "session")) c->session_id = (char *)in->source_id;
    else c->document_id = (char *)in->source_id;
    c->role = (char *)in->units[i].seg.role;
    c->turn_index = in->units[i].turn_index;
    c->turn_end = in->units[i].turn_end;
    c->time = segs[i].time;
    c->content = (char *)in->units[i].content;
    c->latent = en[i].latent;
    c->entity_ids = cm[i].n_entities ? eg_arena_alloc(a, cm[i].n_entities * sizeof(uint64_t)) : NULL;
    for (size_t m = 0; c->entity_ids && m < cm[i].n_entities; m++) c->entity_ids[c->n_entity_ids++] = cm[i].entities[m]->id;
    size_t nmd = (i == 0 ? 1 : 0) + (i == n - 1 ? 1 : 0) + in->n_metadata;
    c->metadata = eg_arena_alloc(a, (nmd ? nmd : 1) * sizeof *c->metadata);
    for (size_t m = 0; c->metadata && m < in->n_metadata; m++) c->metadata[c->n_metadata++] = in->metadata[m];
    if (c->metadata && i == 0) {
      Engram__V1__KeyValue *kv = eg_arena_calloc(a, 1, sizeof *kv);
      engram__v1__key_value__init(kv);
      kv->key = "segments";
      kv->value = eg_arena_sprintf(a, "%zu", n);
      c->metadata[c->n_metadata++] = kv;
    }
    if (c->metadata && i == n - 1) {
      Engram__V1__KeyValue *kv = eg_arena_calloc(a, 1, sizeof *kv);
      engram__v1__key_value__init(kv);
      kv->key = "content_hash";
      kv->value = eg_arena_sprintf(a, "%016llx", (unsigned long long)in->content_hash);
      c->metadata[c->n_metadata++] = kv;
    }
    cp[i] = c;
  }
  for (size_t off = 0; off < n; off += UPSERT_BATCH) {
    Engram__V1__UpsertRequest ureq = ENGRAM__V1__UPSERT_REQUEST__INIT;
    ureq.scope = (Engram__V1__Scope *)in->scope;
    ureq.chunks = cp + off;
    ureq.n_chunks = n - off < UPSERT_BATCH ? n - off : UPSERT_BATCH;
    ProtobufCMessage *uresp = NULL;
    if ((rc = eg_rpc_unary(eg_peers_vectord(g->o.peers, in->scope->tenant), "/engram.v1.Vector/Upsert", &ureq.base,
                           &engram__v1__upsert_response__descriptor, 0, &uresp, err))) {
      eg_err_prefix(err, "vectord: ");
      return rc;
    }
    protobuf_c_message_free_unpacked(uresp, NULL);
  }
  /* A previous, longer version leaves chunks past the new end: delete them. */
  if (old_n > n) {
    Engram__V1__DeleteRequest dreq = ENGRAM__V1__DELETE_REQUEST__INIT;
    dreq.scope = (Engram__V1__Scope *)in->scope;
    dreq.n_ids = old_n - n;
    dreq.ids = eg_arena_alloc(a, dreq.n_ids * sizeof *dreq.ids);
    for (size_t i = 0; dreq.ids && i < dreq.n_ids; i++) dreq.ids[i] = chunk_id_of(in->scope, in->kind, in->source_id, n + i);
    ProtobufCMessage *dresp = NULL;
    if (dreq.ids && eg_rpc_unary(eg_peers_vectord(g->o.peers, in->scope->tenant), "/engram.v1.Vector/Delete", &dreq.base,
                                 &engram__v1__delete_response__descriptor, 0, &dresp, err) == EG_OK)
      protobuf_c_message_free_unpacked(dresp, NULL);
  }
  rep->chunks = (uint32_t)n;
  stage(g, rep, a, "embed+upsert", t0);
  eg_series_add(g->m_tokens, (double)rep->tokens);
  eg_series_add(g->m_chunks, (double)n);
  eg_series_add(g->m_facts, (double)k);
  eg_series_add(g->m_entities, (double)nn);
  return EG_OK;
}

/* ---- sessions -------------------------------------------------------------------------- */

static eg_code validate_session(const eg_ingest *g, const Engram__V1__IngestSessionRequest *r, eg_err *err) {
  eg_code rc;
  if (!r->session_id || !*r->session_id) return eg_err_set(err, EG_EINVAL, "session_id is required");
  if ((rc = check_text(r->session_id, 256, "session_id", err))) return rc;
  if (!r->n_messages) return eg_err_set(err, EG_EINVAL, "no messages");
  if (r->n_messages > g->o.max_messages)
    return eg_err_set(err, EG_EINVAL, "more than %u messages in one session", g->o.max_messages);
  if (!time_ok(r->session_time)) return eg_err_set(err, EG_EINVAL, "session_time out of range (1900..2200)");
  for (size_t i = 0; i < r->n_messages; i++) {
    const Engram__V1__Message *m = r->messages[i];
    char what[48];
    snprintf(what, sizeof what, "messages[%zu].content", i);
    if ((rc = check_text(m->content, g->o.max_message_bytes, what, err))) return rc;
    if (!m->content || !*m->content) return eg_err_set(err, EG_EINVAL, "messages[%zu].content is empty", i);
    const char *role = m->role ? m->role : "";
    if (strcmp(role, "user") && strcmp(role, "assistant") && strcmp(role, "system") && strcmp(role, "tool"))
      return eg_err_set(err, EG_EINVAL, "messages[%zu].role must be user, assistant, system or tool", i);
    if (!time_ok(m->time)) return eg_err_set(err, EG_EINVAL, "messages[%zu].time out of range", i);
    if ((rc = check_text(m->name, 256, "messages[].name", err))) return rc;
  }
  return EG_OK;
}

static uint64_t session_hash(const Engram__V1__IngestSessionRequest *r) {
  uint64_t h = eg_hash64(r->session_id, strlen(r->session_id), (uint64_t)r->session_time);
  for (size_t i = 0; i < r->n_messages; i++) {
    const Engram__V1__Message *m = r->messages[i];
    h = eg_hash64(m->content, strlen(m->content), h ^ eg_hash64(m->role, strlen(m->role), (uint64_t)m->time));
    if (m->name) h = eg_hash64(m->name, strlen(m->name), h);
  }
  return h;
}

/* The end (exclusive) of the round starting at message i: a user message with the assistant
 * replies that follow it; anything else alone. */
static size_t round_end(const Engram__V1__IngestSessionRequest *r, size_t i) {
  size_t j = i + 1;
  if (!strcmp(r->messages[i]->role, "user"))
    while (j < r->n_messages && !strcmp(r->messages[j]->role, "assistant")) j++;
  return j;
}

/* One unit per round (round_end). */
static size_t session_units(const Engram__V1__IngestSessionRequest *r, int64_t session_time, eg_arena *a, unit **out) {
  unit *u = eg_arena_calloc(a, r->n_messages, sizeof *u);
  size_t n = 0;
  for (size_t i = 0; u && i < r->n_messages;) {
    const Engram__V1__Message *m = r->messages[i];
    size_t j = round_end(r, i);
    /* who said it, by name when known: "Maya: …" finds Maya's words for "what did Maya …" */
    eg_buf b = EG_BUF_INIT;
    for (size_t k = i; k < j; k++) {
      const Engram__V1__Message *mk = r->messages[k];
      eg_buf_printf(&b, "%s%s: %s", k > i ? "\n" : "", mk->name && *mk->name ? mk->name : mk->role, mk->content);
    }
    unit *x = &u[n++];
    x->content = j == i + 1 && !(m->name && *m->name) ? m->content : eg_arena_strndup(a, b.data, b.len);
    eg_buf_free(&b);
    x->seg.text = m->content; /* enrichment reads the statement; the reply is context */
    if (j > i + 1) x->seg.text = x->content;
    x->seg.role = m->role;
    x->seg.speaker = m->name ? m->name : "";
    x->seg.time = m->time ? m->time : session_time;
    x->turn_index = (int32_t)i;
    x->turn_end = (int32_t)(j - 1);
    i = j;
  }
  *out = u;
  return n;
}

static eg_code do_session(eg_ingest *g, const Engram__V1__IngestSessionRequest *r, eg_arena *a,
                          Engram__V1__IngestReport *rep, char *wm, size_t wml, eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  int64_t st = r->session_time ? r->session_time : eg_time_now_us();
  unit *u;
  size_t n = session_units(r, st, a, &u);
  if (!u) return eg_err_set(err, EG_ENOMEM, "out of memory");
  stage(g, rep, a, "segment", t0);
  writer_in in = {r->scope, "session", r->session_id, session_hash(r), u, n, r->enricher, r->window, NULL, 0};
  return write_units(g, &in, a, rep, wm, wml, err);
}

/* ---- documents ------------------------------------------------------------------------- */

/* Sentence-bounded chunks of about `words` words, overlapping by one sentence. */
static size_t document_units(const Engram__V1__IngestDocumentRequest *r, uint32_t words, eg_arena *a, unit **out) {
  const char *t = r->text;
  size_t len = strlen(t), ns = 0, cap = 64;
  size_t *ss = eg_arena_alloc(a, cap * sizeof *ss), *se = eg_arena_alloc(a, cap * sizeof *se);
  for (size_t p = 0; ss && se && p < len;) { /* sentence spans */
    while (p < len && (t[p] == ' ' || t[p] == '\n' || t[p] == '\t')) p++;
    if (p >= len) break;
    size_t s = p;
    while (p < len && !(strchr(".!?", t[p]) && (p + 1 == len || t[p + 1] == ' ' || t[p + 1] == '\n')) &&
           !(t[p] == '\n' && p + 1 < len && t[p + 1] == '\n'))
      p++;
    if (p < len) p++;
    if (ns == cap) {
      size_t *a2 = eg_arena_alloc(a, cap * 2 * sizeof *a2), *b2 = eg_arena_alloc(a, cap * 2 * sizeof *b2);
      if (!a2 || !b2) break;
      memcpy(a2, ss, ns * sizeof *ss);
      memcpy(b2, se, ns * sizeof *se);
      ss = a2, se = b2, cap *= 2;
    }
    ss[ns] = s;
    se[ns++] = p;
  }
  unit *u = eg_arena_calloc(a, ns ? ns : 1, sizeof *u);
  size_t n = 0;
  for (size_t i = 0; u && i < ns;) {
    size_t j = i, w = 0;
    while (j < ns && (w < words || j == i)) {
      char *sent = eg_arena_strndup(a, t + ss[j], se[j] - ss[j]);
      w += eg_text_words(sent);
      j++;
    }
    unit *x = &u[n++];
    x->content = eg_arena_strndup(a, t + ss[i], se[j - 1] - ss[i]);
    x->seg.text = x->content;
    x->seg.role = "document";
    x->seg.speaker = r->title ? r->title : "";
    x->seg.time = r->time ? r->time : eg_time_now_us();
    x->turn_index = (int32_t)(n - 1);
    x->turn_end = (int32_t)(n - 1);
    if (j >= ns) break;
    i = j - 1 > i ? j - 1 : j; /* one sentence of overlap */
  }
  *out = u;
  return n;
}

static eg_code do_document(eg_ingest *g, const Engram__V1__IngestDocumentRequest *r, eg_arena *a,
                           Engram__V1__IngestReport *rep, char *wm, size_t wml, eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  unit *u;
  size_t n = document_units(r, g->o.doc_chunk_words, a, &u);
  if (!u || !n) return eg_err_set(err, EG_EINVAL, "document has no text");
  stage(g, rep, a, "segment", t0);
  uint64_t h = eg_hash64(r->text, strlen(r->text), eg_hash64(r->title ? r->title : "", r->title ? strlen(r->title) : 0, (uint64_t)r->time));
  writer_in in = {r->scope, "document", r->document_id, h, u, n, r->enricher, r->window, r->metadata, r->n_metadata};
  return write_units(g, &in, a, rep, wm, wml, err);
}

/* ---- client facts ---------------------------------------------------------------------- */

static eg_code do_facts(eg_ingest *g, const Engram__V1__AssertFactsRequest *r, eg_arena *a,
                        Engram__V1__IngestReport *rep, uint64_t **edge_ids, size_t *n_edge_ids, eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  size_t n = r->n_facts;
  Engram__V1__EdgeInput *e = eg_arena_calloc(a, n, sizeof *e), **ep = eg_arena_alloc(a, n * sizeof *ep);
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
    m->source_session_id = f->session_id;
    m->extractor = "client";
    e[i].meta = m;
    ep[i] = &e[i];
  }
  Engram__V1__CommitRequest creq = ENGRAM__V1__COMMIT_REQUEST__INIT;
  creq.scope = r->scope;
  creq.edges = ep;
  creq.n_edges = n;
  ProtobufCMessage *cresp = NULL;
  eg_code rc = eg_rpc_unary(eg_peers_graphd(g->o.peers, r->scope->tenant), "/engram.v1.Graph/Commit", &creq.base,
                            &engram__v1__commit_response__descriptor, 0, &cresp, err);
  if (rc) {
    eg_err_prefix(err, "graphd: ");
    return rc;
  }
  Engram__V1__CommitResponse *cr = (void *)cresp;
  *n_edge_ids = cr->n_edge_ids;
  *edge_ids = eg_arena_alloc(a, (cr->n_edge_ids ? cr->n_edge_ids : 1) * sizeof **edge_ids);
  if (*edge_ids && cr->n_edge_ids) memcpy(*edge_ids, cr->edge_ids, cr->n_edge_ids * sizeof **edge_ids);
  protobuf_c_message_free_unpacked(cresp, NULL);
  rep->facts = (uint32_t)n;
  eg_series_add(g->m_facts, (double)n);
  stage(g, rep, a, "commit", t0);
  return EG_OK;
}

static eg_code validate_facts(const eg_ingest *g, const Engram__V1__AssertFactsRequest *r, eg_err *err) {
  if (!r->n_facts) return eg_err_set(err, EG_EINVAL, "no facts");
  if (r->n_facts > g->o.max_facts) return eg_err_set(err, EG_EINVAL, "more than %u facts", g->o.max_facts);
  for (size_t i = 0; i < r->n_facts; i++) {
    const Engram__V1__FactInput *f = r->facts[i];
    if (!f->subject) return eg_err_set(err, EG_EINVAL, "facts[%zu].subject is required", i);
    if (!time_ok(f->valid_from) || !time_ok(f->valid_to)) return eg_err_set(err, EG_EINVAL, "facts[%zu]: time out of range", i);
    if (f->confidence < 0 || f->confidence > 1) return eg_err_set(err, EG_EINVAL, "facts[%zu].confidence must be in [0, 1]", i);
  }
  return EG_OK; /* graphd checks relations, objects and premises, all or nothing */
}

/* ---- jobs ----------------------------------------------------------------------------- */

static void job_run(void *arg) {
  job *j = arg;
  eg_ingest *g = j->g;
  eg_arena *a = eg_arena_new(1 << 16, 0);
  Engram__V1__IngestReport rep = ENGRAM__V1__INGEST_REPORT__INIT;
  char wm[40] = "";
  eg_err err;
  eg_err_clear(&err);
  eg_code rc = EG_OK;
  pthread_mutex_lock(&g->mu);
  j->state = ENGRAM__V1__JOB_STATE__JOB_STATE_RUNNING;
  pthread_mutex_unlock(&g->mu);
  if (j->kind == 0) {
    Engram__V1__IngestSessionRequest *r = engram__v1__ingest_session_request__unpack(NULL, j->req_len, j->req);
    rc = r ? do_session(g, r, a, &rep, wm, sizeof wm, &err) : eg_err_set(&err, EG_EINTERNAL, "bad job");
    if (r) engram__v1__ingest_session_request__free_unpacked(r, NULL);
  } else if (j->kind == 1) {
    Engram__V1__IngestDocumentRequest *r = engram__v1__ingest_document_request__unpack(NULL, j->req_len, j->req);
    rc = r ? do_document(g, r, a, &rep, wm, sizeof wm, &err) : eg_err_set(&err, EG_EINTERNAL, "bad job");
    if (r) engram__v1__ingest_document_request__free_unpacked(r, NULL);
  } else {
    Engram__V1__AssertFactsRequest *r = engram__v1__assert_facts_request__unpack(NULL, j->req_len, j->req);
    uint64_t *ids;
    size_t nid;
    rc = r ? do_facts(g, r, a, &rep, &ids, &nid, &err) : eg_err_set(&err, EG_EINTERNAL, "bad job");
    if (r) engram__v1__assert_facts_request__free_unpacked(r, NULL);
  }
  size_t rl = engram__v1__ingest_report__get_packed_size(&rep);
  uint8_t *rb = malloc(rl ? rl : 1);
  if (rb) engram__v1__ingest_report__pack(&rep, rb);
  pthread_mutex_lock(&g->mu);
  j->state = rc ? ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED : ENGRAM__V1__JOB_STATE__JOB_STATE_DONE;
  snprintf(j->error, sizeof j->error, "%.190s", rc ? err.msg : "");
  free(j->report);
  j->report = rb;
  j->report_len = rl;
  free(j->req);
  j->req = NULL;
  pthread_mutex_unlock(&g->mu);
  if (rc) EG_WARN("ingest", "async job failed", "job=%s code=%s", j->id, eg_code_name(rc));
  eg_arena_free(a);
}

static void job_free(job *j) {
  if (!j) return;
  free(j->req);
  free(j->report);
  free(j->tenant);
  free(j);
}

/* Queue a packed request; fills resp with the job id (and the watermark when known). */
static eg_code enqueue(eg_ingest *g, int kind, const ProtobufCMessage *req, const char *watermark,
                       eg_arena *a, Engram__V1__IngestResponse *resp, eg_err *err) {
  job *j = calloc(1, sizeof *j);
  size_t len = protobuf_c_message_get_packed_size(req);
  if (!j || !(j->req = malloc(len ? len : 1)) || !(j->tenant = strdup(eg_scope_tenant_of(req)))) {
    job_free(j);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  /* Job ids are not guessable: a random part besides the sequence. */
  unsigned long long nonce = 0;
  if (getrandom(&nonce, sizeof nonce, 0) != sizeof nonce) nonce = (unsigned long long)eg_time_mono_us() * 0x9e3779b97f4a7c15ull;
  protobuf_c_message_pack(req, j->req);
  j->req_len = len;
  j->kind = kind;
  j->g = g;
  j->state = ENGRAM__V1__JOB_STATE__JOB_STATE_QUEUED;
  snprintf(j->watermark, sizeof j->watermark, "%s", watermark);
  pthread_mutex_lock(&g->mu);
  snprintf(j->id, sizeof j->id, "job-%llx-%016llx", (unsigned long long)++g->job_seq, nonce);
  if (g->job_count == MAX_JOBS) { /* forget the oldest finished job */
    char *old = g->job_order[g->job_head];
    job_free(eg_map_del(g->jobs, old, strlen(old)));
    free(old);
    g->job_head = (g->job_head + 1) % MAX_JOBS;
    g->job_count--;
  }
  g->job_order[(g->job_head + g->job_count++) % MAX_JOBS] = strdup(j->id);
  eg_map_put(g->jobs, j->id, strlen(j->id), j);
  pthread_mutex_unlock(&g->mu);
  eg_code rc = eg_pool_submit(g->pool, job_run, j);
  if (rc) {
    pthread_mutex_lock(&g->mu);
    j->state = ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED;
    snprintf(j->error, sizeof j->error, "ingest queue is full");
    pthread_mutex_unlock(&g->mu);
    eg_series_add(g->m_rejected, 1);
    return eg_err_set(err, EG_EFULL, "ingest queue is full (%d jobs waiting): retry with backoff", g->o.queue_max);
  }
  resp->job_id = eg_arena_strdup(a, j->id);
  resp->watermark = eg_arena_strdup(a, watermark);
  return EG_OK;
}

/* ---- RPC entry points --------------------------------------------------------------------- */

static Engram__V1__IngestReport *new_report(eg_arena *a) {
  Engram__V1__IngestReport *r = eg_arena_calloc(a, 1, sizeof *r);
  if (r) engram__v1__ingest_report__init(r);
  return r;
}

eg_code eg_ingest_session(eg_ingest *g, const Engram__V1__IngestSessionRequest *req, eg_arena *a,
                          Engram__V1__IngestResponse *resp, eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  eg_code rc = validate_session(g, req, err);
  if (rc) return rc;
  Engram__V1__IngestReport *rep = new_report(a);
  if (!rep) return eg_err_set(err, EG_ENOMEM, "out of memory");
  stage(g, rep, a, "validate", t0);
  if (req->mode == ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC) {
    /* The watermark is known now: the receipt chunk's id. */
    size_t n = 0;
    for (size_t i = 0; i < req->n_messages; i = round_end(req, i)) n++;
    char wm[40];
    format_watermark(chunk_id_of(req->scope, "session", req->session_id, n - 1), wm, sizeof wm);
    return enqueue(g, 0, &req->base, wm, a, resp, err);
  }
  char wm[40];
  if ((rc = do_session(g, req, a, rep, wm, sizeof wm, err))) return rc;
  resp->report = rep;
  resp->watermark = eg_arena_strdup(a, wm);
  return EG_OK;
}

eg_code eg_ingest_document(eg_ingest *g, const Engram__V1__IngestDocumentRequest *req, eg_arena *a,
                           Engram__V1__IngestResponse *resp, eg_err *err) {
  eg_code rc;
  if (!req->document_id || !*req->document_id) return eg_err_set(err, EG_EINVAL, "document_id is required");
  if ((rc = check_text(req->document_id, 256, "document_id", err)) ||
      (rc = check_text(req->text, g->o.max_document_bytes, "text", err)) ||
      (rc = check_text(req->title, 1024, "title", err)))
    return rc;
  if (!req->text || !*req->text) return eg_err_set(err, EG_EINVAL, "text is empty");
  if (!time_ok(req->time)) return eg_err_set(err, EG_EINVAL, "time out of range (1900..2200)");
  if (req->n_metadata > 32) return eg_err_set(err, EG_EINVAL, "more than 32 metadata entries");
  Engram__V1__IngestReport *rep = new_report(a);
  if (!rep) return eg_err_set(err, EG_ENOMEM, "out of memory");
  if (req->mode == ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC) {
    unit *u;
    size_t n = document_units(req, g->o.doc_chunk_words, a, &u);
    char wm[40];
    format_watermark(chunk_id_of(req->scope, "document", req->document_id, n ? n - 1 : 0), wm, sizeof wm);
    return enqueue(g, 1, &req->base, wm, a, resp, err);
  }
  char wm[40];
  if ((rc = do_document(g, req, a, rep, wm, sizeof wm, err))) return rc;
  resp->report = rep;
  resp->watermark = eg_arena_strdup(a, wm);
  return EG_OK;
}

eg_code eg_ingest_facts(eg_ingest *g, const Engram__V1__AssertFactsRequest *req, eg_arena *a,
                        Engram__V1__IngestResponse *resp, eg_err *err) {
  eg_code rc = validate_facts(g, req, err);
  if (rc) return rc;
  if (req->mode == ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC) return enqueue(g, 2, &req->base, "", a, resp, err);
  Engram__V1__IngestReport *rep = new_report(a);
  if (!rep) return eg_err_set(err, EG_ENOMEM, "out of memory");
  uint64_t *ids = NULL;
  size_t n = 0;
  if ((rc = do_facts(g, req, a, rep, &ids, &n, err))) return rc;
  resp->report = rep;
  resp->edge_ids = ids;
  resp->n_edge_ids = n;
  resp->watermark = ""; /* graph commits are visible when acknowledged */
  return EG_OK;
}

eg_code eg_ingest_get_job(eg_ingest *g, const Engram__V1__GetJobRequest *req, eg_arena *a,
                          Engram__V1__Job *resp, eg_err *err) {
  if (!req->job_id) return eg_err_set(err, EG_EINVAL, "job_id is required");
  pthread_mutex_lock(&g->mu);
  job *j = eg_map_get(g->jobs, req->job_id, strlen(req->job_id));
  if (j && strcmp(j->tenant, req->scope->tenant) != 0) j = NULL; /* another tenant's: as if absent */
  if (j) {
    resp->job_id = eg_arena_strdup(a, j->id);
    resp->state = j->state;
    resp->watermark = eg_arena_strdup(a, j->watermark);
    resp->error = eg_arena_strdup(a, j->error);
    if (j->report) {
      ProtobufCAllocator al = eg_rpc_arena_allocator(a);
      resp->report = engram__v1__ingest_report__unpack(&al, j->report_len, j->report);
    }
  }
  pthread_mutex_unlock(&g->mu);
  if (!j) return eg_err_set(err, EG_ENOTFOUND, "no such job (jobs are kept by the ingestd that accepted them)");
  return EG_OK;
}

eg_code eg_ingest_wait(eg_ingest *g, const Engram__V1__WaitRequest *req, eg_arena *a,
                       Engram__V1__WaitResponse *resp, eg_err *err) {
  (void)a;
  if (req->timeout_us < 0 || req->timeout_us > 60 * EG_US_PER_SEC)
    return eg_err_set(err, EG_EINVAL, "timeout_us must be within 0..60 s");
  bool reached = false;
  eg_code rc = eg_watermark_wait(g->o.peers, req->scope->tenant, req->watermark, req->timeout_us, &reached, err);
  resp->reached = reached;
  return rc;
}

/* The audit line of an erasure: who was erased as a digest (never the user id itself),
 * the outcome and the counts per store; no content. */
static void audit_erase(const Engram__V1__EraseRequest *req, const Engram__V1__EraseResponse *resp, eg_code rc) {
  const char *user = req->scope->user ? req->scope->user : "";
  char subject[600], digest[72], counts[512] = "";
  snprintf(subject, sizeof subject, "%s\x1f%s", req->scope->tenant, user);
  eg_auth_digest_line(subject, digest);
  size_t n = 0;
  for (size_t i = 0; i < resp->n_counts && n < sizeof counts; i++)
    n += (size_t)snprintf(counts + n, sizeof counts - n, "%s%s.%s=%llu", i ? " " : "", resp->counts[i]->store,
                          resp->counts[i]->kind, (unsigned long long)resp->counts[i]->count);
  EG_INFO("audit", "erase", "kind=%s tenant=\"%s\" subject=%.23s outcome=%s erased_at=%lld %s", *user ? "user" : "tenant",
          req->scope->tenant, digest, eg_code_name(rc), (long long)resp->erased_at, counts);
}

eg_code eg_ingest_erase(eg_ingest *g, const Engram__V1__EraseRequest *req, eg_arena *a,
                        Engram__V1__EraseResponse *resp, eg_err *err) {
  eg_rpc_request rs[2] = {
      {eg_peers_graphd(g->o.peers, req->scope->tenant), "/engram.v1.Graph/Erase", &req->base, &engram__v1__erase_response__descriptor, NULL, {0, ""}},
      {eg_peers_vectord(g->o.peers, req->scope->tenant), "/engram.v1.Vector/Erase", &req->base, &engram__v1__erase_response__descriptor, NULL, {0, ""}}};
  eg_code rc = eg_rpc_fanout(rs, 2, 0);
  size_t total = 0;
  for (int i = 0; i < 2; i++)
    if (rs[i].resp) total += ((Engram__V1__EraseResponse *)rs[i].resp)->n_counts;
  resp->counts = eg_arena_calloc(a, total ? total : 1, sizeof *resp->counts);
  for (int i = 0; i < 2; i++) {
    Engram__V1__EraseResponse *r = (void *)rs[i].resp;
    for (size_t k = 0; r && resp->counts && k < r->n_counts; k++) {
      Engram__V1__EraseCount *c = eg_arena_calloc(a, 1, sizeof *c);
      if (!c) break;
      engram__v1__erase_count__init(c);
      c->store = eg_arena_strdup(a, r->counts[k]->store);
      c->kind = eg_arena_strdup(a, r->counts[k]->kind);
      c->count = r->counts[k]->count;
      resp->counts[resp->n_counts++] = c;
    }
    if (r && r->erased_at > resp->erased_at) resp->erased_at = r->erased_at;
    if (rs[i].resp) protobuf_c_message_free_unpacked(rs[i].resp, NULL);
  }
  if (rc) {
    *err = rs[0].err.code ? rs[0].err : rs[1].err;
    eg_err_prefix(err, rs[0].err.code ? "graphd: " : "vectord: ");
  }
  audit_erase(req, resp, rc);
  return rc;
}

/* ---- lifecycle --------------------------------------------------------------------------- */

static double queue_depth(void *arg) { return eg_pool_queued(((eg_ingest *)arg)->pool); }
static double queue_capacity(void *arg) { return ((eg_ingest *)arg)->o.queue_max; }

/* The prototype extractor is an improvement, not a dependency: without its model, its
 * file or WordNet the daemon runs on the rules alone and says so once. */
static eg_code open_states(eg_ingest *g, eg_err *err) {
  const eg_ingest_opts *o = &g->o;
  if (!o->state_embedder || !*o->state_embedder || !o->state_prototypes || !*o->state_prototypes) return EG_OK;
  eg_err e;
  eg_code rc = eg_embedder_open(o->state_embedder, &g->state_embedder, &e);
  if (!rc) {
    eg_statefacts_opts so = {o->state_prototypes, g->state_embedder, NULL, (float)o->state_floor, (float)o->state_margin};
    rc = eg_statefacts_open(&so, &g->states, &e);
  }
  if (rc == EG_ENOMEM) return eg_err_set(err, rc, "%s", e.msg);
  if (rc) {
    EG_WARN("ingest", "prototype extractor off: facts come from the rules only", "reason=\"%s\"", e.msg);
    eg_embedder_close(g->state_embedder);
    g->state_embedder = NULL;
  }
  return EG_OK;
}

eg_code eg_ingest_open(const eg_ingest_opts *opts, eg_metrics *mx, eg_ingest **out, eg_err *err) {
  eg_ingest *g = calloc(1, sizeof *g);
  if (!g) return eg_err_set(err, EG_ENOMEM, "out of memory");
  g->o = *opts;
  pthread_mutex_init(&g->mu, NULL);
  g->jobs = eg_map_new();
  eg_code rc = eg_pool_new(opts->async_workers, opts->queue_max, &g->pool, err);
  if (!rc && opts->llm_url && *opts->llm_url)
    rc = eg_llm_open(opts->llm_url, opts->llm_model, getenv("ENGRAM_LLM_API_KEY"), opts->llm_timeout_ms, mx, "engram_ingestd",
                     &g->llm, err);
  if (!rc) rc = open_states(g, err);
  if (rc) {
    eg_statefacts_close(g->states);
    eg_embedder_close(g->state_embedder);
    eg_llm_close(g->llm);
    eg_pool_free(g->pool);
    eg_map_free(g->jobs);
    free(g);
    return rc;
  }
  if (mx) {
    g->m_tokens = eg_metric_solo(eg_metrics_counter(mx, "engram_ingestd_tokens_total", "Words of text ingested.", NULL));
    g->m_chunks = eg_metric_solo(eg_metrics_counter(mx, "engram_ingestd_chunks_total", "Chunks written.", NULL));
    g->m_facts = eg_metric_solo(eg_metrics_counter(mx, "engram_ingestd_facts_total", "Facts committed.", NULL));
    g->m_entities = eg_metric_solo(eg_metrics_counter(mx, "engram_ingestd_entities_total", "Entities resolved.", NULL));
    g->m_duplicates = eg_metric_solo(eg_metrics_counter(mx, "engram_ingestd_duplicates_total",
                                                        "Ingests skipped as identical to one already written.", NULL));
    g->m_rejected = eg_metric_solo(eg_metrics_counter(mx, "engram_ingestd_queue_rejected_total",
                                                      "Async ingests refused because the queue was full.", NULL));
    g->m_llm_fallbacks = eg_metric_solo(eg_metrics_counter(
        mx, "engram_ingestd_llm_fallbacks_total", "LLM enrichments that failed and fell back to the rules.", NULL));
    g->m_state_clauses = eg_metric_solo(eg_metrics_counter(
        mx, "engram_ingestd_state_clauses_total", "First-person user clauses the prototype extractor read.", NULL));
    g->m_state_embedded = eg_metric_solo(eg_metrics_counter(
        mx, "engram_ingestd_state_clauses_embedded_total", "Of those, clauses embedded (a typed slot or a change).", NULL));
    g->m_state_doubts = eg_metric_solo(eg_metrics_counter(
        mx, "engram_ingestd_state_doubts_total", "Doubts on a state committed (STATE_UNCERTAIN).", NULL));
    g->m_stage = eg_metrics_histogram(mx, "engram_ingestd_stage_seconds", "Time per ingest stage.", "stage", NULL, 0);
    eg_metrics_gauge_fn(mx, "engram_ingestd_queue_depth", "Async ingest jobs waiting.", queue_depth, g);
    eg_metrics_gauge_fn(mx, "engram_ingestd_queue_capacity", "Async ingest jobs the queue holds at most.",
                        queue_capacity, g);
  }
  *out = g;
  return EG_OK;
}

static bool free_job(void *ctx, const void *k, size_t kl, void *v) {
  (void)ctx, (void)k, (void)kl;
  job_free(v);
  return true;
}

void eg_ingest_close(eg_ingest *g) {
  if (!g) return;
  eg_pool_free(g->pool); /* runs what is queued */
  eg_map_each(g->jobs, free_job, NULL);
  eg_map_free(g->jobs);
  for (size_t i = 0; i < g->job_count; i++) free(g->job_order[(g->job_head + i) % MAX_JOBS]);
  eg_llm_close(g->llm);
  eg_statefacts_close(g->states);
  eg_embedder_close(g->state_embedder);
  pthread_mutex_destroy(&g->mu);
  free(g);
}
