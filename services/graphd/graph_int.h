/*
 * graph_int.h — private pieces shared by graphd's engine files: the engine struct,
 * edge and entity (de)serialization, the state-as-of kernel Φ.
 */
#ifndef EG_GRAPHD_GRAPH_INT_H
#define EG_GRAPHD_GRAPH_INT_H

#include <pthread.h>

#include "common/map.h"
#include "common/rpc.h"
#include "proto/engram/v1/graph_log.pb-c.h"
#include "services/graphd/derive.h"
#include "services/graphd/graph.h"
#include "services/graphd/keys.h"

typedef struct eg_gwrite eg_gwrite; /* a write in progress (below) */

struct eg_graph {
  eg_kv *store;
  eg_graph_limits limits;
  pthread_mutex_t rmu;     /* guards rel_cache */
  eg_map *rel_cache;       /* T|relation → whether and how it was declared (relations.c) */
  eg_map *outcome_tenants; /* T → whether the tenant holds outcomes (outcomes.c); rmu */
  eg_map *names;           /* T|entity id → its name, malloc'ed (graph.c); rmu */
  uint64_t names_gen;      /* how many times names was forgotten; rmu */
  eg_series *m_commits, *m_edges, *m_entities, *m_walks, *m_stale, *m_outcomes;
  eg_drules *rules; /* the derivation rules (NULL: none) */
  eg_series *m_derived, *m_derive_retracted, *m_derive_failures, *m_derive_capped;
};

/* Arena-backed growable pointer array. */
typedef struct eg_ptrvec {
  void **v;
  size_t n, cap;
} eg_ptrvec;
eg_code eg_ptrvec_push(eg_ptrvec *pv, eg_arena *a, void *p);

/*
 * ---- the write path (apply.c) ------------------------------------------------------------
 *
 * Every write goes validate → resolve → record → apply. A write opens an eg_gwrite (the
 * store's write transaction and the tenant), resolves its steps one at a time — ids and
 * times assigned, each step resolved against the state the earlier ones leave, as a
 * replica applying them in order will see it — and hands each to eg_gwrite_step, which
 * adds it to the write's record and applies it. eg_apply_step, which dispatches to the
 * eg_apply_* functions below, is the only code that changes the store. eg_gwrite_commit
 * makes the record one log position: appended to the shared log before the store is
 * written when this replica leads one (common/kv.h, deploy/REPLICATION.md). A follower
 * applies records read from the log (eg_graph_apply) through the same steps.
 */
typedef struct eg_erase_counts {
  uint64_t edges, entities, accesses, keys;
  bool tenant_gone; /* the whole tenant was erased: it has no counters left to save */
  eg_ptrvec kept;   /* Engram__V1__Entity *: entities the erased user made that others use */
} eg_erase_counts;

struct eg_gwrite {
  eg_graph *g;
  eg_kvtxn *txn;
  eg_tenant *ten;
  uint64_t T; /* ten->id (ten is gone after the tenant's erasure) */
  eg_arena *a;
  const char *tenant, *user; /* borrowed: the request's scope */
  eg_ptrvec steps;           /* Engram__V1__GraphStep *, in order */
  int64_t last_tc;           /* the tenant's clock after the write (0 = unchanged) */
  eg_erase_counts erased;    /* what an erasure step removed */
  uint64_t pos;              /* after eg_gwrite_commit: the write's log position */
};

/* Start a write for tenant (created when new) as user. settled: once every earlier write
 * is durable (an erasure decides from iterators over RocksDB). */
eg_code eg_gwrite_begin(eg_graph *g, const char *tenant, const char *user, bool settled,
                        eg_arena *a, eg_gwrite *w, eg_err *err);
/* Record entity e as it is, with its name and aliases (what a replica that could not read
 * the records that made it needs, once they are shredded). */
eg_code eg_gwrite_restate_entity(eg_gwrite *w, const Engram__V1__Entity *e, eg_err *err);
/* Record step (borrowed until commit) and apply it to the transaction. */
eg_code eg_gwrite_step(eg_gwrite *w, Engram__V1__GraphStep *step, eg_err *err);
/* A step of that kind, in arena a (NULL when out of memory). */
Engram__V1__GraphStep *eg_step_new(eg_arena *a, Engram__V1__GraphStep__StepCase kind);
/* Make the write durable (and its post-commit effects); frees the transaction either way. */
eg_code eg_gwrite_commit(eg_gwrite *w, eg_err *err);
/* The write's last step, then its commit (aborted if the step fails). */
eg_code eg_gwrite_last(eg_gwrite *w, Engram__V1__GraphStep *step, eg_err *err);
void eg_gwrite_abort(eg_gwrite *w);

