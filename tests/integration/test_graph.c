/*
 * test_graph.c — graphd scenarios over real gRPC and a real RocksDB. Each case states
 * the story and the expected answer on both time axes. Transaction times are replayed
 * with import_mode so that "what was known on <date>" can be asked.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/time.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/testlib.h"

#define STALE ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE
#define UNVERIFIED ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNVERIFIED
#define CORROBORATED ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_CORROBORATED
#define SUPERSEDED ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_SUPERSEDED

static char *dir;
static eg_proc graphd;
static eg_rpc_client *cl;

static uint64_t commit(const char *tenant, eg_edge_spec s) {
  return gc_commit_said(cl, tenant, "u1", &s);
}

static void test_start(void) {
  dir = eg_test_tempdir("graph");
  eg_err e;
  EG_REQUIRE(eg_harness_start("graphd", dir, NULL, &graphd, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(graphd.addr, NULL, &cl, &e) == EG_OK);
}

/* omnivore (2021) → reducing red meat (2024-03) → vegan (2025-10). */
static void test_diet(void) {
  const char *t = "diet";
  uint64_t a = commit(t, (eg_edge_spec){.subject = "Alex",
                                        .relation = "DIET",
                                        .literal = "omnivore",
                                        .valid_from = T("2021-01-01"),
                                        .t_commit = T("2021-01-05"),
                                        .reason = "grew up eating everything"});
  uint64_t b = commit(t, (eg_edge_spec){.subject = "Alex",
                                        .relation = "DIET",
                                        .literal = "reducing red meat",
                                        .valid_from = T("2024-03-01"),
                                        .t_commit = T("2024-03-10"),
                                        .reason = "doctor's advice"});
  uint64_t c = commit(t, (eg_edge_spec){.subject = "alex",
                                        .relation = "DIET",
                                        .literal = "vegan",
                                        .valid_from = T("2025-10-01"),
                                        .t_commit = T("2025-10-03"),
                                        .reason = "animal welfare"});
  EG_REQUIRE(a && b && c);
  EG_CHECK_STR(gc_value(cl, t, "Alex", "DIET", 0, 0), "vegan");                  /* now */
  EG_CHECK_STR(gc_value(cl, t, "ALEX", "DIET", T("2023-06-01"), 0), "omnivore"); /* in 2023 */
  EG_CHECK_STR(gc_value(cl, t, "Alex", "DIET", T("2024-03-01"), 0), "reducing red meat");
  EG_CHECK_STR(gc_value(cl, t, "Alex", "DIET", T("2020-06-01"), 0), ""); /* before any */
  /* What was known on 2024-04-01 about the present: the March change, not October's. */
  EG_CHECK_STR(gc_value(cl, t, "Alex", "DIET", 0, T("2024-04-01")), "reducing red meat");
  EG_CHECK_STR(gc_value(cl, t, "Alex", "DIET", 0, T("2024-03-05")), "omnivore");
  /* History: both transitions, with their reasons, Git parents in order. */
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)t;
  Engram__V1__EntityRef subj = ENGRAM__V1__ENTITY_REF__INIT;
  subj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  subj.name = "Alex";
  Engram__V1__HistoryRequest hr = ENGRAM__V1__HISTORY_REQUEST__INIT;
  hr.scope = &scope;
  hr.subject = &subj;
  hr.relation = "DIET";
  Engram__V1__HistoryResponse *resp;
  eg_err e;
  eg_code hrc = eg_graphd_history(cl, &hr, &resp, &e);
  if (hrc) fprintf(stderr, "History: %s\n", e.msg);
  EG_REQUIRE(hrc == EG_OK);
  Engram__V1__HistoryResponse *h = resp;
  EG_REQUIRE(h->n_entries == 3);
  EG_CHECK_INT(h->entries[0]->edge->id, a);
  EG_CHECK(h->entries[0]->superseded);
  EG_CHECK_INT(h->entries[0]->superseded_by, b);
  EG_CHECK_INT(h->entries[1]->superseded_by, c);
  EG_CHECK(!h->entries[2]->superseded);
  EG_CHECK_STR(h->entries[1]->edge->meta->reason, "doctor's advice");
  EG_CHECK_STR(h->entries[2]->edge->meta->reason, "animal welfare");
  EG_CHECK_INT(h->entries[0]->edge->parent, 0);
  EG_CHECK_INT(h->entries[1]->edge->parent, a);
  EG_CHECK_INT(h->entries[2]->edge->parent, b);
  EG_CHECK(h->entries[2]->edge->imported);
  EG_CHECK_STR(h->entries[2]->edge->subject_name, "Alex"); /* one entity despite "alex" */
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  /* Known as of 2024-04-01, History does not show October's commit. */
  hr.known_at = T("2024-04-01");
  EG_REQUIRE(eg_graphd_history(cl, &hr, &resp, &e) == EG_OK);
  EG_CHECK_INT(resp->n_entries, 2);
  protobuf_c_message_free_unpacked(&resp->base, NULL);
}

