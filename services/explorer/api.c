/*
 * api.c — the explorer's JSON API (see explorer.h): HTTP query arguments into requests of
 * the contract, the caller's token forwarded, the answers written as the contract's JSON.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/arena.h"
#include "common/cfg.h"
#include "common/graph_client.h"
#include "common/pbjson.h"
#include "common/peers.h"
#include "common/recall_client.h"
#include "common/scope.h"
#include "common/shard.h"
#include "common/time.h"
#include "services/explorer/explorer.h"

enum { CHANGES_PAGE = 1000, WALK_BATCH = 1000 };

struct eg_explorer {
  eg_explorer_opts o;
  eg_rpc_client *graphd[EG_MAX_SHARDS]; /* owned, one per shard; they carry no token */
  uint32_t n_graphd;
  eg_rpc_client *recalld; /* owned */
};

/* One API call: what every endpoint reads first, and where its answer goes. */
typedef struct api_call {
  eg_explorer *x;
  const eg_http_req *req;
  eg_http_resp *resp;
  const char *token;       /* the caller's bearer token, borrowed from the request */
  Engram__V1__Scope scope; /* from tenant, user, agent */
  eg_arena *a;             /* freed when the call is answered */
  eg_err err;
} api_call;

/* ---- answers ---------------------------------------------------------------------- */

static int http_status_of(eg_code c) {
  switch (c) {
    case EG_OK:
      return 200;
    case EG_EINVAL:
    case EG_ERANGE:
    case EG_EPRECOND:
      return 400;
    case EG_EUNAUTH:
      return 401;
    case EG_EPERM:
      return 403;
    case EG_ENOTFOUND:
      return 404;
    case EG_EFULL:
      return 429;
    case EG_EUNAVAIL:
      return 503;
    case EG_ETIMEOUT:
      return 504;
    case EG_EUNIMPL:
      return 501;
    default:
      return 500;
  }
}

/* The error of c->err as {"error": {"code", "message"}} with its HTTP status. */
static void answer_error(api_call *c) {
  eg_http_resp *r = c->resp;
  r->status = http_status_of(c->err.code);
  cJSON *root = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(root, "error");
  cJSON_AddStringToObject(e, "code", eg_code_name(c->err.code));
  cJSON_AddStringToObject(e, "message", c->err.msg);
  char *text = cJSON_PrintUnformatted(root);
  eg_buf_reset(&r->body);
  eg_buf_puts(&r->body, text ? text : "{}");
  cJSON_free(text);
  cJSON_Delete(root);
  if (r->status == 401) {
    r->headers[1][0] = "WWW-Authenticate";
    r->headers[1][1] = "Bearer";
  }
}

/* ---- request arguments ------------------------------------------------------------ */

/* The token of "Authorization: Bearer <token>"; NULL (c->err set) without one. */
static const char *bearer_token(api_call *c) {
  const char *h = eg_http_req_header(c->req, "Authorization");
  if (h && strncasecmp(h, "Bearer ", 7) == 0) {
    h += 7;
    while (*h == ' ') h++;
    if (*h) return h;
  }
  eg_err_set(&c->err, EG_EUNAUTH,
             "no bearer token: send the tenant's token as 'Authorization: Bearer <token>'");
  return NULL;
}

static const char *arg(const api_call *c, const char *name) {
  const char *v = eg_http_req_arg(c->req, name);
  return v ? v : "";
}

/* An ISO-8601 argument as µs (0 when absent). */
static eg_code time_arg(api_call *c, const char *name, int64_t *out) {
  const char *v = arg(c, name);
  *out = 0;
  if (!*v) return EG_OK;
  eg_code rc = eg_time_parse(v, out, &c->err);
  if (rc) {
    char what[64];
    snprintf(what, sizeof what, "argument %s: ", name);
    eg_err_prefix(&c->err, what);
  }
  return rc;
}

