/*
 * metrics.c — ranking metrics and their tables (see metrics.h).
 */
#include "bench/metrics.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const lme_names[] = {"recall_all@5",  "recall_all@10", "recall_any@5",
                                        "recall_any@10", "ndcg@10",       "turn_recall_any@10"};
enum { LME_ALL5, LME_ALL10, LME_ANY5, LME_ANY10, LME_NDCG10, LME_TURN10, LME_N };
static const char *const locomo_names[] = {"recall@5", "recall@10", "recall@25"};
static const int locomo_k[] = {5, 10, 25};

bool eg_brank_add(eg_brank *r, const eg_bgroup *g, const char *session, int32_t turn) {
  const eg_bsession *s = NULL;
  for (size_t i = 0; session && i < g->ns && !s; i++)
    if (strcmp(g->s[i].id, session) == 0) s = &g->s[i];
  if (!s || turn < 0 || (size_t)turn >= s->n) return false;
  for (size_t i = 0; i < r->n; i++)
    if (r->u[i].session == s->id && r->u[i].turn == turn) return true;
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 64;
    eg_bunit *u = realloc(r->u, cap * sizeof *u);
    if (!u) return false;
    r->u = u, r->cap = cap;
  }
  int32_t len = 1;
  while ((size_t)(turn + len) < s->n && eg_bunit_start(s, (size_t)(turn + len)) == turn) len++;
  r->u[r->n++] = (eg_bunit){s->id, turn, len};
  return true;
}

void eg_brank_free(eg_brank *r) {
  free(r->u);
  memset(r, 0, sizeof *r);
}

size_t eg_bmetric_names(eg_bset set, const char *const **names) {
  if (set == EG_BSET_LME) {
    *names = lme_names;
    return LME_N;
  }
  *names = locomo_names;
  return sizeof locomo_names / sizeof *locomo_names;
}

static bool is_evidence_session(const eg_bquestion *q, const char *s) {
  for (size_t i = 0; i < q->n_sessions; i++)
    if (strcmp(q->sessions[i], s) == 0) return true;
  return false;
}

/* Evidence turns among the first k turns of the ranking (units expanded into their turns). */
static size_t evidence_in_top_turns(const eg_bquestion *q, const eg_brank *r, size_t k) {
  size_t pos = 0, hit = 0;
  for (size_t i = 0; i < r->n && pos < k; i++)
    for (int32_t t = r->u[i].turn; t < r->u[i].turn + r->u[i].len && pos < k; t++, pos++)
      for (size_t e = 0; e < q->n_units; e++)
        if (q->units[e].turn == t && strcmp(q->units[e].session, r->u[i].session) == 0) hit++;
  return hit;
}

static void score_lme(const eg_bquestion *q, const eg_brank *r, eg_bscore *o) {
  /* sessions in order of first appearance, as relevance flags */
  bool rel[10];
  size_t ns = 0;
  const char *seen[10];
  for (size_t i = 0; i < r->n && ns < 10; i++) {
    bool dup = false;
    for (size_t k = 0; k < ns && !dup; k++) dup = seen[k] == r->u[i].session;
    if (dup) continue;
    seen[ns] = r->u[i].session;
    rel[ns++] = is_evidence_session(q, r->u[i].session);
  }
  if (q->n_sessions) {
    size_t hit5 = 0, hit10 = 0;
    double dcg = 0, idcg = 0;
    for (size_t i = 0; i < ns; i++) {
      hit10 += rel[i];
      if (i < 5) hit5 += rel[i];
      if (rel[i]) dcg += 1.0 / log2((double)i + 2.0);
    }
    for (size_t i = 0; i < q->n_sessions && i < 10; i++) idcg += 1.0 / log2((double)i + 2.0);
    o->v[LME_ALL5] = hit5 == q->n_sessions;
    o->v[LME_ALL10] = hit10 == q->n_sessions;
    o->v[LME_ANY5] = hit5 > 0;
    o->v[LME_ANY10] = hit10 > 0;
    o->v[LME_NDCG10] = dcg / idcg;
    for (int m = LME_ALL5; m <= LME_NDCG10; m++) o->has[m] = true;
  }
  if (q->n_units) {
    o->v[LME_TURN10] = evidence_in_top_turns(q, r, 10) > 0;
    o->has[LME_TURN10] = true;
  }
}

static void score_locomo(const eg_bquestion *q, const eg_brank *r, eg_bscore *o) {
  if (!q->n_units) return;
  for (size_t m = 0; m < sizeof locomo_k / sizeof *locomo_k; m++) {
    size_t hit = evidence_in_top_turns(q, r, (size_t)locomo_k[m]);
    o->v[m] = 100.0 * (double)hit / (double)q->n_units;
    o->has[m] = true;
  }
}

