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

#include "bench/haystack.h"
#include "common/log.h"

int main(int argc, char **argv) {
  long questions = argc > 1 ? atol(argv[1]) : 10;
  const char *embedder = argc > 2 ? argv[2] : "glove";
  int parallel = argc > 3 ? atoi(argv[3]) : 4;
  const char *data = argc > 4 ? argv[4] : EG_LME_DEFAULT;
  eg_log_init("bench", EG_LOG_WARN);
  eg_haystack h;
  if (eg_haystack_load(data, questions, embedder, parallel, 0, &h)) return 1;
  const eg_bulk_stats st = h.ingest;
  printf(
      "ingest benchmark: %ld LongMemEval-S questions, %ld sessions, %zu words; embedder %s; %d in "
      "flight\n",
      h.written.questions, h.written.sessions, h.written.words, embedder, parallel);
  printf("%-44s %llu sessions, %llu chunks, %llu entities, %llu facts\n", "written",
         (unsigned long long)st.ok, (unsigned long long)st.chunks, (unsigned long long)st.entities,
         (unsigned long long)st.facts);
  printf("%-44s %llu tokens in %.1f s\n", "ingested (words of the messages)",
         (unsigned long long)st.tokens, st.seconds);
  printf("%-44s %.0f tokens/min\n", "throughput, end to end", (double)st.tokens / st.seconds * 60);
  int64_t total = 0;
  for (size_t i = 0; i < st.n_stages; i++) total += st.stages[i].micros;
  for (size_t i = 0; i < st.n_stages; i++)
    printf("  stage %-14s %8.2f ms per session  %5.1f%%\n", st.stages[i].name,
           (double)st.stages[i].micros / 1000.0 / (double)st.ok,
           100.0 * (double)st.stages[i].micros / (double)total);
  eg_cluster_stop(&h.cl, false);
  return 0;
}
