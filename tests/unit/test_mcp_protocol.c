/*
 * test_mcp_protocol.c — engram-mcp's JSON-RPC and MCP layer (services/mcp/protocol.c)
 * with its real tools (services/mcp/tools.c): parse errors, invalid requests, unknown
 * methods, bad params, notifications, the lifecycle and version negotiation, batches as
 * the revision has them, and tool failures reported as isError results. The daemons'
 * addresses point at a closed port, so a call that gets past its arguments fails as a
 * daemon-down tool error (the test with real daemons is tests/mcp/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rpc.h"
#include "common/text.h"
#include "services/mcp/protocol.h"
#include "services/mcp/tools.h"
#include "tests/testlib.h"

static eg_mcp_server srv;

/* Handle text in session s; the parsed reply (NULL when none), *out the outcome. */
static cJSON *send_msg(eg_mcp_session *s, const char *text, eg_mcp_outcome *out) {
  char *reply = NULL;
  *out = eg_mcp_handle(&srv, s, text, strlen(text), &reply);
  cJSON *r = reply ? cJSON_Parse(reply) : NULL;
  if (reply) EG_CHECK(strchr(reply, '\n') == NULL); /* stdio: one message per line */
  if (reply && eg_utf8_valid(text, strlen(text))) EG_CHECK(eg_utf8_valid(reply, strlen(reply)));
  free(reply);
  return r;
}

static int error_code(const cJSON *r) {
  const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "code");
  return cJSON_IsNumber(c) ? c->valueint : 0;
}

static const char *error_message(const cJSON *r) {
  const cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "message");
  return cJSON_IsString(m) ? m->valuestring : "";
}

static bool id_is_null(const cJSON *r) { return cJSON_IsNull(cJSON_GetObjectItem(r, "id")); }

/* A session that went through initialize with version v. */
static eg_mcp_session initialized(const char *v) {
  eg_mcp_session s = {.may_erase = true};
  char msg[256];
  snprintf(msg, sizeof msg,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
           "\"protocolVersion\":\"%s\","
           "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
           v);
  eg_mcp_outcome out;
  cJSON_Delete(send_msg(&s, msg, &out));
  return s;
}

/* tools/call of name with args (JSON text): the CallToolResult, or NULL. */
static cJSON *call_tool(eg_mcp_session *s, const char *name, const char *args) {
  char msg[2048];
  snprintf(msg, sizeof msg,
           "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/"
           "call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
           name, args);
  eg_mcp_outcome out;
  cJSON *r = send_msg(s, msg, &out);
  cJSON *result = cJSON_DetachItemFromObject(r, "result");
  cJSON_Delete(r);
  return result;
}

static bool is_error_result(const cJSON *result) {
  return cJSON_IsTrue(cJSON_GetObjectItem(result, "isError"));
}

static const char *result_text(const cJSON *result) {
  const cJSON *t =
      cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(result, "content"), 0), "text");
  return cJSON_IsString(t) ? t->valuestring : "";
}

static void test_parse_errors(void) {
  eg_mcp_session s = initialized("2025-11-25");
  eg_mcp_outcome out;
  static const char *const broken[] = {
      "{not json", "", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} {}", "[1,2"};
  for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
    cJSON *r = send_msg(&s, broken[i], &out);
    EG_CHECK_INT(out, EG_MCP_BAD_MESSAGE);
    EG_CHECK_INT(error_code(r), EG_JSONRPC_PARSE_ERROR);
    EG_CHECK(id_is_null(r));
    cJSON_Delete(r);
  }
}

static void test_invalid_requests(void) {
  eg_mcp_session s = initialized("2025-11-25");
  eg_mcp_outcome out;
  static const char *const invalid[] = {"42",
                                        "\"ping\"",
                                        "{\"id\":1,\"method\":\"ping\"}",
                                        "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
                                        "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
                                        "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
                                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}",
                                        "{\"jsonrpc\":\"2.0\",\"id\":1}"};
  for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
    cJSON *r = send_msg(&s, invalid[i], &out);
    EG_CHECK_INT(out, EG_MCP_BAD_MESSAGE);
    EG_CHECK_INT(error_code(r), EG_JSONRPC_INVALID_REQUEST);
    cJSON_Delete(r);
  }
  /* the id of an invalid request is echoed when it is a valid id */
  cJSON *r = send_msg(&s, "{\"jsonrpc\":\"1.0\",\"id\":\"abc\",\"method\":\"ping\"}", &out);
  EG_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "id")), "abc");
  cJSON_Delete(r);
}

