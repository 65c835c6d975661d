/*
 * retention.c — the retention score, tiers, the bounded access history and the salience
 * lexicon (common/retention.h).
 */
#include "common/retention.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/keybuf.h"

#define US_PER_DAY 86400000000.0
#define MIN_GAP_DAYS (1.0 / 24) /* an access is never counted closer than an hour */

/* ---- policy ------------------------------------------------------------------------------ */

static const eg_ret_policy defaults = {
    .half_life_days = 30, .sigma = 0.25, .hot_min = 0.25, .warm_min = 0.08, .prior_weight = 0.02};

eg_code eg_ret_policy_of(const Engram__V1__RetentionPolicy *m, eg_ret_policy *p, eg_err *err) {
  *p = defaults;
  if (m) {
#define KNOB(field, dst, lo, hi)                                                                 \
  do {                                                                                           \
    if (m->field != 0) {                                                                         \
      if (!(m->field >= (lo) && m->field <= (hi)))                                               \
        return eg_err_set(err, EG_EINVAL, "policy." #field " must be in [%g, %g]", (double)(lo), \
                          (double)(hi));                                                         \
      p->dst = m->field;                                                                         \
    }                                                                                            \
  } while (0)
    KNOB(half_life_days, half_life_days, 0.001, 36500);
    KNOB(sigma, sigma, 0, 100);
    KNOB(hot_min, hot_min, 0, 1000);
    KNOB(warm_min, warm_min, 0, 1000);
    KNOB(evict_cold_after_days, evict_days, 0, 36500);
#undef KNOB
    if (m->prior_weight != 0) {
      if (!(m->prior_weight >= -1 && m->prior_weight <= 1))
        return eg_err_set(err, EG_EINVAL, "policy.prior_weight must be in [-1, 1]");
      p->prior_weight = m->prior_weight < 0 ? 0 : m->prior_weight;
    }
    p->hot_max = m->hot_max;
    p->warm_max = m->warm_max;
    p->disabled = m->disabled;
  }
  if (p->warm_min > p->hot_min)
    return eg_err_set(err, EG_EINVAL, "policy.warm_min must not exceed hot_min");
  p->lambda = log(2.0) / p->half_life_days;
  return EG_OK;
}

void eg_ret_policy_msg(const eg_ret_policy *p, Engram__V1__RetentionPolicy *m) {
  engram__v1__retention_policy__init(m);
  m->half_life_days = p->half_life_days;
  m->sigma = p->sigma;
  m->hot_min = p->hot_min;
  m->warm_min = p->warm_min;
  m->hot_max = p->hot_max;
  m->warm_max = p->warm_max;
  m->evict_cold_after_days = p->evict_days;
  m->prior_weight =
      p->prior_weight > 0 ? p->prior_weight : -1; /* no prior: -1, since 0 asks for the default */
  m->disabled = p->disabled;
}

static void put_f64(uint8_t *o, double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  key_put64(o, u);
}

static double get_f64(const uint8_t *i) {
  uint64_t u = key_get64(i);
  double d;
  memcpy(&d, &u, 8);
  return d;
}

void eg_ret_policy_encode(const eg_ret_policy *p, uint8_t o[EG_RET_POLICY_ENCODED]) {
  memset(o, 0, EG_RET_POLICY_ENCODED);
  const double f[6] = {p->half_life_days, p->sigma,      p->hot_min,
                       p->warm_min,       p->evict_days, p->prior_weight};
  for (int i = 0; i < 6; i++) put_f64(o + 8 * i, f[i]);
  key_put64(o + 48, p->hot_max);
  key_put64(o + 56, p->warm_max);
  o[64] = p->disabled;
}

bool eg_ret_policy_decode(const void *in, size_t len, eg_ret_policy *p) {
  if (len != EG_RET_POLICY_ENCODED) return false;
  const uint8_t *i = in;
  *p = defaults;
  p->half_life_days = get_f64(i);
  p->sigma = get_f64(i + 8);
  p->hot_min = get_f64(i + 16);
  p->warm_min = get_f64(i + 24);
  p->evict_days = get_f64(i + 32);
  p->prior_weight = get_f64(i + 40);
  p->hot_max = key_get64(i + 48);
  p->warm_max = key_get64(i + 56);
  p->disabled = i[64] != 0;
  if (!(p->half_life_days > 0)) return false;
  p->lambda = log(2.0) / p->half_life_days;
  return true;
}

/* ---- access history ------------------------------------------------------------------------ */

void eg_access_add(eg_access *a, int64_t t) {
  int64_t out = a->recent[EG_RET_RECENT - 1];
  if (out) { /* the oldest exact time folds into the running mean */
    a->old_mean = (int64_t)(((double)a->old_mean * a->n_old + (double)out) / (a->n_old + 1.0));
    a->n_old++;
  }
  memmove(a->recent + 1, a->recent, (EG_RET_RECENT - 1) * sizeof *a->recent);
  a->recent[0] = t;
  /* keep newest first when accesses arrive out of order (batched reports) */
  for (int i = 0; i + 1 < EG_RET_RECENT && a->recent[i + 1] > a->recent[i]; i++) {
    int64_t x = a->recent[i];
    a->recent[i] = a->recent[i + 1];
    a->recent[i + 1] = x;
  }
}

