/*
 * apply.c — graphd's write path: a write's steps are recorded and applied (eg_gwrite_*),
 * the record is one log position, and a follower applies the log's records through the
 * same steps (eg_graph_apply). See graph_int.h and deploy/REPLICATION.md.
 *
 * Determinism is the point: a step carries everything resolved on the writer (ids,
 * times, parents, the normalized names), so applying it reads nothing but the state the
 * earlier records left — the same on every replica that applies the log in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/replica.h"
#include "services/graphd/graph_int.h"

/* ---- one step ----------------------------------------------------------------------- */

typedef struct apply_ctx {
  eg_graph *g;
  eg_kvtxn *txn;
  eg_tenant *ten;
  const char *tenant;
  eg_arena *a;
  eg_erase_counts *erased;
} apply_ctx;

static eg_code apply_step(const apply_ctx *c, const Engram__V1__GraphStep *s, eg_err *err) {
  switch (s->step_case) {
    case ENGRAM__V1__GRAPH_STEP__STEP_ENTITY:
      return eg_apply_entity(c->txn, c->ten, s->entity, c->a, err);
    case ENGRAM__V1__GRAPH_STEP__STEP_NAME:
      return eg_apply_name(c->txn, c->ten, s->name, err);
    case ENGRAM__V1__GRAPH_STEP__STEP_EDGE:
      return eg_apply_edge(c->txn, c->ten, s->edge, c->a, err);
    case ENGRAM__V1__GRAPH_STEP__STEP_CHUNK_LINK:
      return eg_apply_chunk_link(c->txn, c->ten, s->chunk_link, err);
    case ENGRAM__V1__GRAPH_STEP__STEP_MERGE:
      return eg_apply_merge(c->txn, c->ten, s->merge, err);
    case ENGRAM__V1__GRAPH_STEP__STEP_RELATION:
      return eg_apply_relation(c->txn, c->ten, s->relation, err);
    case ENGRAM__V1__GRAPH_STEP__STEP_OUTCOME:
      return eg_apply_outcome(c->txn, c->ten, s->outcome, c->a, err);
    case ENGRAM__V1__GRAPH_STEP__STEP_ACCESS:
      return eg_apply_access(c->txn, c->ten, s->access, err);
    case ENGRAM__V1__GRAPH_STEP__STEP_RETENTION_POLICY:
      return eg_apply_retention_policy(c->txn, c->ten, s->retention_policy, err);
    case ENGRAM__V1__GRAPH_STEP__STEP_ERASURE:
      return eg_apply_erasure(c->g, c->txn, c->tenant, c->ten, s->erasure, c->a, c->erased, err);
    default:
      return eg_err_set(err, EG_ECORRUPT, "log record has a step of unknown kind %d",
                        (int)s->step_case);
  }
}

/* The tenant's clock moves to last_tc (never back), and its counters are saved. */
static void apply_finish(eg_kvtxn *txn, eg_tenant *ten, int64_t last_tc,
                         const eg_erase_counts *erased) {
  if (erased->tenant_gone) return;
  if (last_tc > ten->last_tc) ten->last_tc = last_tc;
  eg_kvtxn_save_tenant(txn, ten);
}

/* What a write does once durable, besides the store: caches, purges. */
static void after_commit(eg_graph *g, uint64_t tenant, Engram__V1__GraphStep *const *steps,
                         size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (steps[i]->step_case == ENGRAM__V1__GRAPH_STEP__STEP_RELATION)
      eg_relation_declared(g, tenant, steps[i]->relation);
    if (steps[i]->step_case == ENGRAM__V1__GRAPH_STEP__STEP_ERASURE) eg_erasure_done(g, tenant);
    if (steps[i]->step_case == ENGRAM__V1__GRAPH_STEP__STEP_OUTCOME) eg_outcome_recorded(g, tenant);
  }
}

/* ---- the writer ---------------------------------------------------------------------- */

eg_code eg_gwrite_begin(eg_graph *g, const char *tenant, const char *user, bool settled,
                        eg_arena *a, eg_gwrite *w, eg_err *err) {
  memset(w, 0, sizeof *w);
  w->g = g;
  w->a = a;
  w->tenant = tenant;
  w->user = user ? user : "";
  w->txn = settled ? eg_kv_begin_settled(g->store) : eg_kv_begin(g->store);
  if (!w->txn) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_code rc = eg_kvtxn_tenant(w->txn, tenant, &w->ten, err);
  if (!rc) w->T = w->ten->id;
  if (rc) {
    eg_kvtxn_abort(w->txn);
    w->txn = NULL;
  }
  return rc;
}

