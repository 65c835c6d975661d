/*
 * bench_embed.c — the USE-lite forward pass on the two batch shapes vectord sees:
 *   query   3 short questions (a Recall's variants, one eg_embed call per Search)
 *   ingest  256 passages of about 60 words (a chunk batch at ingest)
 * Median µs per batch and per text over `reps` repetitions (ingest: reps / 20, at least 5),
 * on whatever threads OpenBLAS is given (vectord runs one per call: OPENBLAS_NUM_THREADS=1).
 *
 *   build/bench_embed [reps=200] [shapes=query,ingest] [model=var/models/use-lite.bin]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/time.h"
#include "lang/embed.h"

static const char *const questions[] = {
    "What did I say about my sister's wedding plans last month?",
    "Which restaurant did we pick for the team dinner in Lisbon?",
    "How many hours did I spend on the garden project?",
};

/* Passages of about 60 words, made from a few fixed sentences in rotation. */
static const char *const sentences[] = {
    "We moved the weekly planning meeting to Thursday morning because two people are away.",
    "The new espresso machine in the kitchen finally works after the plumber fixed the pipe.",
    "My sister wants a small wedding by the lake with only close family and old friends.",
    "I ran ten kilometres on Sunday and my knee did not hurt at all this time.",
    "The quarterly report is late since the finance team is still waiting for the numbers.",
    "We booked a table at the seafood place near the river for Friday at eight.",
    "Remember to water the tomatoes twice a day while the heat wave lasts.",
};

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Median µs of reps calls of eg_embed on texts[0..n). */
static int64_t time_batch(eg_embedder *e, const char *const *texts, size_t n, int reps,
                          float *out) {
  int64_t *t = malloc((size_t)reps * sizeof *t);
  eg_err err;
  for (int r = 0; r < reps; r++) {
    int64_t t0 = eg_time_mono_us();
    if (eg_embed(e, texts, n, out, &err)) {
      fprintf(stderr, "embed: %s\n", err.msg);
      exit(1);
    }
    t[r] = eg_time_mono_us() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_i64);
  int64_t med = t[reps / 2];
  free(t);
  return med;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 200;
  char spec[4096];
  snprintf(spec, sizeof spec, "use:%s",
           argc > 3 ? argv[3] : EG_SOURCE_DIR "/var/models/use-lite.bin");
  const char *shapes = argc > 2 ? argv[2] : "query,ingest";
  if (reps < 1) reps = 1;
  eg_embedder *e;
  eg_err err;
  if (eg_embedder_open(spec, &e, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  enum { N_PASSAGES = 256, WORDS = 60 };
  char *passages[N_PASSAGES];
  size_t ns = sizeof sentences / sizeof *sentences;
  for (int i = 0; i < N_PASSAGES; i++) {
    char buf[2048] = "";
    size_t words = 0;
    for (size_t s = (size_t)i; words < WORDS; s++) {
      const char *sent = sentences[s % ns];
      strcat(buf, *buf ? " " : "");
      strcat(buf, sent);
      for (const char *c = sent; *c; c++) words += *c == ' ';
      words++;
    }
    passages[i] = strdup(buf);
  }
  float *out = malloc((size_t)N_PASSAGES * (size_t)e->dim * sizeof *out);
  size_t nq = sizeof questions / sizeof *questions;
  time_batch(e, questions, nq, 10, out); /* warm: page in the model, grow the heap */
  printf("model %s\n", e->model_id);
  if (strstr(shapes, "query")) {
    int64_t q = time_batch(e, questions, nq, reps, out);
    printf("query   %3zu questions     %8lld us/batch %8.1f us/text (median of %d)\n", nq,
           (long long)q, (double)q / (double)nq, reps);
  }
  if (strstr(shapes, "ingest")) {
    int ingest_reps = reps / 20 < 5 ? 5 : reps / 20;
    int64_t p = time_batch(e, (const char *const *)passages, N_PASSAGES, ingest_reps, out);
    printf("ingest  %3d passages (%dw) %8lld us/batch %8.1f us/text (median of %d)\n", N_PASSAGES,
           WORDS, (long long)p, (double)p / N_PASSAGES, ingest_reps);
  }
  for (int i = 0; i < N_PASSAGES; i++) free(passages[i]);
  free(out);
  eg_embedder_close(e);
  return 0;
}
