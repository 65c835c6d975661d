/*
 * edges.c — append-only edge commits and the bitemporal reads over them: the state
 * kernel Φ(subject, relation, valid_at, known_at), History and Changes.
 *
 * A commit is validated completely before anything is written, then written as one
 * transaction (all or nothing) and acknowledged only once durable. Nothing is ever
 * updated in place: a change is a new commit whose `parent` is the previous head of its
 * (subject, relation) chain, in transaction order — the Git parent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/scope.h"
#include "common/text.h"
#include "common/time.h"
#include "services/graphd/graph_int.h"

#define ONE ENGRAM__V1__CARDINALITY__CARDINALITY_ONE
#define MANY ENGRAM__V1__CARDINALITY__CARDINALITY_MANY
#define INV ENGRAM__V1__CARDINALITY__CARDINALITY_ONE_INVERSE
#define ASSERT ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT
#define RETRACT ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT

/* ---- validation -------------------------------------------------------------------- */

eg_code eg_graph_check_text(const eg_graph *g, const char *s, const char *what, eg_err *err) {
  if (!s) return EG_OK;
  size_t n = strlen(s);
  if (n > g->limits.max_string_bytes)
    return eg_err_set(err, EG_EINVAL, "%s longer than %u bytes", what, g->limits.max_string_bytes);
  if (!eg_utf8_valid(s, n)) return eg_err_set(err, EG_EINVAL, "%s is not valid UTF-8", what);
  return EG_OK;
}

static eg_code check_meta(const eg_graph *g, const Engram__V1__EdgeMeta *m, eg_err *err) {
  if (!m) return EG_OK;
  eg_code rc;
  if ((rc = eg_graph_check_text(g, m->utterance, "meta.utterance", err)) ||
      (rc = eg_graph_check_text(g, m->reason, "meta.reason", err)) ||
      (rc = eg_graph_check_text(g, m->source_session_id, "meta.source_session_id", err)) ||
      (rc = eg_graph_check_text(g, m->source_document_id, "meta.source_document_id", err)) ||
      (rc = eg_graph_check_text(g, m->extractor, "meta.extractor", err)) ||
      (rc = eg_graph_check_text(g, m->rule, "meta.rule", err)))
    return rc;
  if (m->provenance != ENGRAM__V1__PROVENANCE__PROVENANCE_UNSPECIFIED &&
      m->provenance != ENGRAM__V1__PROVENANCE__PROVENANCE_STATED &&
      m->provenance != ENGRAM__V1__PROVENANCE__PROVENANCE_DERIVED)
    return eg_err_set(err, EG_EINVAL, "meta.provenance must be STATED or DERIVED");
  if (m->sentiment < -1 || m->sentiment > 1)
    return eg_err_set(err, EG_EINVAL, "meta.sentiment must be in [-1, 1]");
  if (m->intensity < 0 || m->intensity > 1)
    return eg_err_set(err, EG_EINVAL, "meta.intensity must be in [0, 1]");
  if (m->confidence < 0 || m->confidence > 1)
    return eg_err_set(err, EG_EINVAL, "meta.confidence must be in [0, 1]");
  if (!(m->salience >= 0 && m->salience <= 1))
    return eg_err_set(err, EG_EINVAL, "meta.salience must be in [0, 1]");
  return EG_OK;
}

static eg_code check_edge(const eg_graph *g, const Engram__V1__CommitRequest *req, size_t i,
                          eg_err *err) {
  const Engram__V1__EdgeInput *e = req->edges[i];
  if (!eg_relation_name_valid(e->relation))
    return eg_err_set(err, EG_EINVAL, "relation must be UPPER_SNAKE, 1 to 64 characters");
  if (!e->subject) return eg_err_set(err, EG_EINVAL, "subject is missing");
  bool has_ent = e->object_entity != NULL, has_lit = e->object_literal && *e->object_literal;
  if (has_ent && has_lit)
    return eg_err_set(err, EG_EINVAL, "set object_entity or object_literal, not both");
  if (!has_ent && !has_lit && e->op != RETRACT)
    return eg_err_set(err, EG_EINVAL,
                      "an ASSERT needs an object (object_entity or object_literal)");
  if (e->op != ENGRAM__V1__EDGE_OP__EDGE_OP_UNSPECIFIED && e->op != ASSERT && e->op != RETRACT)
    return eg_err_set(err, EG_EINVAL, "op must be ASSERT or RETRACT");
  eg_code rc = eg_graph_check_text(g, e->object_literal, "object_literal", err);
  if (rc) return rc;
  if (e->valid_to && e->valid_from && e->valid_to <= e->valid_from)
    return eg_err_set(err, EG_EINVAL, "valid_to must be after valid_from");
  if (!req->import_mode && e->t_commit)
    return eg_err_set(err, EG_EINVAL, "t_commit is assigned by graphd (set import_mode to replay)");
  if (req->import_mode && e->t_commit <= 0)
    return eg_err_set(err, EG_EINVAL, "import_mode needs t_commit on every edge");
  if (e->n_derived_from + e->n_derived_from_index > 64)
    return eg_err_set(err, EG_EINVAL, "more than 64 premises");
  for (size_t j = 0; j < e->n_derived_from_index; j++)
    if (e->derived_from_index[j] >= i)
      return eg_err_set(err, EG_EINVAL, "derived_from_index must name an earlier edge");
  return check_meta(g, e->meta, err);
}

/* ---- writing ------------------------------------------------------------------------ */

