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

#endif
