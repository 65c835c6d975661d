/*
 * test_statefacts_prospect.c — values the user is after (a prospect) and a later word that one
 * began without its name, in sentences written for this test (none taken from a benchmark):
 * which value a statement names as sought (eg_statefacts_prospect), and the value a begun
 * word takes from the prospects in the context.
 *
 * Needs the USE-lite model (scripts/install-deps.sh) and WordNet; skips without the model.
 */
#include "tests/unit/statefacts_check.h"

/* The one value a statement names as sought: a plan, a wish or an offer of the speaker's own;
 * not one negated, past, someone else's, only visited, or one of two; a kind word of a relation
 * whose values are words, and of one whose values are names where no name is sought (not a
 * word for any of its kind: "a dog"). */
static void test_sought(void) {
  static const struct {
    const char *relation, *text, *value; /* NULL: none */
    bool named;
  } x[] = {
      {"WORKS_AT", "applied for a research post at Ferncliff University. fingers crossed",
       "Ferncliff University", true},
      {"WORKS_AT", "got an offer from Deliveroo, still deciding", "Deliveroo", true},
      {"LIVES_IN", "we're thinking of moving to Leeds next year", "Leeds", true},
      {"LIVES_IN", "looking at flats in Bristol this weekend", "Bristol", true},
      {"HAS_PET", "we might adopt a greyhound called Milo", "Milo", true},
      {"PLAYS", "I want to learn the cello", "cello", false},
      {"DRIVES", "saving up for a Tesla", "Tesla", true},
      {"LIVES_IN", "we put an offer on a flat in Leeds!", "Leeds", true},
      {"DRIVES", "we put a deposit down on a Kia Niro", "Kia Niro", true},
      {"WORKS_AT", "I'd never work at Google", NULL, false},
      {"WORKS_AT", "turned down an offer from Deliveroo, the pay was awful", NULL, false},
      {"LIVES_IN", "Leeds will be freezing next week", NULL, false},
      {"WORKS_AT", "I used to work at Google", NULL, false},
      {"WORKS_AT", "I have an interview at Monzo on Thursday", NULL, false},
      {"WORKS_AT", "torn between offers from Arup and Atkins", NULL, false},
      {"LIVES_IN", "my sister is moving to Leeds", NULL, false},
      {"LIVES_IN", "got a postcard from Lisbon", NULL, false},
      {"HAS_PET", "we might adopt a greyhound", "greyhound", false},
      {"HAS_PET", "we're getting a rescue pup next week, a lurcher", "lurcher", false},
      {"HAS_PET", "we're thinking about getting a dog", NULL, false},
      {"HAS_PET", "my sister is getting a lurcher", NULL, false},
      {"WORKS_AT", "I work at Monzo", NULL, false},
  };
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) {
    char v[64] = "";
    bool named = !x[i].named;
    bool got = eg_statefacts_prospect(sf, x[i].text, 0, strlen(x[i].text), T("2025-06-10"),
                                      x[i].relation, v, sizeof v, &named);
    bool ok = x[i].value ? got && !strcmp(v, x[i].value) && named == x[i].named : !got;
    if (!ok) fprintf(stderr, "  \"%s\": %s\n", x[i].text, got ? v : "none");
    EG_CHECK(ok);
  }
  char small[6];
  bool named;
  const char *t = "applied for a research post at Ferncliff University";
  EG_CHECK(eg_statefacts_prospect(sf, t, 0, strlen(t), 0, "WORKS_AT", small, sizeof small, &named));
  EG_CHECK_STR(small, "Fernc"); /* cut to the buffer */
}

