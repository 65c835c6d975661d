/*
 * bm25.c — term dictionary (hash map) → postings arrays sorted by slot, plus per-slot
 * document lengths and forward term lists (for removal and single-document scoring).
 */
#include "services/vectord/bm25.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/map.h"

typedef struct posting {
  uint32_t slot;
  uint32_t tf;
} posting;

typedef struct eg_bm25_tentry {
  posting *p;
  uint32_t n, cap;
  uint32_t df;   /* live documents containing the term */
  uint32_t dead; /* postings of removed documents not yet compacted */
} term_entry;

typedef struct doc {
  uint32_t len;        /* 0 with n_terms 0 = absent */
  uint32_t n_terms;
  term_entry **terms;  /* forward list */
  uint8_t live;
} doc;

struct eg_bm25 {
  double k1, b;
  eg_map *dict; /* term → term_entry* */
  doc *docs;
  size_t n_docs_cap;
  size_t live;
  double total_len;
};

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
  free(ix);
}

size_t eg_bm25_docs(const eg_bm25 *ix) { return ix->live; }
size_t eg_bm25_terms(const eg_bm25 *ix) { return eg_map_count(ix->dict); }

eg_code eg_bm25_add(eg_bm25 *ix, uint32_t slot, const eg_bm25_term *terms, size_t n, uint32_t doclen) {
  if (slot >= ix->n_docs_cap) {
    size_t nc = ix->n_docs_cap ? ix->n_docs_cap : 1024;
    while (nc <= slot) nc *= 2;
    doc *nd = realloc(ix->docs, nc * sizeof *nd);
    if (!nd) return EG_ENOMEM;
    memset(nd + ix->n_docs_cap, 0, (nc - ix->n_docs_cap) * sizeof *nd);
    ix->docs = nd;
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
     * re-added smaller slot is inserted in place. */
    uint32_t at = t->n;
    while (at > 0 && t->p[at - 1].slot > slot) at--;
    memmove(&t->p[at + 1], &t->p[at], (t->n - at) * sizeof *t->p);
    t->p[at] = (posting){slot, terms[i].tf};
    t->n++;
    t->df++;
    d->terms[d->n_terms++] = t;
  }
  d->len = doclen;
  d->live = 1;
  ix->live++;
  ix->total_len += doclen;
  return EG_OK;
}

/* Drop postings of dead documents once they are a quarter of the list. */
static void compact(eg_bm25 *ix, term_entry *t) {
  uint32_t o = 0;
  for (uint32_t i = 0; i < t->n; i++)
    if (t->p[i].slot < ix->n_docs_cap && ix->docs[t->p[i].slot].live) t->p[o++] = t->p[i];
  t->n = o;
  t->dead = 0;
}

void eg_bm25_remove(eg_bm25 *ix, uint32_t slot) {
  if (slot >= ix->n_docs_cap || !ix->docs[slot].live) return;
  doc *d = &ix->docs[slot];
  d->live = 0;
  ix->live--;
  ix->total_len -= d->len;
  for (uint32_t i = 0; i < d->n_terms; i++) {
    term_entry *t = d->terms[i];
    t->df--;
    if (++t->dead * 4 > t->n) compact(ix, t);
  }
  free(d->terms);
  d->terms = NULL;
  d->n_terms = 0;
}

static double idf(double N, double df) { return log(1.0 + (N - df + 0.5) / (df + 0.5)); }

static double term_score(const eg_bm25 *ix, double avgdl, double idf_t, uint32_t tf, uint32_t len) {
  double norm = ix->k1 * (1.0 - ix->b + ix->b * (double)len / avgdl);
  return idf_t * (double)tf * (ix->k1 + 1.0) / ((double)tf + norm);
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
    q->idf[q->n++] = idf((double)ix->live, t->df);
  }
}

void eg_bm25_subset_init(const eg_bm25 *ix, const uint32_t *slots, size_t n, eg_bm25_keep in, void *ctx,
                         eg_bm25_subset *s) {
  *s = (eg_bm25_subset){slots, n, in, ctx, 0, 0};
  for (size_t i = 0; i < n; i++) {
    const doc *d = slots[i] < ix->n_docs_cap ? &ix->docs[slots[i]] : NULL;
    if (!d || !d->live) continue;
    s->len += d->len;
    s->terms += d->n_terms;
  }
}

void eg_bm25_prepare_within(const eg_bm25 *ix, const char *const *terms, size_t n, const eg_bm25_subset *s,
                            double prior, eg_bm25_query *q) {
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
        if (ix->docs[slot].live && s->in(s->ctx, slot)) df[i]++;
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
  for (size_t i = 0; i < q->n; i++) q->idf[i] = idf(m, (double)df[i] + prior * q->t[i]->df / N);
}

double eg_bm25_score(const eg_bm25 *ix, const eg_bm25_query *q, uint32_t slot) {
  if (slot >= ix->n_docs_cap || !ix->docs[slot].live) return 0;
  double s = 0;
  for (size_t i = 0; i < q->n; i++) {
    const term_entry *t = q->t[i];
    size_t lo = 0, hi = t->n; /* postings are sorted by slot */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (t->p[mid].slot < slot) lo = mid + 1;
      else hi = mid;
    }
    if (lo < t->n && t->p[lo].slot == slot) s += term_score(ix, q->avgdl, q->idf[i], t->p[lo].tf, ix->docs[slot].len);
  }
  return s;
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

size_t eg_bm25_search(const eg_bm25 *ix, const eg_bm25_query *q, size_t k, eg_bm25_keep keep, void *ctx,
                      uint32_t *slots, double *scores) {
  if (!k || !ix->live || !q->n) return 0;
  /* Term-at-a-time into a dense accumulator; touched slots are remembered so that only
   * they are visited (and the top k kept in a heap) instead of sorting every match. */
  double *acc = calloc(ix->n_docs_cap, sizeof *acc);
  uint32_t *touched = NULL;
  size_t nt = 0, cap = 0;
  if (!acc) return 0;
  for (size_t i = 0; i < q->n; i++) {
    const term_entry *t = q->t[i];
    for (uint32_t j = 0; j < t->n; j++) {
      uint32_t s = t->p[j].slot;
      if (!ix->docs[s].live) continue;
      if (acc[s] == 0) {
        if (nt == cap) {
          size_t nc = cap ? cap * 2 : 1024;
          uint32_t *nn = realloc(touched, nc * sizeof *nn);
          if (!nn) continue;
          touched = nn;
          cap = nc;
        }
        touched[nt++] = s;
      }
      acc[s] += term_score(ix, q->avgdl, q->idf[i], t->p[j].tf, ix->docs[s].len);
    }
  }
  scored *heap = malloc(k * sizeof *heap);
  size_t hn = 0;
  for (size_t i = 0; heap && i < nt; i++) {
    uint32_t s = touched[i];
    scored c = {s, acc[s]};
    if (c.score <= 0 || (hn == k && below(&c, &heap[0]))) continue;
    if (keep && !keep(ctx, s)) continue;
    if (hn < k) {
      heap[hn] = c;
      sift_up(heap, hn++);
    } else {
      heap[0] = c;
      sift_down(heap, hn, 0);
    }
  }
  free(acc);
  free(touched);
  if (!heap) return 0;
  /* Pop weakest first into the tail: best ends up first. */
  size_t out = hn;
  for (size_t i = hn; i-- > 0;) {
    slots[i] = heap[0].slot;
    scores[i] = heap[0].score;
    heap[0] = heap[--hn];
    sift_down(heap, hn, 0);
  }
  free(heap);
  return out;
}
