/*
 * scope.c — Scope validation shared by every daemon.
 */
#include "common/scope.h"

#include <stdio.h>
#include <string.h>

#include "common/text.h"

static eg_code check_field(const char *v, const char *name, bool required, eg_err *err) {
  size_t n = v ? strlen(v) : 0;
  if (required && n == 0) return eg_err_set(err, EG_EINVAL, "scope.%s is required", name);
  if (n > EG_SCOPE_FIELD_MAX)
    return eg_err_set(err, EG_EINVAL, "scope.%s longer than %d bytes", name, EG_SCOPE_FIELD_MAX);
  if (n && !eg_utf8_valid(v, n))
    return eg_err_set(err, EG_EINVAL, "scope.%s is not valid UTF-8", name);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
      return eg_err_set(err, EG_EINVAL, "scope.%s contains a control character", name);
  return EG_OK;
}

eg_code eg_scope_fields_check(const Engram__V1__Scope *s, eg_err *err) {
  if (!s) return eg_err_set(err, EG_EINVAL, "scope is required");
  eg_code rc;
  if ((rc = check_field(s->tenant, "tenant", true, err))) return rc;
  if ((rc = check_field(s->user, "user", false, err))) return rc;
  return check_field(s->agent, "agent", false, err);
}

static bool same_str(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

bool eg_scope_sees(const Engram__V1__Scope *reader, const char *user, const char *agent,
                   bool item_private) {
  bool reader_user = reader && reader->user && *reader->user;
  return eg_scope_visible(reader_user, user && *user, reader_user && same_str(reader->user, user),
                          item_private, reader && same_str(reader->agent, agent));
}

/* Where message m keeps its "scope" field; NULL when it has none. */
static Engram__V1__Scope **scope_slot(const ProtobufCMessage *m) {
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(m->descriptor, "scope");
  if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE || f->label == PROTOBUF_C_LABEL_REPEATED)
    return NULL;
  return (Engram__V1__Scope **)((char *)m + f->offset);
}

void eg_scope_default(ProtobufCMessage *m, Engram__V1__Scope *scope) {
  Engram__V1__Scope **slot = scope_slot(m);
  if (!slot) return;
  if (!*slot) {
    *slot = scope;
    return;
  }
  Engram__V1__Scope *s = *slot;
  if (!s->tenant || !*s->tenant) s->tenant = scope->tenant;
  if (!s->user || !*s->user) s->user = scope->user;
  if (!s->agent || !*s->agent) s->agent = scope->agent;
}

const char *eg_scope_tenant_of(const ProtobufCMessage *m) {
  Engram__V1__Scope **slot = scope_slot(m);
  if (!slot) return NULL;
  return *slot && (*slot)->tenant ? (*slot)->tenant : "";
}

void eg_scope_user_entity(const char *user, char *out, size_t len) {
  snprintf(out, len, "user:%s", user && *user ? user : "default");
}
