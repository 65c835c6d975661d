/*
 * relations.c — the relation registry: built-in relations with their cardinality, and
 * per-tenant declarations (persisted, cached in memory).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "services/graphd/graph_int.h"

typedef struct builtin_rel {
  const char *name;
  Engram__V1__Cardinality card;
  const char *description;
} builtin_rel;

#define ONE ENGRAM__V1__CARDINALITY__CARDINALITY_ONE
#define MANY ENGRAM__V1__CARDINALITY__CARDINALITY_MANY
#define INV ENGRAM__V1__CARDINALITY__CARDINALITY_ONE_INVERSE

static const builtin_rel builtins[] = {
    {"LIVES_IN", ONE, "where a person lives"},
    {"WORKS_AT", ONE, "a person's employer"},
    {"JOB_TITLE", ONE, "a person's job title or role"},
    {"DIET", ONE, "a person's diet (vegan, omnivore …)"},
    {"MARRIED_TO", ONE, "spouse"},
    {"PARTNER_OF", ONE, "a person's partner (spouse, girlfriend, boyfriend …): one at a time"},
    {"DRIVES", ONE, "the car a person drives now"},
    {"REPORTS_TO", ONE, "a person's manager"},
    {"RELATIONSHIP_STATUS", ONE, "single, married, engaged …"},
    {"AGE", ONE, "a person's age"},
    {"BIRTHDAY", ONE, "date of birth"},
    {"NATIONALITY", ONE, "nationality"},
    {"EMAIL", ONE, "e-mail address"},
    {"PHONE", ONE, "phone number"},
    {"LOCATED_IN", ONE, "where a place or organization is"},
    {"STATUS", ONE, "the status of a project, task or thing"},
    {"PRICE", ONE, "the price of a thing"},
    {"OWNED_BY", ONE, "a thing's owner"},
    {"CEO_OF", INV, "chief executive of an organization (one per organization)"},
    {"CHIEF_OF_STAFF_OF", INV, "chief of staff of an organization or person"},
    {"LEADS", INV, "leader of a team or project (one per team)"},
    {"OWNS", MANY, "possessions"},
    /* MANY: a household may have several pets at once; recall shows the newest first */
    {"HAS_PET", MANY, "pets"},
    {"STATE_UNCERTAIN", MANY,
     "a doubt on a state: its object names the relation (e.g. LIVES_IN) a statement put in "
     "question"},
    /* the preference subgraph (belief.c: confidence accumulated over evidence) */
    {"PREFERS", MANY, "a preference (sentiment and intensity in meta)"},
    {"AVOIDS", MANY, "a constraint or aversion"},
    {"ACCEPTED", MANY, "a suggestion the subject accepted"},
    {"REJECTED", MANY, "a suggestion the subject declined"},
    {"OPTIMIZES_FOR", MANY,
     "what the subject cares about most when choosing (price, speed, quiet …)"},
    {"LIKES", MANY, "likes"},
    {"DISLIKES", MANY, "dislikes"},
    {"VISITED", MANY, "places visited"},
    {"ATTENDED", MANY, "events attended"},
    {"BOUGHT", MANY, "purchases"},
    {"CAUSED_BY", MANY, "causes"},
    {"DEPENDS_ON", MANY, "dependencies"},
    {"BLOCKED_BY", MANY, "blockers"},
    {"KNOWS", MANY, "acquaintances"},
    {"FRIEND_OF", MANY, "friends"},
    {"FAMILY_OF", MANY, "relatives"},
    {"PARENT_OF", MANY, "children"},
    {"CHILD_OF", MANY, "parents"},
    {"SIBLING_OF", MANY, "siblings"},
    {"MEMBER_OF", MANY, "groups, teams, clubs"},
    {"USES", MANY, "tools and products used"},
    {"HAS_SKILL", MANY, "skills"},
    {"SPEAKS", MANY, "languages"},
    {"STUDIED_AT", MANY, "schools"},
    {"HAS_GOAL", MANY, "goals"},
    {"HAS_HABIT", MANY, "habits and routines"},
    {"PLAYS", MANY, "sports, games, instruments"},
    {"HAS_AUTHORITY", MANY, "authorities held (e.g. signing authority)"},
    {"PART_OF", MANY, "membership in a larger whole"},
    {"RELATED_TO", MANY, "a generic link"},
    {"MENTIONED", MANY, "a chunk or person mentioned an entity"},
};

