/*
 * enrich_llm.c — the LLM enricher over OpenAI-compatible chat completions.
 */
#include "services/ingestd/enrich_llm.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/time.h"

static const char system_prompt[] =
    "You enrich one segment of a conversation for a memory system. Answer with one JSON object:\n"
    "{\"latent\": string, \"entities\": [{\"name\": string, \"type\": string}],\n"
    " \"facts\": [{\"subject\": string, \"relation\": string, \"object\": string, "
    "\"object_is_entity\": bool,\n"
    "            \"valid_from\": \"YYYY-MM-DD\" or \"\", \"sentiment\": number, \"intensity\": "
    "number,\n"
    "            \"reason\": string}],\n"
    " \"outcomes\": [{\"kind\": string, \"target\": string, \"category\": string}]}\n"
    "latent: the segment rewritten to stand alone: say who speaks, replace pronouns and vague "
    "mentions\n"
    "with what they refer to in the context, turn relative dates into absolute ones, state any\n"
    "preference or fact it implies. entities: people, places, organizations, products named.\n"
    "facts: only what the user states about themselves or others; subject \"user\" means the "
    "user;\n"
    "relation in UPPER_SNAKE (LIVES_IN, WORKS_AT, JOB_TITLE, DIET, HAS_PET, LIKES, DISLIKES, "
    "AVOIDS,\n"
    "PREFERS, OPTIMIZES_FOR (what they care most about), ACCEPTED / REJECTED (a suggestion taken "
    "up\n"
    "or turned down), VISITED, ATTENDED, BOUGHT, FAMILY_OF, HAS_GOAL, HAS_HABIT …); sentiment in "
    "[-1, 1],\n"
    "intensity in [0, 1] (\"absolutely hate\" 1, \"not a fan\" 0.3); for ACCEPTED / REJECTED the "
    "reason is the\n"
    "suggestion as it was worded. outcomes: only when the user reports what came of something "
    "suggested to\n"
    "them before: kind SUCCEEDED (\"the restaurant you suggested was great\"), FAILED (\"that "
    "hotel was awful\"),\n"
    "ACTED_ON (\"I ended up going\"), IGNORED (\"I never went\") or REVERSED (\"I switched back\", "
    "\"I don't go\n"
    "there anymore\"); target: the thing's name when the segment or its context names it, else "
    "\"\"; category:\n"
    "the kind of thing (\"restaurant\", \"hotel\", \"book\"), else \"\"; else []. No text outside "
    "the JSON.";

