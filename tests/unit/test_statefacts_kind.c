/*
 * test_statefacts_kind.c — the kind a named value is of, kept beside it (Noodle IS_A ferret), in
 * words written for this test (none taken from a benchmark): a kind in the name's sentence, the
 * nearest and a kind's own word before a general one, a young one's word as its kind, a plural,
 * someone else's kind left aside, a name given to "her" after the kind was said, a kind said
 * once elsewhere in the message, several kinds and none; a kind a rules' reading of the name
 * keeps; the questions that ask for a kind; names bound to a kind word by a copula, by "the
 * <kind> is called", by commas; a note's opener that is no name.
 *
 * Needs the USE-lite model (scripts/install-deps.sh) and WordNet; skips without the model.
 */
#include "tests/unit/statefacts_check.h"

typedef struct expect_kind {
  const char *text;
  const char *name; /* the HAS_PET value read */
  const char *kind; /* its IS_A, NULL: none */
} expect_kind;

/* The kind facts of out for subject name: how many, the first's value into *kind. */
static size_t kinds_of(const eg_enriched *out, const char *name, const char **kind) {
  size_t n = 0;
  for (size_t i = 0; i < out->n_facts; i++) {
    const eg_fact *f = &out->facts[i];
    if (strcmp(f->relation, EG_KIND_OF) != 0 || strcmp(f->subject, name) != 0) continue;
    if (!n++) *kind = f->object;
    EG_CHECK(!f->object_entity);
    EG_CHECK_STR(f->extractor, "prototypes");
  }
  return n;
}

static void check_kinds(const eg_enrich_ctx *c, const expect_kind *x, size_t n) {
  eg_arena *a = eg_arena_new(0, 0);
  for (size_t i = 0; i < n; i++) {
    eg_enriched out;
    const char *kind = NULL;
    bool read = read_in(a, c, x[i].text, &out) == EG_OK;
    const eg_fact *pet = NULL;
    for (size_t k = 0; read && k < out.n_facts && !pet; k++)
      if (!strcmp(out.facts[k].relation, "HAS_PET")) pet = &out.facts[k];
    size_t nk = kinds_of(&out, x[i].name, &kind);
    bool ok = pet && !strcmp(pet->object, x[i].name) &&
              (x[i].kind ? nk == 1 && !strcmp(kind, x[i].kind) : nk == 0);
    if (!ok)
      fprintf(stderr, "  \"%s\": expected %s IS_A %s, got %s IS_A %s\n", x[i].text, x[i].name,
              x[i].kind ? x[i].kind : "nothing", pet ? pet->object : "no pet",
              nk ? kind : "nothing");
    EG_CHECK(ok);
  }
  eg_arena_free(a);
}

/* The kind said with the name, in its sentence: the nearest, the one before it on a tie, a
 * kind's own word over a general one; a young one's word names its kind; not someone else's. */
static void test_kind_in_sentence(void) {
  static const expect_kind x[] = {
      {"We adopted a rescue greyhound called Bolt.", "Bolt", "greyhound"},
      {"My dog Biscuit keeps barking at the neighbours' cat.", "Biscuit", "dog"},
      {"Waffles the ferret has stolen another sock.", "Waffles", "ferret"},
      {"We got a puppy, his name is Rocco.", "Rocco", "dog"},
      {"Say hello to our new kitten, Pickle!", "Pickle", "cat"},
      {"new rescue pup, Rufus, lurcher mix, 8 months old", "Rufus", "lurcher"},
      {"My dog Max and my cat Luna don't get along.", "Max", "dog"},
      {"We adopted two guinea pigs, Salt and Pepper.", "Pepper", "guinea pig"},
      {"My sisters dog keeps chasing our cat Miso.", "Miso", "cat"},
      {"We adopted a new pet last week, Juniper.", "Juniper", NULL},
  };
  check_kinds(&ctx, x, sizeof x / sizeof *x);
}

/* Outside the name's sentence: the kind said before a name given to "him" or "her" (whosever
 * it was said as), else the only kind the message says. */
static void test_kind_in_message(void) {
  static const expect_kind x[] = {
      {"GOT A FERRET!!! her name is noodle and she already stole my socks. is she ok near my "
       "flatmate's cat?",
       "noodle", "ferret"},
      {"The old rabbit died in May. We took one of my cousin's puppies, he's called Marlowe.",
       "Marlowe", "dog"},
      {"Brought home a tortoise yesterday. Meet Otis!", "Otis", "tortoise"},
      {"The vet saw a parrot and a cat today. Meet Otis!", "Otis", NULL},
  };
  check_kinds(&ctx, x, sizeof x / sizeof *x);
}

