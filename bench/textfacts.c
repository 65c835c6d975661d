/*
 * textfacts.c — `engram-bench textfacts` (see textfacts.h).
 */
#include "bench/textfacts.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench/split.h"
#include "common/cfg.h"
#include "common/edge.h"
#include "common/log.h"
#include "common/rpc.h"
#include "common/time.h"
#include "lang/dates.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

#define TF_DEFAULT EG_SOURCE_DIR "/../shared/data/textfacts/dev.json"
#define TENANT "textfacts"
#define MAX_GROUPS 32

/* The relations a fact about an attribute may have. */
static const struct {
  const char *attribute, *relations[4];
} attr_relations[] = {
    {"city", {"LIVES_IN"}},
    {"residence", {"LIVES_IN"}},
    {"employer", {"WORKS_AT"}},
    {"diet", {"DIET"}},
    {"partner", {"PARTNER_OF", "MARRIED_TO", "DATING"}},
    {"car", {"DRIVES", "OWNS_CAR"}},
    {"pet", {"HAS_PET"}},
    {"instrument", {"PLAYS"}},
};

enum { R_RIGHT_FACT, R_WRONG_VALID, R_NO_FACT, R_RIGHT_EXCERPT, R_RIGHT_DOUBTED, N_ROWS };
static const char *const row_names[N_ROWS] = {"right first fact", "wrong fact, presented as valid",
                                              "no fact about the attribute", "right first excerpt",
                                              "right fact, flagged stale"};

typedef struct group {
  char name[64];
  int n, count[N_ROWS];
} group;

typedef struct tally {
  group g[MAX_GROUPS];
  size_t n;
} tally;

static group *group_of(tally *t, const char *name) {
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->g[i].name, name)) return &t->g[i];
  if (t->n == MAX_GROUPS) return NULL;
  group *g = &t->g[t->n++];
  snprintf(g->name, sizeof g->name, "%s", name);
  return g;
}

static void count(tally *t, const char *name, const bool *rows) {
  group *g = group_of(t, name);
  if (!g) return;
  g->n++;
  for (int r = 0; r < N_ROWS; r++) g->count[r] += rows[r];
}

/* Case-folded: does haystack hold needle? */
static bool holds(const char *haystack, const char *needle) {
  return haystack && needle && *needle && strcasestr(haystack, needle) != NULL;
}

/* Does the edge's value name `value` (either contains the other, at least three bytes)? */
static bool names_value(const Engram__V1__Edge *e, const char *value) {
  const char *v = eg_edge_object(e);
  return strlen(v) >= 3 && strlen(value) >= 3 && (holds(v, value) || holds(value, v));
}

static bool about(const Engram__V1__Edge *e, const char *attribute, const cJSON *values) {
  for (size_t i = 0; i < sizeof attr_relations / sizeof *attr_relations; i++)
    if (!strcmp(attr_relations[i].attribute, attribute))
      for (int r = 0; r < 4 && attr_relations[i].relations[r]; r++)
        if (e->relation && !strcmp(e->relation, attr_relations[i].relations[r])) return true;
  const cJSON *v;
  cJSON_ArrayForEach(v,
                     values) if (cJSON_IsString(v) && names_value(e, v->valuestring)) return true;
  return false;
}

/* Noon UTC of a YYYY-MM-DD date (0 when malformed). */
static int64_t noon(const char *date) {
  char iso[40];
  snprintf(iso, sizeof iso, "%.10sT12:00:00Z", date ? date : "");
  int64_t t = 0;
  eg_err e;
  return eg_time_parse(iso, &t, &e) == EG_OK ? t : 0;
}

typedef struct ctx {
  eg_rpc_client *ingestd, *recalld;
  uint32_t k;
  bool verbose;
  bool late; /* as_of questions asked the day after the scenario's last session */
  tally by_attr, by_kind, all;
  int failures;
} ctx;

