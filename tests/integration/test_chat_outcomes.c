/*
 * test_chat_outcomes.c — outcomes read from chat against the four daemons: a suggestion
 * taken up in one session, what came of it said in a later one ("the restaurant you
 * suggested was great") recorded on that ACCEPTED edge with the session as its source,
 * moving its confidence; nothing recorded when no acceptance fits, nothing twice when a
 * session is ingested again; the LLM enricher (a local stand-in) gives the same.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/stub_http.h"
#include "tests/testlib.h"

#define SUCCEEDED ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_SUCCEEDED
#define FAILED ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_FAILED
#define ACTED_ON ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_ACTED_ON

static eg_cluster cl;
static eg_rpc_client *ing, *gra;

/* The current ACCEPTED edge of object in u1's view: its confidence, its outcomes' count and
 * its last outcome (copied; kind 0 when none). */
typedef struct accepted {
  uint64_t id;
  float confidence;
  size_t n_outcomes, n_all; /* on this edge; on every ACCEPTED edge of the user */
  int kind;
  char source[64], note[256];
  int64_t time;
} accepted;

static accepted accepted_of(const char *tenant, const char *object) {
  accepted r = {0};
  r.confidence = -1;
  Engram__V1__HistoryResponse *h = NULL;
  eg_err e;
  if (gc_history(gra, tenant, "u1", "user:u1", "ACCEPTED", 0, &h, &e) != EG_OK) {
    fprintf(stderr, "History: %s\n", e.msg);
    return r;
  }
  for (size_t i = 0; i < h->n_entries; i++) {
    const Engram__V1__Edge *x = h->entries[i]->edge;
    r.n_all += x->n_outcomes;
    const char *o = x->object->kind_case == ENGRAM__V1__VALUE__KIND_LITERAL ? x->object->literal
                                                                            : x->object_name;
    if (h->entries[i]->superseded || strcmp(o ? o : "", object) != 0) continue;
    r.id = x->id;
    r.confidence = x->belief ? x->belief->confidence : -1;
    r.n_outcomes = x->n_outcomes;
    if (x->n_outcomes) {
      const Engram__V1__Outcome *last = x->outcomes[x->n_outcomes - 1];
      r.kind = last->kind;
      snprintf(r.source, sizeof r.source, "%s", last->source);
      snprintf(r.note, sizeof r.note, "%s", last->note);
      r.time = last->time;
    }
  }
  protobuf_c_message_free_unpacked(&h->base, NULL);
  return r;
}

static bool near(float a, float b) { return fabsf(a - b) < 1e-4f; }

static eg_code say(eg_rpc_client *c, const char *tenant, const char *sid, const char *when,
                   const char *const *msgs, size_t n, Engram__V1__Enricher enricher,
                   bool *duplicate) {
  eg_err e;
  Engram__V1__IngestResponse *r = NULL;
  eg_code rc = ic_session_with(c, tenant, "u1", sid, T(when), msgs, n, enricher, false, &r, &e);
  if (rc) fprintf(stderr, "IngestSession %s: %s\n", sid, e.msg);
  if (duplicate) *duplicate = r && r->report && r->report->duplicate;
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  return rc;
}

static const char *const dinner[] = {
    "user",      "Where should we eat tonight?",
    "assistant", "I recommend Sakura, a lovely sushi restaurant near the station.",
    "user",      "Sounds great, let's go there.",
    "assistant", "Enjoy your dinner!",
};

static void test_start(void) {
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, NULL, &ing, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
}

/* "The restaurant you suggested was great" a week later: SUCCEEDED on the acceptance,
 * from that session, at its time; the confidence rises as with a client's outcome. The
 * same session again (identical, or with a message more) records nothing new; an outcome
 * that fits no acceptance records nothing; "I ended up going to Sakura" is ACTED_ON. */
