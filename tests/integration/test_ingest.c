/*
 * test_ingest.c — ingestd through the real daemons: a session in → chunks searchable in
 * vectord, facts in graphd with their source chunk; idempotent re-ingest; a rejected
 * request writes nothing; async with job and watermark; documents; client facts;
 * backpressure; erasure cascade.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/rpc.h"
#include "common/time.h"
#include "proto/engram/v1/ingest.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

static eg_cluster cl;
static eg_rpc_client *ing, *vec, *gra;

/* Ingest messages (role, text pairs) as one session of user u1. */
static eg_code session(eg_rpc_client *c, const char *tenant, const char *sid,
                       const char *const *msgs, size_t n, bool async,
                       Engram__V1__IngestResponse **resp, eg_err *e) {
  return ic_session(c, tenant, "u1", sid, T("2024-03-10T10:00:00Z"), msgs, n, async, resp, e);
}

/* How many of the top 5 hits hold `needle` in their content or latent text. */
static int hits(const char *tenant, const char *text, const char *needle) {
  Engram__V1__SearchResponse *s = NULL;
  eg_err e;
  int found = 0;
  if (ic_search(vec, tenant, "u1", text, 5, &s, &e) == EG_OK) {
    for (size_t i = 0; s->n_results && i < s->results[0]->n_hits; i++)
      found += strstr(s->results[0]->hits[i]->chunk->content, needle) != NULL ||
               strstr(s->results[0]->hits[i]->chunk->latent, needle) != NULL;
    protobuf_c_message_free_unpacked(&s->base, NULL);
  }
  return found;
}

static void test_start(void) {
  eg_err e;
  setenv("ENGRAM_STATE_EXTRACTOR", "use-lite",
         1); /* off by default; these tests read states with it */
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, NULL, &ing, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_VECTORD].addr, NULL, &vec, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
}

static const char *conv[] = {
    "user",      "I moved to London last October because of a new job at Acme.",
    "assistant", "Congratulations on the move! How are you finding London?",
    "user",      "I've been learning React for the dashboard project.",
    "assistant", "React is a solid choice for dashboards.",
    "user",      "Honestly, I absolutely hate that framework.",
};

/* Ingest.Wait for watermark wm of tenant "acme": 1 reached, 0 not, -code on an error. */
static int wait_for(const char *wm, int64_t timeout_us) {
  Engram__V1__Scope scope = gc_scope("acme", "u1");
  Engram__V1__WaitRequest w = ENGRAM__V1__WAIT_REQUEST__INIT;
  w.scope = &scope;
  w.watermark = (char *)wm;
  w.timeout_us = timeout_us;
  Engram__V1__WaitResponse *wr = NULL;
  eg_err e;
  eg_code rc = eg_ingestd_wait(ing, &w, &wr, &e);
  if (rc) return -(int)rc;
  int reached = wr->reached;
  protobuf_c_message_free_unpacked(&wr->base, NULL);
  return reached;
}

static void test_session_in(void) {
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(session(ing, "acme", "s1", conv, 5, false, &r, &e) == EG_OK);
  EG_CHECK_INT(r->report->chunks, 3); /* three user+assistant rounds */
  EG_CHECK(r->report->facts >= 2);
  EG_CHECK(!r->report->duplicate);
  EG_CHECK(r->report->n_stages >= 5);
  EG_CHECK(r->watermark && strncmp(r->watermark, "v1:", 3) == 0);
  /* it wrote facts: the watermark carries graphd's position of them too */
  EG_CHECK(r->watermark && strstr(r->watermark, ";g1:") == r->watermark + 19);
  char wm[64];
  snprintf(wm, sizeof wm, "%s", r->watermark ? r->watermark : "");
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_INT(wait_for(wm, 5 * EG_US_PER_SEC), 1);
  /* a graph position graphd has not reached: not reached (the chunk is there) */
  char far[64];
  snprintf(far, sizeof far, "%.19s;g1:00ffffffffffffff", wm);
  EG_CHECK_INT(wait_for(far, 300000), 0);
  EG_CHECK_INT(wait_for("v1:0000000000000001;x", 300000), -(int)EG_EINVAL);
  /* chunks are searchable, with their enriched latent text */
  EG_CHECK(hits("acme", "where does the user live", "London") >= 1);
  EG_CHECK(hits("acme", "that framework React", "that framework (React)") >= 1);
  /* facts are in the graph with valid time and their source */
  EG_CHECK_STR(gc_value(gra, "acme", "user:u1", "LIVES_IN", 0, 0), "London");
  EG_CHECK_STR(gc_value(gra, "acme", "user:u1", "LIVES_IN", T("2023-09-15"), 0), ""); /* not yet */
  Engram__V1__StateResponse *st;
  EG_REQUIRE(gc_state(gra, "acme", "user:u1", "DISLIKES", 0, 0, &st, &e) == EG_OK);
  EG_REQUIRE(st->n_results == 1 && st->results[0]->n_values == 1);
  Engram__V1__Edge *d = st->results[0]->values[0];
  EG_CHECK_STR(d->object_name, "React");
  EG_CHECK(d->meta->intensity >= 0.95f);
  EG_CHECK(d->meta->source_chunk_id != 0);
  EG_CHECK_STR(d->meta->source_session_id, "s1");
  EG_CHECK_STR(d->meta->extractor, "rules");
  protobuf_c_message_free_unpacked(&st->base, NULL);
}