Engram__V1__GraphStep *eg_step_new(eg_arena *a, Engram__V1__GraphStep__StepCase kind) {
  Engram__V1__GraphStep *s = eg_arena_calloc(a, 1, sizeof *s);
  if (!s) return NULL;
  engram__v1__graph_step__init(s);
  s->step_case = kind;
  return s;
}

eg_code eg_gwrite_step(eg_gwrite *w, Engram__V1__GraphStep *step, eg_err *err) {
  if (!step || eg_ptrvec_push(&w->steps, w->a, step))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  apply_ctx c = {w->g, w->txn, w->ten, w->tenant, w->a, &w->erased};
  return apply_step(&c, step, err);
}

/* Whose record the write is: the writer's user when everything it writes is that user's
 * own — their edges, chunk links and outcomes, entities they created (with their names) —
 * which their erasure removes, so that a replica that cannot open it once the user's key is
 * shredded loses nothing the erasure keeps; else no one's (""), in the clear. */
static const char *record_owner(const eg_gwrite *w) {
  const char *u = w->user;
  if (!*u) return "";
  for (size_t i = 0; i < w->steps.n; i++) {
    const Engram__V1__GraphStep *s = w->steps.v[i];
    bool own = false;
    switch (s->step_case) {
      case ENGRAM__V1__GRAPH_STEP__STEP_ENTITY:
        own = !strcmp(s->entity->created_by, u);
        break;
      case ENGRAM__V1__GRAPH_STEP__STEP_NAME: /* of an entity of the same write, the user's */
        for (size_t j = 0; j < w->steps.n && !own; j++) {
          const Engram__V1__GraphStep *o = w->steps.v[j];
          own = o->step_case == ENGRAM__V1__GRAPH_STEP__STEP_ENTITY &&
                o->entity->id == s->name->entity_id && !strcmp(o->entity->created_by, u);
        }
        break;
      case ENGRAM__V1__GRAPH_STEP__STEP_EDGE:
        own = !strcmp(s->edge->user, u);
        break;
      case ENGRAM__V1__GRAPH_STEP__STEP_CHUNK_LINK:
        own = !strcmp(s->chunk_link->user, u);
        break;
      case ENGRAM__V1__GRAPH_STEP__STEP_OUTCOME:
        own = !strcmp(s->outcome->user, u);
        break;
      default: /* merges, relations, accesses, policies: they outlive the user's erasure */
        break;
    }
    if (!own) return "";
  }
  return u;
}

/* The record's bytes, in w's arena. */
static eg_code record_pack(eg_gwrite *w, uint8_t **out, size_t *len, eg_err *err) {
  Engram__V1__GraphWrite body = ENGRAM__V1__GRAPH_WRITE__INIT;
  body.steps = (Engram__V1__GraphStep **)w->steps.v;
  body.n_steps = w->steps.n;
  body.last_tc = w->last_tc;
  const char *erases = NULL; /* the user (or "": the tenant) an erasure step erases */
  for (size_t i = 0; i < w->steps.n; i++) {
    const Engram__V1__GraphStep *s = w->steps.v[i];
    if (s->step_case == ENGRAM__V1__GRAPH_STEP__STEP_ERASURE) erases = s->erasure->user;
  }
  return eg_record_pack(w->a, &engram__v1__graph_log_record__descriptor, w->tenant, w->T,
                        record_owner(w), erases, &body.base, out, len, err);
}

eg_code eg_gwrite_commit(eg_gwrite *w, eg_err *err) {
  apply_finish(w->txn, w->ten, w->last_tc, &w->erased);
  uint8_t *rec = NULL;
  size_t len = 0;
  /* Only a leader's log needs the bytes; alone, a replica applies without them. */
  eg_code rc = eg_kv_wants_records(w->g->store) ? record_pack(w, &rec, &len, err) : EG_OK;
  eg_kvtxn *txn = w->txn;
  w->txn = NULL;
  if (rc) {
    eg_kvtxn_abort(txn);
    return rc;
  }
  if ((rc = eg_kvtxn_commit_logged(txn, rec, len, &w->pos, err))) return rc;
  after_commit(w->g, w->T, (Engram__V1__GraphStep **)w->steps.v, w->steps.n);
  return EG_OK;
}

eg_code eg_gwrite_last(eg_gwrite *w, Engram__V1__GraphStep *step, eg_err *err) {
  eg_code rc = eg_gwrite_step(w, step, err);
  if (rc) {
    eg_gwrite_abort(w);
    return rc;
  }
  return eg_gwrite_commit(w, err);
}

void eg_gwrite_abort(eg_gwrite *w) {
  if (w->txn) eg_kvtxn_abort(w->txn);
  w->txn = NULL;
}

