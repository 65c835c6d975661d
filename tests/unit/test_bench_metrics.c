/*
 * test_bench_metrics.c — engram-bench's metrics on hand-made rankings with known values,
 * its units (rounds), the LoCoMo date format, the tables, and the FTS5 peer on a tiny group.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/dataset.h"
#include "bench/fts5.h"
#include "bench/metrics.h"
#include "common/time.h"
#include "tests/testlib.h"

#define NEAR(a, b) EG_CHECK(fabs((a) - (b)) < 1e-9)

/* Six sessions s0..s5; s_i has user/assistant/user/assistant messages except s5, which
 * starts with an assistant message. */
static eg_bmsg msgs[6][4];
static eg_bsession sess[6];
static char ids[6][8];
static eg_bgroup group;

static void setup(void) {
  static const char *const topics[6] = {
      "pasta recipes with garlic",       "my dog Biscuit the golden retriever",
      "filing taxes in April",           "a red bicycle for commuting",
      "planting tomatoes in the garden", "learning Spanish verbs"};
  for (int s = 0; s < 6; s++) {
    snprintf(ids[s], sizeof ids[s], "s%d", s);
    for (int m = 0; m < 4; m++) {
      char text[128];
      snprintf(text, sizeof text, "%s message %d about %s", m % 2 ? "reply" : "question", m,
               topics[s]);
      bool user = s == 5 ? m % 2 == 1 : m % 2 == 0;
      msgs[s][m] = (eg_bmsg){user ? "user" : "assistant", NULL, strdup(text)};
    }
    sess[s] = (eg_bsession){ids[s], 0, msgs[s], 4};
  }
  group = (eg_bgroup){"u", sess, 6, NULL, 0};
}

static void rank(eg_brank *r, const int *s_turn, size_t n) {
  for (size_t i = 0; i < n; i++)
    EG_CHECK(eg_brank_add(r, &group, ids[s_turn[2 * i]], s_turn[2 * i + 1]));
}

static void test_units(void) {
  /* user+assistant rounds; an assistant message first in a session is alone */
  EG_CHECK_INT(eg_bunit_start(&sess[0], 0), 0);
  EG_CHECK_INT(eg_bunit_start(&sess[0], 1), 0);
  EG_CHECK_INT(eg_bunit_start(&sess[0], 3), 2);
  EG_CHECK_INT(eg_bunit_start(&sess[5], 0), 0);
  EG_CHECK_INT(eg_bunit_start(&sess[5], 2), 1);
  eg_brank r = {0};
  int x[] = {1, 2, 1, 2, 5, 0};
  rank(&r, x, 3);
  EG_CHECK_INT(r.n, 2); /* the repeat is dropped */
  EG_CHECK_INT(r.u[0].len, 2);
  EG_CHECK_INT(r.u[1].len, 1);
  EG_CHECK(!eg_brank_add(&r, &group, "nope", 0));
  EG_CHECK(!eg_brank_add(&r, &group, "s1", 9));
  eg_brank_free(&r);
}

static void test_lme_metrics(void) {
  /* evidence: sessions s1 and s3; turns s1:1 (an assistant reply) and s3:2 */
  char *ev_s[] = {"s1", "s3"};
  eg_bunit ev_u[] = {{ids[1], 1, 1}, {ids[3], 2, 1}};
  eg_bquestion q = {.id = "q",
                    .category = "multi-session",
                    .query = "",
                    .sessions = ev_s,
                    .n_sessions = 2,
                    .units = ev_u,
                    .n_units = 2};
  /* session order s0, s1, s2, s4, s5, s3 — s3 sixth; units of two turns each but s5's */
  eg_brank r = {0};
  int x[] = {0, 0, 0, 2, 1, 2, 2, 0, 4, 0, 5, 0, 1, 0, 3, 2};
  rank(&r, x, 8);
  eg_bscore s;
  eg_bscore_question(EG_BSET_LME, &q, &r, &s);
  const char *const *names;
  EG_CHECK_INT(eg_bmetric_names(EG_BSET_LME, &names), 6);
  EG_CHECK_STR(names[1], "recall_all@10");
  NEAR(s.v[0], 0); /* recall_all@5: s3 is sixth */
  NEAR(s.v[1], 1); /* recall_all@10 */
  NEAR(s.v[2], 1); /* recall_any@5 */
  NEAR(s.v[3], 1);
  NEAR(s.v[4], (1 / log2(3.0) + 1 / log2(7.0)) / (1 + 1 / log2(3.0))); /* ndcg@10 */
  /* turns in order: s0:0,1 s0:2,3 s1:2,3 s2:0,1 s4:0,1 (10) — s1:1 only comes with the
   * 7th unit, after the first ten turns */
  NEAR(s.v[5], 0);
  EG_CHECK(s.has[5]);
  eg_brank_free(&r);
  /* the evidence turn inside the first unit: turn recall 1; no marked turns: undefined */
  int y[] = {1, 0};
  rank(&r, y, 1);
  eg_bscore_question(EG_BSET_LME, &q, &r, &s);
  NEAR(s.v[5], 1);
  NEAR(s.v[1], 0);
  NEAR(s.v[3], 1);
  NEAR(s.v[4], 1 / (1 + 1 / log2(3.0)));
  q.n_units = 0;
  eg_bscore_question(EG_BSET_LME, &q, &r, &s);
  EG_CHECK(!s.has[5] && s.has[4]);
  eg_brank_free(&r);
}