static size_t graph_changes(const char *tenant) {
  Engram__V1__Scope scope = gc_scope(tenant, "u1");
  Engram__V1__ChangesRequest req = ENGRAM__V1__CHANGES_REQUEST__INIT;
  req.scope = &scope;
  req.limit = 1000;
  Engram__V1__ChangesResponse *r = NULL;
  eg_err e;
  size_t n = 0;
  if (eg_graphd_changes(gra, &req, &r, &e) == EG_OK) {
    n = r->n_edges;
    protobuf_c_message_free_unpacked(&r->base, NULL);
  }
  return n;
}

/* Named speakers: each one's words are a chunk of their own that says who spoke, and the
 * latent text carries what the reply answers. */
static void test_named_speakers(void) {
  Engram__V1__Scope scope = gc_scope("named", "u1");
  Engram__V1__Message m[2], *mp[2] = {&m[0], &m[1]};
  const char *who[2] = {"Leo", "Maya"},
             *said[2] = {"Did you go anywhere fun this weekend?",
                         "We drove up to the glacier lake and camped overnight."};
  for (int i = 0; i < 2; i++) {
    engram__v1__message__init(&m[i]);
    m[i].role = "user";
    m[i].name = (char *)who[i];
    m[i].content = (char *)said[i];
  }
  Engram__V1__IngestSessionRequest req = ENGRAM__V1__INGEST_SESSION_REQUEST__INIT;
  req.scope = &scope;
  req.session_id = "chat-1";
  req.session_time = T("2024-03-10T10:00:00Z");
  req.messages = mp;
  req.n_messages = 2;
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(eg_ingestd_ingest_session(ing, &req, &r, &e) == EG_OK);
  EG_CHECK_INT(r->report->chunks, 2);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK(hits("named", "glacier lake camping", "Maya: We drove up to the glacier lake") == 1);
  EG_CHECK(hits("named", "glacier lake camping",
                "[replying to Leo: Did you go anywhere fun this weekend?]") == 1);
  /* Leo's chunk, and Maya's latent text that quotes him */
  EG_CHECK(hits("named", "anywhere fun this weekend", "Leo: Did you go anywhere fun") == 2);
}

static void test_idempotent(void) {
  size_t before = graph_changes("acme");
  EG_CHECK(before >= 2);
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(session(ing, "acme", "s1", conv, 5, false, &r, &e) == EG_OK);
  EG_CHECK(r->report->duplicate);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_INT(graph_changes("acme"), before);
}

static void test_rejected_writes_nothing(void) {
  const char *bad[] = {"user", "My unique word is zqxjkwvbn and I live in Oslo.", "robot", "beep"};
  eg_err e;
  EG_CHECK_INT(session(ing, "clean", "s9", bad, 2, false, NULL, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "messages[1].role") != NULL);
  const char *empty[] = {"user", ""};
  EG_CHECK_INT(session(ing, "clean", "s9", empty, 1, false, NULL, &e), EG_EINVAL);
  /* white space only (ASCII, no-break and ideographic spaces, line breaks) is empty too */
  const char *blank[] = {"user", "My unique word is zqxjkwvbn and I live in Oslo.", "user",
                         " \t\r\n\xc2\xa0\xe3\x80\x80 "};
  EG_CHECK_INT(session(ing, "clean", "s9", blank, 2, false, NULL, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "messages[1].content is empty") != NULL);
  EG_CHECK_INT(session(ing, "clean", "s9", blank + 2, 1, true, NULL, &e),
               EG_EINVAL); /* async alike */
  EG_CHECK_INT(session(ing, "clean", "", conv, 1, false, NULL, &e), EG_EINVAL);
  EG_CHECK_INT(hits("clean", "zqxjkwvbn", "zqxjkwvbn"), 0);
  EG_CHECK_INT(graph_changes("clean"), 0);
  EG_CHECK_STR(gc_value(gra, "clean", "user:u1", "LIVES_IN", 0, 0), "");
}

