/*
 * test_prefs.c — the preference subgraph and outcome signals against a real graphd:
 * confidence accumulating over independent sessions and falling with contrary evidence,
 * explained by its evidence; RecordOutcome's answers and errors, outcomes in History in
 * order and bounded by known_at, privacy between users, erasure; the CLI.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/time.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/testlib.h"

#define ACTED_ON ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_ACTED_ON
#define IGNORED ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_IGNORED
#define SUCCEEDED ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_SUCCEEDED
#define FAILED ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_FAILED
#define REVERSED ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_REVERSED

static char *dir;
static eg_proc graphd;
static eg_rpc_client *cl;

static uint64_t commit_as(const char *tenant, const char *user, eg_edge_spec s) {
  return gc_commit_said(cl, tenant, user, &s);
}

static bool near(float a, float b) { return fabsf(a - b) < 1e-4f; }

/* The single current value of (subject, relation) in user's view, or NULL; the response
 * is kept in *keep for the caller to free. */
static Engram__V1__Edge *current(const char *tenant, const char *user, const char *subject,
                                 const char *relation, int64_t known_at,
                                 Engram__V1__StateResponse **keep) {
  eg_err e;
  *keep = NULL;
  if (gc_state_as(cl, tenant, user, subject, relation, 0, known_at, keep, &e) != EG_OK) {
    fprintf(stderr, "State: %s\n", e.msg);
    return NULL;
  }
  Engram__V1__StateResponse *r = *keep;
  return r->n_results == 1 && r->results[0]->n_values == 1 ? r->results[0]->values[0] : NULL;
}

/* The belief's confidence on the current value, -1 when there is none. */
static float confidence(const char *tenant, const char *user, const char *subject,
                        const char *relation) {
  Engram__V1__StateResponse *r;
  Engram__V1__Edge *v = current(tenant, user, subject, relation, 0, &r);
  float c = v && v->belief ? v->belief->confidence : -1;
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  return c;
}

