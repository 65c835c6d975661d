/*
 * test_embed.c — the GloVe+SIF and USE-lite embedders on the real model files, and the HTTP
 * embedder against a local server speaking the OpenAI /v1/embeddings protocol (success,
 * 429 then success, timeout, malformed JSON, wrong dimension, bad key).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/buf.h"
#include "lang/embed.h"
#include "lang/embed_use_int.h"
#include "tests/stub_http.h"
#include "tests/testlib.h"

static float cosine(const float *a, const float *b, int d) {
  float s = 0;
  for (int i = 0; i < d; i++) s += a[i] * b[i];
  return s;
}

static void test_glove(void) {
  eg_embedder *e = NULL;
  eg_err err;
  EG_REQUIRE(eg_embedder_open("glove:" EG_SOURCE_DIR "/var/models/glove-100d.bin", &e, &err) ==
             EG_OK);
  EG_CHECK_INT(e->dim, 100);
  EG_CHECK_STR(e->model_id, "glove-100d-sif");
  const char *texts[] = {"the cat sat on the mat", "a kitten rested on the rug",
                         "quarterly revenue grew by ten percent", "", "zxqvw blorptang"};
  float v[5 * 100];
  EG_REQUIRE(eg_embed(e, texts, 5, v, &err) == EG_OK);
  float near = cosine(v, v + 100, 100), far = cosine(v, v + 200, 100);
  fprintf(stderr, "  cat/kitten %.3f  cat/revenue %.3f\n", near, far);
  EG_CHECK(near > far + 0.2f);
  EG_CHECK(fabsf(cosine(v, v, 100) - 1.0f) < 1e-4f); /* unit length */
  EG_CHECK(cosine(v + 300, v + 300, 100) == 0);      /* empty text: zero vector */
  EG_CHECK(cosine(v + 400, v + 400, 100) == 0);      /* unknown words only */
  const char *bad[] = {"\xff"};
  EG_CHECK_INT(eg_embed(e, bad, 1, v, &err), EG_EINVAL);
  eg_embedder_close(e);
  EG_CHECK_INT(eg_embedder_open("glove:/nonexistent.bin", &e, &err), EG_ENOTFOUND);
  EG_CHECK_INT(eg_embedder_open("word2vec:x", &e, &err), EG_EINVAL);
}

/* USE-lite against golden vectors of the reference JS (tests/golden/make_use_golden.js):
 * the same token ids, and cosine ≥ 0.999 per sentence. The bfloat16 kernel (where the CPU
 * has it) and the float path (ENGRAM_USE_FP32=1, as on other CPUs; or "use32:") both. */
static void use_golden(const char *spec) {
  eg_embedder *e = NULL;
  eg_err err;
  EG_REQUIRE(eg_embedder_open(spec, &e, &err) == EG_OK);
  EG_CHECK_INT(e->dim, 512);
  EG_CHECK_STR(e->model_id, "use-lite-512");
  FILE *f = fopen(EG_SOURCE_DIR "/tests/golden/use_lite_golden.json", "r");
  EG_REQUIRE(f != NULL);
  eg_buf b = EG_BUF_INIT;
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) eg_buf_append(&b, chunk, n);
  fclose(f);
  cJSON *g = cJSON_Parse(b.data);
  eg_buf_free(&b);
  EG_REQUIRE(cJSON_IsArray(g));
  int cases = 0;
  float v[512], all[16 * 512];
  const char *texts[16];
  for (cJSON *c = g->child; c && cases < 16; c = c->next, cases++) {
    const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
    texts[cases] = text;
    EG_REQUIRE(eg_embed(e, &text, 1, v, &err) == EG_OK);
    cJSON *gv = cJSON_GetObjectItem(c, "vector");
    float cos = 0;
    int d = 0;
    for (cJSON *x = gv->child; x && d < 512; x = x->next, d++) cos += (float)x->valuedouble * v[d];
    fprintf(stderr, "  golden %d: cosine %.6f\n", cases, cos);
    EG_CHECK(cos >= 0.999f);
  }
  EG_CHECK_INT(cases, 9);
  /* A batch gives the same vectors as one text at a time. */
  EG_REQUIRE(eg_embed(e, texts, (size_t)cases, all, &err) == EG_OK);
  for (int i = 0; i < cases; i++) {
    EG_REQUIRE(eg_embed(e, &texts[i], 1, v, &err) == EG_OK);
    float cos = 0;
    for (int d = 0; d < 512; d++) cos += v[d] * all[i * 512 + d];
    EG_CHECK(cos > 0.99999f);
  }
  const char *empty[] = {""};
  EG_REQUIRE(eg_embed(e, empty, 1, v, &err) == EG_OK);
  EG_CHECK(v[0] == 0 && v[511] == 0);
  cJSON_Delete(g);
  eg_embedder_close(e);
}

