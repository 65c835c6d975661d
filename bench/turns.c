/*
 * turns.c — the shared corpus and measures of the in-process vectord benchmarks.
 */
#include "bench/turns.h"

#include <cjson/cJSON.h>
#include <math.h>
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

double eg_brand(void) {
  static unsigned long long rng = 88172645463325252ULL;
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

void eg_bcorpus_store(eg_vec *v, const eg_bcorpus *c, const char *tenant, const char *user,
                      size_t first, size_t n) {
  eg_arena *a = eg_arena_new(1 << 20, 0);
  Engram__V1__Chunk *cs = eg_arena_calloc(a, n, sizeof *cs),
                    **ps = eg_arena_alloc(a, n * sizeof *ps);
  float *buf = eg_arena_alloc(a, n * (size_t)c->dim * sizeof *buf);
  if (!cs || !ps || !buf) fprintf(stderr, "out of memory\n"), exit(1);
  for (size_t i = 0; i < n; i++) {
    size_t id = first + i, src = id % c->n;
    float *x = buf + i * c->dim;
    for (int d = 0; d < c->dim; d++)
      x[d] = c->vecs[src * c->dim + d] + 0.15f * (float)(eg_brand() - 0.5) / sqrtf((float)c->dim);
    eg_l2_normalize(x, c->dim);
    engram__v1__chunk__init(&cs[i]);
    cs[i].id = id + 1;
    cs[i].content = c->texts[src];
    cs[i].session_id = eg_arena_sprintf(a, "s%zu", id / 20);
    cs[i].role = i % 2 ? "assistant" : "user";
    cs[i].turn_index = (int32_t)(id % 20);
    cs[i].content_vector = x;
    cs[i].n_content_vector = (size_t)c->dim;
    ps[i] = &cs[i];
  }
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  scope.user = (char *)(user ? user : "");
  Engram__V1__UpsertRequest req = ENGRAM__V1__UPSERT_REQUEST__INIT;
  req.scope = &scope;
  req.chunks = ps;
  req.n_chunks = n;
  Engram__V1__UpsertResponse resp = ENGRAM__V1__UPSERT_RESPONSE__INIT;
  eg_err e;
  if (eg_vec_upsert(v, &req, a, &resp, &e)) fprintf(stderr, "upsert: %s\n", e.msg), exit(1);
  eg_arena_free(a);
}

eg_vec *eg_bvec_open(const char *dir, eg_embedder *emb, bool retention_off,
                     uint32_t hnsw_threshold) {
  static eg_embedder *glove;
  eg_err e;
  if (!emb && !glove &&
      eg_embedder_open("glove:" EG_SOURCE_DIR "/var/models/glove-100d.bin", &glove, &e))
    fprintf(stderr, "%s\n", e.msg), exit(1);
  eg_vec_opts o = {.dir = dir,
                   .embedder = emb ? emb : glove,
                   .bm25_k1 = 1.2,
                   .bm25_b = 0.75,
                   .x = 0.4f,
                   .y = 0.4f,
                   .alpha = 0.4f,
                   .hnsw_threshold = hnsw_threshold,
                   .hnsw_ef_search = 128,
                   .max_chunks = 1000,
                   .max_text_bytes = 65536,
                   .max_k = 1000,
                   .max_queries = 64,
                   .retention_off = retention_off};
  eg_vec *v;
  if (eg_vec_open(&o, NULL, &v, &e)) fprintf(stderr, "%s\n", e.msg), exit(1);
  return v;
}

size_t eg_bcorpus_search(eg_vec *v, const eg_bcorpus *c, const char *tenant, const char *user,
                         size_t q, uint64_t ids[10], int64_t *stage_us, size_t n_stages) {
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__SearchQuery sq = ENGRAM__V1__SEARCH_QUERY__INIT, *qs[1] = {&sq};
  sq.vector = c->vecs + q * c->dim;
  sq.n_vector = (size_t)c->dim;
  sq.text = c->queries[q];
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  scope.user = (char *)(user ? user : "");
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qs;
  req.n_queries = 1;
  req.k = 10;
  Engram__V1__SearchResponse resp = ENGRAM__V1__SEARCH_RESPONSE__INIT;
  eg_err e;
  size_t n = 0;
  if (eg_vec_search(v, &req, a, &resp, &e)) fprintf(stderr, "search: %s\n", e.msg), exit(1);
  for (size_t i = 0; i < resp.results[0]->n_hits && n < 10; i++)
    ids[n++] = resp.results[0]->hits[i]->chunk->id;
  for (size_t i = 0; stage_us && i < resp.n_timings && i < n_stages; i++)
    stage_us[i] += resp.timings[i]->micros;
  eg_arena_free(a);
  return n;
}