bool eg_relation_name_valid(const char *r) {
  if (!r || !(*r >= 'A' && *r <= 'Z')) return false;
  size_t n = 0;
  for (const char *p = r; *p; p++, n++)
    if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return false;
  return n <= 64;
}

static const builtin_rel *builtin_find(const char *r) {
  for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
    if (strcmp(builtins[i].name, r) == 0) return &builtins[i];
  return NULL;
}

static size_t rel_key(uint8_t *k, uint64_t tenant, const char *r) {
  size_t n = strlen(r);
  k[0] = 'R';
  key_put64(k + 1, tenant);
  memcpy(k + 9, r, n);
  return 9 + n;
}

/* The tenant's declaration of r: true with its cardinality, false when it has none. */
/* rel_cache holds, per (tenant, relation) looked up, 1 for a relation never declared (a
 * builtin's or an open one: most relations) and cardinality + 2 for a declared one; a
 * declaration replaces the entry (eg_relation_declared), an erasure clears them all. */
static bool declared(eg_graph *g, uint64_t tenant, const char *r, Engram__V1__Cardinality *card) {
  uint8_t k[80];
  if (!tenant || strlen(r) > 64) return false;
  size_t kl = rel_key(k, tenant, r);
  pthread_mutex_lock(&g->rmu);
  intptr_t hit = (intptr_t)eg_map_get(g->rel_cache, k, kl);
  pthread_mutex_unlock(&g->rmu);
  if (hit) {
    *card = (Engram__V1__Cardinality)(hit - 2);
    return hit > 1;
  }
  char *v;
  size_t vl;
  eg_code rc = eg_kv_get(g->store, CF_DEFAULT, k, kl, &v, &vl, NULL);
  bool found = rc == EG_OK;
  if (found) {
    *card = vl ? (Engram__V1__Cardinality)(uint8_t)v[0] : MANY;
    free(v);
  } else if (rc != EG_ENOTFOUND) {
    return false; /* not remembered: the next look-up reads again */
  }
  /* kept only when absent: a declaration committed since the read above has put its own */
  pthread_mutex_lock(&g->rmu);
  if (!eg_map_get(g->rel_cache, k, kl))
    eg_map_put(g->rel_cache, k, kl, (void *)(found ? (intptr_t)*card + 2 : 1));
  pthread_mutex_unlock(&g->rmu);
  return found;
}

Engram__V1__Cardinality eg_graph_cardinality(eg_graph *g, uint64_t tenant, const char *r) {
  Engram__V1__Cardinality c;
  if (declared(g, tenant, r, &c)) return c;
  const builtin_rel *b = builtin_find(r);
  return b ? b->card : MANY;
}

eg_code eg_apply_relation(eg_kvtxn *txn, eg_tenant *ten, const Engram__V1__RelationDeclaration *r,
                          eg_err *err) {
  if (!eg_relation_name_valid(r->relation))
    return eg_err_set(err, EG_ECORRUPT, "relation step with a bad name");
  size_t dl = r->description ? strlen(r->description) : 0;
  uint8_t k[80];
  size_t kl = rel_key(k, ten->id, r->relation);
  char *v = malloc(dl + 1);
  if (!v) return eg_err_set(err, EG_ENOMEM, "out of memory");
  v[0] = (char)r->cardinality;
  if (dl) memcpy(v + 1, r->description, dl);
  eg_code rc = eg_kvtxn_put(txn, CF_DEFAULT, k, kl, v, dl + 1, true);
  free(v);
  return rc ? eg_err_set(err, EG_ENOMEM, "out of memory") : EG_OK;
}

void eg_relation_declared(eg_graph *g, uint64_t tenant, const Engram__V1__RelationDeclaration *r) {
  uint8_t k[80];
  size_t kl = rel_key(k, tenant, r->relation);
  pthread_mutex_lock(&g->rmu);
  eg_map_put(g->rel_cache, k, kl, (void *)((intptr_t)r->cardinality + 2));
  pthread_mutex_unlock(&g->rmu);
}

