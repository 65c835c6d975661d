/*
 * test_receipt.c — ingestd's idempotency receipt through the real daemons: it is the
 * chunks' IngestReceipt field, not metadata; client metadata named like the old receipt
 * keys changes nothing; a store written before the field (receipt in metadata strings)
 * is still recognised; a retry after vectord died between the graph commit and the
 * chunk upsert writes the ingest once, and a further retry is a duplicate.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rpc.h"
#include "common/time.h"
#include "proto/engram/v1/ingest.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/stub_http.h"
#include "tests/testlib.h"

static eg_cluster cl;
static eg_rpc_client *ing, *vec, *gra;

/* The id of the last chunk of an ingest, from its watermark "v1:<hex>". */
static uint64_t last_id(const Engram__V1__IngestResponse *r) {
  return r->watermark && !strncmp(r->watermark, "v1:", 3) ? strtoull(r->watermark + 3, NULL, 16)
                                                          : 0;
}

/* The chunk `id` of tenant/u1 as vectord holds it (staged too), NULL when absent; the
 * caller frees *resp with protobuf_c_message_free_unpacked. */
static Engram__V1__Chunk *chunk_at(const char *tenant, uint64_t id,
                                   Engram__V1__GetChunksResponse **resp) {
  Engram__V1__Scope scope = gc_scope(tenant, "u1");
  Engram__V1__GetChunksRequest req = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  req.scope = &scope;
  req.ids = &id;
  req.n_ids = 1;
  req.include_staged = true;
  eg_err e;
  *resp = NULL;
  if (eg_vectord_get_chunks(vec, &req, resp, &e) != EG_OK) return NULL;
  for (size_t i = 0; i < (*resp)->n_chunks; i++)
    if ((*resp)->chunks[i]->id == id) return (*resp)->chunks[i];
  return NULL;
}

/* A document of tenant/u1 with client metadata (key, value pairs); the report's fields
 * that matter here. */
typedef struct ingested {
  eg_code rc;
  bool duplicate;
  uint32_t chunks;
  uint64_t last_id;
} ingested;

static ingested document(const char *tenant, const char *doc_id, const char *text,
                         const char *const *md, size_t n_md) {
  Engram__V1__Scope scope = gc_scope(tenant, "u1");
  Engram__V1__KeyValue kv[4], *kvp[4];
  for (size_t i = 0; i < n_md && i < 4; i++) {
    engram__v1__key_value__init(&kv[i]);
    kv[i].key = (char *)md[2 * i];
    kv[i].value = (char *)md[2 * i + 1];
    kvp[i] = &kv[i];
  }
  Engram__V1__IngestDocumentRequest d = ENGRAM__V1__INGEST_DOCUMENT_REQUEST__INIT;
  d.scope = &scope;
  d.document_id = (char *)doc_id;
  d.time = T("2024-02-01");
  d.text = (char *)text;
  d.metadata = kvp;
  d.n_metadata = n_md;
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  ingested out = {eg_ingestd_ingest_document(ing, &d, &r, &e), false, 0, 0};
  if (out.rc) {
    fprintf(stderr, "  ingest %s: %s\n", doc_id, e.msg);
    return out;
  }
  out.duplicate = r->report->duplicate;
  out.chunks = r->report->chunks;
  out.last_id = last_id(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return out;
}

static void free_chunks(Engram__V1__GetChunksResponse *r) {
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
}

static const char *metadata_value(const Engram__V1__Chunk *c, const char *key) {
  for (size_t m = 0; m < c->n_metadata; m++)
    if (!strcmp(c->metadata[m]->key, key)) return c->metadata[m]->value;
  return NULL;
}

static void test_start(void) {
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, NULL, &ing, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_VECTORD].addr, NULL, &vec, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
}

static const char *const note_a = "The lab opens at eight. Badges are needed after six.";
static const char *const note_b = "Parking is in the north lot. Visitors sign in at the desk.";

/* The receipt is a field of the chunk; the client's metadata is stored as given. */
static void test_receipt_is_a_field(void) {
  static const char *const md[] = {"content_hash", "mine", "segments", "7"};
  ingested d = document("rcpt", "field", note_a, md, 2);
  EG_REQUIRE(d.rc == EG_OK);
  EG_CHECK_INT(d.chunks, 1);
  Engram__V1__GetChunksResponse *r;
  const Engram__V1__Chunk *c = chunk_at("rcpt", d.last_id, &r);
  EG_REQUIRE(c != NULL);
  EG_REQUIRE(c->receipt != NULL);
  EG_CHECK_INT(strlen(c->receipt->content_hash), 16);
  EG_CHECK_INT(c->receipt->segments, 1);
  EG_CHECK_INT(c->receipt->previous_segments, 0);
  EG_CHECK_INT(c->n_metadata, 2); /* the client's two, nothing of ingestd's */
  EG_CHECK_STR(metadata_value(c, "content_hash"), "mine");
  EG_CHECK_STR(metadata_value(c, "segments"), "7");
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* identical content again: the receipt finds it, whatever the metadata says */
  d = document("rcpt", "field", note_a, md, 2);
  EG_REQUIRE(d.rc == EG_OK);
  EG_CHECK(d.duplicate);
}

