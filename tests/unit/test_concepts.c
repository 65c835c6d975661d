/* test_concepts.c — WordNet concepts of nouns: synonyms and hypernyms, inflections, two-word
 * nouns, words mostly said as verbs, the depth bound, and a missing database; WordNet's verbs
 * in their forms. */
#include <stdio.h>
#include <string.h>

#include "lang/concepts.h"
#include "lang/wordnet.h"
#include "tests/testlib.h"

typedef struct seen {
  char all[4096];
} seen;

static void add(void *ctx, const char *lemma) {
  seen *s = ctx;
  size_t n = strlen(s->all);
  snprintf(s->all + n, sizeof s->all - n, "|%s", lemma);
}

/* Does the word's concept list hold lemma (as a whole lemma)? */
static bool has(const eg_concepts *c, const char *word, const char *lemma) {
  seen s = {{0}};
  if (!eg_concepts_of(c, word, strlen(word), add, &s)) return false;
  char want[256];
  snprintf(want, sizeof want, "|%s|", lemma);
  strncat(s.all, "|", sizeof s.all - strlen(s.all) - 1);
  return strstr(s.all, want) != NULL;
}

static eg_concepts *wn;

static void test_synonyms_and_hypernyms(void) {
  EG_CHECK(has(wn, "violin", "violin"));
  EG_CHECK(has(wn, "violin", "fiddle"));
  EG_CHECK(has(wn, "violin", "stringed instrument"));
  EG_CHECK(has(wn, "violin", "musical instrument")); /* three levels up */
  EG_CHECK(!has(wn, "violin", "device"));            /* four: beyond the depth */
  EG_CHECK(has(wn, "karate", "martial art"));
  EG_CHECK(has(wn, "sister", "female sibling"));
  EG_CHECK(has(wn, "children", "kid"));   /* an irregular plural (noun.exc) and a synonym */
  EG_CHECK(has(wn, "sisters", "sister")); /* a regular plural */
  EG_CHECK(has(wn, "puppies", "dog"));
  EG_CHECK(has(wn, "martial arts", "martial art")); /* a two-word noun */
}

static void test_not_nouns(void) {
  seen s = {{0}};
  EG_CHECK(!eg_concepts_of(wn, "play", 4, add, &s)); /* mostly a verb */
  EG_CHECK(!eg_concepts_of(wn, "quickly", 7, add, &s));
  EG_CHECK(!eg_concepts_of(wn, "xylqz", 5, add, &s));
  EG_CHECK(!eg_concepts_of(wn, "", 0, add, &s));
  EG_CHECK_INT(strlen(s.all), 0);
}

static void test_missing_database(void) {
  eg_concepts *c = NULL;
  eg_err err = {0};
  EG_CHECK_INT(eg_concepts_open("/nonexistent", 3, &c, &err), EG_EUNAVAIL);
  EG_CHECK(c == NULL);
  EG_CHECK(strstr(err.msg, "data.noun") != NULL);
}

/* The forms of WordNet's verbs: a past, a third person present, an "-ing" form. */
static void test_verb_forms(void) {
  eg_wordnet_words wn;
  eg_err err = {0};
  EG_REQUIRE(eg_wordnet_words_load(NULL, &wn, &err) == EG_OK);
  const eg_wordnet_verbset *v = &wn.verbs;
  EG_CHECK(eg_wordnet_is_past(v, "traded") && eg_wordnet_is_past(v, "took"));
  EG_CHECK(eg_wordnet_is_present3(v, "lives") && !eg_wordnet_is_present3(v, "live"));
  /* "-ing" of a lemma, its "e" dropped or its consonant doubled; a lemma in "-ing" is none */
  EG_CHECK(eg_wordnet_is_ing(v, "practising") && eg_wordnet_is_ing(v, "living"));
  EG_CHECK(eg_wordnet_is_ing(v, "stopping") && eg_wordnet_is_ing(v, "visiting"));
  EG_CHECK(!eg_wordnet_is_ing(v, "spring") && !eg_wordnet_is_ing(v, "morning"));
  EG_CHECK(!eg_wordnet_is_ing(v, "live") && !eg_wordnet_is_ing(v, "ing"));
  EG_CHECK(eg_wordnet_is_verb(v, "spring") && eg_wordnet_is_verb(v, "moving"));
  EG_CHECK(!eg_wordnet_is_verb(v, "morning"));
  eg_wordnet_words_free(&wn);
}

