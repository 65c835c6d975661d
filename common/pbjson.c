/*
 * pbjson.c — descriptor-driven JSON for protobuf-c messages.
 */
#include "common/pbjson.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/time.h"

static bool is_time_field(const ProtobufCFieldDescriptor *f) {
  if (f->type != PROTOBUF_C_TYPE_INT64) return false;
  const char *n = f->name;
  size_t l = strlen(n);
  static const char *exact[] = {"time", "valid_from", "valid_to", "t_commit", "from", "to"};
  for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
    if (strcmp(n, exact[i]) == 0) return true;
  return (l > 3 && strcmp(n + l - 3, "_at") == 0) || (l > 5 && strcmp(n + l - 5, "_time") == 0);
}

static void put_string(eg_buf *out, const char *s) {
  eg_buf_puts(out, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '"':
        eg_buf_puts(out, "\\\"");
        break;
      case '\\':
        eg_buf_puts(out, "\\\\");
        break;
      case '\n':
        eg_buf_puts(out, "\\n");
        break;
      case '\r':
        eg_buf_puts(out, "\\r");
        break;
      case '\t':
        eg_buf_puts(out, "\\t");
        break;
      default:
        if (*p < 0x20)
          eg_buf_printf(out, "\\u%04x", *p);
        else
          eg_buf_append(out, p, 1);
    }
  }
  eg_buf_puts(out, "\"");
}

static void indent(eg_buf *out, unsigned flags, int depth) {
  if (!(flags & EG_PBJSON_PRETTY)) return;
  eg_buf_puts(out, "\n");
  for (int i = 0; i < depth; i++) eg_buf_puts(out, "  ");
}

static void write_msg(const ProtobufCMessage *m, unsigned flags, eg_buf *out, int depth);

/* Integers a JSON number (an IEEE double to most readers) holds exactly: up to 2^53.
 * 64-bit values beyond are written as decimal strings, as proto3 JSON does. */
#define EXACT_MAX ((int64_t)1 << 53)

/* The shortest decimal that reads back as the same float (single) or double; NaN and
 * the infinities as the strings proto3 JSON uses. */
static void put_real(eg_buf *out, double v, bool single) {
  if (isnan(v)) {
    eg_buf_puts(out, "\"NaN\"");
    return;
  }
  if (isinf(v)) {
    eg_buf_puts(out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  char buf[40];
  for (int prec = single ? 6 : 15; prec <= (single ? 9 : 17); prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    double back = strtod(buf, NULL);
    if (single ? (float)back == (float)v : back == v) break;
  }
  eg_buf_puts(out, buf);
}

/* One value of field f stored at p. */
static void write_value(const ProtobufCFieldDescriptor *f, const void *p, unsigned flags,
                        eg_buf *out, int depth) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
      eg_buf_printf(out, "%" PRId32, *(const int32_t *)p);
      break;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64: {
      int64_t v = *(const int64_t *)p;
      if ((flags & EG_PBJSON_ISO_TIMES) && is_time_field(f) && eg_time_iso_range(v)) {
        char ts[EG_TIME_ISO_MAX];
        eg_time_format(v, ts, sizeof ts);
        put_string(out, ts);
      } else if (v > EXACT_MAX || v < -EXACT_MAX) {
        eg_buf_printf(out, "\"%" PRId64 "\"", v); /* a JSON number would lose digits */
      } else {
        eg_buf_printf(out, "%" PRId64, v);
      }
      break;
    }
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
      eg_buf_printf(out, "%" PRIu32, *(const uint32_t *)p);
      break;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64: {
      uint64_t v = *(const uint64_t *)p;
      eg_buf_printf(out, v > EXACT_MAX ? "\"%" PRIu64 "\"" : "%" PRIu64, v);
      break;
    }
    case PROTOBUF_C_TYPE_FLOAT:
      put_real(out, *(const float *)p, true);
      break;
    case PROTOBUF_C_TYPE_DOUBLE:
      put_real(out, *(const double *)p, false);
      break;
    case PROTOBUF_C_TYPE_BOOL:
      eg_buf_puts(out, *(const protobuf_c_boolean *)p ? "true" : "false");
      break;
    case PROTOBUF_C_TYPE_ENUM: {
      int v = *(const int *)p;
      const ProtobufCEnumValue *ev =
          protobuf_c_enum_descriptor_get_value((const ProtobufCEnumDescriptor *)f->descriptor, v);
      if (ev)
        put_string(out, ev->name);
      else
        eg_buf_printf(out, "%d", v);
      break;
    }
    case PROTOBUF_C_TYPE_STRING:
      put_string(out, *(char *const *)p ? *(char *const *)p : "");
      break;
    case PROTOBUF_C_TYPE_BYTES: {
      const ProtobufCBinaryData *b = p;
      eg_buf_puts(out, "\"");
      for (size_t i = 0; i < b->len; i++) eg_buf_printf(out, "%02x", b->data[i]);
      eg_buf_puts(out, "\"");
      break;
    }
    case PROTOBUF_C_TYPE_MESSAGE: {
      const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)p;
      if (sub)
        write_msg(sub, flags, out, depth);
      else
        eg_buf_puts(out, "null");
      break;
    }
  }
}