/* The kind of a name the rules read too ("my dog X" is a rules pattern) is read all the same. */
static void test_kind_beside_rules(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s = {"I have a dog named Pretzel.", "user", "", T("2025-06-10T12:00:00Z"), 0, 0};
  eg_enriched out;
  memset(&out, 0, sizeof out);
  eg_err e;
  EG_CHECK(eg_enrich_rules(&ctx, &s, 1, a, &out, &e) == EG_OK);
  size_t rules = out.n_facts;
  EG_CHECK(eg_statefacts_extract(sf, &ctx, &s, 1, a, &out, NULL, &e) == EG_OK);
  const char *kind = NULL;
  EG_CHECK(rules > 0);
  EG_CHECK(kinds_of(&out, "Pretzel", &kind) == 1);
  EG_CHECK_STR(kind, "dog");
  eg_arena_free(a);
}

/* A name a copula says is the speaker's kind ("X is our hamster", "X's my cat"), one "the" and a
 * kind word of a thing kept are said to be called ("the dog is called X"; not "the guy", "the
 * company", "the town"), a word, too, that "she's called" gives after the kind word ("we got a
 * kitten! she's called bean"), a word set off by commas right after a kind word ("our lurcher, dot,
 * …"; not an adjective: "a kitten, ginger, named him X"); no note's opener ("PS my dog …"). */
