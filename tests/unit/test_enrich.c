/* test_enrich.c — the offline enricher on concrete conversation snippets. */
#include <stdio.h>

#include "common/text.h"
#include "common/time.h"
#include "lang/enrich.h"
#include "services/ingestd/chat_outcomes.h"
#include "tests/testlib.h"

static eg_enrich_ctx ctx = {.user_entity = "user:u1", .prev = 3, .next = 1};

static const eg_fact *find(const eg_enriched *e, const char *rel) {
  for (size_t i = 0; i < e->n_facts; i++)
    if (!strcmp(e->facts[i].relation, rel)) return &e->facts[i];
  return NULL;
}

static int64_t T(const char *s) {
  int64_t v = 0;
  eg_time_parse(s, &v, NULL);
  return v;
}

static void test_that_framework_is_react(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[3] = {
      {"I've been learning React for a new project at work.", "user", "", T("2024-03-10"), 0, 0},
      {"React is popular; its hooks take some getting used to.", "assistant", "", T("2024-03-10"),
       0, 0},
      {"Honestly, I absolutely hate that framework.", "user", "", T("2024-03-10"), 0, 0}};
  eg_enriched out[3];
  eg_err e;
  EG_REQUIRE(eg_enrich_rules(&ctx, s, 3, a, out, &e) == EG_OK);
  const eg_fact *f = find(&out[2], "DISLIKES");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "React");
  EG_CHECK(f->object_entity);
  EG_CHECK(f->sentiment < 0);
  EG_CHECK(f->intensity >= 0.95f);
  EG_CHECK_STR(f->subject, "user:u1");
  EG_CHECK(strstr(out[2].latent, "that framework (React)") != NULL);
  EG_CHECK(strstr(out[2].latent, "the user dislikes React (very strongly)") != NULL);
  EG_CHECK(strstr(out[2].latent, "2024-03-10, the user:") == out[2].latent);
  /* what a reply answers comes along, cut after 24 words; the first segment has nothing before it
   */
  EG_CHECK(
      strstr(out[2].latent,
             "[replying to assistant: React is popular; its hooks take some getting used to.]"));
  EG_CHECK(strstr(out[0].latent, "[replying to") == NULL);
  EG_CHECK_INT(find(&out[1], "DISLIKES") == NULL, 1); /* the assistant states no user facts */
  eg_arena_free(a);
}

static void test_moved_to_london_last_october(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[1] = {{"I moved to London last October because of a new job.", "user", "",
                      T("2024-03-10T09:00:00Z"), 0, 0}};
  eg_enriched out[1];
  EG_REQUIRE(eg_enrich_rules(&ctx, s, 1, a, out, NULL) == EG_OK);
  const eg_fact *f = find(&out[0], "LIVES_IN");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "London");
  EG_CHECK(f->object_entity);
  EG_CHECK_INT(f->valid_from, T("2023-10-01"));
  EG_CHECK(strstr(f->reason, "because of a new job") != NULL);
  EG_CHECK(strstr(out[0].latent, "\"last October\" = 2023-10") != NULL);
  EG_CHECK(strstr(out[0].latent, "the user lives in London since 2023-10-01") != NULL);
  /* a move arranged: the month said without its year is the coming one */
  eg_segment plan[1] = {
      {"I am moving to London in January.", "user", "", T("2024-03-10T09:00:00Z"), 0, 0}};
  EG_REQUIRE(eg_enrich_rules(&ctx, plan, 1, a, out, NULL) == EG_OK);
  f = find(&out[0], "LIVES_IN");
  EG_REQUIRE(f != NULL);
  EG_CHECK_INT(f->valid_from, T("2025-01-01"));
  eg_arena_free(a);
}

/* A pronoun at a value's place that nothing said resolves is no value ("I work for myself
 * now" was WORKS_AT myself); a name there is. */