static size_t value_size(const ProtobufCFieldDescriptor *f) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
    case PROTOBUF_C_TYPE_ENUM:
      return 4;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      return 8;
    case PROTOBUF_C_TYPE_BOOL:
      return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
      return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
      return sizeof(ProtobufCBinaryData);
  }
  return 0;
}

static bool is_default(const ProtobufCFieldDescriptor *f, const void *p) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_STRING: {
      const char *s = *(char *const *)p;
      return !s || !*s;
    }
    case PROTOBUF_C_TYPE_MESSAGE:
      return *(void *const *)p == NULL;
    case PROTOBUF_C_TYPE_BYTES:
      return ((const ProtobufCBinaryData *)p)->len == 0;
    default: {
      static const unsigned char zero[16];
      return memcmp(p, zero, value_size(f)) == 0;
    }
  }
}

static void write_msg(const ProtobufCMessage *m, unsigned flags, eg_buf *out, int depth) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  const char *base = (const char *)m;
  bool first = true;
  eg_buf_puts(out, "{");
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    const void *p = base + f->offset;
    size_t count = 1;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      count = *(const size_t *)(base + f->quantifier_offset);
      if (!count) continue;
    } else if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
      if (*(const uint32_t *)(base + f->quantifier_offset) != f->id) continue;
    } else if (is_default(f, p)) {
      continue;
    }
    if (!first) eg_buf_puts(out, ",");
    first = false;
    indent(out, flags, depth + 1);
    eg_buf_printf(out, "\"%s\":%s", f->name, (flags & EG_PBJSON_PRETTY) ? " " : "");
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      const char *arr = *(const char *const *)p;
      size_t sz = value_size(f);
      eg_buf_puts(out, "[");
      for (size_t j = 0; j < count; j++) {
        if (j) eg_buf_puts(out, ",");
        if (f->type == PROTOBUF_C_TYPE_MESSAGE) indent(out, flags, depth + 2);
        write_value(f, arr + j * sz, flags, out, depth + 2);
      }
      eg_buf_puts(out, "]");
    } else {
      write_value(f, p, flags, out, depth + 1);
    }
  }
  if (!first) indent(out, flags, depth);
  eg_buf_puts(out, "}");
}

eg_code eg_pbjson_write(const ProtobufCMessage *m, unsigned flags, eg_buf *out) {
  write_msg(m, flags, out, 0);
  return EG_OK;
}

/* ---- reading ------------------------------------------------------------------------- */

static eg_code read_msg(const ProtobufCMessageDescriptor *d, const cJSON *j, eg_arena *a,
                        ProtobufCMessage **out, const char *path, eg_err *err);

static eg_code read_int(const ProtobufCFieldDescriptor *f, const cJSON *v, int64_t lo, int64_t hi,
                        int64_t *out, const char *path, eg_err *err) {
  if (cJSON_IsNumber(v)) {
    double d = v->valuedouble;
    if (d != floor(d) || d < (double)lo || d > (double)hi)
      return eg_err_set(err, EG_EINVAL, "%s: integer out of range", path);
    if (d > (double)EXACT_MAX || d < -(double)EXACT_MAX)
      return eg_err_set(err, EG_EINVAL,
                        "%s: integers beyond 2^53 must be written as strings (\"123…\")", path);
    *out = (int64_t)d;
    return EG_OK;
  }
  if (cJSON_IsString(v)) {
    char *end;
    errno = 0;
    long long x = strtoll(v->valuestring, &end, 10);
    bool integer = end != v->valuestring && !*end;
    if (!integer && is_time_field(f)) {
      eg_code rc = eg_time_parse(v->valuestring, out, err);
      if (rc) {
        char prefix[EG_ERR_MSG_MAX];
        snprintf(prefix, sizeof prefix, "%s: ", path);
        eg_err_prefix(err, prefix);
      }
      return rc;
    }
    if (!integer || errno == ERANGE || x < lo || x > hi)
      return eg_err_set(err, EG_EINVAL, "%s: not an integer in range", path);
    *out = x;
    return EG_OK;
  }
  return eg_err_set(err, EG_EINVAL, "%s: expected a number", path);
}

