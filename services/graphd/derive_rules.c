/*
 * derive_rules.c — the parser of graphd's derivation rules (derive.h gives the format).
 *
 * Every check a rule needs to be evaluable is made here, once, so that evaluation can
 * trust the rule: the conclusion's subject is a variable bound by a premise (the anchor),
 * each premise's subject is a constant, the anchor or bound by an earlier premise, and
 * every variable of an unless, count or then clause is bound by a premise.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "services/graphd/derive.h"
#include "services/graphd/graph.h"

#define MAX_TOKENS 8
#define MAX_NAME 64

typedef struct parser {
  eg_arena *a;
  const char *origin;
  int line;
  eg_err *err;
} parser;

static eg_code fail(parser *p, const char *fmt, const char *arg) {
  char msg[200];
  snprintf(msg, sizeof msg, fmt, arg ? arg : "");
  return eg_err_set(p->err, EG_EINVAL, "%s:%d: %s", p->origin, p->line, msg);
}

/* Split a line into tokens: words, or "quoted names" (no escapes). # starts a comment. */
static eg_code tokenize(parser *p, const char *s, size_t n, char **tok, size_t *nt) {
  *nt = 0;
  size_t i = 0;
  while (i < n) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) i++;
    if (i == n || s[i] == '#') break;
    if (*nt == MAX_TOKENS) return fail(p, "too many words on one line", NULL);
    size_t start = i, end;
    if (s[i] == '"') {
      start = ++i;
      while (i < n && s[i] != '"') i++;
      if (i == n) return fail(p, "unterminated quoted name", NULL);
      end = i++;
      if (end == start) return fail(p, "empty quoted name", NULL);
    } else {
      while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#') i++;
      end = i;
    }
    for (size_t j = start; j < end; j++)
      if ((unsigned char)s[j] < 0x20) return fail(p, "control character in a name", NULL);
    if (end - start > 256) return fail(p, "name longer than 256 bytes", NULL);
    tok[(*nt)++] = eg_arena_strndup(p->a, s + start, end - start);
    if (!tok[*nt - 1]) return eg_err_set(p->err, EG_ENOMEM, "out of memory");
  }
  return EG_OK;
}

static bool word_valid(const char *w) {
  size_t n = strlen(w);
  if (n == 0 || n > MAX_NAME) return false;
  for (size_t i = 0; i < n; i++)
    if (!islower((unsigned char)w[i]) && !isdigit((unsigned char)w[i]) && w[i] != '_' &&
        w[i] != '-')
      return false;
  return true;
}

static int var_index(eg_drule *r, const char *name, bool add) {
  for (size_t i = 0; i < r->n_vars; i++)
    if (strcmp(r->vars[i], name) == 0) return (int)i;
  if (!add || r->n_vars == EG_DERIVE_MAX_VARS) return -1;
  r->vars[r->n_vars] = name;
  return (int)r->n_vars++;
}

/* A term; bound[] says which variables earlier premises bound. A variable not bound yet
 * is accepted only when may_bind (a premise's object, or its subject in the first one). */
static eg_code term(parser *p, eg_drule *r, const char *tok, const bool *bound, bool may_bind,
                    eg_dterm *out) {
  out->name = tok;
  out->var = -1;
  if (tok[0] != '?') return EG_OK;
  out->name = tok + 1;
  if (!word_valid(out->name)) return fail(p, "bad variable name '%s' (?lower_case)", tok);
  int v = var_index(r, out->name, may_bind);
  if (v < 0 && !may_bind) return fail(p, "variable %s is not bound by an earlier when", tok);
  if (v < 0) return fail(p, "more than 8 variables in one rule", NULL);
  if (!may_bind && !bound[v]) return fail(p, "variable %s is not bound by an earlier when", tok);
  out->var = v;
  return EG_OK;
}

static eg_code pattern(parser *p, eg_drule *r, char **tok, size_t nt, bool premise, bool *bound,
                       eg_dpattern *out) {
  if (nt != 4) return fail(p, "%s needs SUBJECT RELATION OBJECT", tok[0]);
  out->line = p->line;
  if (!eg_relation_name_valid(tok[2])) return fail(p, "relation '%s' is not UPPER_SNAKE", tok[2]);
  out->rel = tok[2];
  /* A premise's subject: a constant or a bound variable, except in the first premise,
   * which binds the anchor. */
  bool first = premise && r->n_when == 0;
  eg_code rc = term(p, r, tok[1], bound, first, &out->s);
  if (!rc) rc = term(p, r, tok[3], bound, premise, &out->o);
  if (rc) return rc;
  if (premise) {
    if (out->s.var >= 0) bound[out->s.var] = true;
    if (out->o.var >= 0) bound[out->o.var] = true;
  }
  return EG_OK;
}

static eg_code finish_rule(parser *p, eg_drule *r, bool has_then) {
  if (!r->n_when) return fail(p, "rule %s has no when clause", r->name);
  if (!has_then) return fail(p, "rule %s has no then clause", r->name);
  if (r->then.s.var < 0)
    return fail(p, "rule %s: the then clause's subject must be a variable", r->name);
  /* Only the first premise may bind its subject: evaluation starts from the anchor. */
  if (r->when[0].s.var >= 0 && r->when[0].s.var != r->then.s.var)
    return fail(p,
                "rule %s: the first when's subject must be a constant or the then clause's subject",
                r->name);
  if (eg_drule_reads(r, r->then.rel))
    return fail(p, "rule %s concludes a relation its own premises read", r->name);
  return EG_OK;
}