static void test_pronoun_is_no_value(void) {
  eg_arena *a = eg_arena_new(0, 0);
  static const char *const said[] = {"I work for myself now.", "I work for him now.",
                                     "I am working for them these days."};
  eg_enriched out[1];
  for (size_t i = 0; i < sizeof said / sizeof *said; i++) {
    eg_segment s[1] = {{said[i], "user", "", T("2024-03-10T09:00:00Z"), 0, 0}};
    EG_REQUIRE(eg_enrich_rules(&ctx, s, 1, a, out, NULL) == EG_OK);
    EG_CHECK(find(&out[0], "WORKS_AT") == NULL);
  }
  eg_segment named[1] = {
      {"I work for Octopus Energy now.", "user", "", T("2024-03-10T09:00:00Z"), 0, 0}};
  EG_REQUIRE(eg_enrich_rules(&ctx, named, 1, a, out, NULL) == EG_OK);
  const eg_fact *f = find(&out[0], "WORKS_AT");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "Octopus Energy");
  eg_arena_free(a);
}

/* A question asks with an inverted "I": what follows is no fact ("What songs can I play with
 * …?" was PLAYS "with just those four chords"); a statement before a question still is. */
static void test_inverted_question_is_no_fact(void) {
  eg_arena *a = eg_arena_new(0, 0);
  static const char *const asked[] = {"What songs can I play with just those four chords?",
                                      "Should I move to Leeds?", "Do I like jazz?"};
  eg_enriched out[1];
  for (size_t i = 0; i < sizeof asked / sizeof *asked; i++) {
    eg_segment s[1] = {{asked[i], "user", "", T("2024-03-10T09:00:00Z"), 0, 0}};
    EG_REQUIRE(eg_enrich_rules(&ctx, s, 1, a, out, NULL) == EG_OK);
    EG_CHECK(find(&out[0], "PLAYS") == NULL && find(&out[0], "LIKES") == NULL);
    EG_CHECK(find(&out[0], "HAS_GOAL") == NULL);
  }
  eg_segment said[1] = {
      {"I play the cello, any tips?", "user", "", T("2024-03-10T09:00:00Z"), 0, 0}};
  EG_REQUIRE(eg_enrich_rules(&ctx, said, 1, a, out, NULL) == EG_OK);
  const eg_fact *f = find(&out[0], "PLAYS");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "cello");
  eg_arena_free(a);
}

/* A relative's thing is no relative: "my brother's Hilux" was FAMILY_OF Hilux, "my husband's
 * Peugeot" MARRIED_TO Peugeot. */
static void test_relatives_thing_is_no_relative(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_enriched out[1];
  eg_segment s[1] = {{"borrowed my brother's Hilux, and my husband's Peugeot is in the garage",
                      "user", "", T("2024-03-10T09:00:00Z"), 0, 0}};
  EG_REQUIRE(eg_enrich_rules(&ctx, s, 1, a, out, NULL) == EG_OK);
  EG_CHECK(find(&out[0], "FAMILY_OF") == NULL && find(&out[0], "MARRIED_TO") == NULL);
  eg_segment k[1] = {
      {"my sister Emma and my husband Tom", "user", "", T("2024-03-10T09:00:00Z"), 0, 0}};
  EG_REQUIRE(eg_enrich_rules(&ctx, k, 1, a, out, NULL) == EG_OK);
  const eg_fact *f = find(&out[0], "FAMILY_OF");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "Emma");
  EG_CHECK(find(&out[0], "MARRIED_TO") != NULL);
  eg_arena_free(a);
}

static void test_intensity_and_relations(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[5] = {
      {"I'm not a fan of sushi.", "user", "", T("2024-01-01"), 0, 0},
      {"My sister Emma lives in Lisbon.", "user", "", T("2024-01-01"), 0, 0},
      {"I adopted a dog named Max two weeks ago!", "user", "", T("2024-01-20"), 0, 0},
      {"I'm vegan now.", "user", "", T("2024-01-20"), 0, 0},
      {"She called me yesterday.", "user", "", T("2024-01-20"), 0, 0}};
  eg_enriched out[5];
  EG_REQUIRE(eg_enrich_rules(&ctx, s, 5, a, out, NULL) == EG_OK);
  const eg_fact *f = find(&out[0], "DISLIKES");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "sushi");
  EG_CHECK(f->intensity < 0.4f && f->intensity > 0);
  f = find(&out[1], "FAMILY_OF");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "Emma");
  EG_CHECK_STR(f->reason, "sister");
  f = find(&out[2], "HAS_PET");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "Max");
  EG_CHECK_INT(f->valid_from, T("2024-01-06"));
  f = find(&out[3], "DIET");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "vegan");
  EG_CHECK(strstr(out[4].latent, "She (Emma)") != NULL); /* coreference in the window */
  bool user_mentioned = false;
  for (size_t i = 0; i < out[1].n_mentions; i++)
    user_mentioned |= !strcmp(out[1].mentions[i].type, "user");
  EG_CHECK(user_mentioned);
  eg_arena_free(a);
}

