/*
 * entities.c — entity resolution by normalized name and alias, creation, and merges
 * that are recorded and reversible (never silent).
 *
 * The names column family maps T | normalize(name) to a list of 9-byte entries
 * (entity id, kind: 0 canonical name, 1 alias). A point lookup, so names created by a
 * pending write are visible to the next write through the transaction overlay.
 */
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/time.h"
#include "services/graphd/graph_int.h"

#define NAME_ENTRY 9

static const char *empty_if_null(const char *s) { return s ? s : ""; }

/* names key for a normalized name; returns length or 0 if too long. */
static size_t name_key(uint8_t *k, size_t cap, uint64_t tenant, const char *norm) {
  size_t n = strlen(norm);
  if (8 + n > cap) return 0;
  key_put64(k, tenant);
  memcpy(k + 8, norm, n);
  return 8 + n;
}

static eg_code names_get(eg_graph *g, eg_kvtxn *txn, const uint8_t *k, size_t kl, char **v,
                         size_t *vl, eg_err *err) {
  return txn ? eg_kvtxn_get(txn, CF_NAMES, k, kl, v, vl, err)
             : eg_kv_get(g->store, CF_NAMES, k, kl, v, vl, err);
}

/* Add (id, kind) to the names list of norm, unless present. */
eg_code eg_apply_name(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__NameLink *n, eg_err *err) {
  const char *norm = n->norm ? n->norm : "";
  uint64_t id = n->entity_id;
  int kind = (int)n->kind;
  uint8_t k[1100];
  size_t kl = name_key(k, sizeof k, ten->id, norm);
  if (!kl) return eg_err_set(err, EG_EINVAL, "name too long");
  char *v = NULL;
  size_t vl = 0;
  eg_code rc = eg_kvtxn_get(txn, CF_NAMES, k, kl, &v, &vl, err);
  if (rc && rc != EG_ENOTFOUND) return rc;
  for (size_t i = 0; i + NAME_ENTRY <= vl; i += NAME_ENTRY) {
    if (key_get64((uint8_t *)v + i) == id) {
      free(v);
      return EG_OK;
    }
  }
  char *nv = realloc(v, vl + NAME_ENTRY);
  if (!nv) {
    free(v);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  key_put64((uint8_t *)nv + vl, id);
  nv[vl + 8] = (char)kind;
  rc = eg_kvtxn_put(txn, CF_NAMES, k, kl, nv, vl + NAME_ENTRY, true);
  free(nv);
  return rc ? eg_err_set(err, rc, "out of memory") : EG_OK;
}

static bool type_matches(const char *want, const char *have) {
  if (!want || !*want || !have || !*have) return true;
  return strcmp(want, have) == 0;
}

/* Find an entity by normalized name: survivor id, 0 when none. */
static eg_code lookup_name(eg_graph *g, eg_kvtxn *txn, uint64_t tenant, const char *norm,
                           const char *type, eg_arena *a, uint64_t *id, int *kind, eg_err *err) {
  uint8_t k[1100];
  size_t kl = name_key(k, sizeof k, tenant, norm);
  *id = 0;
  if (!kl) return EG_OK;
  char *v;
  size_t vl;
  eg_code rc = names_get(g, txn, k, kl, &v, &vl, err);
  if (rc == EG_ENOTFOUND) return EG_OK;
  if (rc) return rc;
  /* Prefer canonical names over aliases, and exact type matches over untyped ones. */
  int best = -1;
  uint64_t best_id = 0;
  for (size_t i = 0; i + NAME_ENTRY <= vl; i += NAME_ENTRY) {
    uint64_t cand = key_get64((uint8_t *)v + i);
    int ckind = (uint8_t)v[i + 8];
    Engram__V1__Entity *e;
    uint64_t cur = cand;
    for (int hop = 0; hop < 16; hop++) {
      if (eg_entity_load(g, txn, tenant, cur, a, &e, NULL) != EG_OK) {
        e = NULL;
        break;
      }
      if (!e->merged_into) break;
      cur = e->merged_into;
    }
    if (!e || !type_matches(type, e->type)) continue;
    int score =
        (ckind == 0 ? 2 : 0) + ((type && *type && e->type && strcmp(type, e->type) == 0) ? 1 : 0);
    if (score > best) {
      best = score;
      best_id = e->id;
      *kind = ckind;
    }
  }
  free(v);
  *id = best_id;
  return EG_OK;
}

eg_code eg_apply_entity(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__Entity *e, eg_arena *a,
                        eg_err *err) {
  if (!e->id) return eg_err_set(err, EG_ECORRUPT, "entity without an id");
  size_t n = engram__v1__entity__get_packed_size(e);
  uint8_t *buf = eg_arena_alloc(a, n ? n : 1);
  if (!buf) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__entity__pack(e, buf);
  uint8_t k[16];
  KEY2(k, ten->id, e->id);
  if (e->id >= ten->counter[EG_CTR_ENTITY]) ten->counter[EG_CTR_ENTITY] = e->id + 1;
  return eg_kvtxn_put(txn, CF_ENTITIES, k, 16, buf, n, true)
             ? eg_err_set(err, EG_ENOMEM, "out of memory")
             : EG_OK;
}

/* ---- the writer's steps ---- */

/* The entity as it is now. The record needs a copy (the caller may change e further in
 * this write); without a log nothing reads the step after it is applied, so no copy. */
static eg_code step_entity(eg_gwrite *w, const Engram__V1__Entity *e, eg_err *err) {
  Engram__V1__GraphStep *s = eg_step_new(w->a, ENGRAM__V1__GRAPH_STEP__STEP_ENTITY);
  if (s)
    s->entity = eg_kv_wants_records(w->g->store)
                    ? (Engram__V1__Entity *)eg_rpc_clone(w->a, &e->base)
                    : (Engram__V1__Entity *)e;
  if (!s || !s->entity) return eg_err_set(err, EG_ENOMEM, "out of memory");
  return eg_gwrite_step(w, s, err);
}

static eg_code step_name(eg_gwrite *w, char *norm, uint64_t id, int kind, eg_err *err) {
  Engram__V1__GraphStep *s = eg_step_new(w->a, ENGRAM__V1__GRAPH_STEP__STEP_NAME);
  Engram__V1__NameLink *n = eg_arena_calloc(w->a, 1, sizeof *n);
  if (!s || !n) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__name_link__init(n);
  n->norm = norm;
  n->entity_id = id;
  n->kind = (uint32_t)kind;
  s->name = n;
  return eg_gwrite_step(w, s, err);
}

eg_code eg_gwrite_restate_entity(eg_gwrite *w, const Engram__V1__Entity *e, eg_err *err) {
  eg_code rc = step_entity(w, e, err);
  for (size_t i = 0; i <= e->n_aliases && !rc; i++) {
    const char *name = i ? e->aliases[i - 1] : e->name;
    char *norm = eg_text_normalize(w->a, name, strlen(name));
    if (!norm) return eg_err_set(err, EG_ENOMEM, "out of memory");
    if (*norm) rc = step_name(w, norm, e->id, i ? 1 : 0, err);
  }
  return rc;
}

static eg_code check_name(const eg_graph *g, const char *name, const char *what, eg_err *err) {
  size_t n = strlen(name);
  if (n > g->limits.max_string_bytes || n > 1000)
    return eg_err_set(err, EG_EINVAL, "%s longer than %u bytes", what,
                      g->limits.max_string_bytes < 1000 ? g->limits.max_string_bytes : 1000);
  if (!eg_utf8_valid(name, n)) return eg_err_set(err, EG_EINVAL, "%s is not valid UTF-8", what);
  return EG_OK;
}

/* Attach aliases to an existing entity (names + the entity's alias list). */
static eg_code add_aliases(eg_gwrite *w, Engram__V1__Entity *e, char **aliases, size_t n,
                           eg_err *err) {
  eg_graph *g = w->g;
  eg_arena *a = w->a;
  bool changed = false;
  for (size_t i = 0; i < n; i++) {
    eg_code rc = check_name(g, aliases[i], "alias", err);
    if (rc) return rc;
    char *norm = eg_text_normalize(a, aliases[i], strlen(aliases[i]));
    if (!norm || !*norm) continue;
    bool have = false;
    for (size_t j = 0; j < e->n_aliases && !have; j++) {
      char *an = eg_text_normalize(a, e->aliases[j], strlen(e->aliases[j]));
      have = an && strcmp(an, norm) == 0;
    }
    char *cn = eg_text_normalize(a, e->name, strlen(e->name));
    if (have || (cn && strcmp(cn, norm) == 0)) continue;
    char **na = eg_arena_alloc(a, (e->n_aliases + 1) * sizeof *na);
    if (!na) return eg_err_set(err, EG_ENOMEM, "out of memory");
    if (e->n_aliases) memcpy(na, e->aliases, e->n_aliases * sizeof *na);
    na[e->n_aliases++] = aliases[i];
    e->aliases = na;
    if ((rc = step_name(w, norm, e->id, 1, err))) return rc;
    changed = true;
  }
  return changed ? step_entity(w, e, err) : EG_OK;
}

static eg_code entity_create(eg_gwrite *w, const char *name, char *norm, const char *type,
                             const char *user, uint64_t *id, eg_err *err) {
  Engram__V1__Entity *e = eg_arena_calloc(w->a, 1, sizeof *e);
  if (!e) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__entity__init(e);
  e->id = w->ten->counter[EG_CTR_ENTITY]; /* the next id: applying the step takes it */
  e->name = (char *)name;
  e->type = (char *)empty_if_null(type);
  e->created_at = eg_time_now_us();
  e->created_by = (char *)empty_if_null(user);
  eg_code rc = step_entity(w, e, err);
  if (!rc) rc = step_name(w, norm, e->id, 0, err);
  if (rc) return rc;
  eg_series_add(w->g->m_entities, 1);
  *id = e->id;
  return EG_OK;
}

eg_code eg_entity_ref(eg_graph *g, eg_gwrite *w, uint64_t tenant_id,
                      const Engram__V1__EntityRef *ref, const char *user, bool create, eg_arena *a,
                      uint64_t *id, bool *created, eg_err *err) {
  eg_kvtxn *txn = w ? w->txn : NULL;
  if (created) *created = false;
  *id = 0;
  if (!ref) return eg_err_set(err, EG_EINVAL, "entity reference is missing");
  if (ref->ref_case == ENGRAM__V1__ENTITY_REF__REF_ID) {
    Engram__V1__Entity *e = NULL;
    uint64_t cur = ref->id;
    for (int hop = 0; hop < 16; hop++) {
      eg_code rc = eg_entity_load(g, txn, tenant_id, cur, a, &e, err);
      if (rc == EG_ENOTFOUND)
        return eg_err_set(err, EG_ENOTFOUND, "entity %llu not found", (unsigned long long)ref->id);
      if (rc) return rc;
      if (!e->merged_into) break;
      cur = e->merged_into;
    }
    *id = e->id;
    return EG_OK;
  }
  if (ref->ref_case != ENGRAM__V1__ENTITY_REF__REF_NAME || !ref->name)
    return eg_err_set(err, EG_EINVAL, "entity reference needs an id or a name");
  eg_code rc = check_name(g, ref->name, "entity name", err);
  if (rc) return rc;
  if (ref->type && strlen(ref->type) > 64)
    return eg_err_set(err, EG_EINVAL, "entity type longer than 64 bytes");
  char *norm = eg_text_normalize(a, ref->name, strlen(ref->name));
  if (!norm) return eg_err_set(err, EG_ENOMEM, "out of memory");
  if (!*norm) return eg_err_set(err, EG_EINVAL, "entity name has no letters or digits");
  int kind = 0;
  if ((rc = lookup_name(g, txn, tenant_id, norm, ref->type, a, id, &kind, err))) return rc;
  if (*id || !create || !w) return EG_OK;
  if ((rc = entity_create(w, ref->name, norm, ref->type, user, id, err))) return rc;
  if (created) *created = true;
  return EG_OK;
}

eg_code eg_graph_resolve(eg_graph *g, const Engram__V1__ResolveEntitiesRequest *req, eg_arena *a,
                         Engram__V1__ResolveEntitiesResponse *resp, eg_err *err) {
  bool writes = false;
  for (size_t i = 0; i < req->n_mentions; i++) writes |= req->mentions[i]->create;
  if (req->n_mentions > 10000) return eg_err_set(err, EG_EINVAL, "more than 10000 mentions");
  resp->entities =
      eg_arena_calloc(a, req->n_mentions ? req->n_mentions : 1, sizeof *resp->entities);
  if (!resp->entities) return eg_err_set(err, EG_ENOMEM, "out of memory");
  uint64_t tenant_id = 0;
  eg_gwrite gw, *w = writes ? &gw : NULL;
  eg_kvtxn *txn = NULL;
  eg_code rc = EG_OK;
  if (writes) {
    if ((rc = eg_gwrite_begin(g, req->scope->tenant, req->scope->user, false, a, w, err)))
      return rc;
    tenant_id = w->T;
    txn = w->txn;
  } else if (eg_kv_tenant_id(g->store, req->scope->tenant, &tenant_id) != EG_OK) {
    tenant_id = 0; /* unknown tenant: nothing resolves */
  }
  for (size_t i = 0; i < req->n_mentions; i++) {
    const Engram__V1__EntityMention *m = req->mentions[i];
    Engram__V1__ResolvedEntity *r = eg_arena_calloc(a, 1, sizeof *r);
    if (!r) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      goto fail;
    }
    engram__v1__resolved_entity__init(r);
    resp->entities[resp->n_entities++] = r;
    Engram__V1__EntityRef ref = ENGRAM__V1__ENTITY_REF__INIT;
    ref.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
    ref.name = m->name ? m->name : "";
    ref.type = m->type;
    uint64_t id = 0;
    bool created = false;
    if (tenant_id) {
      rc = eg_entity_ref(g, w, tenant_id, &ref, req->scope->user, m->create, a, &id, &created, err);
      if (rc) {
        eg_err_prefix(err, "mention: ");
        goto fail;
      }
    } else if ((rc = check_name(g, ref.name, "entity name", err))) {
      goto fail;
    }
    r->created = created;
    r->matched_by = created ? "created" : id ? "name" : "none";
    Engram__V1__Entity *e = NULL;
    if (id && (rc = eg_entity_load(g, txn, tenant_id, id, a, &e, err))) goto fail;
    if (e && w && m->n_aliases && (rc = add_aliases(w, e, m->aliases, m->n_aliases, err)))
      goto fail;
    if (!e) {
      e = eg_arena_calloc(a, 1, sizeof *e);
      if (!e) {
        rc = eg_err_set(err, EG_ENOMEM, "out of memory");
        goto fail;
      }
      engram__v1__entity__init(e);
    }
    r->entity = e;
  }
  return w ? eg_gwrite_commit(w, err) : EG_OK;
fail:
  if (w) eg_gwrite_abort(w);
  return rc;
}

