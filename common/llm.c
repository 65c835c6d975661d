/*
 * llm.c — see llm.h.
 */
#include "common/llm.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/http.h"

struct eg_llm {
  char url[512];
  char model[128];
  char *key;
  long timeout_ms;
  eg_series *calls, *failures;
};

eg_code eg_llm_open(const char *base_url, const char *model, const char *api_key, long timeout_ms,
                    eg_metrics *metrics, const char *prefix, eg_llm **out, eg_err *err) {
  eg_llm *l = calloc(1, sizeof *l);
  if (!l) return eg_err_set(err, EG_ENOMEM, "out of memory");
  size_t bl = strlen(base_url);
  while (bl && base_url[bl - 1] == '/') bl--;
  if (bl >= 3 && !strncmp(base_url + bl - 3, "/v1", 3))
    snprintf(l->url, sizeof l->url, "%.*s/chat/completions", (int)bl, base_url);
  else
    snprintf(l->url, sizeof l->url, "%.*s/v1/chat/completions", (int)bl, base_url);
  snprintf(l->model, sizeof l->model, "%s", model && *model ? model : "gpt-4o-mini");
  l->key = api_key && *api_key ? strdup(api_key) : NULL;
  l->timeout_ms = timeout_ms > 0 ? timeout_ms : 30000;
  if (metrics) {
    char name[128];
    snprintf(name, sizeof name, "%s_llm_calls_total", prefix);
    l->calls = eg_metric_solo(eg_metrics_counter(metrics, name, "LLM calls made.", NULL));
    snprintf(name, sizeof name, "%s_llm_failures_total", prefix);
    l->failures = eg_metric_solo(eg_metrics_counter(
        metrics, name, "LLM calls that failed or answered malformed JSON.", NULL));
  }
  *out = l;
  return EG_OK;
}

void eg_llm_close(eg_llm *l) {
  if (!l) return;
  free(l->key);
  free(l);
}

eg_code eg_llm_chat(eg_llm *l, const char *system, const char *user, bool json, eg_arena *a,
                    char **content, eg_err *err) {
  cJSON *req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "model", l->model);
  cJSON_AddNumberToObject(req, "temperature", 0);
  if (json)
    cJSON_AddItemToObject(req, "response_format", cJSON_Parse("{\"type\":\"json_object\"}"));
  cJSON *msgs = cJSON_AddArrayToObject(req, "messages");
  if (system) {
    cJSON *m1 = cJSON_CreateObject();
    cJSON_AddStringToObject(m1, "role", "system");
    cJSON_AddStringToObject(m1, "content", system);
    cJSON_AddItemToArray(msgs, m1);
  }
  cJSON *m2 = cJSON_CreateObject();
  cJSON_AddStringToObject(m2, "role", "user");
  cJSON_AddStringToObject(m2, "content", user);
  cJSON_AddItemToArray(msgs, m2);
  char *body = cJSON_PrintUnformatted(req);
  cJSON_Delete(req);
  if (!body) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_buf resp = EG_BUF_INIT;
  eg_http_opts o = {
      .api_key = l->key, .timeout_ms = l->timeout_ms, .max_attempts = 3, .backoff_ms = 100};
  eg_series_add(l->calls, 1);
  eg_code rc = eg_http_post_json(l->url, body, strlen(body), &o, NULL, &resp, err);
  free(body);
  if (!rc) {
    cJSON *j = cJSON_ParseWithLength(resp.data ? resp.data : "", resp.len);
    cJSON *ch = j ? cJSON_GetObjectItemCaseSensitive(j, "choices") : NULL;
    cJSON *c0 = cJSON_IsArray(ch) ? cJSON_GetArrayItem(ch, 0) : NULL;
    cJSON *msg = c0 ? cJSON_GetObjectItemCaseSensitive(c0, "message") : NULL;
    cJSON *txt = msg ? cJSON_GetObjectItemCaseSensitive(msg, "content") : NULL;
    if (cJSON_IsString(txt))
      *content = eg_arena_strdup(a, txt->valuestring);
    else
      rc = eg_err_set(err, EG_EUNAVAIL, "%s: answer has no choices[0].message.content", l->url);
    cJSON_Delete(j);
  }
  eg_buf_free(&resp);
  if (rc) eg_series_add(l->failures, 1);
  return rc;
}

void eg_llm_count_failure(eg_llm *l) { eg_series_add(l->failures, 1); }