/* Names with accents and typographic apostrophes stay whole, valid UTF-8. */
static void test_non_ascii_names(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[2] = {
      {"The Shrine of Bahá’u’lláh in Israel is the holiest site of the Bahá'í Faith; the Buddha’s "
       "teachings came from Bodh Gaya. José Núñez visited Zürich.",
       "assistant", "", T("2024-03-10"), 0, 0},
      {"I met Zoë at the Café Müller in São Paulo.", "user", "", T("2024-03-10"), 0, 0}};
  eg_enriched out[2];
  EG_REQUIRE(eg_enrich_rules(&ctx, s, 2, a, out, NULL) == EG_OK);
  size_t names = 0;
  for (int i = 0; i < 2; i++)
    for (size_t m = 0; m < out[i].n_mentions; m++) {
      const char *n = out[i].mentions[m].name;
      EG_CHECK(eg_utf8_valid(n, strlen(n)));
      names +=
          strcmp(n, "Zürich") == 0 || strcmp(n, "José Núñez") == 0 || strcmp(n, "São Paulo") == 0;
    }
  EG_CHECK_INT(names, 3);
  for (int i = 0; i < 2; i++) EG_CHECK(eg_utf8_valid(out[i].latent, strlen(out[i].latent)));
  eg_arena_free(a);
}

/* "I care most about X" and its kin → OPTIMIZES_FOR. */
static void test_optimizes_for(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[2] = {
      {"When I book flights I care most about legroom.", "user", "", T("2024-03-10"), 0, 0},
      {"My top priority is price, always.", "user", "", T("2024-03-10"), 0, 0}};
  eg_enriched out[2];
  EG_REQUIRE(eg_enrich_rules(&ctx, s, 2, a, out, NULL) == EG_OK);
  const eg_fact *f = find(&out[0], "OPTIMIZES_FOR");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "legroom");
  EG_CHECK(f->sentiment > 0);
  EG_CHECK(strstr(out[0].latent, "the user cares most about legroom") != NULL);
  f = find(&out[1], "OPTIMIZES_FOR");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "price");
  eg_arena_free(a);
}

