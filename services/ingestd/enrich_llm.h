/*
 * enrich_llm.h — enrichment by an OpenAI-compatible /v1/chat/completions endpoint
 * (the client: common/llm.h).
 *
 * One call per segment with its window as context; the answer must be a JSON object of
 * the expected shape (checked field by field). A failed call, a timeout or a malformed
 * answer falls back to the offline rules for that segment and is counted, so an
 * ingest never fails because the model did.
 */
#ifndef EG_INGESTD_ENRICH_LLM_H
#define EG_INGESTD_ENRICH_LLM_H

#include "common/llm.h"
#include "lang/enrich.h"

/* Enrich n segments; *fallbacks counts the segments the rules had to take over. */
eg_code eg_enrich_llm(eg_llm *l, const eg_enrich_ctx *ctx, const eg_segment *segs, size_t n,
                      eg_arena *a, eg_enriched *out, uint32_t *fallbacks, eg_err *err);

#endif
