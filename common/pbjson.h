/*
 * pbjson.h — protobuf-c messages to and from JSON, driven by the generated descriptors,
 * so every request and response of the contract has one JSON form (the CLI's input and
 * --json output, and tools).
 *
 * Field names are the proto names (snake_case). Defaults are omitted on output (proto3
 * JSON). Enums are written by name; on input the full name, its unprefixed short form
 * ("ASSERT" for EDGE_OP_ASSERT) or the number are accepted. With EG_PBJSON_ISO_TIMES,
 * int64 time fields (time, *_at, *_time, valid_from, valid_to, t_commit, from, to) are
 * written as ISO-8601 strings; on input they accept an ISO-8601 string or a number.
 */
#ifndef EG_PBJSON_H
#define EG_PBJSON_H

#include <cjson/cJSON.h>
#include <protobuf-c/protobuf-c.h>

#include "common/arena.h"
#include "common/buf.h"
#include "common/err.h"

#define EG_PBJSON_ISO_TIMES 1u /* time fields as ISO-8601 */
#define EG_PBJSON_PRETTY 2u    /* indented output */

/* Append the JSON of m to out. */
eg_code eg_pbjson_write(const ProtobufCMessage *m, unsigned flags, eg_buf *out);

/* Parse text holding exactly one JSON value (whitespace around it allowed). Anything after
 * the value is EG_EINVAL, not ignored: three JSONL lines given where one request is
 * expected must not send the first and drop the rest. Caller frees with cJSON_Delete. */
eg_code eg_pbjson_parse(const char *text, cJSON **out, eg_err *err);

/* Build a message of type desc from JSON, allocated in arena a (freed with it).
 * Unknown fields and wrongly typed values are EG_EINVAL with the field's path. */
eg_code eg_pbjson_read(const ProtobufCMessageDescriptor *desc, const cJSON *json, eg_arena *a,
                       ProtobufCMessage **out, eg_err *err);

#endif