/* A suggestion of the assistant, taken up or turned down by the user's next words. */
static void test_suggestion_accepted_or_declined(void) {
  eg_arena *a = eg_arena_new(0, 0);
  /* rounds as ingestd builds them: "user: <said>\nassistant: <reply>" */
  static const char r0[] =
      "user: Where should we eat tonight?\nassistant: How about Sakura Sushi near the station?";
  static const char r1[] =
      "user: Sounds great, book it for eight.\nassistant: Done. Or you could try the ramen bar.";
  static const char r2[] = "user: No thanks, one dinner is enough.\nassistant: Fair enough.";
  eg_segment s[3] = {
      {r0, "user", "", T("2024-03-10"), 6, 6 + strlen("Where should we eat tonight?")},
      {r1, "user", "", T("2024-03-10"), 6, 6 + strlen("Sounds great, book it for eight.")},
      {r2, "user", "", T("2024-03-10"), 6, 6 + strlen("No thanks, one dinner is enough.")}};
  eg_enriched out[3];
  EG_REQUIRE(eg_enrich_rules(&ctx, s, 3, a, out, NULL) == EG_OK);
  EG_CHECK(find(&out[0], "ACCEPTED") == NULL && find(&out[0], "REJECTED") == NULL);
  const eg_fact *f = find(&out[1], "ACCEPTED");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "Sakura Sushi");
  EG_CHECK(f->object_entity);
  EG_CHECK(f->sentiment > 0);
  EG_CHECK_STR(f->utterance, "Sounds great, book it for eight.");
  EG_CHECK(find(&out[1], "REJECTED") == NULL);
  f = find(&out[2], "REJECTED");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object,
               "ramen bar"); /* the latest suggestion ("the ramen bar"), article dropped */
  EG_CHECK(!f->object_entity);
  EG_CHECK(f->sentiment < 0);
  /* a "yes" after something that suggests nothing, or the assistant's own "sure", is no acceptance
   */
  eg_segment t[3] = {{"I moved to Berlin last year.", "user", "", T("2024-03-10"), 0, 0},
                     {"Sure, Berlin is a great city. Try Mustafa's Gemuese Kebap.", "assistant", "",
                      T("2024-03-10"), 0, 0},
                     {"Yes, it really is great.", "user", "", T("2024-03-10"), 0, 0}};
  EG_REQUIRE(eg_enrich_rules(&ctx, t, 3, a, out, NULL) == EG_OK);
  EG_CHECK(find(&out[1], "ACCEPTED") == NULL);
  f = find(&out[2], "ACCEPTED"); /* the user says yes to the assistant's "Try …" */
  EG_REQUIRE(f != NULL);
  if (!EG_CHECK(strstr(f->object, "Mustafa") == f->object))
    fprintf(stderr, "object: %s\n", f->object);
  eg_segment u[2] = {{"I moved to Berlin last year.", "user", "", T("2024-03-10"), 0, 0},
                     {"Yes, and I love it.", "user", "", T("2024-03-10"), 0, 0}};
  EG_REQUIRE(eg_enrich_rules(&ctx, u, 2, a, out, NULL) == EG_OK);
  EG_CHECK(find(&out[1], "ACCEPTED") == NULL);
  /* "let's" is "let us": "Let's do it" takes the suggestion up */
  static const char v1[] = "user: Let's do it, that sounds lovely.\nassistant: Booked.";
  eg_segment v[2] = {
      {"Try the Alfama Lodge, it has a roof terrace.", "assistant", "", T("2024-03-10"), 0, 0},
      {v1, "user", "", T("2024-03-10"), 6, 6 + strlen("Let's do it, that sounds lovely.")}};
  EG_REQUIRE(eg_enrich_rules(&ctx, v, 2, a, out, NULL) == EG_OK);
  f = find(&out[1], "ACCEPTED");
  EG_REQUIRE(f != NULL);
  if (!EG_CHECK(strstr(f->object, "Alfama Lodge") != NULL))
    fprintf(stderr, "object: %s\n", f->object);
  eg_arena_free(a);
}

/* The one outcome read from a user's message after the segments before (the last given
 * as the user's), or NULL. */
static const eg_outcome *outcome_of(eg_arena *a, const char *before, const char *said) {
  static eg_enriched out[2];
  eg_segment s[2] = {{before ? before : "Hello.", "assistant", "", T("2024-03-10"), 0, 0},
                     {said, "user", "", T("2024-03-11"), 0, 0}};
  if (eg_enrich_rules(&ctx, s, 2, a, out, NULL) != EG_OK) return NULL;
  EG_CHECK(out[0].n_outcomes == 0); /* the assistant reports none */
  if (out[1].n_outcomes > 1) fprintf(stderr, "%zu outcomes in \"%s\"\n", out[1].n_outcomes, said);
  return out[1].n_outcomes == 1 ? &out[1].outcomes[0] : NULL;
}

/* What the user says came of an earlier suggestion: its kind, and the thing (a name, "the
 * X you suggested", or what the window suggested). */
