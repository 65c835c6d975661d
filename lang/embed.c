/*
 * embed.c — embedder selection by spec, and shared vector helpers.
 */
#include "lang/embed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void eg_l2_normalize(float *v, int d) {
  double s = 0;
  for (int i = 0; i < d; i++) s += (double)v[i] * v[i];
  if (s <= 0) return;
  float inv = (float)(1.0 / sqrt(s));
  for (int i = 0; i < d; i++) v[i] *= inv;
}

void eg_embedder_spec(const char *name, const char *models_dir, char *out, size_t len) {
  if (!strcmp(name, "use-lite") || !strcmp(name, "use-lite32"))
    snprintf(out, len, "%s:%s/use-lite.bin", strcmp(name, "use-lite") ? "use32" : "use",
             models_dir);
  else if (!strcmp(name, "glove"))
    snprintf(out, len, "glove:%s/glove-100d.bin", models_dir);
  else
    snprintf(out, len, "%s", name);
}

eg_code eg_embedder_open(const char *spec, eg_embedder **out, eg_err *err) {
  if (!spec || !*spec) return eg_err_set(err, EG_EINVAL, "empty embedder spec");
  if (strncmp(spec, "glove:", 6) == 0) return eg_embed_glove_open(spec + 6, out, err);
  if (strncmp(spec, "use:", 4) == 0) return eg_embed_use_open(spec + 4, false, out, err);
  if (strncmp(spec, "use32:", 6) == 0) return eg_embed_use_open(spec + 6, true, out, err);
  if (strncmp(spec, "http:", 5) == 0) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec + 5);
    char *model = strchr(buf, '|');
    char *dim = model ? strchr(model + 1, '|') : NULL;
    if (!model || !dim)
      return eg_err_set(err, EG_EINVAL, "http embedder spec is http:<url>|<model>|<dim>");
    *model++ = '\0';
    *dim++ = '\0';
    int d = atoi(dim);
    if (d <= 0 || d > 8192)
      return eg_err_set(err, EG_EINVAL, "http embedder dimension must be 1..8192");
    return eg_embed_http_open(buf, model, d, getenv("ENGRAM_EMBED_API_KEY"), 30000, out, err);
  }
  return eg_err_set(err, EG_EINVAL, "unknown embedder '%.40s' (use:…, glove:…, http:…)", spec);
}

void eg_embedder_close(eg_embedder *e) {
  if (!e) return;
  e->ops->close(e->self);
  free(e);
}
