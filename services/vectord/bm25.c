/*
 * bm25.c — term dictionary (hash map) → postings arrays sorted by slot, plus per-slot
 * document lengths and forward term lists (for removal and single-document scoring).
 *
 * A posting carries its document's length (up to 65534; longer ones are read from the
 * document), and liveness is a bitset, so that scoring a list reads the list and a bit
 * per document, not a document record per posting. Search is document-at-a-time with
 * MaxScore pruning: its memory is one cursor per query term, and once the top k are good
 * enough, the lists whose terms alone cannot lift a document into them are no longer
 * walked, only probed for the documents the other lists propose.
 */
#include "services/vectord/bm25.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/map.h"

#define LEN_FAR 0xFFFFu /* posting.len: the document is longer; its length is in docs[] */

typedef struct posting {
  uint32_t slot;
  uint16_t tf;
  uint16_t len; /* the document's length, or LEN_FAR */
} posting;

typedef struct eg_bm25_tentry {
  posting *p;
  uint32_t n, cap;
  uint32_t df;      /* live documents containing the term */
  uint32_t dead;    /* postings of removed documents not yet compacted */
  uint16_t max_tf;  /* bounds over the postings (removals leave them loose until a */
  uint32_t min_len; /* compaction): what one posting can add to a score at most */
} term_entry;

typedef struct doc {
  uint32_t len; /* 0 with n_terms 0 = absent */
  uint32_t n_terms;
  term_entry **terms; /* forward list */
  uint8_t live;
} doc;

struct eg_bm25 {
  double k1, b;
  eg_map *dict; /* term → term_entry* */
  doc *docs;
  uint64_t *live_bits; /* bit per slot: docs[slot].live */
  size_t n_docs_cap;
  size_t live;
  double total_len;
  char prefix;          /* terms starting with it weigh … */
  double prefix_weight; /* … this much in a query (eg_bm25_prefix_weight) */
};

static bool is_live(const eg_bm25 *ix, uint32_t slot) {
  return slot < ix->n_docs_cap && (ix->live_bits[slot >> 6] >> (slot & 63) & 1);
}

static void set_live(eg_bm25 *ix, uint32_t slot, bool on) {
  ix->docs[slot].live = on;
  if (on)
    ix->live_bits[slot >> 6] |= UINT64_C(1) << (slot & 63);
  else
    ix->live_bits[slot >> 6] &= ~(UINT64_C(1) << (slot & 63));
}

static uint32_t posting_len(const eg_bm25 *ix, const posting *p) {
  return p->len == LEN_FAR ? ix->docs[p->slot].len : p->len;
}

eg_bm25 *eg_bm25_new(double k1, double b) {
  eg_bm25 *ix = calloc(1, sizeof *ix);
  if (!ix) return NULL;
  ix->k1 = k1;
  ix->b = b;
  ix->dict = eg_map_new();
  if (!ix->dict) {
    free(ix);
    return NULL;
  }
  return ix;
}

void eg_bm25_prefix_weight(eg_bm25 *ix, char prefix, double w) {
  ix->prefix = prefix;
  ix->prefix_weight = w;
}

static bool free_term(void *ctx, const void *k, size_t kl, void *v) {
  (void)ctx, (void)k, (void)kl;
  term_entry *t = v;
  free(t->p);
  free(t);
  return true;
}

void eg_bm25_free(eg_bm25 *ix) {
  if (!ix) return;
  eg_map_each(ix->dict, free_term, NULL);
  eg_map_free(ix->dict);
  for (size_t i = 0; i < ix->n_docs_cap; i++) free(ix->docs[i].terms);
  free(ix->docs);
  free(ix->live_bits);
  free(ix);
}

size_t eg_bm25_docs(const eg_bm25 *ix) { return ix->live; }
size_t eg_bm25_terms(const eg_bm25 *ix) { return eg_map_count(ix->dict); }