static void test_lifecycle_and_negotiation(void) {
  eg_mcp_session s = {0};
  eg_mcp_outcome out;
  /* before initialize: ping answers, anything else is refused */
  cJSON *r = send_msg(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", &out);
  EG_CHECK(cJSON_IsObject(cJSON_GetObjectItem(r, "result")));
  cJSON_Delete(r);
  r = send_msg(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", &out);
  EG_CHECK_INT(error_code(r), EG_JSONRPC_INVALID_REQUEST);
  EG_CHECK(strstr(error_message(r), "initialize") != NULL);
  cJSON_Delete(r);
  /* initialize needs a protocolVersion */
  r = send_msg(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{}}", &out);
  EG_CHECK_INT(error_code(r), EG_JSONRPC_INVALID_PARAMS);
  cJSON_Delete(r);
  /* a revision it speaks comes back as asked; any other gets the newest */
  static const char *const asked[][2] = {{"2025-06-18", "2025-06-18"},
                                         {"2024-11-05", "2024-11-05"},
                                         {"2025-11-25", "2025-11-25"},
                                         {"2026-07-28", EG_MCP_LATEST},
                                         {"1999-01-01", EG_MCP_LATEST}};
  for (size_t i = 0; i < sizeof asked / sizeof *asked; i++) {
    eg_mcp_session fresh = {0};
    char msg[200];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{"
             "\"protocolVersion\":\"%s\"}}",
             asked[i][0]);
    r = send_msg(&fresh, msg, &out);
    const cJSON *res = cJSON_GetObjectItem(r, "result");
    EG_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(res, "protocolVersion")), asked[i][1]);
    EG_CHECK_STR(fresh.version, asked[i][1]);
    EG_CHECK(
        cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "capabilities"), "tools")));
    EG_CHECK(
        cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "capabilities"), "resources")));
    EG_CHECK_STR(
        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "serverInfo"), "name")),
        "engram-mcp");
    EG_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "id")), "init");
    cJSON_Delete(r);
  }
  s = initialized("2025-11-25");
  r = send_msg(
      &s,
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-11-25\"}}",
      &out);
  EG_CHECK_INT(error_code(r), EG_JSONRPC_INVALID_REQUEST); /* only once per session */
  cJSON_Delete(r);
  /* notifications and responses get nothing back */
  EG_CHECK(send_msg(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &out) ==
           NULL);
  EG_CHECK_INT(out, EG_MCP_NO_REPLY);
  EG_CHECK(send_msg(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\"}", &out) == NULL);
  EG_CHECK(send_msg(&s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}", &out) == NULL);
  EG_CHECK_INT(out, EG_MCP_NO_REPLY);
}

static void test_methods_and_params(void) {
  eg_mcp_session s = initialized("2025-11-25");
  eg_mcp_outcome out;
  cJSON *r = send_msg(
      &s, "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"sampling/createMessage\"}", &out);
  EG_CHECK_INT(out, EG_MCP_REPLY);
  EG_CHECK_INT(error_code(r), EG_JSONRPC_METHOD_NOT_FOUND);
  EG_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "id")), "x");
  cJSON_Delete(r);
  static const char *const bad_params[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":[1]}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
      "call\",\"params\":{\"name\":\"recall\",\"arguments\":[1]}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
      "call\",\"params\":{\"name\":\"no_such_tool\"}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{}}",
  };
  for (size_t i = 0; i < sizeof bad_params / sizeof *bad_params; i++) {
    r = send_msg(&s, bad_params[i], &out);
    EG_CHECK_INT(error_code(r), EG_JSONRPC_INVALID_PARAMS);
    cJSON_Delete(r);
  }
  static const char *const unknown[] = {"file:///etc/passwd", "engram://users//profile",
                                        "engram://users/%00/profile", "engram://users/a/b/profile",
                                        "engram://users/ana/diary"};
  for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
    char msg[256];
    snprintf(
        msg, sizeof msg,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"%s\"}}",
        unknown[i]);
    r = send_msg(&s, msg, &out);
    EG_CHECK_INT(error_code(r), EG_MCP_RESOURCE_NOT_FOUND);
    cJSON_Delete(r);
  }
}

