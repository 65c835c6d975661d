/*
 * dataset.c — LongMemEval and LoCoMo as groups of sessions and questions (see dataset.h).
 */
#include "bench/dataset.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lme.h"
#include "common/buf.h"
#include "common/text.h"
#include "common/time.h"

static char *dup_json(const cJSON *v) {
  if (cJSON_IsString(v)) return strdup(v->valuestring);
  return v ? cJSON_PrintUnformatted(v) : strdup("");
}

static const char *str_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItem(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

int32_t eg_bunit_start(const eg_bsession *s, size_t msg) {
  size_t i = msg;
  if (strcmp(s->m[i].role, "assistant") == 0) {
    while (i > 0 && strcmp(s->m[i].role, "assistant") == 0) i--;
    if (strcmp(s->m[i].role, "user") != 0) i = msg; /* assistant after a non-user: alone */
  }
  return (int32_t)i;
}

static void add_unit(eg_bquestion *q, const char *session, int32_t turn) {
  for (size_t i = 0; i < q->n_units; i++)
    if (q->units[i].session == session && q->units[i].turn == turn) return;
  eg_bunit *u = realloc(q->units, (q->n_units + 1) * sizeof *u);
  if (!u) return;
  q->units = u;
  q->units[q->n_units++] = (eg_bunit){session, turn, 1};
}

static void add_session(eg_bquestion *q, const char *id) {
  for (size_t i = 0; i < q->n_sessions; i++)
    if (strcmp(q->sessions[i], id) == 0) return;
  char **s = realloc(q->sessions, (q->n_sessions + 1) * sizeof *s);
  if (!s) return;
  q->sessions = s;
  q->sessions[q->n_sessions++] = strdup(id);
}

static eg_bgroup *new_group(eg_bdata *d) {
  eg_bgroup *g = realloc(d->g, (d->n + 1) * sizeof *g);
  if (!g) return NULL;
  d->g = g;
  memset(&g[d->n], 0, sizeof *g);
  return &g[d->n++];
}

/* ---- LongMemEval ------------------------------------------------------------------------ */

typedef struct lme_ctx {
  eg_bdata *d;
  long limit;
  const char *types;
} lme_ctx;

static bool type_wanted(const char *types, const char *t) {
  if (!types || !*types) return true;
  size_t n = strlen(t);
  for (const char *p = types; *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == n && strncmp(p, t, n) == 0) return true;
    p += l + (e != NULL);
  }
  return false;
}

static bool take_lme(const cJSON *rec, void *ctx) {
  lme_ctx *c = ctx;
  const char *type = str_of(rec, "question_type"), *qid = str_of(rec, "question_id");
  if (!type || !qid || !type_wanted(c->types, type)) return true;
  eg_bgroup *g = new_group(c->d);
  if (!g) return false;
  g->user = strdup(qid);
  const cJSON *ids = cJSON_GetObjectItem(rec, "haystack_session_ids");
  const cJSON *dates = cJSON_GetObjectItem(rec, "haystack_dates");
  const cJSON *sess = cJSON_GetObjectItem(rec, "haystack_sessions");
  size_t cap = (size_t)cJSON_GetArraySize(sess);
  g->s = calloc(cap ? cap : 1, sizeof *g->s);
  g->q = calloc(1, sizeof *g->q);
  if (!g->s || !g->q) return false;
  eg_bquestion *q = g->q;
  g->nq = 1;
  q->id = strdup(qid);
  q->category = strdup(type);
  q->query = dup_json(cJSON_GetObjectItem(rec, "question"));
  q->answer = dup_json(cJSON_GetObjectItem(rec, "answer"));
  const char *qd = str_of(rec, "question_date");
  q->at = qd ? eg_lme_time(qd) : 0;
  size_t l = strlen(qid);
  q->excluded = l > 4 && strcmp(qid + l - 4, "_abs") == 0;
  q->split = eg_bsplit_of(qid);
  const cJSON *id = ids ? ids->child : NULL, *date = dates ? dates->child : NULL;
  for (const cJSON *s = sess ? sess->child : NULL; s && id && date;
       s = s->next, id = id->next, date = date->next) {
    eg_bsession *bs = &g->s[g->ns++];
    bs->id = strdup(cJSON_IsString(id) ? id->valuestring : "");
    bs->time = cJSON_IsString(date) ? eg_lme_time(date->valuestring) : 0;
    bs->m = calloc((size_t)cJSON_GetArraySize(s) + 1, sizeof *bs->m);
    bool *ans = calloc((size_t)cJSON_GetArraySize(s) + 1, sizeof *ans);
    for (const cJSON *t = s->child; bs->m && ans && t; t = t->next) {
      const char *role = str_of(t, "role"), *content = str_of(t, "content");
      if (!role || !content || eg_text_blank(content)) continue; /* ingestd refuses blank text */
      ans[bs->n] = cJSON_IsTrue(cJSON_GetObjectItem(t, "has_answer"));
      bs->m[bs->n++] = (eg_bmsg){strdup(role), NULL, strdup(content)};
    }
    for (size_t i = 0; ans && i < bs->n; i++)
      if (ans[i]) add_unit(q, bs->id, (int32_t)i);
    free(ans);
  }
  const cJSON *a = cJSON_GetObjectItem(rec, "answer_session_ids");
  for (const cJSON *x = a ? a->child : NULL; x; x = x->next)
    if (cJSON_IsString(x)) add_session(q, x->valuestring);
  return c->limit <= 0 || (long)c->d->n < c->limit;
}

