/*
 * fuzz.h — what the libFuzzer targets share: the entry points, a temp directory, and a
 * check that aborts (so libFuzzer keeps the input) when a property does not hold.
 */
#ifndef EG_FUZZ_H
#define EG_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fresh directory under $TMPDIR (or /tmp) named engram-fuzz-<what>-XXXXXX; exits on failure. */
const char *eg_fuzz_tempdir(const char *what);

static inline void eg_fuzz_check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "fuzz property failed: %s\n", what);
    abort();
  }
}

#endif