static void test_listings(void) {
  eg_mcp_session s = initialized("2025-11-25");
  eg_mcp_outcome out;
  cJSON *r = send_msg(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", &out);
  const cJSON *tools = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "tools");
  EG_CHECK_INT(cJSON_GetArraySize(tools), 5);
  static const char *const names[] = {"remember", "recall", "facts", "history", "forget"};
  for (int i = 0; i < 5; i++) {
    const cJSON *t = cJSON_GetArrayItem(tools, i);
    EG_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), names[i]);
    EG_CHECK(strlen(cJSON_GetStringValue(cJSON_GetObjectItem(t, "description")) ?: "") > 80);
    const cJSON *schema = cJSON_GetObjectItem(t, "inputSchema");
    EG_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(schema, "type")), "object");
    EG_CHECK(cJSON_IsObject(cJSON_GetObjectItem(schema, "properties")));
    EG_CHECK(cJSON_IsObject(cJSON_GetObjectItem(t, "annotations")));
  }
  cJSON_Delete(r);
  r = send_msg(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/templates/list\"}", &out);
  const cJSON *t = cJSON_GetArrayItem(
      cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "resourceTemplates"), 0);
  EG_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(t, "uriTemplate")),
               "engram://users/{user}/profile");
  cJSON_Delete(r);
  r = send_msg(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\"}", &out);
  const cJSON *res =
      cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "resources"), 0);
  EG_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(res, "uri")),
               "engram://users/ana%20lee/profile");
  cJSON_Delete(r);
}

static void test_tool_errors(void) {
  eg_mcp_session s = initialized("2025-11-25");
  static const char *const cases[][3] = {
      {"recall", "{}", "`question` is required"},
      {"recall", "{\"question\": 5}", "`question` must be a string"},
      {"recall", "{\"question\": \"where?\", \"at\": \"last tuesday\"}", "ISO-8601"},
      {"recall", "{\"question\": \"where?\", \"k\": 0}", "`k` must be a whole number"},
      {"recall", "{\"question\": \"where?\", \"colour\": \"red\"}", "no argument `colour`"},
      {"remember", "{}", "give `messages`"},
      {"remember", "{\"messages\": [], \"text\": \"x\"}", "not both"},
      {"remember", "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\", \"mood\": 1}]}",
       "invalid arguments"},
      {"history", "{\"limit\": 1.5}", "`limit` must be a whole number"},
      {"facts", "{\"user\": 7}", "`user` must be a string"},
      {"forget", "{\"confirm\": true}", "without an admin token"},
      /* past the arguments: the daemon is down, and the error says which and where */
      {"recall", "{\"question\": \"where do I live?\"}",
       "recalld at 127.0.0.1:1 answered UNAVAILABLE"},
      {"facts", "{}", "graphd at 127.0.0.1:1"},
      {"remember", "{\"messages\": [{\"role\": \"user\", \"content\": \"I moved to Lisbon.\"}]}",
       "ingestd at 127.0.0.1:1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cJSON *result = call_tool(&s, cases[i][0], cases[i][1]);
    EG_CHECK(is_error_result(result));
    if (!strstr(result_text(result), cases[i][2]))
      eg_test_fail(__FILE__, __LINE__, "%s %s: \"%s\" lacks \"%s\"", cases[i][0], cases[i][1],
                   result_text(result), cases[i][2]);
    EG_CHECK(cJSON_GetObjectItem(result, "structuredContent") == NULL);
    cJSON_Delete(result);
  }
  /* a resource read whose daemon is down is a protocol error with the reason */
  eg_mcp_outcome out;
  cJSON *r =
      send_msg(&s,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":"
               "\"engram://users/ana/profile\"}}",
               &out);
  EG_CHECK_INT(error_code(r), EG_JSONRPC_INTERNAL_ERROR);
  EG_CHECK(strstr(error_message(r), "graphd") != NULL);
  cJSON_Delete(r);
}

/* Names and values quoted in error messages are cut to a length: never inside a character,
 * which would make the reply invalid UTF-8 (and so invalid JSON). Each long name here
 * has a two-byte character across the cut. */
static void test_utf8_cuts(void) {
  eg_mcp_session s = initialized("2025-11-25"), fresh = {0};
  char name[80], uri[260], key[300], msg[1024];
  snprintf(name, sizeof name, "%.63s\xc3\xa9",
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
  eg_mcp_outcome out;
  static const char *const shapes[][2] = {
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\"}", "Method not found: aaa"},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"}}",
       "Unknown tool: aaa"},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
       "call\",\"params\":{\"name\":\"%s\",\"arguments\":1}}",
       "arguments of tool aaa"},
  };
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    snprintf(msg, sizeof msg, shapes[i][0], name);
    cJSON *r = send_msg(&s, msg, &out);
    EG_CHECK(strstr(error_message(r), shapes[i][1]) != NULL);
    cJSON_Delete(r);
  }
  snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\"}", name);
  cJSON *r = send_msg(&fresh, msg, &out);
  EG_CHECK(strstr(error_message(r), "before initialize") != NULL);
  cJSON_Delete(r);
  /* a resource URI quoted up to 200 bytes */
  snprintf(uri, sizeof uri, "engram://x/%0188d\xc3\xa9", 0);
  snprintf(
      msg, sizeof msg,
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"%s\"}}",
      uri);
  r = send_msg(&s, msg, &out);
  EG_CHECK_INT(error_code(r), EG_MCP_RESOURCE_NOT_FOUND);
  cJSON_Delete(r);
  /* a tool's unknown argument, and an unknown field deep in its arguments */
  snprintf(msg, sizeof msg, "{\"%s\": 1}", name);
  cJSON *result = call_tool(&s, "recall", msg);
  EG_CHECK(is_error_result(result) && strstr(result_text(result), "no argument `aaa") != NULL);
  cJSON_Delete(result);
  snprintf(key, sizeof key, "%0221d\xc3\xa9",
           0); /* 256 bytes of "IngestSessionRequest.messages[0].key" */
  snprintf(msg, sizeof msg,
           "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\", \"%s\": 1}]}", key);
  result = call_tool(&s, "remember", msg);
  EG_CHECK(is_error_result(result) && strstr(result_text(result), "invalid arguments") != NULL);
  cJSON_Delete(result);
}

