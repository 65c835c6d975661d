/*
 * test_statefacts_held.c — the prototype extractor on values the user holds (the graph's, given
 * in the context) and on values of the past, in sentences written for this test (none taken
 * from a benchmark): a held value named again, in other words, or said gone; a value a word of
 * ending ends, and when.
 *
 * Needs the USE-lite model (scripts/install-deps.sh) and WordNet; skips without the model.
 */
#include "tests/unit/statefacts_check.h"

/* The former fact beside a value said to end, if any (NULL: none). */
static const eg_fact *former_of(const eg_enriched *out) {
  for (size_t i = 0; i < out->n_facts; i++)
    if (out->facts[i].since_first_mention) return &out->facts[i];
  return NULL;
}

/* Values the user holds (the graph's, given in the context): a later bare mention of one has
 * its type, in lower case too and by a part of it; said gone, in the user's words of
 * themselves or not, it is a word on the state; said to be still there, or said again, it
 * is nothing new. Without the held values none of these is read but a loss whose words say
 * what was lost by the margin ("the house is so quiet"). */
static void test_held_values(void) {
  static const eg_held held[] = {{"HAS_PET", "Pepper", false},
                                 {"PARTNER_OF", "Tobias", false},
                                 {"WORKS_AT", "Corvid Analytics", false},
                                 {"HAS_PET", "Biscuit", false},
                                 {"DRIVES", "Ford Focus", false},
                                 {"NOT_A_STATE", "Nowhere", false}};
  eg_enrich_ctx hctx = ctx;
  hctx.held = held;
  hctx.n_held = sizeof held / sizeof *held;
  static const struct {
    const char *text, *doubted; /* NULL: nothing at all */
    const char *left; /* without the held values, the value read as left with its doubt; NULL:
                       * nothing at all */
  } x[] = {
      {"Pepper passed away peacefully on Sunday.", "HAS_PET", NULL},
      {"We lost Pepper on Tuesday, the house is so quiet.", "HAS_PET", "Pepper"},
      {"My sister took Pepper to live on her farm.", "HAS_PET", NULL},
      {"tobias moved out last week, the flat feels empty.", "PARTNER_OF", NULL},
      {"Pepper keeps stealing my socks from the laundry.", NULL, NULL},
      {"I walked Pepper along the river this morning.", NULL, NULL},
      {"I baked a biscuit and it burned.", NULL, NULL},
      /* … unless it opens the sentence before a verb that ends a state */
      {"biscuit passed away last month, the house is so quiet.", "HAS_PET", NULL},
      /* a word of a held value after a determiner, in lower case, names it */
      {"sold the focus to a neighbour last week.", "DRIVES", NULL},
  };
  eg_arena *a = eg_arena_new(0, 0);
  for (size_t i = 0; i < sizeof x / sizeof *x; i++)
    for (int with = 0; with < 2; with++) {
      eg_enriched out;
      EG_REQUIRE(read_in(a, with ? &hctx : &ctx, x[i].text, &out) == EG_OK);
      const char *want = with ? x[i].doubted : NULL;
      if (!with && x[i].left)
        EG_CHECK(says(x[i].text, EG_STATE_UNCERTAIN, x[i].doubted) &&
                 says(x[i].text, x[i].doubted, x[i].left));
      else
        EG_CHECK(only_fact(x[i].text, with, &out, want ? EG_STATE_UNCERTAIN : NULL, want));
    }
  /* a kind word one relation takes, which a held value would keep out, takes the place of the
   * held value given up beside it */
  static const eg_held sax = {"PLAYS", "sax", false};
  hctx.held = &sax, hctx.n_held = 1;
  eg_enriched out;
  EG_REQUIRE(read_in(a, &hctx, "I swapped the sax for a drum kit last month.", &out) == EG_OK);
  EG_CHECK(out.n_facts > 0 && !strcmp(out.facts[0].relation, "PLAYS") &&
           !strcmp(out.facts[0].object, "drums"));
  eg_arena_free(a);
}

/* Another word for a held value is that value: one of WordNet's ("my fiddle" while "violin" is
 * held is no new instrument, and selling it ends the violin), a person's name cut short ("rafa"
 * while "Rafael" is held is no new partner); with nothing held each is a value. */
