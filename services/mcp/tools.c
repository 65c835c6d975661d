/*
 * tools.c — engram-mcp's tools and resources (see tools.h): arguments checked and turned
 * into Engram requests, the daemons called, their answers written as text an LLM reads
 * and, from revision 2025-06-18 on, as structuredContent.
 */
#include "services/mcp/tools.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/buf.h"
#include "common/edge.h"
#include "common/graph_client.h"
#include "common/ingest_client.h"
#include "common/map.h"
#include "common/pbjson.h"
#include "common/recall_client.h"
#include "common/scope.h"
#include "common/text.h"
#include "common/time.h"
#include "services/mcp/tool_defs.h"

#define WATERMARK_MAX 128
#define ITEM_TEXT_MAX 600 /* bytes of one recalled item quoted in the text answer */
#define PROFILE_PREFIX "engram://users/"
#define PROFILE_SUFFIX "/profile"

struct eg_mcp_engram {
  eg_rpc_client *ingestd, *graphd, *recalld; /* owned */
  eg_rpc_client *admin; /* ingestd with the admin token; NULL = forget disabled */
  char *ingestd_addr, *graphd_addr, *recalld_addr, *tenant, *user, *agent; /* owned copies */
  pthread_mutex_t mu;                                                      /* guards watermark */
  char watermark[WATERMARK_MAX]; /* the last write's, so a recall after it sees it ("" = none) */
};

/* ---- one tool call ------------------------------------------------------------------- */

typedef struct tool_call {
  eg_mcp_engram *e;
  const eg_mcp_session *s;
  const cJSON *args; /* an object, or NULL for none */
  eg_arena *a;       /* freed when the call returns */
  eg_buf text;       /* the answer's text content */
  cJSON *structured; /* structuredContent (owned until the result takes it), or NULL */
  char error[EG_ERR_MSG_MAX + 256]; /* set: the call failed, with this message */
} tool_call;

static bool failed(tool_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool failed(tool_call *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->error, sizeof c->error, fmt, ap);
  va_end(ap);
  eg_utf8_drop_invalid(
      c->error); /* the text is sent as UTF-8; a quoted name may be cut inside a character */
  return false;
}

/* Every argument of the call is one of the names in known (NULL-terminated). */
static bool args_known(tool_call *c, const char *tool, const char *const *known) {
  const cJSON *it;
  cJSON_ArrayForEach(it, c->args) {
    size_t i = 0;
    while (known[i] && strcmp(known[i], it->string) != 0) i++;
    if (known[i]) continue;
    eg_buf list = EG_BUF_INIT;
    for (i = 0; known[i]; i++) eg_buf_printf(&list, "%s%s", i ? ", " : "", known[i]);
    failed(c, "%s has no argument `%.64s` (it takes: %s)", tool, it->string, list.data);
    eg_buf_free(&list);
    return false;
  }
  return true;
}

/* A string argument; *out is NULL when absent (an error when required). */
static bool arg_string(tool_call *c, const char *name, bool required, const char **out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, name);
  *out = NULL;
  if (!v || cJSON_IsNull(v)) return required ? failed(c, "argument `%s` is required", name) : true;
  if (!cJSON_IsString(v)) return failed(c, "argument `%s` must be a string", name);
  if (required && eg_text_blank(v->valuestring)) return failed(c, "argument `%s` is empty", name);
  *out = v->valuestring;
  return true;
}

/* An ISO-8601 argument as µs since the epoch (0 when absent). */
static bool arg_time(tool_call *c, const char *name, int64_t *out) {
  const char *v;
  *out = 0;
  if (!arg_string(c, name, false, &v)) return false;
  if (!v) return true;
  eg_err e;
  if (eg_time_parse(v, out, &e))
    return failed(c,
                  "argument `%s`: %s (give an ISO-8601 date or time, e.g. 2024-05-01 or "
                  "2024-05-01T09:30:00Z)",
                  name, e.msg);
  return true;
}

/* A whole-number argument within [lo, hi] (def when absent). */
static bool arg_uint(tool_call *c, const char *name, uint32_t lo, uint32_t hi, uint32_t def,
                     uint32_t *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, name);
  *out = def;
  if (!v || cJSON_IsNull(v)) return true;
  if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) ||
      v->valuedouble !=
          (double)(uint32_t)v->valuedouble) /* range first: the cast is defined inside it */
    return failed(c, "argument `%s` must be a whole number from %u to %u", name, lo, hi);
  *out = (uint32_t)v->valuedouble;
  return true;
}