#define USE_LITE EG_SOURCE_DIR "/var/models/use-lite.bin"

static void test_use_golden(void) { use_golden("use:" USE_LITE); }

static void test_use_golden_fp32(void) {
  setenv("ENGRAM_USE_FP32", "1", 1);
  use_golden("use:" USE_LITE);
  unsetenv("ENGRAM_USE_FP32");
  use_golden("use32:" USE_LITE);
}

/* "use32:" is the float path whatever the CPU and the environment: its vectors are those of
 * ENGRAM_USE_FP32=1, to the last bit */
static void test_use32_is_float(void) {
  const char *t[] = {"We moved to Tallinn last month.", "my dog Biscuit hates the rain"};
  float a[2 * 512], b[2 * 512];
  eg_embedder *e = NULL;
  eg_err err;
  EG_REQUIRE(eg_embedder_open("use32:" USE_LITE, &e, &err) == EG_OK);
  EG_REQUIRE(eg_embed(e, t, 2, a, &err) == EG_OK);
  eg_embedder_close(e);
  setenv("ENGRAM_USE_FP32", "1", 1);
  EG_REQUIRE(eg_embedder_open("use:" USE_LITE, &e, &err) == EG_OK);
  unsetenv("ENGRAM_USE_FP32");
  EG_REQUIRE(eg_embed(e, t, 2, b, &err) == EG_OK);
  eg_embedder_close(e);
  int same = 0;
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) same += a[i] == b[i];
  EG_CHECK_INT(same, (int)(sizeof a / sizeof *a));
  if (!eg_use_bf16_supported()) return; /* "use:" is the float path here too */
  EG_REQUIRE(eg_embedder_open("use:" USE_LITE, &e, &err) == EG_OK); /* bfloat16 here */
  EG_REQUIRE(eg_embed(e, t, 2, b, &err) == EG_OK);
  eg_embedder_close(e);
  same = 0;
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) same += a[i] == b[i];
  EG_CHECK(same < (int)(sizeof a / sizeof *a)); /* so use32 did keep off it */
}

/* ---- a local OpenAI-compatible embeddings server ---- */

static atomic_int mode; /* 0 ok, 1 429 once, 2 slow, 3 malformed, 4 wrong dim, 5 needs key */
static atomic_int throttled;

static eg_stub_reply embeddings(void *ctx, const char *url, const char *auth, const char *body) {
  (void)ctx;
  eg_stub_reply r = {200, NULL, 0, NULL};
  int m = atomic_load(&mode);
  if (strcmp(url, "/v1/embeddings") != 0) return (eg_stub_reply){404, NULL, 0, NULL};
  if (m == 5 && (!auth || strcmp(auth, "Bearer secret-key") != 0))
    return (eg_stub_reply){401, NULL, 0, NULL};
  if (m == 1 && atomic_fetch_add(&throttled, 1) == 0) return (eg_stub_reply){429, NULL, 0, "0"};
  if (m == 2) r.delay_ms = 1500;
  if (m == 3) {
    r.body = strdup("{\"data\": [ {\"embedding\": [1, 2");
    return r;
  }
  /* one embedding per input: [len, index+1, 1, 0] */
  cJSON *j = cJSON_Parse(body);
  cJSON *in = cJSON_GetObjectItem(j, "input");
  eg_buf out = EG_BUF_INIT;
  eg_buf_puts(&out, "{\"object\":\"list\",\"data\":[");
  int i = 0;
  for (cJSON *x = in ? in->child : NULL; x; x = x->next, i++)
    eg_buf_printf(&out, "%s{\"object\":\"embedding\",\"index\":%d,\"embedding\":[%d,%d,1%s]}",
                  i ? "," : "", i, (int)strlen(x->valuestring), i + 1, m == 4 ? "" : ",0");
  eg_buf_puts(&out, "],\"model\":\"stub\"}");
  cJSON_Delete(j);
  r.body = eg_buf_detach(&out, NULL);
  return r;
}

