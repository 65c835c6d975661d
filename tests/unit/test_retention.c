/* test_retention.c — the retention score: decay with age, the access term (hyperbolic, bounded
 * history, out-of-order reports), tiers by the thresholds, policy defaults and range checks,
 * the encodings, and the salience lexicon. */
#include <math.h>
#include <string.h>

#include "common/retention.h"
#include "tests/testlib.h"

#define DAY 86400000000LL

static eg_ret_policy policy(void) {
  eg_ret_policy p;
  eg_err e = {0};
  EG_CHECK(eg_ret_policy_of(NULL, &p, &e) == EG_OK);
  return p;
}

static void test_decay(void) {
  eg_ret_policy p = policy();
  EG_CHECK(fabs(p.half_life_days - 30) < 1e-9 && fabs(p.lambda - log(2) / 30) < 1e-12);
  int64_t t0 = 1000 * DAY;
  eg_ret_score s = eg_ret_score_at(&p, 0.5, t0, NULL, t0);
  EG_CHECK(fabs(s.r - 0.5) < 1e-9 && s.access == 0);
  s = eg_ret_score_at(&p, 0.5, t0, NULL, t0 + 30 * DAY); /* one half-life */
  EG_CHECK(fabs(s.r - 0.25) < 1e-9);
  EG_CHECK(eg_ret_tier_of(&p, s.r) == EG_TIER_HOT); /* exactly hot_min */
  s = eg_ret_score_at(&p, 0.5, t0, NULL, t0 + 40 * DAY);
  EG_CHECK(eg_ret_tier_of(&p, s.r) == EG_TIER_WARM);
  s = eg_ret_score_at(&p, 0.5, t0, NULL, t0 + 90 * DAY); /* 0.0625 */
  EG_CHECK(eg_ret_tier_of(&p, s.r) == EG_TIER_COLD);
  s = eg_ret_score_at(&p, 0.5, t0, NULL, t0 - DAY); /* a clock behind the record: no growth */
  EG_CHECK(fabs(s.r - 0.5) < 1e-9);
  p.disabled = true;
  EG_CHECK(eg_ret_tier_of(&p, 0) == EG_TIER_HOT && eg_ret_prior(&p, 0.9) == 0);
}

static void test_access(void) {
  eg_ret_policy p = policy();
  int64_t t0 = 1000 * DAY, now = t0 + 90 * DAY;
  eg_access a;
  memset(&a, 0, sizeof a);
  eg_access_add(&a, now - 2 * DAY);
  eg_ret_score s = eg_ret_score_at(&p, 0.5, t0, &a, now);
  EG_CHECK(fabs(s.access - 0.25 / 2) < 1e-9);
  EG_CHECK(eg_ret_tier_of(&p, s.r) == EG_TIER_WARM); /* 0.0625 + 0.125 */
  eg_access_add(&a, now);                            /* an access now counts as an hour ago */
  s = eg_ret_score_at(&p, 0.5, t0, &a, now);
  EG_CHECK(fabs(s.access - 0.25 * (24 + 0.5)) < 1e-9);
  EG_CHECK(eg_ret_tier_of(&p, s.r) == EG_TIER_HOT);
  /* out of order: newest stays first */
  eg_access_add(&a, now - DAY);
  EG_CHECK(a.recent[0] == now && a.recent[1] == now - DAY && a.recent[2] == now - 2 * DAY);
  EG_CHECK(eg_access_last(&a) == now && eg_access_count(&a) == 3);
  /* 100 accesses: bounded state, count kept, the folded term never above the exact sum */
  eg_access b;
  memset(&b, 0, sizeof b);
  double exact = 0;
  for (int i = 0; i < 100; i++) {
    int64_t at = t0 + (int64_t)i * DAY / 2;
    eg_access_add(&b, at);
    exact += 1.0 / ((double)(now - at) / DAY);
  }
  EG_CHECK_INT(eg_access_count(&b), 100);
  s = eg_ret_score_at(&p, 0, t0, &b, now);
  EG_CHECK(s.access <= p.sigma * exact + 1e-9);
  EG_CHECK(s.access >= 0.5 * p.sigma * exact); /* and close to it */
  uint8_t buf[EG_RET_ENCODED];
  eg_access_encode(&b, buf);
  eg_access c;
  EG_CHECK(eg_access_decode(buf, sizeof buf, &c)); /* field by field: the struct has padding */
  EG_CHECK(memcmp(b.recent, c.recent, sizeof b.recent) == 0 && b.n_old == c.n_old &&
           b.old_mean == c.old_mean);
  EG_CHECK(!eg_access_decode(buf, sizeof buf - 1, &c));
  /* the access term fades: a month later the record is cold again */
  s = eg_ret_score_at(&p, 0.5, t0, &a, now + 60 * DAY);
  EG_CHECK(eg_ret_tier_of(&p, s.r) == EG_TIER_COLD);
}