static void ingest(ctx *c, const char *user, const cJSON *session) {
  const cJSON *msgs = cJSON_GetObjectItem(session, "messages"), *m;
  size_t n = (size_t)cJSON_GetArraySize(msgs), i = 0;
  const char **pairs = calloc(2 * (n ? n : 1), sizeof *pairs);
  cJSON_ArrayForEach(m, msgs) {
    pairs[2 * i] = cJSON_GetStringValue(cJSON_GetObjectItem(m, "role"));
    pairs[2 * i + 1] = cJSON_GetStringValue(cJSON_GetObjectItem(m, "content"));
    i++;
  }
  const char *sid = cJSON_GetStringValue(cJSON_GetObjectItem(session, "id"));
  eg_err e;
  if (ic_session(c->ingestd, TENANT, user, sid ? sid : "",
                 noon(cJSON_GetStringValue(cJSON_GetObjectItem(session, "date"))), pairs, n, false,
                 NULL, &e) != EG_OK) {
    fprintf(stderr, "textfacts: ingest %s/%s: %s\n", user, sid ? sid : "?", e.msg);
    c->failures++;
  }
  free(pairs);
}

/* Ask one question; fill the four rows. */
static bool ask(ctx *c, const char *user, const char *attribute, const cJSON *values,
                const cJSON *query, int64_t late, bool *rows) {
  const char *question = cJSON_GetStringValue(cJSON_GetObjectItem(query, "question"));
  const char *expect = cJSON_GetStringValue(cJSON_GetObjectItem(query, "expect"));
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(query, "kind"));
  int64_t at = noon(cJSON_GetStringValue(cJSON_GetObjectItem(query, "at")));
  if (!question || !expect || !at) return false;
  /* moved only when its time reads the same from the later day (it names a year) */
  eg_date d, d2;
  if (late > at && kind && !strcmp(kind, "as_of") && eg_dates_find(question, at, &d, 1) &&
      eg_dates_find(question, late, &d2, 1) && d.from == d2.from && d.to == d2.to)
    at = late;
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = TENANT;
  scope.user = (char *)user;
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.scope = &scope;
  req.query = (char *)question;
  req.query_time = req.valid_at = at;
  req.k = c->k;
  Engram__V1__RecallResponse *resp = NULL;
  eg_err e;
  if (eg_recalld_recall(c->recalld, &req, &resp, &e) != EG_OK) {
    fprintf(stderr, "textfacts: recall %s: %s\n", user, e.msg);
    c->failures++;
    return false;
  }
  const Engram__V1__RecallResponse *r = resp;
  const Engram__V1__RecallItem *fact = NULL, *excerpt = NULL;
  for (size_t i = 0; i < r->n_items; i++) {
    const Engram__V1__RecallItem *it = r->items[i];
    if (!fact && it->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT && it->fact &&
        about(it->fact, attribute, values))
      fact = it;
    if (!excerpt && it->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK) {
      const cJSON *v;
      cJSON_ArrayForEach(v, values) if (cJSON_IsString(v) && holds(it->text, v->valuestring))
          excerpt = it;
    }
  }
  memset(rows, 0, N_ROWS * sizeof *rows);
  rows[R_NO_FACT] = !fact;
  rows[R_RIGHT_FACT] = fact && names_value(fact->fact, expect);
  rows[R_WRONG_VALID] =
      fact && !rows[R_RIGHT_FACT] &&
      fact->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE;
  rows[R_RIGHT_EXCERPT] = excerpt && holds(excerpt->text, expect);
  /* the cost of doubt: a right value an agent is told to check */
  rows[R_RIGHT_DOUBTED] =
      rows[R_RIGHT_FACT] &&
      fact->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE;
  if (c->verbose)
    printf("%-24s %-7s %-40.40s expect %-14s fact %-20.20s%s excerpt %s\n", user, attribute,
           question, expect, fact ? eg_edge_object(fact->fact) : "-",
           fact && fact->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE
               ? " (stale)"
               : "",
           excerpt ? (rows[R_RIGHT_EXCERPT] ? "right" : "wrong") : "-");
  if (c->verbose && fact && fact->fact->meta)
    printf("    fact read by %s (%.2f, %.60s) from \"%.100s\"\n",
           fact->fact->meta->extractor ? fact->fact->meta->extractor : "?",
           (double)fact->fact->meta->confidence,
           fact->fact->meta->reason ? fact->fact->meta->reason : "",
           fact->fact->meta->utterance ? fact->fact->meta->utterance : "");
  for (size_t i = 0; c->verbose && !rows[R_RIGHT_EXCERPT] && i < r->n_items && i < 8; i++)
    if (r->items[i]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK)
      printf("    excerpt %zu: %.90s\n", i, r->items[i]->text ? r->items[i]->text : "");
  if (c->verbose && !rows[R_RIGHT_EXCERPT]) { /* ranked too low, or not found at all? */
    size_t i = 0;
    while (i < r->n_items && !(r->items[i]->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK &&
                               holds(r->items[i]->text, expect)))
      i++;
    if (i < r->n_items)
      printf("    the right value first named by item %zu of %zu\n", i, r->n_items);
    else
      printf("    the right value named by none of the %zu items\n", r->n_items);
  }
  if (c->verbose && fact && fact->superseding && fact->superseding->meta)
    printf("    in doubt (%s) by \"%.100s\"\n",
           fact->superseding->meta->extractor ? fact->superseding->meta->extractor : "?",
           fact->superseding->meta->utterance ? fact->superseding->meta->utterance : "");
  protobuf_c_message_free_unpacked(&resp->base, NULL);
  return true;
}