/* The scope of the call: the configured one, with the `user` argument when given. */
static Engram__V1__Scope *call_scope(tool_call *c) {
  const char *user;
  if (!arg_string(c, "user", false, &user)) return NULL;
  Engram__V1__Scope *s = eg_arena_calloc(c->a, 1, sizeof *s);
  engram__v1__scope__init(s);
  s->tenant = c->e->tenant;
  s->user = user ? (char *)user : c->e->user;
  s->agent = c->e->agent;
  eg_err e;
  if (eg_scope_fields_check(s, &e)) return failed(c, "%s", e.msg), NULL;
  return s;
}

/* One RPC (made by a typed client, its response where call.out points); on failure the
 * call's error says which daemon, what status and what to check. */
static bool rpc(tool_call *c, const char *daemon, const char *addr, eg_rpc_request call) {
  eg_err e = {0};
  if (eg_rpc_run(&call, 0, &e) == EG_OK) return true;
  const char *hint = e.code == EG_EUNAVAIL ? " (is it running at that address? see --" : "";
  return failed(c, "%s at %s answered %s: %s%s%s%s", daemon, addr, eg_code_name(e.code), e.msg,
                hint, *hint ? daemon : "", *hint ? "-addr)" : "");
}

static void remember_watermark(eg_mcp_engram *e, const char *w) {
  if (!w || !*w || strlen(w) >= WATERMARK_MAX) return;
  pthread_mutex_lock(&e->mu);
  snprintf(e->watermark, sizeof e->watermark, "%s", w);
  pthread_mutex_unlock(&e->mu);
}

/* A time for text: the date alone at midnight UTC. */
static const char *when(tool_call *c, int64_t us) {
  char *b = eg_arena_alloc(c->a, EG_TIME_ISO_MAX);
  eg_time_format_auto(us, b, EG_TIME_ISO_MAX);
  return b;
}

static void add_time(cJSON *o, const char *key, int64_t us) {
  if (!us) return;
  char b[EG_TIME_ISO_MAX];
  eg_time_format_auto(us, b, sizeof b);
  cJSON_AddStringToObject(o, key, b);
}

/* The message as JSON (ISO times, enum names), or NULL. */
static cJSON *message_json(const ProtobufCMessage *m) {
  eg_buf b = EG_BUF_INIT;
  eg_pbjson_write(m, EG_PBJSON_ISO_TIMES, &b);
  cJSON *j = b.data ? cJSON_Parse(b.data) : NULL;
  eg_buf_free(&b);
  return j;
}

/* ---- facts as text and JSON ---------------------------------------------------------- */

static const char *edge_value(const Engram__V1__Edge *e) {
  const char *v = eg_edge_object(e);
  return *v || !e->object || eg_edge_literal(e) ? v : "(an entity)";
}

/* "- LIVES_IN: Lisbon (valid from 2024-04-01; learned 2024-05-02T09:00:00Z; why: …)" */
static void edge_line(tool_call *c, const Engram__V1__Edge *e, const char *mark, eg_buf *out) {
  bool retract = e->op == ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT;
  eg_buf_printf(out, "- %s%s: %s%s (", mark, e->relation, retract ? "no longer " : "",
                edge_value(e));
  if (e->valid_from)
    eg_buf_printf(out, "valid from %s", when(c, e->valid_from));
  else
    eg_buf_puts(out, "valid from an unknown time");
  if (e->valid_to) eg_buf_printf(out, " to %s", when(c, e->valid_to));
  eg_buf_printf(out, "; learned %s", when(c, e->t_commit));
  if (e->meta && e->meta->reason && *e->meta->reason)
    eg_buf_printf(out, "; why: %s", e->meta->reason);
  if (e->meta && e->meta->utterance && *e->meta->utterance)
    eg_buf_printf(out, "; said: \"%s\"", e->meta->utterance);
  eg_buf_printf(out, "; fact #%llu)\n", (unsigned long long)e->id);
}