static size_t head_key(uint8_t *k, uint64_t t, uint64_t s, uint64_t r) {
  k[0] = 'H';
  return 1 + KEY3(k + 1, t, s, r);
}

/* An edge commit: the edge and its index entries, its identity, the chain head; the
 * tenant's edge counter and clock move past it. */
eg_code eg_apply_edge(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__Edge *e, eg_arena *a,
                      eg_err *err) {
  if (!e->id || !e->relation || !eg_relation_name_valid(e->relation))
    return eg_err_set(err, EG_ECORRUPT, "edge step without an id or a valid relation");
  uint64_t t = ten->id;
  uint64_t r = eg_rel_hash(e->relation);
  size_t n = engram__v1__edge__get_packed_size(e);
  uint8_t *buf = eg_arena_alloc(a, n ? n : 1);
  if (!buf) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__edge__pack(e, buf);
  uint8_t ek[EDGE_KEY_LEN], k[48];
  KEY6(ek, t, e->subject, r, key_time(e->valid_from), key_time(e->t_commit), e->id);
  eg_kvtxn_put(txn, CF_EDGES, ek, EDGE_KEY_LEN, buf, n, false);
  eg_kvtxn_put(txn, CF_EDGES_BY_ID, k, KEY2(k, t, e->id), ek, EDGE_KEY_LEN, false);
  if (e->object && e->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID)
    eg_kvtxn_put(txn, CF_EDGES_BY_OBJECT, k, KEY5(k, t, e->object->entity_id, r, e->subject, e->id),
                 "", 0, false);
  eg_kvtxn_put(txn, CF_TXLOG, k, KEY3(k, t, key_time(e->t_commit), e->id), "", 0, false);
  for (size_t j = 0; j < e->n_derived_from; j++)
    eg_kvtxn_put(txn, CF_DERIVATIONS, k, KEY3(k, t, e->derived_from[j], e->id), "", 0, false);
  uint64_t chunk = e->meta ? e->meta->source_chunk_id : 0;
  if (chunk) { /* the value is the writer's user: ChunkEntities answers in the reader's view */
    const char *u = e->user ? e->user : "";
    eg_kvtxn_put(txn, CF_CHUNK_ENTITIES, k, KEY3(k, t, chunk, e->subject), u, strlen(u), false);
    if (e->object && e->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID)
      eg_kvtxn_put(txn, CF_CHUNK_ENTITIES, k, KEY3(k, t, chunk, e->object->entity_id), u, strlen(u),
                   false);
  }
  /* The chain head moves to this commit; an identical assertion sent again finds it. */
  uint8_t hk[25], hv[8], ik[EG_IDENTITY_KEY_LEN];
  size_t hl = head_key(hk, t, e->subject, r);
  key_put64(hv, e->id);
  if (!eg_edge_identity(t, e, a, ik) || eg_kvtxn_put(txn, CF_DEFAULT, hk, hl, hv, 8, true) ||
      eg_kvtxn_put(txn, CF_DEFAULT, ik, sizeof ik, hv, 8, true))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  if (e->id >= ten->counter[EG_CTR_EDGE]) ten->counter[EG_CTR_EDGE] = e->id + 1;
  if (e->t_commit > ten->last_tc) ten->last_tc = e->t_commit;
  return EG_OK;
}

eg_code eg_apply_chunk_link(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__ChunkLink *l,
                            eg_err *err) {
  uint8_t k[24];
  const char *u = l->user ? l->user : "";
  if (eg_kvtxn_put(txn, CF_CHUNK_ENTITIES, k, KEY3(k, ten->id, l->chunk_id, l->entity_id), u,
                   strlen(u), false))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  return EG_OK;
}

/* The edge id a default-family key maps to (a chain head, an identity), 0 when none. */
static eg_code edge_id_at(eg_kvtxn *txn, const uint8_t *key, size_t klen, uint64_t *id,
                          eg_err *err) {
  char *v;
  size_t vl;
  *id = 0;
  eg_code rc = eg_kvtxn_get(txn, CF_DEFAULT, key, klen, &v, &vl, err);
  if (rc == EG_ENOTFOUND) return EG_OK;
  if (rc) return rc;
  if (vl == 8) *id = key_get64((uint8_t *)v);
  free(v);
  return EG_OK;
}

static eg_code chain_head(eg_kvtxn *txn, uint64_t t, uint64_t s, uint64_t r, uint64_t *head,
                          eg_err *err) {
  uint8_t hk[25];
  return edge_id_at(txn, hk, head_key(hk, t, s, r), head, err);
}

/* The transaction time of the newest edge this commit wrote (a repeated edge keeps its
 * own, older one). */
static int64_t last_written_tc(Engram__V1__Edge **edges, size_t n) {
  int64_t tc = 0;
  for (size_t i = 0; i < n; i++)
    if (edges[i]->t_commit > tc) tc = edges[i]->t_commit;
  return tc;
}

eg_code eg_graph_commit(eg_graph *g, const Engram__V1__CommitRequest *req, eg_arena *a,
                        Engram__V1__CommitResponse *resp, eg_err *err) {
  eg_code rc = eg_graph_commit_batch(g, req, a, resp, err);
  if (rc == EG_OK) eg_derive_after_commit(g, req, resp, a);
  return rc;
}

