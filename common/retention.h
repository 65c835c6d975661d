/*
 * retention.h — how much a stored chunk or fact still matters (docs/retention.md):
 *
 *   R(m, t) = I · e^(−λ·age) + σ · Σ_i 1 / max(t − t_access_i, 1 h)        (days)
 *
 * I is the record's salience (a lexicon over its words, or the client's value), age runs
 * from the record's transaction time, λ = ln 2 / half-life, and the sum runs over the times
 * Recall returned the record. The access history is bounded: the EG_RET_RECENT latest
 * times are kept exactly, older ones folded into a count and a mean time, whose term
 * n / (t − mean) decays with t like the terms it replaces (and never exceeds their sum, by
 * convexity of 1/x).
 *
 * Pure functions and a fixed 48-byte encoding; vectord (chunks) and graphd (facts) store
 * them beside their records.
 */
#ifndef EG_RETENTION_H
#define EG_RETENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "proto/engram/v1/common.pb-c.h"

#define EG_RET_RECENT 4
#define EG_RET_ENCODED 48

typedef Engram__V1__RetentionTier eg_tier;
#define EG_TIER_HOT ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_HOT
#define EG_TIER_WARM ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_WARM
#define EG_TIER_COLD ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_COLD
#define EG_TIER_EVICTED ENGRAM__V1__RETENTION_TIER__RETENTION_TIER_EVICTED

/* The access history of one record. */
typedef struct eg_access {
  int64_t recent[EG_RET_RECENT]; /* newest first, µs; 0 = none */
  uint32_t n_old;                /* accesses folded out of recent */
  int64_t old_mean;              /* their mean time, µs */
} eg_access;

/* A tenant's knobs, defaults filled in (eg_ret_policy_of). */
typedef struct eg_ret_policy {
  double lambda; /* per day */
  double half_life_days, sigma, hot_min, warm_min, evict_days, prior_weight;
  uint64_t hot_max, warm_max;
  bool disabled;
} eg_ret_policy;

/* The policy of a request's message with defaults for its zero fields (NULL = all
 * defaults); EG_EINVAL naming the field when a value is out of range. */
eg_code eg_ret_policy_of(const Engram__V1__RetentionPolicy *p, eg_ret_policy *out, eg_err *err);
/* The message form of a policy (defaults visible), into *out. */
void eg_ret_policy_msg(const eg_ret_policy *p, Engram__V1__RetentionPolicy *out);
/* Fixed encoding of a policy (stored per tenant): 80 bytes. */
#define EG_RET_POLICY_ENCODED 80
void eg_ret_policy_encode(const eg_ret_policy *p, uint8_t out[EG_RET_POLICY_ENCODED]);
bool eg_ret_policy_decode(const void *in, size_t len, eg_ret_policy *p);

/* Record an access at time t (µs). */
void eg_access_add(eg_access *a, int64_t t);
uint64_t eg_access_count(const eg_access *a);
int64_t eg_access_last(const eg_access *a);

/* The two terms of R at time t (µs) and their sum. */
typedef struct eg_ret_score {
  double decay, access, r;
} eg_ret_score;
eg_ret_score eg_ret_score_at(const eg_ret_policy *p, double salience, int64_t created,
                             const eg_access *a, int64_t t);

/* The tier R asks for by the thresholds alone (bounds on tier sizes are the caller's). */
eg_tier eg_ret_tier_of(const eg_ret_policy *p, double r);
const char *eg_ret_tier_name(eg_tier t);
/* A sentence saying why a record with score s is in tier `tier` (into buf). */
void eg_ret_why(const eg_ret_policy *p, const eg_ret_score *s, eg_tier tier, bool bounded,
                char *buf, size_t len);

/* Fill what o says of a record's score at `at`: salience, created_at, R and its two terms,
 * access count and last access, evaluated_at, and the sentence of eg_ret_why (written to
 * why, which o->why then points to) for the record's tier (tier <= 0: the tier R asks for).
 * The returned tier is the one used. */
eg_tier eg_ret_info_fill(Engram__V1__RetentionInfo *o, const eg_ret_policy *p, double salience,
                         int64_t created, const eg_access *acc, int64_t at, eg_tier tier,
                         bool bounded, char *why, size_t why_len);

/* The prior added to a fused score: prior_weight · (min(R, 1) − 0.5); 0 when disabled. */
double eg_ret_prior(const eg_ret_policy *p, double r);

void eg_access_encode(const eg_access *a, uint8_t out[EG_RET_ENCODED]);
bool eg_access_decode(const void *in, size_t len, eg_access *a);

/* Salience of a text by the lexicon (docs/retention.md): 0.9 when it speaks of health,
 * safety, money, legal matters or family; 0.2 for small talk (only greetings, thanks and
 * fillers); else 0.5. *source gets the category ("lexicon: health", "small talk",
 * "default"); static storage. */
double eg_salience_of(const char *text, const char **source);

#endif
