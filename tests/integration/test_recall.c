/*
 * test_recall.c — Recall through all four real daemons: a knowledge update (the current
 * value first, the old one superseded), a temporal question, an answer spread over three
 * sessions, the premise-walk case and its near miss, nothing relevant, read-your-writes
 * with a watermark, bad requests, the CLI and /metrics. The questions about the user's states
 * are in test_recall_states.c, run here in their order on the same cluster.
 */
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rpc.h"
#include "common/time.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/integration/recall_tests.h"
#include "tests/stub_http.h"
#include "tests/testlib.h"

eg_cluster cl;
eg_rpc_client *ing, *rec, *gra;

/* Recall q for tenant's user u1 asked at `at`, as of valid_at (0 = at). */
Engram__V1__RecallResponse *recall_as_of(const char *tenant, const char *q, int64_t at,
                                         int64_t valid_at, const char *watermark, eg_code *code) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  scope.user = "u1";
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.scope = &scope;
  req.query = (char *)q;
  req.query_time = at;
  req.valid_at = valid_at;
  req.k = 6;
  req.watermark = (char *)(watermark ? watermark : "");
  Engram__V1__RecallResponse *r = NULL;
  eg_err e;
  eg_code rc = eg_recalld_recall(rec, &req, &r, &e);
  if (code) *code = rc;
  if (rc && !code) fprintf(stderr, "recall: %s: %s\n", eg_code_name(rc), e.msg);
  return r;
}

Engram__V1__RecallResponse *recall_at(const char *tenant, const char *q, int64_t at,
                                      const char *watermark, eg_code *code) {
  return recall_as_of(tenant, q, at, 0, watermark, code);
}

/* Index of the first chunk item whose text holds needle, -1 when none. */
int find_item(const Engram__V1__RecallResponse *r, Engram__V1__ItemKind kind, const char *needle) {
  for (size_t i = 0; r && i < r->n_items; i++)
    if (r->items[i]->kind == kind && strstr(r->items[i]->text, needle)) return (int)i;
  return -1;
}

/* An item's signal by name, NULL when it has none. */
static const Engram__V1__SignalScore *find_signal(const Engram__V1__RecallItem *it,
                                                  const char *name) {
  for (size_t k = 0; k < it->n_signals; k++)
    if (!strcmp(it->signals[k]->signal, name)) return it->signals[k];
  return NULL;
}

void ingest(const char *tenant, const char *sid, const char *when, const char *const *msgs,
            size_t n) {
  eg_err e;
  EG_REQUIRE(ic_session(ing, tenant, "u1", sid, T(when), msgs, n, false, NULL, &e) == EG_OK);
}

static void test_start(void) {
  eg_err e;
  setenv("ENGRAM_STATE_EXTRACTOR", "use-lite",
         1); /* off by default; these tests read states with it */
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, NULL, &ing, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_RECALLD].addr, NULL, &rec, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
  /* distractors every test shares */
  const char *const d1[] = {
      "user", "Can you suggest a recipe for banana bread?", "assistant",
      "Sure: mash three ripe bananas, mix with flour, sugar and butter, bake for an hour."};
  const char *const d2[] = {
      "user", "What's a good sci-fi movie for tonight?", "assistant",
      "Arrival is a thoughtful pick, and Interstellar if you want something longer."};
  const char *const d3[] = {"user", "My manager asked me to prepare the quarterly report slides.",
                            "assistant", "Start with the revenue summary, then the hiring plan."};
  ingest("t", "d1", "2024-01-05T10:00:00Z", d1, 2);
  ingest("t", "d2", "2024-02-11T20:00:00Z", d2, 2);
  ingest("t", "d3", "2024-03-04T09:00:00Z", d3, 2);
}

