/*
 * fuzz_mcp.c — engram-mcp's JSON-RPC layer (eg_mcp_handle) with its real tools and
 * resources. An input is one incoming message, as a stdio line or an HTTP POST body
 * carries it. It is handled in three sessions: a stdio one before initialize, a stdio
 * one initialized at the newest revision (structured results, no batches) and a
 * stateless HTTP one at 2025-03-26 (batches); then, wrapped as "[input]", as a batch in
 * another of the last kind. The daemons' addresses point at a closed port, so a tool
 * call that gets past its arguments goes through the gRPC client and fails as a
 * daemon-down tool error.
 *
 * Properties: every reply is one line of JSON that cJSON parses whole; each response in
 * it has "jsonrpc": "2.0", an id that is null or the request's, and either a result
 * object or an error with an integer code and a string message; a notification or a
 * response from the client gets nothing and every other message an answer; an array
 * is an error in a session whose revision has no batches; a tools/call result is a
 * CallToolResult; and a reply to well-formed UTF-8 is well-formed UTF-8.
 */
#include <string.h>

#include "common/rpc.h"
#include "common/text.h"
#include "services/mcp/protocol.h"
#include "services/mcp/tools.h"
#include "tests/fuzz/fuzz.h"

static eg_mcp_engram *engram;
static eg_mcp_server srv;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  eg_rpc_global_init();
  /* Port 1 refuses connections. A deadline shorter than the client's first retry
   * backoff (50 ms) makes each call fail at its first attempt, without sleeping. */
  eg_mcp_engram_opts o = {.ingestd_addr = "127.0.0.1:1",
                          .graphd_addr = "127.0.0.1:1",
                          .recalld_addr = "127.0.0.1:1",
                          .token = "",
                          .admin_token = "admin",
                          .tls_ca_file = "",
                          .tls_server_name = "",
                          .timeout_us = 20000,
                          .tenant = "acme",
                          .user = "ana",
                          .agent = "claude"};
  eg_err e;
  if (eg_mcp_engram_open(&o, &engram, &e)) {
    fprintf(stderr, "fuzz_mcp: %s\n", e.msg);
    exit(1);
  }
  srv = (eg_mcp_server){&eg_mcp_engram_ops, engram, "engram-mcp",
                        "Engram memory",    "fuzz", "Remember and recall."};
  return 0;
}

/* The message as eg_mcp_handle reads it: one JSON value and nothing but white space after it. */
static cJSON *parse_message(const char *text, size_t len) {
  const char *end = NULL;
  cJSON *m = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  while (m && end < text + len && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
    end++;
  if (m && end < text + len) {
    cJSON_Delete(m);
    return NULL;
  }
  return m;
}

static bool id_valid(const cJSON *id) { return cJSON_IsString(id) || cJSON_IsNumber(id); }

/* A message that gets no answer: a notification, or a response from the client. */
static bool needs_no_reply(const cJSON *m) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "jsonrpc");
  if (!cJSON_IsObject(m) || !cJSON_IsString(v) || strcmp(v->valuestring, "2.0") != 0) return false;
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id"),
              *method = cJSON_GetObjectItemCaseSensitive(m, "method");
  if (method) return cJSON_IsString(method) && !id;
  return id_valid(id) && (cJSON_GetObjectItemCaseSensitive(m, "result") ||
                          cJSON_GetObjectItemCaseSensitive(m, "error"));
}

/* A CallToolResult: text content, isError only when true, structuredContent an object
 * and only from 2025-06-18 on. */
static void check_tool_result(const cJSON *result, const eg_mcp_session *s) {
  const cJSON *content = cJSON_GetObjectItemCaseSensitive(result, "content");
  eg_fuzz_check(cJSON_IsArray(content) && cJSON_GetArraySize(content) > 0,
                "a tool result has content");
  const cJSON *item;
  cJSON_ArrayForEach(item, content) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(item, "type");
    eg_fuzz_check(cJSON_IsString(type) && strcmp(type->valuestring, "text") == 0,
                  "tool content is text");
    eg_fuzz_check(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(item, "text")),
                  "tool content has its text");
  }
  const cJSON *is_error = cJSON_GetObjectItemCaseSensitive(result, "isError");
  eg_fuzz_check(!is_error || cJSON_IsTrue(is_error), "isError is true or absent");
  const cJSON *structured = cJSON_GetObjectItemCaseSensitive(result, "structuredContent");
  eg_fuzz_check(!structured || (cJSON_IsObject(structured) && !is_error &&
                                strcmp(s->version, "2025-06-18") >= 0),
                "structuredContent is an object, on success, from 2025-06-18 on");
}

/* One response. Alone, it answers req (the message as parsed: NULL when it did not
 * parse); in a batch (req NULL, in_batch) its id is checked by the caller. */