static void test_names_bound_to_kinds(void) {
  static const expect x[] = {
      {"Pickles is our hamster, she's nocturnal and noisy.", "HAS_PET", "Pickles"},
      {"Luna's my cat, she's 12.", "HAS_PET", "Luna"},
      {"the dog is called Bear and he's a newfoundland", "HAS_PET", "Bear"},
      {"The kitten's name is Sprout.", "HAS_PET", "Sprout"},
      {"we got a kitten! she's called bean and she bites everything", "HAS_PET", "bean"},
      {"the guy is called Tom", NULL, NULL},
      {"the company is called Zentrix", NULL, NULL},
      {"the town is called Whitby", NULL, NULL},
      {"our rescue lurcher, dot, is terrified of the hoover", "HAS_PET", "dot"},
      {"adopted a rescue kitten, ginger, named him Mango", "HAS_PET", "Mango"},
      {"my dog, honestly, is the best", NULL, NULL},
      {"PS my dog says hi", NULL, NULL},
      {"NB my cat is diabetic", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  /* a name set off by commas is the subject of the predicate after it: "…, X, died" ends it
   * (was current), and so is one with its kind word set off after it, which is no value of its
   * own ("X, our beagle, …" was HAS_PET beagle where X is held) */
  static const char *const died[] = {"Our elderly spaniel, Barnaby, died in the autumn.",
                                     "Pepper, our collie, died last week",
                                     "Pepper, our collie, had to be put to sleep last week"};
  eg_arena *a = eg_arena_new(0, 0);
  for (size_t k = 0; k < sizeof died / sizeof *died; k++) {
    eg_enriched out;
    EG_REQUIRE(read_in(a, &ctx, died[k], &out) == EG_OK);
    bool ended = false, current = false;
    for (size_t i = 0; i < out.n_facts; i++)
      if (!strcmp(out.facts[i].relation, "HAS_PET"))
        *(out.facts[i].valid_to ? &ended : &current) = true;
    if (!ended || current) fprintf(stderr, "  \"%s\": not ended\n", died[k]);
    EG_CHECK(ended && !current);
  }
  eg_arena_free(a);
  static const eg_held biscuit[] = {{"HAS_PET", "Biscuit", false}};
  const eg_enrich_ctx held = {
      .user_entity = "user:u1", .prev = 3, .next = 1, .held = biscuit, .n_held = 1};
  static const expect gone[] = {
      {"Biscuit, our beagle, died in his sleep", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"Biscuit, our beagle, loves the beach", NULL, NULL},
  };
  check_in(&held, gone, sizeof gone / sizeof *gone);
  EG_CHECK(says("our hamster, Nibbles, escaped again", "HAS_PET", "Nibbles"));
  static const expect_kind k[] = {
      {"Pickles is our hamster.", "Pickles", "hamster"},
      {"the dog is called Bear and he's a newfoundland", "Bear", "newfoundland"},
      {"our rescue lurcher, dot, is terrified of the hoover", "dot", "lurcher"},
  };
  check_kinds(&ctx, k, sizeof k / sizeof *k);
}

/* A word of a thing pets are named after (@namesake: a plant, a food, an animal), in lower case
 * right after the speaker's kind word and the subject of the verb after it, is the pet's name
 * ("my budgie kiwi has …"); another word there heads a compound ("my dog bed", "my dog walker",
 * "my cat food", "my dog hair", "my dog treat jar"), and so does one WordNet joins to the kind
 * ("dog biscuit"); someone else's kind word names no pet of theirs. */
static void test_namesakes(void) {
  static const expect x[] = {
      {"my budgie kiwi has started plucking his chest feathers. is it stress?", "HAS_PET", "kiwi"},
      {"my new puppy clover is asleep on my feet", "HAS_PET", "clover"},
      {"our dog pepper ate a sock", "HAS_PET", "pepper"},
      {"my cat tofu hates the new sofa", "HAS_PET", "tofu"},
      {"my dog nacho keeps chewing shoes", "HAS_PET", "nacho"},
      {"my dog treat jar is empty", NULL, NULL},
      {"my cat meat bill is huge", NULL, NULL},
      {"my dog bed has a hole in it", NULL, NULL},
      {"my dog walker cancelled again", NULL, NULL},
      {"my cat food order is late", NULL, NULL},
      {"my dog hair is everywhere", NULL, NULL},
      {"my dog biscuit tin is empty", NULL, NULL},
      {"my friend's dog pepper is staying over", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  /* a name typed by what it has (@belongs): "X's cage", in lower case where it is a namesake;
   * a place's possessive stays a place's ("London's weather") */
  static const expect had[] = {
      {"kiwi's cage needs cleaning.", "HAS_PET", "kiwi"},
      {"Yeah, Ziggy's cage stays in my room.", "HAS_PET", "Ziggy"},
      {"Clover's hutch is outside and its been -5 at night.", NULL, NULL},
      {"London's weather is awful.", "LIVES_IN", "London"},
      {"Bruno's kibble is running low, which brand is best for a spaniel", "HAS_PET", "Bruno"},
  };
  check_all(had, sizeof had / sizeof *had);
  static const expect_kind k[] = {{"my budgie kiwi won't stop screeching", "kiwi", "budgie"}};
  check_kinds(&ctx, k, sizeof k / sizeof *k);
}

/* A value's word that is an adjective too, before the plural of a kind word, qualifies a class
 * ("electric cars"): no one's value. Before the kind word itself it still names one. */
static void test_class_qualifier(void) {
  static const expect x[] = {
      {"I read about the range of electric cars.", NULL, NULL},
      {"We bought an electric car.", "DRIVES", "electric car"},
      {"my guitar strings keep breaking", "PLAYS", "guitar"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A negation after the user's kind word and a name is of what the named one does, after "that",
 * "because" … too ("is it normal that my dog X doesn't eat?"), and after "be" before an -ing
 * form ("X isn't eating"); not where "be" says what a name is ("X is not home"). */
static void test_what_it_does_not(void) {
  static const expect x[] = {
      {"is it normal that my dog Rex doesn't eat?", "HAS_PET", "Rex"},
      {"I'm worried because my cat Tom isn't eating.", "HAS_PET", "Tom"},
      {"Leeds is not home.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* The questions that ask for a kind, not for a name. */
static void test_asks_kind(void) {
  EG_CHECK(eg_statefacts_asks_kind("What kind of pet do I have now?"));
  EG_CHECK(eg_statefacts_asks_kind("What breed is my dog?"));
  EG_CHECK(eg_statefacts_asks_kind("Which animal did we adopt in 2021?"));
  EG_CHECK(eg_statefacts_asks_kind("what type of pet have i got"));
  EG_CHECK(!eg_statefacts_asks_kind("What's my dog called?"));
  EG_CHECK(!eg_statefacts_asks_kind("What is the name of the kind of cat I have?"));
  EG_CHECK(!eg_statefacts_asks_kind("What pet do I have?"));
  EG_CHECK(!eg_statefacts_asks_kind(NULL));
}

/* Chat's short names of breeds WordNet knows only by their long ones are kinds of pet. */
static void test_breed_short_names(void) {
  static const expect x[] = {
      {"what should I feed a 10 week old labrador? his name's Bruno", "HAS_PET", "Bruno"},
      {"we adopted a staffie called Tyson", "HAS_PET", "Tyson"},
      {"my yorkie Pip hates the rain", "HAS_PET", "Pip"},
  };
  check_all(x, sizeof x / sizeof *x);
}

int main(void) {
  EG_RUN(test_asks_kind);
  int rc = sf_check_open();
  if (rc) return rc < 0 ? eg_test_finish() : rc;
  EG_RUN(test_kind_in_sentence);
  EG_RUN(test_kind_in_message);
  EG_RUN(test_kind_beside_rules);
  EG_RUN(test_names_bound_to_kinds);
  EG_RUN(test_namesakes);
  EG_RUN(test_class_qualifier);
  EG_RUN(test_what_it_does_not);
  EG_RUN(test_breed_short_names);
  sf_check_close();
  return eg_test_finish();
}
