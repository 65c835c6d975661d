/*
 * bench_ingest.c — ingest throughput end to end through the real daemons, for
 * bench/RESULTS.md: LongMemEval-S haystack sessions (read from ../shared/data) written as
 * JSONL and sent by the bulk runner of `engram ingest bulk`, sync mode, `parallel` requests
 * in flight; every daemon a separate process on loopback, data fsynced as in production.
 * Prints tokens/min and the time per ingest stage.
 *
 *   build/bench_ingest [questions=10] [embedder=glove|use-lite] [parallel=4] [data=…]
 *
 * Each question's haystack is one user (scope.user = question id), so a session that
 * appears in several haystacks is ingested once per user, as a real deployment would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/lme.h"
#include "cli/bulk.h"
#include "common/log.h"
#include "tests/harness.h"
#include "tests/testlib.h"

int main(int argc, char **argv) {
  long questions = argc > 1 ? atol(argv[1]) : 10;
  const char *embedder = argc > 2 ? argv[2] : "glove";
  int parallel = argc > 3 ? atoi(argv[3]) : 4;
  const char *data = argc > 4 ? argv[4] : EG_LME_DEFAULT;
  eg_log_init("bench", EG_LOG_WARN);
  char *dir = eg_test_tempdir("bench-ingest");
  char path[4200];
  snprintf(path, sizeof path, "%s/sessions.jsonl", dir);
  eg_lme_sessions w;
  if (eg_lme_write_sessions(data, questions, path, &w)) {
    fprintf(stderr, "cannot read %s or write %s\n", data, path);
    return 1;
  }
  setenv("ENGRAM_EMBEDDER", embedder, 1);
  eg_cluster cl;
  eg_err e;
  if (eg_cluster_start(&cl, NULL, &e)) {
    fprintf(stderr, "cluster: %s\n", e.msg);
    return 1;
  }
  eg_rpc_client *c = NULL;
  eg_rpc_client_opts co = {.timeout_us = 600 * 1000000LL};
  if (eg_rpc_client_open(cl.d[EG_INGESTD].addr, &co, &c, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  printf("ingest benchmark: %ld LongMemEval-S questions, %ld sessions, %zu words; embedder %s; %d in flight\n",
         w.questions, w.sessions, w.words, embedder, parallel);
  eg_bulk_opts o = {.path = path, .client = c, .tenant = "bench", .parallel = parallel, .progress = isatty(2)};
  eg_bulk_stats st;
  eg_code rc = eg_bulk_run(&o, &st, &e);
  if (rc || st.failed) {
    fprintf(stderr, "bulk: %s, %llu failed\n", rc ? e.msg : "ok", (unsigned long long)st.failed);
    eg_cluster_stop(&cl, true);
    return 1;
  }
  printf("%-44s %llu sessions, %llu chunks, %llu entities, %llu facts\n", "written", (unsigned long long)st.ok,
         (unsigned long long)st.chunks, (unsigned long long)st.entities, (unsigned long long)st.facts);
  printf("%-44s %llu tokens in %.1f s\n", "ingested (words of the messages)", (unsigned long long)st.tokens,
         st.seconds);
  printf("%-44s %.0f tokens/min\n", "throughput, end to end", (double)st.tokens / st.seconds * 60);
  int64_t total = 0;
  for (size_t i = 0; i < st.n_stages; i++) total += st.stages[i].micros;
  for (size_t i = 0; i < st.n_stages; i++)
    printf("  stage %-14s %8.2f ms per session  %5.1f%%\n", st.stages[i].name,
           (double)st.stages[i].micros / 1000.0 / (double)st.ok, 100.0 * (double)st.stages[i].micros / (double)total);
  eg_rpc_client_close(c);
  eg_cluster_stop(&cl, false);
  return 0;
}
