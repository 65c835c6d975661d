/*
 * ingest.c — the write path: validation, segmentation, enrichment, fan-out, idempotency,
 * async jobs, watermarks, erasure cascade.
 */
#include "services/ingestd/ingest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/auth.h"
#include "common/graph_client.h"
#include "common/log.h"
#include "common/map.h"
#include "common/scope.h"
#include "common/stage.h"
#include "common/text.h"
#include "common/time.h"
#include "common/vector_client.h"
#include "lang/enrich.h"
#include "lang/statefacts.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "services/ingestd/chat_outcomes.h"
#include "services/ingestd/enrich_llm.h"
#include "services/ingestd/jobs.h"

/* Chunks per Upsert: vectord embeds them well inside one peer deadline (use-lite: about
 * 2.5 s for 64 full document chunks on a 2-core box, against 10 s by default). */
#define UPSERT_BATCH 64
#define COMMIT_BATCH 5000
/* Longest chunk text: a longer message, round or passage is cut into consecutive parts
 * (vectord's max_text_bytes bounds content and latent, and the latent adds to it). */
#define PART_BYTES 12288
/* A fact's source utterance is cut to this (graphd bounds every string it stores). */
#define UTTERANCE_BYTES 2048

struct eg_ingest {
  eg_ingest_opts o;
  eg_jobs *jobs;               /* the durable async queue */
  eg_llm *llm;                 /* NULL when not configured */
  eg_embedder *state_embedder; /* the prototype extractor's model; NULL when off */
  eg_statefacts *states;       /* NULL when off */
  eg_series *m_tokens, *m_chunks, *m_facts, *m_entities, *m_duplicates, *m_llm_fallbacks,
      *m_outcomes;
  eg_series *m_state_clauses, *m_state_embedded, *m_state_doubts;
  eg_metric *m_stage;
};

/* ---- helpers ------------------------------------------------------------------------ */

static uint64_t chunk_id_of(const Engram__V1__Scope *s, const char *kind, const char *id,
                            size_t index) {
  char buf[1200];
  int n = snprintf(buf, sizeof buf, "%s\x1f%s\x1f%s\x1f%s\x1f%zu", s->tenant,
                   s->user ? s->user : "", kind, id, index);
  return eg_hash64(buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1),
                   0x494e47455354ULL) &
         ((UINT64_C(1) << 62) - 1);
}

static void stage(eg_ingest *g, Engram__V1__IngestReport *r, eg_arena *a, const char *name,
                  int64_t t0) {
  eg_stage_done(a, &r->stages, &r->n_stages, name, t0, g->m_stage);
}

static char *user_entity(eg_arena *a, const Engram__V1__Scope *s) {
  char name[EG_SCOPE_USER_ENTITY_MAX];
  eg_scope_user_entity(s->user, name, sizeof name);
  return eg_arena_strdup(a, name);
}

static eg_code check_text(const char *s, size_t max, const char *what, eg_err *err) {
  size_t n = s ? strlen(s) : 0;
  if (n > max) return eg_err_set(err, EG_EINVAL, "%s longer than %zu bytes", what, max);
  if (n && !eg_utf8_valid(s, n)) return eg_err_set(err, EG_EINVAL, "%s is not valid UTF-8", what);
  return EG_OK;
}

/* s cut to at most max bytes at a character boundary ("" for NULL). */
static char *bounded(eg_arena *a, const char *s, size_t max) {
  size_t len = s ? strlen(s) : 0, cut = len ? eg_utf8_cut(s, len, max) : 0;
  return cut == len ? (char *)(s ? s : "") : eg_arena_strndup(a, s, cut);
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
  const char *kind;      /* "session" or "document" */
  const char *source_id; /* session or document id */
  uint64_t content_hash;
  unit *units;
  size_t n;
  Engram__V1__Enricher enricher;
  const Engram__V1__WindowOptions *window;
  Engram__V1__KeyValue **metadata; /* documents */
  size_t n_metadata;
  eg_job *job;    /* the async job, for progress (NULL when sync) */
  float salience; /* the client's, for every chunk (0: vectord's lexicon) */
} writer_in;

/* The tenant's vectord and graphd. */
static eg_rpc_client *vectord_of(const eg_ingest *g, const Engram__V1__Scope *scope) {
  return eg_peers_vectord(g->o.peers, scope->tenant);
}
static eg_rpc_client *graphd_of(const eg_ingest *g, const Engram__V1__Scope *scope) {
  return eg_peers_graphd(g->o.peers, scope->tenant);
}

/* One call to vectord whose answer only matters by its status. */
static eg_code vectord_call(eg_rpc_request call, eg_err *err) {
  eg_code rc = eg_rpc_run(&call, 0, err);
  if (rc) eg_err_prefix(err, "vectord: ");
  protobuf_c_message_free_unpacked(call.resp, NULL);
  return rc;
}

