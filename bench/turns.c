/*
 * turns.c — the shared corpus and measures of the in-process vectord benchmarks.
 */
#include "bench/turns.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lme.h"
#include "lang/embed.h"
#include "tests/testlib.h"

void eg_breport(const char *what, int64_t *lat, size_t n) {
  eg_sort_i64(lat, n);
  printf("%-56s p50 %7.1f us  p99 %7.1f us\n", what, (double)lat[n / 2], (double)lat[n * 99 / 100]);
}

long eg_brss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) kb = atol(line + 6);
  if (f) fclose(f);
  return kb;
}

typedef struct texts {
  char **out;
  size_t max, n;
} texts;

static bool take_turns(const cJSON *rec, void *ctx) {
  texts *t = ctx;
  cJSON *sessions = cJSON_GetObjectItem(rec, "haystack_sessions");
  for (cJSON *s = sessions ? sessions->child : NULL; s && t->n < t->max; s = s->next)
    for (cJSON *turn = s->child; turn && t->n < t->max; turn = turn->next) {
      cJSON *c = cJSON_GetObjectItem(turn, "content");
      if (cJSON_IsString(c) && strlen(c->valuestring) > 10 && strlen(c->valuestring) < 8000)
        t->out[t->n++] = strdup(c->valuestring);
    }
  return t->n < t->max;
}

char **eg_bturns_load(const char *path, size_t max, size_t *n) {
  texts t = {calloc(max, sizeof(char *)), max, 0};
  if (!t.out || eg_lme_each(path, take_turns, &t) < 0) return NULL;
  *n = t.n;
  return t.out;
}

void eg_bcorpus_load(const char *path, size_t max, size_t min, size_t nq, eg_bcorpus *c) {
  size_t n = 0;
  memset(c, 0, sizeof *c);
  c->texts = eg_bturns_load(path, max, &n);
  if (!c->texts || n < min + nq) fprintf(stderr, "too few turns in %s\n", path), exit(1);
  c->n = n - nq; /* the last nq are the held-out queries */
  eg_embedder *emb;
  eg_err e;
  if (eg_embedder_open("glove:" EG_SOURCE_DIR "/var/models/glove-100d.bin", &emb, &e))
    fprintf(stderr, "%s\n", e.msg), exit(1);
  c->dim = emb->dim;
  c->queries = malloc(n * sizeof *c->queries);
  for (size_t i = 0; i < n; i++) {
    const char *p = c->texts[i];
    for (int w = 0; *p && w < 12; w++) {
      while (*p == ' ') p++;
      while (*p && *p != ' ') p++;
    }
    c->queries[i] = strndup(c->texts[i], (size_t)(p - c->texts[i]));
  }
  c->vecs = malloc(n * (size_t)c->dim * sizeof(float));
  for (size_t i = 0; i < n; i += 256)
    eg_embed(emb, (const char *const *)c->texts + i, n - i < 256 ? n - i : 256,
             c->vecs + i * c->dim, &e);
  eg_embedder_close(emb);
}