/* The first posting of t at or after slot. */
static uint32_t lower_bound(const term_entry *t, uint32_t slot) {
  uint32_t lo = 0, hi = t->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (t->p[mid].slot < slot)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

eg_code eg_bm25_add(eg_bm25 *ix, uint32_t slot, const eg_bm25_term *terms, size_t n,
                    uint32_t doclen) {
  if (slot >= ix->n_docs_cap) {
    size_t nc = ix->n_docs_cap ? ix->n_docs_cap : 1024;
    while (nc <= slot) nc *= 2;
    doc *nd = realloc(ix->docs, nc * sizeof *nd);
    if (!nd) return EG_ENOMEM;
    memset(nd + ix->n_docs_cap, 0, (nc - ix->n_docs_cap) * sizeof *nd);
    ix->docs = nd;
    uint64_t *nb = realloc(ix->live_bits, nc / 64 * sizeof *nb); /* nc: a power of 2 ≥ 1024 */
    if (!nb) return EG_ENOMEM;
    memset(nb + ix->n_docs_cap / 64, 0, (nc - ix->n_docs_cap) / 64 * sizeof *nb);
    ix->live_bits = nb;
    ix->n_docs_cap = nc;
  }
  doc *d = &ix->docs[slot];
  if (d->live) return EG_EEXIST;
  free(d->terms);
  d->terms = malloc((n ? n : 1) * sizeof *d->terms);
  if (!d->terms) return EG_ENOMEM;
  d->n_terms = 0;
  for (size_t i = 0; i < n; i++) {
    size_t tl = strlen(terms[i].term);
    term_entry *t = eg_map_get(ix->dict, terms[i].term, tl);
    if (!t) {
      if (!(t = calloc(1, sizeof *t))) return EG_ENOMEM;
      if (eg_map_put(ix->dict, terms[i].term, tl, t)) {
        free(t);
        return EG_ENOMEM;
      }
    }
    if (t->n == t->cap) {
      uint32_t nc = t->cap ? t->cap * 2 : 4;
      posting *np = realloc(t->p, nc * sizeof *np);
      if (!np) return EG_ENOMEM;
      t->p = np;
      t->cap = nc;
    }
    /* Slots are assigned in increasing order, so appending keeps postings sorted; a
     * re-added smaller slot goes in place, over its old posting when that is not yet
     * compacted away. */
    uint32_t at = t->n;
    if (at && t->p[at - 1].slot >= slot) at = lower_bound(t, slot);
    uint16_t tf = terms[i].tf < UINT16_MAX ? (uint16_t)terms[i].tf : UINT16_MAX;
    posting np = {slot, tf, doclen < LEN_FAR ? (uint16_t)doclen : (uint16_t)LEN_FAR};
    if (!t->n || tf > t->max_tf) t->max_tf = tf;
    if (!t->n || doclen < t->min_len) t->min_len = doclen;
    if (at < t->n && t->p[at].slot == slot) {
      t->p[at] = np;
      t->dead--;
    } else {
      memmove(&t->p[at + 1], &t->p[at], (t->n - at) * sizeof *t->p);
      t->p[at] = np;
      t->n++;
    }
    t->df++;
    d->terms[d->n_terms++] = t;
  }
  d->len = doclen;
  set_live(ix, slot, true);
  ix->live++;
  ix->total_len += doclen;
  return EG_OK;
}

/* Drop postings of dead documents once they are an eighth of the list (a search steps
 * over them); the bounds are made tight again. */
static void compact(eg_bm25 *ix, term_entry *t) {
  uint32_t o = 0;
  t->max_tf = 0;
  t->min_len = UINT32_MAX;
  for (uint32_t i = 0; i < t->n; i++) {
    if (!is_live(ix, t->p[i].slot)) continue;
    t->p[o] = t->p[i];
    uint32_t len = posting_len(ix, &t->p[o]);
    if (t->p[o].tf > t->max_tf) t->max_tf = t->p[o].tf;
    if (len < t->min_len) t->min_len = len;
    o++;
  }
  t->n = o;
  t->dead = 0;
}

void eg_bm25_remove(eg_bm25 *ix, uint32_t slot) {
  if (!is_live(ix, slot)) return;
  doc *d = &ix->docs[slot];
  set_live(ix, slot, false);
  ix->live--;
  ix->total_len -= d->len;
  for (uint32_t i = 0; i < d->n_terms; i++) {
    term_entry *t = d->terms[i];
    t->df--;
    if (++t->dead * 8 > t->n) compact(ix, t);
  }
  free(d->terms);
  d->terms = NULL;
  d->n_terms = 0;
}

static double idf(double N, double df) { return log(1.0 + (N - df + 0.5) / (df + 0.5)); }

/* A term's score in a document is w·tf / (tf + c0 + c1·len): w = idf·(k1 + 1),
 * c0 = k1·(1 − b), c1 = k1·b / avgdl (one division per posting). */
typedef struct term_w {
  double w, c0, c1;
} term_w;

static term_w term_weights(const eg_bm25 *ix, double avgdl, double idf_t) {
  return (term_w){idf_t * (ix->k1 + 1.0), ix->k1 * (1.0 - ix->b), ix->k1 * ix->b / avgdl};
}

static double term_score(term_w w, uint32_t tf, uint32_t len) {
  return w.w * (double)tf / ((double)tf + w.c0 + w.c1 * (double)len);
}

/* The distinct query terms present in the index, with the whole index's idf. */
void eg_bm25_prepare(const eg_bm25 *ix, const char *const *terms, size_t n, eg_bm25_query *q) {
  q->n = 0;
  q->avgdl = ix->live && ix->total_len > 0 ? ix->total_len / (double)ix->live : 1.0;
  for (size_t i = 0; i < n && q->n < EG_BM25_MAX_TERMS; i++) {
    bool dup = false;
    for (size_t j = 0; j < i && !dup; j++) dup = strcmp(terms[i], terms[j]) == 0;
    if (dup) continue;
    term_entry *t = eg_map_get(ix->dict, terms[i], strlen(terms[i]));
    if (!t || !t->df) continue;
    q->t[q->n] = t;
    q->w[q->n] = ix->prefix && terms[i][0] == ix->prefix ? ix->prefix_weight : 1.0;
    q->idf[q->n] = q->w[q->n] * idf((double)ix->live, t->df);
    q->n++;
  }
}

void eg_bm25_subset_init(const eg_bm25 *ix, const uint32_t *slots, size_t n, eg_bm25_keep in,
                         void *ctx, eg_bm25_subset *s) {
  *s = (eg_bm25_subset){slots, n, in, ctx, 0, 0};
  for (size_t i = 0; i < n; i++) {
    const doc *d = slots[i] < ix->n_docs_cap ? &ix->docs[slots[i]] : NULL;
    if (!d || !d->live) continue;
    s->len += d->len;
    s->terms += d->n_terms;
  }
}

void eg_bm25_prepare_within(const eg_bm25 *ix, const char *const *terms, size_t n,
                            const eg_bm25_subset *s, double prior, eg_bm25_query *q) {
  eg_bm25_prepare(ix, terms, n, q);
  if (!ix->live || (!s->n && prior <= 0)) return;
  /* the subset's document frequencies: from the postings, or from the subset's documents'
   * forward lists when those are the shorter walk */
  uint32_t df[EG_BM25_MAX_TERMS] = {0};
  size_t by_postings = 0;
  for (size_t i = 0; i < q->n; i++) by_postings += q->t[i]->n;
  if (by_postings <= s->terms) {
    for (size_t i = 0; i < q->n; i++)
      for (uint32_t j = 0; j < q->t[i]->n; j++) {
        uint32_t slot = q->t[i]->p[j].slot;
        if (is_live(ix, slot) && s->in(s->ctx, slot)) df[i]++;
      }
  } else {
    for (size_t i = 0; i < s->n; i++) {
      const doc *d = s->slots[i] < ix->n_docs_cap ? &ix->docs[s->slots[i]] : NULL;
      for (uint32_t e = 0; d && d->live && e < d->n_terms; e++)
        for (size_t j = 0; j < q->n; j++) df[j] += d->terms[e] == q->t[j];
    }
  }
  double N = (double)ix->live, m = (double)s->n + prior;
  if (m <= 0) return;
  q->avgdl = (s->len + prior * ix->total_len / N) / m;
  if (q->avgdl <= 0) q->avgdl = 1.0;
  for (size_t i = 0; i < q->n; i++)
    q->idf[i] = q->w[i] * idf(m, (double)df[i] + prior * q->t[i]->df / N);
}

static double score_of(const eg_bm25 *ix, const eg_bm25_query *q, uint32_t slot, bool words) {
  if (!is_live(ix, slot)) return 0;
  double s = 0;
  for (size_t i = 0; i < q->n; i++) {
    const term_entry *t = q->t[i];
    if (words && q->w[i] != 1.0) continue;
    uint32_t lo = lower_bound(t, slot); /* postings are sorted by slot */
    if (lo < t->n && t->p[lo].slot == slot)
      s += term_score(term_weights(ix, q->avgdl, q->idf[i]), t->p[lo].tf, ix->docs[slot].len);
  }
  return s;
}

double eg_bm25_score(const eg_bm25 *ix, const eg_bm25_query *q, uint32_t slot) {
  return score_of(ix, q, slot, false);
}

double eg_bm25_score_words(const eg_bm25 *ix, const eg_bm25_query *q, uint32_t slot) {
  return score_of(ix, q, slot, true);
}

typedef struct scored {
  uint32_t slot;
  double score;
} scored;

/* "a ranks below b": lower score, or equal score and larger slot. */
static bool below(const scored *a, const scored *b) {
  return a->score < b->score || (a->score == b->score && a->slot > b->slot);
}

/* Min-heap on rank: the root is the weakest of the current top k. */
static void sift_down(scored *h, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && below(&h[l], &h[m])) m = l;
    if (r < n && below(&h[r], &h[m])) m = r;
    if (m == i) return;
    scored t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

static void sift_up(scored *h, size_t i) {
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!below(&h[i], &h[p])) return;
    scored t = h[i];
    h[i] = h[p];
    h[p] = t;
    i = p;
  }
}

