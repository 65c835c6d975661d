/*
 * replica_keys.c — sealing a user's records with their key, opening them, shredding the
 * keys an erasure erased (see replica_keys.h). libsodium: XChaCha20-Poly1305 (IETF).
 */
#include "common/replica_keys.h"

#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/buf.h"
#include "common/keybuf.h"
#include "common/log.h"
#include "common/map.h"
#include "common/rpc.h"

#define NONCE_LEN crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define TAG_LEN crypto_aead_xchacha20poly1305_ietf_ABYTES

_Static_assert(crypto_aead_xchacha20poly1305_ietf_KEYBYTES == EG_REPLOG_KEY_LEN, "key length");

/* A cached key; owner is "<tenant>\0<user>". */
typedef struct ukey {
  uint64_t kid;
  uint8_t key[EG_REPLOG_KEY_LEN];
  char *owner;
  size_t owner_len;
  struct ukey *next;
} ukey;

struct eg_keyring {
  const ProtobufCMessageDescriptor *rec_desc;
  pthread_mutex_t mu; /* guards what follows */
  eg_map *by_kid;     /* 8-byte kid → ukey */
  eg_map *live;       /* owner → ukey: the live key of (tenant, user) */
  ukey *all;
};

/* ---- the envelope ----------------------------------------------------------------------- */

void *eg_record_field(const ProtobufCMessage *m, const char *name) {
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(m->descriptor, name);
  return f ? (char *)m + f->offset : NULL;
}

typedef struct envelope {
  ProtobufCMessage *msg;
  uint32_t *format;
  char **tenant, **user, **erases;
  uint64_t *key_id;
  protobuf_c_boolean *erases_tenant;
  ProtobufCBinaryData *body, *nonce;
} envelope;

static bool envelope_unpack(const eg_keyring *k, eg_arena *a, const void *data, size_t len,
                            envelope *e) {
  ProtobufCAllocator al = eg_rpc_arena_allocator(a);
  if (!(e->msg = protobuf_c_message_unpack(k->rec_desc, &al, len, data))) return false;
  e->format = eg_record_field(e->msg, "format");
  e->tenant = eg_record_field(e->msg, "tenant");
  e->user = eg_record_field(e->msg, "user");
  e->erases = eg_record_field(e->msg, "erases");
  e->erases_tenant = eg_record_field(e->msg, "erases_tenant");
  e->key_id = eg_record_field(e->msg, "key_id");
  e->body = eg_record_field(e->msg, "body");
  e->nonce = eg_record_field(e->msg, "nonce");
  return e->format && e->tenant && e->user && e->erases && e->erases_tenant && e->key_id &&
         e->body && e->nonce && *e->tenant && *e->user && *e->erases;
}

static eg_code envelope_pack(eg_arena *a, const envelope *e, eg_replog_payload *out, eg_err *err) {
  size_t len = protobuf_c_message_get_packed_size(e->msg);
  uint8_t *p = eg_arena_alloc(a, len ? len : 1);
  if (!p) return eg_err_set(err, EG_ENOMEM, "out of memory");
  out->data = p;
  out->len = protobuf_c_message_pack(e->msg, p);
  return EG_OK;
}

/* What the seal is bound to: the shard, the position, the tenant, the user, the key. */
static eg_code associated(eg_buf *ad, const char *shard, uint64_t seq, const envelope *e,
                          uint64_t kid) {
  uint8_t n[8];
  eg_buf_reset(ad);
  eg_code rc = eg_buf_append(ad, shard, strlen(shard) + 1);
  key_put64(n, seq);
  if (!rc) rc = eg_buf_append(ad, n, 8);
  if (!rc) rc = eg_buf_append(ad, *e->tenant, strlen(*e->tenant) + 1);
  if (!rc) rc = eg_buf_append(ad, *e->user, strlen(*e->user) + 1);
  key_put64(n, kid);
  if (!rc) rc = eg_buf_append(ad, n, 8);
  return rc;
}

