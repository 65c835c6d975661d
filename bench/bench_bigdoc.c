/*
 * bench_bigdoc.c — the largest document ingestd takes, end to end through the real
 * daemons, for bench/RESULTS.md: one generated document of `kib` KiB (default: the
 * 4 MiB request limit less 64 KiB of headroom for the rest of the message), sent sync with
 * a client deadline of 30 minutes; prints chunks, time and the time per ingest stage, and
 * checks that its first and last sentences are searchable.
 *
 *   build/bench_bigdoc [kib=4032] [embedder=use-lite|glove]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/rpc.h"
#include "common/time.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"

/* Sentences of an operations manual, each with its own number; "bigdocfirstz" and
 * "bigdoclastz" mark the ends. */
static char *document_text(size_t bytes) {
  eg_buf b = EG_BUF_INIT;
  eg_buf_printf(&b, "The manual begins with bigdocfirstz. ");
  for (size_t s = 0; b.len + 200 < bytes; s++)
    eg_buf_printf(&b,
                  "Line %zu of the operations manual says the pump in hall %zu is checked every "
                  "week by the %s shift. ",
                  s, s % 97, s % 3 ? "day" : "night");
  eg_buf_printf(&b, "The manual ends with bigdoclastz.");
  eg_buf_append(&b, "", 1);
  return b.data;
}

static int found(eg_rpc_client *vec, const char *word) {
  Engram__V1__SearchResponse *r = NULL;
  eg_err e;
  int n = 0;
  if (ic_search(vec, "bench", NULL, word, 3, &r, &e) != EG_OK) return -1;
  for (size_t k = 0; k < r->results[0]->n_hits; k++)
    n += strstr(r->results[0]->hits[k]->chunk->content, word) != NULL;
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return n;
}

int main(int argc, char **argv) {
  long kib = argc > 1 ? atol(argv[1]) : 4032;
  const char *embedder = argc > 2 ? argv[2] : "use-lite";
  eg_log_init("bench", EG_LOG_WARN);
  eg_rpc_global_init();
  char flag[64];
  snprintf(flag, sizeof flag, "--embedder=%s", embedder);
  const char *vflags[] = {flag, NULL};
  eg_cluster cl;
  eg_err e;
  int status = 1;
  eg_rpc_client *ing = NULL, *vec = NULL;
  if (eg_cluster_start(&cl, NULL, &e) || eg_harness_restart(&cl.d[EG_VECTORD], vflags, &e)) {
    fprintf(stderr, "cluster: %s\n", e.msg);
    goto cleanup;
  }
  eg_rpc_client_opts o = {.timeout_us = 1800 * EG_US_PER_SEC, .max_attempts = 1};
  if (eg_rpc_client_open(cl.d[EG_INGESTD].addr, &o, &ing, &e) ||
      eg_rpc_client_open(cl.d[EG_VECTORD].addr, NULL, &vec, &e))
    goto cleanup;
  char *text = document_text((size_t)kib * 1024);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "bench";
  Engram__V1__IngestDocumentRequest d = ENGRAM__V1__INGEST_DOCUMENT_REQUEST__INIT;
  d.scope = &scope;
  d.document_id = "manual";
  d.title = "Operations manual";
  d.text = text;
  Engram__V1__IngestResponse *resp = NULL;
  int64_t t0 = eg_time_mono_us();
  eg_code rc = eg_ingestd_ingest_document(ing, &d, &resp, &e);
  double secs = (double)(eg_time_mono_us() - t0) / 1e6;
  if (rc) {
    printf("document of %zu bytes: %s after %.1f s: %s\n", strlen(text), eg_code_name(rc), secs,
           e.msg);
    free(text);
    goto cleanup;
  }
  Engram__V1__IngestReport *r = resp->report;
  printf(
      "document of %zu bytes (%llu words), embedder %s: %u chunks, %u facts in %.1f s (%.0f "
      "chunks/s)\n",
      strlen(text), (unsigned long long)r->tokens, embedder, r->chunks, r->facts, secs,
      r->chunks / secs);
  for (size_t i = 0; i < r->n_stages; i++)
    printf("  stage %-14s %8.2f s\n", r->stages[i]->stage, (double)r->stages[i]->micros / 1e6);
  int first = found(vec, "bigdocfirstz"), last = found(vec, "bigdoclastz");
  printf("first sentence found: %d, last sentence found: %d\n", first, last);
  status = first > 0 && last > 0 ? 0 : 1;
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  free(text);
cleanup:
  eg_rpc_client_close(ing);
  eg_rpc_client_close(vec);
  eg_cluster_stop(&cl, status != 0);
  eg_rpc_global_shutdown();
  return status;
}