/* A query term's cursor in its postings, with the most it can add to a score. */
typedef struct cursor {
  const posting *p;
  uint32_t n, at; /* postings, current one */
  uint32_t slot;  /* p[at].slot, UINT32_MAX past the end */
  uint32_t qi;    /* the term's index in the query (scores are summed in that order) */
  term_w w;
  double ub; /* upper bound of one posting's term score */
} cursor;

static int by_ub(const void *a, const void *b) {
  double x = ((const cursor *)a)->ub, y = ((const cursor *)b)->ub;
  return x < y ? -1 : x > y ? 1 : 0;
}

static void step(cursor *c) { c->slot = ++c->at < c->n ? c->p[c->at].slot : UINT32_MAX; }

/* Move c to its first posting at or after slot (galloping, then binary search). */
static void seek(cursor *c, uint32_t slot) {
  if (c->slot >= slot) return;
  const posting *p = c->p;
  uint32_t n = c->n, lo = c->at, step = 1, hi = lo + 1;
  while (hi < n && p[hi].slot < slot) {
    lo = hi;
    step *= 2;
    hi = n - lo > step ? lo + step : n;
  }
  while (lo + 1 < hi) { /* p[lo] < slot ≤ p[hi] (or hi = n) */
    uint32_t mid = lo + (hi - lo) / 2;
    if (p[mid].slot < slot)
      lo = mid;
    else
      hi = mid;
  }
  c->at = hi;
  c->slot = hi < n ? p[hi].slot : UINT32_MAX;
}