static bool upper_snake(const char *s) {
  if (!s || !(*s >= 'A' && *s <= 'Z') || strlen(s) > 64) return false;
  for (; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
  return true;
}

static const char *str_of(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *outcome_kind(const char *k) {
  static const char *const kinds[] = {"ACTED_ON", "IGNORED", "SUCCEEDED", "FAILED", "REVERSED"};
  for (size_t i = 0; k && i < sizeof kinds / sizeof *kinds; i++)
    if (!strcmp(k, kinds[i])) return kinds[i];
  return NULL;
}

/* The answer's "outcomes" (optional): kept for the user's segments, each with a known kind
 * and a target or a category; false when one is malformed. */
static bool parse_outcomes(const cJSON *v, const eg_segment *sg, eg_arena *a, eg_enriched *o) {
  if (!v) return true;
  if (!cJSON_IsArray(v)) return false;
  size_t n = (size_t)cJSON_GetArraySize(v);
  if (!n || strcmp(sg->role, "user") != 0) return true;
  if (!(o->outcomes = eg_arena_calloc(a, n, sizeof *o->outcomes))) return false;
  const char *text = sg->text ? sg->text : "";
  size_t from = sg->said_to ? sg->said_from : 0, to = sg->said_to ? sg->said_to : strlen(text);
  char *said = eg_arena_strndup(a, text + from, to > from ? to - from : 0);
  for (const cJSON *x = v->child; x; x = x->next) {
    const char *kind = outcome_kind(str_of(x, "kind")), *target = str_of(x, "target"),
               *cat = str_of(x, "category");
    if (!kind || (!(target && *target) && !(cat && *cat))) return false;
    o->outcomes[o->n_outcomes++] = (eg_outcome){kind, eg_arena_strdup(a, target ? target : ""),
                                                eg_arena_strdup(a, cat ? cat : ""), said};
  }
  return true;
}

/* Parse and check an answer; false when anything is off. */
static bool parse_answer(const char *content, const eg_enrich_ctx *ctx, const eg_segment *sg,
                         eg_arena *a, eg_enriched *o) {
  cJSON *j = cJSON_Parse(content);
  if (!cJSON_IsObject(j)) {
    cJSON_Delete(j);
    return false;
  }
  bool ok = true;
  const char *latent = str_of(j, "latent");
  cJSON *ents = cJSON_GetObjectItemCaseSensitive(j, "entities"),
        *facts = cJSON_GetObjectItemCaseSensitive(j, "facts");
  if (!latent || !*latent || !cJSON_IsArray(ents) || !cJSON_IsArray(facts)) ok = false;
  if (ok) {
    o->latent = eg_arena_strdup(a, latent);
    size_t ne = (size_t)cJSON_GetArraySize(ents), nf = (size_t)cJSON_GetArraySize(facts);
    o->mentions = eg_arena_calloc(a, ne + 1, sizeof *o->mentions);
    o->facts = eg_arena_calloc(a, nf ? nf : 1, sizeof *o->facts);
    if (!o->mentions || !o->facts) ok = false;
    if (ok && !strcmp(sg->role, "user"))
      o->mentions[o->n_mentions++] = (eg_mention){(char *)ctx->user_entity, "user"};
    for (cJSON *e = ents->child; ok && e; e = e->next) {
      const char *nm = str_of(e, "name"), *ty = str_of(e, "type");
      if (!nm || !*nm) continue;
      o->mentions[o->n_mentions++] =
          (eg_mention){eg_arena_strdup(a, nm), eg_arena_strdup(a, ty ? ty : "")};
    }
    for (cJSON *f = facts->child; ok && f; f = f->next) {
      const char *subj = str_of(f, "subject"), *rel = str_of(f, "relation"),
                 *obj = str_of(f, "object");
      if (!subj || !*subj || !upper_snake(rel) || !obj || !*obj) {
        ok = false;
        break;
      }
      cJSON *oe = cJSON_GetObjectItemCaseSensitive(f, "object_is_entity");
      cJSON *se = cJSON_GetObjectItemCaseSensitive(f, "sentiment"),
            *in = cJSON_GetObjectItemCaseSensitive(f, "intensity");
      const char *vf = str_of(f, "valid_from"), *reason = str_of(f, "reason");
      eg_fact *x = &o->facts[o->n_facts++];
      memset(x, 0, sizeof *x);
      bool user = !strcmp(subj, "user") || !strcmp(subj, "the user") || !strcmp(subj, "User");
      x->subject = user ? (char *)ctx->user_entity : eg_arena_strdup(a, subj);
      x->subject_type = user ? "user" : "";
      x->relation = eg_arena_strdup(a, rel);
      x->object = eg_arena_strdup(a, obj);
      x->object_type = "";
      x->object_entity = cJSON_IsTrue(oe);
      x->sentiment = cJSON_IsNumber(se) ? (float)se->valuedouble : 0;
      x->intensity = cJSON_IsNumber(in) ? (float)in->valuedouble : 0;
      if (x->sentiment < -1 || x->sentiment > 1 || x->intensity < 0 || x->intensity > 1) ok = false;
      x->confidence = 0.8f;
      x->reason = eg_arena_strdup(a, reason ? reason : "");
      x->utterance = (char *)sg->text;
      if (vf && *vf && eg_time_parse(vf, &x->valid_from, NULL) != EG_OK) ok = false;
    }
    if (ok) ok = parse_outcomes(cJSON_GetObjectItemCaseSensitive(j, "outcomes"), sg, a, o);
  }
  cJSON_Delete(j);
  return ok;
}

eg_code eg_enrich_llm(eg_llm *l, const eg_enrich_ctx *ctx, const eg_segment *segs, size_t n,
                      eg_arena *a, eg_enriched *out, uint32_t *fallbacks, eg_err *err) {
  *fallbacks = 0;
  for (size_t i = 0; i < n; i++) {
    eg_buf b = EG_BUF_INIT;
    char day[16];
    eg_time_format_date(segs[i].time, day, sizeof day);
    eg_buf_printf(&b, "Date of the segment: %s\nContext before:\n", day);
    size_t from = i > ctx->prev ? i - ctx->prev : 0;
    for (size_t k = from; k < i; k++) eg_buf_printf(&b, "- %s: %s\n", segs[k].role, segs[k].text);
    eg_buf_printf(&b, "Segment (%s): %s\nContext after:\n", segs[i].role, segs[i].text);
    for (size_t k = i + 1; k < n && k <= i + ctx->next; k++)
      eg_buf_printf(&b, "- %s: %s\n", segs[k].role, segs[k].text);
    char *content = NULL;
    eg_err e;
    memset(&out[i], 0, sizeof out[i]);
    bool ok = eg_llm_chat(l, system_prompt, b.data ? b.data : "", true, a, &content, &e) == EG_OK &&
              parse_answer(content, ctx, &segs[i], a, &out[i]);
    eg_buf_free(&b);
    if (!ok) {
      if (content) eg_llm_count_failure(l); /* answered, but not usable */
      memset(&out[i], 0, sizeof out[i]);
      /* Enrich the window with the rules and keep the segment's own result. */
      size_t wn = i - from + 1;
      eg_enriched *tmp = eg_arena_calloc(a, wn, sizeof *tmp);
      if (!tmp || eg_enrich_rules(ctx, segs + from, wn, a, tmp, err))
        return eg_err_set(err, EG_ENOMEM, "out of memory");
      out[i] = tmp[wn - 1];
      (*fallbacks)++;
    }
  }
  return EG_OK;
}
