/*
 * fuzz.c — see fuzz.h.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>

const char *eg_fuzz_tempdir(const char *what) {
  static char path[512];
  const char *tmp = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/engram-fuzz-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
  if (!mkdtemp(path)) {
    perror("mkdtemp");
    exit(1);
  }
  return path;
}
