/* test_bm25.c — scores against hand-computed BM25, ranking, removal, filters, and search
 * (document-at-a-time, pruned) and batch scoring against every document scored one by one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
  eg_bm25_term d0[] = {{"cat", 2}, {"dog", 1}}, d1[] = {{"dog", 1}, {"bird", 1}},
               d2[] = {{"fish", 1}};
  eg_bm25_add(ix, 0, d0, 2, 3);
  eg_bm25_add(ix, 1, d1, 2, 2);
  eg_bm25_add(ix, 2, d2, 1, 1);
  return ix;
}

static double score(const eg_bm25 *ix, const char *const *terms, size_t n, uint32_t slot) {
  eg_bm25_query q;
  eg_bm25_prepare(ix, terms, n, &q);
  return eg_bm25_score(ix, &q, slot);
}

static size_t search(const eg_bm25 *ix, const char *const *terms, size_t n, size_t k,
                     eg_bm25_keep keep, uint32_t *slots, double *scores) {
  eg_bm25_query q;
  eg_bm25_prepare(ix, terms, n, &q);
  return eg_bm25_search(ix, &q, k, keep, NULL, slots, scores);
}

static void test_scores(void) {
  eg_bm25 *ix = build();
  const char *const cat[] = {"cat"}, *const dog[] = {"dog"}, *const both[] = {"cat", "dog", "cat"};
  double idf_cat = log(8.0 / 3.0), idf_dog = log(1.6);
  EG_CHECK(NEAR(score(ix, cat, 1, 0), idf_cat * 4.4 / 3.65));
  EG_CHECK(NEAR(score(ix, cat, 1, 1), 0));
  /* dog in d1: tf 1, len 2 → norm 1.2·(0.25 + 0.75) = 1.2 → idf·2.2/2.2 */
  EG_CHECK(NEAR(score(ix, dog, 1, 1), idf_dog));
  /* duplicates in the query count once */
  EG_CHECK(NEAR(score(ix, both, 3, 0),
                idf_cat * 4.4 / 3.65 + idf_dog * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1.5))));
  uint32_t slots[3];
  double scores[3];
  EG_CHECK_INT(search(ix, both, 3, 3, NULL, slots, scores), 2);
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
  const char *const dog[] = {"dog"};
  uint32_t slots[3];
  double scores[3];
  EG_CHECK_INT(search(ix, dog, 1, 3, not_zero, slots, scores), 1);
  EG_CHECK_INT(slots[0], 1);
  eg_bm25_remove(ix, 0);
  EG_CHECK_INT(eg_bm25_docs(ix), 2);
  /* now N = 2, df(dog) = 1, avgdl = 1.5 */
  double idf = log(1 + (2 - 1 + 0.5) / 1.5);
  EG_CHECK(NEAR(score(ix, dog, 1, 1), idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 1.5))));
  EG_CHECK_INT(search(ix, dog, 1, 3, NULL, slots, scores), 1);
  EG_CHECK_INT(score(ix, dog, 1, 0) == 0, 1);
  /* re-adding a slot works, duplicates are refused */
  eg_bm25_term d0[] = {{"dog", 3}};
  EG_CHECK_INT(eg_bm25_add(ix, 0, d0, 1, 3), EG_OK);
  EG_CHECK_INT(eg_bm25_add(ix, 0, d0, 1, 3), EG_EEXIST);
  EG_CHECK_INT(search(ix, dog, 1, 3, NULL, slots, scores), 2);
  eg_bm25_free(ix);
}

static int in_d1(void *ctx, uint32_t slot) {
  (void)ctx;
  return slot == 1;
}

static int not_d0(void *ctx, uint32_t slot) {
  (void)ctx;
  return slot != 0;
}

