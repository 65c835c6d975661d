/*
 * test_bench.c — engram-bench end to end on tiny hand-made LongMemEval- and LoCoMo-shaped
 * files (written here, with known answers): both systems' metrics, abstention questions
 * left out, resume, the tune and confirm halves (--split), and `qa` against a local
 * stand-in for the chat model.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/stub_http.h"
#include "tests/testlib.h"

static char *dir;

static const char *const distractors[][2] = {
    {"Can you suggest a weeknight pasta recipe with garlic and spinach?",
     "Try aglio e olio with wilted spinach."},
    {"What is a good stretching routine after running?",
     "Hamstring and calf stretches held for thirty seconds."},
    {"How do I repot a snake plant?", "Use a slightly larger pot with cactus soil."},
    {"Any tips for learning Spanish verb conjugations?",
     "Practice the present tense of regular verbs first."},
    {"Which board games work well for four players?",
     "Catan and Ticket to Ride are popular choices."},
    {"How should I organise my tax receipts?", "Keep them by category in labelled folders."},
    {"What are some good podcasts about astronomy?",
     "Try shows that cover the night sky each month."},
    {"How do I clean a cast iron pan?", "Rinse with hot water and oil it lightly after drying."},
    {"Recommend a beginner woodworking project.",
     "A simple bookshelf teaches measuring and joinery."},
    {"How long should I steep green tea?", "About two to three minutes at eighty degrees."},
};
enum { N_DISTRACTORS = sizeof distractors / sizeof *distractors };

/* One LongMemEval-shaped record: the distractor sessions with the evidence sessions
 * (user text, has_answer on the user turn) placed at the given positions. */
static void lme_record(FILE *f, const char *qid, const char *type, const char *question,
                       const char *answer, const char *const *evidence, const int *at, int n_ev) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "question_id", qid);
  cJSON_AddStringToObject(o, "question_type", type);
  cJSON_AddStringToObject(o, "question", question);
  cJSON_AddStringToObject(o, "answer", answer);
  cJSON_AddStringToObject(o, "question_date", "2023/06/01 (Thu) 10:00");
  cJSON *ids = cJSON_AddArrayToObject(o, "haystack_session_ids"),
        *dates = cJSON_AddArrayToObject(o, "haystack_dates");
  cJSON *sess = cJSON_AddArrayToObject(o, "haystack_sessions"),
        *ans = cJSON_AddArrayToObject(o, "answer_session_ids");
  int d = 0;
  for (int pos = 0; pos < N_DISTRACTORS + n_ev; pos++) {
    int e = -1;
    for (int i = 0; i < n_ev; i++)
      if (at[i] == pos) e = i;
    char id[64], date[64];
    snprintf(id, sizeof id, e >= 0 ? "%s_answer_%d" : "%s_noise_%d", qid, e >= 0 ? e : d);
    snprintf(date, sizeof date, "2023/05/%02d (Mon) 09:%02d", 1 + pos, pos);
    cJSON_AddItemToArray(ids, cJSON_CreateString(id));
    cJSON_AddItemToArray(dates, cJSON_CreateString(date));
    if (e >= 0) cJSON_AddItemToArray(ans, cJSON_CreateString(id));
    cJSON *turns = cJSON_CreateArray(), *u = cJSON_CreateObject(), *a = cJSON_CreateObject();
    cJSON_AddStringToObject(u, "role", "user");
    cJSON_AddStringToObject(u, "content", e >= 0 ? evidence[e] : distractors[d][0]);
    if (e >= 0) cJSON_AddTrueToObject(u, "has_answer");
    cJSON_AddStringToObject(a, "role", "assistant");
    cJSON_AddStringToObject(a, "content",
                            e >= 0 ? "Thanks for telling me, noted." : distractors[d][1]);
    cJSON_AddItemToArray(turns, u);
    cJSON_AddItemToArray(turns, a);
    cJSON_AddItemToArray(sess, turns);
    if (e < 0) d++;
  }
  char *s = cJSON_PrintUnformatted(o);
  fprintf(f, "%s\n", s);
  free(s);
  cJSON_Delete(o);
}

