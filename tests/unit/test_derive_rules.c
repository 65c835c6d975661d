/*
 * test_derive_rules.c — the derivation rules: the parser (the shipped file, every kind of
 * mistake named with its line) and the matcher in-process on graphd's engine (when,
 * unless, count, constants matched by normalized name, the per-commit cap, idempotence,
 * a stated edge left alone).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "services/graphd/graph_int.h"
#include "tests/testlib.h"

#define DERIVED ENGRAM__V1__PROVENANCE__PROVENANCE_DERIVED

/* ---- the parser --------------------------------------------------------------------- */

static const char *parse_error(const char *text) {
  static char msg[512];
  eg_drules *r;
  eg_err e;
  if (eg_drules_parse(text, strlen(text), "rules.txt", &r, &e) == EG_OK) {
    eg_drules_free(r);
    return "";
  }
  snprintf(msg, sizeof msg, "%s", e.msg);
  return msg;
}

static void test_parse_shipped(void) {
  eg_drules *r;
  eg_err e;
  EG_REQUIRE(eg_drules_load(EG_SOURCE_DIR "/services/graphd/derive_rules.txt", &r, &e) == EG_OK);
  EG_REQUIRE(r->n >= 1);
  const eg_drule *d = &r->rules[0];
  EG_CHECK_STR(d->name, "sovereignty-prefers-eu-hosting");
  EG_CHECK_INT(d->n_when, 2);
  EG_CHECK_INT(d->n_unless, 1);
  EG_CHECK_STR(d->when[0].o.name, "data sovereignty"); /* quoted: one constant with its space */
  EG_CHECK_INT(d->when[0].o.var, -1);
  EG_CHECK_STR(d->then.rel, "PREFERS");
  EG_CHECK(d->count_var >= 0 && d->count_min == 2);
  EG_CHECK(eg_drule_reads(d, "REJECTED") && eg_drule_reads(d, "HAS_PROPERTY") &&
           !eg_drule_reads(d, "PREFERS"));
  eg_drules_free(r);
  EG_CHECK_INT(eg_drules_load("/nonexistent/rules.txt", &r, &e), EG_EIO);
  EG_CHECK(strstr(e.msg, "/nonexistent/rules.txt") != NULL);
}

static void test_parse_errors(void) {
  EG_CHECK_STR(parse_error("# nothing but comments\n\n"), "");
  EG_CHECK_STR(parse_error("rule a\n when ?u likes ?x\n then ?u S ?x\nend\n"),
               "rules.txt:2: relation 'likes' is not UPPER_SNAKE");
  EG_CHECK_STR(parse_error("rule a\n when ?u LIKES ?x\n whenn ?u LIKES ?x\nend"),
               "rules.txt:3: unknown clause 'whenn' (expected when, unless, count, then or end)");
  EG_CHECK_STR(parse_error("\n\nwhen ?u LIKES ?x\n"),
               "rules.txt:3: 'when' outside a rule (expected: rule NAME)");
  EG_CHECK_STR(parse_error("rule a\n when ?u LIKES ?x\n then ?u PREFERS ?y\nend"),
               "rules.txt:3: variable ?y is not bound by an earlier when");
  EG_CHECK_STR(
      parse_error("rule a\n when ?u LIKES ?x\n when ?z LIKES ?x\n then ?u PREFERS ?x\nend"),
      "rules.txt:3: variable ?z is not bound by an earlier when");
  EG_CHECK_STR(parse_error("rule a\n when ?u LIKES ?x\n then ?u PREFERS ?x\n"),
               "rules.txt:3: rule a is not closed (missing end)");
  EG_CHECK_STR(parse_error("rule a\n when ?u LIKES ?x\nend"),
               "rules.txt:3: rule a has no then clause");
  EG_CHECK_STR(parse_error("rule a\n when ?u LIKES ?x\n then ?u LIKES food\nend"),
               "rules.txt:4: rule a concludes a relation its own premises read");
  EG_CHECK_STR(parse_error("rule a\n when ?u LIKES ?x\n count ?x >= 0\n then ?u PREFERS ?x\nend"),
               "rules.txt:3: count needs a number from 1 to 1000, not '0'");
  EG_CHECK_STR(parse_error("rule a\n when ?u LIKES \"open\n"),
               "rules.txt:2: unterminated quoted name");
  EG_CHECK_STR(parse_error("rule a\n when ?u LIKES ?x\n then ?u PREFERS ?x\nend\nrule a\n"),
               "rules.txt:5: rule a is defined twice");
  EG_CHECK_STR(parse_error("rule a\n when ?u LIKES ?x\n then food PREFERS ?x\nend"),
               "rules.txt:4: rule a: the then clause's subject must be a variable");
  EG_CHECK_STR(parse_error("rule a\n when ?v LIKES ?u\n then ?u PREFERS ?v\nend"),
               "rules.txt:4: rule a: the first when's subject must be a constant or the then "
               "clause's subject");
  EG_CHECK_STR(
      parse_error("rule a\n when ?u LIKES ?x\n then ?u PREFERS ?x\n when ?u LIKES ?y\nend"),
      "rules.txt:4: 'when' after then (expected: end)");
  EG_CHECK_STR(parse_error("rule Bad\n"),
               "rules.txt:1: rule needs a name (lower-case, digits, - or _)");
  EG_CHECK_STR(parse_error("rule a\n unless ?u LIKES ?x\n"), "rules.txt:2: unless before any when");
}

