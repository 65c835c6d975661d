/*
 * fuzz_catalog.c — GNU gettext catalogues (the state extractor's gazetteer). Properties: a
 * catalogue is read whole or not at all (EG_OK or EG_EINVAL, nothing visited on EG_EINVAL);
 * every string visited lies within the input (ASan), is as long as said and holds no NUL.
 */
#include <string.h>

#include "lang/catalog.h"
#include "tests/fuzz/fuzz.h"

typedef struct span {
  const uint8_t *data;
  size_t size, visited;
} span;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return 0;
}

static bool visit(void *ctx, const char *s, size_t n) {
  span *sp = ctx;
  const uint8_t *p = (const uint8_t *)s;
  eg_fuzz_check(p >= sp->data && p + n < sp->data + sp->size, "string within the input");
  eg_fuzz_check(n > 0 && strlen(s) == n, "length as said");
  sp->visited++;
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  span sp = {data, size, 0};
  eg_err e;
  eg_code rc = eg_catalog_parse(data, size, visit, &sp, &e);
  eg_fuzz_check(rc == EG_OK || rc == EG_EINVAL, "EG_OK or EG_EINVAL");
  eg_fuzz_check(rc == EG_OK || sp.visited == 0, "nothing visited when refused");
  return 0;
}
