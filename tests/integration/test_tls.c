/*
 * test_tls.c — TLS on every port: the four daemons serve gRPC and /metrics with a
 * certificate made here by openssl (a throw-away CA, a server certificate for 127.0.0.1)
 * and call each other over TLS, with bearer tokens on top. A client that trusts the CA
 * ingests and recalls; a plaintext client and a client trusting another CA get nowhere;
 * /metrics answers over HTTPS only; mismatched certificate options refuse to start.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "common/rpc.h"
#include "common/time.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

static eg_cluster cl;
static char *dir;
static char ca_flag[700], cert_flag[700], key_flag[700], ca_path[600], rogue_path[600];

static const char *const keygen = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";

static void make_certificates(void) {
  dir = eg_test_tempdir("engram-tls");
  EG_REQUIRE(dir != NULL);
  EG_REQUIRE(eg_test_system("cd %s && openssl req -x509 %s -keyout ca.key -out ca.pem -days 2 "
                            "-subj /CN=engram-test-ca "
                            ">/dev/null 2>&1",
                            dir, keygen) == 0);
  EG_REQUIRE(eg_test_system(
                 "cd %s && openssl req %s -keyout server.key -out server.csr -subj /CN=localhost "
                 ">/dev/null 2>&1",
                 dir, keygen) == 0);
  EG_REQUIRE(
      eg_test_system("cd %s && printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > san.ext && "
                     "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
                     "-out server.pem "
                     "-days 2 -extfile san.ext >/dev/null 2>&1",
                     dir) == 0);
  EG_REQUIRE(
      eg_test_system(
          "cd %s && openssl req -x509 %s -keyout rogue.key -out rogue.pem -days 2 -subj /CN=rogue "
          ">/dev/null 2>&1",
          dir, keygen) == 0);
  snprintf(ca_path, sizeof ca_path, "%s/ca.pem", dir);
  snprintf(rogue_path, sizeof rogue_path, "%s/rogue.pem", dir);
  snprintf(ca_flag, sizeof ca_flag, "--tls-ca-file=%s", ca_path);
  snprintf(cert_flag, sizeof cert_flag, "--tls-cert-file=%s/server.pem", dir);
  snprintf(key_flag, sizeof key_flag, "--tls-key-file=%s/server.key", dir);
}

static eg_rpc_client *client(int daemon, const char *ca_file) {
  eg_rpc_client_opts o = {.token = "tls-user-token",
                          .tls_ca_file = ca_file,
                          .max_attempts = 1,
                          .timeout_us = 5 * EG_US_PER_SEC};
  eg_rpc_client *c = NULL;
  eg_err e;
  return eg_rpc_client_open(cl.d[daemon].addr, &o, &c, &e) ? NULL : c;
}

static long https_status(int port, const char *ca_file, bool https) {
  CURL *h = curl_easy_init();
  char url[128];
  snprintf(url, sizeof url, "%s://127.0.0.1:%d/metrics", https ? "https" : "http", port);
  curl_easy_setopt(h, CURLOPT_URL, url);
  if (ca_file) curl_easy_setopt(h, CURLOPT_CAINFO, ca_file);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 3000L);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, fwrite);
  FILE *null = fopen("/dev/null", "w");
  curl_easy_setopt(h, CURLOPT_WRITEDATA, null);
  long status = -1;
  if (curl_easy_perform(h) == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  fclose(null);
  curl_easy_cleanup(h);
  return status;
}

static void test_start(void) {
  make_certificates();
  char digest[72], tokens[200];
  eg_auth_digest_line("tls-user-token", digest);
  snprintf(tokens, sizeof tokens, "--auth-tokens=tls %s", digest);
  const char *extra[] = {cert_flag, key_flag, ca_flag, tokens, "--service-token=tls-service", NULL};
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, extra, &e) == EG_OK);
}

static void test_trusted_client(void) {
  eg_rpc_client *ing = client(EG_INGESTD, ca_path), *rec = client(EG_RECALLD, ca_path);
  EG_REQUIRE(ing && rec);
  const char *const msgs[] = {"user", "My cat Quimby likes the window seat.", "assistant",
                              "Cats love sun."};
  eg_err e;
  EG_CHECK_INT(
      ic_session(ing, "tls", "u1", "s1", T("2024-02-01T10:00:00Z"), msgs, 2, false, NULL, &e),
      EG_OK);
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "tls";
  scope.user = "u1";
  Engram__V1__RecallRequest rq = ENGRAM__V1__RECALL_REQUEST__INIT;
  rq.scope = &scope;
  rq.query = "What is my cat called?";
  Engram__V1__RecallResponse *r = NULL;
  EG_CHECK_INT(eg_recalld_recall(rec, &rq, &r, &e), EG_OK);
  EG_CHECK(r && strstr(r->context, "Quimby"));
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  eg_rpc_client_close(ing);
  eg_rpc_client_close(rec);
}

static void test_untrusted_clients(void) {
  char not_a_cert[700];
  snprintf(not_a_cert, sizeof not_a_cert, "%s/san.ext", dir); /* a text file, no certificate */
  for (int d = 0; d < EG_N_DAEMONS; d++) {
    int status = 0;
    eg_err e;
    EG_CHECK(eg_health_at(cl.d[d].addr, "", &status, &e) != EG_OK); /* plaintext */
    EG_CHECK(eg_health_at_tls(cl.d[d].addr, "", not_a_cert, &status, &e) != EG_OK);
    EG_CHECK(eg_health_at_tls(cl.d[d].addr, "", rogue_path, &status, &e) != EG_OK);
  }
}

static void test_metrics_https(void) {
  for (int d = 0; d < EG_N_DAEMONS; d++) {
    EG_CHECK_INT(https_status(cl.d[d].metrics_port, ca_path, true), 200);
    EG_CHECK(https_status(cl.d[d].metrics_port, rogue_path, true) != 200);
    EG_CHECK(https_status(cl.d[d].metrics_port, NULL, false) != 200);
  }
}

static void test_bad_options(void) {
  eg_proc p;
  eg_err e;
  char sub[700];
  EG_CHECK_INT(eg_test_system("mkdir -p %s/b1 %s/b2", dir, dir), 0);
  const char *cert_only[] = {cert_flag, NULL};
  snprintf(sub, sizeof sub, "%s/b1", dir);
  EG_CHECK(eg_harness_start("graphd", sub, cert_only, &p, &e) != EG_OK);
  char *log = eg_test_slurp(p.log);
  EG_CHECK(log && strstr(log, "tls_cert_file and tls_key_file go together"));
  free(log);
  char swapped[700];
  snprintf(swapped, sizeof swapped, "--tls-key-file=%s/ca.pem",
           dir); /* a certificate where the key goes */
  const char *wrong[] = {cert_flag, swapped, NULL};
  snprintf(sub, sizeof sub, "%s/b2", dir);
  EG_CHECK(eg_harness_start("graphd", sub, wrong, &p, &e) != EG_OK);
}

int main(void) {
  eg_rpc_global_init();
  curl_global_init(CURL_GLOBAL_DEFAULT);
  EG_RUN(test_start);
  EG_RUN(test_trusted_client);
  EG_RUN(test_untrusted_clients);
  EG_RUN(test_metrics_https);
  EG_RUN(test_bad_options);
  eg_cluster_stop(&cl, eg_test_failed());
  if (dir && !eg_test_failed()) eg_test_rmtree(dir);
  free(dir);
  curl_global_cleanup();
  eg_rpc_global_shutdown();
  return eg_test_finish();
}
