/*
 * test_privacy.c — privacy between the users of one tenant, and the time bounds of every
 * item, through the four real daemons.
 *
 * In tenant "priv", bob and alice both live in Lisbon, both know Maya Patel, both wrote a
 * session called "same-sid", and the tenant holds a shared document and a shared fact.
 * Every word bob said carries the marker "bobzanzibar"; every edge bob wrote carries his
 * user. Then, adversarially, as alice: Recall (its vector, BM25, graph-path, chunk
 * expansion, fact, history and premise-walk streams), Graph State / History / Traverse /
 * Walk / Changes / ChunkEntities, and Vector Search / GetChunks — nothing of bob's comes back,
 * shared entities (Lisbon, Maya Patel, an entity merged into Lisbon) are no bridge, and bob's ids
 * find nothing. The shared knowledge is seen by both; a request without a user sees the
 * tenant; an agent's private memory is seen by that agent alone.
 *
 * Time bounds: chunks are bounded like facts, by valid_at (the session's date) and
 * known_at (when Engram stored them), in Recall and in Vector Search.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/time.h"
#include "proto/engram/v1/ingest.pb-c.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

#define TEN "priv"
#define BOB_MARK "bobzanzibar"

static eg_cluster cl;
static eg_rpc_client *ing, *gra, *vec, *rec;
static uint64_t bob_works, bob_lives_faro, bob_lisboa, alice_claim, shared_porto;

static Engram__V1__Scope scope_of(const char *user, const char *agent, bool priv) {
  Engram__V1__Scope s = ENGRAM__V1__SCOPE__INIT;
  s.tenant = TEN;
  s.user = (char *)(user ? user : "");
  s.agent = (char *)(agent ? agent : "");
  s.private_ = priv;
  return s;
}

static void session(const char *user, const char *agent, bool priv, const char *sid,
                    const char *when, const char *text) {
  Engram__V1__Scope s = scope_of(user, agent, priv);
  Engram__V1__Message m = ENGRAM__V1__MESSAGE__INIT, a = ENGRAM__V1__MESSAGE__INIT,
                      *mp[] = {&m, &a};
  m.role = "user";
  m.content = (char *)text;
  a.role = "assistant";
  a.content = "Noted.";
  Engram__V1__IngestSessionRequest r = ENGRAM__V1__INGEST_SESSION_REQUEST__INIT;
  r.scope = &s;
  r.session_id = (char *)sid;
  r.session_time = T(when);
  r.messages = mp;
  r.n_messages = 2;
  eg_err e;
  eg_code rc = eg_ingestd_ingest_session(ing, &r, NULL, &e);
  if (!EG_CHECK(rc == EG_OK)) fprintf(stderr, "  ingest %s: %s\n", sid, e.msg);
}

static uint64_t fact(const char *user, const char *subject, const char *relation,
                     const char *object, const char *literal, const char *from,
                     const uint64_t *premises, size_t n_premises) {
  eg_edge_spec s = {.subject = subject,
                    .relation = relation,
                    .object = object,
                    .literal = literal,
                    .valid_from = from ? T(from) : 0,
                    .premises = premises,
                    .n_premises = n_premises};
  eg_err e;
  uint64_t id = gc_commit(gra, TEN, user, &s, &e);
  if (!EG_CHECK(id != 0)) fprintf(stderr, "  commit %s %s: %s\n", subject, relation, e.msg);
  return id;
}

/* Does the edge belong to bob (or name him)? */
static bool bobs_edge(const Engram__V1__Edge *e) {
  if (!e) return false;
  if (e->user && strcmp(e->user, "bob") == 0) return true;
  const char *names[] = {e->subject_name, e->object_name,
                         e->object && e->object->kind_case == ENGRAM__V1__VALUE__KIND_LITERAL
                             ? e->object->literal
                             : NULL,
                         e->meta ? e->meta->utterance : NULL};
  for (size_t i = 0; i < 4; i++)
    if (names[i] && (strstr(names[i], "bob") || strstr(names[i], "Okafor"))) return true;
  return false;
}

static bool bobs_text(const char *s) {
  return s && (strstr(s, BOB_MARK) || strstr(s, "user:bob") || strstr(s, "Okafor"));
}

