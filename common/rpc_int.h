/*
 * rpc_int.h — private helpers shared by rpc_server.c and rpc_client.c.
 */
#ifndef EG_RPC_INT_H
#define EG_RPC_INT_H

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "common/rpc.h"

/* Pack a message into a new byte buffer (caller destroys it). */
grpc_byte_buffer *eg_rpc_pack(const ProtobufCMessage *m);

/* Unpack a byte buffer with the given allocator (NULL = malloc). EG_EINVAL if malformed. */
eg_code eg_rpc_unpack(grpc_byte_buffer *bb, const ProtobufCMessageDescriptor *desc,
                      ProtobufCAllocator *alloc, ProtobufCMessage **out, eg_err *err);

/* µs from now → a monotonic deadline; INT64_MAX → infinite. */
gpr_timespec eg_rpc_deadline_in(int64_t us);

/* A gpr_timespec deadline → CLOCK_REALTIME µs (INT64_MAX for infinite). */
int64_t eg_rpc_timespec_to_us(gpr_timespec t);

/* ---- the standard gRPC metrics (rpc_metrics.c) -------------------------------------- */

/* The series of one method: stable until eg_rpc_metrics_free. */
typedef struct eg_rpc_method_metrics eg_rpc_method_metrics;

/* The families grpc_<side>_… ("server" or "client") in m. NULL when m is NULL, out of
 * memory or the names are already taken in m (logged). */
eg_rpc_metrics *eg_rpc_metrics_new(eg_metrics *m, const char *side);
/* The series of method path "/pkg.Service/Method", made on first use; NULL for a NULL rm
 * (every function below accepts NULL and then does nothing). */
eg_rpc_method_metrics *eg_rpc_metrics_method(eg_rpc_metrics *rm, const char *path);
void eg_rpc_metrics_started(eg_rpc_method_metrics *mm);
void eg_rpc_metrics_received(eg_rpc_method_metrics *mm); /* one request/response message */
void eg_rpc_metrics_sent(eg_rpc_method_metrics *mm);
/* The call finished with gRPC status number `status` after `seconds`. */
void eg_rpc_metrics_handled(eg_rpc_metrics *rm, eg_rpc_method_metrics *mm, int status,
                            double seconds);
/* grpc-go's name of a status: "OK", "InvalidArgument", "NotFound" …; "Unknown" outside 0–16. */
const char *eg_rpc_status_name(int status);

#endif