static int by_slot_of(const void *a, const void *b, void *ctx) {
  const uint32_t *slots = ctx;
  uint32_t x = slots[*(const uint32_t *)a], y = slots[*(const uint32_t *)b];
  return x < y ? -1 : x > y;
}

void eg_bm25_score_many(const eg_bm25 *ix, const eg_bm25_query *q, const uint32_t *slots, size_t n,
                        double *out, double *words) {
  uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
  if (!ord) {
    for (size_t j = 0; j < n; j++) {
      out[j] = eg_bm25_score(ix, q, slots[j]);
      if (words) words[j] = eg_bm25_score_words(ix, q, slots[j]);
    }
    return;
  }
  for (size_t j = 0; j < n; j++) {
    ord[j] = (uint32_t)j;
    out[j] = 0;
    if (words) words[j] = 0;
  }
  qsort_r(ord, n, sizeof *ord, by_slot_of, (void *)slots);
  for (size_t i = 0; i < q->n; i++) { /* term by term, as eg_bm25_score sums */
    const term_entry *t = q->t[i];
    term_w w = term_weights(ix, q->avgdl, q->idf[i]);
    cursor c = {t->p, t->n, 0, t->n ? t->p[0].slot : UINT32_MAX, (uint32_t)i, w, 0};
    for (size_t j = 0; j < n && c.slot != UINT32_MAX; j++) {
      uint32_t s = slots[ord[j]];
      seek(&c, s);
      if (c.slot != s || !is_live(ix, s)) continue;
      double d = term_score(w, c.p[c.at].tf, ix->docs[s].len);
      out[ord[j]] += d;
      if (words && q->w[i] == 1.0) words[ord[j]] += d; /* as score_of's words */
    }
  }
  free(ord);
}