static void test_async_and_watermark(void) {
  const char *m[] = {"user", "My favourite board game is Wingspan, I play it every Friday."};
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(session(ing, "acme", "s2", m, 1, true, &r, &e) == EG_OK);
  EG_REQUIRE(r->job_id && *r->job_id && r->watermark && *r->watermark);
  char job[64], wm[64];
  snprintf(job, sizeof job, "%s", r->job_id);
  snprintf(wm, sizeof wm, "%s", r->watermark);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_INT(wait_for(wm, 10 * EG_US_PER_SEC), 1);
  EG_CHECK(hits("acme", "Wingspan board game", "Wingspan") >= 1); /* read-your-writes */
  /* the chunk is searchable once its watermark is reached; the job says DONE after its last
   * step, a moment later under load */
  Engram__V1__Job *jr = ic_job_ended(ing, "acme", "u1", job, 10 * EG_US_PER_SEC);
  EG_REQUIRE(jr != NULL);
  Engram__V1__Job *jj = jr;
  EG_CHECK_INT(jj->state, ENGRAM__V1__JOB_STATE__JOB_STATE_DONE);
  EG_CHECK(jj->report && jj->report->chunks == 1);
  /* done, the job reports the whole watermark: its chunk, and graphd's position of its facts */
  EG_CHECK(jj->watermark && !strncmp(jj->watermark, wm, 19));
  EG_CHECK(jj->report && jj->report->facts > 0 && jj->watermark &&
           strstr(jj->watermark, ";g1:") == jj->watermark + 19);
  protobuf_c_message_free_unpacked(&jr->base, NULL);
  /* a watermark that never comes: not reached, after the timeout */
  EG_CHECK_INT(wait_for("v1:0000000000000001", 200000), 0);
}

static void test_document_and_facts(void) {
  Engram__V1__Scope scope = gc_scope("acme", "u1");
  Engram__V1__IngestDocumentRequest d = ENGRAM__V1__INGEST_DOCUMENT_REQUEST__INIT;
  d.scope = &scope;
  d.document_id = "handbook";
  d.title = "Employee handbook";
  d.time = T("2024-01-01");
  d.text =
      "Expense reports are due on the fifth business day of each month. "
      "Travel must be booked through the portal. Remote work is allowed two days a week. "
      "The office closes at 7pm on Fridays.";
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(eg_ingestd_ingest_document(ing, &d, &r, &e) == EG_OK);
  EG_CHECK(r->report->chunks >= 1);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK(hits("acme", "when are expense reports due", "Expense reports") >= 1);
  /* client facts: an inference derived from an earlier fact of the same request */
  Engram__V1__EntityRef maya = ENGRAM__V1__ENTITY_REF__INIT;
  maya.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  maya.name = "Maya Patel";
  Engram__V1__FactInput f1 = ENGRAM__V1__FACT_INPUT__INIT, f2 = ENGRAM__V1__FACT_INPUT__INIT,
                        *fs[2] = {&f1, &f2};
  f1.subject = &maya;
  f1.relation = "JOB_TITLE";
  f1.object_literal = "chief of staff";
  f2.subject = &maya;
  f2.relation = "HAS_AUTHORITY";
  f2.object_literal = "signing authority";
  uint32_t idx = 0;
  f2.derived_from_index = &idx;
  f2.n_derived_from_index = 1;
  f2.reason = "chiefs of staff sign contracts";
  Engram__V1__AssertFactsRequest fr = ENGRAM__V1__ASSERT_FACTS_REQUEST__INIT;
  fr.scope = &scope;
  fr.facts = fs;
  fr.n_facts = 2;
  EG_REQUIRE(eg_ingestd_assert_facts(ing, &fr, &r, &e) == EG_OK);
  EG_CHECK_INT(r->n_edge_ids, 2);
  uint64_t first[2] = {0, 0};
  if (r->n_edge_ids == 2) memcpy(first, r->edge_ids, sizeof first);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_STR(gc_value(gra, "acme", "Maya Patel", "HAS_AUTHORITY", 0, 0), "signing authority");
  /* The same facts sent again (a retried request, a file ingested twice): the same edges,
   * nothing committed — the chain still has one commit each. */
  for (int again = 0; again < 2; again++) {
    EG_REQUIRE(eg_ingestd_assert_facts(ing, &fr, &r, &e) == EG_OK);
    Engram__V1__IngestResponse *ir = r;
    EG_CHECK(ir->n_edge_ids == 2 && ir->edge_ids[0] == first[0] && ir->edge_ids[1] == first[1]);
    protobuf_c_message_free_unpacked(&r->base, NULL);
  }
  Engram__V1__HistoryRequest h = ENGRAM__V1__HISTORY_REQUEST__INIT;
  h.scope = &scope;
  h.subject = &maya;
  Engram__V1__HistoryResponse *hr = NULL;
  EG_REQUIRE(eg_graphd_history(gra, &h, &hr, &e) == EG_OK);
  EG_CHECK_INT(hr->n_entries, 2);
  protobuf_c_message_free_unpacked(&hr->base, NULL);
  f1.relation = "not snake"; /* nothing of a bad batch is written */
  f2.object_literal = "veto power";
  EG_CHECK_INT(eg_ingestd_assert_facts(ing, &fr, &r, &e), EG_EINVAL);
  EG_CHECK_STR(gc_value(gra, "acme", "Maya Patel", "HAS_AUTHORITY", 0, 0), "signing authority");
}

