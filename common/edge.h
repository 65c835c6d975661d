/*
 * edge.h — reading an engram.v1.Edge's object: the literal it carries ("vegetarian",
 * "2024-03-01") or the name graphd gave its entity ("Lisbon").
 */
#ifndef EG_EDGE_H
#define EG_EDGE_H

#include <stdbool.h>

#include "proto/engram/v1/graph.pb-c.h"

/* Is the edge's object a literal (not an entity)? */
static inline bool eg_edge_literal(const Engram__V1__Edge *e) {
  return e->object && e->object->kind_case == ENGRAM__V1__VALUE__KIND_LITERAL;
}

/* The edge's value: its literal, else its object entity's name; "" when it has neither (an
 * entity graphd did not name, an edge without an object). Never NULL. */
static inline const char *eg_edge_object(const Engram__V1__Edge *e) {
  const char *v = eg_edge_literal(e) ? e->object->literal : e->object ? e->object_name : NULL;
  return v ? v : "";
}

#endif