/* A number, or "NaN", "Infinity", "-Infinity" (as put_real writes them). */
static eg_code read_real(const cJSON *v, double *out, const char *path, eg_err *err) {
  if (cJSON_IsNumber(v)) {
    *out = v->valuedouble;
    return EG_OK;
  }
  if (cJSON_IsString(v)) {
    if (!strcmp(v->valuestring, "NaN"))
      *out = NAN;
    else if (!strcmp(v->valuestring, "Infinity"))
      *out = INFINITY;
    else if (!strcmp(v->valuestring, "-Infinity"))
      *out = -INFINITY;
    else
      return eg_err_set(err, EG_EINVAL, "%s: expected a number", path);
    return EG_OK;
  }
  return eg_err_set(err, EG_EINVAL, "%s: expected a number", path);
}

static eg_code read_value(const ProtobufCFieldDescriptor *f, const cJSON *v, eg_arena *a, void *p,
                          const char *path, eg_err *err) {
  int64_t i;
  eg_code rc;
  switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
      if ((rc = read_int(f, v, INT32_MIN, INT32_MAX, &i, path, err))) return rc;
      *(int32_t *)p = (int32_t)i;
      return EG_OK;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
      if ((rc = read_int(f, v, INT64_MIN, INT64_MAX, &i, path, err))) return rc;
      *(int64_t *)p = i;
      return EG_OK;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
      if ((rc = read_int(f, v, 0, UINT32_MAX, &i, path, err))) return rc;
      *(uint32_t *)p = (uint32_t)i;
      return EG_OK;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
      if (cJSON_IsString(v)) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(v->valuestring, &end, 10);
        if (end == v->valuestring || *end || errno == ERANGE || strchr(v->valuestring, '-'))
          return eg_err_set(err, EG_EINVAL, "%s: not an unsigned integer in range", path);
        *(uint64_t *)p = x;
        return EG_OK;
      }
      if ((rc = read_int(f, v, 0, INT64_MAX, &i, path, err))) return rc;
      *(uint64_t *)p = (uint64_t)i;
      return EG_OK;
    case PROTOBUF_C_TYPE_FLOAT:
    case PROTOBUF_C_TYPE_DOUBLE: {
      double d = 0;
      if ((rc = read_real(v, &d, path, err))) return rc;
      if (f->type == PROTOBUF_C_TYPE_FLOAT)
        *(float *)p = (float)d;
      else
        *(double *)p = d;
      return EG_OK;
    }
    case PROTOBUF_C_TYPE_BOOL:
      if (!cJSON_IsBool(v)) return eg_err_set(err, EG_EINVAL, "%s: expected true or false", path);
      *(protobuf_c_boolean *)p = cJSON_IsTrue(v);
      return EG_OK;
    case PROTOBUF_C_TYPE_ENUM: {
      const ProtobufCEnumDescriptor *ed = f->descriptor;
      if (cJSON_IsNumber(v)) {
        *(int *)p = v->valueint;
        return EG_OK;
      }
      if (!cJSON_IsString(v)) return eg_err_set(err, EG_EINVAL, "%s: expected an enum name", path);
      const char *s = v->valuestring;
      size_t sl = strlen(s);
      for (unsigned k = 0; k < ed->n_values; k++) {
        const char *n = ed->values[k].name;
        size_t nl = strlen(n);
        if (strcmp(n, s) == 0 ||
            (nl > sl && n[nl - sl - 1] == '_' && strcmp(n + nl - sl, s) == 0)) {
          *(int *)p = ed->values[k].value;
          return EG_OK;
        }
      }
      return eg_err_set(err, EG_EINVAL, "%s: unknown value '%.40s' of %s", path, s, ed->name);
    }
    case PROTOBUF_C_TYPE_STRING:
      if (!cJSON_IsString(v)) return eg_err_set(err, EG_EINVAL, "%s: expected a string", path);
      if (!(*(char **)p = eg_arena_strdup(a, v->valuestring)))
        return eg_err_set(err, EG_ENOMEM, "out of memory");
      return EG_OK;
    case PROTOBUF_C_TYPE_BYTES: {
      if (!cJSON_IsString(v)) return eg_err_set(err, EG_EINVAL, "%s: expected a hex string", path);
      size_t n = strlen(v->valuestring);
      ProtobufCBinaryData *b = p;
      if (n % 2) return eg_err_set(err, EG_EINVAL, "%s: odd hex length", path);
      b->data = eg_arena_alloc(a, n / 2 + 1);
      if (!b->data) return eg_err_set(err, EG_ENOMEM, "out of memory");
      for (size_t k = 0; k < n / 2; k++) {
        unsigned x;
        if (sscanf(v->valuestring + 2 * k, "%2x", &x) != 1)
          return eg_err_set(err, EG_EINVAL, "%s: bad hex", path);
        b->data[k] = (uint8_t)x;
      }
      b->len = n / 2;
      return EG_OK;
    }
    case PROTOBUF_C_TYPE_MESSAGE:
      return read_msg(f->descriptor, v, a, (ProtobufCMessage **)p, path, err);
  }
  return eg_err_set(err, EG_EINTERNAL, "unsupported field type");
}

