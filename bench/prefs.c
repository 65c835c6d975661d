/*
 * prefs.c — `engram-bench prefs` (see prefs.h).
 */
#include "bench/prefs.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/engine.h"
#include "bench/split.h"
#include "common/buf.h"
#include "common/cfg.h"
#include "common/edge.h"
#include "common/log.h"
#include "common/recall_client.h"
#include "common/time.h"
#include "proto/engram/v1/ingest.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/stub_http.h"
#include "tests/testlib.h"

#define PREFS_DEFAULT EG_SOURCE_DIR "/bench/data/prefs.json"
#define TENANT "prefs"
#define HELD_CONFIDENCE \
  0.5f /* below it a listed preference is not held: less likely held than not */

enum { ENR_RULES, ENR_LLM, N_ENR };
static const char *const enricher_names[N_ENR] = {"rules", "llm"};
static const int enricher_values[N_ENR] = {ENGRAM__V1__ENRICHER__ENRICHER_RULES,
                                           ENGRAM__V1__ENRICHER__ENRICHER_LLM};

/* ---- the data ---------------------------------------------------------------------------- */

static const char *str(const cJSON *o, const char *k) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}
static const cJSON *arr(const cJSON *o, const char *k) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsArray(a) ? a : NULL;
}

/* Noon UTC of a YYYY-MM-DD date; 0 when malformed. */
static int64_t day_time(const char *date) {
  char iso[40];
  int64_t t = 0;
  if (!date || strlen(date) != 10) return 0;
  snprintf(iso, sizeof iso, "%sT12:00:00Z", date);
  return eg_time_parse(iso, &t, NULL) == EG_OK ? t : 0;
}

enum side { SIDE_FOR, SIDE_AGAINST, SIDE_GOAL, SIDE_NONE };

static enum side side_of(const char *rel) {
  static const char *const f[] = {"PREFERS", "LIKES", "ACCEPTED"}, *const a[] = {"AVOIDS",
                                                                                 "DISLIKES",
                                                                                 "REJECTED"};
  for (int i = 0; rel && i < 3; i++) {
    if (!strcmp(rel, f[i])) return SIDE_FOR;
    if (!strcmp(rel, a[i])) return SIDE_AGAINST;
  }
  return rel && !strcmp(rel, "OPTIMIZES_FOR") ? SIDE_GOAL : SIDE_NONE;
}

/* An expectation's (relation, object), checked when the set is read. */
static bool pref_ok(const cJSON *p) {
  return p && side_of(str(p, "relation")) != SIDE_NONE && str(p, "object") && *str(p, "object");
}

/* A clear word on what is wrong with the set, or NULL when it is usable. */
static const char *check_set(const cJSON *scenarios, char *why, size_t len) {
  const cJSON *s, *x, *m, *a;
  cJSON_ArrayForEach(s, scenarios) {
    const char *name = str(s, "name");
    if (!name || !*name || !arr(s, "sessions") || !arr(s, "questions")) {
      snprintf(why, len, "a scenario without name, sessions or questions");
      return why;
    }
    cJSON_ArrayForEach(x, arr(s, "sessions")) {
      if (!str(x, "id") || !day_time(str(x, "date")) || !arr(x, "messages")) {
        snprintf(why, len, "%s: a session without id, date (YYYY-MM-DD) or messages", name);
        return why;
      }
      cJSON_ArrayForEach(m, arr(x, "messages")) {
        if (!str(m, "role") || !str(m, "content")) {
          snprintf(why, len, "%s/%s: a message without role or content", name, str(x, "id"));
          return why;
        }
        cJSON_ArrayForEach(a, arr(m, "annotate")) if (!pref_ok(a)) {
          snprintf(why, len, "%s/%s: an annotation without a preference relation or object", name,
                   str(x, "id"));
          return why;
        }
      }
      cJSON_ArrayForEach(a, arr(x, "outcomes")) {
        const char *via = str(a, "via"), *kind = str(a, "kind");
        char full[64];
        snprintf(full, sizeof full, "OUTCOME_KIND_%s", kind ? kind : "");
        if (!pref_ok(a) || !via || (strcmp(via, "client") && strcmp(via, "chat")) ||
            !protobuf_c_enum_descriptor_get_value_by_name(&engram__v1__outcome_kind__descriptor,
                                                          full)) {
          snprintf(why, len,
                   "%s/%s: an outcome needs via client|chat, kind ACTED_ON|…|REVERSED, relation "
                   "and object",
                   name, str(x, "id"));
          return why;
        }
      }
    }
    cJSON_ArrayForEach(x, arr(s, "questions")) {
      if (!str(x, "id") || !str(x, "question") || !day_time(str(x, "at")) || !arr(x, "expect")) {
        snprintf(why, len, "%s: a question without id, question, at or expect", name);
        return why;
      }
      cJSON_ArrayForEach(a, arr(x, "expect")) {
        const char *is = str(a, "is");
        bool ok = pref_ok(a) && is &&
                  (!strcmp(is, "present") || !strcmp(is, "absent") ||
                   (!strcmp(is, "higher") && pref_ok(cJSON_GetObjectItemCaseSensitive(a, "than"))));
        if (!ok) {
          snprintf(why, len,
                   "%s/%s: an expectation needs relation, object and is present|absent|higher "
                   "(with than)",
                   name, str(x, "id"));
          return why;
        }
      }
    }
  }
  return NULL;
}