/* Told in March 2025 that the move to London happened the previous October. */
static void test_late_report(void) {
  const char *t = "late";
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Sam",
                                      .relation = "LIVES_IN",
                                      .object = "Paris",
                                      .valid_from = T("2019-05-01"),
                                      .t_commit = T("2019-05-02")}));
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Sam",
                                      .relation = "LIVES_IN",
                                      .object = "London",
                                      .valid_from = T("2024-10-01"),
                                      .t_commit = T("2025-03-10"),
                                      .reason = "moved for a new job"}));
  /* December 2024 as known in January 2025: still Paris (the move was not reported). */
  EG_CHECK_STR(gc_value(cl, t, "Sam", "LIVES_IN", T("2024-12-01"), T("2025-01-01")), "Paris");
  /* December 2024 as known now: London (valid time ≠ transaction time). */
  EG_CHECK_STR(gc_value(cl, t, "Sam", "LIVES_IN", T("2024-12-01"), 0), "London");
  EG_CHECK_STR(gc_value(cl, t, "Sam", "LIVES_IN", T("2024-09-01"), 0), "Paris");
  EG_CHECK_STR(gc_value(cl, t, "Sam", "LIVES_IN", 0, T("2025-02-01")), "Paris");
  EG_CHECK_STR(gc_value(cl, t, "Sam", "LIVES_IN", 0, 0), "London");
  /* Changes between February and April 2025: exactly the late report. */
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)t;
  Engram__V1__TimeRange w = ENGRAM__V1__TIME_RANGE__INIT;
  w.from = T("2025-02-01");
  w.to = T("2025-04-01");
  Engram__V1__ChangesRequest cr = ENGRAM__V1__CHANGES_REQUEST__INIT;
  cr.scope = &scope;
  cr.window = &w;
  Engram__V1__ChangesResponse *resp;
  eg_err e;
  EG_REQUIRE(eg_graphd_changes(cl, &cr, &resp, &e) == EG_OK);
  Engram__V1__ChangesResponse *ch = resp;
  EG_REQUIRE(ch->n_edges == 1);
  EG_CHECK_STR(ch->edges[0]->object_name, "London");
  EG_CHECK_STR(ch->edges[0]->meta->reason, "moved for a new job");
  protobuf_c_message_free_unpacked(&resp->base, NULL);
}

static void test_retract_valid_to_many_ties(void) {
  const char *t = "misc";
  /* MANY values coexist; a retraction removes only its object. */
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Kim",
                                      .relation = "HAS_PET",
                                      .literal = "dog",
                                      .valid_from = T("2020-01-01")}));
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Kim",
                                      .relation = "HAS_PET",
                                      .literal = "cat",
                                      .valid_from = T("2021-01-01")}));
  EG_CHECK_STR(gc_value(cl, t, "Kim", "HAS_PET", 0, 0), "?"); /* two values */
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Kim",
                                      .relation = "HAS_PET",
                                      .literal = "dog",
                                      .retract = true,
                                      .valid_from = T("2023-05-01")}));
  EG_CHECK_STR(gc_value(cl, t, "Kim", "HAS_PET", 0, 0), "cat");
  EG_CHECK_STR(gc_value(cl, t, "Kim", "HAS_PET", T("2022-01-01"), 0), "?"); /* dog still there */
  /* ONE: a retraction leaves no value (not the previous one). */
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Kim",
                                      .relation = "WORKS_AT",
                                      .object = "Acme",
                                      .valid_from = T("2019-01-01")}));
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Kim",
                                      .relation = "WORKS_AT",
                                      .object = "Globex",
                                      .valid_from = T("2021-01-01")}));
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Kim",
                                      .relation = "WORKS_AT",
                                      .retract = true,
                                      .valid_from = T("2024-01-01"),
                                      .reason = "laid off"}));
  EG_CHECK_STR(gc_value(cl, t, "Kim", "WORKS_AT", 0, 0), "");
  EG_CHECK_STR(gc_value(cl, t, "Kim", "WORKS_AT", T("2022-01-01"), 0), "Globex");
  /* A retraction of another object does not touch the current value. */
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Kim",
                                      .relation = "LIVES_IN",
                                      .object = "Oslo",
                                      .valid_from = T("2020-01-01")}));
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Kim",
                                      .relation = "LIVES_IN",
                                      .object = "Rome",
                                      .retract = true,
                                      .valid_from = T("2022-01-01")}));
  EG_CHECK_STR(gc_value(cl, t, "Kim", "LIVES_IN", 0, 0), "Oslo");
  /* valid_to ends a value. */
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Kim",
                                      .relation = "JOB_TITLE",
                                      .literal = "intern",
                                      .valid_from = T("2018-06-01"),
                                      .valid_to = T("2018-09-01")}));
  EG_CHECK_STR(gc_value(cl, t, "Kim", "JOB_TITLE", T("2018-07-01"), 0), "intern");
  EG_CHECK_STR(gc_value(cl, t, "Kim", "JOB_TITLE", T("2018-09-01"), 0), ""); /* exclusive end */
  /* Tie on valid time: the later commit wins. */
  EG_REQUIRE(commit(
      t, (eg_edge_spec){
             .subject = "Kim", .relation = "AGE", .literal = "30", .valid_from = T("2024-01-01")}));
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Kim",
                                      .relation = "AGE",
                                      .literal = "31",
                                      .valid_from = T("2024-01-01"),
                                      .reason = "correction"}));
  EG_CHECK_STR(gc_value(cl, t, "Kim", "AGE", 0, 0), "31");
  /* State with an empty relation lists every relation of the subject. */
  Engram__V1__StateResponse *r;
  eg_err e;
  EG_REQUIRE(gc_state(cl, t, "Kim", "", 0, 0, &r, &e) == EG_OK);
  EG_CHECK_INT(r->n_results, 5); /* HAS_PET WORKS_AT LIVES_IN JOB_TITLE AGE */
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* Unknown subject, unknown tenant: empty, not an error. */
  EG_CHECK_STR(gc_value(cl, t, "Nobody", "AGE", 0, 0), "");
  EG_CHECK_STR(gc_value(cl, "no-such-tenant", "Kim", "AGE", 0, 0), "");
}

