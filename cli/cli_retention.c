/*
 * cli_retention.c — `engram retention` (Admin on ingestd, docs/retention.md):
 *
 *   engram retention get [--chunk ID]... [--fact ID]... [--at TIME]
 *   engram retention policy [--set key=value]... [--confirm-tenant T]
 *   engram retention sweep [--at TIME]
 *
 * get prints each record's R, tier, salience and its source, accesses and why, then the
 * tenant's policy and tier sizes; policy shows the policy, or changes the keys given
 * (the others keep their values); sweep moves the tenant's chunks between tiers now.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/ingest_client.h"

#define USAGE                                                                                   \
  "engram retention get [--chunk ID]... [--fact ID]... [--at TIME]\n"                           \
  "       engram retention policy [--set key=value]... [--confirm-tenant T]\n"                  \
  "       engram retention sweep [--at TIME]\n"                                                 \
  "  keys: half_life_days sigma hot_min warm_min hot_max warm_max evict_cold_after_days "       \
  "prior_weight disabled\n"                                                                     \
  "  needs an admin token of the tenant; a policy that evicts needs --confirm-tenant equal to " \
  "--tenant"

/* The ids of a list option ("1,2,3"): appended to *ids (arena); -1 (message printed) when
 * one is not a positive integer. */
static int parse_ids(const eg_cli *cli, const char *option, eg_arena *a, uint64_t **ids,
                     size_t *n) {
  const char *s = eg_cfg_str(cli->cfg, option);
  size_t cap = 1;
  for (const char *p = s; *p; p++) cap += *p == ',';
  *ids = eg_arena_calloc(a, cap, sizeof **ids);
  *n = 0;
  if (!*ids) return -1;
  while (*s) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || (*end && *end != ',') || errno || !v || *s == '-') {
      fprintf(stderr, "engram: --%s wants ids (positive integers): '%s'\n", option, s);
      return -1;
    }
    (*ids)[(*n)++] = v;
    s = *end ? end + 1 : end;
  }
  return 0;
}

static const char *tier_name(Engram__V1__RetentionTier t) {
  const ProtobufCEnumValue *v =
      protobuf_c_enum_descriptor_get_value(&engram__v1__retention_tier__descriptor, (int)t);
  return v ? v->name + strlen("RETENTION_TIER_") : "?";
}

static void print_policy(const Engram__V1__RetentionPolicy *p) {
  if (!p) return;
  printf(
      "policy: half_life_days=%g sigma=%g hot_min=%g warm_min=%g hot_max=%llu warm_max=%llu "
      "evict_cold_after_days=%g prior_weight=%g disabled=%s\n",
      p->half_life_days, p->sigma, p->hot_min, p->warm_min, (unsigned long long)p->hot_max,
      (unsigned long long)p->warm_max, p->evict_cold_after_days, p->prior_weight,
      p->disabled ? "true" : "false");
}

static void print_tiers(Engram__V1__TierCount *const *t, size_t n) {
  if (!n) return;
  printf("tiers:");
  for (size_t i = 0; i < n; i++)
    printf("%s %s %llu", i ? "," : "", tier_name(t[i]->tier), (unsigned long long)t[i]->count);
  printf("\n");
}

