/*
 * fuzz_ingest_json.c — one line of `engram ingest bulk` JSONL: JSON parsing, the choice
 * of request kind and the JSON → protobuf reader. Property: a line that parses gives a
 * request of its kind that encodes and decodes again.
 */
#include <string.h>

#include "cli/bulk.h"
#include "common/arena.h"
#include "common/rpc.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  eg_arena *a = eg_arena_new(4096, 64u << 20);
  const eg_ingest_kind *kind = NULL;
  ProtobufCMessage *req = NULL;
  eg_err e;
  if (eg_ingest_parse_line(text, a, &kind, &req, &e) == EG_OK && req) {
    eg_fuzz_check(req->descriptor == kind->desc, "request of its kind");
    size_t n = protobuf_c_message_get_packed_size(req);
    uint8_t *buf = malloc(n ? n : 1);
    protobuf_c_message_pack(req, buf);
    ProtobufCMessage *back = protobuf_c_message_unpack(kind->desc, NULL, n, buf);
    eg_fuzz_check(back != NULL, "the request decodes again");
    protobuf_c_message_free_unpacked(back, NULL);
    free(buf);
  }
  eg_arena_free(a);
  free(text);
  return 0;
}