/* CEO change → chief of staff → signing authority. */
static void test_premise_walk(void) {
  const char *t = "walk";
  uint64_t ceo = commit(t, (eg_edge_spec){.subject = "Tim Cook",
                                          .relation = "CEO_OF",
                                          .object = "Apple",
                                          .valid_from = T("2011-08-24"),
                                          .t_commit = T("2011-08-25")});
  uint64_t cos = commit(t, (eg_edge_spec){.subject = "Maya Patel",
                                          .relation = "JOB_TITLE",
                                          .literal = "chief of staff to the CEO",
                                          .valid_from = T("2024-01-01"),
                                          .t_commit = T("2024-01-02"),
                                          .premises = &ceo,
                                          .n_premises = 1});
  uint64_t sig = commit(t, (eg_edge_spec){.subject = "Maya Patel",
                                          .relation = "HAS_AUTHORITY",
                                          .literal = "signing authority",
                                          .valid_from = T("2024-02-01"),
                                          .t_commit = T("2024-02-01"),
                                          .premises = &cos,
                                          .n_premises = 1});
  EG_REQUIRE(ceo && cos && sig);
  EG_CHECK_INT(gc_walk(cl, t, sig, 0, 0, 0, NULL, NULL, NULL),
               UNVERIFIED); /* nothing changed yet */
  uint64_t sarah = commit(t, (eg_edge_spec){.subject = "Sarah Chen",
                                            .relation = "CEO_OF",
                                            .object = "Apple",
                                            .valid_from = T("2025-06-01"),
                                            .t_commit = T("2025-06-01")});
  EG_REQUIRE(sarah);
  uint64_t sup = 0;
  size_t chain = 0;
  /* Asked now: stale, because of Sarah Chen's commit, two links down. */
  EG_CHECK_INT(gc_walk(cl, t, sig, 0, 0, 0, &sup, NULL, &chain), STALE);
  EG_CHECK_INT(sup, sarah);
  EG_CHECK_INT(chain, 2);
  /* Asked about January 2025: the change is valid after valid_at — not stale. */
  EG_CHECK_INT(gc_walk(cl, t, sig, T("2025-01-15"), 0, 0, NULL, NULL, NULL), UNVERIFIED);
  /* Asked with knowledge of May 2025: the change was committed later — not stale. */
  EG_CHECK_INT(gc_walk(cl, t, sig, 0, T("2025-05-01"), 0, NULL, NULL, NULL), UNVERIFIED);
  /* Tim Cook's own CEO_OF is superseded (one CEO per company), Sarah's is current. */
  EG_CHECK_STR(gc_value(cl, t, "Tim Cook", "CEO_OF", 0, 0), "");
  EG_CHECK_STR(gc_value(cl, t, "Tim Cook", "CEO_OF", T("2020-01-01"), 0), "Apple");
  EG_CHECK_STR(gc_value(cl, t, "Sarah Chen", "CEO_OF", 0, 0), "Apple");
  EG_CHECK_INT(gc_walk(cl, t, ceo, 0, 0, 0, &sup, NULL, NULL), SUPERSEDED);
  EG_CHECK_INT(sup, sarah);
  /* Unknown and foreign claim ids: NOT_FOUND, the same answer for both. */
  EG_CHECK_INT(gc_walk(cl, t, 999999, 0, 0, 0, NULL, NULL, NULL), -EG_ENOTFOUND);
  EG_CHECK_INT(gc_walk(cl, "tenant-that-never-wrote", sig, 0, 0, 0, NULL, NULL, NULL),
               -EG_ENOTFOUND);
}

/* A chain deeper than the cap: not found, links counted; found with a deeper cap. */
/* Walk with history_limit: each claim's status carries History's answer for its subject and
 * relation (the same commits in the same order, the limit keeping the latest), claims of
 * one chain alike; without it, none. */
static void walk_ids(uint64_t *claims, size_t n, uint32_t limit, size_t *lens, uint64_t ids[][4]) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "walkhist";
  Engram__V1__WalkRequest req = ENGRAM__V1__WALK_REQUEST__INIT;
  req.scope = &scope;
  req.claims = claims;
  req.n_claims = n;
  req.history_limit = limit;
  Engram__V1__WalkResponse *resp = NULL;
  eg_err e;
  EG_REQUIRE(eg_graphd_walk(cl, &req, &resp, &e) == EG_OK && resp->n_statuses == n);
  for (size_t i = 0; i < n; i++) {
    lens[i] = resp->statuses[i]->n_history;
    for (size_t j = 0; j < lens[i] && j < 4; j++)
      ids[i][j] = resp->statuses[i]->history[j]->edge->id;
  }
  protobuf_c_message_free_unpacked(&resp->base, NULL);
}