/* ---- the stand-in for the chat model ------------------------------------------------------
 * The LLM enricher sends one request per segment: "Date of the segment: D", the context,
 * "Segment (ROLE): TEXT". A segment of a session is a round (ingestd): a user message with
 * the assistant replies after it, "user: …\nassistant: …", or a message alone as it is.
 * The stand-in rebuilds every annotated round's text the same way and answers a segment
 * whose text is that of an annotated round with the round's annotations as facts (the
 * rounds of the set are told apart by their text: standin_index); any other segment gets no
 * fact. It is not a model: it never reads the words. */

typedef struct round {
  char *text; /* the segment text ingestd sends for the round */
  const cJSON *annotate;
} round;

typedef struct standin {
  round *r;
  size_t n;
  atomic_int windows, answered; /* segments asked; of them, annotated rounds answered */
} standin;

/* The round starting at message i of session x as ingestd writes it; *end is past it. */
static char *round_text(const cJSON *msgs, int i, int *end) {
  int n = cJSON_GetArraySize(msgs), j = i + 1;
  const cJSON *m = cJSON_GetArrayItem(msgs, i);
  if (!strcmp(str(m, "role"), "user"))
    while (j < n && !strcmp(str(cJSON_GetArrayItem(msgs, j), "role"), "assistant")) j++;
  *end = j;
  if (j == i + 1) return strdup(str(m, "content"));
  eg_buf b = EG_BUF_INIT;
  for (int k = i; k < j; k++) {
    const cJSON *mk = cJSON_GetArrayItem(msgs, k);
    eg_buf_printf(&b, "%s%s: %s", k > i ? "\n" : "", str(mk, "role"), str(mk, "content"));
  }
  return b.data; /* owned by the caller */
}

/* Index the annotated rounds; false (and the round said on stderr) when two have the same
 * text, which the stand-in could not tell apart. */
static bool standin_index(standin *s, const cJSON *const *scen, size_t ns) {
  for (size_t k = 0; k < ns; k++) {
    const cJSON *x;
    cJSON_ArrayForEach(x, arr(scen[k], "sessions")) {
      const cJSON *msgs = arr(x, "messages");
      for (int i = 0, end; i < cJSON_GetArraySize(msgs); i = end) {
        char *text = round_text(msgs, i, &end);
        const cJSON *ann = arr(cJSON_GetArrayItem(msgs, i), "annotate");
        if (!ann || !text) {
          free(text);
          continue;
        }
        for (size_t k2 = 0; k2 < s->n; k2++)
          if (!strcmp(s->r[k2].text, text)) {
            fprintf(
                stderr,
                "prefs: two annotated rounds read \"%.60s\": the stand-in cannot tell them apart\n",
                text);
            free(text);
            return false;
          }
        s->r = realloc(s->r, (s->n + 1) * sizeof *s->r);
        round *r = &s->r[s->n++];
        r->text = text;
        r->annotate = ann;
      }
    }
  }
  return true;
}

static double num_or(const cJSON *o, const char *k, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* The enricher's answer for a segment: the annotations as facts (subject "user"). */
static char *standin_answer(const round *r, const char *segment) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "latent", segment);
  cJSON_AddArrayToObject(o, "entities");
  cJSON *facts = cJSON_AddArrayToObject(o, "facts");
  const cJSON *a;
  for (a = r ? r->annotate->child : NULL; a; a = a->next) {
    enum side sd = side_of(str(a, "relation"));
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "subject", "user");
    cJSON_AddStringToObject(f, "relation", str(a, "relation"));
    cJSON_AddStringToObject(f, "object", str(a, "object"));
    cJSON_AddBoolToObject(f, "object_is_entity",
                          cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "entity")));
    cJSON_AddStringToObject(f, "valid_from", "");
    cJSON_AddNumberToObject(f, "sentiment",
                            num_or(a, "sentiment",
                                   sd == SIDE_AGAINST ? -0.8
                                   : sd == SIDE_FOR   ? 0.8
                                                      : 0.5));
    cJSON_AddNumberToObject(f, "intensity", num_or(a, "intensity", 0.7));
    cJSON_AddStringToObject(f, "reason", "");
    cJSON_AddItemToArray(facts, f);
  }
  char *content = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  cJSON *resp = cJSON_CreateObject(), *choices = cJSON_AddArrayToObject(resp, "choices"),
        *c0 = cJSON_CreateObject();
  cJSON *msg = cJSON_AddObjectToObject(c0, "message");
  cJSON_AddStringToObject(msg, "role", "assistant");
  cJSON_AddStringToObject(msg, "content", content ? content : "{}");
  cJSON_AddItemToArray(choices, c0);
  free(content);
  char *body = cJSON_PrintUnformatted(resp);
  cJSON_Delete(resp);
  return body;
}

