/*
 * test_bench_prefs.c — `engram-bench prefs` on two scenarios of bench/data/prefs.json, with
 * both enrichers on one set of daemons: it runs, reports numbers in range, the stand-in for
 * the chat model answers every annotated round, each question names its half (--split), and
 * the perfectly annotated plain scenario and the outcome-weighted one are fully right on the
 * LLM path (the outcome recorded by the client puts the dinner that went badly below the
 * held confidence). A set that is not one is refused with the reason.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testlib.h"

static char *dir;

static const cJSON *run_of(const cJSON *report, const char *enricher) {
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItem(report, "runs")) {
    const char *e = cJSON_GetStringValue(cJSON_GetObjectItem(r, "enricher"));
    if (e && !strcmp(e, enricher)) return r;
  }
  return NULL;
}

static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItem(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Every question of the scenario right in this run (and at least one asked). */
static bool scenario_right(const cJSON *run, const char *scenario) {
  int asked = 0, right = 0;
  const cJSON *q;
  cJSON_ArrayForEach(q, cJSON_GetObjectItem(run, "questions")) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(q, "scenario"));
    if (!s || strcmp(s, scenario)) continue;
    asked++;
    right += cJSON_IsTrue(cJSON_GetObjectItem(q, "correct"));
  }
  return asked > 0 && right == asked;
}

static void in_range(const cJSON *run) {
  const cJSON *all = cJSON_GetObjectItem(run, "all");
  EG_REQUIRE(all != NULL);
  EG_CHECK_INT(num(all, "questions"), 4);
  for (const char *const *k = (const char *const[]){"accuracy", "precision", "recall", NULL}; *k;
       k++)
    EG_CHECK(num(all, *k) >= 0 && num(all, *k) <= 1);
  EG_CHECK(num(all, "correct") <= num(all, "questions"));
  EG_CHECK_INT(num(run, "outcomes_recorded"),
               2); /* SUCCEEDED on Sakura Garden, FAILED on Bella Napoli */
}

static void test_smoke(void) {
  EG_REQUIRE(
      eg_test_system(
          "%s/engram-bench prefs --enricher both --scenarios sushi-trivial,restaurant-outcomes "
          "--json %s/prefs.json >%s/prefs.out 2>&1",
          EG_BINARY_DIR, dir, dir) == 0);
  char path[1024];
  snprintf(path, sizeof path, "%s/prefs.json", dir);
  char *text = eg_test_slurp(path);
  cJSON *report = cJSON_Parse(text);
  free(text);
  EG_REQUIRE(report != NULL);
  EG_CHECK_INT(num(report, "scenarios"), 2);
  const cJSON *rules = run_of(report, "rules"), *llm = run_of(report, "llm");
  EG_REQUIRE(rules && llm);
  in_range(rules);
  in_range(llm);
  /* the plumbing from the model's answer to the graph: every annotated round answered */
  EG_CHECK_INT(num(llm, "annotated_rounds"), 5);
  EG_CHECK_INT(num(llm, "standin_annotated"), 5);
  /* the upper bound gets the trivial scenario and the outcome-weighted one right */
  EG_CHECK(scenario_right(llm, "sushi-trivial"));
  EG_CHECK(scenario_right(llm, "restaurant-outcomes"));
  EG_CHECK(num(cJSON_GetObjectItem(llm, "all"), "accuracy") == 1);
  /* the trivial scenario is said in the rules' own words */
  EG_CHECK(scenario_right(rules, "sushi-trivial"));
  /* every question names its scenario's half (both of these are of the confirm half) */
  EG_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(report, "split")), "all");
  const cJSON *q;
  int confirm = 0;
  cJSON_ArrayForEach(q, cJSON_GetObjectItem(rules, "questions")) {
    const char *half = cJSON_GetStringValue(cJSON_GetObjectItem(q, "split"));
    confirm += half && !strcmp(half, "confirm");
  }
  EG_CHECK_INT(confirm, 4);
  snprintf(path, sizeof path, "%s/prefs.out", dir);
  text = eg_test_slurp(path);
  EG_CHECK(strstr(text, "### enricher: rules") && strstr(text, "### enricher: llm"));
  EG_CHECK(strstr(text, "| all | 4 |") != NULL);
  free(text);
  cJSON_Delete(report);
}

static void test_bad_input(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/bad.json", dir);
  FILE *f = fopen(path, "w");
  EG_REQUIRE(f != NULL);
  fputs(
      "{\"scenarios\": [{\"name\": \"x\", \"sessions\": [], \"questions\": [{\"id\": \"q\", "
      "\"question\": \"?\", "
      "\"at\": \"2026-01-01\", \"expect\": [{\"relation\": \"LOVES\", \"object\": \"tea\", \"is\": "
      "\"present\"}]}]}]}",
      f);
  fclose(f);
  EG_CHECK(eg_test_system("%s/engram-bench prefs --data %s >/dev/null 2>%s/bad.err", EG_BINARY_DIR,
                          path, dir) == 1);
  snprintf(path, sizeof path, "%s/bad.err", dir);
  char *err = eg_test_slurp(path);
  EG_CHECK(strstr(err, "x/q: an expectation needs relation, object and is present|absent|higher") !=
           NULL);
  free(err);
  EG_CHECK(eg_test_system("%s/engram-bench prefs --enricher gpt 2>/dev/null", EG_BINARY_DIR) == 2);
  EG_CHECK(eg_test_system("%s/engram-bench prefs --scenarios nosuch 2>/dev/null", EG_BINARY_DIR) ==
           1);
  /* neither scenario is of the tune half: nothing to run */
  EG_CHECK(eg_test_system(
               "%s/engram-bench prefs --scenarios sushi-trivial,restaurant-outcomes --split tune "
               "2>/dev/null",
               EG_BINARY_DIR) == 1);
}

int main(void) {
  dir = eg_test_tempdir("bench_prefs");
  EG_RUN(test_bad_input);
  EG_RUN(test_smoke);
  int rc = eg_test_finish();
  if (rc == 0)
    eg_test_rmtree(dir);
  else
    fprintf(stderr, "kept %s\n", dir);
  free(dir);
  return rc;
}