static void test_walk_histories(void) {
  const char *t = "walkhist";
  uint64_t c[3];
  c[0] = commit(t, (eg_edge_spec){.subject = "Maya Patel",
                                  .relation = "JOB_TITLE",
                                  .literal = "analyst",
                                  .valid_from = T("2022-01-01"),
                                  .t_commit = T("2022-01-01")});
  c[1] = commit(t, (eg_edge_spec){.subject = "Maya Patel",
                                  .relation = "LIVES_IN",
                                  .literal = "Leeds",
                                  .valid_from = T("2022-02-01"),
                                  .t_commit = T("2022-02-01")});
  c[2] = commit(t, (eg_edge_spec){.subject = "Maya Patel",
                                  .relation = "JOB_TITLE",
                                  .literal = "chief of staff",
                                  .valid_from = T("2024-01-01"),
                                  .t_commit = T("2024-01-01")});
  EG_REQUIRE(c[0] && c[1] && c[2]);
  size_t lens[3];
  uint64_t ids[3][4];
  walk_ids(c, 3, 8, lens, ids);
  Engram__V1__HistoryResponse *h = NULL;
  eg_err e;
  EG_REQUIRE(gc_history(cl, t, "u1", "Maya Patel", "JOB_TITLE", 0, &h, &e) == EG_OK);
  EG_CHECK_INT(h->n_entries, 2);
  for (size_t i = 0; i < 3; i += 2) { /* both JOB_TITLE claims: History's two commits */
    EG_CHECK_INT(lens[i], h->n_entries);
    for (size_t j = 0; j < h->n_entries && j < lens[i]; j++)
      EG_CHECK_INT(ids[i][j], h->entries[j]->edge->id);
  }
  protobuf_c_message_free_unpacked(&h->base, NULL);
  EG_CHECK_INT(lens[1], 1);
  EG_CHECK_INT(ids[1][0], c[1]);
  walk_ids(c, 3, 1, lens, ids); /* the limit keeps the latest */
  EG_CHECK_INT(lens[0], 1);
  EG_CHECK_INT(ids[0][0], c[2]);
  walk_ids(c, 3, 0, lens, ids);
  EG_CHECK_INT(lens[0] + lens[1] + lens[2], 0);
}

static void test_walk_depth_cap(void) {
  const char *t = "deep";
  uint64_t prev = commit(t, (eg_edge_spec){.subject = "Base",
                                           .relation = "STATUS",
                                           .literal = "on",
                                           .valid_from = T("2020-01-01"),
                                           .t_commit = T("2020-01-01")});
  EG_REQUIRE(prev);
  char name[32];
  for (int i = 1; i <= 10; i++) {
    snprintf(name, sizeof name, "Node %d", i);
    uint64_t p = prev;
    prev = commit(t, (eg_edge_spec){.subject = name,
                                    .relation = "STATUS",
                                    .literal = "derived",
                                    .valid_from = T("2020-02-01"),
                                    .t_commit = T("2020-02-01") + i,
                                    .premises = &p,
                                    .n_premises = 1});
    EG_REQUIRE(prev);
  }
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Base",
                                      .relation = "STATUS",
                                      .literal = "off",
                                      .valid_from = T("2021-01-01"),
                                      .t_commit = T("2021-01-01")}));
  uint32_t skipped = 0;
  size_t chain = 0;
  EG_CHECK_INT(gc_walk(cl, t, prev, 0, 0, 3, NULL, &skipped, NULL), UNVERIFIED);
  EG_CHECK(skipped >= 1);
  EG_CHECK_INT(gc_walk(cl, t, prev, 0, 0, 16, NULL, &skipped, &chain), STALE);
  EG_CHECK_INT(chain, 10);
}

static void test_corroborated(void) {
  const char *t = "corr";
  uint64_t a = commit(t, (eg_edge_spec){.subject = "Lee",
                                        .relation = "LIKES",
                                        .literal = "jazz",
                                        .valid_from = T("2024-01-01"),
                                        .session = "s1"});
  EG_REQUIRE(a);
  EG_CHECK_INT(gc_walk(cl, t, a, 0, 0, 0, NULL, NULL, NULL), UNVERIFIED);
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Lee",
                                      .relation = "LIKES",
                                      .literal = "jazz",
                                      .valid_from = T("2024-02-01"),
                                      .session = "s1"}));
  EG_CHECK_INT(gc_walk(cl, t, a, 0, 0, 0, NULL, NULL, NULL), UNVERIFIED); /* same source */
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Lee",
                                      .relation = "LIKES",
                                      .literal = "jazz",
                                      .valid_from = T("2024-03-01"),
                                      .session = "s2"}));
  EG_CHECK_INT(gc_walk(cl, t, a, 0, 0, 0, NULL, NULL, NULL), CORROBORATED);
}

static size_t history_len(const char *t, const char *subject, const char *relation) {
  return gc_history_len(cl, t, subject, relation);
}

/* An identical assertion sent again is the edge already written; anything that differs
 * (valid time, meta, the writer's user) is a new commit. */
