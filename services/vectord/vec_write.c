/*
 * vec_write.c — Upsert, Publish, Delete and Erase.
 *
 * A write is validated completely, embedded outside any lock, written to the chunk store
 * in one durable transaction (chunk, vectors, BM25 terms), and only then applied to the
 * in-memory indexes; a chunk is acknowledged once it is on disk, and a restart rebuilds
 * the indexes from the store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/text.h"
#include "common/time.h"
#include "lang/concepts.h"
#include "services/vectord/qcache.h"
#include "services/vectord/vec_int.h"

static bool role_valid(const char *r) {
  static const char *roles[] = {"", "user", "assistant", "system", "tool", "document"};
  for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
    if (strcmp(r ? r : "", roles[i]) == 0) return true;
  return false;
}

static eg_code check_text(const eg_vec *v, const char *s, const char *what, size_t i, eg_err *err) {
  size_t n = s ? strlen(s) : 0;
  if (n > v->o.max_text_bytes)
    return eg_err_set(err, EG_EINVAL, "chunks[%zu].%s longer than %u bytes", i, what,
                      v->o.max_text_bytes);
  if (n && !eg_utf8_valid(s, n))
    return eg_err_set(err, EG_EINVAL, "chunks[%zu].%s is not valid UTF-8", i, what);
  return EG_OK;
}

static eg_code check_chunk(const eg_vec *v, const Engram__V1__UpsertRequest *req, size_t i,
                           eg_err *err) {
  const Engram__V1__Chunk *c = req->chunks[i];
  eg_code rc;
  if (c->id >> 63) return eg_err_set(err, EG_EINVAL, "chunks[%zu].id must be below 2^63", i);
  if ((!c->content || !*c->content) && (!c->latent || !*c->latent) && !c->n_content_vector)
    return eg_err_set(err, EG_EINVAL, "chunks[%zu] has no content", i);
  if ((rc = check_text(v, c->content, "content", i, err)) ||
      (rc = check_text(v, c->latent, "latent", i, err)) ||
      (rc = check_text(v, c->session_id, "session_id", i, err)) ||
      (rc = check_text(v, c->document_id, "document_id", i, err)))
    return rc;
  if ((c->session_id && strlen(c->session_id) > 256) ||
      (c->document_id && strlen(c->document_id) > 256))
    return eg_err_set(err, EG_EINVAL,
                      "chunks[%zu]: session_id and document_id are at most 256 bytes", i);
  if (!role_valid(c->role))
    return eg_err_set(err, EG_EINVAL,
                      "chunks[%zu].role must be user, assistant, system, tool or document", i);
  if (c->turn_end && c->turn_end < c->turn_index)
    return eg_err_set(err, EG_EINVAL, "chunks[%zu].turn_end is before turn_index", i);
  if (c->n_entity_ids > 256)
    return eg_err_set(err, EG_EINVAL, "chunks[%zu]: more than 256 entity ids", i);
  if (!(c->salience >= 0 && c->salience <= 1))
    return eg_err_set(err, EG_EINVAL,
                      "chunks[%zu].salience must be in [0, 1] (0: rated by the lexicon)", i);
  if (c->n_metadata > 64)
    return eg_err_set(err, EG_EINVAL, "chunks[%zu]: more than 64 metadata entries", i);
  for (size_t m = 0; m < c->n_metadata; m++) {
    const Engram__V1__KeyValue *kv = c->metadata[m];
    if ((kv->key && strlen(kv->key) > 128) || (kv->value && strlen(kv->value) > 4096))
      return eg_err_set(err, EG_EINVAL,
                        "chunks[%zu].metadata[%zu] too long (key 128, value 4096 bytes)", i, m);
  }
  int dim = v->emb->dim;
  if ((c->n_content_vector && (int)c->n_content_vector != dim) ||
      (c->n_latent_vector && (int)c->n_latent_vector != dim))
    return eg_err_set(err, EG_EINVAL, "chunks[%zu]: vectors must have %d dimensions (%s)", i, dim,
                      v->emb->model_id);
  if (c->scope && c->scope->tenant && *c->scope->tenant &&
      strcmp(c->scope->tenant, req->scope->tenant) != 0)
    return eg_err_set(err, EG_EPERM, "chunks[%zu].scope.tenant differs from the request's tenant",
                      i);
  return EG_OK;
}

/* Term counting for one chunk. */
typedef struct term_acc {
  eg_arena *a;
  eg_map *m; /* term → index+1 */
  eg_bm25_term *terms;
  size_t n, cap;
  uint32_t len;
} term_acc;