static eg_stub_reply standin_serve(void *ctx, const char *url, const char *auth, const char *body) {
  (void)auth;
  standin *s = ctx;
  cJSON *req = strstr(url, "/chat/completions") ? cJSON_Parse(body) : NULL;
  const cJSON *msgs = req ? arr(req, "messages") : NULL;
  const char *prompt =
      msgs ? str(cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1), "content") : NULL;
  const char *date = prompt ? strstr(prompt, "Date of the segment: ") : NULL;
  const char *seg = prompt ? strstr(prompt, "\nSegment (") : NULL;
  seg = seg ? strstr(seg, "): ") : NULL;
  const char *seg_end = seg ? strstr(seg, "\nContext after:") : NULL;
  if (!date || !seg || !seg_end) {
    cJSON_Delete(req);
    return (eg_stub_reply){400, strdup("{\"error\":{\"message\":\"not an enrichment request\"}}"),
                           0, NULL};
  }
  atomic_fetch_add(&s->windows, 1);
  seg += 3;
  char *segment = strndup(seg, (size_t)(seg_end - seg));
  const round *hit = NULL;
  for (size_t i = 0; i < s->n && !hit; i++)
    if (!strcmp(s->r[i].text, segment)) hit = &s->r[i];
  if (hit) atomic_fetch_add(&s->answered, 1);
  char *answer = standin_answer(hit, segment);
  free(segment);
  cJSON_Delete(req);
  return (eg_stub_reply){200, answer, 0, NULL};
}

/* ---- matching a listed preference to an expectation ------------------------------------- */

/* Lower case, letters and digits only, one space between words, a plural's "s" dropped
 * ("window seats" = "window seat"; not "-ss", not words of three letters), no leading "the". */
static void normalize(const char *s, char *out, size_t len) {
  size_t n = 0, word = 0;
  bool space = true;
  for (; n + 2 < len; s++) {
    unsigned char c = s ? (unsigned char)*s : 0;
    if (c && (isalnum(c) || c >= 0x80)) {
      if (space) word = n;
      out[n++] = (char)tolower(c);
      space = false;
      continue;
    }
    if (!space && n - word > 3 && out[n - 1] == 's' && out[n - 2] != 's') n--;
    if (!c) break;
    if (!space) out[n++] = ' ';
    space = true;
  }
  while (n && out[n - 1] == ' ') n--;
  out[n] = 0;
  if (!strncmp(out, "the ", 4)) memmove(out, out + 4, n - 3);
}

/* Do two objects name the same thing: equal, or one holds the other as whole words? */
static bool same_object(const char *a, const char *b) {
  char x[300], y[300], px[304], py[304];
  normalize(a, x, sizeof x);
  normalize(b, y, sizeof y);
  if (!*x || !*y) return false;
  snprintf(px, sizeof px, " %s ", x);
  snprintf(py, sizeof py, " %s ", y);
  return !strcmp(x, y) || strstr(px, py) || strstr(py, px);
}

typedef struct listed {
  const char *relation, *object;
  float confidence;
  Engram__V1__EpistemicStatus status;
  bool derived;
} listed;

static bool held(const listed *l) {
  return l->confidence >= HELD_CONFIDENCE &&
         l->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE &&
         l->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_SUPERSEDED;
}

static bool matches(const listed *l, const cJSON *p) {
  return side_of(l->relation) == side_of(str(p, "relation")) &&
         same_object(l->object, str(p, "object"));
}

/* The most confident listed preference matching p (held ones only when want_held); NULL when none.
 */
static const listed *best(const listed *ls, size_t n, const cJSON *p, bool want_held) {
  const listed *b = NULL;
  for (size_t i = 0; i < n; i++)
    if (matches(&ls[i], p) && (!want_held || held(&ls[i])) &&
        (!b || ls[i].confidence > b->confidence))
      b = &ls[i];
  return b;
}

/* ---- the run --------------------------------------------------------------------------------- */

enum { N_NEEDS = 8 };
static const char *const need_names[N_NEEDS] = {"stated",         "accumulated",  "accepted",
                                                "outcome-client", "outcome-chat", "reversed",
                                                "derived",        "other"};

typedef struct tally {
  int questions, correct, present, present_hit, absent, absent_ok, higher, higher_ok, items,
      items_right;
} tally;

typedef struct ctx {
  eg_bengine eng;
  eg_rpc_client *graphd;
  int enr;
  bool verbose;
  const char *run_id;
  tally all, need[N_NEEDS];
  int outcomes_recorded, outcomes_no_edge, outcomes_chat, failures;
  listed
      graph[128]; /* the scenario user's current preferences in graphd (State), after the ingest */
  size_t n_graph;
  Engram__V1__StateResponse *graph_state; /* holds graph[]'s strings */
  cJSON *json;                            /* this enricher's summary */
  eg_buf misses;                          /* one line per question not fully right */
} ctx;

/* A scenario's timeline is moved so that its last question is asked now: its sessions
 * were weeks ago, as the dates say, and what was derived while ingesting them (valid from
 * when it was derived) is valid when the questions are asked. */