/* The prototype extractor: a state said in words the rules have no pattern for lands in the
 * graph with meta.extractor "prototypes"; an ingestd whose prototypes file is missing warns
 * and still ingests, on the rules alone. */
static void test_state_prototypes(void) {
  const char *const said[] = {"user", "These days I call Kraków home.", "assistant",
                              "Lovely city."};
  eg_err e;
  EG_REQUIRE(session(ing, "states", "home", said, 2, false, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "states", "user:u1", "LIVES_IN", 0, 0), "Kraków");
  /* the user's states come from the user's words: the assistant's "I" in the reply of a
   * round is not the user (the round is one chunk) */
  const char *const reply[] = {"user", "Any tips for a quiet café to work from?", "assistant",
                               "I live in Porto and I'd go to the ones near the river."};
  EG_REQUIRE(session(ing, "states-reply", "cafe", reply, 2, false, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "states-reply", "user:u1", "LIVES_IN", 0, 0), "");
  /* a reply long enough to be cut into parts: no part of it is the user's */
  eg_buf longer = EG_BUF_INIT;
  for (int i = 0; i < 400; i++) eg_buf_printf(&longer, "The river walk is lovely in spring. ");
  eg_buf_printf(&longer, "I live in Porto myself.");
  const char *const long_reply[] = {"user", "Any tips for a walk?", "assistant", longer.data};
  EG_REQUIRE(session(ing, "states-long-reply", "walk", long_reply, 2, false, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "states-long-reply", "user:u1", "LIVES_IN", 0, 0), "");
  eg_buf_free(&longer);
  /* a name the user only speaks of is theirs while the graph holds no value of its relation
   * for them: read from the graph's held values at ingest */
  const char *const passing[] = {"user", "Declan forgot valentines again.", "assistant", "Oh no."};
  EG_REQUIRE(session(ing, "states-passing", "vday", passing, 2, false, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "states-passing", "user:u1", "PARTNER_OF", 0, 0), "Declan");
  const char *const own[] = {"user", "My boyfriend Tobias cooked dinner for us tonight.",
                             "assistant", "Sweet."};
  EG_REQUIRE(session(ing, "states-passing-held", "dinner", own, 2, false, NULL, &e) == EG_OK);
  EG_REQUIRE(session(ing, "states-passing-held", "vday", passing, 2, false, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "states-passing-held", "user:u1", "PARTNER_OF", 0, 0), "Tobias");
  /* a value said to end, never read as held: the user's from their first mention of it as
   * theirs until it ended (the graph learns the past later); none without such a mention */
  const char *const walk[] = {"user", "The Sunday walk along the river in Lisbon is lovely.",
                              "assistant", "Belém at sunset especially."};
  const char *const left[] = {"user", "Since leaving Lisbon in October I miss the bakeries.",
                              "assistant", "Pastéis de nata travel badly."};
  EG_REQUIRE(ic_session(ing, "states-former", "u1", "walk", T("2019-05-04T10:00:00Z"), walk, 2,
                        false, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "states-former", "user:u1", "LIVES_IN", 0, 0), "");
  int64_t before = eg_time_now_us();
  EG_REQUIRE(ic_session(ing, "states-former", "u1", "left", T("2020-12-04T10:00:00Z"), left, 2,
                        false, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "states-former", "user:u1", "LIVES_IN", T("2019-03-01"), 0), "");
  EG_CHECK_STR(gc_value(gra, "states-former", "user:u1", "LIVES_IN", T("2020-03-01"), 0), "Lisbon");
  EG_CHECK_STR(gc_value(gra, "states-former", "user:u1", "LIVES_IN", T("2020-11-01"), 0), "");
  /* learned with the second session: as known before it, the graph held nothing then */
  EG_CHECK_STR(gc_value(gra, "states-former", "user:u1", "LIVES_IN", T("2020-03-01"), before), "");
  /* with no earlier mention of the user's own, nothing is learned of the past */
  EG_REQUIRE(ic_session(ing, "states-former-none", "u1", "left", T("2020-12-04T10:00:00Z"), left, 2,
                        false, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "states-former-none", "user:u1", "LIVES_IN", T("2020-03-01"), 0), "");
  /* the first home stated, with none before it in the graph: the place the user spoke of as
   * theirs before it was theirs until then; not where the graph holds one */
  const char *const moved[] = {"user", "I just moved to Porto for a new job.", "assistant",
                               "Congratulations!"};
  const char *const faro[] = {"user", "I live in Faro.", "assistant", "Sunny."};
  const char *const t_before[] = {"states-earlier", "states-earlier-held"};
  for (int held = 0; held < 2; held++) {
    const char *tn = t_before[held];
    if (held)
      EG_REQUIRE(ic_session(ing, tn, "u1", "faro", T("2018-02-01T10:00:00Z"), faro, 2, false, NULL,
                            &e) == EG_OK);
    EG_REQUIRE(ic_session(ing, tn, "u1", "walk", T("2019-05-04T10:00:00Z"), walk, 2, false, NULL,
                          &e) == EG_OK);
    EG_REQUIRE(ic_session(ing, tn, "u1", "moved", T("2020-12-04T10:00:00Z"), moved, 2, false, NULL,
                          &e) == EG_OK);
    EG_CHECK_STR(gc_value(gra, tn, "user:u1", "LIVES_IN", 0, 0), "Porto");
    EG_CHECK_STR(gc_value(gra, tn, "user:u1", "LIVES_IN", T("2020-03-01"), 0),
                 held ? "Faro" : "Lisbon");
    EG_CHECK_STR(gc_value(gra, tn, "user:u1", "LIVES_IN", T("2019-03-01"), 0), held ? "Faro" : "");
  }
  /* a pet (a being known by name) first stated as the user's was theirs from the user's first
   * earlier words naming it plainly; not from words naming it as someone else's */
  const char *const poo[] = {"user",
                             "Clementine rolled in fox poo again. What gets that smell out?",
                             "assistant", "Tomato ketchup, they say."};
  const char *const sisters[] = {"user", "My sister's new puppy Clementine came to stay.",
                                 "assistant", "Fun!"};
  const char *const vet[] = {"user", "The vet says Clementine's heart is failing. She's 14.",
                             "assistant", "I'm so sorry."};
  const char *const t_pet[] = {"states-pet", "states-pet-others"};
  for (int others = 0; others < 2; others++) {
    EG_REQUIRE(ic_session(ing, t_pet[others], "u1", "before", T("2018-05-12T10:00:00Z"),
                          others ? sisters : poo, 2, false, NULL, &e) == EG_OK);
    EG_REQUIRE(ic_session(ing, t_pet[others], "u1", "vet", T("2020-01-04T10:00:00Z"), vet, 2, false,
                          NULL, &e) == EG_OK);
    EG_CHECK_STR(gc_value(gra, t_pet[others], "user:u1", "HAS_PET", 0, 0), "Clementine");
    EG_CHECK_STR(gc_value(gra, t_pet[others], "user:u1", "HAS_PET", T("2019-06-01"), 0),
                 others ? "" : "Clementine");
    EG_CHECK_STR(gc_value(gra, t_pet[others], "user:u1", "HAS_PET", T("2018-01-01"), 0), "");
  }
  /* a former value said with no end ("my old team at siemens") while the graph holds another:
   * the user's from their first mention of it (in chat's lower case) until the held one
   * began; nothing learned while the graph holds none */
  const char *const rig[] = {"user",
                             ("can u review this function? it's for a test rig at siemens, we "
                              "run it on the line in erlangen"),
                             "assistant", "Add a timeout to the read."};
  const char *const took[] = {"user", "so... I took the Helio job, start on monday. nervous!",
                              "assistant", "Congratulations!"};
  const char *const party[] = {"user",
                               ("my old team at siemens invited me to their summer party, is it "
                                "weird to go?"),
                               "assistant", "Not at all."};
  const char *const t_until[] = {"states-until", "states-until-none"};
  for (int none = 0; none < 2; none++) {
    const char *tn = t_until[none];
    EG_REQUIRE(ic_session(ing, tn, "u1", "rig", T("2022-01-17T10:00:00Z"), rig, 2, false, NULL,
                          &e) == EG_OK);
    if (!none)
      EG_REQUIRE(ic_session(ing, tn, "u1", "took", T("2022-11-05T10:00:00Z"), took, 2, false, NULL,
                            &e) == EG_OK);
    EG_REQUIRE(ic_session(ing, tn, "u1", "party", T("2023-06-20T10:00:00Z"), party, 2, false, NULL,
                          &e) == EG_OK);
    EG_CHECK_STR(gc_value(gra, tn, "user:u1", "WORKS_AT", T("2022-04-20"), 0),
                 none ? "" : "siemens");
    EG_CHECK_STR(gc_value(gra, tn, "user:u1", "WORKS_AT", T("2021-06-01"), 0), "");
    EG_CHECK_STR(gc_value(gra, tn, "user:u1", "WORKS_AT", T("2022-12-01"), 0), none ? "" : "Helio");
    EG_CHECK_STR(gc_value(gra, tn, "user:u1", "WORKS_AT", 0, 0), none ? "" : "Helio");
  }
  /* a job of the past told with the years it lasted, beside the current one: the user's
   * through those years */
  const char *const years[] = {"user",
                               "I worked at Deloitte from 2015 to 2019. These days I work at KPMG.",
                               "assistant", "Noted."};
  EG_REQUIRE(ic_session(ing, "states-years", "u1", "years", T("2024-05-01T10:00:00Z"), years, 2,
                        false, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "states-years", "user:u1", "WORKS_AT", T("2017-06-01"), 0),
               "Deloitte");
  EG_CHECK_STR(gc_value(gra, "states-years", "user:u1", "WORKS_AT", T("2014-06-01"), 0), "");
  EG_CHECK_STR(gc_value(gra, "states-years", "user:u1", "WORKS_AT", 0, 0), "KPMG");
  eg_proc p;
  const char *const flags[] = {"--state-prototypes", "/nonexistent/p.txt", NULL};
  eg_rpc_client *c = ic_second_ingestd(&cl, "rules-only", flags, &p);
  EG_REQUIRE(c != NULL);
  const char *const rules[] = {"user", "I live in Gdańsk now.", "assistant", "Nice."};
  EG_CHECK(session(c, "states-rules", "home", rules, 2, false, NULL, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "states-rules", "user:u1", "LIVES_IN", 0, 0), "Gdańsk");
  eg_rpc_client_close(c);
  EG_CHECK_INT(eg_harness_stop(&p, SIGTERM), 0);
}

