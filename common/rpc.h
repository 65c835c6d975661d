/*
 * rpc.h — Engram's gRPC layer over the gRPC C core, with protobuf-c messages.
 *
 * This header exposes no gRPC type: common/rpc_*.c are the only files that include
 * <grpc/grpc.h>.
 *
 * Server: a daemon describes its services as method tables. The framework runs N
 * completion-queue threads (each with its own CQ) that only accept calls and hand them
 * to a bounded worker pool; handlers run on the pool, never on a polling thread. It
 * decodes the request, calls the handler, encodes the response and maps eg_code to a
 * gRPC status. Every server also serves grpc.health.v1.Health/Check, unknown methods get
 * UNIMPLEMENTED, a full pool RESOURCE_EXHAUSTED, an expired deadline DEADLINE_EXCEEDED.
 * Each RPC is counted in the daemon's metrics under the standard gRPC names
 * (grpc_server_started_total, grpc_server_handled_total{grpc_code},
 * grpc_server_handling_seconds …, as go-grpc-prometheus exports them); a client given an
 * eg_rpc_metrics counts its calls as grpc_client_….
 *
 * Client: unary calls with deadlines, bearer token, retry with backoff on UNAVAILABLE,
 * and fan-out (many calls in flight at once, gathered).
 */
#ifndef EG_RPC_H
#define EG_RPC_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/metrics.h"

/* ---- server ---------------------------------------------------------------------- */

typedef struct eg_rpc_server eg_rpc_server;
typedef struct eg_rpc_call eg_rpc_call; /* one in-flight call, as seen by a handler */

/*
 * A handler decodes nothing and encodes nothing: it gets the unpacked request and sets
 * *resp to a response message allocated from the call (eg_rpc_alloc / EG_RPC_NEW) or
 * kept alive by svc until the call completes. Returning non-EG_OK sends that status
 * with err->msg as the status message (log-safe text only).
 */
typedef eg_code (*eg_rpc_handler)(void *svc, eg_rpc_call *call, const ProtobufCMessage *req,
                                  ProtobufCMessage **resp, eg_err *err);

/* A handler for one method of a service, by the method's proto name ("Commit"). */
typedef struct eg_rpc_handler_entry {
  const char *method;
  eg_rpc_handler fn;
} eg_rpc_handler_entry;

/*
 * A service: its generated descriptor (engram__v1__graph__descriptor) lists every method
 * with its request and response types, so every method of the contract is registered.
 * Methods without a handler answer UNIMPLEMENTED ("… is not implemented yet").
 */
typedef struct eg_rpc_service {
  const ProtobufCServiceDescriptor *desc; /* borrowed (static generated data) */
  const eg_rpc_handler_entry *handlers;   /* borrowed; must outlive the server */
  size_t n_handlers;
  void *svc; /* passed to every handler */
} eg_rpc_service;

typedef struct eg_rpc_server_opts {
  const char *addr;         /* "127.0.0.1:7102"; port 0 picks a free port */
  const char *daemon;       /* "graphd": prefix of the framework's own engram_<daemon>_rpc_… */
  int cq_threads;           /* completion-queue threads; 0 = 2 */
  int workers;              /* handler threads; 0 = 4 */
  int queue_max;            /* calls waiting for a worker; 0 = 1024 */
  int max_message_bytes;    /* receive and send limit; 0 = 4 MiB */
  size_t arena_cap;         /* per-call memory cap; 0 = 256 MiB */
  eg_metrics *metrics;      /* may be NULL */
  const char *tls_cert_pem; /* with tls_key_pem: serve TLS (PEM text, copied); NULL = plaintext */
  const char *tls_key_pem;
  /* Called for every call but health checks, after the request is decoded and before
   * the handler; a non-EG_OK return is the call's status (NULL = everyone may call). */
  eg_code (*authorize)(void *ctx, eg_rpc_call *call, const ProtobufCMessage *req, eg_err *err);
  void *authorize_ctx;
} eg_rpc_server_opts;

/* Create, bind and start. services is copied (the method tables are borrowed). */
eg_code eg_rpc_server_start(const eg_rpc_server_opts *opts, const eg_rpc_service *services,
                            size_t n_services, eg_rpc_server **out, eg_err *err);
/* The bound port (useful with port 0). */
int eg_rpc_server_port(const eg_rpc_server *s);
/* Health status of one service ("" = the whole server). */
void eg_rpc_server_set_serving(eg_rpc_server *s, const char *service, bool serving);
/*
 * Graceful shutdown: health turns NOT_SERVING, new calls are refused, in-flight calls
 * finish; calls still running after grace_us are cancelled. Then the threads stop.
 */
void eg_rpc_server_shutdown(eg_rpc_server *s, int64_t grace_us);
/* Shut down (grace 0 if not done yet) and free. Accepts NULL. */
void eg_rpc_server_free(eg_rpc_server *s);