/* ---- the cache ---------------------------------------------------------------------------- */

static char *owner_of(eg_arena *a, const char *tenant, const char *user, size_t *len) {
  size_t tl = strlen(tenant), ul = strlen(user);
  char *o = eg_arena_alloc(a, tl + ul + 2);
  if (!o) return NULL;
  memcpy(o, tenant, tl + 1);
  memcpy(o + tl + 1, user, ul + 1);
  *len = tl + 1 + ul;
  return o;
}

/* Cache a live key. Caller holds mu. */
static void cache_put(eg_keyring *k, uint64_t kid, const uint8_t *key, const char *owner,
                      size_t olen) {
  if (eg_map_get(k->by_kid, &kid, 8)) return;
  ukey *u = calloc(1, sizeof *u);
  if (!u || !(u->owner = malloc(olen))) {
    free(u);
    return; /* not cached: read again next time */
  }
  u->kid = kid;
  memcpy(u->key, key, EG_REPLOG_KEY_LEN);
  memcpy(u->owner, owner, olen);
  u->owner_len = olen;
  if (eg_map_put(k->by_kid, &kid, 8, u) || eg_map_put(k->live, owner, olen, u)) {
    eg_map_del(k->by_kid, &kid, 8);
    free(u->owner);
    sodium_memzero(u, sizeof *u);
    free(u);
    return;
  }
  u->next = k->all;
  k->all = u;
}

/* Forget the keys of (tenant, user), or of every user of the tenant (user NULL). */
static void cache_drop(eg_keyring *k, const char *tenant, const char *user) {
  size_t tl = strlen(tenant) + 1, ul = user ? strlen(user) : 0;
  pthread_mutex_lock(&k->mu);
  for (ukey **pp = &k->all; *pp;) {
    ukey *u = *pp;
    bool match = u->owner_len >= tl && memcmp(u->owner, tenant, tl) == 0 &&
                 (!user || (u->owner_len == tl + ul && memcmp(u->owner + tl, user, ul) == 0));
    if (!match) {
      pp = &u->next;
      continue;
    }
    *pp = u->next;
    eg_map_del(k->by_kid, &u->kid, 8);
    if (eg_map_get(k->live, u->owner, u->owner_len) == u)
      eg_map_del(k->live, u->owner, u->owner_len);
    free(u->owner);
    sodium_memzero(u, sizeof *u);
    free(u);
  }
  pthread_mutex_unlock(&k->mu);
}

eg_code eg_keyring_new(const ProtobufCMessageDescriptor *rec_desc, eg_keyring **out, eg_err *err) {
  if (sodium_init() < 0) return eg_err_set(err, EG_EINTERNAL, "libsodium cannot start");
  eg_keyring *k = calloc(1, sizeof *k);
  if (!k || !(k->by_kid = eg_map_new()) || !(k->live = eg_map_new())) {
    if (k) eg_map_free(k->by_kid);
    free(k);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  k->rec_desc = rec_desc;
  pthread_mutex_init(&k->mu, NULL);
  *out = k;
  return EG_OK;
}

void eg_keyring_free(eg_keyring *k) {
  if (!k) return;
  for (ukey *u = k->all, *next; u; u = next) {
    next = u->next;
    free(u->owner);
    sodium_memzero(u, sizeof *u);
    free(u);
  }
  eg_map_free(k->by_kid);
  eg_map_free(k->live);
  pthread_mutex_destroy(&k->mu);
  free(k);
}

/* ---- the writer ----------------------------------------------------------------------------- */

/* An erasure of the group, not shredded yet. */
typedef struct eg_keyring_erasure {
  const char *tenant, *user; /* user NULL: the whole tenant */
  uint64_t seq;
} erased;

static bool erased_in(const erased *pend, size_t n, const char *tenant, const char *user) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(pend[i].tenant, tenant) && (!pend[i].user || !strcmp(pend[i].user, user)))
      return true;
  return false;
}