eg_code eg_graph_declare_relation(eg_graph *g, const Engram__V1__DeclareRelationRequest *req,
                                  eg_arena *a, Engram__V1__DeclareRelationResponse *resp,
                                  eg_err *err) {
  if (!eg_relation_name_valid(req->relation))
    return eg_err_set(err, EG_EINVAL, "relation must be UPPER_SNAKE, 1 to 64 characters");
  if (req->cardinality != ONE && req->cardinality != MANY && req->cardinality != INV)
    return eg_err_set(err, EG_EINVAL, "cardinality must be ONE, MANY or ONE_INVERSE");
  size_t dl = req->description ? strlen(req->description) : 0;
  if (dl > 1024) return eg_err_set(err, EG_EINVAL, "description longer than 1024 bytes");
  Engram__V1__GraphStep *st = eg_step_new(a, ENGRAM__V1__GRAPH_STEP__STEP_RELATION);
  Engram__V1__RelationDeclaration *d = eg_arena_calloc(a, 1, sizeof *d);
  if (!st || !d) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__relation_declaration__init(d);
  d->relation = req->relation;
  d->cardinality = req->cardinality;
  d->description = (char *)(req->description ? req->description : "");
  st->relation = d;
  eg_gwrite w;
  eg_code rc = eg_gwrite_begin(g, req->scope->tenant, req->scope->user, false, a, &w, err);
  if (rc || (rc = eg_gwrite_last(&w, st, err))) return rc;
  Engram__V1__RelationInfo *info = eg_arena_calloc(a, 1, sizeof *info);
  if (!info) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__relation_info__init(info);
  info->relation = req->relation;
  info->cardinality = req->cardinality;
  info->description = req->description;
  info->builtin = false;
  resp->relation = info;
  return EG_OK;
}

/* ---- the list, and names close to a known one ------------------------------------------ */

static int info_cmp(const void *x, const void *y) {
  return strcmp((*(Engram__V1__RelationInfo *const *)x)->relation,
                (*(Engram__V1__RelationInfo *const *)y)->relation);
}