/* The token and the scope (tenant required), every endpoint's first step. */
static eg_code read_common(api_call *c) {
  if (!(c->token = bearer_token(c))) return c->err.code;
  engram__v1__scope__init(&c->scope);
  c->scope.tenant = (char *)arg(c, "tenant");
  c->scope.user = (char *)arg(c, "user");
  c->scope.agent = (char *)arg(c, "agent");
  if (!*c->scope.tenant) return eg_err_set(&c->err, EG_EINVAL, "argument tenant is required");
  return eg_scope_fields_check(&c->scope, &c->err);
}

/* ---- calls to the daemons --------------------------------------------------------- */

/* One call (made by a typed client) on its client's channel with the caller's token; the
 * response, where rpc.out points, is freed by the caller. */
static eg_code call(api_call *c, eg_rpc_request rpc) {
  eg_rpc_client *as_caller = NULL;
  eg_code rc = eg_rpc_client_with_token(rpc.client, c->token, &as_caller, &c->err);
  if (!rc) {
    rpc.client = as_caller;
    rc = eg_rpc_run(&rpc, 0, &c->err);
  }
  eg_rpc_client_close(as_caller);
  return rc;
}

static eg_rpc_client *graphd_of(const api_call *c) {
  return c->x->graphd[eg_shard_of(c->scope.tenant, c->x->n_graphd)];
}

static void put_time(eg_buf *out, const char *key, int64_t us) {
  char ts[EG_TIME_ISO_MAX];
  eg_time_format(us, ts, sizeof ts);
  eg_buf_printf(out, "\"%s\":\"%s\"", key, ts);
}

/* ---- /api/timeline ---------------------------------------------------------------- */

/* Every edge the scope sees, known by known_at (0 = now), in t_commit order: up to
 * max_facts, read page by page. The pages stay alive in pages[] (freed by the caller). */
static eg_code read_changes(api_call *c, int64_t known_at, Engram__V1__ChangesResponse **pages,
                            size_t max_pages, Engram__V1__Edge ***edges, size_t *n,
                            bool *truncated) {
  Engram__V1__TimeRange window;
  engram__v1__time_range__init(&window);
  window.to = known_at ? known_at + 1 : 0;
  Engram__V1__ChangesRequest req;
  engram__v1__changes_request__init(&req);
  req.scope = &c->scope;
  req.window = &window;
  req.limit = CHANGES_PAGE;
  uint32_t max = c->x->o.max_facts;
  *edges = eg_arena_calloc(c->a, max ? max : 1, sizeof **edges);
  if (!*edges) return eg_err_set(&c->err, EG_ENOMEM, "out of memory");
  *n = 0;
  *truncated = false;
  for (size_t p = 0; p < max_pages; p++) {
    eg_code rc = call(c, eg_graphd_changes_call(graphd_of(c), &req, &pages[p]));
    if (rc) return rc;
    const Engram__V1__ChangesResponse *page = pages[p];
    for (size_t i = 0; i < page->n_edges; i++) {
      if (*n == max) {
        *truncated = true;
        return EG_OK;
      }
      (*edges)[(*n)++] = page->edges[i];
    }
    if (!*page->next_page_token) return EG_OK;
    req.page_token = page->next_page_token;
  }
  *truncated = true;
  return EG_OK;
}

/* The premise walk of every edge, as of at / known_at: statuses[i] is edges[i]'s, in
 * walks[] (freed by the caller). */
static eg_code walk_all(api_call *c, Engram__V1__Edge **edges, size_t n, int64_t at,
                        int64_t known_at, Engram__V1__WalkResponse **walks,
                        Engram__V1__ClaimStatus **statuses) {
  for (size_t first = 0, b = 0; first < n; first += WALK_BATCH, b++) {
    size_t m = n - first < WALK_BATCH ? n - first : WALK_BATCH;
    uint64_t *ids = eg_arena_calloc(c->a, m, sizeof *ids);
    if (!ids) return eg_err_set(&c->err, EG_ENOMEM, "out of memory");
    for (size_t i = 0; i < m; i++) ids[i] = edges[first + i]->id;
    Engram__V1__WalkRequest req;
    engram__v1__walk_request__init(&req);
    req.scope = &c->scope;
    req.claims = ids;
    req.n_claims = m;
    req.valid_at = at;
    req.known_at = known_at;
    eg_code rc = call(c, eg_graphd_walk_call(graphd_of(c), &req, &walks[b]));
    if (rc) return rc;
    const Engram__V1__WalkResponse *w = walks[b];
    for (size_t i = 0; i < m && i < w->n_statuses; i++) statuses[first + i] = w->statuses[i];
  }
  return EG_OK;
}