static int64_t last_question(const cJSON *scen) {
  int64_t t = 0;
  const cJSON *q;
  cJSON_ArrayForEach(q, arr(scen, "questions")) if (day_time(str(q, "at")) > t) t =
      day_time(str(q, "at"));
  return t;
}

static void user_of(const ctx *c, const cJSON *scen, char *out, size_t len) {
  snprintf(out, len, "%s-%s-%s", c->run_id, enricher_names[c->enr], str(scen, "name"));
}

/* Record an outcome the application reports: on the current edge of the user's it is
 * about (the relation named, else one of the same side, with the object). */
static void record_outcome(ctx *c, const char *user, const cJSON *o) {
  char subject[220], full[64];
  snprintf(subject, sizeof subject, "user:%s", user);
  snprintf(full, sizeof full, "OUTCOME_KIND_%s", str(o, "kind"));
  const ProtobufCEnumValue *kind =
      protobuf_c_enum_descriptor_get_value_by_name(&engram__v1__outcome_kind__descriptor, full);
  static const char *const by_side[3][3] = {
      {"PREFERS", "LIKES", "ACCEPTED"}, {"AVOIDS", "DISLIKES", "REJECTED"}, {"OPTIMIZES_FOR"}};
  const char *rels[4] = {str(o, "relation")};
  enum side sd = side_of(rels[0]);
  for (int i = 0, k = 1; i < 3; i++)
    if (by_side[sd][i] && strcmp(by_side[sd][i], rels[0])) rels[k++] = by_side[sd][i];
  uint64_t id = 0;
  for (int r = 0; r < 4 && rels[r] && !id; r++) {
    Engram__V1__StateResponse *st = NULL;
    eg_err e;
    if (gc_state_as(c->graphd, TENANT, user, subject, rels[r], 0, 0, &st, &e) != EG_OK) {
      fprintf(stderr, "prefs: state of %s %s: %s\n", subject, rels[r], e.msg);
      c->failures++;
      return;
    }
    for (size_t i = 0; i < st->n_results && !id; i++)
      for (size_t v = 0; v < st->results[i]->n_values && !id; v++) {
        const Engram__V1__Edge *ed = st->results[i]->values[v];
        if (ed->op == ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT &&
            same_object(eg_edge_object(ed), str(o, "object")))
          id = ed->id;
      }
    protobuf_c_message_free_unpacked(&st->base, NULL);
  }
  if (!id) { /* nothing was read from the chat that the application could report on */
    c->outcomes_no_edge++;
    eg_buf_printf(&c->misses, "- %s: outcome %s on %s %s not recorded: no such edge\n", user,
                  str(o, "kind"), str(o, "relation"), str(o, "object"));
    return;
  }
  eg_err e;
  if (gc_outcome(c->graphd, TENANT, user, id, (Engram__V1__OutcomeKind)kind->value, str(o, "note"),
                 NULL, &e) != EG_OK) {
    fprintf(stderr, "prefs: outcome on #%llu: %s\n", (unsigned long long)id, e.msg);
    c->failures++;
    return;
  }
  c->outcomes_recorded++;
}

static void ingest(ctx *c, const char *user, const cJSON *x, int64_t shift) {
  const cJSON *msgs = arr(x, "messages"), *m;
  size_t n = (size_t)cJSON_GetArraySize(msgs), i = 0;
  eg_bmsg *bm = calloc(n ? n : 1, sizeof *bm);
  cJSON_ArrayForEach(m, msgs) bm[i++] =
      (eg_bmsg){(char *)str(m, "role"), NULL, (char *)str(m, "content")};
  eg_bsession s = {(char *)str(x, "id"), day_time(str(x, "date")) + shift, bm, n};
  eg_bgroup g = {(char *)user, &s, 1, NULL, 0};
  eg_err e;
  if (eg_bengine_ingest_session(&c->eng, &g, &s, NULL, NULL, &e) != EG_OK) {
    fprintf(stderr, "prefs: ingest %s/%s: %s\n", user, s.id, e.msg);
    c->failures++;
  }
  free(bm);
  const cJSON *o;
  cJSON_ArrayForEach(o, arr(x, "outcomes")) {
    if (!strcmp(str(o, "via"), "client"))
      record_outcome(c, user, o);
    else
      c->outcomes_chat++;
  }
}

/* What graphd holds for the user (State of the seven relations): a miss is told apart as
 * "not in the graph" (not extracted) or "in the graph, not listed" (not picked by Recall). */