eg_code eg_graph_commit_batch(eg_graph *g, const Engram__V1__CommitRequest *req, eg_arena *a,
                              Engram__V1__CommitResponse *resp, eg_err *err) {
  size_t n = req->n_edges;
  if (n == 0 && req->n_mentions == 0) return eg_err_set(err, EG_EINVAL, "nothing to commit");
  if (n > g->limits.max_edges_per_commit)
    return eg_err_set(err, EG_EINVAL, "more than %u edges in one commit",
                      g->limits.max_edges_per_commit);
  if (req->n_mentions > g->limits.max_edges_per_commit)
    return eg_err_set(err, EG_EINVAL, "more than %u chunk mentions",
                      g->limits.max_edges_per_commit);
  eg_code rc;
  for (size_t i = 0; i < n; i++) {
    if ((rc = check_edge(g, req, i, err))) {
      char p[32];
      snprintf(p, sizeof p, "edges[%zu]: ", i);
      eg_err_prefix(err, p);
      return rc;
    }
  }
  /* Import mode: replayed times must increase (checked against the tenant below). */
  for (size_t i = 1; i < n && req->import_mode; i++)
    if (req->edges[i]->t_commit < req->edges[i - 1]->t_commit)
      return eg_err_set(err, EG_EINVAL, "import_mode t_commit must not decrease within a batch");

  resp->edge_ids = eg_arena_calloc(a, n ? n : 1, sizeof(uint64_t));
  resp->subject_ids = eg_arena_calloc(a, n ? n : 1, sizeof(uint64_t));
  Engram__V1__Edge **edges = eg_arena_calloc(a, n ? n : 1, sizeof *edges);
  if (!resp->edge_ids || !resp->subject_ids || !edges)
    return eg_err_set(err, EG_ENOMEM, "out of memory");

  eg_gwrite w;
  if ((rc = eg_gwrite_begin(g, req->scope->tenant, req->scope->user, false, a, &w, err))) return rc;
  eg_kvtxn *txn = w.txn;
  eg_tenant *ten = w.ten;
  uint64_t T = w.T;
  /* Premises must exist in this tenant (acknowledged commits are durable). */
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < req->edges[i]->n_derived_from; j++) {
      Engram__V1__Edge *p;
      rc = eg_edge_load(g, T, req->edges[i]->derived_from[j], a, &p, err);
      if (rc == EG_ENOTFOUND)
        rc = eg_err_set(err, EG_ENOTFOUND, "edges[%zu]: premise edge %llu not found", i,
                        (unsigned long long)req->edges[i]->derived_from[j]);
      if (rc) goto fail;
    }
  }
  int64_t tc = eg_time_now_us();
  if (tc <= ten->last_tc) tc = ten->last_tc + 1;
  size_t written = 0;
  if (req->import_mode && n && req->edges[0]->t_commit <= ten->last_tc) {
    rc = eg_err_set(err, EG_EINVAL, "import_mode t_commit must be after the tenant's last commit");
    goto fail;
  }
  for (size_t i = 0; i < n; i++) {
    const Engram__V1__EdgeInput *in = req->edges[i];
    Engram__V1__Edge *e = eg_arena_calloc(a, 1, sizeof *e);
    Engram__V1__Value *obj = eg_arena_calloc(a, 1, sizeof *obj);
    if (!e || !obj) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      goto fail;
    }
    engram__v1__edge__init(e);
    engram__v1__value__init(obj);
    uint64_t sid, oid = 0;
    if ((rc = eg_entity_ref(g, &w, T, in->subject, req->scope->user, true, a, &sid, NULL, err)) ||
        (in->object_entity && (rc = eg_entity_ref(g, &w, T, in->object_entity, req->scope->user,
                                                  true, a, &oid, NULL, err)))) {
      char p[40];
      snprintf(p, sizeof p, "edges[%zu]: ", i);
      eg_err_prefix(err, p);
      goto fail;
    }
    e->subject = sid;
    e->relation = in->relation;
    if (in->object_entity) {
      obj->kind_case = ENGRAM__V1__VALUE__KIND_ENTITY_ID;
      obj->entity_id = oid;
    } else if (in->object_literal && *in->object_literal) {
      obj->kind_case = ENGRAM__V1__VALUE__KIND_LITERAL;
      obj->literal = in->object_literal;
    }
    e->object = obj;
    e->op = in->op == RETRACT ? RETRACT : ASSERT;
    e->t_commit = req->import_mode ? in->t_commit : tc;
    e->imported = req->import_mode;
    e->valid_from = in->valid_from ? in->valid_from : e->t_commit;
    e->valid_to = in->valid_to;
    if (e->valid_to && e->valid_to <= e->valid_from) {
      rc = eg_err_set(err, EG_EINVAL, "edges[%zu]: valid_to must be after valid_from", i);
      goto fail;
    }
    size_t np = in->n_derived_from + in->n_derived_from_index;
    e->derived_from = eg_arena_alloc(a, (np ? np : 1) * sizeof(uint64_t));
    if (!e->derived_from) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      goto fail;
    }
    for (size_t j = 0; j < in->n_derived_from; j++)
      e->derived_from[e->n_derived_from++] = in->derived_from[j];
    for (size_t j = 0; j < in->n_derived_from_index; j++)
      e->derived_from[e->n_derived_from++] = edges[in->derived_from_index[j]]->id;
    e->meta = in->meta;
    e->user = req->scope->user;
    e->agent = req->scope->agent;
    e->private_ = req->scope->private_;
    /* The same assertion sent again (a retried request, a file ingested twice) is the
     * edge already written: its id is the answer and nothing is committed. */
    uint8_t ik[EG_IDENTITY_KEY_LEN];
    uint64_t same;
    if (!eg_edge_identity(T, e, a, ik)) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      goto fail;
    }
    if ((rc = edge_id_at(txn, ik, sizeof ik, &same, err))) goto fail;
    if (same) {
      e->id = same;
      e->t_commit = 0; /* nothing was committed for it */
    } else {
      e->id = ten->counter[EG_CTR_EDGE]; /* the next id: applying the step takes it */
      if ((rc = chain_head(txn, T, sid, eg_rel_hash(e->relation), &e->parent, err))) goto fail;
      Engram__V1__GraphStep *st = eg_step_new(a, ENGRAM__V1__GRAPH_STEP__STEP_EDGE);
      if (!st) {
        rc = eg_err_set(err, EG_ENOMEM, "out of memory");
        goto fail;
      }
      st->edge = e;
      if ((rc = eg_gwrite_step(&w, st, err))) goto fail;
      written++;
    }
    edges[i] = e;
    resp->edge_ids[i] = e->id;
    resp->subject_ids[i] = sid;
  }
  resp->n_edge_ids = resp->n_subject_ids = n;
  for (size_t i = 0; i < req->n_mentions; i++) {
    const Engram__V1__ChunkMention *m = req->mentions[i];
    if (!m->chunk_id) {
      rc = eg_err_set(err, EG_EINVAL, "mentions[%zu]: chunk_id is 0", i);
      goto fail;
    }
    for (size_t j = 0; j < m->n_entities && j < 256; j++) {
      uint64_t eid;
      if ((rc =
               eg_entity_ref(g, &w, T, m->entities[j], req->scope->user, true, a, &eid, NULL, err)))
        goto fail;
      Engram__V1__GraphStep *st = eg_step_new(a, ENGRAM__V1__GRAPH_STEP__STEP_CHUNK_LINK);
      Engram__V1__ChunkLink *l = eg_arena_calloc(a, 1, sizeof *l);
      if (!st || !l) {
        rc = eg_err_set(err, EG_ENOMEM, "out of memory");
        goto fail;
      }
      engram__v1__chunk_link__init(l);
      l->chunk_id = m->chunk_id;
      l->entity_id = eid;
      l->user = (char *)(req->scope->user ? req->scope->user : "");
      st->chunk_link = l;
      if ((rc = eg_gwrite_step(&w, st, err))) goto fail;
    }
  }
  /* Nothing new: the tenant's clock still moves to this commit's time. */
  if (!written) w.last_tc = tc;
  resp->t_commit = written ? last_written_tc(edges, n) : (ten->last_tc > tc ? ten->last_tc : tc);
  if ((rc = eg_gwrite_commit(&w, err))) return rc;
  eg_series_add(g->m_commits, 1);
  eg_series_add(g->m_edges, (double)written);
  eg_err advice_err; /* the commit is done: advice that cannot be given is left out */
  (void)eg_graph_relation_warnings(g, T, req, a, resp, &advice_err);
  return EG_OK;