static eg_code read_msg(const ProtobufCMessageDescriptor *d, const cJSON *j, eg_arena *a,
                        ProtobufCMessage **out, const char *path, eg_err *err) {
  if (!cJSON_IsObject(j)) return eg_err_set(err, EG_EINVAL, "%s: expected an object", path);
  ProtobufCMessage *m = eg_arena_calloc(a, 1, d->sizeof_message);
  if (!m) return eg_err_set(err, EG_ENOMEM, "out of memory");
  d->message_init(m);
  char *base = (char *)m;
  for (const cJSON *v = j->child; v; v = v->next) {
    const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field_by_name(d, v->string);
    char sub[256];
    snprintf(sub, sizeof sub, "%s.%s", path, v->string ? v->string : "?");
    if (!f) return eg_err_set(err, EG_EINVAL, "%s: unknown field", sub);
    void *p = base + f->offset;
    eg_code rc;
    if (cJSON_IsNull(v)) continue; /* proto3 JSON: null is the field's default */
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      if (!cJSON_IsArray(v)) return eg_err_set(err, EG_EINVAL, "%s: expected an array", sub);
      size_t n = (size_t)cJSON_GetArraySize(v), sz = value_size(f), k = 0;
      char *arr = eg_arena_calloc(a, n ? n : 1, sz);
      if (!arr) return eg_err_set(err, EG_ENOMEM, "out of memory");
      for (const cJSON *e = v->child; e; e = e->next, k++) {
        char ep[280];
        snprintf(ep, sizeof ep, "%s[%zu]", sub, k);
        if (cJSON_IsNull(e)) return eg_err_set(err, EG_EINVAL, "%s: null in a list", ep);
        if ((rc = read_value(f, e, a, arr + k * sz, ep, err))) return rc;
      }
      *(void **)p = arr;
      *(size_t *)(base + f->quantifier_offset) = n;
      continue;
    }
    if ((rc = read_value(f, v, a, p, sub, err))) return rc;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) *(uint32_t *)(base + f->quantifier_offset) = f->id;
  }
  *out = m;
  return EG_OK;
}

eg_code eg_pbjson_parse(const char *text, cJSON **out, eg_err *err) {
  const char *end = NULL;
  *out = cJSON_ParseWithOpts(text, &end, false);
  if (!*out) {
    /* the byte offset, and the line and column (of bytes) when the text has several lines */
    size_t at = end ? (size_t)(end - text) : 0, line = 1, col = 1;
    for (size_t i = 0; i < at; i++, col++)
      if (text[i] == '\n') line++, col = 0;
    if (line == 1) return eg_err_set(err, EG_EINVAL, "not valid JSON (at byte %zu)", at);
    return eg_err_set(err, EG_EINVAL, "not valid JSON (at byte %zu: line %zu, column %zu)", at,
                      line, col);
  }
  size_t after = (size_t)(end - text);
  end += strspn(end, " \t\r\n");
  if (!*end) return EG_OK;
  cJSON_Delete(*out);
  *out = NULL;
  return eg_err_set(err, EG_EINVAL,
                    "more after the JSON value (at byte %zu): one JSON value expected", after);
}

eg_code eg_pbjson_read(const ProtobufCMessageDescriptor *desc, const cJSON *json, eg_arena *a,
                       ProtobufCMessage **out, eg_err *err) {
  return read_msg(desc, json, a, out, desc->short_name, err);
}