static void read_graph(ctx *c, const char *user) {
  static const char *const rels[] = {"PREFERS",  "LIKES",    "ACCEPTED",     "AVOIDS",
                                     "DISLIKES", "REJECTED", "OPTIMIZES_FOR"};
  char subject[220];
  snprintf(subject, sizeof subject, "user:%s", user);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = TENANT;
  scope.user = (char *)user;
  Engram__V1__EntityRef ref = ENGRAM__V1__ENTITY_REF__INIT;
  ref.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  ref.name = subject;
  Engram__V1__StateQuery q[7], *qp[7];
  for (int i = 0; i < 7; i++) {
    engram__v1__state_query__init(&q[i]);
    q[i].subject = &ref;
    q[i].relation = (char *)rels[i];
    qp[i] = &q[i];
  }
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  req.scope = &scope;
  req.queries = qp;
  req.n_queries = 7;
  c->n_graph = 0;
  Engram__V1__StateResponse *resp = NULL;
  eg_err e;
  if (eg_graphd_state(c->graphd, &req, &resp, &e) != EG_OK) {
    fprintf(stderr, "prefs: state of %s: %s\n", subject, e.msg);
    c->failures++;
    return;
  }
  c->graph_state = resp;
  for (size_t i = 0; i < c->graph_state->n_results; i++)
    for (size_t v = 0; v < c->graph_state->results[i]->n_values && c->n_graph < 128; v++) {
      const Engram__V1__Edge *ed = c->graph_state->results[i]->values[v];
      if (ed->op != ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT) continue;
      c->graph[c->n_graph++] =
          (listed){.relation = ed->relation,
                   .object = eg_edge_object(ed),
                   .confidence = ed->belief ? ed->belief->confidence : 0,
                   .derived = ed->meta &&
                              ed->meta->provenance == ENGRAM__V1__PROVENANCE__PROVENANCE_DERIVED};
    }
}

/* The preference items of a Recall, as listed. */
static size_t list_values(const Engram__V1__RecallResponse *r, listed *out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < r->n_items && n < cap; i++) {
    const Engram__V1__RecallItem *it = r->items[i];
    if (!it->preference || !it->fact) continue;
    const Engram__V1__Edge *e = it->fact;
    out[n++] = (listed){
        .relation = e->relation,
        .object = eg_edge_object(e),
        .confidence = e->belief ? e->belief->confidence : 0,
        .status = it->status,
        .derived = e->meta && e->meta->provenance == ENGRAM__V1__PROVENANCE__PROVENANCE_DERIVED,
    };
  }
  return n;
}

static void add_tally(tally *t, const tally *q) {
  t->questions += q->questions, t->correct += q->correct, t->present += q->present,
      t->present_hit += q->present_hit;
  t->absent += q->absent, t->absent_ok += q->absent_ok, t->higher += q->higher,
      t->higher_ok += q->higher_ok;
  t->items += q->items, t->items_right += q->items_right;
}

/* Score one question's listed preferences; a line per failed check goes to c->misses. */
static void score(ctx *c, const char *qid, const cJSON *expect, const listed *ls, size_t n,
                  tally *q) {
  eg_buf why = EG_BUF_INIT;
  const cJSON *x;
  cJSON_ArrayForEach(x, expect) {
    const char *is = str(x, "is");
    const listed *h = best(ls, n, x, true), *any = best(ls, n, x, false);
    /* a higher's first side must be held too; counted once when also expected present */
    bool also_present = false;
    const cJSON *y;
    cJSON_ArrayForEach(y, expect) also_present |=
        y != x && !strcmp(is, "higher") && !strcmp(str(y, "is"), "present") &&
        side_of(str(y, "relation")) == side_of(str(x, "relation")) &&
        same_object(str(y, "object"), str(x, "object"));
    if (!strcmp(is, "present") || (!strcmp(is, "higher") && !also_present)) {
      q->present++;
      q->present_hit += h != NULL;
      if (!h)
        eg_buf_printf(&why, "; %s %s: %s", str(x, "relation"), str(x, "object"),
                      !any && best(c->graph, c->n_graph, x, false) ? "in the graph, not listed"
                      : !any                                       ? "not in the graph"
                      : any->confidence < HELD_CONFIDENCE ? "listed below the held confidence"
                                                          : "listed as stale");
      const listed *g = any ? any : best(c->graph, c->n_graph, x, false);
      if (g && !h) eg_buf_printf(&why, " (%s %.2f)", g->relation, g->confidence);
    }
    if (!strcmp(is, "absent")) {
      q->absent++;
      q->absent_ok += !h;
      if (h)
        eg_buf_printf(&why, "; %s %s: held (%s %.2f), expected absent", str(x, "relation"),
                      str(x, "object"), h->relation, h->confidence);
    }
    if (!strcmp(is, "higher")) {
      const cJSON *than = cJSON_GetObjectItemCaseSensitive(x, "than");
      const listed *b = best(ls, n, than, false);
      bool ok = h && (!b || h->confidence > b->confidence);
      q->higher++;
      q->higher_ok += ok;
      if (!ok)
        eg_buf_printf(&why, "; %s %s (%.2f) not above %s %s (%.2f)", str(x, "relation"),
                      str(x, "object"), h ? h->confidence : 0, str(than, "relation"),
                      str(than, "object"), b ? b->confidence : 0);
    }
  }
  /* precision: a held item is right when the question names it as held (present, or
   * either side of a comparison) and not as absent */
  for (size_t i = 0; i < n; i++) {
    if (!held(&ls[i])) continue;
    bool right = false, wrong = false;
    cJSON_ArrayForEach(x, expect) {
      const char *is = str(x, "is");
      if (matches(&ls[i], x) && !strcmp(is, "absent"))
        wrong = true;
      else if (matches(&ls[i], x))
        right = true;
      if (!strcmp(is, "higher") && matches(&ls[i], cJSON_GetObjectItemCaseSensitive(x, "than")))
        right = true;
    }
    q->items++;
    q->items_right += right && !wrong;
  }
  q->questions = 1;
  q->correct =
      q->present_hit == q->present && q->absent_ok == q->absent && q->higher_ok == q->higher;
  if (!q->correct)
    eg_buf_printf(&c->misses, "- %s [%s]%s\n", qid, enricher_names[c->enr],
                  why.data ? why.data : "");
  eg_buf_free(&why);
}

