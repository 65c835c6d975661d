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
    {"STATE_UNCERTAIN", MANY, "a doubt on a state: its object names the relation (e.g. LIVES_IN) a statement put in question"},
    {"PREFERS", MANY, "a preference (sentiment and intensity in meta)"},
    {"AVOIDS", MANY, "a constraint or aversion"},
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

Engram__V1__Cardinality eg_graph_cardinality(eg_graph *g, uint64_t tenant, const char *r) {
  if (tenant) {
    uint8_t k[80];
    if (strlen(r) > 64) return MANY;
    size_t kl = rel_key(k, tenant, r);
    pthread_mutex_lock(&g->rmu);
    void *hit = eg_map_get(g->rel_cache, k, kl);
    pthread_mutex_unlock(&g->rmu);
    if (hit) return (Engram__V1__Cardinality)(intptr_t)hit;
    char *v;
    size_t vl;
    if (eg_kv_get(g->store, CF_DEFAULT, k, kl, &v, &vl, NULL) == EG_OK) {
      Engram__V1__Cardinality c = vl ? (Engram__V1__Cardinality)(uint8_t)v[0] : MANY;
      free(v);
      pthread_mutex_lock(&g->rmu);
      eg_map_put(g->rel_cache, k, kl, (void *)(intptr_t)c);
      pthread_mutex_unlock(&g->rmu);
      return c;
    }
  }
  const builtin_rel *b = builtin_find(r);
  return b ? b->card : MANY;
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
  eg_kvtxn *t = eg_kv_begin(g->store);
  if (!t) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_tenant *ten;
  eg_code rc = eg_kvtxn_tenant(t, req->scope->tenant, &ten, err);
  if (rc) {
    eg_kvtxn_abort(t);
    return rc;
  }
  uint8_t k[80];
  size_t kl = rel_key(k, ten->id, req->relation);
  char *v = eg_arena_alloc(a, dl + 1);
  if (!v) {
    eg_kvtxn_abort(t);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  v[0] = (char)req->cardinality;
  if (dl) memcpy(v + 1, req->description, dl);
  eg_kvtxn_put(t, CF_DEFAULT, k, kl, v, dl + 1, true);
  if ((rc = eg_kvtxn_commit(t, err))) return rc;
  pthread_mutex_lock(&g->rmu);
  eg_map_put(g->rel_cache, k, kl, (void *)(intptr_t)req->cardinality);
  pthread_mutex_unlock(&g->rmu);
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