eg_code eg_graph_get_entities(eg_graph *g, const Engram__V1__GetEntitiesRequest *req, eg_arena *a,
                              Engram__V1__GetEntitiesResponse *resp, eg_err *err) {
  uint64_t tenant;
  if (req->n_ids > 10000) return eg_err_set(err, EG_EINVAL, "more than 10000 ids");
  if (eg_kv_tenant_id(g->store, req->scope->tenant, &tenant) != EG_OK) return EG_OK;
  resp->entities = eg_arena_calloc(a, req->n_ids ? req->n_ids : 1, sizeof *resp->entities);
  if (!resp->entities) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < req->n_ids; i++) {
    Engram__V1__Entity *e;
    eg_code rc = eg_entity_load(g, NULL, tenant, req->ids[i], a, &e, err);
    if (rc == EG_ENOTFOUND) continue;
    if (rc) return rc;
    resp->entities[resp->n_entities++] = e;
  }
  return EG_OK;
}

/* ---- merges ---- */

static size_t merge_key(uint8_t *k, uint64_t tenant, uint64_t merge_id) {
  k[0] = 'M';
  key_put64(k + 1, tenant);
  key_put64(k + 9, merge_id);
  return 17;
}

/*
 * The stored merge record: into and from (8 bytes each, big-endian), undone (1 byte), the
 * number of aliases the merge added to `into` (4 bytes, host order), each as its length
 * (4 bytes) and bytes, then the reason.
 */