int eg_bdata_load_lme(const char *path, long limit, const char *types, eg_bdata *d) {
  memset(d, 0, sizeof *d);
  d->set = EG_BSET_LME;
  lme_ctx c = {d, limit, types};
  if (eg_lme_each(path, take_lme, &c) < 0) {
    fprintf(stderr, "cannot read %s\n", path);
    return -1;
  }
  return 0;
}

/* ---- LoCoMo ------------------------------------------------------------------------------ */

int64_t eg_locomo_time(const char *s) {
  static const char *const months[] = {"january",   "february", "march",    "april",
                                       "may",       "june",     "july",     "august",
                                       "september", "october",  "november", "december"};
  int h = 0, mi = 0, day = 0, year = 0;
  char ampm[3] = "", mon[16] = "";
  if (sscanf(s, "%d:%d %2s on %d %15[A-Za-z], %d", &h, &mi, ampm, &day, mon, &year) != 6) return 0;
  int m = 0;
  for (char *p = mon; *p; p++) *p = (char)tolower((unsigned char)*p);
  while (m < 12 && strcmp(mon, months[m]) != 0) m++;
  if (m == 12 || h < 1 || h > 12 || mi < 0 || mi > 59) return 0;
  h = h % 12 + (tolower((unsigned char)ampm[0]) == 'p' ? 12 : 0);
  return eg_days_from_civil(year, m + 1, day) * EG_US_PER_DAY +
         ((int64_t)h * 60 + mi) * 60 * EG_US_PER_SEC;
}

static const char *const locomo_categories[] = {
    "", "multi-hop", "temporal", "open-domain", "single-hop", "adversarial"};

typedef struct dia {
  char id[32];
  const char *session;
  int32_t turn;
} dia;

static void locomo_sessions(const cJSON *conv, eg_bgroup *g, dia **dias, size_t *nd) {
  size_t cap = 0;
  for (int k = 1;; k++) {
    char key[48], dkey[64];
    snprintf(key, sizeof key, "session_%d", k);
    snprintf(dkey, sizeof dkey, "session_%d_date_time", k);
    const cJSON *turns = cJSON_GetObjectItem(conv, key);
    if (!turns) {
      if (!cJSON_GetObjectItem(conv, dkey)) break;
      continue; /* a date without turns */
    }
    eg_bsession *s = realloc(g->s, (g->ns + 1) * sizeof *s);
    if (!s) return;
    g->s = s;
    s = &g->s[g->ns++];
    memset(s, 0, sizeof *s);
    s->id = strdup(key);
    const char *dt = str_of(conv, dkey);
    s->time = dt ? eg_locomo_time(dt) : 0;
    s->m = calloc((size_t)cJSON_GetArraySize(turns) + 1, sizeof *s->m);
    for (const cJSON *t = turns->child; s->m && t; t = t->next) {
      const char *who = str_of(t, "speaker"), *text = str_of(t, "text"), *id = str_of(t, "dia_id");
      const char *cap_ = str_of(t, "blip_caption");
      if (!who || !text) continue;
      char *content = NULL;
      if (cap_ && *cap_) {
        size_t l = strlen(text) + strlen(cap_) + 32;
        if ((content = malloc(l))) snprintf(content, l, "%s [shares a photo: %s]", text, cap_);
      } else if (*text) {
        content = strdup(text);
      }
      if (!content) continue;
      if (id && *nd == cap) {
        cap = cap ? cap * 2 : 256;
        dia *nd2 = realloc(*dias, cap * sizeof *nd2);
        if (!nd2) return;
        *dias = nd2;
      }
      if (id) {
        dia *x = &(*dias)[(*nd)++];
        snprintf(x->id, sizeof x->id, "%s", id);
        x->session = s->id;
        x->turn = (int32_t)s->n;
      }
      s->m[s->n++] = (eg_bmsg){strdup("user"), strdup(who), content};
    }
  }
}