fail:
  eg_gwrite_abort(&w);
  return rc;
}

/* ---- Φ: state as of ----------------------------------------------------------------- */

/* (valid_from, t_commit) order of two commits. */
static int commit_cmp(const Engram__V1__Edge *a, const Engram__V1__Edge *b) {
  if (a->valid_from != b->valid_from) return a->valid_from < b->valid_from ? -1 : 1;
  if (a->t_commit != b->t_commit) return a->t_commit < b->t_commit ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

static bool has_object(const Engram__V1__Edge *e) {
  return e->object && e->object->kind_case != ENGRAM__V1__VALUE__KIND__NOT_SET;
}

void eg_chain_open(eg_chain *c, eg_graph *g, uint64_t t, uint64_t subject, const char *rel,
                   int64_t valid_at, int64_t known_at, const Engram__V1__Scope *view, bool backward,
                   eg_arena *a) {
  *c = (eg_chain){.rel = rel,
                  .valid_at = valid_at,
                  .known_at = known_at,
                  .view = view,
                  .a = a,
                  .backward = backward};
  uint64_t r = eg_rel_hash(rel);
  KEY3(c->prefix, t, subject, r);
  if (!backward) {
    c->it = eg_kv_iter_prefix(g->store, CF_EDGES, c->prefix, 24);
    return;
  }
  /* backwards from valid_at: unbounded, on the store's shared read options (no bound to
   * make: the prefix check ends the walk), as State's hot path always read */
  uint8_t start[EDGE_KEY_LEN];
  KEY6(start, t, subject, r, key_time(valid_at), UINT64_MAX, UINT64_MAX);
  c->it = eg_kv_iter_open(g->store, CF_EDGES, NULL, 0, NULL, 0);
  eg_kv_iter_seek_prev(c->it, start, EDGE_KEY_LEN);
}

eg_code eg_chain_next(eg_chain *c, Engram__V1__Edge **out, eg_err *err) {
  *out = NULL;
  for (;;) {
    if (c->started) c->backward ? eg_kv_iter_prev(c->it) : eg_kv_iter_next(c->it);
    c->started = true;
    if (!eg_kv_iter_valid(c->it)) return EG_OK;
    size_t kl, vl;
    const uint8_t *k = eg_kv_iter_key(c->it, &kl);
    if (c->backward && (kl < 24 || memcmp(k, c->prefix, 24) != 0)) return EG_OK;
    if (kl != EDGE_KEY_LEN) continue;
    if (!c->backward && key_untime(key_get64(k + 24)) > c->valid_at) return EG_OK; /* sorted */
    if (key_untime(key_get64(k + 32)) > c->known_at) continue; /* not known yet */
    const char *v = eg_kv_iter_value(c->it, &vl);
    Engram__V1__Edge *e = eg_edge_decode(c->a, v, vl);
    if (!e) return eg_err_set(err, EG_ECORRUPT, "stored edge is corrupt");
    if (strcmp(e->relation, c->rel) != 0) continue; /* relation hash collision */
    if (!eg_edge_visible(c->view, e)) continue;     /* another user's memory */
    *out = e;
    return EG_OK;
  }
}

void eg_chain_close(eg_chain *c) {
  eg_kv_iter_close(c->it);
  c->it = NULL;
}

/* ONE: walk one subject's chain backwards from valid_at. */
static eg_code state_one(eg_graph *g, uint64_t t, uint64_t s, const char *rel, int64_t valid_at,
                         int64_t known_at, const Engram__V1__Scope *view, eg_arena *a,
                         Engram__V1__Edge **out, eg_err *err) {
  eg_chain ch;
  eg_chain_open(&ch, g, t, s, rel, valid_at, known_at, view, true, a);
  eg_ptrvec retracts = {0};
  *out = NULL;
  eg_code rc;
  Engram__V1__Edge *e;
  while (!(rc = eg_chain_next(&ch, &e, err)) && e) {
    if (e->op == RETRACT && has_object(e)) { /* retracts only that object */
      eg_ptrvec_push(&retracts, a, e);
      continue;
    }
    *out = e;
    if (e->op == ASSERT) {
      for (size_t i = 0; i < retracts.n; i++) {
        Engram__V1__Edge *re = retracts.v[i];
        if (eg_value_equal(re->object, e->object)) {
          *out = re; /* the newest value was retracted */
          break;
        }
      }
    }
    break;
  }
  eg_chain_close(&ch);
  return rc;
}

typedef struct group {
  Engram__V1__Edge *latest;
} group;

/* MANY: each object's latest commit on one subject's chain. */
static eg_code state_many(eg_graph *g, uint64_t t, uint64_t s, const char *rel, int64_t valid_at,
                          int64_t known_at, const Engram__V1__Scope *view, eg_arena *a,
                          eg_ptrvec *groups, eg_err *err) {
  eg_chain ch;
  eg_chain_open(&ch, g, t, s, rel, valid_at, known_at, view, false, a);
  eg_code rc;
  Engram__V1__Edge *e;
  while (!(rc = eg_chain_next(&ch, &e, err)) && e) {
    if (e->op == RETRACT && !has_object(e)) { /* retract everything held so far */
      for (size_t i = 0; i < groups->n; i++) {
        group *gr = groups->v[i];
        if (commit_cmp(gr->latest, e) < 0) gr->latest = e;
      }
      continue;
    }
    group *found = NULL;
    for (size_t i = 0; i < groups->n && !found; i++) {
      group *gr = groups->v[i];
      if (eg_value_equal(gr->latest->object, e->object)) found = gr;
    }
    if (!found) {
      if (!(found = eg_arena_calloc(a, 1, sizeof *found)) || eg_ptrvec_push(groups, a, found)) {
        rc = eg_err_set(err, EG_ENOMEM, "out of memory");
        break;
      }
      found->latest = e;
    } else if (commit_cmp(found->latest, e) < 0) {
      found->latest = e;
    }
  }
  eg_chain_close(&ch);
  return rc;
}

eg_code eg_inverse_holder(eg_graph *g, uint64_t t, uint64_t object, const char *rel,
                          int64_t valid_at, int64_t known_at, const Engram__V1__Scope *view,
                          eg_arena *a, Engram__V1__Edge **out, eg_err *err) {
  uint8_t prefix[24];
  KEY3(prefix, t, object, eg_rel_hash(rel));
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_EDGES_BY_OBJECT, prefix, 24);
  Engram__V1__Edge *best = NULL;
  eg_code rc = EG_OK;
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    if (kl != 40) continue;
    Engram__V1__Edge *e;
    if ((rc = eg_edge_load(g, t, key_get64(k + 32), a, &e, err))) break;
    if (e->t_commit > known_at || e->valid_from > valid_at || strcmp(e->relation, rel) != 0 ||
        !eg_edge_visible(view, e))
      continue;
    if (!best || commit_cmp(best, e) < 0) best = e;
  }
  eg_kv_iter_close(it);
  *out =
      best && best->op == ASSERT && !(best->valid_to && best->valid_to <= valid_at) ? best : NULL;
  return rc;
}