/* The applications of each step kind (entities.c, edges.c, relations.c, outcomes.c,
 * retention.c, erase.c). ten is the record's tenant, in the transaction. */
eg_code eg_apply_entity(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__Entity *e, eg_arena *a,
                        eg_err *err);
eg_code eg_apply_name(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__NameLink *n, eg_err *err);
eg_code eg_apply_merge(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__MergeRecord *m,
                       eg_err *err);
eg_code eg_apply_edge(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__Edge *e, eg_arena *a,
                      eg_err *err);
eg_code eg_apply_chunk_link(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__ChunkLink *l,
                            eg_err *err);
eg_code eg_apply_relation(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__RelationDeclaration *r,
                          eg_err *err);
eg_code eg_apply_outcome(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__Outcome *o, eg_arena *a,
                         eg_err *err);
eg_code eg_apply_access(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__AccessRecord *r,
                        eg_err *err);
eg_code eg_apply_retention_policy(eg_kvtxn *txn, eg_tenant *ten,
                                  const Engram__V1__RetentionPolicy *p, eg_err *err);
eg_code eg_apply_erasure(eg_graph *g, eg_kvtxn *txn, const char *tenant, eg_tenant *ten,
                         const Engram__V1__Erasure *er, eg_arena *a, eg_erase_counts *c,
                         eg_err *err);
/* After a relation declaration is durable: its cardinality in the cache. */
void eg_relation_declared(eg_graph *g, uint64_t tenant, const Engram__V1__RelationDeclaration *r);
/* After an erasure is durable: caches dropped, the values purged from the files. */
void eg_erasure_done(eg_graph *g, uint64_t tenant);

/* Commit's write path without the derivation that follows it (derive.c writes its
 * conclusions with it, so that a conclusion does not trigger rules in turn). */
eg_code eg_graph_commit_batch(eg_graph *g, const Engram__V1__CommitRequest *req, eg_arena *a,
                              Engram__V1__CommitResponse *resp, eg_err *err);

/* Evaluate the rules the committed edges touch (derive.c); never fails the commit. */
void eg_derive_after_commit(eg_graph *g, const Engram__V1__CommitRequest *req,
                            const Engram__V1__CommitResponse *resp, eg_arena *a);

/* A client string: at most limits.max_string_bytes of valid UTF-8 (NULL passes);
 * EG_EINVAL naming `what` otherwise. */
eg_code eg_graph_check_text(const eg_graph *g, const char *s, const char *what, eg_err *err);

/* The relation's 64-bit key component. */
uint64_t eg_rel_hash(const char *relation);

/* Decode a stored edge into the arena; NULL if corrupt. */
Engram__V1__Edge *eg_edge_decode(eg_arena *a, const void *v, size_t vl);
/* Load an edge by id (durable data only); EG_ENOTFOUND if absent. */
eg_code eg_edge_load(eg_graph *g, uint64_t tenant, uint64_t id, eg_arena *a, Engram__V1__Edge **out,
                     eg_err *err);
/* Load an entity by id, following nothing; EG_ENOTFOUND if absent. txn may be NULL. */
eg_code eg_entity_load(eg_graph *g, eg_kvtxn *txn, uint64_t tenant, uint64_t id, eg_arena *a,
                       Engram__V1__Entity **out, eg_err *err);
/* Follow merged_into to the surviving entity (at most 16 hops). */
eg_code eg_entity_survivor(eg_graph *g, uint64_t tenant, uint64_t id, eg_arena *a,
                           Engram__V1__Entity **out, eg_err *err);

/*
 * Resolve an EntityRef: by id (must exist), or by name (normalized; created with `type`
 * as a step of write w when create and w are given; w NULL = a read). Fills *id with the survivor's
 * id (0 when not found and not created). *created tells whether this call created it.
 */