static void test_other_words_for_held(void) {
  /* a common word is held as a literal, as graphd gives it back (the violin); a name as an
   * entity's */
  static const eg_held held[] = {{"PLAYS", "violin", true}, {"PARTNER_OF", "Rafael", false}};
  eg_enrich_ctx hctx = ctx;
  hctx.held = held;
  hctx.n_held = 2;
  static const struct {
    const char *text, *held_rel, *held_obj, *bare_rel, *bare_obj;
  } x[] = {
      {"I practise my fiddle every night.", NULL, NULL, "PLAYS", "fiddle"},
      {"I sold my fiddle last week.", EG_STATE_UNCERTAIN, "PLAYS", NULL, NULL},
      {"I play the cello now.", "PLAYS", "cello", "PLAYS", "cello"},
      {"my bf rafa keeps leaving dishes in the sink.", NULL, NULL, "PARTNER_OF", "rafa"},
      {"rafa and I broke up last week.", EG_STATE_UNCERTAIN, "PARTNER_OF", NULL, NULL},
      {"I'm dating Raffaella now.", "PARTNER_OF", "Raffaella", "PARTNER_OF", "Raffaella"},
  };
  eg_arena *a = eg_arena_new(0, 0);
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) {
    eg_enriched out;
    EG_REQUIRE(read_in(a, &hctx, x[i].text, &out) == EG_OK);
    EG_CHECK(only_fact(x[i].text, true, &out, x[i].held_rel, x[i].held_obj));
    if (!x[i].bare_rel) continue;
    EG_REQUIRE(read_in(a, &ctx, x[i].text, &out) == EG_OK);
    EG_CHECK(only_fact(x[i].text, false, &out, x[i].bare_rel, x[i].bare_obj));
  }
  eg_arena_free(a);
}

/* A value a word of ending of its own ends, never read as held, was the user's until then
 * (valid_to: the date the clause gives, else when it was said; the start is the caller's to
 * find); a value only named as former ("my ex X", "from X") or held has no end to tell. */