eg_code eg_state_of(eg_graph *g, uint64_t t, uint64_t subject, const char *rel, int64_t valid_at,
                    int64_t known_at, const Engram__V1__Scope *view, eg_arena *a, eg_state *out,
                    eg_err *err) {
  memset(out, 0, sizeof *out);
  uint64_t *subjects;
  size_t ns = eg_subject_set(g, t, subject, a, &subjects);
  Engram__V1__Cardinality card = eg_graph_cardinality(g, t, rel);
  eg_code rc = EG_OK;
  if (card == ONE) {
    Engram__V1__Edge *best = NULL;
    for (size_t i = 0; i < ns; i++) {
      Engram__V1__Edge *c;
      if ((rc = state_one(g, t, subjects[i], rel, valid_at, known_at, view, a, &c, err))) return rc;
      if (c && (!best || commit_cmp(best, c) < 0)) best = c;
    }
    if (!best) return EG_OK;
    if (best->op == RETRACT) {
      out->retracted_by = best;
      return EG_OK;
    }
    if (best->valid_to && best->valid_to <= valid_at) return EG_OK; /* ended */
    out->values = eg_arena_alloc(a, sizeof *out->values);
    if (!out->values) return eg_err_set(err, EG_ENOMEM, "out of memory");
    out->values[out->n++] = best;
    return EG_OK;
  }
  eg_ptrvec groups = {0};
  for (size_t i = 0; i < ns; i++)
    if ((rc = state_many(g, t, subjects[i], rel, valid_at, known_at, view, a, &groups, err)))
      return rc;
  out->values = eg_arena_alloc(a, (groups.n ? groups.n : 1) * sizeof *out->values);
  if (!out->values) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < groups.n; i++) {
    Engram__V1__Edge *e = ((group *)groups.v[i])->latest;
    if (e->op != ASSERT || (e->valid_to && e->valid_to <= valid_at)) continue;
    if (card == INV && e->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID) {
      Engram__V1__Edge *holder;
      if ((rc = eg_inverse_holder(g, t, e->object->entity_id, rel, valid_at, known_at, view, a,
                                  &holder, err)))
        return rc;
      bool ours = false;
      for (size_t j = 0; holder && j < ns; j++) ours |= holder->subject == subjects[j];
      if (!ours) continue; /* another subject holds the object now */
    }
    out->values[out->n++] = e;
  }
  return EG_OK;
}