eg_code eg_apply_merge(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__MergeRecord *m,
                       eg_err *err) {
  eg_buf rec = EG_BUF_INIT;
  uint8_t w[17];
  key_put64(w, m->into);
  key_put64(w + 8, m->from);
  w[16] = m->undone ? 1 : 0;
  eg_buf_append(&rec, w, 17);
  uint32_t added = (uint32_t)m->n_added_aliases;
  eg_buf_append(&rec, &added, 4);
  for (size_t i = 0; i < m->n_added_aliases; i++) {
    uint32_t l = (uint32_t)strlen(m->added_aliases[i]);
    eg_buf_append(&rec, &l, 4);
    eg_buf_append(&rec, m->added_aliases[i], l);
  }
  eg_buf_puts(&rec, m->reason ? m->reason : "");
  uint8_t k[17];
  merge_key(k, ten->id, m->merge_id);
  if (m->merge_id >= ten->counter[EG_CTR_MERGE]) ten->counter[EG_CTR_MERGE] = m->merge_id + 1;
  eg_code rc = eg_kvtxn_put(txn, CF_DEFAULT, k, 17, rec.data, rec.len, true);
  eg_buf_free(&rec);
  return rc ? eg_err_set(err, EG_ENOMEM, "out of memory") : EG_OK;
}