/* Count one more of term tok (a new term with tf 1). */
static void add_term(term_acc *t, const char *tok, size_t len) {
  uintptr_t at = (uintptr_t)eg_map_get(t->m, tok, len);
  if (at) {
    if (t->terms[at - 1].tf < UINT16_MAX) t->terms[at - 1].tf++;
    return;
  }
  if (t->n == t->cap) {
    size_t nc = t->cap ? t->cap * 2 : 32;
    eg_bm25_term *nt = eg_arena_alloc(t->a, nc * sizeof *nt);
    if (!nt) return;
    if (t->n) memcpy(nt, t->terms, t->n * sizeof *nt);
    t->terms = nt;
    t->cap = nc;
  }
  t->terms[t->n] = (eg_bm25_term){eg_arena_strndup(t->a, tok, len), 1};
  eg_map_put(t->m, tok, len, (void *)(uintptr_t)(t->n + 1));
  t->n++;
}

/* A word said: a term, and one more word of the document's length. */
static void count_term(void *ctx, const char *tok, size_t len) {
  term_acc *t = ctx;
  t->len++;
  add_term(t, tok, len);
}

/* The concepts of a chunk's nouns (concepts.h): each a term "~stem" with tf 1, unless the chunk
 * says that stem itself; they do not add to its length (BM25 normalizes by the words said). */
#define MAX_CONCEPTS 256 /* concept terms of one chunk at most */

typedef struct concept_acc {
  term_acc *t;
  const eg_concepts *wn;
  eg_tokenizer *stem;
  char prev[EG_TOKEN_MAX]; /* the word before, for two-word nouns ("martial arts") */
  size_t prev_len, added;
  eg_map *looked; /* words and two-word phrases already looked up in this chunk */
} concept_acc;

static void add_concept_stem(void *ctx, const char *tok, size_t len) {
  concept_acc *k = ctx;
  char term[EG_TOKEN_MAX + 1];
  if (len >= EG_TOKEN_MAX || k->added >= MAX_CONCEPTS || eg_map_get(k->t->m, tok, len)) return;
  term[0] = EG_CONCEPT_PREFIX;
  memcpy(term + 1, tok, len);
  if (eg_map_get(k->t->m, term, len + 1)) return;
  add_term(k->t, term, len + 1);
  k->added++;
}

static void add_concept(void *ctx, const char *lemma) {
  concept_acc *k = ctx;
  eg_tokenize(k->stem, lemma, strlen(lemma), add_concept_stem, k);
}

/* The concepts of w[0..n), unless this chunk looked it up already. */
static void concepts_once(concept_acc *k, const char *w, size_t n) {
  if (k->looked && eg_map_get(k->looked, w, n)) return;
  if (k->looked) eg_map_put(k->looked, w, n, (void *)1);
  eg_concepts_of(k->wn, w, n, add_concept, k);
}

static void concepts_of_word(void *ctx, const char *tok, size_t len) {
  concept_acc *k = ctx;
  if (k->prev_len) {
    char two[2 * EG_TOKEN_MAX + 2];
    int n = snprintf(two, sizeof two, "%.*s %.*s", (int)k->prev_len, k->prev, (int)len, tok);
    concepts_once(k, two, (size_t)n);
  }
  concepts_once(k, tok, len);
  k->prev_len = len < sizeof k->prev ? len : 0;
  memcpy(k->prev, tok, k->prev_len);
}

/* Chunk i of an upsert as it will be stored, into *out: its id (assigned from the slot
 * when the client gave none), scope resolved, stored_at and salience set, its vectors
 * (vecs: content then latent), its words, and the access history of the chunk it replaces.
 * Caller holds t->writer. */