static void write_lme(const char *path) {
  FILE *f = fopen(path, "w");
  const char *dog[] = {"By the way, my dog Biscuit is a golden retriever and he turned three."};
  lme_record(f, "tiny_dog", "single-session-user", "What is the name of my dog?", "Biscuit", dog,
             (int[]){4}, 1);
  const char *bikes[] = {"I bought a red road bicycle last week to commute to the office.",
                         "I also bought a second bicycle, a mountain bike for the forest trails."};
  /* tiny_dog and tiny_cat_abs are of the tune half, tiny_bicycles of the confirm half */
  lme_record(f, "tiny_bicycles", "multi-session", "How many bicycles did I buy?", "2", bikes,
             (int[]){2, 9}, 2);
  const char *none[] = {"I visited my aunt in Lisbon over the holidays."};
  lme_record(f, "tiny_cat_abs", "single-session-user", "What is the name of my cat?",
             "You never mentioned a cat", none, (int[]){6}, 1);
  fclose(f);
}

/* One LoCoMo conversation: two sessions of eight turns, two questions. */
static void write_locomo(const char *path) {
  static const char *const s1[] = {"Hi Maya! How was your week?",
                                   "Busy! I started pottery classes on Tuesday evenings.",
                                   "That sounds fun. I have been reading a lot of mystery novels.",
                                   "Any favourites?",
                                   "The one set in Oslo was great.",
                                   "I should try it. The weather has been lovely.",
                                   "Yes, we went hiking at the lake on Sunday.",
                                   "Lucky you, talk soon!"};
  static const char *const s2[] = {"Maya, guess what, I adopted a kitten named Pepper!",
                                   "No way! What colour is Pepper?",
                                   "She is grey with white paws.",
                                   "Adorable. My pottery teacher liked my first bowl.",
                                   "You must be proud.",
                                   "I am. Next I will try a vase.",
                                   "Send me a picture of it.",
                                   "I will!"};
  cJSON *root = cJSON_CreateArray(), *c = cJSON_CreateObject(), *conv = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "sample_id", "tiny-conv");
  cJSON_AddStringToObject(conv, "speaker_a", "Maya");
  cJSON_AddStringToObject(conv, "speaker_b", "Leo");
  const char *const *ss[2] = {s1, s2};
  for (int s = 0; s < 2; s++) {
    char key[32], dkey[48];
    snprintf(key, sizeof key, "session_%d", s + 1);
    snprintf(dkey, sizeof dkey, "session_%d_date_time", s + 1);
    cJSON_AddStringToObject(conv, dkey, s ? "3:10 pm on 14 June, 2023" : "1:56 pm on 8 May, 2023");
    cJSON *turns = cJSON_AddArrayToObject(conv, key);
    for (int t = 0; t < 8; t++) {
      cJSON *x = cJSON_CreateObject();
      char id[16];
      snprintf(id, sizeof id, "D%d:%d", s + 1, t + 1);
      cJSON_AddStringToObject(x, "speaker", (t % 2) ^ s ? "Maya" : "Leo");
      cJSON_AddStringToObject(x, "dia_id", id);
      cJSON_AddStringToObject(x, "text", ss[s][t]);
      cJSON_AddItemToArray(turns, x);
    }
  }
  cJSON_AddItemToObject(c, "conversation", conv);
  cJSON *qa = cJSON_AddArrayToObject(c, "qa");
  cJSON_AddItemToArray(
      qa, cJSON_Parse("{\"question\":\"What is the name of the kitten that was adopted?\","
                      "\"answer\":\"Pepper\",\"evidence\":[\"D2:1\"],\"category\":4}"));
  cJSON_AddItemToArray(
      qa, cJSON_Parse("{\"question\":\"When did Maya start pottery classes?\","
                      "\"answer\":\"May 2023\",\"evidence\":[\"D1:2\"],\"category\":2}"));
  cJSON_AddItemToArray(
      qa, cJSON_Parse("{\"question\":\"What did Maya buy?\",\"evidence\":[],\"category\":5,"
                      "\"adversarial_answer\":\"a car\"}"));
  cJSON_AddItemToArray(root, c);
  char *s = cJSON_Print(root);
  FILE *f = fopen(path, "w");
  fputs(s, f);
  fclose(f);
  free(s);
  cJSON_Delete(root);
}

