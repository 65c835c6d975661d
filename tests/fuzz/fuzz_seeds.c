/*
 * fuzz_seeds.c — writes the seed corpus of every fuzz target: fuzz_seeds <dir> makes
 * <dir>/<target>/seed-N. Requests are written as JSON here and encoded with the
 * contract's descriptors; their first byte is the method's index in the order the
 * targets use (Graph, Vector, Ingest, Admin, Recall; methods in proto order).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/arena.h"
#include "common/pbjson.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "proto/engram/v1/ingest.pb-c.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"

static const ProtobufCServiceDescriptor *const services[] = {
    &engram__v1__graph__descriptor,  &engram__v1__vector__descriptor,
    &engram__v1__ingest__descriptor, &engram__v1__admin__descriptor,
    &engram__v1__recall__descriptor,
};

#define S "\"scope\":{\"tenant\":\"t1\",\"user\":\"u1\"}"
static const struct {
  const char *method, *json;
} requests[] = {
    {"IngestSession",
     "{" S ",\"session_id\":\"s1\",\"session_time\":\"2024-03-04T10:00:00Z\",\"messages\":["
     "{\"role\":\"user\",\"content\":\"Last weekend I moved to Berlin with my sister Ana.\"},"
     "{\"role\":\"assistant\",\"content\":\"Berlin in March is lovely.\"}]}"},
    {"IngestSession",
     "{" S ",\"session_id\":\"s2\",\"session_time\":\"2024-03-11T10:00:00Z\",\"messages\":["
     "{\"role\":\"assistant\",\"content\":\"I recommend Sakura, a lovely sushi restaurant.\"},"
     "{\"role\":\"user\",\"content\":\"Sounds great. I ended up going to Sakura; the restaurant "
     "you suggested was great, but the hotel you recommended was awful. I never went.\"}]}"},
    {"IngestDocument",
     "{" S ",\"document_id\":\"d1\",\"title\":\"Notes\",\"text\":\"Maya Patel is chief of staff "
     "since 2023-05-01. She reports to Tim Cook.\"}"},
    {"AssertFacts",
     "{" S ",\"facts\":[{\"subject\":{\"name\":\"Maya Patel\"},\"relation\":\"WORKS_AT\","
     "\"object_entity\":{\"name\":\"Acme\"}}]}"},
    {"GetJob", "{" S ",\"job_id\":\"job-1-00\"}"},
    {"Wait", "{" S ",\"watermark\":\"v1:0000000000000001\",\"timeout_us\":100}"},
    {"Recall", "{" S ",\"query\":\"Where did I move last weekend?\","
               "\"query_time\":\"2024-03-06T10:00:00Z\",\"k\":5}"},
    {"Commit", "{" S ",\"edges\":[{\"subject\":{\"name\":\"user:u1\"},\"relation\":\"LIVES_IN\","
               "\"object_entity\":{\"name\":\"Berlin\"}}]}"},
    {"State",
     "{" S ",\"queries\":[{\"subject\":{\"name\":\"user:u1\"},\"relation\":\"LIVES_IN\"}]}"},
    {"History", "{" S ",\"subject\":{\"name\":\"user:u1\"},\"relation\":\"LIVES_IN\"}"},
    {"Traverse", "{" S ",\"seeds\":[{\"name\":\"user:u1\"}],\"max_depth\":2}"},
    {"Walk", "{" S ",\"claims\":[1],\"max_depth\":3}"},
    {"Changes", "{" S "}"},
    {"RecordOutcome",
     "{" S ",\"edge_id\":1,\"kind\":\"OUTCOME_KIND_SUCCEEDED\",\"note\":\"it went well\"}"},
    {"ResolveEntities", "{" S ",\"mentions\":[{\"name\":\"Maya Patel\",\"create\":true}]}"},
    {"Search",
     "{" S ",\"queries\":[{\"text\":\"Berlin sister\"}],\"k\":5,\"include_content\":true}"},
    {"Upsert",
     "{" S
     ",\"chunks\":[{\"id\":7,\"content\":\"I moved to Berlin.\",\"latent\":\"The user moved.\"}]}"},
    {"GetChunks", "{" S ",\"ids\":[7],\"neighbours\":1}"},
    {"Erase", "{" S "}"},
};

static const char *const texts[] = {
    "Last weekend I went hiking; two months ago I moved. In March 2023, since May, on 2024-03-01.",
    "the week of 2023-05-15, yesterday, 3 days ago, next Friday, before Christmas 2022",
    "Maya-Patel's gpt-4 user_id 3.14 state-of-the-art José Ünïcödé 東京",
    "ok it's happening 😅 signed a lease! so Berlin from october 🇩🇪",
    "👩‍💻 ❤️ we're going electric: a Kia",
    ("user: our landlord here in Leeds won't fix the boiler, I'm no longer at Brightwell\n"
     "assistant: sorry"),
    "I got the job!!! Octopus Energy, customer team. We said goodbye to Rufus. Where do I live?",
    "Applied for a post at Ferncliff University, thinking of moving to Leeds in winter 2019-20",
};
static const char *const configs[] = {
    "workers = 8\nmax_message_bytes = 16m\n# comment\ninsecure_no_auth = yes\nbm25_k1 = 0.9\n",
    "grpc_addr = \"0.0.0.0:7101\"\n\0--workers=3\n--insecure-no-auth\n",
    "acme sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad admin\n",
};

/* MCP messages as a client sends them (JSON-RPC 2.0), good and bad. */
#define RPC "{\"jsonrpc\":\"2.0\",\"id\":"
#define CALL(id, tool, args) \
  RPC #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" tool "\",\"arguments\":" args "}}"
