/*
 * test_values.c — "what the user values" in Recall, through all four real daemons:
 * preferences stated in chat over two sessions shown with their accumulated confidence for
 * a question they bear on, and not for one they do not; an outcome recorded with
 * Graph.RecordOutcome; a switch and an evolution answered from the chain with dates and
 * reasons; a derived preference whose premise changed; the token budget cutting the part
 * between whole lines; the excerpts' order untouched by a preference on the question.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rpc.h"
#include "common/text.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

#define HEADING "What the user values"

static eg_cluster cl;
static eg_rpc_client *ing, *rec, *gra;

static Engram__V1__RecallResponse *ask_in(const char *tenant, const char *q, uint32_t budget) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  scope.user = "u1";
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.scope = &scope;
  req.query = (char *)q;
  req.query_time = T("2025-04-01");
  req.k = 6;
  req.token_budget = budget;
  Engram__V1__RecallResponse *r = NULL;
  eg_err e;
  if (eg_recalld_recall(rec, &req, &r, &e)) {
    fprintf(stderr, "recall: %s\n", e.msg);
    return NULL;
  }
  return r;
}

static Engram__V1__RecallResponse *ask(const char *q, uint32_t budget) {
  return ask_in("t", q, budget);
}

/* The preference items of r (FACT items marked preference), how many; *first = the first. */
static size_t prefs(const Engram__V1__RecallResponse *r, const Engram__V1__RecallItem **first) {
  size_t n = 0;
  *first = NULL;
  for (size_t i = 0; i < r->n_items; i++)
    if (r->items[i]->preference) {
      EG_CHECK_INT(r->items[i]->kind, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT);
      if (!n++) *first = r->items[i];
    }
  return n;
}

static void say_in(const char *tenant, const char *sid, const char *when, const char *user_text,
                   const char *reply) {
  const char *const m[] = {"user", user_text, "assistant", reply};
  eg_err e;
  EG_REQUIRE(ic_session(ing, tenant, "u1", sid, T(when), m, 2, false, NULL, &e) == EG_OK);
}

static void say(const char *sid, const char *when, const char *user_text, const char *reply) {
  say_in("t", sid, when, user_text, reply);
}

static uint64_t commit_in(const char *tenant, eg_edge_spec s) {
  eg_err e;
  uint64_t id = gc_commit(gra, tenant, "u1", &s, &e);
  if (!id) fprintf(stderr, "commit: %s\n", e.msg);
  return id;
}

static uint64_t commit(eg_edge_spec s) { return commit_in("t", s); }

static void show(const Engram__V1__RecallResponse *r) {
  if (eg_test_failed()) fprintf(stderr, "--- context:\n%s---\n", r ? r->context : "(none)");
}

static void test_start(void) {
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, NULL, &ing, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_RECALLD].addr, NULL, &rec, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
  /* food, said in two sessions; a hosting vendor; chatter */
  say("food-1", "2025-01-10T19:00:00Z",
      "I love thai food. The green curry place downtown is my go-to.",
      "Green curry is a great choice.");
  say("food-2", "2025-02-14T19:00:00Z", "Honestly, I love thai food. Nothing beats it for dinner.",
      "Noted, Thai it is.");
  say("infra", "2025-02-20T09:00:00Z",
      "For the company servers I prefer hetzner as our hosting vendor.",
      "Hetzner is solid and affordable.");
  say("movie", "2025-03-01T20:00:00Z", "What's a good sci-fi movie for tonight?",
      "Arrival is a thoughtful pick, and Interstellar if you want something longer.");
}

