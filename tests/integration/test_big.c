/*
 * test_big.c — whole or nothing for big inputs: a 1 MB document ingests completely (sync,
 * and async with its progress visible in GetJob); a document whose ingest fails mid-way
 * (vectord killed and kept down, or a later batch refused) leaves none of its chunks
 * searchable, also after vectord restarts, and a retry stores it whole; a session with a
 * 16 KB and a 63 KB message is stored in parts, all of them searchable.
 *
 * Texts carry unique marker words ("bigq…z") spread through them; a marker found in a
 * search hit is a chunk of that stretch of text being visible.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/rpc.h"
#include "common/time.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

enum { MARKERS = 24 };
/* What is tested is the write path, not the model: the fastest embedder keeps a megabyte
 * within seconds (use-lite's figures are in bench/RESULTS.md). */
#define EMBEDDER "--embedder=glove"
static const char *const vectord_flags[] = {EMBEDDER, NULL};

static eg_cluster cl;
static eg_rpc_client *ing, *vec;

static void marker(char tag, int i, char *out, size_t n) {
  snprintf(out, n, "bigq%c%c%cz", tag, 'a' + i / 10 % 26, 'a' + i % 10);
}

/* About `bytes` of sentences; marker k of tag sits in sentence k·(sentences/MARKERS). */
static char *document_text(char tag, size_t bytes) {
  eg_buf b = EG_BUF_INIT;
  size_t sentences = bytes / 90, every = sentences / MARKERS;
  for (size_t s = 0; s < sentences; s++) {
    char m[16] = "";
    if (s % every == 0 && s / every < MARKERS) marker(tag, (int)(s / every), m, sizeof m);
    eg_buf_printf(
        &b,
        "Line %zu of the operations manual %s says the pump in hall %zu is checked every week. ", s,
        m, s % 97);
  }
  eg_buf_append(&b, "", 1);
  return b.data;
}

/* How many chunks hold marker i of tag (0 when none is visible). */
static int visible(const char *tenant, char tag, int i) {
  char m[16];
  marker(tag, i, m, sizeof m);
  Engram__V1__SearchResponse *r = NULL;
  eg_err e;
  int n = 0;
  if (ic_search(vec, tenant, NULL, m, 5, &r, &e) != EG_OK) return -1;
  for (size_t k = 0; k < r->results[0]->n_hits; k++)
    n += strstr(r->results[0]->hits[k]->chunk->content, m) != NULL;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return n;
}

static int markers_visible(const char *tenant, char tag) {
  int n = 0;
  for (int i = 0; i < MARKERS; i++) n += visible(tenant, tag, i) > 0;
  return n;
}

static eg_code document(const char *tenant, const char *id, const char *text, bool async,
                        Engram__V1__IngestResponse **resp, eg_err *e) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  Engram__V1__IngestDocumentRequest d = ENGRAM__V1__INGEST_DOCUMENT_REQUEST__INIT;
  d.scope = &scope;
  d.document_id = (char *)id;
  d.title = "Operations manual";
  d.time = T("2024-01-01");
  d.text = (char *)text;
  d.mode = async ? ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC
                 : ENGRAM__V1__INGEST_MODE__INGEST_MODE_SYNC;
  return eg_ingestd_ingest_document(ing, &d, resp, e);
}

/* Restart vectord (same port) and wait until ingestd reaches it again: its channel may be
 * in reconnect backoff for a while, and a client would retry meanwhile. */
static void restart_vectord(const char *const *flags) {
  eg_err e;
  EG_REQUIRE(eg_harness_restart(&cl.d[EG_VECTORD], flags, &e) == EG_OK);
  for (int i = 0;
       i < 200 && document("warm", "warm", "The pump is fine.", false, NULL, &e) != EG_OK; i++)
    usleep(50000);
}

static void test_start(void) {
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  EG_REQUIRE(eg_harness_restart(&cl.d[EG_VECTORD], vectord_flags, &e) == EG_OK);
  eg_rpc_client_opts o = {.timeout_us = 120 * EG_US_PER_SEC,
                          .max_attempts = 1}; /* a generous client */
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, &o, &ing, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_VECTORD].addr, NULL, &vec, &e) == EG_OK);
}