static eg_code api_timeline(api_call *c) {
  int64_t at, known_at;
  eg_code rc;
  if ((rc = time_arg(c, "at", &at)) || (rc = time_arg(c, "known_at", &known_at))) return rc;
  size_t max_pages = c->x->o.max_facts / CHANGES_PAGE + 2, n = 0;
  Engram__V1__ChangesResponse **pages = eg_arena_calloc(c->a, max_pages, sizeof *pages);
  Engram__V1__WalkResponse **walks = eg_arena_calloc(c->a, max_pages, sizeof *walks);
  Engram__V1__ClaimStatus **statuses =
      eg_arena_calloc(c->a, c->x->o.max_facts + 1, sizeof *statuses);
  Engram__V1__Edge **edges = NULL;
  bool truncated = false;
  if (!pages || !walks || !statuses) return eg_err_set(&c->err, EG_ENOMEM, "out of memory");
  int64_t now = eg_time_now_us();
  rc = read_changes(c, known_at, pages, max_pages, &edges, &n, &truncated);
  if (!rc) rc = walk_all(c, edges, n, at, known_at, walks, statuses);
  if (!rc) {
    eg_buf *out = &c->resp->body;
    eg_buf_puts(out, "{");
    put_time(out, "valid_at", at ? at : now);
    eg_buf_puts(out, ",");
    put_time(out, "known_at", known_at ? known_at : now);
    eg_buf_printf(out, ",\"truncated\":%s,\"facts\":[", truncated ? "true" : "false");
    for (size_t i = 0; i < n; i++) {
      eg_buf_puts(out, i ? ",{\"edge\":" : "{\"edge\":");
      eg_pbjson_write(&edges[i]->base, EG_PBJSON_ISO_TIMES, out);
      if (statuses[i]) {
        eg_buf_puts(out, ",\"walk\":");
        eg_pbjson_write(&statuses[i]->base, EG_PBJSON_ISO_TIMES, out);
      }
      eg_buf_puts(out, "}");
    }
    eg_buf_puts(out, "]}");
  }
  for (size_t p = 0; p < max_pages; p++) {
    if (pages[p]) protobuf_c_message_free_unpacked(&pages[p]->base, NULL);
    if (walks[p]) protobuf_c_message_free_unpacked(&walks[p]->base, NULL);
  }
  return rc;
}

/* ---- /api/history ----------------------------------------------------------------- */

static eg_code api_history(api_call *c) {
  Engram__V1__EntityRef subject;
  engram__v1__entity_ref__init(&subject);
  const char *s = arg(c, "subject");
  int64_t id = 0;
  if (!*s)
    return eg_err_set(&c->err, EG_EINVAL, "argument subject is required (an entity name or id)");
  if (eg_cfg_int_in(s, 1, INT64_MAX, &id) && strspn(s, "0123456789") == strlen(s)) {
    subject.ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
    subject.id = (uint64_t)id;
  } else {
    subject.ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
    subject.name = (char *)s;
  }
  Engram__V1__HistoryRequest req;
  engram__v1__history_request__init(&req);
  req.scope = &c->scope;
  req.subject = &subject;
  req.relation = (char *)arg(c, "relation");
  eg_code rc = time_arg(c, "known_at", &req.known_at);
  Engram__V1__HistoryResponse *resp = NULL;
  if (!rc) rc = call(c, eg_graphd_history_call(graphd_of(c), &req, &resp));
  if (!rc) eg_pbjson_write(&resp->base, EG_PBJSON_ISO_TIMES, &c->resp->body);
  if (resp) protobuf_c_message_free_unpacked(&resp->base, NULL);
  return rc;
}

/* ---- /api/recall ------------------------------------------------------------------ */