static void test_start(void) {
  dir = eg_test_tempdir("prefs");
  eg_err e;
  EG_REQUIRE(eg_harness_start("graphd", dir, NULL, &graphd, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(graphd.addr, NULL, &cl, &e) == EG_OK);
}

/* One preference said in two sessions: one current record, its confidence raised, both
 * commits listed as evidence; the same session again adds nothing; AVOIDS lowers it. */
static void test_confidence_accumulates(void) {
  const char *t = "acc";
  uint64_t a = commit_as(t, "u1",
                         (eg_edge_spec){.subject = "user:u1",
                                        .relation = "PREFERS",
                                        .literal = "window seat",
                                        .session = "s1",
                                        .confidence = 0.7f});
  EG_REQUIRE(a);
  EG_CHECK(near(confidence(t, "u1", "user:u1", "PREFERS"), 0.7f));
  uint64_t b = commit_as(t, "u1",
                         (eg_edge_spec){.subject = "user:u1",
                                        .relation = "PREFERS",
                                        .literal = "window seat",
                                        .session = "s2",
                                        .confidence = 0.7f,
                                        .reason = "likes the view"});
  EG_REQUIRE(b && b != a);
  Engram__V1__StateResponse *r;
  Engram__V1__Edge *v = current(t, "u1", "user:u1", "PREFERS", 0, &r);
  EG_REQUIRE(v != NULL); /* one record, not two unrelated facts */
  EG_CHECK_INT(v->id, b);
  EG_CHECK_INT(v->parent, a); /* the same chain */
  EG_REQUIRE(v->belief != NULL);
  EG_CHECK(near(v->belief->confidence, 1 - 0.3f * 0.3f));
  EG_REQUIRE(v->belief->n_evidence == 2);
  EG_CHECK_INT(v->belief->evidence[0]->edge_id, a);
  EG_CHECK_STR(v->belief->evidence[0]->source, "session:s1");
  EG_CHECK_INT(v->belief->evidence[1]->edge_id, b);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* the same session saying it again is not independent evidence */
  EG_REQUIRE(commit_as(t, "u1",
                       (eg_edge_spec){.subject = "user:u1",
                                      .relation = "PREFERS",
                                      .literal = "window seat",
                                      .session = "s2",
                                      .confidence = 0.5f,
                                      .reason = "said again"}));
  EG_CHECK(near(confidence(t, "u1", "user:u1", "PREFERS"), 1 - 0.3f * 0.3f));
  /* before the second session, it was believed less (known_at) */
  v = current(t, "u1", "user:u1", "PREFERS", T("2000-01-01"), &r);
  EG_CHECK(v == NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* a contrary statement in a third session lowers it, and explains why */
  uint64_t c = commit_as(t, "u1",
                         (eg_edge_spec){.subject = "user:u1",
                                        .relation = "AVOIDS",
                                        .literal = "window seat",
                                        .session = "s3",
                                        .confidence = 0.6f});
  EG_REQUIRE(c);
  v = current(t, "u1", "user:u1", "PREFERS", 0, &r);
  EG_REQUIRE(v && v->belief);
  EG_CHECK(near(v->belief->against, 0.6f));
  EG_CHECK(near(v->belief->confidence, (1 - 0.09f) * 0.4f));
  bool listed = false;
  for (size_t i = 0; i < v->belief->n_evidence; i++)
    listed |= v->belief->evidence[i]->edge_id == c && v->belief->evidence[i]->contrary &&
              !strcmp(v->belief->evidence[i]->relation, "AVOIDS");
  EG_CHECK(listed);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* the AVOIDS record sees the two PREFERS sessions against it */
  EG_CHECK(near(confidence(t, "u1", "user:u1", "AVOIDS"), 0.6f * 0.09f));
  /* History: the confidence each commit held while it was the latest word */
  Engram__V1__HistoryResponse *h;
  eg_err e;
  EG_REQUIRE(gc_history(cl, t, "u1", "user:u1", "PREFERS", 0, &h, &e) == EG_OK);
  EG_REQUIRE(h->n_entries == 3);
  EG_CHECK(h->entries[0]->edge->belief && near(h->entries[0]->edge->belief->confidence, 0.7f));
  EG_CHECK(h->entries[1]->edge->belief && near(h->entries[1]->edge->belief->confidence, 0.91f));
  EG_CHECK(h->entries[2]->edge->belief &&
           near(h->entries[2]->edge->belief->confidence, 0.91f * 0.4f));
  protobuf_c_message_free_unpacked(&h->base, NULL);
  /* a retract of the AVOIDS ends its weight */
  EG_REQUIRE(commit_as(t, "u1",
                       (eg_edge_spec){.subject = "user:u1",
                                      .relation = "AVOIDS",
                                      .literal = "window seat",
                                      .retract = true,
                                      .session = "s4"}));
  EG_CHECK(near(confidence(t, "u1", "user:u1", "PREFERS"), 0.91f));
  /* ACCEPTED after REJECTED, and REJECTED after ACCEPTED, lower each other the same way */
  EG_REQUIRE(commit_as(t, "u1",
                       (eg_edge_spec){.subject = "user:u1",
                                      .relation = "ACCEPTED",
                                      .literal = "Sakura",
                                      .session = "s5",
                                      .confidence = 0.7f}));
  EG_REQUIRE(commit_as(t, "u1",
                       (eg_edge_spec){.subject = "user:u1",
                                      .relation = "REJECTED",
                                      .literal = "Sakura",
                                      .session = "s6",
                                      .confidence = 0.7f}));
  EG_CHECK(near(confidence(t, "u1", "user:u1", "ACCEPTED"), 0.7f * 0.3f));
  EG_CHECK(near(confidence(t, "u1", "user:u1", "REJECTED"), 0.7f * 0.3f));
  /* OPTIMIZES_FOR is a preference relation too; a non-preference one has no belief */
  EG_REQUIRE(commit_as(
      t, "u1",
      (eg_edge_spec){
          .subject = "user:u1", .relation = "OPTIMIZES_FOR", .literal = "price", .session = "s7"}));
  EG_CHECK(near(confidence(t, "u1", "user:u1", "OPTIMIZES_FOR"), 0.6f));
  EG_REQUIRE(commit_as(
      t, "u1", (eg_edge_spec){.subject = "user:u1", .relation = "LIVES_IN", .object = "Lisbon"}));
  EG_CHECK(confidence(t, "u1", "user:u1", "LIVES_IN") == -1);
}

/* Outcomes: stored in order with their time and note, returned with the edge, moving the
 * confidence (SUCCEEDED up, FAILED down); a known_at before one does not show it. */
static void test_outcomes(void) {
  const char *t = "out";
  uint64_t p = commit_as(t, "u1",
                         (eg_edge_spec){.subject = "user:u1",
                                        .relation = "PREFERS",
                                        .literal = "quiet tables",
                                        .session = "s1",
                                        .confidence = 0.5f});
  EG_REQUIRE(p);
  Engram__V1__RecordOutcomeResponse *r;
  eg_err e;
  EG_REQUIRE(gc_outcome(cl, t, "u1", p, SUCCEEDED, "the table by the garden was perfect", &r, &e) ==
             EG_OK);
  EG_REQUIRE(r->outcome && r->belief);
  EG_CHECK_INT(r->outcome->edge_id, p);
  EG_CHECK_INT(r->outcome->kind, SUCCEEDED);
  EG_CHECK_STR(r->outcome->source, "client");
  EG_CHECK_STR(r->outcome->user, "u1");
  int64_t first_at = r->outcome->recorded_at;
  EG_CHECK(r->outcome->time == first_at);
  EG_CHECK(near(r->belief->confidence, 1 - 0.5f * 0.4f)); /* raised */
  EG_CHECK_INT(r->belief->n_evidence, 2);
  EG_CHECK_INT(r->belief->evidence[1]->outcome, SUCCEEDED);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_REQUIRE(gc_outcome(cl, t, "u1", p, ACTED_ON, NULL, NULL, &e) == EG_OK);
  EG_REQUIRE(gc_outcome(cl, t, "u1", p, IGNORED, NULL, NULL, &e) == EG_OK);
  float before = confidence(t, "u1", "user:u1", "PREFERS");
  EG_CHECK(near(before, 1 - 0.5f * 0.4f * 0.7f)); /* ACTED_ON raised it, IGNORED did not move it */
  EG_REQUIRE(gc_outcome(cl, t, "u1", p, FAILED, "too noisy after all", &r, &e) == EG_OK);
  EG_CHECK(r->belief && r->belief->confidence < before); /* lowered */
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_REQUIRE(gc_outcome(cl, t, "u1", p, REVERSED, NULL, &r, &e) == EG_OK);
  EG_CHECK(r->belief && near(r->belief->against, 1 - 0.4f * 0.2f));
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* History: the edge with its five outcomes, in the order recorded */
  Engram__V1__HistoryResponse *h;
  EG_REQUIRE(gc_history(cl, t, "u1", "user:u1", "PREFERS", 0, &h, &e) == EG_OK);
  EG_REQUIRE(h->n_entries == 1);
  Engram__V1__Edge *ed = h->entries[0]->edge;
  EG_REQUIRE(ed->n_outcomes == 5);
  Engram__V1__OutcomeKind want[5] = {SUCCEEDED, ACTED_ON, IGNORED, FAILED, REVERSED};
  for (size_t i = 0; i < 5; i++) {
    EG_CHECK_INT(ed->outcomes[i]->kind, want[i]);
    if (i) EG_CHECK(ed->outcomes[i]->recorded_at > ed->outcomes[i - 1]->recorded_at);
  }
  EG_CHECK_STR(ed->outcomes[0]->note, "the table by the garden was perfect");
  EG_CHECK_STR(ed->outcomes[3]->note, "too noisy after all");
  protobuf_c_message_free_unpacked(&h->base, NULL);
  /* as known just after the first outcome: one outcome, and the confidence of then */
  EG_REQUIRE(gc_history(cl, t, "u1", "user:u1", "PREFERS", first_at, &h, &e) == EG_OK);
  EG_REQUIRE(h->n_entries == 1);
  EG_CHECK_INT(h->entries[0]->edge->n_outcomes, 1);
  EG_CHECK(h->entries[0]->edge->belief && near(h->entries[0]->edge->belief->confidence, 0.8f));
  protobuf_c_message_free_unpacked(&h->base, NULL);
  /* an outcome on a non-preference edge is kept and shown, with no belief */
  uint64_t l = commit_as(
      t, "u1", (eg_edge_spec){.subject = "user:u1", .relation = "VISITED", .object = "Porto"});
  EG_REQUIRE(gc_outcome(cl, t, "u1", l, SUCCEEDED, "great trip", &r, &e) == EG_OK);
  EG_CHECK(r->belief == NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_REQUIRE(gc_history(cl, t, "u1", "user:u1", "VISITED", 0, &h, &e) == EG_OK);
  EG_CHECK(h->n_entries == 1 && h->entries[0]->edge->n_outcomes == 1 &&
           !h->entries[0]->edge->belief);
  protobuf_c_message_free_unpacked(&h->base, NULL);
}

static size_t outcomes_seen(const char *t, const char *user, const char *subject,
                            const char *relation) {
  Engram__V1__HistoryResponse *h;
  eg_err e;
  if (gc_history(cl, t, user, subject, relation, 0, &h, &e) != EG_OK) return 999;
  size_t n = 0;
  for (size_t i = 0; i < h->n_entries; i++) n += h->entries[i]->edge->n_outcomes;
  protobuf_c_message_free_unpacked(&h->base, NULL);
  return n;
}

/* Bad requests: a clear status, and nothing written. */
static void test_outcome_errors(void) {
  const char *t = "errs";
  uint64_t p = commit_as(
      t, "u1", (eg_edge_spec){.subject = "user:u1", .relation = "PREFERS", .literal = "tea"});
  EG_REQUIRE(p);
  eg_err e;
  EG_CHECK_INT(gc_outcome(cl, t, "u1", p + 1000, SUCCEEDED, NULL, NULL, &e), EG_ENOTFOUND);
  EG_CHECK(strstr(e.msg, "not found") != NULL);
  EG_CHECK_INT(gc_outcome(cl, t, "u1", 0, SUCCEEDED, NULL, NULL, &e), EG_EINVAL);
  EG_CHECK_INT(gc_outcome(cl, t, "u1", p, ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_UNSPECIFIED, NULL,
                          NULL, &e),
               EG_EINVAL);
  EG_CHECK(strstr(e.msg, "SUCCEEDED") != NULL);
  EG_CHECK_INT(gc_outcome(cl, t, "u1", p, (Engram__V1__OutcomeKind)42, NULL, NULL, &e), EG_EINVAL);
  EG_CHECK_INT(gc_outcome(cl, t, "u1", p, SUCCEEDED, "bad \xff utf-8", NULL, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "note") != NULL);
  EG_CHECK_INT(gc_outcome(cl, "no-such-tenant", "u1", 1, SUCCEEDED, NULL, NULL, &e), EG_ENOTFOUND);
  EG_CHECK_INT(outcomes_seen(t, NULL, "user:u1", "PREFERS"), 0);
}

/* Another user can neither record an outcome on u1's edge nor see u1's outcomes; on a
 * shared edge each user sees their own outcomes only. Erasing u1 removes the outcomes on
 * u1's edges and those u1 recorded elsewhere, and nothing of u2's. */
static void test_outcome_privacy_and_erasure(void) {
  const char *t = "priv";
  uint64_t mine = commit_as(
      t, "u1", (eg_edge_spec){.subject = "user:u1", .relation = "PREFERS", .literal = "aisle"});
  uint64_t shared = commit_as(
      t, NULL, (eg_edge_spec){.subject = "Cafe Luz", .relation = "STATUS", .literal = "open"});
  EG_REQUIRE(mine && shared);
  eg_err e;
  EG_CHECK_INT(gc_outcome(cl, t, "u2", mine, SUCCEEDED, "not mine", NULL, &e), EG_ENOTFOUND);
  EG_CHECK(strstr(e.msg, "not found") != NULL);                  /* exactly as for a missing edge */
  EG_CHECK_INT(outcomes_seen(t, NULL, "user:u1", "PREFERS"), 0); /* nothing written */
  EG_REQUIRE(gc_outcome(cl, t, "u1", mine, ACTED_ON, NULL, NULL, &e) == EG_OK);
  EG_REQUIRE(gc_outcome(cl, t, "u1", shared, SUCCEEDED, "u1 liked it", NULL, &e) == EG_OK);
  EG_REQUIRE(gc_outcome(cl, t, "u2", shared, FAILED, "u2 did not", NULL, &e) == EG_OK);
  EG_CHECK_INT(outcomes_seen(t, "u2", "user:u1", "PREFERS"), 0);
  EG_CHECK_INT(outcomes_seen(t, "u1", "user:u1", "PREFERS"), 1);
  EG_CHECK_INT(outcomes_seen(t, "u1", "Cafe Luz", "STATUS"), 1);
  EG_CHECK_INT(outcomes_seen(t, "u2", "Cafe Luz", "STATUS"), 1);
  EG_CHECK_INT(outcomes_seen(t, NULL, "Cafe Luz", "STATUS"),
               2); /* the tenant's own tools see all */
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)t;
  scope.user = "u1";
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &scope;
  EG_REQUIRE(eg_graphd_erase(cl, &er, NULL, &e) == EG_OK);
  EG_CHECK_INT(outcomes_seen(t, NULL, "Cafe Luz", "STATUS"), 1);
  Engram__V1__HistoryResponse *h;
  EG_REQUIRE(gc_history(cl, t, NULL, "Cafe Luz", "STATUS", 0, &h, &e) == EG_OK);
  EG_REQUIRE(h->n_entries == 1 && h->entries[0]->edge->n_outcomes == 1);
  EG_CHECK_STR(h->entries[0]->edge->outcomes[0]->user, "u2");
  protobuf_c_message_free_unpacked(&h->base, NULL);
  EG_CHECK_INT(gc_outcome(cl, t, "u1", mine, SUCCEEDED, NULL, NULL, &e),
               EG_ENOTFOUND); /* the edge is gone */
  /* a new edge that reuses nothing of the old: no stale outcome under a fresh chain */
  uint64_t again = commit_as(
      t, "u1", (eg_edge_spec){.subject = "user:u1", .relation = "PREFERS", .literal = "aisle"});
  EG_REQUIRE(again);
  EG_CHECK_INT(outcomes_seen(t, NULL, "user:u1", "PREFERS"), 0);
}

/* Another user's statements about a shared entity neither support nor contradict what
 * this user said: a belief counts only the evidence the reader may see. */
static void test_belief_privacy(void) {
  const char *t = "bpriv";
  EG_REQUIRE(commit_as(t, "u1",
                       (eg_edge_spec){.subject = "Book Club",
                                      .relation = "PREFERS",
                                      .literal = "thrillers",
                                      .session = "a1",
                                      .confidence = 0.5f}));
  EG_REQUIRE(commit_as(t, "u2",
                       (eg_edge_spec){.subject = "Book Club",
                                      .relation = "PREFERS",
                                      .literal = "thrillers",
                                      .session = "b1",
                                      .confidence = 0.9f}));
  EG_REQUIRE(commit_as(t, "u2",
                       (eg_edge_spec){.subject = "Book Club",
                                      .relation = "AVOIDS",
                                      .literal = "thrillers",
                                      .session = "b2",
                                      .confidence = 0.9f}));
  Engram__V1__StateResponse *r;
  Engram__V1__Edge *v = current(t, "u1", "Book Club", "PREFERS", 0, &r);
  EG_REQUIRE(v && v->belief);
  EG_CHECK(near(v->belief->confidence, 0.5f));
  EG_CHECK_INT(v->belief->n_evidence, 1);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  v = current(t, "u2", "Book Club", "PREFERS", 0, &r);
  EG_REQUIRE(v && v->belief);
  EG_CHECK(near(v->belief->confidence, 0.9f * 0.1f));
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

static void test_cli(void) {
  const char *t = "cli";
  uint64_t p = commit_as(
      t, "u1",
      (eg_edge_spec){
          .subject = "user:u1", .relation = "PREFERS", .literal = "green tea", .session = "s1"});
  EG_REQUIRE(p);
  char out[600], base[400];
  snprintf(out, sizeof out, "%s/cli.out", dir);
  snprintf(base, sizeof base, "%s/engram --graphd-addr %s --tenant %s --user u1", EG_BINARY_DIR,
           graphd.addr, t);
  EG_CHECK_INT(eg_test_system("%s graph outcome %llu succeeded --note 'ordered it twice' > %s",
                              base, (unsigned long long)p, out),
               0);
  EG_CHECK_INT(eg_test_system("%s graph history user:u1 PREFERS >> %s", base, out), 0);
  EG_CHECK_INT(
      eg_test_system("%s graph outcome %llu LOVED_IT 2>/dev/null", base, (unsigned long long)p), 2);
  EG_CHECK_INT(
      eg_test_system("%s graph outcome %llu FAILED 2>/dev/null", base, (unsigned long long)p + 99),
      1);
  char *text = eg_test_slurp(out);
  EG_CHECK(strstr(text, "recorded SUCCEEDED on #") != NULL);
  EG_CHECK(strstr(text, "confidence 0.84 (support 0.84, against 0.00)") != NULL);
  EG_CHECK(strstr(text, "for     PREFERS #") != NULL);
  EG_CHECK(strstr(text, "outcome SUCCEEDED") != NULL);
  EG_CHECK(strstr(text, ": ordered it twice") != NULL);
  EG_CHECK(strstr(text, "confidence 0.84 from 2 evidence") != NULL);
  if (eg_test_failed()) fprintf(stderr, "%s\n", text);
  free(text);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_confidence_accumulates);
  EG_RUN(test_outcomes);
  EG_RUN(test_outcome_errors);
  EG_RUN(test_outcome_privacy_and_erasure);
  EG_RUN(test_belief_privacy);
  EG_RUN(test_cli);
  int rc = eg_test_finish();
  eg_rpc_client_close(cl);
  EG_CHECK_INT(eg_harness_stop(&graphd, SIGTERM), 0);
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
