/*
 * receipt.c — the idempotency receipt of an ingest, kept statelessly on its own chunks:
 * every chunk ingestd writes carries an IngestReceipt (vector.proto) with the number of
 * chunks of its version; chunk 0 adds the length of a longer previous version until its
 * tail is gone, the last chunk the content hash. Graph facts are committed before the
 * chunks are upserted and the last chunk goes last, so a published last chunk whose hash
 * matches means the whole ingest is done, and a retry after a crash anywhere before that
 * finds no match and writes again (the same chunk ids, so it overwrites).
 *
 * The receipt is a field of its own: client metadata (copied onto a document's chunks)
 * can hold any key, "content_hash" or "segments" included, without touching it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vector_client.h"
#include "services/ingestd/ingest_int.h"

/* The hex form of a content hash, as stored. */
static void hash_hex(uint64_t h, char *buf, size_t len) {
  snprintf(buf, len, "%016llx", (unsigned long long)h);
}

/* What a chunk says of its ingest: its content hash ("" when none) and the largest chunk
 * count it records (0 when none). */
typedef struct receipt_view {
  const char *content_hash;
  size_t segments;
} receipt_view;

/*
 * Backward compatibility: stores written before the receipt was a field carry it as
 * metadata strings — "segments" and, when a longer version preceded, "previous_segments"
 * on chunk 0, "content_hash" on the last chunk — appended after the client's metadata, so
 * the last entry of a key is ingestd's. A chunk without the field is read that way; the
 * next ingest of its source rewrites it with the field.
 */
static receipt_view legacy_view(const Engram__V1__Chunk *c) {
  receipt_view v = {"", 0};
  size_t segments = 0, previous = 0;
  for (size_t m = 0; m < c->n_metadata; m++) {
    const Engram__V1__KeyValue *kv = c->metadata[m];
    if (!strcmp(kv->key, "content_hash")) v.content_hash = kv->value;
    if (!strcmp(kv->key, "segments")) segments = (size_t)strtoull(kv->value, NULL, 10);
    if (!strcmp(kv->key, "previous_segments")) previous = (size_t)strtoull(kv->value, NULL, 10);
  }
  v.segments = segments > previous ? segments : previous;
  return v;
}

static receipt_view view_of(const Engram__V1__Chunk *c) {
  const Engram__V1__IngestReceipt *r = c->receipt;
  if (!r) return legacy_view(c);
  receipt_view v = {r->content_hash ? r->content_hash : "", r->segments};
  if (r->previous_segments > v.segments) v.segments = r->previous_segments;
  return v;
}

eg_code eg_ig_receipt_check(eg_ingest *g, const writer_in *in, uint64_t last_id, bool *dup,
                            size_t *old_n, eg_err *err) {
  *dup = false;
  *old_n = 0;
  Engram__V1__GetChunksRequest req = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  req.scope = (Engram__V1__Scope *)in->scope;
  /* The hash sits on the last chunk: look at the last chunk of this version and, for a
   * previous version of another length, at the counts recorded on chunk 0. */
  uint64_t ids[2] = {last_id, eg_ig_chunk_id(in->scope, in->kind, in->source_id, 0)};
  req.ids = ids;
  req.n_ids = 2;
  req.include_staged = true; /* an interrupted attempt's chunks count as a previous version */
  Engram__V1__GetChunksResponse *r = NULL;
  eg_code rc = eg_vectord_get_chunks(eg_ig_vectord(g, in->scope), &req, &r, err);
  if (rc) return rc;
  char want[24];
  hash_hex(in->content_hash, want, sizeof want);
  for (size_t i = 0; i < r->n_chunks; i++) {
    const Engram__V1__Chunk *c = r->chunks[i];
    receipt_view v = view_of(c);
    if (c->id == last_id && !c->staged && !strcmp(v.content_hash, want)) *dup = true;
    if (v.segments > *old_n) *old_n = v.segments;
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return EG_OK;
}

eg_code eg_ig_receipt_stamp(Engram__V1__Chunk *c, const writer_in *in, size_t i, size_t old_n,
                            eg_arena *a, eg_err *err) {
  Engram__V1__IngestReceipt *r = eg_arena_calloc(a, 1, sizeof *r);
  char *hash = i == in->n - 1 ? eg_arena_alloc(a, 24) : "";
  if (!r || !hash) return eg_err_set(err, EG_ENOMEM, "out of memory");
  engram__v1__ingest_receipt__init(r);
  r->segments = (uint32_t)in->n;
  /* so an attempt interrupted before the tail is deleted still finds the tail (after
   * that, deleting the absent ids again is a no-op) */
  if (i == 0 && old_n > in->n) r->previous_segments = (uint32_t)old_n;
  if (i == in->n - 1) hash_hex(in->content_hash, hash, 24);
  r->content_hash = hash;
  c->receipt = r;
  return EG_OK;
}
