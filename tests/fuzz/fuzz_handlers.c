/*
 * fuzz_handlers.c — every RPC handler of the four daemons, in one process.
 *
 * graphd and vectord are opened as the daemons open them (eg_daemon_open, GloVe
 * embedder) and served on loopback; ingestd and recalld are opened pointing at them.
 * An input is one request: its first byte picks the method (of the 25), the rest is the
 * protobuf encoding of the request. It is decoded as the server decodes it and handed to
 * the handler (eg_rpc_invoke), so the scope checks, limits, engines, the enrichers, the
 * peer calls and the assembly all see it. Any crash, sanitizer report or leak is a bug;
 * error statuses are the expected answer to most inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/arena.h"
#include "common/log.h"
#include "common/rpc.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "proto/engram/v1/ingest.pb-c.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "services/daemons.h"
#include "tests/fuzz/fuzz.h"

typedef struct method {
  const eg_rpc_service *svc;
  const ProtobufCMethodDescriptor *md;
} method;

static method methods[64];
static size_t n_methods;
static eg_daemon *daemons[4];
static eg_rpc_server *servers[2];

static void add_methods(eg_daemon *d) {
  const eg_rpc_service *svcs;
  size_t n = eg_daemon_services(d, &svcs);
  for (size_t i = 0; i < n; i++)
    for (unsigned m = 0; m < svcs[i].desc->n_methods; m++)
      methods[n_methods++] = (method){&svcs[i], &svcs[i].desc->methods[m]};
}

static eg_daemon *open_daemon(const eg_daemon_spec *spec, const char *dir, const char *extra1,
                              const char *extra2) {
  char data[600];
  snprintf(data, sizeof data, "--data-dir=%s/%s", dir, spec->name);
  char *argv[8] = {(char *)spec->name, data, "--metrics-addr=", "--insecure-no-auth",
                   "--log-level=error"};
  int argc = 5;
  if (extra1) argv[argc++] = (char *)extra1;
  if (extra2) argv[argc++] = (char *)extra2;
  eg_daemon *d = NULL;
  eg_err e;
  if (eg_daemon_open(spec, argc, argv, &d, &e)) {
    fprintf(stderr, "fuzz_handlers: %s: %s\n", spec->name, e.msg);
    exit(1);
  }
  return d;
}

static int serve(eg_daemon *d, const char *name, int i) {
  const eg_rpc_service *svcs;
  size_t n = eg_daemon_services(d, &svcs);
  eg_rpc_server_opts o = {.addr = "127.0.0.1:0", .daemon = name};
  eg_err e;
  if (eg_rpc_server_start(&o, svcs, n, &servers[i], &e)) {
    fprintf(stderr, "fuzz_handlers: serve %s: %s\n", name, e.msg);
    exit(1);
  }
  return eg_rpc_server_port(servers[i]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  eg_rpc_global_init();
  const char *dir = eg_fuzz_tempdir("handlers");
  char models[700], gaddr[64], vaddr[64];
  snprintf(models, sizeof models, "--models-dir=%s/var/models", EG_SOURCE_DIR);
  daemons[0] = open_daemon(&eg_graphd_daemon, dir, NULL, NULL);
  daemons[1] = open_daemon(&eg_vectord_daemon, dir, "--embedder=glove", models);
  snprintf(gaddr, sizeof gaddr, "--graphd-addr=127.0.0.1:%d", serve(daemons[0], "graphd", 0));
  snprintf(vaddr, sizeof vaddr, "--vectord-addr=127.0.0.1:%d", serve(daemons[1], "vectord", 1));
  daemons[2] = open_daemon(&eg_ingestd_daemon, dir, gaddr, vaddr);
  daemons[3] = open_daemon(&eg_recalld_daemon, dir, gaddr, vaddr);
  for (int i = 0; i < 4; i++) add_methods(daemons[i]);
  return 0;
}

/* Keep each input quick: no long waits for watermarks. */
static void bound_waits(ProtobufCMessage *m) {
  if (m->descriptor == &engram__v1__wait_request__descriptor) {
    Engram__V1__WaitRequest *w = (void *)m;
    if (w->timeout_us > 1000) w->timeout_us = 1000;
  } else if (m->descriptor == &engram__v1__recall_request__descriptor) {
    Engram__V1__RecallRequest *r = (void *)m;
    if (r->watermark_timeout_us > 1000) r->watermark_timeout_us = 1000;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || !n_methods) return 0;
  const method *m = &methods[data[0] % n_methods];
  eg_arena *a = eg_arena_new(4096, 64u << 20);
  ProtobufCAllocator al = eg_rpc_arena_allocator(a);
  ProtobufCMessage *req = protobuf_c_message_unpack(m->md->input, &al, size - 1, data + 1);
  if (req) {
    bound_waits(req);
    ProtobufCMessage *resp = NULL;
    eg_err e;
    eg_code rc = eg_rpc_invoke(m->svc, m->md->name, req, a, &resp, &e);
    if (rc == EG_OK)
      eg_fuzz_check(resp && resp->descriptor == m->md->output,
                    "handler answered with the wrong type");
    if (rc == EG_OK)
      eg_fuzz_check(protobuf_c_message_get_packed_size(resp) < (64u << 20), "huge response");
  }
  eg_arena_free(a);
  return 0;
}