/* Two sessions → one preference at 1 − 0.3² = 0.91, shown for a food question only. */
static void test_relevant_preference(void) {
  Engram__V1__RecallResponse *r = ask("What food should I order for dinner tonight?", 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context, HEADING) != NULL);
  EG_CHECK(strstr(r->context, "- likes thai food (confidence 0.91, 2 sources) since 2025-02-14") !=
           NULL);
  EG_CHECK(strstr(r->context, "hetzner") == NULL || strstr(r->context, "prefers hetzner") == NULL);
  const Engram__V1__RecallItem *it;
  EG_CHECK_INT(prefs(r, &it), 1);
  if (it) {
    EG_CHECK_STR(it->fact->relation, "LIKES");
    EG_CHECK(it->fact->belief && fabsf(it->fact->belief->confidence - 0.91f) < 1e-3f);
    EG_CHECK_INT(it->n_history, 1); /* the first session's commit */
    EG_CHECK_STR(it->session_id, "food-2");
  }
  /* the section comes before the excerpts */
  const char *v = strstr(r->context, HEADING), *x = strstr(r->context, "Excerpts");
  EG_CHECK(v && (!x || v < x));
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* no word in common: the statement it was read from is close to the question */
  r = ask("Can you suggest a place for dinner tonight?", 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context, "- likes thai food (confidence 0.91") != NULL);
  EG_CHECK(strstr(r->context, "hetzner (confidence") == NULL);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* the vendor question gets the vendor preference, not the food one */
  r = ask("Which hosting vendor do we use for the servers?", 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context, "- prefers hetzner") != NULL);
  EG_CHECK(strstr(r->context, "thai food (confidence") == NULL);
  EG_CHECK_INT(prefs(r, &it), 1);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* Nothing on the question: no section, no preference item. */
static void test_irrelevant_question(void) {
  Engram__V1__RecallResponse *r = ask("Which sci-fi movie did you suggest?", 0);
  EG_REQUIRE(r != NULL);
  const Engram__V1__RecallItem *it;
  EG_CHECK(strstr(r->context, HEADING) == NULL);
  EG_CHECK_INT(prefs(r, &it), 0);
  EG_CHECK(strstr(r->context, "Arrival") != NULL); /* the excerpts are still there */
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* An outcome recorded on the preference shows with it and raises its confidence. */
static void test_outcome(void) {
  Engram__V1__StateResponse *st = NULL;
  eg_err e;
  EG_REQUIRE(gc_state_as(gra, "t", "u1", "user:u1", "LIKES", 0, 0, &st, &e) == EG_OK);
  uint64_t id = 0;
  for (size_t i = 0; i < st->n_results; i++)
    for (size_t v = 0; v < st->results[i]->n_values; v++)
      if (!strcmp(st->results[i]->values[v]->object->literal, "thai food"))
        id = st->results[i]->values[v]->id;
  protobuf_c_message_free_unpacked(&st->base, NULL);
  EG_REQUIRE(id != 0);
  EG_REQUIRE(gc_outcome(gra, "t", "u1", id, ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_SUCCEEDED,
                        "loved the curry", NULL, &e) == EG_OK);
  Engram__V1__RecallResponse *r = ask("What food should I order for dinner tonight?", 0);
  EG_REQUIRE(r != NULL);
  /* support 1 − 0.3·0.3·0.4 */
  EG_CHECK(strstr(r->context,
                  "- likes thai food (confidence 0.96, 2 sources; last outcome SUCCEEDED ") !=
           NULL);
  EG_CHECK(strstr(r->context, "\"loved the curry\")") != NULL);
  const Engram__V1__RecallItem *it;
  EG_CHECK_INT(prefs(r, &it), 1);
  EG_CHECK(it && it->fact->n_outcomes == 1 &&
           it->fact->outcomes[0]->kind == ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_SUCCEEDED);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A switch: the earlier value, the dates and the reason, for a state (DRIVES) and for a
 * preference given up for another (PREFERS). */
static void test_switch(void) {
  EG_REQUIRE(commit((eg_edge_spec){.subject = "user:u1",
                                   .relation = "DRIVES",
                                   .literal = "honda civic",
                                   .valid_from = T("2022-01-10"),
                                   .session = "car-1"}));
  EG_REQUIRE(commit((eg_edge_spec){.subject = "user:u1",
                                   .relation = "DRIVES",
                                   .literal = "tesla model 3",
                                   .valid_from = T("2024-03-01"),
                                   .session = "car-2",
                                   .reason = "because the civic kept breaking down"}));
  Engram__V1__RecallResponse *r = ask("Why did I switch from the honda civic to the tesla?", 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context, "DRIVES tesla model 3 (since 2024-03-01)") != NULL);
  EG_CHECK(strstr(r->context, "why: because the civic kept breaking down") != NULL);
  EG_CHECK(strstr(r->context, "earlier: honda civic (2022-01-10 to 2024-03-01, superseded)") !=
           NULL);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);

  EG_REQUIRE(commit((eg_edge_spec){.subject = "user:u1",
                                   .relation = "PREFERS",
                                   .literal = "window seat",
                                   .valid_from = T("2024-01-05"),
                                   .session = "fly-1",
                                   .confidence = 0.7f}));
  EG_REQUIRE(commit((eg_edge_spec){.subject = "user:u1",
                                   .relation = "PREFERS",
                                   .literal = "window seat",
                                   .retract = true,
                                   .valid_from = T("2024-06-01"),
                                   .session = "fly-2"}));
  EG_REQUIRE(commit((eg_edge_spec){.subject = "user:u1",
                                   .relation = "PREFERS",
                                   .literal = "aisle seat",
                                   .valid_from = T("2024-06-01"),
                                   .session = "fly-2",
                                   .confidence = 0.8f,
                                   .reason = "because I get up a lot on long flights"}));
  r = ask("Why did I switch from window seats to aisle seats?", 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(
      strstr(r->context,
             "- prefers aisle seat (confidence 0.80, 1 source) since 2024-06-01 why: because I get "
             "up a lot on long flights") != NULL);
  EG_CHECK(strstr(r->context, "    2024-01-05: prefers window seat (confidence 0.70)") != NULL);
  EG_CHECK(strstr(r->context, "    2024-06-01: no longer prefers window seat") != NULL);
  const Engram__V1__RecallItem *it;
  EG_CHECK_INT(prefs(r, &it), 1);
  EG_CHECK(it && it->n_history == 2);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* the same question without a change cue lists the value alone */
  r = ask("Do I prefer aisle seats?", 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context, "- prefers aisle seat") != NULL);
  EG_CHECK(strstr(r->context, "window seat") == NULL);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* an evolution: each step with its date and the confidence it had */
  r = ask("How did my preferences on seats evolve?", 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context, "    2024-01-05: prefers window seat (confidence 0.70)") != NULL);
  EG_CHECK(strstr(r->context, "- prefers aisle seat (confidence 0.80") != NULL);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A derived preference is marked so, and POTENTIALLY_STALE once its premise changed. */
