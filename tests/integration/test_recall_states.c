/*
 * test_recall_states.c — integration_recall's questions about the user's states (where they
 * live, whom they work for, what they drive …): the current value before earlier ones, the
 * latest statement first, doubts the graph did not record and a value read at Recall; run by
 * test_recall.c's main on its cluster.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rpc.h"
#include "common/time.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/integration/recall_tests.h"
#include "tests/testlib.h"

/* Is the first fact item holding `fact`, in the answer to q asked at `at` about valid time
 * valid_at (0 = at), POTENTIALLY_STALE? -1 when there is no such item; `by` (when not NULL)
 * gets the session of its doubt's reason ("" when none). */
static int fact_stale(const char *tenant, const char *q, int64_t at, int64_t valid_at,
                      const char *fact, char *by, size_t len) {
  Engram__V1__RecallResponse *r = recall_as_of(tenant, q, at, valid_at, NULL, NULL);
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, fact), out = -1;
  if (f >= 0) {
    const Engram__V1__RecallItem *it = r->items[f];
    out = it->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE;
    if (by)
      snprintf(by, len, "%s",
               it->superseding && it->superseding->meta && it->superseding->meta->source_session_id
                   ? it->superseding->meta->source_session_id
                   : "");
  }
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  return out;
}

/* Sessions TENANT-1 (s1, said on day d1) and TENANT-2 (s2, on d2, one round each): asked q on
 * 2024-06-01, the first fact holding `fact` is POTENTIALLY_STALE with TENANT-2 as the reason;
 * asked as of `before` (a day between them), it is not. */
static void second_doubts(const char *tenant, const char *const *s1, const char *d1,
                          const char *const *s2, const char *d2, const char *q, const char *fact,
                          const char *before) {
  char id1[64], id2[64], at1[40], at2[40], by[64];
  snprintf(id1, sizeof id1, "%s-1", tenant);
  snprintf(id2, sizeof id2, "%s-2", tenant);
  snprintf(at1, sizeof at1, "%sT10:00:00Z", d1);
  snprintf(at2, sizeof at2, "%sT10:00:00Z", d2);
  ingest(tenant, id1, at1, s1, 2);
  ingest(tenant, id2, at2, s2, 2);
  EG_CHECK_INT(fact_stale(tenant, q, T("2024-06-01"), 0, fact, by, sizeof by), 1);
  EG_CHECK_STR(by, id2);
  EG_CHECK_INT(fact_stale(tenant, q, T("2024-06-01"), T(before), fact, NULL, 0), 0);
}

/* Current before earlier: every excerpt naming the new home (the move, and a stay booked there
 * before it) goes before the old address, though the old one says "live" as the question does
 * and outranks the stay, and though the statement of the move is first already. */