/* Delete the chunks of segments [from, to) of this source (absent ones are no-ops). */
static eg_code delete_segments(eg_ingest *g, const writer_in *in, size_t from, size_t to,
                               eg_arena *a, eg_err *err) {
  if (to <= from) return EG_OK;
  Engram__V1__DeleteRequest dreq = ENGRAM__V1__DELETE_REQUEST__INIT;
  dreq.scope = (Engram__V1__Scope *)in->scope;
  dreq.n_ids = to - from;
  dreq.ids = eg_arena_alloc(a, dreq.n_ids * sizeof *dreq.ids);
  if (!dreq.ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < dreq.n_ids; i++)
    dreq.ids[i] = chunk_id_of(in->scope, in->kind, in->source_id, from + i);
  return vectord_call(eg_vectord_delete_call(vectord_of(g, in->scope), &dreq, NULL), err);
}

/* Look for the receipt; *dup when identical content was ingested already, *old_n the
 * number of chunks of a previous, different version or of an interrupted attempt (0 when
 * none). */
static eg_code check_receipt(eg_ingest *g, const writer_in *in, uint64_t last_id, bool *dup,
                             size_t *old_n, eg_err *err) {
  *dup = false;
  *old_n = 0;
  Engram__V1__GetChunksRequest req = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)in->scope;
  /* The receipt sits on the last chunk: look at the last chunk of this version and, for a
   * previous version of another length, at the receipt index recorded on chunk 0. */
  uint64_t ids[2] = {last_id, chunk_id_of(in->scope, in->kind, in->source_id, 0)};
  req.ids = ids;
  req.n_ids = 2;
  req.include_staged = true; /* an interrupted attempt's chunks count as a previous version */
  Engram__V1__GetChunksResponse *r = NULL;
  eg_code rc = eg_vectord_get_chunks(vectord_of(g, in->scope), &req, &r, err);
  if (rc) return rc;
  char want[24];
  snprintf(want, sizeof want, "%016llx", (unsigned long long)in->content_hash);
  for (size_t i = 0; i < r->n_chunks; i++) {
    for (size_t m = 0; m < r->chunks[i]->n_metadata; m++) {
      Engram__V1__KeyValue *kv = r->chunks[i]->metadata[m];
      if (r->chunks[i]->id == last_id && !r->chunks[i]->staged &&
          !strcmp(kv->key, "content_hash") && !strcmp(kv->value, want))
        *dup = true;
      if (!strcmp(kv->key, "segments") || !strcmp(kv->key, "previous_segments")) {
        size_t m_n = (size_t)strtoull(kv->value, NULL, 10);
        if (m_n > *old_n) *old_n = m_n;
      }
    }
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return EG_OK;
}

/* Resolve every entity named by the enrichment; returns a name → id map in the arena. */
typedef struct name_id {
  const char *name, *type;
  uint64_t id;
} name_id;

