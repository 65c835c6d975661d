/* test_bm25.c — scores against hand-computed BM25, ranking, removal, filters. */
#include <math.h>

#include "services/vectord/bm25.h"
#include "tests/testlib.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

/* Three documents (k1 = 1.2, b = 0.75):
 *   d0 "cat cat dog" (len 3)   d1 "dog bird" (len 2)   d2 "fish" (len 1)
 * N = 3, avgdl = 2. df(cat)=1, df(dog)=2.
 * idf(cat) = ln(1 + (3-1+0.5)/(1+0.5)) = ln(8/3); idf(dog) = ln(1 + 1.5/2.5) = ln(1.6).
 * score(cat, d0) = idf(cat)·2·2.2 / (2 + 1.2·(0.25 + 0.75·1.5)) = idf(cat)·4.4/3.65. */
static eg_bm25 *build(void) {
  eg_bm25 *ix = eg_bm25_new(1.2, 0.75);
  eg_bm25_term d0[] = {{"cat", 2}, {"dog", 1}}, d1[] = {{"dog", 1}, {"bird", 1}}, d2[] = {{"fish", 1}};
  eg_bm25_add(ix, 0, d0, 2, 3);
  eg_bm25_add(ix, 1, d1, 2, 2);
  eg_bm25_add(ix, 2, d2, 1, 1);
  return ix;
}

static void test_scores(void) {
  eg_bm25 *ix = build();
  const char *cat[] = {"cat"}, *dog[] = {"dog"}, *both[] = {"cat", "dog", "cat"};
  double idf_cat = log(8.0 / 3.0), idf_dog = log(1.6);
  EG_CHECK(NEAR(eg_bm25_score(ix, cat, 1, 0), idf_cat * 4.4 / 3.65));
  EG_CHECK(NEAR(eg_bm25_score(ix, cat, 1, 1), 0));
  /* dog in d1: tf 1, len 2 → norm 1.2·(0.25 + 0.75) = 1.2 → idf·2.2/2.2 */
  EG_CHECK(NEAR(eg_bm25_score(ix, dog, 1, 1), idf_dog));
  /* duplicates in the query count once */
  EG_CHECK(NEAR(eg_bm25_score(ix, both, 3, 0), idf_cat * 4.4 / 3.65 + idf_dog * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1.5))));
  uint32_t slots[3];
  double scores[3];
  EG_CHECK_INT(eg_bm25_search(ix, both, 3, 3, NULL, NULL, slots, scores), 2);
  EG_CHECK_INT(slots[0], 0);
  EG_CHECK_INT(slots[1], 1);
  EG_CHECK(scores[0] > scores[1]);
  eg_bm25_free(ix);
}

static int not_zero(void *ctx, uint32_t slot) {
  (void)ctx;
  return slot != 0;
}

static void test_remove_and_filter(void) {
  eg_bm25 *ix = build();
  const char *dog[] = {"dog"};
  uint32_t slots[3];
  double scores[3];
  EG_CHECK_INT(eg_bm25_search(ix, dog, 1, 3, not_zero, NULL, slots, scores), 1);
  EG_CHECK_INT(slots[0], 1);
  eg_bm25_remove(ix, 0);
  EG_CHECK_INT(eg_bm25_docs(ix), 2);
  /* now N = 2, df(dog) = 1, avgdl = 1.5 */
  double idf = log(1 + (2 - 1 + 0.5) / 1.5);
  EG_CHECK(NEAR(eg_bm25_score(ix, dog, 1, 1), idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 1.5))));
  EG_CHECK_INT(eg_bm25_search(ix, dog, 1, 3, NULL, NULL, slots, scores), 1);
  EG_CHECK_INT(eg_bm25_score(ix, dog, 1, 0) == 0, 1);
  /* re-adding a slot works, duplicates are refused */
  eg_bm25_term d0[] = {{"dog", 3}};
  EG_CHECK_INT(eg_bm25_add(ix, 0, d0, 1, 3), EG_OK);
  EG_CHECK_INT(eg_bm25_add(ix, 0, d0, 1, 3), EG_EEXIST);
  EG_CHECK_INT(eg_bm25_search(ix, dog, 1, 3, NULL, NULL, slots, scores), 2);
  eg_bm25_free(ix);
}

int main(void) {
  EG_RUN(test_scores);
  EG_RUN(test_remove_and_filter);
  return eg_test_finish();
}
