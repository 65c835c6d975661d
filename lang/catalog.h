/*
 * catalog.h — the translations of a GNU gettext message catalogue (a compiled .mo file).
 *
 * Debian ships GeoNames' city names as such a catalogue (libgeonames-common: the English
 * names of some 26,000 of the world's towns, CC BY 4.0, keyed by their GeoNames ids), which
 * the state extractor reads as a gazetteer: "Norwich" and "Pune", missing from WordNet, are
 * towns. Only the format is read here; what the strings mean is the caller's.
 */
#ifndef EG_LANG_CATALOG_H
#define EG_LANG_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/* Called once per non-empty translation (the header entry, whose original is "", is skipped):
 * s[0..n) (borrowed for the call; NUL-terminated at n). Plural forms after the first are not
 * visited. Return false to stop. */
typedef bool (*eg_catalog_visit)(void *ctx, const char *s, size_t n);

/* Visit the translations of the catalogue buf[0..len) (either byte order). EG_EINVAL when it
 * is no catalogue or a table or string lies outside it (nothing is visited then). */
eg_code eg_catalog_parse(const unsigned char *buf, size_t len, eg_catalog_visit visit, void *ctx,
                         eg_err *err);

/* The same for the file at path: EG_ENOTFOUND when there is none, EG_EIO when it cannot be
 * read. */
eg_code eg_catalog_read(const char *path, eg_catalog_visit visit, void *ctx, eg_err *err);

#endif
