/*
 * protocol.c — JSON-RPC 2.0 and MCP's lifecycle over any transport (see protocol.h).
 */
#include "services/mcp/protocol.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"

/* Newest first. */
static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

bool eg_mcp_version_supported(const char *v) {
  for (size_t i = 0; v && i < sizeof versions / sizeof *versions; i++)
    if (strcmp(v, versions[i]) == 0) return true;
  return false;
}

/* An error response; id is copied (NULL = a null id). The message goes out as UTF-8:
 * what is left of a character cut in half (by "%.64s" or the size of an eg_err
 * message) is dropped. */
static cJSON *error_response(const cJSON *id, int code, const char *message) {
  cJSON *r = cJSON_CreateObject(), *e = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "jsonrpc", "2.0");
  cJSON_AddItemToObject(r, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
  cJSON_AddNumberToObject(e, "code", code);
  cJSON *m = cJSON_AddStringToObject(e, "message", message);
  if (m) eg_utf8_drop_invalid(m->valuestring);
  cJSON_AddItemToObject(r, "error", e);
  return r;
}

/* A result response; takes ownership of result. */
static cJSON *result_response(const cJSON *id, cJSON *result) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "jsonrpc", "2.0");
  cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, 1));
  cJSON_AddItemToObject(r, "result", result);
  return r;
}

char *eg_mcp_error_text(int code, const char *message) {
  cJSON *r = error_response(NULL, code, message);
  char *t = cJSON_PrintUnformatted(r);
  cJSON_Delete(r);
  return t;
}

/* ---- the methods ------------------------------------------------------------------- */

/* What a method answers: a result (owned), or an error code and message. */
typedef struct answer {
  cJSON *result;
  int code;
  char msg[EG_ERR_MSG_MAX + 64];
} answer;

static void fail(answer *a, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(answer *a, int code, const char *fmt, ...) {
  a->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(a->msg, sizeof a->msg, fmt, ap);
  va_end(ap);
}

static void initialize(const eg_mcp_server *srv, eg_mcp_session *s, const cJSON *params,
                       answer *a) {
  if (!s->stateless && s->version[0]) {
    fail(a, EG_JSONRPC_INVALID_REQUEST, "Invalid Request: the session is already initialized");
    return;
  }
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
  if (!cJSON_IsString(v)) {
    fail(a, EG_JSONRPC_INVALID_PARAMS,
         "Invalid params: initialize needs protocolVersion (a string)");
    return;
  }
  const char *chosen = eg_mcp_version_supported(v->valuestring) ? v->valuestring : EG_MCP_LATEST;
  snprintf(s->version, sizeof s->version, "%s", chosen);
  cJSON *r = cJSON_CreateObject(), *caps = cJSON_CreateObject(), *info = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "protocolVersion", chosen);
  cJSON *tools = cJSON_AddObjectToObject(caps, "tools");
  cJSON_AddFalseToObject(tools, "listChanged");
  cJSON *res = cJSON_AddObjectToObject(caps, "resources");
  cJSON_AddFalseToObject(res, "subscribe");
  cJSON_AddFalseToObject(res, "listChanged");
  cJSON_AddItemToObject(r, "capabilities", caps);
  cJSON_AddStringToObject(info, "name", srv->name);
  if (srv->title && strcmp(chosen, "2025-06-18") >= 0)
    cJSON_AddStringToObject(info, "title", srv->title);
  cJSON_AddStringToObject(info, "version", srv->version);
  cJSON_AddItemToObject(r, "serverInfo", info);
  if (srv->instructions) cJSON_AddStringToObject(r, "instructions", srv->instructions);
  a->result = r;
}

/* A result {key: array}; takes ownership of array (NULL = empty). */
static cJSON *listing(const char *key, cJSON *array) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddItemToObject(r, key, array ? array : cJSON_CreateArray());
  return r;
}