/* Shred what the erasures erased (in the log: the record is there) and forget it here. */
static eg_code shred(eg_keyring *k, eg_replog *log, const erased *e, eg_err *err) {
  uint64_t n = 0;
  eg_code rc = eg_replog_key_shred(log, e->tenant, e->user, e->seq, &n, err);
  cache_drop(k, e->tenant, e->user);
  if (!rc && n)
    EG_INFO("replog", "keys shredded", "shard=%s position=%llu keys=%llu kind=%s",
            eg_replog_shard(log), (unsigned long long)e->seq, (unsigned long long)n,
            e->user ? "user" : "tenant");
  return rc;
}

/* The live key of (tenant, user): cached, else from the key table (made when missing). */
static eg_code live_key(eg_keyring *k, eg_replog *log, eg_arena *a, const char *tenant,
                        const char *user, uint64_t *kid, uint8_t key[EG_REPLOG_KEY_LEN],
                        eg_err *err) {
  size_t olen;
  char *owner = owner_of(a, tenant, user, &olen);
  if (!owner) return eg_err_set(err, EG_ENOMEM, "out of memory");
  pthread_mutex_lock(&k->mu);
  ukey *u = eg_map_get(k->live, owner, olen);
  if (u) {
    *kid = u->kid;
    memcpy(key, u->key, EG_REPLOG_KEY_LEN);
  }
  pthread_mutex_unlock(&k->mu);
  if (u) return EG_OK;
  eg_code rc = eg_replog_key_live(log, tenant, user, kid, key, err);
  if (rc) return rc;
  pthread_mutex_lock(&k->mu);
  cache_put(k, *kid, key, owner, olen);
  pthread_mutex_unlock(&k->mu);
  return EG_OK;
}

