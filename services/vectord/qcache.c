/*
 * qcache.c — see qcache.h.
 */
#include "services/vectord/qcache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/map.h"

#define MAX_TEXT 1024

typedef struct entry {
  char *text; /* owned; NULL = empty */
  float *v;   /* dim floats, inside the cache's block */
} entry;

struct eg_qcache {
  pthread_mutex_t mu;
  size_t slots;
  int dim;
  entry *e;
  float *block;
};

eg_qcache *eg_qcache_new(size_t slots, int dim) {
  if (!slots || dim <= 0) return NULL;
  eg_qcache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->e = calloc(slots, sizeof *c->e);
  c->block = malloc(slots * (size_t)dim * sizeof(float));
  if (!c->e || !c->block) {
    free(c->e);
    free(c->block);
    free(c);
    return NULL;
  }
  for (size_t i = 0; i < slots; i++) c->e[i].v = c->block + i * (size_t)dim;
  c->slots = slots;
  c->dim = dim;
  pthread_mutex_init(&c->mu, NULL);
  return c;
}

void eg_qcache_free(eg_qcache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->slots; i++) free(c->e[i].text);
  free(c->e);
  free(c->block);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

size_t eg_qcache_clear(eg_qcache *c) {
  if (!c) return 0;
  size_t n = 0;
  pthread_mutex_lock(&c->mu);
  for (size_t i = 0; i < c->slots; i++) {
    n += c->e[i].text != NULL;
    free(c->e[i].text);
    c->e[i].text = NULL;
  }
  pthread_mutex_unlock(&c->mu);
  return n;
}

static entry *slot_of(eg_qcache *c, const char *text, size_t n) {
  return &c->e[eg_hash64(text, n, 0x71ca) % c->slots];
}

bool eg_qcache_get(eg_qcache *c, const char *text, float *out) {
  if (!c || !text) return false;
  size_t n = strlen(text);
  if (n > MAX_TEXT) return false;
  pthread_mutex_lock(&c->mu);
  entry *e = slot_of(c, text, n);
  bool hit = e->text && strcmp(e->text, text) == 0;
  if (hit) memcpy(out, e->v, (size_t)c->dim * sizeof *out);
  pthread_mutex_unlock(&c->mu);
  return hit;
}

void eg_qcache_put(eg_qcache *c, const char *text, const float *v) {
  if (!c || !text) return;
  size_t n = strlen(text);
  if (n > MAX_TEXT) return;
  char *copy = strdup(text);
  if (!copy) return;
  pthread_mutex_lock(&c->mu);
  entry *e = slot_of(c, text, n);
  char *old = e->text;
  e->text = copy;
  memcpy(e->v, v, (size_t)c->dim * sizeof *v);
  pthread_mutex_unlock(&c->mu);
  free(old);
}