uint64_t eg_access_count(const eg_access *a) {
  uint64_t n = a->n_old;
  for (int i = 0; i < EG_RET_RECENT; i++) n += a->recent[i] != 0;
  return n;
}

int64_t eg_access_last(const eg_access *a) { return a->recent[0]; }

void eg_access_encode(const eg_access *a, uint8_t o[EG_RET_ENCODED]) {
  memset(o, 0, EG_RET_ENCODED);
  for (int i = 0; i < EG_RET_RECENT; i++) key_put64(o + 8 * i, (uint64_t)a->recent[i]);
  key_put64(o + 32, a->n_old);
  key_put64(o + 40, (uint64_t)a->old_mean);
}

bool eg_access_decode(const void *in, size_t len, eg_access *a) {
  memset(a, 0, sizeof *a);
  if (len != EG_RET_ENCODED) return false;
  const uint8_t *i = in;
  for (int k = 0; k < EG_RET_RECENT; k++) a->recent[k] = (int64_t)key_get64(i + 8 * k);
  uint64_t n = key_get64(i + 32);
  if (n > UINT32_MAX) return false;
  a->n_old = (uint32_t)n;
  a->old_mean = (int64_t)key_get64(i + 40);
  return true;
}

/* ---- score and tiers ----------------------------------------------------------------------- */

static double gap_days(int64_t t, int64_t then) {
  double d = (double)(t - then) / US_PER_DAY;
  return d < MIN_GAP_DAYS ? MIN_GAP_DAYS : d;
}

eg_ret_score eg_ret_score_at(const eg_ret_policy *p, double salience, int64_t created,
                             const eg_access *a, int64_t t) {
  eg_ret_score s = {0, 0, 0};
  double age = (double)(t - created) / US_PER_DAY;
  s.decay = salience * exp(-p->lambda * (age > 0 ? age : 0));
  double sum = 0;
  for (int i = 0; a && i < EG_RET_RECENT; i++)
    if (a->recent[i]) sum += 1.0 / gap_days(t, a->recent[i]);
  if (a && a->n_old) sum += a->n_old / gap_days(t, a->old_mean);
  s.access = p->sigma * sum;
  s.r = s.decay + s.access;
  return s;
}

eg_tier eg_ret_tier_of(const eg_ret_policy *p, double r) {
  if (p->disabled || r >= p->hot_min) return EG_TIER_HOT;
  return r >= p->warm_min ? EG_TIER_WARM : EG_TIER_COLD;
}

const char *eg_ret_tier_name(eg_tier t) {
  switch (t) {
    case EG_TIER_HOT:
      return "hot";
    case EG_TIER_WARM:
      return "warm";
    case EG_TIER_COLD:
      return "cold";
    case EG_TIER_EVICTED:
      return "evicted";
    default:
      return "unknown";
  }
}

void eg_ret_why(const eg_ret_policy *p, const eg_ret_score *s, eg_tier tier, bool bounded,
                char *buf, size_t len) {
  if (p->disabled) {
    snprintf(buf, len, "retention is off for this tenant: every chunk is hot");
  } else if (tier == EG_TIER_EVICTED) {
    snprintf(buf, len, "evicted under the tenant's policy (cold and not accessed for %g days)",
             p->evict_days);
  } else if (bounded) {
    snprintf(buf, len,
             "R %.3f (decay %.3f + access %.3f) qualifies for a higher tier, but the tier is full "
             "(hot_max %llu, warm_max %llu) and holds records of higher R",
             s->r, s->decay, s->access, (unsigned long long)p->hot_max,
             (unsigned long long)p->warm_max);
  } else {
    const char *cmp = tier == EG_TIER_HOT    ? ">= hot_min"
                      : tier == EG_TIER_WARM ? ">= warm_min"
                                             : "< warm_min";
    double th = tier == EG_TIER_COLD || tier == EG_TIER_WARM ? p->warm_min : p->hot_min;
    snprintf(buf, len, "R %.3f (decay %.3f + access %.3f) %s %.3f", s->r, s->decay, s->access, cmp,
             th);
  }
}

eg_tier eg_ret_info_fill(Engram__V1__RetentionInfo *o, const eg_ret_policy *p, double salience,
                         int64_t created, const eg_access *acc, int64_t at, eg_tier tier,
                         bool bounded, char *why, size_t why_len) {
  eg_ret_score s = eg_ret_score_at(p, salience, created, acc, at);
  if (tier <= 0) tier = eg_ret_tier_of(p, s.r);
  o->salience = salience;
  o->created_at = created;
  o->r = s.r;
  o->decay_term = s.decay;
  o->access_term = s.access;
  o->tier = tier;
  o->access_count = eg_access_count(acc);
  o->last_access = eg_access_last(acc);
  o->evaluated_at = at;
  eg_ret_why(p, &s, tier, bounded, why, why_len);
  o->why = why;
  return tier;
}

