/*
 * derive.h — graph-derived conclusions: a small declarative rule set over the topology
 * (services/graphd/derive_rules.txt, docs/preferences.md "Derived conclusions"), parsed
 * at start, evaluated after the commits whose relations a rule's premises name.
 *
 *   rule NAME
 *     when   S REL O          a premise: a current edge (S, REL, O) in the user's view
 *     unless S REL O          a condition: no such current edge
 *     count  ?v >= N          at least N distinct values of ?v among the matches
 *     then   S REL O          the conclusion, S the rule's anchor variable
 *   end
 *
 * A term is a variable (?name) or a constant: a bare word or a "quoted name", compared
 * with an entity's normalized name or a literal's normalized text.
 */
#ifndef EG_GRAPHD_DERIVE_H
#define EG_GRAPHD_DERIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"

#define EG_DERIVE_MAX_CLAUSES 8 /* when, or unless, clauses of one rule */
#define EG_DERIVE_MAX_VARS 8    /* distinct variables of one rule */
#define EG_DERIVE_MAX_RULES 256
#define EG_DERIVE_MAX_ANCHORS 64 /* (entity, user) pairs one commit re-evaluates */

typedef struct eg_dterm {
  int var;          /* variable index, or -1 for a constant */
  const char *name; /* the constant as written, or the variable's name (without '?') */
} eg_dterm;

typedef struct eg_dpattern {
  eg_dterm s, o;
  const char *rel;
  int line;
} eg_dpattern;

typedef struct eg_drule {
  const char *name;
  int line;
  eg_dpattern when[EG_DERIVE_MAX_CLAUSES], unless[EG_DERIVE_MAX_CLAUSES];
  size_t n_when, n_unless;
  int count_var;      /* -1: no count clause */
  uint32_t count_min; /* distinct values of count_var a conclusion needs */
  eg_dpattern then;
  size_t n_vars;
  const char *vars[EG_DERIVE_MAX_VARS];
} eg_drule;

typedef struct eg_drules {
  eg_arena *arena; /* owns everything below */
  eg_drule *rules;
  size_t n;
} eg_drules;

/* Parse rule text; `origin` names it in errors ("derive_rules.txt:12: …"). EG_EINVAL with
 * the line and what is wrong; an empty text (comments only) is an empty rule set. */
eg_code eg_drules_parse(const char *text, size_t len, const char *origin, eg_drules **out,
                        eg_err *err);
/* Read and parse a file; EG_EIO naming the path when it cannot be read. */
eg_code eg_drules_load(const char *path, eg_drules **out, eg_err *err);
void eg_drules_free(eg_drules *r); /* accepts NULL */

/* Does the rule name relation in a when or unless clause (the commits that touch it)? */
bool eg_drule_reads(const eg_drule *r, const char *relation);

#endif