/* The current (user:u1, relation, object) record in tenant, as u1 sees it: its confidence
 * and how many pieces of evidence back it (-1 and 0 when there is no such record). */
static float pref_confidence(const char *tenant, const char *relation, const char *object,
                             size_t *evidence) {
  Engram__V1__StateResponse *st = NULL;
  eg_err e;
  float c = -1;
  *evidence = 0;
  if (gc_state_as(gra, tenant, "u1", "user:u1", relation, 0, 0, &st, &e) != EG_OK) return -1;
  for (size_t i = 0; st->n_results && i < st->results[0]->n_values; i++) {
    Engram__V1__Edge *v = st->results[0]->values[i];
    const char *o = v->object->kind_case == ENGRAM__V1__VALUE__KIND_LITERAL ? v->object->literal
                                                                            : v->object_name;
    if (strcmp(o ? o : "", object) != 0 || !v->belief) continue;
    EG_CHECK(c == -1); /* one record per (user, relation, object) */
    c = v->belief->confidence;
    *evidence = v->belief->n_evidence;
  }
  protobuf_c_message_free_unpacked(&st->base, NULL);
  return c;
}

/* A preference said in two sessions is one record whose confidence rose; a contrary
 * statement in a third lowers it; a client's fact raises it again; a suggestion taken up
 * is ACCEPTED. */