/* An offer or a deposit on a thing is a plan, not the thing had: a word on the state. */
static void test_offer_on(void) {
  static const expect x[] = {
      {"we put an offer on a flat in Leeds!", EG_STATE_UNCERTAIN, "LIVES_IN"},
      {"the offer on our flat in Leeds fell through", EG_STATE_UNCERTAIN, "LIVES_IN"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* With a value in prospect, a word that a value began without naming it is that value, read
 * from the day told beside it, its extractor saying it was inferred; an acknowledgement, a
 * message naming another value, or a begun word with no prospect is not. "[+]" words ("I got
 * it") read only where the prospects are of one relation. */
static void test_prospect_won(void) {
  static const eg_held held[] = {{"WORKS_AT", "Ashcombe Council", false},
                                 {"LIVES_IN", "Norwich", false}};
  static const eg_prospect job[] = {{"WORKS_AT", "Ferncliff University", false}};
  static const eg_prospect both[] = {{"WORKS_AT", "Ferncliff University", false},
                                     {"LIVES_IN", "Leeds", false}};
  static const eg_prospect jobs[] = {{"WORKS_AT", "Ferncliff University", false},
                                     {"WORKS_AT", "Monzo", false}};
  eg_enrich_ctx one = ctx, two = ctx, none = ctx, home = ctx;
  one.held = two.held = none.held = home.held = held;
  one.n_held = two.n_held = none.n_held = home.n_held = 2;
  one.prospects = job, one.n_prospects = 1;
  two.prospects = both, two.n_prospects = 2;
  home.prospects = both + 1, home.n_prospects = 1;
  eg_enrich_ctx twice = one;
  twice.prospects = jobs, twice.n_prospects = 2;
  static const expect won[] = {
      {"I got the job!!", "WORKS_AT", "Ferncliff University"},
      {"got it!! start feb 1st. so excited", "WORKS_AT", "Ferncliff University"},
      {"I got it!!", "WORKS_AT", "Ferncliff University"},
      {"got it, thanks", NULL, NULL},
      {"I got it working, thanks!", NULL, NULL},
      {"I got the job!! the Monzo team is lovely", EG_STATE_UNCERTAIN, "WORKS_AT"},
  };
  static const expect of_two[] = {
      {"I got the job!!", "WORKS_AT", "Ferncliff University"},
      {"We got the keys today!", "LIVES_IN", "Leeds"},
      {"I got it!!", NULL, NULL},
  };
  static const expect of_home[] = {
      {"we decided to go for it!", "LIVES_IN", "Leeds"},
      {"I said yes to the promotion!", NULL, NULL},
  };
  static const expect of_two_jobs[] = {
      {"I got the job!!", EG_STATE_UNCERTAIN, "WORKS_AT"}, /* which one is not said */
  };
  static const expect no_prospect[] = {
      {"I got the job!!", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"I got it!!", NULL, NULL},
      /* "Got it, thanks" ([NONE] of no type) weighs against clauses read for a prospect only */
      {"got the job, thanks!", EG_STATE_UNCERTAIN, "WORKS_AT"},
  };
  eg_arena *a = eg_arena_new(0, 0);
  eg_enriched out;
  EG_REQUIRE(read_in(a, &one, won[1].text, &out) == EG_OK && out.n_facts);
  EG_CHECK_STR(out.facts[0].extractor, EG_STATE_INFERRED);
  EG_CHECK(out.facts[0].object_entity);
  EG_CHECK(out.facts[0].valid_from == T("2026-02-01T00:00:00Z"));
  eg_arena_free(a);
  for (size_t i = 0; i < sizeof won / sizeof *won; i++) check_in(&one, &won[i], 1);
  for (size_t i = 0; i < sizeof of_two / sizeof *of_two; i++) check_in(&two, &of_two[i], 1);
  for (size_t i = 0; i < sizeof of_home / sizeof *of_home; i++) check_in(&home, &of_home[i], 1);
  check_in(&twice, of_two_jobs, 1);
  for (size_t i = 0; i < sizeof no_prospect / sizeof *no_prospect; i++)
    check_in(&none, &no_prospect[i], 1);
}

/* With the kind of a value in prospect ("getting a lurcher next week"), a name its words give
 * that kind is the value begun, however weakly the rest reads; not another's of that kind, nor a
 * name without it, nor the kind word itself where a value begun is not named. */
static void test_kind_awaited(void) {
  static const eg_held held[] = {{"HAS_PET", "Pepper", false}};
  static const eg_prospect lurcher[] = {{"HAS_PET", "lurcher", true}};
  eg_enrich_ctx awaited = ctx, none = ctx;
  awaited.held = none.held = held;
  awaited.n_held = none.n_held = 1;
  awaited.prospects = lurcher, awaited.n_prospects = 1;
  static const expect of_kind[] = {
      {"juniper (the lurcher) won't stop counter surfing, she's had a whole loaf.", "HAS_PET",
       "juniper"},
      {"my sister's lurcher Bramble keeps barking", NULL, NULL},
      {"saw a lurcher called Bramble at the park today", NULL, NULL},
      {"our lurcher Bramble hates the rain", "HAS_PET", "Bramble"},
      {"we picked her up today!", NULL, NULL},
  };
  for (size_t i = 0; i < sizeof of_kind / sizeof *of_kind; i++) check_in(&awaited, &of_kind[i], 1);
  check_in(&none, &(expect){of_kind[0].text, NULL, NULL}, 1);
}

int main(void) {
  int rc = sf_check_open();
  if (rc) return rc < 0 ? 0 : rc;
  EG_RUN(test_sought);
  EG_RUN(test_offer_on);
  EG_RUN(test_prospect_won);
  EG_RUN(test_kind_awaited);
  sf_check_close();
  return eg_test_finish();
}