/* Statistics of a subset, then smoothed toward the whole index's. */
static void test_within(void) {
  eg_bm25 *ix = build();
  const char *const dog[] = {"dog"}, *const dog_bird[] = {"dog", "bird"};
  eg_bm25_query q;
  eg_bm25_subset s;
  /* subset {d1, d2}, no prior: N = 2, df(dog) = 1, avgdl = 1.5 (the postings are the
   * shorter walk: dog has 2, the documents 3 terms) */
  uint32_t sub[] = {1, 2};
  eg_bm25_subset_init(ix, sub, 2, not_d0, NULL, &s);
  EG_CHECK(NEAR(s.len, 3) && s.terms == 3);
  eg_bm25_prepare_within(ix, dog, 1, &s, 0, &q);
  double want = log(2.0) * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 1.5));
  EG_CHECK(NEAR(eg_bm25_score(ix, &q, 1), want));
  /* with the weight of 3 documents of the whole index: df rate (1 + 3·2/3) / (2 + 3) = 3/5,
   * so N' = 5, df' = 3; avgdl (3 + 3·2) / 5 = 1.8 */
  eg_bm25_prepare_within(ix, dog, 1, &s, 3, &q);
  want = log(1 + 2.5 / 3.5) * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 1.8));
  EG_CHECK(NEAR(eg_bm25_score(ix, &q, 1), want));
  /* subset {d1} for "dog bird": the document's list is the shorter walk (2 terms against
   * 3 postings); N = 1, df = 1 each, avgdl = 2 → 2 · ln(1 + 0.5/1.5) */
  uint32_t one[] = {1};
  eg_bm25_subset_init(ix, one, 1, in_d1, NULL, &s);
  eg_bm25_prepare_within(ix, dog_bird, 2, &s, 0, &q);
  EG_CHECK(NEAR(eg_bm25_score(ix, &q, 1), 2 * log(4.0 / 3.0)));
  /* and the same from the postings walk, one term at a time */
  eg_bm25_prepare_within(ix, dog, 1, &s, 0, &q);
  EG_CHECK(NEAR(eg_bm25_score(ix, &q, 1), log(4.0 / 3.0)));
  uint32_t slots[3];
  double scores[3];
  EG_CHECK_INT(eg_bm25_search(ix, &q, 3, in_d1, NULL, slots, scores), 1);
  EG_CHECK(NEAR(scores[0], log(4.0 / 3.0)));
  eg_bm25_free(ix);
}

/* ---- search against brute force ---- */

static unsigned rng = 777;
static unsigned rnd(unsigned n) {
  rng = rng * 1103515245u + 12345u;
  return (rng >> 8) % n;
}

#define VOCAB 300
#define NDOC 4000

static char words[VOCAB][8];

/* The document of a slot (the same every time: a slot keeps its terms): a Zipf-like draw
 * over the vocabulary, so that some lists are long and cheap, others short and dear. */
static void add_doc(eg_bm25 *ix, uint32_t slot) {
  unsigned keep_rng = rng;
  rng = slot * 2654435761u + 1;
  eg_bm25_term terms[40];
  size_t n = 0;
  uint32_t len = 0, words_n = 3 + rnd(30);
  for (uint32_t w = 0; w < words_n; w++) {
    unsigned x = rnd(VOCAB);
    x = x * rnd(VOCAB) / VOCAB; /* skewed toward small x */
    size_t at = 0;
    while (at < n && strcmp(terms[at].term, words[x]) != 0) at++;
    if (at == n && n < 40) terms[n++] = (eg_bm25_term){words[x], 0};
    if (at < n) terms[at].tf++;
    len++;
  }
  if (slot % 97 == 0) { /* a few very long documents: their length is kept beside the postings */
    terms[0].tf = 70000;
    len = 70000 + len;
  }
  rng = keep_rng;
  EG_CHECK_INT(eg_bm25_add(ix, slot, terms, n, len), EG_OK);
}

static int odd_only(void *ctx, uint32_t slot) {
  (void)ctx;
  return slot % 2;
}

typedef struct ss {
  uint32_t slot;
  double score;
} ss;

static int by_rank(const void *a, const void *b) {
  const ss *x = a, *y = b;
  if (x->score != y->score) return x->score < y->score ? 1 : -1;
  return x->slot > y->slot ? 1 : -1;
}

