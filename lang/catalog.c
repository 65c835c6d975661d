/*
 * catalog.c — GNU gettext .mo catalogues: a header of 32-bit words (magic 0x950412de in the
 * writer's byte order, revision, N, the offsets of the originals' and the translations'
 * tables), each table N (length, offset) pairs of NUL-terminated strings. The file's bounds
 * are checked before anything is visited, so a truncated or forged file visits nothing.
 */
#include "lang/catalog.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MO_MAGIC 0x950412deu
#define MO_HEADER 20 /* magic, revision, N, originals' offset, translations' offset */

static uint32_t word_at(const unsigned char *p, bool swap) {
  uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  return swap ? (v >> 24) | (v >> 8 & 0xff00u) | (v << 8 & 0xff0000u) | v << 24 : v;
}

/* Is the table of n pairs at off, and every string it points at (length, then a NUL), within
 * len bytes? */
static bool table_fits(const unsigned char *buf, size_t len, uint32_t off, uint32_t n, bool swap) {
  if (off > len || (len - off) / 8 < n) return false;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t l = word_at(buf + off + 8 * (size_t)i, swap),
             at = word_at(buf + off + 8 * (size_t)i + 4, swap);
    if (at > len || len - at <= l || buf[(size_t)at + l] != '\0') return false;
  }
  return true;
}

eg_code eg_catalog_parse(const unsigned char *buf, size_t len, eg_catalog_visit visit, void *ctx,
                         eg_err *err) {
  if (len < MO_HEADER) return eg_err_set(err, EG_EINVAL, "not a message catalogue: too short");
  uint32_t magic = word_at(buf, false);
  bool swap = magic != MO_MAGIC;
  if (swap && word_at(buf, true) != MO_MAGIC)
    return eg_err_set(err, EG_EINVAL, "not a message catalogue: bad magic number");
  if (word_at(buf + 4, swap) >> 16 != 0)
    return eg_err_set(err, EG_EINVAL, "message catalogue of an unknown major revision");
  uint32_t n = word_at(buf + 8, swap), orig = word_at(buf + 12, swap),
           trans = word_at(buf + 16, swap);
  if (!table_fits(buf, len, orig, n, swap) || !table_fits(buf, len, trans, n, swap))
    return eg_err_set(err, EG_EINVAL, "message catalogue: a table lies outside the file");
  for (uint32_t i = 0; i < n; i++) {
    const unsigned char *o = buf + orig + 8 * (size_t)i, *t = buf + trans + 8 * (size_t)i;
    if (word_at(o, swap) == 0) continue; /* the header */
    const char *s = (const char *)buf + word_at(t + 4, swap);
    size_t n1 = strlen(s); /* up to the first NUL: the singular */
    if (n1 && !visit(ctx, s, n1)) break;
  }
  return EG_OK;
}

eg_code eg_catalog_read(const char *path, eg_catalog_visit visit, void *ctx, eg_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return eg_err_set(err, errno == ENOENT ? EG_ENOTFOUND : EG_EIO, "%s: %s", path,
                      strerror(errno));
  unsigned char *buf = NULL;
  size_t len = 0, cap = 0;
  eg_code rc = EG_OK;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 1 << 16;
      unsigned char *nb = realloc(buf, cap);
      if (!nb) {
        rc = eg_err_set(err, EG_ENOMEM, "out of memory");
        break;
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) {
      if (ferror(f)) rc = eg_err_set(err, EG_EIO, "%s: read error", path);
      break;
    }
  }
  fclose(f);
  if (!rc) {
    rc = eg_catalog_parse(buf, len, visit, ctx, err);
    if (rc) {
      char why[sizeof err->msg];
      snprintf(why, sizeof why, "%s", err->msg);
      eg_err_set(err, rc, "%s: %s", path, why);
    }
  }
  free(buf);
  return rc;
}
