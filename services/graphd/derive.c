/*
 * derive.c — evaluation of the derivation rules (derive.h) after a commit.
 *
 * Incremental: only the rules whose when/unless relations appear in the commit are
 * evaluated, and only for the anchors the commit can have changed — the subjects of its
 * edges with such a relation and, one hop back, the subjects whose premise-relation edges
 * point at them (at most EG_DERIVE_MAX_ANCHORS per commit). Bounded: at most
 * limits.derive_max_matches current edges are examined per commit; a capped evaluation
 * asserts what it found but retracts nothing.
 *
 * An anchor is evaluated in the view of one user (the user of the edge that made it a
 * candidate): that user's edges and the tenant's shared ones, never another user's, and a
 * private edge only for its agent. Its conclusions are written with that user's scope
 * (private when a premise is), as ordinary append-only commits: provenance DERIVED, the
 * rule in meta.rule, the premises in derived_from. A conclusion whose premises no longer
 * hold is retracted (a RETRACT commit); one whose premises changed is asserted again with
 * the new ones; a stated edge of the same (subject, relation, object) is never overridden.
 *
 * The client's commit is durable before any of this runs, and nothing here can fail it:
 * a rule's error is logged and counted (engram_graphd_derive_failures_total).
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/text.h"
#include "common/time.h"
#include "services/graphd/graph_int.h"

#define DERIVED ENGRAM__V1__PROVENANCE__PROVENANCE_DERIVED
#define RETRACT ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT
#define ENTITY ENGRAM__V1__VALUE__KIND_ENTITY_ID
#define LITERAL ENGRAM__V1__VALUE__KIND_LITERAL
#define MAX_PREMISES 64  /* derived_from of one conclusion (Commit's own limit) */
#define BACK_PER_EDGE 16 /* anchors found one hop back from one edge and relation */

typedef struct anchor {
  uint64_t entity;
  const char *user, *agent; /* "" when none */
} anchor;

typedef struct dctx {
  eg_graph *g;
  uint64_t T;
  const char *tenant;
  eg_arena *a;
  anchor at;
  Engram__V1__Scope view;
  int64_t now;
  uint32_t budget; /* current edges the commit may still examine */
  bool capped;
  eg_err *err;
} dctx;

/* One complete match of a rule's premises. */
typedef struct match {
  Engram__V1__Value *object; /* the conclusion's object (NULL: the then clause's constant) */
  Engram__V1__Value *counted;
  uint64_t premises[EG_DERIVE_MAX_CLAUSES];
  size_t n_premises;
  bool private_;
} match;

/* ---- reading the graph in the anchor's view ------------------------------------------ */

/* The current values of (subject, relation) that the anchor's user may build on. */
static eg_code current(dctx *c, uint64_t subject, const char *rel, eg_ptrvec *out) {
  eg_state st;
  eg_code rc = eg_state_of(c->g, c->T, subject, rel, c->now, c->now, &c->view, c->a, &st, c->err);
  if (rc) return rc;
  for (size_t i = 0; i < st.n; i++) {
    const char *u = st.values[i]->user ? st.values[i]->user : "";
    if (*u && strcmp(u, c->at.user) != 0) continue; /* another user's: never a premise */
    if (eg_ptrvec_push(out, c->a, st.values[i]))
      return eg_err_set(c->err, EG_ENOMEM, "out of memory");
  }
  return EG_OK;
}

/* The entity a constant names, 0 when none. */
static eg_code constant_entity(dctx *c, const char *name, uint64_t *id) {
  Engram__V1__EntityRef ref = ENGRAM__V1__ENTITY_REF__INIT;
  ref.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  ref.name = (char *)name;
  eg_code rc = eg_entity_ref(c->g, NULL, c->T, &ref, NULL, false, c->a, id, NULL, c->err);
  if (rc == EG_ENOTFOUND) {
    *id = 0;
    return EG_OK;
  }
  return rc;
}

/* Does value v stand for the constant? Its entity by name, or a literal equal once both
 * are normalized. */