static cJSON *edge_json(const Engram__V1__Edge *e) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)e->id);
  cJSON_AddStringToObject(o, "subject", e->subject_name ? e->subject_name : "");
  cJSON_AddStringToObject(o, "relation", e->relation);
  cJSON_AddStringToObject(o, "value", edge_value(e));
  if (e->op == ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT) cJSON_AddTrueToObject(o, "retracted");
  add_time(o, "valid_from", e->valid_from);
  add_time(o, "valid_to", e->valid_to);
  add_time(o, "learned_at", e->t_commit);
  if (e->meta && e->meta->reason && *e->meta->reason)
    cJSON_AddStringToObject(o, "reason", e->meta->reason);
  if (e->meta && e->meta->utterance && *e->meta->utterance)
    cJSON_AddStringToObject(o, "said", e->meta->utterance);
  return o;
}

/* The entity a facts/history call is about: the `entity` argument, else the user's own. */
static const char *subject_of(tool_call *c, const Engram__V1__Scope *scope) {
  const char *name;
  if (!arg_string(c, "entity", false, &name)) return NULL;
  if (name && !eg_text_blank(name) && strcmp(name, "me") != 0 && strcmp(name, "user") != 0)
    return name;
  char *own = eg_arena_alloc(c->a, EG_SCOPE_USER_ENTITY_MAX);
  eg_scope_user_entity(scope->user, own, EG_SCOPE_USER_ENTITY_MAX);
  return own;
}

static Engram__V1__EntityRef *name_ref(tool_call *c, const char *name) {
  Engram__V1__EntityRef *r = eg_arena_calloc(c->a, 1, sizeof *r);
  engram__v1__entity_ref__init(r);
  r->ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
  r->name = (char *)name;
  return r;
}

/* Graph/State of subject (every relation when relation is ""): lines in c->text,
 * {entity, facts: [...]} in *json. */
static bool current_facts(tool_call *c, const Engram__V1__Scope *scope, const char *subject,
                          const char *relation, int64_t at, int64_t known_at, cJSON **json) {
  Engram__V1__StateQuery q = ENGRAM__V1__STATE_QUERY__INIT, *qs[1] = {&q};
  q.subject = name_ref(c, subject);
  q.relation = (char *)relation;
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)scope;
  req.queries = qs;
  req.n_queries = 1;
  req.valid_at = at;
  req.known_at = known_at;
  Engram__V1__StateResponse *r = NULL;
  if (!rpc(c, "graphd", c->e->graphd_addr, eg_graphd_state_call(c->e->graphd, &req, &r)))
    return false;
  cJSON *facts = cJSON_CreateArray();
  bool known = false;
  for (size_t i = 0; i < r->n_results; i++) {
    known |= r->results[i]->subject != 0;
    for (size_t j = 0; j < r->results[i]->n_values; j++) {
      edge_line(c, r->results[i]->values[j], "", &c->text);
      cJSON_AddItemToArray(facts, edge_json(r->results[i]->values[j]));
    }
  }
  if (!known)
    eg_buf_printf(&c->text, "(Engram knows nothing about %s)\n", subject);
  else if (!cJSON_GetArraySize(facts))
    eg_buf_printf(&c->text, "(no current value%s%s)\n", *relation ? " of " : "", relation);
  *json = cJSON_CreateObject();
  cJSON_AddStringToObject(*json, "entity", subject);
  add_time(*json, "as_of", r->valid_at);
  add_time(*json, "known_at", r->known_at);
  cJSON_AddItemToObject(*json, "facts", facts);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return true;
}

/* ---- remember ---------------------------------------------------------------------- */

/* "mcp-<16 hex>" from the content, so a resend of the same content is the same id. */
static char *content_id(tool_call *c, const char *kind, const cJSON *content) {
  char *t = cJSON_PrintUnformatted(content);
  uint64_t h = t ? eg_hash64(t, strlen(t), 0x4d4350) : 0;
  free(t);
  return eg_arena_sprintf(c->a, "mcp-%s-%016llx", kind, (unsigned long long)h);
}

/* The arguments named by keys (NULL-terminated) as a request of desc. */
static ProtobufCMessage *request_from_args(tool_call *c, const ProtobufCMessageDescriptor *desc,
                                           const char *const *keys) {
  cJSON *o = cJSON_CreateObject();
  for (size_t i = 0; keys[i]; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, keys[i]);
    if (v && !cJSON_IsNull(v)) cJSON_AddItemToObject(o, keys[i], cJSON_Duplicate(v, 1));
  }
  ProtobufCMessage *m = NULL;
  eg_err e;
  if (eg_pbjson_read(desc, o, c->a, &m,
                     &e)) { /* "IngestSessionRequest.messages[0].mood: …" → "messages[0].mood: …" */
    size_t n = strlen(desc->short_name);
    bool prefixed = strncmp(e.msg, desc->short_name, n) == 0 && e.msg[n] == '.';
    failed(c, "invalid arguments: %s", prefixed ? e.msg + n + 1 : e.msg);
    m = NULL;
  }
  cJSON_Delete(o);
  return m;
}

