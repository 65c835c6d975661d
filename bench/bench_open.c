/*
 * bench_open.c — what opening the state extractor costs (ingestd and recalld do it at start,
 * and every test that reads states): the prototypes file read, its WordNet closures walked,
 * its prototypes embedded by USE-lite; and the same without an embedder, as for the lexical
 * reading alone. Median ms over `reps` opens of each, one thread.
 *
 *   build/bench_open [reps=5] [model=var/models/use-lite.bin]
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/time.h"
#include "lang/embed.h"
#include "lang/statefacts.h"

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Median ms of reps opens and closes with embedder e (NULL: the lexical reading alone). */
static double time_open(eg_embedder *e, int reps) {
  int64_t *t = malloc((size_t)reps * sizeof *t);
  if (!t) exit(1);
  eg_statefacts_opts o = {EG_SOURCE_DIR "/lang/state_prototypes.txt", e, NULL, 0, -1};
  for (int r = 0; r < reps; r++) {
    eg_statefacts *sf;
    eg_err err;
    int64_t t0 = eg_time_mono_us();
    if (eg_statefacts_open(&o, &sf, &err)) {
      fprintf(stderr, "statefacts: %s\n", err.msg);
      exit(1);
    }
    t[r] = eg_time_mono_us() - t0;
    eg_statefacts_close(sf);
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_i64);
  double med = (double)t[reps / 2] / 1000.0;
  free(t);
  return med;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  if (reps < 1) reps = 1;
  char spec[4096];
  snprintf(spec, sizeof spec, "use:%s",
           argc > 2 ? argv[2] : EG_SOURCE_DIR "/var/models/use-lite.bin");
  eg_embedder *e;
  eg_err err;
  int64_t t0 = eg_time_mono_us();
  if (eg_embedder_open(spec, &e, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  double model = (double)(eg_time_mono_us() - t0) / 1000.0;
  printf("use-lite open: %.0f ms\n", model);
  printf("statefacts open, lexical reading only: %.0f ms (median of %d)\n", time_open(NULL, reps),
         reps);
  printf("statefacts open, prototypes embedded: %.0f ms (median of %d)\n", time_open(e, reps),
         reps);
  eg_embedder_close(e);
  return 0;
}