eg_code eg_subject_relations(eg_graph *g, uint64_t t, uint64_t s,
                             bool (*keep)(void *, const char *), void *ctx, eg_arena *a,
                             eg_ptrvec *rels, eg_err *err) {
  uint8_t prefix[16];
  KEY2(prefix, t, s);
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_EDGES, prefix, 16);
  eg_code rc = EG_OK;
  while (eg_kv_iter_valid(it) && rels->n < 256) {
    size_t kl, vl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    if (kl != EDGE_KEY_LEN) break;
    const char *v = eg_kv_iter_value(it, &vl);
    Engram__V1__Edge *e = eg_edge_decode(a, v, vl);
    if (!e) {
      rc = eg_err_set(err, EG_ECORRUPT, "stored edge is corrupt");
      break;
    }
    bool seen = keep && !keep(ctx, e->relation);
    for (size_t i = 0; i < rels->n && !seen; i++) seen = strcmp(rels->v[i], e->relation) == 0;
    if (!seen && eg_ptrvec_push(rels, a, e->relation)) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
    /* Skip to the next relation: seek past this (T, s, rel) range. */
    uint8_t next[24];
    memcpy(next, k, 24);
    uint64_t rh = key_get64(k + 16);
    if (rh == UINT64_MAX) break;
    key_put64(next + 16, rh + 1);
    eg_kv_iter_seek(it, next, 24);
  }
  eg_kv_iter_close(it);
  return rc;
}

eg_code eg_graph_state(eg_graph *g, const Engram__V1__StateRequest *req, eg_arena *a,
                       Engram__V1__StateResponse *resp, eg_err *err) {
  if (req->n_queries > 1000) return eg_err_set(err, EG_EINVAL, "more than 1000 state queries");
  int64_t valid_at = eg_bound_or_now(req->valid_at), known_at = eg_bound_or_now(req->known_at);
  resp->valid_at = valid_at;
  resp->known_at = known_at;
  uint64_t t;
  bool tenant_known = eg_kv_tenant_id(g->store, req->scope->tenant, &t) == EG_OK;
  eg_ptrvec results = {0};
  eg_belief_cache *beliefs = eg_belief_cache_new(a);
  if (!beliefs) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t q = 0; q < req->n_queries; q++) {
    const Engram__V1__StateQuery *sq = req->queries[q];
    if (sq->relation && *sq->relation && !eg_relation_name_valid(sq->relation))
      return eg_err_set(err, EG_EINVAL, "queries[%zu]: relation must be UPPER_SNAKE", q);
    uint64_t sid = 0;
    eg_code rc;
    if (tenant_known) {
      rc = eg_entity_ref(g, NULL, t, sq->subject, NULL, false, a, &sid, NULL, err);
      if (rc == EG_ENOTFOUND)
        sid = 0;
      else if (rc)
        return rc;
    } else if (!sq->subject) {
      return eg_err_set(err, EG_EINVAL, "queries[%zu]: subject is missing", q);
    }
    eg_ptrvec rels = {0};
    if (sq->relation && *sq->relation)
      eg_ptrvec_push(&rels, a, sq->relation);
    else if (sid && (rc = eg_subject_relations(g, t, sid, NULL, NULL, a, &rels, err)))
      return rc;
    if (!rels.n) { /* unknown subject or no edges: one empty result */
      Engram__V1__StateResult *r = eg_arena_calloc(a, 1, sizeof *r);
      if (!r) return eg_err_set(err, EG_ENOMEM, "out of memory");
      engram__v1__state_result__init(r);
      r->subject = sid;
      r->relation = sq->relation ? sq->relation : "";
      eg_ptrvec_push(&results, a, r);
      continue;
    }
    for (size_t i = 0; i < rels.n; i++) {
      eg_state st;
      if ((rc = eg_state_of(g, t, sid, rels.v[i], valid_at, known_at, req->scope, a, &st, err)))
        return rc;
      Engram__V1__StateResult *r = eg_arena_calloc(a, 1, sizeof *r);
      if (!r) return eg_err_set(err, EG_ENOMEM, "out of memory");
      engram__v1__state_result__init(r);
      r->subject = sid;
      r->relation = rels.v[i];
      r->cardinality = eg_graph_cardinality(g, t, rels.v[i]);
      r->values = st.values;
      r->n_values = st.n;
      for (size_t j = 0; j < st.n; j++) {
        eg_edge_names(g, t, st.values[j], a);
        if ((rc = eg_edge_annotate(g, t, beliefs, st.values[j], known_at, known_at, req->scope, a,
                                   err)))
          return rc;
      }
      if (eg_ptrvec_push(&results, a, r)) return eg_err_set(err, EG_ENOMEM, "out of memory");
    }
  }
  resp->results = (Engram__V1__StateResult **)results.v;
  resp->n_results = results.n;
  return EG_OK;
}