static void test_outcomes_of_suggestions(void) {
  eg_arena *a = eg_arena_new(0, 0);
  static const struct {
    const char *before, *said, *kind, *target, *category;
  } cases[] = {
      {NULL, "The restaurant you suggested was great!", "SUCCEEDED", "", "restaurant"},
      {NULL, "Honestly, that hotel you recommended was awful.", "FAILED", "", "hotel"},
      {NULL, "Sakura was amazing, thanks for the tip.", "SUCCEEDED", "Sakura", ""},
      {NULL, "We went there on Friday and Sakura Sushi was not good at all.", "FAILED",
       "Sakura Sushi", ""},
      {NULL, "I ended up going to Sakura Sushi last night.", "ACTED_ON", "Sakura Sushi", ""},
      {NULL, "In the end I ended up going to the ramen bar.", "ACTED_ON", "ramen bar", ""},
      {NULL, "I loved the book you recommended.", "SUCCEEDED", "", "book"},
      {NULL, "I switched back to my old gym, the one you suggested was too far.", NULL, NULL, NULL},
      {"How about Sakura Sushi near the station?", "I never went.", "IGNORED", "Sakura Sushi", ""},
      {"You could try the ramen bar on Main Street.", "It was delicious.", "SUCCEEDED", "ramen bar",
       ""},
      {"I recommend the Hotel Lisboa.", "I switched back to the Ritz.", "REVERSED", "Hotel Lisboa",
       ""},
      {NULL, "I do not go to the climbing gym you suggested anymore.", "REVERSED", "", "gym"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const eg_outcome *o = outcome_of(a, cases[i].before, cases[i].said);
    if (!cases[i].kind) {
      EG_CHECK(o == NULL);
      continue;
    }
    if (!EG_CHECK(o != NULL)) {
      fprintf(stderr, "no outcome in \"%s\"\n", cases[i].said);
      continue;
    }
    if (!EG_CHECK(!strcmp(o->kind, cases[i].kind) && !strcmp(o->target, cases[i].target) &&
                  !strcmp(o->category, cases[i].category)))
      fprintf(stderr, "\"%s\": %s target \"%s\" category \"%s\"\n", cases[i].said, o->kind,
              o->target, o->category);
    EG_CHECK_STR(o->utterance, cases[i].said);
  }
  /* a deed and how it went, in one sentence */
  eg_segment two[1] = {{"I took your advice and the hotel you recommended was lovely.", "user", "",
                        T("2024-03-11"), 0, 0}};
  eg_enriched got[1];
  EG_REQUIRE(eg_enrich_rules(&ctx, two, 1, a, got, NULL) == EG_OK);
  EG_REQUIRE(got[0].n_outcomes == 2);
  EG_CHECK_STR(got[0].outcomes[0].kind, "ACTED_ON");
  EG_CHECK_STR(got[0].outcomes[0].category, "hotel");
  EG_CHECK_STR(got[0].outcomes[1].kind, "SUCCEEDED");
  EG_CHECK_STR(got[0].outcomes[1].category, "hotel");
  /* nothing that names no earlier suggestion, and no guess without one in the window */
  static const char *const none[] = {
      "The weather was great.",
      "I was happy with it.",
      "It was great.",
      "I never went to college.",
      "You were right about the weather.",
      "I do not eat meat.",
      "Not bad at all.",
  };
  for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
    const eg_outcome *o = outcome_of(a, NULL, none[i]);
    if (i == 3) { /* a named thing is reported; with no acceptance of it, ingestd records nothing */
      EG_CHECK(o && !strcmp(o->target, "college"));
      continue;
    }
    if (!EG_CHECK(o == NULL)) fprintf(stderr, "\"%s\": %s \"%s\"\n", none[i], o->kind, o->target);
  }
  /* the acceptance keeps how the suggestion was worded (what "the restaurant" is matched to) */
  eg_segment s[2] = {{"I recommend Sakura, a lovely sushi restaurant near the station.",
                      "assistant", "", T("2024-03-10"), 0, 0},
                     {"Sounds great!", "user", "", T("2024-03-10"), 0, 0}};
  eg_enriched out[2];
  EG_REQUIRE(eg_enrich_rules(&ctx, s, 2, a, out, NULL) == EG_OK);
  const eg_fact *f = find(&out[1], "ACCEPTED");
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->object, "Sakura");
  EG_CHECK_STR(f->reason, "I recommend Sakura, a lovely sushi restaurant near the station.");
  eg_arena_free(a);
}

/* Which acceptance an outcome refers to: a name wins, else the category; the latest
 * stated before it; nothing when none fits. */
