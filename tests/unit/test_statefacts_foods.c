/*
 * test_statefacts_foods.c — a diet told by the foods the user eats or leaves out (written for
 * this test, none taken from a benchmark): what is left out ("no meat or fish", "I don't eat
 * meat", "cut out dairy and eggs", "haven't touched meat", "exclude barley"), what is eaten
 * ("fish is fine", "eating meat again", "I eat everything", "just fish", "… but not meat"), the
 * held value weighed with them, and what tells nothing: someone else's plate, a question, a plan, a
 * hedge, a past, less instead of none, a value said outright. The prototypes file's @food and
 * @describe lines, refused when wrong.
 *
 * Needs the USE-lite model (scripts/install-deps.sh) and WordNet; skips without the model.
 */
#include "tests/unit/statefacts_check.h"

/* Nothing held: the groups said tell the value; WordNet's foods eaten stand for their group. */
static void test_foods_tell_a_diet(void) {
  static const expect x[] = {
      {"I don't eat meat but fish is fine, so salmon it is.", "DIET", "pescatarian"},
      {"no more meat for me, fish is still ok though", "DIET", "pescatarian"},
      {"I don't eat meat, and fish is not ok either", "DIET", "vegetarian"},
      {"quick dinner idea pls, I've been off meat for ages so no meat or fish.", "DIET",
       "vegetarian"},
      {"Started eating meat again after the anaemia scare.", "DIET", "omnivore"},
      {"cut out dairy and eggs for good this week", "DIET", "dairy-free"},
      {"No bread or pasta for me, I cut out gluten completely.", "DIET", "gluten-free"},
      /* "won't touch X" eats none of it; excluding wheat, barley and rye leaves gluten out */
      {"Since the spring I haven't touched meat or fish.", "DIET", "vegetarian"},
      {"My doctor says coeliac, so I now exclude barley and rye completely.", "DIET",
       "gluten-free"},
      /* every group, and a side read from the last comma ("not fussy" negates no eating) */
      {"I eat everything, and none of my guests has mentioned any restrictions.", "DIET",
       "omnivore"},
      {"I'm not fussy, I eat everything.", "DIET", "omnivore"},
      /* "nothing I won't eat", a condition after the words on the food */
      {"There's nothing on this earth I won't eat if it's been near a grill.", "DIET", "omnivore"},
      /* "no other X"; a side that "but" opens ("… but not X"); "just X" after leaving one out */
      {"I eat fish but no other meat.", "DIET", "pescatarian"},
      {"I eat fish but not meat.", "DIET", "pescatarian"},
      {"no meat for me, just fish", "DIET", "pescatarian"},
      /* a value said before the foods that undo it is the one they change */
      {"For context, I am a vegetarian of long standing, although I have recently begun to eat "
       "fish again on medical advice.",
       "DIET", "pescatarian"},
      {"I am vegetarian but I eat fish.", "DIET", "pescatarian"},
  };
  check_all(x, sizeof x / sizeof *x);
  /* a value's end said beside the foods yields to them (its doubt goes) */
  const char *ended = "I've stopped being pescatarian, I eat everything now.";
  EG_CHECK(says(ended, "DIET", "omnivore"));
  EG_CHECK(!says(ended, EG_STATE_UNCERTAIN, NULL));
}

/* What tells nothing (at most a doubt on the diet, no value): a value said outright stands
 * alone; someone else's plate, a question, a plan, a hedge, a past, eating less, a food named
 * with no side. */
static void test_foods_that_tell_nothing(void) {
  static const char *const x[] = {
      "My housemate doesn't eat meat, what can we both have?",
      "Is it healthy if I don't eat meat?",
      "thinking about going without meat next year",
      "Mostly no meat for me these days.",
      "I didn't eat meat that whole week at the retreat.",
      "I'm cutting back on meat.",
      "Leftover chicken and rice again, any ideas?",
      "Ate no meat at all on the retreat.",
      "My son doesn't eat meat.",
      "My son eats anything.",
      "I won't eat anything after 8pm.",
  };
  eg_arena *a = eg_arena_new(0, 0);
  eg_enriched out;
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) {
    EG_REQUIRE(read_in(a, &ctx, x[i], &out) == EG_OK);
    bool none = true;
    for (size_t k = 0; k < out.n_facts; k++) none &= strcmp(out.facts[k].relation, "DIET") != 0;
    if (!none) fprintf(stderr, "  \"%s\": read as a diet\n", x[i]);
    EG_CHECK(none);
  }
  const char *said = "I'm vegan now, no dairy or eggs at all.";
  EG_REQUIRE(read_in(a, &ctx, said, &out) == EG_OK);
  size_t diets = 0;
  for (size_t i = 0; i < out.n_facts; i++) diets += !strcmp(out.facts[i].relation, "DIET");
  EG_CHECK_INT(diets, 1); /* the value said, not a second one the foods tell */
  EG_CHECK(out.n_facts && !strcmp(out.facts[0].object, "vegan"));
  /* … nor one someone else's eating contradicts */
  EG_REQUIRE(read_in(a, &ctx, "I am vegan but my husband eats meat.", &out) == EG_OK);
  EG_CHECK(out.n_facts == 1 && !strcmp(out.facts[0].object, "vegan"));
  eg_arena_free(a);
}

/* The held value weighed with what is said: a vegetarian who cuts out dairy and eggs is vegan,
 * a pescatarian who eats meat again an omnivore; what the held value leaves out and no word
 * now undoes stands (a vegetarian who eats fish again is pescatarian, a pescatarian who gives
 * up fish vegetarian, one "back on meat" omnivore: "back", a word for a person too, is no one);
 * said again, no news; a held value the foods do not tell ("keto") or one on another side ("no
 * carbs" of a pescatarian) is left alone, and so is what everyone else eats. */