/* ---- History ------------------------------------------------------------------------ */

/* The bound of a History entry's belief: what was believed while this commit was the
 * latest on its (relation, object) — up to the next such commit, else known_at — so the
 * entries of a preference show its confidence growing or falling commit by commit. */
static int64_t belief_bound(const eg_ptrvec *all, size_t i, int64_t known_at) {
  const Engram__V1__Edge *e = all->v[i];
  int64_t bound = known_at;
  for (size_t j = 0; j < all->n; j++) {
    const Engram__V1__Edge *n = all->v[j];
    if (n->t_commit > e->t_commit && n->t_commit - 1 < bound &&
        strcmp(n->relation, e->relation) == 0 && eg_value_equal(n->object, e->object))
      bound = n->t_commit - 1;
  }
  return bound;
}

eg_code eg_graph_history(eg_graph *g, const Engram__V1__HistoryRequest *req, eg_arena *a,
                         Engram__V1__HistoryResponse *resp, eg_err *err) {
  if (req->relation && *req->relation && !eg_relation_name_valid(req->relation))
    return eg_err_set(err, EG_EINVAL, "relation must be UPPER_SNAKE");
  uint32_t limit = req->limit ? req->limit : g->limits.max_history;
  if (limit > g->limits.max_history) limit = g->limits.max_history;
  int64_t known_at = eg_bound_or_now(req->known_at);
  uint64_t t, sid;
  if (eg_kv_tenant_id(g->store, req->scope->tenant, &t) != EG_OK) return EG_OK;
  eg_code rc = eg_entity_ref(g, NULL, t, req->subject, NULL, false, a, &sid, NULL, err);
  if (rc == EG_ENOTFOUND || (!rc && !sid)) return EG_OK;
  if (rc) return rc;
  uint64_t *subjects;
  size_t ns = eg_subject_set(g, t, sid, a, &subjects);
  eg_ptrvec all = {0};
  bool one_rel = req->relation && *req->relation;
  for (size_t si = 0; si < ns; si++) {
    uint8_t prefix[24];
    size_t pl = one_rel ? KEY3(prefix, t, subjects[si], eg_rel_hash(req->relation))
                        : KEY2(prefix, t, subjects[si]);
    eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_EDGES, prefix, pl);
    for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
      size_t kl, vl;
      const uint8_t *k = eg_kv_iter_key(it, &kl);
      if (kl != EDGE_KEY_LEN || key_untime(key_get64(k + 32)) > known_at) continue;
      const char *val = eg_kv_iter_value(it, &vl);
      Engram__V1__Edge *e = eg_edge_decode(a, val, vl);
      if (!e) {
        rc = eg_err_set(err, EG_ECORRUPT, "stored edge is corrupt");
        break;
      }
      if ((one_rel && strcmp(e->relation, req->relation) != 0) || !eg_edge_visible(req->scope, e))
        continue;
      if (eg_ptrvec_push(&all, a, e)) {
        rc = eg_err_set(err, EG_ENOMEM, "out of memory");
        break;
      }
    }
    eg_kv_iter_close(it);
    if (rc) return rc;
  }
  /* Order by relation, then (valid_from, t_commit) — insertion sort keeps it simple for
   * the chain sizes History is meant for (capped below). */
  for (size_t i = 1; i < all.n; i++) {
    Engram__V1__Edge *x = all.v[i];
    size_t j = i;
    while (j > 0) {
      Engram__V1__Edge *y = all.v[j - 1];
      int rcmp = strcmp(y->relation, x->relation);
      if (rcmp < 0 || (rcmp == 0 && commit_cmp(y, x) <= 0)) break;
      all.v[j] = y;
      j--;
    }
    all.v[j] = x;
  }
  size_t first = all.n > limit ? all.n - limit : 0;
  resp->entries = eg_arena_calloc(a, (all.n - first) ? all.n - first : 1, sizeof *resp->entries);
  if (!resp->entries) return eg_err_set(err, EG_ENOMEM, "out of memory");
  int64_t now = eg_time_now_us();
  eg_belief_cache *beliefs = eg_belief_cache_new(a);
  if (!beliefs) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = first; i < all.n; i++) {
    Engram__V1__Edge *e = all.v[i];
    Engram__V1__HistoryEntry *h = eg_arena_calloc(a, 1, sizeof *h);
    if (!h) return eg_err_set(err, EG_ENOMEM, "out of memory");
    engram__v1__history_entry__init(h);
    h->edge = e;
    Engram__V1__Cardinality card = eg_graph_cardinality(g, t, e->relation);
    /* The next commit on the chain (same relation; for MANY the same object) replaces it. */
    for (size_t j = i + 1; j < all.n; j++) {
      Engram__V1__Edge *n = all.v[j];
      if (strcmp(n->relation, e->relation) != 0) break;
      if (card == ONE || !has_object(n) || eg_value_equal(n->object, e->object)) {
        h->superseded = true;
        h->superseded_by = n->id;
        break;
      }
    }
    if (!h->superseded && e->op == RETRACT) h->superseded = true;
    if (!h->superseded && e->valid_to && e->valid_to <= now) h->superseded = true;
    eg_edge_names(g, t, e, a);
    if ((rc = eg_edge_annotate(g, t, beliefs, e, known_at, belief_bound(&all, i, known_at),
                               req->scope, a, err)))
      return rc;
    resp->entries[resp->n_entries++] = h;
  }
  return EG_OK;
}