static eg_code resolve_chunk(eg_vec *v, vtenant *t, const Engram__V1__UpsertRequest *req, size_t i,
                             uint64_t slot, int64_t now, float *vecs, const term_acc *acc,
                             eg_arena *a, Engram__V1__StoredChunk **out, eg_err *err) {
  Engram__V1__StoredChunk *sc = eg_arena_alloc(a, sizeof *sc);
  Engram__V1__Chunk *c = eg_arena_alloc(a, sizeof *c);
  Engram__V1__Scope *cs = eg_arena_alloc(a, sizeof *cs);
  Engram__V1__VectorTerm *terms = eg_arena_alloc(a, (acc->n ? acc->n : 1) * sizeof *terms);
  Engram__V1__VectorTerm **tp = eg_arena_alloc(a, (acc->n ? acc->n : 1) * sizeof *tp);
  Engram__V1__AccessHistory *ah = eg_arena_alloc(a, sizeof *ah);
  if (!sc || !c || !cs || !terms || !tp || !ah) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__stored_chunk__init(sc);
  *c = *req->chunks[i];
  engram__v1__scope__init(cs);
  cs->tenant = req->scope->tenant;
  cs->user = c->scope && c->scope->user && *c->scope->user ? c->scope->user : req->scope->user;
  cs->agent = c->scope && c->scope->agent && *c->scope->agent ? c->scope->agent : req->scope->agent;
  cs->private_ = c->scope ? c->scope->private_ : req->scope->private_;
  c->scope = cs;
  c->id = c->id ? c->id : (slot | (UINT64_C(1) << 62)); /* assigned ids live above 2^62 */
  c->n_content_vector = c->n_latent_vector = 0;
  c->content_vector = c->latent_vector = NULL;
  c->stored_at = now;
  if (c->salience <= 0)
    c->salience = (float)eg_salience_of(c->content && *c->content ? c->content : c->latent, NULL);
  sc->slot = slot;
  sc->chunk = c;
  sc->vectors = vecs;
  sc->n_vectors = (size_t)N_FIELDS * (size_t)v->emb->dim;
  for (size_t k = 0; k < acc->n; k++) {
    engram__v1__vector_term__init(&terms[k]);
    terms[k].term = (char *)acc->terms[k].term;
    terms[k].tf = acc->terms[k].tf;
    tp[k] = &terms[k];
  }
  sc->terms = tp;
  sc->n_terms = acc->n;
  sc->doclen = acc->len;
  /* A replaced chunk keeps its access history; it comes back hot with its new vectors. */
  pthread_rwlock_rdlock(&t->lock);
  uintptr_t old = (uintptr_t)eg_map_get(t->by_chunk, &c->id, 8);
  if (old) eg_vaccess_msg(a, &t->docs[old - 1].acc, ah);
  pthread_rwlock_unlock(&t->lock);
  if (old) {
    sc->replaced = true;
    sc->access = ah;
  }
  *out = sc;
  return EG_OK;
}