static void test_batches(void) {
  static const char batch[] =
      "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"},"
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-03-26\"}}]";
  eg_mcp_outcome out;
  /* 2025-06-18 and later have no batches: one error for the whole array */
  const char *without[] = {"2025-11-25", "2025-06-18", "2024-11-05"};
  for (size_t i = 0; i < 3; i++) {
    eg_mcp_session s = initialized(without[i]);
    cJSON *r = send_msg(&s, batch, &out);
    EG_CHECK_INT(out, EG_MCP_BAD_MESSAGE);
    EG_CHECK(cJSON_IsObject(r));
    EG_CHECK_INT(error_code(r), EG_JSONRPC_INVALID_REQUEST);
    EG_CHECK(strstr(error_message(r), "batch") != NULL);
    cJSON_Delete(r);
  }
  /* 2025-03-26 has them: one response per request, none for the notification */
  eg_mcp_session s = initialized("2025-03-26");
  cJSON *r = send_msg(&s, batch, &out);
  EG_CHECK_INT(out, EG_MCP_REPLY);
  EG_REQUIRE(cJSON_IsArray(r));
  EG_CHECK_INT(cJSON_GetArraySize(r), 3);
  EG_CHECK(cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetArrayItem(r, 0), "result")));
  EG_CHECK_INT(error_code(cJSON_GetArrayItem(r, 1)), EG_JSONRPC_METHOD_NOT_FOUND);
  EG_CHECK_INT(error_code(cJSON_GetArrayItem(r, 2)),
               EG_JSONRPC_INVALID_REQUEST); /* initialize in a batch */
  cJSON_Delete(r);
  r = send_msg(&s, "[]", &out);
  EG_CHECK_INT(error_code(r), EG_JSONRPC_INVALID_REQUEST);
  cJSON_Delete(r);
  EG_CHECK(send_msg(&s, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}]", &out) ==
           NULL);
  EG_CHECK_INT(out, EG_MCP_NO_REPLY);
  /* a stateless (HTTP) request of 2025-03-26, the default without a version header */
  eg_mcp_session http = {.stateless = true};
  snprintf(http.version, sizeof http.version, "%s", EG_MCP_HTTP_DEFAULT);
  r = send_msg(&http, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}]", &out);
  EG_CHECK(cJSON_IsArray(r) && cJSON_GetArraySize(r) == 1);
  cJSON_Delete(r);
}

int main(void) {
  eg_rpc_global_init();
  eg_mcp_engram_opts o = {.ingestd_addr = "127.0.0.1:1",
                          .graphd_addr = "127.0.0.1:1",
                          .recalld_addr = "127.0.0.1:1",
                          .token = "",
                          .admin_token = "",
                          .tls_ca_file = "",
                          .tls_server_name = "",
                          .timeout_us = 2000000,
                          .tenant = "acme",
                          .user = "ana lee",
                          .agent = ""};
  eg_mcp_engram *e = NULL;
  eg_err err;
  if (eg_mcp_engram_open(&o, &e, &err)) {
    fprintf(stderr, "open: %s\n", err.msg);
    return 1;
  }
  srv =
      (eg_mcp_server){&eg_mcp_engram_ops, e, "engram-mcp", "Engram memory", "test", "instructions"};
  EG_RUN(test_parse_errors);
  EG_RUN(test_invalid_requests);
  EG_RUN(test_lifecycle_and_negotiation);
  EG_RUN(test_methods_and_params);
  EG_RUN(test_listings);
  EG_RUN(test_tool_errors);
  EG_RUN(test_utf8_cuts);
  EG_RUN(test_batches);
  eg_mcp_engram_close(e);
  eg_rpc_global_shutdown();
  return eg_test_finish();
}