static void locomo_evidence(eg_bquestion *q, const cJSON *ev, const dia *dias, size_t nd) {
  for (const cJSON *e = ev ? ev->child : NULL; e; e = e->next) {
    if (!cJSON_IsString(e)) continue;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", e->valuestring);
    char *save = NULL;
    for (char *tok = strtok_r(buf, "; ,", &save); tok; tok = strtok_r(NULL, "; ,", &save))
      for (size_t i = 0; i < nd; i++)
        if (strcmp(dias[i].id, tok) == 0) {
          add_unit(q, dias[i].session, dias[i].turn);
          add_session(q, dias[i].session);
          break;
        }
  }
}

int eg_bdata_load_locomo(const char *path, long limit, eg_bdata *d) {
  memset(d, 0, sizeof *d);
  d->set = EG_BSET_LOCOMO;
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", path);
    return -1;
  }
  eg_buf b = EG_BUF_INIT;
  char chunk[65536];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, f)) > 0;) eg_buf_append(&b, chunk, n);
  fclose(f);
  eg_buf_append(&b, "", 1);
  cJSON *root = cJSON_Parse(b.data);
  eg_buf_free(&b);
  if (!cJSON_IsArray(root)) {
    fprintf(stderr, "%s: not a JSON array of conversations\n", path);
    cJSON_Delete(root);
    return -1;
  }
  for (const cJSON *c = root->child; c && (limit <= 0 || (long)d->n < limit); c = c->next) {
    const char *sid = str_of(c, "sample_id");
    const cJSON *conv = cJSON_GetObjectItem(c, "conversation"), *qa = cJSON_GetObjectItem(c, "qa");
    if (!sid || !conv) continue;
    eg_bgroup *g = new_group(d);
    if (!g) break;
    g->user = strdup(sid);
    dia *dias = NULL;
    size_t nd = 0;
    locomo_sessions(conv, g, &dias, &nd);
    int64_t last = 0;
    for (size_t i = 0; i < g->ns; i++)
      if (g->s[i].time > last) last = g->s[i].time;
    g->q = calloc((size_t)cJSON_GetArraySize(qa) + 1, sizeof *g->q);
    int idx = 0;
    for (const cJSON *x = qa ? qa->child : NULL; g->q && x; x = x->next, idx++) {
      eg_bquestion *q = &g->q[g->nq++];
      char id[96];
      snprintf(id, sizeof id, "%s#%d", sid, idx);
      q->id = strdup(id);
      int cat =
          cJSON_GetObjectItem(x, "category") ? cJSON_GetObjectItem(x, "category")->valueint : 0;
      q->category = strdup(cat >= 1 && cat <= 5 ? locomo_categories[cat] : "other");
      q->query = dup_json(cJSON_GetObjectItem(x, "question"));
      const cJSON *ans = cJSON_GetObjectItem(x, "answer");
      q->answer = dup_json(ans ? ans : cJSON_GetObjectItem(x, "adversarial_answer"));
      q->at = last;
      locomo_evidence(q, cJSON_GetObjectItem(x, "evidence"), dias, nd);
      q->excluded = q->n_units == 0;
      q->split = eg_bsplit_of_locomo(sid, q->query);
    }
    free(dias);
  }
  cJSON_Delete(root);
  return 0;
}

static void free_question(eg_bquestion *q) {
  free(q->id), free(q->category), free(q->query), free(q->answer), free(q->units);
  for (size_t s = 0; s < q->n_sessions; s++) free(q->sessions[s]);
  free(q->sessions);
}

static void free_group(eg_bgroup *g) {
  for (size_t s = 0; s < g->ns; s++) {
    for (size_t m = 0; m < g->s[s].n; m++) {
      free(g->s[s].m[m].role);
      free(g->s[s].m[m].name);
      free(g->s[s].m[m].content);
    }
    free(g->s[s].m);
    free(g->s[s].id);
  }
  for (size_t k = 0; k < g->nq; k++) free_question(&g->q[k]);
  free(g->s), free(g->q), free(g->user);
}

void eg_bdata_free(eg_bdata *d) {
  for (size_t i = 0; i < d->n; i++) free_group(&d->g[i]);
  free(d->g);
  memset(d, 0, sizeof *d);
}

void eg_bdata_split(eg_bdata *d, eg_bsplit want, eg_bsplit_count *count) {
  eg_bsplit_count c = {0};
  size_t kept_groups = 0;
  for (size_t i = 0; i < d->n; i++) {
    eg_bgroup *g = &d->g[i];
    size_t kept = 0;
    for (size_t k = 0; k < g->nq; k++) {
      eg_bquestion *q = &g->q[k];
      bool take = eg_bsplit_takes(want, q->split);
      c.total++, c.total_scored += !q->excluded;
      c.kept += take, c.kept_scored += take && !q->excluded;
      if (take)
        g->q[kept++] = *q;
      else
        free_question(q);
    }
    g->nq = kept;
    if (kept)
      d->g[kept_groups++] = *g;
    else
      free_group(g);
  }
  d->n = kept_groups;
  if (count) *count = c;
}
