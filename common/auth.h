/*
 * auth.h — bearer tokens: who may call, and for which tenant.
 *
 * Every public RPC carries "authorization: Bearer <token>". A token maps to exactly one
 * tenant, with a role:
 *   user     reads and writes its tenant;
 *   admin    also calls the Admin service (erasure, retention) and, on the stores, Erase,
 *            SetRetentionPolicy and SweepRetention, inside its tenant;
 *   service  daemon-to-daemon calls: any tenant, any method.
 * Tokens are kept only as SHA-256 digests, at rest and in memory. A presented token is
 * hashed and compared against every entry in constant time (no early exit), so neither
 * the position of a match nor a partial match shows in the timing.
 *
 * Token lines (the tokens file, or the auth_tokens option with ';' between lines):
 *     <tenant> sha256:<64 hex digits> [user|admin]
 *     *        sha256:<64 hex digits> service
 * '#' starts a comment. A plain-text token in the file is refused: it must be hashed
 * (`engram token new` prints a token and its line). The daemon's own service_token is
 * accepted as a service token without a line. Reloaded on SIGHUP; a file that does not
 * parse keeps the previous table in force.
 */
#ifndef EG_AUTH_H
#define EG_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

typedef enum eg_role { EG_ROLE_USER = 0, EG_ROLE_ADMIN = 1, EG_ROLE_SERVICE = 2 } eg_role;

typedef struct eg_auth eg_auth;

typedef struct eg_auth_opts {
  const char *tokens_file;   /* path or "" */
  const char *tokens;        /* inline lines separated by ';' or newlines, or "" */
  const char *service_token; /* plain text (what this daemon sends to peers), or "" */
} eg_auth_opts;

/* Load the table. EG_EINVAL (naming the file and line) when a line does not parse,
 * EG_EPRECOND when no token at all is configured. opts is copied. */
eg_code eg_auth_open(const eg_auth_opts *opts, eg_auth **out, eg_err *err);
/* Re-read the file and the inline lines; on failure the old table stays. */
eg_code eg_auth_reload(eg_auth *a, eg_err *err);
void eg_auth_free(eg_auth *a); /* accepts NULL */
/* Entries in force (for logs and tests). */
int eg_auth_count(eg_auth *a);

/*
 * May the caller presenting `authorization` (the metadata value, NULL when absent) call
 * `method` ("engram.v1.Graph/State") for `tenant` (the request's scope.tenant; "" when
 * unset)? EG_EUNAUTH when the header is missing, malformed or names no known token;
 * EG_EPERM when the token's tenant differs from the request's or the method needs a role
 * the token lacks. An unset tenant passes for the handler to refuse as INVALID_ARGUMENT
 * (no data is reachable without one). *role (may be NULL) is set on success.
 */
eg_code eg_auth_check(eg_auth *a, const char *authorization, const char *method, const char *tenant,
                      eg_role *role, eg_err *err);

/* True for methods only admin and service tokens may call: every engram.v1.Admin method,
 * and the stores' Erase, SetRetentionPolicy and SweepRetention. */
bool eg_auth_admin_method(const char *method);

/* "sha256:<hex>" of token into out (72 bytes). */
void eg_auth_digest_line(const char *token, char out[72]);

/* A tenant as the first field of a token line: bytes that would end or confuse the field
 * (space and other control bytes, '#', ';', '%', '*', '"', '\\') written as %XX, which the
 * parser decodes. Returns false when out (len bytes) is too small. */
bool eg_auth_tenant_field(const char *tenant, char *out, size_t len);

#endif