static eg_code is_constant(dctx *c, const char *name, const Engram__V1__Value *v, bool *yes) {
  *yes = false;
  if (v->kind_case == ENTITY) {
    uint64_t id;
    eg_code rc = constant_entity(c, name, &id);
    *yes = !rc && id && id == v->entity_id;
    return rc;
  }
  if (v->kind_case != LITERAL || !v->literal) return EG_OK;
  char *x = eg_text_normalize(c->a, name, strlen(name)),
       *y = eg_text_normalize(c->a, v->literal, strlen(v->literal));
  *yes = x && y && *x && strcmp(x, y) == 0;
  return EG_OK;
}

/* The subject entity of a pattern under bindings b, 0 when it has none. */
static eg_code subject_of(dctx *c, const eg_dpattern *p, Engram__V1__Value **b, uint64_t *id) {
  *id = 0;
  if (p->s.var < 0) return constant_entity(c, p->s.name, id);
  if (b[p->s.var] && b[p->s.var]->kind_case == ENTITY) *id = b[p->s.var]->entity_id;
  return EG_OK;
}

/* Does object term t accept v under b (a bound variable, or a constant)? */
static eg_code object_ok(dctx *c, const eg_dterm *t, Engram__V1__Value **b,
                         const Engram__V1__Value *v, bool *ok) {
  if (t->var >= 0) {
    *ok = !b[t->var] || eg_value_equal(b[t->var], v);
    return EG_OK;
  }
  return is_constant(c, t->name, v, ok);
}

/* Does an unless clause hold (a current edge matches it)? */
static eg_code exists(dctx *c, const eg_dpattern *p, Engram__V1__Value **b, bool *found) {
  *found = false;
  uint64_t s;
  eg_code rc = subject_of(c, p, b, &s);
  if (rc || !s) return rc;
  eg_ptrvec vals = {0};
  if ((rc = current(c, s, p->rel, &vals))) return rc;
  for (size_t i = 0; i < vals.n && !*found && !rc; i++)
    rc = object_ok(c, &p->o, b, ((Engram__V1__Edge *)vals.v[i])->object, found);
  return rc;
}

/* ---- matching -------------------------------------------------------------------------- */

static eg_code record(dctx *c, const eg_drule *r, Engram__V1__Value **b, const uint64_t *prem,
                      bool priv, eg_ptrvec *out) {
  for (size_t i = 0; i < r->n_unless; i++) {
    bool found;
    eg_code rc = exists(c, &r->unless[i], b, &found);
    if (rc || found) return rc;
  }
  match *m = eg_arena_calloc(c->a, 1, sizeof *m);
  if (!m || eg_ptrvec_push(out, c->a, m)) return eg_err_set(c->err, EG_ENOMEM, "out of memory");
  m->object = r->then.o.var >= 0 ? b[r->then.o.var] : NULL;
  m->counted = r->count_var >= 0 ? b[r->count_var] : NULL;
  memcpy(m->premises, prem, r->n_when * sizeof *prem);
  m->n_premises = r->n_when;
  m->private_ = priv;
  return EG_OK;
}

/* Backtracking join of the when clauses from the i-th, in order. */
static eg_code join(dctx *c, const eg_drule *r, size_t i, Engram__V1__Value **b, uint64_t *prem,
                    bool priv, eg_ptrvec *out) {
  if (i == r->n_when) return record(c, r, b, prem, priv, out);
  const eg_dpattern *p = &r->when[i];
  uint64_t s;
  eg_code rc = subject_of(c, p, b, &s);
  if (rc || !s) return rc;
  eg_ptrvec vals = {0};
  if ((rc = current(c, s, p->rel, &vals))) return rc;
  for (size_t j = 0; j < vals.n; j++) {
    if (!c->budget) {
      c->capped = true;
      return EG_OK;
    }
    c->budget--;
    Engram__V1__Edge *e = vals.v[j];
    bool ok;
    if ((rc = object_ok(c, &p->o, b, e->object, &ok))) return rc;
    if (!ok) continue;
    bool binds = p->o.var >= 0 && !b[p->o.var];
    if (binds) b[p->o.var] = e->object;
    prem[i] = e->id;
    rc = join(c, r, i + 1, b, prem, priv || e->private_, out);
    if (binds) b[p->o.var] = NULL;
    if (rc) return rc;
  }
  return EG_OK;
}

/* ---- conclusions ------------------------------------------------------------------------ */

