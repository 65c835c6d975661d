/*
 * test_derive.c — graph-derived conclusions against the real daemons, with the shipped
 * services/graphd/derive_rules.txt: two rejected vendors without EU hosting and data
 * sovereignty as the goal give a PREFERS eu-hosting that was never stated (provenance
 * DERIVED, the rule in meta, the premises in derived_from); a retracted premise makes
 * the premise walk call it POTENTIALLY_STALE until the re-evaluation retracts it; a
 * stated PREFERS is never overridden and later supersedes a derived one; another user's
 * edges never feed a conclusion; the same from chat through ingestd; a bad rules file
 * stops graphd with the line named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/time.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

#define DERIVED ENGRAM__V1__PROVENANCE__PROVENANCE_DERIVED
#define STALE ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE
#define SUPERSEDED ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_SUPERSEDED
#define RULE "sovereignty-prefers-eu-hosting"

static eg_cluster cl;
static eg_rpc_client *gra, *ing;

static uint64_t put(const char *tenant, const char *user, eg_edge_spec s) {
  return gc_commit_said(gra, tenant, user, &s);
}

static uint64_t rel(const char *tenant, const char *user, const char *subject, const char *relation,
                    const char *object) {
  return put(tenant, user,
             (eg_edge_spec){.subject = subject, .relation = relation, .object = object});
}

/* The current values of (subject, relation) in user's view; caller frees *keep. */
static Engram__V1__StateResult *state(const char *tenant, const char *user, const char *subject,
                                      const char *relation, Engram__V1__StateResponse **keep) {
  eg_err e;
  static Engram__V1__StateResult none = ENGRAM__V1__STATE_RESULT__INIT;
  *keep = NULL;
  if (gc_state_as(gra, tenant, user, subject, relation, 0, 0, keep, &e) != EG_OK) {
    fprintf(stderr, "State: %s\n", e.msg);
    return &none;
  }
  return (*keep)->n_results == 1 ? (*keep)->results[0] : &none;
}

static size_t n_values(const char *tenant, const char *user, const char *subject,
                       const char *relation) {
  Engram__V1__StateResponse *r;
  size_t n = state(tenant, user, subject, relation, &r)->n_values;
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  return n;
}

static void test_start(void) {
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, NULL, &ing, &e) == EG_OK);
}

static uint64_t conclusion; /* u1's derived PREFERS eu-hosting */
static uint64_t premises[3];

/* The seed's example: the conclusion, with its provenance, rule and premises. */
static void test_seed_example(void) {
  const char *t = "seed";
  premises[0] = put(t, "u1",
                    (eg_edge_spec){.subject = "user:u1",
                                   .relation = "OPTIMIZES_FOR",
                                   .literal = "data sovereignty",
                                   .session = "s1"});
  premises[1] = rel(t, "u1", "user:u1", "REJECTED", "vendor-A");
  EG_REQUIRE(premises[0] && premises[1]);
  EG_CHECK_INT(n_values(t, "u1", "user:u1", "PREFERS"), 0); /* one rejection is not a pattern */
  /* vendor-B hosts in the US only: it lacks HAS_PROPERTY eu-hosting all the same */
  EG_REQUIRE(rel(t, NULL, "vendor-B", "HAS_PROPERTY", "us-only"));
  premises[2] = rel(t, "u1", "user:u1", "REJECTED", "vendor-B");
  EG_REQUIRE(premises[2]);
  Engram__V1__StateResponse *r;
  Engram__V1__StateResult *res = state(t, "u1", "user:u1", "PREFERS", &r);
  EG_REQUIRE(res->n_values == 1);
  Engram__V1__Edge *c = res->values[0];
  conclusion = c->id;
  EG_CHECK_STR(c->object_name, "eu-hosting");
  EG_REQUIRE(c->meta != NULL);
  EG_CHECK_INT(c->meta->provenance, DERIVED);
  EG_CHECK_STR(c->meta->rule, RULE);
  EG_CHECK_STR(c->meta->extractor, "derive");
  EG_CHECK_STR(c->user, "u1");
  EG_REQUIRE(c->n_derived_from == 3);
  for (size_t i = 0; i < 3; i++) EG_CHECK(c->derived_from[i] == premises[i]); /* sorted ids */
  EG_CHECK(c->belief != NULL); /* a preference like any other: it has a confidence */
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* Saying the same again derives nothing new. */
  EG_CHECK(rel(t, "u1", "user:u1", "REJECTED", "vendor-B") == premises[2]);
  EG_CHECK_INT(gc_history_len(gra, t, "user:u1", "PREFERS"), 1);
}

/* The commit of the last History entry of (subject, relation). */
static Engram__V1__Edge *last_commit(const char *t, const char *subject, const char *relation,
                                     Engram__V1__HistoryResponse **keep) {
  eg_err e;
  if (gc_history(gra, t, NULL, subject, relation, 0, keep, &e) != EG_OK || !(*keep)->n_entries)
    return NULL;
  return (*keep)->entries[(*keep)->n_entries - 1]->edge;
}