static void test_knowledge_update(void) {
  const char *const s1[] = {"user", "I live in Paris and I love the bakeries here.", "assistant",
                            "Paris is lovely."};
  const char *const s2[] = {"user", "Big news: I moved to London last month for a new job.",
                            "assistant", "Congratulations on the move to London!"};
  ingest("t", "home-1", "2023-06-01T10:00:00Z", s1, 2);
  ingest("t", "home-2", "2024-05-20T10:00:00Z", s2, 2);
  Engram__V1__RecallResponse *r =
      recall_at("t", "Where do I live now?", T("2024-07-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(!r->nothing_relevant);
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "LIVES_IN London");
  EG_CHECK_INT(f, 0); /* the current value comes first */
  if (f >= 0) {
    const Engram__V1__RecallItem *it = r->items[f];
    EG_CHECK(it->n_history >= 1 && it->history[0]->object_name &&
             strcmp(it->history[0]->object_name, "Paris") == 0);
    EG_CHECK(it->fact && it->fact->meta &&
             strcmp(it->fact->meta->source_session_id, "home-2") == 0);
  }
  EG_CHECK(strstr(r->context, "LIVES_IN London") != NULL);
  EG_CHECK(strstr(r->context, "earlier: Paris") != NULL &&
           strstr(r->context, "superseded") != NULL);
  EG_CHECK(strstr(r->context, "LIVES_IN London") < strstr(r->context, "Excerpts") ||
           !strstr(r->context, "Excerpts"));
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "London") >= 0);
  EG_CHECK(r->n_timings >= 4);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* a question about the current state weighs recency; one that orders events does not */
  static const struct {
    const char *q;
    bool recency;
  } cues[] = {
      {"Which is the latest city I moved to?", true},
      {"Is the snowstorm over, and where do I live now?", true}, /* "now" after "snowstorm" */
      {"List the cities I lived in, from earliest to latest.", false},
      {"How long have I lived in London now?", false}}; /* a span, not the current state */
  for (size_t k = 0; k < sizeof cues / sizeof *cues; k++) {
    r = recall_at("t", cues[k].q, T("2024-07-01"), NULL, NULL);
    EG_REQUIRE(r != NULL);
    int c = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "London");
    EG_REQUIRE(c >= 0);
    const Engram__V1__SignalScore *rec = find_signal(r->items[c], "recency");
    if (!EG_CHECK((rec && rec->value > 0) == cues[k].recency)) fprintf(stderr, "  %s\n", cues[k].q);
    protobuf_c_message_free_unpacked(&r->base, NULL);
  }
}