static void test_idempotent_facts(void) {
  const char *t = "idem";
  eg_edge_spec likes = {
      .subject = "Ana", .relation = "LIKES", .literal = "tea", .reason = "said so"};
  uint64_t a = commit(t, likes), b = commit(t, likes),
           c = commit(t, likes); /* valid_from left unset */
  EG_REQUIRE(a);
  EG_CHECK(a == b && b == c);
  EG_CHECK_INT(history_len(t, "Ana", "LIKES"), 1);
  eg_edge_spec dated = likes;
  dated.valid_from = T("2024-01-01");
  uint64_t d = commit(t, dated);
  EG_CHECK(d && d != a && commit(t, dated) == d);
  eg_edge_spec other_meta = dated;
  other_meta.reason = "said so again";
  uint64_t m = commit(t, other_meta);
  EG_CHECK(m && m != d);
  eg_err e;
  uint64_t u2 = gc_commit(cl, t, "u2", &dated, &e); /* another user's statement is theirs */
  EG_CHECK(u2 && u2 != d);
  EG_CHECK_INT(history_len(t, "Ana", "LIKES"), 4);
  /* Premises are part of it: the same claim from another premise is another commit. */
  uint64_t p1 =
      commit(t, (eg_edge_spec){.subject = "Ana", .relation = "WORKS_AT", .object = "Acme"});
  eg_edge_spec claim = {.subject = "Ana",
                        .relation = "HAS_BADGE",
                        .literal = "yes",
                        .premises = &p1,
                        .n_premises = 1};
  uint64_t c1 = commit(t, claim);
  EG_CHECK(c1 && commit(t, claim) == c1);
  /* In one batch: the repeat gets the first one's id. */
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)t;
  scope.user = "u1";
  Engram__V1__EntityRef subj = ENGRAM__V1__ENTITY_REF__INIT;
  subj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  subj.name = "Ana";
  Engram__V1__EdgeInput in = ENGRAM__V1__EDGE_INPUT__INIT, *ins[] = {&in, &in};
  in.subject = &subj;
  in.relation = "DIET";
  in.object_literal = "vegan";
  in.valid_from = T("2024-02-01");
  Engram__V1__CommitRequest cr = ENGRAM__V1__COMMIT_REQUEST__INIT;
  cr.scope = &scope;
  cr.edges = ins;
  cr.n_edges = 2;
  Engram__V1__CommitResponse *r = NULL;
  EG_REQUIRE(eg_graphd_commit(cl, &cr, &r, &e) == EG_OK);
  EG_CHECK(r->n_edge_ids == 2 && r->edge_ids[0] == r->edge_ids[1]);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_INT(history_len(t, "Ana", "DIET"), 1);
  /* After the user's erasure the same statement is new again (its identity went with it). */
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  scope.user = "u2";
  er.scope = &scope;
  EG_REQUIRE(eg_graphd_erase(cl, &er, NULL, &e) == EG_OK);
  uint64_t again = gc_commit(cl, t, "u2", &dated, &e);
  EG_CHECK(again && again != u2);
  EG_CHECK_INT(history_len(t, "Ana", "LIKES"), 4);
}

/* A rejected batch writes nothing: no edge, no entity. */
static void test_all_or_nothing(void) {
  const char *t = "atomic";
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)t;
  Engram__V1__EntityRef s1 = ENGRAM__V1__ENTITY_REF__INIT, s2 = ENGRAM__V1__ENTITY_REF__INIT;
  s1.ref_case = s2.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  s1.name = "Fresh Person";
  s2.name = "Another Person";
  Engram__V1__EdgeInput e1 = ENGRAM__V1__EDGE_INPUT__INIT, e2 = ENGRAM__V1__EDGE_INPUT__INIT;
  e1.subject = &s1;
  e1.relation = "LIKES";
  e1.object_literal = "tea";
  e2.subject = &s2;
  e2.relation = "LIKES";
  e2.object_literal = "coffee";
  uint64_t missing = 424242;
  e2.derived_from = &missing;
  e2.n_derived_from = 1;
  Engram__V1__EdgeInput *edges[2] = {&e1, &e2};
  Engram__V1__CommitRequest req = ENGRAM__V1__COMMIT_REQUEST__INIT;
  req.scope = &scope;
  req.edges = edges;
  req.n_edges = 2;
  Engram__V1__CommitResponse *resp = NULL;
  eg_err e;
  EG_CHECK_INT(eg_graphd_commit(cl, &req, &resp, &e), EG_ENOTFOUND);
  EG_CHECK(strstr(e.msg, "premise edge 424242 not found") != NULL);
  EG_CHECK_STR(gc_value(cl, t, "Fresh Person", "LIKES", 0, 0), "");
  /* The entity was not created either. */
  Engram__V1__EntityMention m = ENGRAM__V1__ENTITY_MENTION__INIT;
  m.name = "Fresh Person";
  Engram__V1__EntityMention *ms[1] = {&m};
  Engram__V1__ResolveEntitiesRequest rr = ENGRAM__V1__RESOLVE_ENTITIES_REQUEST__INIT;
  rr.scope = &scope;
  rr.mentions = ms;
  rr.n_mentions = 1;
  Engram__V1__ResolveEntitiesResponse *resolved = NULL;
  EG_REQUIRE(eg_graphd_resolve_entities(cl, &rr, &resolved, &e) == EG_OK);
  EG_CHECK_INT(resolved->entities[0]->entity->id, 0);
  protobuf_c_message_free_unpacked(&resolved->base, NULL);
  /* Bad inputs: clear INVALID_ARGUMENT. */
  e2.derived_from = NULL;
  e2.n_derived_from = 0;
  e2.relation = "not-snake";
  EG_CHECK_INT(eg_graphd_commit(cl, &req, &resp, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "edges[1]: relation must be UPPER_SNAKE") != NULL);
  e2.relation = "LIKES";
  e2.valid_from = T("2024-01-01");
  e2.valid_to = T("2023-01-01");
  EG_CHECK_INT(eg_graphd_commit(cl, &req, &resp, &e), EG_EINVAL);
  e2.valid_to = 0;
  e2.t_commit = T("2020-01-01");
  EG_CHECK_INT(eg_graphd_commit(cl, &req, &resp, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "t_commit is assigned by graphd") != NULL);
  e2.t_commit = 0;
  scope.tenant = "";
  EG_CHECK_INT(eg_graphd_commit(cl, &req, &resp, &e), EG_EINVAL);
  EG_CHECK_STR(e.msg, "scope.tenant is required");
  scope.tenant = (char *)t;
  s2.name = "!!!";
  EG_CHECK_INT(eg_graphd_commit(cl, &req, &resp, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "no letters or digits") != NULL);
  EG_CHECK_STR(gc_value(cl, t, "Fresh Person", "LIKES", 0, 0), "");
  /* And the valid batch goes through, with strictly increasing t_commit. */
  s2.name = "Another Person";
  EG_REQUIRE(eg_graphd_commit(cl, &req, &resp, &e) == EG_OK);
  int64_t t1 = resp->t_commit;
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  EG_REQUIRE(eg_graphd_commit(cl, &req, &resp, &e) == EG_OK);
  EG_CHECK(resp->t_commit > t1);
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  EG_CHECK_STR(gc_value(cl, t, "Fresh Person", "LIKES", 0, 0), "tea");
}