static eg_code api_recall(api_call *c) {
  Engram__V1__RecallRequest req;
  engram__v1__recall_request__init(&req);
  req.scope = &c->scope;
  req.query = (char *)arg(c, "q");
  if (!*req.query) return eg_err_set(&c->err, EG_EINVAL, "argument q (the question) is required");
  const char *k = arg(c, "k");
  int64_t kv = 0;
  if (*k && !eg_cfg_int_in(k, 1, UINT32_MAX, &kv))
    return eg_err_set(&c->err, EG_EINVAL, "argument k must be a whole number from 1");
  req.k = (uint32_t)kv;
  /* as the CLI's --at: the question's "now", which valid_at defaults to */
  eg_code rc;
  if ((rc = time_arg(c, "at", &req.query_time)) || (rc = time_arg(c, "known_at", &req.known_at)))
    return rc;
  Engram__V1__RecallResponse *resp = NULL;
  rc = call(c, eg_recalld_recall_call(c->x->recalld, &req, &resp));
  if (!rc) eg_pbjson_write(&resp->base, EG_PBJSON_ISO_TIMES, &c->resp->body);
  if (resp) protobuf_c_message_free_unpacked(&resp->base, NULL);
  return rc;
}

/* ---- routing ---------------------------------------------------------------------- */

void eg_explorer_api(eg_explorer *x, const eg_http_req *req, eg_http_resp *resp) {
  static const struct {
    const char *path;
    eg_code (*fn)(api_call *c);
  } routes[] = {
      {"/api/timeline", api_timeline}, {"/api/history", api_history}, {"/api/recall", api_recall}};
  api_call c = {.x = x, .req = req, .resp = resp};
  resp->content_type = "application/json";
  resp->headers[0][0] = "Cache-Control";
  resp->headers[0][1] = "no-store";
  eg_code (*fn)(api_call *) = NULL;
  for (size_t i = 0; i < sizeof routes / sizeof *routes; i++)
    if (strcmp(eg_http_req_path(req), routes[i].path) == 0) fn = routes[i].fn;
  if (!fn) {
    eg_err_set(&c.err, EG_ENOTFOUND,
               "no such endpoint: try /api/timeline, /api/history or /api/recall");
    answer_error(&c);
    return;
  }
  c.a = eg_arena_new(0, 0);
  if (!c.a)
    eg_err_set(&c.err, EG_ENOMEM, "out of memory");
  else if (!read_common(&c))
    fn(&c);
  if (c.err.code) answer_error(&c);
  eg_arena_free(c.a);
}

/* ---- lifecycle -------------------------------------------------------------------- */

eg_code eg_explorer_open(const eg_explorer_opts *o, eg_explorer **out, eg_err *err) {
  eg_explorer *x = calloc(1, sizeof *x);
  if (!x) return eg_err_set(err, EG_ENOMEM, "out of memory");
  x->o = *o;
  if (!x->o.max_facts) x->o.max_facts = 5000;
  eg_rpc_client_opts co = {.timeout_us = o->timeout_us,
                           .tls_ca_file = o->tls_ca_file,
                           .tls_server_name = o->tls_server_name};
  eg_code rc =
      eg_peers_open_shards(o->graphd_addr, "graphd_addr", &co, x->graphd, &x->n_graphd, err);
  if (!rc && (!o->recalld_addr || !*o->recalld_addr))
    rc = eg_err_set(err, EG_EINVAL, "recalld_addr is empty");
  if (!rc) rc = eg_rpc_client_open(o->recalld_addr, &co, &x->recalld, err);
  if (rc) {
    eg_explorer_close(x);
    return rc;
  }
  x->o.graphd_addr = x->o.recalld_addr = x->o.tls_ca_file = x->o.tls_server_name =
      NULL; /* not kept */
  *out = x;
  return EG_OK;
}

void eg_explorer_close(eg_explorer *x) {
  if (!x) return;
  for (uint32_t i = 0; i < x->n_graphd; i++) eg_rpc_client_close(x->graphd[i]);
  eg_rpc_client_close(x->recalld);
  free(x);
}
