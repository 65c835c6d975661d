/*
 * fuzz_derive_rules.c — graphd's derivation rules parser (services/graphd/derive_rules.c)
 * on arbitrary bytes. Properties: no crash; an error names the origin and a line within
 * the input; a parsed set keeps every invariant evaluation relies on (the anchor bound by
 * the first premise, every variable of unless, count and then bound by a premise, the
 * conclusion's relation not read by its own premises).
 */
#include <string.h>

#include "common/err.h"
#include "services/graphd/derive.h"
#include "tests/fuzz/fuzz.h"

static void check_rule(const eg_drule *r) {
  bool bound[EG_DERIVE_MAX_VARS] = {0};
  eg_fuzz_check(r->n_when >= 1 && r->n_when <= EG_DERIVE_MAX_CLAUSES, "1 to 8 when clauses");
  eg_fuzz_check(r->n_unless <= EG_DERIVE_MAX_CLAUSES && r->n_vars <= EG_DERIVE_MAX_VARS,
                "clauses and variables capped");
  eg_fuzz_check(r->then.s.var >= 0, "the anchor is a variable");
  eg_fuzz_check(r->when[0].s.var < 0 || r->when[0].s.var == r->then.s.var,
                "the first premise starts at the anchor");
  for (size_t i = 0; i < r->n_when; i++) {
    const eg_dpattern *p = &r->when[i];
    eg_fuzz_check(i == 0 || p->s.var < 0 || bound[p->s.var],
                  "a premise's subject is bound before it");
    if (p->s.var >= 0) bound[p->s.var] = true;
    if (p->o.var >= 0) bound[p->o.var] = true;
  }
  for (size_t i = 0; i < r->n_unless; i++)
    eg_fuzz_check((r->unless[i].s.var < 0 || bound[r->unless[i].s.var]) &&
                      (r->unless[i].o.var < 0 || bound[r->unless[i].o.var]),
                  "unless variables bound");
  eg_fuzz_check(bound[r->then.s.var] && (r->then.o.var < 0 || bound[r->then.o.var]),
                "then variables bound");
  eg_fuzz_check(r->count_var < 0 || (bound[r->count_var] && r->count_min >= 1),
                "count variable bound");
  eg_fuzz_check(!eg_drule_reads(r, r->then.rel), "a rule does not read its own conclusion");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  eg_drules *set;
  eg_err e;
  eg_code rc = eg_drules_parse((const char *)data, size, "f", &set, &e);
  if (rc) {
    eg_fuzz_check(rc == EG_EINVAL || rc == EG_ENOMEM, "an error is INVALID_ARGUMENT");
    if (rc == EG_EINVAL) {
      size_t lines = 1;
      for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
      long line = strncmp(e.msg, "f:", 2) == 0 ? strtol(e.msg + 2, NULL, 10) : -1;
      eg_fuzz_check(line >= 1 && (size_t)line <= lines, "the error names a line of the input");
    }
    return 0;
  }
  for (size_t i = 0; i < set->n; i++) check_rule(&set->rules[i]);
  eg_drules_free(set);
  return 0;
}
