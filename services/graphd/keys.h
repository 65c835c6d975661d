/*
 * keys.h — graphd's RocksDB key layouts. Big-endian, fixed-width, tenant first, so that
 * one tenant's data is one contiguous range per column family and key order is the
 * order queries want (valid time, then transaction time).
 *
 *   entities        T | entity_id                         → packed Entity
 *   names           T | normalized name | 0x00 | entity_id → kind (0 name, 1 alias)
 *   edges           T | subject | rel | vf | tc | edge_id   → packed Edge
 *   edges_by_object T | object | rel | subject | edge_id    → ""
 *   edges_by_id     T | edge_id                            → the edges key (48 bytes)
 *   txlog           T | tc | edge_id                        → ""
 *   derivations     T | premise_id | derived_id             → ""
 *   chunk_entities  T | chunk_id | entity_id                → ""
 *   default         'T' name → T;  'N' → next T;  'C' T → counters;
 *                   'H' T subject rel → chain head edge id;  'R' T name → relation;
 *                   'M' T merge_id → merge record;  'A' time T → erase audit (counts only);
 *                   'I' T h1 h2 → edge id (an assertion's identity, graph_int.h);
 *                   'O' T edge_id recorded_at → packed Outcome (outcomes.c)
 *                   'X' T edge_id → access history;  'P' T → retention policy (retention.c)
 *
 * T is the tenant's 64-bit number (assigned on first write), rel the 64-bit hash of the
 * relation name, vf and tc times mapped to unsigned so that negative times sort first.
 */
#ifndef EG_GRAPHD_KEYS_H
#define EG_GRAPHD_KEYS_H

#include "common/keybuf.h"

enum {
  CF_DEFAULT = 0,
  CF_ENTITIES,
  CF_NAMES,
  CF_EDGES,
  CF_EDGES_BY_OBJECT,
  CF_EDGES_BY_ID,
  CF_TXLOG,
  CF_DERIVATIONS,
  CF_CHUNK_ENTITIES,
  CF_COUNT
};

#define EDGE_KEY_LEN 48

/* The counters graphd keeps per tenant (common/kv.h eg_tenant.counter). */
enum { EG_CTR_ENTITY = 0, EG_CTR_EDGE = 1, EG_CTR_MERGE = 2 };

#endif