static void test_preferences_across_sessions(void) {
  const char *t = "prefs";
  static const char *s1[] = {"user", "I love sushi."};
  static const char *s2[] = {"user", "As I told you last week, I love sushi!"};
  static const char *s3[] = {"user", "Lately I really dislike sushi."};
  static const char *s4[] = {"user",      "Where should we eat tonight?",
                             "assistant", "How about Sakura Sushi near the station?",
                             "user",      "Sounds great, let's go there."};
  eg_err e;
  size_t n;
  EG_REQUIRE(session(ing, t, "p1", s1, 1, false, NULL, &e) == EG_OK);
  float one = pref_confidence(t, "LIKES", "sushi", &n);
  EG_CHECK_INT(n, 1);
  EG_CHECK(one > 0 && one < 1);
  EG_REQUIRE(session(ing, t, "p2", s2, 1, false, NULL, &e) == EG_OK);
  float two = pref_confidence(t, "LIKES", "sushi", &n);
  EG_CHECK_INT(n, 2);
  EG_CHECK(two > one);
  EG_CHECK_INT(gc_history_len(gra, t, "user:u1", "LIKES"), 2); /* one chain, two commits */
  EG_REQUIRE(session(ing, t, "p3", s3, 1, false, NULL, &e) == EG_OK);
  float three = pref_confidence(t, "LIKES", "sushi", &n);
  EG_CHECK_INT(n, 3);
  EG_CHECK(three >= 0 && three < two);
  /* a client application's fact is one more independent source */
  Engram__V1__Scope scope = gc_scope(t, "u1");
  Engram__V1__EntityRef me = ENGRAM__V1__ENTITY_REF__INIT;
  me.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  me.name = "user:u1";
  Engram__V1__FactInput f = ENGRAM__V1__FACT_INPUT__INIT, *fs[1] = {&f};
  f.subject = &me;
  f.relation = "LIKES";
  f.object_literal = "sushi";
  f.confidence = 0.9f;
  f.sentiment = 1;
  f.intensity = 0.8f;
  f.session_id = "app-orders";
  Engram__V1__AssertFactsRequest fr = ENGRAM__V1__ASSERT_FACTS_REQUEST__INIT;
  fr.scope = &scope;
  fr.facts = fs;
  fr.n_facts = 1;
  Engram__V1__IngestResponse *r = NULL;
  EG_REQUIRE(eg_ingestd_assert_facts(ing, &fr, &r, &e) == EG_OK);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  float four = pref_confidence(t, "LIKES", "sushi", &n);
  EG_CHECK_INT(n, 4);
  EG_CHECK(four > three);
  Engram__V1__StateResponse *st = NULL;
  EG_REQUIRE(gc_state_as(gra, t, "u1", "user:u1", "LIKES", 0, 0, &st, &e) == EG_OK);
  EG_REQUIRE(st->n_results == 1 && st->results[0]->n_values == 1);
  EG_CHECK(st->results[0]->values[0]->meta->intensity == 0.8f);
  EG_CHECK_STR(st->results[0]->values[0]->meta->extractor, "client");
  protobuf_c_message_free_unpacked(&st->base, NULL);
  EG_REQUIRE(session(ing, t, "p4", s4, 3, false, NULL, &e) == EG_OK);
  float acc = pref_confidence(t, "ACCEPTED", "Sakura Sushi", &n);
  EG_CHECK(acc > 0);
  EG_CHECK_INT(n, 1);
}