/* <dir>/<name>.json, the report of a run. */
static cJSON *load_report(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.json", dir, name);
  char *s = eg_test_slurp(path);
  cJSON *j = cJSON_Parse(s);
  free(s);
  return j;
}

static double metric(const cJSON *report, const char *sys, const char *cat, const char *name) {
  const cJSON *s = cJSON_GetObjectItem(cJSON_GetObjectItem(report, "systems"), sys);
  const cJSON *c = !strcmp(cat, "overall")
                       ? cJSON_GetObjectItem(s, "overall")
                       : cJSON_GetObjectItem(cJSON_GetObjectItem(s, "by_category"), cat);
  const cJSON *v = cJSON_GetObjectItem(c, name);
  return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static int lines(const char *path) {
  char *s = eg_test_slurp(path);
  int n = 0;
  for (char *p = s; p && *p; p++) n += *p == '\n';
  free(s);
  return n;
}

/* The score `name` of question id for sys in a results log; -1 when absent. */
static double logged(const char *path, const char *id, const char *sys, const char *name) {
  char *s = eg_test_slurp(path);
  double v = -1;
  for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
    cJSON *j = cJSON_Parse(line);
    if (!strcmp(cJSON_GetObjectItem(j, "id")->valuestring, id) &&
        !strcmp(cJSON_GetObjectItem(j, "system")->valuestring, sys)) {
      const cJSON *x = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "scores"), name);
      if (cJSON_IsNumber(x)) v = x->valuedouble;
    }
    cJSON_Delete(j);
  }
  free(s);
  return v;
}

/* The half a results log gives question id (of its first line); "" when absent. */
static char *logged_split(const char *path, const char *id) {
  char *s = eg_test_slurp(path), *half = strdup("");
  for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
    cJSON *j = cJSON_Parse(line);
    const char *split = cJSON_GetStringValue(cJSON_GetObjectItem(j, "split"));
    if (!*half && !strcmp(cJSON_GetObjectItem(j, "id")->valuestring, id) && split)
      free(half), half = strdup(split);
    cJSON_Delete(j);
  }
  free(s);
  return half;
}

/* A count that is not one (or out of range) gets the usage, not a run: perf and load take
 * them positionally, lme/locomo/qa as options. */
static void test_bad_counts(void) {
  EG_CHECK(eg_test_system("%s/engram-bench perf --help 2>/dev/null", EG_BINARY_DIR) == 2);
  EG_CHECK(eg_test_system("%s/engram-bench perf 3 glove 0 2>/dev/null", EG_BINARY_DIR) == 2);
  EG_CHECK(eg_test_system("%s/engram-bench perf 3x 2>/dev/null", EG_BINARY_DIR) == 2);
  EG_CHECK(eg_test_system("%s/engram-bench load --help 2>/dev/null", EG_BINARY_DIR) == 2);
  EG_CHECK(eg_test_system("%s/engram-bench lme --limit 1O 2>/dev/null", EG_BINARY_DIR) == 2);
  EG_CHECK(eg_test_system("%s/engram-bench lme --jobs 0 2>/dev/null", EG_BINARY_DIR) == 2);
  EG_CHECK(eg_test_system("%s/engram-bench locomo --k many 2>/dev/null", EG_BINARY_DIR) == 2);
}