static void test_former_values(void) {
  eg_arena *a = eg_arena_new(0, 0);
  static const struct {
    const char *text, *relation, *object, *until;
  } x[] = {
      {"Sold the piano to make space and rented a cello!", "PLAYS", "piano",
       "2025-06-10T12:00:00Z"},
      {"Since leaving Lisbon in October I miss the bakeries.", "LIVES_IN", "Lisbon",
       "2024-10-01T00:00:00Z"}, /* the last October before it was said */
      {"Priya and I split up last month.", "PARTNER_OF", "Priya", "2025-05-01T00:00:00Z"},
      {"Me and Anna broke up.", "PARTNER_OF", "Anna", "2025-06-10T12:00:00Z"},
      {"I'm done with keto.", "DIET", "keto", "2025-06-10T12:00:00Z"},
      {"We rehomed Pepper, my son is allergic.", "HAS_PET", "Pepper", "2025-06-10T12:00:00Z"},
      /* a negation before it and "anymore" after it, with or without a verb */
      {"Not paleo anymore. Legumes are back!", "DIET", "paleo", "2025-06-10T12:00:00Z"},
      {"I don't live in Lisbon any more, I moved north to Porto.", "LIVES_IN", "Lisbon",
       "2025-06-10T12:00:00Z"},
      {"I'm not sure I want to live in Lisbon anymore.", NULL, NULL, NULL},
      /* a length of time after "after", with a word of change: the time there is over */
      {"Moved back to Manchester after two years in Berlin.", "LIVES_IN", "Berlin",
       "2025-06-10T12:00:00Z"},
      {"Back to eating meat after two years of being vegan.", "DIET", "vegan",
       "2025-06-10T12:00:00Z"},
      /* … and "after being" it, with a word of a new start ("again", "started", "split") */
      {"After 3 years of being vegan I'm eating meat again.", "DIET", "vegan",
       "2025-06-10T12:00:00Z"},
      {"after being with Tom for 5 years we split", "PARTNER_OF", "Tom", "2025-06-10T12:00:00Z"},
      {"After ten years as a vegetarian, I've started eating fish.", "DIET", "vegetarian",
       "2025-06-10T12:00:00Z"},
      {"After two years in Berlin, I love it here.", NULL, NULL, NULL},
      {"After being in Leeds a year I finally feel at home.", NULL, NULL, NULL},
      {"My ex Leila just got engaged.", NULL, NULL, NULL},
      {"I'm originally from Leeds.", NULL, NULL, NULL},
      {"I live in Lisbon.", NULL, NULL, NULL},
      /* the word of ending is another predicate's, the value no subject of it */
      {"Writing a report for Ashcombe Council and losing the will to live.", NULL, NULL, NULL},
  };
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) {
    eg_enriched out;
    EG_REQUIRE(read_in(a, &ctx, x[i].text, &out) == EG_OK);
    const eg_fact *f = former_of(&out);
    if (!x[i].relation) {
      if (f) fprintf(stderr, "  \"%s\": former %s %s\n", x[i].text, f->relation, f->object);
      EG_CHECK(f == NULL);
      continue;
    }
    EG_REQUIRE(f != NULL);
    EG_CHECK_STR(f->relation, x[i].relation);
    EG_CHECK_STR(f->object, x[i].object);
    EG_CHECK(f->valid_from == 0);
    EG_CHECK(f->valid_to == T(x[i].until));
  }
  /* … and a held one: the graph has it already (a literal held is the caller's to tell) */
  eg_held held = {"PARTNER_OF", "Priya", false};
  eg_enrich_ctx hc = ctx;
  hc.held = &held, hc.n_held = 1;
  eg_enriched out;
  EG_REQUIRE(read_in(a, &hc, "Priya and I split up last month.", &out) == EG_OK);
  EG_CHECK(former_of(&out) == NULL);
  eg_arena_free(a);
  /* the first mention the caller looks for: the user's own words naming the value as theirs */
  static const struct {
    const char *text;
    bool holds;
  } m[] = {
      {"The Sunday walk along the river in Lisbon is lovely.", true},
      {"We have lived in Lisbon since spring.", true},
      {"Is Lisbon nice in winter?", false},
      {"My sister lives in Lisbon.", false},
      {"I left Lisbon for good.", false},
  };
  for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
    bool got =
        eg_statefacts_holds_value(sf, m[i].text, 0, strlen(m[i].text), 0, "LIVES_IN", "Lisbon");
    if (got != m[i].holds) fprintf(stderr, "  \"%s\": holds %d\n", m[i].text, got);
    EG_CHECK(got == m[i].holds);
  }
  EG_CHECK(!eg_statefacts_holds_value(sf, "I live in Porto.", 0, 16, 0, "LIVES_IN", "Lisbon"));
  /* the value sought named in chat's lower case; not so a common word ("golf") */
  const char *rig = "it's for a test rig at siemens, we run it on the line in erlangen",
             *golf = "my golf is at the garage, we play golf on sundays";
  EG_CHECK(eg_statefacts_holds_value(sf, rig, 0, strlen(rig), 0, "WORKS_AT", "Siemens"));
  EG_CHECK(!eg_statefacts_holds_value(sf, rig, 0, strlen(rig), 0, "WORKS_AT", "Bosch"));
  EG_CHECK(!eg_statefacts_holds_value(sf, golf, 0, strlen(golf), 0, "DRIVES", "Golf"));
  /* a value beside a later event is the user's before it; someone else's is not */
  const char *audition = "I have a violin audition next month.",
             *hers = "My sister has a violin audition next month.";
  int64_t said = T("2022-02-02T12:00:00Z");
  EG_CHECK(eg_statefacts_holds_value(sf, audition, 0, strlen(audition), said, "PLAYS", "violin"));
  EG_CHECK(!eg_statefacts_holds_value(sf, hers, 0, strlen(hers), said, "PLAYS", "violin"));
  /* a negation in the predicate a name opens is of what that one does; "we" is the speaker */
  eg_enriched out2;
  eg_arena *a2 = eg_arena_new(0, 0);
  EG_REQUIRE(read_in(a2, &ctx, "Tobias got a job in Oslo and we couldn't make it work.", &out2) ==
             EG_OK);
  EG_CHECK(out2.n_facts == 0 || !strcmp(out2.facts[0].relation, EG_STATE_UNCERTAIN));
  eg_arena_free(a2);
  const char *fuss = "It's our anniversary and Tobias says he doesn't want a fuss.";
  EG_CHECK(eg_statefacts_holds_value(sf, fuss, 0, strlen(fuss), 0, "PARTNER_OF", "Tobias"));
  EG_CHECK(
      !eg_statefacts_holds_value(sf, "I live in Lisbon.", 0, 17, 0, "NOT_A_RELATION", "Lisbon"));
  /* the speaker's words of a stored round: its first turn */
  const char *round = "user: I live in Lisbon.\nassistant: I live in Porto.";
  size_t from, to;
  eg_statefacts_said_span(round, false, &from, &to);
  EG_CHECK(from == 6 && to == 23);
  eg_statefacts_said_span(round, true, &from, &to);
  EG_CHECK(from == 0 && to == strlen(round));
}

/* "old" after the time a being has lived tells its age, not a value before ("a 12 week old
 * beagle" is the user's now; "our old collie" is not). */
static void test_age_is_no_former(void) {
  static const expect x[] = {
      {"first week home for the pup: chewed a slipper, he's a 12 week old beagle", "HAS_PET",
       "beagle"},
      {"our old collie cross died last spring", EG_STATE_UNCERTAIN, "HAS_PET"},
  };
  check_all(x, sizeof x / sizeof *x);
}

int main(void) {
  int rc = sf_check_open();
  if (rc) return rc < 0 ? 0 : rc;
  EG_RUN(test_held_values);
  EG_RUN(test_other_words_for_held);
  EG_RUN(test_former_values);
  EG_RUN(test_age_is_no_former);
  sf_check_close();
  return eg_test_finish();
}