static void test_backpressure(void) {
  /* A second ingestd with one worker and a queue of one: a burst is refused, not dropped. */
  eg_proc p;
  eg_err e;
  const char *const flags[] = {"--async-workers", "1", "--ingest-queue-max", "1", NULL};
  eg_rpc_client *c = ic_second_ingestd(&cl, "bp", flags, &p);
  EG_REQUIRE(c != NULL);
  int ok = 0, full = 0;
  char sid[32];
  for (int i = 0; i < 30; i++) {
    snprintf(sid, sizeof sid, "burst-%d", i);
    eg_code rc = session(c, "burst", sid, conv, 5, true, NULL, &e);
    ok += rc == EG_OK;
    full += rc == EG_EFULL;
  }
  EG_CHECK(ok >= 1);
  EG_CHECK(full >= 1);
  EG_CHECK_INT(ok + full, 30);
  eg_rpc_client_close(c);
  EG_CHECK_INT(eg_harness_stop(&p, SIGTERM),
               0); /* the running job finishes; waiting ones stay on disk */
}

static void test_erase_cascade(void) {
  Engram__V1__Scope scope = gc_scope("acme", "u1");
  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &scope; /* user u1 */
  Engram__V1__EraseResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(eg_ingestd_erase(ing, &er, &r, &e) == EG_OK);
  Engram__V1__EraseResponse *x = r;
  uint64_t chunks = 0, edges = 0;
  for (size_t i = 0; i < x->n_counts; i++) {
    if (!strcmp(x->counts[i]->kind, "chunks")) chunks = x->counts[i]->count;
    if (!strcmp(x->counts[i]->kind, "edges")) edges = x->counts[i]->count;
  }
  EG_CHECK(chunks >= 5);
  EG_CHECK(edges >= 2);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_INT(hits("acme", "where does the user live", "London"), 0);
  EG_CHECK_STR(gc_value(gra, "acme", "user:u1", "LIVES_IN", 0, 0), "");
}

/* The CLI: one request from stdin or a file (JSON or plain text), then bulk JSONL with a
 * rejected line, resume after the recorded prefix, and a state file of another file. */