static eg_code resolve_all(eg_ingest *g, const Engram__V1__Scope *scope, eg_enriched *en, size_t n,
                           eg_arena *a, name_id **out, size_t *n_out, eg_err *err) {
  size_t cap = 64, cnt = 0;
  name_id *v = eg_arena_alloc(a, cap * sizeof *v);
  eg_map *seen = eg_map_new();
#define ADD_NAME(nm, ty)                                                \
  do {                                                                  \
    const char *n_ = (nm);                                              \
    if (n_ && *n_ && !eg_map_get(seen, n_, strlen(n_))) {               \
      if (cnt == cap) {                                                 \
        name_id *nv = eg_arena_alloc(a, cap * 2 * sizeof *nv);          \
        if (nv) memcpy(nv, v, cnt * sizeof *nv);                        \
        v = nv;                                                         \
        cap *= 2;                                                       \
      }                                                                 \
      if (v) {                                                          \
        v[cnt] = (name_id){n_, (ty) ? (ty) : "", 0};                    \
        eg_map_put(seen, n_, strlen(n_), (void *)(uintptr_t)(cnt + 1)); \
        cnt++;                                                          \
      }                                                                 \
    }                                                                   \
  } while (0)
  for (size_t i = 0; v && i < n; i++) {
    for (size_t m = 0; m < en[i].n_mentions; m++)
      ADD_NAME(en[i].mentions[m].name, en[i].mentions[m].type);
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
  eg_code rc = eg_graphd_resolve_entities(graphd_of(g, scope), &req, &r, err);
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

/* The watermark of an ingest: "v1:<hex id>" of the last chunk it stores (eg_watermark_wait). */
static void format_watermark(uint64_t last_chunk_id, char *buf, size_t len) {
  snprintf(buf, len, "v1:%016llx", (unsigned long long)last_chunk_id);
}

static Engram__V1__KeyValue *key_value(eg_arena *a, const char *key, char *value) {
  Engram__V1__KeyValue *kv = eg_arena_calloc(a, 1, sizeof *kv);
  if (!kv || !value) return NULL;
  engram__v1__key_value__init(kv);
  kv->key = (char *)key;
  kv->value = value;
  return kv;
}

/* The chunks of an ingest: chunk 0 records how many there are (and how many a longer
 * previous version had), the last carries the receipt (content hash). */
static Engram__V1__Chunk **build_chunks(const writer_in *in, const uint64_t *ids,
                                        const eg_segment *segs, const eg_enriched *en,
                                        const Engram__V1__ChunkMention *cm, size_t old_n,
                                        eg_arena *a) {
  size_t n = in->n;
  Engram__V1__Chunk *chunks = eg_arena_calloc(a, n, sizeof *chunks);
  Engram__V1__Chunk **cp = eg_arena_alloc(a, n * sizeof *cp);
  if (!chunks || !cp) return NULL;
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
    size_t nmd = (i == 0 ? 2 : 0) + (i == n - 1 ? 1 : 0) + in->n_metadata;
    c->metadata = eg_arena_alloc(a, (nmd ? nmd : 1) * sizeof *c->metadata);
    if (!c->metadata) return NULL;
    for (size_t m = 0; m < in->n_metadata; m++) c->metadata[c->n_metadata++] = in->metadata[m];
    if (i == 0 &&
        !(c->metadata[c->n_metadata++] = key_value(a, "segments", eg_arena_sprintf(a, "%zu", n))))
      return NULL;
    /* so an attempt interrupted before the tail is deleted still finds the tail (after
     * that, deleting the absent ids again is a no-op) */
    if (i == 0 && old_n > n &&
        !(c->metadata[c->n_metadata++] =
              key_value(a, "previous_segments", eg_arena_sprintf(a, "%zu", old_n))))
      return NULL;
    if (i == n - 1 && !(c->metadata[c->n_metadata++] = key_value(
                            a, "content_hash",
                            eg_arena_sprintf(a, "%016llx", (unsigned long long)in->content_hash))))
      return NULL;
    cp[i] = c;
  }
  return cp;
}

/*
 * Chunks to vectord in batches of UPSERT_BATCH. One batch is atomic by itself. More are
 * staged (stored, invisible) and published together at the end, so readers see the whole
 * ingest or nothing of it. When a batch or the publish fails, the chunks are deleted —
 * with the previous version's, which staging began to overwrite (same ids) — so nothing
 * of the source stays searchable; a crash leaves only invisible chunks, which the next
 * attempt overwrites (same ids) or deletes (check_receipt counts them).
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
    rc = vectord_call(eg_vectord_upsert_call(vectord_of(g, in->scope), &ureq, NULL), err);
    if (!rc) eg_job_progress(in->job, (uint32_t)(off + ureq.n_chunks), (uint32_t)n);
  }
  if (!rc && staged) {
    Engram__V1__PublishRequest preq = ENGRAM__V1__PUBLISH_REQUEST__INIT;
    preq.scope = (Engram__V1__Scope *)in->scope;
    preq.ids = (uint64_t *)ids;
    preq.n_ids = n;
    rc = vectord_call(eg_vectord_publish_call(vectord_of(g, in->scope), &preq, NULL), err);
  }
  if (rc && staged) {
    eg_err derr;
    if (delete_segments(g, in, 0, n > old_n ? n : old_n, a, &derr))
      EG_WARN("ingest", "staged chunks of a failed ingest left (invisible) for the next attempt",
              "error=\"%s\"", derr.msg);
  }
  return rc;
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
  eg_code rc =
      eg_chat_outcomes_record(eg_peers_graphd(g->o.peers, in->scope->tenant), in->scope,
                              in->source_id, user_entity, v, n, UTTERANCE_BYTES, a, &recorded, err);
  if (rc) {
    eg_err_prefix(err, "graphd: ");
    return rc;
  }
  eg_series_add(g->m_outcomes, recorded);
  stage(g, rep, a, "outcomes", t0);
  return EG_OK;
}

static eg_code write_units(eg_ingest *g, const writer_in *in, eg_arena *a,
                           Engram__V1__IngestReport *rep, char *watermark, size_t wm_len,
                           eg_err *err) {
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
  Engram__V1__ChunkMention *cm = eg_arena_calloc(a, n, sizeof *cm),
                           **cmp = eg_arena_alloc(a, n * sizeof *cmp);
  if (!edges || !ep || !cm || !cmp) return eg_err_set(err, EG_ENOMEM, "out of memory");
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    engram__v1__chunk_mention__init(&cm[i]);
    cm[i].chunk_id = ids[i];
    cm[i].entities =
        eg_arena_alloc(a, (en[i].n_mentions ? en[i].n_mentions : 1) * sizeof *cm[i].entities);
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
      e->op =
          x->retract ? ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT : ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT;
      e->valid_from = x->valid_from ? x->valid_from : segs[i].time;
      e->valid_to = x->valid_to > e->valid_from ? x->valid_to : 0;
      engram__v1__edge_meta__init(meta);
      meta->utterance = bounded(a, x->utterance, UTTERANCE_BYTES);
      meta->sentiment = x->sentiment;
      meta->intensity = x->intensity;
      meta->reason = bounded(a, x->reason, UTTERANCE_BYTES);
      meta->confidence = x->confidence;
      meta->source_chunk_id = ids[i];
      if (!strcmp(in->kind, "session"))
        meta->source_session_id = (char *)in->source_id;
      else
        meta->source_document_id = (char *)in->source_id;
      meta->source_turn = in->units[i].turn_index;
      meta->extractor = x->extractor ? (char *)x->extractor
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
    if ((rc = eg_graphd_commit(graphd_of(g, in->scope), &creq, NULL, err))) {
      eg_err_prefix(err, "graphd: ");
      return rc;
    }
  }
  rep->facts = (uint32_t)k;
  stage(g, rep, a, "commit", t0);
  /* Outcomes of earlier suggestions the user speaks of, on the edges they are about. */
  if (!strcmp(in->kind, "session") &&
      (rc = record_outcomes(g, in, segs, en, ctx.user_entity, rep, a, err)))
    return rc;
  /* Chunks to vectord, the receipt last. */
  t0 = eg_time_mono_us();
  Engram__V1__Chunk **cp = build_chunks(in, ids, segs, en, cm, old_n, a);
  if (!cp) return eg_err_set(err, EG_ENOMEM, "out of memory");
  if ((rc = upsert_chunks(g, in, cp, ids, old_n, a, err))) return rc;
  /* A previous, longer version leaves chunks past the new end: delete them. */
  eg_err derr;
  if (old_n > n && delete_segments(g, in, n, old_n, a, &derr))
    EG_WARN("ingest", "chunks of a previous version left behind", "error=\"%s\"", derr.msg);
  rep->chunks = (uint32_t)n;
  stage(g, rep, a, "embed+upsert", t0);
  eg_series_add(g->m_tokens, (double)rep->tokens);
  eg_series_add(g->m_chunks, (double)n);
  eg_series_add(g->m_facts, (double)k);
  eg_series_add(g->m_entities, (double)nn);
  return EG_OK;
}