typedef struct conclusion {
  Engram__V1__Value *object; /* NULL: the then clause's constant */
  uint64_t premises[MAX_PREMISES];
  size_t n_premises;
  Engram__V1__Value *counted[MAX_PREMISES]; /* distinct values of the count variable */
  size_t n_counted;
  bool private_;
} conclusion;

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* Group the matches by the conclusion's object: premises united (sorted, at most 64),
 * the count variable's distinct values counted. */
static eg_code group(dctx *c, eg_ptrvec *matches, eg_ptrvec *out) {
  for (size_t i = 0; i < matches->n; i++) {
    match *m = matches->v[i];
    conclusion *k = NULL;
    for (size_t j = 0; j < out->n && !k; j++) {
      conclusion *x = out->v[j];
      if (!m->object || eg_value_equal(x->object, m->object)) k = x;
    }
    if (!k) {
      if (!(k = eg_arena_calloc(c->a, 1, sizeof *k)) || eg_ptrvec_push(out, c->a, k))
        return eg_err_set(c->err, EG_ENOMEM, "out of memory");
      k->object = m->object;
    }
    k->private_ |= m->private_;
    for (size_t p = 0; p < m->n_premises; p++) {
      bool have = false;
      for (size_t q = 0; q < k->n_premises && !have; q++) have = k->premises[q] == m->premises[p];
      if (!have && k->n_premises < MAX_PREMISES) k->premises[k->n_premises++] = m->premises[p];
    }
    bool seen = !m->counted;
    for (size_t q = 0; q < k->n_counted && !seen; q++)
      seen = eg_value_equal(k->counted[q], m->counted);
    if (!seen && k->n_counted < MAX_PREMISES) k->counted[k->n_counted++] = m->counted;
  }
  for (size_t j = 0; j < out->n; j++) {
    conclusion *k = out->v[j];
    qsort(k->premises, k->n_premises, sizeof *k->premises, cmp_u64);
  }
  return EG_OK;
}

static bool is_ours(const Engram__V1__Edge *e, const eg_drule *r) {
  return e->meta && e->meta->provenance == DERIVED && e->meta->rule &&
         strcmp(e->meta->rule, r->name) == 0;
}

/* Does existing edge e state the conclusion's object? */
static eg_code same_object(dctx *c, const eg_drule *r, const conclusion *k,
                           const Engram__V1__Edge *e, bool *yes) {
  if (k->object) {
    *yes = eg_value_equal(k->object, e->object);
    return EG_OK;
  }
  return is_constant(c, r->then.o.name, e->object, yes);
}

/* Every premise of the existing conclusion is among the new ones: it still stands. */
static bool premises_hold(const Engram__V1__Edge *e, const conclusion *k) {
  for (size_t i = 0; i < e->n_derived_from; i++)
    if (!bsearch(&e->derived_from[i], k->premises, k->n_premises, sizeof *k->premises, cmp_u64))
      return false;
  return true;
}