/* A --split that is not a half is refused before anything runs, with the reason. */
static void test_bad_split(void) {
  EG_CHECK(eg_test_system("%s/engram-bench lme --split half 2>%s/split.err", EG_BINARY_DIR, dir) ==
           2);
  char path[512];
  snprintf(path, sizeof path, "%s/split.err", dir);
  char *err = eg_test_slurp(path);
  EG_CHECK(strstr(err, "--split is tune or confirm, not half") != NULL);
  free(err);
  EG_CHECK(eg_test_system("%s/engram-bench locomo --split 2>/dev/null", EG_BINARY_DIR) == 2);
  EG_CHECK(eg_test_system("%s/engram-bench qa --split Tune 2>/dev/null", EG_BINARY_DIR) == 2);
  EG_CHECK(eg_test_system("%s/engram-bench textfacts --split even 2>/dev/null", EG_BINARY_DIR) ==
           2);
  EG_CHECK(eg_test_system("%s/engram-bench textfacts --half even --split tune 2>/dev/null",
                          EG_BINARY_DIR) == 2);
  EG_CHECK(eg_test_system("%s/engram-bench prefs --split odd 2>/dev/null", EG_BINARY_DIR) == 2);
}

static void test_lme(void) {
  /* an --out that would overwrite the data is refused */
  EG_CHECK(
      eg_test_system("%s/engram-bench lme --data %s/tiny-lme.jsonl --out %s/tiny-lme 2>/dev/null",
                     EG_BINARY_DIR, dir, dir) != 0);
  EG_REQUIRE(eg_test_system("%s/engram-bench lme --data %s/tiny-lme.jsonl --baseline fts5 --out "
                            "%s/lme --jobs 2 >%s/lme.out",
                            EG_BINARY_DIR, dir, dir, dir) == 0);
  cJSON *r = load_report("lme");
  EG_REQUIRE(r != NULL);
  char path[512];
  for (int s = 0; s < 2; s++) {
    const char *sys = s ? "fts5" : "engram";
    EG_CHECK(metric(r, sys, "overall", "questions") == 2); /* the _abs question is not scored */
    EG_CHECK(metric(r, sys, "overall", "recall_all@5") == 1);
    EG_CHECK(metric(r, sys, "overall", "recall_any@10") == 1);
    EG_CHECK(metric(r, sys, "overall", "turn_recall_any@10") == 1);
    EG_CHECK(metric(r, sys, "single-session-user", "ndcg@10") == 1);
    EG_CHECK(metric(r, sys, "multi-session", "ndcg@10") == 1);
  }
  EG_CHECK(cJSON_GetObjectItem(r, "failures")->valueint == 0);
  EG_CHECK(strstr(cJSON_GetObjectItem(r, "command")->valuestring, "--baseline fts5") != NULL);
  cJSON_Delete(r);
  snprintf(path, sizeof path, "%s/lme.jsonl", dir);
  EG_CHECK_INT(lines(path), 4);
  EG_CHECK(logged(path, "tiny_dog", "engram", "ndcg@10") == 1);
  EG_CHECK(logged(path, "tiny_cat_abs", "engram", "ndcg@10") == -1);
  /* every line names its question's half, so two runs compare per half */
  char *half = logged_split(path, "tiny_dog");
  EG_CHECK_STR(half, "tune");
  free(half);
  half = logged_split(path, "tiny_bicycles");
  EG_CHECK_STR(half, "confirm");
  free(half);
  snprintf(path, sizeof path, "%s/lme.md", dir);
  char *md = eg_test_slurp(path);
  EG_CHECK(strstr(md, "| overall | 2 | 1.000 | 1.000 |") != NULL);
  free(md);
  /* resumed: nothing is asked again, the totals are the same */
  EG_REQUIRE(
      eg_test_system(
          "%s/engram-bench lme --data %s/tiny-lme.jsonl --baseline fts5 --out %s/lme --resume "
          ">%s/lme2.out 2>&1",
          EG_BINARY_DIR, dir, dir, dir) == 0);
  snprintf(path, sizeof path, "%s/lme.jsonl", dir);
  EG_CHECK_INT(lines(path), 4);
  r = load_report("lme");
  EG_CHECK(metric(r, "engram", "overall", "recall_all@10") == 1 &&
           metric(r, "fts5", "overall", "questions") == 2);
  cJSON_Delete(r);
  snprintf(path, sizeof path, "%s/lme2.out", dir);
  char *out = eg_test_slurp(path);
  EG_CHECK(strstr(out, "resuming: 4 results") != NULL);
  free(out);
}