eg_code eg_entity_ref(eg_graph *g, struct eg_gwrite *w, uint64_t tenant_id,
                      const Engram__V1__EntityRef *ref, const char *user, bool create, eg_arena *a,
                      uint64_t *id, bool *created, eg_err *err);

/* Fill subject_name / object_name of an edge from the entity store (best effort). */
void eg_edge_names(eg_graph *g, uint64_t tenant, Engram__V1__Edge *e, eg_arena *a);
/* Forget the entity names kept by eg_edge_names (at an erasure, and when they grow). */
void eg_names_forget(eg_graph *g);

/*
 * The identity key of an edge: 'I' | T | 128-bit hash of what makes an assertion the same
 * one — subject, relation, object, op, valid times as sent (a defaulted valid_from
 * counts as unset), premises, meta and the writer's scope (user, agent, private), and
 * for an imported edge its replayed t_commit. The default column family maps it to the
 * edge's id, so that an identical assertion sent again is found and not committed twice.
 * false when out of memory.
 */
#define EG_IDENTITY_KEY_LEN 25
bool eg_edge_identity(uint64_t tenant, const Engram__V1__Edge *e, eg_arena *a,
                      uint8_t out[EG_IDENTITY_KEY_LEN]);

/* Two edge objects are the same value. */
bool eg_value_equal(const Engram__V1__Value *a, const Engram__V1__Value *b);

/* The subject ids that count as `id`: itself and everything merged into it. */
size_t eg_subject_set(eg_graph *g, uint64_t tenant, uint64_t id, eg_arena *a, uint64_t **out);

/*
 * Φ(subject, relation, valid_at, known_at): the current value edges of one
 * (subject, relation), exactly as DESIGN.md defines it, for every cardinality, over the
 * commits in the view of scope `view` (another user's commits on a shared entity's chain
 * neither answer nor supersede):
 *   ONE          at most one edge (the greatest valid_from ≤ valid_at, ties: later t_commit,
 *                among commits known by known_at), none if that commit retracts it or
 *                its valid_to has passed;
 *   MANY         each object's own latest commit, kept when it asserts and has not ended;
 *   ONE_INVERSE  as MANY, then an object is kept only while this subject is its latest
 *                holder (an object has one subject at a time).
 * *superseding (may be NULL) receives, for ONE, the retracting commit when the answer is
 * "none because retracted"; it is not used otherwise.
 */
typedef struct eg_state {
  Engram__V1__Edge **values;
  size_t n;
  Engram__V1__Edge *retracted_by; /* ONE: the RETRACT commit that ended the value */
} eg_state;

eg_code eg_state_of(eg_graph *g, uint64_t tenant, uint64_t subject, const char *relation,
                    int64_t valid_at, int64_t known_at, const Engram__V1__Scope *view, eg_arena *a,
                    eg_state *out, eg_err *err);

/* Is edge e in the view of a reader's scope (common/scope.h: its own user's edges and the
 * tenant's shared ones)? Every read path asks before an edge counts for anything. */
bool eg_edge_visible(const Engram__V1__Scope *view, const Engram__V1__Edge *e);

/* For ONE_INVERSE: the latest holder (edge) of (object, relation) under the bounds and in
 * the view, or NULL. */
eg_code eg_inverse_holder(eg_graph *g, uint64_t tenant, uint64_t object, const char *relation,
                          int64_t valid_at, int64_t known_at, const Engram__V1__Scope *view,
                          eg_arena *a, Engram__V1__Edge **out, eg_err *err);

/* Default "now" for 0 bounds. */
int64_t eg_bound_or_now(int64_t t);

/* The distinct relations of a subject (one seek per relation, at most 256), keeping those
 * keep(ctx, relation) accepts (NULL = all). */
eg_code eg_subject_relations(eg_graph *g, uint64_t tenant, uint64_t subject,
                             bool (*keep)(void *, const char *), void *ctx, eg_arena *a,
                             eg_ptrvec *rels, eg_err *err);

/*
 * The commits of one (subject, relation) chain as of (valid_at, known_at): decoded, of that
 * relation (not one whose name hashes alike), visible to view. Forward: in (valid_from,
 * t_commit) order up to valid_at; backward: from valid_at down. The one loop State, the
 * premise walk and corroboration share (edges.c).
 */