/*
 * Run the handler of `method` ("Commit") of svc in this thread, as the server does once
 * the request is decoded, with no network, no authorization and no deadline: for tests
 * and fuzz targets. The response is allocated from arena a. EG_EUNIMPL when svc has no
 * handler of that name.
 */
eg_code eg_rpc_invoke(const eg_rpc_service *svc, const char *method, const ProtobufCMessage *req,
                      eg_arena *a, ProtobufCMessage **resp, eg_err *err);

/* --- for handlers (valid until the handler returns, unless said otherwise) --- */

/* A protobuf-c allocator drawing from an arena (frees are no-ops: the arena frees all). */
ProtobufCAllocator eg_rpc_arena_allocator(eg_arena *a);
/* A deep copy of m in arena a (NULL for NULL or out of memory). */
ProtobufCMessage *eg_rpc_clone(eg_arena *a, const ProtobufCMessage *m);

/* Allocate from the call's arena (freed when the call completes). NULL past the cap. */
void *eg_rpc_alloc(eg_rpc_call *call, size_t n);
eg_arena *eg_rpc_arena(eg_rpc_call *call);
/* NOLINTBEGIN(bugprone-macro-parentheses): `type` is a type name, which cannot be parenthesized */
#define EG_RPC_NEW(call, type, init_fn)               \
  ({                                                  \
    type *eg__m = eg_rpc_alloc((call), sizeof(type)); \
    if (eg__m) init_fn(eg__m);                        \
    eg__m;                                            \
  })
/* NOLINTEND(bugprone-macro-parentheses) */
/* Request metadata value (keys arrive lowercase: "authorization"); NULL if absent.
 * Borrowed until the handler returns. */
const char *eg_rpc_metadata(eg_rpc_call *call, const char *key);
/* Absolute deadline in CLOCK_REALTIME µs; INT64_MAX when the client set none. */
int64_t eg_rpc_deadline_us(const eg_rpc_call *call);
/* True when the deadline has passed (long handlers should check between stages). */
bool eg_rpc_expired(const eg_rpc_call *call);
/* The path of the call's method: /engram.v1.Graph/Commit */
const char *eg_rpc_method_path(const eg_rpc_call *call);

/* ---- client ---------------------------------------------------------------------- */

typedef struct eg_rpc_client eg_rpc_client;

/*
 * The standard gRPC client metrics in a registry: grpc_client_started_total,
 * grpc_client_handled_total{grpc_code}, grpc_client_handling_seconds,
 * grpc_client_msg_sent_total and grpc_client_msg_received_total, labelled grpc_type,
 * grpc_service and grpc_method. One per registry (NULL when m is NULL or already has
 * them); shared by every client given it; free with eg_rpc_metrics_free (accepts NULL)
 * after the last of those clients is closed and before m is freed.
 */
typedef struct eg_rpc_metrics eg_rpc_metrics;
eg_rpc_metrics *eg_rpc_client_metrics_new(eg_metrics *m);
void eg_rpc_metrics_free(eg_rpc_metrics *rm);

typedef struct eg_rpc_client_opts {
  int64_t timeout_us;    /* per attempt-set deadline; 0 = 10 s */
  int max_attempts;      /* total attempts on UNAVAILABLE; 0 = 4 */
  int64_t backoff_us;    /* first retry delay, doubled each time; 0 = 50 ms */
  const char *token;     /* sent as "authorization: Bearer <token>"; NULL = none */
  int max_message_bytes; /* 0 = 64 MiB */
  const char
      *tls_ca_file; /* PEM roots: connect over TLS and verify the server; NULL or "" = plaintext */
  const char *tls_server_name; /* name to verify instead of the target's host (NULL = the host) */
  eg_rpc_metrics
      *metrics; /* count calls as grpc_client_… (borrowed; must outlive the client); NULL = none */
  /* A call answered UNAVAILABLE "… writer=<host:port>" (a replica that is not its shard's
   * writer) is sent again to that address, on a channel kept for it (same TLS and token):
   * for clients of a replicated shard's read Service (ingestd's and recalld's peers). */
  bool follow_writer;
} eg_rpc_client_opts;

/* A channel to target ("127.0.0.1:7102"). Thread-safe: share one per peer. Copies
 * opts (and the token). Connecting is lazy, so this succeeds for a down peer. */
eg_code eg_rpc_client_open(const char *target, const eg_rpc_client_opts *opts, eg_rpc_client **out,
                           eg_err *err);
void eg_rpc_client_close(eg_rpc_client *c); /* accepts NULL */
/* A client on base's channel and options that sends token instead of base's (NULL or ""
 * = none): for a front end forwarding each caller's own token, without a connection per
 * caller. base must outlive it; close it with eg_rpc_client_close. */
eg_code eg_rpc_client_with_token(eg_rpc_client *base, const char *token, eg_rpc_client **out,
                                 eg_err *err);
const char *eg_rpc_client_target(const eg_rpc_client *c);