/* A stored merge record back into its message (in a). */
static eg_code merge_decode(eg_arena *a, uint64_t merge_id, const char *v, size_t vl,
                            Engram__V1__MergeRecord *m, eg_err *err) {
  engram__v1__merge_record__init(m);
  if (vl < 21) return eg_err_set(err, EG_ECORRUPT, "merge record is corrupt");
  m->merge_id = merge_id;
  m->into = key_get64((const uint8_t *)v);
  m->from = key_get64((const uint8_t *)v + 8);
  m->undone = v[16] != 0;
  uint32_t added;
  memcpy(&added, v + 17, 4);
  m->added_aliases = eg_arena_calloc(a, added ? added : 1, sizeof(char *));
  if (!m->added_aliases) return eg_err_set(err, EG_ENOMEM, "out of memory");
  size_t off = 21;
  for (uint32_t i = 0; i < added && off + 4 <= vl; i++) {
    uint32_t l;
    memcpy(&l, v + off, 4);
    off += 4;
    if (off + l > vl) break;
    m->added_aliases[m->n_added_aliases++] = eg_arena_strndup(a, v + off, l);
    off += l;
  }
  m->reason = eg_arena_strndup(a, v + off, off <= vl ? vl - off : 0);
  return m->reason ? EG_OK : eg_err_set(err, EG_ENOMEM, "out of memory");
}