eg_code eg_vec_upsert(eg_vec *v, const Engram__V1__UpsertRequest *req, eg_arena *a,
                      Engram__V1__UpsertResponse *resp, eg_err *err) {
  size_t n = req->n_chunks;
  if (!n) return eg_err_set(err, EG_EINVAL, "no chunks");
  if (n > v->o.max_chunks)
    return eg_err_set(err, EG_EINVAL, "more than %u chunks in one upsert", v->o.max_chunks);
  eg_code rc;
  for (size_t i = 0; i < n; i++)
    if ((rc = check_chunk(v, req, i, err))) return rc;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (req->chunks[i]->id && req->chunks[i]->id == req->chunks[j]->id)
        return eg_err_set(err, EG_EINVAL, "chunk id %llu appears twice",
                          (unsigned long long)req->chunks[i]->id);
  int dim = v->emb->dim;
  /* 1. Vectors: embed what the client did not send, all in one batch per field. */
  float *vecs = eg_arena_alloc(a, n * N_FIELDS * (size_t)dim * sizeof(float));
  const char **texts = eg_arena_alloc(a, 2 * n * sizeof *texts);
  size_t *where = eg_arena_alloc(a, 2 * n * sizeof *where);
  if (!vecs || !texts || !where) return eg_err_set(err, EG_ENOMEM, "out of memory");
  size_t nt = 0, words = 0;
  for (size_t i = 0; i < n; i++) {
    const Engram__V1__Chunk *c = req->chunks[i];
    float *cv = vecs + (i * N_FIELDS + FIELD_CONTENT) * dim,
          *lv = vecs + (i * N_FIELDS + FIELD_LATENT) * dim;
    const char *content = c->content && *c->content ? c->content : c->latent;
    if (c->n_content_vector) {
      memcpy(cv, c->content_vector, (size_t)dim * sizeof(float));
      eg_l2_normalize(cv, dim);
    } else {
      texts[nt] = content;
      where[nt++] = i * N_FIELDS + FIELD_CONTENT;
      words += eg_text_words(content);
    }
    if (c->n_latent_vector) {
      memcpy(lv, c->latent_vector, (size_t)dim * sizeof(float));
      eg_l2_normalize(lv, dim);
    } else if (c->latent && *c->latent) {
      texts[nt] = c->latent;
      where[nt++] = i * N_FIELDS + FIELD_LATENT;
      words += eg_text_words(c->latent);
    } /* else: latent = content, copied below */
  }
  if (nt) {
    float *tmp = eg_arena_alloc(a, nt * (size_t)dim * sizeof(float));
    if (!tmp) return eg_err_set(err, EG_ENOMEM, "out of memory");
    int64_t t0 = eg_time_mono_us();
    if ((rc = v->emb->ops->embed(v->emb->self, texts, nt, tmp, err))) {
      eg_err_prefix(err, "embedding: ");
      return rc == EG_EINVAL ? rc : EG_EUNAVAIL;
    }
    const char *lbl[1] = {v->emb->model_id};
    eg_series_observe(eg_metric_series(v->m_embed_secs, lbl, 1),
                      (double)(eg_time_mono_us() - t0) / 1e6);
    eg_series_add(v->m_embed_tokens, (double)words);
    for (size_t k = 0; k < nt; k++)
      memcpy(vecs + where[k] * dim, tmp + k * dim, (size_t)dim * sizeof(float));
  }
  for (size_t i = 0; i < n; i++) {
    const Engram__V1__Chunk *c = req->chunks[i];
    if (!c->n_latent_vector && !(c->latent && *c->latent))
      memcpy(vecs + (i * N_FIELDS + FIELD_LATENT) * dim,
             vecs + (i * N_FIELDS + FIELD_CONTENT) * dim, (size_t)dim * sizeof(float));
  }
  /* 2. BM25 terms of content + latent, and the concepts of their nouns. */
  term_acc *accs = eg_arena_calloc(a, n, sizeof *accs);
  eg_tokenizer *tk = eg_vt_tokenizer(v);
  const eg_concepts *wn = eg_vt_concepts(v);
  eg_tokenizer *plain = wn ? eg_tokenizer_new(EG_TOK_STOPWORDS) : NULL;
  if (!accs || !tk || (wn && !plain)) {
    eg_vt_tokenizer_put(v, tk);
    eg_tokenizer_free(plain);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < n; i++) {
    const Engram__V1__Chunk *c = req->chunks[i];
    const char *text[2] = {c->content, c->latent};
    accs[i].a = a;
    accs[i].m = eg_map_new();
    for (int f = 0; f < 2; f++)
      if (text[f]) eg_tokenize(tk, text[f], strlen(text[f]), count_term, &accs[i]);
    concept_acc k = {.t = &accs[i], .wn = wn, .stem = tk, .looked = wn ? eg_map_new() : NULL};
    for (int f = 0; wn && f < 2; f++, k.prev_len = 0)
      if (text[f]) eg_tokenize(plain, text[f], strlen(text[f]), concepts_of_word, &k);
    eg_map_free(k.looked);
    eg_map_free(accs[i].m);
    accs[i].m = NULL;
  }
  eg_vt_tokenizer_put(v, tk);
  eg_tokenizer_free(plain);
  /* 3. Resolve (ids, slots, what a replaced chunk keeps) and apply: the store durably,
   * then the in-memory indexes. */
  vtenant *t = eg_vt_get(v, req->scope->tenant, true, &rc, err);
  if (!t) return rc;
  pthread_mutex_lock(&t->writer);
  vwrite w;
  if ((rc = eg_vw_begin(v, req->scope->tenant, req->scope->user, true, a, &w, err))) {
    pthread_mutex_unlock(&t->writer);
    return rc;
  }
  uint64_t *ids = eg_arena_alloc(a, n * sizeof *ids);
  Engram__V1__VectorUpsert *up = eg_arena_alloc(a, sizeof *up);
  Engram__V1__StoredChunk **scs = eg_arena_calloc(a, n, sizeof *scs);
  if (!ids || !up || !scs) {
    eg_vw_abort(&w);
    pthread_mutex_unlock(&t->writer);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  engram__v1__vector_upsert__init(up);
  up->chunks = scs;
  up->n_chunks = n;
  up->dim = (uint32_t)dim;
  up->model_id = (char *)v->emb->model_id;
  int64_t now = eg_time_now_us();
  uint64_t next_slot = w.ten->counter[VCTR_SLOT];
  for (size_t i = 0; i < n && !rc; i++)
    rc = resolve_chunk(v, t, req, i, next_slot + i, now, vecs + i * N_FIELDS * dim, &accs[i], a,
                       &scs[i], err);
  if (rc) {
    eg_vw_abort(&w);
    pthread_mutex_unlock(&t->writer);
    return rc;
  }
  for (size_t i = 0; i < n; i++) ids[i] = scs[i]->chunk->id;
  w.body.write_case = ENGRAM__V1__VECTOR_WRITE__WRITE_UPSERT;
  w.body.upsert = up;
  rc = eg_vw_commit(&w, t, 0, NULL, err);
  pthread_mutex_unlock(&t->writer);
  if (rc) return rc;
  eg_series_add(v->m_upserts, (double)n);
  resp->ids = ids;
  resp->n_ids = n;
  resp->embedded = (uint32_t)nt;
  resp->model_id = v->emb->model_id;
  resp->dim = (uint32_t)dim;
  return EG_OK;
}

/* Apply a write of chunk ids (publish or delete) to tenant t; ids resolved from memory
 * under t->writer by pick (those that exist, and for publish are staged). */
static eg_code ids_write(eg_vec *v, vtenant *t, const Engram__V1__Scope *scope, const uint64_t *ids,
                         size_t n, bool publish, eg_arena *a, uint32_t *done, eg_err *err) {
  uint64_t *found = eg_arena_alloc(a, (n ? n : 1) * sizeof *found);
  Engram__V1__VectorIds *vi = eg_arena_alloc(a, sizeof *vi);
  if (!found || !vi) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__vector_ids__init(vi);
  pthread_mutex_lock(&t->writer); /* no other writer changes these chunks meanwhile */
  size_t k = 0;
  pthread_rwlock_rdlock(&t->lock);
  for (size_t i = 0; i < n; i++) {
    uintptr_t s = (uintptr_t)eg_map_get(t->by_chunk, &ids[i], 8);
    bool dup = false;
    for (size_t j = 0; s && j < k && !dup; j++) dup = found[j] == ids[i];
    if (s && !dup && (!publish || t->docs[s - 1].staged)) found[k++] = ids[i];
  }
  pthread_rwlock_unlock(&t->lock);
  vi->ids = found;
  vi->n_ids = k;
  vwrite w;
  vresult res;
  eg_code rc = EG_OK;
  if (k && !(rc = eg_vw_begin(v, scope->tenant, scope->user, true, a, &w, err))) {
    w.body.write_case = publish ? ENGRAM__V1__VECTOR_WRITE__WRITE_PUBLISH
                                : ENGRAM__V1__VECTOR_WRITE__WRITE_DELETION;
    if (publish)
      w.body.publish = vi;
    else
      w.body.deletion = vi;
    rc = eg_vw_commit(&w, t, 0, &res, err);
  }
  pthread_mutex_unlock(&t->writer);
  if (!rc) *done = (uint32_t)k;
  return rc;
}

eg_code eg_vec_publish(eg_vec *v, const Engram__V1__PublishRequest *req, eg_arena *a,
                       Engram__V1__PublishResponse *resp, eg_err *err) {
  if (req->n_ids > 1000000) return eg_err_set(err, EG_EINVAL, "more than 1000000 ids");
  eg_code rc;
  vtenant *t = eg_vt_get(v, req->scope->tenant, false, &rc, err);
  if (!t) return rc; /* no such tenant: nothing staged */
  /* the records rewritten without the flag in one durable write, then memory, all at
   * once for searches */
  return ids_write(v, t, req->scope, req->ids, req->n_ids, true, a, &resp->published, err);
}

eg_code eg_vec_delete(eg_vec *v, const Engram__V1__DeleteRequest *req, eg_arena *a,
                      Engram__V1__DeleteResponse *resp, eg_err *err) {
  if (req->n_ids > 100000) return eg_err_set(err, EG_EINVAL, "more than 100000 ids");
  eg_code rc;
  vtenant *t = eg_vt_get(v, req->scope->tenant, false, &rc, err);
  if (!t) return rc;
  return ids_write(v, t, req->scope, req->ids, req->n_ids, false, a, &resp->deleted, err);
}

static Engram__V1__EraseCount *count(eg_arena *a, const char *kind, uint64_t n) {
  Engram__V1__EraseCount *c = eg_arena_calloc(a, 1, sizeof *c);
  if (!c) return NULL;
  engram__v1__erase_count__init(c);
  c->store = "vector";
  c->kind = (char *)kind;
  c->count = n;
  return c;
}

eg_code eg_vec_erase(eg_vec *v, const Engram__V1__EraseRequest *req, eg_arena *a,
                     Engram__V1__EraseResponse *resp, eg_err *err) {
  const char *tenant = req->scope->tenant, *user = req->scope->user;
  bool whole = !user || !*user;
  if (whole && (!req->confirm_tenant || strcmp(req->confirm_tenant, tenant) != 0))
    return eg_err_set(err, EG_EINVAL,
                      "erasing a whole tenant needs confirm_tenant equal to scope.tenant");
  eg_code rc;
  vtenant *t = eg_vt_get(v, tenant, false, &rc, err);
  if (!t && rc) return rc;
  uint64_t live = 0, terms = 0;
  if (t && whole) {
    pthread_rwlock_rdlock(&t->lock);
    live = t->live;
    terms = eg_bm25_terms(t->bm25);
    pthread_rwlock_unlock(&t->lock);
  }
  Engram__V1__VectorErasure *e = eg_arena_alloc(a, sizeof *e);
  if (!e) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__vector_erasure__init(e);
  e->user = (char *)(whole ? "" : user);
  /* Recorded even for a tenant that never wrote: every replica drops its cached queries. */
  if (t && !whole) pthread_mutex_lock(&t->writer);
  vwrite w;
  vresult res;
  if (!(rc = eg_vw_begin(v, tenant, user, t != NULL, a, &w, err))) {
    w.body.write_case = ENGRAM__V1__VECTOR_WRITE__WRITE_ERASURE;
    w.body.erasure = e;
    if (!whole && w.ten) { /* the counters the user's records moved, for who skips them */
      e->counters = w.ten->counter;
      e->n_counters = EG_KV_COUNTERS;
    }
    rc = eg_vw_commit(&w, t, 0, &res, err);
  }
  if (t && !whole) pthread_mutex_unlock(&t->writer);
  if (rc) return rc;
  uint64_t chunks = whole ? live : res.count;
  EG_INFO("erase", "erased", "kind=%s chunks=%llu cached_queries=%llu", whole ? "tenant" : "user",
          (unsigned long long)chunks, (unsigned long long)res.cached);
  resp->counts = eg_arena_calloc(a, 4, sizeof *resp->counts);
  if (!resp->counts) return eg_err_set(err, EG_ENOMEM, "out of memory");
  resp->counts[0] = count(a, "chunks", chunks + res.evicted);
  resp->counts[1] = count(a, "vectors", 2 * chunks);
  resp->counts[2] =
      count(a, whole ? "bm25_terms" : "bm25_documents", whole ? terms : chunks + res.evicted);
  resp->counts[3] = count(a, "cached_queries", res.cached);
  for (int i = 0; i < 4; i++)
    if (!resp->counts[i]) return eg_err_set(err, EG_ENOMEM, "out of memory");
  resp->counts[3]->store = "cache";
  resp->n_counts = 4;
  resp->erased_at = eg_time_now_us();
  return EG_OK;
}