typedef struct pairs {
  char all[1 << 20];
} pairs;

static bool add_pair(void *ctx, const char *part, const char *whole) {
  pairs *s = ctx;
  size_t n = strlen(s->all);
  snprintf(s->all + n, sizeof s->all - n, "|%s<%s", part, whole);
  return true;
}

/* What a place is part of, transitively: a capital in its country, a city in its country and
 * what that is part of; each lemma of both. */
static void test_wholes(void) {
  static pairs s; /* large: every city of WordNet */
  eg_err err = {0};
  const char *roots[] = {"city#1"};
  EG_REQUIRE(eg_wordnet_wholes(NULL, roots, 1, add_pair, &s, &err) == EG_OK);
  EG_CHECK(strstr(s.all, "|Oslo<Norway|") != NULL);
  EG_CHECK(strstr(s.all, "|Christiania<Kingdom of Norway|") != NULL);
  EG_CHECK(strstr(s.all, "|Leeds<England|") != NULL);
  EG_CHECK(strstr(s.all, "|Leeds<United Kingdom|") != NULL); /* England's */
  EG_CHECK(strstr(s.all, "|Norway<") == NULL);               /* a country is no city */
  const char *none[] = {"notawordatall#1"};
  EG_CHECK(eg_wordnet_wholes(NULL, none, 1, add_pair, &s, &err) == EG_ENOTFOUND);
}

/* A musician's noun with the noun WordNet derives it from, at the words the pointer joins:
 * "saxophonist" with "saxophone" (not "sax", its synset's first word). */
static void test_derived(void) {
  static pairs s;
  eg_err err = {0};
  const char *roots[] = {"musician#1"};
  EG_REQUIRE(eg_wordnet_derived(NULL, roots, 1, add_pair, &s, &err) == EG_OK);
  EG_CHECK(strstr(s.all, "|pianist<piano|") != NULL);
  EG_CHECK(strstr(s.all, "|cellist<cello|") != NULL);
  EG_CHECK(strstr(s.all, "|saxophonist<saxophone|") != NULL);
  EG_CHECK(strstr(s.all, "|saxophonist<sax|") == NULL);
  const char *none[] = {"notawordatall#1"};
  EG_CHECK(eg_wordnet_derived(NULL, none, 1, add_pair, &s, &err) == EG_ENOTFOUND);
}

typedef struct closure_seen {
  size_t n;
  bool dachshund, cello;
} closure_seen;

static bool count_lemma(void *ctx, const char *lemma, bool proper, const char *head) {
  (void)proper, (void)head;
  closure_seen *c = ctx;
  c->n++;
  c->dachshund |= strcmp(lemma, "dachshund") == 0;
  c->cello |= strcmp(lemma, "cello") == 0;
  return true;
}

/* A closure is the same after the walks' memory is given back (the data files are read
 * again); a root is spelt with spaces or underscores alike. */
static void test_closure_after_rest(void) {
  eg_err err = {0};
  closure_seen a = {0}, b = {0}, c = {0};
  EG_REQUIRE(eg_wordnet_closure(NULL, "dog#1", count_lemma, &a, &err) == EG_OK);
  EG_CHECK(a.dachshund && !a.cello && a.n > 100);
  eg_wordnet_rest();
  EG_REQUIRE(eg_wordnet_closure(NULL, "dog#1", count_lemma, &b, &err) == EG_OK);
  EG_CHECK(b.dachshund && b.n == a.n);
  EG_REQUIRE(eg_wordnet_closure(NULL, "musical instrument", count_lemma, &c, &err) == EG_OK);
  EG_CHECK(c.cello && !c.dachshund);
  eg_wordnet_rest();
  eg_wordnet_rest(); /* twice is harmless */
}

int main(void) {
  eg_err err = {0};
  if (eg_concepts_open(NULL, 3, &wn, &err) != EG_OK) {
    fprintf(stderr, "WordNet: %s\n", err.msg);
    return 1;
  }
  EG_RUN(test_synonyms_and_hypernyms);
  EG_RUN(test_not_nouns);
  EG_RUN(test_missing_database);
  EG_RUN(test_verb_forms);
  EG_RUN(test_wholes);
  EG_RUN(test_derived);
  EG_RUN(test_closure_after_rest);
  eg_concepts_free(wn);
  return eg_test_finish();
}