static eg_code step_merge(eg_gwrite *w, Engram__V1__MergeRecord *m, eg_err *err) {
  Engram__V1__GraphStep *s = eg_step_new(w->a, ENGRAM__V1__GRAPH_STEP__STEP_MERGE);
  if (!s) return eg_err_set(err, EG_ENOMEM, "out of memory");
  s->merge = m;
  return eg_gwrite_step(w, s, err);
}

eg_code eg_graph_merge(eg_graph *g, const Engram__V1__MergeEntitiesRequest *req, eg_arena *a,
                       Engram__V1__MergeEntitiesResponse *resp, eg_err *err) {
  if (req->into == req->from)
    return eg_err_set(err, EG_EINVAL, "cannot merge an entity into itself");
  if (req->reason && strlen(req->reason) > 1024)
    return eg_err_set(err, EG_EINVAL, "reason too long");
  eg_gwrite w;
  eg_code rc = eg_gwrite_begin(g, req->scope->tenant, req->scope->user, false, a, &w, err);
  if (rc) return rc;
  Engram__V1__Entity *into, *from;
  if ((rc = eg_entity_load(g, w.txn, w.T, req->into, a, &into, err)) ||
      (rc = eg_entity_load(g, w.txn, w.T, req->from, a, &from, err))) {
    if (rc == EG_ENOTFOUND) eg_err_set(err, EG_ENOTFOUND, "entity not found");
    goto fail;
  }
  if (into->merged_into || from->merged_into) {
    rc = eg_err_set(err, EG_EPRECOND, "entity already merged into another");
    goto fail;
  }
  /* The survivor gains `from`'s names as aliases (display); names still resolve through
   * from.merged_into, so undoing needs no name rewrite. */
  size_t before = into->n_aliases;
  char **names = eg_arena_alloc(a, (from->n_aliases + 1) * sizeof *names);
  uint64_t *mf = eg_arena_alloc(a, (into->n_merged_from + 1) * sizeof *mf);
  Engram__V1__MergeRecord *m = eg_arena_calloc(a, 1, sizeof *m);
  if (!names || !mf || !m) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto fail;
  }
  names[0] = from->name;
  if (from->n_aliases) memcpy(names + 1, from->aliases, from->n_aliases * sizeof *names);
  if ((rc = add_aliases(&w, into, names, from->n_aliases + 1, err))) goto fail;
  if (into->n_merged_from) memcpy(mf, into->merged_from, into->n_merged_from * sizeof *mf);
  mf[into->n_merged_from++] = from->id;
  into->merged_from = mf;
  from->merged_into = into->id;
  if ((rc = step_entity(&w, into, err)) || (rc = step_entity(&w, from, err))) goto fail;
  engram__v1__merge_record__init(m);
  m->merge_id = w.ten->counter[EG_CTR_MERGE]; /* the next id: applying the step takes it */
  m->into = into->id;
  m->from = from->id;
  m->added_aliases = into->aliases + before;
  m->n_added_aliases = into->n_aliases - before;
  m->reason = (char *)(req->reason ? req->reason : "");
  if ((rc = step_merge(&w, m, err))) goto fail;
  resp->merge_id = m->merge_id;
  return eg_gwrite_commit(&w, err);