static void test_tenant_isolation(void) {
  /* Tenant "diet" has Alex; tenant "other" asks by name and by id. */
  EG_CHECK_STR(gc_value(cl, "other", "Alex", "DIET", 0, 0), "");
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "other";
  uint64_t ids[3] = {1, 2, 3};
  Engram__V1__GetEntitiesRequest gr = ENGRAM__V1__GET_ENTITIES_REQUEST__INIT;
  gr.scope = &scope;
  gr.ids = ids;
  gr.n_ids = 3;
  Engram__V1__GetEntitiesResponse *resp;
  eg_err e;
  EG_REQUIRE(eg_graphd_get_entities(cl, &gr, &resp, &e) == EG_OK);
  EG_CHECK_INT(resp->n_entities, 0);
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  EG_REQUIRE(
      commit("other", (eg_edge_spec){.subject = "Zed", .relation = "LIKES", .literal = "x"}));
  EG_REQUIRE(eg_graphd_get_entities(cl, &gr, &resp, &e) == EG_OK);
  Engram__V1__GetEntitiesResponse *ge = resp;
  EG_CHECK_INT(ge->n_entities, 1); /* only its own entity 1 */
  if (ge->n_entities) EG_CHECK_STR(ge->entities[0]->name, "Zed");
  protobuf_c_message_free_unpacked(&resp->base, NULL);
}