/* ---- Changes ------------------------------------------------------------------------ */

eg_code eg_graph_changes(eg_graph *g, const Engram__V1__ChangesRequest *req, eg_arena *a,
                         Engram__V1__ChangesResponse *resp, eg_err *err) {
  uint32_t limit = req->limit ? req->limit : 100;
  if (limit > 1000) limit = 1000;
  int64_t from = req->window ? req->window->from : 0, to = req->window ? req->window->to : 0;
  if (from && to && to <= from)
    return eg_err_set(err, EG_EINVAL, "window.to must be after window.from");
  uint64_t t;
  if (eg_kv_tenant_id(g->store, req->scope->tenant, &t) != EG_OK) return EG_OK;
  uint8_t start[24], prefix[8];
  KEY3(start, t, from ? key_time(from) : 0, 0);
  if (req->page_token && *req->page_token) {
    unsigned long long ptc, pid;
    if (sscanf(req->page_token, "%llx.%llx", &ptc, &pid) != 2)
      return eg_err_set(err, EG_EINVAL, "bad page_token");
    KEY3(start, t, ptc, pid);
  }
  key_put64(prefix, t);
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_TXLOG, prefix, 8);
  eg_kv_iter_seek(it, start, 24);
  eg_ptrvec out = {0};
  eg_code rc = EG_OK;
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    if (kl != 24) continue;
    int64_t tc = key_untime(key_get64(k + 8));
    if (to && tc >= to) break;
    if (out.n == limit) {
      /* The token names the first key not returned: the next page starts there. */
      resp->next_page_token = eg_arena_sprintf(a, "%llx.%llx", (unsigned long long)key_get64(k + 8),
                                               (unsigned long long)key_get64(k + 16));
      break;
    }
    Engram__V1__Edge *e;
    if ((rc = eg_edge_load(g, t, key_get64(k + 16), a, &e, err))) break;
    if (req->session_id && *req->session_id &&
        (!e->meta || !e->meta->source_session_id ||
         strcmp(e->meta->source_session_id, req->session_id)))
      continue;
    if (!eg_edge_visible(req->scope, e)) continue;
    eg_edge_names(g, t, e, a);
    if (eg_ptrvec_push(&out, a, e)) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
  }
  eg_kv_iter_close(it);
  resp->edges = (Engram__V1__Edge **)out.v;
  resp->n_edges = out.n;
  return rc;
}

/* ---- chunk → entities ---------------------------------------------------------------- */

eg_code eg_graph_chunk_entities(eg_graph *g, const Engram__V1__ChunkEntitiesRequest *req,
                                eg_arena *a, Engram__V1__ChunkEntitiesResponse *resp, eg_err *err) {
  if (req->n_chunk_ids > 10000) return eg_err_set(err, EG_EINVAL, "more than 10000 chunk ids");
  uint64_t t;
  if (eg_kv_tenant_id(g->store, req->scope->tenant, &t) != EG_OK) return EG_OK;
  resp->chunks = eg_arena_calloc(a, req->n_chunk_ids ? req->n_chunk_ids : 1, sizeof *resp->chunks);
  if (!resp->chunks) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < req->n_chunk_ids; i++) {
    uint8_t prefix[16];
    KEY2(prefix, t, req->chunk_ids[i]);
    eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_CHUNK_ENTITIES, prefix, 16);
    Engram__V1__ChunkEntities *ce = eg_arena_calloc(a, 1, sizeof *ce);
    uint64_t *ids = eg_arena_alloc(a, 256 * sizeof *ids);
    if (!ce || !ids) {
      eg_kv_iter_close(it);
      return eg_err_set(err, EG_ENOMEM, "out of memory");
    }
    engram__v1__chunk_entities__init(ce);
    ce->chunk_id = req->chunk_ids[i];
    ce->entity_ids = ids;
    for (; eg_kv_iter_valid(it) && ce->n_entity_ids < 256; eg_kv_iter_next(it)) {
      size_t kl, vl;
      const uint8_t *k = eg_kv_iter_key(it, &kl);
      const char *v = eg_kv_iter_value(it, &vl);
      char *user = eg_arena_strndup(a, v, vl); /* who wrote the link ("" = shared) */
      if (kl == 24 && user && eg_scope_sees(req->scope, user, NULL, false))
        ids[ce->n_entity_ids++] = key_get64(k + 16);
    }
    eg_kv_iter_close(it);
    if (ce->n_entity_ids) resp->chunks[resp->n_chunks++] = ce;
  }
  return EG_OK;
}