static void ask(ctx *c, const char *user, const cJSON *scen, const cJSON *qj, cJSON *per_q) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = TENANT;
  scope.user = (char *)user;
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.scope = &scope;
  req.query = (char *)str(qj, "question");
  req.query_time = day_time(str(qj, "at")) - last_question(scen) + eg_time_now_us();
  req.k = c->eng.k;
  Engram__V1__RecallResponse *resp = NULL;
  eg_err e;
  if (eg_recalld_recall(c->eng.recalld, &req, &resp, &e) != EG_OK) {
    fprintf(stderr, "prefs: recall %s: %s\n", user, e.msg);
    c->failures++;
    return;
  }
  const Engram__V1__RecallResponse *r = resp;
  listed ls[64];
  size_t n = list_values(r, ls, 64);
  tally q = {0};
  score(c, str(qj, "id"), arr(qj, "expect"), ls, n, &q);
  add_tally(&c->all, &q);
  const cJSON *need;
  bool any = false;
  cJSON_ArrayForEach(need, arr(qj, "needs")) {
    int k = 0;
    while (k < N_NEEDS - 1 &&
           strcmp(need_names[k], cJSON_GetStringValue(need) ? need->valuestring : ""))
      k++;
    add_tally(&c->need[k], &q);
    any = true;
  }
  if (!any) add_tally(&c->need[N_NEEDS - 1], &q);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "scenario", str(scen, "name"));
  cJSON_AddStringToObject(o, "split", eg_bsplit_name(eg_bsplit_of(str(scen, "name"))));
  cJSON_AddStringToObject(o, "id", str(qj, "id"));
  cJSON_AddBoolToObject(o, "correct", q.correct);
  cJSON *items = cJSON_AddArrayToObject(o, "values");
  for (size_t i = 0; i < n; i++) {
    cJSON *it = cJSON_CreateObject();
    cJSON_AddStringToObject(it, "relation", ls[i].relation);
    cJSON_AddStringToObject(it, "object", ls[i].object);
    cJSON_AddNumberToObject(it, "confidence", (int)(ls[i].confidence * 1000 + 0.5) / 1000.0);
    cJSON_AddBoolToObject(it, "held", held(&ls[i]));
    cJSON_AddBoolToObject(it, "derived", ls[i].derived);
    cJSON_AddItemToArray(items, it);
  }
  cJSON_AddItemToArray(per_q, o);
  if (c->verbose) {
    printf("%-6s %-10s %s %s\n", enricher_names[c->enr], str(qj, "id"),
           q.correct ? "right" : "WRONG", str(qj, "question"));
    for (size_t i = 0; i < n; i++)
      printf("         %s %s %s (%.2f%s%s)\n", held(&ls[i]) ? "held" : "    ", ls[i].relation,
             ls[i].object, ls[i].confidence, ls[i].derived ? ", derived" : "",
             ls[i].status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE
                 ? ", stale"
                 : "");
  }
  protobuf_c_message_free_unpacked(&resp->base, NULL);
}

/* ---- the report ------------------------------------------------------------------------------ */

static double pct(int a, int b) { return b ? 100.0 * a / b : 0; }

static void row(const char *name, const tally *t) {
  printf("| %s | %d | %.1f%% (%d) | %.1f%% | %.1f%% | %d/%d | %d/%d |\n", name, t->questions,
         pct(t->correct, t->questions), t->correct, pct(t->items_right, t->items),
         pct(t->present_hit, t->present), t->absent_ok, t->absent, t->higher_ok, t->higher);
}

static cJSON *tally_json(const tally *t) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "questions", t->questions);
  cJSON_AddNumberToObject(o, "correct", t->correct);
  cJSON_AddNumberToObject(o, "accuracy", t->questions ? (double)t->correct / t->questions : 0);
  cJSON_AddNumberToObject(o, "precision", t->items ? (double)t->items_right / t->items : 0);
  cJSON_AddNumberToObject(o, "recall", t->present ? (double)t->present_hit / t->present : 0);
  cJSON_AddNumberToObject(o, "held_items", t->items);
  cJSON_AddNumberToObject(o, "absent_ok", t->absent_ok);
  cJSON_AddNumberToObject(o, "absent", t->absent);
  cJSON_AddNumberToObject(o, "higher_ok", t->higher_ok);
  cJSON_AddNumberToObject(o, "higher", t->higher);
  return o;
}