static void test_megabyte_sync(void) {
  char *text = document_text('a', 1 << 20);
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  int64_t t0 = eg_time_mono_us();
  EG_REQUIRE(document("big", "manual-a", text, false, &r, &e) == EG_OK);
  fprintf(stderr, "  1 MB document, sync: %u chunks in %.1f s\n", r->report->chunks,
          (double)(eg_time_mono_us() - t0) / 1e6);
  for (size_t i = 0; i < r->report->n_stages; i++)
    fprintf(stderr, "    %s %.2f s\n", r->report->stages[i]->stage,
            (double)r->report->stages[i]->micros / 1e6);
  EG_CHECK(r->report->chunks > 1000);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK_INT(markers_visible("big", 'a'), MARKERS);
  free(text);
}

static void test_megabyte_async_progress(void) {
  char *text = document_text('b', 1 << 20);
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(document("big", "manual-b", text, true, &r, &e) == EG_OK);
  char id[48];
  snprintf(id, sizeof id, "%s", r->job_id);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  bool partway = false;
  Engram__V1__Job *j = NULL;
  int64_t until = eg_time_mono_us() + 90 * EG_US_PER_SEC;
  while (eg_time_mono_us() < until) {
    if (j) protobuf_c_message_free_unpacked(&j->base, NULL);
    j = ic_get_job(ing, "big", NULL, id, NULL);
    EG_REQUIRE(j != NULL);
    if (j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_RUNNING && j->chunks_done > 0 &&
        j->chunks_done < j->chunks_total) {
      if (!partway) { /* part of it stored, none of it visible yet */
        EG_CHECK_INT(markers_visible("big", 'b'), 0);
        fprintf(stderr, "  async: %u of %u chunks stored, none searchable yet\n", j->chunks_done,
                j->chunks_total);
      }
      partway = true;
    }
    if (j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_DONE ||
        j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED)
      break;
    usleep(50000);
  }
  EG_CHECK(partway);
  EG_CHECK_INT(j->state, ENGRAM__V1__JOB_STATE__JOB_STATE_DONE);
  EG_CHECK(j->report && j->chunks_total == j->report->chunks && j->chunks_done == j->chunks_total);
  protobuf_c_message_free_unpacked(&j->base, NULL);
  EG_CHECK_INT(markers_visible("big", 'b'), MARKERS);
  free(text);
}

/* vectord dies mid-way and stays down past ingestd's retries: the job fails, and what it
 * had staged stays invisible — also after vectord restarts. A retry then stores it whole. */
static void test_failure_leaves_nothing(void) {
  char *text = document_text('c', 1 << 19);
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(document("big", "manual-c", text, true, &r, &e) == EG_OK);
  char id[48];
  snprintf(id, sizeof id, "%s", r->job_id);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  Engram__V1__Job *j = NULL;
  for (int i = 0; i < 2000; i++) {
    if (j) protobuf_c_message_free_unpacked(&j->base, NULL);
    j = ic_get_job(ing, "big", NULL, id, NULL);
    if (!j || (j->chunks_done > 0 && j->chunks_done * 2 < j->chunks_total)) break;
    usleep(5000);
  }
  EG_REQUIRE(j && j->chunks_done > 0);
  protobuf_c_message_free_unpacked(&j->base, NULL);
  EG_CHECK_INT(eg_harness_stop(&cl.d[EG_VECTORD], SIGKILL), 128 + SIGKILL);
  for (int i = 0; i < 400; i++) { /* ingestd gives up on vectord */
    j = ic_get_job(ing, "big", NULL, id, NULL);
    bool failed = j && j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED;
    if (j) protobuf_c_message_free_unpacked(&j->base, NULL);
    if (failed) break;
    usleep(50000);
  }
  restart_vectord(vectord_flags);
  j = ic_get_job(ing, "big", NULL, id, NULL);
  EG_REQUIRE(j != NULL);
  EG_CHECK_INT(j->state, ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED);
  EG_CHECK(j->error && strstr(j->error, "vectord") != NULL);
  protobuf_c_message_free_unpacked(&j->base, NULL);
  EG_CHECK_INT(markers_visible("big", 'c'),
               0); /* the staged part survived the restart, invisible */
  EG_REQUIRE(document("big", "manual-c", text, false, NULL, &e) == EG_OK);
  EG_CHECK_INT(markers_visible("big", 'c'), MARKERS);
  free(text);
}