/* --split tune then confirm: each run asks only its half, says so, and the two add up to the
 * whole run of test_lme (2 scored questions, 1 in each half). */
static void test_split(void) {
  static const char *const halves[2] = {"tune", "confirm"};
  static const char *const ids[2] = {"tiny_dog", "tiny_bicycles"};
  static const char *const cats[2] = {"single-session-user", "multi-session"};
  double scored = 0;
  for (int h = 0; h < 2; h++) {
    EG_REQUIRE(eg_test_system("%s/engram-bench lme --data %s/tiny-lme.jsonl --baseline fts5 "
                              "--split %s --out %s/lme-%s "
                              ">%s/lme-%s.out",
                              EG_BINARY_DIR, dir, halves[h], dir, halves[h], dir, halves[h]) == 0);
    char name[32], path[512];
    snprintf(name, sizeof name, "lme-%s", halves[h]);
    cJSON *r = load_report(name);
    EG_REQUIRE(r != NULL);
    const cJSON *split = cJSON_GetObjectItem(r, "split");
    EG_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(split, "half")), halves[h]);
    EG_CHECK_INT(cJSON_GetObjectItem(split, "scored")->valueint, 1);
    EG_CHECK_INT(cJSON_GetObjectItem(split, "of_scored")->valueint, 2);
    EG_CHECK_INT(cJSON_GetObjectItem(split, "questions")->valueint,
                 h ? 1 : 2); /* tiny_cat_abs: tune, unscored */
    EG_CHECK_INT(cJSON_GetObjectItem(split, "of")->valueint, 3);
    EG_CHECK_INT(cJSON_GetObjectItem(r, "groups")->valueint, h ? 1 : 2);
    for (int s = 0; s < 2; s++) {
      const char *sys = s ? "fts5" : "engram";
      EG_CHECK(metric(r, sys, "overall", "questions") == 1);
      EG_CHECK(metric(r, sys, cats[h], "questions") == 1);      /* the half's own question */
      EG_CHECK(metric(r, sys, cats[1 - h], "questions") == -1); /* not the other half's */
      EG_CHECK(metric(r, sys, "overall", "recall_all@10") == 1);
    }
    scored += metric(r, "engram", "overall", "questions");
    cJSON_Delete(r);
    snprintf(path, sizeof path, "%s/lme-%s.jsonl", dir, halves[h]);
    EG_CHECK_INT(lines(path), 2); /* engram and fts5 on the one question */
    EG_CHECK(logged(path, ids[h], "engram", "ndcg@10") == 1);
    EG_CHECK(logged(path, ids[1 - h], "engram", "ndcg@10") == -1);
    char *half = logged_split(path, ids[h]);
    EG_CHECK_STR(half, halves[h]);
    free(half);
    /* the table says which half it covers */
    char want[96];
    snprintf(want, sizeof want, "split: %s (1 of 2 scored questions)\n", halves[h]);
    for (int f = 0; f < 2; f++) {
      snprintf(path, sizeof path, f ? "%s/lme-%s.md" : "%s/lme-%s.out", dir, halves[h]);
      char *text = eg_test_slurp(path);
      EG_CHECK(strstr(text, want) != NULL);
      EG_CHECK(strstr(text, "| overall | 1 |") != NULL);
      free(text);
    }
  }
  cJSON *whole = load_report("lme"); /* test_lme's run of both halves */
  EG_REQUIRE(whole != NULL);
  EG_CHECK(scored == metric(whole, "engram", "overall", "questions"));
  EG_CHECK_STR(
      cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(whole, "split"), "half")),
      "all");
  cJSON_Delete(whole);
  char path[512];
  snprintf(path, sizeof path, "%s/lme.md", dir);
  char *md = eg_test_slurp(path);
  EG_CHECK(strstr(md, "split:") == NULL); /* no split, no line */
  free(md);
}

