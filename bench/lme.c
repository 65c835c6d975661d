/*
 * lme.c — the LongMemEval reader of the benchmarks (see lme.h).
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bench/lme.h"

long eg_lme_each(const char *path, bool (*fn)(const cJSON *record, void *ctx), void *ctx) {
  gzFile gz = gzopen(path, "rb");
  if (!gz) return -1;
  size_t cap = 1 << 24;
  char *line = malloc(cap);
  long n = 0;
  bool more = true;
  while (more && line && gzgets(gz, line, (int)cap)) {
    size_t l = strlen(line);
    while (l == cap - 1 && line[l - 1] != '\n') { /* a long line: grow and read on */
      char *g = realloc(line, cap * 2);
      if (!g) break;
      line = g;
      if (!gzgets(gz, line + l, (int)(cap + 1))) break;
      cap *= 2;
      l = strlen(line);
    }
    cJSON *j = cJSON_Parse(line);
    if (j) {
      n++;
      more = fn(j, ctx);
    }
    cJSON_Delete(j);
  }
  free(line);
  gzclose(gz);
  return n;
}

size_t eg_lme_words(const char *s) {
  size_t n = 0;
  int in = 0;
  for (; *s; s++) {
    int sp = *s == ' ' || *s == '\n' || *s == '\t';
    if (!sp && !in) n++;
    in = !sp;
  }
  return n;
}