/* eg_bm25_search's top k equals the top k of eg_bm25_score over every live slot. */
static bool same_as_brute(const eg_bm25 *ix, const eg_bm25_query *q, size_t k, eg_bm25_keep keep) {
  ss *all = malloc(NDOC * sizeof *all);
  size_t m = 0;
  for (uint32_t s = 0; s < NDOC; s++) {
    double v = eg_bm25_score(ix, q, s);
    if (v > 0 && (!keep || keep(NULL, s))) all[m++] = (ss){s, v};
  }
  qsort(all, m, sizeof *all, by_rank);
  uint32_t slots[200];
  double scores[200];
  size_t got = eg_bm25_search(ix, q, k, keep, NULL, slots, scores);
  bool ok = got == (m < k ? m : k);
  for (size_t i = 0; ok && i < got; i++) ok = slots[i] == all[i].slot && scores[i] == all[i].score;
  for (size_t i = 0; !ok && i < got && i < m; i++)
    if (slots[i] != all[i].slot || scores[i] != all[i].score) {
      fprintf(stderr, "  k=%zu terms=%zu: got %zu, want %zu; at %zu: %u %.17g / %u %.17g\n", k,
              q->n, got, m < k ? m : k, i, slots[i], scores[i], all[i].slot, all[i].score);
      break;
    }
  free(all);
  return ok;
}

/* eg_bm25_score_many equals eg_bm25_score slot by slot (in any order, dead and repeated
 * slots among them), and its words' shares eg_bm25_score_words. */
static bool many_same_as_one(const eg_bm25 *ix, const eg_bm25_query *q) {
  uint32_t slots[60];
  double out[60], words[60];
  for (size_t j = 0; j < 60; j++) slots[j] = j % 17 == 5 ? slots[j / 2] : rnd(NDOC + 10);
  eg_bm25_score_many(ix, q, slots, 60, out, words);
  for (size_t j = 0; j < 60; j++)
    if (out[j] != eg_bm25_score(ix, q, slots[j]) ||
        words[j] != eg_bm25_score_words(ix, q, slots[j]))
      return false;
  return true;
}

static void test_search_equals_brute_force(void) {
  for (int w = 0; w < VOCAB; w++) snprintf(words[w], sizeof words[w], "w%d", w);
  eg_bm25 *ix = eg_bm25_new(1.2, 0.75);
  for (uint32_t s = 0; s < NDOC; s++) add_doc(ix, s);
  /* removals (some lists compacted, some left with dead postings) and re-additions, which
   * must count once even where their old postings are still there */
  for (uint32_t s = 0; s < NDOC; s += 3) eg_bm25_remove(ix, s);
  for (uint32_t s = 0; s < NDOC; s += 9) add_doc(ix, s);
  uint32_t sub[NDOC];
  size_t nsub = 0;
  for (uint32_t s = 1; s < NDOC; s += 2)
    if (s % 3) sub[nsub++] = s;
  eg_bm25_subset odd;
  eg_bm25_subset_init(ix, sub, nsub, odd_only, NULL, &odd);
  int bad = 0;
  for (int round = 0; round < 300; round++) {
    const char *qt[12];
    size_t nq = 1 + rnd(12);
    for (size_t i = 0; i < nq; i++)
      qt[i] = words[round % 3 ? rnd(VOCAB) : rnd(20)]; /* some of common words only */
    eg_bm25_query q;
    if (round % 5 == 4)
      eg_bm25_prepare_within(ix, qt, nq, &odd, 10, &q);
    else
      eg_bm25_prepare(ix, qt, nq, &q);
    size_t k = round % 4 == 0 ? 1 : round % 4 == 1 ? 10 : round % 4 == 2 ? 64 : 200;
    bad += !same_as_brute(ix, &q, k, round % 7 == 3 ? odd_only : NULL);
    bad += !many_same_as_one(ix, &q);
  }
  EG_CHECK_INT(bad, 0);
  eg_bm25_free(ix);
}

int main(void) {
  EG_RUN(test_scores);
  EG_RUN(test_remove_and_filter);
  EG_RUN(test_within);
  EG_RUN(test_search_equals_brute_force);
  return eg_test_finish();
}