/* Commit one conclusion (ASSERT, or RETRACT of `old`) in the anchor user's scope. */
static eg_code conclude(dctx *c, const eg_drule *r, const conclusion *k,
                        const Engram__V1__Edge *old, bool *wrote) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)c->tenant;
  scope.user = (char *)c->at.user;
  scope.agent = (char *)c->at.agent;
  scope.private_ = old ? old->private_ : k->private_;
  Engram__V1__EntityRef subj = ENGRAM__V1__ENTITY_REF__INIT, obj = ENGRAM__V1__ENTITY_REF__INIT;
  subj.ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
  subj.id = c->at.entity;
  Engram__V1__EdgeMeta meta = ENGRAM__V1__EDGE_META__INIT;
  meta.provenance = DERIVED;
  meta.rule = (char *)r->name;
  meta.extractor = "derive";
  Engram__V1__EdgeInput in = ENGRAM__V1__EDGE_INPUT__INIT, *ins = &in;
  in.subject = &subj;
  in.relation = (char *)r->then.rel;
  in.meta = &meta;
  const Engram__V1__Value *v = old ? old->object : k->object;
  if (v && v->kind_case == LITERAL) {
    in.object_literal = v->literal;
  } else {
    in.object_entity = &obj;
    if (v) {
      obj.ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
      obj.id = v->entity_id;
    } else {
      obj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
      obj.name = (char *)r->then.o.name;
    }
  }
  uint64_t old_id = old ? old->id : 0;
  if (old) { /* the retracted conclusion is its premise: each retraction its own identity */
    in.op = RETRACT;
    in.derived_from = &old_id;
    in.n_derived_from = 1;
  } else {
    in.derived_from = (uint64_t *)k->premises;
    in.n_derived_from = k->n_premises;
  }
  Engram__V1__CommitRequest req = ENGRAM__V1__COMMIT_REQUEST__INIT;
  req.scope = &scope;
  req.edges = &ins;
  req.n_edges = 1;
  for (int attempt = 0; attempt < 2; attempt++) {
    Engram__V1__CommitResponse resp = ENGRAM__V1__COMMIT_RESPONSE__INIT;
    eg_code rc = eg_graph_commit_batch(c->g, &req, c->a, &resp, c->err);
    if (rc) return rc;
    Engram__V1__Edge *e;
    if ((rc = eg_edge_load(c->g, c->T, resp.edge_ids[0], c->a, &e, c->err))) return rc;
    *wrote = e->t_commit == resp.t_commit;
    if (*wrote || old) return EG_OK;
    /* The same conclusion was asserted before and has been retracted since: its identity
     * names that old edge. Assert it anew, valid from now (set, and before the commit's
     * own time, so that it counts as sent and makes a new identity). */
    in.valid_from = eg_time_now_us() - 1;
  }
  return EG_OK;
}

/* Evaluate rule r for the anchor, then assert, keep or retract its conclusions. */
static eg_code evaluate(dctx *c, const eg_drule *r, uint64_t *asserted, uint64_t *retracted) {
  Engram__V1__Value *b[EG_DERIVE_MAX_VARS] = {0}, anchor_v = ENGRAM__V1__VALUE__INIT;
  anchor_v.kind_case = ENTITY;
  anchor_v.entity_id = c->at.entity;
  b[r->then.s.var] = &anchor_v;
  uint64_t prem[EG_DERIVE_MAX_CLAUSES];
  eg_ptrvec matches = {0}, groups = {0}, existing = {0};
  eg_code rc;
  if ((rc = join(c, r, 0, b, prem, false, &matches)) || (rc = group(c, &matches, &groups)) ||
      (rc = current(c, c->at.entity, r->then.rel, &existing)))
    return rc;
  bool *standing = eg_arena_calloc(c->a, existing.n ? existing.n : 1, sizeof *standing);
  if (!standing) return eg_err_set(c->err, EG_ENOMEM, "out of memory");
  for (size_t j = 0; j < groups.n; j++) {
    conclusion *k = groups.v[j];
    if (r->count_var >= 0 && k->n_counted < r->count_min) continue;
    bool keep = false, blocked = false;
    for (size_t i = 0; i < existing.n; i++) {
      Engram__V1__Edge *e = existing.v[i];
      bool same;
      if ((rc = same_object(c, r, k, e, &same))) return rc;
      if (!same) continue;
      if (!is_ours(e, r))
        blocked = true; /* stated (or another rule's): never overridden */
      else if (premises_hold(e, k))
        keep = true;
      if (is_ours(e, r)) standing[i] = true; /* kept, or superseded below */
    }
    if (blocked || keep) continue;
    bool wrote;
    if ((rc = conclude(c, r, k, NULL, &wrote))) return rc;
    *asserted += wrote;
  }
  if (c->capped) return EG_OK; /* an incomplete evaluation retracts nothing */
  for (size_t i = 0; i < existing.n; i++) {
    Engram__V1__Edge *e = existing.v[i];
    if (standing[i] || !is_ours(e, r) || strcmp(e->user ? e->user : "", c->at.user) != 0)
      continue; /* the user's own */
    bool wrote;
    if ((rc = conclude(c, r, NULL, e, &wrote))) return rc;
    *retracted += wrote;
  }
  return EG_OK;
}

/* ---- after a commit ------------------------------------------------------------------ */