static void report(ctx *c, const standin *s, int windows0, int answered0) {
  printf("\n### enricher: %s\n\n", enricher_names[c->enr]);
  printf(
      "| questions needing | questions | accuracy | item precision | item recall | absent kept out "
      "| stronger first |\n"
      "|---|---:|---:|---:|---:|---:|---:|\n");
  row("all", &c->all);
  cJSON *needs = cJSON_AddObjectToObject(c->json, "needs");
  for (int k = 0; k < N_NEEDS; k++) {
    if (!c->need[k].questions) continue;
    row(need_names[k], &c->need[k]);
    cJSON_AddItemToObject(needs, need_names[k], tally_json(&c->need[k]));
  }
  cJSON_AddItemToObject(c->json, "all", tally_json(&c->all));
  printf(
      "\noutcomes: %d recorded by the client, %d a client could not record (no edge read from the "
      "chat), "
      "%d said only in chat (no client call: the enricher reads them or nothing does)\n",
      c->outcomes_recorded, c->outcomes_no_edge, c->outcomes_chat);
  cJSON_AddNumberToObject(c->json, "outcomes_recorded", c->outcomes_recorded);
  cJSON_AddNumberToObject(c->json, "outcomes_no_edge", c->outcomes_no_edge);
  cJSON_AddNumberToObject(c->json, "outcomes_chat", c->outcomes_chat);
  if (c->enr == ENR_LLM) {
    int w = atomic_load(&s->windows) - windows0, a = atomic_load(&s->answered) - answered0;
    printf(
        "stand-in: %d segments asked, %d answered with the annotations of their round (%zu "
        "annotated rounds)\n",
        w, a, s->n);
    cJSON_AddNumberToObject(c->json, "standin_segments", w);
    cJSON_AddNumberToObject(c->json, "standin_annotated", a);
    cJSON_AddNumberToObject(c->json, "annotated_rounds", (double)s->n);
  }
  if (c->misses.len) printf("\nnot right:\n%s", c->misses.data);
}

/* ---- main ---------------------------------------------------------------------------------- */

static int usage(void) {
  fprintf(stderr,
          "usage: engram-bench prefs [--data FILE] [--enricher rules|llm|both] [--scenarios a,b,…] "
          "[--k 1..100]\n"
          "                          [--split tune|confirm] [--json FILE] [--verbose]\n");
  return 2;
}

/* Is name in the comma-separated list (NULL: every name)? */
static bool selected(const char *list, const char *name) {
  if (!list) return true;
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p++)
    if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return true;
  return false;
}