static void test_foods_with_held(void) {
  eg_enrich_ctx hctx = ctx;
  eg_held h = {"DIET", "vegetarian", true};
  hctx.held = &h, hctx.n_held = 1;
  static const expect veg[] = {
      {"cut out dairy and eggs for good this week", "DIET", "vegan"},
      {"still no meat or fish, obviously.", NULL, NULL},
      {"I've started eating fish again, my doctor says I need it.", "DIET", "pescatarian"},
      {"We're off to the seaside, everyone there eats fish.", NULL, NULL},
  };
  check_in(&hctx, veg, sizeof veg / sizeof *veg);
  h.value = "pescatarian";
  static const expect pesc[] = {
      {"Started eating meat again last month, doctor's orders.", "DIET", "omnivore"},
      {"I've cut out carbs this month.", NULL, NULL},
      {"I don't eat fish anymore, the oceans are empty.", "DIET", "vegetarian"},
      {"Back on meat after years without it, I feel stronger.", "DIET", "omnivore"},
  };
  check_in(&hctx, pesc, sizeof pesc / sizeof *pesc);
  /* a held value that leaves nothing out yields to a food left out now */
  h.value = "omnivore";
  static const expect omni[] = {
      {"My doctor confirmed coeliac, I have to exclude wheat, barley and rye.", "DIET",
       "gluten-free"},
  };
  check_in(&hctx, omni, 1);
  h.value = "keto";
  static const expect keto[] = {{"no dairy for me these days, what should I cook?", NULL, NULL}};
  check_in(&hctx, keto, sizeof keto / sizeof *keto);
  /* the start said with it */
  eg_arena *a = eg_arena_new(0, 0);
  eg_enriched out;
  h.value = "pescatarian";
  EG_REQUIRE(read_in(a, &hctx, "Started eating meat again last month.", &out) == EG_OK);
  EG_REQUIRE(out.n_facts == 1);
  EG_CHECK(out.facts[0].valid_from == T("2025-05-01T00:00:00Z"));
  EG_CHECK_STR(out.facts[0].extractor, "foods");
  eg_arena_free(a);
}

/* Leaving out a kind of a group is not leaving out the group: "I don't eat pork", "no red meat"
 * tell no vegetarian (only a word naming the group whole, unqualified, does: "no meat", "I
 * don't eat any meat"); eating a kind of it eats of it ("I eat chicken but no beef": omnivore). */
static void test_foods_kinds_of_a_group(void) {
  static const expect x[] = {
      {"I don't eat pork because of my religion, and no alcohol.", NULL, NULL},
      {"I don't eat beef or pork.", NULL, NULL},
      {"I haven't eaten beef or chicken in years.", NULL, NULL},
      {"I eat chicken but no beef.", "DIET", "omnivore"},
      {"I don't eat any meat.", "DIET", "vegetarian"},
      {"I gave up meat.", "DIET", "vegetarian"},
      {"No more meat or fish for me.", "DIET", "vegetarian"},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(!says("I don't eat red meat.", "DIET", "vegetarian"));
  EG_CHECK(!says("No oily fish for me, it disagrees with me.", "DIET", NULL));
  /* a stretch of time or a verb without a food leaves it out; a dish without it says nothing,
   * and what one cannot live without is eaten */
  EG_CHECK(says("Three months without meat and I feel great.", "DIET", "vegetarian"));
  EG_CHECK(!says("I made a curry without meat.", "DIET", NULL));
  EG_CHECK(says("I can't live without meat.", "DIET", "omnivore"));
  /* an ending negated keeps the food eaten */
  EG_CHECK(says("Trying to eat more plants, but I'm not giving up meat.", "DIET", "omnivore"));
}

/* A @food or @describe line that cannot be read is refused with its line. */
static void test_foods_bad_lines(void) {
  char path[20];
  EG_REQUIRE(proto_path(path));
  refused(path, "@food meat", "@food GROUP");
  refused(path, "@food meat wordnet notawordatall#1", "notawordatall");
  refused_at(path, "@type diet words vegan\n@describe diet vegan -meat", 2, "no -GROUP or +GROUP");
  refused_at(path, "@type diet words vegan\n@food meat words meat\n@describe diet vegan meat", 3,
             "no -GROUP or +GROUP");
  refused_at(path, "@food meat words meat\n@describe nosuchtype vegan -meat", 2, "@describe TYPE");
  refused_at(path,
             "@type diet words vegan\n@type pet words dog\n@food meat words meat\n"
             "@describe diet vegan -meat\n@describe pet dog +meat",
             5, "one type");
  unlink(path);
}

/* "veggie" is chat's vegetarian; a diet's word in the plural names people or food, no diet. */
static void test_veggie(void) {
  static const expect x[] = {
      {"I went veggie last year", "DIET", "vegetarian"},
      {"I'm veggie now", "DIET", "vegetarian"},
      {"we should eat more veggies", NULL, NULL},
      {"vegans are so preachy", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

int main(void) {
  int rc = sf_check_open();
  if (rc) return rc < 0 ? 0 : rc;
  EG_RUN(test_foods_tell_a_diet);
  EG_RUN(test_foods_that_tell_nothing);
  EG_RUN(test_foods_with_held);
  EG_RUN(test_foods_kinds_of_a_group);
  EG_RUN(test_foods_bad_lines);
  EG_RUN(test_veggie);
  sf_check_close();
  return eg_test_finish();
}