static eg_code parse_count(parser *p, eg_drule *r, char **tok, size_t nt, const bool *bound) {
  if (r->count_var >= 0) return fail(p, "rule %s has two count clauses", r->name);
  if (nt != 4 || strcmp(tok[2], ">=") != 0) return fail(p, "count needs ?VARIABLE >= N", NULL);
  eg_dterm t;
  eg_code rc = term(p, r, tok[1], bound, false, &t);
  if (rc) return rc;
  if (t.var < 0) return fail(p, "count needs a variable, not '%s'", tok[1]);
  char *end;
  long n = strtol(tok[3], &end, 10);
  if (*end || n < 1 || n > 1000)
    return fail(p, "count needs a number from 1 to 1000, not '%s'", tok[3]);
  r->count_var = t.var;
  r->count_min = (uint32_t)n;
  return EG_OK;
}

static eg_code parse_lines(parser *p, const char *text, size_t len, eg_drules *set) {
  eg_drule *r = NULL;
  bool bound[EG_DERIVE_MAX_VARS] = {0}, has_then = false;
  size_t pos = 0;
  p->line = 0;
  while (pos < len) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
    const char *s = text + pos;
    pos += n + 1;
    p->line++;
    if (memchr(s, 0, n)) return fail(p, "NUL byte in the rules", NULL);
    char *tok[MAX_TOKENS];
    size_t nt;
    eg_code rc = tokenize(p, s, n, tok, &nt);
    if (rc) return rc;
    if (!nt) continue;
    const char *kw = tok[0];
    if (strcmp(kw, "rule") == 0) {
      if (r) return fail(p, "rule inside rule %s (missing end)", r->name);
      if (nt != 2 || !word_valid(tok[1]))
        return fail(p, "rule needs a name (lower-case, digits, - or _)", NULL);
      for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->rules[i].name, tok[1]) == 0)
          return fail(p, "rule %s is defined twice", tok[1]);
      if (set->n == EG_DERIVE_MAX_RULES) return fail(p, "more than 256 rules", NULL);
      r = &set->rules[set->n];
      memset(r, 0, sizeof *r);
      r->name = tok[1];
      r->line = p->line;
      r->count_var = -1;
      memset(bound, 0, sizeof bound);
      has_then = false;
      continue;
    }
    if (!r) return fail(p, "'%s' outside a rule (expected: rule NAME)", kw);
    if (has_then && strcmp(kw, "end") != 0) return fail(p, "'%s' after then (expected: end)", kw);
    if (strcmp(kw, "when") == 0) {
      if (r->n_unless || r->count_var >= 0) return fail(p, "when after unless or count", NULL);
      if (r->n_when == EG_DERIVE_MAX_CLAUSES) return fail(p, "more than 8 when clauses", NULL);
      if ((rc = pattern(p, r, tok, nt, true, bound, &r->when[r->n_when]))) return rc;
      r->n_when++;
    } else if (strcmp(kw, "unless") == 0) {
      if (!r->n_when) return fail(p, "unless before any when", NULL);
      if (r->n_unless == EG_DERIVE_MAX_CLAUSES) return fail(p, "more than 8 unless clauses", NULL);
      if ((rc = pattern(p, r, tok, nt, false, bound, &r->unless[r->n_unless]))) return rc;
      r->n_unless++;
    } else if (strcmp(kw, "count") == 0) {
      if ((rc = parse_count(p, r, tok, nt, bound))) return rc;
    } else if (strcmp(kw, "then") == 0) {
      if (!r->n_when) return fail(p, "then before any when", NULL);
      if ((rc = pattern(p, r, tok, nt, false, bound, &r->then))) return rc;
      has_then = true;
    } else if (strcmp(kw, "end") == 0) {
      if (nt != 1) return fail(p, "end takes nothing after it", NULL);
      if ((rc = finish_rule(p, r, has_then))) return rc;
      set->n++;
      r = NULL;
    } else {
      return fail(p, "unknown clause '%s' (expected when, unless, count, then or end)", kw);
    }
  }
  if (r) return fail(p, "rule %s is not closed (missing end)", r->name);
  return EG_OK;
}

eg_code eg_drules_parse(const char *text, size_t len, const char *origin, eg_drules **out,
                        eg_err *err) {
  *out = NULL;
  eg_drules *set = calloc(1, sizeof *set);
  if (!set || !(set->arena = eg_arena_new(4096, 0)) ||
      !(set->rules = eg_arena_calloc(set->arena, EG_DERIVE_MAX_RULES, sizeof *set->rules))) {
    eg_drules_free(set);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  parser p = {set->arena, origin ? origin : "rules", 0, err};
  eg_code rc = parse_lines(&p, text, len, set);
  if (rc) {
    eg_drules_free(set);
    return rc;
  }
  *out = set;
  return EG_OK;
}

eg_code eg_drules_load(const char *path, eg_drules **out, eg_err *err) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return eg_err_set(err, EG_EIO, "cannot read derivation rules %s", path);
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    if (cap >= (16u << 20)) {
      free(buf);
      fclose(f);
      return eg_err_set(err, EG_EINVAL, "derivation rules %s larger than 16 MiB", path);
    }
    char *nb = realloc(buf, cap * 2);
    if (!nb) free(buf);
    buf = nb;
    cap *= 2;
  }
  fclose(f);
  if (!buf) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_code rc = eg_drules_parse(buf, n, path, out, err);
  free(buf);
  return rc;
}

void eg_drules_free(eg_drules *r) {
  if (!r) return;
  eg_arena_free(r->arena);
  free(r);
}

bool eg_drule_reads(const eg_drule *r, const char *relation) {
  for (size_t i = 0; i < r->n_when; i++)
    if (strcmp(r->when[i].rel, relation) == 0) return true;
  for (size_t i = 0; i < r->n_unless; i++)
    if (strcmp(r->unless[i].rel, relation) == 0) return true;
  return false;
}
