/*
 * qa.c — answer and judge with an OpenAI-compatible chat model (see qa.h).
 */
#include "bench/qa.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/buf.h"
#include "common/llm.h"
#include "common/time.h"
#include "tests/testlib.h"

struct eg_bqa {
  eg_llm *llm;
  char dir[1024];
};

eg_code eg_bqa_open(const char *url, const char *model, const char *api_key,
                    const char *prompts_dir, eg_bqa **out, eg_err *err) {
  eg_bqa *qa = calloc(1, sizeof *qa);
  if (!qa) return eg_err_set(err, EG_ENOMEM, "out of memory");
  snprintf(qa->dir, sizeof qa->dir, "%s", prompts_dir);
  eg_code rc = eg_llm_open(url, model, api_key, 120000, NULL, NULL, &qa->llm, err);
  if (rc) {
    free(qa);
    return rc;
  }
  *out = qa;
  return EG_OK;
}

void eg_bqa_close(eg_bqa *qa) {
  if (!qa) return;
  eg_llm_close(qa->llm);
  free(qa);
}

bool eg_bqa_abstain(const eg_bquestion *q) {
  return q->excluded || strcmp(q->category, "adversarial") == 0;
}

/* The template kind_<name>.txt, else kind_default.txt. */
static char *load_prompt(const eg_bqa *qa, const char *kind, const char *name) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s_%s.txt", qa->dir, kind, name);
  char *t = eg_test_slurp(path); /* "" when missing */
  if (t && !*t) {
    free(t);
    snprintf(path, sizeof path, "%s/%s_default.txt", qa->dir, kind);
    t = eg_test_slurp(path);
  }
  if (t && !*t) {
    free(t);
    t = NULL;
  }
  return t;
}

/* Replace each {{key}} of tmpl by its value. */
static char *fill(const char *tmpl, const char *const *kv, size_t n) {
  eg_buf b = EG_BUF_INIT;
  for (const char *p = tmpl; *p;) {
    const char *o = strstr(p, "{{");
    if (!o) {
      eg_buf_append(&b, p, strlen(p));
      break;
    }
    eg_buf_append(&b, p, (size_t)(o - p));
    const char *c = strstr(o, "}}");
    size_t i = 0;
    while (c && i < n &&
           !(strlen(kv[2 * i]) == (size_t)(c - o - 2) &&
             !strncmp(o + 2, kv[2 * i], (size_t)(c - o - 2))))
      i++;
    if (!c || i == n) { /* not a placeholder of ours: keep it */
      eg_buf_append(&b, o, 2);
      p = o + 2;
      continue;
    }
    eg_buf_append(&b, kv[2 * i + 1], strlen(kv[2 * i + 1]));
    p = c + 2;
  }
  eg_buf_append(&b, "", 1);
  return b.data;
}

eg_code eg_bqa_run(eg_bqa *qa, const eg_bquestion *q, const char *context, bool *correct,
                   char **response, eg_err *err) {
  char date[40] = "unknown";
  if (q->at) eg_time_format_date(q->at, date, sizeof date);
  bool abstain = eg_bqa_abstain(q);
  const char *explanation = abstain && strcmp(q->category, "adversarial") == 0
                                ? "The conversation never says this."
                                : q->answer;
  char *ta = load_prompt(qa, "answer", q->category);
  char *tj = load_prompt(qa, "judge", abstain ? "abstention" : q->category);
  eg_arena *a = eg_arena_new(0, 0);
  char *answer = NULL, *verdict = NULL, *pa = NULL, *pj = NULL;
  eg_code rc = EG_OK;
  if (!ta || !tj || !a) {
    rc = eg_err_set(err, EG_EINVAL,
                    "prompts missing in %s (answer_default.txt and judge_default.txt are required)",
                    qa->dir);
    goto out;
  }
  const char *kv[] = {"question", q->query, "question_date", date,       "context",
                      context,    "answer", explanation,     "response", ""};
  pa = fill(ta, kv, 5);
  if ((rc = eg_llm_chat(qa->llm, NULL, pa, false, a, &answer, err))) goto out;
  kv[9] = answer;
  pj = fill(tj, kv, 5);
  if ((rc = eg_llm_chat(qa->llm, NULL, pj, false, a, &verdict, err))) goto out;
  while (*verdict && !isalpha((unsigned char)*verdict)) verdict++;
  *correct = strncasecmp(verdict, "yes", 3) == 0;
  if (response) *response = strdup(answer);
out:
  free(ta), free(tj), free(pa), free(pj);
  eg_arena_free(a);
  return rc;
}