static void test_start(void) {
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, NULL, &ing, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_VECTORD].addr, NULL, &vec, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_RECALLD].addr, NULL, &rec, &e) == EG_OK);
  /* bob first, so that alice's reads would meet his edges on every shared chain */
  session("bob", NULL, false, "same-sid", "2024-03-10T09:00:00Z",
          "I moved to Lisbon last month, " BOB_MARK ". My doctor there is Dr. Okafor.");
  session("bob", NULL, false, "bob-2", "2024-03-12T09:00:00Z",
          "Maya Patel hired me at Acme, " BOB_MARK ". I live in Lisbon near the river.");
  session("alice", NULL, false, "same-sid", "2024-03-15T09:00:00Z", "I moved to Lisbon in March.");
  /* the tenant's shared knowledge: a document and a fact without a user */
  Engram__V1__Scope tenant = scope_of(NULL, NULL, false);
  Engram__V1__IngestDocumentRequest d = ENGRAM__V1__INGEST_DOCUMENT_REQUEST__INIT;
  d.scope = &tenant;
  d.document_id = "handbook";
  d.title = "Handbook";
  d.text = "The Lisbon office opens at nine. Ask for the sharedquokka badge at the front desk.";
  d.time = T("2024-01-01");
  EG_CHECK_INT(eg_ingestd_ingest_document(ing, &d, NULL, &e), EG_OK);
  shared_porto = fact(NULL, "Maya Patel", "LIVES_IN", "Porto", NULL, "2023-01-01", NULL, 0);
  /* facts on shared entities: bob's, then alice's */
  bob_works = fact("bob", "Maya Patel", "WORKS_AT", "Acme", NULL, "2024-03-12", NULL, 0);
  fact("alice", "Maya Patel", "WORKS_AT", "Globex", NULL, "2024-01-01", NULL, 0);
  /* alice concludes something from the shared fact; bob then says Maya moved (his view) */
  alice_claim = fact("alice", "Maya Patel", "NEIGHBOUR_OF", "user:alice", NULL, "2024-02-01",
                     &shared_porto, 1);
  bob_lives_faro = fact("bob", "Maya Patel", "LIVES_IN", "Faro", NULL, "2024-03-01", NULL, 0);
  /* bob's edge on a second name for the city, then merged into Lisbon */
  bob_lisboa = fact("bob", "user:bob", "VISITED", "Lisboa", NULL, "2024-03-11", NULL, 0);
  Engram__V1__ResolveEntitiesRequest rr = ENGRAM__V1__RESOLVE_ENTITIES_REQUEST__INIT;
  Engram__V1__EntityMention m1 = ENGRAM__V1__ENTITY_MENTION__INIT,
                            m2 = ENGRAM__V1__ENTITY_MENTION__INIT, *mp[] = {&m1, &m2};
  m1.name = "Lisbon";
  m2.name = "Lisboa";
  rr.scope = &tenant;
  rr.mentions = mp;
  rr.n_mentions = 2;
  Engram__V1__ResolveEntitiesResponse *res = NULL;
  EG_REQUIRE(eg_graphd_resolve_entities(gra, &rr, &res, &e) == EG_OK);
  EG_REQUIRE(res->n_entities == 2 && res->entities[0]->entity && res->entities[1]->entity);
  Engram__V1__MergeEntitiesRequest mr = ENGRAM__V1__MERGE_ENTITIES_REQUEST__INIT;
  mr.scope = &tenant;
  mr.into = res->entities[0]->entity->id;
  mr.from = res->entities[1]->entity->id;
  mr.reason = "same city";
  protobuf_c_message_free_unpacked(&res->base, NULL);
  EG_CHECK_INT(eg_graphd_merge_entities(gra, &mr, NULL, &e), EG_OK);
}

