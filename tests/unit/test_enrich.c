/* test_enrich.c — the offline enricher on concrete conversation snippets. */
#include <stdio.h>

#include "common/text.h"
#include "common/time.h"
#include "services/ingestd/enrich.h"
#include "tests/testlib.h"

static eg_enrich_ctx ctx = {"user:u1", 3, 1};

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
  eg_segment s[3] = {{"I've been learning React for a new project at work.", "user", "", T("2024-03-10"), 0, 0},
                     {"React is popular; its hooks take some getting used to.", "assistant", "", T("2024-03-10"), 0, 0},
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
  /* what a reply answers comes along, cut after 24 words; the first segment has nothing before it */
  EG_CHECK(strstr(out[2].latent, "[replying to assistant: React is popular; its hooks take some getting used to.]"));
  EG_CHECK(strstr(out[0].latent, "[replying to") == NULL);
  EG_CHECK_INT(find(&out[1], "DISLIKES") == NULL, 1); /* the assistant states no user facts */
  eg_arena_free(a);
}

static void test_moved_to_london_last_october(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[1] = {{"I moved to London last October because of a new job.", "user", "", T("2024-03-10T09:00:00Z"), 0, 0}};
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
  eg_arena_free(a);
}

static void test_intensity_and_relations(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[5] = {{"I'm not a fan of sushi.", "user", "", T("2024-01-01"), 0, 0},
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
  for (size_t i = 0; i < out[1].n_mentions; i++) user_mentioned |= !strcmp(out[1].mentions[i].type, "user");
  EG_CHECK(user_mentioned);
  eg_arena_free(a);
}

/* Names with accents and typographic apostrophes stay whole, valid UTF-8. */
static void test_non_ascii_names(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[2] = {{"The Shrine of Bahá’u’lláh in Israel is the holiest site of the Bahá'í Faith; the Buddha’s "
                      "teachings came from Bodh Gaya. José Núñez visited Zürich.", "assistant", "", T("2024-03-10"), 0, 0},
                     {"I met Zoë at the Café Müller in São Paulo.", "user", "", T("2024-03-10"), 0, 0}};
  eg_enriched out[2];
  EG_REQUIRE(eg_enrich_rules(&ctx, s, 2, a, out, NULL) == EG_OK);
  size_t names = 0;
  for (int i = 0; i < 2; i++)
    for (size_t m = 0; m < out[i].n_mentions; m++) {
      const char *n = out[i].mentions[m].name;
      EG_CHECK(eg_utf8_valid(n, strlen(n)));
      names += strcmp(n, "Zürich") == 0 || strcmp(n, "José Núñez") == 0 || strcmp(n, "São Paulo") == 0;
    }
  EG_CHECK_INT(names, 3);
  for (int i = 0; i < 2; i++) EG_CHECK(eg_utf8_valid(out[i].latent, strlen(out[i].latent)));
  eg_arena_free(a);
}

/* "I care most about X" and its kin → OPTIMIZES_FOR. */
static void test_optimizes_for(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[2] = {{"When I book flights I care most about legroom.", "user", "", T("2024-03-10"), 0, 0},
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
  static const char r0[] = "user: Where should we eat tonight?\nassistant: How about Sakura Sushi near the station?";
  static const char r1[] = "user: Sounds great, book it for eight.\nassistant: Done. Or you could try the ramen bar.";
  static const char r2[] = "user: No thanks, one dinner is enough.\nassistant: Fair enough.";
  eg_segment s[3] = {{r0, "user", "", T("2024-03-10"), 6, 6 + strlen("Where should we eat tonight?")},
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
  EG_CHECK_STR(f->object, "the ramen bar" + 4); /* the latest suggestion, article dropped */
  EG_CHECK(!f->object_entity);
  EG_CHECK(f->sentiment < 0);
  /* a "yes" after something that suggests nothing, or the assistant's own "sure", is no acceptance */
  eg_segment t[3] = {{"I moved to Berlin last year.", "user", "", T("2024-03-10"), 0, 0},
                     {"Sure, Berlin is a great city. Try Mustafa's Gemuese Kebap.", "assistant", "", T("2024-03-10"), 0, 0},
                     {"Yes, it really is great.", "user", "", T("2024-03-10"), 0, 0}};
  EG_REQUIRE(eg_enrich_rules(&ctx, t, 3, a, out, NULL) == EG_OK);
  EG_CHECK(find(&out[1], "ACCEPTED") == NULL);
  f = find(&out[2], "ACCEPTED"); /* the user says yes to the assistant's "Try …" */
  EG_REQUIRE(f != NULL);
  if (!EG_CHECK(strstr(f->object, "Mustafa") == f->object)) fprintf(stderr, "object: %s\n", f->object);
  eg_segment u[2] = {{"I moved to Berlin last year.", "user", "", T("2024-03-10"), 0, 0},
                     {"Yes, and I love it.", "user", "", T("2024-03-10"), 0, 0}};
  EG_REQUIRE(eg_enrich_rules(&ctx, u, 2, a, out, NULL) == EG_OK);
  EG_CHECK(find(&out[1], "ACCEPTED") == NULL);
  /* "let's" is "let us": "Let's do it" takes the suggestion up */
  static const char v1[] = "user: Let's do it, that sounds lovely.\nassistant: Booked.";
  eg_segment v[2] = {{"Try the Alfama Lodge, it has a roof terrace.", "assistant", "", T("2024-03-10"), 0, 0},
                     {v1, "user", "", T("2024-03-10"), 6, 6 + strlen("Let's do it, that sounds lovely.")}};
  EG_REQUIRE(eg_enrich_rules(&ctx, v, 2, a, out, NULL) == EG_OK);
  f = find(&out[1], "ACCEPTED");
  EG_REQUIRE(f != NULL);
  if (!EG_CHECK(strstr(f->object, "Alfama Lodge") != NULL)) fprintf(stderr, "object: %s\n", f->object);
  eg_arena_free(a);
}

int main(void) {
  EG_RUN(test_that_framework_is_react);
  EG_RUN(test_moved_to_london_last_october);
  EG_RUN(test_intensity_and_relations);
  EG_RUN(test_non_ascii_names);
  EG_RUN(test_optimizes_for);
  EG_RUN(test_suggestion_accepted_or_declined);
  return eg_test_finish();
}
