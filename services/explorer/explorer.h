/*
 * explorer.h — the memory explorer's JSON API: a tenant's facts on both time axes, a
 * fact's history, and the Recall debugger, each one read from graphd or recalld with the
 * caller's own bearer token (the explorer holds no token of its own: what a caller sees
 * is exactly what the API would show them).
 *
 *   GET /api/timeline?tenant=T[&user=U][&agent=A][&at=ISO][&known_at=ISO]
 *       every edge the scope sees (Graph.Changes), each with its premise-walk status
 *       (Graph.Walk: SUPERSEDED, POTENTIALLY_STALE …) as of at / known_at
 *   GET /api/history?tenant=T[&user=U]&subject=NAME|ID[&relation=R][&known_at=ISO]
 *       Graph.History of the chain
 *   GET /api/recall?tenant=T[&user=U]&q=QUESTION[&at=ISO][&known_at=ISO][&k=N]
 *       Recall.Recall, items with their signals and statuses
 *
 * Answers are JSON (the contract's JSON form, times as ISO-8601). Errors are
 * {"error": {"code": "UNAUTHENTICATED", "message": "…"}} with the HTTP status of the code:
 * no token or a token the daemons refuse is 401, another tenant's 403, bad input 400.
 */
#ifndef EG_EXPLORER_H
#define EG_EXPLORER_H

#include <stdint.h>

#include "common/err.h"
#include "common/httpd.h"

typedef struct eg_explorer eg_explorer;

typedef struct eg_explorer_opts {
  const char *graphd_addr; /* comma-separated: one per shard, in shard order */
  const char *recalld_addr;
  int64_t timeout_us;          /* deadline of one call to a daemon */
  const char *tls_ca_file;     /* PEM roots to call the daemons over TLS; NULL or "" = plaintext */
  const char *tls_server_name; /* name their certificates must carry; NULL or "" = the host */
  uint32_t max_facts;          /* most edges one timeline reads */
} eg_explorer_opts;

/* Channels to the daemons (connected lazily). *out freed with eg_explorer_close. */
eg_code eg_explorer_open(const eg_explorer_opts *o, eg_explorer **out, eg_err *err);
void eg_explorer_close(eg_explorer *x); /* accepts NULL */

/* Answer one /api/… request (path as received). */
void eg_explorer_api(eg_explorer *x, const eg_http_req *req, eg_http_resp *resp);

#endif