/* ---- a follower ------------------------------------------------------------------------ */

typedef struct decoded {
  Engram__V1__GraphLogRecord *rec;
  Engram__V1__GraphWrite *body;
  bool settled; /* holds an erasure: applied alone, on durable state */
} decoded;

static eg_code decode(eg_arena *a, const eg_replog_record *r, decoded *d, eg_err *err) {
  eg_code rc = eg_record_open(a, &engram__v1__graph_log_record__descriptor,
                              &engram__v1__graph_write__descriptor, r, "graph",
                              (ProtobufCMessage **)&d->rec, (ProtobufCMessage **)&d->body, err);
  if (rc) return rc;
  if (!d->body) { /* its key was shredded: the erasure after it removes what it wrote */
    static Engram__V1__GraphWrite none = ENGRAM__V1__GRAPH_WRITE__INIT;
    d->body = &none;
  }
  d->settled = false;
  for (size_t i = 0; i < d->body->n_steps; i++)
    d->settled |= d->body->steps[i]->step_case == ENGRAM__V1__GRAPH_STEP__STEP_ERASURE;
  return EG_OK;
}

/* Apply one decoded record inside txn. */
static eg_code apply_record(eg_graph *g, eg_kvtxn *txn, const decoded *d, uint64_t pos, eg_arena *a,
                            eg_err *err) {
  eg_tenant *ten;
  eg_code rc = eg_kvtxn_tenant(txn, d->rec->tenant, &ten, err);
  if (rc) return rc;
  if (ten->id != d->rec->tenant_id)
    return eg_err_set(err, EG_ECORRUPT,
                      "log position %llu: tenant number %llu here, %llu on the writer — "
                      "this replica's store did not come from this log",
                      (unsigned long long)pos, (unsigned long long)ten->id,
                      (unsigned long long)d->rec->tenant_id);
  eg_erase_counts erased = {0};
  apply_ctx c = {g, txn, ten, d->rec->tenant, a, &erased};
  for (size_t i = 0; i < d->body->n_steps; i++) {
    if ((rc = apply_step(&c, d->body->steps[i], err))) {
      char p[48];
      snprintf(p, sizeof p, "log position %llu: ", (unsigned long long)pos);
      eg_err_prefix(err, p);
      return rc;
    }
  }
  apply_finish(txn, ten, d->body->last_tc, &erased);
  return EG_OK;
}

static void after_records(eg_graph *g, decoded *ds, size_t n) {
  for (size_t i = 0; i < n; i++)
    after_commit(g, ds[i].rec->tenant_id, ds[i].body->steps, ds[i].body->n_steps);
}

eg_code eg_graph_apply(eg_graph *g, const eg_replog_record *recs, size_t n, eg_err *err) {
  eg_arena *a = eg_arena_new(1 << 16, (size_t)1 << 30);
  decoded *ds = calloc(n ? n : 1, sizeof *ds);
  if (!a || !ds) {
    eg_arena_free(a);
    free(ds);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  eg_code rc = EG_OK;
  for (size_t i = 0; i < n && !rc;) {
    if (recs[i].seq <= eg_graph_position(g)) {
      rc = eg_err_set(err, EG_EPRECOND, "log position %llu is already applied",
                      (unsigned long long)recs[i].seq);
      break;
    }
    /* One transaction for a run of records (one synced write for the lot); an erasure
     * alone, once what came before it is durable. */
    if ((rc = decode(a, &recs[i], &ds[i], err))) break;
    bool settled = ds[i].settled;
    eg_kvtxn *txn = settled ? eg_kv_begin_settled(g->store) : eg_kv_begin(g->store);
    if (!txn) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
    size_t j = i;
    for (;;) {
      if ((rc = apply_record(g, txn, &ds[j], recs[j].seq, a, err))) break;
      j++;
      if (settled || j == n) break;
      if ((rc = decode(a, &recs[j], &ds[j], err))) break;
      if (ds[j].settled) break;
    }
    if (rc) {
      eg_kvtxn_abort(txn);
      break;
    }
    if ((rc = eg_kvtxn_commit_applied(txn, recs[j - 1].seq, err))) break;
    after_records(g, ds + i, j - i);
    i = j;
  }
  if (rc)
    EG_ERROR("apply", "cannot apply the log", "applied=%llu error=\"%s\"",
             (unsigned long long)eg_graph_position(g), err ? err->msg : "");
  free(ds);
  eg_arena_free(a);
  return rc;
}

/* ---- positions and watermarks ------------------------------------------------------------ */

uint64_t eg_graph_position(eg_graph *g) { return eg_kv_position(g->store); }