static void test_derived(void) {
  uint64_t diet = commit((eg_edge_spec){.subject = "user:u1",
                                        .relation = "DIET",
                                        .literal = "vegetarian",
                                        .valid_from = T("2024-02-01")});
  EG_REQUIRE(diet);
  uint64_t premises[] = {diet};
  EG_REQUIRE(commit((eg_edge_spec){.subject = "user:u1",
                                   .relation = "PREFERS",
                                   .literal = "vegetarian restaurants",
                                   .valid_from = T("2024-02-02"),
                                   .premises = premises,
                                   .n_premises = 1,
                                   .confidence = 0.6f}));
  Engram__V1__RecallResponse *r = ask("Which restaurants do I prefer?", 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context,
                  "- prefers vegetarian restaurants (derived; confidence 0.60, 1 source) since "
                  "2024-02-02") != NULL);
  EG_CHECK(strstr(r->context, "POTENTIALLY_STALE") == NULL);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_REQUIRE(commit((eg_edge_spec){.subject = "user:u1",
                                   .relation = "DIET",
                                   .literal = "omnivore",
                                   .valid_from = T("2025-03-01")}));
  r = ask("Which restaurants do I prefer?", 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context,
                  "- prefers vegetarian restaurants (derived; confidence 0.60, 1 source) since "
                  "2024-02-02") != NULL);
  EG_CHECK(strstr(r->context,
                  "[POTENTIALLY_STALE: a premise changed on 2025-03-01: the user DIET omnivore]") !=
           NULL);
  const Engram__V1__RecallItem *it;
  EG_CHECK(prefs(r, &it) >= 1 &&
           it->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* The budget cuts between whole lines, and never leaves the heading without a value. */
static void test_budget(void) {
  const char *q = "Why did I switch from window seats to aisle seats?";
  Engram__V1__RecallResponse *r = ask(q, 0);
  EG_REQUIRE(r != NULL);
  const char *v = strstr(r->context, HEADING);
  EG_REQUIRE(v != NULL);
  /* the words before the section, and those of its first unit (heading + first value) */
  size_t before;
  {
    char *head = strndup(r->context, (size_t)(v - r->context));
    before = eg_text_words(head);
    free(head);
  }
  const char *end = strstr(v, "\n- ");
  end = end ? strstr(end + 3, "\n") : NULL; /* the end of the first value's line */
  while (end && !strncmp(end, "\n    ", 5)) end = strstr(end + 1, "\n");
  EG_REQUIRE(end != NULL);
  char *unit = strndup(v, (size_t)(end + 1 - v));
  size_t unit_words = eg_text_words(unit);
  protobuf_c_message_free_unpacked(&r->base, NULL);

  r = ask(q, (uint32_t)(before + unit_words)); /* room for exactly the first value */
  EG_REQUIRE(r != NULL);
  const char *at = strstr(r->context, HEADING);
  EG_CHECK(at != NULL && !strcmp(at, unit)); /* the unit whole, and nothing after it */
  EG_CHECK_INT(r->context_tokens, before + unit_words);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);

  r = ask(q, (uint32_t)(before + unit_words - 1)); /* one word short: no heading alone */
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context, HEADING) == NULL);
  EG_CHECK(strstr(r->context, "aisle seat (confidence") == NULL);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  free(unit);
}