/* ---- segmentation: parts ----------------------------------------------------------------- */

/* Where to end a part of s[0..len) at most max bytes long: after a line break, else a
 * sentence end, else a space in the second half of the span, else at a character boundary. */
static size_t part_end(const char *s, size_t len, size_t max) {
  size_t cut = eg_utf8_cut(s, len, max);
  if (cut == len) return len;
  for (int pass = 0; pass < 3; pass++)
    for (size_t p = cut; p > cut / 2; p--) {
      char c = s[p - 1];
      if ((pass == 0 && c == '\n') ||
          (pass == 1 && c == ' ' && p >= 2 && strchr(".!?", s[p - 2])) || (pass == 2 && c == ' '))
        return p;
    }
  return cut ? cut : len; /* cut is 0 only for max below one character */
}

/* Units whose content is longer than PART_BYTES become consecutive parts (same turn
 * index, same speaker and time), so no message is refused for length and every part is a
 * chunk vectord takes. renumber: documents number their chunks (turn_index = ordinal). */
static size_t split_units(const unit *u, size_t n, bool renumber, eg_arena *a, unit **out) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(u[i].content), parts = 0;
    for (size_t off = 0; off < len; parts++)
      off += part_end(u[i].content + off, len - off, PART_BYTES);
    total += parts ? parts : 1;
  }
  if (total == n && !renumber) {
    *out = (unit *)u;
    return n;
  }
  unit *v = eg_arena_calloc(a, total ? total : 1, sizeof *v);
  size_t k = 0;
  for (size_t i = 0; v && i < n; i++) {
    size_t len = strlen(u[i].content);
    if (len <= PART_BYTES) {
      v[k++] = u[i];
      continue;
    }
    for (size_t off = 0; off < len;) {
      size_t pl = part_end(u[i].content + off, len - off, PART_BYTES);
      v[k] = u[i];
      v[k].content = eg_arena_strndup(a, u[i].content + off, pl);
      v[k].seg.text = v[k].content; /* enrichment reads the part it writes */
      if (u[i].seg.said_to) {       /* the speaker's own words in this part (none: an empty span) */
        size_t sf = u[i].seg.said_from > off ? u[i].seg.said_from : off;
        size_t st = u[i].seg.said_to < off + pl ? u[i].seg.said_to : off + pl;
        v[k].seg.said_from = sf < st ? sf - off : pl;
        v[k].seg.said_to = sf < st ? st - off : pl;
      }
      if (!v[k].content) return 0;
      k++;
      off += pl;
    }
  }
  for (size_t i = 0; v && renumber && i < k; i++) v[i].turn_index = v[i].turn_end = (int32_t)i;
  *out = v;
  return v ? k : 0;
}

/* ---- sessions -------------------------------------------------------------------------- */

static eg_code validate_session(const eg_ingest *g, const Engram__V1__IngestSessionRequest *r,
                                eg_err *err) {
  eg_code rc;
  if (!r->session_id || !*r->session_id)
    return eg_err_set(err, EG_EINVAL, "session_id is required");
  if ((rc = check_text(r->session_id, 256, "session_id", err))) return rc;
  if (!r->n_messages) return eg_err_set(err, EG_EINVAL, "no messages");
  if (r->n_messages > g->o.max_messages)
    return eg_err_set(err, EG_EINVAL, "more than %u messages in one session", g->o.max_messages);
  if (!time_ok(r->session_time))
    return eg_err_set(err, EG_EINVAL, "session_time out of range (1900..2200)");
  if (!(r->salience >= 0 && r->salience <= 1))
    return eg_err_set(err, EG_EINVAL,
                      "salience must be in [0, 1] (0: each chunk rated by the lexicon)");
  for (size_t i = 0; i < r->n_messages; i++) {
    const Engram__V1__Message *m = r->messages[i];
    char what[48];
    snprintf(what, sizeof what, "messages[%zu].content", i);
    if ((rc = check_text(m->content, g->o.max_message_bytes, what, err))) return rc;
    /* white space alone would be stored, embedded near everything and ranked first */
    if (eg_text_blank(m->content))
      return eg_err_set(err, EG_EINVAL, "messages[%zu].content is empty", i);
    const char *role = m->role ? m->role : "";
    if (strcmp(role, "user") && strcmp(role, "assistant") && strcmp(role, "system") &&
        strcmp(role, "tool"))
      return eg_err_set(err, EG_EINVAL,
                        "messages[%zu].role must be user, assistant, system or tool", i);
    if (!time_ok(m->time)) return eg_err_set(err, EG_EINVAL, "messages[%zu].time out of range", i);
    if ((rc = check_text(m->name, 256, "messages[].name", err))) return rc;
  }
  return EG_OK;
}