static void test_locomo(void) {
  EG_REQUIRE(eg_test_system("%s/engram-bench locomo --data %s/tiny-locomo.json --baseline fts5 "
                            "--out %s/locomo >%s/loc.out",
                            EG_BINARY_DIR, dir, dir, dir) == 0);
  cJSON *r = load_report("locomo");
  EG_REQUIRE(r != NULL);
  /* the adversarial item without evidence is not scored */
  EG_CHECK(metric(r, "engram", "overall", "questions") == 2);
  EG_CHECK(metric(r, "engram", "single-hop", "recall@5") == 100);
  EG_CHECK(metric(r, "engram", "overall", "recall@10") == 100);
  EG_CHECK(metric(r, "fts5", "single-hop", "recall@5") == 100);
  EG_CHECK(metric(r, "fts5", "overall", "recall@25") == 100);
  cJSON_Delete(r);
}

/* The chat model: answers every question with "Biscuit"; as judge, "yes" when the
 * reference answer is Biscuit. */
static eg_stub_reply chat(void *ctx, const char *url, const char *auth, const char *body) {
  (void)ctx, (void)url, (void)auth;
  const char *answer = strstr(body, "Reference answer")
                           ? (strstr(body, "Reference answer: Biscuit") ? "yes" : "no")
                       : strstr(body, "decline") ? "no"
                                                 : "It is Biscuit.";
  char *out = malloc(256);
  snprintf(out, 256, "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"%s\"}}]}",
           answer);
  return (eg_stub_reply){200, out, 0, NULL};
}

static void test_qa(void) {
  /* no endpoint: a clear refusal, not a run */
  EG_CHECK(
      eg_test_system(
          "env -u ENGRAM_BENCH_LLM_URL %s/engram-bench qa --data %s/tiny-lme.jsonl --out %s/qa0 "
          ">/dev/null 2>&1",
          EG_BINARY_DIR, dir, dir) != 0);
  eg_stub *st = eg_stub_start(chat, NULL);
  EG_REQUIRE(st != NULL);
  EG_CHECK(eg_test_system("%s/engram-bench qa --data %s/tiny-lme.jsonl --out %s/qa --llm-url "
                          "http://127.0.0.1:%d/v1 "
                          ">%s/qa.out",
                          EG_BINARY_DIR, dir, dir, eg_stub_port(st), dir) == 0);
  EG_CHECK_INT(eg_stub_requests(st), 6); /* answer + judge for each of the three questions */
  eg_stub_stop(st);
  cJSON *r = load_report("qa");
  EG_REQUIRE(r != NULL);
  EG_CHECK(metric(r, "qa", "overall", "questions") == 3); /* abstention questions are judged too */
  EG_CHECK(metric(r, "qa", "single-session-user", "accuracy") == 50);
  EG_CHECK(metric(r, "qa", "multi-session", "accuracy") == 0);
  EG_CHECK(metric(r, "engram", "overall", "recall_all@10") == 1);
  cJSON_Delete(r);
  char path[512];
  snprintf(path, sizeof path, "%s/qa.jsonl", dir);
  char *log = eg_test_slurp(path);
  EG_CHECK(strstr(log, "\"response\":\"It is Biscuit.\"") != NULL);
  free(log);
}

int main(void) {
  dir = eg_test_tempdir("bench-smoke");
  char path[512];
  snprintf(path, sizeof path, "%s/tiny-lme.jsonl", dir);
  write_lme(path);
  snprintf(path, sizeof path, "%s/tiny-locomo.json", dir);
  write_locomo(path);
  EG_RUN(test_bad_counts);
  EG_RUN(test_bad_split);
  EG_RUN(test_lme);
  EG_RUN(test_split);
  EG_RUN(test_locomo);
  EG_RUN(test_qa);
  int rc = eg_test_finish();
  if (rc)
    fprintf(stderr, "outputs kept in %s\n", dir);
  else
    eg_test_rmtree(dir);
  free(dir);
  return rc;
}