static void add_anchor(eg_ptrvec *anchors, eg_arena *a, uint64_t entity, const char *user,
                       const char *agent) {
  user = user ? user : "";
  agent = agent ? agent : "";
  if (anchors->n >= EG_DERIVE_MAX_ANCHORS) return;
  for (size_t i = 0; i < anchors->n; i++) {
    anchor *x = anchors->v[i];
    if (x->entity == entity && !strcmp(x->user, user) && !strcmp(x->agent, agent)) return;
  }
  anchor *n = eg_arena_alloc(a, sizeof *n);
  if (!n) return;
  *n = (anchor){entity, user, agent};
  eg_ptrvec_push(anchors, a, n);
}

/* The subjects of rel edges pointing at entity (one hop back), each with its writer. */
static void back_anchors(eg_graph *g, uint64_t T, uint64_t entity, const char *rel, eg_arena *a,
                         eg_ptrvec *anchors) {
  uint8_t prefix[24];
  KEY3(prefix, T, entity, eg_rel_hash(rel));
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_EDGES_BY_OBJECT, prefix, 24);
  for (int n = 0; eg_kv_iter_valid(it) && n < BACK_PER_EDGE; eg_kv_iter_next(it), n++) {
    size_t kl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    Engram__V1__Edge *e;
    eg_err err;
    if (kl == 40 && eg_edge_load(g, T, key_get64(k + 32), a, &e, &err) == EG_OK)
      add_anchor(anchors, a, e->subject, e->user, e->agent);
  }
  eg_kv_iter_close(it);
}

static bool any_rule_reads(const eg_drules *rules, const char *rel) {
  for (size_t i = 0; i < rules->n; i++)
    if (eg_drule_reads(&rules->rules[i], rel)) return true;
  return false;
}

void eg_derive_after_commit(eg_graph *g, const Engram__V1__CommitRequest *req,
                            const Engram__V1__CommitResponse *resp, eg_arena *a) {
  const eg_drules *rules = g->rules;
  if (!rules || !rules->n || req->import_mode) return;
  uint64_t T;
  if (eg_kv_tenant_id(g->store, req->scope->tenant, &T) != EG_OK) return;
  eg_ptrvec anchors = {0};
  for (size_t i = 0; i < req->n_edges && i < resp->n_subject_ids; i++) {
    const char *rel = req->edges[i]->relation;
    if (!any_rule_reads(rules, rel)) continue;
    add_anchor(&anchors, a, resp->subject_ids[i], req->scope->user, req->scope->agent);
    for (size_t r = 0; r < rules->n; r++) {
      const eg_drule *rule = &rules->rules[r];
      if (!eg_drule_reads(rule, rel)) continue;
      for (size_t w = 0; w < rule->n_when; w++)
        back_anchors(g, T, resp->subject_ids[i], rule->when[w].rel, a, &anchors);
    }
  }
  if (!anchors.n) return;
  eg_err err;
  dctx c = {.g = g,
            .T = T,
            .tenant = req->scope->tenant,
            .a = a,
            .now = eg_time_now_us(),
            .budget = g->limits.derive_max_matches,
            .err = &err};
  uint64_t asserted = 0, retracted = 0, failed = 0;
  for (size_t i = 0; i < anchors.n; i++) {
    c.at = *(anchor *)anchors.v[i];
    engram__v1__scope__init(&c.view);
    c.view.tenant = (char *)c.tenant;
    c.view.user = (char *)c.at.user;
    c.view.agent = (char *)c.at.agent;
    for (size_t r = 0; r < rules->n; r++) {
      const eg_drule *rule = &rules->rules[r];
      bool touched = false;
      for (size_t e = 0; e < req->n_edges && !touched; e++)
        touched = eg_drule_reads(rule, req->edges[e]->relation);
      if (!touched) continue;
      if (evaluate(&c, rule, &asserted, &retracted)) {
        failed++;
        EG_WARN("derive", "rule not applied", "rule=%s entity=%llu reason=\"%s\"", rule->name,
                (unsigned long long)c.at.entity, err.msg);
      }
    }
  }
  eg_series_add(g->m_derived, (double)asserted);
  eg_series_add(g->m_derive_retracted, (double)retracted);
  eg_series_add(g->m_derive_failures, (double)failed);
  if (c.capped) {
    eg_series_add(g->m_derive_capped, 1);
    EG_WARN("derive", "evaluation capped", "tenant=%s max_matches=%u", c.tenant,
            g->limits.derive_max_matches);
  }
}