void test_current_first(void) {
  const char *const s1[] = {"user", "I live in Oslo, near the fjord.", "assistant", "Beautiful."};
  const char *const s2[] = {"user", "Where do I live now? In Bergen: I moved last month.",
                            "assistant", "Congratulations!"};
  const char *const s3[] = {"user", "Booked a hotel in Bergen for an interview next week.",
                            "assistant", "Good luck!"};
  ingest("cf", "cf-1", "2023-03-01T10:00:00Z", s1, 2);
  ingest("cf", "cf-3", "2024-03-01T10:00:00Z", s3, 2);
  ingest("cf", "cf-2", "2024-05-01T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r = recall_at("cf", "Where do I live?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_REQUIRE(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN Bergen") >= 0);
  int oslo = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Oslo"), bergen = -1, stay = -1;
  for (size_t i = 0; i < r->n_items; i++)
    if (r->items[i]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK &&
        strstr(r->items[i]->text, "Bergen"))
      *(strstr(r->items[i]->text, "hotel") ? &stay : &bergen) = (int)i;
  EG_CHECK(bergen >= 0 && stay >= 0 && oslo >= 0 && bergen < oslo && stay < oslo);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_at("cf", "Where do I live?", T("2023-06-01"), NULL, NULL); /* before the move */
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Bergen") < 0);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Oslo") >= 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A kind is no answer to what a pet is called: asked its name, the user's HAS_PET beagle (a
 * common noun, a literal) is not the fact given; asked what pet they have, it is. */
void test_kind_is_no_name(void) {
  const char *const s1[] = {"user", "I adopted a beagle last week.", "assistant", "Lovely!"};
  ingest("kn", "kn-1", "2024-03-01T10:00:00Z", s1, 2);
  Engram__V1__RecallResponse *r =
      recall_at("kn", "What pet do I have?", T("2024-04-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "HAS_PET beagle") >= 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_at("kn", "What's my dog called?", T("2024-04-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "HAS_PET beagle") < 0);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "beagle") >= 0); /* the excerpt */
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* The kind the graph keeps beside a pet's name answers a question asking for a kind, first
 * among the facts, as of the question's time: asked what kind of pet the user has, "Noodle IS_A
 * ferret" before "HAS_PET Noodle"; asked its name, no kind at all. */
void test_kind_of_named(void) {
  const char *const s1[] = {"user", "We adopted a hamster today!", "assistant", "Cute!"};
  const char *const s2[] = {"user", "GOT A FERRET!!! her name is Noodle and she steals socks.",
                            "assistant", "Ha, ferrets do that."};
  ingest("kd", "kd-1", "2023-03-01T10:00:00Z", s1, 2);
  ingest("kd", "kd-2", "2024-03-01T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r =
      recall_at("kd", "What kind of pet do I have now?", T("2024-04-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int kind = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "Noodle IS_A ferret");
  int pet = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "HAS_PET Noodle");
  EG_CHECK(kind >= 0 && pet > kind);
  for (int i = 0; i < kind; i++)
    EG_CHECK(r->items[i]->kind != ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT);
  EG_CHECK(r->context && strstr(r->context, "Noodle IS_A ferret"));
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_at("kd", "What's my pet called?", T("2024-04-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "HAS_PET Noodle") >= 0);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "IS_A") < 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_at("kd", "What kind of pet did I have in 2023?", T("2024-04-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "IS_A") < 0); /* not yet */
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "HAS_PET hamster") >= 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A change no extractor read: a later statement of the user on the state, as close to the
 * question as the statement of the value and not naming it, puts the value in doubt —
 * within the bounds only; small talk after it does not. */
void test_unrecorded_change(void) {
  const char *const s1[] = {"user", "I live in Trondheim.", "assistant", "A lovely city."};
  const char *const s2[] = {"user", "What's a good recipe for pancakes?", "assistant",
                            "Flour, eggs, milk."};
  const char *const s3[] = {"user", "I live somewhere new now; the old flat is history.",
                            "assistant", "Exciting!"};
  ingest("uc", "home-1", "2023-03-01T10:00:00Z", s1, 2);
  ingest("uc", "chat-1", "2023-06-01T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r = recall_at("uc", "Where do I live?", T("2023-09-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN Trondheim");
  EG_REQUIRE(f >= 0);
  EG_CHECK(r->items[f]->status !=
           ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE); /* pancakes */
  protobuf_c_message_free_unpacked(&r->base, NULL);
  ingest("uc", "home-2", "2024-02-01T10:00:00Z", s3, 2);
  r = recall_at("uc", "Where do I live?", T("2024-03-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN Trondheim");
  EG_REQUIRE(f >= 0);
  const Engram__V1__RecallItem *it = r->items[f];
  EG_CHECK(it->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  EG_CHECK(it->superseding && it->superseding->meta &&
           !strcmp(it->superseding->meta->source_session_id, "home-2"));
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_as_of("uc", "Where do I live?", T("2024-03-01"), T("2023-09-01"), NULL,
                   NULL); /* before it: not stale */
  EG_REQUIRE(r != NULL);
  f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN Trondheim");
  EG_CHECK(f >= 0 &&
           r->items[f]->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* Small talk after a value, with no word on any state ("Where do I even start with all these
 * boxes?"), is no word on it: not in doubt. A later word on another value still is one ("The
 * old Fiesta is mine again!"). */
void test_small_talk_no_doubt(void) {
  const char *const d1[] = {"user", "I live in Trondheim, near the harbour.", "assistant", "Nice."};
  const char *const d2[] = {"user", "Where do I even start with all these boxes? Any tips?",
                            "assistant", "One room at a time."};
  ingest("pc", "pc-1", "2022-09-19T10:00:00Z", d1, 2);
  ingest("pc", "pc-2", "2023-03-02T10:00:00Z", d2, 2);
  EG_CHECK_INT(
      fact_stale("pc", "Where do I live?", T("2023-06-01"), 0, "LIVES_IN Trondheim", NULL, 0), 0);
  const char *const c1[] = {"user", "These days I drive a Skoda Octavia to work.", "assistant",
                            "Nice."};
  const char *const c2[] = {"user", "The old Fiesta is mine again! When should I change its tyres?",
                            "assistant", "Every five years or so."};
  ingest("pb", "pb-1", "2022-09-19T10:00:00Z", c1, 2);
  ingest("pb", "pb-2", "2023-03-02T10:00:00Z", c2, 2);
  EG_CHECK_INT(fact_stale("pb", "What car do I drive now?", T("2023-06-01"), 0,
                          "DRIVES Skoda Octavia", NULL, 0),
               1);
}

/* The first item of kind FACT in r holding needle, NULL when the first fact holds another. */
static const Engram__V1__RecallItem *first_fact(const Engram__V1__RecallResponse *r,
                                                const char *needle) {
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "");
  return f >= 0 && strstr(r->items[f]->text, needle) ? r->items[f] : NULL;
}

/* Does the answer to q (asked at `at`) hold a fact read at Recall whose text holds needle? */
static bool reads(const char *tenant, const char *q, int64_t at, const char *needle) {
  Engram__V1__RecallResponse *r = recall_at(tenant, q, at, NULL, NULL);
  bool found = false;
  for (size_t i = 0; r && i < r->n_items; i++) {
    const Engram__V1__RecallItem *it = r->items[i];
    found |= it->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT && it->fact && it->fact->meta &&
             !strcmp(it->fact->meta->extractor, "excerpt") && strstr(it->text, needle);
  }
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  return found;
}

/* A state's value read at Recall from the user's first word on it. No extractor read "The
 * Porto rain is something else, my umbrella gave up today": with nothing held, the value it
 * states as the user's is the first fact, read from the excerpt (never stored), POTENTIALLY_STALE
 * with the statement as the reason. Against a value the rules read ("I live in Toronto"), said
 * before it, so is the later one; a value the prototype extractor read is not overridden by it, and
 * someone else's value gives none. */
void test_value_read(void) {
  const char *const porto[] = {"user",
                               "The Porto rain is something else, my umbrella gave up today.",
                               "assistant", "Ha, sorry to hear."};
  const char *q = "Where do I live now?";
  ingest("rv", "rv-1", "2023-02-10T10:00:00Z", porto, 2);
  Engram__V1__RecallResponse *r = recall_at("rv", q, T("2023-03-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  const Engram__V1__RecallItem *it = first_fact(r, "LIVES_IN Porto");
  EG_REQUIRE(it != NULL);
  EG_CHECK(it->fact && it->fact->meta && !strcmp(it->fact->meta->extractor, "excerpt"));
  EG_CHECK(it->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  EG_REQUIRE(it->superseding != NULL && it->superseding->meta != NULL);
  EG_CHECK_STR(it->superseding->relation, "STATE_UNCERTAIN");
  EG_CHECK_STR(it->superseding->meta->source_session_id, "rv-1");
  EG_CHECK(it->fact->id == 0 && it->fact->valid_from == T("2023-02-10T10:00:00Z"));
  EG_CHECK(strstr(r->context,
                  "(said 2023-02-10) [POTENTIALLY_STALE: read from the user's words "
                  "at Recall, not stored: check]") != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* not a question of the user's own state; not a time before it was said */
  EG_CHECK(!reads("rv", "Where does my sister live now?", T("2023-03-01"), "LIVES_IN"));
  EG_CHECK(!reads("rv", "Where does my girlfriend live these days?", T("2023-03-01"), "LIVES_IN"));
  EG_CHECK(!reads("rv", "Where did I live in 2021?", T("2023-03-01"), "LIVES_IN"));
  EG_CHECK(reads("rv", "Which city am I living in?", T("2023-03-01"), "LIVES_IN Porto"));
  /* a value named in an episode ("the museums were incredible") is no state; someone else's
   * is not the user's */
  const char *const paris[] = {
      "user", "The Paris museums were incredible, the Louvre alone took me a whole day.",
      "assistant", "Glad you enjoyed it."};
  const char *const theirs[] = {
      "user", "My sister lives in Lyon now. The Porto rain is something else, my umbrella gave up.",
      "assistant", "Ha."};
  ingest("rx", "rx-1", "2023-02-10T10:00:00Z", paris, 2);
  ingest("rz", "rz-1", "2023-02-10T10:00:00Z", theirs, 2);
  EG_CHECK(!reads("rx", q, T("2023-03-01"), "LIVES_IN"));
  EG_CHECK(reads("rz", q, T("2023-03-01"), "LIVES_IN Porto"));
  EG_CHECK(!reads("rz", q, T("2023-03-01"), "Lyon"));

  const char *const toronto[] = {"user", "I live in Toronto and want to start a book club.",
                                 "assistant", "Great idea."};
  const char *const aarhus[] = {"user",
                                "Writing from my new desk in Aarhus, the light here is amazing.",
                                "assistant", "Enjoy it."};
  ingest("rr", "rr-1", "2022-09-01T10:00:00Z", toronto, 2);
  ingest("rr", "rr-2", "2023-05-01T10:00:00Z", aarhus, 2);
  r = recall_at("rr", q, T("2023-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  it = first_fact(r, "LIVES_IN Aarhus");
  EG_CHECK(it && it->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  int held = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN Toronto");
  EG_REQUIRE(held >= 0);
  EG_CHECK(r->items[held]->status ==
           ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  protobuf_c_message_free_unpacked(&r->base, NULL);

  const char *const lisbon[] = {"user", "Honestly the Lisbon trams are the best part of my week.",
                                "assistant", "They are lovely."};
  ingest("rp", "rp-1", "2022-09-01T10:00:00Z", lisbon, 2);
  ingest("rp", "rp-2", "2023-05-01T10:00:00Z", aarhus, 2);
  r = recall_at("rp", q, T("2023-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(first_fact(r, "LIVES_IN Lisbon") != NULL); /* the extractor's, in doubt */
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "Aarhus") < 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);

  const char *const sister[] = {"user", "My sister lives in Lyon now, in a tiny flat by the river.",
                                "assistant", "Sounds cosy."};
  ingest("rs", "rs-1", "2023-02-10T10:00:00Z", sister, 2);
  r = recall_at("rs", q, T("2023-03-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Lyon") >= 0); /* read, not taken */
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN") < 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A state read from the user's own words by the prototype extractor, then put in doubt by
 * a later statement that gives no new value: asked after the doubt the fact is
 * POTENTIALLY_STALE with that statement as the reason; asked as of a date before it, it is
 * not; a new value said after the doubt is not stale either. */
void test_state_doubt(void) {
  const char *const s1[] = {"user", "Quick one: I just picked up a Kia Niro, so far so good.",
                            "assistant", "Enjoy it!"};
  const char *const s2[] = {"user", "I sold my Kia Niro over the weekend.", "assistant", "Noted."};
  const char *const s3[] = {"user", "These days I am driving a Skoda Octavia.", "assistant",
                            "Nice."};
  ingest("sd", "car-1", "2024-01-10T10:00:00Z", s1, 2);
  ingest("sd", "car-2", "2024-04-02T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r =
      recall_at("sd", "Which car do I drive?", T("2024-05-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "DRIVES Kia Niro");
  EG_REQUIRE(f >= 0);
  const Engram__V1__RecallItem *it = r->items[f];
  EG_CHECK(it->fact->meta && !strcmp(it->fact->meta->extractor, "prototypes"));
  EG_CHECK(it->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  EG_REQUIRE(it->superseding != NULL);
  EG_CHECK_STR(it->superseding->relation, "STATE_UNCERTAIN");
  EG_CHECK(it->superseding->meta && !strcmp(it->superseding->meta->source_session_id, "car-2"));
  EG_CHECK(strstr(r->context, "put in doubt") != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "STATE_UNCERTAIN") <
           0); /* a doubt is no fact */
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "sold") >=
           0); /* the reason is there to read */
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_at("sd", "Which car do I drive?", T("2024-03-01"), NULL,
                NULL); /* as of before the doubt */
  EG_REQUIRE(r != NULL);
  f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "DRIVES Kia Niro");
  EG_REQUIRE(f >= 0);
  EG_CHECK(r->items[f]->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  ingest("sd", "car-3", "2024-06-01T10:00:00Z", s3, 2);
  r = recall_at("sd", "Which car do I drive?", T("2024-07-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "DRIVES");
  EG_REQUIRE(f >= 0);
  EG_CHECK(strstr(r->items[f]->text, "Skoda Octavia") != NULL);
  EG_CHECK(r->items[f]->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A later word that gives the value up: "Sold my violin" names the fact's own value as
 * ended, no fact is read from it and it is no current statement of another value; the value
 * is POTENTIALLY_STALE with it as the reason, from its day on only. Someone else's value
 * said later ("my sister plays the cello now") puts nothing in doubt. */
void test_value_given_up(void) {
  const char *const s1[] = {"user", "I play the violin every evening after work.", "assistant",
                            "Lovely."};
  const char *const s2[] = {"user", "My sister plays the cello now, she is really good.",
                            "assistant", "Nice."};
  const char *const s3[] = {"user", "Sold my violin last month, the neighbours are relieved.",
                            "assistant", "Ha."};
  const char *q = "What instrument do I play?";
  char by[64];
  ingest("gu", "gu-1", "2023-01-10T10:00:00Z", s1, 2);
  ingest("gu", "gu-2", "2023-04-10T10:00:00Z", s2, 2);
  EG_CHECK_INT(fact_stale("gu", q, T("2023-05-01"), 0, "PLAYS violin", NULL, 0), 0);
  ingest("gu", "gu-3", "2023-06-10T10:00:00Z", s3, 2);
  EG_CHECK_INT(fact_stale("gu", q, T("2023-07-01"), 0, "PLAYS violin", by, sizeof by), 1);
  EG_CHECK_STR(by, "gu-3");
  EG_CHECK_INT(fact_stale("gu", q, T("2023-07-01"), T("2023-05-01"), "PLAYS violin", NULL, 0), 0);
}

/* A held value said gone in words that name it only ("Pepper passed away …": no first person,
 * a sentence opener that is also a word): ingestd gives the extractor the user's values from
 * graphd, so the pet is read as gone and the fact is POTENTIALLY_STALE from that day on. */
void test_held_value_gone(void) {
  const char *const s1[] = {"user", "My dog Pepper loves the beach.", "assistant", "Lucky dog."};
  const char *const s2[] = {"user", "Pepper passed away peacefully on Sunday.", "assistant",
                            "I am so sorry."};
  second_doubts("hv", s1, "2024-01-10", s2, "2024-05-10", "What pet do I have?", "HAS_PET Pepper",
                "2024-03-01");
}

/* A value the user said they were after ("applied for a post at X") and a later word that it
 * began, without its name ("got it!! start feb 1st"): ingestd gives the extractor the value in
 * prospect from the graph's doubts, and the employer is that one from the day told, inferred:
 * POTENTIALLY_STALE with its own statement as the reason. As of before, the council. */
void test_prospect_won(void) {
  const char *const s1[] = {"user", "I'm a data analyst at Ashcombe Council, been there years.",
                            "assistant", "Good to know."};
  const char *const s2[] = {"user", "applied for a research post at Ferncliff University today",
                            "assistant", "Fingers crossed!"};
  const char *const s3[] = {"user", "got it!! start feb 1st. so excited", "assistant",
                            "Congratulations!"};
  const char *q = "Where do I work?";
  char by[64];
  ingest("pw", "pw-1", "2020-06-10T10:00:00Z", s1, 2);
  ingest("pw", "pw-2", "2020-10-19T10:00:00Z", s2, 2);
  ingest("pw", "pw-3", "2021-01-11T10:00:00Z", s3, 2);
  EG_CHECK_INT(
      fact_stale("pw", q, T("2021-03-01"), 0, "WORKS_AT Ferncliff University", by, sizeof by), 1);
  EG_CHECK_STR(by, "pw-3");
  EG_CHECK_INT(fact_stale("pw", q, T("2021-03-01"), T("2021-01-20"), "WORKS_AT Ashcombe Council",
                          NULL, 0) >= 0,
               1);
  EG_CHECK_INT(fact_stale("pw", q, T("2021-03-01"), T("2021-01-20"),
                          "WORKS_AT Ferncliff University", NULL, 0),
               -1);
}

/* Another value named plainly later: a harp that "arrived" (no clause of the user's says
 * they play it, so no fact is read from it) after the flute they stated, in a message that
 * does not give the flute up, puts the flute in doubt from its day on; a harp only wished
 * for before it changes nothing. */
void test_value_named_later(void) {
  const char *const s1[] = {"user", "I play flute in a wind band and we need a wedding piece.",
                            "assistant", "Try a Bach arioso."};
  const char *const s2[] = {"user", "My teacher says my hands would suit the harp. Are they dear?",
                            "assistant", "Lever harps start modestly."};
  const char *arrived =
      "New year, new instrument: a lever harp arrived yesterday. My "
      "flute's been in its case since autumn. How do I tune it?";
  const char *const s3[] = {"user", arrived, "assistant", "Start from C."};
  const char *q = "Which instrument am I learning now?";
  char by[64];
  ingest("nl", "nl-1", "2022-10-10T10:00:00Z", s1, 2);
  ingest("nl", "nl-2", "2023-07-07T10:00:00Z", s2, 2);
  ingest("nl", "nl-3", "2024-01-01T10:00:00Z", s3, 2);
  EG_CHECK_INT(fact_stale("nl", q, T("2024-06-01"), 0, "PLAYS flute", by, sizeof by), 1);
  EG_CHECK_STR(by, "nl-3");
  EG_CHECK_INT(fact_stale("nl", q, T("2024-06-01"), T("2023-09-01"), "PLAYS flute", NULL, 0), 0);
}

/* Asked about a state now, in the present ("Where do I live?"), the latest statement goes
 * before every excerpt, also one naming a place in words not read as a value ("pune" in
 * lower case, no capital, no WordNet city); asked in the past, the excerpts keep their order. */
void test_latest_statement_first_of_all(void) {
  const char *moved =
      "Shifted to Bangalore last month for the new team, the commute takes ninety minutes.";
  const char *parents =
      "where do my parents live cheaper, pune or mumbai? they live in pune now "
      "and want a smaller flat where they live.";
  const char *const s1[] = {"user", moved, "assistant", "Podcasts help."};
  const char *const s2[] = {"user", parents, "assistant", "Pune is cheaper."};
  ingest("lf", "lf-1", "2021-04-16T10:00:00Z", s1, 2);
  ingest("lf", "lf-2", "2021-09-09T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r = recall_at("lf", "Where do I live?", T("2022-08-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int bangalore = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Bangalore");
  int pune = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "pune");
  EG_CHECK(bangalore >= 0 && pune >= 0 && bangalore < pune);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* The latest statement first: the user's later word on where they live, in words no
 * rule reads and less like the question than the old one, goes before it, and puts the
 * value read from the old one in doubt; as of a date before it, the old one stands. */
void test_latest_statement(void) {
  const char *const s1[] = {"user",
                            "I live in Zagreb. Living in Zagreb is great, I love where I live.",
                            "assistant", "Zagreb is lovely."};
  const char *const s2[] = {"user", "Hauled the sofa up four flights in Lisbon today.", "assistant",
                            "Sounds tiring!"};
  ingest("ls", "ls-1", "2023-03-01T10:00:00Z", s1, 2);
  ingest("ls", "ls-2", "2024-05-01T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r =
      recall_at("ls", "Where do I live now?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int lisbon = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Lisbon");
  int zagreb = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Zagreb");
  EG_CHECK(lisbon >= 0 && zagreb >= 0 && lisbon < zagreb);
  bool stated = false; /* it also searched for statements of where one lives */
  for (size_t i = 0; i < r->n_variants; i++) stated |= strstr(r->variants[i], "I live in") != NULL;
  EG_CHECK(stated);
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN Zagreb");
  EG_REQUIRE(f >= 0);
  EG_CHECK(r->items[f]->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  EG_CHECK(r->items[f]->superseding && r->items[f]->superseding->meta &&
           !strcmp(r->items[f]->superseding->meta->source_session_id, "ls-2"));
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* a question about an order is about more than the latest: left as ranked */
  r = recall_at("ls", "Where did I live before?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  lisbon = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Lisbon");
  zagreb = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Zagreb");
  EG_CHECK(zagreb >= 0 && (lisbon < 0 || zagreb < lisbon));
  for (size_t i = 0; i < r->n_variants; i++) EG_CHECK(strstr(r->variants[i], "I live in") == NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_as_of("ls", "Where do I live now?", T("2024-06-01"), T("2023-09-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Lisbon") < 0);
  f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN Zagreb");
  EG_CHECK(f >= 0 &&
           r->items[f]->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* a fact of the kind asked for is on the question's topic without sharing a word with it
   * ("employed" / WORKS_AT), and a value of a relation holding several (instruments) is
   * doubted by a later statement of another */
  const char *const s3[] = {"user", "I work at Globex Corp and I play the violin.", "assistant",
                            "Nice."};
  const char *const s4[] = {"user", "These days I'm learning the cello, lessons every Tuesday.",
                            "assistant", "Lovely instrument."};
  ingest("ls2", "ls2-1", "2023-03-01T10:00:00Z", s3, 2);
  ingest("ls2", "ls2-2", "2024-05-01T10:00:00Z", s4, 2);
  r = recall_at("ls2", "Which company employed me?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "WORKS_AT Globex") >= 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_at("ls2", "What instrument do I play now?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "PLAYS violin");
  EG_REQUIRE(f >= 0);
  EG_CHECK(r->items[f]->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* The newest value first: a car the user names plainly after the one they stated as theirs
 * ("The Toyota Prius …", no clause of theirs saying they drive it) goes before the statement
 * of the old one; a car only planned later changes nothing; as of a date before the new one
 * came, the old one stands alone. */
void test_newest_value(void) {
  const char *const s1[] = {"user", "I drive a Honda Civic, the car I drive to work every day.",
                            "assistant", "Reliable choice."};
  const char *const s2[] = {"user", "The Toyota Prius is a dream on the motorway, half the fuel.",
                            "assistant", "Hybrids shine on long runs."};
  const char *const s3[] = {"user", "Thinking about a Tesla Model 3 someday, maybe.", "assistant",
                            "Worth a test drive."};
  const char *q = "What car do I drive now?";
  ingest("nv", "nv-1", "2023-02-01T10:00:00Z", s1, 2);
  ingest("nv", "nv-2", "2024-03-01T10:00:00Z", s2, 2);
  ingest("nv", "nv-3", "2024-05-01T10:00:00Z", s3, 2);
  Engram__V1__RecallResponse *r = recall_at("nv", q, T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int prius = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Toyota Prius");
  int civic = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Honda Civic");
  int tesla = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Tesla");
  EG_CHECK(prius >= 0 && civic >= 0 && prius < civic);
  EG_CHECK(tesla < 0 || prius < tesla);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_as_of("nv", q, T("2024-06-01"), T("2023-09-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Honda Civic") >= 0);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Toyota Prius") < 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* The excerpt a standing fact was read from is a statement of the state, though its words
 * name the value in no way the lexical reading takes as the user's ("second week at X"): asked
 * now, it goes before an older statement of the value it replaced. */
void test_fact_source_is_statement(void) {
  const char *letter =
      "drafting a cover letter for an internal promotion at Corvane Systems, "
      "I've been a junior analyst there for 3 yrs. can you tighten it?";
  const char *notice = "handed in my notice at corvane today. last day is the 26th, feels weird.";
  const char *joined =
      "second week at Ostrel and the onboarding slides are endless lol. any "
      "tricks for remembering 40 new names?";
  const char *const s1[] = {"user", letter, "assistant", "Lead with the reports you delivered."};
  const char *const s2[] = {"user", notice, "assistant",
                            "A short thank-you email is a nice touch."};
  const char *const s3[] = {"user", joined, "assistant", "Repeat each name when introduced."};
  ingest("fs", "fs-1", "2016-10-03T10:00:00Z", s1, 2);
  ingest("fs", "fs-2", "2018-01-08T10:00:00Z", s2, 2);
  ingest("fs", "fs-3", "2018-02-12T10:00:00Z", s3, 2);
  Engram__V1__RecallResponse *r =
      recall_at("fs", "Who do I work for at the moment?", T("2018-09-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int fact = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "WORKS_AT Ostrel");
  int now = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "second week at Ostrel");
  int before = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Corvane Systems");
  EG_CHECK(fact >= 0);
  EG_CHECK(now >= 0 && before >= 0 && now < before);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A value named in full once is known by a part of it: after someone else's "Nissan Leaf"
 * (his, not the user's), "Took the Leaf to Wales" speaks of a car the user has now, and
 * goes before the statement of the old one. */
void test_known_value(void) {
  const char *const s1[] = {"user", "I drive a Honda Civic, the car I drive to work every day.",
                            "assistant", "Reliable choice."};
  const char *const s2[] = {"user", "My uncle is selling his Nissan Leaf and says I can have it.",
                            "assistant", "Electric could suit you."};
  const char *const s3[] = {"user", "Took the Leaf to Wales last weekend, charging was easy.",
                            "assistant", "Glad it went well."};
  ingest("kv", "kv-1", "2023-02-01T10:00:00Z", s1, 2);
  ingest("kv", "kv-2", "2024-02-01T10:00:00Z", s2, 2);
  ingest("kv", "kv-3", "2024-04-01T10:00:00Z", s3, 2);
  Engram__V1__RecallResponse *r =
      recall_at("kv", "What car do I drive now?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int wales = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Wales");
  int civic = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Honda Civic");
  int uncle = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "uncle");
  EG_CHECK(wales >= 0 && civic >= 0 && wales < civic);
  EG_CHECK(uncle < 0 || wales < uncle);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A value named only as a plan (an interview dated next week) is not the user's state: the
 * excerpt naming the employer as it stands goes first, though the plan is later and closer to
 * the question's words. */
void test_plan_not_state(void) {
  const char *const s1[] = {"user", "Quillfeather Press runs on vibes and missed deadlines.",
                            "assistant", "That sounds exhausting."};
  const char *plan =
      "Got an interview at Brightwater Analytics next week, a company I would love "
      "to work for.";
  const char *const s2[] = {"user", plan, "assistant", "Good luck with it!"};
  ingest("pn", "pn-1", "2023-01-10T10:00:00Z", s1, 2);
  ingest("pn", "pn-2", "2023-03-01T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r =
      recall_at("pn", "Which company do I work for?", T("2023-03-03"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int quill = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Quillfeather");
  int bright = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Brightwater");
  EG_CHECK(quill >= 0 && (bright < 0 || quill < bright));
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A move arranged for a month ("I'm moving to Zagreb in January", said in November) is the
 * state from that month: before it the old home is current and in no doubt, after it the new
 * one is. */
void test_arranged_move(void) {
  const char *const s1[] = {"user", "I live in Lisbon and I love the light here.", "assistant",
                            "It is a beautiful city."};
  const char *const s2[] = {"user",
                            "Big news: I'm moving to Zagreb in January, the flat is booked.",
                            "assistant", "Exciting!"};
  ingest("am", "am-1", "2023-03-01T10:00:00Z", s1, 2);
  ingest("am", "am-2", "2023-11-20T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r = recall_at("am", "Where do I live?", T("2023-12-10"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN");
  EG_CHECK(f >= 0 && strstr(r->items[f]->text, "Lisbon") != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_at("am", "Where do I live?", T("2024-02-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN");
  EG_CHECK(f >= 0 && strstr(r->items[f]->text, "Zagreb") != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* Another word for a value held as a word is that value: graphd gives the extractor the
 * user's "ukulele" back as a literal, and "the uke" said later starts no new instrument. */
void test_other_word_for_held(void) {
  const char *const s1[] = {"user", "my fingers hurt from the ukulele, is that normal at week 3",
                            "assistant", "Yes, calluses take a few weeks."};
  const char *const s2[] = {"user", "learning christmas songs on the uke for my nan.", "assistant",
                            "Three chords will get you far."};
  ingest("ow", "ow-1", "2019-06-07T10:00:00Z", s1, 2);
  ingest("ow", "ow-2", "2019-12-15T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r =
      recall_at("ow", "What instrument do I play?", T("2020-01-10"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "PLAYS");
  EG_CHECK(f >= 0 && strstr(r->items[f]->text, "ukulele") != NULL);
  for (size_t i = 0; i < r->n_items; i++)
    EG_CHECK(r->items[i]->kind != ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT ||
             !strstr(r->items[i]->text, "PLAYS uke"));
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A later word naming the value by its first name only restates it: "ask Tidewater for a
 * stipend" casts no doubt on working at Tidewater Analytics. */
void test_short_name_restates(void) {
  const char *said = "I've been on the data engineering team at Tidewater Analytics since March.";
  const char *asked = "What's a reasonable way to ask Tidewater for a home office stipend?";
  const char *const s1[] = {"user", said, "assistant", "Try the pandas user guide."};
  const char *const s2[] = {"user", asked, "assistant", "Keep it short and concrete."};
  ingest("sn", "sn-1", "2019-11-20T10:00:00Z", s1, 2);
  ingest("sn", "sn-2", "2020-04-08T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r =
      recall_at("sn", "Which company am I working for now?", T("2020-04-09"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "Tidewater Analytics");
  EG_REQUIRE(f >= 0);
  EG_CHECK(r->items[f]->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A state at a time asked about long after: "Where did I live in 2021?" asked in 2024 reads
 * the facts as of 2021's end (Lisbon, in no doubt: the move came later; the context says so)
 * and puts the excerpt of that time before the later one; asked about now, the move is the
 * answer. */
void test_state_at_asked_time(void) {
  const char *const s1[] = {"user", "I live in Lisbon and I love the light here.", "assistant",
                            "It is a beautiful city."};
  const char *const s2[] = {"user", "Boxes everywhere: we moved to Zagreb last week.", "assistant",
                            "Good luck settling in."};
  ingest("sa", "sa-1", "2021-03-01T10:00:00Z", s1, 2);
  ingest("sa", "sa-2", "2023-05-01T10:00:00Z", s2, 2);
  const char *q = "Where did I live in 2021?";
  Engram__V1__RecallResponse *r = recall_at("sa", q, T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int lisbon = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Lisbon");
  int zagreb = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Zagreb");
  EG_CHECK(lisbon >= 0 && (zagreb < 0 || lisbon < zagreb));
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN");
  EG_REQUIRE(f >= 0);
  EG_CHECK(strstr(r->items[f]->text, "Lisbon") != NULL);
  EG_CHECK(r->items[f]->status !=
               ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE &&
           r->items[f]->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_SUPERSEDED);
  EG_CHECK(r->context && strstr(r->context, "Facts as of 2021-12-31") != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_at("sa", "Where do I live now?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN");
  EG_CHECK(f >= 0 && strstr(r->items[f]->text, "Zagreb") != NULL);
  EG_CHECK(r->context && strstr(r->context, "Facts as of 2024-06-01") != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* "looking after" says no order in time: still a state asked of 2021 */
  r = recall_at("sa", "Where was I living in 2021, looking after my gran?", T("2024-06-01"), NULL,
                NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(r->context && strstr(r->context, "Facts as of 2021-12-31") != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* "now", though it names a past year, asks for now */
  r = recall_at("sa", "Where do I live now? I was in Lisbon in 2021.", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN");
  EG_CHECK(f >= 0 && strstr(r->items[f]->text, "Zagreb") != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* what was said by then goes first even when it names the place in no words read as one */
  const char *const s3[] = {"user", "Living in the old quarter: the trams rattle past my window.",
                            "assistant", "Earplugs help."};
  const char *const s4[] = {"user", "Where do I live these days? In Zagreb, we moved in 2023.",
                            "assistant", "Glad to hear it."};
  ingest("sb", "sb-1", "2021-03-01T10:00:00Z", s3, 2);
  ingest("sb", "sb-2", "2023-05-01T10:00:00Z", s4, 2);
  r = recall_at("sb", q, T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int trams = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "trams");
  zagreb = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Zagreb");
  EG_CHECK(trams >= 0 && (zagreb < 0 || trams < zagreb));
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A later word said on the question's own day, after its hour, is within the bounds (excerpts
 * are bounded by the day): it is the latest statement, and puts the old value in doubt. */
void test_later_same_day(void) {
  const char *const s1[] = {"user",
                            "I live in Zagreb. Living in Zagreb is great, I love where I live.",
                            "assistant", "Zagreb is lovely."};
  const char *const s2[] = {"user",
                            "We hauled boxes up four flights of stairs in Lisbon all weekend.",
                            "assistant", "Sounds tiring!"};
  ingest("sd", "sd-1", "2023-03-01T10:00:00Z", s1, 2);
  ingest("sd", "sd-2", "2024-06-01T15:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r =
      recall_as_of("sd", "Where do I live now?", T("2024-06-01"), T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int lisbon = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Lisbon");
  int zagreb = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Zagreb");
  EG_CHECK(lisbon >= 0 && zagreb >= 0 && lisbon < zagreb);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_INT(fact_stale("sd", "Where do I live now?", T("2024-06-01"), T("2024-06-01"),
                          "LIVES_IN Zagreb", NULL, 0),
               1);
}

/* The first word on the state disagrees with the graph: the fact read from "I live in X" is
 * POTENTIALLY_STALE when the excerpt read first about where the user lives, said later,
 * names another city plainly and not X (no fact read from it); as of a date before it, the
 * fact stands. */
void test_first_disagrees(void) {
  const char *const s1[] = {"user", "I live in Zagreb. Living in Zagreb suits me.", "assistant",
                            "Zagreb is lovely."};
  const char *const s2[] = {"user", "Porto in June is packed with tourists, every tram is full.",
                            "assistant", "They are charming."};
  second_doubts("fd", s1, "2023-03-01", s2, "2024-05-01", "Where do I live?", "LIVES_IN Zagreb",
                "2023-09-01");
}

/* A question about a state at a date: the user's excerpts that name a value of the kind it
 * asks for are evidence of it at half the similarity, though said before the question's
 * range and in words far from it. */
void test_value_of_kind(void) {
  const char *const s1[] = {"user", "Rain all week, so Biscuit and I stayed in and watched films.",
                            "assistant", "Any good films?"};
  ingest("vk", "vk-1", "2018-06-01T10:00:00Z", s1, 2);
  Engram__V1__RecallResponse *r =
      recall_at("vk", "What was my pet's name in spring 2019?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Biscuit") >= 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}