/* The tenant's declarations (tenant 0: none), sorted by name, in a. */
static eg_code declarations(eg_graph *g, uint64_t tenant, eg_arena *a, eg_ptrvec *out,
                            eg_err *err) {
  if (!tenant) return EG_OK;
  uint8_t prefix[9];
  prefix[0] = 'R';
  key_put64(prefix + 1, tenant);
  eg_kv_iter *it = eg_kv_iter_prefix(g->store, CF_DEFAULT, prefix, sizeof prefix);
  eg_code rc = EG_OK;
  for (; eg_kv_iter_valid(it) && rc == EG_OK; eg_kv_iter_next(it)) {
    size_t kl, vl;
    const char *k = eg_kv_iter_key(it, &kl), *v = eg_kv_iter_value(it, &vl);
    Engram__V1__RelationInfo *info = eg_arena_calloc(a, 1, sizeof *info);
    if (!info || kl <= 9) {
      rc = info ? eg_err_set(err, EG_ECORRUPT, "stored relation key is corrupt")
                : eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
    engram__v1__relation_info__init(info);
    info->relation = eg_arena_strndup(a, k + 9, kl - 9);
    info->cardinality = vl ? (Engram__V1__Cardinality)(uint8_t)v[0] : MANY;
    info->description = vl > 1 ? eg_arena_strndup(a, v + 1, vl - 1) : "";
    if (!info->relation || !info->description || eg_ptrvec_push(out, a, info))
      rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  eg_kv_iter_close(it);
  if (rc == EG_OK && out->n) qsort(out->v, out->n, sizeof *out->v, info_cmp);
  return rc;
}

/* Built-in relations the tenant has not redeclared, then its declarations; each sorted. */
static eg_code known_relations(eg_graph *g, uint64_t tenant, eg_arena *a, eg_ptrvec *out,
                               eg_err *err) {
  eg_ptrvec decl = {0};
  eg_code rc = declarations(g, tenant, a, &decl, err);
  if (rc) return rc;
  size_t first = out->n;
  for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++) {
    bool redeclared = false;
    for (size_t j = 0; j < decl.n && !redeclared; j++)
      redeclared = !strcmp(((Engram__V1__RelationInfo *)decl.v[j])->relation, builtins[i].name);
    if (redeclared) continue;
    Engram__V1__RelationInfo *info = eg_arena_calloc(a, 1, sizeof *info);
    if (!info) return eg_err_set(err, EG_ENOMEM, "out of memory");
    engram__v1__relation_info__init(info);
    info->relation = (char *)builtins[i].name;
    info->cardinality = builtins[i].card;
    info->description = (char *)builtins[i].description;
    info->builtin = true;
    if (eg_ptrvec_push(out, a, info)) return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  qsort(out->v + first, out->n - first, sizeof *out->v, info_cmp);
  for (size_t j = 0; j < decl.n; j++)
    if (eg_ptrvec_push(out, a, decl.v[j])) return eg_err_set(err, EG_ENOMEM, "out of memory");
  return EG_OK;
}

eg_code eg_graph_list_relations(eg_graph *g, const Engram__V1__ListRelationsRequest *req,
                                eg_arena *a, Engram__V1__ListRelationsResponse *resp, eg_err *err) {
  uint64_t tenant = 0;
  if (eg_kv_tenant_id(g->store, req->scope->tenant, &tenant) != EG_OK)
    tenant = 0; /* never wrote: built-ins */
  eg_ptrvec all = {0};
  eg_code rc = known_relations(g, tenant, a, &all, err);
  if (rc) return rc;
  resp->relations = (Engram__V1__RelationInfo **)all.v;
  resp->n_relations = all.n;
  return EG_OK;
}

/* Levenshtein distance of two names of at most 64 bytes. */
static size_t edit_distance(const char *x, const char *y) {
  size_t n = strlen(x), m = strlen(y), row[66];
  if (n > 64 || m > 64) return SIZE_MAX;
  for (size_t j = 0; j <= m; j++) row[j] = j;
  for (size_t i = 1; i <= n; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t up = row[j], best = diag + (x[i - 1] != y[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[m];
}

/* name with each _-separated word cut to its stem (ING, ED, ES, S off words long
 * enough to keep three letters): LIVING_IN, LIVED_IN and LIVES_IN all give LIV_IN. */
static void stem(const char *name, char *out, size_t cap) {
  static const char *const suffixes[] = {"ING", "ED", "ES", "S"};
  size_t o = 0;
  while (*name && o + 1 < cap) {
    size_t w = strcspn(name, "_");
    size_t keep = w;
    for (size_t s = 0; s < sizeof suffixes / sizeof *suffixes; s++) {
      size_t sl = strlen(suffixes[s]);
      if (w >= sl + 3 && !strncmp(name + w - sl, suffixes[s], sl)) {
        keep = w - sl;
        break;
      }
    }
    if (keep > cap - 1 - o) keep = cap - 1 - o;
    memcpy(out + o, name, keep);
    o += keep;
    name += w;
    if (*name == '_' && o + 1 < cap) out[o++] = *name++;
  }
  out[o] = 0;
}

/* Whether an unknown name is probably a misspelling of a known one: the same stems, or
 * at most one edit away (two for names of eight bytes or more). */
static bool close_to(const char *unknown, const char *known) {
  char a[80], b[80];
  stem(unknown, a, sizeof a);
  stem(known, b, sizeof b);
  if (!strcmp(a, b)) return true;
  size_t n = strlen(unknown) < strlen(known) ? strlen(unknown) : strlen(known);
  return edit_distance(unknown, known) <= (n >= 8 ? 2u : 1u);
}

static const char *card_name(Engram__V1__Cardinality c) {
  return c == ONE ? "ONE" : c == INV ? "ONE_INVERSE" : "MANY";
}

eg_code eg_graph_relation_warnings(eg_graph *g, uint64_t tenant,
                                   const Engram__V1__CommitRequest *req, eg_arena *a,
                                   Engram__V1__CommitResponse *resp, eg_err *err) {
  eg_ptrvec known = {0}, warnings = {0};
  for (size_t i = 0; i < req->n_edges; i++) {
    const char *r = req->edges[i]->relation;
    Engram__V1__Cardinality c;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) seen = !strcmp(req->edges[j]->relation, r);
    if (seen || builtin_find(r) || declared(g, tenant, r, &c)) continue;
    eg_code rc;
    if (!known.n && (rc = known_relations(g, tenant, a, &known, err))) return rc;
    for (size_t j = 0; j < known.n; j++) {
      const Engram__V1__RelationInfo *k = known.v[j];
      if (!close_to(r, k->relation)) continue;
      char *w = eg_arena_sprintf(
          a, "edges[%zu]: relation %s is not declared (committed as MANY); did you mean %s (%s)?",
          i, r, k->relation, card_name(k->cardinality));
      if (!w || eg_ptrvec_push(&warnings, a, w)) return eg_err_set(err, EG_ENOMEM, "out of memory");
      break;
    }
  }
  resp->warnings = (char **)warnings.v;
  resp->n_warnings = warnings.n;
  return EG_OK;
}
