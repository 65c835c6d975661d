/*
 * chat_outcomes.c — see chat_outcomes.h.
 */
#include "services/ingestd/chat_outcomes.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/edge.h"
#include "common/graph_client.h"
#include "common/text.h"

/* The relation an outcome read from chat is recorded on: a suggestion the user took up. */
#define OUTCOME_RELATION "ACCEPTED"
#define MAX_WORDS 16

/* s in lower-case words (letters, digits, any non-ASCII byte), a leading article dropped. */
static size_t words_of(const char *s, char w[][32], size_t max) {
  size_t n = 0;
  for (const char *p = s ? s : ""; *p && n < max;) {
    unsigned char c = (unsigned char)*p;
    if (!(isalnum(c) || c >= 0x80)) {
      p++;
      continue;
    }
    size_t k = 0;
    for (; *p && (isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80); p++)
      if (k < 31) w[n][k++] = (char)tolower((unsigned char)*p);
    w[n][k] = '\0';
    if (!(n == 0 && (!strcmp(w[0], "the") || !strcmp(w[0], "a") || !strcmp(w[0], "an")))) n++;
  }
  return n;
}

/* The same words, or the first words of the other ("Sakura" and "Sakura Sushi"). */
static bool name_fits(const char *target, const char *object) {
  char a[MAX_WORDS][32], b[MAX_WORDS][32];
  size_t na = words_of(target, a, MAX_WORDS), nb = words_of(object, b, MAX_WORDS);
  if (!na || !nb) return false;
  for (size_t i = 0; i < na && i < nb; i++)
    if (strcmp(a[i], b[i]) != 0) return false;
  return true;
}

/* A category and the words that name a thing of it. */
static const char *const families[][12] = {
    {"restaurant", "restaurant", "bistro", "diner", "eatery", "trattoria", "pizzeria", "steakhouse",
     "brasserie", "tavern", "cafe", "café"},
    {"place", "place", "spot", "restaurant", "hotel", "bar", "cafe", "museum", "park", "shop",
     "venue", "place"},
    {"hotel", "hotel", "hostel", "inn", "resort", "motel", "lodge", "guesthouse", "airbnb", NULL},
    {"book", "book", "novel", "memoir", "biography", NULL},
    {"movie", "movie", "film", NULL},
    {"film", "film", "movie", NULL},
    {"show", "show", "series", NULL},
    {"series", "series", "show", NULL},
    {"app", "app", "application", "tool", NULL},
    {"tool", "tool", "app", "library", "framework", NULL},
};

static bool word_in(const char *word, const char *text) {
  char w[MAX_WORDS * 4][32];
  size_t n = words_of(text, w, MAX_WORDS * 4);
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(w[i]);
    if (!strcmp(w[i], word) ||
        (l > 3 && w[i][l - 1] == 's' && !strncmp(w[i], word, l - 1) && !word[l - 1]))
      return true;
  }
  return false;
}

static bool category_fits(const char *category, const eg_outcome_edge *e) {
  char c[1][32];
  if (!words_of(category, c, 1)) return false;
  size_t l = strlen(c[0]);
  if (l > 3 && c[0][l - 1] == 's' && c[0][l - 2] != 's') c[0][l - 1] = '\0'; /* "restaurants" */
  const char *const *family = NULL;
  for (size_t i = 0; i < sizeof families / sizeof *families && !family; i++)
    if (!strcmp(families[i][0], c[0])) family = families[i] + 1;
  const char *self[2] = {c[0], NULL};
  if (!family) family = self;
  for (size_t i = 0; i < 11 && family[i]; i++)
    if (word_in(family[i], e->object_type) || word_in(family[i], e->object) ||
        word_in(family[i], e->suggestion))
      return true;
  return false;
}

long eg_outcome_resolve(const eg_outcome *o, int64_t time, const char *session, int32_t turn,
                        const eg_outcome_edge *edges, size_t n) {
  bool named = o->target && *o->target;
  if (!named && !(o->category && *o->category)) return -1;
  long best = -1;
  for (size_t i = 0; i < n; i++) {
    const eg_outcome_edge *e = &edges[i];
    if (e->valid_from > time) continue; /* not yet suggested when the outcome was said */
    if (e->session && session && !strcmp(e->session, session) && e->turn >= turn) continue;
    if (!(named ? name_fits(o->target, e->object) : category_fits(o->category, e))) continue;
    const eg_outcome_edge *b = best < 0 ? NULL : &edges[best];
    if (!b || e->valid_from > b->valid_from ||
        (e->valid_from == b->valid_from && e->t_commit > b->t_commit))
      best = (long)i;
  }
  return best;
}

/* ---- graphd ---------------------------------------------------------------------------- */

static eg_code history(eg_rpc_client *graphd, const Engram__V1__Scope *scope,
                       const char *user_entity, Engram__V1__HistoryResponse **out, eg_err *err) {
  Engram__V1__EntityRef me = ENGRAM__V1__ENTITY_REF__INIT;
  me.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  me.name = (char *)user_entity;
  Engram__V1__HistoryRequest req = ENGRAM__V1__HISTORY_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)scope;
  req.subject = &me;
  req.relation = OUTCOME_RELATION;
  return eg_graphd_history(graphd, &req, out, err);
}