/* A later batch refused (a passage longer than vectord takes, after 512 KB of sentences):
 * the batches staged before it are deleted, nothing is visible. */
static void test_refused_batch_leaves_nothing(void) {
  eg_err e;
  const char *small[] = {EMBEDDER, "--max-text-bytes=4096", NULL};
  restart_vectord(small);
  char *head = document_text('d', 1 << 19); /* more chunks than one batch, even of 500 */
  eg_buf b = EG_BUF_INIT;
  eg_buf_printf(&b, "%s", head);
  for (int i = 0; i < 800; i++) eg_buf_printf(&b, "word%d ", i); /* ~7 KB without a sentence end */
  eg_buf_append(&b, ". The end.", 11);
  EG_CHECK_INT(document("big", "manual-d", b.data, false, NULL, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "vectord") != NULL);
  EG_CHECK_INT(markers_visible("big", 'd'), 0);
  eg_buf_free(&b);
  free(head);
  restart_vectord(vectord_flags);
}

/* A pasted log: one 16 KB and one 63 KB message (just under ingestd's 64 KiB per
 * message), stored in parts, all searchable. */
static void test_long_messages(void) {
  eg_buf m16 = EG_BUF_INIT, m60 = EG_BUF_INIT;
  char mk[16];
  /* one 16 KB sentence (no punctuation) stating a fact: its utterance is longer than the
   * strings graphd stores */
  eg_buf_printf(&m16, "I live in Lisbon and this is what the machine room sounds like ");
  for (int i = 0; m16.len < 16 * 1024 + 100; i++) {
    marker('e', i / 40, mk, sizeof mk);
    eg_buf_printf(&m16, "%s the pump hums and the fan spins and the disk clicks again and again ",
                  i % 40 ? "" : mk);
  }
  for (int i = 0; m60.len < 65000; i++) { /* just under the 64 KiB message limit */
    marker('f', i / 100, mk, sizeof mk);
    eg_buf_printf(&m60, "%s ts=%d level=debug msg=cache probe key=item:%d hit=false ",
                  i % 100 ? "" : mk, i, i * 7);
  }
  eg_buf_append(&m16, "", 1);
  eg_buf_append(&m60, "", 1);
  int n16 = 0, n60 = 0;
  for (int i = 0; i < 40; i++) {
    marker('e', i, mk, sizeof mk);
    n16 += strstr(m16.data, mk) != NULL;
    marker('f', i, mk, sizeof mk);
    n60 += strstr(m60.data, mk) != NULL;
  }
  const char *msgs[] = {"user", m16.data, "assistant", "Thanks, looking at it.", "user", m60.data};
  Engram__V1__IngestResponse *r = NULL;
  eg_err e;
  EG_REQUIRE(ic_session(ing, "big", "u1", "log-session", T("2024-05-01"), msgs, 3, false, &r, &e) ==
             EG_OK);
  EG_CHECK(r->report->chunks >= 2 + 6); /* the first round in 2 parts, the 63 KB message in 6 */
  protobuf_c_message_free_unpacked(&r->base, NULL);
  int f16 = 0, f60 = 0;
  for (int i = 0; i < n16; i++) f16 += visible("big", 'e', i) == 1;
  for (int i = 0; i < n60; i++) f60 += visible("big", 'f', i) == 1;
  EG_CHECK_INT(f16, n16);
  EG_CHECK_INT(f60, n60);
  eg_rpc_client *gra = NULL;
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
  EG_CHECK_STR(gc_value(gra, "big", "user:u1", "LIVES_IN", 0, 0), "Lisbon");
  eg_rpc_client_close(gra);
  eg_buf_free(&m16);
  eg_buf_free(&m60);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_start);
  if (!eg_test_failed()) {
    EG_RUN(test_long_messages);
    EG_RUN(test_megabyte_sync);
    EG_RUN(test_megabyte_async_progress);
    EG_RUN(test_failure_leaves_nothing);
    EG_RUN(test_refused_batch_leaves_nothing);
  }
  eg_rpc_client_close(ing);
  eg_rpc_client_close(vec);
  eg_cluster_stop(&cl, eg_test_failed());
  eg_rpc_global_shutdown();
  return eg_test_finish();
}