typedef struct eg_chain {
  eg_kv_iter *it;
  uint8_t prefix[24];
  const char *rel;
  int64_t valid_at, known_at;
  const Engram__V1__Scope *view;
  eg_arena *a;
  bool backward, started;
} eg_chain;

void eg_chain_open(eg_chain *c, eg_graph *g, uint64_t t, uint64_t subject, const char *rel,
                   int64_t valid_at, int64_t known_at, const Engram__V1__Scope *view, bool backward,
                   eg_arena *a);
/* The next commit into *e, NULL at the end; EG_ECORRUPT for a stored edge that does not
 * decode. */
eg_code eg_chain_next(eg_chain *c, Engram__V1__Edge **e, eg_err *err);
void eg_chain_close(eg_chain *c);

/* ---- the preference subgraph (belief.c) ---- */

/* Which side of a preference a relation states: for (PREFERS, LIKES, ACCEPTED), against
 * (AVOIDS, DISLIKES, REJECTED), a goal (OPTIMIZES_FOR, which nothing contradicts), or
 * none (not a preference relation). */
typedef enum eg_pref_side {
  EG_PREF_NONE = 0,
  EG_PREF_FOR,
  EG_PREF_AGAINST,
  EG_PREF_GOAL
} eg_pref_side;
eg_pref_side eg_pref_side_of(const char *relation);

/* The weight an edge brings as evidence (its meta.confidence, or a default), and the
 * weight and direction of an outcome (docs/preferences.md lists them). */
float eg_belief_edge_weight(const Engram__V1__Edge *e);
float eg_belief_outcome_weight(Engram__V1__OutcomeKind kind, bool *contrary);

/* The rule, on b->evidence as filled: per (source, contrary) the strongest weight;
 * support and against the noisy-OR of those; confidence = support · (1 − against).
 * Order-independent; every result in [0, 1]. */
void eg_belief_score(Engram__V1__Belief *b);

/* The chains a request has read, so that the beliefs of many values of one subject
 * read each chain once. In the request's arena; one reader's view per cache. */
typedef struct eg_belief_cache eg_belief_cache;
eg_belief_cache *eg_belief_cache_new(eg_arena *a); /* NULL when out of memory */

/* The belief in (subject, relation, object) from the commits known by known_at and
 * visible to view, and the outcomes recorded on the supporting ones; *out NULL when the
 * relation is not a preference relation. Allocated in a. cache may be NULL. */
eg_code eg_belief_of(eg_graph *g, uint64_t tenant, eg_belief_cache *cache, uint64_t subject,
                     const char *relation, const Engram__V1__Value *object, int64_t known_at,
                     const Engram__V1__Scope *view, eg_arena *a, Engram__V1__Belief **out,
                     eg_err *err);

/* ---- outcomes (outcomes.c) ---- */

/* The outcomes recorded on edge id by known_at that view may see, oldest first, pushed
 * onto out (Engram__V1__Outcome *, in a). */
eg_code eg_outcomes_of(eg_graph *g, uint64_t tenant, uint64_t edge_id, int64_t known_at,
                       const Engram__V1__Scope *view, eg_arena *a, eg_ptrvec *out, eg_err *err);
/* A write holding an outcome of tenant was committed (apply.c): its edges are looked up. */
void eg_outcome_recorded(eg_graph *g, uint64_t tenant);

/* Fill the read-only parts of an edge being returned: its outcomes known by known_at and,
 * for a preference relation, its belief as of belief_known_at (cache may be NULL). */
eg_code eg_edge_annotate(eg_graph *g, uint64_t tenant, eg_belief_cache *cache, Engram__V1__Edge *e,
                         int64_t known_at, int64_t belief_known_at, const Engram__V1__Scope *view,
                         eg_arena *a, eg_err *err);

/* A user's erasure: delete the outcomes recorded by user, and every outcome on the edges
 * in gone (being erased). Returns the number of keys deleted. */
uint64_t eg_outcomes_erase_user(eg_graph *g, eg_kvtxn *txn, uint64_t tenant, const char *user,
                                const uint64_t *gone, size_t n_gone, eg_arena *a);

/* ---- retention (retention.c) ---- */

/* A user's erasure: delete the access histories of the edges in gone. Returns how many. */
uint64_t eg_retention_erase_edges(eg_kvtxn *txn, uint64_t tenant, const uint64_t *gone,
                                  size_t n_gone);

#endif