static uint64_t session_hash(const Engram__V1__IngestSessionRequest *r) {
  uint64_t h = eg_hash64(r->session_id, strlen(r->session_id), (uint64_t)r->session_time);
  for (size_t i = 0; i < r->n_messages; i++) {
    const Engram__V1__Message *m = r->messages[i];
    h = eg_hash64(m->content, strlen(m->content),
                  h ^ eg_hash64(m->role, strlen(m->role), (uint64_t)m->time));
    if (m->name) h = eg_hash64(m->name, strlen(m->name), h);
  }
  if (r->salience)
    h = eg_hash64(&r->salience, sizeof r->salience, h); /* a new salience is a new version */
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

/* One unit per round (round_end), in parts when long (split_units). *out NULL when out
 * of memory. */
static size_t session_units(const Engram__V1__IngestSessionRequest *r, int64_t session_time,
                            eg_arena *a, unit **out) {
  unit *u = eg_arena_calloc(a, r->n_messages, sizeof *u);
  size_t n = 0;
  for (size_t i = 0; u && i < r->n_messages;) {
    const Engram__V1__Message *m = r->messages[i];
    size_t j = round_end(r, i);
    /* who said it, by name when known: "Maya: …" finds Maya's words for "what did Maya …" */
    eg_buf b = EG_BUF_INIT;
    size_t said_from = 0, said_to = 0; /* the first speaker's own words in b */
    for (size_t k = i; k < j; k++) {
      const Engram__V1__Message *mk = r->messages[k];
      eg_buf_printf(&b, "%s%s: ", k > i ? "\n" : "", mk->name && *mk->name ? mk->name : mk->role);
      if (k == i) said_from = b.len;
      eg_buf_printf(&b, "%s", mk->content);
      if (k == i) said_to = b.len;
    }
    unit *x = &u[n++];
    x->content =
        j == i + 1 && !(m->name && *m->name) ? m->content : eg_arena_strndup(a, b.data, b.len);
    eg_buf_free(&b);
    if (!x->content) {
      *out = NULL;
      return 0;
    }
    x->seg.text = m->content; /* enrichment reads the statement; the reply is context */
    if (j > i + 1) {          /* "user: <said>\nassistant: …" */
      x->seg.text = x->content;
      x->seg.said_from = said_from;
      x->seg.said_to = said_to; /* > 0: the role's name and ": " come first */
    }
    x->seg.role = m->role;
    x->seg.speaker = m->name ? m->name : "";
    x->seg.time = m->time ? m->time : session_time;
    x->turn_index = (int32_t)i;
    x->turn_end = (int32_t)(j - 1);
    i = j;
  }
  *out = NULL;
  return u ? split_units(u, n, false, a, out) : 0;
}

static eg_code do_session(eg_ingest *g, const Engram__V1__IngestSessionRequest *r, eg_job *job,
                          eg_arena *a, Engram__V1__IngestReport *rep, char *wm, size_t wml,
                          eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  int64_t st = r->session_time ? r->session_time : eg_time_now_us();
  unit *u;
  size_t n = session_units(r, st, a, &u);
  if (!u) return eg_err_set(err, EG_ENOMEM, "out of memory");
  stage(g, rep, a, "segment", t0);
  writer_in in = {r->scope, "session", r->session_id, session_hash(r), u, n, r->enricher, r->window,
                  NULL,     0,         job,           r->salience};
  return write_units(g, &in, a, rep, wm, wml, err);
}

/* ---- documents ------------------------------------------------------------------------- */

/* Sentence-bounded chunks of about `words` words, overlapping by one sentence. */
static size_t document_units(const Engram__V1__IngestDocumentRequest *r, uint32_t words,
                             eg_arena *a, unit **out) {
  const char *t = r->text;
  size_t len = strlen(t), ns = 0, cap = 64;
  size_t *ss = eg_arena_alloc(a, cap * sizeof *ss), *se = eg_arena_alloc(a, cap * sizeof *se);
  for (size_t p = 0; ss && se && p < len;) { /* sentence spans */
    while (p < len && (t[p] == ' ' || t[p] == '\n' || t[p] == '\t')) p++;
    if (p >= len) break;
    size_t s = p;
    while (p < len &&
           !(strchr(".!?", t[p]) && (p + 1 == len || t[p + 1] == ' ' || t[p + 1] == '\n')) &&
           !(t[p] == '\n' && p + 1 < len && t[p + 1] == '\n'))
      p++;
    if (p < len) p++;
    if (ns == cap) {
      size_t *a2 = eg_arena_alloc(a, cap * 2 * sizeof *a2),
             *b2 = eg_arena_alloc(a, cap * 2 * sizeof *b2);
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
  *out = NULL;
  return u ? split_units(u, n, true, a, out) : 0;
}

static eg_code do_document(eg_ingest *g, const Engram__V1__IngestDocumentRequest *r, eg_job *job,
                           eg_arena *a, Engram__V1__IngestReport *rep, char *wm, size_t wml,
                           eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  unit *u;
  size_t n = document_units(r, g->o.doc_chunk_words, a, &u);
  if (!u || !n) return eg_err_set(err, EG_EINVAL, "document has no text");
  stage(g, rep, a, "segment", t0);
  uint64_t h = eg_hash64(
      r->text, strlen(r->text),
      eg_hash64(r->title ? r->title : "", r->title ? strlen(r->title) : 0, (uint64_t)r->time));
  if (r->salience) h = eg_hash64(&r->salience, sizeof r->salience, h);
  writer_in in = {r->scope,  "document",  r->document_id, h,   u,          n, r->enricher,
                  r->window, r->metadata, r->n_metadata,  job, r->salience};
  return write_units(g, &in, a, rep, wm, wml, err);
}

/* ---- client facts ---------------------------------------------------------------------- */

static eg_code do_facts(eg_ingest *g, const Engram__V1__AssertFactsRequest *r, eg_arena *a,
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
  eg_code rc = eg_graphd_commit(graphd_of(g, r->scope), &creq, &cr, err);
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
  stage(g, rep, a, "commit", t0);
  return EG_OK;
}

static eg_code validate_facts(const eg_ingest *g, const Engram__V1__AssertFactsRequest *r,
                              eg_err *err) {
  if (!r->n_facts) return eg_err_set(err, EG_EINVAL, "no facts");
  if (r->n_facts > g->o.max_facts)
    return eg_err_set(err, EG_EINVAL, "more than %u facts", g->o.max_facts);
  for (size_t i = 0; i < r->n_facts; i++) {
    const Engram__V1__FactInput *f = r->facts[i];
    if (!f->subject) return eg_err_set(err, EG_EINVAL, "facts[%zu].subject is required", i);
    if (!time_ok(f->valid_from) || !time_ok(f->valid_to))
      return eg_err_set(err, EG_EINVAL, "facts[%zu]: time out of range", i);
    if (f->confidence < 0 || f->confidence > 1)
      return eg_err_set(err, EG_EINVAL, "facts[%zu].confidence must be in [0, 1]", i);
  }
  return EG_OK; /* graphd checks relations, objects and premises, all or nothing */
}

/* ---- async jobs (jobs.c keeps them) ------------------------------------------------- */

/* Run one durable job: the same path as a sync request, from the packed request. */
static eg_code run_job(void *ctx, eg_job *job, eg_job_kind kind, const uint8_t *req, size_t len,
                       eg_arena *a, Engram__V1__IngestReport *rep, eg_err *err) {
  eg_ingest *g = ctx;
  char wm[40] = "";
  eg_code rc;
  if (kind == EG_JOB_SESSION) {
    Engram__V1__IngestSessionRequest *r =
        engram__v1__ingest_session_request__unpack(NULL, len, req);
    rc = r ? do_session(g, r, job, a, rep, wm, sizeof wm, err)
           : eg_err_set(err, EG_EINTERNAL, "bad job");
    if (r) engram__v1__ingest_session_request__free_unpacked(r, NULL);
  } else if (kind == EG_JOB_DOCUMENT) {
    Engram__V1__IngestDocumentRequest *r =
        engram__v1__ingest_document_request__unpack(NULL, len, req);
    rc = r ? do_document(g, r, job, a, rep, wm, sizeof wm, err)
           : eg_err_set(err, EG_EINTERNAL, "bad job");
    if (r) engram__v1__ingest_document_request__free_unpacked(r, NULL);
  } else {
    Engram__V1__AssertFactsRequest *r = engram__v1__assert_facts_request__unpack(NULL, len, req);
    uint64_t *ids;
    size_t nid;
    rc = r ? do_facts(g, r, a, rep, &ids, &nid, err) : eg_err_set(err, EG_EINTERNAL, "bad job");
    if (r) engram__v1__assert_facts_request__free_unpacked(r, NULL);
  }
  return rc;
}

/* Queue a request durably; fills resp with the job id (and the watermark when known). */
static eg_code enqueue(eg_ingest *g, eg_job_kind kind, const ProtobufCMessage *req,
                       const char *watermark, eg_arena *a, Engram__V1__IngestResponse *resp,
                       eg_err *err) {
  char id[48];
  eg_code rc = eg_jobs_submit(g->jobs, kind, eg_scope_tenant_of(req), req, watermark, id, err);
  if (rc) return rc;
  resp->job_id = eg_arena_strdup(a, id);
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
    unit *u;
    size_t n = session_units(req, 0, a, &u);
    if (!u) return eg_err_set(err, EG_ENOMEM, "out of memory");
    char wm[40];
    format_watermark(chunk_id_of(req->scope, "session", req->session_id, n - 1), wm, sizeof wm);
    return enqueue(g, EG_JOB_SESSION, &req->base, wm, a, resp, err);
  }
  char wm[40];
  if ((rc = do_session(g, req, NULL, a, rep, wm, sizeof wm, err))) return rc;
  resp->report = rep;
  resp->watermark = eg_arena_strdup(a, wm);
  return EG_OK;
}

eg_code eg_ingest_document(eg_ingest *g, const Engram__V1__IngestDocumentRequest *req, eg_arena *a,
                           Engram__V1__IngestResponse *resp, eg_err *err) {
  eg_code rc;
  if (!req->document_id || !*req->document_id)
    return eg_err_set(err, EG_EINVAL, "document_id is required");
  if ((rc = check_text(req->document_id, 256, "document_id", err)) ||
      (rc = check_text(req->text, g->o.max_document_bytes, "text", err)) ||
      (rc = check_text(req->title, 1024, "title", err)))
    return rc;
  if (eg_text_blank(req->text)) return eg_err_set(err, EG_EINVAL, "text is empty");
  if (!time_ok(req->time)) return eg_err_set(err, EG_EINVAL, "time out of range (1900..2200)");
  if (req->n_metadata > 32) return eg_err_set(err, EG_EINVAL, "more than 32 metadata entries");
  if (!(req->salience >= 0 && req->salience <= 1))
    return eg_err_set(err, EG_EINVAL, "salience must be in [0, 1] (0: rated by the lexicon)");
  Engram__V1__IngestReport *rep = new_report(a);
  if (!rep) return eg_err_set(err, EG_ENOMEM, "out of memory");
  if (req->mode == ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC) {
    unit *u;
    size_t n = document_units(req, g->o.doc_chunk_words, a, &u);
    char wm[40];
    format_watermark(chunk_id_of(req->scope, "document", req->document_id, n ? n - 1 : 0), wm,
                     sizeof wm);
    return enqueue(g, EG_JOB_DOCUMENT, &req->base, wm, a, resp, err);
  }
  char wm[40];
  if ((rc = do_document(g, req, NULL, a, rep, wm, sizeof wm, err))) return rc;
  resp->report = rep;
  resp->watermark = eg_arena_strdup(a, wm);
  return EG_OK;
}

eg_code eg_ingest_facts(eg_ingest *g, const Engram__V1__AssertFactsRequest *req, eg_arena *a,
                        Engram__V1__IngestResponse *resp, eg_err *err) {
  eg_code rc = validate_facts(g, req, err);
  if (rc) return rc;
  if (req->mode == ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC)
    return enqueue(g, EG_JOB_FACTS, &req->base, "", a, resp, err);
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
  if (!req->job_id || !*req->job_id) return eg_err_set(err, EG_EINVAL, "job_id is required");
  return eg_jobs_get(g->jobs, req->scope->tenant, req->job_id, a, resp, err);
}

eg_code eg_ingest_wait(eg_ingest *g, const Engram__V1__WaitRequest *req, eg_arena *a,
                       Engram__V1__WaitResponse *resp, eg_err *err) {
  (void)a;
  if (req->timeout_us < 0 || req->timeout_us > 60 * EG_US_PER_SEC)
    return eg_err_set(err, EG_EINVAL, "timeout_us must be within 0..60 s");
  bool reached = false;
  eg_code rc = eg_watermark_wait(g->o.peers, req->scope->tenant, req->watermark, req->timeout_us,
                                 &reached, err);
  resp->reached = reached;
  return rc;
}

eg_peers *eg_ingest_peers(const eg_ingest *g) { return g->o.peers; }

/* The audit line of an erasure: who was erased as a digest (never the user id itself),
 * the outcome and the counts per store; no content. */
static void audit_erase(const Engram__V1__EraseRequest *req, const Engram__V1__EraseResponse *resp,
                        eg_code rc) {
  const char *user = req->scope->user ? req->scope->user : "";
  char subject[600], digest[72], counts[512] = "";
  snprintf(subject, sizeof subject, "%s\x1f%s", req->scope->tenant, user);
  eg_auth_digest_line(subject, digest);
  size_t n = 0;
  for (size_t i = 0; i < resp->n_counts && n < sizeof counts; i++)
    n += (size_t)snprintf(counts + n, sizeof counts - n, "%s%s.%s=%llu", i ? " " : "",
                          resp->counts[i]->store, resp->counts[i]->kind,
                          (unsigned long long)resp->counts[i]->count);
  EG_INFO("audit", "erase", "kind=%s tenant=\"%s\" subject=%.23s outcome=%s erased_at=%lld %s",
          *user ? "user" : "tenant", req->scope->tenant, digest, eg_code_name(rc),
          (long long)resp->erased_at, counts);
}

eg_code eg_ingest_erase(eg_ingest *g, const Engram__V1__EraseRequest *req, eg_arena *a,
                        Engram__V1__EraseResponse *resp, eg_err *err) {
  enum { GRAPHD, VECTORD }; /* the stores, each answering for its own data */
  Engram__V1__EraseResponse *erased[2] = {NULL, NULL};
  eg_rpc_request rs[2] = {
      [GRAPHD] = eg_graphd_erase_call(graphd_of(g, req->scope), req, &erased[GRAPHD]),
      [VECTORD] = eg_vectord_erase_call(vectord_of(g, req->scope), req, &erased[VECTORD])};
  eg_code rc = eg_rpc_fanout(rs, 2, 0);
  size_t total = 0;
  for (int i = 0; i < 2; i++)
    if (erased[i]) total += erased[i]->n_counts;
  resp->counts = eg_arena_calloc(a, total ? total : 1, sizeof *resp->counts);
  for (int i = 0; i < 2; i++) {
    const Engram__V1__EraseResponse *r = erased[i];
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
    if (erased[i]) protobuf_c_message_free_unpacked(&erased[i]->base, NULL);
  }
  if (rc) {
    *err = rs[GRAPHD].err.code ? rs[GRAPHD].err : rs[VECTORD].err;
    eg_err_prefix(err, rs[GRAPHD].err.code ? "graphd: " : "vectord: ");
  }
  audit_erase(req, resp, rc);
  return rc;
}

/* ---- lifecycle --------------------------------------------------------------------------- */

/* The prototype extractor is an improvement, not a dependency: without its model, its
 * file or WordNet the daemon runs on the rules alone and says so once. */
static eg_code open_states(eg_ingest *g, eg_err *err) {
  const eg_ingest_opts *o = &g->o;
  if (!o->state_embedder || !*o->state_embedder || !o->state_prototypes || !*o->state_prototypes)
    return EG_OK;
  eg_err e;
  eg_code rc = eg_embedder_open(o->state_embedder, &g->state_embedder, &e);
  if (!rc) {
    eg_statefacts_opts so = {o->state_prototypes, g->state_embedder, NULL, (float)o->state_floor,
                             (float)o->state_margin};
    rc = eg_statefacts_open(&so, &g->states, &e);
  }
  if (rc == EG_ENOMEM) return eg_err_set(err, rc, "%s", e.msg);
  if (rc) {
    EG_WARN("ingest", "prototype extractor off: facts come from the rules only", "reason=\"%s\"",
            e.msg);
    eg_embedder_close(g->state_embedder);
    g->state_embedder = NULL;
  }
  return EG_OK;
}

/* What eg_ingest_open opened before the queue (each accepts NULL), and g. */
static void release(eg_ingest *g) {
  eg_statefacts_close(g->states);
  eg_embedder_close(g->state_embedder);
  eg_llm_close(g->llm);
  free(g);
}

eg_code eg_ingest_open(const eg_ingest_opts *opts, eg_metrics *mx, eg_ingest **out, eg_err *err) {
  eg_ingest *g = calloc(1, sizeof *g);
  if (!g) return eg_err_set(err, EG_ENOMEM, "out of memory");
  g->o = *opts;
  eg_code rc = EG_OK;
  if (opts->llm_url && *opts->llm_url)
    rc = eg_llm_open(opts->llm_url, opts->llm_model, getenv("ENGRAM_LLM_API_KEY"),
                     opts->llm_timeout_ms, mx, "engram_ingestd", &g->llm, err);
  if (!rc) rc = open_states(g, err);
  if (rc) {
    release(g);
    return rc;
  }
  if (mx) {
    g->m_tokens = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_tokens_total", "Words of text ingested.", NULL));
    g->m_chunks = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_chunks_total", "Chunks written.", NULL));
    g->m_facts = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_facts_total", "Facts committed.", NULL));
    g->m_entities = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_entities_total", "Entities resolved.", NULL));
    g->m_duplicates = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_duplicates_total",
                           "Ingests skipped as identical to one already written.", NULL));
    g->m_llm_fallbacks = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_llm_fallbacks_total",
                           "LLM enrichments that failed and fell back to the rules.", NULL));
    g->m_outcomes = eg_metric_solo(eg_metrics_counter(
        mx, "engram_ingestd_outcomes_total",
        "Outcomes read from chat and recorded on the edge they refer to.", NULL));
    g->m_state_clauses = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_state_clauses_total",
                           "First-person user clauses the prototype extractor read.", NULL));
    g->m_state_embedded = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_state_clauses_embedded_total",
                           "Of those, clauses embedded (a typed slot or a change).", NULL));
    g->m_state_doubts =
        eg_metric_solo(eg_metrics_counter(mx, "engram_ingestd_state_doubts_total",
                                          "Doubts on a state committed (STATE_UNCERTAIN).", NULL));
    g->m_stage = eg_metrics_histogram(mx, "engram_ingestd_stage_seconds", "Time per ingest stage.",
                                      "stage", NULL, 0);
  }
  /* Last: opening the queue resumes the jobs of an earlier run, which need the rest. */
  eg_jobs_opts jo = {opts->jobs_dir, opts->async_workers, opts->queue_max, run_job, g};
  if ((rc = eg_jobs_open(&jo, mx, &g->jobs, err))) {
    release(g);
    return rc;
  }
  *out = g;
  return EG_OK;
}

void eg_ingest_close(eg_ingest *g) {
  if (!g) return;
  eg_jobs_close(g->jobs); /* running jobs finish; waiting ones resume at the next start */
  release(g);
}
