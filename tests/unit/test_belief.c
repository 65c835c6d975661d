/*
 * test_belief.c — the preference confidence rule (services/graphd/belief.c) on its own:
 * bounds, independence of sources, order, contrary evidence, outcome weights.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "services/graphd/graph_int.h"
#include "tests/testlib.h"

#define SUCCEEDED ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_SUCCEEDED
#define ACTED_ON ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_ACTED_ON
#define FAILED ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_FAILED
#define REVERSED ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_REVERSED
#define IGNORED ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_IGNORED

typedef struct ev_spec {
  const char *source;
  float weight;
  bool contrary;
} ev_spec;

enum { MAX_EV = 16 };

/* Score evidence given in this order; returns the belief (static storage). */
static Engram__V1__Belief *score(const ev_spec *spec, size_t n) {
  static Engram__V1__Evidence ev[MAX_EV];
  static Engram__V1__Evidence *evp[MAX_EV];
  static Engram__V1__Belief b;
  engram__v1__belief__init(&b);
  for (size_t i = 0; i < n; i++) {
    engram__v1__evidence__init(&ev[i]);
    ev[i].source = (char *)spec[i].source;
    ev[i].weight = spec[i].weight;
    ev[i].contrary = spec[i].contrary;
    evp[i] = &ev[i];
  }
  b.evidence = evp;
  b.n_evidence = n;
  eg_belief_score(&b);
  return &b;
}

static bool near(float a, float b) { return fabsf(a - b) < 1e-5f; }

static void test_empty_and_single(void) {
  Engram__V1__Belief *b = score(NULL, 0);
  EG_CHECK(b->confidence == 0 && b->support == 0 && b->against == 0);
  b = score((ev_spec[]){{"session:a", 0.7f, false}}, 1);
  EG_CHECK(near(b->confidence, 0.7f));
  EG_CHECK(near(b->support, 0.7f));
}

/* A second independent source raises it by noisy-OR; the same source again does not. */
static void test_independent_sources_accumulate(void) {
  float one = score((ev_spec[]){{"session:a", 0.7f, false}}, 1)->confidence;
  float two =
      score((ev_spec[]){{"session:a", 0.7f, false}, {"session:b", 0.7f, false}}, 2)->confidence;
  EG_CHECK(two > one);
  EG_CHECK(near(two, 1 - 0.3f * 0.3f));
  float same =
      score((ev_spec[]){{"session:a", 0.7f, false}, {"session:a", 0.7f, false}}, 2)->confidence;
  EG_CHECK(near(same, one));
  /* the strongest of a source counts, whichever came first */
  float strongest =
      score((ev_spec[]){{"session:a", 0.4f, false}, {"session:a", 0.9f, false}}, 2)->confidence;
  EG_CHECK(near(strongest, 0.9f));
}

static void test_contrary_lowers(void) {
  ev_spec s[] = {{"session:a", 0.7f, false}, {"session:b", 0.7f, false}, {"session:c", 0.7f, true}};
  Engram__V1__Belief *b = score(s, 3);
  EG_CHECK(near(b->against, 0.7f));
  EG_CHECK(near(b->confidence, (1 - 0.09f) * 0.3f));
  EG_CHECK(b->confidence < score(s, 2)->confidence);
  /* a source saying both counts on both sides */
  Engram__V1__Belief *both =
      score((ev_spec[]){{"session:a", 0.6f, false}, {"session:a", 0.6f, true}}, 2);
  EG_CHECK(near(both->confidence, 0.6f * 0.4f));
}

/* Every permutation of a mixed set gives the same numbers. */
static void test_order_independent(void) {
  ev_spec s[4] = {{"session:a", 0.7f, false},
                  {"document:d", 0.5f, false},
                  {"session:c", 0.6f, true},
                  {"session:a", 0.2f, false}};
  Engram__V1__Belief *b = score(s, 4);
  float c0 = b->confidence, s0 = b->support, a0 = b->against;
  int perm[24][4], np = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 4; k++)
        for (int l = 0; l < 4; l++)
          if (i != j && i != k && i != l && j != k && j != l && k != l) {
            perm[np][0] = i, perm[np][1] = j, perm[np][2] = k, perm[np][3] = l;
            np++;
          }
  EG_CHECK_INT(np, 24);
  for (int p = 0; p < np; p++) {
    ev_spec t[4];
    for (int q = 0; q < 4; q++) t[q] = s[perm[p][q]];
    b = score(t, 4);
    EG_CHECK(near(b->confidence, c0) && near(b->support, s0) && near(b->against, a0));
  }
}

/* Whatever the weights (even out of range), the results stay in [0, 1]. */
static void test_bounded(void) {
  ev_spec s[MAX_EV];
  char names[MAX_EV][16];
  for (int i = 0; i < MAX_EV; i++) {
    snprintf(names[i], sizeof names[i], "session:%d", i);
    s[i] = (ev_spec){names[i], i % 3 == 0 ? 1.0f : i % 3 == 1 ? 5.0f : -2.0f, i % 2 == 0};
  }
  for (size_t n = 0; n <= MAX_EV; n++) {
    Engram__V1__Belief *b = score(s, n);
    EG_CHECK(b->confidence >= 0 && b->confidence <= 1);
    EG_CHECK(b->support >= 0 && b->support <= 1);
    EG_CHECK(b->against >= 0 && b->against <= 1);
  }
  /* many weak confirmations approach 1 without passing it */
  for (int i = 0; i < MAX_EV; i++) s[i] = (ev_spec){names[i], 0.3f, false};
  float c = score(s, MAX_EV)->confidence;
  EG_CHECK(c > 0.99f && c <= 1.0f);
}

static void test_weights(void) {
  Engram__V1__Edge e = ENGRAM__V1__EDGE__INIT;
  Engram__V1__EdgeMeta m = ENGRAM__V1__EDGE_META__INIT;
  EG_CHECK(near(eg_belief_edge_weight(&e), 0.6f)); /* no meta: the default */
  e.meta = &m;
  m.confidence = 0.9f;
  EG_CHECK(near(eg_belief_edge_weight(&e), 0.9f));
  bool against;
  EG_CHECK(eg_belief_outcome_weight(SUCCEEDED, &against) > 0 && !against);
  EG_CHECK(eg_belief_outcome_weight(ACTED_ON, &against) > 0 && !against);
  EG_CHECK(eg_belief_outcome_weight(FAILED, &against) > 0 && against);
  EG_CHECK(eg_belief_outcome_weight(REVERSED, &against) > 0 && against);
  EG_CHECK(eg_belief_outcome_weight(IGNORED, &against) == 0);
  EG_CHECK(eg_pref_side_of("PREFERS") == EG_PREF_FOR && eg_pref_side_of("ACCEPTED") == EG_PREF_FOR);
  EG_CHECK(eg_pref_side_of("AVOIDS") == EG_PREF_AGAINST &&
           eg_pref_side_of("REJECTED") == EG_PREF_AGAINST);
  EG_CHECK(eg_pref_side_of("OPTIMIZES_FOR") == EG_PREF_GOAL);
  EG_CHECK(eg_pref_side_of("LIVES_IN") == EG_PREF_NONE);
}

int main(void) {
  EG_RUN(test_empty_and_single);
  EG_RUN(test_independent_sources_accumulate);
  EG_RUN(test_contrary_lowers);
  EG_RUN(test_order_independent);
  EG_RUN(test_bounded);
  EG_RUN(test_weights);
  return eg_test_finish();
}