size_t eg_bm25_search(const eg_bm25 *ix, const eg_bm25_query *q, size_t k, eg_bm25_keep keep,
                      void *ctx, uint32_t *slots, double *scores) {
  if (!k || !ix->live || !q->n) return 0;
  /* Cursors ordered by bound, ascending; bound[j] sums the bounds of cursors 0..j. The
   * first `ne` are non-essential: together they cannot lift a document above the k-th
   * score (theta), so only the others propose documents; the bounds are a hair loose so
   * that rounding never prunes a document that belongs in the top k. */
  size_t n = q->n;
  cursor cur[EG_BM25_MAX_TERMS];
  double bound[EG_BM25_MAX_TERMS], part[EG_BM25_MAX_TERMS];
  for (size_t i = 0; i < n; i++) {
    const term_entry *t = q->t[i];
    term_w w = term_weights(ix, q->avgdl, q->idf[i]);
    double ub = t->n ? term_score(w, t->max_tf, t->min_len) * (1 + 1e-9) : 0;
    cur[i] = (cursor){t->p, t->n, 0, t->n ? t->p[0].slot : UINT32_MAX, (uint32_t)i, w, ub};
  }
  qsort(cur, n, sizeof *cur, by_ub);
  for (size_t j = 0; j < n; j++) bound[j] = cur[j].ub + (j ? bound[j - 1] : 0);
  scored *heap = malloc(k * sizeof *heap);
  if (!heap) return 0;
  size_t hn = 0, ne = 0;
  double theta = 0;
  for (;;) {
    /* The next document: the smallest slot under an essential cursor. */
    uint32_t s = UINT32_MAX;
    for (size_t j = ne; j < n; j++)
      if (cur[j].slot < s) s = cur[j].slot;
    if (s == UINT32_MAX) break;
    if (!is_live(ix, s)) {
      for (size_t j = ne; j < n; j++)
        if (cur[j].slot == s) step(&cur[j]);
      continue;
    }
    /* Its terms among the essential ones, then the others, most promising first, while
     * it can still beat theta (a tie loses: every document in the heap has a smaller
     * slot). which[] lists the query indexes of its terms. */
    uint32_t which[EG_BM25_MAX_TERMS], m = 0;
    double sum = 0;
    for (size_t j = ne; j < n; j++) {
      if (cur[j].slot != s) continue;
      const posting *p = &cur[j].p[cur[j].at];
      sum += part[cur[j].qi] = term_score(cur[j].w, p->tf, posting_len(ix, p));
      which[m++] = cur[j].qi;
      step(&cur[j]);
    }
    bool out = false;
    for (size_t j = ne; j-- > 0;) {
      if (hn == k && sum + bound[j] <= theta) {
        out = true;
        break;
      }
      seek(&cur[j], s);
      if (cur[j].slot != s) continue;
      const posting *p = &cur[j].p[cur[j].at];
      sum += part[cur[j].qi] = term_score(cur[j].w, p->tf, posting_len(ix, p));
      which[m++] = cur[j].qi;
    }
    if (out || (hn == k && sum * (1 + 1e-9) <= theta)) continue;
    /* The score summed in query order, as eg_bm25_score does. */
    for (uint32_t a = 1; a < m; a++)
      for (uint32_t b = a; b > 0 && which[b - 1] > which[b]; b--) {
        uint32_t x = which[b];
        which[b] = which[b - 1];
        which[b - 1] = x;
      }
    double score = 0;
    for (uint32_t a = 0; a < m; a++) score += part[which[a]];
    if (score <= 0 || (hn == k && score <= theta)) continue;
    if (keep && !keep(ctx, s)) continue;
    scored c = {s, score};
    if (hn < k) {
      heap[hn] = c;
      sift_up(heap, hn++);
    } else {
      heap[0] = c;
      sift_down(heap, hn, 0);
    }
    if (hn == k) {
      theta = heap[0].score;
      while (ne < n && bound[ne] <= theta) ne++;
    }
  }
  /* Pop weakest first into the tail: best ends up first. */
  size_t nout = hn;
  for (size_t i = hn; i-- > 0;) {
    slots[i] = heap[0].slot;
    scores[i] = heap[0].score;
    heap[0] = heap[--hn];
    sift_down(heap, hn, 0);
  }
  free(heap);
  return nout;
}