double eg_ret_prior(const eg_ret_policy *p, double r) {
  if (p->disabled || p->prior_weight <= 0) return 0;
  return p->prior_weight * ((r < 1 ? r : 1) - 0.5);
}

/* ---- salience lexicon ------------------------------------------------------------------------ */

/* Word starts ("allerg" matches allergy, allergic, allergies); a trailing '=' asks for the
 * whole word. Documented in docs/retention.md. */
typedef struct lex_cat {
  const char *name;
  const char *const *words;
} lex_cat;

static const char *const health[] = {
    "allerg",   "anaphyla", "asthma",  "diabet",   "doctor",  "dentist", "hospital", "clinic",
    "surgery",  "surgeon",  "medicat", "medicine", "prescri", "diagnos", "symptom",  "pregnan",
    "therap",   "insulin",  "epipen",  "cancer",   "chemo",   "injur",   "blood",    "seizure",
    "migraine", "vaccin",   "illness", "disease",  "gluten",  "celiac",  "lactose",  "intoleran",
    "pain=",    "sick=",    "fever",   "nurse",    NULL};
static const char *const safety[] = {"emergenc", "danger",  "unsafe", "accident", "police",
                                     "fire=",    "evacuat", "threat", "abuse",    "stalk",
                                     "crash",    "poison",  NULL};
static const char *const money[] = {
    "salary",   "mortgage", "debt",    "loan=",  "loans",   "bank",    "rent=",    "invoice",
    "tax=",     "taxes",    "payment", "budget", "savings", "pension", "insuranc", "credit",
    "paycheck", "bill=",    "bills",   "owe=",   "owed",    NULL};
static const char *const legal[] = {
    "contract", "lawsuit", "lawyer", "attorney", "court", "visa=",    "visas",    "passport",
    "custody",  "divorce", "legal",  "lease",    "will=", "subpoena", "immigrat", NULL};
static const char *const family[] = {"wife",   "husband", "son=",   "sons",    "daughter",
                                     "mother", "father",  "mom=",   "dad=",    "parent",
                                     "child",  "kids",    "baby",   "babies",  "brother",
                                     "sister", "grandm",  "grandp", "wedding", "funeral",
                                     "fiance", "partner", "family", "newborn", NULL};
static const lex_cat cats[] = {{"lexicon: health", health},
                               {"lexicon: safety", safety},
                               {"lexicon: money", money},
                               {"lexicon: legal", legal},
                               {"lexicon: family", family}};

/* Words that make small talk when a text has nothing else. */
static const char *const chatter[] = {
    "hi",      "hello",   "hey",    "thanks",  "thank",   "you",     "ok",   "okay",
    "cool",    "great",   "bye",    "goodbye", "lol",     "haha",    "nice", "good",
    "morning", "night",   "see",    "ya",      "yes",     "no",      "sure", "awesome",
    "np",      "welcome", "cheers", "sounds",  "perfect", "alright", "yeah", "yep",
    "wow",     "much",    "so",     "a",       "lot",     "later",   NULL};

static bool word_matches(const char *w, size_t n, const char *pat) {
  size_t pl = strlen(pat);
  bool whole = pl && pat[pl - 1] == '=';
  if (whole) return n == pl - 1 && memcmp(w, pat, n) == 0;
  return n >= pl && memcmp(w, pat, pl) == 0;
}

static bool in_list(const char *w, size_t n, const char *const *list) {
  for (size_t i = 0; list[i]; i++)
    if (word_matches(w, n, list[i])) return true;
  return false;
}

double eg_salience_of(const char *text, const char **source) {
  const char *src = "default";
  double s = 0.5;
  size_t words = 0, chat = 0;
  char w[32];
  for (const char *p = text ? text : ""; *p;) {
    while (*p && !isalpha((unsigned char)*p)) p++;
    size_t n = 0;
    while (*p && (isalpha((unsigned char)*p) || *p == '\'')) {
      if (n < sizeof w) w[n++] = (char)tolower((unsigned char)*p);
      p++;
    }
    if (!n) continue;
    if (n > 2 && w[n - 2] == '\'') n -= 2; /* "doctor's" */
    words++;
    chat += in_list(w, n, chatter);
    for (size_t c = 0; s < 0.9 && c < sizeof cats / sizeof *cats; c++)
      if (in_list(w, n, cats[c].words)) {
        s = 0.9;
        src = cats[c].name;
      }
  }
  if (s < 0.9 && words && words <= 12 && chat == words) {
    s = 0.2;
    src = "small talk";
  }
  if (source) *source = src;
  return s;
}