/*
 * One unary call. method is the full path (/engram.v1.Graph/State); callers name a
 * method through its typed client instead (below), this is for generic tools. On EG_OK *resp is
 * the unpacked response; the caller frees it with protobuf_c_message_free_unpacked(*resp,
 * NULL). On failure err holds the server's status (mapped back to eg_code) and message.
 * timeout_us 0 = the client's default.
 */
eg_code eg_rpc_unary(eg_rpc_client *c, const char *method, const ProtobufCMessage *req,
                     const ProtobufCMessageDescriptor *resp_desc, int64_t timeout_us,
                     ProtobufCMessage **resp, eg_err *err);

/* One call of a fan-out. Fill the inputs; the outputs are set by eg_rpc_fanout. The typed
 * clients (common/graph_client.h …) fill one with their *_call functions. */
typedef struct eg_rpc_request {
  eg_rpc_client *client;                       /* in */
  const char *method;                          /* in */
  const ProtobufCMessage *req;                 /* in, borrowed */
  const ProtobufCMessageDescriptor *resp_desc; /* in */
  ProtobufCMessage *resp; /* out: caller frees as for eg_rpc_unary, unless arena is set */
  eg_err err;             /* out: code EG_OK on success */
  /* in, may be NULL: the address of a response pointer of resp_desc's type
   * (Engram__V1__StateResponse **), set to resp when the call ends (NULL on failure).
   * It is resp under a typed name: free one of the two, once. */
  void *out;
  /* in, may be NULL: the response is unpacked into this arena (on the caller's thread),
   * which owns it: no malloc per field, nothing to free. */
  eg_arena *arena;
} eg_rpc_request;

/* Start every request at once, wait for all (retrying UNAVAILABLE ones), within one
 * overall timeout. Returns EG_OK when all succeeded, else the first failure's code. */
eg_code eg_rpc_fanout(eg_rpc_request *reqs, size_t n, int64_t timeout_us);

/* One request alone (a fan-out of one); timeout_us 0 = the client's default. *err (may be
 * NULL) is a copy of r->err; returns its code. */
eg_code eg_rpc_run(eg_rpc_request *r, int64_t timeout_us, eg_err *err);

/*
 * Typed clients. A client header (common/graph_client.h) declares each RPC of a service
 * with EG_RPC_CLIENT_DECLARE(eg_graphd_state, Engram__V1__StateRequest,
 * Engram__V1__StateResponse), which is:
 *
 *   eg_code eg_graphd_state(eg_rpc_client *c, const Engram__V1__StateRequest *req,
 *                           Engram__V1__StateResponse **resp, eg_err *err);
 *     One call with the client's deadline. On EG_OK *resp is the response, freed by the
 *     caller with protobuf_c_message_free_unpacked(&(*resp)->base, NULL); NULL on failure.
 *     resp may be NULL when only the status matters (the response is then freed).
 *   eg_rpc_request eg_graphd_state_call(eg_rpc_client *c, const Engram__V1__StateRequest *req,
 *                                       Engram__V1__StateResponse **resp);
 *     The same call, not started, for eg_rpc_fanout or eg_rpc_run: they set *resp (when
 *     resp is non-NULL) as above; req is borrowed until then.
 *
 * Its .c file defines them with EG_RPC_CLIENT_DEFINE, giving the method's path; no other
 * file names a method path (scripts/check-method-paths.sh).
 */
/* NOLINTBEGIN(bugprone-macro-parentheses): Req and Resp are type names */
#define EG_RPC_CLIENT_DECLARE(fn, Req, Resp)                              \
  eg_code fn(eg_rpc_client *c, const Req *req, Resp **resp, eg_err *err); \
  eg_rpc_request fn##_call(eg_rpc_client *c, const Req *req, Resp **resp)

#define EG_RPC_CLIENT_DEFINE(fn, path, Req, Resp, resp_descriptor)          \
  eg_rpc_request fn##_call(eg_rpc_client *c, const Req *req, Resp **resp) { \
    return (eg_rpc_request){.client = c,                                    \
                            .method = (path),                               \
                            .req = req ? &req->base : NULL,                 \
                            .resp_desc = &(resp_descriptor),                \
                            .out = resp};                                   \
  }                                                                         \
  eg_code fn(eg_rpc_client *c, const Req *req, Resp **resp, eg_err *err) {  \
    eg_rpc_request r = fn##_call(c, req, resp);                             \
    eg_code rc = eg_rpc_run(&r, 0, err);                                    \
    if (!resp && r.resp) protobuf_c_message_free_unpacked(r.resp, NULL);    \
    return rc;                                                              \
  }
/* NOLINTEND(bugprone-macro-parentheses) */

/* ---- process-wide ------------------------------------------------------------------ */

/* grpc_init / grpc_shutdown, reference-counted. Call once per user (server, client tool). */
void eg_rpc_global_init(void);
void eg_rpc_global_shutdown(void);

#endif
