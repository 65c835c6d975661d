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

static void concepts_of_word(void *ctx, const char *tok, size_t len) {
  concept_acc *k = ctx;
  if (k->prev_len) {
    char two[2 * EG_TOKEN_MAX + 2];
    int n = snprintf(two, sizeof two, "%.*s %.*s", (int)k->prev_len, k->prev, (int)len, tok);
    eg_concepts_of(k->wn, two, (size_t)n, add_concept, k);
  }
  eg_concepts_of(k->wn, tok, len, add_concept, k);
  k->prev_len = len < sizeof k->prev ? len : 0;
  memcpy(k->prev, tok, k->prev_len);
}

static char *encode_terms(eg_arena *a, const term_acc *t, size_t *len) {
  size_t n = 4;
  for (size_t i = 0; i < t->n; i++) n += 3 + strlen(t->terms[i].term);
  char *buf = eg_arena_alloc(a, n);
  if (!buf) return NULL;
  memcpy(buf, &t->len, 4);
  size_t o = 4;
  for (size_t i = 0; i < t->n; i++) {
    size_t l = strlen(t->terms[i].term);
    buf[o++] = (char)l;
    memcpy(buf + o, t->terms[i].term, l);
    o += l;
    uint16_t tf = (uint16_t)t->terms[i].tf;
    memcpy(buf + o, &tf, 2);
    o += 2;
  }
  *len = o;
  return buf;
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
    concept_acc k = {.t = &accs[i], .wn = wn, .stem = tk};
    for (int f = 0; wn && f < 2; f++, k.prev_len = 0)
      if (text[f]) eg_tokenize(plain, text[f], strlen(text[f]), concepts_of_word, &k);
    eg_map_free(accs[i].m);
    accs[i].m = NULL;
  }
  eg_vt_tokenizer_put(v, tk);
  eg_tokenizer_free(plain);
  /* 3. The store, durably. */
  vtenant *t = eg_vt_get(v, req->scope->tenant, true, &rc, err);
  if (!t) return rc;
  pthread_mutex_lock(&t->writer);
  eg_kvtxn *txn = eg_kv_begin(v->kv);
  eg_tenant *ten;
  uint32_t *slots = eg_arena_alloc(a, n * sizeof *slots);
  uint64_t *ids = eg_arena_alloc(a, n * sizeof *ids);
  Engram__V1__Chunk *stored = eg_arena_alloc(a, n * sizeof *stored); /* as stored: scope resolved */
  Engram__V1__Scope *scopes = eg_arena_alloc(a, n * sizeof *scopes);
  int64_t now = eg_time_now_us();
  if (!txn || !slots || !ids || !stored || !scopes) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto fail;
  }
  if ((rc = eg_kvtxn_tenant(txn, req->scope->tenant, &ten, err)) ||
      (rc = eg_vt_check_model(v, txn, ten, dim, err)))
    goto fail;
  /* A replaced chunk keeps its access history; it comes back hot with its new vectors. */
  eg_access *kept = eg_arena_calloc(a, n, sizeof *kept);
  bool *replaced = eg_arena_calloc(a, n, sizeof *replaced);
  if (!kept || !replaced) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto fail;
  }
  pthread_rwlock_rdlock(&t->lock);
  for (size_t i = 0; i < n; i++) {
    uintptr_t old =
        req->chunks[i]->id ? (uintptr_t)eg_map_get(t->by_chunk, &req->chunks[i]->id, 8) : 0;
    if (old) kept[i] = t->docs[old - 1].acc, replaced[i] = true;
  }
  pthread_rwlock_unlock(&t->lock);
  for (size_t i = 0; i < n; i++) {
    Engram__V1__Chunk *sc = &stored[i];
    *sc = *req->chunks[i];
    ids[i] =
        sc->id ? sc->id
               : (ten->counter[VCTR_SLOT] | (UINT64_C(1) << 62)); /* assigned ids live above 2^62 */
    slots[i] = (uint32_t)ten->counter[VCTR_SLOT]++;
    Engram__V1__Scope *cs = &scopes[i];
    engram__v1__scope__init(cs);
    cs->tenant = req->scope->tenant;
    cs->user =
        sc->scope && sc->scope->user && *sc->scope->user ? sc->scope->user : req->scope->user;
    cs->agent =
        sc->scope && sc->scope->agent && *sc->scope->agent ? sc->scope->agent : req->scope->agent;
    cs->private_ = sc->scope ? sc->scope->private_ : req->scope->private_;
    sc->scope = cs;
    sc->id = ids[i];
    sc->n_content_vector = sc->n_latent_vector = 0;
    sc->stored_at = now;
    if (sc->salience <= 0)
      sc->salience =
          (float)eg_salience_of(sc->content && *sc->content ? sc->content : sc->latent, NULL);
    size_t bl, tl;
    uint8_t *buf = eg_chunk_encode(a, sc, slots[i], &bl);
    char *tbuf = encode_terms(a, &accs[i], &tl);
    if (!buf || !tbuf) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      goto fail;
    }
    uint8_t k[16];
    KEY2(k, ten->id, ids[i]);
    eg_kvtxn_put(txn, VCF_CHUNKS, k, 16, buf, bl, false);
    eg_kvtxn_put(txn, VCF_VECTORS, k, 16, vecs + i * N_FIELDS * dim,
                 (size_t)N_FIELDS * dim * sizeof(float), false);
    eg_kvtxn_put(txn, VCF_TERMS, k, 16, tbuf, tl, false);
    if (replaced[i]) {
      vdoc d = eg_vdoc_of(sc);
      d.acc = kept[i];
      uint8_t rec[VRET_LEN];
      eg_vret_encode(&d, rec);
      eg_kvtxn_put(txn, VCF_RETAIN, k, 16, rec, VRET_LEN, false);
    } else {
      eg_kvtxn_delete(txn, VCF_RETAIN, k, 16); /* an evicted chunk's record, if the id comes back */
    }
  }
  eg_kvtxn_save_tenant(txn, ten);
  rc = eg_kvtxn_commit(txn, err);
  txn = NULL;
  if (rc) goto fail;
  /* 4. The in-memory indexes (a replaced chunk's old slot goes away). */
  pthread_rwlock_wrlock(&t->lock);
  if (!t->dim) t->dim = dim;
  for (size_t i = 0; i < n && !rc; i++) {
    uintptr_t old = (uintptr_t)eg_map_get(t->by_chunk, &ids[i], 8);
    if (old) eg_vt_remove(v, t, (uint32_t)(old - 1));
    vdoc d = eg_vdoc_of(&stored[i]);
    d.acc = kept[i];
    rc = eg_vt_add(v, t, slots[i], &d, NULL, accs[i].terms, accs[i].n, accs[i].len, err);
  }
  if (!rc) rc = eg_vt_add_vectors(v, t, slots, vecs, n, err);
  eg_vt_maybe_rebuild(v, t);
  pthread_rwlock_unlock(&t->lock);
  pthread_mutex_unlock(&t->writer);
  if (rc) return rc; /* durable but not indexed: a restart indexes it */
  eg_series_add(v->m_upserts, (double)n);
  resp->ids = ids;
  resp->n_ids = n;
  resp->embedded = (uint32_t)nt;
  resp->model_id = v->emb->model_id;
  resp->dim = (uint32_t)dim;
  return EG_OK;