/* Client metadata that spells the receipt of other content does not make that content a
 * duplicate, nor does a huge "segments" count delete anything. */
static void test_client_metadata_is_not_a_receipt(void) {
  ingested probe = document("rcpt", "probe", note_b, NULL, 0); /* learn note_b's hash */
  EG_REQUIRE(probe.rc == EG_OK);
  Engram__V1__GetChunksResponse *r;
  const Engram__V1__Chunk *c = chunk_at("rcpt", probe.last_id, &r);
  EG_REQUIRE(c && c->receipt);
  char hash[24];
  snprintf(hash, sizeof hash, "%s", c->receipt->content_hash);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* note_a under "spoof", carrying note_b's hash and a huge count as client metadata */
  const char *const md[] = {"content_hash",      hash,    "segments", "100000",
                            "previous_segments", "100000"};
  ingested a = document("rcpt", "spoof", note_a, md, 3);
  EG_REQUIRE(a.rc == EG_OK);
  EG_CHECK(!a.duplicate);
  /* now note_b under "spoof": new content, written */
  ingested b = document("rcpt", "spoof", note_b, NULL, 0);
  EG_REQUIRE(b.rc == EG_OK);
  EG_CHECK(!b.duplicate);
  EG_CHECK_INT(b.chunks, 1);
  EG_CHECK(b.last_id == a.last_id);
  c = chunk_at("rcpt", b.last_id, &r);
  EG_REQUIRE(c && c->receipt);
  EG_CHECK_STR(c->content, note_b);
  EG_CHECK_STR(c->receipt->content_hash, hash);
  EG_CHECK_INT(c->receipt->previous_segments, 0); /* the client's 100000 was not a count */
  EG_CHECK_INT(c->n_metadata, 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* Rewrite chunk id as a store written before the receipt field held it: no field, the
 * receipt as metadata strings after the client's ("content_hash" when with_hash, else
 * "segments" with the receipt's count). */
static void make_legacy(const char *tenant, uint64_t id, bool with_hash) {
  Engram__V1__GetChunksResponse *r;
  Engram__V1__Chunk *c = chunk_at(tenant, id, &r);
  EG_REQUIRE(c && c->receipt);
  char segments[16];
  snprintf(segments, sizeof segments, "%u", c->receipt->segments);
  Engram__V1__KeyValue kv = ENGRAM__V1__KEY_VALUE__INIT, *kvp[8];
  kv.key = with_hash ? "content_hash" : "segments";
  kv.value = with_hash ? c->receipt->content_hash : segments;
  size_t n = 0;
  for (size_t m = 0; m < c->n_metadata && n < 7; m++) kvp[n++] = c->metadata[m];
  kvp[n++] = &kv;
  Engram__V1__IngestReceipt *receipt = c->receipt;
  Engram__V1__KeyValue **metadata = c->metadata;
  size_t n_metadata = c->n_metadata;
  c->receipt = NULL;
  c->metadata = kvp;
  c->n_metadata = n;
  Engram__V1__Scope scope = gc_scope(tenant, "u1");
  Engram__V1__UpsertRequest u = ENGRAM__V1__UPSERT_REQUEST__INIT;
  u.scope = &scope;
  u.chunks = &c;
  u.n_chunks = 1;
  eg_err e;
  EG_CHECK(eg_vectord_upsert(vec, &u, NULL, &e) == EG_OK);
  c->receipt = receipt; /* r's own, for its free */
  c->metadata = metadata;
  c->n_metadata = n_metadata;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  Engram__V1__Chunk *back = chunk_at(tenant, id, &r);
  EG_CHECK(back && !back->receipt);
  protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A store written before the field: its metadata receipt still makes identical content a
 * duplicate, and its chunk count still has a shorter version delete the old tail. */
static void test_legacy_store(void) {
  ingested d = document("rcpt", "legacy", note_a, NULL, 0);
  EG_REQUIRE(d.rc == EG_OK);
  make_legacy("rcpt", d.last_id, true);
  d = document("rcpt", "legacy", note_a, NULL, 0);
  EG_REQUIRE(d.rc == EG_OK);
  EG_CHECK(d.duplicate);
  /* a session of three rounds, then one: chunk 0 tells the count, as metadata */
  static const char *const three[] = {
      "user", "I moved to Lisbon in May.", "assistant", "Nice!",
      "user", "I work at a bakery there.", "assistant", "Sounds fun.",
      "user", "My sister visits in June.", "assistant", "Enjoy it.",
  };
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(ic_session(ing, "rcpt", "u1", "legacy-s", T("2024-06-01T10:00:00Z"), three, 6, false,
                        &r, &e) == EG_OK);
  EG_CHECK_INT(r->report->chunks, 3);
  uint64_t old_last = last_id(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_REQUIRE(ic_session(ing, "rcpt", "u1", "legacy-s", T("2024-06-01T10:00:00Z"), three, 2, false,
                        &r, &e) == EG_OK);
  uint64_t chunk0 = last_id(r); /* one round: chunk 0 is its last */
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* back to three, then chunk 0 made legacy (count 3), then one round again */
  EG_REQUIRE(ic_session(ing, "rcpt", "u1", "legacy-s", T("2024-06-01T10:00:00Z"), three, 6, false,
                        NULL, &e) == EG_OK);
  make_legacy("rcpt", chunk0, false);
  Engram__V1__GetChunksResponse *g;
  EG_CHECK(chunk_at("rcpt", old_last, &g) != NULL);
  free_chunks(g);
  EG_REQUIRE(ic_session(ing, "rcpt", "u1", "legacy-s", T("2024-06-01T10:00:00Z"), three, 2, false,
                        &r, &e) == EG_OK);
  EG_CHECK(!r->report->duplicate);
  EG_CHECK_INT(r->report->chunks, 1);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK(chunk_at("rcpt", old_last, &g) == NULL); /* the tail the legacy count named */
  free_chunks(g);
  const Engram__V1__Chunk *c = chunk_at("rcpt", chunk0, &g);
  EG_CHECK(c && c->receipt && c->receipt->segments == 1); /* rewritten with the field */
  free_chunks(g);
}

/* The LLM's stand-in: the first time it is asked, vectord dies (after ingestd read the
 * receipt, before it commits and upserts); it answers 400, so the rules enrich. */
static atomic_int asked;
static eg_stub_reply model(void *ctx, const char *url, const char *auth, const char *body) {
  (void)ctx, (void)url, (void)auth, (void)body;
  if (atomic_fetch_add(&asked, 1) == 0)
    EG_CHECK_INT(eg_harness_stop(&cl.d[EG_VECTORD], SIGKILL), 128 + SIGKILL);
  return (eg_stub_reply){400, strdup("{\"error\":{\"message\":\"no\"}}"), 0, NULL};
}

static eg_code llm_session(eg_rpc_client *c, const char *const *msgs, size_t n,
                           Engram__V1__IngestResponse **r, eg_err *e) {
  return ic_session_with(c, "rcpt-crash", "u1", "crash", T("2024-07-01T09:00:00Z"), msgs, n,
                         ENGRAM__V1__ENRICHER__ENRICHER_LLM, false, r, e);
}

/* vectord dies between the graph commit and the chunk upsert: the ingest fails with the
 * facts committed and no chunk; the retry writes the chunks once, the next is a duplicate. */
static void test_retry_after_crash_between_commit_and_upsert(void) {
  eg_stub *st = eg_stub_start(model, NULL);
  EG_REQUIRE(st != NULL);
  char llm[80];
  snprintf(llm, sizeof llm, "--llm-url=http://127.0.0.1:%d/v1", eg_stub_port(st));
  const char *extra[] = {llm, "--peer-timeout-ms=2000", NULL};
  eg_proc p;
  eg_rpc_client *c = ic_second_ingestd(&cl, "llm", extra, &p);
  EG_REQUIRE(c != NULL);
  eg_err e;
  static const char *const msgs[] = {"user", "I live in Porto, near the river."};
  Engram__V1__IngestResponse *r = NULL;
  EG_CHECK(llm_session(c, msgs, 1, &r, &e) != EG_OK);
  EG_CHECK(strstr(e.msg, "vectord") != NULL);
  EG_CHECK_INT(atomic_load(&asked), 1);
  EG_CHECK_STR(gc_value(gra, "rcpt-crash", "user:u1", "LIVES_IN", 0, 0), "Porto"); /* committed */
  EG_REQUIRE(eg_harness_restart(&cl.d[EG_VECTORD], NULL, &e) == EG_OK);
  /* the retry: not a duplicate, the chunk written with its receipt */
  EG_REQUIRE(llm_session(c, msgs, 1, &r, &e) == EG_OK);
  EG_CHECK(!r->report->duplicate);
  EG_CHECK_INT(r->report->chunks, 1);
  uint64_t id = last_id(r);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  Engram__V1__GetChunksResponse *g;
  const Engram__V1__Chunk *ch = chunk_at("rcpt-crash", id, &g);
  EG_CHECK(ch && !ch->staged && ch->receipt && ch->receipt->segments == 1 &&
           strlen(ch->receipt->content_hash) == 16);
  free_chunks(g);
  /* and again: a duplicate, nothing written; the fact is there once */
  EG_REQUIRE(llm_session(c, msgs, 1, &r, &e) == EG_OK);
  EG_CHECK(r->report->duplicate);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_STR(gc_value(gra, "rcpt-crash", "user:u1", "LIVES_IN", 0, 0), "Porto");
  eg_rpc_client_close(c);
  EG_CHECK_INT(eg_harness_stop(&p, SIGTERM), 0);
  eg_stub_stop(st);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  EG_RUN(test_receipt_is_a_field);
  EG_RUN(test_client_metadata_is_not_a_receipt);
  EG_RUN(test_legacy_store);
  EG_RUN(test_retry_after_crash_between_commit_and_upsert);
  int rc = eg_test_finish();
  eg_rpc_client_close(ing);
  eg_rpc_client_close(vec);
  eg_rpc_client_close(gra);
  eg_cluster_stop(&cl, rc != 0);
  eg_rpc_global_shutdown();
  return rc;
}
