/*
 * fuzz_decode.c — every request message of the contract, decoded from arbitrary bytes
 * as the server decodes it, then the checks every handler starts with (scope, tenant of
 * the auth layer) and the JSON form used by the CLI. Properties: decoding never crashes;
 * the JSON written for a decoded message reads back, and writing that again gives the
 * same text (ISO times included).
 */
#include <string.h>

#include "common/arena.h"
#include "common/buf.h"
#include "common/pbjson.h"
#include "common/rpc.h"
#include "common/scope.h"
#include "proto/engram/v1/common.pb-c.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "proto/engram/v1/ingest.pb-c.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "tests/fuzz/fuzz.h"

static const ProtobufCServiceDescriptor *const services[] = {
    &engram__v1__graph__descriptor,  &engram__v1__vector__descriptor,
    &engram__v1__ingest__descriptor, &engram__v1__admin__descriptor,
    &engram__v1__recall__descriptor,
};
static const ProtobufCMessageDescriptor *inputs[64];
static size_t n_inputs;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  for (size_t s = 0; s < sizeof services / sizeof *services; s++)
    for (unsigned m = 0; m < services[s]->n_methods; m++)
      inputs[n_inputs++] = services[s]->methods[m].input;
  return 0;
}

static void json_round_trip(const ProtobufCMessage *m, unsigned flags, eg_arena *a) {
  eg_buf one = EG_BUF_INIT, two = EG_BUF_INIT;
  eg_fuzz_check(eg_pbjson_write(m, flags, &one) == EG_OK && eg_buf_append(&one, "", 1) == EG_OK,
                "write");
  cJSON *j = cJSON_Parse(one.data);
  eg_fuzz_check(j != NULL, "the JSON written is not JSON");
  ProtobufCMessage *back = NULL;
  eg_err e;
  if (eg_pbjson_read(m->descriptor, j, a, &back, &e) != EG_OK) {
    fprintf(stderr, "%s\n%s\n", e.msg, one.data);
    eg_fuzz_check(0, "the JSON written does not read back");
  }
  eg_fuzz_check(eg_pbjson_write(back, flags, &two) == EG_OK && eg_buf_append(&two, "", 1) == EG_OK,
                "write again");
  if (strcmp(one.data, two.data) != 0) {
    fprintf(stderr, "first:  %s\nsecond: %s\n", one.data, two.data);
    eg_fuzz_check(0, "JSON round trip changed the message");
  }
  cJSON_Delete(j);
  eg_buf_free(&one);
  eg_buf_free(&two);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const ProtobufCMessageDescriptor *d = inputs[data[0] % n_inputs];
  eg_arena *a = eg_arena_new(4096, 64u << 20);
  ProtobufCAllocator al = eg_rpc_arena_allocator(a);
  ProtobufCMessage *m = protobuf_c_message_unpack(d, &al, size - 1, data + 1);
  if (m) {
    const char *tenant = eg_scope_tenant_of(m);
    eg_fuzz_check(tenant != NULL, "every request has a scope");
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(d, "scope");
    eg_err e;
    if (eg_scope_fields_check(*(Engram__V1__Scope **)((char *)m + f->offset), &e) == EG_OK)
      eg_fuzz_check(*tenant != 0, "a scope that passes has a tenant");
    json_round_trip(m, 0, a);
    json_round_trip(m, EG_PBJSON_ISO_TIMES, a);
  }
  eg_arena_free(a);
  return 0;
}