static void test_cli(void) {
  char base[400], out[600], jsonl[600];
  snprintf(base, sizeof base,
           "%s/engram --ingestd-addr %s --tenant clitenant --user u1 --progress off", EG_BINARY_DIR,
           cl.d[EG_INGESTD].addr);
  snprintf(out, sizeof out, "%s/ingest-cli.out", cl.dir);
  snprintf(jsonl, sizeof jsonl, "%s/bulk.jsonl", cl.dir);
  const char *session =
      "{\"session_id\":\"cli-1\",\"session_time\":\"2024-05-02T09:00:00Z\",\"messages\":["
      "{\"role\":\"user\",\"content\":\"I adopted a beagle named Biscuit last week.\"},"
      "{\"role\":\"assistant\",\"content\":\"Congratulations on Biscuit!\"}]}";
  EG_CHECK_INT(eg_test_system("echo '%s' | %s ingest session - > %s", session, base, out), 0);
  EG_CHECK_INT(eg_test_system("echo '%s' | %s ingest session - >> %s", session, base, out), 0);
  EG_CHECK_INT(
      eg_test_system("printf 'The lab opens at nine. Badges are required.' > %s/notes.txt && "
                     "%s ingest document %s/notes.txt --title 'Lab rules' >> %s",
                     cl.dir, base, cl.dir, out),
      0);
  EG_CHECK_INT(
      eg_test_system("echo '{\"facts\":[{\"subject\":{\"name\":\"Biscuit\"},\"relation\":\"IS_A\","
                     "\"object_literal\":\"beagle\"}]}' | %s ingest facts - >> %s",
                     base, out),
      0);
  EG_CHECK_INT(eg_test_system("echo '{\"messages\":[]}' | %s ingest session - 2>> %s", base, out),
               1);
  char *text = eg_test_slurp(out);
  EG_CHECK(strstr(text, "chunks,") != NULL && strstr(text, "watermark v1:") != NULL);
  EG_CHECK(strstr(text, "already ingested (no change)") != NULL);
  EG_CHECK(strstr(text, "edge #") != NULL);
  EG_CHECK(strstr(text, "INVALID_ARGUMENT") != NULL);
  free(text);
  EG_CHECK(hits("clitenant", "lab opening time", "nine") >= 1);
  EG_CHECK_STR(gc_value(gra, "clitenant", "Biscuit", "IS_A", 0, 0), "beagle");

  /* bulk: a session, a line that is not JSON, a document */
  FILE *f = fopen(jsonl, "w");
  EG_REQUIRE(f != NULL);
  fprintf(f,
          "{\"session_id\":\"bulk-1\",\"messages\":[{\"role\":\"user\",\"content\":\"My sister Ana "
          "lives in Porto.\"}]}\n"
          "not json\n\n"
          "{\"document_id\":\"faq\",\"text\":\"Refunds take five business days.\"}\n");
  fclose(f);
  EG_CHECK_INT(eg_test_system("%s ingest bulk %s > %s 2>&1", base, jsonl, out), 3);
  text = eg_test_slurp(out);
  EG_CHECK(strstr(text, "line 2: INVALID_ARGUMENT: not valid JSON") != NULL);
  EG_CHECK(strstr(text, "3 lines (0 skipped by resume): 2 ingested, 0 already there, 1 failed") !=
           NULL);
  free(text);
  char state[700];
  snprintf(state, sizeof state, "%s.progress", jsonl);
  text = eg_test_slurp(state);
  EG_CHECK(strncmp(text, "engram-bulk 1 4 ", 16) ==
           0); /* four physical lines, the blank one included */
  free(text);
  EG_CHECK(hits("clitenant", "refund duration", "Refunds") >= 1);
  /* one more line; --resume sends only it */
  f = fopen(jsonl, "a");
  EG_REQUIRE(f != NULL);
  fprintf(f,
          "{\"session_id\":\"bulk-2\",\"messages\":[{\"role\":\"user\",\"content\":\"I started "
          "learning the cello.\"}]}\n");
  fclose(f);
  EG_CHECK_INT(eg_test_system("%s ingest bulk %s --resume > %s 2>&1", base, jsonl, out), 0);
  text = eg_test_slurp(out);
  EG_CHECK(strstr(text, "1 lines (4 skipped by resume): 1 ingested, 0 already there, 0 failed") !=
           NULL);
  free(text);
  /* from the start again: everything is already there */
  EG_CHECK_INT(eg_test_system("%s --json ingest bulk %s > %s 2>/dev/null", base, jsonl, out), 3);
  text = eg_test_slurp(out);
  EG_CHECK(strstr(text, "\"ok\": 0, \"duplicates\": 3, \"failed\": 1") != NULL);
  free(text);
  /* a state file whose offset is not the end of a line of this file is refused */
  EG_CHECK_INT(
      eg_test_system("echo 'engram-bulk 1 1 7' > %s && %s ingest bulk %s --resume > %s 2>&1", state,
                     base, jsonl, out),
      1);
  text = eg_test_slurp(out);
  EG_CHECK(strstr(text, "does not match") != NULL);
  free(text);
}

/* /metrics passes promtool and counts what the tests above ingested. */
static void test_metrics(void) {
  eg_buf body = EG_BUF_INIT;
  EG_CHECK_INT(eg_promtool_scrape(cl.d[EG_INGESTD].metrics_port, cl.dir, "ingestd", &body), 0);
  EG_REQUIRE(body.data != NULL);
  const char *t = strstr(body.data, "\nengram_ingestd_tokens_total ");
  EG_CHECK(t && atof(t + strlen("\nengram_ingestd_tokens_total ")) >= 20);
  const char *d = strstr(body.data, "\nengram_ingestd_duplicates_total ");
  EG_CHECK(d && atof(d + strlen("\nengram_ingestd_duplicates_total ")) >= 1);
  EG_CHECK(strstr(body.data, "engram_ingestd_stage_seconds_count{stage=\"enrich\"}") != NULL);
  EG_CHECK(strstr(body.data, "engram_ingestd_stage_seconds_count{stage=\"embed+upsert\"}") != NULL);
  EG_CHECK(strstr(body.data, "\nengram_ingestd_queue_depth ") != NULL);
  EG_CHECK(strstr(body.data, "\nengram_ingestd_llm_fallbacks_total ") != NULL);
  eg_buf_free(&body);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_session_in);
  EG_RUN(test_named_speakers);
  EG_RUN(test_idempotent);
  EG_RUN(test_rejected_writes_nothing);
  EG_RUN(test_async_and_watermark);
  EG_RUN(test_document_and_facts);
  EG_RUN(test_state_prototypes);
  EG_RUN(test_preferences_across_sessions);
  EG_RUN(test_backpressure);
  EG_RUN(test_cli);
  EG_RUN(test_metrics);
  EG_RUN(test_erase_cascade);
  int rc = eg_test_finish();
  eg_rpc_client_close(ing);
  eg_rpc_client_close(vec);
  eg_rpc_client_close(gra);
  eg_cluster_stop(&cl, rc != 0);
  eg_rpc_global_shutdown();
  return rc;
}