/* A premise retracted: stale as of that commit, retracted by the re-evaluation. */
static void test_premise_retracted(void) {
  const char *t = "seed";
  EG_CHECK_INT(gc_walk(gra, t, conclusion, 0, 0, 0, NULL, NULL, NULL),
               ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNVERIFIED);
  uint64_t retract =
      put(t, "u1",
          (eg_edge_spec){
              .subject = "user:u1", .relation = "REJECTED", .object = "vendor-A", .retract = true});
  EG_REQUIRE(retract);
  Engram__V1__HistoryResponse *h;
  Engram__V1__Edge *rj = last_commit(t, "user:u1", "REJECTED", &h);
  EG_REQUIRE(rj && rj->id == retract);
  int64_t tc = rj->t_commit;
  protobuf_c_message_free_unpacked(&h->base, NULL);
  /* As known when the premise was retracted: the conclusion is potentially stale. */
  uint64_t sup = 0;
  size_t chain = 0;
  EG_CHECK_INT(gc_walk(gra, t, conclusion, 0, tc, 0, &sup, NULL, &chain), STALE);
  EG_CHECK(sup == retract);
  EG_CHECK_INT(chain, 1);
  /* The re-evaluation that followed retracted it (a RETRACT commit, nothing deleted). */
  EG_CHECK_INT(n_values(t, "u1", "user:u1", "PREFERS"), 0);
  EG_CHECK_INT(gc_walk(gra, t, conclusion, 0, 0, 0, NULL, NULL, NULL), SUPERSEDED);
  Engram__V1__Edge *pr = last_commit(t, "user:u1", "PREFERS", &h);
  EG_REQUIRE(pr != NULL);
  EG_CHECK_INT(h->n_entries, 2);
  EG_CHECK_INT(pr->op, ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT);
  EG_CHECK(pr->t_commit > tc);
  EG_CHECK(pr->meta && pr->meta->provenance == DERIVED && strcmp(pr->meta->rule, RULE) == 0);
  EG_CHECK(pr->n_derived_from == 1 && pr->derived_from[0] == conclusion);
  protobuf_c_message_free_unpacked(&h->base, NULL);
}

/* A stated PREFERS is never overridden; stated after a derived one, it supersedes it. */
static void test_stated_wins(void) {
  const char *t = "stated";
  uint64_t stated = put(
      t, "u3",
      (eg_edge_spec){
          .subject = "user:u3", .relation = "PREFERS", .object = "eu-hosting", .session = "s9"});
  EG_REQUIRE(stated);
  EG_REQUIRE(
      put(t, "u3",
          (eg_edge_spec){
              .subject = "user:u3", .relation = "OPTIMIZES_FOR", .object = "Data Sovereignty"}));
  EG_REQUIRE(rel(t, "u3", "user:u3", "REJECTED", "vendor-A"));
  EG_REQUIRE(rel(t, "u3", "user:u3", "REJECTED", "vendor-B"));
  Engram__V1__StateResponse *r;
  Engram__V1__StateResult *res = state(t, "u3", "user:u3", "PREFERS", &r);
  EG_REQUIRE(res->n_values == 1);
  EG_CHECK(res->values[0]->id == stated);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_INT(gc_history_len(gra, t, "user:u3", "PREFERS"), 1);

  /* Derived first, then stated: the stated commit is the current one, and the rules
   * leave it alone on the next relevant commit. */
  EG_REQUIRE(
      put(t, "u4",
          (eg_edge_spec){
              .subject = "user:u4", .relation = "OPTIMIZES_FOR", .literal = "data sovereignty"}));
  EG_REQUIRE(rel(t, "u4", "user:u4", "REJECTED", "vendor-A"));
  EG_REQUIRE(rel(t, "u4", "user:u4", "REJECTED", "vendor-B"));
  EG_CHECK_INT(gc_history_len(gra, t, "user:u4", "PREFERS"), 1);
  stated = put(t, "u4",
               (eg_edge_spec){.subject = "user:u4", .relation = "PREFERS", .object = "eu-hosting"});
  EG_REQUIRE(rel(t, "u4", "user:u4", "REJECTED", "vendor-C"));
  res = state(t, "u4", "user:u4", "PREFERS", &r);
  EG_REQUIRE(res->n_values == 1);
  EG_CHECK(res->values[0]->id == stated);
  EG_CHECK(!res->values[0]->meta || res->values[0]->meta->provenance != DERIVED);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_INT(gc_history_len(gra, t, "user:u4", "PREFERS"), 2);
}