static bool remember(tool_call *c) {
  static const char *const known[] = {"messages",    "session_id", "session_time", "title", "text",
                                      "document_id", "time",       "user",         NULL};
  static const char *const session_keys[] = {"session_id", "session_time", "messages", NULL};
  static const char *const document_keys[] = {"document_id", "title", "text", "time", NULL};
  if (!args_known(c, "remember", known)) return false;
  Engram__V1__Scope *scope = call_scope(c);
  if (!scope) return false;
  const cJSON *messages = cJSON_GetObjectItemCaseSensitive(c->args, "messages");
  const cJSON *text = cJSON_GetObjectItemCaseSensitive(c->args, "text");
  if (messages && text)
    return failed(c, "give either `messages` (a conversation) or `text` (a document), not both");
  if (!messages && !text)
    return failed(c, "give `messages` (a conversation) or `text` (a document) to remember");
  bool session = messages != NULL;
  if (session && (!cJSON_IsArray(messages) || !cJSON_GetArraySize(messages)))
    return failed(c, "`messages` must be a non-empty array of {role, content, time?}");
  ProtobufCMessage *req =
      request_from_args(c,
                        session ? &engram__v1__ingest_session_request__descriptor
                                : &engram__v1__ingest_document_request__descriptor,
                        session ? session_keys : document_keys);
  if (!req) return false;
  const char *id;
  if (session) {
    Engram__V1__IngestSessionRequest *s = (void *)req;
    if (!s->session_id || !*s->session_id) s->session_id = content_id(c, "session", messages);
    s->scope = scope;
    id = s->session_id;
  } else {
    Engram__V1__IngestDocumentRequest *d = (void *)req;
    if (!d->document_id || !*d->document_id) d->document_id = content_id(c, "doc", text);
    d->scope = scope;
    id = d->document_id;
  }
  Engram__V1__IngestResponse *r = NULL;
  if (!rpc(c, "ingestd", c->e->ingestd_addr, eg_ingestd_ingest_call(c->e->ingestd, req, &r)))
    return false;
  remember_watermark(c->e, r->watermark);
  const Engram__V1__IngestReport *p = r->report;
  const char *who = *scope->user ? scope->user : "(the tenant's shared memory)";
  if (p && p->duplicate)
    eg_buf_printf(&c->text, "Already remembered: %s %s for user %s (nothing changed).\n",
                  session ? "conversation" : "document", id, who);
  else if (p)
    eg_buf_printf(&c->text, "Remembered %s %s for user %s: %u chunks, %u facts, %u entities.\n",
                  session ? "conversation" : "document", id, who, p->chunks, p->facts, p->entities);
  else
    eg_buf_printf(&c->text, "Accepted %s %s for user %s: job %s.\n",
                  session ? "conversation" : "document", id, who, r->job_id);
  c->structured = message_json(&r->base);
  if (c->structured) {
    cJSON_AddStringToObject(c->structured, session ? "session_id" : "document_id", id);
    cJSON_AddStringToObject(c->structured, "user", scope->user);
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return true;
}

/* ---- recall ------------------------------------------------------------------------ */

static const char *const kind_names[] = {"item", "excerpt", "fact", "path"};
static const char *const status_names[] = {"", "UNVERIFIED", "CORROBORATED", "POTENTIALLY_STALE",
                                           "SUPERSEDED"};

static bool recall(tool_call *c) {
  static const char *const known[] = {"question", "at", "known_at", "k", "user", NULL};
  if (!args_known(c, "recall", known)) return false;
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  const char *q;
  uint32_t k;
  if (!(req.scope = call_scope(c)) || !arg_string(c, "question", true, &q) ||
      !arg_time(c, "at", &req.query_time) || !arg_time(c, "known_at", &req.known_at) ||
      !arg_uint(c, "k", 1, 100, 10, &k))
    return false;
  req.query = (char *)q;
  req.k = k;
  char wm[WATERMARK_MAX];
  pthread_mutex_lock(&c->e->mu);
  memcpy(wm, c->e->watermark, sizeof wm);
  pthread_mutex_unlock(&c->e->mu);
  req.watermark = wm;
  Engram__V1__RecallResponse *r = NULL;
  if (!rpc(c, "recalld", c->e->recalld_addr, eg_recalld_recall_call(c->e->recalld, &req, &r)))
    return false;
  if (r->nothing_relevant || !r->n_items)
    eg_buf_puts(&c->text, "Engram remembers nothing relevant to this question.\n");
  if (r->context && *r->context)
    eg_buf_printf(&c->text, "%s%s", r->context,
                  r->context[strlen(r->context) - 1] == '\n' ? "" : "\n");
  cJSON *items = cJSON_CreateArray();
  if (r->n_items) eg_buf_puts(&c->text, "\nItems (kind, status, date, text):\n");
  for (size_t i = 0; i < r->n_items; i++) {
    const Engram__V1__RecallItem *it = r->items[i];
    const char *kind = kind_names[it->kind < 4 ? it->kind : 0];
    const char *status = status_names[it->status < 5 ? it->status : 0];
    size_t len = strlen(it->text), cut = eg_utf8_cut(it->text, len, ITEM_TEXT_MAX);
    eg_buf_printf(&c->text, "%zu. %s%s%s%s%s: %.*s%s\n", i + 1, kind, *status ? " " : "", status,
                  it->time ? " " : "", it->time ? when(c, it->time) : "", (int)cut, it->text,
                  cut < len ? "…" : "");
    if (it->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE &&
        it->superseding)
      eg_buf_printf(&c->text, "   (a premise changed: %s %s from %s)\n", it->superseding->relation,
                    edge_value(it->superseding), when(c, it->superseding->valid_from));
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddStringToObject(o, "text", it->text);
    cJSON_AddNumberToObject(o, "score", it->score);
    if (*status) cJSON_AddStringToObject(o, "status", status);
    add_time(o, "time", it->time);
    if (it->session_id && *it->session_id) cJSON_AddStringToObject(o, "session_id", it->session_id);
    if (it->document_id && *it->document_id)
      cJSON_AddStringToObject(o, "document_id", it->document_id);
    if (it->fact) cJSON_AddItemToObject(o, "fact", edge_json(it->fact));
    if (it->superseding) cJSON_AddItemToObject(o, "superseding", edge_json(it->superseding));
    if (it->preference) { /* one of the user's preferences on the question, with its confidence */
      cJSON_AddTrueToObject(o, "preference");
      if (it->fact && it->fact->belief)
        cJSON_AddNumberToObject(o, "confidence", it->fact->belief->confidence);
    }
    cJSON_AddItemToArray(items, o);
  }
  c->structured = cJSON_CreateObject();
  cJSON_AddStringToObject(c->structured, "context", r->context ? r->context : "");
  cJSON_AddBoolToObject(c->structured, "nothing_relevant", r->nothing_relevant);
  cJSON_AddItemToObject(c->structured, "items", items);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return true;
}

/* ---- facts and history --------------------------------------------------------------- */

static bool facts(tool_call *c) {
  static const char *const known[] = {"entity", "relation", "at", "known_at", "user", NULL};
  if (!args_known(c, "facts", known)) return false;
  Engram__V1__Scope *scope = call_scope(c);
  const char *subject = scope ? subject_of(c, scope) : NULL, *relation;
  int64_t at, known_at;
  if (!subject || !arg_string(c, "relation", false, &relation) || !arg_time(c, "at", &at) ||
      !arg_time(c, "known_at", &known_at))
    return false;
  eg_buf_printf(&c->text, "Facts about %s%s%s:\n", subject, at ? " as of " : " now",
                at ? when(c, at) : "");
  return current_facts(c, scope, subject, relation ? relation : "", at, known_at, &c->structured);
}

static bool history(tool_call *c) {
  static const char *const known[] = {"entity", "relation", "known_at", "limit", "user", NULL};
  if (!args_known(c, "history", known)) return false;
  Engram__V1__HistoryRequest req = ENGRAM__V1__HISTORY_REQUEST__INIT;
  const char *subject = (req.scope = call_scope(c)) ? subject_of(c, req.scope) : NULL, *relation;
  if (!subject || !arg_string(c, "relation", false, &relation) ||
      !arg_time(c, "known_at", &req.known_at) || !arg_uint(c, "limit", 1, 1000, 100, &req.limit))
    return false;
  req.subject = name_ref(c, subject);
  req.relation = (char *)(relation ? relation : "");
  Engram__V1__HistoryResponse *r = NULL;
  if (!rpc(c, "graphd", c->e->graphd_addr, eg_graphd_history_call(c->e->graphd, &req, &r)))
    return false;
  eg_buf_printf(&c->text, "History of %s%s%s, oldest first:\n", subject, *req.relation ? " " : "",
                req.relation);
  cJSON *entries = cJSON_CreateArray();
  for (size_t i = 0; i < r->n_entries; i++) {
    const Engram__V1__HistoryEntry *h = r->entries[i];
    char mark[64];
    if (h->superseded_by)
      snprintf(mark, sizeof mark, "[replaced by #%llu] ", (unsigned long long)h->superseded_by);
    else
      snprintf(mark, sizeof mark, "%s", h->superseded ? "[ended] " : "[current] ");
    edge_line(c, h->edge, mark, &c->text);
    cJSON *o = edge_json(h->edge);
    cJSON_AddBoolToObject(o, "current", !h->superseded);
    if (h->superseded_by) cJSON_AddNumberToObject(o, "superseded_by", (double)h->superseded_by);
    cJSON_AddItemToArray(entries, o);
  }
  if (!r->n_entries) eg_buf_puts(&c->text, "(no history: Engram has no fact on it)\n");
  c->structured = cJSON_CreateObject();
  cJSON_AddStringToObject(c->structured, "entity", subject);
  cJSON_AddItemToObject(c->structured, "history", entries);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return true;
}

/* ---- forget ------------------------------------------------------------------------ */

static bool forget(tool_call *c) {
  static const char *const known[] = {"user", "confirm", NULL};
  if (!args_known(c, "forget", known)) return false;
  if (!c->e->admin)
    return failed(
        c,
        "forget is disabled: engram-mcp was started without an admin token (--admin-token or "
        "ENGRAM_ADMIN_TOKEN), so it cannot erase memory");
  if (!c->s->may_erase)
    return failed(c, "forget needs an admin token: this client's token has the user role");
  const cJSON *confirm = cJSON_GetObjectItemCaseSensitive(c->args, "confirm");
  if (!cJSON_IsTrue(confirm))
    return failed(
        c, "forget erases a user's whole memory for good: call it again with `confirm`: true");
  Engram__V1__EraseRequest req = ENGRAM__V1__ERASE_REQUEST__INIT;
  if (!(req.scope = call_scope(c))) return false;
  if (!*req.scope->user)
    return failed(c,
                  "forget needs a user (the `user` argument, or --user): erasing a whole tenant is "
                  "not offered here");
  req.scope->agent = (char *)""; /* the user's memory, whichever agent wrote it */
  Engram__V1__EraseResponse *r = NULL;
  if (!rpc(c, "ingestd", c->e->ingestd_addr, eg_ingestd_erase_call(c->e->admin, &req, &r)))
    return false;
  pthread_mutex_lock(&c->e->mu);
  c->e->watermark[0] = '\0'; /* its chunk may be gone: a recall must not wait for it */
  pthread_mutex_unlock(&c->e->mu);
  uint64_t total = 0;
  for (size_t i = 0; i < r->n_counts; i++) total += r->counts[i]->count;
  eg_buf_printf(&c->text, "Erased the memory of user %s (%llu records):\n", req.scope->user,
                (unsigned long long)total);
  for (size_t i = 0; i < r->n_counts; i++)
    eg_buf_printf(&c->text, "- %s %s: %llu\n", r->counts[i]->store, r->counts[i]->kind,
                  (unsigned long long)r->counts[i]->count);
  c->structured = message_json(&r->base);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return true;
}

/* ---- the hooks --------------------------------------------------------------------- */

static const struct {
  const char *name;
  bool (*fn)(tool_call *c);
} tools[] = {{"remember", remember},
             {"recall", recall},
             {"facts", facts},
             {"history", history},
             {"forget", forget}};

static cJSON *list_tools(void *ctx, const eg_mcp_session *s) {
  (void)ctx, (void)s;
  return eg_mcp_tool_defs();
}

/* The CallToolResult of a finished call. */
static cJSON *tool_result(tool_call *c, bool ok) {
  cJSON *r = cJSON_CreateObject(), *content = cJSON_AddArrayToObject(r, "content"),
        *t = cJSON_CreateObject();
  cJSON_AddStringToObject(t, "type", "text");
  cJSON_AddStringToObject(t, "text", ok ? (c->text.data ? c->text.data : "") : c->error);
  cJSON_AddItemToArray(content, t);
  if (ok && c->structured && strcmp(c->s->version, "2025-06-18") >= 0) {
    cJSON_AddItemToObject(r, "structuredContent", c->structured); /* from 2025-06-18 on */
    c->structured = NULL;
  }
  if (!ok) cJSON_AddTrueToObject(r, "isError");
  return r;
}

static eg_code call_tool(void *ctx, const eg_mcp_session *s, const char *name, const cJSON *args,
                         cJSON **result, eg_err *err) {
  size_t i = 0;
  while (i < sizeof tools / sizeof *tools && strcmp(tools[i].name, name) != 0) i++;
  if (i == sizeof tools / sizeof *tools)
    return eg_err_set(err, EG_ENOTFOUND, "no tool named %.64s", name);
  tool_call c = {.e = ctx, .s = s, .args = args, .a = eg_arena_new(0, 0), .text = EG_BUF_INIT};
  if (!c.a) return eg_err_set(err, EG_ENOMEM, "out of memory");
  bool ok = tools[i].fn(&c);
  *result = tool_result(&c, ok);
  cJSON_Delete(c.structured);
  eg_buf_free(&c.text);
  eg_arena_free(c.a);
  return EG_OK;
}

static cJSON *profile_resource(const char *user, bool with_template) {
  cJSON *o = cJSON_CreateObject();
  if (with_template) {
    cJSON_AddStringToObject(o, "uriTemplate", PROFILE_PREFIX "{user}" PROFILE_SUFFIX);
    cJSON_AddStringToObject(o, "name", "user-profile");
  } else {
    char *uri = malloc(strlen(user) * 3 + sizeof PROFILE_PREFIX PROFILE_SUFFIX);
    char *p = uri + sprintf(uri, PROFILE_PREFIX);
    for (const unsigned char *u = (const unsigned char *)user; *u; u++)
      p += strchr("/%?# ", *u) || *u < 0x20 ? sprintf(p, "%%%02X", *u) : sprintf(p, "%c", *u);
    strcpy(p, PROFILE_SUFFIX);
    cJSON_AddStringToObject(o, "uri", uri);
    free(uri);
    cJSON_AddStringToObject(o, "name", "user-profile");
  }
  cJSON_AddStringToObject(o, "title", "User profile");
  cJSON_AddStringToObject(
      o, "description",
      "What Engram currently holds true about the user: where they live and work, their "
      "preferences and other current facts, each with since when and why.");
  cJSON_AddStringToObject(o, "mimeType", "text/markdown");
  return o;
}

static cJSON *list_resources(void *ctx, const eg_mcp_session *s) {
  (void)s;
  eg_mcp_engram *e = ctx;
  cJSON *list = cJSON_CreateArray();
  if (*e->user) cJSON_AddItemToArray(list, profile_resource(e->user, false));
  return list;
}

static cJSON *list_templates(void *ctx, const eg_mcp_session *s) {
  (void)ctx, (void)s;
  cJSON *list = cJSON_CreateArray();
  cJSON_AddItemToArray(list, profile_resource(NULL, true));
  return list;
}

/* The user of "engram://users/<user>/profile", percent-decoded, into an arena string. */
static char *profile_user(eg_arena *a, const char *uri) {
  size_t n = strlen(uri), pre = strlen(PROFILE_PREFIX), suf = strlen(PROFILE_SUFFIX);
  if (n <= pre + suf || strncmp(uri, PROFILE_PREFIX, pre) != 0 ||
      strcmp(uri + n - suf, PROFILE_SUFFIX) != 0)
    return NULL;
  char *out = eg_arena_alloc(a, n), *o = out;
  for (const char *p = uri + pre; p < uri + n - suf; p++) {
    if (*p == '/') return NULL;
    if (*p == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
      char hex[3] = {p[1], p[2], 0};
      *o++ = (char)strtol(hex, NULL, 16);
      p += 2;
    } else {
      *o++ = *p;
    }
  }
  *o = '\0';
  return *out ? out : NULL; /* "%00" is no user */
}

static eg_code read_resource(void *ctx, const eg_mcp_session *s, const char *uri, cJSON **result,
                             eg_err *err) {
  tool_call c = {.e = ctx, .s = s, .a = eg_arena_new(0, 0), .text = EG_BUF_INIT};
  if (!c.a) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_code rc = EG_OK;
  char *user = profile_user(c.a, uri);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = c.e->tenant;
  scope.user = user;
  scope.agent = c.e->agent;
  char subject[EG_SCOPE_USER_ENTITY_MAX];
  cJSON *facts_json = NULL;
  if (!user) {
    rc = eg_err_set(err, EG_ENOTFOUND,
                    "Resource not found: %.200s (this server has " PROFILE_PREFIX
                    "{user}" PROFILE_SUFFIX ")",
                    uri);
    goto out;
  }
  if (eg_scope_fields_check(&scope, err)) {
    rc = EG_EINVAL;
    goto out;
  }
  eg_scope_user_entity(user, subject, sizeof subject);
  eg_buf_printf(&c.text, "# Profile of user %s\n\nCurrent facts (%s in Engram's graph):\n", user,
                subject);
  if (!current_facts(&c, &scope, subject, "", 0, 0, &facts_json)) {
    rc = eg_err_set(err, EG_EUNAVAIL, "%s", c.error);
    goto out;
  }
  *result = cJSON_CreateObject();
  cJSON *contents = cJSON_AddArrayToObject(*result, "contents"), *item = cJSON_CreateObject();
  cJSON_AddStringToObject(item, "uri", uri);
  cJSON_AddStringToObject(item, "mimeType", "text/markdown");
  cJSON_AddStringToObject(item, "text", c.text.data);
  cJSON_AddItemToArray(contents, item);
out:
  cJSON_Delete(facts_json);
  eg_buf_free(&c.text);
  eg_arena_free(c.a);
  return rc;
}

const eg_mcp_ops eg_mcp_engram_ops = {list_tools, call_tool, list_resources, list_templates,
                                      read_resource};

/* ---- lifecycle --------------------------------------------------------------------- */

eg_code eg_mcp_engram_open(const eg_mcp_engram_opts *o, eg_mcp_engram **out, eg_err *err) {
  eg_mcp_engram *e = calloc(1, sizeof *e);
  if (!e) return eg_err_set(err, EG_ENOMEM, "out of memory");
  pthread_mutex_init(&e->mu, NULL);
  eg_rpc_client_opts co = {.timeout_us = o->timeout_us,
                           .max_attempts = 2,
                           .token = o->token,
                           .tls_ca_file = o->tls_ca_file,
                           .tls_server_name = o->tls_server_name};
  eg_rpc_client_opts ao = co;
  ao.token = o->admin_token;
  eg_code rc = eg_rpc_client_open(o->ingestd_addr, &co, &e->ingestd, err);
  if (!rc) rc = eg_rpc_client_open(o->graphd_addr, &co, &e->graphd, err);
  if (!rc) rc = eg_rpc_client_open(o->recalld_addr, &co, &e->recalld, err);
  if (!rc && o->admin_token && *o->admin_token)
    rc = eg_rpc_client_open(o->ingestd_addr, &ao, &e->admin, err);
  e->ingestd_addr = strdup(o->ingestd_addr);
  e->graphd_addr = strdup(o->graphd_addr);
  e->recalld_addr = strdup(o->recalld_addr);
  e->tenant = strdup(o->tenant);
  e->user = strdup(o->user ? o->user : "");
  e->agent = strdup(o->agent ? o->agent : "");
  if (!rc && (!e->ingestd_addr || !e->graphd_addr || !e->recalld_addr || !e->tenant || !e->user ||
              !e->agent))
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  if (rc) {
    eg_mcp_engram_close(e);
    return rc;
  }
  *out = e;
  return EG_OK;
}

void eg_mcp_engram_close(eg_mcp_engram *e) {
  if (!e) return;
  eg_rpc_client_close(e->ingestd);
  eg_rpc_client_close(e->graphd);
  eg_rpc_client_close(e->recalld);
  eg_rpc_client_close(e->admin);
  free(e->ingestd_addr);
  free(e->graphd_addr);
  free(e->recalld_addr);
  free(e->tenant);
  free(e->user);
  free(e->agent);
  pthread_mutex_destroy(&e->mu);
  free(e);
}