static void test_http(void) {
  eg_stub *st = eg_stub_start(embeddings, NULL);
  EG_REQUIRE(st != NULL);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d", eg_stub_port(st));
  eg_embedder *e = NULL;
  eg_err err;
  EG_REQUIRE(eg_embed_http_open(url, "stub-model", 4, "secret-key", 500, &e, &err) == EG_OK);
  EG_CHECK_STR(e->model_id, "http:stub-model:4");
  /* 100 texts → two batches of at most 64; rows come back L2-normalized in order. */
  const char *texts[100];
  for (int i = 0; i < 100; i++) texts[i] = i % 2 ? "abc" : "abcdef";
  float v[400];
  atomic_store(&mode, 0);
  int before = eg_stub_requests(st);
  EG_CHECK_INT(eg_embed(e, texts, 100, v, &err), EG_OK);
  EG_CHECK_INT(eg_stub_requests(st) - before, 2);
  float n0 = sqrtf(36 + 1 + 1); /* [6, 1, 1, 0] */
  EG_CHECK(fabsf(v[0] - 6 / n0) < 1e-5f && fabsf(v[1] - 1 / n0) < 1e-5f);
  float n65 = sqrtf(9 + 4 + 1); /* text 65 is the 2nd of batch 2: [3, 2, 1, 0] */
  EG_CHECK(fabsf(v[65 * 4] - 3 / n65) < 1e-5f && fabsf(v[65 * 4 + 1] - 2 / n65) < 1e-5f);
  /* 429, then success on the retry */
  atomic_store(&mode, 1);
  before = eg_stub_requests(st);
  EG_CHECK_INT(eg_embed(e, texts, 3, v, &err), EG_OK);
  EG_CHECK_INT(eg_stub_requests(st) - before, 2);
  /* a server slower than the timeout */
  atomic_store(&mode, 2);
  EG_CHECK_INT(eg_embed(e, texts, 1, v, &err), EG_ETIMEOUT);
  EG_CHECK(strstr(err.msg, "timed out") != NULL);
  /* malformed JSON and a wrong dimension are clear errors, not garbage vectors */
  atomic_store(&mode, 3);
  EG_CHECK_INT(eg_embed(e, texts, 2, v, &err), EG_EUNAVAIL);
  atomic_store(&mode, 4);
  EG_CHECK_INT(eg_embed(e, texts, 2, v, &err), EG_EUNAVAIL);
  EG_CHECK(strstr(err.msg, "wrong shape") != NULL);
  /* the key is sent; a missing key is UNAUTHENTICATED, not retried */
  atomic_store(&mode, 5);
  EG_CHECK_INT(eg_embed(e, texts, 2, v, &err), EG_OK);
  eg_embedder_close(e);
  EG_REQUIRE(eg_embed_http_open(url, "stub-model", 4, NULL, 500, &e, &err) == EG_OK);
  before = eg_stub_requests(st);
  EG_CHECK_INT(eg_embed(e, texts, 2, v, &err), EG_EUNAUTH);
  EG_CHECK_INT(eg_stub_requests(st) - before, 1);
  eg_embedder_close(e);
  eg_stub_stop(st);
}

int main(void) {
  EG_RUN(test_glove);
  EG_RUN(test_use_golden);
  EG_RUN(test_use_golden_fp32);
  EG_RUN(test_use32_is_float);
  EG_RUN(test_http);
  return eg_test_finish();
}