static int cmd_get(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  (void)argv;
  if (argc != 1) return fprintf(stderr, "usage: %s\n", USAGE), 2;
  Engram__V1__GetRetentionRequest req = ENGRAM__V1__GET_RETENTION_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  if (parse_ids(cli, "chunk", a, &req.chunk_ids, &req.n_chunk_ids) ||
      parse_ids(cli, "fact", a, &req.edge_ids, &req.n_edge_ids) || eg_cli_time(cli, "at", &req.at))
    return 2;
  Engram__V1__GetRetentionResponse *r = NULL;
  eg_cli_call(cli, "ingestd", eg_ingestd_get_retention_call(NULL, &req, &r));
  if (!r) return 1;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    if (r->n_items)
      printf("%-5s %-20s %8s %-7s %-8s %-16s %8s %s\n", "KIND", "ID", "R", "TIER", "SALIENCE",
             "SOURCE", "ACCESSES", "LAST ACCESS");
    for (size_t i = 0; i < r->n_items; i++) {
      const Engram__V1__RetentionInfo *it = r->items[i];
      char last[40];
      eg_cli_format_time(it->last_access, last, sizeof last);
      printf("%-5s %-20llu %8.4f %-7s %-8.2f %-16s %8llu %s\n", it->kind,
             (unsigned long long)it->id, it->r, tier_name(it->tier), it->salience,
             it->salience_source, (unsigned long long)it->access_count, last);
      printf("      why: %s\n", it->why);
    }
    size_t asked = req.n_chunk_ids + req.n_edge_ids;
    if (r->n_items < asked)
      printf("(%zu of %zu ids unknown or not visible to the scope)\n", asked - r->n_items, asked);
    print_policy(r->policy);
    print_tiers(r->tiers, r->n_tiers);
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

/* Set the fields named in --set on p; -1 (message printed) for an unknown key or a value
 * of the wrong kind. */
static int apply_sets(const eg_cli *cli, Engram__V1__RetentionPolicy *p, eg_arena *a) {
  char *sets = eg_arena_strdup(a, eg_cfg_str(cli->cfg, "set"));
  for (char *save = NULL, *kv = sets ? strtok_r(sets, ",", &save) : NULL; kv;
       kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (eq) *eq = '\0';
    const ProtobufCFieldDescriptor *f = eq ? protobuf_c_message_descriptor_get_field_by_name(
                                                 &engram__v1__retention_policy__descriptor, kv)
                                           : NULL;
    if (!f) {
      fprintf(stderr,
              "engram: --set wants key=value with a key of the policy (see engram retention "
              "--help): '%s'\n",
              kv);
      return -1;
    }
    const char *v = eq + 1;
    char *end = NULL;
    void *field = (char *)p + f->offset;
    errno = 0;
    if (f->type == PROTOBUF_C_TYPE_DOUBLE) {
      *(double *)field = strtod(v, &end);
    } else if (f->type == PROTOBUF_C_TYPE_UINT64) {
      *(uint64_t *)field = *v == '-' ? (errno = ERANGE, 0) : strtoull(v, &end, 10);
    } else if (f->type == PROTOBUF_C_TYPE_BOOL) {
      bool t = !strcmp(v, "true"), fl = !strcmp(v, "false");
      *(protobuf_c_boolean *)field = t;
      end = t || fl ? (char *)v + strlen(v) : (char *)v;
    }
    if (!end || end == v || *end || errno) {
      fprintf(stderr, "engram: --set %s: '%s' is not a %s\n", kv, v,
              f->type == PROTOBUF_C_TYPE_BOOL ? "boolean (true or false)" : "number");
      return -1;
    }
  }
  return 0;
}

static int cmd_policy(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  (void)argv;
  if (argc != 1) return fprintf(stderr, "usage: %s\n", USAGE), 2;
  Engram__V1__RetentionPolicy p = ENGRAM__V1__RETENTION_POLICY__INIT;
  if (apply_sets(cli, &p, a)) return 2; /* bad keys and values before any call */
  /* the policy in force: shown, or the base the keys given change */
  Engram__V1__GetRetentionRequest get = ENGRAM__V1__GET_RETENTION_REQUEST__INIT;
  get.scope = eg_cli_scope(cli, a);
  Engram__V1__GetRetentionResponse *cur = NULL;
  eg_cli_call(cli, "ingestd", eg_ingestd_get_retention_call(NULL, &get, &cur));
  if (!cur) return 1;
  int rc = 0;
  if (!*eg_cfg_str(cli->cfg, "set")) {
    if (cli->json && cur->policy)
      eg_cli_print_json(&cur->policy->base);
    else
      print_policy(cur->policy);
    print_tiers(cli->json ? NULL : cur->tiers, cur->n_tiers);
    goto out;
  }
  if (cur->policy) {
    p = *cur->policy;
    p.base.unknown_fields = NULL;
    p.base.n_unknown_fields = 0;
  }
  (void)apply_sets(cli, &p, a);
  Engram__V1__SetRetentionPolicyRequest req = ENGRAM__V1__SET_RETENTION_POLICY_REQUEST__INIT;
  req.scope = get.scope;
  req.policy = &p;
  req.confirm_tenant = (char *)eg_cfg_str(cli->cfg, "confirm_tenant");
  Engram__V1__SetRetentionPolicyResponse *r = NULL;
  eg_cli_call(cli, "ingestd", eg_ingestd_set_retention_policy_call(NULL, &req, &r));
  if (!r) {
    rc = 1;
    goto out;
  }
  if (cli->json)
    eg_cli_print_json(&r->base);
  else
    print_policy(r->policy);
  protobuf_c_message_free_unpacked(&r->base, NULL);
out:
  protobuf_c_message_free_unpacked(&cur->base, NULL);
  return rc;
}

static int cmd_sweep(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  (void)argv;
  if (argc != 1) return fprintf(stderr, "usage: %s\n", USAGE), 2;
  Engram__V1__SweepRetentionRequest req = ENGRAM__V1__SWEEP_RETENTION_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  if (eg_cli_time(cli, "at", &req.at)) return 2;
  Engram__V1__SweepRetentionResponse *r = NULL;
  eg_cli_call(cli, "ingestd", eg_ingestd_sweep_retention_call(NULL, &req, &r));
  if (!r) return 1;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    printf("promoted %llu, demoted %llu, evicted %llu\n", (unsigned long long)r->promoted,
           (unsigned long long)r->demoted, (unsigned long long)r->evicted);
    print_tiers(r->tiers, r->n_tiers);
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

int eg_cli_retention(const eg_cli *cli, int argc, char **argv) {
  static const eg_cli_sub sub[] = {{"get", cmd_get}, {"policy", cmd_policy}, {"sweep", cmd_sweep}};
  return eg_cli_dispatch(cli, argc, argv, sub, sizeof sub / sizeof *sub, USAGE);
}