/* Another user's edges never feed a conclusion, and a conclusion is its user's only. */
static void test_users_apart(void) {
  const char *t = "users";
  EG_REQUIRE(
      put(t, "u1",
          (eg_edge_spec){
              .subject = "user:u1", .relation = "OPTIMIZES_FOR", .literal = "data sovereignty"}));
  EG_REQUIRE(rel(t, "u1", "user:u1", "REJECTED", "vendor-A"));
  /* u2 rejects on the same subject entity (their own edges): they do not count for u1 */
  EG_REQUIRE(rel(t, "u2", "user:u1", "REJECTED", "vendor-B"));
  EG_REQUIRE(rel(t, "u2", "user:u1", "REJECTED", "vendor-C"));
  EG_CHECK_INT(n_values(t, "u1", "user:u1", "PREFERS"), 0);
  EG_CHECK_INT(n_values(t, NULL, "user:u1", "PREFERS"), 0); /* nobody's, in the whole tenant */
  EG_REQUIRE(rel(t, "u1", "user:u1", "REJECTED", "vendor-D"));
  EG_CHECK_INT(n_values(t, "u1", "user:u1", "PREFERS"), 1);
  EG_CHECK_INT(n_values(t, "u2", "user:u1", "PREFERS"), 0);
}

/* The same from chat: "I care most about data sovereignty", two suggestions turned down. */
static void test_from_chat(void) {
  const char *msgs[] = {
      "user",      "We need a cloud provider. I care most about data sovereignty.",
      "assistant", "How about Vendor A?",
      "user",      "No thanks, not Vendor A.",
      "assistant", "You could try Vendor B.",
      "user",      "No thanks, I'll pass on that one.",
      "assistant", "Understood."};
  eg_err e;
  EG_REQUIRE(ic_session(ing, "chat", "u7", "c1", T("2026-11-20T10:00:00Z"), msgs, 6, false, NULL,
                        &e) == EG_OK);
  EG_CHECK_INT(n_values("chat", "u7", "user:u7", "REJECTED"), 2);
  Engram__V1__StateResponse *r;
  Engram__V1__StateResult *res = state("chat", "u7", "user:u7", "PREFERS", &r);
  EG_REQUIRE(res->n_values == 1);
  EG_CHECK_STR(res->values[0]->object_name, "eu-hosting");
  EG_CHECK(res->values[0]->meta && res->values[0]->meta->provenance == DERIVED);
  EG_CHECK_INT(res->values[0]->n_derived_from, 3);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

static void test_metrics(void) {
  eg_buf b = {0};
  EG_REQUIRE(eg_http_get(cl.d[EG_GRAPHD].metrics_port, "/metrics", &b) == 200);
  EG_CHECK(strstr(b.data, "engram_graphd_derived_total ") != NULL);
  EG_CHECK(strstr(b.data, "engram_graphd_derive_retracted_total 1") != NULL);
  EG_CHECK(strstr(b.data, "engram_graphd_derive_failures_total 0") != NULL);
  eg_buf_free(&b);
}

/* The CLI says which rule concluded an edge, and from what. */
static void test_cli(void) {
  char *dir = eg_test_tempdir("derive-cli"), out[600];
  snprintf(out, sizeof out, "%s/cli.out", dir);
  EG_CHECK_INT(
      eg_test_system(
          "%s/engram --graphd-addr %s --tenant seed --user u1 graph history user:u1 PREFERS > %s",
          EG_BINARY_DIR, cl.d[EG_GRAPHD].addr, out),
      0);
  char *text = eg_test_slurp(out), want[200];
  EG_REQUIRE(text != NULL);
  snprintf(want, sizeof want, "derived by " RULE " from #%llu #%llu #%llu",
           (unsigned long long)premises[0], (unsigned long long)premises[1],
           (unsigned long long)premises[2]);
  EG_CHECK(strstr(text, want) != NULL);
  snprintf(want, sizeof want, "PREFERS RETRACT = eu-hosting");
  EG_CHECK(strstr(text, want) != NULL);
  if (eg_test_failed()) fprintf(stderr, "%s\n", text);
  free(text);
  eg_test_rmtree(dir);
  free(dir);
}

/* A rules file that does not parse stops graphd, naming the file and line. */
static void test_bad_rules(void) {
  char *dir = eg_test_tempdir("derive-bad");
  char path[600];
  snprintf(path, sizeof path, "%s/bad_rules.txt", dir);
  FILE *f = fopen(path, "w");
  EG_REQUIRE(f);
  fputs("# a typo on line 3\nrule r1\n  whenn ?u REJECTED ?v\n  then ?u PREFERS ?v\nend\n", f);
  fclose(f);
  const char *extra[] = {"--derive-rules", path, NULL};
  eg_proc p;
  eg_err e;
  EG_CHECK(eg_harness_start("graphd", dir, extra, &p, &e) != EG_OK);
  char *log = eg_test_slurp(p.log);
  EG_REQUIRE(log != NULL);
  EG_CHECK(strstr(log, "bad_rules.txt:3: unknown clause 'whenn'") != NULL);
  free(log);
  eg_test_rmtree(dir);
  free(dir);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_seed_example);
  EG_RUN(test_premise_retracted);
  EG_RUN(test_stated_wins);
  EG_RUN(test_users_apart);
  EG_RUN(test_from_chat);
  EG_RUN(test_metrics);
  EG_RUN(test_cli);
  EG_RUN(test_bad_rules);
  eg_rpc_client_close(gra);
  eg_rpc_client_close(ing);
  eg_cluster_stop(&cl, eg_test_failed());
  return eg_test_finish();
}