/* The entity types of the current edges' objects, in edges' order ("" when unknown). */
static eg_code object_types(eg_rpc_client *graphd, const Engram__V1__Scope *scope,
                            eg_outcome_edge *edges, Engram__V1__Edge **src, size_t n, eg_arena *a,
                            eg_err *err) {
  uint64_t *ids = eg_arena_alloc(a, (n ? n : 1) * sizeof *ids);
  if (!ids) return eg_err_set(err, EG_ENOMEM, "out of memory");
  Engram__V1__GetEntitiesRequest req = ENGRAM__V1__GET_ENTITIES_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)scope;
  req.ids = ids;
  for (size_t i = 0; i < n; i++)
    if (src[i]->object && src[i]->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID)
      ids[req.n_ids++] = src[i]->object->entity_id;
  if (!req.n_ids) return EG_OK;
  Engram__V1__GetEntitiesResponse *r = NULL;
  eg_code rc = eg_graphd_get_entities(graphd, &req, &r, err);
  if (rc) return rc;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; src[i]->object && k < r->n_entities; k++)
      if (src[i]->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID &&
          r->entities[k]->id == src[i]->object->entity_id)
        edges[i].object_type = eg_arena_strdup(a, r->entities[k]->type ? r->entities[k]->type : "");
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return EG_OK;
}

/* Is an outcome of this kind, note and source on any commit of the chosen edge's
 * (relation, object) already, or recorded earlier in this call? */
static bool already(const Engram__V1__HistoryResponse *h, const Engram__V1__Edge *chosen, int kind,
                    const char *note, const char *source) {
  for (size_t i = 0; i < h->n_entries; i++) {
    const Engram__V1__Edge *e = h->entries[i]->edge;
    if (strcmp(eg_edge_object(e), eg_edge_object(chosen)) != 0) continue;
    for (size_t k = 0; k < e->n_outcomes; k++) {
      const Engram__V1__Outcome *o = e->outcomes[k];
      if ((int)o->kind == kind && !strcmp(o->source ? o->source : "", source) &&
          !strcmp(o->note ? o->note : "", note))
        return true;
    }
  }
  return false;
}

typedef struct recorded_now {
  const char *object;
  int kind;
  const char *note;
} recorded_now;

eg_code eg_chat_outcomes_record(eg_rpc_client *graphd, const Engram__V1__Scope *scope,
                                const char *session_id, const char *user_entity,
                                const eg_chat_outcome *v, size_t n, size_t note_max, eg_arena *a,
                                uint32_t *recorded, eg_err *err) {
  *recorded = 0;
  if (!n) return EG_OK;
  Engram__V1__HistoryResponse *h = NULL;
  eg_code rc = history(graphd, scope, user_entity, &h, err);
  if (rc) return rc;
  /* the current acceptances: asserted and not replaced since */
  size_t nc = 0;
  eg_outcome_edge *edges = eg_arena_calloc(a, h->n_entries ? h->n_entries : 1, sizeof *edges);
  Engram__V1__Edge **src = eg_arena_alloc(a, (h->n_entries ? h->n_entries : 1) * sizeof *src);
  if (!edges || !src) rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < h->n_entries; i++) {
    Engram__V1__Edge *e = h->entries[i]->edge;
    if (h->entries[i]->superseded || e->op != ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT) continue;
    const Engram__V1__EdgeMeta *m = e->meta;
    edges[nc] = (eg_outcome_edge){e->id,
                                  eg_edge_object(e),
                                  "",
                                  m && m->reason ? m->reason : "",
                                  e->valid_from,
                                  e->t_commit,
                                  m && m->source_session_id ? m->source_session_id : "",
                                  m ? m->source_turn : -1};
    src[nc++] = e;
  }
  recorded_now *done = eg_arena_alloc(a, n * sizeof *done);
  size_t n_done = 0;
  if (!done) rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  bool by_category = false;
  for (size_t i = 0; i < n; i++) by_category |= !*v[i].o->target;
  if (!rc && by_category && nc) rc = object_types(graphd, scope, edges, src, nc, a, err);
  for (size_t i = 0; !rc && i < n; i++) {
    const eg_outcome *o = v[i].o;
    long k = eg_outcome_resolve(o, v[i].time, session_id, v[i].turn, edges, nc);
    char kind_name[40];
    snprintf(kind_name, sizeof kind_name, "OUTCOME_KIND_%s", o->kind);
    const ProtobufCEnumValue *kv = protobuf_c_enum_descriptor_get_value_by_name(
        &engram__v1__outcome_kind__descriptor, kind_name);
    if (k < 0 || !kv) continue; /* nothing fits: no outcome rather than a guess */
    const char *said = o->utterance ? o->utterance : "";
    size_t len = strlen(said), cut = eg_utf8_cut(said, len, note_max);
    char *note = eg_arena_strndup(a, said, cut);
    if (!note) {
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
    if (already(h, src[k], kv->value, note, session_id)) continue;
    bool again = false; /* the same outcome said twice in this session is recorded once */
    for (size_t d = 0; d < n_done; d++)
      again |= done[d].kind == kv->value && !strcmp(done[d].object, eg_edge_object(src[k])) &&
               !strcmp(done[d].note, note);
    if (again) continue;
    Engram__V1__RecordOutcomeRequest req = ENGRAM__V1__RECORD_OUTCOME_REQUEST__INIT;
    req.scope = (Engram__V1__Scope *)scope;
    req.edge_id = edges[k].id;
    req.kind = (Engram__V1__OutcomeKind)kv->value;
    req.time = v[i].time;
    req.note = note;
    req.source = (char *)session_id;
    if ((rc = eg_graphd_record_outcome(graphd, &req, NULL, err))) break;
    done[n_done++] = (recorded_now){eg_edge_object(src[k]), kv->value, note};
    (*recorded)++;
  }
  protobuf_c_message_free_unpacked(&h->base, NULL);
  return rc;
}
