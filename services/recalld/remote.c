/*
 * remote.c — recalld's optional remote models: query reformulations from an
 * OpenAI-compatible chat endpoint (ExpansionMode LLM) and a cross-encoder behind a
 * TEI-compatible POST /rerank. Both degrade: a failed or malformed answer leaves the offline
 * variants or the fused order in place and is counted, so a Recall never fails because a
 * remote model did.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/http.h"
#include "common/llm.h"
#include "common/text.h"
#include "common/time.h"
#include "services/recalld/recall_int.h"

static const char *const REFORMULATE =
    "You turn a user's question into search queries for their stored conversations and notes. "
    "Answer with one JSON object {\"queries\": [ ... ]} holding up to 3 reformulations: other "
    "wording, "
    "the entities and key terms spelled out, relative dates made absolute using the question's "
    "date. "
    "Never answer the question itself.";

size_t rc_llm_variants(rc_ctx *c, char **out, size_t max) {
  if (!c->r->o.llm) return 0;
  char day[16];
  eg_time_format_date(c->tq, day, sizeof day);
  char *user = eg_arena_sprintf(c->a, "Question (asked on %s): %s", day, c->req->query);
  char *answer = NULL;
  eg_err e;
  size_t n = 0;
  if (user && eg_llm_chat(c->r->o.llm, REFORMULATE, user, true, c->a, &answer, &e) == EG_OK) {
    cJSON *j = cJSON_Parse(answer);
    const cJSON *qs = cJSON_GetObjectItem(j, "queries");
    for (const cJSON *q = cJSON_IsArray(qs) ? qs->child : NULL; q && n < max; q = q->next) {
      size_t l = cJSON_IsString(q) ? strlen(q->valuestring) : 0;
      if (l && l <= 512 && eg_utf8_valid(q->valuestring, l))
        out[n++] = eg_arena_strdup(c->a, q->valuestring);
    }
    cJSON_Delete(j);
  }
  if (!n) eg_series_add(c->r->m_llm_fallbacks, 1);
  return n;
}

bool rc_rerank(rc_ctx *c, size_t n) {
  if (!n) return true;
  cJSON *body = cJSON_CreateObject(), *texts = cJSON_AddArrayToObject(body, "texts");
  cJSON_AddStringToObject(body, "query", c->req->query);
  cJSON_AddBoolToObject(body, "raw_scores", false);
  cJSON_AddBoolToObject(body, "truncate", true);
  for (size_t i = 0; i < n; i++)
    cJSON_AddItemToArray(texts, cJSON_CreateString(c->chunks[i].chunk->content));
  char *json = cJSON_PrintUnformatted(body);
  cJSON_Delete(body);
  eg_http_opts ho = {
      .api_key = c->r->o.rerank_key, .timeout_ms = c->r->o.rerank_timeout_ms, .max_attempts = 2};
  eg_buf out = EG_BUF_INIT;
  long status = 0;
  eg_err e;
  bool ok = json && eg_http_post_json(c->r->o.rerank_url, json, strlen(json), &ho, &status, &out,
                                      &e) == EG_OK;
  free(json);
  cJSON *r = ok ? cJSON_ParseWithLength(out.data, out.len) : NULL;
  eg_buf_free(&out);
  /* [{"index": i, "score": s}, …]: every index once, in range */
  ok = cJSON_IsArray(r) && (size_t)cJSON_GetArraySize(r) == n;
  for (size_t i = 0; i < n; i++) c->chunks[i].reranked = false;
  for (const cJSON *x = ok ? r->child : NULL; x && ok; x = x->next) {
    const cJSON *ix = cJSON_GetObjectItem(x, "index"), *sc = cJSON_GetObjectItem(x, "score");
    ok = cJSON_IsNumber(ix) && cJSON_IsNumber(sc) && ix->valuedouble >= 0 &&
         ix->valuedouble < (double)n && !c->chunks[(size_t)ix->valuedouble].reranked;
    if (ok) {
      rc_chunk *ch = &c->chunks[(size_t)ix->valuedouble];
      ch->reranked = true;
      ch->rerank = (float)sc->valuedouble;
    }
  }
  cJSON_Delete(r);
  if (!ok) {
    for (size_t i = 0; i < n; i++) c->chunks[i].reranked = false;
    eg_series_add(c->r->m_rerank_failures, 1);
    return false;
  }
  /* the cross-encoder orders the reranked head; the fused score breaks ties */
  for (size_t i = 0; i < n; i++)
    c->chunks[i].score = 0.7f * c->chunks[i].rerank + 0.3f * c->chunks[i].score;
  qsort(c->chunks, n, sizeof *c->chunks, rc_by_score);
  return true;
}