void eg_bscore_question(eg_bset set, const eg_bquestion *q, const eg_brank *r, eg_bscore *out) {
  memset(out, 0, sizeof *out);
  if (set == EG_BSET_LME)
    score_lme(q, r, out);
  else
    score_locomo(q, r, out);
}

/* ---- tables ------------------------------------------------------------------------------ */

/* Index of the category called name; t->n when there is none. */
static size_t find(const eg_btable *t, const char *name) {
  size_t i = 0;
  while (i < t->n && strcmp(t->c[i].name, name) != 0) i++;
  return i;
}

static eg_bcat *category(eg_btable *t, const char *name) {
  size_t i = find(t, name);
  if (i < t->n) return &t->c[i];
  eg_bcat *c = realloc(t->c, (t->n + 1) * sizeof *c);
  if (!c) return NULL;
  t->c = c;
  memset(&c[t->n], 0, sizeof *c);
  c[t->n].name = strdup(name);
  return &c[t->n++];
}

void eg_btable_init(eg_btable *t, const char *const *names, size_t n_names, bool percent) {
  memset(t, 0, sizeof *t);
  t->names = names;
  t->n_names = n_names < EG_BMETRICS_MAX ? n_names : EG_BMETRICS_MAX;
  t->percent = percent;
  category(t, "overall");
}

void eg_btable_add(eg_btable *t, const char *cat, const eg_bscore *s) {
  eg_bcat *cs[2] = {&t->c[0], NULL};
  cs[1] = category(t, cat);
  cs[0] = &t->c[0]; /* category() may have moved the array */
  for (int k = 0; k < 2 && cs[k]; k++) {
    cs[k]->questions++;
    for (size_t m = 0; m < EG_BMETRICS_MAX; m++)
      if (s->has[m]) cs[k]->sum[m] += s->v[m], cs[k]->cnt[m]++;
  }
}

double eg_btable_mean(const eg_btable *t, size_t c, size_t m) {
  return t->c[c].cnt[m] ? t->c[c].sum[m] / (double)t->c[c].cnt[m] : NAN;
}

void eg_btable_free(eg_btable *t) {
  for (size_t i = 0; i < t->n; i++) free(t->c[i].name);
  free(t->c);
  memset(t, 0, sizeof *t);
}

static void cell(FILE *f, bool percent, double v) {
  if (isnan(v))
    fprintf(f, " – |");
  else if (percent)
    fprintf(f, " %.1f |", v);
  else
    fprintf(f, " %.3f |", v);
}

void eg_btable_markdown(FILE *f, const eg_btable *const *sys, const char *const *names,
                        size_t n_sys) {
  const char *const *mn = sys[0]->names;
  size_t nm = sys[0]->n_names;
  bool percent = sys[0]->percent;
  fprintf(f, "| category | questions |");
  for (size_t m = 0; m < nm; m++)
    for (size_t s = 0; s < n_sys; s++) fprintf(f, " %s %s |", names[s], mn[m]);
  fprintf(f, "\n|---|---:|");
  for (size_t m = 0; m < nm * n_sys; m++) fprintf(f, "---:|");
  fprintf(f, "\n");
  for (size_t c = 0; c < sys[0]->n; c++) {
    fprintf(f, "| %s | %ld |", sys[0]->c[c].name, sys[0]->c[c].questions);
    for (size_t m = 0; m < nm; m++)
      for (size_t s = 0; s < n_sys; s++) {
        size_t cs = find(sys[s], sys[0]->c[c].name);
        cell(f, percent, cs < sys[s]->n ? eg_btable_mean(sys[s], cs, m) : NAN);
      }
    fprintf(f, "\n");
  }
}

char *eg_btable_json(const eg_btable *t) {
  const char *const *mn = t->names;
  size_t nm = t->n_names;
  cJSON *o = cJSON_CreateObject(), *by = NULL;
  for (size_t c = 0; c < t->n; c++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "questions", (double)t->c[c].questions);
    for (size_t m = 0; m < nm; m++) {
      double v = eg_btable_mean(t, c, m);
      if (isnan(v))
        cJSON_AddNullToObject(x, mn[m]);
      else
        cJSON_AddNumberToObject(x, mn[m], v);
    }
    if (c == 0) {
      cJSON_AddItemToObject(o, "overall", x);
      by = cJSON_AddObjectToObject(o, "by_category");
    } else {
      cJSON_AddItemToObject(by, t->c[c].name, x);
    }
  }
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return s;
}