static void check_response(const cJSON *r, const cJSON *req, bool in_batch,
                           const eg_mcp_session *s) {
  eg_fuzz_check(cJSON_IsObject(r), "a response is an object");
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "jsonrpc");
  eg_fuzz_check(cJSON_IsString(v) && strcmp(v->valuestring, "2.0") == 0, "jsonrpc is \"2.0\"");
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "id");
  eg_fuzz_check(cJSON_IsNull(id) || id_valid(id), "id is null, a string or a number");
  const cJSON *req_id = cJSON_IsObject(req) ? cJSON_GetObjectItemCaseSensitive(req, "id") : NULL;
  if (!in_batch)
    eg_fuzz_check(id_valid(req_id) ? cJSON_Compare(id, req_id, true) : cJSON_IsNull(id),
                  "the response carries the request's id (null when it has none that is valid)");
  const cJSON *result = cJSON_GetObjectItemCaseSensitive(r, "result");
  const cJSON *error = cJSON_GetObjectItemCaseSensitive(r, "error");
  eg_fuzz_check(!result != !error, "either result or error");
  if (error) {
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
    eg_fuzz_check(cJSON_IsNumber(code) && code->valuedouble == (double)code->valueint,
                  "error.code is an integer");
    eg_fuzz_check(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(error, "message")),
                  "error.message is a string");
    return;
  }
  eg_fuzz_check(cJSON_IsObject(result), "result is an object");
  const cJSON *method = cJSON_GetObjectItemCaseSensitive(req, "method");
  if (cJSON_IsString(method) && strcmp(method->valuestring, "tools/call") == 0)
    check_tool_result(result, s);
}

/* Handle text[0..len) in s and check the reply. */
static void handle(eg_mcp_session *s, const char *text, size_t len) {
  char *reply = NULL;
  eg_mcp_outcome out = eg_mcp_handle(&srv, s, text, len, &reply);
  eg_fuzz_check((out == EG_MCP_NO_REPLY) == (reply == NULL),
                "a reply exactly when the outcome says so");
  cJSON *m = parse_message(text, len);
  bool batches = strcmp(s->version, "2025-03-26") == 0; /* read after: initialize may set it */
  if (!reply) {
    eg_fuzz_check(m != NULL, "an unparsable message is answered");
    if (cJSON_IsArray(m)) {
      const cJSON *item;
      cJSON_ArrayForEach(item, m)
          eg_fuzz_check(needs_no_reply(item), "a batch of notifications gets nothing");
    } else {
      eg_fuzz_check(needs_no_reply(m), "only notifications and responses get nothing");
    }
    cJSON_Delete(m);
    return;
  }
  eg_fuzz_check(strchr(reply, '\n') == NULL, "a reply is one line");
  size_t n = strlen(reply);
  if (eg_utf8_valid(text, len)) eg_fuzz_check(eg_utf8_valid(reply, n), "a reply to UTF-8 is UTF-8");
  const char *end = NULL;
  cJSON *r = cJSON_ParseWithOpts(reply, &end, 1);
  eg_fuzz_check(r != NULL, "the reply is one JSON value");
  if (!cJSON_IsArray(r)) {
    check_response(r, cJSON_IsArray(m) ? NULL : m, false, s);
    eg_fuzz_check(!needs_no_reply(m), "a notification gets nothing");
    if (cJSON_IsArray(m) && !batches)
      eg_fuzz_check(cJSON_GetObjectItemCaseSensitive(r, "error") != NULL,
                    "no batches in this revision");
  } else {
    eg_fuzz_check(cJSON_IsArray(m) && batches && cJSON_GetArraySize(r) > 0,
                  "an array answers a batch");
    eg_fuzz_check(cJSON_GetArraySize(r) <= cJSON_GetArraySize(m),
                  "at most one response per message");
    const cJSON *resp;
    cJSON_ArrayForEach(resp, r) {
      check_response(resp, NULL, true, s);
      const cJSON *id = cJSON_GetObjectItemCaseSensitive(resp, "id"), *item;
      bool known = cJSON_IsNull(id);
      cJSON_ArrayForEach(item, m) known |=
          cJSON_Compare(id, cJSON_GetObjectItemCaseSensitive(item, "id"), true);
      eg_fuzz_check(known, "a batch response carries the id of one of its messages, or null");
    }
  }
  cJSON_Delete(r);
  cJSON_Delete(m);
  free(reply);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  eg_mcp_session fresh = {0};
  eg_mcp_session stdio = {.version = EG_MCP_LATEST, .may_erase = true};
  eg_mcp_session http = {.version = EG_MCP_HTTP_DEFAULT, .stateless = true, .may_erase = true};
  eg_mcp_session http_batch = http;
  handle(&fresh, text, size);
  handle(&stdio, text, size);
  handle(&http, text, size);
  char *batch = malloc(size + 2);
  batch[0] = '[';
  memcpy(batch + 1, data, size);
  batch[size + 1] = ']';
  handle(&http_batch, batch, size + 2);
  free(batch);
  return 0;
}