static const char *const mcp_messages[] = {
    RPC
    "1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}"
    ","
    "\"clientInfo\":{\"name\":\"claude-code\",\"version\":\"1.0\"}}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
    RPC "\"a-2\",\"method\":\"tools/list\",\"params\":{}}",
    CALL(3, "remember",
         "{\"messages\":[{\"role\":\"user\",\"content\":\"I moved to Lisbon last week.\","
         "\"time\":\"2024-05-02T09:00:00Z\"}],\"session_time\":\"2024-05-02\"}"),
    CALL(4, "remember",
         "{\"text\":\"Maya Patel is chief of staff since 2023-05-01.\",\"messages\":[]}"),
    CALL(5, "recall",
         "{\"question\":\"Where do I live?\",\"at\":\"2024-06-01\",\"k\":5,\"user\":\"bob\"}"),
    CALL(6, "recall", "{\"question\":\"\",\"k\":1.5,\"colour\":\"red\"}"),
    CALL(7, "facts",
         "{\"entity\":\"me\",\"relation\":\"LIVES_IN\",\"known_at\":\"2024-05-01T00:00:00Z\"}"),
    CALL(8, "history", "{\"entity\":\"Maya Patel\",\"limit\":1001}"),
    CALL(9, "forget", "{\"user\":\"ana\",\"confirm\":true}"),
    CALL(10, "forget", "[1,2]"),
    RPC
    "11,\"method\":\"resources/read\",\"params\":{\"uri\":\"engram://users/ana%20lee/profile\"}}",
    RPC "12,\"method\":\"resources/templates/list\"}",
    "[" RPC "13,\"method\":\"ping\"}," RPC
    "14,\"method\":\"resources/list\"},"
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}," RPC
    "15,\"result\":{}},{\"id\":null},7]",
    RPC "16,\"method\":\"tools/cal\xc3\xa9\",\"params\":[]} {",
    "{\"jsonrpc\":\"1.0\",\"id\":{\"x\":1},\"method\":5}",
};

/* Derivation rules (fuzz_derive_rules): the shipped file is added by main, these around it. */
static const char *const rule_texts[] = {
    ("rule r\n when ?u LIKES ?x\n when ?x IS_A \"jazz club\"\n unless ?x HAS_PROPERTY closed\n"
     " count ?x >= 2\n then ?u PREFERS live-music\nend\n"),
    "rule a\n when ?u FRIEND_OF ?f\n when ?f LIKES ?x\n then ?u MIGHT_LIKE ?x\nend\n# comment\n",
    "rule a\n when ?u LIKES ?x\n whenn ?u LIKES ?x\nend",
    "rule a\n when ?u LIKES \"open\n",
};