static void run_scenario(ctx *c, const cJSON *s, const char *run_id) {
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(s, "name"));
  const char *attribute = cJSON_GetStringValue(cJSON_GetObjectItem(s, "attribute"));
  const cJSON *values = cJSON_GetObjectItem(s, "values"), *x;
  if (!name || !attribute || !cJSON_IsArray(values)) {
    fprintf(stderr, "textfacts: a scenario without name, attribute or values\n");
    c->failures++;
    return;
  }
  char user[160];
  snprintf(user, sizeof user, "%s-%s", run_id, name); /* a fresh user each run */
  int64_t last = 0; /* --late: a question about a past time asked after the last session */
  cJSON_ArrayForEach(x, cJSON_GetObjectItem(s, "sessions")) {
    ingest(c, user, x);
    int64_t t = noon(cJSON_GetStringValue(cJSON_GetObjectItem(x, "date")));
    if (t > last) last = t;
  }
  cJSON_ArrayForEach(x, cJSON_GetObjectItem(s, "queries")) {
    bool rows[N_ROWS];
    if (!ask(c, user, attribute, values, x, c->late ? last + EG_US_PER_DAY : 0, rows)) continue;
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(x, "kind"));
    count(&c->by_attr, attribute, rows);
    count(&c->by_kind, kind ? kind : "?", rows);
    count(&c->all, "all", rows);
  }
}

static void print_table(const char *title, const tally *t) {
  printf("\n| %s | questions |", title);
  for (int r = 0; r < N_ROWS; r++) printf(" %s |", row_names[r]);
  printf("\n|---|---:|");
  for (int r = 0; r < N_ROWS; r++) printf("---:|");
  printf("\n");
  for (size_t i = 0; i < t->n; i++) {
    const group *g = &t->g[i];
    printf("| %s | %d |", g->name, g->n);
    for (int r = 0; r < N_ROWS; r++) printf(" %.1f%% |", g->n ? 100.0 * g->count[r] / g->n : 0.0);
    printf("\n");
  }
}

static int usage(void) {
  fprintf(stderr,
          "usage: engram-bench textfacts [--data FILE] [--k 1..100] [--half even|odd | --split "
          "tune|confirm]\n"
          "                              [--verbose] [--late]\n"
          "                              [--ingestd ADDR --recalld ADDR (token: ENGRAM_TOKEN)]\n");
  return 2;
}