/* The code of a hook's failure as a JSON-RPC error. */
static void hook_failed(answer *a, eg_code rc, const eg_err *e, int not_found_code) {
  int code = rc == EG_ENOTFOUND ? not_found_code
             : rc == EG_EINVAL  ? EG_JSONRPC_INVALID_PARAMS
                                : EG_JSONRPC_INTERNAL_ERROR;
  fail(a, code, "%s", e->msg);
}

static void call_tool(const eg_mcp_server *srv, const eg_mcp_session *s, const cJSON *params,
                      answer *a) {
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
  if (!cJSON_IsString(name)) {
    fail(a, EG_JSONRPC_INVALID_PARAMS, "Invalid params: tools/call needs name (a string)");
    return;
  }
  if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
    fail(a, EG_JSONRPC_INVALID_PARAMS, "Invalid params: arguments of tool %.64s must be an object",
         name->valuestring);
    return;
  }
  eg_err e = {0};
  eg_code rc = srv->ops->call_tool(srv->ctx, s, name->valuestring,
                                   cJSON_IsObject(args) ? args : NULL, &a->result, &e);
  if (rc == EG_ENOTFOUND)
    fail(a, EG_JSONRPC_INVALID_PARAMS, "Unknown tool: %.64s", name->valuestring);
  else if (rc)
    hook_failed(a, rc, &e, EG_JSONRPC_INTERNAL_ERROR);
}

static void read_resource(const eg_mcp_server *srv, const eg_mcp_session *s, const cJSON *params,
                          answer *a) {
  const cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
  if (!cJSON_IsString(uri)) {
    fail(a, EG_JSONRPC_INVALID_PARAMS, "Invalid params: resources/read needs uri (a string)");
    return;
  }
  eg_err e = {0};
  eg_code rc = srv->ops->read_resource(srv->ctx, s, uri->valuestring, &a->result, &e);
  if (rc) hook_failed(a, rc, &e, EG_MCP_RESOURCE_NOT_FOUND);
}

/* Run a request's method. params is an object or NULL. */
static void run(const eg_mcp_server *srv, eg_mcp_session *s, const char *method,
                const cJSON *params, answer *a) {
  if (strcmp(method, "initialize") == 0) {
    initialize(srv, s, params, a);
    return;
  }
  if (strcmp(method, "ping") == 0) {
    a->result = cJSON_CreateObject();
    return;
  }
  if (!s->stateless && !s->version[0]) {
    fail(a, EG_JSONRPC_INVALID_REQUEST,
         "Invalid Request: %.64s before initialize (send initialize first)", method);
    return;
  }
  if (strcmp(method, "tools/list") == 0)
    a->result = listing("tools", srv->ops->list_tools(srv->ctx, s));
  else if (strcmp(method, "tools/call") == 0)
    call_tool(srv, s, params, a);
  else if (strcmp(method, "resources/list") == 0)
    a->result = listing("resources", srv->ops->list_resources(srv->ctx, s));
  else if (strcmp(method, "resources/templates/list") == 0)
    a->result = listing("resourceTemplates", srv->ops->list_templates(srv->ctx, s));
  else if (strcmp(method, "resources/read") == 0)
    read_resource(srv, s, params, a);
  else
    fail(a, EG_JSONRPC_METHOD_NOT_FOUND, "Method not found: %.64s", method);
}

/* ---- messages ---------------------------------------------------------------------- */

/* One message of a batch or alone: a response to send, or NULL (a notification, or a
 * response from the client, which this server never asks for). *bad is set when the
 * message is not a JSON-RPC message at all. */