/* ---- the matcher, in-process ------------------------------------------------------------ */

static char *dir;
static eg_graph *g;

static const char *rules_text =
    "rule sovereignty\n"
    "  when   ?u OPTIMIZES_FOR \"Data Sovereignty\"\n"
    "  when   ?u REJECTED ?v\n"
    "  unless ?v HAS_PROPERTY eu-hosting\n"
    "  count  ?v >= 2\n"
    "  then   ?u PREFERS eu-hosting\n"
    "end\n"
    "rule likes-what-friends-like\n"
    "  when ?u FRIEND_OF ?f\n"
    "  when ?f LIKES ?x\n"
    "  then ?u MIGHT_LIKE ?x\n"
    "end\n";

static void open_engine(uint32_t max_matches) {
  eg_graph_close(g);
  char path[600];
  snprintf(path, sizeof path, "%s/rules.txt", dir);
  FILE *f = fopen(path, "w");
  EG_REQUIRE(f);
  fputs(rules_text, f);
  fclose(f);
  char data[600];
  snprintf(data, sizeof data, "%s/graph", dir);
  eg_graph_limits lim = {10000, 16384, 8, 64, 1000, 1000, 1000, path, max_matches};
  eg_err e;
  EG_REQUIRE(eg_graph_open(data, &lim, NULL, &g, &e) == EG_OK);
}

/* Commit (subject, rel, object entity or literal) as user; returns the edge id. */
static uint64_t put(const char *user, const char *subject, const char *rel, const char *object,
                    bool literal, bool retract) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "t";
  scope.user = (char *)user;
  Engram__V1__EntityRef subj = ENGRAM__V1__ENTITY_REF__INIT, obj = ENGRAM__V1__ENTITY_REF__INIT;
  subj.ref_case = obj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  subj.name = (char *)subject;
  obj.name = (char *)object;
  Engram__V1__EdgeInput in = ENGRAM__V1__EDGE_INPUT__INIT, *ins[1] = {&in};
  in.subject = &subj;
  in.relation = (char *)rel;
  if (literal)
    in.object_literal = (char *)object;
  else
    in.object_entity = &obj;
  in.op = retract ? ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT : ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT;
  Engram__V1__CommitRequest req = ENGRAM__V1__COMMIT_REQUEST__INIT;
  req.scope = &scope;
  req.edges = ins;
  req.n_edges = 1;
  Engram__V1__CommitResponse resp = ENGRAM__V1__COMMIT_RESPONSE__INIT;
  eg_err e;
  uint64_t id = eg_graph_commit(g, &req, a, &resp, &e) == EG_OK ? resp.edge_ids[0] : 0;
  if (!id) fprintf(stderr, "commit: %s\n", e.msg);
  eg_arena_free(a);
  return id;
}

/* The current values of (subject, rel) in user's view, copied into ids (edge ids) and
 * the number of those DERIVED. Returns how many values there are. */
static size_t values(const char *user, const char *subject, const char *rel, uint64_t *ids,
                     size_t *derived, size_t *n_premises) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "t";
  scope.user = (char *)user;
  Engram__V1__EntityRef subj = ENGRAM__V1__ENTITY_REF__INIT;
  subj.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  subj.name = (char *)subject;
  Engram__V1__StateQuery q = ENGRAM__V1__STATE_QUERY__INIT, *qs[1] = {&q};
  q.subject = &subj;
  q.relation = (char *)rel;
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qs;
  req.n_queries = 1;
  Engram__V1__StateResponse resp = ENGRAM__V1__STATE_RESPONSE__INIT;
  eg_err e;
  size_t n = 0;
  if (derived) *derived = 0;
  if (eg_graph_state(g, &req, a, &resp, &e) == EG_OK && resp.n_results == 1) {
    Engram__V1__StateResult *r = resp.results[0];
    for (size_t i = 0; i < r->n_values; i++) {
      Engram__V1__Edge *v = r->values[i];
      if (ids) ids[n] = v->id;
      if (derived && v->meta && v->meta->provenance == DERIVED) (*derived)++;
      if (n_premises) *n_premises = v->n_derived_from;
      n++;
    }
  }
  eg_arena_free(a);
  return n;
}