static void test_succeeded_from_chat(void) {
  const char *t = "chat";
  EG_REQUIRE(say(ing, t, "s1", "2024-03-01T19:00:00Z", dinner, 4, 0, NULL) == EG_OK);
  accepted a0 = accepted_of(t, "Sakura");
  EG_REQUIRE(a0.id != 0);
  EG_CHECK(near(a0.confidence, 0.7f));
  EG_CHECK_INT(a0.n_outcomes, 0);
  static const char *const later[] = {"user", "The restaurant you suggested was great!",
                                      "assistant", "Glad to hear it."};
  EG_REQUIRE(say(ing, t, "s2", "2024-03-08T12:00:00Z", later, 2, 0, NULL) == EG_OK);
  accepted a1 = accepted_of(t, "Sakura");
  EG_CHECK_INT(a1.id, a0.id);
  EG_CHECK_INT(a1.n_outcomes, 1);
  EG_CHECK_INT(a1.kind, SUCCEEDED);
  EG_CHECK_STR(a1.source, "s2");
  EG_CHECK_STR(a1.note, "The restaurant you suggested was great!");
  EG_CHECK_INT(a1.time, T("2024-03-08T12:00:00Z"));
  EG_CHECK(near(a1.confidence, 1 - 0.3f * 0.4f)); /* the edge 0.7 and SUCCEEDED 0.6, noisy-OR */
  /* the same session again, and again with one message more: no second outcome */
  bool dup = false;
  EG_REQUIRE(say(ing, t, "s2", "2024-03-08T12:00:00Z", later, 2, 0, &dup) == EG_OK);
  EG_CHECK(dup);
  static const char *const longer[] = {"user",      "The restaurant you suggested was great!",
                                       "assistant", "Glad to hear it.",
                                       "user",      "Thanks again.",
                                       "assistant", "Any time."};
  EG_REQUIRE(say(ing, t, "s2", "2024-03-08T12:00:00Z", longer, 4, 0, &dup) == EG_OK);
  EG_CHECK(!dup);
  accepted a2 = accepted_of(t, "Sakura");
  EG_CHECK_INT(a2.n_outcomes, 1);
  EG_CHECK(near(a2.confidence, a1.confidence));
  /* no hotel was ever suggested: nothing recorded on any edge */
  static const char *const hotel[] = {"user", "That hotel you recommended was awful."};
  EG_REQUIRE(say(ing, t, "s3", "2024-03-09T08:00:00Z", hotel, 1, 0, NULL) == EG_OK);
  EG_CHECK_INT(accepted_of(t, "Sakura").n_all, 1);
  /* by name: what the user did */
  static const char *const went[] = {"user", "I ended up going to Sakura again last night."};
  EG_REQUIRE(say(ing, t, "s4", "2024-03-20T09:00:00Z", went, 1, 0, NULL) == EG_OK);
  accepted a3 = accepted_of(t, "Sakura");
  EG_CHECK_INT(a3.n_outcomes, 2);
  EG_CHECK_INT(a3.kind, ACTED_ON);
  EG_CHECK_STR(a3.source, "s4");
  EG_CHECK_INT(a3.n_all, 2);
}

/* "That hotel you recommended was awful": FAILED, and the confidence falls. */
static void test_failed_from_chat(void) {
  const char *t = "chat-failed";
  static const char *const trip[] = {"user",      "Any idea where to stay in Lisbon?",
                                     "assistant", "How about the Hotel Lisboa by the river?",
                                     "user",      "Yes, book it."};
  EG_REQUIRE(say(ing, t, "trip", "2024-05-01T10:00:00Z", trip, 3, 0, NULL) == EG_OK);
  accepted a0 = accepted_of(t, "Hotel Lisboa");
  EG_REQUIRE(a0.id != 0);
  static const char *const back[] = {"user", "Honestly, that hotel you recommended was awful."};
  EG_REQUIRE(say(ing, t, "back", "2024-05-10T10:00:00Z", back, 1, 0, NULL) == EG_OK);
  accepted a1 = accepted_of(t, "Hotel Lisboa");
  EG_CHECK_INT(a1.kind, FAILED);
  EG_CHECK_STR(a1.source, "back");
  EG_CHECK(a1.confidence < a0.confidence);
  EG_CHECK(near(a1.confidence, 0.7f * 0.4f));
}

