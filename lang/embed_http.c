/*
 * embed_http.c — any OpenAI-compatible POST /v1/embeddings endpoint (OpenAI, vLLM,
 * Ollama, TEI): batches of texts per request, answers checked for shape and dimension.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/http.h"
#include "lang/embed.h"

#define HTTP_BATCH 64

typedef struct http_embedder {
  char url[512];
  char model[128];
  char *api_key;
  int dim;
  long timeout_ms;
} http_embedder;

static eg_code embed_batch(http_embedder *h, const char *const *texts, size_t n, float *out,
                           eg_err *err) {
  cJSON *req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "model", h->model);
  cJSON *input = cJSON_AddArrayToObject(req, "input");
  for (size_t i = 0; i < n; i++)
    cJSON_AddItemToArray(input, cJSON_CreateString(texts[i] ? texts[i] : ""));
  char *body = cJSON_PrintUnformatted(req);
  cJSON_Delete(req);
  if (!body) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_buf resp = EG_BUF_INIT;
  eg_http_opts o = {.api_key = h->api_key, .timeout_ms = h->timeout_ms, .backoff_ms = 50};
  eg_code rc = eg_http_post_json(h->url, body, strlen(body), &o, NULL, &resp, err);
  free(body);
  if (rc) {
    eg_buf_free(&resp);
    return rc;
  }
  cJSON *j = cJSON_ParseWithLength(resp.data ? resp.data : "", resp.len);
  eg_buf_free(&resp);
  cJSON *data = j ? cJSON_GetObjectItemCaseSensitive(j, "data") : NULL;
  rc = EG_OK;
  if (!cJSON_IsArray(data) || (size_t)cJSON_GetArraySize(data) != n) {
    rc = eg_err_set(err, EG_EUNAVAIL, "%s: answer has no data array of %zu embeddings", h->url, n);
    goto done;
  }
  size_t k = 0;
  for (cJSON *item = data->child; item; item = item->next, k++) {
    cJSON *idx = cJSON_GetObjectItemCaseSensitive(item, "index");
    cJSON *emb = cJSON_GetObjectItemCaseSensitive(item, "embedding");
    size_t at = cJSON_IsNumber(idx) ? (size_t)idx->valuedouble : k;
    if (at >= n || !cJSON_IsArray(emb) || cJSON_GetArraySize(emb) != h->dim) {
      rc = eg_err_set(err, EG_EUNAVAIL, "%s: embedding %zu has the wrong shape (want %d dims)",
                      h->url, k, h->dim);
      goto done;
    }
    float *o = out + at * (size_t)h->dim;
    int d = 0;
    for (cJSON *x = emb->child; x; x = x->next)
      o[d++] = cJSON_IsNumber(x) ? (float)x->valuedouble : 0.f;
    eg_l2_normalize(o, h->dim);
  }
done:
  cJSON_Delete(j);
  return rc;
}

static eg_code http_embed(void *self, const char *const *texts, size_t n, float *out, eg_err *err) {
  http_embedder *h = self;
  for (size_t i = 0; i < n; i += HTTP_BATCH) {
    size_t m = n - i < HTTP_BATCH ? n - i : HTTP_BATCH;
    eg_code rc = embed_batch(h, texts + i, m, out + i * (size_t)h->dim, err);
    if (rc) return rc;
  }
  return EG_OK;
}

static void http_close(void *self) {
  http_embedder *h = self;
  if (h) free(h->api_key);
  free(h);
}

static const eg_embed_ops http_ops = {http_embed, http_close};

eg_code eg_embed_http_open(const char *base_url, const char *model, int dim, const char *api_key,
                           long timeout_ms, eg_embedder **out, eg_err *err) {
  http_embedder *h = calloc(1, sizeof *h);
  eg_embedder *e = calloc(1, sizeof *e);
  if (!h || !e) {
    free(h);
    free(e);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  size_t bl = strlen(base_url);
  while (bl && base_url[bl - 1] == '/') bl--;
  /* Accept ".../v1" or the bare host. */
  if (bl >= 3 && strncmp(base_url + bl - 3, "/v1", 3) == 0)
    snprintf(h->url, sizeof h->url, "%.*s/embeddings", (int)bl, base_url);
  else
    snprintf(h->url, sizeof h->url, "%.*s/v1/embeddings", (int)bl, base_url);
  snprintf(h->model, sizeof h->model, "%s", model);
  h->api_key = api_key ? strdup(api_key) : NULL;
  h->dim = dim;
  h->timeout_ms = timeout_ms > 0 ? timeout_ms : 30000;
  e->ops = &http_ops;
  e->self = h;
  e->dim = dim;
  snprintf(e->model_id, sizeof e->model_id, "http:%s:%d", model, dim);
  *out = e;
  return EG_OK;
}