static void test_temporal(void) {
  const char *const a[] = {"user",
                           "Last weekend I went hiking at Mount Tamalpais with my sister Ana.",
                           "assistant", "That trail has great views."};
  const char *const b[] = {"user", "I went skiing in Tahoe over the holidays.", "assistant",
                           "Fresh snow?"};
  ingest("t", "weekend", "2024-04-15T18:00:00Z", a, 2); /* a Monday: last weekend = Apr 13–14 */
  ingest("t", "ski", "2024-01-02T18:00:00Z", b, 2);
  Engram__V1__RecallResponse *r =
      recall_at("t", "What did I do last weekend?", T("2024-04-17T12:00:00Z"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_REQUIRE(r->time_range != NULL);
  EG_CHECK_INT(r->time_range->from, T("2024-04-13"));
  EG_CHECK_INT(r->time_range->to, T("2024-04-15"));
  int hike = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "hiking");
  int ski = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "skiing");
  EG_CHECK(hike >= 0);
  EG_CHECK(ski < 0 || hike < ski);
  EG_CHECK(strstr(r->context, "Excerpts (oldest first)") != NULL);
  EG_CHECK(strstr(r->context, "2024-04-15") != NULL); /* dates on everything */
  EG_CHECK(r->n_variants >= 2);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* BM25 is measured against the question's best match over all its searches: the search
 * narrowed to the question's time range finds only a chunk that shares one word with the
 * question, and that chunk must not score as the best match. */
static void test_bm25_across_searches(void) {
  const char *const a[] = {
      "user", "I adopted a golden retriever puppy from the animal shelter on Elm Street.",
      "assistant", "Congratulations on the new puppy!"};
  const char *const b[] = {"user", "Is there a bus shelter near the stadium?", "assistant",
                           "Yes, on Gate Road."};
  ingest("bm", "adopt", "2024-03-01T10:00:00Z", a, 2);
  ingest("bm", "bus", "2024-05-15T10:00:00Z", b, 2);
  const char *q = "Which dog did I adopt from the animal shelter last week?";
  Engram__V1__RecallResponse *r = recall_at("bm", q, T("2024-05-22T12:00:00Z"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_REQUIRE(r->time_range != NULL); /* a temporal question: a second, ranged search ran */
  int adopt = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "golden retriever");
  int bus = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "bus shelter");
  EG_REQUIRE(adopt >= 0 && bus >= 0);
  const Engram__V1__SignalScore *strong = find_signal(r->items[adopt], "bm25");
  const Engram__V1__SignalScore *weak = find_signal(r->items[bus], "bm25");
  EG_REQUIRE(strong && weak);
  EG_CHECK(strong->value > 0.99f);
  if (!EG_CHECK(weak->value > 0 && weak->value < 0.8f))
    fprintf(stderr, "  bm25 of the one-word match: %.3f\n", weak->value);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A dated question: its date words go to the time range, not to the keyword variant, and
 * the dated (latent-form) variant is searched densely only — as BM25 words, its template
 * ("the user", the day it names) would score a one-word chunk of that day. */
static void test_dated_question_words(void) {
  const char *const race[] = {"user", "I ran the spring charity 10K race downtown.", "assistant",
                              "Well done!"};
  const char *const hello[] = {"user", "hello", "assistant", "Hello! How can I help you today?"};
  ingest("dw", "race", "2024-05-08T09:00:00Z", race, 2);
  ingest("dw", "hello", "2024-05-08T18:00:00Z", hello, 2);
  Engram__V1__RecallResponse *r =
      recall_at("dw", "What sports event did I take part in two weeks ago?",
                T("2024-05-22T12:00:00Z"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_REQUIRE(r->time_range != NULL && r->n_variants >= 3);
  if (!EG_CHECK(strstr(r->variants[1], "sports") && !strstr(r->variants[1], "weeks") &&
                !strstr(r->variants[1], "ago")))
    fprintf(stderr, "  keyword variant: %s\n", r->variants[1]);
  EG_CHECK(strstr(r->variants[2], "2024-05-08") != NULL); /* the dated variant */
  int h = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "How can I help");
  EG_REQUIRE(h >= 0); /* in the range: found by the ranged search */
  const Engram__V1__SignalScore *bm = find_signal(r->items[h], "bm25");
  if (!EG_CHECK(!bm || bm->value == 0))
    fprintf(stderr, "  bm25 of the greeting: %.3f\n", bm->value);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "charity 10K") < h);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

static void test_multi_session(void) {
  const char *const a[] = {"user", "For my triathlon training I bought a carbon road bike.",
                           "assistant", "Nice."};
  const char *const b[] = {
      "user", "My triathlon coach gave me a swimming plan: three pool sessions a week.",
      "assistant", "Consistency matters."};
  const char *const c[] = {"user", "I ran ten kilometres this morning as triathlon practice.",
                           "assistant", "Great pace!"};
  ingest("t", "tri-1", "2024-02-01T08:00:00Z", a, 2);
  ingest("t", "tri-2", "2024-02-20T08:00:00Z", b, 2);
  ingest("t", "tri-3", "2024-03-10T08:00:00Z", c, 2);
  Engram__V1__RecallResponse *r = recall_at(
      "t", "What have I done so far to train for the triathlon?", T("2024-04-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int bike = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "road bike");
  int swim = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "swimming plan");
  int run = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "ten kilometres");
  EG_CHECK(bike >= 0 && swim >= 0 && run >= 0);
  /* As of April 2024 only eight sessions of this user were said: k = 6 leaves room for a
   * distractor (the weak-evidence gate lets it in), never above the training itself. */
  int banana = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "banana");
  EG_CHECK(banana < 0 || (banana > bike && banana > swim && banana > run));
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* An answer that is one clause of a long message about something else: the sentence
 * signal finds it and it comes first, above a session about the question's topic. */
static void test_clause_in_long_message(void) {
  const char *const a[] = {
      "user",
      "I need a skincare routine for my mom: she has dry skin and likes light textures, nothing "
      "greasy, and "
      "she prefers fragrance-free products because strong scents give her headaches. By the way, I "
      "was at my "
      "cousin Lena's wedding at the Grand Ballroom in Vienna last weekend and my mom looked "
      "stunning. Which "
      "moisturizers and serums would you suggest for her, and in what order should she apply them?",
      "assistant",
      "Start with a gentle cleanser, then a hyaluronic serum and a light fragrance-free cream."};
  const char *const b[] = {
      "user", "What are popular wedding venues and themes for a summer wedding reception?",
      "assistant", "Garden venues, barns and beach resorts are popular for summer weddings."};
  ingest("s", "skincare", "2024-05-20T10:00:00Z", a, 2);
  ingest("s", "venues", "2024-05-21T10:00:00Z", b, 2);
  Engram__V1__RecallResponse *r =
      recall_at("s", "Where was my cousin Lena's wedding?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int i = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Grand Ballroom");
  EG_REQUIRE(i >= 0);
  EG_CHECK(i < find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "wedding venues") ||
           find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "wedding venues") < 0);
  const Engram__V1__SignalScore *sentence = find_signal(r->items[i], "sentence");
  EG_CHECK(sentence && sentence->value >= 0.6f); /* cousin, Lena, wedding in one sentence */
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* with the sentence weight zero, the signal is not computed */
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "s";
  scope.user = "u1";
  Engram__V1__RecallWeights w = ENGRAM__V1__RECALL_WEIGHTS__INIT;
  w.content = w.latent = 0.4f;
  w.bm25 = 0.2f;
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.scope = &scope;
  req.query = "Where was my cousin Lena's wedding?";
  req.weights = &w;
  eg_err e;
  EG_REQUIRE(eg_recalld_recall(rec, &req, &r, &e) == EG_OK);
  i = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Grand Ballroom");
  sentence = i >= 0 ? find_signal(r->items[i], "sentence") : NULL;
  EG_CHECK(!sentence || sentence->value == 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

static void test_premise_walk(void) {
  eg_err e;
  eg_edge_spec title = {.subject = "Maya Patel",
                        .relation = "JOB_TITLE",
                        .literal = "chief of staff",
                        .valid_from = T("2023-01-01")};
  uint64_t t1 = gc_commit(gra, "t", "u1", &title, &e);
  EG_REQUIRE(t1 != 0);
  eg_edge_spec auth = {.subject = "Maya Patel",
                       .relation = "HAS_AUTHORITY",
                       .literal = "contract signing",
                       .valid_from = T("2023-01-01"),
                       .premises = &t1,
                       .n_premises = 1,
                       .reason = "chiefs of staff sign contracts"};
  EG_REQUIRE(gc_commit(gra, "t", "u1", &auth, &e) != 0);
  eg_edge_spec lee = {.subject = "Lee Wong",
                      .relation = "JOB_TITLE",
                      .literal = "CFO",
                      .valid_from = T("2023-01-01")};
  uint64_t l1 = gc_commit(gra, "t", "u1", &lee, &e);
  eg_edge_spec lauth = {.subject = "Lee Wong",
                        .relation = "HAS_AUTHORITY",
                        .literal = "budget approval",
                        .valid_from = T("2023-01-01"),
                        .premises = &l1,
                        .n_premises = 1};
  EG_REQUIRE(gc_commit(gra, "t", "u1", &lauth, &e) != 0);
  /* Maya changes job; Omar (unrelated) too: only Maya's authority loses its premise */
  eg_edge_spec moved = {.subject = "Maya Patel",
                        .relation = "JOB_TITLE",
                        .literal = "engineer",
                        .valid_from = T("2024-02-01")};
  EG_REQUIRE(gc_commit(gra, "t", "u1", &moved, &e) != 0);
  eg_edge_spec omar = {.subject = "Omar Haddad",
                       .relation = "JOB_TITLE",
                       .literal = "designer",
                       .valid_from = T("2024-02-01")};
  EG_REQUIRE(gc_commit(gra, "t", "u1", &omar, &e) != 0);

  Engram__V1__RecallResponse *r = recall_at("t", "Does Maya Patel have contract signing authority?",
                                            T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "HAS_AUTHORITY contract signing");
  EG_REQUIRE(f >= 0);
  EG_CHECK_INT(r->items[f]->status,
               ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE);
  EG_CHECK(r->items[f]->superseding &&
           strcmp(r->items[f]->superseding->object->literal, "engineer") == 0);
  EG_CHECK(strstr(r->context, "POTENTIALLY_STALE: a premise changed on 2024-02-01") != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* the near miss: another person's change does not touch Lee's claim */
  r = recall_at("t", "Does Lee Wong have budget approval authority?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  f = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT, "HAS_AUTHORITY budget approval");
  EG_REQUIRE(f >= 0);
  EG_CHECK_INT(r->items[f]->status, ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNVERIFIED);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

static void test_nothing_relevant(void) {
  Engram__V1__RecallResponse *r = recall_at(
      "t", "What is the boiling point of liquid nitrogen in kelvin?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(r->nothing_relevant);
  EG_CHECK(strstr(r->context, "Nothing stored is relevant") != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* an empty tenant too */
  r = recall_at("empty-tenant", "Where do I live?", 0, NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(r->nothing_relevant);
  EG_CHECK_INT(r->n_items, 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* Once one chunk is close to the question, a chunk that answers it in other words passes
 * at half the similarity threshold: the luthier's repair is ~0.28 from "What instrument am
 * I learning?" (under min_relevance 0.3) and is context; the car insurance (< 0.1) is
 * not. With nothing close (the nitrogen question), the flag stays. */
static void test_weak_evidence(void) {
  const char *const a[] = {"user", "I started learning the violin last month.", "assistant",
                           "Great! Practice a little every day."};
  const char *const b[] = {"user", "The luthier had to glue the bridge back on mine.", "assistant",
                           "Keep going!"};
  const char *const c[] = {"user", "I renewed my car insurance yesterday.", "assistant", "Noted."};
  ingest("wk", "violin", "2024-03-01T10:00:00Z", a, 2);
  ingest("wk", "luthier", "2024-03-20T10:00:00Z", b, 2);
  ingest("wk", "insurance", "2024-03-15T10:00:00Z", c, 2);
  Engram__V1__RecallResponse *r =
      recall_at("wk", "What instrument am I learning?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(!r->nothing_relevant);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "violin") >= 0);
  int l = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "luthier");
  EG_CHECK(l >= 0);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "insurance") < 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_at("wk", "What is the boiling point of liquid nitrogen in kelvin?", T("2024-06-01"),
                NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(r->nothing_relevant);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A recalld asking vectord for feedback (feedback_weight 0.5) over the same memory: the
 * violin lesson still comes first with the luthier among the items, and the nitrogen
 * question still finds nothing — the gate keeps the similarity with the question as
 * asked (fed back, it was ~0.5 to the question's own best hits). A weight out of range
 * is refused at start. */
static void test_feedback_recall(void) {
  char dir[600], g[300], v[300];
  snprintf(dir, sizeof dir, "%s/recalld-fb", cl.dir);
  snprintf(g, sizeof g, "--graphd-addr=%s", cl.d[EG_GRAPHD].addr);
  snprintf(v, sizeof v, "--vectord-addr=%s", cl.d[EG_VECTORD].addr);
  EG_REQUIRE(eg_test_system("mkdir -p %s/bad", dir) == 0);
  const char *extra[] = {g, v, "--feedback-weight=0.5", NULL},
             *bad[] = {g, v, "--feedback-weight=11", NULL};
  eg_proc p, pb;
  eg_err e;
  EG_REQUIRE(eg_harness_start("recalld", dir, extra, &p, &e) == EG_OK);
  char bad_dir[700];
  snprintf(bad_dir, sizeof bad_dir, "%s/bad", dir);
  EG_CHECK(eg_harness_start("recalld", bad_dir, bad, &pb, &e) != EG_OK);
  eg_rpc_client *saved = rec;
  EG_REQUIRE(eg_rpc_client_open(p.addr, NULL, &rec, &e) == EG_OK);
  Engram__V1__RecallResponse *r =
      recall_at("wk", "What instrument am I learning?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(!r->nothing_relevant);
  /* the violin lesson is the first excerpt (the fact read from it, PLAYS violin, may precede it) */
  int vi = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "violin");
  EG_CHECK(vi >= 0);
  for (int i = 0; i < vi; i++) EG_CHECK(r->items[i]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "luthier") > vi);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  r = recall_at("wk", "What is the boiling point of liquid nitrogen in kelvin?", T("2024-06-01"),
                NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(r->nothing_relevant);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  eg_rpc_client_close(rec);
  rec = saved;
  EG_CHECK_INT(eg_harness_stop(&p, SIGTERM), 0);
}

/* A question naming a speaker of a conversation among named people: that person's own
 * turn goes before the other's turn that speaks to them by name and repeats the question's
 * words — with the default speaker_weight; a recalld started with 0 ranks them the other way. */
static void test_named_speaker(void) {
  const char *const s1[] = {"user:Leo",
                            "Maya, how do you unwind? I never manage it, work is endless.",
                            "user:Maya", "How I unwind? Long runs by the river, every evening."};
  ingest("ns", "ns-1", "2024-03-01T10:00:00Z", s1, 2);
  char dir[600], g[300], v[300];
  snprintf(dir, sizeof dir, "%s/recalld-ns", cl.dir);
  snprintf(g, sizeof g, "--graphd-addr=%s", cl.d[EG_GRAPHD].addr);
  snprintf(v, sizeof v, "--vectord-addr=%s", cl.d[EG_VECTORD].addr);
  EG_REQUIRE(eg_test_system("mkdir -p %s", dir) == 0);
  const char *extra[] = {g, v, "--speaker-weight=0", NULL};
  eg_proc p;
  eg_err e;
  EG_REQUIRE(eg_harness_start("recalld", dir, extra, &p, &e) == EG_OK);
  eg_rpc_client *on = rec, *off = NULL;
  EG_REQUIRE(eg_rpc_client_open(p.addr, NULL, &off, &e) == EG_OK);
  for (int weighted = 1; weighted >= 0; weighted--) {
    rec = weighted ? on : off;
    Engram__V1__RecallResponse *r =
        recall_at("ns", "How does Maya unwind?", T("2024-06-01"), NULL, NULL);
    EG_REQUIRE(r != NULL);
    int maya = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "Long runs");
    int leo = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "I never manage");
    EG_CHECK(maya >= 0 && leo >= 0);
    if (weighted)
      EG_CHECK(maya < leo);
    else
      EG_CHECK(leo < maya);
    protobuf_c_message_free_unpacked(&r->base, NULL);
  }
  rec = on;
  eg_rpc_client_close(off);
  EG_CHECK_INT(eg_harness_stop(&p, SIGTERM), 0);
}

/* A greeting is no evidence of what happened on its day: asked about the day, the round
 * that says something comes before the one that only says hello. */
static void test_greeting_no_evidence(void) {
  const char *const hello[] = {"user", "Hi there, good morning!", "assistant",
                               "Good morning! How can I help you today?"};
  const char *const other[] = {
      "user", "Can you suggest a stretching routine after long bike rides?", "assistant",
      "Try hamstring and hip flexor stretches, thirty seconds each."};
  ingest("gr", "gr-1", "2024-03-12T08:00:00Z", hello, 2);
  ingest("gr", "gr-2", "2024-03-12T09:00:00Z", other, 2);
  Engram__V1__RecallResponse *r =
      recall_at("gr", "What did I ask you about on March 12, 2024?", T("2024-04-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int greeting = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "good morning");
  int stretch = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "stretching");
  EG_CHECK(stretch >= 0 && (greeting < 0 || stretch < greeting));
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* WordNet concepts bridge words (bm25_concepts, on by default): a chunk that says "sisters" is
 * found for "siblings", but a match by concepts alone is no full word match — its BM25 signal
 * stays at the concepts' weight, below a chunk that says the word. */
static void test_concept_match(void) {
  const char *const sisters[] = {"user", "My two sisters flew in for the holidays.", "assistant",
                                 "How lovely to have them around."};
  const char *const said[] = {"user", "All my siblings are older than me.", "assistant",
                              "Being the youngest has its perks."};
  ingest("wn", "wn-1", "2024-03-12T08:00:00Z", sisters, 2);
  for (int round = 0; round < 2; round++) {
    if (round) ingest("wn", "wn-2", "2024-03-13T08:00:00Z", said, 2);
    Engram__V1__RecallResponse *r =
        recall_at("wn", "Did any of my siblings visit?", T("2024-04-01"), NULL, NULL);
    EG_REQUIRE(r != NULL);
    int v = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "sisters");
    EG_REQUIRE(v >= 0);
    const Engram__V1__SignalScore *bm = find_signal(r->items[v], "bm25");
    EG_CHECK(bm && bm->value > 0 && bm->value <= 0.2f + 1e-4f); /* by concepts alone */
    if (round) {
      int w = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "older than me");
      const Engram__V1__SignalScore *bw = w >= 0 ? find_signal(r->items[w], "bm25") : NULL;
      EG_CHECK(bw && bw->value > bm->value); /* the word said weighs more */
    }
    protobuf_c_message_free_unpacked(&r->base, NULL);
  }
  /* weaker chunks that say a common word of the question do not make the concept match a
   * full one: it still counts at the concepts' weight */
  const char *const visits[] = {"a market", "the dentist", "a museum", "the zoo",
                                "an aunt",  "the gym",     "a client", "the library"};
  ingest("wn3", "wn3-0", "2024-03-01T08:00:00Z", sisters, 2);
  for (size_t i = 0; i < sizeof visits / sizeof *visits; i++) {
    char text[64], sid[16];
    snprintf(text, sizeof text, "I had to visit %s on Monday.", visits[i]);
    snprintf(sid, sizeof sid, "wn3-%zu", i + 1);
    const char *const turn[] = {"user", text, "assistant", "Noted."};
    ingest("wn3", sid, "2024-03-02T08:00:00Z", turn, 2);
  }
  Engram__V1__RecallResponse *r =
      recall_at("wn3", "Did any of my siblings visit?", T("2024-04-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  int v = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "sisters");
  const Engram__V1__SignalScore *bm = v >= 0 ? find_signal(r->items[v], "bm25") : NULL;
  EG_CHECK(bm && bm->value > 0 && bm->value <= 0.2f + 1e-4f);
  int w = find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "a museum");
  const Engram__V1__SignalScore *bw = w >= 0 ? find_signal(r->items[w], "bm25") : NULL;
  EG_CHECK(bw && bw->value > 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* The answer told next to its question: the turn that restates the question is found by its
 * words, the one after it that answers in other words by being its neighbour. */
static void test_neighbour_answers(void) {
  const char *const s[] = {
      "user", "Did the research for the community project go well?",
      "user", "Yes. I looked mostly at adoption agencies with short waiting lists.",
      "user", "That sounds thorough."};
  ingest("nb", "nb-1", "2024-05-02T10:00:00Z", s, 3);
  const char *const d[][4] = {
      {"user", "The community garden project needs volunteers on Saturday.", "assistant",
       "I can draft a sign-up sheet."},
      {"user", "Research says the project timeline for a community centre is two years.",
       "assistant", "That matches most estimates."},
      {"user", "Our community project budget was approved by the council.", "assistant",
       "Congratulations!"},
      {"user", "I read research on sleep for a school project.", "assistant",
       "Sleep research is fascinating."},
      {"user", "My community choir project starts rehearsals next week.", "assistant",
       "Have fun singing."},
      {"user", "The research project on river pollution won a community award.", "assistant",
       "Well deserved."}};
  for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
    char sid[16];
    snprintf(sid, sizeof sid, "nb-d%zu", i);
    ingest("nb", sid, "2024-04-20T10:00:00Z", d[i], 2);
  }
  Engram__V1__RecallResponse *r = recall_at(
      "nb", "What was my research for the community project about?", T("2024-06-01"), NULL, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "adoption agencies") >= 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

static void test_read_your_writes(void) {
  const char *const m[] = {"user", "Note for later: the storage locker code is 4417.", "assistant",
                           "Saved."};
  Engram__V1__IngestResponse *ir = NULL;
  eg_err e;
  EG_REQUIRE(ic_session(ing, "t", "u1", "locker", T("2024-05-01"), m, 2, true, &ir, &e) == EG_OK);
  EG_REQUIRE(ir->watermark && strncmp(ir->watermark, "v1:", 3) == 0);
  Engram__V1__RecallResponse *r =
      recall_at("t", "What is the storage locker code?", T("2024-05-02"), ir->watermark, NULL);
  EG_REQUIRE(r != NULL);
  EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "4417") >= 0);
  EG_CHECK(r->n_timings && strcmp(r->timings[0]->stage, "wait") == 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  protobuf_c_message_free_unpacked(&ir->base, NULL);
}

static void test_bad_requests(void) {
  eg_code rc;
  EG_CHECK(recall_at("t", "", 0, NULL, &rc) == NULL);
  EG_CHECK_INT(rc, EG_EINVAL);
  EG_CHECK(recall_at("t", "where?", 0, "v1:zz", &rc) == NULL);
  EG_CHECK_INT(rc, EG_EINVAL);
  EG_CHECK(recall_at("", "where?", 0, NULL, &rc) == NULL);
  EG_CHECK_INT(rc, EG_EINVAL);
  char bad[] = {'w', (char)0xff, 'x', 0};
  EG_CHECK(recall_at("t", bad, 0, NULL, &rc) == NULL);
  EG_CHECK_INT(rc, EG_EINVAL);
}

static void test_cli_and_metrics(void) {
  char out[600];
  snprintf(out, sizeof out, "%s/recall-cli.out", cl.dir);
  EG_CHECK_INT(eg_test_system(
                   "%s/engram --recalld-addr %s --tenant t --user u1 recall 'Where do I live now?' "
                   "--at 2024-07-01 > %s",
                   EG_BINARY_DIR, cl.d[EG_RECALLD].addr, out),
               0);
  char *text = eg_test_slurp(out);
  EG_CHECK(strstr(text, "LIVES_IN London") != NULL);
  free(text);
  eg_buf body = EG_BUF_INIT;
  EG_CHECK_INT(eg_promtool_scrape(cl.d[EG_RECALLD].metrics_port, cl.dir, "recalld", &body), 0);
  EG_CHECK(body.data &&
           strstr(body.data, "engram_recalld_stage_seconds_count{stage=\"search+fuse\"}") != NULL);
  EG_CHECK(body.data && strstr(body.data, "\nengram_recalld_nothing_relevant_total 3") != NULL);
  /* recalld's calls to its peers, from the client side: the searches went through */
  const char *search = body.data
                           ? strstr(body.data,
                                    "\ngrpc_client_handled_total{grpc_type=\"unary\","
                                    "grpc_service=\"engram.v1.Vector\",grpc_method=\"Search\","
                                    "grpc_code=\"OK\"} ")
                           : NULL;
  EG_CHECK(search && atof(strchr(search, '}') + 2) >= 1);
  EG_CHECK(body.data && strstr(body.data,
                               "\ngrpc_client_handling_seconds_count{grpc_type=\"unary\","
                               "grpc_service=\"engram.v1.Graph\",grpc_method=\"") != NULL);
  eg_buf_free(&body);
}

/* The remote models: a chat endpoint's reformulations join the variants and a
 * cross-encoder reorders the chunks; when both fail the Recall still answers. */
static atomic_int remote_fail;

static eg_stub_reply remote(void *ctx, const char *url, const char *auth, const char *body) {
  (void)ctx, (void)auth;
  if (atomic_load(&remote_fail))
    return (eg_stub_reply){strstr(url, "rerank") ? 500 : 400, strdup("{}"), 0, NULL};
  if (strstr(url, "/chat/completions"))
    return (eg_stub_reply){
        200,
        strdup("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":"
               "\"{\\\"queries\\\":[\\\"triathlon preparation swim bike run\\\"]}\"}}]}"),
        0, NULL};
  /* rerank: the texts in order; the run scores highest */
  cJSON *j = cJSON_Parse(body), *out = cJSON_CreateArray();
  int i = 0;
  for (const cJSON *t = cJSON_GetObjectItem(j, "texts")->child; t; t = t->next, i++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "index", i);
    cJSON_AddNumberToObject(x, "score", strstr(t->valuestring, "ten kilometres") ? 0.99 : 0.05);
    cJSON_AddItemToArray(out, x);
  }
  char *r = cJSON_PrintUnformatted(out);
  cJSON_Delete(j);
  cJSON_Delete(out);
  return (eg_stub_reply){200, r, 0, NULL};
}

static void test_remote_models(void) {
  eg_stub *st = eg_stub_start(remote, NULL);
  EG_REQUIRE(st != NULL);
  char ga[80], va[80], llm[80], rr[96];
  snprintf(ga, sizeof ga, "%s", cl.d[EG_GRAPHD].addr);
  snprintf(va, sizeof va, "%s", cl.d[EG_VECTORD].addr);
  snprintf(llm, sizeof llm, "http://127.0.0.1:%d/v1", eg_stub_port(st));
  snprintf(rr, sizeof rr, "http://127.0.0.1:%d/rerank", eg_stub_port(st));
  const char *extra[] = {
      "--graphd-addr", ga, "--vectord-addr", va, "--llm-url", llm, "--rerank-url", rr, NULL};
  eg_proc p;
  eg_err e;
  EG_REQUIRE(eg_harness_start("recalld", cl.dir, extra, &p, &e) == EG_OK);
  eg_rpc_client *c;
  EG_REQUIRE(eg_rpc_client_open(p.addr, NULL, &c, &e) == EG_OK);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "t";
  scope.user = "u1";
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.scope = &scope;
  req.query = "What have I done so far to train for the triathlon?";
  req.query_time = T("2024-04-01");
  req.k = 6;
  req.expansion = ENGRAM__V1__EXPANSION_MODE__EXPANSION_MODE_LLM;
  req.rerank = true;
  for (int round = 0; round < 2; round++) {
    atomic_store(&remote_fail, round);
    Engram__V1__RecallResponse *r = NULL;
    EG_REQUIRE(eg_recalld_recall(c, &req, &r, &e) == EG_OK);
    bool llm_variant = false, rerank_stage = false, rerank_signal = false;
    for (size_t i = 0; i < r->n_variants; i++)
      llm_variant |= strcmp(r->variants[i], "triathlon preparation swim bike run") == 0;
    for (size_t i = 0; i < r->n_timings; i++)
      rerank_stage |= strcmp(r->timings[i]->stage, "rerank") == 0;
    int first = -1;
    for (size_t i = 0; i < r->n_items && first < 0; i++)
      if (r->items[i]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK) first = (int)i;
    EG_REQUIRE(first >= 0);
    rerank_signal = find_signal(r->items[first], "rerank") != NULL;
    EG_CHECK(rerank_stage);
    EG_CHECK_INT(llm_variant, round == 0);
    EG_CHECK_INT(rerank_signal, round == 0);
    if (round == 0) EG_CHECK(strstr(r->items[first]->text, "ten kilometres") != NULL);
    EG_CHECK(find_item(r, ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK, "road bike") >= 0);
    protobuf_c_message_free_unpacked(&r->base, NULL);
  }
  eg_buf body = EG_BUF_INIT;
  EG_CHECK_INT(eg_promtool_scrape(p.metrics_port, cl.dir, "recalld-remote", &body), 0);
  EG_CHECK(body.data && strstr(body.data, "\nengram_recalld_rerank_failures_total 1") != NULL);
  EG_CHECK(body.data && strstr(body.data, "\nengram_recalld_llm_fallbacks_total 1") != NULL);
  EG_CHECK(body.data && strstr(body.data, "\nengram_recalld_llm_calls_total 2") != NULL);
  eg_buf_free(&body);
  eg_rpc_client_close(c);
  EG_CHECK_INT(eg_harness_stop(&p, SIGTERM), 0);
  eg_stub_stop(st);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_knowledge_update);
  EG_RUN(test_temporal);
  EG_RUN(test_bm25_across_searches);
  EG_RUN(test_concept_match);
  EG_RUN(test_dated_question_words);
  EG_RUN(test_multi_session);
  EG_RUN(test_clause_in_long_message);
  EG_RUN(test_premise_walk);
  EG_RUN(test_nothing_relevant);
  EG_RUN(test_weak_evidence);
  EG_RUN(test_feedback_recall);
  EG_RUN(test_state_doubt);
  EG_RUN(test_small_talk_no_doubt);
  EG_RUN(test_value_read);
  EG_RUN(test_unrecorded_change);
  EG_RUN(test_current_first);
  EG_RUN(test_kind_is_no_name);
  EG_RUN(test_kind_of_named);
  EG_RUN(test_latest_statement);
  EG_RUN(test_latest_statement_first_of_all);
  EG_RUN(test_newest_value);
  EG_RUN(test_fact_source_is_statement);
  EG_RUN(test_known_value);
  EG_RUN(test_plan_not_state);
  EG_RUN(test_state_at_asked_time);
  EG_RUN(test_arranged_move);
  EG_RUN(test_other_word_for_held);
  EG_RUN(test_short_name_restates);
  EG_RUN(test_later_same_day);
  EG_RUN(test_value_of_kind);
  EG_RUN(test_first_disagrees);
  EG_RUN(test_value_given_up);
  EG_RUN(test_held_value_gone);
  EG_RUN(test_prospect_won);
  EG_RUN(test_value_named_later);
  EG_RUN(test_named_speaker);
  EG_RUN(test_greeting_no_evidence);
  EG_RUN(test_neighbour_answers);
  EG_RUN(test_read_your_writes);
  EG_RUN(test_bad_requests);
  EG_RUN(test_remote_models);
  EG_RUN(test_cli_and_metrics);
  int rc = eg_test_finish();
  eg_rpc_client_close(ing);
  eg_rpc_client_close(rec);
  eg_rpc_client_close(gra);
  eg_cluster_stop(&cl, rc != 0);
  eg_rpc_global_shutdown();
  return rc;
}