/* a catalogue of two towns (lang/catalog.c): its header entry, "Norwich" and "Pune" */
static const char catalog[] =
    "\xde\x12\x04\x95\x00\x00\x00\x00\x03\x00\x00\x00\x1c\x00\x00\x00\x34\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x4c\x00\x00\x00\x01\x00\x00\x00"
    "\x64\x00\x00\x00\x01\x00\x00\x00\x6e\x00\x00\x00\x16\x00\x00\x00\x4d\x00\x00\x00"
    "\x07\x00\x00\x00\x66\x00\x00\x00\x04\x00\x00\x00\x70\x00\x00\x00\x00Project-Id-"
    "Version: x\n\x00\x31\x00Norwich\x00\x32\x00Pune";

static int n_written;

static void write_seed(const char *dir, const char *target, const void *data, size_t n) {
  char path[800];
  snprintf(path, sizeof path, "%s/%s", dir, target);
  if (mkdir(path, 0755) && errno != EEXIST) return;
  snprintf(path, sizeof path, "%s/%s/seed-%d", dir, target, n_written++);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(data, 1, n, f);
  fclose(f);
}

static int method_index(const char *name, const ProtobufCMessageDescriptor **input) {
  int idx = 0;
  for (size_t s = 0; s < sizeof services / sizeof *services; s++)
    for (unsigned m = 0; m < services[s]->n_methods; m++, idx++)
      if (!strcmp(services[s]->methods[m].name, name)) {
        *input = services[s]->methods[m].input;
        return idx;
      }
  return -1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: fuzz_seeds <dir>\n");
    return 2;
  }
  const char *dir = argv[1];
  mkdir(dir, 0755);
  for (size_t i = 0; i < sizeof requests / sizeof *requests; i++) {
    const ProtobufCMessageDescriptor *in = NULL;
    int idx = method_index(requests[i].method, &in);
    cJSON *j = cJSON_Parse(requests[i].json);
    eg_arena *a = eg_arena_new(0, 0);
    ProtobufCMessage *m = NULL;
    eg_err e;
    if (idx < 0 || !j || eg_pbjson_read(in, j, a, &m, &e)) {
      fprintf(stderr, "fuzz_seeds: %s: %s\n", requests[i].method, j ? e.msg : "bad JSON");
      cJSON_Delete(j);
      eg_arena_free(a);
      return 1;
    }
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = eg_arena_alloc(a, n + 1);
    buf[0] = (uint8_t)idx;
    protobuf_c_message_pack(m, buf + 1);
    write_seed(dir, "fuzz_handlers", buf, n + 1);
    write_seed(dir, "fuzz_decode", buf, n + 1);
    if (!strncmp(requests[i].method, "Ingest", 6) || !strcmp(requests[i].method, "AssertFacts"))
      write_seed(dir, "fuzz_ingest_json", requests[i].json, strlen(requests[i].json));
    cJSON_Delete(j);
    eg_arena_free(a);
  }
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    char buf[512];
    int64_t ref = 1709287200000000LL; /* 2024-03-01T10:00:00Z */
    memcpy(buf, &ref, 8);
    size_t n = strlen(texts[i]);
    memcpy(buf + 8, texts[i], n);
    write_seed(dir, "fuzz_dates", buf, n + 8);
    write_seed(dir, "fuzz_tokenize", texts[i], n);
    write_seed(dir, "fuzz_stated", texts[i], n);
  }
  for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
    size_t n = strlen(configs[i]);
    if (i == 1) n += 1 + strlen(configs[i] + n + 1); /* the part after the NUL */
    write_seed(dir, "fuzz_config", configs[i], n);
  }
  write_seed(dir, "fuzz_catalog", catalog, sizeof catalog); /* with its last NUL */
  for (size_t i = 0; i < sizeof rule_texts / sizeof *rule_texts; i++)
    write_seed(dir, "fuzz_derive_rules", rule_texts[i], strlen(rule_texts[i]));
  FILE *rf = fopen(EG_SOURCE_DIR "/services/graphd/derive_rules.txt", "rb");
  if (rf) {
    char shipped[16384];
    size_t n = fread(shipped, 1, sizeof shipped, rf);
    fclose(rf);
    write_seed(dir, "fuzz_derive_rules", shipped, n);
  }
  for (size_t i = 0; i < sizeof mcp_messages / sizeof *mcp_messages; i++)
    write_seed(dir, "fuzz_mcp", mcp_messages[i], strlen(mcp_messages[i]));
  printf("%d seeds in %s\n", n_written, dir);
  return 0;
}