static void test_merge_and_traverse(void) {
  const char *t = "trav";
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Jo",
                                      .relation = "LIVES_IN",
                                      .object = "Paris",
                                      .valid_from = T("2015-01-01")}));
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Jo",
                                      .relation = "LIVES_IN",
                                      .object = "London",
                                      .valid_from = T("2022-01-01")}));
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "London",
                                      .relation = "LOCATED_IN",
                                      .object = "UK",
                                      .valid_from = T("1900-01-01")}));
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Paris",
                                      .relation = "LOCATED_IN",
                                      .object = "France",
                                      .valid_from = T("1900-01-01")}));
  EG_REQUIRE(
      commit(t, (eg_edge_spec){.subject = "Joanna", .relation = "LIKES", .literal = "opera"}));
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)t;
  Engram__V1__EntityRef seed = ENGRAM__V1__ENTITY_REF__INIT;
  seed.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  seed.name = "Jo";
  Engram__V1__EntityRef *seeds[1] = {&seed};
  Engram__V1__TraverseRequest tr = ENGRAM__V1__TRAVERSE_REQUEST__INIT;
  tr.scope = &scope;
  tr.seeds = seeds;
  tr.n_seeds = 1;
  tr.max_depth = 2;
  Engram__V1__TraverseResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(eg_graphd_traverse(cl, &tr, &r, &e) == EG_OK);
  EG_REQUIRE(r->n_paths == 2); /* Jo→London, Jo→London→UK (Paris is not current) */
  EG_CHECK_STR(r->paths[0]->edges[0]->object_name, "London");
  EG_CHECK_INT(r->paths[1]->n_edges, 2);
  EG_CHECK_STR(r->paths[1]->edges[1]->object_name, "UK");
  protobuf_c_message_free_unpacked(&r->base, NULL);
  tr.valid_at = T("2018-01-01"); /* valid-time filter at every hop */
  EG_REQUIRE(eg_graphd_traverse(cl, &tr, &r, &e) == EG_OK);
  EG_REQUIRE(r->n_paths == 2);
  EG_CHECK_STR(r->paths[1]->edges[1]->object_name, "France");
  protobuf_c_message_free_unpacked(&r->base, NULL);
  tr.valid_at = 0;
  tr.max_depth = 99;
  EG_CHECK_INT(eg_graphd_traverse(cl, &tr, NULL, &e), EG_EINVAL);
  /* Merge Joanna into Jo: State of Jo includes Joanna's edges; undo restores both. */
  Engram__V1__MergeEntitiesRequest mr = ENGRAM__V1__MERGE_ENTITIES_REQUEST__INIT;
  mr.scope = &scope;
  Engram__V1__StateResponse *st;
  EG_REQUIRE(gc_state(cl, t, "Jo", "LIVES_IN", 0, 0, &st, &e) == EG_OK);
  mr.into = st->results[0]->subject;
  protobuf_c_message_free_unpacked(&st->base, NULL);
  EG_REQUIRE(gc_state(cl, t, "Joanna", "LIKES", 0, 0, &st, &e) == EG_OK);
  mr.from = st->results[0]->subject;
  protobuf_c_message_free_unpacked(&st->base, NULL);
  mr.reason = "same person";
  Engram__V1__MergeEntitiesResponse *merged = NULL;
  EG_REQUIRE(eg_graphd_merge_entities(cl, &mr, &merged, &e) == EG_OK);
  uint64_t merge_id = merged->merge_id;
  protobuf_c_message_free_unpacked(&merged->base, NULL);
  EG_CHECK_STR(gc_value(cl, t, "Jo", "LIKES", 0, 0), "opera");
  EG_CHECK_STR(gc_value(cl, t, "Joanna", "LIVES_IN", 0, 0), "London"); /* name resolves to Jo */
  EG_CHECK_INT(eg_graphd_merge_entities(cl, &mr, NULL, &e), EG_EPRECOND);
  Engram__V1__UnmergeEntitiesRequest ur = ENGRAM__V1__UNMERGE_ENTITIES_REQUEST__INIT;
  ur.scope = &scope;
  ur.merge_id = merge_id;
  EG_REQUIRE(eg_graphd_unmerge_entities(cl, &ur, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(cl, t, "Jo", "LIKES", 0, 0), "");
  EG_CHECK_STR(gc_value(cl, t, "Joanna", "LIKES", 0, 0), "opera");
  EG_CHECK_INT(eg_graphd_unmerge_entities(cl, &ur, NULL, &e), EG_EPRECOND);
}

static void test_declare_relation(void) {
  const char *t = "decl";
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Ana",
                                      .relation = "FAVOURITE_COLOUR",
                                      .literal = "red",
                                      .valid_from = T("2020-01-01")}));
  EG_REQUIRE(commit(t, (eg_edge_spec){.subject = "Ana",
                                      .relation = "FAVOURITE_COLOUR",
                                      .literal = "blue",
                                      .valid_from = T("2021-01-01")}));
  EG_CHECK_STR(gc_value(cl, t, "Ana", "FAVOURITE_COLOUR", 0, 0), "?"); /* undeclared: MANY */
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)t;
  Engram__V1__DeclareRelationRequest dr = ENGRAM__V1__DECLARE_RELATION_REQUEST__INIT;
  dr.scope = &scope;
  dr.relation = "FAVOURITE_COLOUR";
  dr.cardinality = ENGRAM__V1__CARDINALITY__CARDINALITY_ONE;
  Engram__V1__DeclareRelationResponse *resp;
  eg_err e;
  EG_REQUIRE(eg_graphd_declare_relation(cl, &dr, &resp, &e) == EG_OK);
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  EG_CHECK_STR(gc_value(cl, t, "Ana", "FAVOURITE_COLOUR", 0, 0), "blue");
  dr.cardinality = 0;
  EG_CHECK_INT(eg_graphd_declare_relation(cl, &dr, &resp, &e), EG_EINVAL);
}

static void test_erase_user(void) {
  const char *t = "erase";
  EG_REQUIRE(gc_commit(
      cl, t, "alice",
      &(eg_edge_spec){.subject = "Alice Zyxwv", .relation = "LIKES", .literal = "zyxwv-token"},
      NULL));
  EG_REQUIRE(gc_commit(cl, t, "bob",
                       &(eg_edge_spec){.subject = "Bob", .relation = "LIKES", .literal = "chess"},
                       NULL));
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)t;
  scope.user = "alice";
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &scope;
  Engram__V1__EraseResponse *resp;
  eg_err e;
  EG_REQUIRE(eg_graphd_erase(cl, &er, &resp, &e) == EG_OK);
  Engram__V1__EraseResponse *r = resp;
  EG_CHECK_INT(r->counts[0]->count, 1); /* edges */
  EG_CHECK_INT(r->counts[1]->count, 1); /* entities */
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  EG_CHECK_STR(gc_value(cl, t, "Alice Zyxwv", "LIKES", 0, 0), "");
  EG_CHECK_STR(gc_value(cl, t, "Bob", "LIKES", 0, 0), "chess");
  /* A whole tenant needs the confirmation. */
  scope.user = "";
  EG_CHECK_INT(eg_graphd_erase(cl, &er, &resp, &e), EG_EINVAL);
  er.confirm_tenant = (char *)t;
  EG_REQUIRE(eg_graphd_erase(cl, &er, &resp, &e) == EG_OK);
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  EG_CHECK_STR(gc_value(cl, t, "Bob", "LIKES", 0, 0), "");
}

