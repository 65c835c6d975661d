/*
 * qa.h — question answering on top of Recall, for `engram-bench qa`: an OpenAI-compatible
 * chat model answers each question from the recalled context with a prompt chosen by the
 * question's category, and the same model judges the answer against the reference with a
 * category-specific rubric. Prompts are files in bench/prompts/: answer_<category>.txt and
 * judge_<category>.txt, falling back to answer_default.txt / judge_default.txt; questions
 * that should be declined (LongMemEval _abs, LoCoMo adversarial) use judge_abstention.txt.
 * Placeholders: {{question}}, {{question_date}}, {{context}}, {{answer}}, {{response}}.
 */
#ifndef EG_BENCH_QA_H
#define EG_BENCH_QA_H

#include <stdbool.h>

#include "bench/dataset.h"
#include "common/err.h"

typedef struct eg_bqa eg_bqa;

eg_code eg_bqa_open(const char *url, const char *model, const char *api_key,
                    const char *prompts_dir, eg_bqa **out, eg_err *err);
void eg_bqa_close(eg_bqa *qa);

/* Whether q is one the model should decline. */
bool eg_bqa_abstain(const eg_bquestion *q);
/* Answer q from context and judge it; *response (malloc'd, may be NULL) gets the answer. */
eg_code eg_bqa_run(eg_bqa *qa, const eg_bquestion *q, const char *context, bool *correct,
                   char **response, eg_err *err);

#endif