int eg_btextfacts_main(int argc, char **argv) {
  const char *data = TF_DEFAULT, *ing = NULL, *rec = NULL, *half = NULL;
  ctx c = {.k = 10};
  eg_bsplit split = EG_BSPLIT_ALL;
  for (int i = 1; i < argc; i++) {
    int64_t k;
    if (!strcmp(argv[i], "--data") && i + 1 < argc)
      data = argv[++i];
    else if (!strcmp(argv[i], "--ingestd") && i + 1 < argc)
      ing = argv[++i];
    else if (!strcmp(argv[i], "--recalld") && i + 1 < argc)
      rec = argv[++i];
    else if (!strcmp(argv[i], "--k") && i + 1 < argc && eg_cfg_int_in(argv[i + 1], 1, 100, &k))
      c.k = (uint32_t)k, i++;
    else if (!strcmp(argv[i], "--verbose"))
      c.verbose = true;
    else if (!strcmp(argv[i], "--late"))
      c.late = true;
    else if (!strcmp(argv[i], "--half") && i + 1 < argc &&
             (!strcmp(argv[i + 1], "even") || !strcmp(argv[i + 1], "odd")))
      half = argv[++i];
    else if (!strcmp(argv[i], "--split") && i + 1 < argc) {
      if (!eg_bsplit_parse(argv[++i], &split)) {
        fprintf(stderr, "textfacts: --split is tune or confirm, not %s\n", argv[i]);
        return usage();
      }
    } else
      return usage();
  }
  if (half && split != EG_BSPLIT_ALL) {
    fprintf(stderr, "textfacts: --half and --split each choose a half; give one of them\n");
    return usage();
  }
  if (!ing != !rec) return usage();
  eg_log_init("engram-bench", EG_LOG_WARN);
  char *text = eg_test_slurp(data);
  cJSON *root = text ? cJSON_Parse(text) : NULL;
  free(text);
  const cJSON *scenarios = root ? cJSON_GetObjectItem(root, "scenarios") : NULL;
  if (!cJSON_IsArray(scenarios)) {
    fprintf(stderr, "textfacts: %s is not a textfacts set (an object with \"scenarios\")\n", data);
    cJSON_Delete(root);
    return 1;
  }
  eg_cluster cl = {0};
  if (!ing) {
    eg_err e;
    if (eg_cluster_start(&cl, NULL, &e)) {
      fprintf(stderr, "cluster: %s\n", e.msg);
      cJSON_Delete(root);
      return 1;
    }
    ing = cl.d[EG_INGESTD].addr, rec = cl.d[EG_RECALLD].addr;
  }
  eg_rpc_client_opts co = {.timeout_us = 60 * 1000000LL,
                           .token = cl.dir ? NULL : getenv("ENGRAM_TOKEN")};
  eg_err e;
  int rc = 1;
  if (eg_rpc_client_open(ing, &co, &c.ingestd, &e) ||
      eg_rpc_client_open(rec, &co, &c.recalld, &e)) {
    fprintf(stderr, "connect: %s\n", e.msg);
    goto done;
  }
  char run_id[32];
  snprintf(run_id, sizeof run_id, "tf%llx", (unsigned long long)eg_time_now_us());
  int64_t t0 = eg_time_mono_us();
  const cJSON *s;
  int index = 0, ran = 0;
  cJSON_ArrayForEach(s, scenarios) {
    /* one fixed half to tune on (even: scenarios 0, 2, …; or tune: the name's hash even),
     * the other to confirm */
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(s, "name"));
    bool take = half ? (index % 2 == 0) == !strcmp(half, "even")
                     : eg_bsplit_takes(split, eg_bsplit_of(name));
    index++;
    if (!take) continue;
    run_scenario(&c, s, run_id);
    ran++;
  }
  char which[96] = "";
  if (half) snprintf(which, sizeof which, ", half %s", half);
  if (split != EG_BSPLIT_ALL)
    snprintf(which, sizeof which, ", split %s (%d of %d scenarios)", eg_bsplit_name(split), ran,
             index);
  printf("textfacts: %s%s — %d scenarios, %d questions, k = %u, %.1f s%s\n", data, which, ran,
         c.all.n ? c.all.g[0].n : 0, c.k, (double)(eg_time_mono_us() - t0) / 1e6,
         c.failures ? " (with failures: see stderr)" : "");
  print_table("all", &c.all);
  print_table("attribute", &c.by_attr);
  print_table("query kind", &c.by_kind);
  rc = c.failures ? 1 : 0;
done:
  eg_rpc_client_close(c.ingestd);
  eg_rpc_client_close(c.recalld);
  if (cl.dir) eg_cluster_stop(&cl, rc != 0);
  cJSON_Delete(root);
  return rc;
}