fail:
  if (txn) eg_kvtxn_abort(txn);
  pthread_mutex_unlock(&t->writer);
  return rc;
}

eg_code eg_vec_publish(eg_vec *v, const Engram__V1__PublishRequest *req, eg_arena *a,
                       Engram__V1__PublishResponse *resp, eg_err *err) {
  if (req->n_ids > 1000000) return eg_err_set(err, EG_EINVAL, "more than 1000000 ids");
  eg_code rc;
  vtenant *t = eg_vt_get(v, req->scope->tenant, false, &rc, err);
  if (!t) return rc; /* no such tenant: nothing staged */
  uint32_t *slots = eg_arena_alloc(a, (req->n_ids ? req->n_ids : 1) * sizeof *slots);
  uint64_t *ids = eg_arena_alloc(a, (req->n_ids ? req->n_ids : 1) * sizeof *ids);
  if (!slots || !ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
  pthread_mutex_lock(&t->writer); /* no other writer changes these chunks meanwhile */
  size_t n = 0;
  pthread_rwlock_rdlock(&t->lock);
  for (size_t i = 0; i < req->n_ids; i++) {
    uintptr_t s = (uintptr_t)eg_map_get(t->by_chunk, &req->ids[i], 8);
    if (s && t->docs[s - 1].staged) ids[n] = req->ids[i], slots[n++] = (uint32_t)(s - 1);
  }
  pthread_rwlock_unlock(&t->lock);
  /* The store first: each record rewritten without the flag, in one durable write. */
  eg_kvtxn *txn = eg_kv_begin(v->kv);
  rc = txn ? EG_OK : eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < n; i++) {
    uint8_t k[16];
    KEY2(k, t->T, ids[i]);
    char *val = NULL;
    size_t vl;
    uint64_t slot;
    if ((rc = eg_kvtxn_get(txn, VCF_CHUNKS, k, 16, &val, &vl, err))) break;
    Engram__V1__Chunk *c = eg_chunk_decode(a, val, vl, &slot);
    free(val);
    if (!c) {
      rc = eg_err_set(err, EG_ECORRUPT, "stored chunk is corrupt");
      break;
    }
    c->staged = false;
    size_t bl;
    uint8_t *buf = eg_chunk_encode(a, c, slot, &bl);
    if (!buf) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
    eg_kvtxn_put(txn, VCF_CHUNKS, k, 16, buf, bl, false);
  }
  if (txn && rc)
    eg_kvtxn_abort(txn);
  else if (txn)
    rc = eg_kvtxn_commit(txn, err);
  if (!rc) { /* then memory, all at once for searches */
    pthread_rwlock_wrlock(&t->lock);
    for (size_t i = 0; i < n; i++) t->docs[slots[i]].staged = false;
    pthread_rwlock_unlock(&t->lock);
    resp->published = (uint32_t)n;
  }
  pthread_mutex_unlock(&t->writer);
  return rc;
}

