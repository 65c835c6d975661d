/*
 * llm.h — a client of an OpenAI-compatible /v1/chat/completions endpoint.
 *
 * One chat completion per call, over common/http.h (retries with backoff on 429 and
 * 5xx, a timeout per attempt). Users: ingestd's LLM enricher (enrich_llm.h), recalld's
 * query reformulations, engram-bench's QA reader and judge.
 */
#ifndef EG_LLM_H
#define EG_LLM_H

#include <stdbool.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/metrics.h"

typedef struct eg_llm eg_llm;

/* base_url: ".../v1" or the bare host. api_key may be NULL. Calls and failures are
 * counted as <prefix>_llm_calls_total and <prefix>_llm_failures_total ("engram_ingestd");
 * metrics may be NULL (nothing counted). */
eg_code eg_llm_open(const char *base_url, const char *model, const char *api_key, long timeout_ms,
                    eg_metrics *metrics, const char *prefix, eg_llm **out, eg_err *err);
void eg_llm_close(eg_llm *l); /* accepts NULL */

/* One chat completion (system may be NULL); *content is the assistant message text (arena).
 * json asks for a JSON object (response_format). A failed call is counted as a failure. */
eg_code eg_llm_chat(eg_llm *l, const char *system, const char *user, bool json, eg_arena *a,
                    char **content, eg_err *err);

/* Count a failure the caller found: an answer that came but could not be used. */
void eg_llm_count_failure(eg_llm *l);

#endif