/* The chunk items of r, their ids in order, into ids (at most cap); returns how many. */
static size_t chunk_order(const Engram__V1__RecallResponse *r, uint64_t *ids, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < r->n_items && n < cap; i++)
    if (r->items[i]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK)
      ids[n++] = r->items[i]->chunk_id;
  return n;
}

/* A preference that bears on the question adds its part and moves no excerpt. */
static void test_excerpts_unmoved(void) {
  say_in("t2", "e1", "2025-01-03T12:00:00Z",
         "We had lunch at the harbour, the fish market was busy.", "Sounds lovely.");
  say_in("t2", "e2", "2025-01-20T12:00:00Z", "The japanese place near work opened a second room.",
         "Good to know.");
  say_in("t2", "e3", "2025-02-02T12:00:00Z", "My sister recommended a ramen bar in the old town.",
         "Worth a try.");
  const char *q = "Where should I go for sushi this weekend?";
  uint64_t before[16], after[16];
  Engram__V1__RecallResponse *r = ask_in("t2", q, 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context, HEADING) == NULL);
  size_t nb = chunk_order(r, before, 16);
  EG_CHECK(nb >= 2);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_REQUIRE(commit_in("t2", (eg_edge_spec){.subject = "user:u1",
                                            .relation = "PREFERS",
                                            .literal = "sushi",
                                            .valid_from = T("2025-02-10"),
                                            .session = "app",
                                            .confidence = 0.7f}));
  r = ask_in("t2", q, 0);
  EG_REQUIRE(r != NULL);
  EG_CHECK(strstr(r->context, "- prefers sushi (confidence 0.70, 1 source) since 2025-02-10") !=
           NULL);
  size_t na = chunk_order(r, after, 16);
  EG_CHECK_INT(na, nb);
  EG_CHECK(na == nb && memcmp(before, after, nb * sizeof *before) == 0);
  show(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_relevant_preference);
  EG_RUN(test_irrelevant_question);
  EG_RUN(test_outcome);
  EG_RUN(test_switch);
  EG_RUN(test_derived);
  EG_RUN(test_budget);
  EG_RUN(test_excerpts_unmoved);
  int rc = eg_test_finish();
  eg_rpc_client_close(ing);
  eg_rpc_client_close(rec);
  eg_rpc_client_close(gra);
  eg_cluster_stop(&cl, rc != 0);
  eg_rpc_global_shutdown();
  return rc;
}