static eg_code seal(eg_keyring *k, eg_replog *log, eg_arena *a, eg_buf *ad, uint64_t seq,
                    envelope *e, eg_replog_payload *out, eg_err *err) {
  uint64_t kid;
  uint8_t key[EG_REPLOG_KEY_LEN];
  eg_code rc = live_key(k, log, a, *e->tenant, *e->user, &kid, key, err);
  if (rc) return rc;
  uint8_t *nonce = eg_arena_alloc(a, NONCE_LEN);
  uint8_t *ct = eg_arena_alloc(a, e->body->len + TAG_LEN);
  if (!nonce || !ct || associated(ad, eg_replog_shard(log), seq, e, kid)) {
    sodium_memzero(key, sizeof key);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  randombytes_buf(nonce, NONCE_LEN);
  unsigned long long ctlen = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(ct, &ctlen, e->body->data, e->body->len,
                                             (const uint8_t *)ad->data, ad->len, NULL, nonce, key);
  sodium_memzero(key, sizeof key);
  *e->format = EG_RECORD_SEALED;
  *e->key_id = kid;
  *e->nonce = (ProtobufCBinaryData){NONCE_LEN, nonce};
  *e->body = (ProtobufCBinaryData){(size_t)ctlen, ct};
  return envelope_pack(a, e, out, err);
}

eg_code eg_keyring_append(eg_keyring *k, eg_replog *log, uint64_t first, const eg_kv_record *recs,
                          size_t n, eg_err *err) {
  eg_arena *a = eg_arena_new(1 << 16, (size_t)1 << 32);
  eg_replog_payload *p = calloc(n ? n : 1, sizeof *p);
  erased *pend = calloc(n ? n : 1, sizeof *pend);
  eg_buf ad = EG_BUF_INIT;
  eg_code rc = a && p && pend ? EG_OK : eg_err_set(err, EG_ENOMEM, "out of memory");
  size_t from = 0, n_pend = 0;
  for (size_t i = 0; i <= n && !rc; i++) {
    envelope e = {0};
    if (i < n && !envelope_unpack(k, a, recs[i].data, recs[i].len, &e)) {
      rc = eg_err_set(err, EG_EINTERNAL, "a write's record is not a %s", k->rec_desc->name);
      break;
    }
    /* the group's end, or a record of a user an earlier record of the group erased: what
     * came before goes to the log, and the erasures are shredded, first */
    if (i == n || (n_pend && **e.user && erased_in(pend, n_pend, *e.tenant, *e.user))) {
      if (i > from) rc = eg_replog_append(log, first + from, p + from, i - from, err);
      for (size_t j = 0; j < n_pend && !rc; j++) rc = shred(k, log, &pend[j], err);
      from = i;
      n_pend = 0;
      if (rc || i == n) break;
    }
    if (**e.user && *e.format == EG_RECORD_CLEAR)
      rc = seal(k, log, a, &ad, first + i, &e, &p[i], err);
    else
      p[i] = (eg_replog_payload){recs[i].data, recs[i].len};
    if (**e.erases || *e.erases_tenant)
      pend[n_pend++] = (erased){*e.tenant, *e.erases_tenant ? NULL : *e.erases, first + i};
  }
  eg_buf_free(&ad);
  free(pend);
  free(p);
  eg_arena_free(a);
  return rc;
}

/* ---- reading --------------------------------------------------------------------------------- */

/* The key kid of (tenant, user): cached, else from the key table. *shredded when it was. */
static eg_code key_by_id(eg_keyring *k, eg_replog *log, eg_arena *a, uint64_t kid,
                         const char *tenant, const char *user, uint8_t key[EG_REPLOG_KEY_LEN],
                         bool *shredded, eg_err *err) {
  size_t olen;
  char *owner = owner_of(a, tenant, user, &olen);
  if (!owner) return eg_err_set(err, EG_ENOMEM, "out of memory");
  *shredded = false;
  pthread_mutex_lock(&k->mu);
  ukey *u = eg_map_get(k->by_kid, &kid, 8);
  bool mine = u && u->owner_len == olen && memcmp(u->owner, owner, olen) == 0;
  if (mine) memcpy(key, u->key, EG_REPLOG_KEY_LEN);
  pthread_mutex_unlock(&k->mu);
  if (u && !mine)
    return eg_err_set(err, EG_ECORRUPT, "key %llu belongs to another tenant or user",
                      (unsigned long long)kid);
  if (mine) return EG_OK;
  eg_code rc = eg_replog_key_by_id(log, kid, tenant, user, key, shredded, err);
  if (rc || *shredded) return rc;
  pthread_mutex_lock(&k->mu);
  cache_put(k, kid, key, owner, olen);
  pthread_mutex_unlock(&k->mu);
  return EG_OK;
}

/* A sealed record, opened in place (format 1), or marked shredded. */
static eg_code unseal(eg_keyring *k, eg_replog *log, eg_arena *a, eg_buf *ad, uint64_t seq,
                      envelope *e, eg_err *err) {
  uint8_t key[EG_REPLOG_KEY_LEN];
  bool shredded;
  eg_code rc = key_by_id(k, log, a, *e->key_id, *e->tenant, *e->user, key, &shredded, err);
  if (rc) return rc;
  uint64_t kid = *e->key_id;
  ProtobufCBinaryData nonce = *e->nonce;
  *e->key_id = 0;
  *e->nonce = (ProtobufCBinaryData){0, NULL};
  if (shredded) {
    *e->format = EG_RECORD_SHREDDED;
    *e->body = (ProtobufCBinaryData){0, NULL};
    return EG_OK;
  }
  uint8_t *pt = eg_arena_alloc(a, e->body->len ? e->body->len : 1);
  if (!pt || associated(ad, eg_replog_shard(log), seq, e, kid)) {
    sodium_memzero(key, sizeof key);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  unsigned long long ptlen = 0;
  const ProtobufCBinaryData *ct = e->body;
  int bad = ct->len < TAG_LEN || nonce.len != NONCE_LEN ||
            crypto_aead_xchacha20poly1305_ietf_decrypt(pt, &ptlen, NULL, ct->data, ct->len,
                                                       (const uint8_t *)ad->data, ad->len,
                                                       nonce.data, key) != 0;
  sodium_memzero(key, sizeof key);
  if (bad)
    return eg_err_set(err, EG_ECORRUPT,
                      "it does not open with its key %llu: the record was altered, or moved, or "
                      "the key is not the one it was sealed with",
                      (unsigned long long)kid);
  *e->format = EG_RECORD_CLEAR;
  *e->body = (ProtobufCBinaryData){(size_t)ptlen, pt};
  return EG_OK;
}

eg_code eg_keyring_open(eg_keyring *k, eg_replog *log, const eg_replog_batch *b,
                        eg_keyring_opened *out, eg_err *err) {
  memset(out, 0, sizeof *out);
  eg_arena *a = eg_arena_new(1 << 16, (size_t)1 << 34);
  eg_replog_record *recs = a ? eg_arena_calloc(a, b->n ? b->n : 1, sizeof *recs) : NULL;
  erased *er = a ? eg_arena_calloc(a, b->n ? b->n : 1, sizeof *er) : NULL;
  size_t n_er = 0;
  if (!recs || !er) {
    eg_arena_free(a);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  eg_buf ad = EG_BUF_INIT;
  eg_code rc = EG_OK;
  for (size_t i = 0; i < b->n && !rc; i++) {
    const eg_replog_record *r = &b->records[i];
    recs[i] = *r;
    envelope e = {0};
    /* what is no record at all, eg_record_open says so */
    if (!envelope_unpack(k, a, r->payload, r->len, &e)) continue;
    if ((**e.erases || *e.erases_tenant) && n_er < b->n)
      er[n_er++] = (erased){*e.tenant, *e.erases_tenant ? NULL : *e.erases, r->seq};
    if (*e.format == EG_RECORD_CLEAR) continue;
    if (*e.format != EG_RECORD_SEALED || !**e.user) {
      rc = eg_err_set(err, EG_ECORRUPT, "record format %u%s, this replica reads 1 and 2", *e.format,
                      **e.user ? "" : " without a user");
    } else {
      rc = unseal(k, log, a, &ad, r->seq, &e, err);
      eg_replog_payload p;
      if (!rc && !(rc = envelope_pack(a, &e, &p, err))) {
        recs[i].payload = p.data;
        recs[i].len = p.len;
      }
    }
    if (rc && rc != EG_EUNAVAIL && rc != EG_EIO) {
      char pre[96];
      snprintf(pre, sizeof pre, "log position %llu of shard %s: ", (unsigned long long)r->seq,
               eg_replog_shard(log));
      eg_err_prefix(err, pre);
    }
  }
  eg_buf_free(&ad);
  if (rc) {
    eg_arena_free(a);
    return rc;
  }
  *out = (eg_keyring_opened){recs, b->n, a, er, n_er};
  return EG_OK;
}

void eg_keyring_opened_free(eg_keyring_opened *o) {
  if (!o) return;
  eg_arena_free(o->mem);
  memset(o, 0, sizeof *o);
}

void eg_keyring_applied(eg_keyring *k, eg_replog *log, const eg_keyring_opened *o) {
  const erased *er = o->erasures;
  for (size_t i = 0; i < o->n_erasures; i++) {
    eg_err err;
    if (shred(k, log, &er[i], &err))
      EG_WARN("replog",
              "cannot shred the keys an erasure erased (the next replica to apply it will)",
              "shard=%s position=%llu error=\"%s\"", eg_replog_shard(log),
              (unsigned long long)er[i].seq, err.msg);
  }
}