static void test_policy(void) {
  Engram__V1__RetentionPolicy m = ENGRAM__V1__RETENTION_POLICY__INIT;
  eg_ret_policy p;
  eg_err e = {0};
  m.half_life_days = 7;
  m.hot_max = 1000;
  m.evict_cold_after_days = 365;
  EG_CHECK(eg_ret_policy_of(&m, &p, &e) == EG_OK);
  EG_CHECK(p.half_life_days == 7 && p.hot_max == 1000 && p.evict_days == 365 && p.sigma == 0.25);
  uint8_t buf[EG_RET_POLICY_ENCODED];
  eg_ret_policy_encode(&p, buf);
  eg_ret_policy q;
  EG_CHECK(eg_ret_policy_decode(buf, sizeof buf, &q) && q.half_life_days == 7 &&
           q.hot_max == 1000 && q.evict_days == 365 && fabs(q.lambda - p.lambda) < 1e-15);
  Engram__V1__RetentionPolicy back;
  eg_ret_policy_msg(&q, &back);
  EG_CHECK(back.half_life_days == 7 && back.warm_min == 0.08 && back.prior_weight == 0.02);
  m.half_life_days = -1;
  EG_CHECK(eg_ret_policy_of(&m, &p, &e) == EG_EINVAL && strstr(e.msg, "half_life_days"));
  m.half_life_days = 0;
  m.warm_min = 0.5; /* above the default hot_min */
  EG_CHECK(eg_ret_policy_of(&m, &p, &e) == EG_EINVAL && strstr(e.msg, "warm_min"));
  m.warm_min = 0;
  m.prior_weight = NAN;
  EG_CHECK(eg_ret_policy_of(&m, &p, &e) == EG_EINVAL);
  m.prior_weight = -1; /* no prior */
  EG_CHECK(eg_ret_policy_of(&m, &p, &e) == EG_OK && eg_ret_prior(&p, 1) == 0);
  eg_ret_policy_msg(&p, &back); /* read back and sent again, it stays without a prior */
  EG_CHECK(back.prior_weight == -1 && eg_ret_policy_of(&back, &p, &e) == EG_OK &&
           p.prior_weight == 0);
  p = policy();
  EG_CHECK(fabs(eg_ret_prior(&p, 0.9) - 0.02 * 0.4) < 1e-12 &&
           fabs(eg_ret_prior(&p, 5) - 0.01) < 1e-12);
  char why[256];
  eg_ret_score s = {0.1, 0.05, 0.15};
  eg_ret_why(&p, &s, EG_TIER_WARM, false, why, sizeof why);
  EG_CHECK(strstr(why, "R 0.150") && strstr(why, ">= warm_min 0.080"));
}

static void test_salience(void) {
  const char *src;
  EG_CHECK(eg_salience_of("I'm allergic to peanuts, keep the EpiPen close", &src) == 0.9);
  EG_CHECK_STR(src, "lexicon: health");
  EG_CHECK(eg_salience_of("Our mortgage payment went up again", &src) == 0.9);
  EG_CHECK_STR(src, "lexicon: money");
  EG_CHECK(eg_salience_of("My daughter starts school in May", &src) == 0.9);
  EG_CHECK_STR(src, "lexicon: family");
  EG_CHECK(eg_salience_of("hi! thanks so much, bye", &src) == 0.2);
  EG_CHECK_STR(src, "small talk");
  EG_CHECK(eg_salience_of("We looked at the lawn mower at the store", &src) ==
           0.5); /* "lawn" is not "law" */
  EG_CHECK_STR(src, "default");
  EG_CHECK(eg_salience_of("", &src) == 0.5 && eg_salience_of(NULL, NULL) == 0.5);
  EG_CHECK(eg_salience_of("Sonny's painting of the sunset", &src) == 0.5); /* not son=, pain= */
}

int main(void) {
  EG_RUN(test_decay);
  EG_RUN(test_access);
  EG_RUN(test_policy);
  EG_RUN(test_salience);
  return eg_test_finish();
}
