/*
 * lme.c — the LongMemEval reader of the benchmarks (see lme.h).
 */
#include "bench/lme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/text.h"
#include "common/time.h"

long eg_lme_each(const char *path, bool (*fn)(const cJSON *record, void *ctx), void *ctx) {
  gzFile gz = gzopen(path, "rb");
  if (!gz) return -1;
  size_t cap = 1 << 24;
  char *line = malloc(cap);
  long n = 0;
  bool more = true;
  while (more && line && gzgets(gz, line, (int)cap)) {
    size_t l = strlen(line);
    while (l == cap - 1 && line[l - 1] != '\n') { /* a long line: grow and read on */
      char *g = realloc(line, cap * 2);
      if (!g) break;
      line = g;
      if (!gzgets(gz, line + l, (int)(cap + 1))) break;
      cap *= 2;
      l = strlen(line);
    }
    cJSON *j = cJSON_Parse(line);
    if (j) {
      n++;
      more = fn(j, ctx);
    }
    cJSON_Delete(j);
  }
  free(line);
  gzclose(gz);
  return n;
}

int64_t eg_lme_time(const char *d) {
  int y = 0, mo = 0, da = 0, h = 0, mi = 0;
  char wd[8];
  if (sscanf(d, "%d/%d/%d (%7[^)]) %d:%d", &y, &mo, &da, wd, &h, &mi) != 6) return 0;
  return eg_days_from_civil(y, mo, da) * EG_US_PER_DAY +
         ((int64_t)h * 60 + mi) * 60 * EG_US_PER_SEC;
}

typedef struct writer {
  FILE *out;
  long max;
  eg_lme_sessions *st;
} writer;

static bool write_sessions(const cJSON *rec, void *ctx) {
  writer *w = ctx;
  const cJSON *qid = cJSON_GetObjectItem(rec, "question_id");
  const cJSON *ids = cJSON_GetObjectItem(rec, "haystack_session_ids");
  const cJSON *dates = cJSON_GetObjectItem(rec, "haystack_dates");
  const cJSON *sess = cJSON_GetObjectItem(rec, "haystack_sessions");
  const cJSON *id = ids ? ids->child : NULL, *date = dates ? dates->child : NULL;
  for (const cJSON *s = sess ? sess->child : NULL; s && id && date;
       s = s->next, id = id->next, date = date->next) {
    cJSON *o = cJSON_CreateObject(), *scope = cJSON_AddObjectToObject(o, "scope");
    cJSON_AddStringToObject(scope, "tenant", "bench");
    cJSON_AddStringToObject(scope, "user", qid->valuestring);
    cJSON_AddStringToObject(o, "session_id", id->valuestring);
    char iso[40];
    eg_time_format(eg_lme_time(date->valuestring), iso, sizeof iso);
    cJSON_AddStringToObject(o, "session_time", iso);
    cJSON *msgs = cJSON_AddArrayToObject(o, "messages");
    for (const cJSON *t = s->child; t; t = t->next) {
      const cJSON *role = cJSON_GetObjectItem(t, "role"),
                  *content = cJSON_GetObjectItem(t, "content");
      if (!cJSON_IsString(role) || !cJSON_IsString(content) || eg_text_blank(content->valuestring))
        continue;
      cJSON *m = cJSON_CreateObject();
      cJSON_AddStringToObject(m, "role", role->valuestring);
      cJSON_AddStringToObject(m, "content", content->valuestring);
      cJSON_AddItemToArray(msgs, m);
      w->st->words += eg_text_words(content->valuestring);
    }
    char *line = cJSON_PrintUnformatted(o);
    fprintf(w->out, "%s\n", line);
    free(line);
    cJSON_Delete(o);
    w->st->sessions++;
  }
  return ++w->st->questions < w->max;
}

int eg_lme_write_sessions(const char *data, long max_questions, const char *out_path,
                          eg_lme_sessions *st) {
  memset(st, 0, sizeof *st);
  writer w = {fopen(out_path, "w"), max_questions, st};
  if (!w.out) return -1;
  long n = eg_lme_each(data, write_sessions, &w);
  return fclose(w.out) != 0 || n < 0 ? -1 : 0;
}
