/*
 * enrich_llm.h — enrichment by an OpenAI-compatible /v1/chat/completions endpoint.
 *
 * One call per segment with its window as context; the answer must be a JSON object of
 * the expected shape (checked field by field). A failed call, a timeout or a malformed
 * answer falls back to the offline rules for that segment and is counted, so an
 * ingest never fails because the model did.
 */
#ifndef EG_INGESTD_ENRICH_LLM_H
#define EG_INGESTD_ENRICH_LLM_H

#include "common/metrics.h"
#include "services/ingestd/enrich.h"

typedef struct eg_llm eg_llm;

/* base_url: ".../v1" or the bare host. api_key may be NULL. Calls and failures are
 * counted as <prefix>_llm_calls_total and <prefix>_llm_failures_total ("engram_ingestd"). */
eg_code eg_llm_open(const char *base_url, const char *model, const char *api_key, long timeout_ms,
                    eg_metrics *metrics, const char *prefix, eg_llm **out, eg_err *err);
void eg_llm_close(eg_llm *l); /* accepts NULL */

/* One chat completion (system may be NULL); *content is the assistant message text (arena). */
eg_code eg_llm_chat(eg_llm *l, const char *system, const char *user, bool json, eg_arena *a,
                    char **content, eg_err *err);

/* Enrich n segments; *fallbacks counts the segments the rules had to take over. */
eg_code eg_enrich_llm(eg_llm *l, const eg_enrich_ctx *ctx, const eg_segment *segs, size_t n,
                      eg_arena *a, eg_enriched *out, uint32_t *fallbacks, eg_err *err);

#endif