int eg_bprefs_main(int argc, char **argv) {
  const char *data = PREFS_DEFAULT, *which = "rules", *only = NULL, *json_out = NULL;
  int64_t k = 10;
  bool verbose = false;
  eg_bsplit split = EG_BSPLIT_ALL; /* of the scenarios, by name */
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--data") && v)
      data = argv[++i];
    else if (!strcmp(argv[i], "--enricher") && v &&
             (!strcmp(v, "rules") || !strcmp(v, "llm") || !strcmp(v, "both")))
      which = argv[++i];
    else if (!strcmp(argv[i], "--scenarios") && v)
      only = argv[++i];
    else if (!strcmp(argv[i], "--json") && v)
      json_out = argv[++i];
    else if (!strcmp(argv[i], "--k") && v && eg_cfg_int_in(v, 1, 100, &k))
      i++;
    else if (!strcmp(argv[i], "--verbose"))
      verbose = true;
    else if (!strcmp(argv[i], "--split") && v) {
      if (!eg_bsplit_parse(argv[++i], &split)) {
        fprintf(stderr, "prefs: --split is tune or confirm, not %s\n", argv[i]);
        return usage();
      }
    } else
      return usage();
  }
  eg_log_init("engram-bench", EG_LOG_WARN);
  char *text = eg_test_slurp(data), why[300];
  cJSON *root = text ? cJSON_Parse(text) : NULL;
  free(text);
  const cJSON *scenarios = root ? arr(root, "scenarios") : NULL;
  const char *bad =
      scenarios ? check_set(scenarios, why, sizeof why) : "not an object with \"scenarios\"";
  if (bad) {
    fprintf(stderr, "prefs: %s: %s\n", data, bad);
    cJSON_Delete(root);
    return 1;
  }
  size_t ns = 0, named = 0;
  const cJSON **scen = calloc((size_t)cJSON_GetArraySize(scenarios) + 1, sizeof *scen), *x;
  cJSON_ArrayForEach(x, scenarios) {
    if (!selected(only, str(x, "name"))) continue;
    named++;
    if (eg_bsplit_takes(split, eg_bsplit_of(str(x, "name")))) scen[ns++] = x;
  }
  if (!ns) {
    fprintf(stderr, "prefs: no scenario of %s is named in --scenarios %s%s%s\n", data,
            only ? only : "(all)", split != EG_BSPLIT_ALL ? " and in the split " : "",
            split != EG_BSPLIT_ALL ? eg_bsplit_name(split) : "");
    free(scen);
    cJSON_Delete(root);
    return 1;
  }
  /* The stand-in for the chat model first: ingestd is pointed at it (ENGRAM_LLM_URL) and
   * calls it only for ENRICHER_LLM ingests. */
  standin s = {0};
  eg_stub *stub = standin_index(&s, scen, ns) ? eg_stub_start(standin_serve, &s) : NULL;
  eg_cluster cl = {0};
  eg_rpc_client *ing = NULL, *rec = NULL, *gra = NULL;
  int rc = 1;
  eg_err e;
  char url[64];
  if (!stub) {
    fprintf(stderr, "prefs: cannot start the stand-in for the chat model\n");
    goto done;
  }
  snprintf(url, sizeof url, "http://127.0.0.1:%d", eg_stub_port(stub));
  setenv("ENGRAM_LLM_URL", url, 1);
  if (eg_cluster_start(&cl, NULL, &e)) {
    fprintf(stderr, "prefs: cannot start the daemons: %s\n", e.msg);
    goto done;
  }
  eg_rpc_client_opts co = {.timeout_us = 120 * EG_US_PER_SEC};
  if (eg_rpc_client_open(cl.d[EG_INGESTD].addr, &co, &ing, &e) ||
      eg_rpc_client_open(cl.d[EG_RECALLD].addr, &co, &rec, &e) ||
      eg_rpc_client_open(cl.d[EG_GRAPHD].addr, &co, &gra, &e)) {
    fprintf(stderr, "prefs: connect: %s\n", e.msg);
    goto done;
  }
  char run_id[32];
  snprintf(run_id, sizeof run_id, "p%llx", (unsigned long long)eg_time_now_us());
  cJSON *out = cJSON_CreateObject();
  cJSON_AddStringToObject(out, "data", data);
  cJSON_AddNumberToObject(out, "scenarios", (double)ns);
  cJSON_AddStringToObject(out, "split", eg_bsplit_name(split));
  cJSON *runs = cJSON_AddArrayToObject(out, "runs");
  int failures = 0;
  printf("prefs: %s — %zu scenarios, k = %d, a preference held at confidence >= %.1f, not stale\n",
         data, ns, (int)k, HELD_CONFIDENCE);
  if (split != EG_BSPLIT_ALL)
    printf("split: %s (%zu of %zu scenarios)\n", eg_bsplit_name(split), ns, named);
  for (int enr = 0; enr < N_ENR; enr++) {
    if (strcmp(which, "both") && strcmp(which, enricher_names[enr])) continue;
    ctx c = {.eng = {.ingestd = ing,
                     .recalld = rec,
                     .tenant = TENANT,
                     .k = (uint32_t)k,
                     .enricher = enricher_values[enr]},
             .graphd = gra,
             .enr = enr,
             .verbose = verbose,
             .run_id = run_id,
             .json = cJSON_CreateObject()};
    cJSON_AddStringToObject(c.json, "enricher", enricher_names[enr]);
    cJSON *per_q = cJSON_AddArrayToObject(c.json, "questions");
    int w0 = atomic_load(&s.windows), a0 = atomic_load(&s.answered);
    int64_t t0 = eg_time_mono_us();
    for (size_t i = 0; i < ns; i++) {
      char user[200];
      user_of(&c, scen[i], user, sizeof user);
      int64_t shift = eg_time_now_us() - last_question(scen[i]);
      cJSON_ArrayForEach(x, arr(scen[i], "sessions")) ingest(&c, user, x, shift);
      read_graph(&c, user);
      for (size_t g = 0; verbose && g < c.n_graph; g++)
        printf("%-6s %-10s in the graph: %s %s (%.2f%s)\n", enricher_names[enr],
               str(scen[i], "name"), c.graph[g].relation, c.graph[g].object, c.graph[g].confidence,
               c.graph[g].derived ? ", derived" : "");
      cJSON_ArrayForEach(x, arr(scen[i], "questions")) ask(&c, user, scen[i], x, per_q);
      if (c.graph_state) protobuf_c_message_free_unpacked(&c.graph_state->base, NULL);
      c.graph_state = NULL;
    }
    cJSON_AddNumberToObject(c.json, "seconds", (double)(eg_time_mono_us() - t0) / 1e6);
    report(&c, &s, w0, a0);
    failures += c.failures;
    eg_buf_free(&c.misses);
    cJSON_AddItemToArray(runs, c.json);
  }
  if (json_out) {
    char *j = cJSON_Print(out);
    FILE *f = fopen(json_out, "w");
    if (!f || !j || fputs(j, f) < 0)
      fprintf(stderr, "prefs: cannot write %s\n", json_out), failures++;
    if (f) fclose(f);
    free(j);
  }
  cJSON_Delete(out);
  if (failures) fprintf(stderr, "prefs: %d calls failed (see above)\n", failures);
  rc = failures ? 1 : 0;
done:
  eg_rpc_client_close(ing);
  eg_rpc_client_close(rec);
  eg_rpc_client_close(gra);
  if (cl.dir) eg_cluster_stop(&cl, rc != 0);
  eg_stub_stop(stub);
  for (size_t i = 0; i < s.n; i++) free(s.r[i].text);
  free(s.r);
  free(scen);
  cJSON_Delete(root);
  return rc;
}