static void test_locomo_metrics(void) {
  eg_bunit ev[] = {{ids[5], 0, 1}, {ids[0], 3, 1}, {ids[2], 1, 1}};
  eg_bquestion q = {.id = "c#0", .category = "multi-hop", .query = "", .units = ev, .n_units = 3};
  eg_brank r = {0};
  /* 12 one-turn units would be LoCoMo's; here s5:0 is one turn, then rounds of two */
  int x[] = {5, 0, 4, 0, 4, 2, 0, 2, 1, 0, 1, 2, 3, 0, 3, 2, 2, 0, 2, 2, 0, 0};
  rank(&r, x, 11);
  eg_bscore s;
  eg_bscore_question(EG_BSET_LOCOMO, &q, &r, &s);
  /* turn positions: s5:0 at 0 (hit), s4 at 1-4, s0:2,3 at 5-6 (s0:3 hit), s1 at 7-10,
   * s3 at 11-14, s2:0,1 at 15-16 (s2:1 hit) */
  NEAR(s.v[0], 100.0 / 3);
  NEAR(s.v[1], 200.0 / 3);
  NEAR(s.v[2], 100.0);
  eg_brank_free(&r);
}

static void test_tables(void) {
  const char *const *names;
  size_t n = eg_bmetric_names(EG_BSET_LOCOMO, &names);
  eg_btable t;
  eg_btable_init(&t, names, n, true);
  eg_bscore a = {{50, 100, 100}, {true, true, true}}, b = {{0, 0, 50}, {true, true, true}};
  eg_bscore none = {{0}, {false}};
  eg_btable_add(&t, "temporal", &a);
  eg_btable_add(&t, "single-hop", &b);
  eg_btable_add(&t, "single-hop", &none);
  EG_CHECK_INT(t.n, 3);
  NEAR(eg_btable_mean(&t, 0, 2), 75);
  EG_CHECK_INT(t.c[0].questions, 3);
  NEAR(eg_btable_mean(&t, 2, 1), 0);
  char *j = eg_btable_json(&t);
  EG_CHECK(
      j &&
      strstr(j, "\"overall\":{\"questions\":3,\"recall@5\":25,\"recall@10\":50,\"recall@25\":75}"));
  EG_CHECK(j && strstr(j, "\"temporal\":{\"questions\":1,"));
  free(j);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  const eg_btable *ts[2] = {&t, &t};
  const char *sn[2] = {"a", "b"};
  eg_btable_markdown(f, ts, sn, 2);
  fclose(f);
  EG_CHECK(strstr(buf, "| category | questions | a recall@5 | b recall@5 |") != NULL);
  EG_CHECK(strstr(buf, "| temporal | 1 | 50.0 | 50.0 | 100.0 | 100.0 | 100.0 | 100.0 |") != NULL);
  free(buf);
  eg_btable_free(&t);
}

static void test_locomo_time(void) {
  EG_CHECK_INT(
      eg_locomo_time("1:56 pm on 8 May, 2023"),
      eg_days_from_civil(2023, 5, 8) * EG_US_PER_DAY + (13 * 60 + 56) * 60 * EG_US_PER_SEC);
  EG_CHECK_INT(eg_locomo_time("12:09 am on 13 September, 2023"),
               eg_days_from_civil(2023, 9, 13) * EG_US_PER_DAY + 9 * 60 * EG_US_PER_SEC);
  EG_CHECK_INT(
      eg_locomo_time("12:30 pm on 1 January, 2024"),
      eg_days_from_civil(2024, 1, 1) * EG_US_PER_DAY + (12 * 60 + 30) * 60 * EG_US_PER_SEC);
  EG_CHECK_INT(eg_locomo_time("13:00 pm on 1 Smarch, 2024"), 0);
  EG_CHECK_INT(eg_locomo_time("garbage"), 0);
}

static void test_fts5(void) {
  eg_fts5 *f = eg_fts5_open(&group);
  EG_REQUIRE(f != NULL);
  eg_brank r = {0};
  EG_CHECK_INT(eg_fts5_rank(f, "What's my dog's name, retriever?", 100, &r), 0);
  EG_REQUIRE(r.n >= 1);
  EG_CHECK_STR(r.u[0].session, "s1");
  for (size_t i = 0; i < r.n; i++)
    EG_CHECK_STR(r.u[i].session, "s1"); /* only s1 has dog/retriever/my */
  eg_brank_free(&r);
  /* stems: "planted" finds "planting"; no word at all: nothing, no error */
  EG_CHECK_INT(eg_fts5_rank(f, "planted", 100, &r), 0);
  EG_CHECK(r.n == 2 && !strcmp(r.u[0].session, "s4"));
  eg_brank_free(&r);
  EG_CHECK_INT(eg_fts5_rank(f, "?? \"\" --", 100, &r), 0);
  EG_CHECK_INT(r.n, 0);
  eg_fts5_close(f);
}

int main(void) {
  setup();
  EG_RUN(test_units);
  EG_RUN(test_lme_metrics);
  EG_RUN(test_locomo_metrics);
  EG_RUN(test_tables);
  EG_RUN(test_locomo_time);
  EG_RUN(test_fts5);
  return eg_test_finish();
}