/* Durability: kill -9 right after acknowledged commits; every one is there after restart. */
static void test_durability_kill9(void) {
  const char *t = "durable";
  uint64_t ids[300];
  int n = 0;
  char subj[32];
  for (int i = 0; i < 300; i++) {
    snprintf(subj, sizeof subj, "Person %d", i);
    ids[n] =
        commit(t, (eg_edge_spec){.subject = subj, .relation = "LIKES", .literal = "durability"});
    if (ids[n]) n++;
  }
  EG_CHECK_INT(n, 300);
  EG_CHECK_INT(eg_harness_stop(&graphd, SIGKILL), 128 + SIGKILL);
  eg_rpc_client_close(cl);
  eg_err e;
  EG_REQUIRE(eg_harness_restart(&graphd, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(graphd.addr, NULL, &cl, &e) == EG_OK);
  int found = 0;
  for (int i = 0; i < n; i++) {
    snprintf(subj, sizeof subj, "Person %d", i);
    found += strcmp(gc_value(cl, t, subj, "LIKES", 0, 0), "durability") == 0;
  }
  EG_CHECK_INT(found, n);
  /* and earlier scenarios survived too */
  EG_CHECK_STR(gc_value(cl, "diet", "Alex", "DIET", 0, 0), "vegan");
  /* ids keep increasing after restart (counters were durable) */
  uint64_t next =
      commit(t, (eg_edge_spec){.subject = "After", .relation = "LIKES", .literal = "restart"});
  EG_CHECK(next > ids[n - 1]);
}

/* The CLI against the same daemon: commit from JSON with ISO times, then read back. */
static void test_cli(void) {
  char json[600], out[600];
  snprintf(json, sizeof json, "%s/commit.json", dir);
  snprintf(out, sizeof out, "%s/cli.out", dir);
  FILE *f = fopen(json, "w");
  EG_REQUIRE(f != NULL);
  fputs(
      "{\"edges\":[{\"subject\":{\"name\":\"Cli Person\"},\"relation\":\"LIVES_IN\","
      "\"object_entity\":{\"name\":\"Lisbon\"},\"valid_from\":\"2022-05-01\","
      "\"meta\":{\"reason\":\"sunshine\"}}]}",
      f);
  fclose(f);
  char base[300];
  snprintf(base, sizeof base, "%s/engram --graphd-addr %s --tenant cli", EG_BINARY_DIR,
           graphd.addr);
  EG_CHECK_INT(eg_test_system("%s graph commit %s > %s", base, json, out), 0);
  EG_CHECK_INT(eg_test_system("%s graph state 'cli person' LIVES_IN >> %s", base, out), 0);
  EG_CHECK_INT(
      eg_test_system("%s graph state 'Cli Person' LIVES_IN --at 2021-01-01 >> %s", base, out), 0);
  EG_CHECK_INT(
      eg_test_system("%s --json call Graph/History '{\"subject\":{\"name\":\"Cli Person\"},"
                     "\"scope\":{\"tenant\":\"cli\"}}' >> %s",
                     base, out),
      0);
  EG_CHECK_INT(eg_test_system("%s graph state 'Cli Person' --at yesterday 2>/dev/null", base), 2);
  char *text = eg_test_slurp(out);
  EG_CHECK(strstr(text, "committed 1 edges at") != NULL);
  EG_CHECK(strstr(text, "Cli Person LIVES_IN = Lisbon  [valid from 2022-05-01") != NULL);
  EG_CHECK(strstr(text, "why: sunshine") != NULL);
  EG_CHECK(strstr(text, "(no current value)") != NULL); /* before the move */
  EG_CHECK(strstr(text, "\"valid_from\": \"2022-05-01T00:00:00Z\"") != NULL);
  free(text);
}

/* A clean exit on SIGTERM (under ASan this also means no leak and no memory error). */
static void test_clean_exit(void) {
  eg_rpc_client_close(cl);
  cl = NULL;
  EG_CHECK_INT(eg_harness_stop(&graphd, SIGTERM), 0);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_diet);
  EG_RUN(test_late_report);
  EG_RUN(test_retract_valid_to_many_ties);
  EG_RUN(test_premise_walk);
  EG_RUN(test_walk_histories);
  EG_RUN(test_walk_depth_cap);
  EG_RUN(test_corroborated);
  EG_RUN(test_idempotent_facts);
  EG_RUN(test_all_or_nothing);
  EG_RUN(test_tenant_isolation);
  EG_RUN(test_merge_and_traverse);
  EG_RUN(test_declare_relation);
  EG_RUN(test_erase_user);
  EG_RUN(test_durability_kill9);
  EG_RUN(test_cli);
  EG_RUN(test_clean_exit);
  int rc = eg_test_finish();
  eg_rpc_client_close(cl);
  eg_harness_stop(&graphd, SIGTERM);
  if (rc) {
    eg_dump_file(graphd.log, 4000);
    fprintf(stderr, "logs kept in %s\n", dir);
  } else {
    eg_test_rmtree(dir);
  }
  free(dir);
  eg_rpc_global_shutdown();
  return rc;
}