fail:
  eg_gwrite_abort(&w);
  return rc;
}

eg_code eg_graph_unmerge(eg_graph *g, const Engram__V1__UnmergeEntitiesRequest *req, eg_arena *a,
                         eg_err *err) {
  uint64_t tenant;
  if (eg_kv_tenant_id(g->store, req->scope->tenant, &tenant) != EG_OK)
    return eg_err_set(err, EG_ENOTFOUND, "merge record not found");
  eg_gwrite w;
  eg_code rc = eg_gwrite_begin(g, req->scope->tenant, req->scope->user, false, a, &w, err);
  if (rc) return rc;
  uint8_t k[17];
  merge_key(k, w.T, req->merge_id);
  char *v = NULL;
  size_t vl;
  Engram__V1__Entity *into, *from;
  Engram__V1__MergeRecord *m = eg_arena_calloc(a, 1, sizeof *m);
  if (!m) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto fail;
  }
  rc = eg_kvtxn_get(w.txn, CF_DEFAULT, k, 17, &v, &vl, err);
  if (rc == EG_ENOTFOUND) eg_err_set(err, EG_ENOTFOUND, "merge record not found");
  if (rc || (rc = merge_decode(a, req->merge_id, v, vl, m, err))) goto fail;
  if (m->undone) {
    rc = eg_err_set(err, EG_EPRECOND, "merge already undone");
    goto fail;
  }
  if ((rc = eg_entity_load(g, w.txn, w.T, m->into, a, &into, err)) ||
      (rc = eg_entity_load(g, w.txn, w.T, m->from, a, &from, err)))
    goto fail;
  if (from->merged_into != m->into) {
    rc = eg_err_set(err, EG_EPRECOND, "entity was merged again since; undo that first");
    goto fail;
  }
  for (size_t i = 0; i < m->n_added_aliases; i++) {
    for (size_t j = 0; j < into->n_aliases; j++) {
      if (strcmp(into->aliases[j], m->added_aliases[i]) == 0) {
        memmove(&into->aliases[j], &into->aliases[j + 1],
                (into->n_aliases - j - 1) * sizeof(char *));
        into->n_aliases--;
        break;
      }
    }
  }
  for (size_t j = 0; j < into->n_merged_from; j++) {
    if (into->merged_from[j] == m->from) {
      memmove(&into->merged_from[j], &into->merged_from[j + 1],
              (into->n_merged_from - j - 1) * sizeof(uint64_t));
      into->n_merged_from--;
      break;
    }
  }
  from->merged_into = 0;
  m->undone = true;
  if ((rc = step_entity(&w, into, err)) || (rc = step_entity(&w, from, err)) ||
      (rc = step_merge(&w, m, err)))
    goto fail;
  free(v);
  return eg_gwrite_commit(&w, err);
fail:
  free(v);
  eg_gwrite_abort(&w);
  return rc;
}