/* Delete the chunks of `ids` that exist (store first, then memory). *deleted counts them. */
static eg_code delete_ids(eg_vec *v, vtenant *t, const uint64_t *ids, size_t n, uint32_t *deleted,
                          eg_err *err) {
  pthread_mutex_lock(&t->writer);
  eg_kvtxn *txn = eg_kv_begin(v->kv);
  if (!txn) {
    pthread_mutex_unlock(&t->writer);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  uint32_t *slots = malloc((n ? n : 1) * sizeof *slots);
  size_t found = 0;
  pthread_rwlock_rdlock(&t->lock);
  for (size_t i = 0; slots && i < n; i++) {
    uintptr_t s = (uintptr_t)eg_map_get(t->by_chunk, &ids[i], 8);
    if (!s) continue;
    uint8_t k[16];
    KEY2(k, t->T, ids[i]);
    eg_kvtxn_delete(txn, VCF_CHUNKS, k, 16);
    eg_kvtxn_delete(txn, VCF_VECTORS, k, 16);
    eg_kvtxn_delete(txn, VCF_TERMS, k, 16);
    eg_kvtxn_delete(txn, VCF_RETAIN, k, 16);
    slots[found++] = (uint32_t)(s - 1);
  }
  pthread_rwlock_unlock(&t->lock);
  eg_code rc = slots ? eg_kvtxn_commit(txn, err)
                     : (eg_kvtxn_abort(txn), eg_err_set(err, EG_ENOMEM, "out of memory"));
  if (!rc) {
    pthread_rwlock_wrlock(&t->lock);
    for (size_t i = 0; i < found; i++) eg_vt_remove(v, t, slots[i]);
    eg_vt_maybe_rebuild(v, t);
    pthread_rwlock_unlock(&t->lock);
    *deleted = (uint32_t)found;
  }
  free(slots);
  pthread_mutex_unlock(&t->writer);
  return rc;
}

eg_code eg_vec_delete(eg_vec *v, const Engram__V1__DeleteRequest *req, eg_arena *a,
                      Engram__V1__DeleteResponse *resp, eg_err *err) {
  (void)a;
  if (req->n_ids > 100000) return eg_err_set(err, EG_EINVAL, "more than 100000 ids");
  eg_code rc;
  vtenant *t = eg_vt_get(v, req->scope->tenant, false, &rc, err);
  if (!t) return rc;
  return delete_ids(v, t, req->ids, req->n_ids, &resp->deleted, err);
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
  uint64_t chunks = 0, vectors = 0, postings = 0;
  vtenant *t = eg_vt_get(v, tenant, false, &rc, err);
  if (!t && rc) return rc;
  if (t) {
    uint64_t T = t->T;
    pthread_rwlock_rdlock(&t->lock);
    uint64_t uh = whole ? 0 : eg_str_hash(user);
    size_t cap = t->live ? t->live : 1, n = 0;
    uint64_t *ids = malloc(cap * sizeof *ids);
    for (size_t s = 0; ids && s < t->n_slots; s++) {
      vdoc *d = &t->docs[s];
      if (!d->live || (!whole && d->user_h != uh)) continue;
      ids[n++] = d->chunk_id;
      postings += 1;
    }
    size_t terms = eg_bm25_terms(t->bm25);
    pthread_rwlock_unlock(&t->lock);
    if (!ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
    uint32_t deleted = 0;
    if (whole) {
      /* Everything of the tenant: ranges in every family, then forget it. */
      eg_kvtxn *txn = eg_kv_begin(v->kv);
      uint8_t from[8], to[8];
      key_put64(from, t->T);
      key_put64(to, t->T + 1);
      for (int cf = VCF_CHUNKS; cf < VCF_COUNT; cf++)
        eg_kvtxn_delete_range(txn, cf, from, 8, to, 8);
      uint8_t mk[9];
      mk[0] = 'M';
      key_put64(mk + 1, t->T);
      eg_kvtxn_delete(txn, VCF_DEFAULT, mk, 9);
      mk[0] = 'P'; /* the retention policy */
      eg_kvtxn_delete(txn, VCF_DEFAULT, mk, 9);
      eg_kvtxn_forget_tenant(txn, tenant);
      if ((rc = eg_kvtxn_commit(txn, err))) {
        free(ids);
        return rc;
      }
      deleted = (uint32_t)n;
      eg_vt_forget(v, tenant);
      postings = terms;
    } else if ((rc = delete_ids(v, t, ids, n, &deleted, err))) {
      free(ids);
      return rc;
    } else if (deleted) {
      eg_vt_drop_snapshot(v, t);
    }
    free(ids);
    chunks = deleted;
    vectors = 2 * (uint64_t)deleted;
    if (!whole) chunks += eg_vret_erase_evicted(v, t, uh); /* what eviction left of the user's */
    eg_kv_purge_tenant(v->kv, T); /* the texts leave the files, not only the index */
  }
  /* Query texts are user content too; the cache is keyed by text alone, so all of it goes. */
  uint64_t cached = eg_qcache_clear(v->qcache);
  EG_INFO("erase", "erased", "kind=%s chunks=%llu cached_queries=%llu", whole ? "tenant" : "user",
          (unsigned long long)chunks, (unsigned long long)cached);
  resp->counts = eg_arena_calloc(a, 4, sizeof *resp->counts);
  if (!resp->counts) return eg_err_set(err, EG_ENOMEM, "out of memory");
  resp->counts[0] = count(a, "chunks", chunks);
  resp->counts[1] = count(a, "vectors", vectors);
  resp->counts[2] = count(a, whole ? "bm25_terms" : "bm25_documents", whole ? postings : chunks);
  resp->counts[3] = count(a, "cached_queries", cached);
  for (int i = 0; i < 4; i++)
    if (!resp->counts[i]) return eg_err_set(err, EG_ENOMEM, "out of memory");
  resp->counts[3]->store = "cache";
  resp->n_counts = 4;
  resp->erased_at = eg_time_now_us();
  return EG_OK;
}