static void test_outcome_resolution(void) {
  const int64_t d1 = T("2024-03-01"), d2 = T("2024-03-05"), d3 = T("2024-03-09"),
                later = T("2024-04-01");
  eg_outcome_edge e[] = {
      {11, "Sakura Sushi", "place", "How about Sakura Sushi near the station?", d1, 100, "s1", 2},
      {12, "Hotel Lisboa", "", "I recommend the Hotel Lisboa by the river.", d2, 200, "s2", 4},
      {13, "Kaito", "", "I recommend Kaito, a small ramen restaurant.", d3, 300, "s3", 2},
      {14, "ramen bar", "", "You could try the ramen bar.", d2, 150, "s2", 6},
  };
  size_t n = sizeof e / sizeof *e;
  eg_outcome o = {"SUCCEEDED", "", "restaurant", "The restaurant you suggested was great."};
  EG_CHECK_INT(eg_outcome_resolve(&o, later, "s9", 0, e, n),
               2); /* Kaito: "restaurant" in the suggestion */
  EG_CHECK_INT(eg_outcome_resolve(&o, d2, "s9", 0, e, n),
               -1); /* before Kaito, nothing else is a restaurant */
  o.category = "hotels";
  EG_CHECK_INT(eg_outcome_resolve(&o, later, "s9", 0, e, n), 1);
  o.category = "bar";
  EG_CHECK_INT(eg_outcome_resolve(&o, later, "s9", 0, e, n), 3); /* the literal's own word */
  o.category = "book";
  EG_CHECK_INT(eg_outcome_resolve(&o, later, "s9", 0, e, n), -1);
  o.category = "place";
  EG_CHECK_INT(eg_outcome_resolve(&o, later, "s9", 0, e, n), 2); /* the latest place-like one */
  o.category = "";
  o.target = "Sakura"; /* the first words of a name */
  EG_CHECK_INT(eg_outcome_resolve(&o, later, "s9", 0, e, n), 0);
  o.target = "the Hotel Lisboa";
  EG_CHECK_INT(eg_outcome_resolve(&o, later, "s9", 0, e, n), 1);
  o.target = "Nobu"; /* a name that fits nothing: no outcome, even with a category */
  o.category = "restaurant";
  EG_CHECK_INT(eg_outcome_resolve(&o, later, "s9", 0, e, n), -1);
  /* in the same session only an earlier turn's acceptance */
  o.target = "Kaito";
  EG_CHECK_INT(eg_outcome_resolve(&o, d3, "s3", 2, e, n), -1);
  EG_CHECK_INT(eg_outcome_resolve(&o, d3, "s3", 5, e, n), 2);
  o.target = "";
  o.category = "";
  EG_CHECK_INT(eg_outcome_resolve(&o, later, "s9", 0, e, n), -1);
}

/* Out of memory, a segment's reading fails as a whole: never fewer facts than it says, read
 * as if complete (at every arena cap, ENOMEM or all the facts). */
static void test_no_fact_dropped_unsaid(void) {
  eg_segment s[1] = {
      {"I moved to Lisbon. I work at Initech. I love React. I hate Java. I speak "
       "Portuguese. I play the piano. I visited Porto. I love hiking. I hate "
       "running. I love jazz. I hate mornings. I love coffee.",
       "user", "", T("2024-03-10T09:00:00Z"), 0, 0}};
  eg_arena *a = eg_arena_new(0, 0);
  eg_enriched out[1];
  EG_REQUIRE(eg_enrich_rules(&ctx, s, 1, a, out, NULL) == EG_OK);
  size_t all = out[0].n_facts;
  eg_arena_free(a);
  EG_CHECK(all > 8); /* past the first array's room */
  int failed = 0, partial = 0;
  for (size_t cap = 512; cap < 64 * 1024; cap += 64) {
    a = eg_arena_new(256, cap);
    eg_err e;
    eg_code rc = eg_enrich_rules(&ctx, s, 1, a, out, &e);
    if (rc == EG_ENOMEM)
      failed++;
    else if (rc != EG_OK || out[0].n_facts != all)
      partial++;
    eg_arena_free(a);
  }
  EG_CHECK(failed > 0);
  EG_CHECK_INT(partial, 0);
}

int main(void) {
  EG_RUN(test_that_framework_is_react);
  EG_RUN(test_moved_to_london_last_october);
  EG_RUN(test_pronoun_is_no_value);
  EG_RUN(test_inverted_question_is_no_fact);
  EG_RUN(test_relatives_thing_is_no_relative);
  EG_RUN(test_intensity_and_relations);
  EG_RUN(test_non_ascii_names);
  EG_RUN(test_optimizes_for);
  EG_RUN(test_suggestion_accepted_or_declined);
  EG_RUN(test_outcomes_of_suggestions);
  EG_RUN(test_outcome_resolution);
  EG_RUN(test_no_fact_dropped_unsaid);
  return eg_test_finish();
}