static cJSON *one(const eg_mcp_server *srv, eg_mcp_session *s, const cJSON *m, bool in_batch,
                  bool *bad) {
  *bad = false;
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
  const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
  const cJSON *jsonrpc = cJSON_GetObjectItemCaseSensitive(m, "jsonrpc");
  bool id_ok = cJSON_IsString(id) || cJSON_IsNumber(id); /* MCP: a string or number, never null */
  if (!cJSON_IsObject(m) || !cJSON_IsString(jsonrpc) || strcmp(jsonrpc->valuestring, "2.0") != 0) {
    *bad = true;
    return error_response(
        id_ok ? id : NULL, EG_JSONRPC_INVALID_REQUEST,
        "Invalid Request: not a JSON-RPC 2.0 message (an object with \"jsonrpc\": \"2.0\")");
  }
  if (!method) {
    if (id_ok && (cJSON_GetObjectItemCaseSensitive(m, "result") ||
                  cJSON_GetObjectItemCaseSensitive(m, "error")))
      return NULL; /* a response */
    *bad = true;
    return error_response(id_ok ? id : NULL, EG_JSONRPC_INVALID_REQUEST,
                          "Invalid Request: no method");
  }
  if (!cJSON_IsString(method)) {
    *bad = true;
    return error_response(id_ok ? id : NULL, EG_JSONRPC_INVALID_REQUEST,
                          "Invalid Request: method must be a string");
  }
  if (id && !id_ok) {
    *bad = true;
    return error_response(NULL, EG_JSONRPC_INVALID_REQUEST,
                          "Invalid Request: id must be a string or a number");
  }
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
  if (!id) return NULL; /* notifications (initialized, cancelled, …) need no action here */
  if (params && !cJSON_IsObject(params))
    return error_response(id, EG_JSONRPC_INVALID_PARAMS,
                          "Invalid params: params must be an object");
  if (in_batch && strcmp(method->valuestring, "initialize") == 0)
    return error_response(id, EG_JSONRPC_INVALID_REQUEST,
                          "Invalid Request: initialize cannot be part of a batch");
  answer a = {0};
  run(srv, s, method->valuestring, params, &a);
  if (a.result) return result_response(id, a.result);
  return error_response(id, a.code, a.msg);
}

static eg_mcp_outcome finish(cJSON *r, eg_mcp_outcome outcome, char **reply) {
  *reply = r ? cJSON_PrintUnformatted(r) : NULL;
  cJSON_Delete(r);
  return r ? outcome : EG_MCP_NO_REPLY;
}

eg_mcp_outcome eg_mcp_handle(const eg_mcp_server *srv, eg_mcp_session *s, const char *text,
                             size_t len, char **reply) {
  const char *end = NULL;
  cJSON *m = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  if (m && end) {
    while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) end++;
    if (end < text + len) { /* two messages on one line, or trailing bytes */
      cJSON_Delete(m);
      m = NULL;
    }
  }
  if (!m)
    return finish(
        error_response(NULL, EG_JSONRPC_PARSE_ERROR, "Parse error: not one valid JSON value"),
        EG_MCP_BAD_MESSAGE, reply);
  bool bad;
  if (!cJSON_IsArray(m)) {
    cJSON *r = one(srv, s, m, false, &bad);
    cJSON_Delete(m);
    return finish(r, bad ? EG_MCP_BAD_MESSAGE : EG_MCP_REPLY, reply);
  }
  cJSON *r = NULL;
  eg_mcp_outcome outcome = EG_MCP_REPLY;
  char msg[160];
  const char *v = s->version[0] ? s->version : "(none: not initialized)";
  if (strcmp(s->version, "2025-03-26") != 0) {
    snprintf(msg, sizeof msg, "Invalid Request: JSON-RPC batches are not part of MCP revision %s",
             v);
    r = error_response(NULL, EG_JSONRPC_INVALID_REQUEST, msg);
    outcome = EG_MCP_BAD_MESSAGE;
  } else if (!cJSON_GetArraySize(m)) {
    r = error_response(NULL, EG_JSONRPC_INVALID_REQUEST, "Invalid Request: an empty batch");
    outcome = EG_MCP_BAD_MESSAGE;
  } else {
    r = cJSON_CreateArray();
    const cJSON *item;
    cJSON_ArrayForEach(item, m) {
      cJSON *one_r = one(srv, s, item, true, &bad);
      if (one_r) cJSON_AddItemToArray(r, one_r);
    }
    if (!cJSON_GetArraySize(r)) {
      cJSON_Delete(r);
      r = NULL;
    }
  }
  cJSON_Delete(m);
  return finish(r, outcome, reply);
}