/* The LLM enricher's outcome (a local stand-in answering for the model) lands the same way. */
static eg_stub_reply model(void *ctx, const char *url, const char *auth, const char *body) {
  (void)ctx, (void)url, (void)auth;
  bool outcome = strstr(body, "Segment (user): That sushi place you suggested was great") != NULL;
  cJSON *answer = cJSON_CreateObject();
  cJSON_AddStringToObject(answer, "latent", "The user speaks.");
  cJSON_AddArrayToObject(answer, "entities");
  cJSON_AddArrayToObject(answer, "facts");
  cJSON *outs = cJSON_AddArrayToObject(answer, "outcomes");
  if (outcome) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", "SUCCEEDED");
    cJSON_AddStringToObject(o, "target", "");
    cJSON_AddStringToObject(o, "category", "restaurant");
    cJSON_AddItemToArray(outs, o);
  }
  char *content = cJSON_PrintUnformatted(answer);
  cJSON_Delete(answer);
  cJSON *r = cJSON_CreateObject(), *choices = cJSON_AddArrayToObject(r, "choices"),
        *c = cJSON_CreateObject(), *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "role", "assistant");
  cJSON_AddStringToObject(m, "content", content);
  cJSON_AddItemToObject(c, "message", m);
  cJSON_AddItemToArray(choices, c);
  char *s = cJSON_PrintUnformatted(r);
  cJSON_Delete(r);
  free(content);
  return (eg_stub_reply){200, s, 0, NULL};
}

static void test_llm_outcome(void) {
  eg_stub *st = eg_stub_start(model, NULL);
  EG_REQUIRE(st != NULL);
  char llm[80];
  snprintf(llm, sizeof llm, "--llm-url=http://127.0.0.1:%d/v1", eg_stub_port(st));
  const char *extra[] = {llm, NULL};
  eg_proc p;
  eg_rpc_client *c = ic_second_ingestd(&cl, "llm", extra, &p);
  EG_REQUIRE(c != NULL);
  const char *t = "chat-llm";
  EG_REQUIRE(say(ing, t, "s1", "2024-03-01T19:00:00Z", dinner, 4, 0, NULL) == EG_OK);
  accepted a0 = accepted_of(t, "Sakura");
  EG_REQUIRE(a0.id != 0);
  static const char *const later[] = {"user", "That sushi place you suggested was great, thanks!"};
  EG_CHECK(say(c, t, "llm-2", "2024-03-08T12:00:00Z", later, 1, ENGRAM__V1__ENRICHER__ENRICHER_LLM,
               NULL) == EG_OK);
  EG_CHECK(eg_stub_requests(st) >= 1);
  accepted a1 = accepted_of(t, "Sakura");
  EG_CHECK_INT(a1.n_outcomes, 1);
  EG_CHECK_INT(a1.kind, SUCCEEDED);
  EG_CHECK_STR(a1.source, "llm-2");
  EG_CHECK_INT(a1.time, T("2024-03-08T12:00:00Z"));
  EG_CHECK(near(a1.confidence, 1 - 0.3f * 0.4f));
  eg_rpc_client_close(c);
  EG_CHECK_INT(eg_harness_stop(&p, SIGTERM), 0);
  eg_stub_stop(st);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_succeeded_from_chat);
  EG_RUN(test_failed_from_chat);
  EG_RUN(test_llm_outcome);
  int rc = eg_test_finish();
  eg_rpc_client_close(ing);
  eg_rpc_client_close(gra);
  eg_cluster_stop(&cl, rc != 0);
  eg_rpc_global_shutdown();
  return rc;
}