static Engram__V1__RecallResponse *recall(const char *user, const char *q, int64_t valid_at,
                                          int64_t known_at) {
  Engram__V1__Scope s = scope_of(user, NULL, false);
  Engram__V1__RecallRequest r = ENGRAM__V1__RECALL_REQUEST__INIT;
  r.scope = &s;
  r.query = (char *)q;
  r.query_time = T("2024-06-01");
  r.valid_at = valid_at;
  r.known_at = known_at;
  r.k = 20;
  Engram__V1__RecallResponse *resp = NULL;
  eg_err e;
  eg_code rc = eg_recalld_recall(rec, &r, &resp, &e);
  if (!EG_CHECK(rc == EG_OK)) fprintf(stderr, "  recall: %s\n", e.msg);
  return resp;
}

/* Nothing of bob's in any item or in the context block. */
static int bobs_in_recall(const Engram__V1__RecallResponse *r) {
  int n = 0;
  if (!r) return -1;
  const char *after_question =
      r->context ? strchr(r->context, '\n') : NULL; /* the first line repeats it */
  n += bobs_text(after_question);
  for (size_t i = 0; i < r->n_items; i++) {
    const Engram__V1__RecallItem *it = r->items[i];
    int bobs = bobs_text(it->text) || bobs_text(it->latent) || bobs_edge(it->fact) ||
               bobs_edge(it->superseding);
    for (size_t h = 0; h < it->n_history; h++) bobs += bobs_edge(it->history[h]);
    for (size_t p = 0; it->path && p < it->path->n_edges; p++)
      bobs += bobs_edge(it->path->edges[p]);
    if (bobs) fprintf(stderr, "  item %zu of bob's: %s\n", i, it->text);
    n += bobs;
  }
  return n;
}

static void test_recall_streams(void) {
  static const char bob_words[] = BOB_MARK " Acme Okafor river";
  const char *qs[] = {"Where do I live?",
                      "Who is my doctor in Lisbon?",
                      "Where does Maya Patel work?",
                      "What do I know about Lisbon and Maya Patel?",
                      bob_words,
                      "Where does Maya Patel live?"};
  for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
    Engram__V1__RecallResponse *r = recall("alice", qs[i], 0, 0);
    if (!EG_CHECK(bobs_in_recall(r) == 0)) fprintf(stderr, "  question: %s\n", qs[i]);
    if (i == 0) { /* alice's own fact and her own excerpt, not bob's */
      bool own_fact = false, own_chunk = false;
      for (size_t j = 0; r && j < r->n_items; j++) {
        own_fact |= r->items[j]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT &&
                    strstr(r->items[j]->text, "Lisbon");
        own_chunk |= r->items[j]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK &&
                     strstr(r->items[j]->text, "Lisbon in March");
      }
      EG_CHECK(own_fact);
      EG_CHECK(own_chunk);
    }
    if (i == 5) { /* the shared fact, unchanged in alice's view (bob's Faro is his) */
      bool porto = false;
      for (size_t j = 0; r && j < r->n_items; j++)
        if (r->items[j]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT &&
            strstr(r->items[j]->text, "Porto"))
          porto = r->items[j]->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_SUPERSEDED;
      EG_CHECK(porto);
    }
    if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  }
  /* bob's own view still holds all of it */
  Engram__V1__RecallResponse *r = recall("bob", "Who is my doctor in Lisbon?", 0, 0);
  EG_CHECK(r && strstr(r->context, "Okafor") != NULL);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
}

static Engram__V1__Edge **state_values(const char *user, const char *subject, const char *relation,
                                       size_t *n, ProtobufCMessage **owned) {
  Engram__V1__Scope s = scope_of(user, NULL, false);
  Engram__V1__EntityRef ref = ENGRAM__V1__ENTITY_REF__INIT;
  ref.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  ref.name = (char *)subject;
  Engram__V1__StateQuery q = ENGRAM__V1__STATE_QUERY__INIT, *qp[] = {&q};
  q.subject = &ref;
  q.relation = (char *)(relation ? relation : "");
  Engram__V1__StateRequest r = ENGRAM__V1__STATE_REQUEST__INIT;
  r.scope = &s;
  r.queries = qp;
  r.n_queries = 1;
  eg_err e;
  *n = 0;
  *owned = NULL;
  Engram__V1__StateResponse *sr = NULL;
  if (!EG_CHECK(eg_graphd_state(gra, &r, &sr, &e) == EG_OK)) return NULL;
  *owned = &sr->base;
  static Engram__V1__Edge *all[64];
  for (size_t i = 0; i < sr->n_results; i++)
    for (size_t j = 0; j < sr->results[i]->n_values && *n < 64; j++)
      all[(*n)++] = sr->results[i]->values[j];
  return all;
}