static void test_match_count_unless(void) {
  dir = eg_test_tempdir("derive");
  open_engine(1000);
  /* The goal as a literal in other words: constants match by normalized text. */
  EG_REQUIRE(put("u1", "user:u1", "OPTIMIZES_FOR", "data sovereignty", true, false));
  EG_REQUIRE(put("u1", "user:u1", "REJECTED", "vendor-a", false, false));
  size_t derived, np;
  EG_CHECK_INT(values("u1", "user:u1", "PREFERS", NULL, NULL, NULL),
               0); /* one rejection: count not met */
  /* A second vendor that has the property does not count. */
  EG_REQUIRE(put("", "vendor-b", "HAS_PROPERTY", "eu-hosting", false, false));
  EG_REQUIRE(put("u1", "user:u1", "REJECTED", "vendor-b", false, false));
  EG_CHECK_INT(values("u1", "user:u1", "PREFERS", NULL, NULL, NULL), 0);
  EG_REQUIRE(put("u1", "user:u1", "REJECTED", "vendor-c", false, false));
  EG_CHECK_INT(values("u1", "user:u1", "PREFERS", NULL, &derived, &np), 1);
  EG_CHECK_INT(derived, 1);
  EG_CHECK_INT(np, 3); /* OPTIMIZES_FOR and the two rejections that count */
  /* The same commit again (idempotent): nothing new, the conclusion is the same edge. */
  uint64_t before, after;
  values("u1", "user:u1", "PREFERS", &before, NULL, NULL);
  EG_REQUIRE(put("u1", "user:u1", "REJECTED", "vendor-c", false, false));
  values("u1", "user:u1", "PREFERS", &after, NULL, NULL);
  EG_CHECK(before == after);
  /* vendor-c gains the property (a shared edge, one hop from the user): retracted. */
  EG_REQUIRE(put("", "vendor-c", "HAS_PROPERTY", "eu-hosting", false, false));
  EG_CHECK_INT(values("u1", "user:u1", "PREFERS", NULL, NULL, NULL), 0);
  /* The property retracted brings it back with the very premises it had: a new commit,
   * not the old edge that the same identity names. */
  EG_REQUIRE(put("", "vendor-c", "HAS_PROPERTY", "eu-hosting", false, true));
  EG_CHECK_INT(values("u1", "user:u1", "PREFERS", &after, &derived, &np), 1);
  EG_CHECK(after != before && derived == 1 && np == 3);
  /* A third rejection: the conclusion's premises still hold, so it stands as it is. */
  EG_REQUIRE(put("u1", "user:u1", "REJECTED", "vendor-d", false, false));
  EG_CHECK_INT(values("u1", "user:u1", "PREFERS", &before, NULL, NULL), 1);
  EG_CHECK(before == after);
}

static void test_join_and_users(void) {
  /* Two-hop join; u2's edges never feed u1's conclusions. */
  EG_REQUIRE(put("u1", "user:u1", "FRIEND_OF", "ana", false, false));
  EG_REQUIRE(put("u2", "ana", "LIKES", "jazz", false, false));
  EG_CHECK_INT(values("u1", "user:u1", "MIGHT_LIKE", NULL, NULL, NULL), 0);
  EG_REQUIRE(put("u1", "ana", "LIKES", "opera", false, false));
  uint64_t ids[4];
  EG_CHECK_INT(values("u1", "user:u1", "MIGHT_LIKE", ids, NULL, NULL), 1);
  EG_CHECK_INT(values("u2", "user:u1", "MIGHT_LIKE", NULL, NULL, NULL), 0); /* u1's conclusion */
  /* A stated edge of the same triple is never overridden: stated first, nothing derived. */
  EG_REQUIRE(put("u1", "user:u1", "MIGHT_LIKE", "blues", false, false));
  EG_REQUIRE(put("u1", "ana", "LIKES", "blues", false, false));
  size_t derived;
  EG_CHECK_INT(values("u1", "user:u1", "MIGHT_LIKE", NULL, &derived, NULL), 2);
  EG_CHECK_INT(derived, 1);
}

static void test_cap(void) {
  /* With room for 2 matches only, the evaluation is capped: it asserts nothing it has not
   * seen complete and retracts nothing. */
  open_engine(2);
  EG_REQUIRE(put("u3", "user:u3", "OPTIMIZES_FOR", "data sovereignty", true, false));
  EG_REQUIRE(put("u3", "user:u3", "REJECTED", "vendor-x", false, false));
  EG_REQUIRE(put("u3", "user:u3", "REJECTED", "vendor-y", false, false));
  EG_CHECK_INT(values("u3", "user:u3", "PREFERS", NULL, NULL, NULL), 0);
  open_engine(1000);
  EG_REQUIRE(put("u3", "user:u3", "REJECTED", "vendor-y", false, false));
  EG_CHECK_INT(values("u3", "user:u3", "PREFERS", NULL, NULL, NULL), 1);
  eg_graph_close(g);
  g = NULL;
  eg_test_rmtree(dir);
}

int main(void) {
  EG_RUN(test_parse_shipped);
  EG_RUN(test_parse_errors);
  EG_RUN(test_match_count_unless);
  EG_RUN(test_join_and_users);
  EG_RUN(test_cap);
  return eg_test_finish();
}
