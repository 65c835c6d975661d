/*
 * test_llm.c — the LLM enricher against a local server speaking the OpenAI
 * chat-completions protocol: success, 429 then success, timeout and malformed answers
 * (both fall back to the rules, counted).
 */
#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/buf.h"
#include "common/time.h"
#include "services/ingestd/enrich_llm.h"
#include "tests/stub_http.h"
#include "tests/testlib.h"

static atomic_int mode; /* 0 good, 1 429 once, 2 slow, 3 not JSON, 4 bad shape */
static atomic_int throttled;

static char *completion(const char *content) {
  cJSON *r = cJSON_CreateObject(), *choices = cJSON_AddArrayToObject(r, "choices"),
        *c = cJSON_CreateObject(), *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "role", "assistant");
  cJSON_AddStringToObject(m, "content", content);
  cJSON_AddItemToObject(c, "message", m);
  cJSON_AddItemToArray(choices, c);
  char *s = cJSON_PrintUnformatted(r);
  cJSON_Delete(r);
  return s;
}

static eg_stub_reply chat(void *ctx, const char *url, const char *auth, const char *body) {
  (void)ctx, (void)auth;
  if (strcmp(url, "/v1/chat/completions") != 0 || !strstr(body, "\"messages\""))
    return (eg_stub_reply){404, NULL, 0, NULL};
  int m = atomic_load(&mode);
  if (m == 1 && atomic_fetch_add(&throttled, 1) == 0) return (eg_stub_reply){429, NULL, 0, "0"};
  if (m == 2) return (eg_stub_reply){200, completion("{}"), 1500, NULL};
  if (m == 3)
    return (eg_stub_reply){200, completion("Sure! Here is the JSON you asked for"), 0, NULL};
  if (m == 5) /* an outcome of an earlier suggestion */
    return (eg_stub_reply){
        200,
        completion("{\"latent\":\"The user says the restaurant the assistant suggested "
                   "was great.\",\"entities\":[],\"facts\":[],\"outcomes\":[{\"kind\":"
                   "\"SUCCEEDED\",\"target\":\"\",\"category\":\"restaurant\"}]}"),
        0, NULL};
  if (m == 6) /* an outcome of no known kind */
    return (eg_stub_reply){200,
                           completion("{\"latent\":\"x\",\"entities\":[],\"facts\":[],\"outcomes\":"
                                      "[{\"kind\":\"LOVED\",\"target\":\"Sakura\"}]}"),
                           0, NULL};
  if (m == 4)
    return (eg_stub_reply){
        200,
        completion("{\"latent\":\"x\",\"entities\":[],\"facts\":[{\"subject\":\"user\","
                   "\"relation\":\"not snake\",\"object\":\"y\"}]}"),
        0, NULL};
  return (eg_stub_reply){
      200,
      completion("{\"latent\":\"On 2024-03-10 the user said they strongly dislike the React "
                 "framework.\",\"entities\":[{\"name\":\"React\",\"type\":\"product\"}],"
                 "\"facts\":[{\"subject\":\"user\",\"relation\":\"DISLIKES\",\"object\":\"React\","
                 "\"object_is_entity\":true,\"valid_from\":\"2024-03-10\",\"sentiment\":-0.9,"
                 "\"intensity\":0.95,\"reason\":\"\"}]}"),
      0, NULL};
}

static void test_llm_enricher(void) {
  eg_stub *st = eg_stub_start(chat, NULL);
  EG_REQUIRE(st != NULL);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", eg_stub_port(st));
  eg_llm *l;
  eg_err e;
  EG_REQUIRE(eg_llm_open(url, "stub", NULL, 500, NULL, "engram_test", &l, &e) == EG_OK);
  eg_enrich_ctx ctx = {.user_entity = "user:u1", .prev = 3, .next = 1};
  int64_t t;
  eg_time_parse("2024-03-10", &t, NULL);
  eg_segment s[1] = {
      {"I moved to London last October, and honestly I hate React.", "user", "", t, 0, 0}};
  eg_enriched out[1];
  uint32_t fb = 9;
  /* a good answer is used as given */
  eg_arena *a = eg_arena_new(0, 0);
  atomic_store(&mode, 0);
  EG_REQUIRE(eg_enrich_llm(l, &ctx, s, 1, a, out, &fb, &e) == EG_OK);
  EG_CHECK_INT(fb, 0);
  EG_CHECK(strstr(out[0].latent, "strongly dislike the React framework") != NULL);
  EG_REQUIRE(out[0].n_facts == 1);
  EG_CHECK_STR(out[0].facts[0].relation, "DISLIKES");
  EG_CHECK_STR(out[0].facts[0].subject, "user:u1");
  EG_CHECK(out[0].facts[0].object_entity);
  EG_CHECK(out[0].facts[0].intensity > 0.9f);
  /* 429 then success */
  atomic_store(&mode, 1);
  int before = eg_stub_requests(st);
  EG_REQUIRE(eg_enrich_llm(l, &ctx, s, 1, a, out, &fb, &e) == EG_OK);
  EG_CHECK_INT(fb, 0);
  EG_CHECK_INT(eg_stub_requests(st) - before, 2);
  /* a timeout, a non-JSON answer and a malformed fact all fall back to the rules */
  for (int m = 2; m <= 4; m++) {
    atomic_store(&mode, m);
    EG_REQUIRE(eg_enrich_llm(l, &ctx, s, 1, a, out, &fb, &e) == EG_OK);
    EG_CHECK_INT(fb, 1);
    bool lives = false;
    for (size_t i = 0; i < out[0].n_facts; i++)
      lives |= !strcmp(out[0].facts[i].relation, "LIVES_IN");
    EG_CHECK(lives); /* the rules' reading */
    EG_CHECK(strstr(out[0].latent, "\"last October\" = 2023-10") != NULL);
  }
  /* outcomes: kept for the user's words; one of no known kind is a malformed answer */
  atomic_store(&mode, 5);
  eg_segment said[1] = {{"The restaurant you suggested was great!", "user", "", t, 0, 0}};
  EG_REQUIRE(eg_enrich_llm(l, &ctx, said, 1, a, out, &fb, &e) == EG_OK);
  EG_CHECK_INT(fb, 0);
  EG_REQUIRE(out[0].n_outcomes == 1);
  EG_CHECK_STR(out[0].outcomes[0].kind, "SUCCEEDED");
  EG_CHECK_STR(out[0].outcomes[0].category, "restaurant");
  EG_CHECK_STR(out[0].outcomes[0].utterance, "The restaurant you suggested was great!");
  said[0].role = "assistant";
  EG_REQUIRE(eg_enrich_llm(l, &ctx, said, 1, a, out, &fb, &e) == EG_OK);
  EG_CHECK_INT(out[0].n_outcomes, 0);
  atomic_store(&mode, 6);
  EG_REQUIRE(eg_enrich_llm(l, &ctx, s, 1, a, out, &fb, &e) == EG_OK);
  EG_CHECK_INT(fb, 1);
  eg_arena_free(a);
  eg_llm_close(l);
  eg_stub_stop(st);
}

int main(void) {
  EG_RUN(test_llm_enricher);
  return eg_test_finish();
}