static void test_graph_reads(void) {
  ProtobufCMessage *o;
  size_t n;
  /* State: bob's user entity is an entity like any other, his edges are not alice's */
  state_values("alice", "user:bob", NULL, &n, &o);
  EG_CHECK_INT(n, 0);
  if (o) protobuf_c_message_free_unpacked(o, NULL);
  Engram__V1__Edge **v = state_values("alice", "Maya Patel", "WORKS_AT", &n, &o);
  EG_CHECK(n == 1 && v &&
           strcmp(v[0]->object_name, "Globex") == 0); /* bob's later Acme is not hers */
  if (o) protobuf_c_message_free_unpacked(o, NULL);
  v = state_values("alice", "Maya Patel", "LIVES_IN", &n, &o);
  EG_CHECK(n == 1 && v &&
           strcmp(v[0]->object_name, "Porto") == 0); /* shared, and bob's Faro does not supersede */
  if (o) protobuf_c_message_free_unpacked(o, NULL);
  v = state_values("bob", "Maya Patel", "LIVES_IN", &n, &o);
  EG_CHECK(n == 1 && v && strcmp(v[0]->object_name, "Faro") == 0);
  if (o) protobuf_c_message_free_unpacked(o, NULL);
  v = state_values(NULL, "Maya Patel", "WORKS_AT", &n,
                   &o); /* the tenant's view: the latest of both */
  EG_CHECK(n == 1 && v && strcmp(v[0]->object_name, "Acme") == 0);
  if (o) protobuf_c_message_free_unpacked(o, NULL);

  Engram__V1__Scope s = scope_of("alice", NULL, false);
  Engram__V1__EntityRef maya = ENGRAM__V1__ENTITY_REF__INIT, lisbon = ENGRAM__V1__ENTITY_REF__INIT;
  maya.ref_case = lisbon.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  maya.name = "Maya Patel";
  lisbon.name = "Lisbon";
  eg_err e;
  /* History */
  Engram__V1__HistoryRequest h = ENGRAM__V1__HISTORY_REQUEST__INIT;
  h.scope = &s;
  h.subject = &maya;
  Engram__V1__HistoryResponse *hr = NULL;
  EG_REQUIRE(eg_graphd_history(gra, &h, &hr, &e) == EG_OK);
  EG_CHECK(hr->n_entries >= 3); /* Porto, Globex, the neighbour claim */
  for (size_t i = 0; i < hr->n_entries; i++) {
    EG_CHECK(!bobs_edge(hr->entries[i]->edge));
    EG_CHECK(!hr->entries[i]->superseded || hr->entries[i]->superseded_by != bob_lives_faro);
  }
  protobuf_c_message_free_unpacked(&hr->base, NULL);
  /* Traverse from the shared city and the shared person, both ways, deep */
  Engram__V1__EntityRef *seeds[] = {&lisbon, &maya};
  Engram__V1__TraverseRequest t = ENGRAM__V1__TRAVERSE_REQUEST__INIT;
  t.scope = &s;
  t.seeds = seeds;
  t.n_seeds = 2;
  t.max_depth = 4;
  t.direction = ENGRAM__V1__DIRECTION__DIRECTION_BOTH;
  Engram__V1__TraverseResponse *tr = NULL;
  EG_REQUIRE(eg_graphd_traverse(gra, &t, &tr, &e) == EG_OK);
  EG_CHECK(tr->n_paths >= 2); /* alice LIVES_IN Lisbon, Maya's shared and alice's edges */
  for (size_t i = 0; i < tr->n_paths; i++)
    for (size_t j = 0; j < tr->paths[i]->n_edges; j++)
      if (!EG_CHECK(!bobs_edge(tr->paths[i]->edges[j])))
        fprintf(stderr, "  path edge %s %s\n", tr->paths[i]->edges[j]->subject_name,
                tr->paths[i]->edges[j]->relation);
  for (size_t i = 0; i < tr->n_entities; i++)
    EG_CHECK(strcmp(tr->entities[i]->name, "user:bob") != 0);
  protobuf_c_message_free_unpacked(&tr->base, NULL);
  /* Walk: bob's edges are not found for alice; alice's claim is not stale by bob's change */
  uint64_t claims[] = {bob_works, bob_lisboa, bob_lives_faro};
  for (size_t i = 0; i < 3; i++) {
    Engram__V1__WalkRequest w = ENGRAM__V1__WALK_REQUEST__INIT;
    w.scope = &s;
    w.claims = &claims[i];
    w.n_claims = 1;
    EG_CHECK_INT(eg_graphd_walk(gra, &w, NULL, &e), EG_ENOTFOUND);
  }
  Engram__V1__WalkRequest w = ENGRAM__V1__WALK_REQUEST__INIT;
  w.scope = &s;
  w.claims = &alice_claim;
  w.n_claims = 1;
  Engram__V1__WalkResponse *wr = NULL;
  EG_REQUIRE(eg_graphd_walk(gra, &w, &wr, &e) == EG_OK);
  EG_CHECK_INT(wr->statuses[0]->status, ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNVERIFIED);
  protobuf_c_message_free_unpacked(&wr->base, NULL);
  /* in the tenant's view bob's Faro did change the premise */
  EG_CHECK_INT(gc_walk(gra, TEN, alice_claim, 0, 0, 0, NULL, NULL, NULL),
               ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  /* Changes: every commit of the tenant, as alice */
  Engram__V1__ChangesRequest c = ENGRAM__V1__CHANGES_REQUEST__INIT;
  c.scope = &s;
  c.limit = 1000;
  Engram__V1__ChangesResponse *cr = NULL;
  EG_REQUIRE(eg_graphd_changes(gra, &c, &cr, &e) == EG_OK);
  EG_CHECK(cr->n_edges >= 4);
  for (size_t i = 0; i < cr->n_edges; i++) EG_CHECK(!bobs_edge(cr->edges[i]));
  protobuf_c_message_free_unpacked(&cr->base, NULL);
}

static Engram__V1__SearchResponse *search(const char *user, const char *agent,
                                          const char *filter_user, const char *text,
                                          int64_t valid_at, int64_t known_at, eg_code *code) {
  Engram__V1__Scope s = scope_of(user, agent, false);
  Engram__V1__SearchQuery q = ENGRAM__V1__SEARCH_QUERY__INIT, *qp[] = {&q};
  q.text = (char *)text;
  Engram__V1__SearchFilter f = ENGRAM__V1__SEARCH_FILTER__INIT;
  f.user = (char *)(filter_user ? filter_user : "");
  f.valid_at = valid_at;
  f.known_at = known_at;
  Engram__V1__SearchRequest r = ENGRAM__V1__SEARCH_REQUEST__INIT;
  r.scope = &s;
  r.queries = qp;
  r.n_queries = 1;
  r.k = 50;
  r.filter = &f;
  r.include_content = true;
  Engram__V1__SearchResponse *resp = NULL;
  eg_err e;
  *code = eg_vectord_search(vec, &r, &resp, &e);
  return resp;
}

/* Hits whose content holds needle. */
static int hits_with(const Engram__V1__SearchResponse *r, const char *needle) {
  int n = 0;
  for (size_t i = 0; r && i < r->n_results; i++)
    for (size_t j = 0; j < r->results[i]->n_hits; j++)
      n += r->results[i]->hits[j]->chunk &&
           strstr(r->results[i]->hits[j]->chunk->content, needle) != NULL;
  return n;
}

static void test_vector_reads(void) {
  eg_code code;
  /* bob's chunk ids, from his own view */
  Engram__V1__SearchResponse *bob = search("bob", NULL, NULL, BOB_MARK, 0, 0, &code);
  EG_REQUIRE(code == EG_OK && hits_with(bob, BOB_MARK) >= 2);
  /* alice, by scope, by filter, and both: nothing of his */
  Engram__V1__SearchResponse *r =
      search("alice", NULL, NULL, BOB_MARK " Okafor Lisbon", 0, 0, &code);
  EG_CHECK_INT(code, EG_OK);
  EG_CHECK_INT(hits_with(r, BOB_MARK), 0);
  EG_CHECK(hits_with(r, "Lisbon in March") == 1 &&
           hits_with(r, "sharedquokka") == 1); /* hers, and the tenant's */
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  r = search("alice", NULL, "bob", BOB_MARK, 0, 0, &code);
  EG_CHECK_INT(code, EG_EPERM);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  r = search(NULL, NULL, "alice", BOB_MARK " Lisbon", 0, 0,
             &code); /* the filter names alice: her view */
  EG_CHECK(code == EG_OK && hits_with(r, BOB_MARK) == 0 && hits_with(r, "Lisbon in March") == 1);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  r = search(NULL, NULL, NULL, BOB_MARK, 0, 0, &code); /* the tenant's view */
  EG_CHECK(code == EG_OK && hits_with(r, BOB_MARK) >= 2);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  /* GetChunks of bob's ids, with session neighbours (alice has a session of the same id) */
  uint64_t ids[8];
  size_t n = 0;
  for (size_t j = 0; j < bob->results[0]->n_hits && n < 8; j++)
    if (bobs_text(bob->results[0]->hits[j]->chunk->content))
      ids[n++] = bob->results[0]->hits[j]->chunk->id;
  protobuf_c_message_free_unpacked(&bob->base, NULL);
  Engram__V1__Scope s = scope_of("alice", NULL, false);
  /* graphd's links from bob's chunks to the entities they mention: his, not hers */
  for (int as_bob = 0; as_bob < 2; as_bob++) {
    Engram__V1__Scope who = scope_of(as_bob ? "bob" : "alice", NULL, false);
    Engram__V1__ChunkEntitiesRequest ce = ENGRAM__V1__CHUNK_ENTITIES_REQUEST__INIT;
    ce.scope = &who;
    ce.chunk_ids = ids;
    ce.n_chunk_ids = n;
    Engram__V1__ChunkEntitiesResponse *o = NULL;
    eg_err e2;
    EG_REQUIRE(eg_graphd_chunk_entities(gra, &ce, &o, &e2) == EG_OK);
    size_t links = 0;
    for (size_t i = 0; i < o->n_chunks; i++) links += o->chunks[i]->n_entity_ids;
    if (!EG_CHECK(as_bob ? links > 0 : links == 0))
      fprintf(stderr, "  as %s: %zu links of %zu chunks\n", as_bob ? "bob" : "alice", links, n);
    protobuf_c_message_free_unpacked(&o->base, NULL);
  }
  Engram__V1__GetChunksRequest g = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  g.scope = &s;
  g.ids = ids;
  g.n_ids = n;
  g.neighbours = 5;
  Engram__V1__GetChunksResponse *resp = NULL;
  eg_err e;
  EG_REQUIRE(eg_vectord_get_chunks(vec, &g, &resp, &e) == EG_OK);
  Engram__V1__GetChunksResponse *gr = resp;
  for (size_t i = 0; i < gr->n_chunks; i++) EG_CHECK(!bobs_text(gr->chunks[i]->content));
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  /* alice's own chunk of "same-sid": its neighbours are hers only */
  r = search("alice", NULL, NULL, "Lisbon in March", 0, 0, &code);
  EG_REQUIRE(code == EG_OK && r->results[0]->n_hits > 0);
  uint64_t own = r->results[0]->hits[0]->chunk->id;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  g.ids = &own;
  g.n_ids = 1;
  EG_REQUIRE(eg_vectord_get_chunks(vec, &g, &resp, &e) == EG_OK);
  gr = resp;
  EG_CHECK(gr->n_chunks >= 1);
  for (size_t i = 0; i < gr->n_chunks; i++) EG_CHECK(!bobs_text(gr->chunks[i]->content));
  protobuf_c_message_free_unpacked(&resp->base, NULL);
}

static void test_private_agent(void) {
  session("alice", "planner", true, "priv-1", "2024-04-01T09:00:00Z",
          "My privatewombat plan is to learn the cello.");
  eg_code code;
  Engram__V1__SearchResponse *r =
      search("alice", "planner", NULL, "privatewombat cello", 0, 0, &code);
  EG_CHECK(code == EG_OK && hits_with(r, "privatewombat") == 1);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  const char *others[] = {"coach", NULL};
  for (size_t i = 0; i < 2; i++) {
    r = search("alice", others[i], NULL, "privatewombat cello", 0, 0, &code);
    EG_CHECK(code == EG_OK && hits_with(r, "privatewombat") == 0);
    if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  }
  r = search(NULL, NULL, NULL, "privatewombat cello", 0, 0, &code); /* not even the tenant's view */
  EG_CHECK(code == EG_OK && hits_with(r, "privatewombat") == 0);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* Chunks are bounded like facts: valid_at by the session's date, known_at by storage. */
static void test_time_bounds(void) {
  session("tim", NULL, false, "pet-1", "2023-01-10T09:00:00Z",
          "I adopted a cat named Miso from the shelter.");
  int64_t between = eg_time_now_us();
  usleep(20000);
  session("tim", NULL, false, "pet-2", "2024-05-01T09:00:00Z",
          "I adopted a dog named Rex from the shelter.");
  eg_code code;
  Engram__V1__SearchResponse *r =
      search("tim", NULL, NULL, "adopted shelter", T("2023-06-01"), 0, &code);
  EG_CHECK(code == EG_OK && hits_with(r, "Miso") == 1 && hits_with(r, "Rex") == 0);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  /* dated by day: a session later on valid_at's own day is not after it; the day before is */
  r = search("tim", NULL, NULL, "adopted shelter", T("2024-05-01T08:00:00Z"), 0, &code);
  EG_CHECK(code == EG_OK && hits_with(r, "Rex") == 1);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  r = search("tim", NULL, NULL, "adopted shelter", T("2024-04-30T23:59:00Z"), 0, &code);
  EG_CHECK(code == EG_OK && hits_with(r, "Rex") == 0);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  r = search("tim", NULL, NULL, "adopted shelter", 0, between, &code);
  EG_CHECK(code == EG_OK && hits_with(r, "Miso") == 1 && hits_with(r, "Rex") == 0);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  r = search("tim", NULL, NULL, "adopted shelter", 0, T("2020-01-01"), &code);
  EG_CHECK(code == EG_OK && hits_with(r, "adopted") == 0);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  r = search("tim", NULL, NULL, "adopted shelter", -1, 0, &code);
  EG_CHECK_INT(code, EG_EINVAL);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  /* Recall: as of mid-2023 the dog is not context; with what was known before it was
   * said, neither; with nothing known in 2020, nothing relevant */
  struct {
    int64_t valid_at, known_at;
    bool miso, rex;
  } cases[] = {{T("2023-06-01"), 0, true, false},
               {0, between, true, false},
               {0, 0, true, true},
               {0, T("2020-01-01"), false, false}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Engram__V1__RecallResponse *rr = recall("tim", "Which pet did I adopt from the shelter?",
                                            cases[i].valid_at, cases[i].known_at);
    bool miso = false, rex = false;
    for (size_t j = 0; rr && j < rr->n_items; j++) {
      miso |= strstr(rr->items[j]->text, "Miso") != NULL;
      rex |= strstr(rr->items[j]->text, "Rex") != NULL;
    }
    if (!EG_CHECK(miso == cases[i].miso && rex == cases[i].rex)) fprintf(stderr, "  case %zu\n", i);
    if (i == 3) EG_CHECK(rr && rr->nothing_relevant);
    if (rr) protobuf_c_message_free_unpacked(&rr->base, NULL);
  }
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_recall_streams);
  EG_RUN(test_graph_reads);
  EG_RUN(test_vector_reads);
  EG_RUN(test_private_agent);
  EG_RUN(test_time_bounds);
  int rc = eg_test_finish();
  eg_rpc_client_close(ing);
  eg_rpc_client_close(gra);
  eg_rpc_client_close(vec);
  eg_rpc_client_close(rec);
  eg_cluster_stop(&cl, rc != 0);
  eg_rpc_global_shutdown();
  return rc;
}
